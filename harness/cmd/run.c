/* `arbench run`: validate every flag of every scenario, find the GPUs, make the run folder
 * (results.csv, meta.txt, COMMAND, critical.csv, delays.csv), hand each scenario in turn to the
 * benchmark (bench.c), then draw and summarise the run with plots/. Also --dry-run (the plan,
 * no GPU) and --self-test; with --degrade, the healthy bandwidth the emulation divides. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "cli/cli.h"
#include "cli/config.h"
#include "record/csv.h"
#include "cuda/transport.h"
#include "record/meta.h"
#include "profile/phases.h"
#include "procs/procs.h"
#include "run/run_procs.h"
#include "plan/plan.h"
#include "run/folder.h"
#include "run/launch.h"
#include "run/stop.h"


/* The ranks a scenario names before any GPU is seen: --ranks, else --gpus (0: one per
 * visible GPU, known only then). */
static int named_ranks(const struct run_opts *o) { return o->nranks ? o->nranks : o->ngpus; }

/* The placement of the run's ranks: --gpus (an ordinal may repeat) or every visible GPU,
 * with --ranks N placed round-robin over them; returns 0, or the exit status. */
static int pick_devices(const struct run_opts *o, struct hx_bench_cfg *cfg) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    /* with no driver at all the runtime says the driver is too old: say what is missing */
    void *drv = e == cudaErrorInsufficientDriver ? dlopen("libcuda.so.1", RTLD_LAZY) : NULL;
    if (drv) dlclose(drv);
    fprintf(stderr,
            "arbench: no GPU found (%s); `arbench model` and `arbench schedule` work without one\n",
            e == cudaErrorInsufficientDriver && !drv ? "no CUDA driver: libcuda.so.1 not found"
            : e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
    return EXIT_FAIL;
  }
  int list[HX_MAX_DEVS], nlist = 0;
  if (o->ngpus) {
    for (int r = 0; r < o->ngpus; r++) {
      if (o->gpus[r] >= count) {
        char v[16], why[64];
        snprintf(v, sizeof(v), "%d", o->gpus[r]);
        snprintf(why, sizeof(why), "no such GPU (%d visible)", count);
        args_bad("--gpus", v, why);
        return EXIT_BAD_INPUT;
      }
      list[nlist++] = o->gpus[r];
    }
  } else {
    for (int d = 0; d < count && nlist < HX_MAX_DEVS; d++) list[nlist++] = d;
  }
  int n = o->nranks ? o->nranks : nlist;
  if (n < 2) {
    fprintf(stderr, "arbench: an AllReduce needs at least 2 ranks; %d GPU visible: place several "
                    "ranks on it with --ranks 4 (or --gpus 0,0,0,0; for correctness and smoke "
                    "runs: the timings measure one GPU's memory system, not NVLink)\n", count);
    return EXIT_FAIL;
  }
  ar_place_round_robin(&cfg->place, list, nlist, n);
  cfg->n = n;
  for (int r = 0; r < n; r++) cfg->dev[r] = cfg->place.dev[r];
  return 0;
}

/* Monotonic seconds (the clock of bench.c's progress line). */
static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The GPUs a dry run plans for: --ranks or --gpus, else the GPUs seen (nothing is opened),
 * else 8; *how says which. */
static int dry_gpus(const struct run_opts *o, const char **how) {
  if (named_ranks(o)) {
    *how = hx_procs_count() > 1 ? "MPI processes x --ranks-per-process"
           : o->nranks          ? "--ranks"
                                : "--gpus";
    return named_ranks(o);
  }
  static char said[256];
  char note[160];
  int n = launch_gpus_seen(how, note, sizeof(note));
  if (note[0]) { /* CUDA_VISIBLE_DEVICES says less than its entries: what CUDA will see */
    snprintf(said, sizeof(said), "%s: %s%s", *how, note,
             n >= 2 ? "" : "; assumed 8: --gpus or --ranks to choose");
    *how = said;
  }
  if (n >= 2) return n;
  if (!note[0]) *how = "assumed: no GPU seen here; --gpus to choose";
  return 8;
}

/* Whether a scenario's ranks may share a GPU, known before CUDA starts: an ordinal named twice
 * in --gpus, more --ranks than GPUs listed or seen, or fewer than 2 GPUs seen. */
