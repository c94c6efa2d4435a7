# compare_nccl_tests.awk: compare.md of tools/compare_nccl_tests.sh, arbench's rows beside
# nccl-tests' all_reduce_perf logs, with the medians' 95% intervals and the rules of
# docs/statistics.md:
#   awk -f plots/csv.awk -f plots/stats.awk -f tools/nccl_tests_log.awk -f this \
#       [-v gpus=N] [-v run=NAME] [-v logs=NAME] RESULTS_CSV LOG...
# The first file is arbench's results.csv (its timing method and nccl registration read from
# each row's settings), the others nccl-tests' text output (tools/nccl_tests_log.awk). With
# -v describe=logs every file is a log, with -v describe=run the one file a results.csv, and it
# prints one line instead: "GPUS|MODEL|DTYPE" of the logs' complete tests or of the arbench rows
# (the values of several rows joined by commas). Refuses (one line on stderr, exit 2) sides whose
# GPU count, GPU model or dtype differ, a results.csv without arbench rows, logs without a
# complete test; exit 1 when no size of any timing method was measured by both sides.

function refuse(what) { printf "compare-nccl-tests: %s\n", what > "/dev/stderr"; bad_exit = 2; exit 2 }
function us(t) { return t >= 1000 ? sprintf("%.1f", t) : sprintf("%.2f", t) }
# iv(n, lo, hi): 1 when a median of n samples has an interval to decide with
function iv(n, lo, hi) { return n + 0 >= 2 && has_ci(lo, hi) }
# cell(med, lo, hi, n): a median with its interval, "9.72 [9.60-9.88]", or its lack said
function cell(med, lo, hi, n) {
    if (med == "") return "-"
    if (iv(n, lo, hi)) return us(med) " [" us(lo) "-" us(hi) "]"
    return us(med) (n + 0 == 1 ? " (1 sample)" : " (no interval)")
}
# samples_cell(a, b): the two sides' sample counts, flagged where one cannot be decided on
function samples_cell(a, b, ai, bi,    s) {
    s = (a == "" ? "?" : a) " / " (b == "" ? "?" : b)
    if (!ai || !bi) return s ", not counted"
    if (a + 0 < 6 || b + 0 < 6) return s ", interval under 95%"
    return s
}
function add_set(set, v, order) { if (v != "" && !(v in set)) { set[v] = 1; order[++order[0]] = v } }
function join_set(order,    i, s) { s = ""; for (i = 1; i <= order[0]; i++) s = s (i > 1 ? ", " : "") order[i]; return s }
function setting(s, name,    v) {
    if (!match(";" s ";", ";" name "=[^;]*;")) return ""
    v = substr(";" s ";", RSTART + length(name) + 2, RLENGTH - length(name) - 3)
    return v
}
function reg_of(r) { return r == 0 ? "none" : r == 1 ? "registered" : r == 2 ? "symmetric" : "" }
function pct(x) { return sprintf("%.0f%%", 100 * x) }
function pct_range(lo, hi) { return pct(lo) == pct(hi) ? pct(lo) : pct(lo) "-" pct(hi) }

FNR == 1 { nfile++; if (nfile > 1 || describe == "logs") nt_file_begin(FILENAME) }
nfile == 1 && describe != "logs" && FNR == 1 { csv_header($0, col); next }
nfile == 1 && describe != "logs" { arbench_row(); next }
{ nt_line($0) }

