# overlap.awk: turns a run folder's overlap.csv (arbench run --profile overlap) into gnuplot
# data and one driver per picture under `tmp`; prints the drivers' paths on stdout. Load
# csv.awk, style.awk and labels.awk (the series' names) first.
#   awk -f csv.awk -f style.awk -f labels.awk -f overlap.awk -v tmp=DIR -v out=RUN/plots -v gpdir=plots RUN/overlap.csv
#
# Columns, by name: algorithm, transport, bytes, rank, overlap_reduce_pct, overlap_delay_pct
# (required); scenario [""] (optional). One picture per (scenario, size):
# overlap_<size>[_<scenario>]: per algorithm/transport two bars, the share of copy time that
# ran concurrently with reduction kernels and with the straggler's delay (the mean over the
# ranks that copied, written on the bar), each rank's share a dot on its bar. A share no rank
# has (empty fields) is left out of its mean; a series with neither share is not drawn. A fused
# kernel (sm, ll: the copy is the reduction, copy_us == reduce_us on every rank that copied) has
# no reduction share to show: its bar says "fused kernel" instead of 100%.

# acc(key, v): adds a rank's share to key's sum and list
function acc(key, v) {
    SUM[key] += v; VAL[key, ++CNT[key]] = v + 0
}

# mean(key): the mean share of key, or NaN when no rank had it
function mean(key) { return (key in CNT) ? sprintf("%.4g", SUM[key] / CNT[key]) : "NaN" }

FNR == 1 {
    csv_header($0, col)
    if (csv_missing(col, "algorithm transport bytes rank overlap_reduce_pct overlap_delay_pct", "plot.sh") != "") { bad = 1; exit 1 }
    next
}

/^[ \t\r]*$/ { next }

{
    csv_split($0, f)
    b = get(f, col, "bytes", "")
    if (!is_num(b)) { skipped++; next }
    rp = get(f, col, "overlap_reduce_pct", ""); dp = get(f, col, "overlap_delay_pct", "")
    if (!is_num(rp) && !is_num(dp)) next   # a rank that copied nothing
    scen = clean_text(get(f, col, "scenario", ""))
    cp = get(f, col, "copy_us", ""); rd = get(f, col, "reduce_us", "")
    ser = series_name(clean_text(get(f, col, "algorithm", "?")), clean_text(get(f, col, "transport", "?")))
    pk = scen SUBSEP (b + 0)
    if (!(pk in P)) { P[pk] = ++NP; P_b[NP] = b; P_s[NP] = scen }
    p = P[pk]
    if (!((p, ser) in SER)) { SER[p, ser] = ++NS[p]; SER_name[p, NS[p]] = ser }
    k = SER[p, ser]
    # a rank whose copy time is its reduction time ran one fused kernel
    if (is_num(cp) && cp + 0 > 0) { COPIED[p, k]++; if (is_num(rd) && cp - rd < 0.0005 && rd - cp < 0.0005) FUSED[p, k]++ }
    if (is_num(rp)) acc(p SUBSEP k SUBSEP "r", rp)
    if (is_num(dp)) acc(p SUBSEP k SUBSEP "d", dp)
}

END {
    if (bad) exit 1
    for (p = 1; p <= NP; p++) {
        name = "overlap_" size_label(P_b[p], "")
        if (P_s[p] != "") name = name "_" fname(P_s[p])
        dat = tmp "/" name ".dat"; drv = tmp "/" name ".gp"
        # block 0: per series its two means and "fused" or "-"; blocks 1 and 2: each rank's
        # shares as dots (a fused kernel's reduction share is none)
        printf "" > dat
        for (k = 1; k <= NS[p]; k++) {
            fu = COPIED[p, k] > 0 && FUSED[p, k] == COPIED[p, k]
            printf "%d \"%s\" %s %s %s\n", k, SER_name[p, k], fu ? "NaN" : mean(p SUBSEP k SUBSEP "r"),
                   mean(p SUBSEP k SUBSEP "d"), fu ? "fused" : "-" > dat
            if (fu) delete CNT[p SUBSEP k SUBSEP "r"]
        }
        for (w = 1; w <= 2; w++) {
            printf "\n\n" > dat
            key = ""
            for (k = 1; k <= NS[p]; k++) {
                key = p SUBSEP k SUBSEP (w == 1 ? "r" : "d")
                for (j = 1; j <= CNT[key]; j++) printf "%.4g %.4g\n", k + (w == 1 ? -0.19 : 0.19), VAL[key, j] > dat
            }
            printf "NaN NaN\n" > dat   # a block is never empty
        }
        close(dat)
        ttl = "Copy time overlapped with reduction and with the straggler delay, " size_label(P_b[p], " ")
        if (P_s[p] != "") ttl = ttl ", scenario " P_s[p]
        printf "gpdir = %s\nout = %s\ndata = %s\nptitle = %s\nnser = %d\n", gq(gpdir), gq(out "/" name), gq(dat),
               gq(ttl), NS[p] > drv
        printf "load '%s/common.gp'\nload '%s/overlap.gp'\n", gpdir, gpdir > drv
        close(drv)
        print drv
    }
    if (skipped) print "plot.sh: overlap.csv: " skipped " malformed lines skipped" > "/dev/stderr"
}
