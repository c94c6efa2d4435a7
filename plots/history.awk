# history.awk: the trend across nights of the run folders history.sh lists, with a verdict per
# series. Load csv.awk, style.awk, labels.awk (the series' names), stats.awk and rowkind.awk first.
#   awk -f csv.awk -f style.awk -f labels.awk -f stats.awk -f rowkind.awk -f history.awk -v tmp=DIR -v out=DIR \
#       -v gpdir=DIR -v sizes=BYTES,... -v algos=LIST MANIFEST RUN/results.csv [RUN/critical.csv] ...
# MANIFEST: a line per night and group, by time (nightinfo.awk's, without its sort key):
# DIR<TAB>GROUP<TAB>GROUP IN WORDS<TAB>DATE<TAB>TIME<TAB>KIND. A group is one machine, GPU count,
# placement, source (an import folder is never an arbench night), dtype and timing method: runs
# of different groups never share a trend. -v left=FILE: history.sh's lines on the run folders it
# left out (INCOMPLETE or FAILED), listed in history.md.
# Metrics per night: algbw (GB/s, clean rows, per algorithm/transport and size: higher is
# better), critical (critical.csv's measured delay in ms per size: lower is better; a size where
# the straggler-aware algorithm never won is "never", at the search's bound) and degraded (a
# degraded row's median over OPTCC's lower bound, per algorithm/transport, factor and size: lower
# is better). The verdict of a series (docs/statistics.md, Regressions; docs/morning.md): its
# last night against the night before it, by their intervals (stats.awk's regression_verdict)
# and beyond the earlier nights' spread; without intervals by the spread alone. Writes
# OUT/history.csv and history.md; prints the pictures' drivers.

FNR == 1 && FILENAME == ARGV[1] { role = "manifest" }
role == "manifest" && FILENAME == ARGV[1] {
    split($0, m, "\t")
    if (!(m[1] in DIR_RUN)) { NRUN++; DIR_RUN[m[1]] = NRUN; RUN_DIR[NRUN] = m[1]; RUN_DATE[NRUN] = m[4]; RUN_TS[NRUN] = m[5]; RUN_KIND1[NRUN] = m[6] }
    r = DIR_RUN[m[1]]
    if (!(m[2] in GW)) { GW[m[2]] = m[3]; NG++; GROUP[NG] = m[2] }
    GN[m[2]]++; GRUN[m[2], GN[m[2]]] = r; RUNG[r, m[6]] = m[2]
    next
}

FNR == 1 {
    dir = FILENAME; role = dir ~ /\/critical\.csv$/ ? "crit" : "res"
    sub(/\/(results|critical)\.csv$/, "", dir); run = DIR_RUN[dir]
    delete col; csv_header($0, col)
    next
}
/^[ \t\r]*$/ { next }

role == "crit" {
    csv_split($0, f)
    if (tolower(get(f, col, "source", "gpu")) == "model") next
    b = get(f, col, "bytes", "")
    if (!is_num(b)) next
    k = get(f, col, "scenario", "")
    g = RUNG[run, ((run, k) in KIND_OF) ? KIND_OF[run, k] : RUN_KIND1[run]]
    if (g == "") next
    v = get(f, col, "critical_delay_us", "")
    if (is_num(v) && v + 0 >= 0 && tolower(get(f, col, "status", "found")) != "never") {
        put(g, "critical", clean_text(get(f, col, "algorithm", "stragglar")), b + 0, v / 1000, v / 1000, "", "", 0, "", "", 0)
        next
    }
    # never: no critical delay up to the search's bound (the note says it: "did not win up to
    # 64.0 ms"); kept at the bound, so that the trend shows it and a change from or to it counts
    if (match(get(f, col, "note", ""), /up to [0-9.]+ ms/)) {
        v = substr(get(f, col, "note", ""), RSTART + 6, RLENGTH - 9) + 0
        put(g, "critical", clean_text(get(f, col, "algorithm", "stragglar")), b + 0, v, v, "", "", 0, "", "", 1)
    }
    next
}

