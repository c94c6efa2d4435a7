/* The schedules tp_check checks: the registry's and synthetic ones, and the data pattern. */
#include "tp_check.h"

/* ------------------------------------------------------------------ schedules */

/* x-pair: pairs exchange with a copy one way and a reduce the other in the same round (both
 * sides read what they overwrite), then the pair leaders reduce into two leaders (several
 * reduces into one chunk in a round) which copy to everyone (multi-port). Even n. */
static ar_status build_x_pair(int n, struct ar_schedule *s) {
  if (n % 2) return sched_fail(s, AR_ERR_UNSUPPORTED, "x-pair needs even n");
  AR_CHECK(sched_init(s, "x-pair", n, 2));
  for (int a = 0; a < n; a += 2) {
    AR_CHECK(sched_add(s, 0, AR_COPY, a, a + 1, 0, 2));
    AR_CHECK(sched_add(s, 0, AR_REDUCE, a + 1, a, 0, 2));
    AR_CHECK(sched_add(s, 1, AR_COPY, a, a + 1, 0, 2));
  }
  if (n > 2) {
    for (int a = 2; a < n; a += 2)
      AR_CHECK(sched_add(s, 2, AR_REDUCE, a, 0, 0, 1));
    for (int a = 0; a < n; a += 2)
      if (a != 2) AR_CHECK(sched_add(s, 2, AR_REDUCE, a, 2, 1, 1));
    for (int r = 0; r < n; r++) {
      if (r != 0) AR_CHECK(sched_add(s, 3, AR_COPY, 0, r, 0, 1));
      if (r != 2) AR_CHECK(sched_add(s, 3, AR_COPY, 2, r, 1, 1));
    }
  }
  s->ports = n - 1;
  return AR_OK;
}

/* x-precond: a precondition among ranks 0..n-2 (a reduce chain over 5 chunks while the
 * straggler n-1 is away), then the straggler and rank n-2 exchange reduces of the whole
 * vector (each overwrites what the other reads), then n-2 copies to the rest. n >= 2. */
static ar_status build_x_precond(int n, struct ar_schedule *s) {
  AR_CHECK(sched_init(s, "x-precond", n, 5));
  int k = 0;
  for (; k < n - 2; k++)
    AR_CHECK(sched_add(s, k, AR_REDUCE, k, k + 1, 0, 5));
  AR_CHECK(sched_add(s, k, AR_REDUCE, n - 2, n - 1, 0, 5));
  AR_CHECK(sched_add(s, k, AR_REDUCE, n - 1, n - 2, 0, 5));
  for (int r = 0; r < n - 2; r++)
    AR_CHECK(sched_add(s, k + 1, AR_COPY, n - 2, r, 0, 5));
  s->nprecond = n - 2;
  s->straggler = n - 1;
  s->ports = n > 3 ? n - 2 : 1;
  return AR_OK;
}

/* x-rd: recursive doubling with every step sent as two transfers (chunks 0 and 1..2 of 3):
 * both partners overwrite what the other reads. Power-of-2 n. */
static ar_status build_x_rd(int n, struct ar_schedule *s) {
  if (!ar_is_pow2(n)) return sched_fail(s, AR_ERR_UNSUPPORTED, "x-rd needs a power of 2");
  AR_CHECK(sched_init(s, "x-rd", n, 3));
  for (int d = 1, k = 0; d < n; d <<= 1, k++)
    for (int r = 0; r < n; r++) {
      AR_CHECK(sched_add(s, k, AR_REDUCE, r, r ^ d, 0, 1));
      AR_CHECK(sched_add(s, k, AR_REDUCE, r, r ^ d, 1, 2));
    }
  return AR_OK;
}

/* x-ring-rev: async-ring with every rank r renamed n-1-r (the ring runs r -> r-1): a ring
 * that is not the identity layout, for the dataflow ring program's peers. Any n >= 2. */
static ar_status build_x_ring_rev(int n, struct ar_schedule *s) {
  struct ar_params p;
  ar_params_init(&p, n);
  AR_CHECK(ar_build(ar_algo_find("async-ring"), &p, s));
  int perm[AR_MAX_GPUS];
  for (int r = 0; r < n; r++)
    perm[r] = n - 1 - r;
  sched_relabel(s, perm);
  snprintf(s->algo, sizeof(s->algo), "x-ring-rev");
  s->traits |= AR_TRAIT_PIPELINED; /* async-ring's trait: x-ring-rev is not in the registry */
  return AR_OK;
}

/* x-rd-pipe: recursive doubling flagged AR_TRAIT_PIPELINED: not a ring, so the ce push
 * program must fall back to the per-round one. Power-of-2 n. */
static ar_status build_x_rd_pipe(int n, struct ar_schedule *s) {
  AR_CHECK(build_x_rd(n, s));
  snprintf(s->algo, sizeof(s->algo), "x-rd-pipe");
  s->traits |= AR_TRAIT_PIPELINED;
  return AR_OK;
}

