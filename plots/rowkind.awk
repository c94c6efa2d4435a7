# rowkind.awk: what history keeps apart within one machine's nights, read from one results.csv
# row (nightinfo.awk and history.awk load it after csv.awk): rows of another dtype or timing
# method are nights of another trend, rows with another nccl.registration another series.

# row_setting(f, col, name, dflt): returns the value of setting `name` in the row's settings
# column ("name=value;name=value"), or dflt when the row does not set it
function row_setting(f, col, name, dflt,    s, n, i, kv) {
    n = split(get(f, col, "settings", ""), s, ";")
    for (i = 1; i <= n; i++) {
        split(s[i], kv, "=")
        if (trim(kv[1]) == name) return trim(substr(s[i], index(s[i], "=") + 1))
    }
    return dflt
}

# night_kind(f, col, src): returns "DTYPE|TIMING" of a row (float32|events for rows from before
# these columns); imported rows (src nccl-tests) have nccl-tests' own timing: "DTYPE|nccl-tests"
function night_kind(f, col, src) {
    return clean_text(tolower(get(f, col, "dtype", "float32"))) "|" \
           (src == "nccl-tests" ? "nccl-tests" : clean_text(row_setting(f, col, "timing.mode", "events")))
}