static int may_colocate(const struct run_opts *o) {
  const char *how;
  char note[160];
  for (int r = 0; r < o->ngpus; r++)
    for (int q = 0; q < r; q++)
      if (o->gpus[q] == o->gpus[r]) return 1;
  int gpus = o->ngpus ? o->ngpus : launch_gpus_seen(&how, note, sizeof(note));
  return (o->nranks > 0 && o->nranks > gpus) || (!o->ngpus && gpus < 2);
}

/* --dry-run: checks every scenario against the GPU count and prints the plan; the exit status. */
static int dry_run(struct run_plan *plan) {
  const char *how;
  int n = dry_gpus(&plan->scen[0], &how), rows = 0, measure = 0, search = 0, repeat = 0;
  double secs = 0, secs_max = 0;
  for (int i = 0; i < plan->nscen; i++) {
    int ni = named_ranks(&plan->scen[i]) ? named_ranks(&plan->scen[i]) : n;
    if (run_opts_check_ranks(&plan->scen[i], ni)) return EXIT_BAD_INPUT;
    run_opts_settle(&plan->scen[i], ni);
  }
  printf("dry run: %d scenario%s%s%s, %d ranks (%s); nothing is measured\n", plan->nscen,
         plan->nscen == 1 ? "" : "s", plan->config[0] ? " from " : "", plan->config, n, how);
  for (int i = 0; i < plan->nscen; i++) {
    struct plan p;
    const struct run_opts *o = &plan->scen[i];
    int ni = named_ranks(o) ? named_ranks(o) : n;
    /* --gpus places the ranks as the run will (one process): its n/a rows are known */
    struct ar_placement pl;
    char place[64];
    struct plan_where where = {0, 1, place};
    if (o->ngpus && hx_procs_count() <= 1) {
      ar_place_round_robin(&pl, o->gpus, o->ngpus, ni);
      where.colocated = ar_place_colocated(&pl);
      ar_place_text(&pl, place, sizeof(place));
    }
    if (plan_build(&p, o, ni, o->ngpus && hx_procs_count() <= 1 ? &where : NULL)) {
      fprintf(stderr, "arbench: out of host memory\n");
      return EXIT_FAIL;
    }
    plan_print(stdout, &p);
    rows += p.write;
    measure += p.measure;
    secs += p.seconds;
    secs_max += p.seconds_max;
    search |= plan->scen[i].find_critical;
    repeat |= p.seconds_cap > p.seconds; /* stats.ci_target */
    plan_free(&p);
  }
  char d[32], m[32];
  printf("plan: %d rows, %d to measure, estimated %s", rows, measure,
         sweep_duration(d, sizeof(d), secs));
  if (search || repeat)
    printf(" (at most %s with %s%s%s)", sweep_duration(m, sizeof(m), secs_max),
           search ? "every search at its longest" : "", search && repeat ? " and " : "",
           repeat ? "every row repeated to its cap" : "");
  printf("; each row's AllReduce priced by the model on its schedule at its transport's "
         "measured per-round cost and bandwidth, plus the harness's work per iteration and "
         "row (docs/usage.md: the estimate)\n");
  return EXIT_OK;
}

/* Co-located ranks spin on flags that ranks on other streams of the same GPU write: each
 * stream needs a hardware queue of its own, or a waiting stream can hold up the writer queued
 * behind it (8 ranks on one H100 hung with CUDA's default of 8 queues per device). 32 is
 * CUDA's most; it is read when CUDA starts, so this runs before any CUDA call. meta.txt
 * records what was in effect. */
static void colocated_queues(void) {
  const char *v = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  if (v && strcmp(v, "32"))
    fprintf(stderr, "arbench: co-located ranks: CUDA_DEVICE_MAX_CONNECTIONS=%s replaced by 32 "
                    "(fewer hardware queues can hang ranks that wait on each other)\n", v);
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 1);
}

/* --self-test delay on the first rank's device, or --self-test degrade on the ranks of
 * --gpus/--ranks (else the first 4 visible GPUs, or 4 ranks on GPU 0 when it is the only
 * one; the first rank degraded x2); the exit status. */
