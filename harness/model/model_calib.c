/* `arbench model --calibrate RUN_DIR`: reads a GPU run's results.csv, fits alpha and beta
 * per transport and per (transport, algorithm), and prices every measured row beside its
 * measurement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "model/model_cmd.h"


/* Reads one line of any length into *buf; returns its length or -1 at the end. */
static long read_line(FILE *f, char **buf, size_t *cap) {
  ssize_t len = getline(buf, cap, f);
  if (len < 0) return -1;
  while (len > 0 && ((*buf)[len - 1] == '\n' || (*buf)[len - 1] == '\r'))
    (*buf)[--len] = 0;
  return len;
}

/* Splits a CSV line in place into fields, undoing the writer's quoting ("a,b" and ""); returns
 * the field count. */
static int split_csv(char *line, char **fields, int max) {
  int k = 0;
  char *p = line;
  while (k < max) {
    char *w = p;
    fields[k++] = w;
    if (*p == '"') { /* quoted: copy down, "" stands for one quote */
      for (p++; *p; p++) {
        if (*p == '"' && p[1] == '"')
          *w++ = '"', p++;
        else if (*p == '"') {
          p++;
          break;
        } else
          *w++ = *p;
      }
      char *c = strchr(p, ',');
      *w = 0;
      if (!c) break;
      p = c + 1;
      continue;
    }
    char *c = strchr(p, ',');
    if (!c) break;
    *c = 0;
    p = c + 1;
  }
  return k;
}

/* Reads the usable gpu rows of RUN_DIR/results.csv (or the CSV file itself); returns the row
 * count, or -1 after a one-line message (bad input). */
int read_run(const char *dir, struct mrow **rows_out) {
  char path[1024];
  size_t dl = strlen(dir);
  if (dl > 4 && !strcmp(dir + dl - 4, ".csv"))
    snprintf(path, sizeof(path), "%s", dir);
  else
    snprintf(path, sizeof(path), "%s/results.csv", dir);
  FILE *f = fopen(path, "r");
  if (!f) return args_bad("--calibrate", dir, "cannot read results.csv there");
  static const char *want[] = {"source", "algorithm",      "transport", "n_gpus",
                               "bytes",  "straggler_rank", "delay_us",  "degraded_rank",
                               "factor", "time_us_median", "status"};
  enum { W_SRC, W_ALGO, W_TP, W_N, W_BYTES, W_ST, W_DELAY, W_DG, W_F, W_MED, W_STATUS, W_COUNT };
  int col[W_COUNT];
  char *line = NULL, *fields[128];
  size_t cap = 0;
  int nrows = 0, capr = 0, ret = -1;
  struct mrow *rows = NULL;
  if (read_line(f, &line, &cap) < 0) {
    args_bad("--calibrate", path, "empty file");
    goto out;
  }
  int nf = split_csv(line, fields, 128);
  for (int w = 0; w < W_COUNT; w++) {
    col[w] = -1;
    for (int i = 0; i < nf; i++)
      if (!strcmp(fields[i], want[w])) col[w] = i;
    if (col[w] < 0) {
      char why[96];
      snprintf(why, sizeof(why), "the header lacks the column %s", want[w]);
      args_bad("--calibrate", path, why);
      goto out;
    }
  }
  while (read_line(f, &line, &cap) >= 0) {
    nf = split_csv(line, fields, 128);
    int ok = 1;
    for (int w = 0; w < W_COUNT; w++)
      ok &= col[w] < nf;
    if (!ok || strcmp(fields[col[W_SRC]], "gpu") || strcmp(fields[col[W_STATUS]], "ok")) continue;
    const struct ar_algo *a = ar_algo_find(fields[col[W_ALGO]]);
    if (!a || (a->flags & AR_ALGO_NATIVE) || (a->traits & AR_TRAIT_PIPELINED)) continue;
    struct mrow r = {0};
    r.sc.algo = a;
    r.sc.n = atoi(fields[col[W_N]]);
    r.sc.straggler = atoi(fields[col[W_ST]]);
    r.sc.delay_us = atof(fields[col[W_DELAY]]);
    int dgr = atoi(fields[col[W_DG]]);
    if (dgr >= 0) {
      r.sc.dg.n = 1;
      r.sc.dg.rank[0] = dgr;
      r.sc.dg.factor[0] = atof(fields[col[W_F]]);
      if (r.sc.dg.factor[0] < 1) continue;
    }
    r.bytes = atof(fields[col[W_BYTES]]);
    r.time_us = atof(fields[col[W_MED]]);
    snprintf(r.transport, sizeof(r.transport), "%s", fields[col[W_TP]]);
    if (r.sc.n < 2 || r.sc.n > AR_MAX_RANKS || r.sc.straggler >= r.sc.n || dgr >= r.sc.n ||
        !(r.bytes >= 1) || !(r.time_us > 0))
      continue;
    if (nrows == capr) {
      capr = capr ? 2 * capr : 256;
      struct mrow *nr = realloc(rows, sizeof(*rows) * capr);
      if (!nr) goto out;
      rows = nr;
    }
    rows[nrows++] = r;
  }
  if (!nrows) {
    args_bad("--calibrate", path, "no usable rows (source=gpu, status=ok, a schedule algorithm)");
    goto out;
  }
  ret = nrows;
  *rows_out = rows;
  rows = NULL;
out:
  free(rows);
  free(line);
  fclose(f);
  return ret;
}

