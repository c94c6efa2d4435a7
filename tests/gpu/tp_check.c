/* tp_check: focused checks of the ce and sm transports, independent of the harness.
 *
 *   tp_check sim [--ranks-max N] [--seeds K] [--algos LIST] [--xq 0|1|2]
 *       CPU only: compiles every schedule (registry + synthetic ones below) for n = 2..N into
 *       ce push (pipeline 1, 2, 3) and sm programs and runs them in a
 * simulator that interleaves ranks and streams at random (copies split into read and write steps,
 * sm blocks unordered between barriers, one rank made slow at times), also with every stream of a
 *       rank squeezed into one FIFO (worst-case hardware queue aliasing), three back-to-back
 *       iterations with the data re-initialised between them as the harness does, host threads
 *       enqueueing in a random interleaving. Any race the protocol allows shows up as a wrong
 *       sum; any deadlock as a stall. --xq 1|2 (an experiment, FIFO runs only): a copy between
 *       GPUs executes in the queue of the GPU owning its source (1) or destination (2).
 *       Also with degraded GPUs (the last x2; rank 0 x1.5 and the last x3), whose programs
 *       carry the emulation's STAMP and PACE ops (no-ops here), then the timed checks below.
 *   tp_check llsim [--ranks-max N] [--seeds K] [--algos LIST] [--sizes LIST] [--negative 0|1]
 *       CPU only: compiles every schedule for n = 2..N into ll programs (the ll transport's,
 *       TP_MODE_LL) for each size (default 1e,5e,67e,1025e,4099e: odd element counts, so ranges
 *       are not 16-byte aligned) in f32 and bf16, checks that their PUTs and TAKEs pair up, and
 *       runs each in K cases of a simulator of the ll kernel (tp_check_ll.c: warps owning
 *       slices, slots with two parities laid out as the program and as the kernel do, ranks and
 *       warps interleaved at random, four iterations each checked); then (unless --negative 0)
 *       corrupted programs that must fail. Wrong sums, stalls, slots overrun or overwritten
 *       are failures.
 *   tp_check tsim [--algos LIST] [--ranks N] [--sizes LIST] [--degrade R:F[,R:F]]
 *                 [--segments K] [--transport ce|sm|nccl-p2p] [--pipelines P]
 *                 [--ring-batch BYTES] [--ring-streams S]
 *       CPU only: a timed simulation (every dependency of a program, the emulation's paces,
 *       fixed costs per op, each GPU's link shared by its copies; tsim_hw, or TSIM_COSTS:
 *       "copy_us=10,flag_us=15,sum_bw=0.46e12" overrides those fields) of one iteration,
 *       healthy and degraded (healthy bandwidth 400 GB/s), with OPTCC's lower bound. `sim`
 *       ends with its checks: the self-test's rates, the shared budget's split, a degraded
 *       ring, OPTCC. `sim` runs the ce push cases twice: with the default programs and with
 *       the flow program (src/lower/flow.c; --program flow selects it for tsim, dump, gpu and time,
 *       as AR_CE_PROGRAM=flow does in the ce transport).
 *       --ring-batch / --ring-streams (tsim, dump, gpu, time): the dataflow ring's
 *       automatic mini-batch size (default 32M) and copy streams (default 2), as
 *       AR_CE_RING_BATCH (MiB; it wins when set) and AR_CE_RING_STREAMS set them in the ce
 *       transport. `sim` also puts every listed schedule with the AR_TRAIT_PIPELINED trait through
 *       sim_dataflow (the dataflow ring program: pipelines 0-64, 1-3 copy streams).
 *   tp_check gpu --transport ce|sm [--algos LIST] [--sizes LIST] [--dtypes LIST]
 *                [--pipelines LIST] [--iters N] [--ranks N] [--degrade R:F[,R:F]] [--marks 1]
 *       One pthread per GPU; each iteration re-initialises data from a pristine copy on the
 *       rank's stream and enqueues the AllReduce, iterations back to back with no host sync;
 *       every iteration's result is checked (sizes up to 64 MiB; the last one above).
 *       --degrade: every job emulates those GPUs slowed (OPTCC built for them), after the
 *       healthy bandwidth is measured; the results must not change (also for `time`).
 *       A pipeline of 0 is the transport's choice; each line says the count used (used=K).
 *       --marks 1: the last iteration passes --phases' round marks (struct tp_marks): each
 *       rank must mark exactly the rounds it takes part in, in order, between events around
 *       the enqueue (sm: clock stamps no later than that span); rank 0's round ends printed.
 *   tp_check procs --gpus LIST [--transport LIST] [--algos ..] [--sizes ..] [--iters N]
 *                  [--degrade R:F] [--fail-share K] [--timeout S]
 *       One forked process per rank (LIST: each rank's GPU, 0,0 for two on GPU 0), the others
 *       remote as under MPI, a tp_peers over CUDA IPC (tp_check_procs.c has the details).
 *   tp_check time --transport ce|sm [--algos ..] [--sizes ..] [--pipelines ..] [--iters N]
 *       Back-to-back iterations between two host barriers: mean time per AllReduce.
 *   tp_check dump [--algos A] [--ranks N] [--sizes S] [--pipelines P] [--transport ce|sm|ll]
 *       CPU only: prints every rank's compiled program (the first algorithm and size listed).
 *   tp_check reduce: bandwidth of ar_reduce_launch / ar_sum_launch on GPU 0.
 *   tp_check bw: copy-engine bandwidth, pull vs push, 1/2/4 streams, one pair and all.
 * Sizes: bytes with K/M/G, or a count of elements with a trailing e (1000003e). Prints one
 * line per case and ends with "N passed, N failed"; exit 1 on any failure. */
