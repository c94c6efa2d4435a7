/* `arbench run` options: every flag is checked here, before any GPU is touched. */
#include "sweep.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const transport_names[HX_MAX_TRANSPORTS] = {"nccl-p2p", "ce", "sm"};

void run_opts_usage(void) {
  printf(
      "usage: arbench run [options]   (also the default with no subcommand)\n"
      "  -b, --minbytes SIZE     smallest size (default 1K; binary units K, M, G)\n"
      "  -e, --maxbytes SIZE     largest size (default 8G)\n"
      "  -f, --stepfactor F      multiply the size by F each step (default 2)\n"
      "  -i, --stepbytes SIZE    add SIZE each step instead\n"
      "      --sizes LIST        an explicit list of sizes (e.g. 1K,1000003,1M)\n"
      "      --algo LIST|all     algorithms (default all; see arbench --list)\n"
      "      --transport LIST|all  nccl-p2p, ce, sm (default nccl-p2p; nccl ignores it)\n"
      "      --gpus LIST         CUDA ordinals, rank = position (default every GPU)\n"
      "  -n, --iters N           timed iterations (default 20)\n"
      "  -w, --warmup N          untimed warm-up iterations (default 5)\n"
      "  -T, --timeout SECONDS   watchdog per size and algorithm (default 120)\n"
      "  -o, --out DIR           run folder (default runs/<UTC time>_<host>)\n"
      "  -d, --dtype T           float32, bf16 or fp16 (default float32)\n"
      "      --pipeline K        mini-batches per transfer where the transport pipelines\n"
      "  -c, --check 0|1         check every timed iteration's result (default 1)\n"
      "      --straggler R:D     delay rank R by D (8ms, 2ms-10ms, @FILE) before each\n"
      "                          iteration's collective; comma-separated for several\n"
      "      --torus AxB         logical torus for swing-mp and bucket\n");
}

/* Parses "0,1,3" into distinct ordinals; 0 or -1. */
static int parse_gpus(const char *s, struct run_opts *o) {
  char buf[256];
  if (strlen(s) >= sizeof(buf)) return args_bad("--gpus", s, "too long");
  snprintf(buf, sizeof(buf), "%s", s);
  o->ngpus = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int d;
    if (o->ngpus == HX_MAX_DEVS) return args_bad("--gpus", s, "at most 16 GPUs");
    if (args_parse_int("--gpus", t, 0, 255, &d)) return -1;
    for (int i = 0; i < o->ngpus; i++)
      if (o->gpus[i] == d) return args_bad("--gpus", s, "a GPU is named twice");
    o->gpus[o->ngpus++] = d;
  }
  if (o->ngpus < 2) return args_bad("--gpus", s, "an AllReduce needs at least 2 GPUs");
  return 0;
}

/* Parses "all" or "ring,nccl"; 0 or -1. */
static int parse_algos(const char *s, struct run_opts *o) {
  o->nalgos = 0;
  if (!strcmp(s, "all")) {
    size_t n;
    const struct ar_algo *const *all = ar_algo_all(&n);
    for (size_t i = 0; i < n && o->nalgos < HX_MAX_ALGOS; i++) o->algos[o->nalgos++] = all[i];
    return 0;
  }
  char buf[1024];
  if (strlen(s) >= sizeof(buf)) return args_bad("--algo", s, "too long");
  snprintf(buf, sizeof(buf), "%s", s);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    const struct ar_algo *a = args_find_algo("--algo", t);
    if (!a) return -1;
    int dup = 0;
    for (int i = 0; i < o->nalgos; i++) dup |= o->algos[i] == a;
    if (!dup && o->nalgos < HX_MAX_ALGOS) o->algos[o->nalgos++] = a;
  }
  if (!o->nalgos) return args_bad("--algo", s, "empty");
  return 0;
}

/* Parses "all" or "nccl-p2p,ce"; 0 or -1. */
static int parse_transports(const char *s, struct run_opts *o) {
  o->ntransports = 0;
  if (!strcmp(s, "all")) {
    for (int i = 0; i < HX_MAX_TRANSPORTS; i++) o->transports[o->ntransports++] = transport_names[i];
    return 0;
  }
  char buf[256];
  if (strlen(s) >= sizeof(buf)) return args_bad("--transport", s, "too long");
  snprintf(buf, sizeof(buf), "%s", s);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    const char *name = NULL;
    for (int i = 0; i < HX_MAX_TRANSPORTS; i++)
      if (!strcmp(t, transport_names[i])) name = transport_names[i];
    if (!name) return args_bad("--transport", t, "unknown transport; known: nccl-p2p ce sm all");
    int dup = 0;
    for (int i = 0; i < o->ntransports; i++) dup |= o->transports[i] == name;
    if (!dup) o->transports[o->ntransports++] = name;
  }
  if (!o->ntransports) return args_bad("--transport", s, "empty");
  return 0;
}

