/* --profile overlap and timeline, the CUPTI half (see profile.h). CUPTI is opened with dlopen
 * on the first profiled row, never linked: the binary is built on a machine without GPUs and
 * carried to the GPU machine. cupti.h gives the types and the records' layouts only; the few
 * functions used are found with dlsym. AR_CUPTI_LIB=PATH names the library to open (and only
 * that one); otherwise the loader tries libcupti.so.13 and libcupti.so on the library path,
 * then the usual toolkit folders.
 *
 * A row: hx_profile_begin enables the activity kinds (memcpy, peer-to-peer memcpy, concurrent
 * kernels) while every GPU is idle; CUPTI hands full buffers to buffer_done (on a thread of
 * its own, or inside the flush), which keeps the records that count (struct hx_prof_rec,
 * classified at once), and with --profile timeline every other copy and kernel too;
 * hx_profile_end, after every rank synchronised its streams, disables the kinds, forces a
 * flush and computes the figures; hx_profile_timeline writes the records it left. Every CUPTI
 * call is checked: the first failure says so in one line and turns profiling off for the rest
 * of the process, and the run goes on with the overlap columns empty. */
#include "profile/profile.h"
#include "profile/trace.h"

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"

#define PROFILE_BUFFER_BYTES (8u << 20) /* one activity buffer handed to CUPTI */

/* The functions used, typed from cupti.h's prototypes. */
static struct {
  __typeof__(cuptiGetVersion) *get_version;
  __typeof__(cuptiGetResultString) *result_string;
  __typeof__(cuptiActivityRegisterCallbacks) *register_callbacks;
  __typeof__(cuptiActivityEnable) *enable;
  __typeof__(cuptiActivityDisable) *disable;
  __typeof__(cuptiActivityFlushAll) *flush_all;
  __typeof__(cuptiActivityGetNextRecord) *next_record;
  __typeof__(cuptiActivityGetNumDroppedRecords) *dropped;
} cu;

/* The kinds a row records. Peer-to-peer copies come as MEMCPY2 records where CUPTI offers
 * that kind, else as MEMCPY records of kind PTOP: MEMCPY2 may be refused. */