static int self_test(const struct run_opts *o) {
  int count = 0, dev = o->ngpus ? o->gpus[0] : 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count <= dev) {
    fprintf(stderr, "arbench: self-test %s: no GPU %d (%s)\n", o->self_test, dev,
            e != cudaSuccess ? cudaGetErrorString(e) : "not visible");
    return EXIT_FAIL;
  }
  if (!strcmp(o->self_test, "degrade")) {
    int list[HX_MAX_DEVS], nlist = 0;
    for (int r = 0; r < o->ngpus; r++) list[nlist++] = o->gpus[r];
    for (int d = 0; !o->ngpus && d < count && d < 4; d++) list[nlist++] = d;
    int n = o->nranks ? o->nranks : nlist > 1 ? nlist : 4;
    struct ar_placement pl;
    ar_place_round_robin(&pl, list, nlist, n);
    double factor = 2.0;
    if (ar_place_colocated(&pl)) {
      /* one GPU's memory carries both ends of every copy: with several peers moving at once
       * the copies run well below the one-copy rate the emulation divides (1489 GB/s alone,
       * about 700 GB/s in and out at once on an H100), so x2 would ask for more than they can
       * deliver; x8 keeps every requested cap below what the copies reach unthrottled */
      factor = 8.0;
      char t[64], d[256];
      printf("# self-test degrade on co-located ranks (%s: %s): copies stay in one GPU's "
             "memory, so the rank is degraded x%g (the caps stay below what shared memory "
             "delivers); NCCL is not run\n",
             ar_place_text(&pl, t, sizeof(t)), ar_place_detail(&pl, d, sizeof(d)), factor);
      fflush(stdout);
    }
    return tp_degrade_selftest(pl.dev, pl.n, factor, &o->settings, stdout) ? EXIT_FAIL : EXIT_OK;
  }
  return hx_selftest_delay(dev) ? EXIT_FAIL : EXIT_OK;
}

/* The ranks of each host when the ranks span several hosts in equal blocks of consecutive
 * ranks, else 0. */
static int host_blocks(const struct hx_bench_cfg *cfg) {
  if (cfg->nhosts < 2 || cfg->n % cfg->nhosts) return 0;
  int g = cfg->n / cfg->nhosts;
  for (int r = 0; r < cfg->n; r++)
    if (cfg->host[r] != r / g) return 0;
  return g;
}

/* --degrade: measures the healthy bandwidth once per run, before any scenario (a 512 MiB
 * copy-engine push into the first degraded GPU from the next rank, median of 5, as the ce
 * transport copies) and gives it to every scenario: each transport's emulation divides it by
 * the factors. Writes its description for meta.txt into how. A failure leaves 0 (the
 * degraded rows then say n/a, why in the line). With degrade.network_bw the network's
 * healthy bandwidth is that setting's, not measured. */
static void degrade_calibrate(struct run_plan *plan, const struct hx_bench_cfg *cfg, char *how,
                              size_t len) {
  int i = 0;
  while (i < plan->nscen && !plan->scen[i].dg.n) i++;
  if (i == plan->nscen) return;
  double net = ar_setting_value(&plan->scen[i].settings, AR_SET_DEGRADE_NETWORK_BW);
  if (net > 0) { /* the network between hosts, as given: nothing to measure */
    snprintf(how, len, "%.3f GB/s between hosts (degrade.network_bw, as given; nccl-p2p's "
             "emulation slows only the degraded ranks' bytes to and from other hosts)",
             net / 1e9);
    for (int k = 0; k < plan->nscen; k++) plan->scen[k].degrade_bw = net;
    printf("# degrade: healthy bandwidth %s\n", how);
    fflush(stdout);
    return;
  }
  int d = plan->scen[i].dg.rank[0], n = cfg[i].n, next = (d + 1) % n;
  int dst = cfg[i].dev[d], src = cfg[i].dev[next];
  int owner = d / cfg[i].nlocal; /* the process of the degraded rank measures */
  double bw = 0;
  ar_status st = AR_OK;
  if (next / cfg[i].nlocal != owner) { /* its neighbour is elsewhere: another GPU here, if any */
    int count = 1;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 1;
    src = count > 1 ? (dst + 1) % count : dst;
  }
  if (hx_procs_me() == owner) st = tp_degrade_measure_bw(src, dst, (size_t)512 << 20, 5, &bw);
  int msg[3] = {st, src, dst};
  if (hx_procs_bcast(msg, sizeof(msg), owner) || hx_procs_bcast(&bw, sizeof(bw), owner))
    hx_procs_abort(1);
  st = (ar_status)msg[0], src = msg[1], dst = msg[2];
  if (st != AR_OK) {
    snprintf(how, len, "not measured (GPU %d -> GPU %d: %s): degraded rows are n/a", src, dst,
             ar_status_str(st));
    bw = 0;
  } else {
    snprintf(how, len, "%.2f GB/s (copy engine push GPU %d -> GPU %d, 512 MiB, median of 5; "
             "every transport's emulation divides it by the --degrade factors)", bw / 1e9, src,
             dst);
  }
  for (int k = 0; k < plan->nscen; k++) plan->scen[k].degrade_bw = bw;
  printf("# degrade: healthy bandwidth %s\n", how);
  fflush(stdout);
}

