# nightinfo.awk: one line for history.sh's manifest of a run folder, from its first measured row:
#   TIME<TAB>DIR<TAB>GROUP<TAB>GROUP IN WORDS<TAB>DATE<TAB>TIME
# where GROUP is host|gpu|ranks|gpus|placement. Load csv.awk first.
#   awk -f csv.awk -f nightinfo.awk -v d=DIR -v pl=PLACEMENT -v gpus=GPUS DIR/results.csv
# (PLACEMENT and GPUS: runinfo.awk's)
FNR == 1 { csv_header($0, col); next }
{
    csv_split($0, f)
    if (tolower(get(f, col, "source", "gpu")) == "model") next
    h = clean_text(get(f, col, "host", "?")); g = clean_text(get(f, col, "gpu", "GPU")); n = get(f, col, "n_gpus", "?")
    ts = get(f, col, "timestamp", "")
    if (ts !~ /^[0-9][0-9][0-9][0-9]-/) ts = get(f, col, "run_id", d)
    w = h ": " g (pl == "1 rank/GPU" ? " x" n ", 1 rank/GPU" : ", " pl_words(pl, n))
    printf "%s\t%s\t%s|%s|%s|%s|%s\t%s\t%s\t%s\n", ts, d, h, g, n, gpus, pl, w, substr(ts, 1, 10), ts
    exit
}
