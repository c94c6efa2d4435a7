# ranges.awk: the "## Clean" table of summary.md as size ranges. At each size the winners are
# the best group (the fastest schedule and those tied with it, "a ~ b"), joined by "nccl MODE"
# where vs nccl is a tie, or nccl alone where nccl was faster (beyond the ratio's interval, or
# with no interval vs nccl < 1). Consecutive sizes (within one placement, scenario and GPU
# count) join one range while some winner is a winner at every one of them: the range names
# exactly those (in the order of its first size), so that "1 KiB to 8 GiB: ring/ll ~ ring/ce"
# says each of them is the fastest or tied with it at every size from 1 KiB to 8 GiB. Where a
# ratio rests on fewer than 6 samples ("few samples"), nccl neither wins nor ties there and the
# ratio is left out of the range's, which says so. Writes a markdown table; nothing when the
# input has no table.
#   awk -f csv.awk -f ranges.awk CLEAN_SECTION.md

# add(list, x): returns the ", "-separated list with x after it, unless it has x already
function add(list, x,    e, n, i) {
    n = split(list, e, ", ")
    for (i = 1; i <= n; i++) if (e[i] == x) return list
    return list (list == "" ? "" : ", ") x
}

# flush(): prints the range gathered so far
function flush(    sz, vs, i, names) {
    if (!have) return
    sz = lo == hi ? lo : lo " to " hi
    for (i = 1; i <= nwin; i++) names = names (i > 1 ? " ~ " : "") win[i]
    vs = !nvs ? "-" : vmin == vmax ? sprintf("%.2fx", vmin) : sprintf("%.2fx to %.2fx", vmin, vmax)
    if (nvs && ntie == nvs) vs = "tie " vs
    else if (ntie) vs = vs " (tie at " ntie " size" (ntie > 1 ? "s" : "") ")"
    if (nfew) vs = vs " (" nfew " size" (nfew > 1 ? "s" : "") " on few samples left out)"
    printf "| %s%s | %s | %s | %s | %s |\n", grp == "" ? "" : grp " | ", sz, names, vs, modes == "" ? "-" : modes, fastest == "" ? "-" : fastest
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
            else if (c[i] == "nccl mode") cm = i
            else if (c[i] == "placement" || c[i] == "scenario" || c[i] == "n") { ng++; gc[ng] = i; gname[ng] = c[i] }
        }
        if (!cs || !cb) exit
        printf "|"; for (k = 1; k <= ng; k++) printf " %s |", gname[k]
        printf " sizes | best at every size | best schedule vs nccl | nccl mode | fastest schedule |\n|"
        for (k = 1; k <= ng; k++) printf "---|"
        printf "---|---|---:|---|---|\n"
        next
    }
    if (c[1] ~ /^[-:]+$/) next
    g = ""; for (k = 1; k <= ng; k++) g = g (k > 1 ? " | " : "") c[gc[k]]
    # this size's winners: the best group, with or instead of nccl
    nw = split(c[cb], w, " ~ ")
    vcell = cv ? c[cv] : ""; mode = cm ? c[cm] : ""
    isfew = vcell ~ /few samples/
    tie = vcell ~ /^tie /
    v = vcell; sub(/^tie /, "", v); sub(/x.*$/, "", v)
    isv = v ~ /^[0-9.]+$/ && !isfew
    if (isv && tie) w[++nw] = "nccl " mode
    else if (isv && v + 0 < 1) { nw = 1; w[1] = "nccl " mode }
    # the winners this range keeps: those that win here too
    if (have && g == grp) {
        nk = 0
        for (i = 1; i <= nwin; i++) for (j = 1; j <= nw; j++) if (win[i] == w[j]) { keep[++nk] = win[i]; break }
    }
    if (!have || g != grp || nk == 0) {
        flush()
        have = 1; grp = g; lo = c[cs]; nvs = ntie = nfew = 0; modes = fastest = ""
        nwin = nw; for (i = 1; i <= nw; i++) win[i] = w[i]
    } else { nwin = nk; for (i = 1; i <= nk; i++) win[i] = keep[i] }
    hi = c[cs]
    if (isv) {
        if (!nvs || v + 0 < vmin) vmin = v + 0
        if (!nvs || v + 0 > vmax) vmax = v + 0
        nvs++; if (tie) ntie++
    }
    if (isfew) nfew++
    if (mode != "" && mode != "-" && vcell != "-") modes = add(modes, mode)
    split(c[cb], w, " ~ ")
    if (w[1] != "-") fastest = add(fastest, w[1])
}

END { flush() }
