# critical.gp: critical straggler delay (ms) vs size on log-log axes: above it the
# straggler-aware algorithm beats the best bulk-synchronous one (named next to each point, from
# column 3). Measured solid, the model's prediction dashed; the driver's last nnever blocks are the
# sizes where it never won: an open triangle at the largest delay tried, "none up to X ms".
if (!exists("nnever")) nnever = 0
load gpdir.'/sizeaxis.gp'
set ylabel "critical delay (ms, log scale)"
set logscale y 10
set format y "%g"
# a little room above and below, without autoscale running out to whole decades
stats data using 2 nooutput
set yrange [STATS_min / 1.6 : STATS_max * 1.6]
eval png_on
# (a for over no block still evaluates its options: the never blocks' plot is there only with them)
nevercmd = nnever > 0 ? "for [i = n - nnever + 1:n] data index (i - 1) using 1:2 with points lc rgb word(colors, i) pt int(word(pts, i)) ps 2 lw 2 title word(names, i), " : ""
plot for [i = 1:n - nnever] data index (i - 1) using 1:2 with linespoints @style title word(names, i), @nevercmd \
     for [i = 1:n] data index (i - 1) using 1:2:3 with labels left offset 0.8, -0.8 font ",10" tc rgb "#555555" notitle
eval svg_on
replot
set output
