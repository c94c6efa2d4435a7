# phases.awk: turns a run folder's phases.csv (arbench run --phases) into gnuplot data and one
# driver per picture under `tmp`; prints the drivers' paths on stdout. Load csv.awk, style.awk
# and labels.awk (the charts' names) first.
#   awk -f csv.awk -f style.awk -f labels.awk -f phases.awk -v tmp=DIR -v out=RUN/plots -v gpdir=plots RUN/phases.csv
#
# Columns, by name: algorithm, transport, bytes, rank, phase, start_us, end_us (required);
# scenario [""], delay_us [0], iteration [""] (optional). One picture per (scenario, size,
# delay): phases_<size>[_<scenario>][_d<delay>ms][_<part>], a Gantt chart per algorithm and
# transport (one row per rank, one box per phase, a colour per phase), at most 6 charts per
# picture, sharing one time axis so that the algorithms of a size compare at a glance.
# Phases inside the collective (precondition, then round N and reduce) are drawn as thinner
# boxes on top of the collective's box; a box is labelled with its length where that fits.

# colour(ph): the phase's colour (the NVTX ranges' colours, harness/nvtx.c)
function colour(ph,    w) {
    split(ph, w, " ")
    if (w[1] == "delay") return "#d62728"
    if (w[1] == "precondition") return "#ff7f0e"
    if (w[1] == "allreduce") return "#1f77b4"
    if (w[1] == "round") return (w[2] % 2) ? "#98df8a" : "#2ca02c"
    if (w[1] == "reduce") return "#9467bd"
    return "#8c564b"
}

# level(ph): how deep the phase sits: 0 the collective's level (delay, allreduce), 1 the
# precondition inside it, 2 rounds and reduce kernels (each level a thinner box on top)
function level(ph) { return ph ~ /^precondition/ ? 1 : ph ~ /^(round|reduce)/ ? 2 : 0 }

# legend_name(ph): the key's entry for a phase (every round is one entry)
function legend_name(ph) { return ph ~ /^round/ ? "round (alternating shades)" : ph }

# rgb_int(hex): "#rrggbb" as the integer gnuplot's `lc rgb variable` reads
function rgb_int(h,    i, v, d) {
    v = 0
    for (i = 2; i <= 7; i++) { d = index("0123456789abcdef", tolower(substr(h, i, 1))) - 1; v = v * 16 + d }
    return v
}

FNR == 1 {
    csv_header($0, col)
    if (csv_missing(col, "algorithm transport bytes rank phase start_us end_us", "plot.sh") != "") { bad = 1; exit 1 }
    next
}

/^[ \t\r]*$/ { next }

{
    csv_split($0, f)
    b = get(f, col, "bytes", ""); r = get(f, col, "rank", ""); s0 = get(f, col, "start_us", "")
    s1 = get(f, col, "end_us", "")
    if (!is_num(b) || !is_num(r) || !is_num(s0) || !is_num(s1) || s1 + 0 < s0 + 0) { skipped++; next }
    ph = clean_text(get(f, col, "phase", "?"))
    scen = clean_text(get(f, col, "scenario", ""))
    d = get(f, col, "delay_us", "0"); if (!is_num(d)) d = 0
    pan = series_name(clean_text(get(f, col, "algorithm", "?")), clean_text(get(f, col, "transport", "?")))
    pk = scen SUBSEP b SUBSEP (d + 0)
    if (!(pk in P)) { P[pk] = ++NP; P_b[NP] = b; P_s[NP] = scen; P_d[NP] = d + 0; P_it[NP] = get(f, col, "iteration", "") }
    p = P[pk]
    if (!((p, pan) in PAN)) { PAN[p, pan] = ++NPAN[p]; PAN_name[p, NPAN[p]] = pan }
    k = PAN[p, pan]
    n = ++NR_[p, k]
    R_r[p, k, n] = r + 0; R_a[p, k, n] = s0 + 0; R_e[p, k, n] = s1 + 0; R_ph[p, k, n] = ph
    if (r + 1 > NRANK[p]) NRANK[p] = r + 1
    if (s1 + 0 > XMAX[p]) XMAX[p] = s1 + 0
    if (s1 + 0 > PEND[p, k]) PEND[p, k] = s1 + 0
    if (!((p, legend_name(ph)) in LEG)) {
        LEG[p, legend_name(ph)] = ++NLEG[p]; LEG_name[p, NLEG[p]] = legend_name(ph)
        LEG_col[p, NLEG[p]] = ph ~ /^round/ ? "#2ca02c" : colour(ph)
    }
}

