# prep.awk: turns a run folder's results.csv (and critical.csv, when given) into gnuplot data
# blocks and one small driver script per picture, all under `tmp`; prints the drivers' paths on
# stdout and, on stderr, which pictures were not drawn for lack of data. It reads the rows (with
# rows.awk, the reader summary.awk shares) and plans the pictures, step by step in its END;
# prep_names.awk names them (with labels.awk's rule), prep_nccl.awk finds the references (nccl
# at its strongest, the healthy best), prep_pic.awk writes them, prep_best.awk, prep_scen.awk
# and prep_sweeps.awk draw each kind. Load csv.awk, stats.awk, style.awk, labels.awk and
# rows.awk first (plot.sh does).
#   awk -f csv.awk -f stats.awk -f style.awk -f labels.awk -f rows.awk -f prep.awk \
#       -f prep_names.awk -f prep_nccl.awk -f prep_pic.awk -f prep_best.awk -f prep_scen.awk \
#       -f prep_sweeps.awk -v tmp=DIR -v out=RUN/plots -v gpdir=plots -v crit=FILE \
#       -v meta=RUN/meta.txt -v families=FILE RUN/results.csv [RUN/critical.csv]
# families: `arbench --list --format families` (style.awk's families_read); plot.sh names the
# arbench it asked in the environment's AR_PLOT_FAMILIES_FROM ("" for none).
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
#     one per family (the registry's: style.awk's algo_family), nccl in each. Where that would be more than
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

BEGIN { SPLIT_MAX = 12; read_meta(meta); families_read(families) }

# files come in the order results [critical]: roles go by position
FNR == 1 {
    is_crit = (++fileno == 2)
    if (is_crit) { csv_header($0, ccol); next }
    if (rows_header($0, "plot.sh")) { bad_header = 1; exit 1 }
    next
}

/^[ \t\r]*$/ { next }

is_crit { csv_split($0, f); crit_read(f); next }

{
    csv_split($0, f)
    # every row counted by status, for the picture that says there is nothing to draw
    st = tolower(get(f, col, "status", "")); ST_n[st == "" ? "empty" : clean_text(st)]++; rows_total++
    if (rows_total == 1) {
        # where the run ran, for the title of a run with nothing to draw (the drawn rows' otherwise)
        any_gpu = clean_text(get(f, col, "gpu", "")); any_n = get(f, col, "n_gpus", "")
        any_host = clean_text(get(f, col, "host", "")); any_date = date_of(get(f, col, "timestamp", ""))
        any_measured = tolower(get(f, col, "source", "gpu")) != "model"
    }
    if (st != "ok") next
    src = tolower(get(f, col, "source", "gpu"))
    if (!(r = row_read(f, src, clean_text(get(f, col, "algorithm", "?")), 1))) next
    # what the pictures read besides rows.awk's: the interval's coverage (under 95% with fewer
    # than 6 samples: [min, max])
    v = get(f, col, "ci_level_pct", ""); S_lvl[r] = is_num(v) ? v + 0 : 95
    # profiled rows (--profile: overlap columns filled) carry the tracer's cost: not timings
    S_prof[r] = get(f, col, "overlap_reduce_pct", "") != "" || get(f, col, "overlap_delay_pct", "") != ""
    # the settings that make a condition (nccl's registration mode apart) and nccl's mode
    nccl_settings(r, get(f, col, "settings", ""))
    S_ver[r] = clean_text(get(f, col, "nccl", ""))
    # time from the last rank's arrival (the straggler's): NaN where the column has none
    v = get(f, col, "time_after_arrival_us", "")
    S_ta[r] = is_num(v) && v + 0 > 0 ? v + 0 : "NaN"
    if (meta_gpu == "" || (src != "model" && !meta_from_gpu)) {
        meta_gpu = clean_text(get(f, col, "gpu", "")); meta_n = S_n[r]
        meta_date = date_of(get(f, col, "timestamp", ""))
        meta_host = clean_text(get(f, col, "host", ""))
        meta_from_gpu = (src != "model")
    }
}

