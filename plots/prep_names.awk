# prep_names.awk: how prep.awk names things: a row's condition as a file-name part and in
# words (scenario, stragglers, degraded GPUs, placement: labels.awk has the words of the
# stragglers and degraded GPUs after the first), series labels and families (labels.awk's rule,
# with the dtype), the rows of one sweep, dates; and small helpers (sorting, notes on stderr).

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

# pl_title(r): returns "" for a row of one rank per GPU; for ranks sharing a GPU ", 4 ranks on 1
# GPU (co-located, not NVLink)" (", co-located (not NVLink)" where every row has that placement:
# the header names it); for one rank per GPU on several hosts (rehearsed or not) the placement
# itself where the run has several placements ("" where the header names it)
function pl_title(r) {
    if (S_pl[r] == "1 rank/GPU") return ""
    if (!pl_shared(S_pl[r])) return pl_count == 1 ? "" : ", " S_pl[r]
    return pl_count == 1 ? ", co-located (not NVLink)" : ", " pl_words(S_pl[r], S_n[r]) " (co-located, not NVLink)"
}

# is_probe(r): row r is one of the critical search's probes (its scenario is one critical.csv
# names, "" for a plain --find-critical run)
function is_probe(r) { return crit != "" && S_sr[r] >= 0 && (S_scen[r] in CRIT_SCEN) }

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

# file_part(s): returns s with every character but letters, digits, '.', '-' and '_' made '_'
function file_part(s) {
    gsub(/[^A-Za-z0-9._-]/, "_", s)
    return s
}

# series_label(r, pipe): returns row r's series in the pictures: labels.awk's row_label, plus the
# dtype where the CSV has several
function series_label(r, pipe) { return row_label(r, pipe) (dt_count > 1 ? " " S_dt[r] : "") }

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

# families_note(): says on stderr which algorithms of the rows were placed in a family by their
# name (style.awk's algo_family): not in the registry plot.sh asked, or no registry to ask
function families_note(    r, seen, list, from) {
    for (r = 1; r <= R; r++)
        if (S_alg[r] != "nccl" && !(S_alg[r] in seen) && !family_known(S_alg[r])) {
            seen[S_alg[r]] = 1; list = list (list == "" ? "" : ", ") S_alg[r]
        }
    if (list == "") return
    from = ENVIRON["AR_PLOT_FAMILIES_FROM"]
    if (from == "") note("no arbench to ask for the algorithms' families (meta.txt's command, build/arbench): " list " placed by name")
    else note(list ": not in " from " --list: placed in a family by name")
}
