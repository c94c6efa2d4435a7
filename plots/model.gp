# model.gp: median time vs size (log-log where the range is wide): measured lines solid with points, the model's
# dashed in the algorithm's colour.
load gpdir.'/sizeaxis.gp'
# log scale only where the times span more than a factor 30 (else it would show one tick label)
stats data using 2 nooutput
if (STATS_max > 30 * STATS_min) {
    set logscale y 10; set format y "%g"; set ylabel "time per AllReduce, median (us, log scale)"
} else {
    set yrange [0:*]; set ylabel "time per AllReduce, median (us)"
}
eval png_on
plot for [i = 1:n] data index (i - 1) using 1:2 with linespoints @style title word(names, i)
eval svg_on
replot
set output
