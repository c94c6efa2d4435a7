# pipeline.gp: time per AllReduce vs the pipeline value (--pipeline K) at one size, one line per
# algorithm/transport that was measured with several; nccl (no pipeline) a thick black horizontal
# line. The driver sets xt (the pipeline values, the x tick labels) and ylab (with the unit).
set logscale x 2
set xtics ()
do for [j = 1:words(xt)] { set xtics add (word(xt, j) real(word(xt, j))) }
set mxtics 1
set xrange [real(word(xt, 1)) / 1.25 : real(word(xt, words(xt))) * 1.25]
set xlabel "pipeline (--pipeline K: mini-batches per transfer; log2 scale)"
set ylabel ylab
# the differences are a few percent: no zero on the y axis, a little room above and below
set autoscale y
set offsets 0, 0, graph 0.08, graph 0.08
eval png_on
plot for [i = 1:n] data index (i - 1) using 1:2 with linespoints @style title word(names, i)
eval svg_on
replot
set output