{
    csv_split($0, f)
    src = tolower(get(f, col, "source", "gpu"))
    if (tolower(get(f, col, "status", "")) != "ok" || src == "model") next
    if (src != "nccl-tests") src = "gpu"
    kind = night_kind(f, col, src)
    g = RUNG[run, kind]
    if (g == "") next
    k = get(f, col, "scenario", "")
    if (!((run, k) in KIND_OF)) KIND_OF[run, k] = kind
    # rows timed under the profiler (CUPTI) are slower by its work: no night of the trend
    if (get(f, col, "overlap_reduce_pct", "") != "") next
    med = get(f, col, "time_us_median", ""); b = get(f, col, "bytes", "")
    if (!is_num(med) || med + 0 <= 0 || !is_num(b)) next
    a = clean_text(get(f, col, "algorithm", "?")); t = clean_text(get(f, col, "transport", ""))
    lab = src == "nccl-tests" ? "nccl-tests " t : series_name(a, t)
    reg = clean_text(row_setting(f, col, "nccl.registration", "none"))
    if (reg != "none") lab = lab " " reg
    sd = get(f, col, "time_us_stdev", "0"); rel = is_num(sd) ? sd / med : 0
    lo = get(f, col, "time_us_ci_lo", ""); hi = get(f, col, "time_us_ci_hi", "")
    ns = get(f, col, "n_samples", ""); lvl = get(f, col, "ci_level_pct", "")
    if (!has_ci(lo, hi)) lo = hi = ""
    sr = get(f, col, "straggler_rank", "-1") + 0; dr = get(f, col, "degraded_rank", "-1") + 0
    if (sr < 0 && dr < 0 && trim(get(f, col, "stragglers", "")) == "" && trim(get(f, col, "degraded", "")) == "") {
        # from the median, not the rounded algbw_gbps column: small sizes keep their digits
        put(g, "algbw", lab, b + 0, b / (med * 1e3), med + 0, lo, hi, rel, ns, lvl, 0)
    } else if (dr >= 0 && sr < 0) {
        lb = get(f, col, "lower_bound_us", "")
        if (is_num(lb) && lb + 0 > 0)
            put(g, "degraded", lab " x" num_str(get(f, col, "factor", "1") + 0), b + 0, med / lb, med / lb,
                lo == "" ? "" : lo / lb, hi == "" ? "" : hi / lb, rel, ns, lvl, 0)
    }
}

# put(g, metric, series, bytes, value, cost, lo, hi, rel, n, level, never): one night's value of
# a series of group g, if chosen. cost is what grows when the series gets worse (a time, a
# ratio to the bound, a delay) and lo-hi its interval ("" without); a series measured twice in
# one night keeps its better row
function put(g, metric, series, b, v, cost, lo, hi, rel, n, lvl, never,    k) {
    if (!chosen(metric, series, b)) return
    k = g SUBSEP metric SUBSEP series SUBSEP sprintf("%.0f", b)   # mawk writes large numbers in %.6g
    if (!(k in SK)) { SK[k] = 1; NS++; S_g[NS] = g; S_m[NS] = metric; S_s[NS] = series; S_b[NS] = b; S_k[NS] = k }
    if ((k, run) in VAL && cost >= COST[k, run]) return
    VAL[k, run] = v; COST[k, run] = cost; CLO[k, run] = lo; CHI[k, run] = hi; REL[k, run] = rel
    NSMP[k, run] = n; LVL[k, run] = lvl; NEVER[k, run] = never
}

# chosen(metric, series, bytes): the series is in -v algos (its algorithm; nccl and imported
# nccl-tests rows always) and the size in -v sizes (bytes); empty lists choose every series and,
# for algbw, the sizes 1 KiB, 1 MiB, 64 MiB and 1 GiB
function chosen(metric, series, b,    a) {
    a = series; sub(/[\/ ].*$/, "", a)
    if (algos != "" && a != "nccl" && a != "nccl-tests" && !((a) in ALGO)) return 0
    if (sizes != "") return (sprintf("%.0f", b) in SIZE)
    return metric != "algbw" || b == 1024 || b == 1048576 || b == 67108864 || b == 1073741824
}

BEGIN {
    n = split(algos, l, ","); for (i = 1; i <= n; i++) ALGO[trim(l[i])] = 1
    n = split(sizes, l, ","); for (i = 1; i <= n; i++) SIZE[sprintf("%.0f", l[i])] = 1
}