/* x-late-copy (n = 3, one chunk): 0 -> 1 reduce, 1 -> 2 reduce (2 has the sum), 0 -> 1 copy
 * (a wasted transfer: 0 reads its data and 1's is overwritten), then 2 copies the sum to 0
 * and 1. No chain of transfers orders 0's read in round 2 before 2's copy into 0 in round 3,
 * nor 0's copy into 1 before 2's: only the receivers' RECV (the ce flow program) does. */
static ar_status build_x_late_copy(int n, struct ar_schedule *s) {
  if (n != 3) return sched_fail(s, AR_ERR_UNSUPPORTED, "x-late-copy: 3 ranks only");
  AR_CHECK(sched_init(s, "x-late-copy", n, 1));
  s->ports = 2; /* round 3: 2 sends to both */
  AR_CHECK(sched_add(s, 0, AR_REDUCE, 0, 1, 0, 1));
  AR_CHECK(sched_add(s, 1, AR_REDUCE, 1, 2, 0, 1));
  AR_CHECK(sched_add(s, 2, AR_COPY, 0, 1, 0, 1));
  AR_CHECK(sched_add(s, 3, AR_COPY, 2, 0, 0, 1));
  return sched_add(s, 3, AR_COPY, 2, 1, 0, 1);
}

static const char *const synth_names[] = {"x-pair", "x-precond", "x-rd", "x-ring-rev",
                                          "x-rd-pipe", "x-late-copy"};
#define NSYNTH 6

/* Builds algorithm `name` for n ranks: a synthetic one or a registry entry (OPTCC gets one
 * degraded GPU, optcc-multi two). Returns AR_OK, AR_ERR_UNSUPPORTED (skip) or an error. */
ar_status build_sched(const char *name, int n, struct ar_schedule *s) {
  memset(s, 0, sizeof(*s));
  ar_status st;
  if (!strcmp(name, "x-pair"))
    st = build_x_pair(n, s);
  else if (!strcmp(name, "x-precond"))
    st = build_x_precond(n, s);
  else if (!strcmp(name, "x-rd"))
    st = build_x_rd(n, s);
  else if (!strcmp(name, "x-ring-rev"))
    st = n > AR_MAX_GPUS ? AR_ERR_UNSUPPORTED : build_x_ring_rev(n, s);
  else if (!strcmp(name, "x-rd-pipe"))
    st = build_x_rd_pipe(n, s);
  else if (!strcmp(name, "x-late-copy"))
    st = build_x_late_copy(n, s);
  else {
    const struct ar_algo *a = ar_algo_find(name);
    if (!a) {
      snprintf(s->reason, sizeof(s->reason), "unknown algorithm");
      return AR_ERR_INVALID;
    }
    struct ar_params p;
    ar_params_init(&p, n);
    if (a->flags & AR_ALGO_DEGRADE_AWARE) {
      p.ndegraded = strstr(name, "multi") && n > 3 ? 2 : 1;
      for (int i = 0; i < p.ndegraded; i++) {
        p.degraded[i] = n - 1 - i;
        p.factor[i] = 2.0;
      }
    }
    return ar_build(a, &p, s);
  }
  if (st == AR_OK) st = sched_finish(s);
  if (st != AR_OK) sched_free(s);
  return st;
}

int sched_for_sweep(const char *name, int n, struct ar_schedule *s) {
  ar_status st = build_sched(name, n, s);
  if (st == AR_OK) return 1;
  if (st != AR_ERR_UNSUPPORTED)
    printf("SKIP %s n=%d: %s (%s)\n", name, n, ar_status_str(st), s->reason);
  return 0;
}

/* Fills names[] with the algorithms of a comma list ("all": registry + synthetic); returns
 * the count. */
int algo_list(const char *list, const char **names, int max) {
  int cnt = 0;
  if (!list || !strcmp(list, "all")) {
    size_t na;
    const struct ar_algo *const *all = ar_algo_all(&na);
    for (size_t i = 0; i < na && cnt < max; i++)
      if (all[i]->build) names[cnt++] = all[i]->name;
    for (int i = 0; i < NSYNTH && cnt < max; i++)
      names[cnt++] = synth_names[i];
    return cnt;
  }
  char *dup = strdup(list), *save = NULL;
  for (char *t = strtok_r(dup, ",", &save); t && cnt < max; t = strtok_r(NULL, ",", &save))
    names[cnt++] = strdup(t); /* lives until exit */
  free(dup);
  return cnt;
}

/* ------------------------------------------------------------------ data pattern */

/* Small integers, different per rank and element: sums are exact in bf16 and fp16 too. */
float pattern(int r, size_t i) {
  return (float)((int)((i * 7 + (size_t)r * 13 + (i >> 5) * 3) % 17) - 8);
}
float expected(int n, size_t i) {
  float s = 0;
  for (int r = 0; r < n; r++)
    s += pattern(r, i);
  return s;
}