#include "tp_check.h"

int npass, nfail;

static int cmd_dump(const char *algo, const char *size, int ranks, const char *transport,
                    int pipeline) {
  struct ar_schedule s;
  int el, n = ranks > 1 ? ranks : 4;
  char name[64];
  snprintf(name, sizeof(name), "%.*s", (int)strcspn(algo, ","), algo);
  size_t v = parse_size(size, &el), nelem = el ? v : v / 4;
  if (build_sched(name, n, &s) != AR_OK) {
    printf("FAIL %s n=%d: %s\n", name, n, s.reason);
    nfail++;
    return 0;
  }
  struct tp_prog *p;
  char reason[256] = "";
  int mode = !strcmp(transport, "sm")   ? TP_MODE_SM
             : !strcmp(transport, "ll") ? TP_MODE_LL
                                        : TP_MODE_CE;
  if (lower_prog_build(&s, nelem, 4, mode, pipeline, NULL, &tc_set, &p, reason, sizeof(reason)) !=
      AR_OK) {
    printf("FAIL %s n=%d: %s\n", name, n, reason);
    nfail++;
  } else {
    printf("# %s n=%d, %zu elements, %s, %s program, %d mini-batches, span %u\n", name, n, nelem,
           transport, p->dataflow ? "dataflow" : "per-round", p->batches_max, p->span);
    for (int r = 0; r < n; r++)
      lower_prog_print(p, r, stdout);
    lower_prog_free(p);
    npass++;
  }
  sched_free(&s);
  return 0;
}

struct lower_settings tc_set;

