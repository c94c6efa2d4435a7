# prep_scen.awk: prep.awk's pictures of one scenario against size (best_<scen> is
# prep_best.awk's): the family panels (algbw_, time_, arrival_<scen>[_<tp>]) and
# model_vs_measured_<scen>[_<tp>]. Loaded after prep.awk, whose END calls scen_pics and
# model_pics per scenario; they read its row arrays (S_*, M, MODEL) and draw with prep_pic.awk.

# scen_pics(key, r0): the pictures of scenario key (r0 one of its rows) against size: best_<key>
# first, then the families (algbw, and time or, for a straggler scenario, arrival): every
# series, or where that is more than SPLIT_MAX series over 2+ transports each algorithm on its
# best transport and algbw once more per transport. Returns how many were drawn
function scen_pics(key, r0,    r, in_ser, tp_seen, tpl, nser, ntp, split_tp, t, n) {
    for (r = 1; r <= R; r++) {
        if (!M[r] || S_key[r] != key) continue
        if (!(S_lab[r] in in_ser)) { in_ser[S_lab[r]] = 1; nser++ }
        if (S_alg[r] != "nccl" && has_tp(S_tp[r]) && !(S_tp[r] in tp_seen)) { tp_seen[S_tp[r]] = 1; tpl[++ntp] = S_tp[r] }
    }
    ssort(tpl, ntp)
    n = best_pic(key, r0)
    split_tp = !(nser <= SPLIT_MAX || ntp < 2)
    n += family_pic(key, r0, "", split_tp, "algbw")
    n += family_pic(key, r0, "", split_tp, S_sr[r0] >= 0 ? "arrival" : "time")
    if (split_tp) for (t = 1; t <= ntp; t++) n += family_pic(key, r0, tpl[t], 0, "algbw")
    return n
}

# model_pics(key, r0): model_vs_measured_<key> for scenario key (r0 one of its rows): the
# measured series the model prices (per algorithm/transport where its rows name the transport,
# else per algorithm; wantS and wantA, which model_wants reads), one picture per transport where
# that is more than SPLIT_MAX series over 2+ transports. Returns how many were drawn
function model_pics(key, r0,    r, m, p, in_ser, tp_seen, tpl, nser, ntp, t, n) {
    delete wantA; delete wantS
    for (r = 1; r <= R; r++) {
        if (!M[r] || S_key[r] != key) continue
        if ((S_ckey[r], S_n[r], S_alg[r], "", S_b[r]) in MODEL) wantA[S_alg[r]] = 1
        if (has_tp(S_tp[r]) && ((S_ckey[r], S_n[r], S_alg[r], S_tp[r], S_b[r]) in MODEL)) wantS[S_alg[r], S_tp[r]] = 1
    }
    for (r = 1; r <= R; r++) {
        if (!M[r] || S_key[r] != key || !model_wants(r)) continue
        if (!(S_lab[r] in in_ser)) { in_ser[S_lab[r]] = 1; nser++ }
        if (S_alg[r] != "nccl" && has_tp(S_tp[r]) && !(S_tp[r] in tp_seen)) { tp_seen[S_tp[r]] = 1; tpl[++ntp] = S_tp[r] }
    }
    for (m in MODEL) {
        split(m, p, SUBSEP)
        if (p[1] == S_ckey[r0] && p[2] == S_n[r0] && (p[4] == "" ? (p[3] in wantA) : ((p[3], p[4]) in wantS)) &&
            !((p[3], p[4]) in in_ser)) { in_ser[p[3], p[4]] = 1; nser++ }
    }
    ssort(tpl, ntp)
    if (nser <= SPLIT_MAX || ntp < 2) return model_pic(key, r0, "")
    for (t = 1; t <= ntp; t++) n += model_pic(key, r0, tpl[t])
    return n
}

# time_label(): the time axis's label: a median of measured iterations, or (a run of model rows
# only) the model's price, which no iteration measured
function time_label() { return "time per AllReduce, " (has_measured ? "median" : "modelled") " (us)" }

