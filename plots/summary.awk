# summary.awk: writes the markdown of a run's summary.md (less its pictures) on stdout, from
# results.csv, with the critical delays of critical.csv and the regressions against a baseline
# run's results.csv when given. Load csv.awk, stats.awk (the rules of docs/statistics.md),
# rowkind.awk (a row's settings), style.awk, labels.awk (the series' names) and rows.awk (the
# rows' reader) first, summary_sections.awk after it (the sections after the tables).
#   awk -f csv.awk -f stats.awk -f rowkind.awk -f style.awk -f labels.awk -f rows.awk -f summary.awk \
#       -f summary_sections.awk -v crit=FILE|"" \
#       -v base=FILE|"" -v basedir=DIR -v meta=0|1 -v nvls=VALUE \
#       [BASE/results.csv] RUN/results.csv [RUN/critical.csv]
# meta: 1 when the run has a meta.txt; nvls: its NCCL_NVLS_ENABLE value ("" when it has none).
# Columns are found by name (see prep.awk for the optional ones). Rows whose status is not ok are
# counted and listed (failed ones row by row, n/a and oom per scenario, algorithm and transport),
# never ranked. A CSV with no measured rows is summarised from its model rows. The lines under the
# title say which kind of run it was: measured, model mode (no row from a GPU: times are "model
# time") or nothing could run (rows from GPUs, none timed). The critical-delay search's probes
# (rows of a scenario critical.csv names) get a table apart from the straggler sweep.
# Where the CSV has arbench run's scenario columns (scenario, stragglers, degraded), rows of two
# scenarios are never merged: the tables have a row per scenario (and say which), and a row
# matches a baseline row only in the same scenario with the same stragglers and degraded GPUs.
# Algorithms are named as in the pictures (prep.awk's series rule): algorithm/transport, with
# "/p<pipeline>" only in a pipeline sweep, not for a pipeline picked per size (OPTCC's k).
# Rows measured with --profile overlap (overlap_reduce_pct, overlap_delay_pct) get a table of
# their own: the share of copy time that overlapped reduction kernels and the straggler's delay.
# Rows of ranks sharing a GPU ("4 ranks/GPU", "2-3 ranks/GPU") get the co-located note at the top,
# rows on several hosts (rehearsed on one machine or real) a note saying what they are; missing
# means "1 rank/GPU". With several placements the tables have a placement column and a row per
# placement, and a row matches a baseline row only of the same placement.
# Best is a set (docs/statistics.md): the fastest schedule and every other whose median's
# interval overlaps its own; vs nccl is against NCCL at its strongest (its fastest registration
# mode at the size, across scenarios, for clean rows), named, with the interval of the ratio.

# files come in the order [baseline] results [critical]; roles go by position, not by name, so
# that a run compared with itself still works
FNR == 1 {
    fileno++
    role = (base != "" && fileno == 1) ? "base" : (crit != "" && fileno == (base != "" ? 3 : 2)) ? "crit" : "res"
    if (role == "crit") csv_header($0, ccol)
    else if (role == "base") csv_header($0, bcol)
    else if (rows_header($0, "summary.sh")) { bad_header = 1; exit 1 }
    next
}

/^[ \t\r]*$/ { next }

role == "crit" {
    csv_split($0, f)
    NC++
    C_b[NC] = get(f, ccol, "bytes", "") + 0; C_d[NC] = get(f, ccol, "critical_delay_us", "")
    C_alg[NC] = clean_text(get(f, ccol, "algorithm", "stragglar"))
    C_base[NC] = clean_text(get(f, ccol, "baseline", "-"))
    C_src[NC] = tolower(get(f, ccol, "source", "gpu"))
    C_st[NC] = tolower(get(f, ccol, "status", "")); C_note[NC] = clean_text(get(f, ccol, "note", ""))
    C_mod[NC] = get(f, ccol, "model_critical_delay_us", "")
    # the scenario the search measured its probes in: their rows get a table of their own
    v = clean_text(get(f, ccol, "scenario", "")); if (v != "") CRIT_SCEN[v] = 1
    next
}

# the baseline run: measured ok rows by identity
role == "base" {
    csv_split($0, f)
    if (tolower(get(f, bcol, "status", "")) != "ok" || tolower(get(f, bcol, "source", "gpu")) == "model") next
    v = get(f, bcol, "time_us_median", "")
    if (!is_num(v) || v + 0 <= 0) next
    # matched with this run's rows at the end, once both headers are known (row_key)
    NBR++; BR_id[NBR] = row_id(f, bcol); BR_x[NBR] = row_extra(f, bcol); BR_med[NBR] = v + 0
    s = get(f, bcol, "time_us_stdev", "0"); BR_sd[NBR] = is_num(s) ? s + 0 : 0
    ci_of(f, bcol); BR_lo[NBR] = CI_LO; BR_hi[NBR] = CI_HI
    BR_ns[NBR] = samples_of(f, bcol, row_setting(f, bcol, "timing.mode", "events"))
    if (base_run == "") { base_run = clean_text(get(f, bcol, "run_id", "")); base_gpu = clean_text(get(f, bcol, "gpu", "")) }
    next
}

