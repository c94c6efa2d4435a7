# best.gp: the first picture of a scenario: at each size the best group against nccl at its
# strongest. Upper panel: time per AllReduce (log-log), nccl thick and black (its fastest
# registration mode at each size, each mode its own point shape), a grey line through the best
# of every size, each size's fastest schedule a point in its algorithm's colour and its
# transport's shape, named in the key: filled where it is fastest alone, hollow with "~N" where
# N schedules tie (their intervals overlap; the groups listed under the key); the medians'
# intervals as error bars; on a degraded scenario OPTCC's lower bound and the healthy best.
# Lower panel (where there is nccl): nccl's time over the best's with its interval (above 1 the
# best is faster), a dashed line at 1, "tie" (hollow) where the interval holds 1.
# The driver (prep_best.awk's best_pic) sets has_nccl, n_ncl (nccl's blocks: its line, then one
# per mode), line_b (the grey line's block: x time ratio rlo rhi), s_first..s_last (the
# schedules' blocks: x time lo hi ratio rlo rhi group_size ratio_tie), nref (the reference
# lines after them: x time), ties, rties (tied sizes, ratios that hold 1), cis (sizes with an
# interval), rcis (ratios with one), cilevel (the smallest coverage among the drawn intervals,
# percent: under 95 with fewer than 6 samples), tie_text (the groups, lines joined by \n) and
# ylab.
load gpdir.'/sizeaxis.gp'
stats data using 2 nooutput
ymin = STATS_min; ymax = STATS_max
ylog = 1
# log y where the values span 10x or more, with 1-2-5 tick labels; else linear from 0 (a
# narrow log axis would have no label at all). yset sets that axis (eval yset)
ylog = ylog && ymax > 10 * ymin && ymin > 0
if (ylog) {
    ticks = ""
    do for [e = floor(log10(ymin)) : ceil(log10(ymax))] {
        ticks = ticks . sprintf("'%g' %g, '%g' %g, '%g' %g, ", 10.0**e, 10.0**e, 2 * 10.0**e, 2 * 10.0**e, 5 * 10.0**e, 5 * 10.0**e)
    }
    yset = sprintf("set logscale y 10; set yrange [%g : %g]; set ytics (%s); set mytics 1", ymin / 1.3, ymax * 1.3, ticks[1:strlen(ticks) - 2])
    ylab = ylab . ", log scale"
} else {
    yset = sprintf("unset logscale y; set yrange [0 : %g]; set ytics autofreq; set mytics default", ymax > 0 ? ymax * 1.06 : 1)
}
if (has_nccl) {
    # the ratio panel's range: the ratios, their intervals and 1
    stats data index (line_b - 1) using 3 nooutput
    rlo = STATS_min < 1 ? STATS_min : 1; rhi = STATS_max > 1 ? STATS_max : 1
    if (rcis > 0) {
        stats data index (line_b - 1) using 4 nooutput
        rlo = STATS_min < rlo ? STATS_min : rlo
        stats data index (line_b - 1) using 5 nooutput
        rhi = STATS_max > rhi ? STATS_max : rhi
    }
}
# the key outside right: its longest entry, or the tied groups' longest line (a smaller font)
key_len = 0
do for [i = 1:n] { key_len = strlen(word(names, i)) > key_len ? strlen(word(names, i)) : key_len }
tl = 0; tlines = 1
do for [c = 1:strlen(tie_text)] {
    if (tie_text[c:c] eq "\n") { tlines = tlines + 1; tl = 0 } else { tl = tl + 1; key_len = 0.85 * tl > key_len ? 0.85 * tl : key_len }
}
room = (key_len * 8.0 + 100) / W
room = room < 0.14 ? 0.14 : room > 0.40 ? 0.40 : room
# the key's entries: nccl's, the grey line, the schedules, the references, the tie and bar notes
nkey = n_ncl + 1 + (s_last - s_first + 1) + nref + (ties + rties > 0) + (cis > 0)
# istie(g, t): the point is a tie: upper panel (col 2) its group has 2+ schedules, lower its ratio holds 1
istie(g, t) = col == 2 ? g > 1 : t > 0
# the intervals as vectors with flat heads, under the points (gnuplot's error bars leave a white
# gap around each point)
sched = "for [i = s_first : s_last] data index (i - 1) using 1:(column(col + 1)):(0):(column(col + 2) - column(col + 1)) " . \
        "with vectors heads size screen 0.006, 90 lc rgb word(colors, i) lw 1.5 notitle, " . \
        "for [i = s_first : s_last] data index (i - 1) using 1:(istie(column(8), column(9)) ? NaN : column(col)) with points " . \
        "lc rgb word(colors, i) pt int(word(pts, i)) ps 1.8 lw 2 title (ktitle ? word(names, i) : ''), " . \
        "for [i = s_first : s_last] data index (i - 1) using 1:(istie(column(8), column(9)) ? column(col) : NaN) with points " . \
        "lc rgb word(colors, i) pt int(word(pts, i)) - 1 ps 1.8 lw 2 notitle, " . \
        "for [i = s_first : s_last] data index (i - 1) using 1:col:(!istie(column(8), column(9)) ? '' : col == 2 ? sprintf('~%d', column(8)) : 'tie') " . \
        "with labels offset 0, 1.4 font ',9' tc rgb '#333333' notitle"
