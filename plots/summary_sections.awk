# summary_sections.awk: the sections of summary.md after the best-per-size tables, for
# summary.awk (loaded after it, which reads the rows): regressions against a baseline, the
# critical delays, the overlap table, the rows beside a load, the rows that failed and those
# that could not run.

# critical_section(): prints critical.csv's delays with the model's prediction next to them
function critical_section(    c, i, idx, key, mv, d, n) {
    if (NC == 0) return
    for (c = 1; c <= NC; c++)
        if (C_src[c] == "model") MCRIT[C_b[c], C_alg[c]] = C_d[c]
    for (c = 1; c <= NC; c++) if (C_src[c] != "model") { idx[++n] = c; key[c] = sprintf("%020.0f|%s", C_b[c], C_alg[c]) }
    if (n == 0) return
    isort(key, idx, n)
    printf "\n## Critical straggler delay\n\nThe smallest delay at which the straggler-aware algorithm beats the best bulk-synchronous one.\n\n"
    printf "| size | algorithm | beats | critical delay (ms) | model (ms) |\n|---:|---|---|---:|---:|\n"
    for (i = 1; i <= n; i++) {
        c = idx[i]
        d = is_num(C_d[c]) && C_d[c] + 0 >= 0 ? sprintf("%.2f", C_d[c] / 1000) : C_st[c] == "never" ? never_words(C_note[c]) \
            : "not found (" clean_text(C_d[c] == "" ? "empty" : C_d[c]) ")"
        mv = C_mod[c] != "" ? C_mod[c] : ((C_b[c], C_alg[c]) in MCRIT) ? MCRIT[C_b[c], C_alg[c]] : ""
        mv = is_num(mv) && mv + 0 >= 0 ? sprintf("%.2f", mv / 1000) : (mv == "" ? "-" : clean_text(mv))
        printf "| %s | %s | %s | %s | %s |\n", size_label(C_b[c], " "), C_alg[c], C_base[c], d, mv
    }
}

# never_words(note): returns a search that never found a critical delay as what it shows: "none up
# to 64 ms", the bound from the note ("did not win up to 64.0 ms ..."), "none (bound unknown)"
# where the note does not say it
function never_words(note,    v) {
    if (!match(note, /up to [0-9.]+ ms/)) return "none (bound unknown)"
    v = substr(note, RSTART + 6, RLENGTH - 9)
    return "none up to " num_str(v + 0) " ms"
}

# overlap_section(): prints the rows measured with --profile overlap: the share of copy time
# that ran concurrently with reduction kernels and with the straggler's delay (at most 80 rows)
function overlap_section(    i, idx, key, pr) {
    if (NO == 0) return
    for (i = 1; i <= NO; i++) { idx[i] = i; key[i] = sprintf("%s\001%020.0f\001%s", O_scen[i], O_b[i], O_lab[i]) }
    isort(key, idx, NO)
    printf "\n## Overlap (--profile overlap)\n\n"
    printf "The share of each rank's copy time (copy-engine copies, NCCL's and the sm and ll transports'\n"
    printf "kernels) that ran concurrently with reduction kernels and with the straggler's delay, from\n"
    printf "CUPTI activity records, mean over the ranks (per rank: overlap.csv).\n\n"
    printf "| scenario | size | algorithm | copy with reduction (%%) | copy with delay (%%) |\n|---|---:|---|---:|---:|\n"
    for (i = 1; i <= NO && i <= 80; i++) {
        pr = idx[i]
        printf "| %s | %s | %s | %s | %s |\n", O_scen[pr], size_label(O_b[pr], " "), O_lab[pr],
               is_num(O_r[pr]) ? sprintf("%.1f", O_r[pr]) : "-", is_num(O_d[pr]) ? sprintf("%.1f", O_d[pr]) : "-"
    }
    if (NO > 80) printf "\n(%d more not shown)\n", NO - 80
}

