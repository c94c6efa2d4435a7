# scurve.gp: algbw or busbw (column ycol, label ylab) vs size, one line per algorithm/transport;
# nccl thick and black.
load gpdir.'/sizeaxis.gp'
set ylabel ylab
set yrange [0:*]
eval png_on
plot for [i = 1:n] data index (i - 1) using 1:ycol with linespoints @style title word(names, i)
eval svg_on
replot
set output
