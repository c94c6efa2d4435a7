# prep_sweeps.awk: prep.awk's pictures of one size against a swept value: time vs pipeline
# value (pipeline_<scen>_<size>), vs straggler delay (straggler_delay_<size>, critical delays
# marked), critical delay vs size (critical_delay, from critical.csv) and time vs degradation
# factor (degraded_factor_<size>, OPTCC's bound beside it). Loaded after prep.awk, which calls
# each from its END (and crit_read on each row of critical.csv); they read its row arrays (S_*,
# M) and draw with prep_pic.awk.

# pipeline_pics(): time vs pipeline value, one picture per scenario and size with a pipeline sweep
function pipeline_pics(    r, i, r0, ymax, nxt, pmin, pmax, nccl_r, k, j, t, xt, unit, s, name) {
    for (r = 1; r <= R; r++)
        if (M[r] && SW[r] && is_num(S_pipe[r]) && S_pipe[r] + 0 > 0 && !((S_key[r], S_b[r]) in prow)) {
            prow[S_key[r], S_b[r]] = r; pgroups[++npg] = r
        }
    for (i = 1; i <= npg; i++) {
        r0 = pgroups[i]; pic_reset(); ymax = 0; nxt = 0; pmin = pmax = nccl_r = 0
        delete xt_seen
        for (r = 1; r <= R; r++) {
            if (!M[r] || S_key[r] != S_key[r0] || S_b[r] != S_b[r0]) continue
            if (S_alg[r] == "nccl" && !SW[r]) { nccl_r = r; continue }
            if (!SW[r] || !is_num(S_pipe[r]) || S_pipe[r] + 0 <= 0) continue
            pic_add(S_lab0[r], 1, algo_color(S_alg[r]), transport_point(S_tp[r], 1), 1, 2, S_pipe[r], S_med[r])
            if (!((S_pipe[r] + 0) in xt_seen)) { xt_seen[S_pipe[r] + 0] = 1; XT[++nxt] = S_pipe[r] + 0 }
            if (pmin == 0 || S_pipe[r] + 0 < pmin) pmin = S_pipe[r] + 0
            if (S_pipe[r] + 0 > pmax) pmax = S_pipe[r] + 0
            if (S_med[r] > ymax) ymax = S_med[r]
        }
        if (nccl_r) {
            # nccl has no pipeline: a horizontal line across the sweep
            pic_add(S_lab[nccl_r], 0, "#000000", -1, 1, 4, pmin, S_med[nccl_r])
            pic_add(S_lab[nccl_r], 0, "#000000", -1, 1, 4, pmax, S_med[nccl_r])
            if (S_med[nccl_r] > ymax) ymax = S_med[nccl_r]
        }
        # the x tick labels: the pipeline values, in increasing order
        for (k = 2; k <= nxt; k++)
            for (j = k; j > 1 && XT[j] < XT[j - 1]; j--) { t = XT[j]; XT[j] = XT[j - 1]; XT[j - 1] = t }
        xt = ""; for (k = 1; k <= nxt; k++) xt = xt " " num_str(XT[k])
        unit = ymax >= 10000 ? "ms" : "us"
        for (s = 1; s <= P_NS; s++)
            for (k = 1; k <= P_np[s]; k++) P_y[s, k] = sprintf("%.6g", unit == "ms" ? P_y[s, k] / 1000 : P_y[s, k])
        name = "pipeline_" S_key[r0] "_" size_label(S_b[r0], "")
        drawn_p += pic_write(name, "pipeline", "time vs pipeline, " size_label(S_b[r0], " ") ", " scen_title(r0) suffix,
                             "xt = '" xt "'\nylab = 'time per AllReduce, median (" unit ")'\n")
    }
}

