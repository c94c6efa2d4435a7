#!/usr/bin/env python3
"""A second, independent flow simulator for `arbench model --pricing flows` (tests/test_model_flow.sh).

Reads a schedule as `arbench schedule --format json` writes it and prices one AllReduce the way
docs/model.md defines the flow mode, written from that definition and not from src/model_flow*.c:
every transfer waits for the last writers of the chunks it sends (all writers of that round), for
the transfers of the last earlier round on every port it uses (on a switch or a mesh a GPU's
one port each way; on a torus each link it leaves its source by, each link it enters its
destination by) and for a straggler's arrival; it then pays the per-message cost on the port(s)
it leaves by (a port's messages one after another, in the order they become ready), its bytes
move at the max-min fair rate of its route, it ends alpha + hops x hop latency after its last byte
and a reduce then sums at its destination (a rank's sums one after another). With
--gamma-overlap a reduce sums as its bytes come instead: its destination's summing is one more
link of its route, of gamma bytes a second, shared max-min fairly by the flows reducing there.

Where src/model_flow.c keeps per-link lists, recomputes only the flows an event touches and
prices joins as graph nodes, this one keeps sets and recomputes every active flow's rate from
scratch at every event (textbook progressive filling over all links).

usage: flow_sim.py SCHEDULE.json TOPOLOGY BYTES [--dims AxB] [--alpha US] [--hop US] [--bw BYTES/S]
                   [--gamma BYTES/S [--gamma-overlap]] [--msg US] [--straggler R --delay US]
TOPOLOGY: switch (a port each way per rank), mesh (a link per pair, the rank's bandwidth split over
its n - 1 links) or torus (--dims). Prints `time_us: T` and `pre_us: P`."""
import argparse
import heapq
import json


def routes_torus(dims, src, dst):
    """Links of the dimension-order shortest route src -> dst as {link: share}; a link is
    (rank, dim, dir) leaving rank, dir 0 up, 1 down; a tie goes half each way."""
    def coords(r):
        c = []
        for d in dims:
            c.append(r % d)
            r //= d
        return c

    def rank(c):
        r, m = 0, 1
        for x, d in zip(c, dims):
            r += x * m
            m *= d
        return r

    cur, goal = coords(src), coords(dst)
    links, hops = {}, 0
    for d, size in enumerate(dims):
        up = (goal[d] - cur[d]) % size
        if not up:
            continue
        down = size - up
        ways = [(0, up)] if up < down else [(1, down)] if down < up else [(0, up), (1, down)]
        share = 1.0 / len(ways)
        for direction, steps in ways:
            c = list(cur)
            for _ in range(steps):
                link = (rank(c), d, direction)
                links[link] = links.get(link, 0) + share
                c[d] = (c[d] + (1 if direction == 0 else -1)) % size
        hops += min(up, down)
        cur[d] = goal[d]
    return links, hops