{
    csv_split($0, f)
    st = tolower(get(f, col, "status", "?")); src = tolower(get(f, col, "source", "gpu"))
    alg = clean_text(get(f, col, "algorithm", "?")); b = get(f, col, "bytes", "")
    wr = get(f, col, "wrong", "0")
    nst[st]++; total++
    if (src != "model") any_gpu++
    n = get(f, col, "n_gpus", "")
    # the run's lines: from its first measured row (any status), else its first model row
    if (meta_run == "" || (src != "model" && !meta_gpu_row)) {
        meta_run = clean_text(get(f, col, "run_id", "?")); meta_ts = clean_text(get(f, col, "timestamp", "?"))
        meta_gpu = clean_text(get(f, col, "gpu", "?")); meta_n = clean_text(n)
        meta_host = clean_text(get(f, col, "host", "?")); meta_drv = clean_text(get(f, col, "driver", "?"))
        meta_cuda = clean_text(get(f, col, "cuda", "?")); meta_nccl = clean_text(get(f, col, "nccl", "?"))
        meta_gpu_row = (src != "model")
    }
    # where the ranks ran: co-located rows (ranks sharing a GPU) get a note at the top
    pl = clean_text(get(f, col, "placement", "1 rank/GPU"))
    if (!(pl in seen_pl)) {
        seen_pl[pl] = 1; pl_count++
        if (pl_shared(pl)) pl_co = pl_co (pl_co == "" ? "" : ", ") pl
        if (pl ~ / on [0-9]+ hosts/) pl_mh = pl_mh (pl_mh == "" ? "" : ", ") pl
    }
    if (st != "ok" || (is_num(wr) && wr + 0 > 0)) {
        if (st != "n/a" && st != "oom" || (is_num(wr) && wr + 0 > 0)) {
            NB++
            NB_line[NB] = sprintf("| %s | %s | %s | %s | %s | %s |", alg, clean_text(get(f, col, "transport", "-")),
                                  is_num(b) ? size_label(b + 0, " ") : clean_text(b),
                                  scen_label(clean_text(get(f, col, "scenario", "")), scen_words(f)), st, clean_text(wr))
        } else {
            # could not run (n/a) or did not fit (oom): counted per scenario, algorithm, transport
            k = scen_label(clean_text(get(f, col, "scenario", "")), scen_words(f)) SUBSEP alg SUBSEP \
                clean_text(get(f, col, "transport", "-")) SUBSEP st
            if (!(k in NA_n)) { NA_k[++NNA] = k; NA_lo[k] = NA_hi[k] = b + 0 }
            NA_n[k]++
            if (is_num(b) && b + 0 < NA_lo[k]) NA_lo[k] = b + 0
            if (is_num(b) && b + 0 > NA_hi[k]) NA_hi[k] = b + 0
        }
        next   # failed, n/a, oom or wrong results are never ranked
    }
    # measured and ok: checked unless the run was told not to (wrong = -1)
    if (src != "model") { if (is_num(wr) && wr + 0 >= 0) n_checked++; else n_unchecked++ }
    # --profile overlap: the shares of copy time overlapped (mean over ranks), where measured
    orp = get(f, col, "overlap_reduce_pct", ""); odp = get(f, col, "overlap_delay_pct", "")
    if (is_num(orp) || is_num(odp)) {
        NO++
        O_lab[NO] = series_name(alg, clean_text(get(f, col, "transport", "-")))
        O_b[NO] = b + 0; O_r[NO] = orp; O_d[NO] = odp
        O_scen[NO] = scen_label(clean_text(get(f, col, "scenario", "")), scen_words(f))
    }
    # --compute: the rows with a load, for summary_sections.awk's compute_section
    if (is_num(get(f, col, "span_us_median", ""))) { NCP++; CP_line[NCP] = $0 }
    if (!(r = row_read(f, src, alg, 0))) next
    # what summary.md reads besides rows.awk's: the spread, the identity a baseline row matches
    # by, the sample count, the timing method and nccl's registration mode
    v = get(f, col, "time_us_stdev", "0"); S_sd[r] = is_num(v) ? v + 0 : 0
    S_id[r] = row_id(f, col); S_x[r] = row_extra(f, col)
    S_tm[r] = row_setting(f, col, "timing.mode", "events"); S_reg[r] = row_setting(f, col, "nccl.registration", "none")
    # an imported nccl-tests row is one side of the test: the mode names it (never the faster
    # of the two sides unsaid)
    S_side[r] = S_tp[r] == "in-place" || S_tp[r] == "out-of-place" ? " " S_tp[r] : ""
    S_ns[r] = samples_of(f, col, S_tm[r])
}

