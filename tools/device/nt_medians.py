"""Medians per size for the device scripts' side-by-side probes: nccl-tests' in-place time over
the lines of a log (its -N cycles), and arbench's time_us_median from a results.csv."""
import csv
import statistics


def nccl_tests_inplace(path):
    """size in bytes -> median in-place time (us) over every line of that size in the log"""
    v = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 13 and f[0].isdigit():
            v.setdefault(int(f[0]), []).append(float(f[9]))
    return {k: statistics.median(x) for k, x in v.items()}


def arbench_medians(path):
    """size in bytes -> the row's time_us_median (one row a size)"""
    return {int(r['bytes']): float(r['time_us_median']) for r in csv.DictReader(open(path))}
