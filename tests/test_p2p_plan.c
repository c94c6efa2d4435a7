/* The nccl-p2p transport's plan (src/lower/p2p_plan.h), emulated on host buffers for every
 * algorithm: NCCL's in-order matching of sends and receives between a pair, receives into
 * scratch, applied after the round (direct ones first, the worst case), and every rank's sums
 * checked against the inputs' closed form; then a hand-made swap that must go through scratch
 * and ring's plan (its allgather copies in place). */
#include <stdlib.h>
#include <string.h>

#include "test.h"

#include "ar.h"
#include "cuda/inputs.h"
#include "lower/p2p_plan.h"

struct emu {
  int n;
  size_t nelem;
  struct p2p_plan plan[AR_MAX_RANKS];
  float *buf[64], *scratch[64];
};

/* The plan round of rank r numbered `round`, or NULL. */
static const struct p2p_round *find_round(const struct p2p_plan *p, int round) {
  for (int k = 0; k < p->nrounds; k++)
    if (p->rounds[k].round == round) return &p->rounds[k];
  return NULL;
}

/* Runs schedule s through per-rank plans on host buffers; returns wrong elements (or -1 for a
 * send/receive mismatch, which NCCL would turn into a hang or garbage). */
static long emulate(const struct ar_schedule *s, size_t nelem, const char *what) {
  static struct emu e;
  int n = s->nranks;
  long wrong = 0;
  e.n = n;
  for (int r = 0; r < n; r++) {
    if (p2p_plan_build(s, r, nelem, 4, &e.plan[r]) != AR_OK) return -1;
    e.buf[r] = malloc(nelem * sizeof(float));
    e.scratch[r] = malloc((e.plan[r].scratch + 1) * sizeof(float));
    for (size_t i = 0; i < nelem; i++) e.buf[r][i] = (float)ar_input_value(r, i, 11);
  }
  for (int round = 0; round < s->nrounds && wrong >= 0; round++) {
    /* plans must agree pairwise: the k-th send a->b is the k-th receive on b from a */
    for (int b = 0; b < n && wrong >= 0; b++) {
      const struct p2p_round *Rb = find_round(&e.plan[b], round);
      for (int a = 0; a < n && Rb; a++) {
        const struct p2p_round *Ra = find_round(&e.plan[a], round);
        int ks = 0;
        for (int k = 0; k < Rb->nrecv; k++) {
          const struct p2p_op *rv = &Rb->recv[k];
          if (rv->peer != a) continue;
          while (Ra && ks < Ra->nsend && Ra->send[ks].peer != b) ks++;
          if (!Ra || ks == Ra->nsend || Ra->send[ks].cnt != rv->cnt || Ra->send[ks].off != rv->off) {
            printf("FAIL %s: round %d: receive %d<-%d has no matching send\n", what, round, b, a);
            wrong = -1;
            break;
          }
          ks++;
        }
      }
    }
    if (wrong < 0) break;
    /* a direct receive must not overlap what the rank sends in the same round */
    for (int r = 0; r < n; r++) {
      const struct p2p_round *R = find_round(&e.plan[r], round);
      for (int k = 0; R && k < R->nrecv; k++)
        for (int j = 0; R->recv[k].direct && j < R->nsend; j++)
          if (R->recv[k].off < R->send[j].off + R->send[j].cnt &&
              R->send[j].off < R->recv[k].off + R->recv[k].cnt) {
            printf("FAIL %s: round %d: rank %d receives in place what it sends\n", what, round, r);
            wrong = -1;
          }
    }
    /* the group: receives read the senders' live buffers (direct ones first, the worst case),
     * then every rank applies its scratch in order */
    for (int pass = 0; pass < 2; pass++)
      for (int r = 0; r < n; r++) {
        const struct p2p_round *R = find_round(&e.plan[r], round);
        for (int k = 0; R && k < R->nrecv; k++) {
          const struct p2p_op *o = &R->recv[k];
          if (o->direct != (pass == 0)) continue;
          float *dst = o->direct ? e.buf[r] + o->off : e.scratch[r] + o->soff;
          if (!o->direct && (o->soff % 4 || o->soff + o->cnt > e.plan[r].scratch)) wrong = -1;
          memcpy(dst, e.buf[o->peer] + o->off, o->cnt * sizeof(float));
        }
      }
    for (int r = 0; r < n; r++) {
      const struct p2p_round *R = find_round(&e.plan[r], round);
      for (int k = 0; R && k < R->nrecv; k++) {
        const struct p2p_op *o = &R->recv[k];
        if (o->direct) continue;
        for (size_t i = 0; i < o->cnt; i++) {
          if (o->op == AR_REDUCE) e.buf[r][o->off + i] += e.scratch[r][o->soff + i];
          else e.buf[r][o->off + i] = e.scratch[r][o->soff + i];
        }
      }
    }
  }
  for (int r = 0; r < n && wrong >= 0; r++)
    for (size_t i = 0; i < nelem; i++)
      wrong += e.buf[r][i] != (float)ar_expected_value(n, i, 11);
  for (int r = 0; r < n; r++) {
    free(e.buf[r]);
    free(e.scratch[r]);
    p2p_plan_free(&e.plan[r]);
  }
  return wrong;
}

