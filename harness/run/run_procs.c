/* A run's ranks over its processes (procs.h) and GPUs: which ranks this process holds, the
 * CUDA device of each, which ranks share a physical GPU (the host and the GPU's UUID), each
 * rank's line for meta.txt and the table, and how an MPI job was launched. */
#include "run/run_procs.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "procs/procs.h"
#include "settings.h"

/* What each rank tells the others about itself. */
struct rank_id {
  char host[64];    /* the host to arbench: the machine, or a rehearsed host on it */
  char machine[64]; /* the machine it runs on (gethostname) */
  unsigned char uuid[16];
  int dev;
  char line[128]; /* "device 0, NVIDIA H100 80GB HBM3, pci ..., 81079 MiB, 132 SMs, cc 9.0" */
};

static void describe(int dev, struct rank_id *id) {
  struct cudaDeviceProp p;
  memset(id, 0, sizeof(*id));
  id->dev = dev;
  if (gethostname(id->machine, sizeof(id->machine) - 1))
    snprintf(id->machine, sizeof(id->machine), "unknown");
  snprintf(id->host, sizeof(id->host), "%s", id->machine);
  if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
    snprintf(id->line, sizeof(id->line), "device %d (properties unavailable)", dev);
    id->uuid[0] = (unsigned char)dev; /* best effort: ordinals of one host */
    return;
  }
  memcpy(id->uuid, p.uuid.bytes, sizeof(id->uuid));
  snprintf(id->line, sizeof(id->line), "device %d, %.60s, pci %04x:%02x:%02x, %zu MiB, %d SMs, cc %d.%d",
           dev, p.name, p.pciDomainID, p.pciBusID, p.pciDeviceID, p.totalGlobalMem >> 20,
           p.multiProcessorCount, p.major, p.minor);
}

void procs_describe_local(struct hx_bench_cfg *cfg, struct hx_meta *m) {
  for (int r = 0; r < cfg->n; r++) {
    struct rank_id id;
    describe(cfg->dev[r], &id);
    snprintf(m->rank[r], sizeof(m->rank[r]), "%s", id.line);
    cfg->gpu[r] = cfg->dev[r];
  }
  cfg->first = 0;
  cfg->nlocal = cfg->n;
  cfg->nhosts = 1;
  memset(cfg->host, 0, sizeof(cfg->host));
}

/* procs.hosts of a scenario: 0, or the rehearsed hosts. */
static int rehearsed(const struct run_opts *o) {
  return (int)ar_setting_value(&o->settings, AR_SET_PROCS_HOSTS);
}

int procs_hosts_refuse(const struct run_plan *plan) {
  int np = hx_procs_count(), k = rehearsed(&plan->scen[0]);
  const char *why = NULL;
  char v[48], msg[160];
  for (int i = 1; i < plan->nscen && !why; i++)
    if (rehearsed(&plan->scen[i]) != k) {
      k = rehearsed(&plan->scen[i]);
      why = "every scenario of a run groups its processes alike (NCCL learns its host once)";
    }
  if (!why && k && np == 1 && k > 1)
    why = "more hosts than processes: each rehearsed host is at least one process (start "
          "them with mpirun -np or srun -n)";
  if (!why && k && np == 1)
    why = "needs several processes: start them with mpirun -np or srun -n (one process's "
          "ranks are threads, and NCCL knows one host per process)";
  if (!why && k > np) {
    snprintf(msg, sizeof(msg), "more hosts than processes (%d): each rehearsed host is at "
             "least one process", np);
    why = msg;
  }
  if (!why && k && np % k) {
    snprintf(msg, sizeof(msg), "%d processes do not split into %d blocks of one size", np, k);
    why = msg;
  }
  if (!why) return 0;
  snprintf(v, sizeof(v), "procs.hosts=%d", k);
  if (hx_procs_me() == 0) args_bad("--set", v, why);
  return -1;
}

/* The NCCL variables a rehearsed host sets (before NCCL starts: it reads them once): its host
 * id makes the blocks separate hosts to NCCL, so that no P2P or shared-memory path joins them;
 * the network between them is NCCL's own socket transport on the loopback interface (not
 * InfiniBand or a plugin's, not multi-node NVLink). */
