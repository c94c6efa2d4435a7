# prep.awk: turns a run folder's results.csv (and critical.csv, when given) into gnuplot data
# blocks and one small driver script per picture, all under `tmp`; prints the drivers' paths on
# stdout and, on stderr, which pictures were not drawn for lack of data. Load csv.awk first.
#   awk -f csv.awk -f prep.awk -v tmp=DIR -v out=RUN/plots -v gpdir=plots -v crit=FILE \
#       RUN/results.csv [RUN/critical.csv]
#
# What it reads (by column name; missing optional columns take the defaults in brackets):
#   results.csv: algorithm, transport, bytes, status, time_us_median, algbw_gbps, busbw_gbps,
#     source [gpu], pipeline, dtype, n_gpus, straggler_rank [-1], delay_us [0], degraded_rank
#     [-1], factor [1], model_time_us, lower_bound_us, gpu, timestamp, scenario, stragglers and
#     degraded (arbench run's: the config's scenario name and every straggler RANK:DELAY_US and
#     degraded GPU RANK:FACTOR, ';'-separated; the SPEC columns name the first). Rows whose status is not
#     `ok` are skipped. Rows with source=model are "the model" (its transport column, where it
#     names a transport, says which transport's fit it is); all others are measurements. A CSV
#     with no measurements at all (arbench model) is drawn from its model rows instead.
#   OPTCC's lower bound for the time-vs-factor pictures comes from either a `lower_bound_us`
#     column (on any row with that size and factor) or rows with source=model and algorithm
#     `lower-bound` (their time_us_median, else model_time_us), matched on n_gpus, bytes, factor.
#   critical.csv: bytes, algorithm, baseline, critical_delay_us; optional `source` (rows with
#     source=model are the model's prediction) or `model_critical_delay_us` column. Empty,
#     negative or non-numeric delays (stragglar never won) are not drawn as points; the delay
#     picture of that size says so.
#
# Series (one line each, the same in every picture and in summary.md): algorithm/transport, plus
#   the dtype where the CSV has several, plus "/p<pipeline>" only on rows whose algorithm,
#   transport, dtype, scenario and size were measured with more than one pipeline value (a
#   pipeline sweep). A pipeline the harness picks per size (OPTCC's segment count k) does not
#   split a series. A series measured several times at one point (repeated runs merged into one
#   CSV) is drawn at its fastest row, as summary.md ranks them. Colour = algorithm (nccl thick
#   and black), point shape = transport (nccl-p2p circle, ce square, sm triangle, ll downward
#   triangle, other diamond); the pipeline variants of one series get lighter shades and
#   alternate filled and open points.
#   Rows that name no transport (a plain arbench model sweep) get a point shape per algorithm, and
#   in a model-only CSV algorithms of one family priced alike at every size share one line
#   ("optcc = optcc-ring") in the family pictures.
# Placement (the placement column, "1 rank/GPU" where missing): co-located rows (ranks sharing a
#   GPU) say so in the title; a CSV of several placements draws each in pictures of its own
#   (names led by "4ranks-per-GPU_"), so that no series joins rows of two placements.
#
# Pictures (each PNG + SVG; the file names are the driver names):
#   For every scenario with enough sizes: clean (3+ sizes) and straggler_r<R>_d<D>ms and
#     degraded_r<R>_f<F> (4+ sizes, so that a delay or factor sweep over a few sizes does not
#     turn into a pile of 3-point "curves"); further stragglers or degraded GPUs add
#     _and_r<R>_d<D>ms / _and_r<R>_f<F>. With a scenario column the scenario's name leads <scen>
#     (the name alone when all its rows share one condition, as a config scenario's do unless it
#     sweeps the delay): two scenarios are never merged, even when they share the first
#     straggler or degraded GPU.
#   best_<scen>, the first: per size the fastest row that is not nccl (summary.md's best), its
#     series named in the key, and nccl's, by time_us_median; below, nccl's time / the best's.
#   algbw_<scen> (algbw_gbps, busbw on the right axis), time_<scen> (time_us_median) or, for a
#     straggler scenario, arrival_<scen> (time_after_arrival_us): four panels with shared axes,
#     one per family (style.awk's algo_family), nccl in each. Where that would be more than
#     SPLIT_MAX series over 2+ transports, each algorithm is drawn on its fastest transport (and
#     pipeline) at each size, the point shape saying which, and algbw_<scen>_<transport> adds
#     that transport's series and nccl.
#   no_data: a CSV with no row to draw (every row n/a, say) gets only this picture, which says so.
#   pipeline_<scen>_<size>: time vs pipeline value at one size, for the series measured with
#     several (2+ values), nccl as a horizontal reference.
#   straggler_delay_<size>: time vs delay at one size (2+ delays), critical delays (measured and
#     the model's) marked; log-log when the delays are a geometric sweep (0 drawn at the left).
#     A delay sweep is usually made of scenarios (one per delay), so these group by condition
#     (n, size, straggler rank, the other stragglers), not by scenario name; rows with other
#     stragglers too get pictures of their own (_and_r<R>_d<D>ms).
#   critical_delay: critical delay vs size from critical.csv (2+ sizes).
#   degraded_factor_<size>: time vs degradation factor at one size (2+ factors) + lower bound;
#     grouped like the delay pictures (the other degraded GPUs: _and_r<R>_f<F>).
#   model_vs_measured_<scen>: measured time (solid) and the model's (dashed) vs size, for the
#     series the model prices, and below them model / measured per measured series. Model rows
#     that name a transport (arbench model --calibrate: one fit per transport) are drawn per
#     algorithm/transport, "<alg>/<tp> model" in the colour and (open) point shape of the measured
#     series; model rows with transport "model", "-" or empty (a plain arbench model sweep) and
#     the model_time_us column per algorithm, "<alg> model" without points. Where that would be
#     more than SPLIT_MAX series over 2+ transports, instead one picture per transport,
#     model_vs_measured_<scen>_<transport>, with that transport's measured and model lines.

BEGIN { SPLIT_MAX = 12 }

# files come in the order results [critical]: roles go by position
FNR == 1 {
    is_crit = (++fileno == 2)
    if (is_crit) { csv_header($0, ccol); next }
    csv_header($0, col)
    if (csv_missing(col, "algorithm bytes status time_us_median", "plot.sh") != "") { bad_header = 1; exit 1 }
    next
}

/^[ \t\r]*$/ { next }