# arbench_row(): one row of results.csv
function arbench_row(    f, src, st, wr, tm, reg, alg, tp, b, med, k, n, pl, lab, i, sets) {
    csv_split($0, f)
    src = get(f, col, "source", "gpu")
    if (src != "gpu") { nforeign++; return }
    # clean rows only: no straggler, degraded GPU or profile (CUPTI adds to each launch)
    if (get(f, col, "stragglers", "") != "" || get(f, col, "degraded", "") != "" ||
        get(f, col, "straggler_rank", "-1") != "-1" || get(f, col, "factor", "1") + 0 != 1 ||
        get(f, col, "overlap_reduce_pct", "") != "") return
    pl = get(f, col, "placement", "1 rank/GPU")
    if (pl != "1 rank/GPU") { add_set(ab_pl, pl, ab_plo); return }
    nab++
    add_set(ab_gpus, get(f, col, "n_gpus", ""), ab_gpuso); add_set(ab_model, get(f, col, "gpu", ""), ab_modelo)
    add_set(ab_dt, get(f, col, "dtype", ""), ab_dto); add_set(ab_nccl, get(f, col, "nccl", ""), ab_ncclo)
    st = get(f, col, "status", ""); wr = get(f, col, "wrong", "0")
    tm = setting(get(f, col, "settings", ""), "timing.mode"); if (tm == "") tm = "events"
    reg = setting(get(f, col, "settings", ""), "nccl.registration"); if (reg == "") reg = "none"
    ab_rows[tm]++
    if (st == "error" || st == "timeout" || (is_num(wr) && wr + 0 > 0)) { ab_bad[tm]++; return }
    med = get(f, col, "time_us_median", "")
    if (st != "ok" || !is_num(med)) return
    alg = get(f, col, "algorithm", ""); tp = get(f, col, "transport", ""); b = get(f, col, "bytes", "")
    n = get(f, col, "n_samples", "")
    sizes[b] = 1; timing[tm] = 1
    if (alg == "nccl") { # as nccl-tests runs it (an_*) or not (aw_*: one buffer, or uploaded)
        k = tm SUBSEP reg SUBSEP b; sets = get(f, col, "settings", "")
        if (setting(sets, "nccl.rotate") == "on" && (tm != "graph" || setting(sets, "timing.graph_upload") == "off")) {
            an_any[tm, reg] = 1; keep_min(an_med, an_n, an_lo, an_hi, k, med, n, f)
        } else {
            aw_any[tm, reg] = 1; keep_min(aw_med, aw_n, aw_lo, aw_hi, k, med, n, f)
        }
        return
    }
    lab = alg "/" tp (reg == "none" ? "" : " (" reg ")")
    k = tm SUBSEP b; i = ++bc_n[k]
    bc_med[k, i] = med + 0; bc_ns[k, i] = n; bc_lab[k, i] = lab
    bc_lo[k, i] = get(f, col, "time_us_ci_lo", ""); bc_hi[k, i] = get(f, col, "time_us_ci_hi", "")
}

# keep_min(MED, N, LO, HI, k, med, n, f): the row's median, samples and interval at key k,
# where it is the fastest at k so far
function keep_min(MED, N, LO, HI, k, med, n, f) {
    if ((k in MED) && med + 0 >= MED[k]) return
    MED[k] = med + 0; N[k] = n; LO[k] = get(f, col, "time_us_ci_lo", ""); HI[k] = get(f, col, "time_us_ci_hi", "")
}

# verdict(m1, lo1, hi1, n1, m2, lo2, hi2, n2): the first beside the second: "no interval",
# "same" (the intervals overlap), "**slower N%**" or "**faster N%**"; tally_add() counts it
# into the t_* totals a tally_line() says
function verdict(m1, lo1, hi1, n1, m2, lo2, hi2, n2,    d) {
    if (!iv(n1, lo1, hi1) || !iv(n2, lo2, hi2)) return "no interval"
    if (ci_overlap(lo1, hi1, lo2, hi2)) return "same"
    d = m1 / m2 - 1
    return "**" (d > 0 ? "slower " pct(d) : "faster " pct(-d)) "**"
}
function tally_reset() { t_cmp = t_same = t_slow = t_fast = t_flag = 0; t_slo = t_shi = t_flo = t_fhi = "" }
function tally_add(m1, lo1, hi1, n1, m2, lo2, hi2, n2,    d) {
    if (!iv(n1, lo1, hi1) || !iv(n2, lo2, hi2)) { t_flag++; return }
    t_cmp++; d = m1 / m2 - 1
    if (ci_overlap(lo1, hi1, lo2, hi2)) t_same++
    else if (d > 0) { t_slow++; if (t_slo == "" || d < t_slo) t_slo = d; if (t_shi == "" || d > t_shi) t_shi = d }
    else { t_fast++; if (t_flo == "" || -d < t_flo) t_flo = -d; if (t_fhi == "" || -d > t_fhi) t_fhi = -d }
}
function tally_range(k, lo, hi) { return k ? " (by " pct_range(lo, hi) ")" : "" }

