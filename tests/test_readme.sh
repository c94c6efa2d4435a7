#!/usr/bin/env bash
# README.md read as a newcomer reads it, and held to what the code does:
# - short (at most 170 lines; "What you will see" within the first 80), with its sections;
# - its prerequisites complete: every tool .ci/run installs and every package the Makefile's
#   `missing:` lines name is in README, and (where apt has package lists) every Debian package of
#   its install line exists;
# - every command of its code blocks runs and exits as it says (a trailing "(exit N)" in the
#   comment; else 0): arbench's in a scratch folder beside fixture nights (`run` as a dry run:
#   no GPU here), make's as `make -n`, apt-get's as `apt-cache policy`;
# - the closing line it quotes for `make test` is the one tests/run.sh prints;
# - every figure of its prose (a number with a unit: us, ms, GB/s, KiB, x, % ...) is a claim
#   below, found in the checked-in run it names; every file and folder it names exists.
. "$(dirname "$0")/lib.sh"
R=README.md
bin=$(cd "$(dirname "$A")" && pwd)

# ---- short, and in the order a newcomer needs ----
n=$(wc -l <"$R")
[ "$n" -le 170 ] && ok || bad "README.md is $n lines (at most 170: the rest belongs in docs/)"
for h in '## Prerequisites' '## The two commands' '## What you will see' '## Next: five commands' '## Documentation'; do
  grep -qxF "$h" "$R" && ok || bad "README.md has no section '$h'"
done
at=$(grep -nxF '## What you will see' "$R" | cut -d: -f1)
[ "${at:-999}" -le 80 ] && ok || bad "'What you will see' starts at line ${at:-none} (within 80)"

# ---- the code blocks: one command a line (continuations joined), its comment after " # " ----
cmds=$(awk '/^```sh$/ { on = 1; next } /^```/ { on = 0; next }
  on { line = line $0; if (line ~ /\\$/) { sub(/\\$/, "", line); next } print line; line = "" }' "$R")
five=$(awk '/^## Next: five commands$/ { on = 1; next } /^## / { on = 0 } on' "$R" |
  awk '/^```sh$/ { on = 1; next } /^```/ { on = 0; next } on' | grep -c .)
[ "$five" = 5 ] && ok || bad "'Next: five commands' holds $five commands"

# ---- prerequisites: the table names each, .ci/run's and the Makefile's packages are README's ----
table=$(awk '/^## Prerequisites$/ { on = 1; next } /^## / { on = 0 } on' "$R")
for w in nvcc NCCL gnuplot python3 'Open MPI' Chromium; do
  printf '%s\n' "$table" | grep -q "^| .*$w" && ok || bad "README's prerequisites table lacks $w"
done
install=$(printf '%s\n' "$cmds" | grep '^sudo apt-get install -y ' | head -n 1 | sed 's/ *#.*//')
[ -n "$install" ] && ok || bad "README has no one-line install (sudo apt-get install -y ...)"
pkgs=" $(printf '%s' "${install#sudo apt-get install -y }") "
ci_pkgs=$(grep -oE '^(need [a-z0-9]+ "[^"]*"|  install [a-z-]+) [a-z0-9 .-]+' .ci/run | sed -E 's/^(need [a-z0-9]+ "[^"]*"|  install [a-z-]+) //' |
  tr ' ' '\n' | grep . | sort -u)
[ -n "$ci_pkgs" ] && ok || bad ".ci/run: found no packages it installs"
for p in $ci_pkgs; do
  case $pkgs in *" $p "*) ok ;; *)
    if [ "$p" = chromium-browser ] && grep -qF '(Ubuntu: `chromium-browser`)' "$R"; then ok
    else bad ".ci/run installs $p, README's install line does not ($install)"; fi ;;
  esac
done
for p in $(grep -oE 'apt-get install [a-z0-9.-]+' Makefile | awk '{ print $3 }' | sort -u); do
  grep -qF "\`$p\`" "$R" && ok || bad "the Makefile's missing line names $p; README does not"
done
if command -v apt-cache >/dev/null 2>&1 && apt-cache policy python3 2>/dev/null | grep -q 'Candidate: [0-9]'; then
  pol=$(apt-cache policy ${pkgs} 2>/dev/null)
  for p in $pkgs; do
    printf '%s\n' "$pol" | awk -v p="$p:" '$0 == p { on = 1; next } /^[^ ]/ { on = 0 } on && /Candidate:/ { print $2 }' |
      grep -q '^[0-9]' && ok || bad "README's install line: no Debian package $p"
  done
else
  echo "skipped: README's package names against apt (no package lists: apt-get update)"
fi

# ---- every command runs: arbench's in a scratch folder beside fixture nights ----
W=$tmp/w
mkdir -p "$W"
ln -s "$bin" "$W/build" && ln -s "$PWD/configs" "$W/configs" && ln -s "$PWD/plots" "$W/plots"
mkdir -p "$W/runs" && cp -r tests/fixtures/history/spread/night-2026-11-1[567] "$W/runs/"
ran=0
while IFS= read -r line; do
  [ -n "$line" ] || continue
  cmd=${line%% \#*} cmd=${cmd%"${cmd##*[! ]}"} note=
  [ "$cmd" != "$line" ] && note=${line#* \# }
  want=0
  case $note in *"(exit "[0-9]*")"*) want=${note##*(exit }; want=${want%%)*} ;; esac
  read -r -a w <<<"$cmd"
  case ${w[0]} in
    sudo) continue ;;   # the install line: its packages are checked above
    make)
      got=$(make --no-print-directory -n "${w[@]:1}" 2>&1); rc=$? ;;
    build/arbench)
      [ "${w[1]}" = run ] && [ -z "$(printf '%s\n' "${w[@]}" | grep -x -- --dry-run)" ] && w+=(--dry-run)
      got=$(cd "$W" && "${w[@]}" 2>&1); rc=$? ;;
    *) bad "README: a command this test cannot run: $cmd"; continue ;;
  esac
  ran=$((ran + 1))
  [ "$rc" -eq "$want" ] && ok || bad "README: '$cmd' exits $rc, README says $want: $(printf '%s\n' "$got" | tail -n 3)"