is_crit {
    csv_split($0, f)
    cv = get(f, ccol, "critical_delay_us", "")
    b = get(f, ccol, "bytes", "")
    if (!is_num(b)) next
    if (!is_num(cv) || cv + 0 < 0) {
        # no critical delay found (inf, never, empty): said on the delay picture of that size
        if (tolower(get(f, ccol, "source", "gpu")) != "model") {
            NV++; NV_b[NV] = b; NV_alg[NV] = clean_text(get(f, ccol, "algorithm", "stragglar"))
            NV_base[NV] = clean_text(get(f, ccol, "baseline", "best"))
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
    next
}

{
    nf = csv_split($0, f)
    # every row counted by status, for the picture that says there is nothing to draw
    st = tolower(get(f, col, "status", "")); ST_n[st == "" ? "empty" : clean_text(st)]++; rows_total++
    if (rows_total == 1) {
        # where the run ran, for the title of a run with nothing to draw (the drawn rows' otherwise)
        any_gpu = clean_text(get(f, col, "gpu", "")); any_n = get(f, col, "n_gpus", "")
        any_host = clean_text(get(f, col, "host", "")); any_date = date_of(get(f, col, "timestamp", ""))
        any_measured = tolower(get(f, col, "source", "gpu")) != "model"
    }
    if (st != "ok") { skipped++; next }
    b = get(f, col, "bytes", ""); med = get(f, col, "time_us_median", "")
    src = tolower(get(f, col, "source", "gpu"))
    lb = get(f, col, "lower_bound_us", ""); mt = get(f, col, "model_time_us", "")
    alg = clean_text(get(f, col, "algorithm", "?"))
    if (!is_num(b) || b + 0 <= 0) next
    n = get(f, col, "n_gpus", "")
    fac = get(f, col, "factor", "1"); if (!is_num(fac)) fac = 1
    nkey = (is_num(n) ? n + 0 : "")
    # the lower bound may ride on any row, or be a model row of its own
    if (is_num(lb) && lb + 0 > 0) LB[nkey, b + 0, fac + 0] = lb + 0
    if (src == "model" && alg == "lower-bound") {
        v = is_num(med) && med + 0 > 0 ? med : mt
        if (is_num(v) && v + 0 > 0) LB[nkey, b + 0, fac + 0] = v + 0
        next
    }
    if (!is_num(med) || med + 0 <= 0) {
        if (src == "model" && is_num(mt) && mt + 0 > 0) med = mt; else { skipped++; next }
    }
    R++
    S_src[R] = src; S_alg[R] = alg; S_b[R] = b + 0; S_med[R] = med + 0
    S_tp[R] = clean_text(get(f, col, "transport", ""))
    S_pipe[R] = clean_text(get(f, col, "pipeline", ""))
    S_dt[R] = clean_text(get(f, col, "dtype", ""))
    S_n[R] = nkey
    S_sr[R] = get(f, col, "straggler_rank", "-1") + 0
    S_d[R] = get(f, col, "delay_us", "0") + 0
    S_dr[R] = get(f, col, "degraded_rank", "-1") + 0
    S_f[R] = fac + 0
    # the scenario's name and the stragglers and degraded GPUs after the first ("" when none)
    S_scen[R] = clean_text(get(f, col, "scenario", ""))
    # where the ranks ran (arbench run --ranks/--gpus 0,0,..): older CSVs have one rank per GPU
    S_pl[R] = clean_text(get(f, col, "placement", "1 rank/GPU"))
    S_so[R] = list_rest(get(f, col, "stragglers", "")); S_do[R] = list_rest(get(f, col, "degraded", ""))
    S_mt[R] = (is_num(mt) && mt + 0 > 0) ? mt + 0 : ""
    # time from the last rank's arrival (the straggler's): NaN where the column has none
    v = get(f, col, "time_after_arrival_us", "")
    S_ta[R] = is_num(v) && v + 0 > 0 ? v + 0 : "NaN"
    # algbw/busbw as written; derived from bytes/time (nccl-tests' rules) when absent
    v = get(f, col, "algbw_gbps", "")
    S_bw[R] = is_num(v) ? v + 0 : S_b[R] / (S_med[R] * 1e3)
    v = get(f, col, "busbw_gbps", "")
    S_bus[R] = is_num(v) ? v + 0 : (is_num(n) && n > 0 ? S_bw[R] * 2 * (n - 1) / n : S_bw[R])
    if (src != "model") has_measured = 1
    if (meta_gpu == "" || (src != "model" && !meta_from_gpu)) {
        meta_gpu = clean_text(get(f, col, "gpu", "")); meta_n = nkey
        meta_date = date_of(get(f, col, "timestamp", ""))
        meta_host = clean_text(get(f, col, "host", ""))
        meta_from_gpu = (src != "model")
    }
}

END {
    if (bad_header) exit 1
    # nothing to draw: one picture that says so, and nothing else
    if (!R) { no_data(); exit 0 }
    # the rows that are drawn as "measured"
    for (r = 1; r <= R; r++) {
        M[r] = has_measured ? (S_src[r] != "model") : 1
        if (!M[r]) continue
        if (!(S_n[r] in seen_n)) { seen_n[S_n[r]] = 1; n_count++ }
        if (!(S_dt[r] in seen_dt)) { seen_dt[S_dt[r]] = 1; dt_count++ }
        if (!(S_pl[r] in seen_pl)) { seen_pl[S_pl[r]] = 1; pl_count++; pl_one = S_pl[r] }
    }
    # the scenario key: the condition (scen_key), led by the scenario's name where there is one
    for (r = 1; r <= R; r++) {
        S_ckey[r] = scen_key(r)
        if (S_scen[r] != "" && !((S_scen[r], S_ckey[r]) in seen_sc)) { seen_sc[S_scen[r], S_ckey[r]] = 1; nsc[S_scen[r]]++ }
    }
    for (r = 1; r <= R; r++)
        S_key[r] = pl_key(r) (S_scen[r] == "" ? S_ckey[r] : file_part(S_scen[r]) (nsc[S_scen[r]] > 1 ? "_" S_ckey[r] : ""))
    # the series rule (see the top): which rows belong to a pipeline sweep
    for (r = 1; r <= R; r++)
        if (M[r] && !((pipe_group(r), S_pipe[r]) in seen_gp)) { seen_gp[pipe_group(r), S_pipe[r]] = 1; npipe[pipe_group(r)]++ }
    for (r = 1; r <= R; r++) {
        SW[r] = M[r] && npipe[pipe_group(r)] > 1
        S_lab0[r] = series_label(r, 0); S_lab[r] = series_label(r, SW[r])
        # the pipeline variants of one algorithm/transport, ranked by pipeline value
        if (SW[r] && !((S_alg[r], S_tp[r], S_pipe[r]) in pv_seen)) {
            pv_seen[S_alg[r], S_tp[r], S_pipe[r]] = 1
            pv_list[S_alg[r], S_tp[r], ++pv_n[S_alg[r], S_tp[r]]] = S_pipe[r]
        }
    }
    for (r = 1; r <= R; r++) {
        S_var[r] = 0
        if (!SW[r]) continue
        S_var[r] = 1; v = pv_n[S_alg[r], S_tp[r]]
        for (i = 1; i <= v; i++) if (pv_list[S_alg[r], S_tp[r], i] + 0 < S_pipe[r] + 0) S_var[r]++
        S_nvar[r] = v
    }
    # a series measured several times at one point: its fastest row is drawn
    for (r = 1; r <= R; r++) {
        if (!M[r]) continue
        k = S_lab[r] SUBSEP S_key[r] SUBSEP S_b[r]
        if (!(k in keep)) keep[k] = r
        else if (S_med[r] < S_med[keep[k]]) { M[keep[k]] = 0; keep[k] = r }
        else M[r] = 0
    }
    for (r = 1; r <= R; r++) {
        if (M[r] && !((S_key[r], S_b[r]) in seen_kb)) { seen_kb[S_key[r], S_b[r]] = 1; sizes[S_key[r]]++ }
        if (M[r] && !(S_key[r] in key_row)) { key_row[S_key[r]] = r; keys[++nkeys] = S_key[r] }
    }
    # the model's times per condition (scen_key: model rows name no scenario, and the model
    # prices a condition the same in every scenario), n, algorithm, transport and size:
    # source=model rows first, else the model_time_us column of the measured rows (n is part of
    # the key: the scenario names carry it only when the measured rows have several). Model rows that name a transport
    # (arbench model --calibrate fits each transport apart) are kept per algorithm/transport;
    # those named "model", "-" or nothing (a plain arbench model sweep) and model_time_us per
    # algorithm, under transport ""
    for (r = 1; r <= R; r++)
        if (has_measured && S_src[r] == "model")
            MODEL[S_ckey[r], S_n[r], S_alg[r], has_tp(S_tp[r]) ? S_tp[r] : "", S_b[r]] = S_med[r]
    for (r = 1; r <= R; r++)
        if (M[r] && has_measured && S_mt[r] != "" && !((S_ckey[r], S_n[r], S_alg[r], "", S_b[r]) in MODEL) &&
            !(has_tp(S_tp[r]) && ((S_ckey[r], S_n[r], S_alg[r], S_tp[r], S_b[r]) in MODEL)))
            MODEL[S_ckey[r], S_n[r], S_alg[r], "", S_b[r]] = S_mt[r]
    suffix = has_measured ? "" : " (model)"

    drawn_s = drawn_d = drawn_f = drawn_m = drawn_p = 0
    for (i = 1; i <= nkeys; i++) {
        key = keys[i]; r0 = key_row[key]
        if (sizes[key] >= ((S_sr[r0] < 0 && S_dr[r0] < 0) ? 3 : 4)) {
            # one picture, or one per transport and the best of each algorithm when that is
            # too many series for one key
            delete in_ser; delete tp_seen; nser = ntp = 0
            for (r = 1; r <= R; r++) {
                if (!M[r] || S_key[r] != key) continue
                if (!(S_lab[r] in in_ser)) { in_ser[S_lab[r]] = 1; nser++ }
                if (S_alg[r] != "nccl" && has_tp(S_tp[r]) && !(S_tp[r] in tp_seen)) { tp_seen[S_tp[r]] = 1; TPL[++ntp] = S_tp[r] }
            }
            ssort(TPL, ntp)
            # first the best schedule against nccl, then the families: every series, or each
            # algorithm on its best transport and one picture per transport
            drawn_s += best_pic(key, r0)
            split_tp = !(nser <= SPLIT_MAX || ntp < 2)
            drawn_s += family_pic(key, r0, "", split_tp, "algbw")
            if (S_sr[r0] >= 0) drawn_s += family_pic(key, r0, "", split_tp, "arrival")
            else drawn_s += family_pic(key, r0, "", split_tp, "time")
            if (split_tp) for (t = 1; t <= ntp; t++) drawn_s += family_pic(key, r0, TPL[t], 0, "algbw")
        }
        # measured vs model for the same scenario: the measured series the model prices (per
        # algorithm/transport where its rows name the transport, else per algorithm), split by
        # transport like the S-curves when that is too many series for one picture
        delete wantA; delete wantS; delete in_ser; delete tp_seen; nser = ntp = 0
        for (r = 1; r <= R; r++) {
            if (!M[r] || S_key[r] != key) continue
            if ((S_ckey[r], S_n[r], S_alg[r], "", S_b[r]) in MODEL) wantA[S_alg[r]] = 1
            if (has_tp(S_tp[r]) && ((S_ckey[r], S_n[r], S_alg[r], S_tp[r], S_b[r]) in MODEL)) wantS[S_alg[r], S_tp[r]] = 1
        }
        for (r = 1; r <= R; r++) {
            if (!M[r] || S_key[r] != key || !model_wants(r)) continue
            if (!(S_lab[r] in in_ser)) { in_ser[S_lab[r]] = 1; nser++ }
            if (S_alg[r] != "nccl" && has_tp(S_tp[r]) && !(S_tp[r] in tp_seen)) { tp_seen[S_tp[r]] = 1; TPL[++ntp] = S_tp[r] }
        }
        for (m in MODEL) {
            split(m, p, SUBSEP)
            if (p[1] == S_ckey[r0] && p[2] == S_n[r0] && (p[4] == "" ? (p[3] in wantA) : ((p[3], p[4]) in wantS)) &&
                !((p[3], p[4]) in in_ser)) { in_ser[p[3], p[4]] = 1; nser++ }
        }
        ssort(TPL, ntp)
        if (has_measured && sizes[key] >= 2) {
            if (nser <= SPLIT_MAX || ntp < 2) drawn_m += model_pic(key, r0, "")
            else for (t = 1; t <= ntp; t++) drawn_m += model_pic(key, r0, TPL[t])
        }
    }
    if (!drawn_s) note("no scenario with enough sizes (clean 3+, others 4+): best_*, algbw_*, time_* and arrival_* not drawn")
    if (!has_measured) note("no measured rows: model_vs_measured_* not drawn (model-only CSV)")
    else if (!drawn_m) note("no model rows or model_time_us next to measured rows: model_vs_measured_* not drawn")

    # time vs pipeline value, one picture per scenario and size with a pipeline sweep
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

    # time vs straggler delay, one picture per size (and straggler rank, if several)
    for (r = 1; r <= R; r++)
        if (M[r] && S_sr[r] >= 0 && S_dr[r] < 0) {
            g = pl_key(r) (n_count > 1 ? "n" S_n[r] "_" : "") size_label(S_b[r], "") SUBSEP S_sr[r] SUBSEP S_so[r]
            if (!((g, S_d[r]) in seen_gd)) { seen_gd[g, S_d[r]] = 1; delays[g]++ }
            if (!(g in grow)) { grow[g] = r; groups[++ngroups] = g }
            if (!(S_sr[r] in seen_sr)) { seen_sr[S_sr[r]] = 1; sr_count++ }
        }
    for (i = 1; i <= ngroups; i++) {
        g = groups[i]; r0 = grow[g]
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
        xzero = logx ? dmin / 2000 : 0
        pic_reset(); extra = logx ? sprintf("xlog = 1\nxzero = %.6g\n", xzero) : ""; nmark = 0
        # scenarios of one condition (a fixed 8 ms scenario and a delay sweep's 8 ms) share a
        # point: the fastest row is drawn, as for repeated runs. More series than a key can
        # hold (dozens: every algorithm x transport) become one line per algorithm, each delay
        # on its fastest transport
        delete pt_best; delete d_lab; nlab = 0
        for (r = 1; r <= R; r++)
            if (M[r] && in_delay_group(r, r0) && !(S_lab[r] in d_lab)) { d_lab[S_lab[r]] = 1; nlab++ }
        dbest = nlab > 14
        for (r = 1; r <= R; r++) {
            if (!M[r] || !in_delay_group(r, r0)) continue
            k = (dbest ? best_label(r) : S_lab[r]) SUBSEP S_d[r]
            if (!(k in pt_best) || S_med[r] < S_med[pt_best[k]]) pt_best[k] = r
        }
        for (k in pt_best) {
            r = pt_best[k]
            if (!dbest) add_row(r, S_d[r] > 0 ? S_d[r] / 1000 : xzero, sprintf("%.6g", S_med[r] / 1000))
            else pic_add(best_label(r), S_alg[r] == "nccl" ? 0 : 1, algo_color(S_alg[r]), algo_point(S_alg[r]), 1,
                         S_alg[r] == "nccl" ? 4 : 2, S_d[r] > 0 ? S_d[r] / 1000 : xzero, sprintf("%.6g", S_med[r] / 1000))
        }
        for (c = 1; c <= NC; c++)
            if (C_b[c] + 0 == S_b[r0]) {
                nmark++
                xc = C_d[c] > 0 || !logx ? C_d[c] / 1000 : xzero
                # the label sits right of the line, or left of it near the right edge
                fr = logx ? log(xc / xzero) / log(dmax / 1000 / xzero) : (dmax > 0 ? C_d[c] / dmax : 0)
                extra = extra sprintf("set arrow from %.6g, graph 0 to %.6g, graph 1 nohead lw 2 dt %d lc rgb '%s' front\n",
                                      xc, xc, C_model[c] ? 3 : 2, C_model[c] ? "#e377c2" : "#d62728")
                extra = extra sprintf("set label \"%s %.3g ms\\n(%s vs %s)\" at %.6g, graph %.2f %s front tc rgb '%s'\n",
                                      C_model[c] ? "model: critical delay" : "critical delay", C_d[c] / 1000, C_alg[c], C_base[c],
                                      xc, 0.95 - 0.1 * (nmark - 1), fr > 0.7 ? "offset -0.6, 0 right" : "offset 0.6, 0 left",
                                      C_model[c] ? "#c0509d" : "#d62728")
            }
        for (c = 1; c <= NV; c++)
            if (NV_b[c] + 0 == S_b[r0]) {
                nmark++
                extra = extra sprintf("set label \"measured: no critical delay, %s never beat %s up to %s ms\" at graph 0.02, graph %.2f left front tc rgb '#d62728'\n",
                                      NV_alg[c], NV_base[c], num_str(dmax / 1000), 0.95 - 0.1 * (nmark - 1))
            }
        name = "straggler_delay_" size_label(S_b[r0], "") (sr_count > 1 ? "_r" S_sr[r0] : "") others_key(S_so[r0], "d")
        if (n_count > 1) name = "n" S_n[r0] "_" name
        name = pl_key(r0) name
        drawn_d += pic_write(name, "delay", "time vs straggler delay, " size_label(S_b[r0], " ") ", straggler rank " S_sr[r0] \
                             others_words(S_so[r0], "d") pl_title(r0) (dbest ? ", each algorithm on its best transport" : "") suffix, extra)
        if (!nmark) note(name ": no critical delay for this size in critical.csv: none marked")
    }
    if (!drawn_d) note("no straggler delay sweep (2+ delays at one size): straggler_delay_* not drawn")

    # critical delay vs size (2+ sizes: one size is marked on its delay picture)
    pic_reset(); ncs = 0
    for (c = 1; c <= NC; c++) if (!((C_b[c] + 0) in c_sizes)) { c_sizes[C_b[c] + 0] = 1; ncs++ }
    # one line per algorithm (measured, model); the baseline it beats labels each measured point
    for (c = 1; c <= NC && ncs >= 2; c++)
        pic_add(C_alg[c] (C_model[c] ? " (model)" : " (measured)"), C_model[c] ? 2 : 1,
                algo_color(C_alg[c]), C_model[c] ? 6 : 7, C_model[c] ? 2 : 1, 2, C_b[c],
                sprintf("%.6g \"%s\"", C_d[c] / 1000, C_model[c] ? "" : "vs " C_base[c]))
    if (!pic_write("critical_delay", "critical", "critical straggler delay vs size", ""))
        note(crit == "" ? "no critical.csv: critical_delay not drawn" : ncs == 1 ? "critical.csv has one size: critical_delay not drawn (its delay picture marks it)" : "no usable rows in critical.csv: critical_delay not drawn")

    # time vs degradation factor, one picture per size (and degraded rank, if several)
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
        for (r = 1; r <= R; r++)
            if (M[r] && in_factor_group(r, r0) && pt_best[S_lab[r], S_f[r]] == r) {
                add_row(r, S_f[r], S_med[r]); if (S_med[r] > ymax) ymax = S_med[r]
                fac_seen[S_f[r]] = 1
            }
        nlb = 0
        for (fc in fac_seen)
            if ((S_n[r0], S_b[r0], fc + 0) in LB) {
                pic_add("OPTCC lower bound", 3, "#555555", -1, 3, 3, fc + 0, LB[S_n[r0], S_b[r0], fc + 0]); nlb++
            }
        delete fac_seen
        # ms when the times are long, so the tick labels stay short
        unit = ymax >= 10000 ? "ms" : "us"
        for (s = 1; s <= P_NS; s++)
            for (k = 1; k <= P_np[s]; k++) P_y[s, k] = sprintf("%.6g", unit == "ms" ? P_y[s, k] / 1000 : P_y[s, k])
        name = "degraded_factor_" size_label(S_b[r0], "") (dr_count > 1 ? "_r" S_dr[r0] : "") others_key(S_do[r0], "f")
        if (n_count > 1) name = "n" S_n[r0] "_" name
        name = pl_key(r0) name
        drawn_f += pic_write(name, "factor", "time vs degradation factor, " size_label(S_b[r0], " ") ", degraded rank " S_dr[r0] \
                             others_words(S_do[r0], "f") pl_title(r0) suffix, "ylab = 'time per AllReduce, median (" unit ")'\n")
        if (!nlb) note(name ": no OPTCC lower bound (lower_bound_us column or model rows named lower-bound): not drawn")
    }
    if (!drawn_f) note("no degradation factor sweep (2+ factors at one size): degraded_factor_* not drawn")
}

# best_pic(key, r0): draws best_<key>, the first picture of scenario key (r0 one of its rows):
# at each size the fastest row that is not nccl (summary.md's best), named by its series, and
# nccl's, their times (time_us_median) and nccl's time over the best's. Blocks: nccl (x time), a
# line through the best of every size (x time ratio), then one block per schedule that is best
# somewhere (x time ratio), so that the key names each. Returns 1 when drawn
function best_pic(key, r0,    r, b, bestr, ncr, nn, nb, ratio, extra, line_b) {
    pic_reset(); DEDUP = 0; nn = nb = 0
    for (r = 1; r <= R; r++) {
        if (!M[r] || S_key[r] != key) continue
        if (S_alg[r] == "nccl") { if (!(S_b[r] in ncr) || S_med[r] < S_med[ncr[S_b[r]]]) ncr[S_b[r]] = r; continue }
        if (!(S_b[r] in bestr)) nb++
        if (!(S_b[r] in bestr) || S_med[r] < S_med[bestr[S_b[r]]]) bestr[S_b[r]] = r
    }
    if (!nb) { note(key ": only nccl rows: best_" key " not drawn"); return 0 }
    for (b in ncr) { pic_add("nccl", 0, "#000000", 7, 1, 4, b, sprintf("%.6g", S_med[ncr[b]])); nn++ }
    for (b in bestr) {
        r = bestr[b]
        ratio = (b in ncr) ? sprintf("%.6g", S_med[ncr[b]] / S_med[r]) : "NaN"
        pic_add("best schedule", 1, "#999999", -1, 1, 5, b, sprintf("%.6g %s", S_med[r], ratio))
        pic_add(S_lab[r], 2, algo_color(S_alg[r]), has_tp(S_tp[r]) ? transport_point(S_tp[r], 1) : algo_point(S_alg[r]),
                1, 2, b, sprintf("%.6g %s", S_med[r], ratio))
    }
    line_b = nn ? 2 : 1
    extra = "W = 1280\nH = 800\nhas_nccl = " (nn ? 1 : 0) "\nline_b = " line_b "\n" \
            "ylab = \"" time_label() (S_sr[r0] >= 0 ? "\\nfrom the first rank's entry, the delay included" : "") "\"\n"
    return pic_write("best_" key, "best", "best schedule per size " (nn ? "against nccl" : "(no nccl rows" (has_measured ? "" : ": the model does not price nccl") ")") \
                     ", " scen_title(r0) suffix, extra)
}

# time_label(): the time axis's label: a median of measured iterations, or (a run of model rows
# only) the model's price, which no iteration measured
function time_label() { return "time per AllReduce, " (has_measured ? "median" : "modelled") " (us)" }

# family_pic(key, r0, tp, bestof, what): draws scenario key's series (r0 one of its rows) in four
# panels with shared axes, one per family (style.awk's algo_family), nccl in each: every series,
# or those on transport tp (and nccl), or (bestof) each algorithm's fastest row over its
# transports at each size, the point shape saying which transport that was. what is the y
# column: algbw (algbw_gbps; busbw on the right axis), time (time_us_median) or arrival
# (time_after_arrival_us). Blocks "x y pt". Returns 1 when drawn
function family_pic(key, r0, tp, bestof, what,    r, k, bestr, tpu, tn, ntn, tnames, tpts, i, y, ny, extra, name, t) {
    pic_reset(); DEDUP = 1; ny = 0
    if (bestof)
        for (r = 1; r <= R; r++) {
            if (!M[r] || S_key[r] != key || S_alg[r] == "nccl") continue
            k = best_label(r) SUBSEP S_b[r]
            if (!(k in bestr) || S_med[r] < S_med[bestr[k]]) bestr[k] = r
        }
    for (r = 1; r <= R; r++) {
        if (!M[r] || S_key[r] != key) continue
        if (tp != "" && S_alg[r] != "nccl" && S_tp[r] != tp && has_tp(S_tp[r])) continue
        if (bestof && S_alg[r] != "nccl" && bestr[best_label(r), S_b[r]] != r) continue
        y = what == "algbw" ? sprintf("%.6g", S_bw[r]) : what == "time" ? sprintf("%.6g", S_med[r]) : \
            (S_ta[r] == "NaN" ? "NaN" : sprintf("%.6g", S_ta[r]))
        if (y != "NaN") ny++
        if (bestof && S_alg[r] != "nccl") {
            pic_add(best_label(r), 1, algo_color(S_alg[r]), transport_point(S_tp[r], 1), 1, 2, S_b[r],
                    y " " transport_point(S_tp[r], 1))
            if (!(S_tp[r] in tpu)) { tpu[S_tp[r]] = 1; tn[++ntn] = S_tp[r] }
        } else add_row(r, S_b[r], y " " row_point(r))
    }
    if (!ny) {
        if (what == "arrival") note(key ": no time_after_arrival_us in its rows: arrival_" key " not drawn")
        return 0
    }
    extra = "W = 1600\nH = 1000\nycol = 2\nptcol = 3\nylog = " (what == "algbw" ? 0 : 1) "\n"
    if (what == "algbw") {
        extra = extra "ylab = 'algbw (GB/s, 1 GB = 1e9 B)'\n"
        if (is_num(S_n[r0]) && S_n[r0] > 1) extra = extra sprintf("y2f = %.6g\n", 2 * (S_n[r0] - 1) / S_n[r0])
    } else if (what == "time") extra = extra "ylab = '" time_label() "'\n"
    else extra = extra "ylab = 'time after the straggler" "''s arrival (us)'\n"
    if (bestof) {
        ssort(tn, ntn)
        for (i = 1; i <= ntn; i++) {
            tnames = tnames " \"" (has_tp(tn[i]) ? tn[i] : "none") "\""; tpts = tpts " " transport_point(tn[i], 1)
        }
        extra = extra "tnames = '" tnames "'\ntpts = '" tpts "'\n"
    }
    name = what "_" key (tp != "" ? "_" tp : "")
    t = what == "algbw" ? "algbw vs size" : what == "time" ? "time per AllReduce vs size" : \
        "time after the straggler" "''s arrival (median time - delay) vs size"
    return pic_write(name, "families", t ", " scen_title(r0) (tp != "" ? ", transport " tp : "") \
                     (bestof ? ", each algorithm on its best transport" : "") suffix, extra)
}

# row_point(r): returns the point type of row r's series (add_row's)
function row_point(r) {
    return has_tp(S_tp[r]) ? transport_point(S_tp[r], S_var[r]) : algo_point(S_alg[r])
}

# no_data(): draws no_data, a picture that says there is nothing to draw and why (every row's
# status), instead of an empty frame or none at all
function no_data(    st, msg, extra) {
    pic_reset(); DEDUP = 0
    meta_gpu = any_gpu; meta_n = is_num(any_n) ? any_n + 0 : ""; meta_host = any_host; meta_date = any_date
    has_measured = any_measured; n_count = 1
    for (st in ST_n) msg = msg (msg == "" ? "" : ", ") ST_n[st] " " st
    msg = rows_total ? "no row of results.csv has a time to draw: " rows_total " rows (" msg ")" : "results.csv has no rows"
    pic_add("none", 0, "#000000", -1, 1, 1, 1, "NaN")
    extra = "msg = '" clean_text(msg) "'\n"
    note(msg)
    return pic_write("no_data", "nodata", "nothing to draw", extra)
}

# model_wants(r): measured row r has a model line (wantA, wantS: the current scenario's)
function model_wants(r) {
    return (S_alg[r] in wantA) || (has_tp(S_tp[r]) && ((S_alg[r], S_tp[r]) in wantS))
}

# model_pic(key, r0, tp): draws model_vs_measured_<key>[_<tp>]: the measured series of scenario
# key (r0 one of its rows) that the model prices (all, or those on transport tp and nccl), solid,
# and the model's, dashed: "<alg>/<tp> model" in the colour and (open) point shape of its measured
# series where the model rows name the transport, else "<alg> model" without points. Returns 1
# when drawn, 0 when there is no model line
function model_pic(key, r0, tp,    r, m, p, nmod, nmeas, mk, ratio) {
    pic_reset(); nmod = 0
    # the measured series, with model / measured at each size as a third column (NaN: none)
    for (r = 1; r <= R; r++)
        if (M[r] && S_key[r] == key && model_wants(r) &&
            (tp == "" || S_alg[r] == "nccl" || S_tp[r] == tp || !has_tp(S_tp[r]))) {
            mk = has_tp(S_tp[r]) && ((S_ckey[r], S_n[r], S_alg[r], S_tp[r], S_b[r]) in MODEL) ? S_tp[r] : ""
            ratio = ((S_ckey[r], S_n[r], S_alg[r], mk, S_b[r]) in MODEL) ? sprintf("%.6g", MODEL[S_ckey[r], S_n[r], S_alg[r], mk, S_b[r]] / S_med[r]) : "NaN"
            add_row(r, S_b[r], sprintf("%.6g %s", S_med[r], ratio))
        }
    nmeas = P_NS
    for (m in MODEL) {
        split(m, p, SUBSEP)
        if (p[1] != S_ckey[r0] || p[2] != S_n[r0]) continue
        if (p[4] == "") {
            if (!(p[3] in wantA)) continue
            pic_add(p[3] " model", 2, algo_color(p[3]), -1, 2, 2, p[5], sprintf("%.6g", MODEL[m]))
        } else {
            if (!((p[3], p[4]) in wantS) || (tp != "" && p[4] != tp && p[3] != "nccl")) continue
            pic_add((p[3] == "nccl" ? "nccl" : p[3] "/" p[4]) " model", 2, algo_color(p[3]), transport_point(p[4], 2),
                    2, 2, p[5], sprintf("%.6g", MODEL[m]))
        }
        nmod++
    }
    if (!nmod) return 0
    return pic_write("model_vs_measured_" key (tp != "" ? "_" tp : ""), "model",
                     "measured (solid) vs model (dashed), " scen_title(r0) (tp != "" ? ", transport " tp : ""),
                     "nmeas = " nmeas "\n")
}

# in_delay_group(r, r0): row r is in the delay sweep of row r0 (same n, size, straggler rank and
# other stragglers; any scenario)
function in_delay_group(r, r0) {
    return S_sr[r] >= 0 && S_dr[r] < 0 && S_n[r] == S_n[r0] && S_b[r] == S_b[r0] && S_sr[r] == S_sr[r0] && S_so[r] == S_so[r0] && S_pl[r] == S_pl[r0]
}

# in_factor_group(r, r0): row r is in the factor sweep of row r0 (same n, size, degraded rank and
# other degraded GPUs, no straggler; any scenario)
function in_factor_group(r, r0) {
    return S_dr[r] >= 0 && S_sr[r] < 0 && S_n[r] == S_n[r0] && S_b[r] == S_b[r0] && S_dr[r] == S_dr[r0] && S_do[r] == S_do[r0] && S_pl[r] == S_pl[r0]
}

# pipe_group(r): the measurement a pipeline sweep varies the pipeline of: algorithm, transport,
# dtype, scenario (n included) and size
function pipe_group(r) {
    return S_alg[r] SUBSEP S_tp[r] SUBSEP S_dt[r] SUBSEP S_n[r] SUBSEP S_key[r] SUBSEP S_b[r]
}

# ssort(a, n): sorts a[1..n] as strings
function ssort(a, n,    i, j, t) {
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j] < a[j - 1]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
}