# compute_section(): the rows measured beside a load (--compute), per scenario and size: the
# schedule fastest alone beside the one with the shortest step under the load (the span, both
# started together, to the later end), each named with every other whose 95% interval overlaps
# its own (a tie), then that step's load, its time alone and the slowdowns and hidden share
function compute_section(    i, f, g, ng, gk, idx, k, best, step, b, sc) {
    if (NCP == 0) return
    for (i = 1; i <= NCP; i++) {
        csv_split(CP_line[i], f)
        b = get(f, col, "bytes", "") + 0; sc = scen_label(clean_text(get(f, col, "scenario", "")), scen_words(f))
        CP_lab[i] = series_name(clean_text(get(f, col, "algorithm", "?")), clean_text(get(f, col, "transport", "-")))
        CP_t[i] = get(f, col, "time_us_median", "") + 0; CP_tlo[i] = get(f, col, "time_us_ci_lo", "")
        CP_thi[i] = get(f, col, "time_us_ci_hi", ""); CP_s[i] = get(f, col, "span_us_median", "") + 0
        CP_slo[i] = get(f, col, "span_us_ci_lo", ""); CP_shi[i] = get(f, col, "span_us_ci_hi", "")
        CP_load[i] = clean_text(get(f, col, "compute", "")); CP_c[i] = get(f, col, "compute_us_median", "") + 0
        CP_as[i] = get(f, col, "allreduce_slowdown", "") + 0; CP_cs[i] = get(f, col, "compute_slowdown", "") + 0
        CP_h[i] = get(f, col, "hidden_share", "") + 0
        k = sc SUBSEP b
        if (!(k in CPG)) { CPG[k] = ++ng; gk[ng] = sprintf("%s\001%020.0f", sc, b); idx[ng] = ng; CPG_s[ng] = sc; CPG_b[ng] = b }
        g = CPG[k]; CPM[g, ++CPN[g]] = i
        if (!(g in best) || CP_t[i] < CP_t[best[g]]) best[g] = i
        if (!(g in step) || CP_s[i] < CP_s[step[g]]) step[g] = i
    }
    isort(gk, idx, ng)
    printf "\n## Beside compute (--compute)\n\n"
    printf "Per size, the schedule fastest alone beside the one with the shortest step under the load (the\n"
    printf "AllReduce and the load started together, to the later end); a schedule whose 95%% interval\n"
    printf "overlaps the best one's is a tie, named with it. Slowdowns: the AllReduce's and the load's\n"
    printf "beside each other; hidden: the share of the AllReduce alone that the load hid.\n\n"
    printf "| scenario | size | fastest alone | us | shortest step beside the load | us | load | load alone (us) | AllReduce slowdown | load slowdown | hidden |\n"
    printf "|---|---:|---|---:|---|---:|---|---:|---:|---:|---:|\n"
    for (i = 1; i <= ng; i++) {
        g = idx[i]; b = best[g]; sc = step[g]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.0f%% |\n", CPG_s[g], size_label(CPG_b[g], " "),
               cp_ties(g, b, "t"), fmt_t(CP_t[b]), cp_ties(g, sc, "s"), fmt_t(CP_s[sc]), CP_load[sc], fmt_t(CP_c[sc]),
               CP_as[sc], CP_cs[sc], 100 * CP_h[sc]
    }
}

# cp_ties(g, b, w): the best row b of compute group g by w ("t": alone, "s": the step), with every
# row whose interval overlaps b's: "ring/ce", or "ring/ce, ring/sm (tie)"
function cp_ties(g, b, w,    i, r, lo, hi, s, n) {
    s = CP_lab[b]; n = 1
    lo = w == "t" ? CP_tlo[b] : CP_slo[b]; hi = w == "t" ? CP_thi[b] : CP_shi[b]
    if (!has_ci(lo, hi)) return s
    for (i = 1; i <= CPN[g]; i++) {
        r = CPM[g, i]
        if (r == b) continue
        if (w == "t" && has_ci(CP_tlo[r], CP_thi[r]) && ci_overlap(CP_tlo[r], CP_thi[r], lo, hi) ||
            w == "s" && has_ci(CP_slo[r], CP_shi[r]) && ci_overlap(CP_slo[r], CP_shi[r], lo, hi)) { s = s ", " CP_lab[r]; n++ }
    }
    return n > 1 ? s " (tie)" : s
}