END {
    if (bad_header) exit 1
    for (r = 1; r <= R; r++) M[r] = has_measured ? (S_src[r] != "model") : 1
    for (r = 1; r <= R; r++) if (M[r] && S_scen[r] != "") has_scen = 1
    # several dtypes (an import of nccl-tests -d all): a column, and never one best of them all
    for (r = 1; r <= R; r++) if (M[r]) { if (dt_first == "") dt_first = S_dt[r]; else if (S_dt[r] != dt_first) has_dt = 1 }
    # the baseline's rows by identity (the scenario columns count where both CSVs have them)
    for (i = 1; i <= NBR; i++) {
        k = row_key(BR_id[i], BR_x[i]); B_med[k] = BR_med[i]; B_sd[k] = BR_sd[i]; B_lo[k] = BR_lo[i]; B_hi[k] = BR_hi[i]
        B_ns[k] = BR_ns[i]
    }
    for (r = 1; r <= R; r++) S_id[r] = row_key(S_id[r], S_x[r])
    # the series rule of the pictures (labels.awk): "/p<pipeline>" only on a pipeline sweep's rows
    has_sweep = pipe_sweeps()
    for (r = 1; r <= R; r++) S_lab[r] = row_label(r, SW[r])
    nccl_strongest()

    # what kind of run this is: measured (rows timed on GPUs), nothing ran (every GPU row n/a,
    # oom or failed), or model mode (every row priced by arbench model)
    printf "# arbench run %s\n\n", meta_run
    if (!any_gpu) printf "- model mode: a modelled node of %s GPUs (arbench model; no GPU was used), computed on %s; %s\n", meta_n, meta_host, meta_ts
    else if (pl_count == 1 && pl_co != "")
        printf "- GPUs: %s, %s on %s; driver %s, CUDA %s, NCCL %s; %s\n", meta_gpu, pl_words(pl_co, meta_n), meta_host, meta_drv, meta_cuda, meta_nccl, meta_ts
    else if (pl_count == 1 && pl_mh != "")
        printf "- GPUs: %s x%s, %s, on %s; driver %s, CUDA %s, NCCL %s; %s\n", meta_gpu, meta_n, pl_mh, meta_host, meta_drv, meta_cuda, meta_nccl, meta_ts
    else printf "- GPUs: %s x%s on %s; driver %s, CUDA %s, NCCL %s; %s\n", meta_gpu, meta_n, meta_host, meta_drv, meta_cuda, meta_nccl, meta_ts
    if (!any_gpu) printf "- rows: %d, every one modelled (source=model): nothing ran on a GPU and nothing was checked\n", total
    else {
        printf "- rows: %d, %d ok", total, nst["ok"]
        for (s in nst) if (s != "ok") printf ", %d %s", nst[s], s
        printf "\n"
    }
    if (!has_measured && R > 0) printf "- no measured rows: everything below is the model's (source=model)\n"
    if (has_measured) { nccl_line(); interval_line() }
    if (any_gpu && !has_measured)
        printf "\n**Nothing could run: not one of the %d rows to be measured was timed or checked** (%s). \"Rows that could not run\" says which; `arbench run --dry-run` with this run's COMMAND prints why.\n",
               any_gpu, status_words()
    if (pl_co != "") {
        printf "\n> **Co-located ranks** (%s%s): these timings measure one GPU's memory system, not NVLink.\n", pl_co,
               (pl_count > 1 ? "; the other rows 1 rank/GPU, in rows of their own" : "")
        printf "> They are for correctness, smoke runs and CI, not for comparing with NVLink numbers.\n"
    }
    if (pl_mh != "") hosts_note()
    TIME_COL = has_measured ? "median (us)" : "model time (us)"
    if (!has_measured && R > 0) {
        printf "\nTimes are the model's per AllReduce in us (see meta.txt for its parameters); algbw = bytes /\n"
        printf "time (GB = 1e9 B). **best** is the algorithm the model prices fastest at that size (nccl has no\n"
        printf "schedule to price, so it has no rows).\n"
    } else if (has_measured && any_ci) {
        printf "\nTimes are medians per AllReduce in us; algbw = bytes / time (GB = 1e9 B). **best** is the\n"
        printf "fastest schedule-based algorithm/transport at that size (nccl itself is left out so that the\n"
        printf "comparison says something), then, joined by ~, every other whose interval overlaps the fastest's:\n"
        printf "they tie. **interval**: the median's nonparametric 95%% confidence interval (docs/statistics.md;\n"
        printf "below 6 samples, their range, which covers less). **vs nccl** = nccl's median / the fastest's\n"
        printf "(> 1: faster than nccl) with the interval both medians' intervals allow, **tie** where it holds 1;\n"
        printf "nccl is at its strongest: its fastest registration mode at that size (**nccl mode**).\n"
    } else if (has_measured) {
        printf "\nTimes are medians per AllReduce in us; algbw = bytes / time (GB = 1e9 B). **best** is the\n"
        printf "fastest schedule-based algorithm/transport at that size (nccl itself is left out so that the\n"
        printf "comparison says something); **vs nccl** = nccl's median / best's median (> 1: faster than nccl),\n"
        printf "nccl at its strongest: its fastest registration mode at that size (**nccl mode**).\n"
    }
    if (has_sweep) printf "A /pK after the transport marks a pipeline sweep (the same size measured at several --pipeline K).\n"

    # the answers first (regressions, best per size, critical delays, degraded links), the
    # critical-delay search's probes last
    if (base != "") regressions()
    table("clean", "Clean")
    critical_section()
    table("degraded", "Degraded link")
    table("straggler", "Straggler")
    overlap_section()
    compute_section()
    failed_section()
    unrun_section()
    table("probe", "Critical search probes")
}

