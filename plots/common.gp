# common.gp: the look every picture shares. A driver written by prep.awk sets data (blocks, one
# per series, in key order), out (path without extension), ptitle, n (series count) and the word
# lists names, colors, pts, dts, lws and fams (style.awk's family of each series), and may set
# W and H (the canvas, 1280x720 unless set) and pngterm (the PNG terminal: pngcairo, which draws
# anti-aliased lines, else plain png on builds without cairo). Given `tables` (gnuplot -e
# 'tables = 1' DRIVER, as tests/plot_tables.sh does), the points of every plot command go to
# out.table (gnuplot's `set table`) instead of a picture.
if (!exists("pngterm")) pngterm = strstrt(GPVAL_TERMINALS, " pngcairo ") ? "pngcairo" : "png"
if (!exists("W")) W = 1280
if (!exists("H")) H = 720
png_on = sprintf("set terminal %s size %d,%d noenhanced%s; set output out.'.png'", pngterm, W, H, pngterm eq "pngcairo" ? " font 'sans,12'" : "")
svg_on = sprintf("set terminal svg size %d,%d noenhanced font 'sans,12' background '#ffffff'; set output out.'.svg'", W, H)
if (exists("tables")) {
    png_on = sprintf("set terminal svg size %d,%d; set output '/dev/null'; set table out.'.table'", W, H)
    svg_on = "unset table; set output '/dev/null'"
}
# style of series i: its colour, point, dash and width from the driver's lists
style = "lc rgb word(colors,i) pt int(word(pts,i)) dt int(word(dts,i)) lw real(word(lws,i)) ps 1.1"

# a long title is centred over the plot, not the canvas, and its left end was cut off: once it
# would not fit, each of its parts ("  |  " apart: the answer, what was drawn, where and when it
# ran) goes on a line of its own
if (strlen(ptitle) > 100) {
    while (strstrt(ptitle, "  |  ") > 0) {
        tsep = strstrt(ptitle, "  |  ")
        ptitle = ptitle[1:tsep - 1]."\n".ptitle[tsep + 5:]
    }
}
set title ptitle font ",14"
# the key outside right in a smaller font, so that the plot keeps most of the width
set key outside right top vertical Left reverse samplen 2.5 spacing 1.1 font ",10" box lc rgb "#bbbbbb"
set grid xtics ytics mxtics lt 1 lc rgb "#e4e4e4" lw 1, lt 1 lc rgb "#f2f2f2" lw 1
set border 3 lc rgb "#444444"
set tics nomirror
set datafile commentschars "#"
set bmargin 4

# sizelab(b): bytes as a binary-unit tick label (1KiB, 256MiB, 8GiB)
sizelab(b) = b >= 2.0**40 ? sprintf("%gTiB", b / 2.0**40) : b >= 2.0**30 ? sprintf("%gGiB", b / 2.0**30) : \
             b >= 2.0**20 ? sprintf("%gMiB", b / 2.0**20) : b >= 2.0**10 ? sprintf("%gKiB", b / 2.0**10) : sprintf("%gB", b)
