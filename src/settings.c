/* The declared settings (settings.h). */
#include "settings.h"

#include "decimal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Defaults are the figures measured best (docs/performance.md), as they were when these were
 * environment variables. */
static const struct ar_setting table[AR_SET_COUNT] = {
    [AR_SET_CE_PROGRAM] = {"ce.program", "choice", "auto", "",
                           "ce: auto (flow program for degraded jobs and straggler-aware "
                           "schedules), round (never the flow program), flow (every schedule "
                           "but pipelined rings)",
                           "AR_CE_PROGRAM", 0, 0, "auto,round,flow"},
    [AR_SET_CE_RING_BATCH] = {"ce.ring_batch", "bytes", "256M", "bytes",
                              "ce dataflow ring: automatic mini-batch (4..64 per transfer)",
                              "AR_CE_RING_BATCH", 1 << 16, 1ull << 34, NULL},
    [AR_SET_CE_RING_STREAMS] = {"ce.ring_streams", "int", "1", "streams",
                                "ce dataflow ring: copy streams per rank (batches alternate)",
                                "AR_CE_RING_STREAMS", 1, 4, NULL},
    [AR_SET_CE_DIRECT_BATCH] = {"ce.direct_batch", "bytes", "1G", "bytes",
                                "ce dataflow direct: automatic mini-batch of the largest owned "
                                "range (2..16)",
                                "AR_CE_DIRECT_BATCH", 1 << 16, 1ull << 34, NULL},
    [AR_SET_CE_FLOW_BATCH] = {"ce.flow_batch", "bytes", "128M", "bytes",
                              "ce flow program: automatic mini-batch of the largest chunk "
                              "(1..16)",
                              "AR_CE_FLOW_BATCH", 1 << 16, 1ull << 34, NULL},
    [AR_SET_CE_FLOW_SUM_BLOCKS] = {"ce.flow_sum_blocks", "int", "64", "blocks",
                                   "ce flow program: blocks of each sum kernel (above half the "
                                   "rank's SMs a sum waits on the stream, not spinning)",
                                   "AR_FLOW_SUM_BLOCKS", 1, 4096, NULL},
    [AR_SET_CE_SUM_BLOCKS] = {"ce.sum_blocks", "int", "0", "blocks",
                              "ce: most blocks of any sum kernel (0: 4 per SM)",
                              "AR_SUM_BLOCKS", 0, 4096, NULL},
    [AR_SET_CE_SUM_WAIT] = {"ce.sum_wait", "int", "1", "",
                            "ce: 1 folds a sum's flag waits into its kernel, 0 leaves them "
                            "as stream waits",
                            "AR_SUM_WAIT", 0, 1, NULL},
    [AR_SET_FLAGS] = {"flags", "choice", "auto", "",
                      "ce flag writes and waits: auto (stream memory operations where the "
                      "driver has them), memop, kernel (one-thread kernels)",
                      "AR_FLAGS", 0, 0, "auto,memop,kernel"},
    [AR_SET_SM_ONESHOT_MAX_BYTES] = {"sm.oneshot_max_bytes", "bytes", "0", "bytes",
                                     "sm: largest AllReduce per rank on the oneshot kernel "
                                     "(0: 1 MiB / (n - 1))",
                                     "AR_LL_MAX_BYTES", 0, 1ull << 30, NULL, "sm.ll_max_bytes"},
    [AR_SET_MODEL_THREADS] = {"model.threads", "int", "0", "threads",
                              "model: threads pricing one schedule's rounds (0: by its size and "
                              "the CPUs; the price is the same however split)",
                              "AR_MODEL_THREADS", 0, 16, NULL},
    [AR_SET_MODEL_JOBS] = {"model.jobs", "int", "0", "schedules",
                           "model: schedules priced at once (0: the CPUs)", "AR_MODEL_JOBS", 0, 16,
                           NULL},
    [AR_SET_TIMING_START_SKEW] = {"timing.start_skew", "choice", "off", "",
                                  "stamp %globaltimer right after every rank's start event (a "
                                  "kernel inside the timed time, about 2 us) and print how far "
                                  "apart the ranks started, per row; exact on one GPU's clock",
                                  NULL, 0, 0, "off,on"},
    [AR_SET_NCCL_REGISTRATION] = {"nccl.registration", "choice", "none", "",
                                  "the data buffer of the nccl rows (and every transport's): none "
                                  "(cudaMalloc), registered (ncclMemAlloc + ncclCommRegister, "
                                  "nccl-tests -R 1), symmetric (ncclMemAlloc + a symmetric window, "
                                  "NCCL 2.27+, nccl-tests -R 2); one process only; a mode that "
                                  "cannot be had makes the nccl rows n/a, never another mode",
                                  NULL, 0, 0, "none,registered,symmetric"},
    [AR_SET_NCCL_ROTATE] = {"nccl.rotate", "choice", "off", "",
                            "timing.mode=host or graph: on puts the nccl rows' AllReduce i of a "
                            "batch on slice i mod floor(buffer / size) of the data buffer (the "
                            "run's largest size: it and sizes over half of it never move), as "
                            "nccl-tests shifts iteration i, so that sizes the L2 cache holds "
                            "do not find the last AllReduce's data there (the last batch's, "
                            "where -n of them fit it); off: every AllReduce on the buffer's "
                            "start, as every schedule's rows run (they never rotate)",
                            NULL, 0, 0, "off,on"},
    [AR_SET_TIMING_MODE] = {"timing.mode", "choice", "events", "",
                            "events: CUDA events around every iteration, starts aligned on the "
                            "GPUs, every iteration checked; host: nccl-tests' method, per batch "
                            "a barrier, the host clock around -n AllReduces enqueued back to "
                            "back and a stream sync, / -n, averaged over the ranks (the batch "
                            "sums in place and is not checked; one checked iteration follows); "
                            "graph: as host, but each batch's -n AllReduces captured into one "
                            "CUDA graph first and the graph's launch timed (nccl-tests -G; n/a "
                            "where a transport cannot be captured)",
                            NULL, 0, 0, "events,host,graph"},
    [AR_SET_TIMING_HOST_BATCHES] = {"timing.host_batches", "int", "5", "batches",
                                    "timing.mode=host or graph: batches of -n AllReduces per "
                                    "row; the time columns are statistics over the batches",
                                    NULL, 1, 1000, NULL},
    [AR_SET_TIMING_GRAPH_UPLOAD] = {"timing.graph_upload", "choice", "on", "",
                                    "timing.mode=graph: on uploads each batch's graph to the GPU "
                                    "before the timed launch; off launches it without, as "
                                    "nccl-tests -G does, so the launch carries the upload",
                                    NULL, 0, 0, "on,off"},
    [AR_SET_LL_PROTOCOL] = {"ll.protocol", "choice", "auto", "",
                            "ll transport: lines (a sequence number beside every 4 bytes of "
                            "data: no wait but on the data itself, half the link's rate), "
                            "lines128 (a number per 128-byte line stored whole by one warp: "
                            "120 bytes of data per 128), signals (plain data, then a flag per "
                            "slice and range after a system fence), auto (lines up to "
                            "ll.lines_max bytes per rank, signals where a rank sends 32 MiB or "
                            "more in one round, lines128 between)",
                            NULL, 0, 0, "auto,lines,lines128,signals"},
    [AR_SET_LL_LINES_MAX] = {"ll.lines_max", "bytes", "256K", "bytes",
                             "ll transport, ll.protocol=auto: the largest buffer (per rank) "
                             "sent as lines",
                             NULL, 0, 1ull << 34, NULL},
    [AR_SET_LL_BLOCKS] = {"ll.blocks", "int", "0", "blocks",
                          "ll transport: blocks of each rank's kernel (0: one per slice, at "
                          "most 4 per SM that fit, co-located ranks one per SM of their share)",
                          NULL, 0, 4096, NULL},
    [AR_SET_LL_SLICE] = {"ll.slice", "bytes", "0", "bytes",
                         "ll transport, signals: the bytes under one flag, a warp's unit of work "
                         "(rounded down to a multiple of 512, at least 512; 0: by size, the "
                         "largest up to 16K that gives each warp of a full grid a slice of the "
                         "busiest round)",
                         NULL, 0, 1 << 24, NULL},
    [AR_SET_LL_FORWARD] = {"ll.forward", "choice", "on", "",
                           "ll transport: on: a warp sends each slice it has just summed on to "
                           "the next round's peers that receive that same range (the link stays "
                           "busy while warps sum), off: a round's sends start after the round "
                           "before has been summed",
                           NULL, 0, 0, "off,on"},
    [AR_SET_PROCS_HOSTS] = {"procs.hosts", "int", "0", "hosts",
                            "several processes (mpirun, srun): 0: each process on the host it "
                            "runs on; K: the processes as K consecutive blocks, each a host of "
                            "its own to arbench (no CUDA IPC between blocks) and to NCCL (a "
                            "host id per block, its socket network on the loopback interface): "
                            "a multi-node run rehearsed on one machine",
                            NULL, 0, 16, NULL},
    [AR_SET_DEGRADE_NETWORK_BW] = {"degrade.network_bw", "bytes", "0", "bytes/s",
                                   "--degrade across hosts: 0: a degraded GPU's every link "
                                   "is slow (healthy: a copy engine's push, measured); B: only "
                                   "the degraded ranks' bytes to and from other hosts are slow "
                                   "(their network, as the model's two tiers), against a "
                                   "healthy network of B bytes/s; nccl-p2p only",
                                   NULL, 0, 1e12, NULL},
    [AR_SET_STATS_CI_TARGET] = {"stats.ci_target", "real", "0", "of the median",
                                "repeat each row until the larger half of its median's 95% "
                                "interval is within this fraction of the median (0.01: 1%), "
                                "its --row-budget ends or stats.max_iters samples are taken; "
                                "0: exactly -n samples (results.csv's repeat_stop says which)",
                                NULL, 0, 1, NULL},
    [AR_SET_STATS_MAX_ITERS] = {"stats.max_iters", "int", "1000", "samples",
                                "stats.ci_target: the most samples a row takes (iterations, or "
                                "timing.mode=host/graph batches); never fewer than -n (or "
                                "timing.host_batches)",
                                NULL, 1, 100000, NULL},
};

