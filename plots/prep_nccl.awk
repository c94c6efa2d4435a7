# prep_nccl.awk: the references prep.awk's pictures set the schedules against, each taken at its
# strongest (docs/statistics.md): nccl at a size is its fastest registration mode among the rows
# of the same conditions (size, GPU count, placement, dtype, straggler or degraded condition and
# every setting but nccl.registration), from any scenario of the run; the healthy best is the
# fastest schedule with no straggler and no degraded GPU (or the degraded GPU at x1) under the
# same settings (degrade.* apart). Profiled rows (--profile) are used only where nothing else was measured: their
# tracer adds to every launch. meta.txt gives NCCL_NVLS_ENABLE and the run's default registration.

# read_meta(path): reads meta.txt's NCCL_NVLS_ENABLE and "setting nccl.registration = MODE" (the
# mode of rows whose settings name none); a missing file leaves both unknown
function read_meta(path,    line, v) {
    META_REG = "none"; META_NVLS = ""
    if (path == "") return
    while ((getline line < path) > 0) {
        if (line ~ /^---/) break
        if (line ~ /^NCCL_NVLS_ENABLE:/) { v = line; sub(/^NCCL_NVLS_ENABLE:[ \t]*/, "", v); META_NVLS = clean_text(v) }
        if (line ~ /^setting nccl\.registration = /) { v = line; sub(/^setting nccl\.registration = /, "", v); sub(/ .*/, "", v); META_REG = clean_text(v) }
    }
    close(path)
}

# nccl_settings(r, s): sets S_set[r] (settings s without nccl.registration: what else the row
# was run with), S_hset[r] (those without degrade.*: what a healthy row must share with a
# degraded one) and S_reg[r] (nccl's registration mode: the setting, else meta.txt's default)
function nccl_settings(r, s,    n, e, i, k) {
    S_reg[r] = META_REG; S_set[r] = S_hset[r] = ""
    n = split(clean_text(s), e, ";")
    for (i = 1; i <= n; i++) {
        k = trim(e[i])
        if (k ~ /^nccl\.registration=/) S_reg[r] = substr(k, 19)
        else if (k != "") S_set[r] = S_set[r] (S_set[r] == "" ? "" : ";") k
        if (k != "" && k !~ /^nccl\.registration=/ && k !~ /^degrade\./) S_hset[r] = S_hset[r] (S_hset[r] == "" ? "" : ";") k
    }
}

# cond_sig(r): the conditions row r was measured under, scenario name and registration apart
function cond_sig(r) {
    return S_ckey[r] SUBSEP S_n[r] SUBSEP S_pl[r] SUBSEP S_dt[r] SUBSEP S_set[r]
}

# healthy(r): row r ran with no straggler and no degraded GPU (or its degraded GPU at x1)
function healthy(r) { return S_sr[r] < 0 && (S_dr[r] < 0 || S_f[r] == 1) }

# ref_index(): fills NCCL_AT[cond_sig, bytes] (nccl's fastest row at that condition and size) and
# HEALTHY_AT[n, placement, dtype, settings, bytes] (the fastest healthy schedule), unprofiled
# rows first
function ref_index(    r, k, h) {
    for (r = 1; r <= R; r++) {
        if (has_measured && S_src[r] == "model") continue
        if (S_alg[r] == "nccl") {
            k = cond_sig(r) SUBSEP S_b[r]
            if (!(k in NCCL_AT) || better(r, NCCL_AT[k])) NCCL_AT[k] = r
        } else if (healthy(r)) {
            h = S_n[r] SUBSEP S_pl[r] SUBSEP S_dt[r] SUBSEP S_hset[r] SUBSEP S_b[r]
            if (!(h in HEALTHY_AT) || better(r, HEALTHY_AT[h])) HEALTHY_AT[h] = r
        }
    }
}

# better(r, q): row r is the better reference than row q: unprofiled before profiled, then faster
function better(r, q) {
    if (S_prof[r] != S_prof[q]) return !S_prof[r]
    return S_med[r] < S_med[q]
}

# nccl_at(r0, b): returns nccl's fastest row at size b under row r0's conditions, or 0
function nccl_at(r0, b,    k) {
    k = cond_sig(r0) SUBSEP b
    return (k in NCCL_AT) ? NCCL_AT[k] : 0
}

# healthy_at(r0, b): returns the fastest healthy schedule's row at size b for row r0's GPU count,
# placement, dtype and settings (those of the degradation apart), or 0
function healthy_at(r0, b,    h) {
    h = S_n[r0] SUBSEP S_pl[r0] SUBSEP S_dt[r0] SUBSEP S_hset[r0] SUBSEP b
    return (h in HEALTHY_AT) ? HEALTHY_AT[h] : 0
}

# nvls_words(): returns NVLink SHARP's state as meta.txt gives it: "NVLS off", "NVLS on" or
# "NVLS not recorded"
function nvls_words() {
    return META_NVLS == "0" ? "NVLS off" : META_NVLS ~ /^[1-9]/ ? "NVLS on" : \
           META_NVLS != "" ? "NVLS " META_NVLS : "NVLS not recorded"
}

# mode_point(m): returns the point type of nccl registration mode m in best_* (none a filled
# circle, registered an asterisk, symmetric a filled pentagon; another a plus)
function mode_point(m) {
    return m == "none" ? 7 : m == "registered" ? 3 : m == "symmetric" ? 15 : 1
}
