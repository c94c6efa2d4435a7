# ranges.awk: the "## Clean" table of summary.md as size ranges: consecutive sizes (within one
# placement, scenario and GPU count) whose winner is the same are one line, with the range of
# the best schedule's speed-up over nccl. The winner is the best schedule, or nccl where nccl
# was faster (vs nccl < 1). Writes a markdown table; nothing when the input has no table.
#   awk -f ranges.awk CLEAN_SECTION.md

function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

# flush(): prints the range gathered so far
function flush(    sz, vs) {
    if (!have) return
    sz = lo == hi ? lo : lo " to " hi
    vs = !nvs ? "-" : vmin == vmax ? sprintf("%.2fx", vmin) : sprintf("%.2fx to %.2fx", vmin, vmax)
    printf "| %s%s | %s | %s | %s |\n", grp == "" ? "" : grp " | ", sz, win, vs, bests
    have = 0
}

/^\|/ {
    line = $0; sub(/^\|/, "", line); sub(/\|[ \t]*$/, "", line)
    n = split(line, c, "|")
    for (i = 1; i <= n; i++) c[i] = trim(c[i])
    if (!hdr) {
        hdr = 1
        for (i = 1; i <= n; i++) {
            if (c[i] == "size") cs = i; else if (c[i] == "best") cb = i; else if (c[i] == "vs nccl") cv = i
            else if (c[i] == "placement" || c[i] == "scenario" || c[i] == "n") { ng++; gc[ng] = i; gname[ng] = c[i] }
        }
        if (!cs || !cb) exit
        printf "|"; for (k = 1; k <= ng; k++) printf " %s |", gname[k]
        printf " sizes | fastest | best schedule vs nccl | best schedule |\n|"
        for (k = 1; k <= ng; k++) printf "---|"
        printf "---|---|---:|---|\n"
        next
    }
    if (c[1] ~ /^[-:]+$/) next
    g = ""; for (k = 1; k <= ng; k++) g = g (k > 1 ? " | " : "") c[gc[k]]
    v = cv ? c[cv] : ""; sub(/x$/, "", v)
    isv = v ~ /^[0-9.]+$/
    w = (isv && v + 0 < 1) ? "nccl" : c[cb]
    if (!have || g != grp || w != win) {
        flush()
        have = 1; grp = g; win = w; lo = c[cs]; nvs = 0; bests = ""; delete seen
    }
    hi = c[cs]
    if (isv) { if (!nvs || v + 0 < vmin) vmin = v + 0; if (!nvs || v + 0 > vmax) vmax = v + 0; nvs++ }
    if (c[cb] != "-" && !(c[cb] in seen)) { seen[c[cb]] = 1; bests = bests (bests == "" ? "" : ", ") c[cb] }
}

END { flush() }