# ab_best(k, r): arbench's fastest schedule at key k (timing SUBSEP bytes) into r["med"],
# r["lo"], r["hi"], r["n"], r["lab"] and r["more"] (the others whose interval overlaps its
# own: docs/statistics.md's best group); 0 when none ran
function ab_best(k, r,    i, best) {
    delete r
    for (i = 1; i <= bc_n[k]; i++) if (!best || bc_med[k, i] < bc_med[k, best]) best = i
    if (!best) return 0
    r["med"] = bc_med[k, best]; r["lo"] = bc_lo[k, best]; r["hi"] = bc_hi[k, best]; r["n"] = bc_ns[k, best]
    r["lab"] = bc_lab[k, best]; r["more"] = 0
    if (iv(r["n"], r["lo"], r["hi"]))
        for (i = 1; i <= bc_n[k]; i++)
            if (i != best && iv(bc_ns[k, i], bc_lo[k, i], bc_hi[k, i]) && bc_lo[k, i] + 0 <= r["hi"] + 0) r["more"]++
    return 1
}

# nt_at(m, side, b, r): nccl-tests' mode m, side, size b into r (as ab_best); 0 when it has
# no sample there or any line had wrong elements (never ranked)
function nt_at(m, side, b, r,    k) {
    delete r
    k = m SUBSEP side SUBSEP b
    if (!(k in nt_n) || nt_bad[k] > 0) return 0
    nt_stats(k, r)
    r["lab"] = nt_mlabel[m] ", " side
    return 1
}

# nt_best(graph, b, r): nccl-tests' fastest mode and side at b among its runs with -G (graph
# 1) or without (0), into r with r["more"] (the others within its interval)
function nt_best(graph, b, r,    m, s, side, c, best, i, cn) {
    delete r; cn = 0
    for (m = 1; m <= nt_nmodes; m++) {
        if ((nt_mgraph[m] > 0) != graph) continue
        for (s = 0; s < 2; s++) {
            side = s ? "in-place" : "out-of-place"
            if (!nt_at(m, side, b, c)) continue
            cn++; cm[cn] = c["med"]; cl[cn] = c["lo"]; ch[cn] = c["hi"]; cnn[cn] = c["n"]; clab[cn] = c["lab"]
            if (!best || cm[cn] < cm[best]) best = cn
        }
    }
    if (!best) return 0
    r["med"] = cm[best]; r["lo"] = cl[best]; r["hi"] = ch[best]; r["n"] = cnn[best]; r["lab"] = clab[best]; r["more"] = 0
    if (iv(r["n"], r["lo"], r["hi"]))
        for (i = 1; i <= cn; i++) if (i != best && iv(cnn[i], cl[i], ch[i]) && cl[i] + 0 <= r["hi"] + 0) r["more"]++
    return 1
}

# same_mode(reg, graph): nccl-tests' mode that runs as arbench's nccl row does: a thread (or
# process) per GPU (-g 1), that registration, with or without -G, nothing else set; 0 if none
function same_mode(reg, graph,    m) {
    for (m = 1; m <= nt_nmodes; m++)
        if (nt_mG[m] == 1 && reg_of(nt_mR[m]) == reg && (nt_mgraph[m] > 0) == graph && nt_menv[m] == "") return m
    return 0
}

