/* What is known before CUDA starts (launch.h). */
#include "run/launch.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/sweep.h" /* HX_MAX_DEVS */

/* CUDA_VISIBLE_DEVICES as CUDA reads it (its behaviour as PyTorch's _parse_visible_devices
 * documents and mirrors it): a list of GPU-/MIG- UUIDs, or of ordinals each read as strtoul
 * reads them (leading blanks, then digits; what follows the digits is ignored). The list ends
 * at the first entry that is none of these (a negative ordinal, a word), and an entry named
 * twice makes CUDA see no GPU at all. Returns the GPUs seen; note says why when fewer than the
 * entries. */
static int visible_list(const char *vis, char *note, size_t len) {
  const char *prefix = !strncmp(vis, "GPU-", 4) ? "GPU-" : !strncmp(vis, "MIG-", 4) ? "MIG-" : NULL;
  const char *item[64];
  size_t ilen[64];
  long ord[64];
  int n = 0;
  for (const char *p = vis; n < 64; p += ilen[n++] + 1) {
    size_t k = strcspn(p, ",");
    const char *q = p + strspn(p, " \t");
    long v = prefix ? (strncmp(p, prefix, 4) ? -1 : 0) : q[0] >= '0' && q[0] <= '9' ? strtol(q, NULL, 10) : -1;
    if (v < 0) {
      snprintf(note, len, "CUDA stops at '%.*s'", (int)k, p);
      return n;
    }
    for (int i = 0; i < n; i++)
      if (prefix ? ilen[i] == k && !strncmp(item[i], p, k) : ord[i] == v) {
        snprintf(note, len, "'%.*s' is named twice, and then CUDA sees no GPU", (int)k, p);
        return 0;
      }
    item[n] = p, ilen[n] = k, ord[n] = v;
    if (!p[k]) return n + 1;
  }
  return n;
}

int launch_gpus_seen(const char **how, char *note, size_t len) {
  int n = 0;
  const char *vis = getenv("CUDA_VISIBLE_DEVICES");
  note[0] = 0;
  if (vis && *vis) {
    n = visible_list(vis, note, len);
    *how = "CUDA_VISIBLE_DEVICES";
  } else {
    DIR *d = opendir("/dev");
    for (struct dirent *e; d && (e = readdir(d));) {
      const char *s = e->d_name;
      if (!strncmp(s, "nvidia", 6) && s[6] && strspn(s + 6, "0123456789") == strlen(s + 6)) n++;
    }
    if (d) closedir(d);
    *how = "/dev/nvidia*";
  }
  return n > HX_MAX_DEVS ? HX_MAX_DEVS : n;
}

int launch_copies(char *var, size_t len) {
  /* the job's size (Open MPI, MPICH's and Slurm's PMI, srun's step), else a rank above 0 */
  const char *const name[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS",
                              "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
  const char *const val[] = {getenv("OMPI_COMM_WORLD_SIZE"), getenv("PMI_SIZE"),
                             getenv("SLURM_STEP_NUM_TASKS"), getenv("OMPI_COMM_WORLD_RANK"),
                             getenv("PMI_RANK"), getenv("PMIX_RANK")};
  for (int i = 0; i < 6; i++) {
    const char *v = val[i];
    long k = v && *v >= '0' && *v <= '9' ? strtol(v, NULL, 10) : 0;
    if (i < 3 ? k > 1 : k > 0) {
      snprintf(var, len, "%s=%s", name[i], v);
      return i < 3 ? (int)(k > 1 << 20 ? 1 << 20 : k) : 2;
    }
  }
  return 1;
}