# median of A[1..n] (sorted in place)
function median(A, n,    i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && A[j] < A[j - 1]; j--) { t = A[j]; A[j] = A[j - 1]; A[j - 1] = t }
    return n % 2 ? A[(n + 1) / 2] : (A[n / 2] + A[n / 2 + 1]) / 2
}

# the interval of a night's row counts for the test when it covers at least 95% (6 samples up;
# fewer give [min, max], which covers less: docs/statistics.md)
function ci_counts(k, r) { return CLO[k, r] != "" && (is_num(LVL[k, r]) ? LVL[k, r] >= 95 : NSMP[k, r] >= 6) }
# why_no_ci(k, r): the words of the rule column for a night whose interval does not count
function why_no_ci(k, r) {
    if (CLO[k, r] == "") return "no interval on " RUN_DATE[r]
    return sprintf("the interval of %s covers %.1f%% (%d samples)", RUN_DATE[r], LVL[k, r], NSMP[k, r])
}

# verdict(s): fills V_*[s] for series s: its last night L against the night before P and the
# earlier nights E (P and up to 13 before it, newest first): by intervals when L's and P's count
# (apart, by at least stats_min_effect(), and L beyond 3 stdev of E from E's median), else by
# the spread (L beyond 3 x the larger of E's stdev and the rows' own stdev, and at least 1%, from
# E's median); fewer than 2 earlier nights: no verdict
function verdict(s,    g, k, i, r, L, P, n, nev, E, V, m, mean, ss, sd, relsum, nrel, spread, thr, worse, up, v) {
    g = S_g[s]; k = S_k[s]
    L = GRUN[g, GN[g]]
    V_word[s] = ""
    if (!((k, L) in VAL)) { V_word[s] = "not measured on the last night"; return }
    V_last[s] = VAL[k, L]
    for (i = GN[g] - 1; i >= 1 && n < 14; i--) {
        r = GRUN[g, i]
        if (!((k, r) in VAL)) continue
        E[++n] = VAL[k, r]; V[n] = VAL[k, r]; mean += VAL[k, r]; relsum += REL[k, r]; nrel++; nev += NEVER[k, r]
        if (n == 1) P = r
    }
    relsum += REL[k, L]; nrel++
    if (n < 2) { V_word[s] = "too few nights (" n + 1 ")"; return }
    V_prev[s] = P
    # a never is a delay of at least its bound: a change from or to one is at least, or at most,
    # what the numbers say
    V_bound[s] = NEVER[k, L] ? ">= " : nev ? "<= " : ""
    mean /= n
    for (i = 1; i <= n; i++) ss += (E[i] - mean) ^ 2
    sd = sqrt(ss / (n - 1))
    m = median(V, n)
    V_med[s] = m; V_n[s] = n
    up = S_m[s] == "algbw"          # a larger value is better
    if (ci_counts(k, P) && ci_counts(k, L)) {
        V_rule[s] = "intervals"
        v = regression_verdict(COST[k, P], CLO[k, P], CHI[k, P], COST[k, L], CLO[k, L], CHI[k, L])
        V_thr[s] = 3 * sd; V_chg[s] = VAL[k, L] / VAL[k, P] - 1
        if (v == "same") { V_word[s] = "within noise"; return }
        worse = v == "slower"
        # beyond the earlier nights' own spread, the same way: ordinary drift does not flag
        if ((up == worse ? m - VAL[k, L] : VAL[k, L] - m) <= V_thr[s]) { V_word[s] = "within the nights' drift"; return }
    } else {
        V_rule[s] = "spread (" (S_m[s] == "critical" ? "a critical delay has no interval" : why_no_ci(k, ci_counts(k, L) ? P : L)) ")"
        spread = sd > relsum / nrel * m ? sd : relsum / nrel * m
        thr = 3 * spread > 0.01 * m ? 3 * spread : 0.01 * m
        V_thr[s] = thr; V_chg[s] = V_last[s] / m - 1
        if (!(V_last[s] - m > thr || m - V_last[s] > thr)) { V_word[s] = "within noise"; return }
        worse = up ? V_last[s] < m : V_last[s] > m
    }
    V_flag[s] = 1; NFLAG++; GFLAG[g]++
    V_word[s] = S_m[s] == "algbw" ? (worse ? "slower" : "faster") : S_m[s] == "critical" ? (worse ? "later" : "earlier") : \
                (worse ? "further from the bound" : "closer to the bound")
    V_word[s] = "**" V_word[s] "**"
}

