# scurve.gp: algbw or busbw (column ycol, label ylab) vs size, one line per algorithm/transport;
# nccl thick and black. With ptcol (the best-transport pictures) each point's shape comes from
# that column and the key lists the shapes (tnames, tpts). When the sweep reaches below 1 MiB a
# latency panel (time per AllReduce, log scale, sizes up to 1 MiB) sits under the S-curve: on
# the bandwidth axis every small size is a dot on zero.
load gpdir.'/sizeaxis.gp'
small = STATS_min < 2.0**20 && STATS_max > 2.0**20
if (exists("ptcol")) {
    # lines in the key per algorithm, then grey points per transport
    lstyle = "lc rgb word(colors,i) dt int(word(dts,i)) lw real(word(lws,i))"
    plotcmd = "plot for [i = 1:n] data index (i - 1) using 1:ycol with lines @lstyle title word(names, i), " . \
              "for [i = 1:n] data index (i - 1) using 1:ycol:ptcol with points lc rgb word(colors,i) pt variable ps 1.1 notitle, " . \
              "for [j = 1:words(tnames)] NaN with points lc rgb '#555555' pt int(word(tpts, j)) ps 1.1 title 'on '.word(tnames, j)"
    latcmd = "plot for [i = 1:n] data index (i - 1) using 1:($1 <= 2.0**20 ? $1 / ($2 * 1e3) : NaN) with lines @lstyle notitle, " . \
             "for [i = 1:n] data index (i - 1) using 1:($1 <= 2.0**20 ? $1 / ($2 * 1e3) : NaN):ptcol with points lc rgb word(colors,i) pt variable ps 1.1 notitle"
} else {
    plotcmd = "plot for [i = 1:n] data index (i - 1) using 1:ycol with linespoints @style title word(names, i)"
    latcmd = "plot for [i = 1:n] data index (i - 1) using 1:($1 <= 2.0**20 ? $1 / ($2 * 1e3) : NaN) with linespoints @style notitle"
}
# draw: the S-curve alone, or over the latency panel (same x positions: the key keeps its
# width in both, so the panels' plot areas line up)
draw = "unset logscale y; set size 1, 1; set origin 0, 0; set tmargin; set ylabel ylab; set yrange [0:*]; " . \
       (small ? "set multiplot; set lmargin at screen 0.075; set rmargin at screen 0.83; set size 1, 0.62; set origin 0, 0.38; set bmargin 2; set xlabel ''; " : "") . \
       "eval plotcmd; " . \
       (small ? "unset title; set size 1, 0.38; set origin 0, 0; set bmargin 4; set tmargin 1; " . \
                "set xrange [2.0**lo_e / 1.25 : 2.0**20 * 1.25]; set xlabel 'message size (bytes, log2 scale), up to 1 MiB'; " . \
                "set logscale y 10; set yrange [*:*]; set ylabel 'time (us, log)'; set key off; set ytics autofreq; " . \
                "eval latcmd; unset multiplot; unset lmargin; unset rmargin; " : "")
eval png_on
eval draw
eval svg_on
load gpdir.'/common.gp'
load gpdir.'/sizeaxis.gp'
eval draw
set output
