/* A stand-in for libcupti for the --profile overlap tests (tests/test_profile_sim.sh): built as
 * a shared library and named by AR_CUPTI_LIB, it answers the few CUPTI calls the harness
 * makes (harness/profile/profile_cupti.c) and, at each forced flush after the kinds were enabled,
 * hands back a fixed set of activity records laid out as cupti.h's structs, in two buffers:
 *
 *   device 0: memcpy device-to-device [0,100) us; sum_kernel [50,150); a kernel with no name
 *   device 1: delay_kernel [0,80); peer-to-peer memcpy (MEMCPY2) [100,140)
 *   device 2: sm_kernel [20,60); memcpy peer-to-peer [40,100)
 *   device 3: ncclDevKernel_SendRecv [0,50); memcpy device-to-device [10,20) (inside it);
 *             memcpy device-to-host [0,200), fill_kernel [0,300), gate_kernel (none count)
 *   device 7: memcpy device-to-device [0,1000) (not a GPU of the run)
 *
 * so that ranks on devices 0..3 have copy 100, 40, 80, 50 us; reduction overlap 50, 0, 50, 0 %;
 * delay overlap 80, 0, 75, 100 % (means 25 and 63.75).
 * Environment: AR_FAKE_CUPTI_FAIL=enable|flush|version|memcpy2 makes that call fail (version:
 * a CUPTI of another major; memcpy2: only MEMCPY2 cannot be enabled, and its record, the only
 * copy of device 1, is not made); AR_FAKE_CUPTI_LOG=FILE appends one line per call (enable K,
 * disable K, flush F, register). */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CUpti_BuffersCallbackRequestFunc req_fn;
static CUpti_BuffersCallbackCompleteFunc done_fn;
static int armed;  /* a kernel kind was enabled since the last flush */
static int p2p_on; /* MEMCPY2 was enabled since the last flush */

/* Appends one line to $AR_FAKE_CUPTI_LOG. */
static void log_call(const char *what, int v) {
  const char *p = getenv("AR_FAKE_CUPTI_LOG");
  FILE *f = p && *p ? fopen(p, "a") : NULL;
  if (!f) return;
  fprintf(f, "%s %d\n", what, v);
  fclose(f);
}

/* Returns 1 when AR_FAKE_CUPTI_FAIL names this call. */
static int fails(const char *call) {
  const char *e = getenv("AR_FAKE_CUPTI_FAIL");
  return e && !strcmp(e, call);
}

CUptiResult cuptiGetVersion(uint32_t *version) {
  *version = fails("version") ? 120000 : CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult result, const char **str) {
  *str = result == CUPTI_ERROR_NOT_INITIALIZED ? "CUPTI_ERROR_NOT_INITIALIZED (fake)"
                                               : "CUPTI_ERROR_UNKNOWN (fake)";
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                           CUpti_BuffersCallbackCompleteFunc done) {
  req_fn = req;
  done_fn = done;
  log_call("register", 0);
  return req && done ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  log_call("enable", (int)kind);
  if (fails("enable")) return CUPTI_ERROR_NOT_INITIALIZED;
  if (kind == CUPTI_ACTIVITY_KIND_MEMCPY2 && fails("memcpy2")) return CUPTI_ERROR_NOT_COMPATIBLE;
  if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) armed = 1;
  if (kind == CUPTI_ACTIVITY_KIND_MEMCPY2) p2p_on = 1;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  log_call("disable", (int)kind);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext ctx, uint32_t stream, size_t *dropped) {
  (void)ctx;
  (void)stream;
  *dropped = 0;
  return CUPTI_SUCCESS;
}

