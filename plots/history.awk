# history.awk: the trend across nights of the run folders history.sh lists, with a verdict per
# series. Load csv.awk and style.awk first.
#   awk -f csv.awk -f style.awk -f history.awk -v tmp=DIR -v out=DIR -v gpdir=DIR -v sizes=LIST \
#       -v algos=LIST MANIFEST RUN/results.csv [RUN/critical.csv] ...
# MANIFEST: one line per run folder, by date: DIR<TAB>GROUP<TAB>GROUP IN WORDS<TAB>DATE<TAB>TIME
# (TIME: its first row's timestamp). A group is one machine, GPU count and placement: runs of
# different groups never share a trend. -v left=FILE: history.sh's lines on the run folders it
# left out (INCOMPLETE or FAILED), listed in history.md.
# Metrics per night: algbw (GB/s, clean rows, per algorithm/transport and size: higher is
# better), critical (critical.csv's measured delay in ms per size: lower is better, the
# straggler-aware algorithm pays off sooner) and degraded (a degraded row's median over OPTCC's
# lower bound, per algorithm/transport, factor and size: lower is better).
# Verdict of a series: its last night against the earlier ones (up to 14): flagged when it is
# beyond 3 spreads of their median, the spread being the larger of the earlier nights' stdev and
# the rows' own (time_us_stdev, relative, at that median), and at least 1%. Fewer than 2 earlier
# nights: no verdict. Writes OUT/history.csv and history.md; prints the pictures' drivers.

FNR == 1 && FILENAME == ARGV[1] { role = "manifest" }
role == "manifest" && FILENAME == ARGV[1] {
    split($0, m, "\t")
    NRUN++; RUN_DIR[NRUN] = m[1]; RUN_G[NRUN] = m[2]; RUN_DATE[NRUN] = m[4]; RUN_TS[NRUN] = m[5]; DIR_RUN[m[1]] = NRUN
    if (!(m[2] in GW)) { GW[m[2]] = m[3]; NG++; GROUP[NG] = m[2] }
    GN[m[2]]++; GRUN[m[2], GN[m[2]]] = NRUN; RUN_K[NRUN] = GN[m[2]]
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
    v = get(f, col, "critical_delay_us", "")
    if (!is_num(v) || v + 0 < 0) next
    put("critical", clean_text(get(f, col, "algorithm", "stragglar")) " vs " clean_text(get(f, col, "baseline", "-")),
        get(f, col, "bytes", "") + 0, v / 1000, 0)
    next
}

{
    csv_split($0, f)
    if (tolower(get(f, col, "status", "")) != "ok" || tolower(get(f, col, "source", "gpu")) == "model") next
    med = get(f, col, "time_us_median", ""); b = get(f, col, "bytes", "")
    if (!is_num(med) || med + 0 <= 0 || !is_num(b)) next
    a = clean_text(get(f, col, "algorithm", "?")); t = clean_text(get(f, col, "transport", ""))
    lab = a == "nccl" ? "nccl" : a (has_tp(t) ? "/" t : "")
    sd = get(f, col, "time_us_stdev", "0"); rel = is_num(sd) ? sd / med : 0
    sr = get(f, col, "straggler_rank", "-1") + 0; dr = get(f, col, "degraded_rank", "-1") + 0
    if (sr < 0 && dr < 0 && trim(get(f, col, "stragglers", "")) == "" && trim(get(f, col, "degraded", "")) == "") {
        # from the median, not the rounded algbw_gbps column: small sizes keep their digits
        put("algbw", lab, b + 0, b / (med * 1e3), rel)
    } else if (dr >= 0 && sr < 0) {
        lb = get(f, col, "lower_bound_us", "")
        if (is_num(lb) && lb + 0 > 0) put("degraded", lab " x" num_str(get(f, col, "factor", "1") + 0), b + 0, med / lb, rel)
    }
}

# put(metric, series, bytes, value, rel): one night's value of a series, if chosen; a series
# measured twice in one run keeps its better value
function put(metric, series, b, v, rel,    g, k, better) {
    if (!chosen(metric, series, b)) return
    g = RUN_G[run]; k = g SUBSEP metric SUBSEP series SUBSEP b
    if (!(k in SK)) { SK[k] = 1; NS++; S_g[NS] = g; S_m[NS] = metric; S_s[NS] = series; S_b[NS] = b }
    if ((k, run) in VAL && (metric == "algbw" ? v <= VAL[k, run] : v >= VAL[k, run])) return
    VAL[k, run] = v; REL[k, run] = rel
}

