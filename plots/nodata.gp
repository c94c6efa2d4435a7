# nodata.gp: the picture of a run with nothing to draw: its message (msg, from prep.awk: every
# row's status) in an empty frame, so that no one reads an empty or missing picture as a result.
unset border; unset tics; unset key
set xrange [0:1]; set yrange [0:1]
set label 1 msg at 0.5, 0.55 center font ",16" tc rgb "#b22222"
set label 2 "(plots/plot.sh draws rows whose status is ok and that have a time)" at 0.5, 0.42 center font ",12" tc rgb "#555555"
do for [t = 1:2] {
    eval (t == 1 ? png_on : svg_on)
    plot data index 0 using 1:2 with points notitle
}
set output
