# sizeaxis.gp: a log2 size axis on x with KiB/MiB/GiB labels on powers of two (every second or
# fourth one on wide ranges so labels never touch, counted from the largest size so that it is
# always labelled) and unlabelled ticks on the others.
stats data using 1 nooutput
lo_e = floor(log(STATS_min) / log(2) + 1e-9)
hi_e = ceil(log(STATS_max) / log(2) - 1e-9)
if (hi_e - lo_e < 2) { lo_e = lo_e - 1; hi_e = hi_e + 1 }
step_e = hi_e - lo_e > 26 ? 4 : hi_e - lo_e > 12 ? 2 : 1
set logscale x 2
set xrange [2.0**lo_e / 1.25 : 2.0**hi_e * 1.25]
set xtics ()
do for [e = lo_e : hi_e] {
    if ((hi_e - e) % step_e == 0) { set xtics add (sizelab(2.0**e) 2.0**e) } else { set xtics add ("" 2.0**e 1) }
}
set mxtics 1
set xlabel "message size (bytes, log2 scale)"
