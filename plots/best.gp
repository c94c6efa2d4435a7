# best.gp: the first picture of a scenario: at each size the fastest schedule that is not nccl
# against nccl. Upper panel: time per AllReduce (log-log), nccl thick and black, a grey line
# through the best of every size, each size's best a point in its algorithm's colour and its
# transport's shape, named in the key. Lower panel (where there is nccl): nccl's time over the
# best's (above 1 the best is faster), the same points. The driver (prep.awk's best_pic) sets
# has_nccl, line_b (the grey line's block; the schedules' blocks follow it, "x time ratio") and ylab.
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
    stats data index (line_b - 1) using 3 nooutput
    rlo = STATS_min < 1 ? STATS_min : 1; rhi = STATS_max > 1 ? STATS_max : 1
}
key_len = 0
do for [i = 1:n] { key_len = strlen(word(names, i)) > key_len ? strlen(word(names, i)) : key_len }
room = (key_len * 8.0 + 100) / W
room = room < 0.14 ? 0.14 : room > 0.35 ? 0.35 : room
sched = "for [i = line_b + 1 : n] data index (i - 1) using 1:col with points lc rgb word(colors, i) pt int(word(pts, i)) ps 1.8 lw 2 "
# macros are expanded when the loop is read: both are defined before it
ncclcmd = has_nccl ? "data index 0 using 1:2 with linespoints lc rgb '#000000' pt 7 ps 1.1 lw 4 title 'nccl', " : ""
do for [t = 1:2] {
    eval (t == 1 ? png_on : svg_on)
    set multiplot
    set lmargin at screen 0.08; set rmargin at screen 1 - room
    set title ptitle font ",14"
    eval yset
    set ylabel ylab
    if (has_nccl) {
        set tmargin at screen 0.88; set bmargin at screen 0.40
        set xlabel ""
    } else {
        set tmargin at screen 0.88; set bmargin at screen 0.10
    }
    col = 2
    plot @ncclcmd data index (line_b - 1) using 1:2 with lines lc rgb '#999999' lw 5 title "best schedule (line)", \
         @sched title word(names, i)
    if (has_nccl) {
        unset title
        set tmargin at screen 0.36; set bmargin at screen 0.09
        set xlabel "message size (bytes, log2 scale)"
        set ytics autofreq; set mytics default
        if (rhi > 4 * rlo) { set logscale y 2; set yrange [rlo / 1.2 : rhi * 1.2] } \
        else { unset logscale y; set yrange [rlo - 0.1 * (rhi - rlo) - 0.02 : rhi + 0.1 * (rhi - rlo) + 0.02] }
        set ylabel "nccl time / best time\n(above 1: best faster)"
        set key off
        col = 3
        plot data index (line_b - 1) using 1:3 with lines lc rgb '#999999' lw 5 notitle, \
             1 with lines dt 2 lw 2 lc rgb '#000000' notitle, \
             @sched notitle
        set key on
    }
    unset multiplot
}
set output
