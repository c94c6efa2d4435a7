/* The executors of the transports, indexed by enum ar_tp (src/transports.h: AR_TRANSPORT_LIST
 * names each one's ops), and the check every transport's setup makes first. */
#include <stdio.h>

#include "transport.h"

#define TP_OPS_EXTERN_(id, ops) extern "C" const struct tp_ops ops;
AR_TRANSPORT_LIST(TP_OPS_EXTERN_)
#undef TP_OPS_EXTERN_

extern "C" const struct tp_ops *tp_ops_of(int id) {
#define TP_OPS_AT_(id, ops) &ops,
  static const struct tp_ops *const all[AR_NTRANSPORTS] = {AR_TRANSPORT_LIST(TP_OPS_AT_)};
#undef TP_OPS_AT_
  return id >= 0 && id < AR_NTRANSPORTS ? all[id] : NULL;
}

extern "C" const struct tp_ops *tp_find(const char *name) {
  const struct ar_transport *t = ar_transport_find(name);
  return t ? tp_ops_of(t->id) : NULL;
}

extern "C" ar_status tp_job_check(const struct tp_world *w, const struct tp_job *job, char *reason,
                                  size_t reason_len) {
  if (job->sched->nranks != w->n) {
    snprintf(reason, reason_len, "schedule for %d ranks on %d GPUs", job->sched->nranks, w->n);
    return AR_ERR_INVALID;
  }
  if (job->nelem * ar_dtype_size(job->dtype) > w->data_bytes) {
    snprintf(reason, reason_len, "%zu elements exceed the data buffers", job->nelem);
    return AR_ERR_INVALID;
  }
  return AR_OK;
}