# chosen(metric, series, bytes): the series is in -v algos (its algorithm; nccl always) and the
# size in -v sizes (binary units, "1M,1G"); empty lists choose every series and, for algbw,
# the sizes 1 KiB, 1 MiB, 64 MiB and 1 GiB
function chosen(metric, series, b,    a, i, n, l) {
    a = series; sub(/[\/ ].*$/, "", a)
    if (algos != "" && a != "nccl" && !((a) in ALGO)) return 0
    if (sizes != "") return (b in SIZE)
    return metric != "algbw" || b == 1024 || b == 1048576 || b == 67108864 || b == 1073741824
}

BEGIN {
    n = split(algos, l, ","); for (i = 1; i <= n; i++) ALGO[trim(l[i])] = 1
    n = split(sizes, l, ","); for (i = 1; i <= n; i++) SIZE[bytes_of(l[i])] = 1
}

# bytes_of(s): "64K", "1M", "1GiB", "4096" in bytes (binary units)
function bytes_of(s,    u, x) {
    s = toupper(trim(s)); sub(/I?B$/, "", s)
    u = substr(s, length(s)); x = s + 0
    return u == "K" ? x * 1024 : u == "M" ? x * 1048576 : u == "G" ? x * 1073741824 : u == "T" ? x * 1099511627776 : x
}

# median of A[1..n] (sorted in place)
function median(A, n,    i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && A[j] < A[j - 1]; j--) { t = A[j]; A[j] = A[j - 1]; A[j - 1] = t }
    return n % 2 ? A[(n + 1) / 2] : (A[n / 2] + A[n / 2 + 1]) / 2
}

# verdict(s): fills V_*[s] for series s: its last night against up to 14 earlier ones
function verdict(s,    g, k, i, r, last, n, E, m, mean, ss, sd, relsum, nrel, spread, thr, worse) {
    g = S_g[s]; k = g SUBSEP S_m[s] SUBSEP S_s[s] SUBSEP S_b[s]
    last = GRUN[g, GN[g]]
    V_n[s] = 0; V_word[s] = ""
    for (i = 1; i <= GN[g]; i++) if ((k, GRUN[g, i]) in VAL) V_n[s]++
    if (!((k, last) in VAL)) { V_word[s] = "not measured on the last night"; return }
    V_last[s] = VAL[k, last]
    for (i = GN[g] - 1; i >= 1 && n < 14; i--) {
        r = GRUN[g, i]
        if (!((k, r) in VAL)) continue
        E[++n] = VAL[k, r]; mean += VAL[k, r]; relsum += REL[k, r]; nrel++
    }
    relsum += REL[k, last]; nrel++
    if (n < 2) { V_word[s] = "too few nights (" n + 1 ")"; return }
    mean /= n
    for (i = 1; i <= n; i++) ss += (E[i] - mean) ^ 2
    sd = sqrt(ss / (n - 1))
    m = median(E, n)
    spread = sd > relsum / nrel * m ? sd : relsum / nrel * m
    thr = 3 * spread > 0.01 * m ? 3 * spread : 0.01 * m
    V_med[s] = m; V_thr[s] = thr; V_chg[s] = V_last[s] / m - 1
    if (V_last[s] - m > thr || m - V_last[s] > thr) {
        worse = S_m[s] == "algbw" ? V_last[s] < m : V_last[s] > m
        V_flag[s] = 1; NFLAG++; GFLAG[g]++
        V_word[s] = S_m[s] == "algbw" ? (worse ? "slower" : "faster") : S_m[s] == "critical" ? (worse ? "later" : "earlier") : \
                    (worse ? "further from the bound" : "closer to the bound")
        V_word[s] = "**" V_word[s] "**"
    } else V_word[s] = "within noise"
}

function metric_words(mt) { return mt == "algbw" ? "algbw (GB/s)" : mt == "critical" ? "critical delay (ms)" : "time / OPTCC bound" }
function fmt(x) { return x >= 100 ? sprintf("%.1f", x) : x >= 1 ? sprintf("%.3f", x) : sprintf("%.4f", x) }
function gkey(g,    k) { k = g; gsub(/[^A-Za-z0-9.-]+/, "-", k); return k }