# nccl_strongest(): NCB[nc_key] = the fastest clean nccl row under those conditions, whatever
# scenario (and so registration mode) measured it; HAS_SCHED[nc_key] where clean schedules were
# measured under them; NC_MODES the registration modes measured; any_ci and n_noci: measured
# rows with and without an interval
function nccl_strongest(    r, k, m) {
    for (r = 1; r <= R; r++) {
        if (!M[r] || S_src[r] == "model") continue
        if (has_ci(S_lo[r], S_hi[r])) any_ci = 1; else n_noci++
        n_meas++
        if (S_alg[r] == "nccl" && !(S_reg[r] in seen_mode)) { seen_mode[S_reg[r]] = 1; n_modes++ }
        if (table_of(r) != "clean") continue
        k = nc_key(r)
        if (S_alg[r] != "nccl") HAS_SCHED[k] = 1
        else if (!(k in NCB) || S_med[r] < S_med[NCB[k]]) NCB[k] = r
    }
    # the modes in NCCL's order, any other after them
    split("none registered symmetric", m, " ")
    for (k = 1; k <= 3; k++) if (m[k] in seen_mode) { NC_MODES = NC_MODES (NC_MODES == "" ? "" : ", ") m[k]; delete seen_mode[m[k]] }
    for (k in seen_mode) NC_MODES = NC_MODES (NC_MODES == "" ? "" : ", ") k
}

# nc_key(r): the conditions nccl's row must share with row r to be compared with it: size, GPU
# count, placement, dtype and timing method
function nc_key(r) { return S_pl[r] SUBSEP S_n[r] SUBSEP S_dt[r] SUBSEP S_tm[r] SUBSEP S_b[r] }

# nccl_line(): which NCCL the ratios are against: version, registration modes, NVLS
function nccl_line(    nv) {
    if (n_modes == 0) return
    nv = !meta ? "NVLS unknown (no meta.txt)" : nvls == "" ? "NVLS unknown (meta.txt has no NCCL_NVLS_ENABLE line)" : \
         nvls == "0" ? "NVLS off (meta.txt: NCCL_NVLS_ENABLE=0)" : \
         nvls == "(unset)" ? "NVLS NCCL's default (NCCL_NVLS_ENABLE unset: on where the machine has it)" : \
         "NVLS on (meta.txt: NCCL_NVLS_ENABLE=" nvls ")"
    if (n_modes == 1)
        printf "- vs nccl: against nccl %s only (NCCL %s; the one registration mode this run measured: the others may be faster); %s\n",
               NC_MODES, meta_nccl, nv
    else printf "- vs nccl: against NCCL %s at its strongest: at each size the fastest of the registration modes measured (%s), named in the tables; %s\n",
                meta_nccl, NC_MODES, nv
}

# interval_line(): where the measured rows have no interval, what that takes away
function interval_line() {
    if (!any_ci) printf "- intervals: none in this results.csv (written before samples were kept): best is the fastest alone, ties cannot be called, and vs nccl has no interval\n"
    else if (n_noci > 0) printf "- intervals: %d of the %d measured rows have none: they join no best group and their ratios have no interval\n", n_noci, n_meas
}

