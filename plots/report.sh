#!/usr/bin/env bash
# plots/report.sh RUN_DIR [BASELINE_RUN_DIR]: writes RUN_DIR/report.html, the morning view of a
# run: one self-contained page (every picture inlined as SVG, no script, nothing fetched) that
# opens with the answers: regressions against the baseline, the best per size range (ties named)
# with its ratio to nccl at its strongest, critical delays against the model and the
# degraded-link table with OPTCC's bound; then stragglers, failed rows and the critical search's
# probes; then every picture, the overlap and phase views, the settings and meta.txt. Its tables
# are summary.md's (run plots/summary.sh first; summary.sh calls this at its end), turned into
# HTML by md2html.awk. awk and bash only. Prints "report.sh: wrote RUN_DIR/report.html".
# Exit status: 0 written; 1 no summary.md or not writable; 2 usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/html.sh"
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "$1" ]; then
  echo "usage: plots/report.sh RUN_DIR [BASELINE_RUN_DIR]" >&2
  exit 2
fi
run=$1 basedir=${2:-}
# a leading '-' is no option, an '=' no awk assignment
case $run in -* | [!/.]*=*) run=./$run ;; esac
case $basedir in -* | [!/.]*=*) basedir=./$basedir ;; esac
md=$run/summary.md
if [ ! -s "$md" ]; then
  echo "report.sh: $md: missing or empty (run plots/summary.sh $run first)" >&2
  exit 1
fi