# delay_pics(): time vs straggler delay, one picture per size (and straggler rank, if several)
function delay_pics(    r, g, i, r0, nnz, dmin, dmax, cmin, cmax, logx, xzero, extra, nmark, nlab, dbest, k, c, name, ans) {
    for (r = 1; r <= R; r++)
        if (M[r] && S_sr[r] >= 0 && S_dr[r] < 0) {
            g = pl_key(r) (n_count > 1 ? "n" S_n[r] "_" : "") size_label(S_b[r], "") SUBSEP S_sr[r] SUBSEP S_so[r]
            if (!((g, S_d[r]) in seen_gd)) { seen_gd[g, S_d[r]] = 1; delays[g]++ }
            if (!(g in grow)) { grow[g] = r; groups[++ngroups] = g }
            if (!(S_sr[r] in seen_sr)) { seen_sr[S_sr[r]] = 1; sr_count++ }
        }
    for (i = 1; i <= ngroups; i++) {
        g = groups[i]; r0 = grow[g]; ans = ""
        if (delays[g] < 2) continue
        # a geometric delay sweep (4+ nonzero delays over 16x or more) is drawn on log axes,
        # with delay 0 one step left of the smallest
        delete d_seen; nnz = 0; dmin = dmax = 0
        for (r = 1; r <= R; r++)
            if (M[r] && in_delay_group(r, r0) && S_d[r] > 0 && !(S_d[r] in d_seen)) {
                d_seen[S_d[r]] = 1; nnz++
                if (dmin == 0 || S_d[r] < dmin) dmin = S_d[r]
                if (S_d[r] > dmax) dmax = S_d[r]
            }
        logx = (nnz >= 4 && dmax >= 16 * dmin)
        # the critical delays marked at this size are always on the axis: delay 0 sits left of
        # the smallest of them too, and the axis reaches the largest
        cmin = dmin; cmax = dmax
        for (c = 1; c <= NC; c++)
            if (C_b[c] + 0 == S_b[r0] && C_d[c] > 0) {
                if (C_d[c] < cmin) cmin = C_d[c]
                if (C_d[c] > cmax) cmax = C_d[c]
            }
        xzero = logx ? cmin / 2000 : 0
        pic_reset(); extra = (logx ? sprintf("xlog = 1\nxzero = %.6g\n", xzero) : "") sprintf("xmark = %.6g\n", cmax / 1000); nmark = 0
        # scenarios of one condition (a fixed 8 ms scenario and a delay sweep's 8 ms) share a
        # point: the fastest row is drawn, as for repeated runs. More series than a key can
        # hold (dozens: every algorithm x transport) become one line per algorithm, each delay
        # on its fastest transport. Profiled rows (--profile: a tracer on every launch) are drawn
        # only where no other row has that series and delay
        delete pt_best; delete d_lab; nlab = 0
        for (r = 1; r <= R; r++)
            if (M[r] && in_delay_group(r, r0) && !(S_lab[r] in d_lab)) { d_lab[S_lab[r]] = 1; nlab++ }
        dbest = nlab > 14
        for (r = 1; r <= R; r++) {
            if (!M[r] || !in_delay_group(r, r0)) continue
            k = (dbest ? best_label(r) : S_lab[r]) SUBSEP S_d[r]
            if (!(k in pt_best) || better(r, pt_best[k])) pt_best[k] = r
        }
        for (k in pt_best) {
            r = pt_best[k]
            if (!dbest) add_row(r, S_d[r] > 0 ? S_d[r] / 1000 : xzero, sprintf("%.6g", S_med[r] / 1000))
            else pic_add(best_label(r), S_alg[r] == "nccl" ? 0 : 1, algo_color(S_alg[r]), algo_point(S_alg[r]), 1,
                         S_alg[r] == "nccl" ? 4 : 2, S_d[r] > 0 ? S_d[r] / 1000 : xzero, sprintf("%.6g", S_med[r] / 1000))
        }
        extra = extra delay_marks(r0, logx, xzero, cmax, dmax); nmark = DM_n; ans = DM_ans
        name = "straggler_delay_" size_label(S_b[r0], "") (sr_count > 1 ? "_r" S_sr[r0] : "") others_key(S_so[r0], "d")
        if (n_count > 1) name = "n" S_n[r0] "_" name
        name = pl_key(r0) name
        # the title: the answer first (where critical.csv has one for this size)
        sub(/^ /, "", ans)
        extra = extra "nmarkblk = " ("critical delays marked" in P_idx) "\n"
        drawn_d += pic_write(name, "delay", (ans != "" ? ans "  |  " : "") "time vs straggler delay, " size_label(S_b[r0], " ") ", straggler rank " S_sr[r0] \
                             others_words(S_so[r0], "d") pl_title(r0) (dbest ? ", each algorithm on its best transport" : "") suffix, extra)
        if (!nmark) note(name ": no critical delay for this size in critical.csv: none marked")
    }
    if (!drawn_d) note("no straggler delay sweep (2+ delays at one size): straggler_delay_* not drawn")
}

