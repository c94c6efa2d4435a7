# prep_best.awk: best_<scen>, the first picture of a scenario: at each size the best group (the
# fastest schedule that is not nccl, and every other whose median's interval reaches the
# fastest's: docs/statistics.md) against nccl at its strongest (prep_nccl.awk), and below, nccl's
# time over the best's with the interval both medians' intervals allow. Loaded after prep.awk,
# whose END calls best_pic; it reads prep.awk's row arrays and draws with prep_pic.awk and best.gp.

# best_pic(key, r0): draws best_<key> for scenario key (r0 one of its rows). Blocks, in order:
#   nccl (x time lo hi: its fastest mode at each size), then "nccl <mode>" per mode that is the
#   fastest somewhere (x time lo hi); "best schedule" (x time ratio rlo rhi); one block per
#   schedule that is the fastest somewhere (x time lo hi ratio rlo rhi group_size ratio_tie);
#   on a degraded scenario OPTCC's lower bound and the healthy best (x time). lo, hi, rlo, rhi
#   are NaN where a row has no interval; group_size 1 means the fastest stands alone. BT holds
#   the tallies its title and driver say (best_nccl, best_refs).
# Returns 1 when drawn
function best_pic(key, r0,    r, b, f, nb, i, m, bestr, sz, grp, ntie, v, nmode, nsch, nref, nn, extra) {
    pic_reset(); DEDUP = 0; nb = nmode = nsch = 0; delete BT; delete BT_mode; delete BT_sched
    for (r = 1; r <= R; r++) {
        if (!M[r] || S_key[r] != key || S_alg[r] == "nccl") continue
        if (!(S_b[r] in bestr)) sz[++nb] = S_b[r]
        if (!(S_b[r] in bestr) || S_med[r] < S_med[bestr[S_b[r]]]) bestr[S_b[r]] = r
    }
    if (!nb) { note(key ": only nccl rows: " PFX "best_" key " not drawn"); return 0 }
    ssort_num(sz, nb)
    for (i = 1; i <= nb; i++) {
        b = sz[i]; f = bestr[b]
        grp[b] = best_ties(key, f, b); ntie[b] = BT_n
        if (ntie[b] > 1) BT["ties"]++
        if (S_lo[f] != "") { BT["cis"]++; best_level(f) }
        split(best_nccl(f, b), v, " ")
        pic_add("best schedule", 1, "#999999", -1, 1, 5, b, sprintf("%.6g %s %s %s", S_med[f], v[1], v[2], v[3]))
        BT_sched[S_lab[f]] = 1
        pic_add(S_lab[f], 2, algo_color(S_alg[f]), row_point(f), 1, 2, b,
                sprintf("%s %s %s %s %d %d", pt_ci(f), v[1], v[2], v[3], ntie[b], v[4]))
        # a degraded scenario: what the schedules could reach (OPTCC's bound) and did when healthy
        if (S_dr[r0] >= 0) best_refs(f, b)
    }
    nref = ("OPTCC lower bound" in P_idx) + ("healthy best (no degraded GPU)" in P_idx)
    for (m in BT_mode) nmode++
    for (m in BT_sched) nsch++
    # (the version right after "nccl ", so that the line's block sorts before its modes)
    nn = BT["nn"] + 0
    if (nn) P_lab[P_idx["nccl"]] = "nccl " (BT["ver"] != "" ? BT["ver"] : "(version not recorded)") ", " nvls_words() ": fastest mode per size"
    extra = "W = 1280\nH = 800\nhas_nccl = " (nn ? 1 : 0) "\nn_ncl = " (nn ? 1 + nmode : 0) "\nline_b = " (nn ? nmode + 2 : 1) "\n" \
            "s_first = " (nn ? nmode + 3 : 2) "\ns_last = " (nn ? nmode + 2 : 1) + nsch "\nnref = " nref "\n" \
            "ties = " BT["ties"] + 0 "\nrties = " BT["tie"] + 0 "\ncis = " BT["cis"] + 0 "\nrcis = " BT["rci"] + 0 "\n" \
            "cilevel = " (("lvl" in BT) ? BT["lvl"] : 95) "\n" \
            "ylab = \"" time_label() (S_sr[r0] >= 0 ? "\\nfrom the first rank's entry, the delay included" : "") "\"\n" \
            "tie_text = \"" tie_text(sz, nb, ntie, grp) "\"\n"
    return pic_write(PFX "best_" key, "best", best_title(nmode) "  |  " scen_title(r0) suffix, extra)
}