static struct ar_settings process; /* ar_settings_apply's copy: zero = defaults */

const struct ar_setting *ar_settings_table(void) { return table; }

/* The index of word in a comma-separated list, or -1. */
static int choice_index(const char *list, const char *word, size_t len) {
  int i = 0;
  for (const char *p = list; *p; i++) {
    size_t k = strcspn(p, ",");
    if (k == len && !strncmp(p, word, len)) return i;
    p += k + (p[k] == ',');
  }
  return -1;
}

/* Parses value text as a setting of type t; returns 0 with *v, or -1 with *why. */
static int parse_value(const struct ar_setting *t, const char *s, double *v, const char **why) {
  if (!strcmp(t->type, "choice")) {
    int i = choice_index(t->choices, s, strlen(s));
    if (i < 0) return *why = t->choices, -1;
    *v = i;
    return 0;
  }
  if (!strcmp(t->type, "real")) { /* a fraction: a double, as every real number arbench reads */
    const char *d = s + (*s == '+' || *s == '-');
    int plain = (d[0] >= '0' && d[0] <= '9' && !(d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))) ||
                (d[0] == '.' && d[1] >= '0' && d[1] <= '9');
    char *end = NULL;
    double x = strtod(s, &end);
    if (!plain || end == s) return *why = "not a plain decimal number", -1;
    if (*end) return *why = "a decimal number", -1;
    if (x < t->lo || x > t->hi) return *why = "out of range (arbench settings lists the range)", -1;
    *v = x;
    return 0;
  }
  /* a whole number read exactly (decimal.h): strtod would also take leading blanks,
   * hexadecimal ("0x10": 16) and words (inf, nan), and round 1.00000000000000001 to 1 */
  size_t len = strlen(s);
  int pow = 0;
  if (!strcmp(t->type, "bytes") && len && strchr("KMGT", s[len - 1])) {
    pow = (int)(strchr("KMGT", s[len - 1]) - "KMGT") + 1;
    len--;
  }
  uint64_t x;
  const char *w = NULL;
  if (ar_decimal_whole(s, len, pow, (uint64_t)t->hi, &x, &w) || x < t->lo) {
    int range = !w || !strcmp(w, "out of range") || !strcmp(w, "negative");
    *why = range ? "out of range (arbench settings lists the range)" : w;
    return -1;
  }
  *v = (double)x;
  return 0;
}

