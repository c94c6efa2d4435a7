# stats.awk: the rules every conclusion of plots/ follows (docs/statistics.md): the confidence
# interval of a median from its samples, ties, ratios with their interval, and the regression
# test. summary.awk, prep.awk, history.awk and tools/compare_nccl_tests.awk load it after
# csv.awk. Plain POSIX awk, as csv.awk.

# the smallest change a regression must also have, as a fraction of the earlier median: below
# it a difference can be real and still not matter (Hoefler and Belli, SC15: significance is
# not importance)
function stats_min_effect() { return 0.03 }

# median_ci_rank(n): returns l, the rank of the lower end of the nonparametric confidence
# interval of the median of n samples: [x(l), x(n+1-l)] of the sorted samples, the largest l
# whose coverage 1 - 2 P(B <= l - 1), B ~ Binomial(n, 1/2), is at least 95%; 1 where none is
# (n < 6: the interval is then [min, max] and covers less, median_ci_level says how much);
# 0 for n < 1
function median_ci_rank(n,    k, logp, cdf, l) {
    if (n < 1) return 0
    # P(B = k) from k = 0 up, in logs (n can be large); l is the last rank that still covers 95%
    logp = -n * log(2); cdf = 0; l = 1
    for (k = 0; 2 * k < n; k++) {
        cdf += exp(logp)
        if (1 - 2 * cdf >= 0.95) l = k + 1   # the coverage of l = k + 1 is 1 - 2 P(B <= k)
        else break
        logp += log((n - k) / (k + 1))
    }
    return l
}

# median_ci_level(n): returns the coverage in percent of median_ci_rank(n)'s interval
function median_ci_level(n,    l, k, logp, cdf) {
    if (n < 1) return 0
    l = median_ci_rank(n); logp = -n * log(2); cdf = 0
    for (k = 0; k <= l - 1; k++) { cdf += exp(logp); logp += log((n - k) / (k + 1)) }
    return 100 * (1 - 2 * cdf)
}

# has_ci(lo, hi): returns 1 when lo and hi are an interval (numbers, lo <= hi)
function has_ci(lo, hi) { return is_num(lo) && is_num(hi) && lo + 0 <= hi + 0 }

# ci_overlap(lo1, hi1, lo2, hi2): returns 1 when the two intervals share a point
function ci_overlap(lo1, hi1, lo2, hi2) { return lo1 + 0 <= hi2 + 0 && lo2 + 0 <= hi1 + 0 }

# ratio_ci_lo(num_lo, num_hi, den_lo, den_hi) and ratio_ci_hi(...): the ends of the interval of
# num / den that both intervals allow (conservative: every pair of values within them)
function ratio_ci_lo(num_lo, num_hi, den_lo, den_hi) { return den_hi > 0 ? num_lo / den_hi : "" }
function ratio_ci_hi(num_lo, num_hi, den_lo, den_hi) { return den_lo > 0 ? num_hi / den_lo : "" }

# ratio_words(r, lo, hi): returns a ratio as the tables print it: "1.48x (1.41-1.55)",
# "tie 1.01x (0.98-1.03)" when the interval holds 1, "1.48x" with no interval
function ratio_words(r, lo, hi) {
    if (!is_num(lo) || !is_num(hi)) return sprintf("%.2fx", r)
    return sprintf("%s%.2fx (%.2f-%.2f)", (lo <= 1 && 1 <= hi) ? "tie " : "", r, lo, hi)
}

# regression_verdict(bmed, blo, bhi, med, lo, hi): returns "slower" when the second median is
# slower than the first beyond both intervals (they do not overlap) and by at least
# stats_min_effect(), "faster" the other way, "same" otherwise, and "" when either row has no
# interval (the caller then says which rule it used instead)
function regression_verdict(bmed, blo, bhi, med, lo, hi) {
    if (!has_ci(blo, bhi) || !has_ci(lo, hi) || !(bmed > 0)) return ""
    if (lo + 0 > bhi + 0 && med - bmed >= stats_min_effect() * bmed) return "slower"
    if (hi + 0 < blo + 0 && bmed - med >= stats_min_effect() * bmed) return "faster"
    return "same"
}