/* The run folder and baseline of the run in progress, for on_timeout. */
static char timeout_dir[1100];
static const char *timeout_baseline = "";

/* The watchdog ends a hung run (status 1): the folder is marked FAILED (a hang is a failed
 * row) and INCOMPLETE (the rows after it never ran), and still gets its pictures and
 * summary.md from the rows written so far. */
static void on_timeout(const char *what) {
  char why[400];
  snprintf(why, sizeof(why), "timeout: %s did not finish within -T; the watchdog ended the run",
           what);
  mark_run(timeout_dir, "FAILED", why);
  snprintf(why, sizeof(why), "ended by the watchdog (%s did not finish within -T) before every "
           "row was measured", what);
  mark_run(timeout_dir, "INCOMPLETE", why);
  printf("# results: %s/results.csv (the run ended at a timeout: %s/FAILED)\n", timeout_dir,
         timeout_dir);
  finish_run(timeout_dir, timeout_baseline);
}

/* Processes other than process 0 keep quiet about what every process finds alike (the
 * command line): stderr goes to /dev/null until quiet_end. Returns what quiet_end needs. */
static int quiet_begin(int root) {
  if (root) return -1;
  fflush(stderr);
  int saved = dup(2), null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, 2);
    close(null);
  }
  return saved;
}

static void quiet_end(int saved) {
  if (saved < 0) return;
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
}

/* Hands each scenario in turn to the benchmark, with the run folder's files of `files` (NULL:
 * a process other than process 0, which writes nothing); returns 1 when a row failed. A stop
 * (SIGINT, SIGTERM) is process 0's to see: it tells the others before each scenario. */
static int run_scenarios(struct run_plan *plan, struct hx_bench_cfg *cfg, struct hx_meta *meta,
                         const struct hx_bench_cfg *files) {
  int failed = 0;
  for (int i = 0; i < plan->nscen; i++) {
    int stop = hx_stop_signal != 0;
    if (hx_procs_bcast(&stop, sizeof(stop), 0)) hx_procs_abort(1);
    if (stop) { /* scenarios left unrun */
      hx_stopped_early = 1;
      break;
    }
    cfg[i].o = &plan->scen[i];
    cfg[i].meta = meta;
    cfg[i].run_id = files ? files->run_id : "";
    if (files) {
      cfg[i].csv = files->csv;
      cfg[i].critical_csv = files->critical_csv;
      cfg[i].delays_csv = files->delays_csv;
      cfg[i].phases_csv = files->phases_csv;
      cfg[i].progress = files->progress;
    }
    if (plan->nscen > 1 || plan->scen[i].scenario[0])
      printf("#\n# scenario %s (%d of %d)\n", plan->scen[i].scenario[0] ? plan->scen[i].scenario
                                                                       : "(default)",
             i + 1, plan->nscen);
    failed |= hx_bench_run(&cfg[i]) != 0;
  }
  return failed;
}

/* Several processes (MPI): what does not run across them yet, refused with one line; 0 or -1. */
static int procs_refuse(const struct run_plan *plan) {
  for (int i = 0; i < plan->nscen; i++) {
    const struct run_opts *o = &plan->scen[i];
    const char *flag = o->self_test[0] ? "--self-test" : o->phases ? "--phases"
                       : o->profile ? "--profile" : NULL;
    if (!flag && ar_setting_value(&o->settings, AR_SET_NCCL_REGISTRATION)) {
      /* ncclMemAlloc's memory has no cudaIpcGetMemHandle: other processes could not map it */
      static const char *const mode[] = {"none", "registered", "symmetric"};
      char v[64];
      snprintf(v, sizeof(v), "nccl.registration=%s",
               mode[(int)ar_setting_value(&o->settings, AR_SET_NCCL_REGISTRATION) % 3]);
      if (hx_procs_me() == 0)
        args_bad("--set", v, "runs in one process: ncclMemAlloc's buffers have no CUDA IPC "
                 "handle, and the other processes map every rank's buffer (start it without "
                 "mpirun)");
      return -1;
    }
    if (!flag) continue;
    if (hx_procs_me() == 0)
      args_bad(flag, flag[2] == 's' ? o->self_test : "on", "runs in one process: start it "
               "without mpirun (several processes' traces are not merged yet)");
    return -1;
  }
  return 0;
}

