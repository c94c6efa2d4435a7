# compare_nccl_tests.awk ARBENCH_RESULTS NCCL_TESTS_RESULTS: compare.md of
# tools/compare_nccl_tests.sh (with plots/csv.awk: awk -f plots/csv.awk -f this). The first file
# is arbench's results.csv, its scenarios named by their timing (host, events, graph); the second
# the imported nccl-tests rows (source nccl-tests, a scenario per mode, out-of-place and
# in-place). Per size and timing: arbench's best schedule-based row (ok, 0 wrong; nccl left
# out: it is NCCL itself) and arbench's own nccl row, each against nccl-tests' best (the fastest
# of every mode and side with 0 wrong). x = nccl-tests' time / arbench's (>= 1: arbench no
# slower; the same as arbench's algbw / nccl-tests').
FNR == 1 { file++; delete col; csv_header($0, col); next }
{
    csv_split($0, f)
    b = get(f, col, "bytes", ""); t = get(f, col, "time_us_median", "")
    st = get(f, col, "status", ""); wr = get(f, col, "wrong", "0"); sc = get(f, col, "scenario", "")
    alg = get(f, col, "algorithm", ""); tp = get(f, col, "transport", "")
    if (file == 1) {
        nrows[sc]++
        if (st == "error" || st == "timeout" || (is_num(wr) && wr + 0 > 0)) { nbad[sc]++; next }
        if (st != "ok" || !is_num(t)) next
        if (!(b in sizes)) { sizes[b] = 1; order[++ns] = b }
        timing[sc] = 1
        k = sc SUBSEP b
        if (alg == "nccl") { if (!(k in nt) || t + 0 < nt[k]) nt[k] = t + 0; next }
        if (!(k in bt) || t + 0 < bt[k]) { bt[k] = t + 0; bl[k] = alg "/" tp }
    } else {
        if (st != "ok" || !is_num(t) || (is_num(wr) && wr + 0 > 0)) { if (st != "ok") ntbad++; next }
        ntrows++; modes[sc] = 1
        if (!(b in ct) || t + 0 < ct[b]) { ct[b] = t + 0; cl[b] = sc ", " tp }
    }
}
function ratio(a, b) { return b > 0 && a > 0 ? sprintf("%.2f", a / b) : "-" }
function us(t) { return t >= 1000 ? sprintf("%.1f", t) : sprintf("%.2f", t) }
END {
    split("host events graph", tm, " ")
    # sizes in increasing order (insertion sort on numbers)
    for (i = 2; i <= ns; i++) for (j = i; j > 1 && order[j] + 0 < order[j - 1] + 0; j--) { x = order[j]; order[j] = order[j - 1]; order[j - 1] = x }
    nm = 0; for (m in modes) nm++
    printf "# arbench beside nccl-tests, %s GPUs\n\n", gpus
    printf "Times are medians per AllReduce in us. **nccl-tests** is the fastest of its %d modes (-R 0 and -R 2, `-g N` and `-t N -g 1`) and both sides (out of place, in place) at that size. Per timing method, **best** is arbench's fastest schedule-based algorithm/transport (nccl itself left out), **nccl** arbench's own ncclAllReduce row; **x** = nccl-tests' time / arbench's (>= 1: arbench no slower; equal to the algbw ratio arbench / nccl-tests). Rows with wrong elements or errors are never ranked.\n\n", nm
    for (i = 1; i <= 3; i++) {
        m = tm[i]; if (!(m in timing)) continue
        nwin = 0; nsz = 0; lo = ""; los = ""
        for (s = 1; s <= ns; s++) {
            b = order[s]; k = m SUBSEP b
            if (!(k in bt) || !(b in ct)) continue
            nsz++; r = ct[b] / bt[k]
            if (r >= 1) nwin++
            if (lo == "" || r < lo) { lo = r; los = size_label(b, " ") }
        }
        printf "- %s timing: arbench's best no slower than nccl-tests' best at %d of %d sizes (lowest x %.2f at %s); %d rows, %d with wrong elements or errors\n", \
            m, nwin, nsz, lo == "" ? 0 : lo, los, nrows[m], nbad[m]
    }
    printf "- nccl-tests: %d rows ok with 0 wrong, %d not ok\n\n", ntrows, ntbad
    printf "| size | nccl-tests (us) | its mode |"
    for (i = 1; i <= 3; i++) if (tm[i] in timing) printf " %s best (us) | algorithm | x | %s nccl (us) | x |", tm[i], tm[i]
    printf "\n|---:|---:|---|"
    for (i = 1; i <= 3; i++) if (tm[i] in timing) printf "---:|---|---:|---:|---:|"
    printf "\n"
    for (s = 1; s <= ns; s++) {
        b = order[s]
        printf "| %s | %s | %s |", size_label(b, " "), b in ct ? us(ct[b]) : "-", b in ct ? cl[b] : "-"
        for (i = 1; i <= 3; i++) {
            m = tm[i]; if (!(m in timing)) continue
            k = m SUBSEP b
            printf " %s | %s | %s | %s | %s |", k in bt ? us(bt[k]) : "-", k in bt ? bl[k] : "-", \
                k in bt && b in ct ? ratio(ct[b], bt[k]) : "-", k in nt ? us(nt[k]) : "-", \
                k in nt && b in ct ? ratio(ct[b], nt[k]) : "-"
        }
        printf "\n"
    }
}
