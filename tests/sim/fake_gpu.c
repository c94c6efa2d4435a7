/* A simulated GPU machine for the harness's CPU tests (tests/test_sim.sh): the CUDA runtime,
 * NCCL, the harness kernels and the transports, replaced by stream clocks. Linked with the
 * real harness objects it makes `arbench-sim`, which runs `arbench run` end to end (threads,
 * barriers, jobs, the critical-delay search, the CSVs, plots/) with no GPU; linked with the
 * harness of `make MPI=1` it runs under mpirun, one process per rank or several ranks each
 * (tests/test_mpi_sim.sh).
 *
 * Each stream has a clock (us). Recording an event stamps the clock; waiting on an event moves
 * the clock up to its stamp; the straggler's delay kernel adds the delay; a transport's
 * AllReduce adds the model's time (alpha 3 us, 450 GB/s: crit_model_hw; ll, whose round is
 * one crossing of the link, 2 us a round), where a straggler-aware schedule's precondition
 * runs on the other ranks only. With the harness's aligned start events and its max over
 * ranks, an iteration then takes exactly the model's max(delay, precondition) + the rest, so
 * a search's answer must equal the model's (on ll, the model's at 2 us a round).
 *
 * Environment (every variable the fake reads):
 * AR_SIM_GPUS (default 4), AR_SIM_SMS (SMs per GPU, default 132 as an H100 SXM or H200),
 * AR_SIM_MEM (bytes one cudaMalloc may take; default unlimited), AR_SIM_WRONG=ALGO (every
 * check of that algorithm finds one wrong element), AR_SIM_STALE=ALGO (that algorithm's
 * transports read stale data on every odd iteration of a row: the peers' inputs of the
 * iteration before, as a scratch slot read before this iteration's data landed would hold; see
 * "data" below), AR_SIM_SCALE=X (every transport's time times X: a regression to find),
 * AR_SIM_NO_BW=1 (the healthy bandwidth of --degrade cannot be measured), AR_SIM_ROUNDS=1 (the
 * transports mark their rounds for --phases, struct tp_marks: ce and nccl-p2p by events, sm and
 * ll by clock stamps in "device" memory; the precondition's rounds split its time evenly, the
 * other rounds the rest's; without it no transport marks, and phases.csv has no round lines),
 * AR_SIM_BAD_SUM=ALGO,... (every AllReduce of those algorithms, "nccl" for ncclAllReduce,
 * leaves its first element one off the sum in a real buffer: a wrong result the check must
 * find by comparing), AR_SIM_NO_CAPTURE=TRANSPORT (that transport's enqueue fails under
 * stream capture and invalidates it, as a step CUDA cannot capture would; the capture calls
 * are "CUDA graphs" in fake_streams.c), AR_SIM_SHM=PATH (the processes of an MPI job share
 * device memory: see "processes" below),
 * AR_SIM_KILL=RANK:K (rank RANK's process kills itself with SIGKILL at that rank's K-th
 * AllReduce, counting from 1 over the run's rows, warm-up included, nccl's and the
 * transports'), AR_SIM_HANG=RANK:K (rank RANK's thread sleeps forever at its K-th AllReduce
 * instead), AR_SIM_STOP=RANK:K (rank RANK's process stops itself with SIGSTOP there, every
 * thread of it, as `kill -STOP` would), AR_SIM_HOSTS=K (an MPI job's processes say they run on K hosts: gethostname
 * answers "simhostH", H = process x K / processes, from OMPI_COMM_WORLD_RANK and
 * OMPI_COMM_WORLD_SIZE; the harness then keeps each host's memory to itself, as on real
 * nodes; without it, a process's host is the one its NCCL_HOSTID names, as NCCL's would be:
 * the processes arbench groups into hosts with procs.hosts), NCCL_DEBUG=INFO (the fake NCCL
 * names its path to each peer at ncclCommInitRank, as NCCL does: sim_nccl_paths; between hosts
 * NET/Socket where NCCL_SOCKET_IFNAME=lo and NCCL_NET=Socket, else NET/IB),
 * AR_SIM_NCCL_VERSION=N (ncclGetVersion says N, e.g. 22600 for 2.26.0; default
 * 22803), AR_SIM_JITTER=F (every AllReduce's time, transports' and nccl's, times 1 + F u, u in
 * [0, 1) a fixed function of the rank and its AllReduce's number: noise for stats.ci_target),
 * AR_SIM_BESIDE=A:L, AR_SIM_LOAD_NOOP=1, AR_SIM_BESIDE_BAD=1 (--compute's load: fake_load.c),
 * AR_SIM_COUNT=FILE (each process appends "rank R: K allreduces" for its ranks at its exit:
 * every rank must have made as many), AR_SIM_NCCL_LOG=FILE (each ncclAllReduce appends "rank
 * bytes offset", its offset in the rank's buffer: nccl.rotate), AR_SIM_GRAPH_LOG=FILE (each
 * graph launch appends whether it was uploaded first: timing.graph_upload), AR_SIM_REG_FAIL=1 (every NCCL buffer registration fails: tests/sim/fake_nccl.c,
 * the fake's ncclMemAlloc and registration calls). Under AR_SIM_SHM, OMPI_COMM_WORLD_RANK or
 * PMI_RANK (set by mpirun) picks the process's region of the file. Degraded jobs are priced
 * with the model's slow ports, and the healthy bandwidth "measured" is the model's; ll has no
 * emulation and is n/a there, with the reason its lowering gives. The pipeline count a
 * transport reports using (struct tp_job's pipeline_used): ce the one asked for, or for 0 (and
 * async-ring's 1) the lowering's rule on one chunk (8 MiB a batch, 1 to 8); sm, ll and nccl-p2p
 * 1. ll's setup takes the real transport's receive slots from cudaMalloc (so AR_SIM_MEM can
 * make its rows oom alone): per rank of this process, its ll program's slots (the real
 * lowering, src/lower/ll.c, lays them out in the protocol's slices), two parities.
 *
 * Data: buffers under 1 MiB are real memory (bigger ones are tokens: a sweep up to 8 GiB costs
 * nothing). A real buffer of B bytes takes 3B: the buffer, then a hidden copy of the inputs its
 * last fill wrote, then the fill's before (what AR_SIM_STALE reads). On real buffers the
 * harness kernels do what the GPU's do: the fill writes rank r's inputs for the iteration's
 * seed (cuda/inputs.h) into the buffer and its copy, the check counts the elements that differ
 * from the closed-form sums for its seed, and every AllReduce leaves in its rank's buffer the
 * sum of every rank's inputs READ from the copies beside the ranks' buffers: a transport reads
 * the peers' through struct tp_world's data[q] (the mapping the harness made), nccl through
 * the buffer each rank's fill registered (struct sim_head). The copies, not the buffers, since
 * a peer may already have summed in place; the harness puts a barrier of every rank between a
 * rank's fill of iteration i + 1 and any rank's AllReduce of iteration i, and another between
 * the fills of i and the AllReduces of i. A peer's buffer that cannot be read here (a token, a
 * wrong mapping) adds nothing, and the check finds the row wrong. bf16 and fp16 are kept as
 * 16-bit integers (the inputs and sums are small integers).
 *
 * Processes: with AR_SIM_SHM=PATH every process maps the file PATH (created, sparse, 2 GiB
 * and a head; use a fresh path per job) and takes its real buffers from its own region of it;
 * the head (struct sim_head) holds what the ranks of the job share. Then, as CUDA IPC:
 * cudaIpcGetMemHandle / cudaIpcOpenMemHandle (cudaIpcMemLazyEnablePeerAccess) /
 * cudaIpcCloseMemHandle map another process's buffer (the same bytes; a token buffer opens as
 * a token; opening a handle in its own process is an error), and an event made with
 * cudaEventInterprocess | cudaEventDisableTiming keeps its stamp in the file, so that
 * cudaIpcGetEventHandle / cudaIpcOpenEventHandle give another process the same event
 * (cudaEventInterprocess alone is an error). Device d has the same uuid in every process of a
 * host (and another than device e's). ncclCommInitRank needs no connection; ncclAllReduce
 * fails when the ranks' communicators were made with different unique ids, and NCCL's refusal
 * of two ranks on one GPU holds across the processes. The transports set up and enqueue this
 * process's ranks only, and take the real transports' share path: a word per local rank
 * (sim_word), shared with tp_share, read through the mappings at every enqueue (a wrong one
 * fails the row), unshared with tp_unshare at teardown. Without AR_SIM_SHM memory is the
 * process's own and the IPC calls fail.
 *
 * Files, one concern each (what they share: fake_gpu.h; tests/sim/build.sh links them into one
 * object, fake_gpu.o): this one, the device (its count, properties and versions, gethostname,
 * each rank's host); fake_streams.c, the stream clocks (streams, CUDA graphs, events);
 * fake_mem.c, device memory and CUDA IPC (the job's file under AR_SIM_SHM); fake_kernels.c, the
 * harness's kernels and the data they fill, sum and check; fake_hooks.c, each rank's AllReduce
 * count and what fires on it (AR_SIM_KILL, AR_SIM_HANG, AR_SIM_STOP, AR_SIM_COUNT,
 * AR_SIM_JITTER); fake_load.c, --compute's load lane; fake_nccl_comm.c, NCCL's communicators and
 * its AllReduce (fake_nccl.c, its memory and registration); fake_transports.c, the transports at
 * the model's times, the job's world and the degraded-link emulation. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "fake_gpu.h"

__thread int sim_cur_dev;

cudaError_t cudaGetDeviceCount(int *count) {
  const char *e = getenv("AR_SIM_GPUS");
  *count = e ? atoi(e) : 4;
  return *count > 0 ? cudaSuccess : cudaErrorNoDevice;
}
cudaError_t cudaSetDevice(int device) {
  sim_cur_dev = device;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int *device) {
  *device = sim_cur_dev;
  return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int *can, int a, int b) {
  *can = a != b;
  return cudaSuccess;
}
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags) {
  (void)flags;
  return peer == sim_cur_dev ? cudaErrorInvalidDevice : cudaSuccess; /* as CUDA: not to itself */
}
/* SMs per simulated GPU: AR_SIM_SMS (default 132, as an H100 SXM or H200) */
int sim_sms(void) {
  const char *e = getenv("AR_SIM_SMS");
  return e && atoi(e) > 0 ? atoi(e) : 132;
}
/* AR_SIM_HOSTS: the host this process says it is on (replaces libc's for the harness). */
int gethostname(char *name, size_t len) {
  const char *k = getenv("AR_SIM_HOSTS"), *r = getenv("OMPI_COMM_WORLD_RANK");
  const char *n = getenv("OMPI_COMM_WORLD_SIZE");
  struct utsname u;
  if (k && r && n && atoi(k) > 0 && atoi(n) > 0)
    snprintf(name, len, "simhost%d", atoi(r) * atoi(k) / atoi(n));
  else if (uname(&u) == 0)
    snprintf(name, len, "%s", u.nodename);
  else
    return -1;
  return 0;
}

