# runinfo.awk: what configs/run-main.sh must know of an earlier run folder before taking it as
# the baseline: prints one line "ROWS<TAB>PLACEMENT<TAB>GPUS". Load csv.awk first.
#   awk -f csv.awk -f runinfo.awk RUN/meta.txt RUN/results.csv   (/dev/null for a missing meta.txt)
# ROWS: measured rows (source other than model, any status): 0 for a model-mode folder.
# PLACEMENT: meta.txt's "placement: X (details)" (X), else the placement column's value (several
# values joined by ";"), else "1 rank/GPU" (runs from before the column).
# GPUS: the distinct devices of meta.txt's "rank R: device D, ..." lines, else for one rank per
# GPU the rank count (meta.txt's n_gpus, else the n_gpus column), for K ranks/GPU the rank count
# / K; "?" when none of these tells.

FILENAME == ARGV[1] {
    if (sub(/^placement:[ \t]*/, "")) { sub(/[ \t]*\(.*$/, ""); if (meta_pl == "") meta_pl = trim($0) }
    else if ($0 ~ /^rank [0-9]+: device [0-9]+/) { d = $4; sub(/[^0-9].*$/, "", d); if (!(d in dev)) { dev[d] = 1; ndev++ } }
    else if ($0 ~ /^n_gpus:[ \t]*[0-9]+/) meta_n = $2 + 0
    next
}

FNR == 1 { csv_header($0, col); next }
/^[ \t\r]*$/ { next }

{
    csv_split($0, f)
    if (tolower(get(f, col, "source", "gpu")) == "model") next
    rows++
    p = get(f, col, "placement", "1 rank/GPU")
    if (!(p in seen_pl)) { seen_pl[p] = 1; col_pl = col_pl (col_pl == "" ? "" : ";") p }
    if (csv_n == "") csv_n = get(f, col, "n_gpus", "")
}

END {
    pl = meta_pl != "" ? meta_pl : col_pl != "" ? col_pl : "1 rank/GPU"
    n = meta_n != "" ? meta_n : csv_n
    g = "?"
    if (ndev > 0) g = ndev
    else if (is_num(n) && pl == "1 rank/GPU") g = n + 0
    else if (is_num(n) && match(pl, /^[0-9]+ ranks\/GPU$/) && n % (pl + 0) == 0) g = n / (pl + 0)
    printf "%d\t%s\t%s\n", rows, pl, g
}
