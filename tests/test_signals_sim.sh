#!/usr/bin/env bash
# Every stop marked (#45), on the simulated machine: SIGINT, SIGTERM, SIGHUP and SIGPIPE, once
# or twice 10 ms apart, before the first row, mid-sweep, while the pictures are drawn and while
# summary.md is written, each leave a folder that says what happened: INCOMPLETE (its first
# line naming the first signal) and a summary.md that says so (or, for a signal while summary.md
# is written, a finished summary.md of a complete run), every row measured whole in
# results.csv, no temporary file and no drawing script left running, one line on stderr, and
# exit 128 + the signal (never 0). The moments are exact: AR_SIM_STOP freezes the run at a
# chosen AllReduce (the signals are sent while it is stopped, then it goes on), and stand-ins
# for gnuplot and awk on PATH hold the first picture or the summary until they are signalled.
. "$(dirname "$0")/lib.sh"
B=${B:-build}

. tests/sim/build.sh
sim_build signals
S=$PWD/$S
ROWS=(--gpus 0,1 --algo ring,rhd --transport ce -b 1K -e 1M -n 2 -w 1)
TOTAL=22 # 11 sizes x 2 algorithms

# rowsok FILE: every line of the CSV has the header's field count
rowsok() { awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad }' "$1"; }
nrows() { echo $(($(wc -l <"$1/results.csv") - 1)); }
signum() { kill -l "$1"; }

# stand-ins: the first gnuplot (a picture) or the first awk reading summary.awk writes its pid
# to $HOLD and waits (at most 20 s) for $HOLD.go before doing its work; every later call is
# the real one
real_awk=$(command -v awk) real_gnuplot=$(command -v gnuplot)
mkdir -p "$tmp/bin"
hold='if [ ! -e "$HOLD" ]; then echo $$ >"$HOLD"; i=0; while [ ! -e "$HOLD.go" ] && [ $((i += 1)) -lt 400 ]; do sleep 0.05; done; fi'
printf '#!/usr/bin/env bash\n%s\nexec %s "$@"\n' "$hold" "$real_gnuplot" >"$tmp/bin/gnuplot"
printf '#!/usr/bin/env bash\ncase " $* " in *summary.awk*) %s ;; esac\nexec %s "$@"\n' "$hold" "$real_awk" >"$tmp/awkbin"
chmod +x "$tmp/bin/gnuplot" "$tmp/awkbin"
mkdir -p "$tmp/abin" && cp "$tmp/awkbin" "$tmp/abin/awk"