# best_ties(key, f, b): returns the best group at size b of scenario key, whose fastest schedule
# is row f: f, then every schedule whose interval reaches f's, by median, joined by " ~ "; BT_n
# is how many it has
function best_ties(key, f, b,    r, j, t, nm, mem, g) {
    if (S_lo[f] != "")
        for (r = 1; r <= R; r++)
            if (M[r] && r != f && S_key[r] == key && S_alg[r] != "nccl" && S_b[r] == b && S_lo[r] != "" && S_lo[r] <= S_hi[f]) {
                mem[++nm] = r
                for (j = nm; j > 1 && S_med[mem[j]] < S_med[mem[j - 1]]; j--) { t = mem[j]; mem[j] = mem[j - 1]; mem[j - 1] = t }
            }
    g = S_lab[f]
    for (j = 1; j <= nm; j++) g = g " ~ " S_lab[mem[j]]
    BT_n = nm + 1
    return g
}

# best_level(r): BT["lvl"], the lowest coverage of the intervals drawn, takes row r's
function best_level(r) {
    if (S_lo[r] != "" && (!("lvl" in BT) || S_lvl[r] < BT["lvl"])) BT["lvl"] = S_lvl[r]
}

# best_nccl(f, b): adds nccl at its strongest at size b under the fastest schedule f's
# conditions (its fastest mode's block and that mode's) and tallies nccl's time over f's in BT;
# returns "ratio rlo rhi tie" (NaN where there is no nccl row, or no interval)
function best_nccl(f, b,    nc, rr, rlo, rhi, rtie) {
    nc = nccl_at(f, b)
    rr = rlo = rhi = "NaN"; rtie = 0
    if (!nc) return rr " " rlo " " rhi " " rtie
    BT_mode[S_reg[nc]] = 1; BT["nn"]++
    if (S_ver[nc] != "" && index(BT["ver"], S_ver[nc]) == 0) BT["ver"] = BT["ver"] (BT["ver"] == "" ? "" : "/") S_ver[nc]
    pic_add("nccl", 0, "#000000", 7, 1, 4, b, pt_ci(nc))
    pic_add("nccl, registration " S_reg[nc], 0, "#000000", mode_point(S_reg[nc]), 1, 1, b, pt_ci(nc))
    rr = S_med[nc] / S_med[f]
    best_level(nc)
    if (S_lo[nc] != "" && S_lo[f] != "") {
        rlo = ratio_ci_lo(S_lo[nc], S_hi[nc], S_lo[f], S_hi[f]); rhi = ratio_ci_hi(S_lo[nc], S_hi[nc], S_lo[f], S_hi[f])
        rtie = rlo <= 1 && 1 <= rhi; BT["rci"]++
    }
    BT["rat"]++; BT["tie"] += rtie; BT["fast"] += !rtie && rr > 1; BT["slow"] += !rtie && rr <= 1
    if (BT["rat"] == 1 || rr < BT["rmin"]) BT["rmin"] = rr
    if (BT["rat"] == 1 || rr > BT["rmax"]) BT["rmax"] = rr
    rr = sprintf("%.6g", rr)
    if (rlo != "NaN") { rlo = sprintf("%.6g", rlo); rhi = sprintf("%.6g", rhi) }
    return rr " " rlo " " rhi " " rtie
}

# best_refs(f, b): a degraded scenario's references at size b, OPTCC's lower bound and the
# healthy best, and the fastest schedule f against them (BT: lbr at size lbb, nh, hmin, hmax)
function best_refs(f, b,    h) {
    if ((S_n[f], b, S_f[f]) in LB) {
        pic_add("OPTCC lower bound", 3, "#555555", -1, 3, 3, b, sprintf("%.6g", LB[S_n[f], b, S_f[f]]))
        BT["lbr"] = S_med[f] / LB[S_n[f], b, S_f[f]]; BT["lbb"] = b
    }
    h = healthy_at(f, b)
    if (!h) return
    pic_add("healthy best (no degraded GPU)", 3, "#1a9850", -1, 2, 3, b, sprintf("%.6g", S_med[h]))
    if (!BT["nh"]++ || S_med[f] / S_med[h] < BT["hmin"]) BT["hmin"] = S_med[f] / S_med[h]
    if (BT["nh"] == 1 || S_med[f] / S_med[h] > BT["hmax"]) BT["hmax"] = S_med[f] / S_med[h]
}