int ar_settings_parse(struct ar_settings *s, const char *assign, const char *where) {
  const char *eq = strchr(assign, '=');
  const char *why = "expected name=value (arbench settings lists the names)";
  size_t nlen = eq ? (size_t)(eq - assign) : 0;
  for (int i = 0; eq && i < AR_SET_COUNT; i++) {
    const char *old = table[i].old_name;
    int renamed = old && strlen(old) == nlen && !strncmp(old, assign, nlen);
    if (!renamed && (strlen(table[i].name) != nlen || strncmp(table[i].name, assign, nlen)))
      continue;
    double v;
    if (parse_value(&table[i], eq + 1, &v, &why)) break;
    if (renamed)
      fprintf(stderr, "arbench: %s: '%s' is now named '%s' (read as that)\n",
              where ? where : "--set", old, table[i].name);
    s->given[i] = 1;
    s->value[i] = v;
    return 0;
  }
  if (eq && !strcmp(why, "expected name=value (arbench settings lists the names)"))
    why = "no such setting (arbench settings lists them)";
  fprintf(stderr, "arbench: %s: bad value '%s': %s\n", where ? where : "--set", assign, why);
  return -1;
}

double ar_setting_value(const struct ar_settings *s, int id) {
  if (s && s->given[id]) return s->value[id];
  double v = 0;
  const char *why;
  parse_value(&table[id], table[id].def, &v, &why); /* the defaults parse (tested) */
  return v;
}