/* Parses "1K,1000003,1M"; 0 or -1. */
static int parse_size_list(const char *s, struct run_opts *o) {
  char buf[4096];
  if (strlen(s) >= sizeof(buf)) return args_bad("--sizes", s, "too long");
  snprintf(buf, sizeof(buf), "%s", s);
  o->nsizes = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (o->nsizes == HX_MAX_SIZES) return args_bad("--sizes", s, "too many sizes");
    if (args_parse_size("--sizes", t, &o->sizes[o->nsizes])) return -1;
    o->nsizes++;
  }
  if (!o->nsizes) return args_bad("--sizes", s, "empty");
  return 0;
}

/* Reads a @FILE of per-iteration delays (one duration per line, blank lines and # skipped). */
static int load_delays(const char *file, double **out, int *count) {
  FILE *f = fopen(file, "r");
  if (!f) return args_bad("--straggler", file, "cannot read the delay file");
  char line[256];
  int n = 0, cap = 0, lineno = 0;
  double *v = NULL;
  while (fgets(line, sizeof(line), f)) {
    lineno++;
    char *p = line + strspn(line, " \t");
    p[strcspn(p, " \t\r\n#")] = 0;
    if (!*p) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      double *nv = realloc(v, (size_t)cap * sizeof(*v));
      if (!nv) {
        free(v);
        fclose(f);
        return args_bad("--straggler", file, "out of memory");
      }
      v = nv;
    }
    if (args_parse_time_us("--straggler", p, &v[n])) {
      free(v);
      fclose(f);
      return -1;
    }
    n++;
  }
  fclose(f);
  if (!n) {
    free(v);
    return args_bad("--straggler", file, "the delay file has no delays");
  }
  *out = v;
  *count = n;
  return 0;
}

int run_opts_parse(int argc, char **argv, struct run_opts *o) {
  enum { O_SIZES = 256, O_ALGO, O_TRANSPORT, O_GPUS, O_PIPELINE, O_STRAGGLER, O_TORUS };
  static const struct option opts[] = {
      {"minbytes", required_argument, 0, 'b'},   {"maxbytes", required_argument, 0, 'e'},
      {"stepfactor", required_argument, 0, 'f'}, {"stepbytes", required_argument, 0, 'i'},
      {"sizes", required_argument, 0, O_SIZES},  {"algo", required_argument, 0, O_ALGO},
      {"transport", required_argument, 0, O_TRANSPORT},
      {"gpus", required_argument, 0, O_GPUS},    {"iters", required_argument, 0, 'n'},
      {"warmup", required_argument, 0, 'w'},     {"timeout", required_argument, 0, 'T'},
      {"out", required_argument, 0, 'o'},        {"dtype", required_argument, 0, 'd'},
      {"pipeline", required_argument, 0, O_PIPELINE},
      {"check", required_argument, 0, 'c'},      {"straggler", required_argument, 0, O_STRAGGLER},
      {"torus", required_argument, 0, O_TORUS},  {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  memset(o, 0, sizeof(*o));
  o->min_bytes = 1024;
  o->max_bytes = 8ull << 30;
  o->factor = 2;
  o->iters = 20;
  o->warmup = 5;
  o->timeout_s = 120;
  o->dtype = HX_DT_F32;
  o->pipeline = 1;
  o->check = 1;
  int explicit_sizes = 0;
  const char *min_text = "1K";
  if (parse_algos("all", o) || parse_transports("nccl-p2p", o)) return -1;
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":b:e:f:i:n:w:T:o:d:c:h", opts, NULL)) != -1;) {
    switch (c) {
    case 'b':
      if (args_parse_size("-b", optarg, &o->min_bytes)) return -1;
      min_text = optarg;
      break;
    case 'e': if (args_parse_size("-e", optarg, &o->max_bytes)) return -1; break;
    case 'f': if (args_parse_int("-f", optarg, 2, 1 << 20, &o->factor)) return -1; break;
    case 'i': if (args_parse_size("-i", optarg, &o->step_bytes)) return -1; break;
    case O_SIZES:
      if (parse_size_list(optarg, o)) return -1;
      explicit_sizes = 1;
      break;
    case O_ALGO: if (parse_algos(optarg, o)) return -1; break;
    case O_TRANSPORT: if (parse_transports(optarg, o)) return -1; break;
    case O_GPUS: if (parse_gpus(optarg, o)) return -1; break;
    case 'n': if (args_parse_int("-n", optarg, 1, 100000, &o->iters)) return -1; break;
    case 'w': if (args_parse_int("-w", optarg, 0, 1000000, &o->warmup)) return -1; break;
    case 'T': if (args_parse_int("-T", optarg, 1, 7 * 24 * 3600, &o->timeout_s)) return -1; break;
    case 'o':
      if (!*optarg || strlen(optarg) >= sizeof(o->out) - 64)
        return args_bad("--out", optarg, "empty or too long");
      snprintf(o->out, sizeof(o->out), "%s", optarg);
      break;
    case 'd':
      if (!strcmp(optarg, "float32") || !strcmp(optarg, "float") || !strcmp(optarg, "f32"))
        o->dtype = HX_DT_F32;
      else if (!strcmp(optarg, "bf16") || !strcmp(optarg, "bfloat16"))
        o->dtype = HX_DT_BF16;
      else if (!strcmp(optarg, "fp16") || !strcmp(optarg, "half") || !strcmp(optarg, "float16"))
        o->dtype = HX_DT_F16;
      else
        return args_bad("--dtype", optarg, "use float32, bf16 or fp16");
      break;
    case O_PIPELINE: if (args_parse_int("--pipeline", optarg, 1, 1024, &o->pipeline)) return -1; break;
    case 'c': if (args_parse_int("--check", optarg, 0, 1, &o->check)) return -1; break;
    case O_STRAGGLER:
      if (args_parse_stragglers("--straggler", optarg, 1, o->st, &o->nst)) return -1;
      break;
    case O_TORUS:
      if (args_parse_torus("--torus", optarg, &o->torus_ndims, o->torus)) return -1;
      snprintf(o->torus_text, sizeof(o->torus_text), "%s", optarg);
      break;
    case 'h': run_opts_usage(); return 1;
    case ':':
      fprintf(stderr, "arbench: %s: needs a value\n", argv[optind - 1]);
      return -1;
    default: {
      const char *bad = argv[optind - 1];
      fprintf(stderr, "arbench: run: unknown option '%s' (see arbench run --help)\n", bad);
      return -1;
    }
    }
  }
  if (optind < argc) {
    fprintf(stderr, "arbench: run: unexpected argument '%s' (see arbench run --help)\n",
            argv[optind]);
    return -1;
  }
  if (!explicit_sizes) {
    if (o->min_bytes > o->max_bytes) return args_bad("-b", min_text, "larger than -e");
    o->nsizes = sweep_sizes(o->min_bytes, o->max_bytes, o->factor, o->step_bytes, o->sizes,
                            HX_MAX_SIZES);
    if (o->nsizes < 0) return args_bad("-i", "", "more than 1024 sizes between -b and -e");
  }
  for (int k = 0; k < o->nst; k++)
    if (o->st[k].file[0] && load_delays(o->st[k].file, &o->delays[k], &o->ndelays[k])) return -1;
  return 0;
}