# family_pic(key, r0, tp, bestof, what): draws scenario key's series (r0 one of its rows) in four
# panels with shared axes, one per family (style.awk's algo_family), nccl in each: every series,
# or those on transport tp (and nccl), or (bestof) each algorithm's fastest row over its
# transports at each size, the point shape saying which transport that was. what is the y
# column: algbw (algbw_gbps; busbw on the right axis), time (time_us_median) or arrival
# (time_after_arrival_us). A straggler scenario's algbw is bytes / time_after_arrival_us: the
# rate of the AllReduce itself, which the delay in time_us_median would flatten to zero. On a
# degraded scenario OPTCC's lower bound and the healthy best are drawn in every panel. Blocks
# "x y pt". Returns 1 when drawn
function family_pic(key, r0, tp, bestof, what,    r, k, bestr, tpu, tn, ntn, tnames, tpts, i, y, ny, nta, extra, name, t) {
    pic_reset(); DEDUP = 1; ny = nta = 0
    if (bestof)
        for (r = 1; r <= R; r++) {
            if (!M[r] || S_key[r] != key || S_alg[r] == "nccl") continue
            k = best_label(r) SUBSEP S_b[r]
            if (!(k in bestr) || S_med[r] < S_med[bestr[k]]) bestr[k] = r
        }
    for (r = 1; r <= R; r++) {
        if (!M[r] || S_key[r] != key) continue
        if (tp != "" && S_alg[r] != "nccl" && S_tp[r] != tp && has_tp(S_tp[r])) continue
        if (bestof && S_alg[r] != "nccl" && bestr[best_label(r), S_b[r]] != r) continue
        if (what == "algbw" && S_sr[r0] >= 0) y = S_ta[r] == "NaN" ? "NaN" : sprintf("%.6g", S_b[r] / (S_ta[r] * 1e3))
        else y = what == "algbw" ? sprintf("%.6g", S_bw[r]) : what == "time" ? sprintf("%.6g", S_med[r]) : \
                 (S_ta[r] == "NaN" ? "NaN" : sprintf("%.6g", S_ta[r]))
        if (y != "NaN") ny++; else nta++
        if (bestof && S_alg[r] != "nccl") {
            pic_add(best_label(r), 1, algo_color(S_alg[r]), transport_point(S_tp[r], 1), 1, 2, S_b[r],
                    y " " transport_point(S_tp[r], 1))
            if (!(S_tp[r] in tpu)) { tpu[S_tp[r]] = 1; tn[++ntn] = S_tp[r] }
        } else add_row(r, S_b[r], y " " row_point(r))
    }
    name = PFX what "_" key (tp != "" ? "_" tp : "")
    if (!ny) {
        if (what != "time") note(key ": no time_after_arrival_us in its rows: " name " not drawn")
        return 0
    }
    if (nta && what != "time") note(name ": " nta " rows without time_after_arrival_us not drawn")
    if (S_dr[r0] >= 0 && what != "arrival") ref_lines(key, r0, what)
    extra = "W = 1600\nH = 1000\nycol = 2\nptcol = 3\nylog = " (what == "algbw" ? 0 : 1) "\n"
    if (what == "algbw" && S_sr[r0] >= 0) {
        extra = extra "ylab = 'algbw after arrival (GB/s, 1 GB = 1e9 B)'\n"
        if (is_num(S_n[r0]) && S_n[r0] > 1) extra = extra sprintf("y2f = %.6g\n", 2 * (S_n[r0] - 1) / S_n[r0])
    } else if (what == "algbw") {
        extra = extra "ylab = 'algbw (GB/s, 1 GB = 1e9 B)'\n"
        if (is_num(S_n[r0]) && S_n[r0] > 1) extra = extra sprintf("y2f = %.6g\n", 2 * (S_n[r0] - 1) / S_n[r0])
    } else if (what == "time") extra = extra "ylab = '" time_label() "'\n"
    else extra = extra "ylab = 'time after the straggler" "''s arrival (us)'\n"
    if (bestof) {
        ssort(tn, ntn)
        for (i = 1; i <= ntn; i++) {
            tnames = tnames " \"" (has_tp(tn[i]) ? tn[i] : "none") "\""; tpts = tpts " " transport_point(tn[i], 1)
        }
        extra = extra "tnames = '" tnames "'\ntpts = '" tpts "'\n"
    }
    t = what == "algbw" ? (S_sr[r0] >= 0 ? "algbw (bytes / time after the straggler''s arrival) vs size" : "algbw vs size") : \
        what == "time" ? "time per AllReduce vs size" : "time after the straggler" "''s arrival (median time - delay) vs size"
    return pic_write(name, "families", t ", " scen_title(r0) (tp != "" ? ", transport " tp : "") \
                     (bestof ? ", each algorithm on its best transport" : "") suffix, extra)
}

