/* Run metadata: the exact command line, versions, and nvidia-smi's view of the machine. */
#include "record/meta.h"

#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Appends " s" (shell-quoted where needed) to buf of capacity cap holding len characters;
 * returns the new length (unchanged when it would not fit). */
static size_t append_quoted(char *buf, size_t len, size_t cap, const char *s) {
  static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                             "-_./=:,@%+";
  char tmp[2048];
  size_t t = 0;
  int plain = *s && strspn(s, safe) == strlen(s);
  if (!plain) tmp[t++] = '\'';
  for (; *s && t + 6 < sizeof(tmp); s++) {
    if (*s == '\'') { /* close the quote, an escaped quote, reopen */
      memcpy(tmp + t, "'\\''", 4);
      t += 4;
    } else {
      tmp[t++] = *s;
    }
  }
  if (!plain) tmp[t++] = '\'';
  tmp[t] = 0;
  if (len + t + 2 >= cap) return len;
  if (len) buf[len++] = ' ';
  memcpy(buf + len, tmp, t + 1);
  return len + t;
}

/* The process's own command line from /proc (argv as the shell passed it), else argv. */
static void command_line(char *buf, size_t cap, int argc, char **argv) {
  size_t len = 0;
  buf[0] = 0;
  FILE *f = fopen("/proc/self/cmdline", "r");
  if (f) {
    char raw[8192];
    size_t n = fread(raw, 1, sizeof(raw) - 1, f);
    fclose(f);
    raw[n] = 0;
    for (size_t i = 0; i < n && len < cap - 1; i += strlen(raw + i) + 1)
      len = append_quoted(buf, len, cap, raw + i);
    if (len) return;
  }
  for (int i = 0; i < argc; i++) len = append_quoted(buf, len, cap, argv[i]);
}

/* Runs a shell command and copies its first line (without the newline) into out; 0 or -1. */
static int first_line(const char *cmd, char *out, size_t cap) {
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  out[0] = 0;
  char *got = fgets(out, (int)cap, p);
  pclose(p);
  if (!got || !out[0]) return -1;
  out[strcspn(out, "\r\n")] = 0;
  return out[0] ? 0 : -1;
}

int hx_meta_basic(struct hx_meta *m, int argc, char **argv) {
  memset(m, 0, sizeof(*m));
  if (gethostname(m->host, sizeof(m->host) - 1)) snprintf(m->host, sizeof(m->host), "unknown");
  command_line(m->command, sizeof(m->command), argc, argv);
  snprintf(m->gpu, sizeof(m->gpu), "unknown");
  snprintf(m->driver, sizeof(m->driver), "unknown");
  snprintf(m->cuda, sizeof(m->cuda), "unknown");
  snprintf(m->nccl, sizeof(m->nccl), "unknown");
  return 0;
}

int hx_meta_devices(struct hx_meta *m, int dev0) {
  struct cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, dev0) == cudaSuccess)
    snprintf(m->gpu, sizeof(m->gpu), "%s", prop.name);
  char line[64];
  int v = 0;
  if (!first_line("nvidia-smi --query-gpu=driver_version --format=csv,noheader -i 0 2>/dev/null",
                  line, sizeof(line)))
    snprintf(m->driver, sizeof(m->driver), "%s", line);
  else if (cudaDriverGetVersion(&v) == cudaSuccess)
    snprintf(m->driver, sizeof(m->driver), "cuda-driver-api-%d.%d", v / 1000, v % 1000 / 10);
  if (cudaRuntimeGetVersion(&v) == cudaSuccess)
    snprintf(m->cuda, sizeof(m->cuda), "%d.%d", v / 1000, v % 1000 / 10);
  if (ncclGetVersion(&v) == ncclSuccess)
    snprintf(m->nccl, sizeof(m->nccl), "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
  return 0;
}

/* Copies a command's whole output into f under a heading. */
static void section(FILE *f, const char *title, const char *cmd) {
  fprintf(f, "\n--- %s (%s)\n", title, cmd);
  FILE *p = popen(cmd, "r");
  if (!p) {
    fprintf(f, "(could not run)\n");
    return;
  }
  char buf[4096];
  size_t n, total = 0;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) total += fwrite(buf, 1, n, f);
  if (!total) fprintf(f, "(no output)\n");
  pclose(p);
}

