/* An NVTX injection library for the tests (tests/test_nvtx.sh): loaded by the NVTX3 code in
 * the program under test when NVTX_INJECTION64_PATH names it, it fills the NVTX export table's
 * callbacks for domain creation, string registration, push and pop (in a domain and without
 * one), thread naming and CUDA stream naming, and appends one line per call to the file named
 * by AR_NVTX_LOG (tab-separated; one write() per line, so threads never interleave):
 *   domain NAME | string NAME | thread TID NAME | stream PTR NAME
 *   push TID DOMAIN MESSAGE | pop TID DOMAIN      (DOMAIN "-" outside any domain)
 * The layout of the table comes from nvtx3/nvtxDetail/nvtxTypes.h: GetModuleFunctionTable
 * gives, per module, an array of pointers to the program's function pointers, indexed by the
 * NVTX_CBID_* numbers; an injection writes its functions through them. */
#define NVTX_NO_IMPL
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct nvtxDomainRegistration_st {
  char name[64];
};
struct nvtxStringRegistration_st {
  char text[128];
};

static int log_fd = -1;
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;

/* The calling thread's OS id. */
static long tid(void) {
  return (long)syscall(SYS_gettid);
}

/* Appends one line built from fmt; tabs and line breaks inside fields become spaces. */
static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
  va_end(ap);
  if (k < 0 || log_fd < 0) return;
  if (k > (int)sizeof(buf) - 2) k = (int)sizeof(buf) - 2;
  buf[k++] = '\n';
  if (write(log_fd, buf, (size_t)k) != k) return;
}

/* Copies s into out with tabs and line breaks as spaces; returns out. */
static char *field(char *out, size_t len, const char *s) {
  size_t i = 0;
  for (; s && s[i] && i + 1 < len; i++)
    out[i] = strchr("\t\r\n", s[i]) ? ' ' : s[i];
  out[i] = 0;
  return out;
}

/* The text of an event's message (ASCII or registered); returns buf. */
static char *message(char *buf, size_t len, const nvtxEventAttributes_t *a) {
  if (!a) return field(buf, len, "(no attributes)");
  switch (a->messageType) {
  case NVTX_MESSAGE_TYPE_ASCII: return field(buf, len, a->message.ascii);
  case NVTX_MESSAGE_TYPE_REGISTERED:
    return field(buf, len, a->message.registered ? a->message.registered->text : "(null)");
  case NVTX_MESSAGE_TYPE_UNICODE: return field(buf, len, "(unicode)");
  default: return field(buf, len, "(no message)");
  }
}

static nvtxDomainHandle_t my_domain_create(const char *name) {
  nvtxDomainHandle_t d = calloc(1, sizeof(*d));
  if (!d) return NULL;
  char f[64];
  snprintf(d->name, sizeof(d->name), "%s", field(f, sizeof(f), name));
  log_line("domain\t%s", d->name);
  return d;
}

static nvtxStringHandle_t my_register_string(nvtxDomainHandle_t d, const char *s) {
  (void)d;
  pthread_mutex_lock(&reg_mu);
  nvtxStringHandle_t h = calloc(1, sizeof(*h));
  pthread_mutex_unlock(&reg_mu);
  if (!h) return NULL;
  field(h->text, sizeof(h->text), s);
  log_line("string\t%s", h->text);
  return h;
}

static _Thread_local int depth;

static int my_domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  char m[256];
  log_line("push\t%ld\t%s\t%s", tid(), d ? d->name : "-", message(m, sizeof(m), a));
  return depth++;
}

static int my_domain_pop(nvtxDomainHandle_t d) {
  log_line("pop\t%ld\t%s", tid(), d ? d->name : "-");
  return --depth;
}

static int my_push_ex(const nvtxEventAttributes_t *a) {
  return my_domain_push(NULL, a);
}

static int my_push_a(const char *msg) {
  char m[256];
  log_line("push\t%ld\t-\t%s", tid(), field(m, sizeof(m), msg));
  return depth++;
}

static int my_pop(void) {
  return my_domain_pop(NULL);
}

static void my_name_thread(uint32_t id, const char *name) {
  char f[128];
  log_line("thread\t%u\t%s", id, field(f, sizeof(f), name));
}

static void my_name_stream(cudaStream_t s, const char *name) {
  char f[128];
  log_line("stream\t%p\t%s", (void *)s, field(f, sizeof(f), name));
}

/* Points callback `id` of a module's table at fn; returns 0 when the table is too short. */
static int set_cb(NvtxFunctionTable t, unsigned size, unsigned id, NvtxFunctionPointer fn) {
  if (!t || id >= size || !t[id]) return 0;
  *t[id] = fn;
  return 1;
}

/* The entry point NVTX looks for; returns 1 (success) or 0 (NVTX then stays a no-op). */
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get) {
  const char *path = getenv("AR_NVTX_LOG");
  if (!path || !get) return 0;
  log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const NvtxExportTableCallbacks *cb = get(NVTX_ETID_CALLBACKS);
  if (log_fd < 0 || !cb || !cb->GetModuleFunctionTable) return 0;
  NvtxFunctionTable t = NULL;
  unsigned size = 0;
  int ok = 1;
#define CB(table, id, fn) ok &= set_cb(table, size, id, (NvtxFunctionPointer)(fn))
  if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &size)) return 0;
  CB(t, NVTX_CBID_CORE_RangePushEx, my_push_ex);
  CB(t, NVTX_CBID_CORE_RangePushA, my_push_a);
  CB(t, NVTX_CBID_CORE_RangePop, my_pop);
  CB(t, NVTX_CBID_CORE_NameOsThreadA, my_name_thread);
  if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &size)) return 0;
  CB(t, NVTX_CBID_CORE2_DomainRangePushEx, my_domain_push);
  CB(t, NVTX_CBID_CORE2_DomainRangePop, my_domain_pop);
  CB(t, NVTX_CBID_CORE2_DomainRegisterStringA, my_register_string);
  CB(t, NVTX_CBID_CORE2_DomainCreateA, my_domain_create);
  if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CUDART, &t, &size)) return 0;
  CB(t, NVTX_CBID_CUDART_NameCudaStreamA, my_name_stream);
#undef CB
  log_line("init\t%s", ok ? "ok" : "short table");
  return ok;
}