# hosts_note(): rows on several hosts, rehearsed on one machine or real: what they measure
function hosts_note(    on) {
    if (match(pl_mh, /rehearsed on [a-z0-9]+/)) {
        on = substr(pl_mh, RSTART + 13, RLENGTH - 13)
        printf "\n> **Hosts rehearsed** (%s): the ranks are grouped into hosts on %s; within a host\n", pl_mh,
               on == "one" ? "one machine" : on " machines"
        printf "> they use NVLink, between hosts NCCL's socket network: real NVLink plus a network, not a real cluster's network.\n"
    } else printf "\n> **Several hosts** (%s): within a host NVLink, between hosts the network.\n", pl_mh
}

# row_id(f, c): returns the identity of a row, for matching it with the baseline's: scenario
# (the SPEC columns' first straggler and degraded GPU), algorithm, transport, pipeline, dtype, n,
# bytes, placement; row_extra adds the scenario columns
function row_id(f, c) {
    return get(f, c, "n_gpus", "") "|" get(f, c, "straggler_rank", "-1") + 0 "|" get(f, c, "delay_us", "0") + 0 \
        "|" get(f, c, "degraded_rank", "-1") + 0 "|" get(f, c, "factor", "1") + 0 "|" get(f, c, "algorithm", "") \
        "|" get(f, c, "transport", "") "|" get(f, c, "pipeline", "") "|" get(f, c, "dtype", "") "|" get(f, c, "bytes", "") + 0 \
        "|" get(f, c, "placement", "1 rank/GPU")
}

# row_extra(f, c): returns the scenario columns of a row: its scenario name, stragglers and
# degraded lists, each "-" where the CSV has no such column
function row_extra(f, c) {
    return ("scenario" in c ? get(f, c, "scenario", "") : "-") SUBSEP ("stragglers" in c ? get(f, c, "stragglers", "") : "-") \
        SUBSEP ("degraded" in c ? get(f, c, "degraded", "") : "-")
}

# row_key(id, x): returns the identity row_id, plus each scenario column of x (row_extra) that
# both the baseline and this run have: an older baseline without them still matches by the
# SPEC columns
function row_key(id, x,    e, i, k, xn) {
    split(x, e, SUBSEP); k = id
    split("scenario stragglers degraded", xn, " ")
    for (i = 1; i <= 3; i++) if ((xn[i] in col) && (xn[i] in bcol)) k = k "|" e[i]
    return k
}

# scen_words(f): returns a row's scenario in words (for the failed-rows table)
function scen_words(f,    sr, dr) {
    sr = get(f, col, "straggler_rank", "-1") + 0; dr = get(f, col, "degraded_rank", "-1") + 0
    if (sr >= 0) return "straggler " sr " +" num_str(get(f, col, "delay_us", "0") / 1000) " ms" \
                        others_short(list_rest(get(f, col, "stragglers", "")), "d")
    if (dr >= 0) return "degraded " dr " x" num_str(get(f, col, "factor", "1") + 0) \
                        others_short(list_rest(get(f, col, "degraded", "")), "f")
    return "clean"
}

# row_words(r): returns ranked row r's scenario in words (as scen_words)
function row_words(r) {
    if (S_sr[r] >= 0) return "straggler " S_sr[r] " +" num_str(S_d[r] / 1000) " ms" others_short(S_so[r], "d")
    if (S_dr[r] >= 0) return "degraded " S_dr[r] " x" num_str(S_f[r]) others_short(S_do[r], "f")
    return "clean"
}

# scen_label(name, words): returns a scenario for the tables: its words, led by its name where
# it has one ("late (straggler 1 +2 ms)"; a scenario called as its words, just that)
function scen_label(name, words) {
    return name == "" || name == words ? (name == "" ? words : name) : name " (" words ")"
}

# kind_of(r): returns the scenario kind of row r: clean, straggler or degraded
function kind_of(r) { return S_sr[r] >= 0 ? "straggler" : S_dr[r] >= 0 ? "degraded" : "clean" }

# table_of(r): returns the table row r goes in: kind_of's, except that the critical-delay
# search's probes (rows of a scenario critical.csv names) are "probe", apart from the sweep
function table_of(r) {
    if (S_sr[r] >= 0 && S_scen[r] != "" && (S_scen[r] in CRIT_SCEN)) return "probe"
    return kind_of(r)
}