# note(msg): tells the user on stderr why a picture is missing
function note(msg) { print "plot.sh: " msg > "/dev/stderr" }

# date_of(ts): returns the YYYY-MM-DD of an ISO timestamp or of Unix seconds, else ts itself
function date_of(ts,    z, era, doe, yoe, y, doy, mp, d, m) {
    if (ts ~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]/) return substr(ts, 1, 10)
    if (ts !~ /^[0-9]+(\.[0-9]*)?$/ || ts + 0 < 86400) return clean_text(ts)
    # days since 1970-01-01 to a civil date (H. Hinnant's algorithm)
    z = int(ts / 86400) + 719468; era = int(z / 146097); doe = z - era * 146097
    yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
    y = yoe + era * 400; doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
    mp = int((5 * doy + 2) / 153); d = doy - int((153 * mp + 2) / 5) + 1
    m = mp < 10 ? mp + 3 : mp - 9
    return sprintf("%04d-%02d-%02d", y + (m <= 2), m, d)
}

# scen_key(r): returns row r's condition as a file-name part (clean, straggler_r3_d8ms,
# straggler_r1_d8ms_and_r0_d2ms, ...): n, the stragglers and the degraded GPUs, not the name
function scen_key(r,    k) {
    k = n_count > 1 ? "n" S_n[r] "_" : ""
    if (S_sr[r] < 0 && S_dr[r] < 0) return k "clean"
    if (S_sr[r] >= 0) k = k "straggler_r" S_sr[r] "_d" num_str(S_d[r] / 1000) "ms" others_key(S_so[r], "d")
    if (S_sr[r] >= 0 && S_dr[r] >= 0) k = k "_"
    if (S_dr[r] >= 0) k = k "degraded_r" S_dr[r] "_f" num_str(S_f[r]) others_key(S_do[r], "f")
    return k
}