END {
    if (bad_header) exit 1
    # nothing to draw: one picture that says so, and nothing else
    if (!R) { no_data(); exit 0 }
    families_note()
    rows_counted(); scen_keys(); series_rule(); keep_fastest(); model_index()
    suffix = has_measured ? "" : " (model)"
    # nccl at its strongest and the healthy best, per condition and size (prep_nccl.awk)
    ref_index()
    drawn_s = drawn_d = drawn_f = drawn_m = drawn_p = 0
    for (i = 1; i <= nkeys; i++) {
        key = keys[i]; r0 = key_row[key]
        # the critical search's probes (a scenario critical.csv names): their pictures come last
        PFX = is_probe(r0) ? "probes_" : ""
        if (sizes[key] >= ((S_sr[r0] < 0 && S_dr[r0] < 0) ? 3 : 4)) drawn_s += scen_pics(key, r0)
        if (has_measured && sizes[key] >= 2) drawn_m += model_pics(key, r0)
    }
    if (!drawn_s) note("no scenario with enough sizes (clean 3+, others 4+): best_*, algbw_*, time_* and arrival_* not drawn")
    if (!has_measured) note("no measured rows: model_vs_measured_* not drawn (model-only CSV)")
    else if (!drawn_m) note("no model rows or model_time_us next to measured rows: model_vs_measured_* not drawn")

    pipeline_pics()
    delay_pics()
    critical_pic()
    factor_pics()
}

# rows_counted(): M[r], the rows drawn as measured (the model's where nothing was measured),
# and how many GPU counts, dtypes and placements they have (n_count, dt_count, pl_count)
function rows_counted(    r) {
    for (r = 1; r <= R; r++) {
        M[r] = has_measured ? (S_src[r] != "model") : 1
        if (!M[r]) continue
        if (!(S_n[r] in seen_n)) { seen_n[S_n[r]] = 1; n_count++ }
        if (!(S_dt[r] in seen_dt)) { seen_dt[S_dt[r]] = 1; dt_count++ }
        if (!(S_pl[r] in seen_pl)) { seen_pl[S_pl[r]] = 1; pl_count++; pl_one = S_pl[r] }
    }
}

# scen_keys(): S_ckey[r], row r's condition (scen_key), and S_key[r], its scenario in picture
# names: the condition, led by the scenario's name where there is one, and the placement
function scen_keys(    r, seen_sc, nsc) {
    for (r = 1; r <= R; r++) {
        S_ckey[r] = scen_key(r)
        if (S_scen[r] != "" && !((S_scen[r], S_ckey[r]) in seen_sc)) { seen_sc[S_scen[r], S_ckey[r]] = 1; nsc[S_scen[r]]++ }
    }
    for (r = 1; r <= R; r++)
        S_key[r] = pl_key(r) (S_scen[r] == "" ? S_ckey[r] : file_part(S_scen[r]) (nsc[S_scen[r]] > 1 ? "_" S_ckey[r] : ""))
}

# series_rule(): the series rule (see the top): S_lab[r] (S_lab0[r] without the pipeline) and,
# for the rows of a pipeline sweep (labels.awk's SW), S_var[r] of S_nvar[r], the rank of the
# row's pipeline value among its algorithm/transport's
function series_rule(    r, i, v, pv_seen, pv_list, pv_n) {
    pipe_sweeps()
    for (r = 1; r <= R; r++) {
        S_lab0[r] = series_label(r, 0); S_lab[r] = series_label(r, SW[r])
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
}

# keep_fastest(): a series measured several times at one point: its fastest row is drawn (M);
# then sizes[key] (the sizes of each scenario key) and keys[1..nkeys] with a row key_row[key]
function keep_fastest(    r, k, keep, seen_kb) {
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
}

# model_index(): the model's times MODEL[condition, n, algorithm, transport, size]
# (scen_key: model rows name no scenario, and the model prices a condition the same in every
# scenario; n is part of the key: the scenario names carry it only when the measured rows
# have several): source=model rows first, else the model_time_us column of the measured rows.
# Model rows that name a transport (arbench model --calibrate fits each transport apart) are
# kept per algorithm/transport; those named "model", "-" or nothing (a plain arbench model
# sweep) and model_time_us per algorithm, under transport ""
function model_index(    r) {
    for (r = 1; r <= R; r++)
        if (has_measured && S_src[r] == "model")
            MODEL[S_ckey[r], S_n[r], S_alg[r], has_tp(S_tp[r]) ? S_tp[r] : "", S_b[r]] = S_med[r]
    for (r = 1; r <= R; r++)
        if (M[r] && has_measured && S_mt[r] != "" && !((S_ckey[r], S_n[r], S_alg[r], "", S_b[r]) in MODEL) &&
            !(has_tp(S_tp[r]) && ((S_ckey[r], S_n[r], S_alg[r], S_tp[r], S_b[r]) in MODEL)))
            MODEL[S_ckey[r], S_n[r], S_alg[r], "", S_b[r]] = S_mt[r]
}
