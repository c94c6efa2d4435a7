# prep_pic.awk: how prep.awk's pictures are written: a picture's series are collected with
# pic_reset/pic_add/add_row and written by pic_write as gnuplot data blocks and a driver that
# loads common.gp and the picture kind's .gp; no_data draws the picture of a run with nothing to
# draw.

# no_data(): draws no_data, a picture that says there is nothing to draw and why (every row's
# status), instead of an empty frame or none at all
function no_data(    st, msg, extra) {
    pic_reset(); DEDUP = 0
    meta_gpu = any_gpu; meta_n = is_num(any_n) ? any_n + 0 : ""; meta_host = any_host; meta_date = any_date
    has_measured = any_measured; n_count = 1
    for (st in ST_n) msg = msg (msg == "" ? "" : ", ") ST_n[st] " " st
    msg = rows_total ? "no row of results.csv has a time to draw: " rows_total " rows (" msg ")" : "results.csv has no rows"
    pic_add("none", 0, "#000000", -1, 1, 1, 1, "NaN")
    extra = "msg = '" clean_text(msg) "'\n"
    note(msg)
    return pic_write("no_data", "nodata", "nothing to draw", extra)
}

# shade(c, w): returns colour c ("#rrggbb") mixed with white by the fraction w
function shade(c, w,    i, v, o, h) {
    h = "0123456789abcdef"; o = "#"; c = tolower(c)
    for (i = 2; i <= 6; i += 2) {
        v = (index(h, substr(c, i, 1)) - 1) * 16 + index(h, substr(c, i + 1, 1)) - 1
        o = o sprintf("%02x", int(v + (255 - v) * w + 0.5))
    }
    return o
}

# add_row(r, x, y): adds measured row r as point (x, y) of its series; the variants of a
# pipeline sweep go from the algorithm's colour (smallest pipeline) to lighter shades
function add_row(r, x, y,    nccl, c) {
    nccl = (S_alg[r] == "nccl")
    c = algo_color(S_alg[r])
    if (S_var[r] > 1) c = shade(c, 0.6 * (S_var[r] - 1) / (S_nvar[r] - 1))
    pic_add(S_lab[r], nccl ? 0 : 1, c, has_tp(S_tp[r]) ? transport_point(S_tp[r], S_var[r]) : algo_point(S_alg[r]),
            1, nccl ? 4 : 2, x, y)
}

# pic_reset(): starts a new picture with no series
function pic_reset() {
    delete P_idx; delete P_np; P_NS = 0
}

# pic_add(label, group, color, pt, dt, lw, x, y): adds point (x, y) to the series called label,
# creating it with that style; group orders the key (0 nccl, 1 measured, 2 model, 3 bounds)
function pic_add(label, group, color, pt, dt, lw, x, y,    s) {
    if (!(label in P_idx)) {
        s = P_idx[label] = ++P_NS
        P_lab[s] = label; P_grp[s] = group; P_col[s] = color; P_pt[s] = pt; P_dt[s] = dt; P_lw[s] = lw
        P_np[s] = 0
    }
    s = P_idx[label]
    P_x[s, ++P_np[s]] = x + 0; P_y[s, P_np[s]] = y
}

# pic_write(name, kind, title, extra): writes the picture's data blocks (series in key order,
# points by x) and its driver (which loads kind.gp); returns 1, or 0 when it has no series
function pic_write(name, kind, title, extra,    data, drv, o, i, j, s, t, k, tx, ty, names, colors, pts, dts, lws, fams, hdr, sig, first, dup, nw, yv) {
    if (P_NS == 0) return 0
    data = tmp "/" name ".dat"; drv = tmp "/" name ".gp"
    for (i = 1; i <= P_NS; i++) o[i] = i
    for (i = 2; i <= P_NS; i++)
        for (j = i; j > 1 && (P_grp[o[j]] "" P_lab[o[j]]) < (P_grp[o[j - 1]] "" P_lab[o[j - 1]]); j--) {
            t = o[j]; o[j] = o[j - 1]; o[j - 1] = t
        }
    for (i = 1; i <= P_NS; i++) {
        s = o[i]; sig = P_grp[s]
        for (k = 2; k <= P_np[s]; k++)
            for (j = k; j > 1 && P_x[s, j] < P_x[s, j - 1]; j--) {
                tx = P_x[s, j]; P_x[s, j] = P_x[s, j - 1]; P_x[s, j - 1] = tx
                ty = P_y[s, j]; P_y[s, j] = P_y[s, j - 1]; P_y[s, j - 1] = ty
            }
        # references (group 3: bounds, the healthy best) are drawn in every family panel, as nccl
        P_fam[s] = P_grp[s] == 3 ? 0 : label_family(P_lab[s]); sig = sig SUBSEP P_fam[s]
        # (the y value only: a point's other columns, its shape, differ per algorithm)
        for (k = 1; k <= P_np[s]; k++) { split(P_y[s, k], yv, " "); sig = sig SUBSEP P_x[s, k] SUBSEP yv[1] }
        # model-only family pictures: algorithms of one family the model prices the same at
        # every size (optcc and optcc-ring) are one line with one key entry "a = b", not hidden lines
        if (DEDUP && !has_measured && P_grp[s] == 1 && (sig in first)) { dup[s] = 1; P_lab[first[sig]] = P_lab[first[sig]] " = " P_lab[s] }
        else if (!(sig in first)) first[sig] = s
    }
    printf "" > data
    for (i = 1; i <= P_NS; i++) {
        s = o[i]
        if (s in dup) continue
        if (nw++) printf "\n\n" > data
        printf "# %s\n", P_lab[s] > data
        for (k = 1; k <= P_np[s]; k++) printf "%s %s\n", num_str(P_x[s, k]), P_y[s, k] > data
        names = names " \"" P_lab[s] "\""; colors = colors " \"" P_col[s] "\""
        pts = pts " " P_pt[s]; dts = dts " " P_dt[s]; lws = lws " " P_lw[s]; fams = fams " " P_fam[s]
    }
    close(data)
    hdr = meta_gpu != "" ? meta_gpu : "GPU"
    if (meta_n != "" && n_count <= 1) hdr = hdr (pl_count == 1 && pl_shared(pl_one) ? ", " pl_words(pl_one, meta_n) : " x" meta_n)
    # every title says where it ran: placement, machine and date (the morning view compares nights)
    if (pl_count == 1 && !pl_shared(pl_one)) hdr = hdr ", " pl_one
    if (!has_measured) hdr = "modelled node" (meta_n != "" && n_count <= 1 ? " of " meta_n " GPUs" : "")
    if (meta_host != "" && meta_host != "?") hdr = hdr ", " (has_measured ? "" : "computed on ") meta_host
    if (meta_date != "") hdr = hdr ", " meta_date
    printf "# %s: written by plots/prep.awk\n", name > drv
    printf "data = '%s'\nout = '%s/%s'\nptitle = '%s  |  %s'\nn = %d\n", data, out, name, title, hdr, nw > drv
    printf "names = '%s'\ncolors = '%s'\npts = '%s'\ndts = '%s'\nlws = '%s'\nfams = '%s'\n", names, colors, pts, dts, lws, fams > drv
    printf "gpdir = '%s'\n%s", gpdir, extra > drv
    printf "load '%s/common.gp'\nload '%s/%s.gp'\n", gpdir, gpdir, kind > drv
    close(drv)
    print drv
    return 1
}