done <<<"$cmds"
[ "$ran" -ge 7 ] && ok || bad "README: ran $ran commands of its code blocks"
# what the five commands promise: --list within 100 columns, history's count before the work
awk 'length > 100 { exit 1 }' <<<"$("$A" --list)" && ok || bad "arbench --list is wider than 100 columns"
[ -s "$W/runs/history/history.md" ] && ok || bad "README's 'history runs/' wrote no runs/history/history.md"

# ---- make test's closing line, as README quotes it ----
grep -qF 'ends with the line `N passed, N failed, N skipped`' "$R" && ok || bad "README does not quote make test's closing line"
last=$(B=${B:-build} bash tests/run.sh environment 2>&1 | tail -n 1)
printf '%s\n' "$last" | grep -qE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' && ok ||
  bad "tests/run.sh does not end with 'N passed, N failed, N skipped': $last"

# ---- every figure is a claim found where it says ----
# claims: FIGURES (|-separated, as README writes them) :: FILE :: an extended regex FILE matches
claims=(
  "7.73 us|12.62 us|1 KiB::runs/reference/h200x4-nightly-forward/summary.md::^\| clean \| 1 KiB \| oneshot/sm \| 7\.73 \| [0-9.]+ \| 12\.62 \| "
  "715.4 us|1493.6 us|1.91x|256 MiB::runs/reference/h200x1-compute-gemm/summary.md::^\| clean \| 256 MiB \| direct/sm \| 715\.4 \| direct/sm \| 1493\.6 \| gemm:[0-9x]+ \| [0-9.]+ \| [0-9.]+ \| 1\.91 \| "
  "1.01x|1.81x::runs/reference/h200x1-compute-gemm/results.csv::^([^,]*,){9}rhd,ce,([^,]*,){2}268435456,([^,]*,){44}1\.81[0-9]*,1\.00[5-9][0-9]*,"
  "2879.0 us|4168.7 us|1 GiB::runs/reference/h200x2-compute-gemm/summary.md::^\| clean \| 1 GiB \| async-ring/ce \| 2879\.0 \| nccl \| 4168\.7 \| "
  "1.54x::runs/reference/h200x2-compute-gemm/results.csv::^([^,]*,){9}async-ring,ce,([^,]*,){2}1073741824,([^,]*,){44}1\.5[34][0-9]*,1\.01[0-9]*,"
  "2.05x::runs/reference/h200x2-compute-gemm/results.csv::^([^,]*,){9}direct,sm,([^,]*,){2}1073741824,([^,]*,){44}[0-9.]+,2\.0[45][0-9]*,"
  "260.79 GB/s|243.31 GB/s|8 GiB::runs/reference/h200x4-nightly-forward/summary.md::^\| clean \| 8 GiB \| optcc-switch/ce \| [0-9.]+ \| 260\.79 \| [0-9.]+ \| 243\.31 \| "
)
# the prose: no code blocks, no inline code, no link targets
prose=$(awk '/^```/ { on = !on; next } !on' "$R" | sed -E 's/`[^`]*`//g; s/\]\([^)]*\)/]/g')
figs=$(printf '%s\n' "$prose" |
  grep -oE '(^|[^0-9A-Za-z.])[0-9]+(\.[0-9]+)?(-[0-9]+(\.[0-9]+)?)?( ?(us|ms|ns|s|GB/s|Gb/s|GB|MB|KB|KiB|MiB|GiB|TiB)|x|%)([^0-9A-Za-z/]|$)' |
  sed -E 's/^[^0-9]//; s/[^0-9A-Za-z/%]$//' | sort -u)
known="|"
for c in "${claims[@]}"; do
  f=${c%%::*} rest=${c#*::}; file=${rest%%::*} re=${rest#*::}
  known="$known$f|"
  grep -qE -- "$re" "$file" && ok || bad "README's claim '$f' is not in $file (/$re/)"
  IFS='|' read -r -a each <<<"$f"
  for x in "${each[@]}"; do grep -qF -- "$x" <<<"$prose" && ok || bad "a claim of this test, '$x', is no longer in README"; done
done
while IFS= read -r x; do
  [ -n "$x" ] || continue
  case $known in *"|$x|"*) ok ;; *) bad "README's figure '$x' is found in no checked-in run or test (add its claim here, or drop it)" ;; esac
done <<<"$figs"
# the picture's run kept no samples and measured nccl in one mode, as README says
[ ! -e runs/reference/h200x4-nightly-forward/samples.csv ] && ok || bad "h200x4-nightly-forward has samples now: README says it kept none"

# ---- every file and folder README names exists ----
for p in $(grep -oE '(docs|runs/reference|tools|configs|tests)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$R" | sort -u); do
  case $p in runs/reference/NAME*) continue ;; esac
  [ -e "$p" ] && ok || bad "README names $p, which does not exist"
done
finish