function metric_words(mt) { return mt == "algbw" ? "algbw (GB/s)" : mt == "critical" ? "critical delay (ms)" : "time / OPTCC bound" }
function fmt(x) { return x >= 100 ? sprintf("%.1f", x) : x >= 1 ? sprintf("%.3f", x) : sprintf("%.4f", x) }
# gkey(g): group g in a file name: machine, GPU count and placement, then what is not the default
# (an import, another dtype, another timing method)
function gkey(g,    p, k) {
    split(g, p, "|")
    k = p[1] "|" p[2] "|" p[3] "|" p[4] "|" p[5] (p[6] != "gpu" ? "|" p[6] : "") (p[7] != "float32" ? "|" p[7] : "") \
        (p[8] != "events" && p[8] != "nccl-tests" ? "|" p[8] : "")
    gsub(/[^A-Za-z0-9.-]+/, "-", k)
    return k
}
# night_value(k, r): a night's value as history.md shows it: "151.8 (151.5-152.1)" with its
# interval, "never (up to 64 ms)"
function night_value(k, r,    lo, hi, t) {
    if (NEVER[k, r]) return "never (up to " num_str(VAL[k, r]) " ms)"
    if (CLO[k, r] == "") return fmt(VAL[k, r])
    lo = VAL[k, r] * CLO[k, r] / COST[k, r]; hi = VAL[k, r] * CHI[k, r] / COST[k, r]
    if (lo > hi) { t = lo; lo = hi; hi = t }
    return fmt(VAL[k, r]) " (" fmt(lo) "-" fmt(hi) ")"
}
# value_ci(k, r, end): the interval's low (end 0) or high (1) end in the value's unit
function value_ci(k, r, end,    x, y) {
    if (CLO[k, r] == "") return ""
    x = VAL[k, r] * CLO[k, r] / COST[k, r]; y = VAL[k, r] * CHI[k, r] / COST[k, r]
    return sprintf("%.6g", (end == 0) == (x < y) ? x : y)
}