# delay_marks(r0, logx, xzero, cmax, dmax): the critical delays critical.csv has at row r0's size,
# marked on its delay picture (x on a log axis where logx, delay 0 at xzero, the axis up to cmax;
# a size where none was found, up to its bound, else dmax): returns the driver's lines; DM_n is
# how many, DM_ans what they answer (for the title)
function delay_marks(r0, logx, xzero, cmax, dmax,    c, xc, fr, extra) {
    DM_n = 0; DM_ans = ""
    for (c = 1; c <= NC; c++)
        if (C_b[c] + 0 == S_b[r0]) {
            DM_n++
            xc = C_d[c] > 0 || !logx ? C_d[c] / 1000 : xzero
            # the label sits right of the line, or left of it near the right edge
            fr = logx ? log(xc / xzero) / log(cmax / 1000 / xzero) : (cmax > 0 ? C_d[c] / cmax : 0)
            if (!C_model[c]) DM_ans = C_alg[c] " beats " C_base[c] " from " num_str(C_d[c] / 1000) " ms" DM_ans
            else DM_ans = DM_ans " (model: " num_str(C_d[c] / 1000) " ms)"
            extra = extra sprintf("set arrow from %.6g, graph 0 to %.6g, graph 1 nohead lw 2 dt %d lc rgb '%s' front\n",
                                  xc, xc, C_model[c] ? 3 : 2, C_model[c] ? "#e377c2" : "#d62728")
            extra = extra sprintf("set label \"%s %.3g ms\\n(%s vs %s)\" at %.6g, graph %.2f %s front tc rgb '%s'\n",
                                  C_model[c] ? "model: critical delay" : "critical delay", C_d[c] / 1000, C_alg[c], C_base[c],
                                  xc, 0.95 - 0.1 * (DM_n - 1), fr > 0.7 ? "offset -0.6, 0 right" : "offset 0.6, 0 left",
                                  C_model[c] ? "#c0509d" : "#d62728")
            # and as an invisible point at a drawn time, so that gnuplot's table says the
            # mark is on the axis (in range) or not
            pic_add("critical delays marked", 4, "#000000", 7, 1, 1, xc, P_y[1, 1])
        }
    for (c = 1; c <= NV; c++)
        if (NV_b[c] + 0 == S_b[r0]) {
            DM_n++
            extra = extra sprintf("set label \"measured: no critical delay, %s never beat %s up to %s ms\" at graph 0.02, graph %.2f left front tc rgb '#d62728'\n",
                                  NV_alg[c], NV_base[c], num_str(never_bound(c, dmax) / 1000), 0.95 - 0.1 * (DM_n - 1))
            DM_ans = NV_alg[c] " never beat " NV_base[c] " up to " num_str(never_bound(c, dmax) / 1000) " ms" DM_ans
        }
    return extra
}

# critical_pic(): critical delay vs size (2+ sizes: one size is marked on its delay picture); a
# size where the straggler-aware algorithm never won is an open triangle at the largest delay
# tried, "none up to 64 ms"
function critical_pic(    c, ncs, fmin, fmax, nf, nev, ans) {
    pic_reset(); ncs = nf = nev = 0
    for (c = 1; c <= NC; c++) if (!((C_b[c] + 0) in c_sizes)) { c_sizes[C_b[c] + 0] = 1; ncs++ }
    for (c = 1; c <= NV; c++) if (NV_never[c] && !((NV_b[c] + 0) in c_sizes)) { c_sizes[NV_b[c] + 0] = 1; ncs++ }
    # one line per algorithm (measured, model); the baseline it beats labels each measured point
    for (c = 1; c <= NC && ncs >= 2; c++) {
        pic_add(C_alg[c] (C_model[c] ? " (model)" : " (measured)"), C_model[c] ? 2 : 1,
                algo_color(C_alg[c]), C_model[c] ? 6 : 7, C_model[c] ? 2 : 1, 2, C_b[c],
                sprintf("%.6g \"%s\"", C_d[c] / 1000, C_model[c] ? "" : "vs " C_base[c]))
        if (C_model[c]) continue
        if (!nf++ || C_d[c] < C_d[fmin]) fmin = c
        if (nf == 1 || C_d[c] > C_d[fmax]) fmax = c
    }
    for (c = 1; c <= NV && ncs >= 2; c++) {
        if (!NV_never[c]) continue
        if (never_bound(c, 0) <= 0) { note("critical_delay: " size_label(NV_b[c], " ") ": never, but no delay tried is known: not drawn"); continue }
        pic_add(NV_alg[c] " (measured): never won up to the delay shown", 3, algo_color(NV_alg[c]), 8, 1, 2, NV_b[c],
                sprintf("%.6g \"none up to %s ms\"", never_bound(c, 0) / 1000, num_str(never_bound(c, 0) / 1000)))
        ans = ans (nev++ ? ", " : "") size_label(NV_b[c], " ") " (up to " num_str(never_bound(c, 0) / 1000) " ms)"
    }
    # the title: the answer first
    if (nf) ans = C_alg[fmin] " wins from " num_str(C_d[fmin] / 1000) " ms (" size_label(C_b[fmin], " ") ")" \
                  (nf > 1 ? " to " num_str(C_d[fmax] / 1000) " ms (" size_label(C_b[fmax], " ") ")" : "") (nev ? "; never at " ans : "")
    else if (nev) ans = "never at " ans
    if (!pic_write("critical_delay", "critical", (ans != "" ? ans "  |  " : "") "critical straggler delay vs size", "nnever = " (nev + 0) "\n"))
        note(crit == "" ? "no critical.csv: critical_delay not drawn" : ncs == 1 ? "critical.csv has one size: critical_delay not drawn (its delay picture marks it)" : "no usable rows in critical.csv: critical_delay not drawn")
}

