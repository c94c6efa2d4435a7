# check.awk: reads the log of inject.c and checks what a run of arbench emitted: every push
# in the domain "arbench", pops never beyond what is open, every thread's ranges closed at the
# end, and each range inside the one it belongs in:
#   size (outermost) > iter N | warmup N > delay | allreduce > precondition > round N > reduce
# (a round may also sit in allreduce directly; `reduce` in round, precondition or allreduce;
# `schedule`, the sm transport's one kernel, in allreduce or precondition); with --compute a
# row's second and third lanes, `lane ...`, sit in size and hold its iterations, and the load's
# `compute KIND` sits in an iteration beside its allreduce.
# Prints, tab-separated, for tests/test_nvtx.sh to grep:
#   path THREAD A > B > C    once per push (THREAD: the name given by nvtxNameOsThreadA)
#   domain NAME | thread NAME | stream NAME | string NAME
#   error TEXT               one per violation
#   summary pushes=N pops=N threads=N errors=N
BEGIN { FS = "\t" }

# kind(msg): the first word of a range's message
function kind(msg,    w) { split(msg, w, " "); return w[1] }

# allowed(k, parent): 1 when a range of kind k may sit directly inside one of kind parent
# ("" for none)
function allowed(k, parent) {
    if (k == "size") return parent == ""
    if (k == "lane") return parent == "size"
    if (k == "iter" || k == "warmup") return parent == "size" || parent == "lane"
    if (k == "delay" || k == "allreduce" || k == "compute") return parent == "iter" || parent == "warmup"
    if (k == "precondition") return parent == "allreduce"
    if (k == "round") return parent == "allreduce" || parent == "precondition"
    if (k == "reduce") return parent == "round" || parent == "precondition" || parent == "allreduce"
    if (k == "schedule") return parent == "allreduce" || parent == "precondition" # sm: one kernel
    return 0
}

$1 == "domain" { print "domain\t" $2; next }
$1 == "string" { print "string\t" $2; next }
$1 == "stream" { print "stream\t" $3; next }
$1 == "thread" { name[$2] = $3; print "thread\t" $3; next }
$1 == "push" {
    t = $2; pushes++; seen[t] = 1
    who = (t in name) ? name[t] : "tid " t
    if ($3 != "arbench") { print "error\tpush outside the arbench domain: " $4 " (" who ")"; errors++ }
    parent = depth[t] ? kind(stack[t, depth[t]]) : ""
    if (!allowed(kind($4), parent)) {
        print "error\t" who ": '" $4 "' inside '" (depth[t] ? stack[t, depth[t]] : "(nothing)") "'"
        errors++
    }
    stack[t, ++depth[t]] = $4
    path = stack[t, 1]
    for (i = 2; i <= depth[t]; i++) path = path " > " stack[t, i]
    print "path\t" who "\t" path
    next
}
$1 == "pop" {
    t = $2; pops++
    if ($3 != "arbench") { print "error\tpop outside the arbench domain"; errors++ }
    if (depth[t] <= 0) {
        print "error\t" ((t in name) ? name[t] : "tid " t) ": pop with no range open"; errors++
    } else depth[t]--
    next
}
END {
    for (t in seen) {
        nthreads++
        if (depth[t] > 0) {
            print "error\t" ((t in name) ? name[t] : "tid " t) ": " depth[t] " ranges left open, innermost '" stack[t, depth[t]] "'"
            errors++
        }
    }
    printf "summary\tpushes=%d pops=%d threads=%d errors=%d\n", pushes, pops, nthreads, errors
}