END {
    for (s = 1; s <= NS; s++) verdict(s)
    # series in a stable order: group, metric, size, series
    for (s = 1; s <= NS; s++) { O[s] = s; OK[s] = sprintf("%s\001%s\001%020.0f\001%s", S_g[s], S_m[s], S_b[s], S_s[s]) }
    for (i = 2; i <= NS; i++) for (j = i; j > 1 && OK[O[j]] < OK[O[j - 1]]; j--) { t = O[j]; O[j] = O[j - 1]; O[j - 1] = t }

    csv = out "/history.csv"
    print "group,metric,series,bytes,run,date,value,rel_stdev,value_ci_lo,value_ci_hi,n_samples,ci_level_pct,never_up_to_ms" > csv
    for (i = 1; i <= NS; i++) {
        s = O[i]; g = S_g[s]; k = S_k[s]
        for (j = 1; j <= GN[g]; j++) {
            r = GRUN[g, j]
            if (!((k, r) in VAL)) continue
            printf "\"%s\",%s,%s,%.0f,\"%s\",%s,%s,%.4g,%s,%s,%s,%s,%s\n", GW[g], S_m[s], S_s[s], S_b[s], RUN_DIR[r], RUN_DATE[r],
                   NEVER[k, r] ? "" : sprintf("%.6g", VAL[k, r]), REL[k, r], value_ci(k, r, 0), value_ci(k, r, 1), NSMP[k, r],
                   LVL[k, r], NEVER[k, r] ? num_str(VAL[k, r]) : "" > csv
        }
    }
    close(csv)

    md = out "/history.md"
    printf "# arbench history\n\n" > md
    printf "- %d run folders, %d group%s of nights (nights of another machine, GPU count, placement, dtype or timing method, and nccl-tests imports, are never in one trend)\n",
           NRUN, NG, (NG > 1 ? "s" : "") > md
    printf "- **%d changes beyond noise** on the last night of each group\n", NFLAG > md
    while (left != "" && (getline line < left) > 0) {
        sub(/^history: left out /, "", line); sub(/; an incomplete or failed run is no night of the trend$/, "", line)
        printf "- left out (never a night of the trend): %s\n", line > md
    }
    printf "\n" > md
    printf "Each series' last night is judged against the night before it (docs/statistics.md, Regressions).\n" > md
    printf "Rule **intervals**, where both nights' rows have a 95%% interval of the median from their samples: flagged\n" > md
    printf "when the two intervals do not overlap, the median moved by at least %g%% of the night before's, and the\n", 100 * stats_min_effect() > md
    printf "last night also lies beyond 3 x the stdev of the earlier nights (the night before and up to 13 before it)\n" > md
    printf "from their median, the same way: ordinary drift between nights does not flag. Rule **spread**, where\n" > md
    printf "either night has no such interval (folders from before samples, fewer than 6 samples, critical\n" > md
    printf "delays): flagged when the last night lies further from the earlier nights' median than 3 x the larger\n" > md
    printf "of their stdev and the rows' own, and at least 1%%. A verdict needs 3 nights. algbw: higher is better;\n" > md
    printf "critical delay: lower is better (never: no critical delay up to the search's bound, counted at the\n" > md
    printf "bound); time / OPTCC bound: lower is better. change: against the night before (intervals) or the\n" > md
    printf "earlier median (spread); earlier nights: their median +- the distance the last night must exceed.\n" > md
    for (gi = 1; gi <= NG; gi++) {
        g = GROUP[gi]
        printf "\n## %s\n\n", GW[g] > md
        printf "%d night%s: %s to %s.\n\n", GN[g], (GN[g] > 1 ? "s" : ""), RUN_DATE[GRUN[g, 1]], RUN_DATE[GRUN[g, GN[g]]] > md
        if (GN[g] < 3) { printf "Too few nights for a verdict (3 needed).\n" > md; continue }
        printf "| metric | series | size | night before | last night | change | earlier nights | verdict | rule |\n" > md
        printf "|---|---|---:|---:|---:|---:|---:|---|---|\n" > md
        # flagged series first
        for (pass = 1; pass <= 2; pass++)
            for (i = 1; i <= NS; i++) {
                s = O[i]
                if (S_g[s] != g || (pass == 1) != (V_flag[s] == 1) || !(s in V_med)) continue
                k = S_k[s]
                printf "| %s | %s | %s | %s | %s | %s%+.1f%% | %s +- %s (%d) | %s | %s |\n", metric_words(S_m[s]), S_s[s], size_label(S_b[s], " "),
                       night_value(k, V_prev[s]), night_value(k, GRUN[g, GN[g]]), V_bound[s], 100 * V_chg[s], fmt(V_med[s]), fmt(V_thr[s]), V_n[s],
                       V_word[s], V_rule[s] > md
            }
    }
    close(md)
    for (gi = 1; gi <= NG; gi++) pictures(GROUP[gi])
    printf "history: %d run folders, %d group%s, %d changes beyond noise\n", NRUN, NG, (NG > 1 ? "s" : ""), NFLAG > "/dev/stderr"
    for (i = 1; i <= NS; i++) {
        s = O[i]; k = S_k[s]
        if (V_flag[s]) printf "history: %s: %s %s at %s: %s -> %s (%+.1f%%, %s)\n", GW[S_g[s]], metric_words(S_m[s]), S_s[s],
                              size_label(S_b[s], " "), V_rule[s] == "intervals" ? night_value(k, V_prev[s]) : fmt(V_med[s]),
                              night_value(k, GRUN[S_g[s], GN[S_g[s]]]), 100 * V_chg[s], V_rule[s] > "/dev/stderr"
    }
}

# pictures(g): one trend picture per metric and size (critical: one for every size) of group g
function pictures(g,    i, s, key, done) {
    if (GN[g] < 2) return
    for (i = 1; i <= NS; i++) {
        s = O[i]
        if (S_g[s] != g) continue
        key = S_m[s] SUBSEP (S_m[s] == "critical" ? "" : sprintf("%.0f", S_b[s]))
        if (key in done) continue
        done[key] = 1
        trend(g, S_m[s], S_m[s] == "critical" ? "" : S_b[s])
    }
}

