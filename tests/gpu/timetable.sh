#!/usr/bin/env bash
# The ce flow program's timetable (tp_timetable.h) against none, one device call (4 x H200):
# optcc-switch and ring at 1 GiB with GPU 3 2x slower; k = 12 (the default), 8, 16; knobs;
# one timeline. Run folders into $OUT/timetable.tgz, the summary into $OUT/timetable.log.
# Usage (on the GPU machine): B=.carry/x OUT=$OUT DEADLINE=400 bash tests/gpu/timetable.sh
. "$(dirname "$0")/lib.sh"
L="$O/timetable.log"
d=(--sizes 1G --transport ce --degrade 3:2.0 --pipeline 0)
row "$L" 90 "timetable on" --algo ring,optcc-switch "${d[@]}" -n 20 -w 5
AR_CE_TIMETABLE=0 row "$L" 90 "timetable off" --algo optcc-switch "${d[@]}" -n 20 -w 5
for k in 8 16; do
  row "$L" 60 "timetable on k=$k" --algo optcc-switch --segments $k "${d[@]}" -n 10 -w 3
done
TT_LAG=1 row "$L" 60 "timetable on, lag 2" --algo optcc-switch "${d[@]}" -n 20 -w 5
TT_GUARD=2 row "$L" 60 "timetable on, guard 2 us" --algo optcc-switch "${d[@]}" -n 20 -w 5
row "$L" 60 "timetable on, again" --algo optcc-switch "${d[@]}" -n 20 -w 5
row "$L" 90 "timetable on, timeline" --algo optcc-switch "${d[@]}" -n 6 -w 2 --profile timeline
(cd "$W" && tar czf "$O/timetable.tgz" . 2>/dev/null)
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