# never_bound(c, dflt): returns the largest delay (us) tried at the size of critical.csv's row c
# that found none: the note's "up to X ms", else the largest delay of that size's probes in
# results.csv, else dflt
function never_bound(c, dflt,    r, m) {
    if (NV_bound[c] != "") return NV_bound[c]
    for (r = 1; r <= R; r++) if (S_b[r] == NV_b[c] + 0 && is_probe(r) && S_d[r] > m) m = S_d[r]
    return m > 0 ? m : dflt
}

# factor_pics(): time vs degradation factor, one picture per size (and degraded rank, if several)
function factor_pics(    r, g, i, r0, ymax, nlb, fc, unit, s, k, name, h, fmin, fmax, top, ans) {
    for (r = 1; r <= R; r++)
        if (M[r] && S_dr[r] >= 0 && S_sr[r] < 0) {
            g = pl_key(r) (n_count > 1 ? "n" S_n[r] "_" : "") size_label(S_b[r], "") SUBSEP S_dr[r] SUBSEP S_do[r]
            if (!((g, S_f[r]) in seen_gf)) { seen_gf[g, S_f[r]] = 1; factors[g]++ }
            if (!(g in frow)) { frow[g] = r; fgroups[++nfgroups] = g }
            if (!(S_dr[r] in seen_dr)) { seen_dr[S_dr[r]] = 1; dr_count++ }
        }
    for (i = 1; i <= nfgroups; i++) {
        g = fgroups[i]; r0 = frow[g]
        if (factors[g] < 2) continue
        pic_reset(); ymax = 0; delete pt_best
        # one point per series and factor: its fastest row
        for (r = 1; r <= R; r++)
            if (M[r] && in_factor_group(r, r0) && (!((S_lab[r], S_f[r]) in pt_best) || S_med[r] < S_med[pt_best[S_lab[r], S_f[r]]]))
                pt_best[S_lab[r], S_f[r]] = r
        fmin = fmax = top = 0
        for (r = 1; r <= R; r++)
            if (M[r] && in_factor_group(r, r0) && pt_best[S_lab[r], S_f[r]] == r) {
                add_row(r, S_f[r], S_med[r]); if (S_med[r] > ymax) ymax = S_med[r]
                fac_seen[S_f[r]] = 1
                if (!fmin || S_f[r] < fmin) fmin = S_f[r]
                if (S_f[r] > fmax) fmax = S_f[r]
            }
        # the best at the largest factor, for the title
        for (r = 1; r <= R; r++)
            if (M[r] && in_factor_group(r, r0) && S_f[r] == fmax && S_alg[r] != "nccl" && (!top || S_med[r] < S_med[top])) top = r
        # the healthy best (no degraded GPU, or it at x1): a line across the factors
        h = healthy_at(r0, S_b[r0])
        if (h) {
            pic_add("healthy best (" S_lab[h] ", no degraded GPU)", 3, "#1a9850", -1, 2, 3, fmin, S_med[h])
            pic_add("healthy best (" S_lab[h] ", no degraded GPU)", 3, "#1a9850", -1, 2, 3, fmax, S_med[h])
        } else note("degraded_factor_" size_label(S_b[r0], "") ": no healthy row of this size: no healthy best drawn")
        nlb = 0
        for (fc in fac_seen)
            if ((S_n[r0], S_b[r0], fc + 0) in LB) {
                pic_add("OPTCC lower bound", 3, "#555555", -1, 3, 3, fc + 0, LB[S_n[r0], S_b[r0], fc + 0]); nlb++
            }
        delete fac_seen
        ans = ""
        if (top) {
            ans = "at x" num_str(fmax) " the best is " S_lab[top]
            if ((S_n[r0], S_b[r0], fmax) in LB) ans = ans sprintf(", %.2fx OPTCC''s bound", S_med[top] / LB[S_n[r0], S_b[r0], fmax])
            if (h) ans = ans sprintf(", %.2fx the healthy best", S_med[top] / S_med[h])
            ans = ans "  |  "
        }
        # ms when the times are long, so the tick labels stay short
        unit = ymax >= 10000 ? "ms" : "us"
        for (s = 1; s <= P_NS; s++)
            for (k = 1; k <= P_np[s]; k++) P_y[s, k] = sprintf("%.6g", unit == "ms" ? P_y[s, k] / 1000 : P_y[s, k])
        name = "degraded_factor_" size_label(S_b[r0], "") (dr_count > 1 ? "_r" S_dr[r0] : "") others_key(S_do[r0], "f")
        if (n_count > 1) name = "n" S_n[r0] "_" name
        name = pl_key(r0) name
        drawn_f += pic_write(name, "factor", ans "time vs degradation factor, " size_label(S_b[r0], " ") ", degraded rank " S_dr[r0] \
                             others_words(S_do[r0], "f") pl_title(r0) suffix, "ylab = 'time per AllReduce, median (" unit ")'\n")
        if (!nlb) note(name ": no OPTCC lower bound (lower_bound_us column or model rows named lower-bound): not drawn")
    }
    if (!drawn_f) note("no degradation factor sweep (2+ factors at one size): degraded_factor_* not drawn")
}