# start NAME [ENV...]: a run of ROWS into $tmp/NAME, in a session of its own (so that a signal
# to its process group is what a Ctrl-C at its terminal sends); sets d and pid
# A SIGHUP ignored on the way in (the suite under nohup) stays ignored in arbench, as it should:
# the trials give their runs the default back (env --default-signal, coreutils 8.31)
dflt=()
env --default-signal=HUP true 2>/dev/null && dflt=(--default-signal=HUP)
start() {
  d=$tmp/$1; shift
  env "${dflt[@]}" "$@" setsid "$S" run "${ROWS[@]}" --out "$d" >"$d.out" 2>"$d.err" &
  pid=$!
}
# alive PID: the process runs (a zombie waiting to be reaped does not)
alive() { case $(ps -o stat= -p "$1" 2>/dev/null) in '' | Z*) return 1 ;; esac; }
# frozen: waits until AR_SIM_STOP stopped the run (state T); 1 when it never did
frozen() {
  for _ in $(seq 400); do
    case $(ps -o stat= -p "$pid" 2>/dev/null) in T*) return 0 ;; esac
    sleep 0.05
  done
  return 1
}
# held: waits until a stand-in holds the drawing ($d.hold written); 1 when none did
held() {
  for _ in $(seq 400); do [ -s "$d.hold" ] && return 0; sleep 0.05; done
  return 1
}
# send SIG [SIG2]: SIG to the run (SIG2 10 ms later), and it goes on if it was stopped
send() {
  kill -"$1" "$pid"
  kill -CONT "$pid" 2>/dev/null
  if [ $# -gt 1 ]; then sleep 0.01; kill -"$2" "$pid"; fi
}
# ended: its exit status into rc, and how long it took after the signal into took (s)
ended() {
  local t0=$SECONDS
  wait "$pid"; rc=$?
  took=$((SECONDS - t0))
}

# marked WHAT SIG MIN MAX [REASON [LAST]]: the run stopped by SIG (the first signal; LAST, the
# one that ended it, default SIG) is marked: exit 128 + LAST, INCOMPLETE's first line
# "stopped by SIG..." (matching REASON when given),
# summary.md says "Incomplete run: stopped by SIG", MIN..MAX rows all whole, no temporary file,
# the held stand-in (if any) ended, one line on stderr naming SIG, and no 20 s wait
marked() {
  local what=$1 sig=$2 lo=$3 hi=$4 why=${5:-} n
  local want=$((128 + $(signum "${6:-$sig}")))
  n=$(nrows "$d")
  [ "$rc" -eq "$want" ] && ok || bad "$what: exit $rc, want $want: $(cat "$d.err")"
  grep -q "^stopped by SIG$sig${why:+.*$why}" "$d/INCOMPLETE" 2>/dev/null && ok ||
    bad "$what: INCOMPLETE missing or not 'stopped by SIG$sig${why:+ .. $why}': $(cat "$d/INCOMPLETE" 2>&1)"
  grep -q "^\*\*Incomplete run: stopped by SIG$sig" "$d/summary.md" 2>/dev/null && ok ||
    bad "$what: summary.md missing or not marked: $(head -n 3 "$d/summary.md" 2>&1)"
  rowsok "$d/results.csv" && [ "$n" -ge "$lo" ] && [ "$n" -le "$hi" ] && ok ||
    bad "$what: $n rows (want $lo..$hi), or a row not whole"
  [ -z "$(ls -A "$d" | grep -E '^\.(summary\.md|report\.html|INCOMPLETE|FAILED)\.')" ] && ok ||
    bad "$what: temporary files left: $(ls -A "$d")"
  if [ -s "$d.hold" ]; then
    ! alive "$(cat "$d.hold")" && ok || bad "$what: the drawing script still runs"
  fi
  grep -v '^fake_gpu: AR_SIM_STOP' "$d.err" >"$d.said" # the stand-in's own line
  [ "$(wc -l <"$d.said")" -eq 1 ] && grep -q "^arbench: stopped by SIG$sig" "$d.said" && ok ||
    bad "$what: want one line on stderr: $(cat "$d.said")"
  [ "$took" -lt 15 ] && ok || bad "$what: took $took s after the signal"
}

# 1. before the first row (frozen at the first AllReduce: results.csv is its header alone)
for sigs in INT HUP "INT INT" "TERM TERM" "HUP INT"; do
  name=first_${sigs// /_}
  start "$name" AR_SIM_STOP=0:1
  if ! frozen; then bad "$name: the run never reached its first AllReduce"; kill -KILL "$pid"; continue; fi
  [ "$(nrows "$d")" -eq 0 ] && ok || bad "$name: rows before the first row: $(nrows "$d")"
  # shellcheck disable=SC2086 # one or two signals
  send $sigs
  ended
  set -- $sigs
  if [ $# -eq 1 ]; then marked "SIG$1 before the first row" "$1" 1 1 "before every row was measured"
  else marked "SIG$1, SIG$2 10 ms apart before the first row" "$1" 0 1 "before every row was measured" "$2"; fi
done

# 2. mid-sweep (frozen at rank 0's 40th AllReduce): the rows before stay, each whole
for sigs in HUP PIPE "INT INT" "TERM TERM" "PIPE INT"; do
  name=mid_${sigs// /_}
  start "$name" AR_SIM_STOP=0:40
  if ! frozen; then bad "$name: the run never froze mid-sweep"; kill -KILL "$pid"; continue; fi
  before=$(nrows "$d")
  [ "$before" -gt 0 ] && [ "$before" -lt "$TOTAL" ] && ok || bad "$name: frozen with $before rows, not mid-sweep"
  # shellcheck disable=SC2086
  send $sigs
  ended
  set -- $sigs
  marked "SIG$sigs mid-sweep" "$1" "$before" $((TOTAL - 1)) "" "${2:-$1}"
done

# 3. the reader of stdout goes away: `arbench run ... | head -n 1`
d=$tmp/pipe
t0=$SECONDS
"$S" run --gpus 0,1,2,3 --algo all --transport all -b 1K -e 1G -n 50 -w 5 --out "$d" 2>"$d.err" | head -n 1 >/dev/null
rc=${PIPESTATUS[0]} took=$((SECONDS - t0))
marked "run | head -n 1" PIPE 0 1028 "before every row was measured"

# 4. while the pictures are drawn (the first gnuplot held): a first signal ends the drawing,
#    INCOMPLETE says the pictures are missing, summary.md is still written and says so; every
#    row is there. The Ctrl-C of a terminal reaches the whole process group.
for how in INT TERM HUP group-INT "INT INT"; do
  name=pictures_${how// /_}
  start "$name" HOLD="$tmp/$name.hold" PATH="$tmp/bin:$PATH"
  if ! held; then bad "$name: no picture was drawn"; kill -KILL "$pid"; continue; fi
  case $how in
    group-*) sig=${how#group-}; kill -"$sig" -- "-$pid" ;;
    *) sig=${how%% *}; # shellcheck disable=SC2086
       send $how ;;
  esac
  ended
  marked "SIG$how while the pictures were drawn" "$sig" "$TOTAL" "$TOTAL" "while the pictures were drawn"
done

# 5. while summary.md is written (its awk held): a first signal lets it finish: the run is
#    complete (no INCOMPLETE, summary.md whole with its tables), one line says so, exit 128 +
#    the signal; a second signal ends it at once, marked as above
for sig in INT TERM; do
  name=summary_$sig
  start "$name" HOLD="$tmp/$name.hold" PATH="$tmp/abin:$PATH"
  if ! held; then bad "$name: summary.sh never ran"; kill -KILL "$pid"; continue; fi
  send "$sig"
  sleep 0.2 && touch "$d.hold.go"
  ended
  want=$((128 + $(signum "$sig")))
  [ "$rc" -eq "$want" ] && [ ! -e "$d/INCOMPLETE" ] && ok || bad "SIG$sig while summary.md was written: exit $rc (want $want), INCOMPLETE: $(cat "$d/INCOMPLETE" 2>&1)"
  grep -q '^| 1 MiB | r[a-z]*/ce' "$d/summary.md" 2>/dev/null && grep -q "^- rows: $TOTAL, $TOTAL ok" "$d/summary.md" && ! grep -q Incomplete "$d/summary.md" && ok ||
    bad "SIG$sig while summary.md was written: summary.md not whole: $(head -n 5 "$d/summary.md" 2>&1)"
  [ "$(nrows "$d")" -eq "$TOTAL" ] && [ "$(wc -l <"$d.err")" -eq 1 ] &&
    grep -q "^arbench: SIG$sig came once every row was measured: the run is complete" "$d.err" &&
    ok || bad "SIG$sig while summary.md was written: $(nrows "$d") rows, stderr: $(cat "$d.err")"
done
name=summary_INT_INT
start "$name" HOLD="$tmp/$name.hold" PATH="$tmp/abin:$PATH"
if held; then
  send INT INT
  ended
  marked "SIGINT twice while summary.md was written" INT "$TOTAL" "$TOTAL" "while summary.md was written"
else bad "$name: summary.sh never ran"; kill -KILL "$pid"; fi

# 6. stopped mid-sweep, then a second signal while that run's pictures are drawn: the stop's
#    INCOMPLETE stays, and summary.md (never written by summary.sh) says the run is incomplete
name=mid_then_pictures
start "$name" AR_SIM_STOP=0:40 HOLD="$tmp/$name.hold" PATH="$tmp/bin:$PATH"
if frozen; then
  before=$(nrows "$d")
  send INT
  if held; then
    kill -INT "$pid"
    ended
    marked "SIGINT mid-sweep, SIGINT while its pictures were drawn" INT "$before" $((TOTAL - 1)) "before every row was measured$"
    grep -q "no tables and no pictures here" "$d/summary.md" && ok || bad "$name: summary.md does not say what is missing: $(cat "$d/summary.md")"
  else bad "$name: no picture was drawn after the stop"; kill -KILL "$pid"; fi
else bad "$name: the run never froze"; kill -KILL "$pid"; fi

# 7. a run that no signal reached: exit 0, nothing marked
d=$tmp/whole
"$S" run "${ROWS[@]}" --out "$d" >/dev/null 2>"$d.err"; rc=$?
[ "$rc" -eq 0 ] && [ ! -e "$d/INCOMPLETE" ] && [ "$(nrows "$d")" -eq "$TOTAL" ] &&
  ! grep -q Incomplete "$d/summary.md" && ok || bad "a whole run: exit $rc, $(nrows "$d") rows: $(cat "$d.err")"

finish
