# delay.gp: time (ms) vs straggler delay (ms) at one size; the driver marks critical delays
# (arrows and labels); the dotted grey line is time = delay, which no algorithm can beat. With
# xlog set (a geometric delay sweep) both axes are logarithmic and delay 0 sits at xzero. xmark
# (the largest critical delay marked, ms) is always on the axis; the last nmarkblk blocks are
# the marks' positions as invisible points (tests read them back: in range or not).
if (!exists("xmark")) xmark = 0
if (!exists("nmarkblk")) nmarkblk = 0
set xlabel "straggler delay (ms)"
set ylabel "time per AllReduce from the first rank's entry, median (ms)"
if (exists("xlog") && xlog) {
    stats data index 0:(n - nmarkblk - 1) using 1 nooutput
    xmax = STATS_max > xmark ? STATS_max : xmark
    stats data index 0:(n - nmarkblk - 1) using 2 nooutput
    set logscale x 2
    set xrange [xzero / 1.4 : xmax * 1.4]
    set xtics ("0" xzero)
    do for [e = ceil(log(xzero * 2) / log(2) - 1e-9) : floor(log(xmax) / log(2) + 1e-9)] { set xtics add (sprintf("%g", 2.0**e) 2.0**e) }
    set mxtics 1
    set xlabel "straggler delay (ms, log2 scale; the first tick is no delay)"
    # log y where the times span a factor 8 or more, with 1-2-5 ticks
    if (STATS_max > 8 * STATS_min) {
        set logscale y 10
        set yrange [STATS_min / 1.2 : STATS_max * 1.2]
        set ytics ()
        do for [e = floor(log10(STATS_min)) : ceil(log10(STATS_max))] { set ytics add (sprintf("%g", 10.0**e) 10.0**e, sprintf("%g", 2 * 10.0**e) 2 * 10.0**e, sprintf("%g", 5 * 10.0**e) 5 * 10.0**e) }
        set mytics 1
        set ylabel "time per AllReduce from the first rank's entry, median (ms, log scale)"
    } else {
        set yrange [0:*]
    }
} else {
    stats data index 0:(n - nmarkblk - 1) using 1 nooutput
    if (xmark > STATS_max) { set xrange [0 : xmark * 1.08] } else { set xrange [0:*] }
    set yrange [0:*]
}
eval png_on
# (a for over no block still reads it: the marks' plot is there only with them)
markcmd = nmarkblk > 0 ? ", for [i = n - nmarkblk + 1:n] data index (i - 1) using 1:2 with points ps 0 notitle" : ""
plot for [i = 1:n - nmarkblk] data index (i - 1) using 1:2 with linespoints @style title word(names, i), \
     x with lines dt 3 lw 1.5 lc rgb "#999999" title "time = delay" @markcmd
eval svg_on
replot
set output