/* Fits alpha, beta and (pooled over the algorithms, whose messages a round differ) the cost
 * of a message to the healthy rows of one transport (and one algorithm, unless algo is NULL:
 * then alpha takes the messages' cost, a fixed count a round); fills ft and prints one line. */
static void fit_rows(const struct mrow *rows, int nrows, const struct options *o,
                     struct price_cache *cache, const char *transport, const struct ar_algo *algo,
                     struct fit *ft) {
  memset(ft, 0, sizeof(*ft));
  snprintf(ft->transport, sizeof(ft->transport), "%s", transport);
  ft->algo = algo;
  ft->hw = o->hw;
  struct model_sample *smp = malloc(sizeof(*smp) * nrows);
  int ns = 0;
  for (int j = 0; smp && j < nrows; j++) {
    const struct mrow *r = &rows[j];
    if (strcmp(r->transport, transport) || (algo && r->sc.algo != algo) ||
        r->sc.straggler >= 0 || r->sc.dg.n)
      continue;
    /* OPTCC ran with k chosen per size, which the CSV does not let us rebuild: keep it out of
     * the pooled fit, where its many rounds would drag alpha down for every other schedule */
    if (!algo && (r->sc.algo->flags & AR_ALGO_DEGRADE_AWARE)) continue;
    int k = cache_get(cache, &r->sc, o);
    if (k < 0 || cache->e[k].st != AR_OK) continue;
    const struct model_price *pr = &cache->e[k].pr;
    smp[ns].rounds = pr->pre.rounds + pr->main.rounds;
    smp[ns].msgs = algo ? 0 : pr->pre.msgs + pr->main.msgs; /* one algorithm's: in alpha */
    smp[ns].beta_bytes = r->bytes * (pr->pre.load + pr->main.load);
    smp[ns].fixed_us = (pr->pre.hops + pr->main.hops) * o->hw.hop_us +
                       r->bytes * (pr->pre.reduce + pr->main.reduce) * o->hw.gamma;
    smp[ns].time_us = r->time_us;
    ns++;
  }
  ft->rows = ns;
  ft->ok = smp && ns >= CALIBRATE_MIN_ROWS &&
           !model_fit_msg(smp, ns, &ft->hw.alpha_us, &ft->msg_us, &ft->hw.beta, &ft->rel_rms);
  free(smp);
  const char *name = algo ? algo->name : "all";
  if (ft->ok)
    printf("calibration: transport=%s algorithm=%s rows=%d alpha_us=%.3f msg_us=%.3f "
           "bw_GBps=%.2f rel_rms=%.4f\n",
           transport, name, ns, ft->hw.alpha_us, ft->msg_us, 1e6 / ft->hw.beta / 1e9,
           ft->rel_rms);
  else
    printf("calibration: transport=%s algorithm=%s rows=%d failed: too few healthy rows to fit "
           "(at least %d)\n", transport, name, ns, CALIBRATE_MIN_ROWS);
}

/* Returns 1 when fits[0..nfits) already has (transport, algo). */
static int have_fit(const struct fit *fits, int nfits, const char *transport,
                    const struct ar_algo *algo) {
  for (int j = 0; j < nfits; j++)
    if (fits[j].algo == algo && !strcmp(fits[j].transport, transport)) return 1;
  return 0;
}

/* Fits alpha and beta from the healthy rows: pooled per transport (for pricing what was not
 * measured), then per (transport, algorithm), since each schedule pays its own per-round cost
 * on a transport. Returns the number of fits. */
int calibrate(const struct mrow *rows, int nrows, const struct options *o,
                     struct price_cache *cache, struct fit *fits) {
  int nfits = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < nrows && nfits < MAX_FITS; i++) {
      const struct ar_algo *algo = pass ? rows[i].sc.algo : NULL;
      if (have_fit(fits, nfits, rows[i].transport, algo)) continue;
      fit_rows(rows, nrows, o, cache, rows[i].transport, algo, &fits[nfits++]);
    }
  return nfits;
}


/* Prices every measured row beside its measurement, with the fit of its own algorithm on its
 * transport where there is one, else its transport's pooled fit. */
void mirror(const struct mrow *rows, int nrows, const struct options *o,
                   const struct fit *fits, int nfits, struct price_cache *cache, struct out *out) {
  for (int i = 0; i < nrows; i++) {
    const struct mrow *r = &rows[i];
    const struct fit *ft = NULL;
    for (int j = 0; j < nfits; j++)
      if (fits[j].ok && !strcmp(fits[j].transport, r->transport) &&
          (!fits[j].algo || fits[j].algo == r->sc.algo) && (!ft || fits[j].algo))
        ft = &fits[j];
    if (!ft) continue;
    int k = cache_get(cache, &r->sc, o);
    if (k < 0) continue;
    if (cache->e[k].st != AR_OK) {
      print_row(out, &r->sc, r->transport, r->bytes, NULL, cache->e[k].reason, -1);
      csv_row(out, &r->sc, r->transport, r->bytes, NULL);
      continue;
    }
    struct model_times t;
    if (entry_times(cache, k, o, &ft->hw, ft->msg_us, r->bytes, &t) != AR_OK) {
      print_row(out, &r->sc, r->transport, r->bytes, NULL, "flow pricing failed", -1);
      csv_row(out, &r->sc, r->transport, r->bytes, NULL);
      continue;
    }
    print_row(out, &r->sc, r->transport, r->bytes, &t, NULL, r->time_us);
    csv_row(out, &r->sc, r->transport, r->bytes, &t);
  }
}