static void test_p2p_plan(void) {
  size_t nall;
  const struct ar_algo *const *all = ar_algo_all(&nall);
  int ran = 0;
  for (size_t a = 0; a < nall; a++) {
    if (!all[a]->build) continue;
    for (int n = 2; n <= 9; n++) {
      struct ar_params p;
      ar_params_init(&p, n);
      struct ar_schedule s;
      if (ar_build(all[a], &p, &s) != AR_OK) continue; /* n/a (or not written yet) */
      if (sched_verify(&s, NULL) != AR_OK) {             /* test_schedules reports those */
        sched_free(&s);
        continue;
      }
      size_t sizes[] = {1, (size_t)s.nchunks - 1 ? (size_t)s.nchunks - 1 : 1, 1000, 250001};
      for (int k = 0; k < 4; k++) {
        char what[96];
        snprintf(what, sizeof(what), "%s n=%d nelem=%zu", all[a]->name, n, sizes[k]);
        long w = emulate(&s, sizes[k], what);
        CHECK(w == 0, "%s: %ld wrong", what, w);
        ran++;
      }
      sched_free(&s);
    }
  }
  CHECK(ran >= 32, "only %d schedules emulated", ran);
  /* a rank that receives a copy of a chunk it sends in the same round must go through scratch:
   * n = 3, one chunk: 1->0 reduce; 0->2 reduce; 2->0 copy while 0->1 copies; 2->1 copy */
  struct ar_schedule h;
  sched_init(&h, "swap", 3, 1);
  sched_add(&h, 0, AR_REDUCE, 1, 0, 0, 1);
  sched_add(&h, 1, AR_REDUCE, 0, 2, 0, 1);
  sched_add(&h, 2, AR_COPY, 2, 0, 0, 1);
  sched_add(&h, 2, AR_COPY, 0, 1, 0, 1);
  sched_add(&h, 3, AR_COPY, 2, 1, 0, 1);
  sched_finish(&h);
  CHECK_INT(sched_verify(&h, NULL), ==, AR_OK);
  CHECK_INT(emulate(&h, 1001, "hand-made swap"), ==, 0);
  struct p2p_plan hp;
  p2p_plan_build(&h, 0, 1001, 4, &hp);
  CHECK(hp.nrounds == 3 && hp.rounds[2].nrecv == 1 && !hp.rounds[2].recv[0].direct &&
            hp.scratch == 1004,
        "rank 0 round 2: %d rounds, scratch %zu", hp.nrounds, hp.scratch);
  p2p_plan_free(&hp);
  sched_free(&h);
  /* ring's allgather copies land in place (no scratch for them): the scratch a rank needs
   * is one chunk, for the reduce-scatter */
  struct ar_params p;
  ar_params_init(&p, 4);
  struct ar_schedule s;
  if (ar_build(ar_algo_find("ring"), &p, &s) == AR_OK) {
    struct p2p_plan pl;
    p2p_plan_build(&s, 0, 1000, 4, &pl);
    int direct = 0;
    for (int k = 0; k < pl.nrounds; k++)
      for (int i = 0; i < pl.rounds[k].nrecv; i++) direct += pl.rounds[k].recv[i].direct;
    CHECK(pl.nrounds == 6 && direct == 3 && pl.scratch == 252, "ring plan: %d rounds, %d direct, "
          "scratch %zu", pl.nrounds, direct, pl.scratch);
    p2p_plan_free(&pl);
    sched_free(&s);
  }
}

int main(void) {
  test_p2p_plan();
  return TEST_DONE();
}