/* One process: --ranks-per-process means nothing (--ranks places a plain run's ranks); 0 or -1. */
static int one_process_refuse(const struct run_plan *plan) {
  for (int i = 0; i < plan->nscen; i++)
    if (plan->scen[i].per_proc) {
      char v[16];
      snprintf(v, sizeof(v), "%d", plan->scen[i].per_proc);
      return args_bad("--ranks-per-process", v, "only for several processes under mpirun or "
                      "srun; one process places its ranks with --ranks or --gpus");
    }
  return 0;
}

int cmd_run(int argc, char **argv) {
  static struct run_plan plan; /* large: keep it off the stack */
  static struct hx_bench_cfg cfg[CONFIG_MAX_SCENARIOS];
  static struct hx_meta meta;
  static struct hx_csv csv;
  static struct hx_progress progress;
  if (hx_procs_init(NULL, NULL)) return EXIT_FAIL;
  int root = hx_procs_me() == 0, procs = hx_procs_count() > 1;
  if (!root && !freopen("/dev/null", "w", stdout)) return EXIT_FAIL; /* the table is process 0's */
  int quiet = quiet_begin(root); /* so is every word about the command line */
  int rc = run_plan_parse(argc, argv, &plan);
  quiet_end(quiet);
  if (rc) {
    hx_procs_finalize();
    return rc > 0 ? EXIT_OK : EXIT_BAD_INPUT;
  }
  char launcher[96];
  if (!procs && launch_copies(launcher, sizeof(launcher)) > 1) { /* copies that know not of each other */
    fprintf(stderr, "arbench: %s: a launcher started %d copies of an arbench that runs alone "
            "(built without MPI, or MPI not started): each would run every row on the same GPUs; "
            "start it once, or build with make MPI=1 (docs/multiprocess.md)\n", launcher,
            launch_copies(launcher, sizeof(launcher)));
    rc = EXIT_BAD_INPUT;
    goto out;
  }
  if ((procs ? procs_refuse(&plan) : one_process_refuse(&plan)) || procs_hosts_refuse(&plan)) {
    rc = EXIT_BAD_INPUT;
    goto out;
  }
  ar_settings_retired();
  const struct run_opts *o0 = &plan.scen[0];
  for (int i = 0; i < plan.nscen; i++)
    for (int t = 0; t < plan.scen[i].ntransports; t++)
      if (!tp_ops_of(plan.scen[i].transports[t]->id)) {
        args_bad("--transport", plan.scen[i].transports[t]->name, "not built into this binary");
        rc = EXIT_BAD_INPUT;
        goto out;
      }
  /* with --gpus the rank count is known: check ranks before touching CUDA */
  for (int i = 0; i < plan.nscen; i++)
    if (named_ranks(&plan.scen[i]) &&
        run_opts_check_ranks(&plan.scen[i], named_ranks(&plan.scen[i]))) {
      rc = EXIT_BAD_INPUT;
      goto out;
    }
  if (root && o0->out[0] && !o0->force && dir_nonempty(o0->out)) { /* never over another run */
    args_bad("--out", o0->out, "the folder is not empty (--force writes into it)");
    rc = EXIT_BAD_INPUT;
  }
  if (!rc && root && baseline_refused(o0)) rc = EXIT_BAD_INPUT;
  if (!rc && o0->dry_run) { /* under MPI: processes x --ranks-per-process ranks */
    for (int i = 0; procs && i < plan.nscen; i++) {
      struct run_opts *o = &plan.scen[i];
      int n = hx_procs_count() * (o->per_proc ? o->per_proc : 1);
      if (o->nranks && o->nranks != n) {
        char v[16], why[96];
        snprintf(v, sizeof(v), "%d", o->nranks);
        snprintf(why, sizeof(why), "under MPI the ranks are processes x --ranks-per-process = %d",
                 n);
        if (root) args_bad("--ranks", v, why);
        rc = EXIT_BAD_INPUT;
        goto out;
      }
      o->nranks = n;
    }
    rc = root ? dry_run(&plan) : EXIT_OK;
    goto out;
  }
  if (!rc && root && out_writable(o0->out[0] ? o0->out : "runs")) { /* before any GPU work */
    char why[160];
    snprintf(why, sizeof(why), "cannot make a run folder there: %s", strerror(errno));
    args_bad("--out", o0->out[0] ? o0->out : "runs/", why);
    rc = EXIT_BAD_INPUT;
  }
  if (hx_procs_bcast(&rc, sizeof(rc), 0) || rc) goto out; /* the folder is process 0's */
  stop_catch();
  setenv("NCCL_NVLS_ENABLE", "0", 1); /* before any NCCL call, whatever the caller set */
  /* load every kernel when a context starts: a lazy load on first launch may wait for the
   * device to drain, and a transport's stream can be held by a wait on a peer at that moment
   * (seen as hangs of the ce transport when it ran first); the caller may still say LAZY */
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  for (int i = 0; i < plan.nscen; i++) /* MPI: only a process's own ranks share its streams */
    if (procs ? plan.scen[i].per_proc > 1 : may_colocate(&plan.scen[i])) colocated_queues();
  if (o0->self_test[0]) {
    rc = self_test(o0);
    goto out;
  }
  int any_crit = 0, any_st = 0, any_ph = 0;
  hx_meta_basic(&meta, argc, argv);
  for (int i = 0; i < plan.nscen; i++) {
    if (procs) {
      if ((rc = procs_place(&plan.scen[i], &cfg[i], &meta))) goto out;
    } else {
      if ((rc = pick_devices(&plan.scen[i], &cfg[i]))) goto out;
      procs_describe_local(&cfg[i], &meta);
    }
    quiet = quiet_begin(root);
    rc = run_opts_check_ranks(&plan.scen[i], cfg[i].n) ? EXIT_BAD_INPUT : EXIT_OK;
    quiet_end(quiet);
    if (rc) goto out;
    run_opts_settle(&plan.scen[i], cfg[i].n);
    plan.scen[i].gpus_per_node = host_blocks(&cfg[i]);
    any_crit |= plan.scen[i].find_critical;
    any_st |= plan.scen[i].nst > 0;
    any_ph |= plan.scen[i].phases;
  }
  char dg_how[256] = ""; /* --degrade: the healthy bandwidth, measured once (meta.txt) */
  degrade_calibrate(&plan, cfg, dg_how, sizeof(dg_how));
  hx_meta_devices(&meta, cfg[0].dev[cfg[0].first]);
  if (!root) { /* the run folder and its files are process 0's */
    run_scenarios(&plan, cfg, &meta, NULL);
    hx_procs_bcast(&rc, sizeof(rc), 0);
    goto out;
  }
  char dir[1100], path[1200];
  if (o0->out[0]) snprintf(dir, sizeof(dir), "%s", o0->out);
  else default_out(dir, sizeof(dir), meta.host);
  stop_hold(); /* a second signal from here marks the folder: it learns the folder first */
  int claim = claim_dir(dir, sizeof(dir), o0->out[0] != 0, o0->force), claim_err = errno;
  if (!claim) stop_folder(dir);
  stop_release(STOP_MEASURING);
  if (claim) {
    errno = claim_err;
    int taken = errno == EEXIST;
    if (taken) args_bad("--out", dir, "another run took the folder (--force writes into it)");
    else fprintf(stderr, "arbench: --out: cannot make '%s': %s\n", dir, strerror(errno));
    rc = taken ? EXIT_BAD_INPUT : EXIT_FAIL;
    if (procs) hx_procs_abort(rc); /* the others wait in the first scenario */
    goto out;
  }
  snprintf(path, sizeof(path), "%s/results.csv", dir);
  if (hx_csv_open_run(&csv, path) || hx_csv_open_samples(&csv)) { /* and samples.csv */
    fprintf(stderr, "arbench: --out: cannot write '%s': %s\n", path, strerror(errno));
    rc = EXIT_FAIL;
    if (procs) hx_procs_abort(rc);
    goto out;
  }
  if (hx_meta_write(&meta, dir, &cfg[0].place))
    fprintf(stderr, "arbench: cannot write %s/meta.txt or COMMAND: %s\n", dir, strerror(errno));
  settings_meta(dir, &plan);
  budget_meta(dir, &plan);
  if (dg_how[0]) degrade_meta(dir, dg_how);
  if (plan.config[0] && copy_config(&plan, dir))
    fprintf(stderr, "arbench: cannot copy %s into %s: %s\n", plan.config, dir, strerror(errno));
  FILE *crit = any_crit ? open_extra(dir, "critical.csv", hx_critical_header) : NULL;
  FILE *delays = any_st ? open_extra(dir, "delays.csv", hx_delays_header) : NULL;
  FILE *phases = any_ph ? open_extra(dir, "phases.csv", hx_phases_header) : NULL;
  if ((any_crit && !crit) || (any_st && !delays) || (any_ph && !phases))
    fprintf(stderr, "arbench: cannot write %s/critical.csv, delays.csv or phases.csv: %s\n", dir,
            strerror(errno));
  /* the progress line: every row of every scenario, weighted by its estimated time */
  const char *env = getenv("AR_PROGRESS");
  progress.tty = isatty(2);
  progress.on = env && *env ? !strcmp(env, "1")
                            : progress.tty && ar_log_level() < AR_LOG_INFO;
  for (int i = 0; i < plan.nscen; i++) {
    struct plan p; /* as the bench builds it */
    char place[64];
    struct plan_where where = {ar_place_colocated(&cfg[i].place), cfg[i].nhosts,
                               ar_place_text(&cfg[i].place, place, sizeof(place))};
    if (plan_build(&p, &plan.scen[i], cfg[i].n, &where) == 0) {
      progress.total += p.write;
      progress.total_s += p.seconds;
      plan_free(&p);
    }
  }
  progress.t0 = progress.last = now_s();
  const char *slash = strrchr(dir, '/');
  struct hx_bench_cfg files = {.csv = &csv, .run_id = slash && slash[1] ? slash + 1 : dir,
                               .critical_csv = crit, .delays_csv = delays,
                               .phases_csv = phases, .progress = &progress};
  snprintf(timeout_dir, sizeof(timeout_dir), "%s", dir);
  timeout_baseline = o0->baseline;
  hx_on_timeout = on_timeout;
  int failed = run_scenarios(&plan, cfg, &meta, &files);
  hx_on_timeout = NULL;
  hx_csv_close(&csv);
  if (crit) fclose(crit);
  if (delays) fclose(delays);
  if (phases) fclose(phases);
  stop_hold();
  int early = hx_stopped_early; /* a stop after the last row leaves the rows complete */
  if (early) mark_incomplete(dir, hx_stop_signal);
  if (failed) /* wrong elements or errors: the exit status is 1, and no night compares with it */
    mark_run(dir, "FAILED", "some rows were wrong or failed (status error or timeout in results.csv)");
  stop_release(STOP_PICTURES);
  printf("# results: %s\n", path);
  finish_run(dir, o0->baseline);
  fflush(stdout); /* a reader of stdout gone by now is a stop too */
  rc = failed ? EXIT_FAIL : EXIT_OK;
  int sig = hx_stop_signal;
  if (sig) { /* one line; the shell's status for a signal, whatever it left undone */
    const char *name = stop_name(sig), *who = sig == SIGPIPE ? " (stdout's reader went away)" : "";
    if (early)
      fprintf(stderr, "arbench: stopped by %s%s: the rows measured so far are in %s, the run is "
              "incomplete (%s/INCOMPLETE)\n", name, who, path, dir);
    else if (stop_cut_pictures())
      fprintf(stderr, "arbench: stopped by %s%s while the pictures were drawn: every row is in "
              "%s and summary.md is written, the pictures are not (%s/INCOMPLETE)\n", name, who,
              path, dir);
    else
      fprintf(stderr, "arbench: %s%s came once every row was measured: the run is complete "
              "(%s)\n", name, who, path);
    rc = 128 + sig;
  }
  if (procs) hx_procs_bcast(&rc, sizeof(rc), 0); /* every process ends as process 0 does */
out:
  run_plan_free(&plan);
  hx_procs_finalize();
  return rc;
}
