/* How the papers' suites (tests/test_papers.c, test_papers_optcc.c, test_papers_async.c and
 * test_papers_flows.c) hold the model to a paper's words: "within 6%" is model <= 1.06, "more
 * than 2x" model >= 2, a figure stated plainly within 10%; where docs/papers.md shows the
 * arithmetic of why the model cannot meet it, within 1% of that arithmetic instead, so that a
 * change in the model still fails. */
#ifndef CLAIMS_H
#define CLAIMS_H

#include <math.h>

#include "test.h"

#define TOL 0.10     /* a paper figure stated without a tolerance, and the model's */
#define TOL_DOC 0.01 /* the model and docs/papers.md's arithmetic */

/* How a paper states a figure: a value (within TOL), or a bound the model must meet
 * ("within 6%": AT_MOST 1.06; "more than 2x": AT_LEAST 2). */
enum stated { NEAR, AT_MOST, AT_LEAST };

/* Returns 1 when model meets the paper's statement (how, paper) as claim() holds it. */
static inline int claim_met(enum stated how, double paper, double model) {
  double ulp = 1e-9 * fabs(paper);
  return how == AT_MOST    ? model <= paper + ulp
         : how == AT_LEAST ? model >= paper - ulp
                           : fabs(model - paper) <= TOL * fabs(paper);
}

/* Prints one comparison and checks it against the paper's statement, else, where
 * docs/papers.md explains the gap (docs >= 0), within TOL_DOC of its arithmetic. */
static inline void claim(const char *what, enum stated how, double paper, double model,
                         double docs) {
  int met = claim_met(how, paper, model); /* ulp: a bound met exactly (eq. (1) at k = 64) */
  const char *rule = how == AT_MOST ? "at most" : how == AT_LEAST ? "at least" : "within 10%";
  printf("%-66s paper %9.4g  model %9.4g  %s\n", what, paper, model,
         met ? rule : docs >= 0 ? "explained (docs/papers.md)" : "OFF");
  if (met) return;
  CHECK(docs >= 0, "%s: model %g, paper %s %g", what, model, rule, paper);
  if (docs >= 0)
    CHECK(fabs(model - docs) <= TOL_DOC * fabs(docs), "%s: model %g vs docs/papers.md %g", what,
          model, docs);
}

/* A figure the model before a change (docs/papers.md's "before": the rounds with nothing a
 * message) missed and the model now meets: prints the old model's figure and checks that it
 * still misses the paper's statement, so that the check of today's model could fail. */
static inline void missed_before(const char *what, enum stated how, double paper, double before) {
  int met = claim_met(how, paper, before);
  printf("%-66s paper %9.4g  before %8.4g  %s\n", what, paper, before,
         met ? "MET (the check of today's could not fail)" : "missed");
  CHECK(!met, "%s: the model before gives %g, which meets the paper's %g", what, before, paper);
}

/* A figure stated without a tolerance: within TOL (or explained). */
static inline void figure(const char *what, double paper, double model, double docs) {
  claim(what, NEAR, paper, model, docs);
}

#endif