# regressions(): prints the rows slower than the baseline's: where both rows have an interval of
# 6 samples or more, by regression_verdict (intervals apart and at least stats_min_effect()
# slower); otherwise by
# the older rule, slower by more than max(3 x the larger stdev, 5% of the baseline median).
# Each row says which rule decided it.
function regressions(    r, k, thr, sd, v, nreg, nimp, ncmp, nci, nsd, idx, key, i, scen, show_ci) {
    printf "\n## Regressions against %s\n\n", basedir (base_run != "" ? " (" base_run ")" : "")
    printf "A row regressed when both it and the baseline's row have an interval of 6 samples or more, the\n"
    printf "two do not overlap and it is slower by at least %d%% (rule \"intervals\": beyond noise and large\n", 100 * stats_min_effect()
    printf "enough to matter); where either has none, when it is slower by more than max(3 x the larger\n"
    printf "stdev, 5%%) (rule \"3 sd / 5%%\"). Rows match by scenario, algorithm, transport, pipeline, dtype\n"
    printf "and size.\n\n"
    if (base_gpu != "" && meta_gpu != "" && base_gpu != meta_gpu) printf "Note: the baseline ran on %s, this run on %s.\n\n", base_gpu, meta_gpu
    for (r = 1; r <= R; r++) {
        if (S_src[r] == "model" || !(S_id[r] in B_med)) continue
        k = S_id[r]; ncmp++
        if (has_ci(B_lo[k], B_hi[k]) || has_ci(S_lo[r], S_hi[r])) show_ci = 1
        # an interval decides only where it covers 95% (6 samples or more)
        v = B_ns[k] != "" && B_ns[k] < 6 || few(r) ? "" : regression_verdict(B_med[k], B_lo[k], B_hi[k], S_med[r], S_lo[r], S_hi[r])
        if (v != "") { nci++; RULE[r] = "intervals" }
        else {
            nsd++
            sd = S_sd[r] > B_sd[k] ? S_sd[r] : B_sd[k]
            thr = 3 * sd > 0.05 * B_med[k] ? 3 * sd : 0.05 * B_med[k]
            v = S_med[r] - B_med[k] > thr ? "slower" : B_med[k] - S_med[r] > thr ? "faster" : "same"
            RULE[r] = "3 sd / 5%: > " fmt_t(thr) " us"
        }
        if (v == "faster") nimp++
        if (v != "slower") continue
        idx[++nreg] = r
        key[r] = sprintf("%s|%06d|%014.3f|%06d|%010.3f|%s\001%s\001%s\001%s\001%020.0f", kind_of(r), S_sr[r] + 1, S_d[r] / 1000,
                         S_dr[r] + 1, S_f[r], S_so[r], S_do[r], S_scen[r], S_lab[r], S_b[r])
    }
    if (ncmp == 0) { printf "No rows in common with the baseline.\n"; return }
    if (nreg == 0) printf "None: %d rows compared, %d faster beyond noise.\n", ncmp, nimp
    else printf "**%d regression%s** (%d rows compared, %d faster beyond noise):\n", nreg, (nreg > 1 ? "s" : ""), ncmp, nimp
    printf "\nDecided by intervals: %d rows; by 3 sd / 5%%: %d rows (no interval of 6 samples on one side or both).\n", nci, nsd
    if (nreg == 0) return
    isort(key, idx, nreg)
    printf "\n| scenario | algorithm | size | baseline (us) | %snow (us) | %schange | rule |\n", show_ci ? "baseline interval (us) | " : "",
           show_ci ? "now interval (us) | " : ""
    printf "|---|---|---:|---:|%s---:|%s---:|---|\n", show_ci ? "---:|" : "", show_ci ? "---:|" : ""
    for (i = 1; i <= nreg; i++) {
        r = idx[i]; k = S_id[r]
        scen = scen_label(S_scen[r], row_words(r))
        printf "| %s | %s | %s | %s | %s%s | %s+%.1f%% | %s |\n", scen, S_lab[r], size_label(S_b[r], " "), fmt_t(B_med[k]),
               show_ci ? ci_text(B_lo[k], B_hi[k], B_ns[k]) " | " : "", fmt_t(S_med[r]),
               show_ci ? ci_cell(r) " | " : "", 100 * (S_med[r] / B_med[k] - 1), RULE[r]
    }
}

# status_words(): returns the statuses of the measured rows that did not run: "288 n/a, 2 oom"
function status_words(    s, t) {
    for (s in nst) if (s != "ok") t = t (t == "" ? "" : ", ") nst[s] " " s
    return t
}

# failed_section(): the rows that failed or were wrong, or what was checked when none did
function failed_section(    i) {
    printf "\n## Rows that failed\n\n"
    if (NB > 0) {
        printf "| algorithm | transport | size | scenario | status | wrong |\n|---|---|---:|---|---|---:|\n"
        for (i = 1; i <= NB && i <= 50; i++) print NB_line[i]
        if (NB > 50) printf "\n(%d more not shown)\n", NB - 50
    } else if (!any_gpu)
        printf "Nothing ran: in model mode every row is priced by arbench model; no AllReduce was run or checked.\n"
    else if (!has_measured)
        printf "Nothing ran: no row was timed, so none was checked (see \"Rows that could not run\").\n"
    else if (n_unchecked > 0)
        printf "None failed, but only %d of the %d rows that ran were checked (%d ran with --no-check: wrong = -1).\n",
               n_checked, n_checked + n_unchecked, n_unchecked
    else printf "None: all %d rows that ran were checked, with 0 wrong elements.\n", n_checked
}

# unrun_section(): the rows that could not run (n/a) or did not fit (oom), counted per
# scenario, algorithm and transport
function unrun_section(    i, k, p, idx, key) {
    if (NNA == 0) return
    for (i = 1; i <= NNA; i++) { idx[i] = i; key[i] = NA_k[i] }
    isort(key, idx, NNA)
    printf "\n## Rows that could not run\n\n"
    printf "n/a: the algorithm or transport cannot run there (arbench run printed why as it ran, and\n"
    printf "`arbench run --dry-run` with the run's COMMAND prints it again); oom: the buffers did not fit.\n\n"
    printf "| scenario | algorithm | transport | status | rows | sizes |\n|---|---|---|---|---:|---|\n"
    for (i = 1; i <= NNA && i <= 60; i++) {
        k = NA_k[idx[i]]; split(k, p, SUBSEP)
        printf "| %s | %s | %s | %s | %d | %s |\n", p[1] == "" ? "-" : p[1], p[2], p[3], p[4], NA_n[k],
               NA_lo[k] == NA_hi[k] ? size_label(NA_lo[k], " ") : size_label(NA_lo[k], " ") " to " size_label(NA_hi[k], " ")
    }
    if (NNA > 60) printf "\n(%d more not shown)\n", NNA - 60
}
