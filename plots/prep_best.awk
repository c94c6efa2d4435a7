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
#   are NaN where a row has no interval; group_size 1 means the fastest stands alone.
# Returns 1 when drawn
function best_pic(key, r0,    r, b, f, nc, nb, i, j, t, bestr, sz, ncr, grp, ntie, mem, nm, modes, nmode,
                               rr, rlo, rhi, rtie, nn, nsch, nref, sched, n_fast, n_tie, n_slow, n_rat, rmin, rmax,
                               ncis, n_rci, ties, extra, title, ver, h, nh, hmin, hmax, lbr, lbb, lvl) {
    pic_reset(); DEDUP = 0; nb = nn = nmode = nsch = nref = 0
    for (r = 1; r <= R; r++) {
        if (!M[r] || S_key[r] != key || S_alg[r] == "nccl") continue
        if (!(S_b[r] in bestr)) sz[++nb] = S_b[r]
        if (!(S_b[r] in bestr) || S_med[r] < S_med[bestr[S_b[r]]]) bestr[S_b[r]] = r
    }
    if (!nb) { note(key ": only nccl rows: " PFX "best_" key " not drawn"); return 0 }
    ssort_num(sz, nb)
    for (i = 1; i <= nb; i++) {
        b = sz[i]; f = bestr[b]
        # the best group: the fastest, then every schedule whose interval reaches the fastest's
        nm = 0; delete mem
        if (S_lo[f] != "")
            for (r = 1; r <= R; r++)
                if (M[r] && r != f && S_key[r] == key && S_alg[r] != "nccl" && S_b[r] == b && S_lo[r] != "" && S_lo[r] <= S_hi[f]) {
                    mem[++nm] = r
                    for (j = nm; j > 1 && S_med[mem[j]] < S_med[mem[j - 1]]; j--) { t = mem[j]; mem[j] = mem[j - 1]; mem[j - 1] = t }
                }
        grp[b] = S_lab[f]; ntie[b] = nm + 1
        for (j = 1; j <= nm; j++) grp[b] = grp[b] " ~ " S_lab[mem[j]]
        if (nm) ties++
        if (S_lo[f] != "") ncis++
        if (S_lo[f] != "" && (lvl == "" || S_lvl[f] < lvl)) lvl = S_lvl[f]
        # nccl at its strongest under the fastest's conditions
        nc = ncr[b] = nccl_at(f, b)
        rr = rlo = rhi = "NaN"; rtie = 0
        if (nc) {
            if (!(S_reg[nc] in modes)) { modes[S_reg[nc]] = 1; nmode++ }
            nn++; if (S_ver[nc] != "" && index(ver, S_ver[nc]) == 0) ver = ver (ver == "" ? "" : "/") S_ver[nc]
            pic_add("nccl", 0, "#000000", 7, 1, 4, b, pt_ci(nc))
            pic_add("nccl, registration " S_reg[nc], 0, "#000000", mode_point(S_reg[nc]), 1, 1, b, pt_ci(nc))
            rr = S_med[nc] / S_med[f]
            if (S_lo[nc] != "" && (lvl == "" || S_lvl[nc] < lvl)) lvl = S_lvl[nc]
            if (S_lo[nc] != "" && S_lo[f] != "") {
                rlo = ratio_ci_lo(S_lo[nc], S_hi[nc], S_lo[f], S_hi[f]); rhi = ratio_ci_hi(S_lo[nc], S_hi[nc], S_lo[f], S_hi[f])
                rtie = rlo <= 1 && 1 <= rhi; n_rci++
            }
            n_rat++; n_tie += rtie; n_fast += !rtie && rr > 1; n_slow += !rtie && rr <= 1
            if (n_rat == 1 || rr < rmin) rmin = rr
            if (n_rat == 1 || rr > rmax) rmax = rr
            rr = sprintf("%.6g", rr)
            if (rlo != "NaN") { rlo = sprintf("%.6g", rlo); rhi = sprintf("%.6g", rhi) }
        }
        pic_add("best schedule", 1, "#999999", -1, 1, 5, b, sprintf("%.6g %s %s %s", S_med[f], rr, rlo, rhi))
        if (!(S_lab[f] in sched)) { sched[S_lab[f]] = 1; nsch++ }
        pic_add(S_lab[f], 2, algo_color(S_alg[f]), row_point(f), 1, 2, b,
                sprintf("%s %s %s %s %d %d", pt_ci(f), rr, rlo, rhi, ntie[b], rtie))
        # a degraded scenario: what the schedules could reach (OPTCC's bound) and did when healthy
        if (S_dr[r0] >= 0) {
            if ((S_n[f], b, S_f[f]) in LB) {
                pic_add("OPTCC lower bound", 3, "#555555", -1, 3, 3, b, sprintf("%.6g", LB[S_n[f], b, S_f[f]]))
                lbr = S_med[f] / LB[S_n[f], b, S_f[f]]; lbb = b
            }
            h = healthy_at(f, b)
            if (h) {
                pic_add("healthy best (no degraded GPU)", 3, "#1a9850", -1, 2, 3, b, sprintf("%.6g", S_med[h]))
                if (!nh++ || S_med[f] / S_med[h] < hmin) hmin = S_med[f] / S_med[h]
                if (nh == 1 || S_med[f] / S_med[h] > hmax) hmax = S_med[f] / S_med[h]
            }
        }
    }
    nref = ("OPTCC lower bound" in P_idx) + ("healthy best (no degraded GPU)" in P_idx)
    # (the version right after "nccl ", so that the line's block sorts before its modes)
    if (nn) P_lab[P_idx["nccl"]] = "nccl " (ver != "" ? ver : "(version not recorded)") ", " nvls_words() ": fastest mode per size"
    extra = "W = 1280\nH = 800\nhas_nccl = " (nn ? 1 : 0) "\nn_ncl = " (nn ? 1 + nmode : 0) "\nline_b = " (nn ? nmode + 2 : 1) "\n" \
            "s_first = " (nn ? nmode + 3 : 2) "\ns_last = " (nn ? nmode + 2 : 1) + nsch "\nnref = " nref "\n" \
            "ties = " ties + 0 "\nrties = " n_tie + 0 "\ncis = " ncis + 0 "\nrcis = " n_rci + 0 "\ncilevel = " (lvl == "" ? 95 : lvl) "\n" \
            "ylab = \"" time_label() (S_sr[r0] >= 0 ? "\\nfrom the first rank's entry, the delay included" : "") "\"\n" \
            "tie_text = \"" tie_text(sz, nb, ntie, grp) "\"\n"
    # the title: the answer first
    if (nn) {
        title = (n_fast ? ", faster at " n_fast : "") (n_tie ? ", a tie at " n_tie : "") (n_slow ? ", slower at " n_slow : "")
        title = "best schedule vs nccl" (nmode > 1 ? "''s fastest mode" : " (registration " mode_names(modes) ")") ":" \
                substr(title, 2) " of " n_rat " sizes (" sprintf("%.2f-%.2fx", rmin, rmax) ")"
    } else if (nh || lbr != "") {
        # a degraded scenario (nccl cannot run degraded): against the healthy best and the bound
        title = "best schedule" (nh ? sprintf(" %.2f-%.2fx the healthy best", hmin, hmax) : "") \
                (lbr != "" ? (nh ? "," : "") sprintf(" %.2fx OPTCC''s bound at %s", lbr, size_label(lbb, " ")) : "") " (no nccl rows)"
    } else title = "best schedule per size (no nccl rows" (has_measured ? "" : ": the model does not price nccl") ")"
    title = title (!ncis ? ", no intervals (rows without samples)" : ties ? ", " ties " sizes tied between schedules" : "")
    return pic_write(PFX "best_" key, "best", title "  |  " scen_title(r0) suffix, extra)
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