/* A hash of the host's name (FNV-1a): the uuids of one host's GPUs. */
static uint32_t sim_host_hash(void) {
  char host[256] = "";
  gethostname(host, sizeof(host) - 1);
  uint32_t h = 2166136261u;
  for (const char *c = host; *c; c++) h = (h ^ (unsigned char)*c) * 16777619u;
  return h;
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int dev) {
  sim_note_hostid();
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "Simulated GPU");
  p->pciBusID = 0x10 + dev;
  p->multiProcessorCount = sim_sms();
  /* "simGPU", the host, the ordinal: one uuid per device of a host, in every process */
  uint32_t h = sim_host_hash();
  memcpy(p->uuid.bytes, "simGPU", 6);
  memcpy(p->uuid.bytes + 6, &h, sizeof(h));
  memcpy(p->uuid.bytes + 10, &dev, sizeof(dev));
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int dev) {
  (void)dev;
  *v = a == cudaDevAttrMultiProcessorCount ? sim_sms() : 0;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int *v) {
  *v = 13000;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int *v) {
  *v = 13000;
  return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t e) { return e ? "simulated error" : "no error"; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }

/* The host of rank q of an n-rank MPI job (its process's): AR_SIM_HOSTS's (as gethostname
 * says), else the host its process's NCCL_HOSTID names (sim_hostid_of: the processes arbench
 * made hosts of their own, procs.hosts); 0 for every rank without either. */
int sim_host_of(int q, int n) {
  const char *k = getenv("AR_SIM_HOSTS"), *np = getenv("OMPI_COMM_WORLD_SIZE");
  int hosts = k ? atoi(k) : 0, procs = np ? atoi(np) : 0;
  if (procs <= 0 || n < procs) return 0;
  if (hosts <= 0) return sim_hostid_of(q / (n / procs), procs);
  return q / (n / procs) * hosts / procs;
}
