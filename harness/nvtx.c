/* TODO: NVTX implementation (stub: no-ops until it lands). */
#include "nvtx.h"

void ar_nvtx_push(const char *fmt, ...) { (void)fmt; }
void ar_nvtx_pop(void) {}
void ar_nvtx_name_thread(const char *name) { (void)name; }
void ar_nvtx_name_stream(void *stream, const char *name) {
  (void)stream;
  (void)name;
}
