#!/usr/bin/env bash
# The ce flow program's timetable (tp_timetable.h) against none, one device call (4 x H200):
# optcc-switch at 1 GiB with GPU 3 2x slower; flag waits by kernel (AR_FLAGS); the plan's
# model constants (TT_GUARD copy us, TT_FLAG flag us, TT_SUMW sum-wait us). Summary into
# $OUT/timetable.log. Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tests/gpu/timetable.sh
. "$(dirname "$0")/lib.sh"
L="$O/timetable.log"
d=(--sizes 1G --transport ce --degrade 3:2.0 --pipeline 0 -n 20 -w 5)
export AR_FLAGS=kernel
row "$L" 60 "kernel flags, ring" --algo ring "${d[@]}"
AR_CE_TIMETABLE=0 row "$L" 60 "kernel flags, timetable off" --algo optcc-switch "${d[@]}"
for cfg in "4 8 0" "4 20 10" "4 16 0" "6 20 20" "4 8 0"; do
  set -- $cfg
  TT_GUARD=$1 TT_FLAG=$2 TT_SUMW=$3 row "$L" 60 "copy +$1 us, flag $2 us, sum wait $3 us" --algo optcc-switch "${d[@]}"
done
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