# emit(p, first, last, part): the data and driver of picture p's charts first..last
function emit(p, first, last, part,    name, dat, drv, k, n, j, m, pass, ms, sc, unit, w, lab, x0, x1, c, hw, ttl) {
    name = "phases_" size_label(P_b[p], "")
    if (P_s[p] != "") name = name "_" fname(P_s[p])
    if (P_d[p] > 0) name = name "_d" fname(num_str(P_d[p] / 1000)) "ms"
    if (part > 0) name = name "_" part
    dat = tmp "/" name ".dat"; drv = tmp "/" name ".gp"
    ms = XMAX[p] > 20000; sc = ms ? 1000 : 1; unit = ms ? "ms" : "us"
    printf "" > dat
    for (k = first; k <= last; k++) {
        # boxes: the collective's level first, the phases inside it on top
        for (pass = 0; pass < 3; pass++)
            for (n = 1; n <= NR_[p, k]; n++) {
                if (level(R_ph[p, k, n]) != pass) continue
                w = pass == 0 ? 0.36 : pass == 1 ? 0.25 : 0.13
                printf "%d %.6g %.6g %.3f %.3f %d\n", R_r[p, k, n], R_a[p, k, n] / sc, R_e[p, k, n] / sc,
                       R_r[p, k, n] - w, R_r[p, k, n] + w, rgb_int(colour(R_ph[p, k, n])) > dat
            }
        printf "\n\n" > dat
        # labels: the length of each outer box where the text fits in it and no box inside
        # covers it (a character is about 1/115 of the axis); a dummy keeps the block
        printf "%.6g %d \"\"\n", 0, 0 > dat
        for (n = 1; n <= NR_[p, k]; n++) {
            if (level(R_ph[p, k, n])) continue
            x0 = R_a[p, k, n]; x1 = R_e[p, k, n]
            lab = (x1 - x0) >= 1000 ? sprintf("%s %.2f ms", R_ph[p, k, n], (x1 - x0) / 1000) \
                                    : sprintf("%s %.1f us", R_ph[p, k, n], x1 - x0)
            c = (x0 + x1) / 2; hw = (length(lab) + 2) * XMAX[p] / 115 / 2
            if (x1 - x0 < 2 * hw) continue
            for (m = 1; m <= NR_[p, k]; m++)
                if (level(R_ph[p, k, m]) && R_r[p, k, m] == R_r[p, k, n] && R_a[p, k, m] < c + hw && R_e[p, k, m] > c - hw) break
            if (m <= NR_[p, k]) continue
            printf "%.6g %d \"%s\"\n", c / sc, R_r[p, k, n], lab > dat
        }
        printf "\n\n" > dat
    }
    close(dat)
    ttl = "Phases of one iteration" (P_it[p] != "" ? " (timed iteration " P_it[p] ")" : "") ", " size_label(P_b[p], " ")
    ttl = ttl (P_d[p] > 0 ? ", straggler delay " num_str(P_d[p] / 1000) " ms" : ", no straggler")
    if (P_s[p] != "") ttl = ttl ", scenario " P_s[p]
    if (part > 0) ttl = ttl " (part " part ")"
    printf "gpdir = %s\nout = %s\ndata = %s\nptitle = %s\n", gq(gpdir), gq(out "/" name), gq(dat), gq(ttl) > drv
    printf "npan = %d\nnranks = %d\nxmax = %.6g\nxunit = %s\nnleg = %d\n", last - first + 1, NRANK[p],
           XMAX[p] / sc, gq(unit), NLEG[p] > drv
    for (k = first; k <= last; k++)
        printf "pt%d = %s\n", k - first + 1,
               gq(PAN_name[p, k] ": last rank done at " (ms ? sprintf("%.3f ms", PEND[p, k] / 1000) : sprintf("%.1f us", PEND[p, k]))) > drv
    for (j = 1; j <= NLEG[p]; j++) printf "ln%d = %s\nlc%d = %s\n", j, gq(LEG_name[p, j]), j, gq(LEG_col[p, j]) > drv
    printf "load '%s/common.gp'\nload '%s/phases.gp'\n", gpdir, gpdir > drv
    close(drv)
    print drv
}

END {
    if (bad) exit 1
    for (p = 1; p <= NP; p++) {
        parts = int((NPAN[p] + 5) / 6)
        for (q = 0; q < parts; q++)
            emit(p, q * 6 + 1, (q + 1) * 6 < NPAN[p] ? (q + 1) * 6 : NPAN[p], parts > 1 ? q + 1 : 0)
    }
    if (skipped) print "plot.sh: phases.csv: " skipped " malformed lines skipped" > "/dev/stderr"
}