# best_title(nmode): the title of best_<key>, the answer first, from best_pic's tallies (BT) and
# the nccl registration modes it met (nmode of them)
function best_title(nmode,    t) {
    if (BT["nn"]) {
        t = (BT["fast"] ? ", faster at " BT["fast"] : "") (BT["tie"] ? ", a tie at " BT["tie"] : "") (BT["slow"] ? ", slower at " BT["slow"] : "")
        t = "best schedule vs nccl" (nmode > 1 ? "''s fastest mode" : " (registration " mode_names(BT_mode) ")") ":" \
            substr(t, 2) " of " BT["rat"] " sizes (" sprintf("%.2f-%.2fx", BT["rmin"], BT["rmax"]) ")"
    } else if (BT["nh"] || ("lbr" in BT)) {
        # a degraded scenario (nccl cannot run degraded): against the healthy best and the bound
        t = "best schedule" (BT["nh"] ? sprintf(" %.2f-%.2fx the healthy best", BT["hmin"], BT["hmax"]) : "") \
            (("lbr" in BT) ? (BT["nh"] ? "," : "") sprintf(" %.2fx OPTCC''s bound at %s", BT["lbr"], size_label(BT["lbb"], " ")) : "") " (no nccl rows)"
    } else t = "best schedule per size (no nccl rows" (has_measured ? "" : ": the model does not price nccl") ")"
    return t (!BT["cis"] ? ", no intervals (rows without samples)" : BT["ties"] ? ", " BT["ties"] " sizes tied between schedules" : "")
}

# pt_ci(r): returns "time lo hi" of row r for a data block (NaN NaN without an interval)
function pt_ci(r) {
    return S_lo[r] == "" ? sprintf("%.6g NaN NaN", S_med[r]) : sprintf("%.6g %.6g %.6g", S_med[r], S_lo[r], S_hi[r])
}

# mode_names(modes): returns the registration modes (the keys of modes) joined by "/"
function mode_names(modes,    m, s) {
    for (m in modes) s = s (s == "" ? "" : "/") m
    return s
}

# tie_text(sz, nb, ntie, grp): returns the tied groups in words for the picture, one line per run
# of sizes with the same group ("16 KiB-64 KiB: ring/ll ~ ring-rails/ll"), long groups wrapped
# after a " ~ ", lines joined by "\n" (a gnuplot escape); "" when no size is tied
function tie_text(sz, nb, ntie, grp,    i, j, s, line, rest, cut, nl) {
    for (i = 1; i <= nb; i = j + 1) {
        j = i
        if (ntie[sz[i]] < 2) continue
        while (j < nb && grp[sz[j + 1]] == grp[sz[i]]) j++
        if (nl >= 16) { s = s "\\n(more tied sizes: summary.md lists each)"; break }
        line = size_label(sz[i], " ") (j > i ? "-" size_label(sz[j], " ") : "") ": "; rest = grp[sz[i]]
        while (length(line rest) > 46 && (cut = tie_cut(rest, 46 - length(line))) > 0) {
            s = s (s == "" ? "" : "\\n") line substr(rest, 1, cut - 1) " ~"; nl++
            rest = substr(rest, cut + 3); line = "    "
        }
        s = s (s == "" ? "" : "\\n") line rest; nl++
    }
    return s == "" ? "" : "tied (intervals overlap):\\n" s
}

# tie_cut(g, w): returns the position of the last " ~ " of group g that ends a line of at most w
# characters (the first one where none does), 0 when g has none
function tie_cut(g, w,    p, q) {
    p = 0
    while ((q = index(substr(g, p + 1), " ~ ")) > 0) {
        if (p && p + q > w) break
        p += q
        if (p > w) break
    }
    return p
}

# ssort_num(a, n): sorts a[1..n] as numbers
function ssort_num(a, n,    i, j, t) {
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j] + 0 < a[j - 1] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
}