# scen_title(r): returns row r's scenario in words, for titles (its name first, where it has one)
function scen_title(r,    t, w) {
    w = (n_count > 1 ? "n=" S_n[r] ", " : "")
    if (S_sr[r] < 0 && S_dr[r] < 0) w = w "clean"
    if (S_sr[r] >= 0) w = w "straggler rank " S_sr[r] " delayed " num_str(S_d[r] / 1000) " ms" others_words(S_so[r], "d")
    if (S_sr[r] >= 0 && S_dr[r] >= 0) w = w ", "
    if (S_dr[r] >= 0) w = w "rank " S_dr[r] " degraded x" num_str(S_f[r]) others_words(S_do[r], "f")
    # a scenario called as its condition ("clean") is not named twice
    t = S_scen[r] != "" && S_scen[r] != w ? "scenario " S_scen[r] ": " : ""
    return t w pl_title(r)
}

# pl_key(r): returns row r's placement as a file-name prefix ("4ranks-per-GPU_") where the CSV
# has several placements (their rows are never drawn as one series), else ""
function pl_key(r,    k) {
    if (pl_count <= 1) return ""
    k = S_pl[r]; gsub(/ /, "", k); gsub(/\//, "-per-", k)
    return file_part(k) "_"
}

# pl_title(r): returns "" for a row of one rank per GPU, else ", 4 ranks on 1 GPU (co-located, not
# NVLink)" (", co-located (not NVLink)" where every row has that placement: the header names it)
function pl_title(r) {
    if (S_pl[r] == "1 rank/GPU") return ""
    return pl_count == 1 ? ", co-located (not NVLink)" : ", " pl_words(S_pl[r], S_n[r]) " (co-located, not NVLink)"
}


# list_rest(l): returns a stragglers or degraded list ("1:8000;0:2000") without its first entry
# (the one the SPEC columns give): "0:2000", or "" when it has one entry or none
function list_rest(l) {
    l = trim(l)
    return index(l, ";") ? substr(l, index(l, ";") + 1) : ""
}

# others_key(l, what): returns list_rest's entries as a file-name part: "_and_r0_d2ms" for
# stragglers (what "d": RANK:DELAY_US), "_and_r0_f2" for degraded GPUs (what "f": RANK:FACTOR)
function others_key(l, what,    n, e, i, kv, k) {
    if (l == "") return ""
    n = split(l, e, ";"); k = "_and"
    for (i = 1; i <= n; i++) {
        split(e[i], kv, ":")
        k = k "_r" file_part(kv[1]) "_" what (what == "d" ? num_str(kv[2] / 1000) "ms" : file_part(kv[2]))
    }
    return k
}

# others_words(l, what): returns list_rest's entries in words, for titles
function others_words(l, what,    n, e, i, kv, t) {
    if (l == "") return ""
    n = split(l, e, ";")
    for (i = 1; i <= n; i++) {
        split(e[i], kv, ":")
        t = t (i > 1 ? ", " : "") "rank " clean_text(kv[1]) (what == "d" ? " delayed " num_str(kv[2] / 1000) " ms" : " x" clean_text(kv[2]))
    }
    return " (and " t ")"
}

# file_part(s): returns s with every character but letters, digits, '.', '-' and '_' made '_'
function file_part(s) {
    gsub(/[^A-Za-z0-9._-]/, "_", s)
    return s
}

# series_label(r, pipe): returns "nccl" or "algorithm/transport", plus "/p<pipeline>" when pipe
# is set (a row of a pipeline sweep), plus the dtype where the CSV has several
function series_label(r, pipe,    l) {
    l = S_alg[r] == "nccl" ? "nccl" : S_alg[r] (has_tp(S_tp[r]) ? "/" S_tp[r] : "")
    if (pipe) l = l "/p" S_pipe[r]
    if (dt_count > 1) l = l " " S_dt[r]
    return l
}

# best_label(r): returns row r's series in the best-transport pictures: the algorithm (and dtype)
function best_label(r) {
    return S_alg[r] (dt_count > 1 ? " " S_dt[r] : "")
}

# label_family(l): returns the family (style.awk's algo_family) of the series labelled l: that of
# the algorithm its label starts with ("ring/ce", "ring model", "optcc = optcc-ring")
function label_family(l) {
    sub(/[\/ ].*/, "", l)
    return algo_family(l)
}

# shade(c, w): returns colour c ("#rrggbb") mixed with white by the fraction w
function shade(c, w,    i, v, o, h) {
    h = "0123456789abcdef"; o = "#"; c = tolower(c)
    for (i = 2; i <= 6; i += 2) {
        v = (index(h, substr(c, i, 1)) - 1) * 16 + index(h, substr(c, i + 1, 1)) - 1
        o = o sprintf("%02x", int(v + (255 - v) * w + 0.5))
    }
    return o
}

# add_row(r, x, y): adds measured row r as point (x, y) of its series; the variants of a
# pipeline sweep go from the algorithm's colour (smallest pipeline) to lighter shades
function add_row(r, x, y,    nccl, c) {
    nccl = (S_alg[r] == "nccl")
    c = algo_color(S_alg[r])
    if (S_var[r] > 1) c = shade(c, 0.6 * (S_var[r] - 1) / (S_nvar[r] - 1))
    pic_add(S_lab[r], nccl ? 0 : 1, c, has_tp(S_tp[r]) ? transport_point(S_tp[r], S_var[r]) : algo_point(S_alg[r]),
            1, nccl ? 4 : 2, x, y)
}

# pic_reset(): starts a new picture with no series
function pic_reset() {
    delete P_idx; delete P_np; P_NS = 0
}

# pic_add(label, group, color, pt, dt, lw, x, y): adds point (x, y) to the series called label,
# creating it with that style; group orders the key (0 nccl, 1 measured, 2 model, 3 bounds)
function pic_add(label, group, color, pt, dt, lw, x, y,    s) {
    if (!(label in P_idx)) {
        s = P_idx[label] = ++P_NS
        P_lab[s] = label; P_grp[s] = group; P_col[s] = color; P_pt[s] = pt; P_dt[s] = dt; P_lw[s] = lw
        P_np[s] = 0
    }
    s = P_idx[label]
    P_x[s, ++P_np[s]] = x + 0; P_y[s, P_np[s]] = y
}

# pic_write(name, kind, title, extra): writes the picture's data blocks (series in key order,
# points by x) and its driver (which loads kind.gp); returns 1, or 0 when it has no series
function pic_write(name, kind, title, extra,    data, drv, o, i, j, s, t, k, tx, ty, names, colors, pts, dts, lws, fams, hdr, sig, first, dup, nw, yv) {
    if (P_NS == 0) return 0
    data = tmp "/" name ".dat"; drv = tmp "/" name ".gp"
    for (i = 1; i <= P_NS; i++) o[i] = i
    for (i = 2; i <= P_NS; i++)
        for (j = i; j > 1 && (P_grp[o[j]] "" P_lab[o[j]]) < (P_grp[o[j - 1]] "" P_lab[o[j - 1]]); j--) {
            t = o[j]; o[j] = o[j - 1]; o[j - 1] = t
        }
    for (i = 1; i <= P_NS; i++) {
        s = o[i]; sig = P_grp[s]
        for (k = 2; k <= P_np[s]; k++)
            for (j = k; j > 1 && P_x[s, j] < P_x[s, j - 1]; j--) {
                tx = P_x[s, j]; P_x[s, j] = P_x[s, j - 1]; P_x[s, j - 1] = tx
                ty = P_y[s, j]; P_y[s, j] = P_y[s, j - 1]; P_y[s, j - 1] = ty
            }
        P_fam[s] = label_family(P_lab[s]); sig = sig SUBSEP P_fam[s]
        # (the y value only: a point's other columns, its shape, differ per algorithm)
        for (k = 1; k <= P_np[s]; k++) { split(P_y[s, k], yv, " "); sig = sig SUBSEP P_x[s, k] SUBSEP yv[1] }
        # model-only family pictures: algorithms of one family the model prices the same at
        # every size (optcc and optcc-ring) are one line with one key entry "a = b", not hidden lines
        if (DEDUP && !has_measured && P_grp[s] == 1 && (sig in first)) { dup[s] = 1; P_lab[first[sig]] = P_lab[first[sig]] " = " P_lab[s] }
        else if (!(sig in first)) first[sig] = s
    }
    printf "" > data
    for (i = 1; i <= P_NS; i++) {
        s = o[i]
        if (s in dup) continue
        if (nw++) printf "\n\n" > data
        printf "# %s\n", P_lab[s] > data
        for (k = 1; k <= P_np[s]; k++) printf "%s %s\n", num_str(P_x[s, k]), P_y[s, k] > data
        names = names " \"" P_lab[s] "\""; colors = colors " \"" P_col[s] "\""
        pts = pts " " P_pt[s]; dts = dts " " P_dt[s]; lws = lws " " P_lw[s]; fams = fams " " P_fam[s]
    }
    close(data)
    hdr = meta_gpu != "" ? meta_gpu : "GPU"
    if (meta_n != "" && n_count <= 1) hdr = hdr (pl_count == 1 && pl_one != "1 rank/GPU" ? ", " pl_words(pl_one, meta_n) : " x" meta_n)
    # every title says where it ran: placement, machine and date (the morning view compares nights)
    if (pl_count == 1 && pl_one == "1 rank/GPU") hdr = hdr ", 1 rank/GPU"
    if (!has_measured) hdr = "modelled node" (meta_n != "" && n_count <= 1 ? " of " meta_n " GPUs" : "")
    if (meta_host != "" && meta_host != "?") hdr = hdr ", " (has_measured ? "" : "computed on ") meta_host
    if (meta_date != "") hdr = hdr ", " meta_date
    printf "# %s: written by plots/prep.awk\n", name > drv
    printf "data = '%s'\nout = '%s/%s'\nptitle = '%s  |  %s'\nn = %d\n", data, out, name, title, hdr, nw > drv
    printf "names = '%s'\ncolors = '%s'\npts = '%s'\ndts = '%s'\nlws = '%s'\nfams = '%s'\n", names, colors, pts, dts, lws, fams > drv
    printf "gpdir = '%s'\n%s", gpdir, extra > drv
    printf "load '%s/common.gp'\nload '%s/%s.gp'\n", gpdir, gpdir, kind > drv
    close(drv)
    print drv
    return 1
}