int hx_meta_write(const struct hx_meta *m, const char *dir, const struct ar_placement *pl) {
  const int n = pl->n;
  char path[2048];
  snprintf(path, sizeof(path), "%s/COMMAND", dir);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "%s\n", m->nproc > 1 ? m->launch : m->command);
  if (fclose(f)) return -1;
  snprintf(path, sizeof(path), "%s/meta.txt", dir);
  if (!(f = fopen(path, "w"))) return -1;
  char now[64];
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
  char rev[128] = "unknown", dirty[16] = "";
  /* a checkout without commits answers "HEAD": only a 40-digit hash counts */
  if (first_line("git rev-parse HEAD 2>/dev/null", rev, sizeof(rev)) || strlen(rev) != 40 ||
      strspn(rev, "0123456789abcdef") != 40)
    snprintf(rev, sizeof(rev), "unknown");
#ifdef AR_BUILD_REV
  /* no checkout here (a copied build on the GPU machine): say what the binary was built from */
  if (!strcmp(rev, "unknown")) snprintf(rev, sizeof(rev), "%s (of the build)", AR_BUILD_REV);
#endif
  if (strcmp(rev, "unknown") && !strstr(rev, "(of the build)") &&
      !first_line("git status --porcelain --untracked-files=no 2>/dev/null | wc -l", dirty,
                  sizeof(dirty)) &&
      atoi(dirty) > 0)
    snprintf(dirty, sizeof(dirty), " (modified)");
  else
    dirty[0] = 0;
  fprintf(f, "command: %s\ndate_utc: %s\nhost: %s\ngit_revision: %s%s\n", m->command, now,
          m->host, rev, dirty);
#ifdef AR_SOURCE_HASH
  fprintf(f, "build_sources: %s (tools/source_hash.sh REV gives a commit's)\n", AR_SOURCE_HASH);
#endif
  fprintf(f, "driver: %s\ncuda_runtime: %s\nnccl: %s (built against %d.%d.%d)\n", m->driver,
          m->cuda, m->nccl, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
  const char *nvls = getenv("NCCL_NVLS_ENABLE");
  const char *loading = getenv("CUDA_MODULE_LOADING");
  const char *queues = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  fprintf(f, "NCCL_NVLS_ENABLE: %s\nCUDA_MODULE_LOADING: %s\nCUDA_DEVICE_MAX_CONNECTIONS: %s\n"
          "n_gpus: %d\n", nvls ? nvls : "(unset)", loading ? loading : "(unset)",
          queues ? queues : "(unset)", n);
  char pt[64], pd[512];
  fprintf(f, "placement: %s (%s; %d GPU%s)%s\n", ar_place_text(pl, pt, sizeof(pt)),
          ar_place_detail(pl, pd, sizeof(pd)), pl->ndev, pl->ndev == 1 ? "" : "s",
          ar_place_colocated(pl) ? ": co-located ranks; timings measure one GPU's memory "
                                   "system, not NVLink" : "");
  if (m->nproc > 1)
    fprintf(f, "processes: %d (%d rank%s each)\nmpi_library: %s\nlaunch: %s\nhosts: %s\n",
            m->nproc, m->per_proc, m->per_proc == 1 ? "" : "s", m->mpi, m->launch, m->hosts);
  if (m->nproc > 1 && m->rehearsal[0]) fprintf(f, "rehearsed_hosts: %s\n", m->rehearsal);
  for (int r = 0; r < n; r++) fprintf(f, "rank %d: %s\n", r, m->rank[r]);
  section(f, "topology", "nvidia-smi topo -m 2>&1");
  section(f, "clocks", "nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,clocks.max.sm,"
                       "clocks.max.mem,power.draw,temperature.gpu,persistence_mode "
                       "--format=csv 2>&1");
  section(f, "nvlink", "nvidia-smi nvlink --status 2>&1 | head -200");
  return fclose(f) ? -1 : 0;
}