static const char *const nccl_net_env[][2] = {{"NCCL_SOCKET_IFNAME", "lo"},
                                              {"NCCL_NET", "Socket"},
                                              {"NCCL_IB_DISABLE", "1"},
                                              {"NCCL_MNNVL_ENABLE", "0"}};

/* This process as a member of rehearsed host `block` of k: its name to arbench and NCCL's
 * environment; what it set into m->rehearsal (process 0's words). */
static void rehearse(int block, int k, int np, struct hx_meta *m) {
  char machine[64] = "unknown", id[80];
  if (gethostname(machine, sizeof(machine) - 1)) snprintf(machine, sizeof(machine), "unknown");
  snprintf(id, sizeof(id), "%.50s/h%d", machine, block);
  setenv("NCCL_HOSTID", id, 1);
  size_t nv = sizeof(nccl_net_env) / sizeof(nccl_net_env[0]), w;
  for (size_t i = 0; i < nv; i++) setenv(nccl_net_env[i][0], nccl_net_env[i][1], 1);
  w = (size_t)snprintf(m->rehearsal, sizeof(m->rehearsal),
                       "%d (procs.hosts=%d): processes in blocks of %d, each block a host; "
                       "each process set NCCL_HOSTID=<its host>", k, k, np / k);
  for (size_t i = 0; i < nv && w < sizeof(m->rehearsal); i++)
    w += (size_t)snprintf(m->rehearsal + w, sizeof(m->rehearsal) - w, " %s=%s",
                          nccl_net_env[i][0], nccl_net_env[i][1]);
}

/* The command line of the first ancestor process named like an MPI launcher, into buf; 0, or
 * -1 when none is visible (srun's own process is on another host, for one). */
static int launcher_line(char *buf, size_t len) {
  static const char *const names[] = {"mpirun", "mpiexec", "orterun", "prterun", "srun",
                                      "mpiexec.hydra"};
  pid_t pid = getppid();
  for (int depth = 0; depth < 6 && pid > 1; depth++) {
    char path[64], comm[64] = "", stat[512];
    snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    if (!fgets(comm, sizeof(comm), f)) comm[0] = 0;
    fclose(f);
    comm[strcspn(comm, "\n")] = 0;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
      if (strcmp(comm, names[i])) continue;
      snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
      f = fopen(path, "r");
      if (!f) return -1;
      size_t n = fread(buf, 1, len - 1, f), k = 0;
      fclose(f);
      buf[n] = 0;
      for (size_t j = 0; j + 1 < n; j++) /* arguments are NUL-separated */
        if (!buf[j]) buf[j] = ' ';
      k = strlen(buf);
      return k ? 0 : -1;
    }
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    f = fopen(path, "r");
    if (!f) return -1;
    char *got = fgets(stat, sizeof(stat), f);
    fclose(f);
    const char *close = got ? strrchr(stat, ')') : NULL; /* comm may hold spaces */
    if (!close || sscanf(close + 1, " %*c %d", &pid) != 1) return -1;
  }
  return -1;
}

