# labels.awk: the one rule that names what a row measured, for the pictures (prep.awk),
# summary.md (summary.awk), history's trends (history.awk) and the overlap and phase pictures:
# a series is "nccl" or "algorithm/transport" (the transport where the row names one), plus
# "/p<pipeline>" on the rows of a pipeline sweep (the same measurement at several pipeline
# values; a pipeline the harness picks per size, OPTCC's segment count k, splits nothing); and
# the stragglers and degraded GPUs after the first, in words. Load csv.awk and style.awk
# (has_tp) first.

# series_name(alg, tp): "nccl", else "alg/tp" where tp names a transport, else "alg"
function series_name(alg, tp) { return alg == "nccl" ? "nccl" : alg (has_tp(tp) ? "/" tp : "") }

# row_label(r, pipe): row r's series (rows.awk's S_*): series_name, plus "/p<pipeline>" when
# pipe is set (a row of a pipeline sweep: SW[r])
function row_label(r, pipe) { return series_name(S_alg[r], S_tp[r]) (pipe ? "/p" S_pipe[r] : "") }

# pipe_group(r): the measurement a pipeline sweep varies the pipeline of: algorithm, transport,
# dtype, GPU count, placement, scenario (its name, stragglers and degraded GPUs) and size
function pipe_group(r) {
    return S_alg[r] SUBSEP S_tp[r] SUBSEP S_dt[r] SUBSEP S_n[r] SUBSEP S_pl[r] SUBSEP S_scen[r] SUBSEP S_sr[r] SUBSEP \
        S_d[r] SUBSEP S_so[r] SUBSEP S_dr[r] SUBSEP S_f[r] SUBSEP S_do[r] SUBSEP S_b[r]
}

# pipe_sweeps(): sets SW[r] for the measured rows (M[r]) of a pipeline sweep, those whose
# pipe_group was measured with several pipeline values; returns 1 when there is one
function pipe_sweeps(    r, seen, npipe, any) {
    for (r = 1; r <= R; r++)
        if (M[r] && !((pipe_group(r), S_pipe[r]) in seen)) { seen[pipe_group(r), S_pipe[r]] = 1; npipe[pipe_group(r)]++ }
    for (r = 1; r <= R; r++) { SW[r] = M[r] && npipe[pipe_group(r)] > 1; if (SW[r]) any = 1 }
    return any + 0
}

# others_words(l, what): returns list_rest's entries (rows.awk) in words, for picture titles: " (and
# rank 0 delayed 2 ms)" for stragglers (what "d": RANK:DELAY_US), " (and rank 0 x2)" for
# degraded GPUs (what "f": RANK:FACTOR); "" for none
function others_words(l, what) { return others_text(l, what, 1) }

# others_short(l, what): the same for summary.md's cells: " (and 0 +2 ms)", " (and 0 x2)"
function others_short(l, what) { return others_text(l, what, 0) }

# others_text(l, what, long): others_words (long) or others_short
function others_text(l, what, long,    n, e, i, kv, t) {
    if (l == "") return ""
    n = split(l, e, ";")
    for (i = 1; i <= n; i++) {
        split(e[i], kv, ":")
        t = t (i > 1 ? ", " : "") (long ? "rank " : "") clean_text(kv[1]) \
            (what == "d" ? (long ? " delayed " : " +") num_str(kv[2] / 1000) " ms" : " x" clean_text(kv[2]))
    }
    return " (and " t ")"
}
