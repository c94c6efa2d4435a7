# overlap.gp: --profile overlap's shares at one size: per algorithm/transport (x) two bars, the
# percentage of copy time that ran concurrently with reduction kernels and with the straggler's
# delay, the mean over the ranks that copied (its value on top), each rank's share a dot; a fused
# kernel (the copy is the reduction) "fused kernel" where its reduction bar would be. The driver
# written by overlap.awk sets data (block 0: index, "name", reduction mean, delay mean, NaN where
# no rank had it, "fused" or "-"; blocks 1 and 2: "x share" per rank), out, ptitle and nser;
# common.gp is loaded first.
set style fill solid 0.85 border lc rgb "#303030"
set boxwidth 0.36 absolute
set xrange [0.4:nser + 0.6]
set yrange [0:112]
set ytics 0, 20, 100
set ylabel "% of the rank's copy time (bar: mean over ranks; dots: ranks)"
set xtics rotate by -30 left nomirror font ",10"
set grid noxtics
set bmargin 6
eval png_on
plot data index 0 using ($1 - 0.19):3:xtic(2) with boxes lc rgb "#9467bd" title "with reduction kernels", \
     data index 0 using ($1 + 0.19):4 with boxes lc rgb "#d62728" title "with the straggler delay", \
     data index 1 using 1:2 with points pt 7 ps 0.7 lc rgb "#202020" title "one rank", \
     data index 2 using 1:2 with points pt 7 ps 0.7 lc rgb "#202020" notitle, \
     data index 0 using ($1 - 0.19):($3 + 3):(sprintf("%.0f", $3)) with labels font ",9" notitle, \
     data index 0 using ($1 + 0.19):($4 + 3):(sprintf("%.0f", $4)) with labels font ",9" notitle, \
     data index 0 using ($1 - 0.19):(2):(strcol(5) eq "fused" ? "fused kernel" : "") with labels rotate by 90 left font ",10" tc rgb "#9467bd" notitle
eval svg_on
replot
set output