int procs_place(const struct run_opts *o, struct hx_bench_cfg *cfg, struct hx_meta *m) {
  int np = hx_procs_count(), me = hx_procs_me(), G = o->per_proc ? o->per_proc : 1;
  int n = np * G, count = 0, rc = 0;
  char v[32], why[160];
  if (n > HX_MAX_DEVS) {
    snprintf(v, sizeof(v), "%d", G);
    snprintf(why, sizeof(why), "%d processes x %d ranks is more than %d ranks", np, G, HX_MAX_DEVS);
    if (me == 0) args_bad("--ranks-per-process", v, why); /* every process finds it alike */
    return EXIT_BAD_INPUT;
  }
  if (o->nranks && o->nranks != n) {
    snprintf(v, sizeof(v), "%d", o->nranks);
    snprintf(why, sizeof(why), "under MPI the ranks are processes x --ranks-per-process = %d x %d",
             np, G);
    if (me == 0) args_bad("--ranks", v, why);
    return EXIT_BAD_INPUT;
  }
  /* a failure here is said once, by the first process that met it, and every process
   * returns the same status before the first collective that needs the placement */
  char msg[256] = "";
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    snprintf(msg, sizeof(msg), "process %d: no GPU found (%s)", me,
             e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
    rc = EXIT_FAIL;
  }
  for (int i = 0; i < o->ngpus && !rc; i++)
    if (o->gpus[i] >= count) {
      snprintf(v, sizeof(v), "%d", o->gpus[i]);
      snprintf(msg, sizeof(msg), "no such GPU on process %d's host (%d visible)", me, count);
      rc = EXIT_BAD_INPUT;
    }
  int all[HX_MAX_DEVS];
  if (hx_procs_allgather(&rc, all, sizeof(rc))) return EXIT_FAIL;
  for (int p = 0; p < np; p++) {
    if (!all[p]) continue;
    if (p == me && rc == EXIT_BAD_INPUT) args_bad("--gpus", v, msg);
    else if (p == me) fprintf(stderr, "arbench: %s\n", msg);
    return all[p];
  }
  cfg->n = n;
  cfg->first = me * G;
  cfg->nlocal = G;
  struct rank_id mine[HX_MAX_DEVS], ids[HX_MAX_DEVS];
  int hosts = rehearsed(o); /* procs_hosts_refuse checked it divides np */
  m->rehearsal[0] = 0;
  if (hosts) rehearse(me / (np / hosts), hosts, np, m);
  for (int j = 0; j < G; j++) {
    int k = hx_procs_node_index() * G + j; /* this machine's GPUs, taken in turn */
    describe(o->ngpus ? o->gpus[k % o->ngpus] : k % count, &mine[j]);
    if (hosts) /* a block of np / hosts consecutive processes is one host */
      snprintf(mine[j].host, sizeof(mine[j].host), "%.50s/h%d", mine[j].machine,
               me / (np / hosts));
  }
  struct rank_id *gathered = calloc((size_t)np * G, sizeof(*gathered));
  if (!gathered || hx_procs_allgather(mine, gathered, (size_t)G * sizeof(*mine))) {
    free(gathered);
    return EXIT_FAIL;
  }
  memcpy(ids, gathered, (size_t)n * sizeof(*ids));
  free(gathered);
  size_t hk = 0;
  m->hosts[0] = 0;
  cfg->nhosts = 0;
  for (int r = 0; r < n; r++) {
    cfg->dev[r] = ids[r].dev;
    cfg->host[r] = cfg->nhosts; /* a host's number: the order hosts first appear */
    for (int q = 0; q < r; q++)
      if (!strcmp(ids[q].host, ids[r].host)) {
        cfg->host[r] = cfg->host[q];
        break;
      }
    if (cfg->host[r] == cfg->nhosts) cfg->nhosts++;
    cfg->gpu[r] = r; /* one number per (machine, UUID): the first rank's */
    for (int q = 0; q < r; q++)
      if (!strcmp(ids[q].machine, ids[r].machine) && !memcmp(ids[q].uuid, ids[r].uuid, 16)) {
        cfg->gpu[r] = cfg->gpu[q];
        break;
      }
    snprintf(m->rank[r], sizeof(m->rank[r]), "host %.60s, process %d, %.120s", ids[r].host, r / G,
             ids[r].line);
    int start = r == 0 || strcmp(ids[r - 1].host, ids[r].host);
    int end = r == n - 1 || strcmp(ids[r + 1].host, ids[r].host);
    if (start && hk < sizeof(m->hosts))
      hk += (size_t)snprintf(m->hosts + hk, sizeof(m->hosts) - hk, "%s%s (ranks %d",
                             hk ? ", " : "", ids[r].host, r);
    if (end && hk < sizeof(m->hosts)) {
      if (start) hk += (size_t)snprintf(m->hosts + hk, sizeof(m->hosts) - hk, ")");
      else hk += (size_t)snprintf(m->hosts + hk, sizeof(m->hosts) - hk, "-%d)", r);
    }
  }
  ar_place(&cfg->place, cfg->gpu, n);
  int machines = 0; /* the machines rehearsed hosts ran on */
  for (int r = 0; hosts && r < n; r++) {
    int q = 0;
    while (q < r && strcmp(ids[q].machine, ids[r].machine)) q++;
    machines += q == r;
  }
  ar_place_hosts(&cfg->place, cfg->nhosts, machines);
  m->nproc = np;
  m->per_proc = G;
  snprintf(m->mpi, sizeof(m->mpi), "%s", hx_procs_library());
  if (launcher_line(m->launch, sizeof(m->launch)))
    snprintf(m->launch, sizeof(m->launch), "(launcher not visible from process 0) %d processes: %.900s",
             np, m->command);
  return 0;
}
