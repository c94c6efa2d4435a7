# factor.gp: time vs degradation factor of one GPU's links at one size; OPTCC's lower bound is
# the grey dashed series the driver adds (unit in ylab).
set xlabel "degradation factor of the slow GPU (x times slower)"
set ylabel ylab
set xrange [*:*]
set yrange [0:*]
set offsets graph 0.03, graph 0.03, 0, 0
eval png_on
plot for [i = 1:n] data index (i - 1) using 1:2 with linespoints @style title word(names, i)
eval svg_on
replot
set output