const char *tc_tp_name(const struct tp_ops *tp) {
  for (int i = 0; i < AR_NTRANSPORTS; i++)
    if (tp_ops_of(i) == tp) return ar_transport_at(i)->name;
  return "?";
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  lower_settings_default(&tc_set);
  /* as arbench (harness/cmd/run.c): every kernel loaded when a context starts, since a lazy load on
   * first launch may wait for a running kernel, e.g. a sum spinning on its inputs' flags */
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  if (argc < 2) {
    fprintf(stderr,
            "usage: tp_check sim|llsim|tsim|dump|gpu|procs|time|reduce|bw [options] (see the file "
            "comment)\n");
    return 2;
  }
  struct opts o = {.transport = "ce",
                   .degrade = "",
                   .algos = "all",
                   .sizes = "1K,12345e,1M,1000003e,16M",
                   .dtypes = "f32",
                   .pipelines = "1",
                   .iters = 3,
                   .ranks = 0,
                   .warmup = 3,
                   .timeout = 120};
  int nmax = 8, seeds = 6, xq = 0, segments = 0, negative = 1;
  const char *degrade = "", *llsizes = "1e,5e,67e,1025e,4099e";
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(a, "--transport"))
      o.transport = v;
    else if (!strcmp(a, "--algos"))
      o.algos = v;
    else if (!strcmp(a, "--sizes"))
      o.sizes = llsizes = v;
    else if (!strcmp(a, "--dtypes"))
      o.dtypes = v;
    else if (!strcmp(a, "--pipelines"))
      o.pipelines = v;
    else if (!strcmp(a, "--iters"))
      o.iters = atoi(v);
    else if (!strcmp(a, "--warmup"))
      o.warmup = atoi(v);
    else if (!strcmp(a, "--ranks"))
      o.ranks = atoi(v);
    else if (!strcmp(a, "--timeout"))
      o.timeout = atof(v);
    else if (!strcmp(a, "--ranks-max"))
      nmax = atoi(v);
    else if (!strcmp(a, "--seeds"))
      seeds = atoi(v);
    else if (!strcmp(a, "--negative"))
      negative = atoi(v);
    else if (!strcmp(a, "--xq"))
      xq = atoi(v);
    else if (!strcmp(a, "--degrade"))
      degrade = o.degrade = v;
    else if (!strcmp(a, "--segments"))
      segments = atoi(v);
    else if (!strcmp(a, "--gpus"))
      o.gpus = v;
    else if (!strcmp(a, "--fail-share"))
      o.fail_share = atoi(v);
    else if (!strcmp(a, "--marks"))
      o.marks = atoi(v);
    else if (!strcmp(a, "--program")) /* as AR_CE_PROGRAM: flow, round (else the default) */
      tc_set.ce_program = !strcmp(v, "flow") ? 2 : !strcmp(v, "round") ? 1 : 0;
    else if (!strcmp(a, "--ring-batch")) { /* the dataflow ring's automatic mini-batch */
      int el;
      tc_set.ring_batch_bytes = parse_size(v, &el);
    } else if (!strcmp(a, "--ring-streams"))
      tc_set.ring_streams = atoi(v);
    else {
      fprintf(stderr, "unknown option %s\n", a);
      return 2;
    }
    i++;
  }
  if (!strcmp(argv[1], "gpu") && o.iters > 4) o.iters = 4; /* capture buffers hold 4 */
  if (!strcmp(argv[1], "sim")) {
    cmd_sim(nmax, seeds, o.algos, xq);
    if (!xq && tc_set.ce_program != 2) { /* again with the flow program (AR_CE_PROGRAM=flow) */
      printf("# ce push: the flow program\n");
      tc_set.ce_program = 2;
      cmd_sim(nmax, seeds, o.algos, xq);
      tc_set.ce_program = 0;
    }
    if (!xq) sim_dataflow(nmax, seeds, o.algos);
    if (!strcmp(o.algos, "all")) sim_auto_pipeline(nmax, seeds);
    tsim_checks();
  } else if (!strcmp(argv[1], "llsim"))
    cmd_llsim(nmax, seeds, o.algos, llsizes, negative);
  else if (!strcmp(argv[1], "tsim"))
    cmd_tsim(o.algos, o.sizes, degrade, o.ranks, segments, o.transport, atoi(o.pipelines));
  else if (!strcmp(argv[1], "gpu"))
    cmd_gpu(&o, 0);
  else if (!strcmp(argv[1], "procs"))
    cmd_procs(&o, o.gpus ? o.gpus : "0,0", o.fail_share);
  else if (!strcmp(argv[1], "time"))
    cmd_gpu(&o, 1);
  else if (!strcmp(argv[1], "dump"))
    cmd_dump(o.algos, o.sizes, o.ranks, o.transport, atoi(o.pipelines));
  else if (!strcmp(argv[1], "reduce"))
    cmd_reduce();
  else if (!strcmp(argv[1], "bw"))
    cmd_bw();
  else {
    fprintf(stderr, "unknown command %s\n", argv[1]);
    return 2;
  }
  printf("%d passed, %d failed\n", npass, nfail);
  return nfail != 0;
}
