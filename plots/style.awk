# style.awk: the one style table of every picture (prep.awk's run pictures and history.awk's
# trends): a colour per algorithm, a point type per transport and a family per algorithm (the
# registry's), the same in every picture of every run and of every night.

# has_tp(t): t names a transport (not empty, "-" or "model")
function has_tp(t) { return t != "" && t != "-" && t != "model" }

# algo_color(a): returns the colour of algorithm a ("#rrggbb"): nccl black, every algorithm of
# `arbench --list` its own colour (the four of one family clearly apart, as they share a panel),
# an unknown one a spare colour in the order first asked
function algo_color(a) {
    if (a == "nccl") return "#000000"
    if (!("ring" in ACOL)) {
        # classic
        ACOL["ring"] = "#1f77b4"; ACOL["rhd"] = "#ff7f0e"; ACOL["rd"] = "#2ca02c"
        ACOL["direct"] = "#17becf"; ACOL["oneshot"] = "#8c564b"; ACOL["rhd-elim"] = "#98df8a"
        # Swing and the torus schedules
        ACOL["swing-bw"] = "#9467bd"; ACOL["swing-lat"] = "#e377c2"; ACOL["swing-mp"] = "#bcbd22"
        ACOL["bucket"] = "#7f7f7f"; ACOL["bucket-sync"] = "#393b79"; ACOL["rd-torus"] = "#637939"
        ACOL["rhd-torus"] = "#e7ba52"; ACOL["swing-lat-torus"] = "#ad494a"; ACOL["ring-ham"] = "#6baed6"
        # straggler-aware
        ACOL["stragglar"] = "#d62728"; ACOL["bcast"] = "#7b4173"; ACOL["async-ring"] = "#00a087"
        # OPTCC and its neighbours
        ACOL["optcc"] = "#c51b7d"; ACOL["optcc-multi"] = "#5254a3"; ACOL["optcc-ring"] = "#66a61e"
        ACOL["optcc-switch"] = "#e6550d"; ACOL["r2ccl"] = "#e7969c"; ACOL["ring-rails"] = "#a6761d"
        ACOL["optcc-servers"] = "#fdae6b"
        split("#3182bd #fd8d3c #31a354 #756bb1 #636363 #e7969c", SPARE, " ")
    }
    if (!(a in ACOL)) ACOL[a] = SPARE[(nspare++ % 6) + 1]
    return ACOL[a]
}

# families_read(path): FAMILY[algorithm] = its family, from `arbench --list --format families`
# (a line "NAME FAMILY" per algorithm of the registry; plot.sh writes it to path); "" reads
# nothing, and every family is then guessed by name
function families_read(path,    line, w) {
    if (path == "") return
    while ((getline line < path) > 0) if (split(line, w, " ") == 2) FAMILY[w[1]] = w[2]
    close(path)
}

# family_panel(w): the panel of registry family w: 0 reference (nccl: drawn in every panel), 1
# classic, 2 swing, 3 straggler-aware, 4 optcc; -1 for a family with no panel here
function family_panel(w) {
    return w == "reference" ? 0 : w == "classic" ? 1 : w == "swing" ? 2 : w == "straggler-aware" ? 3 : w == "optcc" ? 4 : -1
}

# family_known(a): algorithm a has a family the registry gave (families_read) with a panel
function family_known(a) { return (a in FAMILY) && family_panel(FAMILY[a]) >= 0 }

# algo_family(a): returns the family of algorithm a, the panel it is drawn in (family_panel's
# numbers): the registry's, else (a name the registry does not know, an old run's) guessed from
# its name as the registry's own are named: 2 Swing (swing-*, bucket*, *-torus, ring-ham), 3
# straggler-aware (stragglar, bcast, async-ring), 4 OPTCC (optcc*, r2ccl, ring-rails), else 1
# classic
function algo_family(a) {
    if (a == "nccl") return 0
    if (family_known(a)) return family_panel(FAMILY[a])
    if (a ~ /^swing-/ || a ~ /^bucket/ || a ~ /-torus$/ || a == "ring-ham") return 2
    if (a == "stragglar" || a == "bcast" || a == "async-ring") return 3
    if (a ~ /^optcc/ || a == "r2ccl" || a == "ring-rails") return 4
    return 1
}

# algo_point(a): returns the point type of algorithm a for rows that name no transport (a plain
# arbench model sweep), so that curves lying on one another stay told apart
function algo_point(a,    i, n, l) {
    n = split("ring rhd rd direct oneshot swing-bw swing-lat swing-mp bucket bucket-sync rd-torus rhd-torus swing-lat-torus ring-ham stragglar bcast async-ring optcc optcc-multi optcc-ring optcc-switch r2ccl ring-rails rhd-elim optcc-servers", l, " ")
    for (i = 1; i <= n && l[i] != a; i++) ;
    split("7 5 9 11 13 5 9 11 13 7 5 9 11 13 7 5 9 7 5 9 11 13 5 9 7", APT, " ")
    return i <= n ? APT[i] + 0 : 7
}

# transport_point(t, variant): returns the gnuplot point type of a transport (filled circle,
# square, triangle, downward triangle, diamond); even pipeline variants get the open shape
function transport_point(t, variant,    p) {
    p = t == "ce" ? 5 : t == "sm" ? 9 : t == "ll" ? 11 : \
        (t == "nccl-p2p" || t == "nccl" || !has_tp(t)) ? 7 : 13
    return variant > 0 && variant % 2 == 0 ? p - 1 : p
}