void run_opts_free(struct run_opts *o) {
  for (int k = 0; k < AR_MAX_STRAGGLERS; k++) {
    free(o->delays[k]);
    o->delays[k] = NULL;
  }
}

int run_opts_check_ranks(const struct run_opts *o, int n) {
  return args_check_ranks(n, o->st, o->nst, NULL, o->torus_ndims, o->torus, o->torus_text);
}

int sweep_sizes(uint64_t min, uint64_t max, int factor, uint64_t step, uint64_t *out, int cap) {
  int n = 0;
  for (uint64_t b = min; b <= max;) {
    if (n == cap) return -1;
    out[n++] = b;
    uint64_t next = step ? b + step : b * (uint64_t)factor;
    if (next <= b) break; /* overflow */
    b = next;
  }
  return n;
}

uint64_t sweep_nelem(uint64_t bytes, int esize) {
  uint64_t n = bytes / (uint64_t)esize;
  return n ? n : 1;
}

/* A 64-bit mix (splitmix64's finaliser); returns the mixed value. */
static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double sweep_delay_us(const struct run_opts *o, int k, int job, int it) {
  const struct straggler_spec *sp = &o->st[k];
  if (o->delays[k]) return o->delays[k][it % o->ndelays[k]];
  if (sp->delay_hi_us <= sp->delay_lo_us) return sp->delay_lo_us;
  uint64_t h = mix64(((uint64_t)job << 40) ^ ((uint64_t)it << 8) ^ (uint64_t)sp->rank);
  double u = (double)(h >> 11) / 9007199254740992.0; /* [0, 1) */
  return sp->delay_lo_us + u * (sp->delay_hi_us - sp->delay_lo_us);
}

const char *sweep_dtype_name(int dt) {
  return dt == HX_DT_F32 ? "float32" : dt == HX_DT_BF16 ? "bf16" : "fp16";
}

int sweep_dtype_size(int dt) { return dt == HX_DT_F32 ? 4 : 2; }