# (the labels: every point's, empty where it is no tie: gnuplot 5.4 crashes on a labels plot
# whose every y is undefined)
# macros are expanded when the loop is read: all are defined before it
ncclcmd = has_nccl ? "data index 0 using 1:2 with lines lc rgb '#000000' lw 4 title word(names, 1), " . \
          "data index 0 using 1:3:(0):(column(4) - column(3)) with vectors heads size screen 0.006, 90 lc rgb '#000000' lw 1.2 notitle, " . \
          "for [i = 2 : n_ncl] data index (i - 1) using 1:2 with points lc rgb '#000000' pt int(word(pts, i)) ps 1.3 lw 1.5 title word(names, i), " : ""
refcmd = nref > 0 ? ", for [i = s_last + 1 : n] data index (i - 1) using 1:2 with lines lc rgb word(colors, i) dt int(word(dts, i)) lw real(word(lws, i)) title word(names, i)" : ""
notecmd = (ties + rties > 0 ? ", NaN with points pt 6 ps 1.5 lc rgb '#555555' title 'hollow: a tie (intervals overlap)'" : "") . \
          (cis > 0 ? ", NaN with lines lc rgb '#555555' lw 1.5 title '" . (cilevel >= 95 ? "bars: the median''s 95% interval" : \
                     sprintf("bars: the median''s interval (%.0f%% for the fewest samples)", cilevel)) . "'" : "")
do for [t = 1:2] {
    eval (t == 1 ? png_on : svg_on)
    # the title over the whole canvas (over the plot alone its left end was cut off)
    set multiplot title ptitle font ",14"
    set lmargin at screen 0.08; set rmargin at screen 1 - room
    unset title
    eval yset
    set ylabel ylab
    if (has_nccl) {
        set tmargin at screen 0.88; set bmargin at screen 0.40
        set xlabel ""
    } else {
        set tmargin at screen 0.88; set bmargin at screen 0.10
    }
    unset label
    if (strlen(tie_text) > 0) {
        set label 10 tie_text at screen 1 - room + 0.012, screen 0.86 - (nkey + 1) * 17.0 / H left front font ",9" tc rgb "#333333"
    }
    col = 2; ktitle = 1
    plot @ncclcmd data index (line_b - 1) using 1:2 with lines lc rgb '#999999' lw 5 title "best schedule (line)", \
         @sched @refcmd @notecmd
    unset label
    if (has_nccl) {
        set tmargin at screen 0.36; set bmargin at screen 0.09
        set xlabel "message size (bytes, log2 scale)"
        set ytics autofreq; set mytics default
        if (rhi > 4 * rlo) { set logscale y 2; set yrange [rlo / 1.2 : rhi * 1.2] } \
        else { unset logscale y; set yrange [rlo - 0.1 * (rhi - rlo) - 0.02 : rhi + 0.12 * (rhi - rlo) + 0.04] }
        set ylabel "nccl time / best time\n(above 1: best faster)"
        set key off
        col = 5; ktitle = 0
        plot data index (line_b - 1) using 1:3 with lines lc rgb '#999999' lw 5 notitle, \
             1 with lines dt 2 lw 2 lc rgb '#000000' notitle, \
             @sched
        set key on
    }
    unset multiplot
}
set output