END {
    for (s = 1; s <= NS; s++) verdict(s)
    # series in a stable order: group, metric, size, series
    for (s = 1; s <= NS; s++) { O[s] = s; OK[s] = sprintf("%s\001%s\001%020.0f\001%s", S_g[s], S_m[s], S_b[s], S_s[s]) }
    for (i = 2; i <= NS; i++) for (j = i; j > 1 && OK[O[j]] < OK[O[j - 1]]; j--) { t = O[j]; O[j] = O[j - 1]; O[j - 1] = t }

    csv = out "/history.csv"
    print "group,metric,series,bytes,run,date,value,rel_stdev" > csv
    for (i = 1; i <= NS; i++) {
        s = O[i]; g = S_g[s]; k = g SUBSEP S_m[s] SUBSEP S_s[s] SUBSEP S_b[s]
        for (j = 1; j <= GN[g]; j++) {
            r = GRUN[g, j]
            if ((k, r) in VAL) printf "\"%s\",%s,%s,%.0f,\"%s\",%s,%.6g,%.4g\n", GW[g], S_m[s], S_s[s], S_b[s], RUN_DIR[r], RUN_DATE[r], VAL[k, r], REL[k, r] > csv
        }
    }
    close(csv)

    md = out "/history.md"
    printf "# arbench history\n\n" > md
    printf "- %d run folders, %d machine%s (runs of another machine, GPU count or placement are never in one trend)\n", NRUN, NG, (NG > 1 ? "s" : "") > md
    printf "- **%d changes beyond noise** on the last night of each machine\n", NFLAG > md
    while (left != "" && (getline line < left) > 0) {
        sub(/^history: left out /, "", line); sub(/; an incomplete or failed run is no night of the trend$/, "", line)
        printf "- left out (never a night of the trend): %s\n", line > md
    }
    printf "\n" > md
    printf "A series is flagged when its last night is further from the median of the earlier nights (up to 14)\n" > md
    printf "than 3 x the larger of their stdev and the rows' own stdev, and at least 1%%. algbw: higher is\n" > md
    printf "better; critical delay: lower is better (the straggler-aware algorithm pays off sooner); time /\n" > md
    printf "OPTCC bound: lower is better.\n" > md
    for (gi = 1; gi <= NG; gi++) {
        g = GROUP[gi]
        printf "\n## %s\n\n", GW[g] > md
        printf "%d night%s: %s to %s.\n\n", GN[g], (GN[g] > 1 ? "s" : ""), RUN_DATE[GRUN[g, 1]], RUN_DATE[GRUN[g, GN[g]]] > md
        if (GN[g] < 3) { printf "Too few nights for a verdict (3 needed).\n" > md; continue }
        printf "| metric | series | size | last night | earlier median | threshold | change | verdict |\n|---|---|---:|---:|---:|---:|---:|---|\n" > md
        # flagged series first
        for (pass = 1; pass <= 2; pass++)
            for (i = 1; i <= NS; i++) {
                s = O[i]
                if (S_g[s] != g || (pass == 1) != (V_flag[s] == 1) || !(s in V_med)) continue
                printf "| %s | %s | %s | %s | %s | %s | %+.1f%% | %s |\n", metric_words(S_m[s]), S_s[s], size_label(S_b[s], " "),
                       fmt(V_last[s]), fmt(V_med[s]), fmt(V_thr[s]), 100 * V_chg[s], V_word[s] > md
            }
    }
    close(md)
    for (gi = 1; gi <= NG; gi++) pictures(GROUP[gi])
    printf "history: %d run folders, %d machine%s, %d changes beyond noise\n", NRUN, NG, (NG > 1 ? "s" : ""), NFLAG > "/dev/stderr"
    for (i = 1; i <= NS; i++) {
        s = O[i]
        if (V_flag[s]) printf "history: %s: %s %s at %s: %s -> %s (%+.1f%%, threshold %s)\n", GW[S_g[s]], metric_words(S_m[s]), S_s[s],
                              size_label(S_b[s], " "), fmt(V_med[s]), fmt(V_last[s]), 100 * V_chg[s], fmt(V_thr[s]) > "/dev/stderr"
    }
}