# night_labels(g): fills NL[1..GN[g]] with the x tick labels of group g's nights, all distinct:
# the date when no two nights share one, else date and time (to the minute, then the second),
# a night's number added where even those repeat; with more than 16 nights only every k-th is
# labelled (the last always), so that the labels never run into one another
function night_labels(g,    j, w, n, step, L, seen, dup) {
    delete NL
    n = GN[g]
    for (w = 1; w <= 3; w++) {
        delete seen; dup = 0
        for (j = 1; j <= n; j++) {
            L[j] = w == 1 ? RUN_DATE[GRUN[g, j]] : substr(RUN_DATE[GRUN[g, j]] " " substr(RUN_TS[GRUN[g, j]], 12), 1, w == 2 ? 16 : 19)
            if (L[j] in seen) dup = 1
            seen[L[j]] = 1
        }
        if (!dup) break
    }
    if (dup) for (j = 1; j <= n; j++) L[j] = L[j] " #" j
    step = n > 16 ? int((n + 15) / 16) : 1
    for (j = 1; j <= n; j++) NL[j] = (n - j) % step == 0 ? L[j] : ""
}

# series_transport(s): the transport a series names ("ring/ce x2": ce; "nccl": none of its own)
function series_transport(s,    t) {
    if (s !~ /^[^ \/]+\//) return ""
    t = s; sub(/^[^\/]*\//, "", t); sub(/ .*$/, "", t)
    return t
}

# pick(g, ns, IDX, SEL, up): marks in SEL the series of a picture of more than TREND_MAX: every
# flagged one, nccl, and the best on the picture's last night (the latest with any of its
# series; then the next best) until TREND_SHOWN are drawn; returns how many. IDX[1..ns]: the
# picture's series; up: a larger value is better
function pick(g, ns, IDX, SEL, up,    i, j, t, n, last, c, C) {
    for (j = GN[g]; j >= 1 && !last; j--) for (i = 1; i <= ns; i++) if ((S_k[IDX[i]], GRUN[g, j]) in VAL) last = GRUN[g, j]
    PICK_LAST = last
    for (i = 1; i <= ns; i++) {
        if (V_flag[IDX[i]] || S_s[IDX[i]] == "nccl") { SEL[IDX[i]] = 1; n++; NNCCL += S_s[IDX[i]] == "nccl" }
        else if ((S_k[IDX[i]], last) in VAL) C[++c] = IDX[i]
    }
    # the candidates, best on that night first
    for (i = 2; i <= c; i++)
        for (j = i; j > 1 && (up ? VAL[S_k[C[j]], last] > VAL[S_k[C[j - 1]], last] : VAL[S_k[C[j]], last] < VAL[S_k[C[j - 1]], last]); j--) {
            t = C[j]; C[j] = C[j - 1]; C[j - 1] = t
        }
    for (i = 1; i <= c && (i == 1 || n < TREND_SHOWN); i++) { SEL[C[i]] = 1; n++; NBEST++ }
    return n
}

# trend(g, mt, b): writes the data and driver of one picture (b "": every size) and prints it.
# Every series is its own line; a picture of more than TREND_MAX series draws what moved and the
# best (pick). A series' colour is its algorithm's, its point its transport's (style.awk); two
# series that would still look alike (one algorithm at two sizes or factors) get different
# dashes. A night with no critical delay is drawn at the search's bound with a marker of its own
function trend(g, mt, b,    i, j, s, k, r, ns, lab, a, name, data, drv, IDX, SEL, PN, PS, nf, nv, bound, xt, names, colors, pts, dts, lws, c, p, d, used, shown, l1, nb) {
    TREND_MAX = 12; TREND_SHOWN = 8
    for (i = 1; i <= NS; i++) { s = O[i]; if (S_g[s] == g && S_m[s] == mt && (b == "" || S_b[s] == b)) IDX[++ns] = s }
    NBEST = NNCCL = 0
    if (ns > TREND_MAX) shown = pick(g, ns, IDX, SEL, mt == "algbw")
    else for (i = 1; i <= ns; i++) SEL[IDX[i]] = 1
    name = "trend_" gkey(g) "_" mt (b == "" ? "" : "_" size_label(b, ""))
    data = tmp "/" name ".dat"; drv = tmp "/" name ".gp"
    printf "" > data
    for (i = 1; i <= ns; i++) {
        s = IDX[i]
        if (!(s in SEL)) continue
        k = S_k[s]; lab = S_s[s] (b == "" ? " " size_label(S_b[s], " ") : ""); a = S_s[s]; sub(/[\/ ].*$/, "", a)
        if (PN++) printf "\n\n" > data
        printf "# %s\n", lab > data
        for (j = 1; j <= GN[g]; j++) {
            r = GRUN[g, j]
            if (!((k, r) in VAL)) continue
            printf "%d %.6g\n", j, VAL[k, r] > data
            if (NEVER[k, r]) { nv++; VX[nv] = j; VY[nv] = VAL[k, r]; bound[num_str(VAL[k, r])] = 1 }
        }
        if (V_flag[s]) { nf++; FX[nf] = GN[g]; FY[nf] = V_last[s] }
        c = algo_color(a == "nccl-tests" ? "nccl" : a); p = transport_point(series_transport(S_s[s]), 0)
        # critical delays (one algorithm, every size): a point per size, so that they tell apart
        if (b == "") { split("7 5 9 11 13 15 3 1 2", CP, " "); p = CP[(PN - 1) % 9 + 1] + 0 }
        for (d = 1; (c, p, d) in used; d++) ;
        used[c, p, d] = 1
        names = names " \"" lab "\""; colors = colors " \"" c "\""
        pts = pts " " p; dts = dts " " d; lws = lws " " (a == "nccl" ? 4 : 2)
    }
    printf "\n\n# flagged\n" > data
    for (i = 1; i <= nf; i++) printf "%d %.6g\n", FX[i], FY[i] > data
    if (!nf) printf "%d NaN\n", GN[g] > data
    printf "\n\n# never\n" > data
    for (i = 1; i <= nv; i++) printf "%d %.6g\n", VX[i], VY[i] > data
    if (!nv) printf "%d NaN\n", GN[g] > data
    close(data)
    if (!PN) return
    nb = 0; for (i in bound) nb++
    night_labels(g)
    for (j = 1; j <= GN[g]; j++) xt = xt " \"" NL[j] "\""
    l1 = metric_words(mt) " per night" (b == "" ? "" : ", " size_label(b, " "))
    if (ns > TREND_MAX)
        l1 = l1 ": " (GFL(g, mt, b) ? GFL(g, mt, b) " flagged, " : "") (NNCCL ? "nccl, " : "") "the best " NBEST \
             " on " RUN_DATE[PICK_LAST] " (" shown " of " ns " series; every one in history.csv)"
    printf "# %s: written by plots/history.awk\n", name > drv
    printf "data = '%s'\nout = '%s/%s'\nn = %d\nnflag = %d\nnnever = %d\n", data, out, name, PN, nf, nv > drv
    printf "ptitle = \"%s\\n%s, %s to %s\"\n", l1, GW[g], RUN_DATE[GRUN[g, 1]], RUN_DATE[GRUN[g, GN[g]]] > drv
    printf "nevertitle = '%s'\n", nv ? "never: no critical delay up to " (nb == 1 ? nbound(bound) " ms" : "the search's bound") : "" > drv
    printf "names = '%s'\ncolors = '%s'\npts = '%s'\ndts = '%s'\nlws = '%s'\nxt = '%s'\nylab = '%s'\n", names, colors, pts, dts, lws, xt,
           mt == "algbw" ? "algbw (GB/s, 1 GB = 1e9 B)" : mt == "critical" ? "critical straggler delay (ms)" : "time / OPTCC lower bound" > drv
    printf "gpdir = '%s'\nylog = %d\n", gpdir, mt == "critical" > drv
    printf "load '%s/common.gp'\nload '%s/trend.gp'\n", gpdir, gpdir > drv
    close(drv)
    print drv
}

# GFL(g, mt, b): the flagged series of one picture
function GFL(g, mt, b,    s, n) {
    for (s = 1; s <= NS; s++) if (S_g[s] == g && S_m[s] == mt && (b == "" || S_b[s] == b) && V_flag[s]) n++
    return n + 0
}
function nbound(B,    i) { for (i in B) return i }
