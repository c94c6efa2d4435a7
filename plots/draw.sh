# plots/draw.sh, sourced by plot.sh and history.sh: draw_drivers LIST OUT_DIR WHO runs the gnuplot
# drivers named in the file LIST (one path a line) in one gnuplot process: starting gnuplot
# (loading its libraries and fonts) costs about as much as drawing a picture, and a run folder
# has dozens. Each driver starts from `reset session` (nothing carried over from the one before)
# after a marker line, so that gnuplot's messages are put to the driver they came from. An error
# ends gnuplot: that driver failed, the ones before it were drawn, and the rest go on in a new
# gnuplot. A failed driver's half-drawn OUT_DIR/NAME.png and .svg are removed and its messages
# printed ("WHO: gnuplot failed on NAME:"); a drawn one's warnings as "WHO: NAME: ...". Sets
# drawn and failed (counts). Needs gnuplot 5.2 or later (`reset session`).

# driver_batch LIST FROM [SETUP]: the gnuplot script that runs LIST's drivers from line FROM on,
# each after `reset session`, SETUP (gnuplot commands, if given) and the marker
# "@@arbench driver N" (N: its line in LIST)
driver_batch() {
  # a single quote inside a gnuplot single-quoted string is written twice
  awk -v from="$2" -v setup="${3:-}" 'NR >= from { gsub(/\047/, "\047\047")
    printf "reset session\n%sprint \"@@arbench driver %d\"\nload \047%s\047\n",
           setup == "" ? "" : setup "\n", NR, $0 }' "$1"
}

# said_as PREFIX TEXT: TEXT's lines on stderr, each after PREFIX
said_as() {
  local line
  [ -n "$2" ] || return 0
  while IFS= read -r line; do printf '%s%s\n' "$1" "$line" >&2; done <<<"${2%$'\n'}"
}
draw_drivers() {
  local list=$1 outdir=$2 who=$3 total from=1 last out rc line k name
  local -a said names
  drawn=0 failed=0
  mapfile -t names <"$list"
  total=${#names[@]}
  while [ "$from" -le "$total" ]; do
    driver_batch "$list" "$from" >"$list.batch"
    out=$(gnuplot "$list.batch" 2>&1); rc=$?
    said=() last=0
    while IFS= read -r line; do
      case $line in
        "@@arbench driver "*) last=${line#@@arbench driver }; said[last]= ;;
        *) [ -n "$line" ] && said[last]+="$line"$'\n' ;;
      esac
    done <<<"$out"
    # gnuplot failed before the first driver's marker: that driver is the one that failed
    [ "$rc" -ne 0 ] && [ "$last" -lt "$from" ] && { said[from]=${said[0]:-}; last=$from; }
    for ((k = from; k <= last; k++)); do
      name=${names[k - 1]##*/} name=${name%.gp}
      if [ "$rc" -ne 0 ] && [ "$k" -eq "$last" ]; then
        echo "$who: gnuplot failed on $name:" >&2
        said_as "  " "${said[k]:-}"
        rm -f "$outdir/$name.png" "$outdir/$name.svg"
        failed=$((failed + 1))
      else
        said_as "$who: $name: " "${said[k]:-}"
        drawn=$((drawn + 1))
      fi
    done
    # every driver ran (a clean end before the last marker would loop for ever)
    [ "$rc" -eq 0 ] && break
    from=$((last + 1))
  done
  rm -f "$list.batch"
}
