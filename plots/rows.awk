# rows.awk: the one reader of results.csv's rows for prep.awk (the pictures) and summary.awk
# (summary.md): a row to draw or rank becomes row R of the S_* arrays both read, OPTCC's lower
# bound goes to LB. Load csv.awk first. Columns are found by name; a missing optional one takes
# its default (prep.awk's header lists them).

# rows_header(line, who): reads results.csv's header into col; returns 0, or 1 (after a line
# on stderr) when a column every row needs is missing
function rows_header(line, who) {
    csv_header(line, col)
    return csv_missing(col, "algorithm bytes status time_us_median", who) != ""
}

# row_read(f, src, alg, model_time): reads the fields f of a results.csv row (header col) whose
# status is ok, of source src and algorithm alg (lower case, clean). OPTCC's lower bound, in a
# lower_bound_us column or a model row named lower-bound, goes to LB[n, bytes, factor]. Returns
# the row's number R in the S_* arrays, or 0 for a row with no size, a lower-bound row and a
# row with no time (model_time: a model row's model_time_us stands in for its median)
function row_read(f, src, alg, model_time,    b, med, mt, lb, n, fac, v) {
    b = get(f, col, "bytes", ""); med = get(f, col, "time_us_median", "")
    lb = get(f, col, "lower_bound_us", ""); mt = get(f, col, "model_time_us", "")
    if (!is_num(b) || b + 0 <= 0) return 0
    n = get(f, col, "n_gpus", ""); n = is_num(n) ? n + 0 : ""
    fac = get(f, col, "factor", "1"); if (!is_num(fac)) fac = 1
    # the lower bound may ride on any row, or be a model row of its own
    if (is_num(lb) && lb + 0 > 0) LB[n, b + 0, fac + 0] = lb + 0
    if (src == "model" && alg == "lower-bound") {
        v = is_num(med) && med + 0 > 0 ? med : mt
        if (is_num(v) && v + 0 > 0) LB[n, b + 0, fac + 0] = v + 0
        return 0
    }
    if (!is_num(med) || med + 0 <= 0) {
        if (model_time && src == "model" && is_num(mt) && mt + 0 > 0) med = mt; else return 0
    }
    R++
    S_src[R] = src; S_alg[R] = alg; S_b[R] = b + 0; S_med[R] = med + 0; S_n[R] = n; S_f[R] = fac + 0
    S_tp[R] = clean_text(get(f, col, "transport", "")); S_pipe[R] = clean_text(get(f, col, "pipeline", ""))
    S_dt[R] = clean_text(get(f, col, "dtype", ""))
    S_sr[R] = get(f, col, "straggler_rank", "-1") + 0; S_d[R] = get(f, col, "delay_us", "0") + 0
    S_dr[R] = get(f, col, "degraded_rank", "-1") + 0
    # the scenario's name and the stragglers and degraded GPUs after the first ("" when none)
    S_scen[R] = clean_text(get(f, col, "scenario", ""))
    S_so[R] = list_rest(get(f, col, "stragglers", "")); S_do[R] = list_rest(get(f, col, "degraded", ""))
    # where the ranks ran (arbench run --ranks/--gpus 0,0,..): older CSVs have one rank per GPU
    S_pl[R] = clean_text(get(f, col, "placement", "1 rank/GPU"))
    S_mt[R] = (is_num(mt) && mt + 0 > 0) ? mt + 0 : ""
    # the median's confidence interval ("" where the row has none: written before samples were)
    S_lo[R] = get(f, col, "time_us_ci_lo", ""); S_hi[R] = get(f, col, "time_us_ci_hi", "")
    if (!has_ci(S_lo[R], S_hi[R])) S_lo[R] = S_hi[R] = ""
    else { S_lo[R] += 0; S_hi[R] += 0 }
    # algbw as written; derived from bytes/time (nccl-tests' rule) when absent
    v = get(f, col, "algbw_gbps", "")
    S_bw[R] = is_num(v) ? v + 0 : S_b[R] / (S_med[R] * 1e3)
    if (src != "model") has_measured = 1
    return R
}

# list_rest(l): returns a stragglers or degraded list ("1:8000;0:2000") without its first entry
# (the one the SPEC columns give): "0:2000", or "" when it has one entry or none
function list_rest(l) {
    l = trim(l)
    return index(l, ";") ? substr(l, index(l, ";") + 1) : ""
}
