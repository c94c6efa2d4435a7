# runinfo.awk: what configs/run-main.sh must know of an earlier run folder before taking it as
# the baseline: prints one line "ROWS<TAB>PLACEMENT<TAB>GPUS". Load csv.awk first.
#   awk -f csv.awk -f runinfo.awk RUN/meta.txt RUN/results.csv   (/dev/null for a missing meta.txt)
# ROWS: measured rows (source other than model, any status): 0 for a model-mode folder.
# PLACEMENT: meta.txt's "placement: X (GPU ...)" (X, hosts and all: "1 rank/GPU on 2 hosts
# (rehearsed on one)"), else the placement column's value (several values joined by ";"), else
# "1 rank/GPU" (runs from before the column).
# GPUS: the distinct devices of meta.txt's "rank R: [host H, process P, ]device D, ..." lines (a
# device per machine: rehearsed hosts "vm/h0", "vm/h1" share machine vm), else for K ranks/GPU
# (on any hosts) the rank count (meta.txt's n_gpus, else the n_gpus column) / K; "?" when none
# of these tells.

FILENAME == ARGV[1] {
    if (sub(/^placement:[ \t]*/, "")) { sub(/[ \t]*\(GPU .*$/, ""); if (meta_pl == "") meta_pl = trim($0) }
    else if ($0 ~ /^rank [0-9]+: .*device [0-9]+/) {
        d = $0; sub(/^.*device /, "", d); sub(/[^0-9].*$/, "", d)
        m = ""; if (match($0, /host [^,]*/)) { m = substr($0, RSTART + 5, RLENGTH - 5); sub(/\/.*$/, "", m) }
        if (!((m, d) in dev)) { dev[m, d] = 1; ndev++ }
    }
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
    else if (is_num(n) && match(pl, /^[0-9]+ ranks?\/GPU( on |$)/) && pl + 0 > 0 && n % (pl + 0) == 0) g = n / (pl + 0)
    printf "%d\t%s\t%s\n", rows, pl, g
}
