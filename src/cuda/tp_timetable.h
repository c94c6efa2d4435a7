/* A contention-free timetable of copies (the ce flow program's plan for many-to-many schedules
 * on degraded jobs, tp_flow.cu): each GPU's copy engine and each GPU's ingress carry one copy
 * at a time. On 4 x H200 copies that meet at a receiver lose throughput (all-to-all on the copy
 * engines: 196 GB/s per GPU against 383-394 for a ring or one-to-all,
 * runs/reference/h200x4-tune/linkprobe.txt), so the flow program holds each copy until its
 * slot. Times are nanoseconds from a common epoch. Host code only. */
#ifndef TP_TIMETABLE_H
#define TP_TIMETABLE_H

#include <stddef.h>

#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tp_busy {
  double *b, *e; /* busy intervals [b, e), sorted, disjoint */
  size_t len, cap;
};

struct tp_timetable {
  int n;
  struct tp_busy out[AR_MAX_GPUS]; /* each GPU's copy engine */
  struct tp_busy in[AR_MAX_GPUS];  /* each GPU's ingress */
};

void tp_tt_init(struct tp_timetable *t, int n);
void tp_tt_free(struct tp_timetable *t);
/* The earliest start >= t0 at which r's copy engine is free for `send` and q's ingress for
 * `occ`. */
double tp_tt_earliest(const struct tp_timetable *t, int r, int q, double t0, double send,
                      double occ);
/* Books r's engine over [start, start + send) and q's ingress over [start, start + occ).
 * Returns AR_ERR_NOMEM or AR_OK. */
ar_status tp_tt_take(struct tp_timetable *t, int r, int q, double start, double send, double occ);

#ifdef __cplusplus
}
#endif
#endif