# fmt_t(x): returns a time with as many decimals as make sense
function fmt_t(x) { return x < 100 ? sprintf("%.2f", x) : x < 10000 ? sprintf("%.1f", x) : sprintf("%.0f", x) }

# isort(key, idx, n): sorts idx[1..n] by the strings key[idx[i]] (insertion sort; tables are short)
function isort(key, idx, n,    i, j, t) {
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && key[idx[j]] < key[idx[j - 1]]; j--) { t = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = t }
}

# table(kind, heading): prints the best-per-size table of one kind of row (table_of), nothing
# if it has none. Clean and degraded rows go by scenario, then size; straggler rows and the
# search's probes by size, then delay. Clean rows' best is set beside nccl at its strongest
# (nccl_strongest); a line of nccl rows alone shows its own, and gets no line at all where
# schedules are set beside them.
function table(kind, heading,    r, g, ng, gk, gi, best, nc, i, has_lb, has_nc, ck, n, ci) {
    delete gk; delete best; delete nc; delete gi; delete first; delete GN; delete GR; ng = 0; has_lb = 0
    for (r = 1; r <= R; r++) {
        if (!M[r] || table_of(r) != kind) continue
        # text fields end in \001, below every printable character: "late" sorts before "late2"
        if (kind == "straggler" || kind == "probe")
            g = sprintf("%s\001%s|%020.0f|%014.3f|%06d|%s\001%s\001%s\001", S_pl[r], S_n[r], S_b[r], S_d[r] / 1000, S_sr[r] + 1, S_so[r], S_scen[r], S_dt[r])
        else
            g = sprintf("%s\001%s|%06d|%014.3f|%06d|%010.3f|%s\001%s\001%s\001%s\001%020.0f", S_pl[r], S_n[r], S_sr[r] + 1, S_d[r] / 1000,
                        S_dr[r] + 1, S_f[r], S_so[r], S_do[r], S_scen[r], S_dt[r], S_b[r])
        if (!(g in gk)) { gk[g] = g; gi[++ng] = g; first[g] = r }
        GR[g, ++GN[g]] = r
        if (S_alg[r] == "nccl") { if (!(g in nc) || S_med[r] < S_med[nc[g]]) nc[g] = r }
        else if (!(g in best) || S_med[r] < S_med[best[g]]) best[g] = r
        if ((S_n[r], S_b[r], S_f[r]) in LB) has_lb = 1
    }
    if (kind == "clean") {
        n = 0
        for (i = 1; i <= ng; i++) {
            g = gi[i]; ck = nc_key(first[g])
            if (!(g in best) && (ck in HAS_SCHED)) { delete gk[g]; continue }
            if ((g in best) && (ck in NCB)) nc[g] = NCB[ck]
            gi[++n] = g
        }
        ng = n
    }
    if (ng == 0) return
    isort(gk, gi, ng)
    printf "\n## %s\n\n", heading
    if (kind == "straggler") printf "Time runs from when the non-straggler ranks enter to when the last rank finishes.\n\n"
    if (kind == "probe") {
        printf "The rows the critical-delay search measured (its probes; the result is \"Critical straggler\n"
        printf "delay\"): per size, each delay it tried. Time runs from when the non-straggler ranks enter.\n\n"
    }
    if (kind == "degraded") table_degraded(ng, gi, best, has_lb)
    ci = any_ci ? 1 : 0
    # nccl columns only where nccl ran (not in a model-only CSV, nor when it was left out)
    has_nc = 0; for (i = 1; i <= ng; i++) if (gi[i] in nc) has_nc = 1
    table_columns(kind, ci, has_nc, has_lb)
    print TH; print TS
    for (i = 1; i <= ng; i++)
        print table_line(kind, gi[i], (gi[i] in best) ? best[gi[i]] : 0, (gi[i] in nc) ? nc[gi[i]] : 0, ci, has_nc, has_lb)
}