# section PREFIX: the body of summary.md's first "## PREFIX..." section
section() { awk -v h="## $1" 'index($0, h) == 1 && !done { on = 1; done = 1; next } /^## / { on = 0 } on' "$md"; }
heading() { grep -m1 "^## $1" "$md" | sed 's/^## //'; }
html() { awk -f "$here/md2html.awk" "$@"; }
# say TEXT: a paragraph saying why a section is empty
say() { printf '<p class="none">%s</p>\n' "$1"; }
# pictures GLOB...: plots/*.svg not yet shown whose names match the globs, glob by glob; a
# glob "!G" leaves G out of the globs after it. Returns 1 when it showed none.
declare -A shown
pictures() {
  local f n g x found=0 skip=()
  for g in "$@"; do
    if [ "${g#!}" != "$g" ]; then skip+=("${g#!}"); continue; fi
    for f in "$run"/plots/*.svg; do
      [ -e "$f" ] || continue
      n=$(basename "$f" .svg)
      [ -n "${shown[$n]:-}" ] && continue
      # shellcheck disable=SC2053 # globs on purpose
      [[ $n == $g ]] || continue
      for x in "${skip[@]}"; do [[ $n == $x ]] && continue 2; done
      shown[$n]=1; figure "$run" "$n"; found=1
    done
  done
  [ "$found" = 1 ]
}

# named before it exists, so that a stop at any moment leaves nothing (as summary.sh's)
tmp=$run/.report.html.$$
trap 'rm -f "$tmp"' EXIT
rm -f "$tmp" && : >"$tmp" || exit 1
title=$(grep -m1 '^# ' "$md" | sed 's/^# //')
# what kind of run summary.md says this is: measured, none (nothing could run) or model
kind=measured
if grep -q '^- model mode:' "$md"; then kind=model
elif grep -q '^\*\*Nothing could run' "$md"; then kind=none; fi
{
  page_head "$title"
  printf '<h1 id="top">%s</h1>\n' "$(printf '%s' "$title" | esc)"
  # the run's lines (GPUs, rows) and any note above the first table
  awk '/^## /{exit} NR > 1' "$md" | html
  hist=
  for h in "$run/../history/history.html" "$run/history/history.html"; do
    [ -e "$h" ] && { hist=${h#"$run/"}; break; }
  done
  printf '<nav>'
  for s in regressions:Regressions best:Best\ per\ size nccl-tests:Beside\ nccl-tests critical:Critical\ delays \
           degraded:Degraded\ links straggler:Stragglers failed:Failed\ rows probes:Search\ probes pictures:Pictures \
           overlap:Overlap compute:Beside\ compute phases:Phases settings:Settings meta:meta.txt; do
    [ "${s%%:*}" = nccl-tests ] && [ ! -s "$run/compare.md" ] && continue
    printf '<a href="#%s">%s</a>' "${s%%:*}" "${s#*:}"
  done
  [ -n "$hist" ] && printf '<a href="%s">Trend over nights</a>' "$hist"
  printf '</nav>\n'

  printf '<section id="regressions">\n<h2>Regressions against the baseline</h2>\n'
  if [ -n "$(heading 'Regressions against')" ]; then
    printf '<p>%s</p>\n' "$(heading 'Regressions against' | esc)"
    section 'Regressions against' | html -v rowclass=regressed
    section 'Regressions against' | grep -q '^None' && printf '<p class="ok">No regression.</p>\n'
  elif [ "$kind" = model ]; then
    say "Model mode: nothing was measured, so nothing was compared with a baseline."
  else
    say "No baseline: this run was compared with nothing (arbench run --baseline RUN_DIR; make run takes the last complete run of the same machine, GPU count and placement)."
  fi
  printf '</section>\n'

  printf '<section id="best">\n<h2>Best per size range (clean), against nccl</h2>\n'
  if [ "$kind" = none ]; then
    say "Nothing could run: no row was timed (see Rows that could not run)."
  elif [ -n "$(heading 'Clean$')" ]; then
    if [ "$kind" = model ]; then
      printf '<p>The model'"'"'s times, not measurements: consecutive sizes where the model prices the same algorithm fastest (nccl has no model, so no comparison with it).</p>\n'
    elif section 'Clean' | grep -q '| vs nccl |'; then
      printf '<p>At each size the winners are the fastest schedule and those tied with it (their intervals overlap: <em>a ~ b</em>), with <em>nccl MODE</em> where nccl ties, or nccl alone where it was faster. A range runs over consecutive sizes while some winner wins at every one of them, and names exactly those; <em>fastest schedule</em> lists who was fastest at its sizes. <em>best schedule vs nccl</em> is nccl'"'"'s median over the fastest schedule'"'"'s (&gt; 1: the schedule is faster), against nccl at its strongest (<em>nccl mode</em>), its range over the sizes; ratios resting on fewer than 6 samples are left out and counted.</p>\n'
    else
      printf '<p>At each size the fastest schedule and those tied with it (<em>a ~ b</em>); a range runs over consecutive sizes while some of them win at every one (nccl did not run, so no comparison with it).</p>\n'
    fi
    section 'Clean' | awk -f "$here/csv.awk" -f "$here/ranges.awk" | html
    printf '<details><summary>Every size</summary>\n'; section 'Clean' | html; printf '</details>\n'
  else
    say "No clean rows in this run."
  fi
  printf '</section>\n'

  # make compare-nccl-tests writes compare.md: its table per size and timing method, as it is
  if [ -s "$run/compare.md" ]; then
    printf '<section id="nccl-tests">\n<h2>Beside nccl-tests (compare.md)</h2>\n'
    awk 'NR == 1 && /^# / { next } 1' "$run/compare.md" | html
    printf '</section>\n'
  fi

  printf '<section id="critical">\n<h2>Critical straggler delay, measured and modelled</h2>\n'
  if [ -n "$(heading 'Critical straggler delay')" ]; then section 'Critical straggler delay' | html
  else say "No critical.csv: this run did not search for critical delays (--find-critical)."; fi
  printf '</section>\n'

  printf '<section id="degraded">\n<h2>Degraded links, against OPTCC'"'"'s lower bound</h2>\n'
  if [ -n "$(heading 'Degraded link')" ]; then section 'Degraded link' | html
  else say "No degraded-link rows in this run (--degrade)."; fi
  printf '</section>\n'

  printf '<section id="straggler">\n<h2>Stragglers</h2>\n'
  if [ -n "$(heading 'Straggler$')" ]; then section 'Straggler' | html
  else say "No straggler rows in this run (--straggler)."; fi
  printf '</section>\n'

  printf '<section id="failed">\n<h2>Rows that failed</h2>\n'
  # summary.md says what was checked: green only where rows ran and none failed
  if section 'Rows that failed' | grep -q '^None:'; then section 'Rows that failed' | html -v pclass=ok
  elif [ -n "$(heading 'Rows that failed')" ]; then section 'Rows that failed' | html -v rowclass=regressed
  else say "summary.md has no list of failed rows (written by an older plots/summary.sh): plots/summary.sh $run writes it again."; fi
  if [ -n "$(heading 'Rows that could not run')" ]; then
    printf '<h3>Rows that could not run</h3>\n'; section 'Rows that could not run' | html
  fi
  printf '</section>\n'

  # the search's probes last: how it found the critical delays, not an answer
  printf '<section id="probes">\n<h2>Critical search probes</h2>\n'
  if [ -n "$(heading 'Critical search probes')" ]; then
    printf '<details><summary>Every probe of the search</summary>\n'; section 'Critical search probes' | html; printf '</details>\n'
  else say "No critical-delay search in this run (--find-critical)."; fi
  printf '</section>\n'

  printf '<section id="pictures">\n<h2>Pictures</h2>\n'
  if ! pictures '!overlap_*' '!phases_*' '!compute_*' 'no_data' 'best_*' 'algbw_*' 'time_*' 'arrival_*' 'straggler_*' 'critical_*' 'degraded_*' 'pipeline_*' 'model_*' '*'; then
    # shellcheck disable=SC2016
    say "No pictures: gnuplot was not installed where the run ended; plots/plot.sh $run draws them, then plots/summary.sh $run writes this page again."
  fi
  printf '</section>\n'

  printf '<section id="overlap">\n<h2>Overlap (--profile overlap)</h2>\n'
  if [ -n "$(heading 'Overlap')" ]; then section 'Overlap' | html; pictures 'overlap_*'
  else say "Not profiled: run with --profile overlap (or timeline) for this view."; fi
  [ -s "$run/trace.json" ] && printf '<p>Every copy, sum, delay and phase of the profiled rows: <a href="trace.json">trace.json</a> (open it in ui.perfetto.dev or chrome://tracing).</p>\n'
  printf '</section>\n'

  printf '<section id="compute">\n<h2>Beside compute (--compute)</h2>\n'
  if [ -n "$(heading 'Beside compute')" ]; then section 'Beside compute' | html; pictures 'compute_*'
  else say "No load beside the AllReduce in this run (--compute)."; fi
  printf '</section>\n'

  printf '<section id="phases">\n<h2>Phases (--phases)</h2>\n'
  pictures 'phases_*' || say "No phases.csv: run with --phases for the per-rank timeline."
  printf '</section>\n'

  printf '<section id="settings">\n<h2>Settings in effect</h2>\n'
  if [ -s "$run/COMMAND" ]; then printf '<pre>%s</pre>\n' "$(esc <"$run/COMMAND")"; fi
  if [ -s "$run/meta.txt" ]; then
    # meta.txt's "key: value" lines before its first "---" block
    awk 'BEGIN { print "| setting | value |"; print "|---|---|" } /^---/ { exit }
         /^[A-Za-z_][A-Za-z0-9_ .\/-]*: / { k = $0; sub(/:.*/, "", k); v = $0; sub(/^[^:]*: /, "", v); gsub(/\|/, "/", v); print "| " k " | " v " |" }' \
      "$run/meta.txt" | html
  else
    say "No meta.txt in this run folder."
  fi
  [ -n "$basedir" ] && printf '<p>Baseline: %s</p>\n' "$(printf '%s' "$basedir" | esc)"
  printf '</section>\n'

  printf '<section id="meta">\n<h2>meta.txt</h2>\n'
  if [ -s "$run/meta.txt" ]; then printf '<pre>%s</pre>\n' "$(esc <"$run/meta.txt")"
  else say "No meta.txt in this run folder."; fi
  printf '</section>\n</body>\n</html>\n'
} >"$tmp" || exit 1
mv "$tmp" "$run/report.html" || exit 1
trap - EXIT
echo "report.sh: wrote $run/report.html"
