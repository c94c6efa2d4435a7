# nccl_tests_log.awk: reads nccl-tests' all_reduce_perf text output for
# tools/compare_nccl_tests.awk (loaded after plots/csv.awk): each test's mode (threads, GPUs per
# thread, -R, -G, from its header and the command line written before it), its ranks, GPU model,
# versions, dtype, and every result line's times as samples: with -N C (or several runs of one
# mode) a size's line repeats once per cycle, and each line is one sample of that mode and side
# (the mean of -n AllReduces, as arbench's host batch). Only a complete test counts (its closing
# "# Out of bounds values" or "# Avg bus bandwidth" line seen); tests of other collectives are
# left out. Plain POSIX awk.
#
# The caller passes every line of a log to nt_line(line) and calls nt_file_end() after each file.
# What it fills:
#   nt_nfiles, nt_fname[f], nt_ftests[f] (tests in the file), nt_fused[f] (complete
#     all_reduce tests used)
#   nt_ntests; per test t: nt_file[t], nt_cmd[t], nt_T[t], nt_G[t], nt_R[t] ("" unknown),
#     nt_graph[t], nt_env[t] (variables set on its command line but NCCL_NVLS_ENABLE),
#     nt_nvls[t] (NCCL_NVLS_ENABLE's value there, "" unset), nt_ranks[t], nt_model[t],
#     nt_ver[t], nt_nccl[t], nt_dtype[t], nt_coll[t], nt_nres[t] (result lines), nt_state[t]
#     ("used", "cut off", "no results", "other collective"; "none": no nccl-tests line)
#   nt_nmodes; per mode m: nt_mlabel[m], nt_mT[m], nt_mG[m], nt_mR[m], nt_mgraph[m],
#     nt_menv[m], nt_mtests[m]; nt_mode_of[label] = m
#   samples: nt_n[m, side, bytes], nt_x[m, side, bytes, i] (i = 1..n), nt_bad[m, side, bytes]
#     (lines with wrong elements), nt_unchecked[m] (lines whose #wrong was N/A); side is
#     "out-of-place" or "in-place"; nt_sizes[bytes] = 1

# nt_dtype_name(t): arbench's name of nccl-tests' type column (float32, bf16, fp16), else as is
function nt_dtype_name(t) {
    if (t == "float" || t == "float32") return "float32"
    if (t == "half" || t == "float16") return "fp16"
    if (t == "bfloat16") return "bf16"
    return t
}

# nt_begin(): a new test in the current file
function nt_begin() {
    if (nt_cur) nt_close()
    nt_cur = ++nt_ntests
    nt_file[nt_cur] = nt_nfiles; nt_seen[nt_cur] = 0
    nt_cmd[nt_cur] = ""; nt_T[nt_cur] = 1; nt_G[nt_cur] = 1; nt_R[nt_cur] = ""; nt_graph[nt_cur] = 0
    nt_env[nt_cur] = ""; nt_nvls[nt_cur] = ""; nt_ranks[nt_cur] = 0; nt_model[nt_cur] = ""
    nt_ver[nt_cur] = ""; nt_nccl[nt_cur] = ""; nt_dtype[nt_cur] = ""; nt_coll[nt_cur] = ""
    nt_nres[nt_cur] = 0; nt_state[nt_cur] = ""; nt_done = 0; nt_hashdr = 0
}

# nt_mark(): the current test has a line of nccl-tests (not just other text)
function nt_mark() { if (!nt_seen[nt_cur]) { nt_seen[nt_cur] = 1; nt_ftests[nt_nfiles]++ } }

# nt_opt(tok, k, short, long): the value of option short (-t) or long (--nthreads) at tokens
# k (and k + 1), or "" when tok[k] is neither; sets nt_skip to the tokens it used
function nt_opt(tok, k, s, l,    v) {
    nt_skip = 1
    if (tok[k] == s || tok[k] == l) { nt_skip = 2; return tok[k + 1] }
    if (index(tok[k], s) == 1 && length(tok[k]) > 2 && substr(tok[k], 1, 2) != "--") return substr(tok[k], 3)
    if (index(tok[k], l "=") == 1) return substr(tok[k], length(l) + 2)
    return ""
}

