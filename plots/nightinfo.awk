# nightinfo.awk: history.sh's manifest lines of one run folder, one per group the night belongs
# to (its rows of each dtype and timing method are nights of different trends):
#   TIME<TAB>DIR<TAB>GROUP<TAB>GROUP IN WORDS<TAB>DATE<TAB>TIME<TAB>KIND
# GROUP is host|gpu|ranks|gpus|placement|source|dtype|timing and KIND dtype|timing, the part that
# history.awk routes each row by. source is "gpu" for arbench's own nights and "nccl-tests" for a
# folder that holds only imported rows (dated when imported, not when measured: never a night of
# arbench's trend). TIME is the night's first row's timestamp. Load csv.awk first.
#   awk -f csv.awk -f nightinfo.awk -v d=DIR -v pl=PLACEMENT -v gpus=GPUS DIR/results.csv
# (PLACEMENT and GPUS: runinfo.awk's, of CR-free copies of meta.txt and results.csv)
FNR == 1 { csv_header($0, col); next }
/^[ \t\r]*$/ { next }
{
    csv_split($0, f)
    src = tolower(get(f, col, "source", "gpu"))
    if (src == "model") next
    if (src != "nccl-tests") src = "gpu"
    if (!(src in TS)) {
        TS[src] = get(f, col, "timestamp", "")
        if (TS[src] !~ /^[0-9][0-9][0-9][0-9]-/) TS[src] = get(f, col, "run_id", d)
        H[src] = clean_text(get(f, col, "host", "?")); G[src] = clean_text(get(f, col, "gpu", "GPU")); N[src] = get(f, col, "n_gpus", "?")
    }
    k = src SUBSEP night_kind(f, col, src)
    if (!(k in SEEN)) { SEEN[k] = 1; NK[src]++; KIND[src, NK[src]] = night_kind(f, col, src) }
}
END {
    # a folder with arbench's own rows is an arbench night (imported rows pasted into it are
    # left out: history.awk finds no group for them); one with imported rows only is an import
    s = ("gpu" in TS) ? "gpu" : "nccl-tests"
    if (!(s in TS)) exit
    w = H[s] ": " G[s] (pl == "1 rank/GPU" ? " x" N[s] ", 1 rank/GPU" : ", " pl_words(pl, N[s]))
    if (s == "nccl-tests") w = w ", nccl-tests imports (dated when imported)"
    for (i = 1; i <= NK[s]; i++) {
        split(KIND[s, i], kk, "|")
        ww = w (kk[1] != "float32" ? ", " kk[1] : "") (kk[2] != "events" && kk[2] != "nccl-tests" ? ", " kk[2] " timing" : "")
        printf "%s\t%s\t%s|%s|%s|%s|%s|%s|%s\t%s\t%s\t%s\t%s\n", TS[s], d, H[s], G[s], N[s], gpus, pl, s, KIND[s, i], ww,
               substr(TS[s], 1, 10), TS[s], KIND[s, i]
    }
}
