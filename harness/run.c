/* `arbench run`: validate every flag, find the GPUs, make the run folder (results.csv,
 * meta.txt, COMMAND), then hand over to the benchmark (bench.c). */
#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench.h"
#include "cli.h"
#include "csv.h"
#include "cuda/transport.h"
#include "meta.h"
#include "sweep.h"

/* mkdir -p; returns 0 or -1 with errno set. */
static int make_dirs(const char *path) {
  char buf[1100];
  snprintf(buf, sizeof(buf), "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0777) && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(buf, 0777) && errno != EEXIST) return -1;
  return 0;
}

/* The default run folder: runs/<UTC time>_<host>. */
static void default_out(char *buf, size_t len, const char *host) {
  time_t t = time(NULL);
  struct tm tm;
  char stamp[32];
  gmtime_r(&t, &tm);
  strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
  snprintf(buf, len, "runs/%s_%s", stamp, host);
}

/* The devices of the run from --gpus or every visible GPU; returns 0, or the exit status. */
static int pick_devices(const struct run_opts *o, struct hx_bench_cfg *cfg) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    fprintf(stderr,
            "arbench: no GPU found (%s); `arbench model` and `arbench schedule` work without one\n",
            e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
    return EXIT_FAIL;
  }
  if (o->ngpus) {
    for (int r = 0; r < o->ngpus; r++) {
      if (o->gpus[r] >= count) {
        char v[16], why[64];
        snprintf(v, sizeof(v), "%d", o->gpus[r]);
        snprintf(why, sizeof(why), "no such GPU (%d visible)", count);
        args_bad("--gpus", v, why);
        return EXIT_BAD_INPUT;
      }
      cfg->dev[r] = o->gpus[r];
    }
    cfg->n = o->ngpus;
    return 0;
  }
  if (count < 2) {
    fprintf(stderr, "arbench: an AllReduce needs at least 2 GPUs; %d visible "
                    "(`arbench model` works without GPUs)\n", count);
    return EXIT_FAIL;
  }
  cfg->n = count < HX_MAX_DEVS ? count : HX_MAX_DEVS;
  for (int r = 0; r < cfg->n; r++) cfg->dev[r] = r;
  return 0;
}

int cmd_run(int argc, char **argv) {
  static struct run_opts o; /* large: keep it off the stack */
  int rc = run_opts_parse(argc, argv, &o);
  if (rc) {
    run_opts_free(&o);
    return rc > 0 ? EXIT_OK : EXIT_BAD_INPUT;
  }
  for (int t = 0; t < o.ntransports; t++)
    if (!tp_find(o.transports[t])) {
      args_bad("--transport", o.transports[t], "not built into this binary");
      run_opts_free(&o);
      return EXIT_BAD_INPUT;
    }
  /* with --gpus the rank count is known: check ranks before touching CUDA */
  if (o.ngpus && run_opts_check_ranks(&o, o.ngpus)) {
    run_opts_free(&o);
    return EXIT_BAD_INPUT;
  }
  static struct hx_bench_cfg cfg;
  static struct hx_meta meta;
  setenv("NCCL_NVLS_ENABLE", "0", 1); /* before any NCCL call, whatever the caller set */
  /* load every kernel when a context starts: a lazy load on first launch may wait for the
   * device to drain, and a transport's stream can be held by a wait on a peer at that moment
   * (seen as hangs of the ce transport when it ran first); the caller may still say LAZY */
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  if ((rc = pick_devices(&o, &cfg)) || run_opts_check_ranks(&o, cfg.n)) {
    run_opts_free(&o);
    return rc ? rc : EXIT_BAD_INPUT;
  }
  hx_meta_basic(&meta, argc, argv);
  hx_meta_devices(&meta, cfg.dev[0]);
  char dir[1100], path[1200];
  if (o.out[0]) snprintf(dir, sizeof(dir), "%s", o.out);
  else default_out(dir, sizeof(dir), meta.host);
  static struct hx_csv csv;
  snprintf(path, sizeof(path), "%s/results.csv", dir);
  if (make_dirs(dir) || hx_csv_open(&csv, path)) {
    fprintf(stderr, "arbench: --out: cannot write '%s': %s\n", path, strerror(errno));
    run_opts_free(&o);
    return EXIT_FAIL;
  }
  if (hx_meta_write(&meta, dir, cfg.dev, cfg.n))
    fprintf(stderr, "arbench: cannot write %s/meta.txt or COMMAND: %s\n", dir, strerror(errno));
  const char *slash = strrchr(dir, '/');
  cfg.o = &o;
  cfg.csv = &csv;
  cfg.meta = &meta;
  cfg.run_id = slash && slash[1] ? slash + 1 : dir;
  rc = hx_bench_run(&cfg);
  hx_csv_close(&csv);
  printf("# results: %s\n", path);
  run_opts_free(&o);
  return rc ? EXIT_FAIL : EXIT_OK;
}