# pictures(g): one trend picture per metric and size (critical: one for every size) of group g
function pictures(g,    i, s, mt, b, key, done, nm) {
    if (GN[g] < 2) return
    for (i = 1; i <= NS; i++) {
        s = O[i]
        if (S_g[s] != g) continue
        key = S_m[s] SUBSEP (S_m[s] == "critical" ? "" : S_b[s])
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

# series_transport(s): the transport a series names ("ring/ce x2": ce; a critical delay
# "stragglar vs ring/ce": its baseline's, ce; "nccl": none of its own)
function series_transport(s,    t) {
    sub(/^.* vs /, "", s)
    if (s !~ /^[^ \/]+\//) return ""
    t = s; sub(/^[^\/]*\//, "", t); sub(/ .*$/, "", t)
    return t
}

# trend(g, mt, b): writes the data and driver of one picture (b "": every size) and prints it;
# more than 12 series become one per algorithm, each night on its best transport. A series'
# colour is its algorithm's, its point its transport's (style.awk); two series that would still
# look alike (one algorithm at two sizes or factors) get different dashes
function trend(g, mt, b,    i, j, s, k, r, ns, lab, a, name, data, drv, P, PN, PV, PA, PT, nf, xt, names, colors, pts, dts, lws, best, extra, vl, lk, c, p, d, used) {
    for (i = 1; i <= NS; i++) { s = O[i]; if (S_g[s] == g && S_m[s] == mt && (b == "" || S_b[s] == b)) ns++ }
    best = mt == "algbw" && ns > 12
    name = "trend_" gkey(g) "_" mt (b == "" ? "" : "_" size_label(b, ""))
    data = tmp "/" name ".dat"; drv = tmp "/" name ".gp"
    for (i = 1; i <= NS; i++) {
        s = O[i]
        if (S_g[s] != g || S_m[s] != mt || (b != "" && S_b[s] != b)) continue
        lab = S_s[s] (b == "" ? " " size_label(S_b[s], " ") : ""); a = S_s[s]; sub(/[\/ ].*$/, "", a)
        if (best) lab = a
        if (!(lab in P)) { P[lab] = ++PN; PA[PN] = a; PL[PN] = lab; PT[PN] = best ? "" : series_transport(S_s[s]) }
        k = g SUBSEP mt SUBSEP S_s[s] SUBSEP S_b[s]
        for (j = 1; j <= GN[g]; j++) {
            r = GRUN[g, j]
            if (!((k, r) in VAL)) continue
            if (!((P[lab], j) in PV) || (mt == "algbw" ? VAL[k, r] > PV[P[lab], j] : VAL[k, r] < PV[P[lab], j])) PV[P[lab], j] = VAL[k, r]
        }
        if (V_flag[s] && !best) { nf++; FX[nf] = GN[g]; FY[nf] = V_last[s]; FL[nf] = lab }
        else if (V_flag[s]) { nf++; FX[nf] = GN[g]; FY[nf] = PV[P[lab], GN[g]]; FL[nf] = lab }
    }
    printf "" > data
    for (i = 1; i <= PN; i++) {
        if (i > 1) printf "\n\n" > data
        printf "# %s\n", PL[i] > data
        for (j = 1; j <= GN[g]; j++) if ((i, j) in PV) printf "%d %.6g\n", j, PV[i, j] > data
        c = algo_color(PA[i]); p = transport_point(PT[i], 0)
        for (d = 1; (c, p, d) in used; d++) ;
        used[c, p, d] = 1
        names = names " \"" PL[i] "\""; colors = colors " \"" c "\""
        pts = pts " " p; dts = dts " " d; lws = lws " " (PA[i] == "nccl" ? 4 : 2)
    }
    printf "\n\n# flagged\n" > data
    for (i = 1; i <= nf; i++) printf "%d %.6g\n", FX[i], FY[i] > data
    if (!nf) printf "%d NaN\n", GN[g] > data
    close(data)
    night_labels(g)
    for (j = 1; j <= GN[g]; j++) xt = xt " \"" NL[j] "\""
    vl = mt == "algbw" ? "algbw (GB/s, 1 GB = 1e9 B)" : mt == "critical" ? "critical straggler delay (ms)" : "time / OPTCC lower bound"
    printf "# %s: written by plots/history.awk\n", name > drv
    printf "data = '%s'\nout = '%s/%s'\nn = %d\nnflag = %d\n", data, out, name, PN, nf > drv
    printf "ptitle = '%s per night%s%s  |  %s, %s to %s'\n", metric_words(mt), b == "" ? "" : ", " size_label(b, " "),
           best ? ", each algorithm on its best transport" : "", GW[g], RUN_DATE[GRUN[g, 1]], RUN_DATE[GRUN[g, GN[g]]] > drv
    printf "names = '%s'\ncolors = '%s'\npts = '%s'\ndts = '%s'\nlws = '%s'\nxt = '%s'\nylab = '%s'\n", names, colors, pts, dts, lws, xt, vl > drv
    printf "gpdir = '%s'\nylog = %d\n", gpdir, mt == "critical" > drv
    printf "load '%s/common.gp'\nload '%s/trend.gp'\n", gpdir, gpdir > drv
    close(drv)
    print drv
}