# table_degraded(ng, gi, best, has_lb): the lines above the degraded table: why nccl has no
# column and, with OPTCC's bound (has_lb), where the sizes are latency-bound: LAT[placement, n],
# the fastest time of the table at 64 KiB or less (at size LATB), of groups gi[1..ng] (best:
# their fastest schedule)
function table_degraded(ng, gi, best, has_lb,    i, g, r, lg, bt, nlat, lat_note) {
    delete LAT; delete LATB
    printf "nccl cannot be degraded, so it has no column here%s.\n", has_lb ? "; the lower bound is OPTCC's (Theorem 1)" : ""
    # OPTCC's bound has no latency term: below the fastest time of a small size (at most
    # 64 KiB, where latency is all there is) the size is latency-bound and best / bound
    # would measure the latency, not the schedule
    for (i = 1; i <= ng && has_lb; i++) {
        g = gi[i]; r = first[g]
        if (!(g in best) || S_b[r] > 65536) continue
        lg = S_pl[r] SUBSEP S_n[r]; bt = S_med[best[g]]
        if (!(lg in LAT) || bt < LAT[lg]) { if (!(lg in LAT)) nlat++; LAT[lg] = bt; LATB[lg] = S_b[r] }
    }
    if (has_lb) {
        printf "The bound counts bandwidth only (no latency term), so at small sizes it is far below any time.\n"
        if (nlat == 0) printf "No size here is 64 KiB or less to show where latency ends: read best / bound at small sizes as latency.\n"
        else {
            for (lg in LAT) lat_note = lat_note (lat_note == "" ? "" : "; ") fmt_t(LAT[lg]) " us at " size_label(LATB[lg], " ") \
                (n_multi() || pl_count > 1 ? " (" (pl_count > 1 ? substr(lg, 1, index(lg, SUBSEP) - 1) ", " : "") "n=" substr(lg, index(lg, SUBSEP) + 1) ")" : "")
            printf "Where it is below the fastest time of this table at 64 KiB or less (%s), the size is\n", lat_note
            printf "bound by latency: best / bound would measure that, not the schedule, and says \"latency-bound\".\n"
        }
    }
    printf "\n"
}

# table_columns(kind, ci, has_nc, has_lb): the header of a table of that kind (TH, and its
# separator TS): the interval columns where ci, nccl's where has_nc, the bound's where has_lb
function table_columns(kind, ci, has_nc, has_lb) {
    TH = "|"; TS = "|"
    if (pl_count > 1) addcol("placement", 0)
    if (has_scen) addcol("scenario", 0)
    if (has_dt) addcol("dtype", 0)
    if (n_multi()) addcol("n", 1)
    if (kind == "straggler" || kind == "probe") { addcol("straggler", 1); addcol("delay (ms)", 1) }
    if (kind == "degraded") { addcol("slow GPU", 1); addcol("factor", 1) }
    addcol("size", 1); addcol("best", 0); addcol(TIME_COL, 1)
    if (ci) addcol("interval (us)", 1)
    addcol("algbw (GB/s)", 1)
    if (kind != "degraded" && has_nc) {
        addcol("nccl mode", 0); addcol("nccl median (us)", 1)
        if (ci) addcol("nccl interval (us)", 1)
        addcol("nccl algbw (GB/s)", 1); addcol("vs nccl", 1)
    } else if (kind == "degraded" && has_lb) { addcol("lower bound (us)", 1); addcol("best / bound", 1) }
}

# table_line(kind, g, b, n, ci, has_nc, has_lb): returns the table line of group g (its first
# row first[g]): its fastest schedule row b and nccl's row n (0: none), the columns
# table_columns gave
function table_line(kind, g, b, n, ci, has_nc, has_lb,    r, line, lbv, lg, sp) {
    r = first[g]
    line = "| "
    if (pl_count > 1) line = line S_pl[r] " | "
    if (has_scen) line = line (S_scen[r] == "" ? "-" : S_scen[r]) " | "
    if (has_dt) line = line S_dt[r] " | "
    if (n_multi()) line = line S_n[r] " | "
    if (kind == "straggler" || kind == "probe") line = line S_sr[r] others_short(S_so[r], "d") " | " num_str(S_d[r] / 1000) " | "
    if (kind == "degraded") line = line S_dr[r] others_short(S_do[r], "f") " | " num_str(S_f[r]) " | "
    line = line size_label(S_b[r], " ") " | "
    if (b) line = line best_group(g, b) " | " fmt_t(S_med[b]) " | " (ci ? ci_cell(b) " | " : "") sprintf("%.2f", S_bw[b]) " |"
    else line = line "- | - | " (ci ? "- | " : "") "- |"
    if (kind == "degraded") {
        if (!has_lb) return line
        lbv = ((S_n[r], S_b[r], S_f[r]) in LB) ? LB[S_n[r], S_b[r], S_f[r]] : ""
        lg = S_pl[r] SUBSEP S_n[r]
        sp = lbv == "" || !b ? "-" : (lg in LAT) && lbv < LAT[lg] ? "latency-bound" : sprintf("%.2f", S_med[b] / lbv)
        return line " " (lbv == "" ? "-" : fmt_t(lbv)) " | " sp " |"
    }
    if (!has_nc) return line
    if (!n) return line " - | - | " (ci ? "- | " : "") "- | - |"
    return line " " S_reg[n] S_side[n] " | " fmt_t(S_med[n]) " | " (ci ? ci_cell(n) " | " : "") sprintf("%.2f", S_bw[n]) " | " \
           (b ? vs_cell(n, b) : "-") " |"
}

