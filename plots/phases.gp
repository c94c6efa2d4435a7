# phases.gp: per-rank timelines of one iteration (arbench run --phases), a Gantt chart per
# algorithm and transport stacked on one time axis. The driver written by phases.awk sets data
# (per chart two blocks: boxes "rank x0 x1 ylow yhigh rgb", then labels "x rank text"), out,
# ptitle, npan (charts), nranks, xmax, xunit, nleg with ln<k>/lc<k> (the key's phases and
# colours) and pt<i> (each chart's title); common.gp is loaded first.
# pixels: 80 for the title, 50 for the x label, 30 per rank (45 for a few), 84 between
# charts (tic labels and the next chart's title)
H = 80 + 50 + npan * (nranks <= 3 ? 45 : 30) * nranks + (npan - 1) * 84
png_on = sprintf("set terminal %s size 1280,%d noenhanced%s; set output out.'.png'", pngterm, H, \
                 pngterm eq "pngcairo" ? " font 'sans,11'" : "")
svg_on = sprintf("set terminal svg size 1280,%d noenhanced font 'sans,11' background '#ffffff'; set output out.'.svg'", H)
# tests/plot_tables.sh: the points of every chart to out.table instead (see common.gp)
if (exists("tables")) {
    png_on = sprintf("set terminal svg size 1280,%d; set output '/dev/null'; set table out.'.table'", H)
    svg_on = "unset table; set output '/dev/null'"
}

set style fill solid 0.9 border lc rgb "#303030"
set xrange [0:xmax * 1.02]
set yrange [nranks - 0.5:-0.5]
set ytics 1 scale 0
set format y "rank %g"
set grid xtics noytics lt 1 lc rgb "#e4e4e4"
set border 3 lc rgb "#444444"
set key outside right top vertical Left reverse samplen 2 spacing 1.3 box lc rgb "#bbbbbb"
unset title
# fixed margins: the plot width is the same in every chart, key or not
lay = sprintf("margins screen 0.085, 0.80, %g, %g spacing screen 0, %g", 50.0 / H, 1 - 80.0 / H, 84.0 / H)

do for [t = 1:2] {
  eval (t == 1 ? png_on : svg_on)
  eval "set multiplot layout npan, 1 title ptitle font ',14' ".lay
  do for [i = 1:npan] {
    set title value(sprintf("pt%d", i)) font ",12"
    set xlabel (i == npan ? sprintf("time from the iteration's start (%s; ranks' start events aligned)", xunit) : "")
    if (i == 1) { set key } else { unset key }
    plot data index (2 * i - 2) using 2:1:2:3:4:5:6 with boxxyerror lc rgb variable notitle, \
         data index (2 * i - 1) using 1:2:3 with labels tc rgb "#ffffff" font ",9" notitle, \
         for [k = 1:nleg] NaN with boxes lc rgb value(sprintf("lc%d", k)) title value(sprintf("ln%d", k))
  }
  unset multiplot
}
set output
