# scurve.gp: algbw or busbw (column ycol, label ylab) vs size, one line per algorithm/transport;
# nccl thick and black. With ptcol (the best-transport pictures) each point's shape comes from
# that column and the key lists the shapes (tnames, tpts).
load gpdir.'/sizeaxis.gp'
set ylabel ylab
set yrange [0:*]
if (exists("ptcol")) {
    # lines in the key per algorithm, then grey points per transport
    lstyle = "lc rgb word(colors,i) dt int(word(dts,i)) lw real(word(lws,i))"
    plotcmd = "plot for [i = 1:n] data index (i - 1) using 1:ycol with lines @lstyle title word(names, i), " . \
              "for [i = 1:n] data index (i - 1) using 1:ycol:ptcol with points lc rgb word(colors,i) pt variable ps 1.1 notitle, " . \
              "for [j = 1:words(tnames)] NaN with points lc rgb '#555555' pt int(word(tpts, j)) ps 1.1 title 'on '.word(tnames, j)"
} else {
    plotcmd = "plot for [i = 1:n] data index (i - 1) using 1:ycol with linespoints @style title word(names, i)"
}
eval png_on
eval plotcmd
eval svg_on
replot
set output
