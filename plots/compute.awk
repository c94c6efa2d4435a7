# compute.awk: turns results.csv's --compute rows into gnuplot data and one driver per picture
# under `tmp`; prints the drivers' paths on stdout. Load csv.awk, style.awk and labels.awk first.
#   awk -f csv.awk -f style.awk -f labels.awk -f compute.awk -v tmp=DIR -v out=RUN/plots \
#     -v gpdir=plots RUN/results.csv
#
# Rows with a load (a number in span_us_median, status ok): one picture per (scenario, size),
# compute_<size>[_<scenario>]: per schedule (algorithm/transport; its transports side by side,
# ce first, then sm, ll, nccl-p2p and nccl, so the copy engines, the SM transports and NCCL read
# at a glance) three bars with their 95% intervals, the AllReduce alone (time_us_*), the load
# alone (compute_us_*) and the step with both (span_us_*), and above them the AllReduce's and
# the load's slowdowns and the hidden share; the title says the placement (co-located ranks put
# every rank's load on their one GPU). A file without the compute columns draws nothing.

# tp_rank(t): where transport t's schedules stand: the copy engines, the SMs, then NCCL's
function tp_rank(t) { return t == "ce" ? 1 : t == "sm" ? 2 : t == "ll" ? 3 : t == "nccl-p2p" ? 4 : t == "nccl" ? 5 : 6 }

# three(f, p): "median lo hi" of columns p_median, p_ci_lo, p_ci_hi (NaN where empty)
function three(f, p,    m, lo, hi) {
    m = get(f, col, p "_median", ""); lo = get(f, col, p "_ci_lo", ""); hi = get(f, col, p "_ci_hi", "")
    return (is_num(m) ? m : "NaN") " " (is_num(lo) ? lo : "NaN") " " (is_num(hi) ? hi : "NaN")
}

FNR == 1 { csv_header($0, col); on = ("span_us_median" in col); next }

!on || /^[ \t\r]*$/ { next }

{
    csv_split($0, f)
    b = get(f, col, "bytes", ""); sp = get(f, col, "span_us_median", "")
    if (!is_num(b) || !is_num(sp) || tolower(get(f, col, "status", "")) != "ok") next
    scen = clean_text(get(f, col, "scenario", "")); alg = clean_text(get(f, col, "algorithm", "?"))
    tp = clean_text(get(f, col, "transport", "?"))
    pk = scen SUBSEP (b + 0)
    if (!(pk in P)) { P[pk] = ++NP; P_b[NP] = b; P_s[NP] = scen; P_pl[NP] = clean_text(get(f, col, "placement", "")) }
    p = P[pk]
    k = ++NS[p]
    R_name[p, k] = series_name(alg, tp)
    R_key[p, k] = sprintf("%d\001%s", tp_rank(tp), R_name[p, k])
    R_dat[p, k] = three(f, "time_us") " " three(f, "compute_us") " " three(f, "span_us")
    R_lab[p, k] = sprintf("AR x%.2f, load x%.2f, hidden %.0f%%", get(f, col, "allreduce_slowdown", "0"),
                          get(f, col, "compute_slowdown", "0"), 100 * get(f, col, "hidden_share", "0"))
    R_load[p, k] = clean_text(get(f, col, "compute", ""))
}

END {
    for (p = 1; p <= NP; p++) {
        for (k = 1; k <= NS[p]; k++) idx[k] = k
        for (i = 2; i <= NS[p]; i++) # insertion sort by transport, then name
            for (j = i; j > 1 && R_key[p, idx[j - 1]] > R_key[p, idx[j]]; j--) { t = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = t }
        name = "compute_" size_label(P_b[p], "")
        if (P_s[p] != "") name = name "_" fname(P_s[p])
        dat = tmp "/" name ".dat"; drv = tmp "/" name ".gp"
        # per schedule: x, "name", then the AllReduce alone, the load alone and the span
        # (median lo hi each), then the line of slowdowns
        printf "" > dat
        kind = R_load[p, idx[1]]; sub(/:.*/, "", kind)
        for (i = 1; i <= NS[p]; i++)
            printf "%d \"%s\" %s \"%s\"\n", i, R_name[p, idx[i]], R_dat[p, idx[i]], R_lab[p, idx[i]] > dat
        close(dat)
        ttl = "Beside " kind ": the AllReduce alone, the load alone and both, " size_label(P_b[p], " ")
        if (P_s[p] != "") ttl = ttl ", scenario " P_s[p]
        # where it ran: ranks sharing a GPU share it with every rank's load too
        pl = P_pl[p] == "" ? "1 rank/GPU" : P_pl[p]
        # "  |  ": where common.gp breaks a long title into lines
        ttl = ttl "  |  " pl (pl ~ /^1 rank\/GPU/ ? "" : " (co-located: every rank's AllReduce and load on one GPU)")
        printf "gpdir = %s\nout = %s\ndata = %s\nptitle = %s\nnser = %d\n", gq(gpdir), gq(out "/" name), gq(dat),
               gq(ttl), NS[p] > drv
        printf "load '%s/common.gp'\nload '%s/compute.gp'\n", gpdir, gpdir > drv
        close(drv)
        print drv
    }
}
