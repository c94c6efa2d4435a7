# trend.gp: a metric per night (x: the nights in date order), one line per series; the series
# flagged by history.awk (block n, "flagged") ringed in red, the nights with no critical delay
# (block n + 1, "never": drawn at the search's bound) marked with an open triangle. The driver
# sets xt (the nights' labels, all distinct: the date, or date and time where dates repeat),
# ylab, ylog, nflag, nnever and nevertitle; common.gp is loaded first.
set xrange [0.5 : words(xt) + 0.5]
set xtics () rotate by -30
do for [k = 1 : words(xt)] { set xtics add (word(xt, k) k) }
set mxtics 1
# room under the axis for the slanted labels (date, or date and time where dates repeat)
xtlen = 0
do for [k = 1 : words(xt)] { xtlen = strlen(word(xt, k)) > xtlen ? strlen(word(xt, k)) : xtlen }
set bmargin 3 + ceil(xtlen * 0.3)
set xlabel "night"
set ylabel ylab
# no zero on the y axis: a 5% change must show
set offsets 0, 0, graph 0.12, graph 0.12
if (ylog) { set logscale y 10 }
plotcmd = "plot for [i = 1:n] data index (i - 1) using 1:2 with linespoints @style title word(names, i)" . \
          (nflag > 0 ? ", data index n using 1:2 with points pt 6 ps 4 lw 3 lc rgb '#d62728' title 'beyond the nights'' spread'" : "") . \
          (nnever > 0 ? ", data index (n + 1) using 1:2 with points pt 8 ps 3 lw 2 lc rgb '#444444' title nevertitle" : "")
eval png_on
eval plotcmd
eval svg_on
replot
set output