# check_sides(): refuses sides that cannot be set side by side
function check_sides(    i, ranks, model, dt, nccl, ver, nvls) {
    for (i = 1; i <= nt_ntests; i++) {
        if (nt_state[i] != "used") continue
        add_set(ranks, nt_ranks[i], ranks_o); add_set(model, nt_model[i], model_o); add_set(dt, nt_dtype[i], dt_o)
        add_set(nccl, nt_nccl[i], nccl_o); add_set(ver, nt_ver[i], ver_o)
        add_set(nvls, nt_nvls[i] == "" ? "unset" : nt_nvls[i], nvls_o); if (nt_model[i] == "") nt_nomodel++
    }
    if (!nt_nmodes) refuse(logs_var ": bad value '" logs "': no complete all_reduce_perf test in " nt_nfiles " file(s)")
    if (ranks_o[0] > 1) refuse(logs_var ": bad value '" logs "': its tests ran on different GPU counts (" join_set(ranks_o) ")")
    if (model_o[0] > 1) refuse(logs_var ": bad value '" logs "': its tests ran on different GPUs (" join_set(model_o) ")")
    if (dt_o[0] > 1) refuse(logs_var ": bad value '" logs "': its tests have different dtypes (" join_set(dt_o) ")")
    nt_gpus = ranks_o[1]; nt_model_name = model_o[1]; nt_dtype_one = dt_o[1]
    nt_nccl_v = join_set(nccl_o); nt_ver_v = join_set(ver_o); nt_nvls_v = join_set(nvls_o)
    if (describe) return
    if (!nab && ab_plo[0]) refuse("RUN: bad value '" run "': its ranks share GPUs (" join_set(ab_plo) "): nccl-tests runs a rank per GPU")
    if (!nab) refuse("RUN: bad value '" run "': no arbench measurements in its results.csv" (nforeign ? " (" nforeign " rows of another source)" : ""))
    if (ab_gpuso[0] > 1) refuse("RUN: bad value '" run "': rows of different GPU counts (" join_set(ab_gpuso) ")")
    if (ab_modelo[0] > 1) refuse("RUN: bad value '" run "': rows of different GPUs (" join_set(ab_modelo) ")")
    if (ab_dto[0] > 1) refuse("RUN: bad value '" run "': rows of different dtypes (" join_set(ab_dto) ")")
    if (nt_gpus + 0 != ab_gpuso[1] + 0)
        refuse(logs_var ": bad value '" logs "': nccl-tests ran on " nt_gpus " GPUs, arbench (" run ") on " ab_gpuso[1])
    if (nt_model_name != "" && nt_model_name != ab_modelo[1])
        refuse(logs_var ": bad value '" logs "': nccl-tests ran on " nt_model_name ", arbench (" run ") on " ab_modelo[1])
    if (nt_dtype_one != ab_dto[1])
        refuse(logs_var ": bad value '" logs "': nccl-tests' dtype is " nt_dtype_one ", arbench's (" run ") " ab_dto[1])
    if (gpus != "" && gpus + 0 != nt_gpus + 0)
        refuse("GPUS: bad value '" gpus "': nccl-tests ran on " nt_gpus " GPUs, arbench on " ab_gpuso[1])
}

