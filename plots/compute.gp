# compute.gp: --compute at one size: per schedule (x = 1, 2, ..., its name the tic label) three
# bars with their 95% intervals as whiskers (boxes, then yerrorbars), the AllReduce alone at x - 0.27, the load alone at
# x, the step with both (from their common start to the later end) at x + 0.27, and above them
# the AllReduce's and the load's slowdowns and the share of the AllReduce the load hid. The
# driver written by compute.awk sets data (x, "name", then median, lo and hi of each of the
# three, then the line above), out, ptitle and nser; common.gp is loaded first.
set style fill solid 0.85 border lc rgb "#303030"
set boxwidth 0.25 absolute
set xrange [0.4:nser + 0.6]
set ylabel "us (bar: median; whiskers: its 95% interval)"
set xtics rotate by -30 left nomirror font ",10"
set grid noxtics
set bmargin 7
top(a, b, c) = (a > b ? (a > c ? a : c) : (b > c ? b : c)) * 1.03
# room above the tallest group for its line, written upwards (any number of schedules fits):
# two fifths of the height, which its 30 or so characters take at 1280 x 720
stats data using (top($5, $8, $11)) nooutput
set yrange [0:STATS_max * 1.75]
eval png_on
plot data using ($1 - 0.27):3:xtic(2) with boxes lc rgb "#1f77b4" title "AllReduce alone", \
     data using 1:6 with boxes lc rgb "#9a9a9a" title "load alone", \
     data using ($1 + 0.27):9 with boxes lc rgb "#ff7f0e" title "both: the step", \
     data using ($1 - 0.27):3:4:5 with yerrorbars pt 0 lc rgb "#202020" title "95% interval", \
     data using 1:6:7:8 with yerrorbars pt 0 lc rgb "#202020" notitle, \
     data using ($1 + 0.27):9:10:11 with yerrorbars pt 0 lc rgb "#202020" notitle, \
     data using 1:(top($5, $8, $11)):12 with labels rotate by 90 left font ",9" notitle
eval svg_on
replot
set output
