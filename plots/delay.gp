# delay.gp: time (ms) vs straggler delay (ms) at one size; the driver marks critical delays
# (arrows and labels); the dotted grey line is time = delay, which no algorithm can beat.
set xlabel "straggler delay (ms)"
set ylabel "time per AllReduce from the first rank's entry, median (ms)"
set xrange [0:*]
set yrange [0:*]
eval png_on
plot for [i = 1:n] data index (i - 1) using 1:2 with linespoints @style title word(names, i), \
     x with lines dt 3 lw 1.5 lc rgb "#999999" title "time = delay"
eval svg_on
replot
set output
