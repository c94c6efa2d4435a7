# style.awk: how an algorithm and a transport look in every picture (prep.awk's run pictures and
# history.awk's trends): the same colour and point shape in every picture of every run.

# has_tp(t): t names a transport (not empty, "-" or "model")
function has_tp(t) { return t != "" && t != "-" && t != "model" }

# algo_color(a): returns the colour of algorithm a, the same in every picture of every run
function algo_color(a) {
    if (a == "nccl") return "#000000"
    if (!("ring" in ACOL)) {
        ACOL["ring"] = "#1f77b4"; ACOL["rhd"] = "#ff7f0e"; ACOL["rd"] = "#2ca02c"
        ACOL["swing-bw"] = "#9467bd"; ACOL["swing-lat"] = "#c49c94"; ACOL["swing-mp"] = "#8c564b"
        ACOL["bucket"] = "#e377c2"; ACOL["direct"] = "#17becf"; ACOL["bcast"] = "#bcbd22"
        ACOL["stragglar"] = "#d62728"; ACOL["optcc"] = "#393b79"; ACOL["optcc-multi"] = "#637939"
        ACOL["async-ring"] = "#6baed6"; ACOL["oneshot"] = "#7f7f7f"; ACOL["optcc-ring"] = "#a55194"
        ACOL["optcc-switch"] = "#e7ba52"
        split("#7f7f7f #843c39 #5254a3 #8ca252 #bd9e39 #e7969c", SPARE, " ")
    }
    if (!(a in ACOL)) ACOL[a] = SPARE[(nspare++ % 6) + 1]
    return ACOL[a]
}

# algo_point(a): returns the point type of algorithm a for rows that name no transport (a plain
# arbench model sweep), so that curves lying on one another stay told apart
function algo_point(a,    i, n, l) {
    n = split("ring rhd rd swing-bw swing-lat swing-mp bucket direct oneshot bcast stragglar optcc optcc-multi optcc-ring optcc-switch async-ring", l, " ")
    for (i = 1; i <= n && l[i] != a; i++) ;
    split("7 5 9 11 13 15 6 4 8 10 12 14 5 9 7 13", APT, " ")
    return i <= n ? APT[i] + 0 : 7
}

# transport_point(t, variant): returns the gnuplot point type of a transport (filled circle,
# square, triangle, downward triangle, diamond); even pipeline variants get the open shape
function transport_point(t, variant,    p) {
    p = t == "ce" ? 5 : t == "sm" ? 9 : t == "ll" ? 11 : \
        (t == "nccl-p2p" || t == "nccl" || !has_tp(t)) ? 7 : 13
    return variant > 0 && variant % 2 == 0 ? p - 1 : p
}
