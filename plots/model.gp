# model.gp: median time vs size (log-log where the range is wide): measured lines solid with
# points, the model's dashed in the same colour. A well calibrated model hides under the measured
# line, so where the driver sets nmeas (its first nmeas blocks are the measured series, column 3
# model / measured, NaN where the model has no time) a lower panel shows that ratio per measured
# series, 1 meaning exact.
load gpdir.'/sizeaxis.gp'
if (!exists("nmeas")) nmeas = 0
# the times: log scale only where they span more than a factor 30 (else it would show one tick
# label), with 1-2-5 ticks and the range hugging the data
stats data using 2 nooutput
tmin = STATS_min; tmax = STATS_max
tlog = tmax > 30 * tmin
set_times = "unset logscale y; set yrange [0:*]; set ytics autofreq; set mytics default; " . \
            "set ylabel 'time per AllReduce, median (us)'"
if (tlog) {
    set_times = "set logscale y 10; set yrange [tmin / 1.25 : tmax * 1.25]; set ytics (); set mytics 1; " . \
                "do for [e = floor(log10(tmin)) : ceil(log10(tmax))] { set ytics add (sprintf('%g', 10.0**e) 10.0**e, " . \
                "sprintf('%g', 2 * 10.0**e) 2 * 10.0**e, sprintf('%g', 5 * 10.0**e) 5 * 10.0**e) }; " . \
                "set ylabel 'time per AllReduce, median (us, log scale)'"
}
if (nmeas > 0) {
    # the ratio panel's range: the ratios' extent and 1, log2 where they span more than 4x
    stats data index 0:(nmeas - 1) using 3 nooutput
    rlo = STATS_min < 1 ? STATS_min : 1
    rhi = STATS_max > 1 ? STATS_max : 1
    if (rhi > 4 * rlo) {
        set_ratio = "set logscale y 2; set yrange [rlo / 1.15 : rhi * 1.15]; set ytics autofreq"
    } else {
        # four to six ticks at a 1-2-5 step: the panel is short
        rstep = (rhi - rlo) / 5 + 1e-9; rmag = 10.0**floor(log10(rstep)); rstep = rstep / rmag
        rstep = (rstep <= 1 ? 1 : rstep <= 2 ? 2 : rstep <= 5 ? 5 : 10) * rmag
        set_ratio = "unset logscale y; set yrange [rlo - 0.08 * (rhi - rlo) - 0.01 : rhi + 0.08 * (rhi - rlo) + 0.01]; set ytics rstep"
    }
}
# the right edge of both panels: room for the key (about 7.5 px a character at font 10)
key_len = 0
do for [i = 1:n] { key_len = strlen(word(names, i)) > key_len ? strlen(word(names, i)) : key_len }
key_edge = 1 - (key_len * 7.5 + 80) / 1280.0
key_edge = key_edge > 0.88 ? 0.88 : key_edge < 0.7 ? 0.7 : key_edge
do for [term = 1:2] {
    if (term == 1) { eval png_on } else { eval svg_on }
    eval set_times
    if (nmeas == 0) {
        plot for [i = 1:n] data index (i - 1) using 1:2 with linespoints @style title word(names, i)
    } else {
        # two panels with the same left and right edges (the key sits right of the upper one);
        # the size ticks of the upper one unlabelled
        set multiplot
        set lmargin at screen 0.075; set rmargin at screen key_edge
        set origin 0, 0.3; set size 1, 0.7; set tmargin 3; set bmargin 0.5
        set title ptitle font ",14"
        set xtics (); do for [e = lo_e : hi_e] { set xtics add ("" 2.0**e) }
        unset xlabel
        plot for [i = 1:n] data index (i - 1) using 1:2 with linespoints @style title word(names, i)
        unset title
        set origin 0, 0; set size 1, 0.3; set tmargin 0.5; set bmargin 4
        set xtics ()
        do for [e = lo_e : hi_e] {
            if ((hi_e - e) % step_e == 0) { set xtics add (sizelab(2.0**e) 2.0**e) } else { set xtics add ("" 2.0**e 1) }
        }
        set xlabel "message size (bytes, log2 scale)"
        eval set_ratio
        set mytics default; set format y "%g"
        set ylabel "model / measured"
        set key off
        plot for [i = 1:nmeas] data index (i - 1) using 1:3 with linespoints @style notitle, \
             1 with lines dt 3 lw 1.5 lc rgb "#777777" notitle
        set key on
        unset multiplot
    }
}
set output