# crit_read(f): reads the fields f of a critical.csv row (header ccol): C_* a critical delay found
# (measured, or the model's), NV_* a size where none was found, CRIT_SCEN the scenarios of the
# search's probes
function crit_read(f,    cv, b, v, mv) {
    cv = get(f, ccol, "critical_delay_us", "")
    b = get(f, ccol, "bytes", "")
    if (!is_num(b)) return
    # the scenarios whose rows are the search's probes (a plain --find-critical run: ""; an
    # older critical.csv names none)
    if ("scenario" in ccol) CRIT_SCEN[clean_text(get(f, ccol, "scenario", ""))] = 1
    if (!is_num(cv) || cv + 0 < 0) {
        # no critical delay found (inf, never, empty): drawn as "never" up to the largest delay
        # tried (the note's "up to X ms", else the probes' largest) where the status says never
        if (tolower(get(f, ccol, "source", "gpu")) != "model") {
            NV++; NV_b[NV] = b; NV_alg[NV] = clean_text(get(f, ccol, "algorithm", "stragglar"))
            NV_base[NV] = clean_text(get(f, ccol, "baseline", "best"))
            v = tolower(get(f, ccol, "status", tolower(cv) == "inf" ? "never" : ""))
            NV_never[NV] = (v == "never")
            v = get(f, ccol, "note", "")
            NV_bound[NV] = match(v, /up to [0-9.]+ ms/) ? substr(v, RSTART + 6, RLENGTH - 9) * 1000 : ""
        }
    } else {
        NC++
        C_b[NC] = b; C_d[NC] = cv + 0
        C_alg[NC] = clean_text(get(f, ccol, "algorithm", "stragglar"))
        C_base[NC] = clean_text(get(f, ccol, "baseline", "best"))
        C_model[NC] = (tolower(get(f, ccol, "source", "gpu")) == "model")
    }
    mv = get(f, ccol, "model_critical_delay_us", "")
    if (is_num(mv) && mv + 0 >= 0) {
        NC++
        C_b[NC] = b; C_d[NC] = mv + 0; C_model[NC] = 1
        C_alg[NC] = clean_text(get(f, ccol, "algorithm", "stragglar"))
        C_base[NC] = clean_text(get(f, ccol, "baseline", "best"))
    }
}
