#!/usr/bin/env bash
# Where `make plots RUN=DIR [OUT=DIR]` (plots/plot.sh RUN_DIR [OUT_DIR]) draws: into the folder
# the user names, or RUN_DIR/plots; a checked-in run folder (git lists its files, as
# runs/reference/NAME) is never redrawn unless named as OUT: its pictures go to plots-NAME in the
# nearest folder above it that git ignores (runs/plots-NAME), and it says so. An OUT that holds
# other files is refused with one line naming it, exit 2, nothing drawn or removed.
. "$(dirname "$0")/lib.sh"
if ! command -v gnuplot >/dev/null 2>&1 || ! command -v git >/dev/null 2>&1; then
  echo "skipped: the plots' folders (gnuplot or git is not installed: apt-get install -y gnuplot-nox git)"
  [ "${CI:-}" = true ] && bad "CI installs gnuplot and git"
  finish; exit
fi
# a repository laid out as ours: runs/ ignored but runs/reference/, with a run folder checked in
# (pictures and all)
R=$tmp/repo
mkdir -p "$R/runs/reference"
cp -r tests/fixtures/small "$R/runs/reference/x"
mkdir -p "$R/runs/reference/x/plots" && echo old >"$R/runs/reference/x/plots/best_clean.png"
printf 'runs/*\n!runs/reference/\n' >"$R/.gitignore"
git -C "$R" init -q && git -C "$R" add -A && git -C "$R" -c user.name=t -c user.email=t@t commit -qm fixture ||
  { bad "git: could not make the fixture repository"; finish; exit; }
pngs() { ls "$1"/*.png 2>/dev/null | wc -l; }

# the default for a checked-in run: runs/plots-x, said in one line; the checked-in files unchanged
out=$(make --no-print-directory plots RUN="$R/runs/reference/x" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(pngs "$R/runs/plots-x")" -gt 0 ] && [ -z "$(git -C "$R" status --porcelain)" ] &&
  printf '%s\n' "$out" | grep -qxF "plot.sh: $R/runs/reference/x is checked in: drawing into $R/runs/plots-x (not into it; OUT=DIR draws elsewhere)" &&
  ok || bad "make plots of a checked-in run: exit $rc, $(git -C "$R" status --porcelain): $out"
# again: the folder it drew before is drawn anew
expect 0 "in $R/runs/plots-x\$" make --no-print-directory plots RUN="$R/runs/reference/x"
# the folder the user names: there, and nowhere else
out=$(make --no-print-directory plots RUN="$R/runs/reference/x" OUT="$tmp/pics" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(pngs "$tmp/pics")" = "$(pngs "$R/runs/plots-x")" ] && [ -z "$(git -C "$R" status --porcelain)" ] &&
  printf '%s\n' "$out" | grep -qxF "plot.sh: $(pngs "$tmp/pics") pictures (PNG and SVG) in $tmp/pics" && ok ||
  bad "make plots OUT=DIR: exit $rc: $out"
# asked explicitly, into the checked-in folder itself
out=$(make --no-print-directory plots RUN="$R/runs/reference/x" OUT="$R/runs/reference/x/plots" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(head -c 3 "$R/runs/reference/x/plots/best_clean.png")" != old ] && ok ||
  bad "make plots OUT= the checked-in plots: exit $rc: $out"
# an OUT with other files: one line naming it, exit 2, its files kept
mkdir -p "$tmp/used" && echo keep >"$tmp/used/notes.txt" && cp "$tmp/pics"/*.png "$tmp/used/"
out=$(bash plots/plot.sh "$R/runs/reference/x" "$tmp/used" 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "plot.sh: OUT: bad value '$tmp/used': holds files plot.sh did not write (notes.txt); plot.sh draws into a new or empty folder, or one of pictures" ] &&
  [ "$(pngs "$tmp/used")" = "$(pngs "$tmp/pics")" ] && ok || bad "plot.sh into a used folder: exit $rc: $out"
expect 2 '^usage: plots/plot.sh RUN_DIR \[OUT_DIR\]' make --no-print-directory plots
finish
