/* NVTX ranges in the domain "arbench", with the header-only NVTX3 of the CUDA
 * toolkit (include/nvtx3): nothing to link, and with no tool attached (no NVTX injection
 * library: Nsight Systems sets NVTX_INJECTION64_PATH) the domain handle is NULL and every call
 * here returns at once, before any formatting.
 *
 * Ranges are pushed per thread (each rank's thread: size > iteration > delay | allreduce >
 * precondition > round). The precondition is coordinated through the round number: the
 * transports push "round %d" ranges; inside a collective that the harness announced with
 * ar_nvtx_collective_begin(nprecond), the first round < nprecond opens "precondition" and
 * the first round >= nprecond closes it. */
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nvtx.h"

/* What the calling thread has open in the domain. */
struct nvtx_tls {
  int depth;    /* ranges open */
  int in_coll;  /* between ar_nvtx_collective_begin and _end */
  int nprecond; /* precondition rounds of that collective */
  int pre_at;   /* depth of the open precondition range, 0 when none */
  int whole;    /* the precondition range spans the whole collective */
  int rounds;   /* round ranges seen in this collective */
  int marks;    /* did the job's last collective have round ranges: -1 not known yet */
};

static pthread_once_t nvtx_once = PTHREAD_ONCE_INIT;
static nvtxDomainHandle_t nvtx_dom; /* NULL: no tool listens */
static nvtxStringHandle_t str_pre, str_whole;
static _Thread_local struct nvtx_tls tls = {.marks = -1};

/* Creates the domain (once per process) and registers the fixed names. */
static void nvtx_init(void) {
  nvtx_dom = nvtxDomainCreateA("arbench");
  if (!nvtx_dom) return;
  str_pre = nvtxDomainRegisterStringA(nvtx_dom, "precondition");
  str_whole = nvtxDomainRegisterStringA(nvtx_dom, "precondition (whole collective)");
}

/* The domain, or NULL when no tool is attached. */
static nvtxDomainHandle_t nvtx_domain(void) {
  pthread_once(&nvtx_once, nvtx_init);
  return nvtx_dom;
}

/* The colour of a range from its first word, so phases look alike in every view (the same
 * colours as plots/phases.gp): returns ARGB. */
static uint32_t range_color(const char *msg) {
  static const struct {
    const char *word;
    uint32_t argb;
  } map[] = {{"size", 0xff5a5a5a},  {"iter", 0xffb0b0b0},         {"warmup", 0xffd8d8d8},
             {"delay", 0xffd62728}, {"precondition", 0xffff7f0e}, {"allreduce", 0xff1f77b4},
             {"round", 0xff2ca02c}, {"reduce", 0xff9467bd}};
  for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
    size_t k = strlen(map[i].word);
    if (!strncmp(msg, map[i].word, k) && (msg[k] == ' ' || msg[k] == 0)) return map[i].argb;
  }
  return 0xff8c564b;
}

/* Pushes one range, an ASCII message or (msg NULL) a registered string; returns nothing. */
static void range_push(nvtxDomainHandle_t d, const char *msg, nvtxStringHandle_t reg,
                       uint32_t argb) {
  nvtxEventAttributes_t a;
  memset(&a, 0, sizeof(a));
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = argb;
  if (msg) {
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = msg;
  } else {
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = reg;
  }
  nvtxDomainRangePushEx(d, &a);
  tls.depth++;
}

/* Pops the innermost range of the calling thread (none open: nothing). */
static void range_pop(nvtxDomainHandle_t d) {
  if (tls.depth <= 0) return;
  nvtxDomainRangePop(d);
  tls.depth--;
}

/* Opens the precondition range (whole: it spans the collective). */
static void pre_open(nvtxDomainHandle_t d, int whole) {
  range_push(d, NULL, whole ? str_whole : str_pre, range_color("precondition"));
  tls.pre_at = tls.depth;
  tls.whole = whole;
}

/* Closes the precondition range when it is the innermost one (a transport that left a
 * round open keeps it until the collective ends). */
static void pre_close(nvtxDomainHandle_t d) {
  if (!tls.pre_at || tls.depth != tls.pre_at) return;
  range_pop(d);
  tls.pre_at = 0;
  tls.whole = 0;
}

/* A transport's round r is about to be pushed: opens or closes the precondition. */
static void on_round(nvtxDomainHandle_t d, int r) {
  tls.rounds++;
  if (tls.whole) return;
  if (r < tls.nprecond && !tls.pre_at)
    pre_open(d, 0);
  else if (r >= tls.nprecond && tls.pre_at)
    pre_close(d);
}

void ar_nvtx_push(const char *fmt, ...) {
  nvtxDomainHandle_t d = nvtx_domain();
  if (!d) return;
  va_list ap;
  va_start(ap, fmt);
  if (tls.in_coll && tls.nprecond > 0 && !strncmp(fmt, "round %d", 8)) {
    va_list aq;
    va_copy(aq, ap);
    on_round(d, va_arg(aq, int));
    va_end(aq);
  }
  char msg[192];
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  range_push(d, msg, NULL, range_color(msg));
}

void ar_nvtx_pop(void) {
  nvtxDomainHandle_t d = nvtx_domain();
  if (d) range_pop(d);
}

void ar_nvtx_name_thread(const char *name) {
  if (nvtx_domain()) nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), name);
}

void ar_nvtx_name_stream(void *stream, const char *name) {
  if (nvtx_domain()) nvtxNameCudaStreamA((cudaStream_t)stream, name);
}

void ar_nvtx_collective_begin(int nprecond) {
  nvtxDomainHandle_t d = nvtx_domain();
  if (!d) return;
  tls.in_coll = 1;
  tls.nprecond = nprecond;
  tls.rounds = 0;
  tls.pre_at = 0;
  tls.whole = 0;
  /* a transport that marks no rounds cannot tell where the precondition ends */
  if (nprecond > 0 && tls.marks == 0) pre_open(d, 1);
}

void ar_nvtx_collective_end(void) {
  nvtxDomainHandle_t d = nvtx_domain();
  if (!d || !tls.in_coll) return;
  pre_close(d);
  tls.pre_at = 0;
  tls.whole = 0;
  tls.marks = tls.rounds > 0;
  tls.in_coll = 0;
}

void ar_nvtx_job_reset(void) {
  tls.marks = -1;
}

int ar_nvtx_active(void) {
  return nvtx_domain() != NULL;
}