# best_group(g, b): returns the best group of table group g, whose fastest schedule is row b: b,
# then every other schedule whose interval overlaps b's, by median, joined by " ~ " (b alone
# where it has no interval)
function best_group(g, b,    i, r, k, cand, j, t, name, seen) {
    name = S_lab[b]; seen[name] = 1
    if (!has_ci(S_lo[b], S_hi[b])) return name
    for (i = 1; i <= GN[g]; i++) {
        r = GR[g, i]
        if (r == b || S_alg[r] == "nccl" || !has_ci(S_lo[r], S_hi[r]) || !ci_overlap(S_lo[r], S_hi[r], S_lo[b], S_hi[b])) continue
        cand[++k] = r
        for (j = k; j > 1 && S_med[cand[j]] < S_med[cand[j - 1]]; j--) { t = cand[j]; cand[j] = cand[j - 1]; cand[j - 1] = t }
    }
    for (i = 1; i <= k; i++) if (!(S_lab[cand[i]] in seen)) { seen[S_lab[cand[i]]] = 1; name = name " ~ " S_lab[cand[i]] }
    return name
}

# ci_cell(r): returns row r's interval as the tables print it: "313.7-314.9", with the sample
# count below 6 ("12214-12263 (5 samples)"), "-" where it has none
function ci_cell(r) { return ci_text(S_lo[r], S_hi[r], S_ns[r]) }

# ci_text(lo, hi, n): returns an interval of n samples as the tables print it (ci_cell)
function ci_text(lo, hi, n) {
    if (!has_ci(lo, hi)) return "-"
    return fmt_t(lo) "-" fmt_t(hi) (n != "" && n < 6 ? " (" n " sample" (n == 1 ? "" : "s") ")" : "")
}

# few(r): returns 1 when row r's median rests on fewer than 6 samples, where no interval reaches 95%
function few(r) { return S_ns[r] != "" && S_ns[r] < 6 }

# vs_cell(n, b): returns nccl row n's median over best row b's as the tables print it: with its
# interval and "tie" where that holds 1 (ratio_words); on fewer than 6 samples on either side,
# the ratio and the sample counts, no interval: "3.00x (few samples: nccl 1)"
function vs_cell(n, b,    rt, w) {
    rt = S_med[n] / S_med[b]
    if (few(b)) w = "best " S_ns[b]
    if (few(n)) w = w (w == "" ? "" : ", ") "nccl " S_ns[n]
    if (w != "") return sprintf("%.2fx (few samples: %s)", rt, w)
    if (!has_ci(S_lo[n], S_hi[n]) || !has_ci(S_lo[b], S_hi[b])) return ratio_words(rt, "", "")
    return ratio_words(rt, ratio_ci_lo(S_lo[n], S_hi[n], S_lo[b], S_hi[b]), ratio_ci_hi(S_lo[n], S_hi[n], S_lo[b], S_hi[b]))
}

# addcol(name, right): appends a column to the table header TH and its separator TS
function addcol(name, right) {
    TH = TH " " name " |"; TS = TS (right ? "---:|" : "---|")
}

# n_multi(): returns 1 when the measured rows come from several GPU counts
function n_multi(    r, first_n) {
    if (n_multi_done) return n_multi_val
    n_multi_done = 1; first_n = "?"
    for (r = 1; r <= R; r++) {
        if (!M[r]) continue
        if (first_n == "?") first_n = S_n[r]
        else if (S_n[r] != first_n) n_multi_val = 1
    }
    return n_multi_val
}

# ci_of(f, c): sets CI_LO and CI_HI to a row's interval columns, both "" where it has none
function ci_of(f, c) {
    CI_LO = get(f, c, "time_us_ci_lo", ""); CI_HI = get(f, c, "time_us_ci_hi", "")
    if (!has_ci(CI_LO, CI_HI)) CI_LO = CI_HI = ""
}

# samples_of(f, c, tm): returns the number of samples a measured row's median rests on: its
# n_samples column; in a folder from before that column, its iterations (events timing) or its
# batches (host and graph timing: timing.host_batches, 5 by default); "" where none tells
function samples_of(f, c, tm,    v) {
    if (tolower(get(f, c, "source", "gpu")) == "model") return ""
    if ("n_samples" in c) { v = get(f, c, "n_samples", ""); return is_num(v) ? v + 0 : "" }
    v = tm == "events" ? get(f, c, "iters", "") : row_setting(f, c, "timing.host_batches", 5)
    return is_num(v) ? v + 0 : ""
}