END {
    if (bad_exit) exit bad_exit
    nt_file_end()
    if (logs_var == "") logs_var = "NCCL_TESTS_LOGS"
    if (describe == "run") { printf "%s|%s|%s\n", join_set(ab_gpuso), join_set(ab_modelo), join_set(ab_dto); exit 0 }
    check_sides()
    if (describe) { printf "%s|%s|%s\n", nt_gpus, nt_model_name, nt_dtype_one; exit 0 }
    for (b in nt_sizes) sizes[b] = 1
    ns = 0; for (b in sizes) order[++ns] = b
    for (i = 2; i <= ns; i++) for (j = i; j > 1 && order[j] + 0 < order[j - 1] + 0; j--) { x = order[j]; order[j] = order[j - 1]; order[j - 1] = x }

    printf "# arbench beside nccl-tests: %s x %s, %s\n\n", nt_gpus, ab_modelo[1], nt_dtype_one
    printf "- arbench: `%s`, NCCL %s, a rank per GPU; %d rows (clean, of this placement)\n", run, join_set(ab_ncclo), nab
    printf "- nccl-tests %s (NCCL %s): %d modes from `%s`, NCCL_NVLS_ENABLE %s on their command lines%s\n", \
        nt_ver_v == "" ? "(version not in the logs)" : nt_ver_v, nt_nccl_v == "" ? "not in the logs" : nt_nccl_v, \
        nt_nmodes, logs, nt_nvls_v, nt_nomodel ? "; GPU model not in " nt_nomodel " of its tests: not checked there" : ""
    printf "\nTimes are medians per AllReduce in us with the 95%% confidence interval of the median in brackets (docs/statistics.md: order statistics of the samples; below 6 samples the interval is [min-max] and covers less). A sample is, for arbench, one batch of -n AllReduces in host and graph timing and one iteration in events timing; for nccl-tests, one line of a size: one `-N` cycle or one run, the mean of its -n AllReduces (as a host batch). A side with one sample has no interval: its row is flagged and left out of the counts. Rows with wrong elements or errors are never ranked.\n"

    # ---- arbench's nccl beside nccl-tests in the same mode ----
    # the rows run as nccl-tests runs it where a registration and timing has them, else the
    # others (a run from before nccl.rotate or timing.graph_upload, or events timing), said so
    nfixed = 0; fixed_modes = ""
    split("host graph", tms, " "); split("none registered symmetric", regs, " ")
    for (ti = 1; ti <= 2; ti++) for (ri = 1; ri <= 3; ri++)
        if (!((tms[ti] SUBSEP regs[ri]) in an_any) && ((tms[ti] SUBSEP regs[ri]) in aw_any))
            fixed_modes = fixed_modes (nfixed++ ? ", " : "") tms[ti] " " regs[ri]
    for (k in aw_med) {
        split(k, kk, SUBSEP)
        if ((kk[1] SUBSEP kk[2]) in an_any) continue
        an_med[k] = aw_med[k]; an_n[k] = aw_n[k]; an_lo[k] = aw_lo[k]; an_hi[k] = aw_hi[k]
    }
    for (k in an_any) both_kinds[k] = k in aw_any
    for (k in aw_any) if (!(k in an_any)) an_any[k] = 1
    printf "\n## arbench's nccl beside nccl-tests, same mode\n\n"
    printf "arbench's own nccl row (ncclAllReduce, in place) beside all_reduce_perf with a thread per GPU (`-g 1`, as arbench's ranks), in place, in the same registration (nccl.registration none, registered, symmetric = `-R 0`, `-R 1`, `-R 2`) and timing (host = without `-G`, graph = `-G`). **slower** or **faster** where the two intervals do not overlap (arbench's median against nccl-tests'), **same** where they do. arbench's rows here move each AllReduce of a batch to the next slice of its buffer (`nccl.rotate=on`), as nccl-tests shifts every iteration, and in graph timing launch each graph without uploading it first (`timing.graph_upload=off`), as nccl-tests `-G` does%s.\n\n", \
        nfixed ? "; **not so** in " fixed_modes " (rows run otherwise: on one buffer, whose data the L2 cache may still hold, or in graph timing with the graph uploaded before its launch)" : ""
    split("host graph", tms, " "); split("none registered symmetric", regs, " ")
    for (ti = 1; ti <= 2; ti++) for (ri = 1; ri <= 3; ri++) {
        tm = tms[ti]; reg = regs[ri]; m = same_mode(reg, tm == "graph"); sm[tm, reg] = m
        tally_reset()
        for (s = 1; s <= ns; s++) {
            b = order[s]; k = tm SUBSEP reg SUBSEP b
            if (!(k in an_med) || !m || !nt_at(m, "in-place", b, c)) continue
            npairs++
            tally_add(an_med[k], an_lo[k], an_hi[k], an_n[k], c["med"], c["lo"], c["hi"], c["n"])
        }
        line = sprintf("- %s timing, %s (`%s`): ", tm, reg, m ? nt_mlabel[m] : "-R " (ri - 1) (tm == "graph" ? " -G 1" : ""))
        if (!m) line = line "nccl-tests did not run this mode"
        else if (!((tm SUBSEP reg) in an_any)) line = line "arbench did not run this registration and timing"
        else if (!t_cmp && !t_flag) line = line "no size measured by both"
        else if (!t_cmp) line = line "no size with an interval on both sides"
        else line = line sprintf("same at %d of %d sizes, arbench slower at %d%s, faster at %d%s", t_same, t_cmp, \
            t_slow, tally_range(t_slow, t_slo, t_shi), t_fast, tally_range(t_fast, t_flo, t_fhi))
        if (t_flag) line = line sprintf("; %d size%s with one side lacking an interval, not counted", t_flag, t_flag == 1 ? "" : "s")
        print line
    }
    for (ti = 1; ti <= 2; ti++) {
        tm = tms[ti]
        printf "\n### %s timing (nccl-tests %s `-G`)\n\n| size |", tm, tm == "graph" ? "with" : "without"
        for (ri = 1; ri <= 3; ri++) printf " arbench %s | nccl-tests -R %d | arbench vs it |", regs[ri], ri - 1
        printf "\n|---:|"; for (ri = 1; ri <= 3; ri++) printf "---:|---:|---|"; printf "\n"
        for (s = 1; s <= ns; s++) {
            b = order[s]; printf "| %s |", size_label(b, " ")
            for (ri = 1; ri <= 3; ri++) {
                reg = regs[ri]; k = tm SUBSEP reg SUBSEP b; m = sm[tm, reg]
                have = m && nt_at(m, "in-place", b, c)
                printf " %s | %s |", k in an_med ? cell(an_med[k], an_lo[k], an_hi[k], an_n[k]) : "-", \
                    have ? cell(c["med"], c["lo"], c["hi"], c["n"]) : "-"
                v = !(k in an_med) || !have ? "-" : verdict(an_med[k], an_lo[k], an_hi[k], an_n[k], c["med"], c["lo"], c["hi"], c["n"])
                printf " %s |", v
            }
            printf "\n"
        }
    }

    # ---- what one buffer gives NCCL: nccl.rotate=off beside on ----
    nl2 = 0
    # host timing only: in graph timing the rows as nccl-tests also launch without an upload
    for (ri = 1; ri <= 3; ri++) if (both_kinds["host", regs[ri]]) l2[++nl2] = "host" SUBSEP regs[ri]
    if (nl2) {
        printf "\n## NCCL on one buffer against rotating\n\n"
        printf "arbench's schedules run every AllReduce of a row on the start of one buffer (`nccl.rotate` moves only the nccl rows), so in host and graph timing a size the L2 cache holds may find the last AllReduce's data still there, which nccl-tests never allows within a batch. What that is worth to NCCL itself, in host timing: its rows on one buffer (`nccl.rotate=off`) beside rotating ones (`on`), same registration; **faster** or **slower** (one buffer against rotating) where the intervals part. The best-against-best tables below set arbench's schedules, on one buffer, beside nccl-tests.\n\n"
        for (i = 1; i <= nl2; i++) {
            split(l2[i], kk, SUBSEP); tally_reset()
            for (s = 1; s <= ns; s++) {
                k = l2[i] SUBSEP order[s]
                if ((k in aw_med) && (k in an_med)) tally_add(aw_med[k], aw_lo[k], aw_hi[k], aw_n[k], an_med[k], an_lo[k], an_hi[k], an_n[k])
            }
            printf "- %s timing, %s: one buffer faster at %d of %d sizes%s, same at %d, slower at %d%s\n", kk[1], kk[2], t_fast, t_cmp, \
                tally_range(t_fast, t_flo, t_fhi), t_same, t_slow, tally_range(t_slow, t_slo, t_shi)
        }
        printf "\n| size |"; for (i = 1; i <= nl2; i++) { split(l2[i], kk, SUBSEP); printf " %s %s: one buffer | rotating | |", kk[1], kk[2] }
        printf "\n|---:|"; for (i = 1; i <= nl2; i++) printf "---:|---:|---|"; printf "\n"
        for (s = 1; s <= ns; s++) {
            printf "| %s |", size_label(order[s], " ")
            for (i = 1; i <= nl2; i++) {
                k = l2[i] SUBSEP order[s]
                v = (k in aw_med) && (k in an_med) ? verdict(aw_med[k], aw_lo[k], aw_hi[k], aw_n[k], an_med[k], an_lo[k], an_hi[k], an_n[k]) : "-"
                printf " %s | %s | %s |", k in aw_med ? cell(aw_med[k], aw_lo[k], aw_hi[k], aw_n[k]) : "-", \
                    k in an_med ? cell(an_med[k], an_lo[k], an_hi[k], an_n[k]) : "-", v
            }
            printf "\n"
        }
    }

    # ---- best against best ----
    printf "\n## arbench's best beside nccl-tests' best\n\n"
    printf "Per size and timing method: **arbench** is its fastest schedule-based row (nccl itself left out; \"~ N more\": other schedules whose interval overlaps it), **nccl-tests** its fastest mode and side among its runs without `-G` for host and events timing (nccl-tests has no events method) and with `-G` for graph timing. **vs nccl-tests** = nccl-tests' median / arbench's (> 1: arbench faster) with the interval both medians' intervals allow, \"tie\" where it holds 1.\n\n"
    split("host events graph", tmb, " ")
    for (ti = 1; ti <= 3; ti++) {
        tm = tmb[ti]; if (!(tm in timing)) continue
        g = tm == "graph"; nfa = nti = nsl = nfl = cmp = 0; low = ""; lows = ""
        for (s = 1; s <= ns; s++) {
            b = order[s]
            if (!ab_best(tm SUBSEP b, a) || !nt_best(g, b, c)) continue
            npairs++
            if (!iv(a["n"], a["lo"], a["hi"]) || !iv(c["n"], c["lo"], c["hi"])) { nfl++; continue }
            cmp++; rlo = ratio_ci_lo(c["lo"], c["hi"], a["lo"], a["hi"]); rhi = ratio_ci_hi(c["lo"], c["hi"], a["lo"], a["hi"])
            r = c["med"] / a["med"]
            if (rlo > 1) nfa++; else if (rhi < 1) nsl++; else nti++
            if (low == "" || r < low) { low = r; lows = size_label(b, " ") " " ratio_words(r, rlo, rhi) }
        }
        ntm[tm] = cmp + nfl
        line = sprintf("- %s timing: ", tm)
        if (!cmp && !nfl) line = line (g && !has_graph_modes() ? "nccl-tests did not run with `-G`: nothing to set beside graph timing" : "no size measured by both")
        else if (!cmp) line = line "no size with an interval on both sides"
        else line = line sprintf("arbench's best faster at %d of %d sizes, tie at %d, slower at %d%s", nfa, cmp, nti, nsl, cmp ? " (lowest: " lows ")" : "")
        if (nfl) line = line sprintf("; %d size%s with one side lacking an interval, not counted", nfl, nfl == 1 ? "" : "s")
        line = line sprintf("; %d rows, %d with wrong elements or errors", ab_rows[tm], ab_bad[tm])
        print line
    }
    for (ti = 1; ti <= 3; ti++) {
        tm = tmb[ti]; if (!(tm in timing)) continue
        g = tm == "graph"
        printf "\n### %s timing\n\n| size | arbench | us | nccl-tests | us | vs nccl-tests | samples |\n|---:|---|---:|---|---:|---|---|\n", tm
        for (s = 1; s <= ns; s++) {
            b = order[s]; ha = ab_best(tm SUBSEP b, a); hc = nt_best(g, b, c)
            if (!ha && !hc) continue
            v = "-"
            if (ha && hc) {
                r = c["med"] / a["med"]
                if (iv(a["n"], a["lo"], a["hi"]) && iv(c["n"], c["lo"], c["hi"]))
                    v = ratio_words(r, ratio_ci_lo(c["lo"], c["hi"], a["lo"], a["hi"]), ratio_ci_hi(c["lo"], c["hi"], a["lo"], a["hi"]))
                else v = sprintf("%.2fx", r)
            }
            printf "| %s | %s | %s | %s | %s | %s | %s |\n", size_label(b, " "), \
                ha ? a["lab"] (a["more"] ? " ~ " a["more"] " more" : "") : "-", ha ? cell(a["med"], a["lo"], a["hi"], a["n"]) : "-", \
                hc ? c["lab"] (c["more"] ? " ~ " c["more"] " more" : "") : "-", hc ? cell(c["med"], c["lo"], c["hi"], c["n"]) : "-", \
                v, ha && hc ? samples_cell(a["n"], c["n"], iv(a["n"], a["lo"], a["hi"]), iv(c["n"], c["lo"], c["hi"])) : "-"
        }
    }

    # ---- what each side ran ----
    printf "\n## nccl-tests' logs\n\n| mode | tests | samples per size and side | sizes | lines with wrong elements | #wrong not checked |\n|---|---:|---|---:|---:|---:|\n"
    for (m = 1; m <= nt_nmodes; m++) {
        lo = hi = ""; nsz = nbad = 0
        for (b in nt_sizes) for (s = 0; s < 2; s++) {
            k = m SUBSEP (s ? "in-place" : "out-of-place") SUBSEP b
            if (!(k in nt_n)) continue
            if (!s) nsz++
            nbad += nt_bad[k]
            if (lo == "" || nt_n[k] < lo) lo = nt_n[k]; if (hi == "" || nt_n[k] > hi) hi = nt_n[k]
        }
        printf "| `%s` | %d | %s | %d | %d | %d |\n", nt_mlabel[m], nt_mtests[m], lo == hi ? lo : lo "-" hi, nsz, nbad, nt_unchecked[m]
    }
    for (i = 1; i <= nt_ntests; i++)
        if (nt_state[i] != "used" && nt_state[i] != "none")
            printf "- left out: %s, a test%s: %s\n", nt_fname[nt_file[i]], nt_cmd[i] == "" ? "" : " (`" nt_cmd[i] "`)", nt_state[i]
    nleft = 0; left = ""
    for (i = 1; i <= nt_nfiles; i++) if (!nt_ftests[i]) { nleft++; f = nt_fname[i]; sub(/^.*\//, "", f); left = left (nleft > 1 ? ", " : "") f }
    if (nleft) printf "- %d other file%s left out (no nccl-tests output): %s\n", nleft, nleft == 1 ? "" : "s", left
}

# the end of END: nothing set side by side is a failure, never an empty comparison
END {
    if (!bad_exit && !describe && !npairs) {
        printf "compare-nccl-tests: nothing to set side by side: no size, timing method and mode measured by both (arbench: %s; nccl-tests: %s)\n", run, logs > "/dev/stderr"
        exit 1
    }
}

function has_graph_modes(    m) { for (m = 1; m <= nt_nmodes; m++) if (nt_mgraph[m] > 0) return 1; return 0 }
