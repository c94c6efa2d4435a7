/* How the papers' suites (tests/test_papers.c, test_papers_optcc.c, test_papers_async.c and
 * test_papers_flows.c) hold the model to a paper's words: "within 6%" is model <= 1.06, "more
 * than 2x" model >= 2, a figure stated plainly within 10%; where docs/papers.md shows the
 * arithmetic of why the model cannot meet it, within 0.2% of that arithmetic instead, so that a
 * change in the model still fails. */
#ifndef CLAIMS_H
#define CLAIMS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

#define TOL 0.10     /* a paper figure stated without a tolerance, and the model's */
#define TOL_DOC 0.002 /* the model and docs/papers.md's arithmetic, printed to 3 or 4 digits */

/* What every claim() found, by its name, for pin(): the last model value of each name. */
#define CLAIMS_MAX 1024
static struct {
  const char *what[CLAIMS_MAX];
  double model[CLAIMS_MAX];
  int n;
} claims_seen;

static inline void claim_record(const char *what, double model) {
  for (int i = 0; i < claims_seen.n; i++)
    if (!strcmp(claims_seen.what[i], what)) {
      claims_seen.model[i] = model;
      return;
    }
  if (claims_seen.n < CLAIMS_MAX) {
    claims_seen.what[claims_seen.n] = strdup(what);
    claims_seen.model[claims_seen.n++] = model;
  }
}

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
  claim_record(what, model);
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

/* A figure docs/papers.md prints (doc, exactly as printed there) beside the paper's: the model
 * must round to it, so that the page says what the model says even where the paper's
 * statement leaves it room (a bound, or 10%). */
static inline void shown(const char *what, double model, const char *doc) {
  const char *dot = strchr(doc, '.');
  int places = dot ? (int)strlen(dot + 1) : 0;
  double half = 0.5 * pow(10, -places) * (1 + 1e-9), v = atof(doc);
  int same = fabs(model - v) <= half;
  printf("%-66s docs %9s  model %9.6g  %s\n", what, doc, model, same ? "as shown" : "OFF");
  CHECK(same, "%s: model %g, docs/papers.md shows %s", what, model, doc);
}

/* The figure docs/papers.md shows for the claim named what (checked earlier in the run), as
 * shown() holds it: one table of them a suite keeps the page's numbers beside their claims. */
struct pinned {
  const char *what, *doc;
};

static inline void pin_all(const struct pinned *pins, int n) {
  for (int i = 0; i < n; i++) {
    int at = -1;
    for (int k = 0; k < claims_seen.n && at < 0; k++)
      if (!strcmp(claims_seen.what[k], pins[i].what)) at = k;
    CHECK(at >= 0, "docs/papers.md pins a claim that did not run: %s", pins[i].what);
    if (at >= 0) shown(pins[i].what, claims_seen.model[at], pins[i].doc);
  }
}

/* A figure stated without a tolerance: within TOL (or explained). */
static inline void figure(const char *what, double paper, double model, double docs) {
  claim(what, NEAR, paper, model, docs);
}

#endif
