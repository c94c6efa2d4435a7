# prep.awk: turns a run folder's results.csv (and critical.csv, when given) into gnuplot data
# blocks and one small driver script per picture, all under `tmp`; prints the drivers' paths on
# stdout and, on stderr, which pictures were not drawn for lack of data. It reads the rows and
# plans the pictures; prep_names.awk names them, prep_nccl.awk finds the references (nccl at
# its strongest, the healthy best), prep_pic.awk writes them, prep_best.awk, prep_scen.awk and
# prep_sweeps.awk draw each kind. Load csv.awk, stats.awk and style.awk first (plot.sh does).
#   awk -f csv.awk -f stats.awk -f style.awk -f prep.awk -f prep_names.awk -f prep_nccl.awk \
#       -f prep_pic.awk -f prep_best.awk -f prep_scen.awk -f prep_sweeps.awk -v tmp=DIR \
#       -v out=RUN/plots -v gpdir=plots -v crit=FILE -v meta=RUN/meta.txt \
#       RUN/results.csv [RUN/critical.csv]
#
# What it reads (by column name; missing optional columns take the defaults in brackets):
#   results.csv: algorithm, transport, bytes, status, time_us_median, algbw_gbps, busbw_gbps,
#     source [gpu], pipeline, dtype, n_gpus, straggler_rank [-1], delay_us [0], degraded_rank
#     [-1], factor [1], model_time_us, lower_bound_us, gpu, timestamp, scenario, stragglers and
#     degraded (arbench run's: the config's scenario name and every straggler RANK:DELAY_US and
#     degraded GPU RANK:FACTOR, ';'-separated; the SPEC columns name the first), settings
#     (nccl.registration=MODE: nccl's mode, else meta.txt's default), nccl (its version),
#     time_us_ci_lo and time_us_ci_hi (the median's interval: docs/statistics.md),
#     overlap_reduce_pct and overlap_delay_pct (filled: a profiled row). Rows whose status is not
#     `ok` are skipped. Rows with source=model are "the model" (its transport column, where it
#     names a transport, says which transport's fit it is); all others are measurements. A CSV
#     with no measurements at all (arbench model) is drawn from its model rows instead.
#   OPTCC's lower bound for the time-vs-factor pictures comes from either a `lower_bound_us`
#     column (on any row with that size and factor) or rows with source=model and algorithm
#     `lower-bound` (their time_us_median, else model_time_us), matched on n_gpus, bytes, factor.
#   critical.csv: bytes, algorithm, baseline, critical_delay_us; optional `source` (rows with
#     source=model are the model's prediction) or `model_critical_delay_us` column, status,
#     note and scenario (its rows are the search's probes). A size where none was found (status
#     never, or inf) is drawn at the largest delay tried ("none up to X ms").
#   meta.txt: NCCL_NVLS_ENABLE and the default nccl.registration.
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
#   GPU) say so in the title, one rank per GPU on several hosts is named as such ("1 rank/GPU on
#   2 hosts (rehearsed on one)"); a CSV of several placements draws each in pictures of its own
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
#     The scenarios critical.csv names are the critical search's probes: their pictures are
#     probes_<picture>, after the answers.
#   best_<scen>, the first (prep_best.awk): per size the best group (the fastest row that is
#     not nccl and every one whose interval reaches it), ties marked, against nccl at its
#     strongest (fastest registration mode, same conditions, any scenario); below, nccl's time /
#     the best's with its interval; on a degraded scenario OPTCC's bound and the healthy best.
#   algbw_<scen> (algbw_gbps; a straggler scenario's bytes / time_after_arrival_us; busbw on the
#     right axis), time_<scen> (time_us_median) or, for a
#     straggler scenario, arrival_<scen> (time_after_arrival_us): four panels with shared axes,
#     one per family (style.awk's algo_family), nccl in each. Where that would be more than
#     SPLIT_MAX series over 2+ transports, each algorithm is drawn on its fastest transport (and
#     pipeline) at each size, the point shape saying which, and algbw_<scen>_<transport> adds
#     that transport's series and nccl. A degraded scenario's adds OPTCC's bound and the healthy
#     best in every panel.
#   no_data: a CSV with no row to draw (every row n/a, say) gets only this picture, which says so.
#   pipeline_<scen>_<size>: time vs pipeline value at one size, for the series measured with
#     several (2+ values), nccl as a horizontal reference.
#   straggler_delay_<size>: time vs delay at one size (2+ delays), critical delays (measured and
#     the model's) marked, always on the axis; log-log when the delays are a geometric sweep (0
#     drawn at the left); profiled rows only where no other row has the point.
#     A delay sweep is usually made of scenarios (one per delay), so these group by condition
#     (n, size, straggler rank, the other stragglers), not by scenario name; rows with other
#     stragglers too get pictures of their own (_and_r<R>_d<D>ms).
#   critical_delay: critical delay vs size from critical.csv (2+ sizes), "never" at its bound.
#   degraded_factor_<size>: time vs degradation factor at one size (2+ factors) + lower bound and
#     the healthy best;
#     grouped like the delay pictures (the other degraded GPUs: _and_r<R>_f<F>).
#   model_vs_measured_<scen>: measured time (solid) and the model's (dashed) vs size, for the
#     series the model prices, and below them model / measured per measured series. Model rows
#     that name a transport (arbench model --calibrate: one fit per transport) are drawn per
#     algorithm/transport, "<alg>/<tp> model" in the colour and (open) point shape of the measured
#     series; model rows with transport "model", "-" or empty (a plain arbench model sweep) and
#     the model_time_us column per algorithm, "<alg> model" without points. Where that would be
#     more than SPLIT_MAX series over 2+ transports, instead one picture per transport,
#     model_vs_measured_<scen>_<transport>, with that transport's measured and model lines.

BEGIN { SPLIT_MAX = 12; read_meta(meta) }

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
    # the median's confidence interval ("" where the row has none: written before samples were)
    S_lo[R] = get(f, col, "time_us_ci_lo", ""); S_hi[R] = get(f, col, "time_us_ci_hi", "")
    if (!has_ci(S_lo[R], S_hi[R])) S_lo[R] = S_hi[R] = ""
    else { S_lo[R] += 0; S_hi[R] += 0 }
    # its coverage: under 95% with fewer than 6 samples ([min, max])
    v = get(f, col, "ci_level_pct", ""); S_lvl[R] = is_num(v) ? v + 0 : 95
    # profiled rows (--profile: overlap columns filled) carry the tracer's cost: not timings
    S_prof[R] = get(f, col, "overlap_reduce_pct", "") != "" || get(f, col, "overlap_delay_pct", "") != ""
    # the settings that make a condition (nccl's registration mode apart) and nccl's mode
    nccl_settings(R, get(f, col, "settings", ""))
    S_ver[R] = clean_text(get(f, col, "nccl", ""))
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
    # nccl at its strongest and the healthy best, per condition and size (prep_nccl.awk)
    ref_index()

    drawn_s = drawn_d = drawn_f = drawn_m = drawn_p = 0
    for (i = 1; i <= nkeys; i++) {
        key = keys[i]; r0 = key_row[key]
        # the critical search's probes (a scenario critical.csv names): their pictures come last
        PFX = is_probe(r0) ? "probes_" : ""
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

    pipeline_pics()
    delay_pics()
    critical_pic()
    factor_pics()
}