void ar_settings_apply(const struct ar_settings *s) {
  if (s) process = *s;
  else memset(&process, 0, sizeof(process));
}

double ar_setting(int id) { return ar_setting_value(&process, id); }

char *ar_setting_text(const struct ar_settings *s, int i, char *buf, size_t len) {
  double v = ar_setting_value(s, i);
  if (!strcmp(table[i].type, "choice")) {
    const char *p = table[i].choices;
    for (int k = 0; k < (int)v && *p; k++) p += strcspn(p, ",") + 1;
    snprintf(buf, len, "%.*s", (int)strcspn(p, ","), p);
  } else {
    snprintf(buf, len, !strcmp(table[i].type, "real") ? "%g" : "%.0f", v);
  }
  return buf;
}

char *ar_settings_text(const struct ar_settings *s, char *buf, size_t len) {
  size_t k = 0;
  if (len) buf[0] = 0;
  for (int i = 0; s && i < AR_SET_COUNT; i++) {
    if (!s->given[i]) continue;
    char v[64];
    ar_setting_text(s, i, v, sizeof(v));
    if (k < len) k += (size_t)snprintf(buf + k, len - k, "%s%s=%s", k ? ";" : "", table[i].name, v);
  }
  return buf;
}

void ar_settings_write(FILE *f, const struct ar_settings *s) {
  for (int i = 0; i < AR_SET_COUNT; i++) {
    char v[64];
    ar_setting_text(s, i, v, sizeof(v));
    fprintf(f, "setting %s = %s%s\n", table[i].name, v, s && s->given[i] ? " (--set)" : "");
  }
}

void ar_settings_list(FILE *f) {
  fprintf(f, "%-20s %-7s %-8s %-24s %s\n", "setting", "type", "default", "range", "what it does");
  for (int i = 0; i < AR_SET_COUNT; i++) {
    const struct ar_setting *t = &table[i];
    char range[64];
    if (!strcmp(t->type, "choice")) snprintf(range, sizeof(range), "%s", t->choices);
    else if (!strcmp(t->type, "real")) snprintf(range, sizeof(range), "%g..%g", t->lo, t->hi);
    else snprintf(range, sizeof(range), "%.0f..%.0f %s", t->lo, t->hi, t->unit);
    fprintf(f, "%-20s %-7s %-8s %-24s %s", t->name, t->type, t->def, range, t->doc);
    if (t->retired_env) fprintf(f, " (was %s)", t->retired_env);
    if (t->old_name) fprintf(f, " (formerly %s)", t->old_name);
    fputc('\n', f);
  }
}

int ar_settings_retired(void) {
  int n = 0;
  for (int i = 0; i < AR_SET_COUNT; i++)
    if (table[i].retired_env && getenv(table[i].retired_env)) {
      fprintf(stderr, "arbench: %s is no longer read (it changes nothing); use --set %s=VALUE\n",
              table[i].retired_env, table[i].name);
      n++;
    }
  return n;
}