def torus_head(dims, link):
    r, d, direction = link
    stride = 1
    for k in range(d):
        stride *= dims[k]
    a = (r // stride) % dims[d]
    b = (a + (1 if direction == 0 else -1)) % dims[d]
    return r + (b - a) * stride


def build(sched, topo, dims, n):
    """Per transfer: its route {link: share}, hops, the links it leaves src by and enters dst
    by, and what it waits for (a set of transfer indices)."""
    xs = sched["xfers"]
    order = sorted(range(len(xs)), key=lambda i: (xs[i]["round"], i))
    writers = {}  # (rank, chunk) -> (round, [transfers])
    ports = {}    # ('out'|'in', link) -> list of (round, [transfers])
    deps = [set() for _ in xs]
    info = [None] * len(xs)
    i = 0
    while i < len(order):
        k = xs[order[i]]["round"]
        j = i
        while j < len(order) and xs[order[j]]["round"] == k:
            j += 1
        batch = order[i:j]
        for x in batch:  # reads of round k see the data as it began
            t = xs[x]
            for c in range(t["chunk"], t["chunk"] + t["count"]):
                w = writers.get((t["src"], c))
                if w:
                    deps[x].update(w[1])
            if t["src"] == t["dst"]:
                info[x] = ({}, 0, [], [])
                continue
            if topo == "switch":
                route, hops = {("out", t["src"]): 1.0, ("in", t["dst"]): 1.0}, 1
                outs, ins = [("out", t["src"])], [("in", t["dst"])]
            elif topo == "mesh":
                # a GPU's program orders its transfers whatever link they take: one port each way
                route, hops = {("pair", t["src"], t["dst"]): 1.0}, 1
                outs, ins = [("out", t["src"])], [("in", t["dst"])]
            else:
                route, hops = routes_torus(dims, t["src"], t["dst"])
                outs = [l for l in route if l[0] == t["src"]]
                ins = [l for l in route if torus_head(dims, l) == t["dst"]]
            info[x] = (route, hops, outs, ins)
            for side, links in (("out", outs), ("in", ins)):
                for l in links:
                    groups = ports.setdefault((side, l), [])
                    earlier = [g for g in groups if g[0] < k]
                    if earlier:
                        deps[x].update(earlier[-1][1])
                    if groups and groups[-1][0] == k:
                        groups[-1][1].append(x)
                    else:
                        groups.append((k, [x]))
        for x in batch:  # then its writes
            t = xs[x]
            for c in range(t["chunk"], t["chunk"] + t["count"]):
                w = writers.get((t["dst"], c))
                if w and w[0] == k:
                    w[1].append(x)
                else:
                    writers[(t["dst"], c)] = (k, [x])
        i = j
    return info, deps


def capacity(topo, link, n, bw, gamma):
    if link[0] == "sum":  # a rank's summing (--gamma-overlap)
        return gamma
    return bw / (n - 1) if topo == "mesh" else bw


def fair_rates(active, info, topo, n, bw, gamma):
    """Max-min fair rates (bytes/us) of the active flows by progressive filling over every link."""
    rate = {}
    left = {}
    users = {}
    for x in active:
        for l, w in info[x][0].items():
            left[l] = capacity(topo, l, n, bw, gamma) / 1e6
            users.setdefault(l, []).append((x, w))
    unfrozen = set(active)
    while unfrozen:
        best, level = None, None
        for l, us in users.items():
            wsum = sum(w for x, w in us if x in unfrozen)
            if wsum <= 1e-12:
                continue
            share = left[l] / wsum
            if level is None or share < level:
                best, level = l, share
        if best is None:
            break
        for x, _ in users[best]:
            if x not in unfrozen:
                continue
            unfrozen.discard(x)
            rate[x] = level
            for l, w in info[x][0].items():
                left[l] = max(0.0, left[l] - w * level)
    return rate


def simulate(sched, topo, dims, nbytes, alpha, hop, bw, gamma, msg, straggler, delay, overlap=False):
    n = sched["ranks"]
    xs = sched["xfers"]
    nchunks = sched["chunks"]
    info, deps = build(sched, topo, dims, n)
    overlap = overlap and gamma > 0
    if overlap:  # a reduce's route runs through its destination's summing too
        for x, tr in enumerate(xs):
            if tr["op"] == "reduce" and tr["src"] != tr["dst"]:
                route = dict(info[x][0])
                route[("sum", tr["dst"])] = 1.0
                info[x] = (route,) + tuple(info[x][1:])
    waiting = [len(d) for d in deps]
    dependents = [[] for _ in xs]
    for x, d in enumerate(deps):
        for p in d:
            dependents[p].append(x)
    ready_q = []     # (time, index): ready to be injected
    starts = []      # (time, index): the message cost paid, bytes begin
    ends = []        # (time, index): the transfer is over
    sender_free = {}  # by port
    sum_free = [0.0] * n
    remaining, active = {}, set()
    end_time = [None] * len(xs)
    pre_end = 0.0

    def release_time(x, t):
        tr = xs[x]
        if straggler >= 0 and delay > 0 and straggler in (tr["src"], tr["dst"]):
            return max(t, delay)
        return t

    for x in range(len(xs)):
        if not waiting[x]:
            heapq.heappush(ready_q, (release_time(x, 0.0), x))
    now = 0.0
    rates = {}
    while ready_q or starts or ends or active:
        cands = []
        if ready_q:
            cands.append(ready_q[0][0])
        if starts:
            cands.append(starts[0][0])
        if ends:
            cands.append(ends[0][0])
        for x in active:
            cands.append(now + remaining[x] / rates[x] if rates.get(x, 0) > 0 else float("inf"))
        t = min(cands)
        for x in active:
            remaining[x] -= rates.get(x, 0) * (t - now)
        now = t
        tol = 1e-9 * max(1.0, abs(now))
        changed = False
        for x in sorted(active):  # last bytes out
            if remaining[x] <= 1e-9 * max(1.0, xs[x]["count"] / nchunks * nbytes) or \
                    (rates.get(x, 0) > 0 and remaining[x] / rates[x] <= tol):
                active.discard(x)
                changed = True
                tr = xs[x]
                done = now + alpha + info[x][1] * hop
                if tr["op"] == "reduce" and gamma > 0 and not overlap:
                    at = max(done, sum_free[tr["dst"]])
                    done = sum_free[tr["dst"]] = at + tr["count"] / nchunks * nbytes / gamma * 1e6
                heapq.heappush(ends, (done, x))
        while ends and ends[0][0] <= now + tol:
            _, x = heapq.heappop(ends)
            end_time[x] = now
            if xs[x]["round"] < sched["precondition_rounds"]:
                pre_end = max(pre_end, now)
            for y in dependents[x]:
                waiting[y] -= 1
                if not waiting[y]:
                    heapq.heappush(ready_q, (release_time(y, now), y))
        now_ready = []
        while ready_q and ready_q[0][0] <= now + tol:
            now_ready.append(heapq.heappop(ready_q)[1])
        for x in sorted(now_ready):  # a port's messages of one moment in schedule order
            tr = xs[x]
            size = tr["count"] / nchunks * nbytes
            if tr["src"] == tr["dst"] or size <= 0:
                heapq.heappush(ends, (now, x))
                continue
            outs = info[x][2]  # a port's messages one after another
            at = max([now] + [sender_free.get(p, 0.0) for p in outs])
            for p in outs:
                sender_free[p] = at + msg
            heapq.heappush(starts, (at + msg, x))
        while starts and starts[0][0] <= now + tol:
            _, x = heapq.heappop(starts)
            remaining[x] = xs[x]["count"] / nchunks * nbytes
            active.add(x)
            changed = True
        if changed:
            rates = fair_rates(active, info, topo, n, bw, gamma)
    assert all(e is not None for e in end_time), "a transfer never ran"
    total = max([delay if straggler >= 0 else 0.0] + end_time)
    return total, pre_end


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("schedule")
    ap.add_argument("topology", choices=["switch", "mesh", "torus"])
    ap.add_argument("bytes", type=float)
    ap.add_argument("--dims", default="")
    ap.add_argument("--alpha", type=float, default=0.0)
    ap.add_argument("--hop", type=float, default=0.0)
    ap.add_argument("--bw", type=float, required=True)
    ap.add_argument("--gamma", type=float, default=0.0)
    ap.add_argument("--gamma-overlap", action="store_true")
    ap.add_argument("--msg", type=float, default=0.0)
    ap.add_argument("--straggler", type=int, default=-1)
    ap.add_argument("--delay", type=float, default=0.0)
    a = ap.parse_args()
    with open(a.schedule) as f:
        sched = json.load(f)
    dims = [int(d) for d in a.dims.split("x")] if a.dims else []
    total, pre = simulate(sched, a.topology, dims, a.bytes, a.alpha, a.hop, a.bw, a.gamma,
                          a.msg, a.straggler, a.delay, a.gamma_overlap)
    print("time_us: %.6f" % total)
    print("pre_us: %.6f" % pre)


if __name__ == "__main__":
    main()