# ref_lines(key, r0, what): adds to the picture of degraded scenario key (r0 one of its rows) at
# each of its sizes OPTCC's lower bound and the healthy best (prep_nccl.awk), as times or (what
# algbw) as rates, NaN in the point column (lines without points)
function ref_lines(key, r0, what,    r, b, h, seen) {
    for (r = 1; r <= R; r++) {
        if (!M[r] || S_key[r] != key || (S_b[r] in seen)) continue
        b = S_b[r]; seen[b] = 1
        if ((S_n[r0], b, S_f[r0]) in LB) pic_add("OPTCC lower bound", 3, "#555555", -1, 3, 3, b, ref_y(b, LB[S_n[r0], b, S_f[r0]], what))
        h = healthy_at(r0, b)
        if (h) pic_add("healthy best (no degraded GPU)", 3, "#1a9850", -1, 2, 3, b, ref_y(b, S_med[h], what))
    }
}

# ref_y(b, t, what): returns a reference line's point at size b and time t: "y NaN"
function ref_y(b, t, what) {
    return sprintf("%.6g NaN", what == "algbw" ? b / (t * 1e3) : t)
}

# row_point(r): returns the point type of row r's series (add_row's)
function row_point(r) {
    return has_tp(S_tp[r]) ? transport_point(S_tp[r], S_var[r]) : algo_point(S_alg[r])
}

# model_wants(r): measured row r has a model line (wantA, wantS: the current scenario's)
function model_wants(r) {
    return (S_alg[r] in wantA) || (has_tp(S_tp[r]) && ((S_alg[r], S_tp[r]) in wantS))
}

# model_pic(key, r0, tp): draws model_vs_measured_<key>[_<tp>]: the measured series of scenario
# key (r0 one of its rows) that the model prices (all, or those on transport tp and nccl), solid,
# and the model's, dashed: "<alg>/<tp> model" in the colour and (open) point shape of its measured
# series where the model rows name the transport, else "<alg> model" without points. Returns 1
# when drawn, 0 when there is no model line
function model_pic(key, r0, tp,    r, m, p, nmod, nmeas, mk, ratio) {
    pic_reset(); nmod = 0
    # the measured series, with model / measured at each size as a third column (NaN: none)
    for (r = 1; r <= R; r++)
        if (M[r] && S_key[r] == key && model_wants(r) &&
            (tp == "" || S_alg[r] == "nccl" || S_tp[r] == tp || !has_tp(S_tp[r]))) {
            mk = has_tp(S_tp[r]) && ((S_ckey[r], S_n[r], S_alg[r], S_tp[r], S_b[r]) in MODEL) ? S_tp[r] : ""
            ratio = ((S_ckey[r], S_n[r], S_alg[r], mk, S_b[r]) in MODEL) ? sprintf("%.6g", MODEL[S_ckey[r], S_n[r], S_alg[r], mk, S_b[r]] / S_med[r]) : "NaN"
            add_row(r, S_b[r], sprintf("%.6g %s", S_med[r], ratio))
        }
    nmeas = P_NS
    for (m in MODEL) {
        split(m, p, SUBSEP)
        if (p[1] != S_ckey[r0] || p[2] != S_n[r0]) continue
        if (p[4] == "") {
            if (!(p[3] in wantA)) continue
            pic_add(p[3] " model", 2, algo_color(p[3]), -1, 2, 2, p[5], sprintf("%.6g", MODEL[m]))
        } else {
            if (!((p[3], p[4]) in wantS) || (tp != "" && p[4] != tp && p[3] != "nccl")) continue
            pic_add((p[3] == "nccl" ? "nccl" : p[3] "/" p[4]) " model", 2, algo_color(p[3]), transport_point(p[4], 2),
                    2, 2, p[5], sprintf("%.6g", MODEL[m]))
        }
        nmod++
    }
    if (!nmod) return 0
    return pic_write(PFX "model_vs_measured_" key (tp != "" ? "_" tp : ""), "model",
                     "measured (solid) vs model (dashed), " scen_title(r0) (tp != "" ? ", transport " tp : ""),
                     "nmeas = " nmeas "\n")
}
