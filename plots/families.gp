# families.gp: one scenario's series against size in four panels with shared axes, one per
# family of algorithms (classic; Swing; straggler-aware; OPTCC: fams, the registry's family of
# each by style.awk's algo_family), nccl (family 0) thick and black in every panel; each panel's
# key outside it, on its right.
# The driver (prep.awk's family_pic) sets ycol (2: the y column of the blocks "x y pt"), ylab,
# ylog (log y: times), y2f (algbw pictures: busbw = algbw * y2f on the right axis) and, where
# each algorithm is drawn on its best transport at each size, ptcol (the point type of that
# transport, column 3) with tnames and tpts (the transports in the key).
load gpdir.'/sizeaxis.gp'
if (!exists("y2f")) y2f = 0
best = exists("tnames")
# the shared y range: every series of every panel
stats data using ycol nooutput
ymin = STATS_min; ymax = STATS_max
# log y where the values span 10x or more, with 1-2-5 tick labels; else linear from 0 (a
# narrow log axis would have no label at all). yset sets that axis (eval yset)
ylog = ylog && ymax > 10 * ymin && ymin > 0
if (ylog) {
    ticks = ""
    do for [e = floor(log10(ymin)) : ceil(log10(ymax))] {
        ticks = ticks . sprintf("'%g' %g, '%g' %g, '%g' %g, ", 10.0**e, 10.0**e, 2 * 10.0**e, 2 * 10.0**e, 5 * 10.0**e, 5 * 10.0**e)
    }
    yset = sprintf("set logscale y 10; set yrange [%g : %g]; set ytics (%s); set mytics 1", ymin / 1.3, ymax * 1.3, ticks[1:strlen(ticks) - 2])
    ylab = ylab . ", log scale"
} else {
    yset = sprintf("unset logscale y; set yrange [0 : %g]; set ytics autofreq; set mytics default", ymax > 0 ? ymax * 1.06 : 1)
}
eval yset
set ylabel ylab
if (y2f > 0) {
    # the algbw axis is linear from 0 (ylog is 0): busbw's is the same range times y2f (a linked
    # axis loses its labels on tiny ranges)
    set y2range [0 : (ymax > 0 ? ymax * 1.06 : 1) * y2f]; set y2tics autofreq; set format y2 "%g"
    set y2label sprintf("busbw = algbw x %g (GB/s)", y2f)
    set ytics nomirror
}
# (the registry's families, not lists of names: each panel's key names its algorithms)
famtitle(k) = k == 1 ? "classic" : k == 2 ? "Swing" : k == 3 ? "straggler-aware" : "OPTCC"
# each column's panels end where its keys and the busbw axis (about 95 px) leave room: a key
# entry is about 8 px a character and 70 px of sample and box (columns: families 1 and 3, 2 and 4)
y2w = y2f > 0 ? 95.0 : 0.0
# wrap(t): a key entry of algorithms the model prices alike ("a = b = c ...") on lines of about
# 30 characters, broken after an " ="
wrap(t) = strlen(t) <= 30 || strstrt(t[22:], " = ") == 0 ? t : \
          t[1:20 + strstrt(t[22:], " = ")] . " =\n" . wrap(t[21 + strstrt(t[22:], " = ") + 3:])
klen0 = best ? 10 : 4; klen1 = klen0
do for [i = 1:n] {
    f = int(word(fams, i)); l = strlen(word(names, i)) < 32 ? strlen(word(names, i)) : 32
    if ((f == 0 || f == 1 || f == 3) && l > klen0) { klen0 = l }
    if ((f == 0 || f == 2 || f == 4) && l > klen1) { klen1 = l }
}
room(c) = ((c == 0 ? klen0 : klen1) * 8.0 + 70.0 + y2w) / W
# size labels on every step_e-th power of 2, so that they never touch (about 60 px each)
fit = int((0.5 - 0.06 - (room(0) > room(1) ? room(0) : room(1))) * W / 60.0)
step_e = 1
while ((hi_e - lo_e) / step_e + 1 > fit && step_e < 16) { step_e = step_e * 2 }
set xtics ()
do for [e = lo_e : hi_e] {
    if ((hi_e - e) % step_e == 0) { set xtics add (sizelab(2.0**e) 2.0**e) } else { set xtics add ("" 2.0**e 1) }
}
do for [t = 1:2] {
    eval (t == 1 ? png_on : svg_on)
    set multiplot title ptitle font ",14"
    do for [k = 1:4] {
        col = (k - 1) % 2; row = (k - 1) / 2
        set lmargin at screen col * 0.5 + 0.06
        set rmargin at screen (col + 1) * 0.5 - room(col)
        set tmargin at screen (row == 0 ? 0.90 : 0.455)
        set bmargin at screen (row == 0 ? 0.545 : 0.09)
        set title famtitle(k) font ",12"
        # the key right of the panel (and of its busbw axis), never over the data
        set key at screen (col + 1) * 0.5 - room(col) + y2w / W + 0.005, screen (row == 0 ? 0.90 : 0.455) left top \
            vertical Left reverse samplen 2.5 spacing 1.05 font ",10" box lc rgb "#bbbbbb"
        set xlabel (row == 1 ? "message size (bytes, log2 scale)" : "")
        L = ""; nfam = 0
        do for [i = 1:n] {
            f = int(word(fams, i))
            if (f == 0 || f == k) { L = L." ".i; nfam = nfam + (f == k) }
        }
        unset label
        if (nfam == 0) { set label 1 "no rows of this family" at graph 0.5, graph 0.5 center tc rgb "#777777" font ",12" front }
        # (an empty for [j = 1:0] still evaluates its options: a panel with no series plots none)
        if (words(L) == 0) {
            plot NaN notitle
        } else { if (best) {
            plot for [j = 1:words(L)] data index (int(word(L, j)) - 1) using 1:ycol with lines \
                     lc rgb word(colors, int(word(L, j))) dt int(word(dts, int(word(L, j)))) lw real(word(lws, int(word(L, j)))) \
                     title wrap(word(names, int(word(L, j)))), \
                 for [j = 1:words(L)] data index (int(word(L, j)) - 1) using 1:ycol:ptcol with points \
                     lc rgb word(colors, int(word(L, j))) pt variable ps 1.1 notitle, \
                 for [m = 1:words(tnames)] NaN with points lc rgb '#555555' pt int(word(tpts, m)) ps 1.1 title 'on '.word(tnames, m)
        } else {
            plot for [j = 1:words(L)] data index (int(word(L, j)) - 1) using 1:ycol with linespoints \
                     lc rgb word(colors, int(word(L, j))) pt int(word(pts, int(word(L, j)))) dt int(word(dts, int(word(L, j)))) \
                     lw real(word(lws, int(word(L, j)))) ps 1.1 title wrap(word(names, int(word(L, j)))), \
                 NaN notitle
        } }
    }
    unset multiplot
}
set output
