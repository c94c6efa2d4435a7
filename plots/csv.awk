# csv.awk: helpers shared by every awk program of plots/ (and tools/'s readers of results.csv). Plain POSIX awk
# (mawk, busybox and gawk alike: the GPU machine may have any of them). mawk prints integers above
# 2^31 in %.6g and clamps %d, so byte counts are kept as the strings read and printed with %.0f.

# csv_split(line, f): fills f[1..n] with the fields of one CSV line (RFC 4180 quotes); returns n
function csv_split(line, f,    n, i, c, cur, inq, len) {
    sub(/\r$/, "", line)
    if (index(line, "\"") == 0) return split(line, f, ",")
    n = 0; cur = ""; inq = 0; len = length(line)
    for (i = 1; i <= len; i++) {
        c = substr(line, i, 1)
        if (inq) {
            if (c == "\"") {
                if (substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ } else inq = 0
            } else cur = cur c
        } else if (c == "\"") inq = 1
        else if (c == ",") { f[++n] = cur; cur = "" }
        else cur = cur c
    }
    f[++n] = cur
    return n
}

# csv_header(line, col): maps each header name (trimmed, lower case) to its position; returns
# the number of columns. Columns are always found by name, never by position.
function csv_header(line, col,    f, n, i) {
    n = csv_split(line, f)
    for (i = 1; i <= n; i++) col[tolower(trim(f[i]))] = i
    return n
}

# csv_missing(col, names, who): the first of the blank-separated column names that the header
# map col lacks, after one line "WHO: FILE has no column NAME" on stderr; "" when all are there.
function csv_missing(col, names, who,    req, i, n) {
    n = split(names, req, " ")
    for (i = 1; i <= n; i++)
        if (!(req[i] in col)) {
            print who ": " FILENAME " has no column " req[i] > "/dev/stderr"
            return req[i]
        }
    return ""
}

# trim(s): returns s without leading and trailing blanks
function trim(s) {
    sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s)
    return s
}

# is_num(s): returns 1 when s is a plain decimal number (no nan, inf or empty)
function is_num(s) {
    return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/
}

# get(f, col, name, dflt): returns the trimmed field called name, or dflt when the column is
# missing or the field is empty
function get(f, col, name, dflt,    v) {
    if (!(name in col)) return dflt
    v = trim(f[col[name]])
    return v == "" ? dflt : v
}

# num_str(x): returns x as a short string without an exponent (integers in full)
function num_str(x) {
    if (x == int(x) && x < 1e15 && x > -1e15) return sprintf("%.0f", x)
    return sprintf("%.4g", x)
}

# size_label(b, sep): returns bytes b in binary units ("1" sep "GiB"); sep is " " for text and ""
# for file names
function size_label(b, sep,    u, i) {
    split("B KiB MiB GiB TiB", u, " ")
    for (i = 1; i < 5 && b >= 1024; i++) b /= 1024
    return sprintf("%g", b) sep u[i]
}

# clean_text(s): returns s without quotes and backslashes so it can sit inside a gnuplot or
# markdown string
function clean_text(s) {
    gsub(/["'\\|`]/, "", s)
    return s
}

# pl_words(p, n): returns placement p (the placement column) of n ranks in words: "4 ranks on 1
# GPU", "8 ranks on 2 GPUs", or "5 ranks, 2-3 ranks/GPU" where the GPU count does not follow
function pl_words(p, n,    k) {
    k = p + 0
    if (p ~ /^[0-9]+ ranks?\/GPU$/ && k > 0 && is_num(n) && n % k == 0)
        return n " ranks on " n / k " GPU" (n / k > 1 ? "s" : "")
    return (is_num(n) ? n " ranks, " : "") p
}

# pl_shared(p): returns 1 when placement p has ranks sharing a GPU ("4 ranks/GPU", "2-3
# ranks/GPU", with or without hosts after it); "1 rank/GPU" and "1 rank/GPU on 2 hosts
# (rehearsed on one)" have not
function pl_shared(p,    hi) {
    if (!match(p, /^[0-9]+(-[0-9]+)? ranks?\/GPU/)) return 0
    hi = substr(p, 1, RLENGTH); sub(/ .*/, "", hi); sub(/^[0-9]+-/, "", hi)
    return hi + 0 > 1
}

# fname(s): s reduced to characters safe in a file name
function fname(s) { gsub(/[^A-Za-z0-9.+-]/, "-", s); return s }

# gq(s): s as a single-quoted gnuplot string
function gq(s) { gsub(/'/, "''", s); return "'" s "'" }