/* Returns the size of a record of this kind (0: one the fake never writes). */
static size_t record_size(CUpti_ActivityKind kind) {
  switch (kind) {
  case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
  case CUPTI_ACTIVITY_KIND_MEMCPY2: return sizeof(CUpti_ActivityMemcpyPtoP4);
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
  default: return 0;
  }
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record) {
  uint8_t *p = *record ? (uint8_t *)*record + record_size((*record)->kind) : buffer;
  if (*record && p == (uint8_t *)*record) return CUPTI_ERROR_INVALID_KIND;
  if ((size_t)(p - buffer) >= valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = (CUpti_Activity *)p;
  return CUPTI_SUCCESS;
}

#define US 1000ull          /* ns per us */
#define T0 5000000000000ull /* CUPTI's clock: far from 0 */

/* Writes a memcpy record at p; returns its size. */
static size_t put_memcpy(uint8_t *p, uint32_t dev, uint8_t copy_kind, uint64_t a, uint64_t b) {
  CUpti_ActivityMemcpy6 m;
  memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = copy_kind;
  m.bytes = 1 << 20;
  m.start = T0 + a * US;
  m.end = T0 + b * US;
  m.deviceId = dev;
  memcpy(p, &m, sizeof(m));
  return sizeof(m);
}

/* Writes a peer-to-peer memcpy record at p; returns its size. */
static size_t put_p2p(uint8_t *p, uint32_t dev, uint64_t a, uint64_t b) {
  CUpti_ActivityMemcpyPtoP4 m;
  memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  m.start = T0 + a * US;
  m.end = T0 + b * US;
  m.deviceId = dev;
  m.srcDeviceId = dev;
  m.dstDeviceId = (dev + 1) % 4;
  memcpy(p, &m, sizeof(m));
  return sizeof(m);
}

/* Writes a kernel record at p; returns its size. */
static size_t put_kernel(uint8_t *p, uint32_t dev, const char *name, uint64_t a, uint64_t b) {
  CUpti_ActivityKernel10 k;
  memset(&k, 0, sizeof(k));
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = T0 + a * US;
  k.end = T0 + b * US;
  k.deviceId = dev;
  k.name = name;
  memcpy(p, &k, sizeof(k));
  return sizeof(k);
}

/* Fills one buffer from CUPTI's client with the records of `part` (0 or 1) and returns it. */
static void deliver(int part) {
  uint8_t *buf = NULL;
  size_t size = 0, max = 0, n = 0;
  req_fn(&buf, &size, &max);
  if (!buf || size < 4096) return;
  if (part == 0) {
    n += put_memcpy(buf + n, 0, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 0, 100);
    n += put_kernel(buf + n, 0, "_Z10sum_kernelIfEvPT_7tp_srcsim", 50, 150);
    n += put_kernel(buf + n, 0, NULL, 0, 1000);
    n += put_kernel(buf + n, 1, "_Z12delay_kernely", 0, 80);
    if (p2p_on) n += put_p2p(buf + n, 1, 100, 140);
    n += put_kernel(buf + n, 2, "_Z9sm_kernelIfLb0EEvPK5sm_opij", 20, 60);
  } else {
    n += put_memcpy(buf + n, 2, CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, 40, 100);
    n += put_kernel(buf + n, 3, "_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE", 0,
                    50);
    n += put_memcpy(buf + n, 3, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 10, 20);
    n += put_memcpy(buf + n, 3, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 0, 200);
    n += put_kernel(buf + n, 3, "_Z11fill_kernelIfEvPT_miy", 0, 300);
    n += put_kernel(buf + n, 3, "_Z11gate_kernelPVKyyyPj", 0, 300);
    n += put_memcpy(buf + n, 7, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 0, 1000);
  }
  done_fn(NULL, 0, buf, size, n);
}

CUptiResult cuptiActivityFlushAll(uint32_t flag) {
  log_call("flush", (int)flag);
  if (fails("flush")) return CUPTI_ERROR_UNKNOWN;
  if (!done_fn || !req_fn) return CUPTI_ERROR_INVALID_OPERATION;
  if (armed) {
    deliver(0);
    deliver(1);
  }
  armed = p2p_on = 0;
  return CUPTI_SUCCESS;
}
