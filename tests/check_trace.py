#!/usr/bin/env python3
"""Checks a trace.json against the Chrome trace event format (the JSON object form) and against
the run's timeline.csv and phases.csv (tests/test_trace_sim.sh): prints one line per failed
check, then "checks N, failed N". Usage: check_trace.py RUN_DIR"""
import csv, json, sys
from collections import defaultdict

run = sys.argv[1]
fails, n = [], 0


def check(ok, what):
    global n
    n += 1
    if not ok:
        fails.append(what)


doc = json.load(open(f"{run}/trace.json"))
check(isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list), "a JSON object with a traceEvents array")
check(doc.get("displayTimeUnit") in ("ms", "ns"), "displayTimeUnit is ms or ns")
ev = doc["traceEvents"]
meta_names = {"process_name", "thread_name", "process_sort_index", "thread_sort_index"}
pname, tname, slices = {}, {}, []
for e in ev:
    ph = e.get("ph")
    if ph == "M":
        ok = e.get("name") in meta_names and isinstance(e.get("pid"), int) and isinstance(e.get("args"), dict)
        if e.get("name", "").startswith("thread"):
            ok = ok and isinstance(e.get("tid"), int)
        key = "name" if e.get("name", "").endswith("_name") else "sort_index"
        ok = ok and (isinstance(e["args"].get(key), str) if key == "name" else isinstance(e["args"].get(key), int))
        check(ok, f"metadata event fields: {e}")
        if e.get("name") == "process_name":
            pname[e["pid"]] = e["args"]["name"]
        if e.get("name") == "thread_name":
            tname[e["pid"], e["tid"]] = e["args"]["name"]
    elif ph == "X":
        ok = all(isinstance(e.get(k), t) for k, t in
                 (("name", str), ("cat", str), ("pid", int), ("tid", int), ("ts", (int, float)), ("dur", (int, float)), ("args", dict)))
        check(ok and e["ts"] >= 0 and e["dur"] >= 0, f"complete event fields: {e}")
        slices.append(e)
    else:
        check(False, f"unexpected phase {ph!r}: {e}")
for e in slices:
    check(e["pid"] in pname, f"process {e['pid']} has no name")
    check((e["pid"], e["tid"]) in tname, f"thread {e['pid']}/{e['tid']} has no name")
    rank = e["args"].get("rank")
    check(tname.get((e["pid"], e["tid"]), "").startswith(f"rank {rank} "), f"slice on another rank's track: {e}")

# nesting: on each track, a slice starts after the open one ends or ends inside it
tracks = defaultdict(list)
for e in slices:
    tracks[e["pid"], e["tid"]].append(e)
eps = 1e-6
for key, es in tracks.items():
    es.sort(key=lambda e: (e["ts"], -e["dur"]))
    stack = []
    for e in es:
        while stack and stack[-1] <= e["ts"] + eps:
            stack.pop()
        check(not stack or e["ts"] + e["dur"] <= stack[-1] + eps, f"slice crosses its parent on track {key}: {e}")
        stack.append(e["ts"] + e["dur"])


def row_of(r):
    nccl = r["algorithm"] == "nccl"
    b = int(r["bytes"])
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    u = 0
    while u < 4 and b >= 1024 and b % 1024 == 0:
        b //= 1024
        u += 1
    name = f"{r['algorithm']}{'' if nccl else '/' + r['transport']} {b} {units[u]}"
    return name + (f", scenario {r['scenario']}" if r.get("scenario") else "")


# every CUPTI record of timeline.csv is a slice of its row's process, with its kind, name,
# rank and duration
want = defaultdict(list)
for r in csv.DictReader(open(f"{run}/timeline.csv")):
    want[row_of(r)].append((r["kind"], r["name"] or r["kind"], int(r["rank"]), round(float(r["end_us"]) - float(r["start_us"]), 3)))
got = defaultdict(list)
for e in slices:
    if e["cat"] != "phase":
        got[pname.get(e["pid"])].append((e["cat"], e["name"], e["args"]["rank"], round(e["dur"], 3)))
check(sorted(want) == sorted(got), f"rows: trace {sorted(got)} vs timeline.csv {sorted(want)}")
for k in want:
    check(sorted(want[k]) == sorted(got.get(k, [])), f"{k}: records differ: {sorted(set(want[k]) ^ set(got.get(k, [])))}")

# the phases of the profiled rows, with their lengths
try:
    rows = list(csv.DictReader(open(f"{run}/phases.csv")))
except FileNotFoundError:
    rows = []
wp = defaultdict(list)
for r in rows:
    if row_of(r) in want:
        wp[row_of(r)].append((r["phase"], int(r["rank"]), round(float(r["end_us"]) - float(r["start_us"]), 3)))
gp = defaultdict(list)
for e in slices:
    if e["cat"] == "phase":
        gp[pname.get(e["pid"])].append((e["name"], e["args"]["rank"], round(e["dur"], 3)))
check({k: sorted(v) for k, v in wp.items()} == {k: sorted(v) for k, v in gp.items()}, f"phases: trace {dict(gp)} vs phases.csv {dict(wp)}")
for f in fails:
    print("FAIL:", f)
print(f"checks {n}, failed {len(fails)}")
sys.exit(1 if fails else 0)