static const struct {
  CUpti_ActivityKind kind;
  const char *name;
  int needed;
} kinds[] = {{CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", 1},
             {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", 0},
             {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", 1}};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static int state;             /* 0 not loaded yet, 1 ready, -1 off (said once) */
static unsigned enabled_mask; /* kinds[] enabled now, by index bit */
/* The records of the current row, filled by buffer_done under mu. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct hx_prof_rec *recs;
static size_t nrecs, caprecs;
static int rec_fail; /* a record could not be kept (out of memory) or CUPTI dropped some */
static int keep_all; /* --profile timeline: records with no class are kept too */
static unsigned asked = HX_PROFILE_OVERLAP; /* what the row's --profile asked (messages) */

/* Returns how the messages name the flag: what the current row asked. */
static const char *flag_text(void) {
  switch (asked & (HX_PROFILE_OVERLAP | HX_PROFILE_TIMELINE)) {
  case HX_PROFILE_TIMELINE: return "--profile timeline";
  case HX_PROFILE_OVERLAP | HX_PROFILE_TIMELINE: return "--profile overlap,timeline";
  default: return "--profile overlap";
  }
}

/* Turns profiling off for the rest of the process with one warning (the first reason only);
 * returns -1. */
static int profile_off(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int profile_off(const char *fmt, ...) {
  if (state >= 0) {
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    ar_log(AR_LOG_WARN, "%s: %s; profiling is off, the overlap columns stay empty%s", flag_text(),
           why, asked & HX_PROFILE_TIMELINE ? " and timeline.csv gets no more lines" : "");
  }
  state = -1;
  return -1;
}

/* Returns CUPTI's name of a result code (or its number when CUPTI cannot say). */
static const char *result_text(CUptiResult r) {
  static _Thread_local char num[32];
  const char *s = NULL;
  if (cu.result_string && cu.result_string(r, &s) == CUPTI_SUCCESS && s) return s;
  snprintf(num, sizeof(num), "CUPTI error %d", (int)r);
  return num;
}

/* CUPTI asks for a buffer: 8 MiB, 8-byte aligned (CUPTI's requirement). */
static void CUPTIAPI buffer_request(uint8_t **buffer, size_t *size, size_t *max_records) {
  *buffer = aligned_alloc(8, PROFILE_BUFFER_BYTES);
  *size = *buffer ? PROFILE_BUFFER_BYTES : 0;
  *max_records = 0; /* as many as fit */
}

/* Appends one record to the row's list (mu held). */
static void keep(const struct hx_prof_rec *rec) {
  if (nrecs == caprecs) {
    size_t cap = caprecs ? 2 * caprecs : 4096;
    struct hx_prof_rec *r = realloc(recs, cap * sizeof(*r));
    if (!r) {
      rec_fail = 1;
      return;
    }
    recs = r;
    caprecs = cap;
  }
  recs[nrecs++] = *rec;
}

/* Keeps a memcpy record of CUPTI's copy kind `copy_kind` (mu held): device-to-device and
 * peer-to-peer ones count as copies; host ones are kept for the timeline only; others not. */
static void keep_copy(uint8_t copy_kind, uint64_t start, uint64_t end, uint32_t device,
                      uint32_t stream, uint64_t bytes, int32_t peer) {
  struct hx_prof_rec r = {.start = start, .end = end, .device = device, .stream = stream,
                          .bytes = bytes, .peer = peer};
  switch (copy_kind) {
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: r.kind = HX_REC_DTOD, r.cls = HX_PROF_COPY; break;
  case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: r.kind = HX_REC_PTOP, r.cls = HX_PROF_COPY; break;
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: r.kind = HX_REC_HTOD; break;
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: r.kind = HX_REC_DTOH; break;
  default: return; /* host to host, arrays: nothing the transports do */
  }
  if (r.cls || keep_all) keep(&r);
}

/* Keeps a kernel record (mu held) if it has a class or the timeline wants every kernel; the
 * name is copied only then, cut to HX_PROF_NAME_MAX characters. */
static void keep_kernel(const char *name, uint64_t start, uint64_t end, uint32_t device,
                        uint32_t stream) {
  unsigned cls = hx_profile_kernel_class(name);
  if (!cls && !keep_all) return;
  struct hx_prof_rec r = {.start = start, .end = end, .device = device, .cls = cls,
                          .kind = HX_REC_KERNEL, .stream = stream, .peer = -1};
  if (keep_all && name) {
    size_t i = 0;
    for (; i < HX_PROF_NAME_MAX && name[i]; i++) r.name[i] = name[i];
    r.name[i] = 0;
  }
  keep(&r);
}

/* CUPTI returns a buffer of records: keep those that count, free the buffer. */
static void CUPTIAPI buffer_done(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                 size_t valid) {
  (void)ctx;
  (void)stream;
  (void)size;
  pthread_mutex_lock(&mu);
  CUpti_Activity *a = NULL;
  while (valid > 0 && cu.next_record(buffer, valid, &a) == CUPTI_SUCCESS) {
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY: { /* no peer here: the record does not name it */
      const CUpti_ActivityMemcpy6 *m = (const void *)a;
      keep_copy(m->copyKind, m->start, m->end, m->deviceId, m->streamId, m->bytes, -1);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: { /* peer to peer: the peer is the end not on deviceId */
      const CUpti_ActivityMemcpyPtoP4 *m = (const void *)a;
      uint32_t peer = m->srcDeviceId == m->deviceId ? m->dstDeviceId : m->srcDeviceId;
      keep_copy(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, m->start, m->end, m->deviceId, m->streamId,
                m->bytes, peer <= INT32_MAX ? (int32_t)peer : -1);
      break;
    }
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const CUpti_ActivityKernel10 *k = (const void *)a;
      keep_kernel(k->name, k->start, k->end, k->deviceId, k->streamId);
      break;
    }
    default: break;
    }
  }
  size_t dropped = 0;
  if (cu.dropped && cu.dropped(NULL, stream, &dropped) == CUPTI_SUCCESS && dropped) rec_fail = 1;
  pthread_mutex_unlock(&mu);
  free(buffer);
}

/* Opens the CUPTI library (AR_CUPTI_LIB, else the usual names and folders); returns the
 * handle or NULL, with what was tried in `tried`. */
static void *open_cupti(char *tried, size_t len) {
  const char *env = getenv("AR_CUPTI_LIB");
  if (env && *env) {
    void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    if (!h) snprintf(tried, len, "AR_CUPTI_LIB=%s: %s", env, dlerror());
    return h;
  }
  const char *home = getenv("CUDA_HOME");
  const char *dirs[] = {"",
                        home && *home ? home : NULL,
                        "/usr/local/cuda",
                        "/usr/local/cuda/targets/x86_64-linux",
                        "/usr/local/cuda-13.0",
                        "/usr/local/cuda/extras/CUPTI"};
  const char *subs[] = {"", "/lib64/", "/lib64/", "/lib/", "/lib64/", "/lib64/"};
  const char *names[] = {"libcupti.so.13", "libcupti.so"};
  for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
    if (!dirs[d]) continue;
    for (size_t k = 0; k < 2; k++) {
      char path[1100];
      snprintf(path, sizeof(path), "%s%s%s", dirs[d], subs[d], names[k]);
      void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (h) return h;
    }
  }
  snprintf(tried, len,
           "no libcupti.so.13 or libcupti.so on the library path, in $CUDA_HOME, "
           "/usr/local/cuda or /usr/local/cuda-13.0 (AR_CUPTI_LIB=PATH names one)");
  return NULL;
}

/* Loads CUPTI, checks its version against cupti.h's and registers the buffer callbacks;
 * returns 0 or -1 (off, said). */
static int load(void) {
  char why[1400];
  void *h = open_cupti(why, sizeof(why));
  if (!h) return profile_off("cannot load CUPTI: %s", why);
  struct {
    const char *name;
    void **slot;
    int needed;
  } fns[] = {{"cuptiGetVersion", (void **)&cu.get_version, 0},
             {"cuptiGetResultString", (void **)&cu.result_string, 0},
             {"cuptiActivityRegisterCallbacks", (void **)&cu.register_callbacks, 1},
             {"cuptiActivityEnable", (void **)&cu.enable, 1},
             {"cuptiActivityDisable", (void **)&cu.disable, 1},
             {"cuptiActivityFlushAll", (void **)&cu.flush_all, 1},
             {"cuptiActivityGetNextRecord", (void **)&cu.next_record, 1},
             {"cuptiActivityGetNumDroppedRecords", (void **)&cu.dropped, 0}};
  for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
    *fns[i].slot = dlsym(h, fns[i].name);
    if (!*fns[i].slot && fns[i].needed) return profile_off("CUPTI has no %s", fns[i].name);
  }
  uint32_t v = 0;
  /* the records are read with this cupti.h's layouts: the library must be of its major */
  if (cu.get_version && cu.get_version(&v) == CUPTI_SUCCESS &&
      v / 10000 != CUPTI_API_VERSION / 10000)
    return profile_off("CUPTI API version %u, but arbench was built with %u (CUDA %u)", v,
                       (unsigned)CUPTI_API_VERSION, (unsigned)CUPTI_API_VERSION / 10000);
  CUptiResult r = cu.register_callbacks(buffer_request, buffer_done);
  if (r != CUPTI_SUCCESS) return profile_off("cuptiActivityRegisterCallbacks: %s", result_text(r));
  state = 1;
  return 0;
}

/* Disables every kind enabled; returns the first error (CUPTI_SUCCESS when none). */
static CUptiResult disable_all(void) {
  CUptiResult first = CUPTI_SUCCESS;
  for (size_t k = 0; k < NKINDS; k++) {
    if (!(enabled_mask & (1u << k))) continue;
    CUptiResult r = cu.disable(kinds[k].kind);
    if (r != CUPTI_SUCCESS && first == CUPTI_SUCCESS) first = r;
  }
  enabled_mask = 0;
  return first;
}

int hx_profile_begin(unsigned what) {
  if (state < 0) return -1;
  asked = what; /* the messages name what the row asked */
  if (state == 0 && load()) return -1;
  pthread_mutex_lock(&mu);
  nrecs = 0;
  rec_fail = 0;
  keep_all = (what & HX_PROFILE_TIMELINE) != 0;
  pthread_mutex_unlock(&mu);
  for (size_t k = 0; k < NKINDS; k++) {
    CUptiResult r = cu.enable(kinds[k].kind);
    if (r == CUPTI_SUCCESS) {
      enabled_mask |= 1u << k;
    } else if (!kinds[k].needed) {
      ar_log(AR_LOG_INFO, "%s: cuptiActivityEnable(%s): %s (peer copies come as MEMCPY records)",
             flag_text(), kinds[k].name, result_text(r));
    } else {
      disable_all();
      return profile_off("cuptiActivityEnable(%s): %s", kinds[k].name, result_text(r));
    }
  }
  return 0;
}

int hx_profile_end(const int *dev, int n, int iters, struct hx_overlap *ov) {
  if (state <= 0) return -1;
  CUptiResult r = disable_all();
  if (r != CUPTI_SUCCESS) return profile_off("cuptiActivityDisable: %s", result_text(r));
  /* forced: the GPU work is over, every buffer is wanted now, partly filled or not */
  r = cu.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (r != CUPTI_SUCCESS) return profile_off("cuptiActivityFlushAll: %s", result_text(r));
  pthread_mutex_lock(&mu);
  int rc = rec_fail ? -2 : hx_overlap_compute(recs, nrecs, dev, n, iters, ov);
  size_t kept = nrecs; /* left for hx_profile_timeline; the next begin clears them */
  pthread_mutex_unlock(&mu);
  if (rc == -2)
    return profile_off("activity records were lost (out of memory, or dropped by CUPTI)");
  if (rc) return profile_off("out of host memory");
  ar_log(AR_LOG_INFO, "%s: %zu activity records kept", flag_text(), kept);
  return 0;
}

int hx_profile_timeline(FILE *f, const struct hx_overlap_job *j, const int *dev, int n) {
  pthread_mutex_lock(&mu);
  int rc = hx_timeline_write(f, j, dev, n, recs, nrecs);
  if (hx_trace_row(hx_trace_run(NULL), j, dev, n, recs, nrecs)) rc = -1; /* the same records */
  pthread_mutex_unlock(&mu);
  return rc;
}