# nt_command(line): a comment naming the command a test ran (`# command: NCCL_NVLS_ENABLE=0
# all_reduce_perf -t 2 -g 1 -R 2`, `######## call 3: all_reduce_perf ...`, `# all_reduce_perf
# -g 4`): its variables, collective and flags
function nt_command(line,    tok, n, k, b, v) {
    n = split(line, tok, " ")
    for (b = 1; b <= n; b++) if (tok[b] ~ /^[^ ]*[a-z_]+_perf[a-z_]*$/ && tok[b] !~ /^#/) break
    if (b > n) return 0
    if (nt_cmd[nt_cur] != "" || nt_nres[nt_cur] > 0 || nt_done) nt_begin()
    nt_mark()
    for (k = 1; k < b; k++)
        if (tok[k] ~ /^[A-Za-z_][A-Za-z0-9_]*=/) {
            if (tok[k] ~ /^NCCL_NVLS_ENABLE=/) nt_nvls[nt_cur] = substr(tok[k], 18)
            else nt_env[nt_cur] = nt_env[nt_cur] (nt_env[nt_cur] == "" ? "" : " ") tok[k]
        }
    v = tok[b]; sub(/^.*\//, "", v); nt_coll[nt_cur] = v
    nt_cmd[nt_cur] = line; sub(/^#+ *(command: *|call [0-9]+: *)?/, "", nt_cmd[nt_cur])
    for (k = b + 1; k <= n; k += nt_skip) {
        if ((v = nt_opt(tok, k, "-t", "--nthreads")) != "") nt_T[nt_cur] = v + 0
        else if ((v = nt_opt(tok, k, "-g", "--ngpus")) != "") nt_G[nt_cur] = v + 0
        else if ((v = nt_opt(tok, k, "-R", "--local_register")) != "") nt_R[nt_cur] = v + 0
        else if ((v = nt_opt(tok, k, "-G", "--cudagraph")) != "") nt_graph[nt_cur] = v + 0
    }
    if (nt_R[nt_cur] == "") nt_R[nt_cur] = 0 # the command is known: -R left out is -R 0
    return 1
}

# nt_result(f, n): one result line's two sides as samples of the current test (kept aside
# until the test is known complete)
function nt_result(f, n,    o, i, side, t, w) {
    if (nt_done) nt_begin() # results after a closing line without a new header: a new test
    o = n == 13 ? 6 : 5 # 13 columns since nccl-tests 2.13 (root), 12 before
    nt_mark(); nt_dtype[nt_cur] = nt_dtype_name(f[3])
    for (i = 0; i < 2; i++) {
        side = i ? "in-place" : "out-of-place"
        t = f[o + 4 * i]; w = f[o + 3 + 4 * i]
        if (!is_num(t) || t + 0 <= 0) continue
        nt_pend++
        nt_pb[nt_pend] = f[1]; nt_ps[nt_pend] = side; nt_pt[nt_pend] = t + 0; nt_pw[nt_pend] = w
    }
    nt_nres[nt_cur]++
}

# nt_close(): the current test is over (a closing line, a new test or the file's end): a
# complete all_reduce test's samples join its mode's
function nt_close(    label, m, i, k) {
    if (!nt_cur || nt_state[nt_cur] != "") { nt_pend = 0; return }
    if (!nt_seen[nt_cur]) { nt_state[nt_cur] = "none"; nt_pend = 0; return }
    if (nt_coll[nt_cur] != "" && nt_coll[nt_cur] !~ /^all_reduce_perf/) nt_state[nt_cur] = "other collective"
    else if (!nt_nres[nt_cur]) nt_state[nt_cur] = "no results"
    else if (!nt_done) nt_state[nt_cur] = "cut off"
    else nt_state[nt_cur] = "used"
    if (nt_state[nt_cur] == "used") {
        if (!nt_ranks[nt_cur]) nt_ranks[nt_cur] = nt_T[nt_cur] * nt_G[nt_cur]
        label = (nt_env[nt_cur] == "" ? "" : nt_env[nt_cur] " ") "-t " nt_T[nt_cur] " -g " nt_G[nt_cur] \
            " -R " (nt_R[nt_cur] == "" ? "?" : nt_R[nt_cur]) (nt_graph[nt_cur] ? " -G " nt_graph[nt_cur] : "")
        if (!(label in nt_mode_of)) {
            m = nt_mode_of[label] = ++nt_nmodes
            nt_mlabel[m] = label; nt_mT[m] = nt_T[nt_cur]; nt_mG[m] = nt_G[nt_cur]; nt_mR[m] = nt_R[nt_cur]
            nt_mgraph[m] = nt_graph[nt_cur]; nt_menv[m] = nt_env[nt_cur]
        }
        m = nt_mode_of[label]; nt_mtests[m]++; nt_fused[nt_file[nt_cur]]++
        for (i = 1; i <= nt_pend; i++) {
            k = m SUBSEP nt_ps[i] SUBSEP nt_pb[i]
            nt_x[k, ++nt_n[k]] = nt_pt[i]; nt_sizes[nt_pb[i]] = 1
            if (nt_pw[i] == "N/A") nt_unchecked[m]++
            else if (!is_num(nt_pw[i]) || nt_pw[i] + 0 != 0) nt_bad[k]++
        }
    }
    nt_pend = 0
}

# nt_line(line): one line of the current log
function nt_line(line,    f, n, v) {
    sub(/\r$/, "", line)
    if (!nt_cur) nt_begin()
    if (line ~ /^#/) {
        if (line ~ /Collective test concluded/) { nt_done = 1; return }
        if (line ~ /^# *(Out of bounds values|Avg bus bandwidth)/) { nt_done = 1; return }
        if (line ~ /^# *nccl-tests version / || line ~ /^# *Collective test starting: / || line ~ /^# *nThread /) {
            if (nt_nres[nt_cur] > 0 || nt_done || (line ~ /nThread/ && nt_hashdr)) nt_begin()
            nt_mark()
        }
        if (match(line, /nccl-tests version [^ ]+/)) nt_ver[nt_cur] = substr(line, RSTART + 19, RLENGTH - 19)
        if (match(line, /nccl-library=[0-9]+/)) {
            v = substr(line, RSTART + 13, RLENGTH - 13) + 0 # NCCL's code: 22803 is 2.28.3
            nt_nccl[nt_cur] = int(v / 10000) "." int(v % 10000 / 100) "." (v % 100)
        }
        if (match(line, /Collective test starting: [a-z_]+/)) nt_coll[nt_cur] = substr(line, RSTART + 26, RLENGTH - 26)
        if (line ~ /^# *nThread /) {
            n = split(line, f, " ")
            nt_hashdr = 1; nt_T[nt_cur] = f[3] + 0; nt_G[nt_cur] = f[5] + 0
            if (match(line, /graph: [0-9]+/)) nt_graph[nt_cur] = substr(line, RSTART + 7, RLENGTH - 7) + 0
            return
        }
        if (line ~ /^# +Rank +[0-9]+ +Group/) {
            nt_ranks[nt_cur]++
            if (match(line, /\] .*$/)) { v = substr(line, RSTART + 2); sub(/ +$/, "", v); nt_model[nt_cur] = v }
            return
        }
        if (line !~ /Collective test/) nt_command(line)
        return
    }
    n = split(line, f, " ")
    if ((n == 13 || n == 12) && f[1] ~ /^[0-9]+$/ && f[2] ~ /^[0-9]+$/ && f[3] ~ /^[a-z][a-z0-9_]*$/ && f[4] ~ /^[a-z]+$/)
        nt_result(f, n)
}

# nt_file_begin(name): a new log file
function nt_file_begin(name) {
    nt_file_end()
    nt_nfiles++; nt_fname[nt_nfiles] = name; nt_ftests[nt_nfiles] = 0; nt_fused[nt_nfiles] = 0
    nt_cur = 0; nt_done = 0; nt_pend = 0
}

# nt_file_end(): the current log is over
function nt_file_end() { if (nt_cur) nt_close(); nt_cur = 0 }

# nt_stats(k, st): the median of the samples of key k (mode SUBSEP side SUBSEP bytes) and its
# 95% interval (plots/stats.awk's order statistics) into st["med"], st["lo"], st["hi"] and
# st["n"]; returns n
function nt_stats(k, st,    n, i, j, x, s, l) {
    n = nt_n[k] + 0; st["n"] = n
    if (n < 1) return 0
    if (k in nt_smed) { st["med"] = nt_smed[k]; st["lo"] = nt_slo[k]; st["hi"] = nt_shi[k]; return n }
    for (i = 1; i <= n; i++) s[i] = nt_x[k, i]
    for (i = 2; i <= n; i++) for (j = i; j > 1 && s[j] < s[j - 1]; j--) { x = s[j]; s[j] = s[j - 1]; s[j - 1] = x }
    st["med"] = n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
    l = median_ci_rank(n)
    st["lo"] = s[l]; st["hi"] = s[n + 1 - l]
    nt_smed[k] = st["med"]; nt_slo[k] = st["lo"]; nt_shi[k] = st["hi"] # read only after every log
    return n
}
