/* Fuzz-style checks of the parsers (#26, #35): thousands of generated sizes, durations,
 * straggler and degrade specs (also cut into repeated flags), numbers in other forms, lists with an empty item, delay files
 * and config files. Each input must be read with its exact meaning (0 and
 * the value the generator meant) or refused (-1) with exactly one line on stderr. A fixed seed
 * (FUZZ_SEED overrides it) keeps the inputs the same from run to run. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/config.h"
#include "test.h"

/* stderr goes to a file: begin_err() empties it, err_lines() counts the lines since. */
static void begin_err(void) {
  fflush(stderr);
  if (ftruncate(2, 0) || lseek(2, 0, SEEK_SET)) perror("ftruncate");
}
static int err_lines(int *whole) {
  char buf[8192];
  fflush(stderr);
  ssize_t n = pread(2, buf, sizeof(buf), 0);
  int k = 0;
  for (ssize_t i = 0; i < n; i++) k += buf[i] == '\n';
  *whole = n > 0 && buf[n - 1] == '\n';
  return k;
}
/* A refusal: rc -1 and one whole line on stderr. */
#define CHECK_REFUSED(rc, what)                                                               \
  do {                                                                                        \
    int whole_, lines_ = err_lines(&whole_);                                                  \
    CHECK((rc) == -1 && lines_ == 1 && whole_, "%s: rc %d, %d stderr lines", what, (rc),     \
          lines_);                                                                            \
  } while (0)

static const char *pick(const char *const *v, int n) { return v[rand() % n]; }

/* Sizes: a number and a unit whose value is known, or a random string. */
static void fuzz_sizes(int n) {
  static const char *const units[] = {"", "B", "K", "k", "KiB", "KB", "M", "MiB", "G", "GiB",
                                      "T", "Kb", "m"};
  static const double mul[] = {1, 1, 1024, 1024, 1024, 1024, 1048576, 1048576, 1073741824.0,
                               1073741824.0, 1099511627776.0, 1024, 1048576};
  for (int i = 0; i < n; i++) {
    int u = rand() % 13;
    uint64_t v = (uint64_t)(rand() % 2048);
    char s[64];
    snprintf(s, sizeof(s), "%llu%s", (unsigned long long)v, units[u]);
    double want = (double)v * mul[u];
    uint64_t got = 0;
    begin_err();
    int rc = args_parse_size("-b", s, &got);
    if (want >= 1 && want <= 1.0 * (1ull << 50))
      CHECK(rc == 0 && (double)got == want, "'%s': rc %d, %llu bytes, want %.0f", s, rc,
            (unsigned long long)got, want);
    else
      CHECK_REFUSED(rc, s);
  }
  static const char alphabet[] = "0123456789.eE+-KMGTkmgtiBb x,:@\"#";
  for (int i = 0; i < n; i++) {
    char s[16];
    int len = 1 + rand() % 8;
    for (int k = 0; k < len; k++) s[k] = alphabet[rand() % (sizeof(alphabet) - 1)];
    s[len] = 0;
    uint64_t got = 0;
    begin_err();
    int rc = args_parse_size("-b", s, &got);
    if (rc == 0) { /* accepted: a whole number of bytes in range, said again the same */
      uint64_t again = 0;
      char t[32];
      snprintf(t, sizeof(t), "%llu", (unsigned long long)got);
      CHECK(got >= 1 && got <= (1ull << 50) && !args_parse_size("-b", t, &again) &&
                again == got, "'%s' read as %llu", s, (unsigned long long)got);
    } else {
      CHECK_REFUSED(rc, s);
    }
  }
}

/* Durations: a number and a unit; at most 1 h. */
static void fuzz_times(int n) {
  static const char *const units[] = {"", "us", "ns", "ms", "s"};
  static const double mul[] = {1, 1, 1e-3, 1e3, 1e6};
  for (int i = 0; i < n; i++) {
    int u = rand() % 5, neg = rand() % 16 == 0;
    double v = (rand() % 100000) / 10.0 * (rand() % 2 ? 1 : 100);
    char s[64];
    snprintf(s, sizeof(s), "%s%g%s", neg ? "-" : "", v, units[u]);
    double want = v * mul[u], got = -1;
    begin_err();
    int rc = args_parse_time_us("--straggler", s, &got);
    if ((!neg || v == 0) && want <= ARGS_MAX_TIME_US)
      CHECK(rc == 0 && fabs(got - want) <= 1e-9 * want, "'%s': rc %d, %g us, want %g", s, rc,
            got, want);
    else
      CHECK_REFUSED(rc, s);
  }
}

/* Straggler and degrade lists: well-formed ones read exactly, broken ones refused. */
static void fuzz_specs(int n) {
  static const char *const bad_items[] = {":8ms", "3:", "x:1ms", "3:8xs", "3:-1ms", "",
                                          "3:2ms-1ms", "3:1e300s", "3:nan", "99999:1ms"};
  for (int i = 0; i < n; i++) {
    struct straggler_spec st[AR_MAX_STRAGGLERS];
    int cnt = 0, k = 1 + rand() % 3, broken = rand() % 4 == 0;
    char s[256] = "";
    double want[3];
    for (int j = 0; j < k; j++) {
      want[j] = (rand() % 1000) * 10.0;
      size_t len = strlen(s);
      if (broken && j == k - 1)
        snprintf(s + len, sizeof(s) - len, "%s%s", j ? "," : "", pick(bad_items, 10));
      else
        snprintf(s + len, sizeof(s) - len, "%s%d:%gus", j ? "," : "", j, want[j]);
    }
    begin_err();
    int rc = args_parse_stragglers("--straggler", s, 1, st, &cnt);
    if (!broken) {
      int same = rc == 0 && cnt == k;
      for (int j = 0; same && j < k; j++)
        same = st[j].rank == j && st[j].delay_lo_us == want[j] && st[j].delay_hi_us == want[j];
      CHECK(same, "'%s': rc %d, %d stragglers", s, rc, cnt);
    } else { /* an empty item too ("0:1us,": a comma too many, #35) */
      CHECK_REFUSED(rc, s);
    }
    struct degrade_spec dg;
    double f = 1 + (rand() % 20000) / 10.0;
    snprintf(s, sizeof(s), "%d:%g", rand() % 8, f);
    begin_err();
    rc = args_parse_degrade("--degrade", s, &dg);
    if (f <= ARGS_MAX_FACTOR)
      CHECK(rc == 0 && dg.n == 1 && fabs(dg.factor[0] - f) <= 1e-12 * f, "'%s': rc %d", s, rc);
    else
      CHECK_REFUSED(rc, s);
  }
}

/* Repeated --straggler and --degrade flags: a list cut into flags anywhere reads as the whole
 * list (#35: the last flag alone was kept), in the order named; a rank named in an earlier
 * flag is refused with one line. */
static void fuzz_repeats(int n) {
  for (int i = 0; i < n; i++) {
    int k = 1 + rand() % AR_MAX_STRAGGLERS, rank[AR_MAX_STRAGGLERS];
    for (int j = 0; j < AR_MAX_STRAGGLERS; j++) rank[j] = j;
    for (int j = AR_MAX_STRAGGLERS - 1; j > 0; j--) { /* distinct ranks in a random order */
      int r = rand() % (j + 1), t = rank[j];
      rank[j] = rank[r], rank[r] = t;
    }
    struct straggler_spec whole[AR_MAX_STRAGGLERS], cut[AR_MAX_STRAGGLERS];
    struct degrade_spec dwhole, dcut = {0};
    char sl[256] = "", dl[256] = "", sf[64] = "", df[64] = "";
    int nwhole = 0, ncut = 0, rc = 0;
    for (int j = 0; j < k; j++) {
      size_t a = strlen(sl), b = strlen(dl), c = strlen(sf), d = strlen(df);
      snprintf(sl + a, sizeof(sl) - a, "%s%d:%dus", j ? "," : "", rank[j], 10 * j + 1);
      snprintf(dl + b, sizeof(dl) - b, "%s%d:%d", j ? "," : "", rank[j], j + 2);
      snprintf(sf + c, sizeof(sf) - c, "%s%d:%dus", c ? "," : "", rank[j], 10 * j + 1);
      snprintf(df + d, sizeof(df) - d, "%s%d:%d", d ? "," : "", rank[j], j + 2);
      if (j == k - 1 || rand() % 2) { /* the flag ends here */
        rc |= args_add_stragglers("--straggler", sf, 1, cut, &ncut);
        rc |= args_add_degrade("--degrade", df, &dcut);
        sf[0] = df[0] = 0;
      }
    }
    rc |= args_parse_stragglers("--straggler", sl, 1, whole, &nwhole);
    rc |= args_parse_degrade("--degrade", dl, &dwhole);
    int same = rc == 0 && ncut == k && nwhole == k && dcut.n == k && dwhole.n == k;
    for (int j = 0; same && j < k; j++)
      same = cut[j].rank == rank[j] && whole[j].rank == rank[j] &&
             cut[j].delay_lo_us == whole[j].delay_lo_us && dcut.rank[j] == rank[j] &&
             dcut.factor[j] == dwhole.factor[j];
    CHECK(same, "'%s' cut into flags: rc %d, %d and %d stragglers", sl, rc, ncut, nwhole);
    char again[32];
    snprintf(again, sizeof(again), "%d:1ms", rank[rand() % k]);
    begin_err();
    rc = args_add_stragglers("--straggler", again, 1, cut, &ncut);
    CHECK_REFUSED(rc, again);
    snprintf(again, sizeof(again), "%d:2", rank[rand() % k]);
    begin_err();
    rc = args_add_degrade("--degrade", again, &dcut);
    CHECK_REFUSED(rc, again);
  }
}

/* Numbers written otherwise than as plain decimals, and lists with an empty item: refused by
 * every parser (#35: "0x400" was 1024 bytes, " 5" was 5, "ring," one algorithm). */
static void fuzz_forms(int n) {
  static const char *const prefix[] = {" ", "\t", "0x", "0X", " 0x", "+0x", "-0x"};
  static const char *const body[] = {"1", "400", "1K", "8", "2ms", "1.5", "10"};
  for (int i = 0; i < n; i++) {
    char s[64];
    snprintf(s, sizeof(s), "%s%s", pick(prefix, 7), pick(body, 7));
    uint64_t b;
    double d;
    int v;
    struct degrade_spec dg;
    struct straggler_spec st[AR_MAX_STRAGGLERS];
    int cnt, dims[AR_MAX_TORUS_DIMS], nd, rc;
    char item[96];
    begin_err();
    rc = args_parse_size("-b", s, &b);
    CHECK_REFUSED(rc, s);
    begin_err();
    rc = args_parse_time_us("--row-budget", s, &d);
    CHECK_REFUSED(rc, s);
    begin_err();
    rc = args_parse_int("-n", s, 0, 1 << 30, &v);
    CHECK_REFUSED(rc, s);
    snprintf(item, sizeof(item), "1:%s", s);
    begin_err();
    rc = args_parse_degrade("--degrade", item, &dg);
    CHECK_REFUSED(rc, item);
    begin_err();
    rc = args_parse_stragglers("--straggler", item, 1, st, &cnt);
    CHECK_REFUSED(rc, item);
    snprintf(item, sizeof(item), "%sx2", s);
    begin_err();
    rc = args_parse_torus("--torus", item, &nd, dims);
    CHECK_REFUSED(rc, item);
  }
  /* lists of good items with one empty item somewhere */
  for (int i = 0; i < n; i++) {
    int k = 2 + rand() % 4, hole = rand() % (k + 1);
    char sl[256] = "", dl[256] = "", ll[256] = "";
    for (int j = 0; j <= k; j++) {
      const char *sep = j ? "," : "";
      size_t a = strlen(sl), b2 = strlen(dl), c = strlen(ll);
      if (j == hole) { /* the empty item: ",," inside, or a comma at either end */
        snprintf(sl + a, sizeof(sl) - a, "%s", sep);
        snprintf(dl + b2, sizeof(dl) - b2, "%s", sep);
        snprintf(ll + c, sizeof(ll) - c, "%s", sep);
        continue;
      }
      snprintf(sl + a, sizeof(sl) - a, "%s%d:%dus", sep, j, j + 1);
      snprintf(dl + b2, sizeof(dl) - b2, "%s%d:%d", sep, j, j + 2);
      snprintf(ll + c, sizeof(ll) - c, "%s%dK", sep, j + 1);
    }
    struct straggler_spec st[AR_MAX_STRAGGLERS];
    struct degrade_spec dg;
    int cnt, rc;
    begin_err();
    rc = args_parse_stragglers("--straggler", sl, 1, st, &cnt);
    CHECK_REFUSED(rc, sl);
    begin_err();
    rc = args_parse_degrade("--degrade", dl, &dg);
    CHECK_REFUSED(rc, dl);
    begin_err();
    rc = args_check_list("--sizes", ll);
    CHECK_REFUSED(rc, ll);
  }
}

/* Delay files: a line of one duration (blanks and a comment around it) is read exactly; a
 * line with a second word, a CR inside or a NUL is refused naming FILE:LINE (#35: "4ms
 * garbage" was 4 ms). */
static void fuzz_delay_files(int n, const char *path) {
  static const char *const junk[] = {" garbage", " 2ms", "\r2ms", " 1", "\t3", ",1ms", "ms"};
  for (int i = 0; i < n; i++) {
    char text[4096] = "";
    double want[32];
    int nd = 0, nlines = 1 + rand() % 12, flaw = rand() % 3 == 0, badline = 0;
    size_t len = 0;
    for (int l = 1; l <= nlines; l++) {
      int kind = rand() % 6;
      if (kind == 0) {
        len += (size_t)snprintf(text + len, sizeof(text) - len, "%s\n", rand() % 2 ? "" : "  # c");
        continue;
      }
      double us = (rand() % 100000) / 10.0;
      want[nd++] = us;
      int spoil = flaw && !badline && rand() % 3 == 0; /* junk after the duration */
      len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%gus%s", rand() % 2 ? " \t" : "",
                              us, spoil ? pick(junk, 7) : rand() % 2 ? "  # x 9ms" : " ");
      badline = spoil ? l : badline;
      len += (size_t)snprintf(text + len, sizeof(text) - len, rand() % 2 ? "\r\n" : "\n");
    }
    FILE *f = fopen(path, "wb");
    fwrite(text, 1, len, f);
    fclose(f);
    double *got = NULL;
    int count = 0;
    begin_err();
    int rc = args_load_delays(path, &got, &count);
    if (badline) {
      CHECK_REFUSED(rc, "a delay line with more than one duration");
      char want_where[160], err[512] = "";
      snprintf(want_where, sizeof(want_where), "%s:%d: bad value '", path, badline);
      fflush(stderr);
      ssize_t k = pread(2, err, sizeof(err) - 1, 0);
      err[k > 0 ? k : 0] = 0;
      CHECK(strstr(err, want_where) != NULL, "'%s' lacks '%s'", err, want_where);
    } else if (nd == 0) {
      CHECK_REFUSED(rc, "a delay file with no delays");
    } else {
      int same = rc == 0 && count == nd;
      for (int j = 0; same && j < nd; j++) same = fabs(got[j] - want[j]) <= 1e-9 * want[j];
      CHECK(same, "delay file %d: rc %d, %d delays, want %d", i, rc, count, nd);
    }
    free(got);
  }
}

/* Config files built from known words: read back exactly (CRLF, tabs, quotes, comments), or
 * refused with one line when a NUL, a lone CR, an open quote or an overlong word is put in. */
static void fuzz_configs(int n, const char *path) {
  static const char *const words[] = {"-n", "5", "--algo", "ring,nccl", "--sizes", "1K,1M",
                                      "a b", "x#y", "--gpus", "0,1", "-b", "8G"};
  for (int i = 0; i < n; i++) {
    char text[8192] = "", *want[64];
    int nw = 0, nlines = 1 + rand() % 6, flaw = rand() % 5 == 0 ? 1 + rand() % 4 : 0;
    size_t len = 0;
    for (int l = 0; l < nlines; l++) {
      int k = rand() % 4;
      for (int j = 0; j < k && nw < 64; j++) {
        const char *w = pick(words, 12);
        want[nw++] = (char *)w;
        /* spaces, '#' or nothing safe: quote the word */
        int q = strchr(w, ' ') || strchr(w, '#') || rand() % 5 == 0;
        len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s%s%s",
                                j ? (rand() % 2 ? " " : "\t") : "", q ? "\"" : "", w,
                                q ? "\"" : "");
      }
      if (rand() % 3 == 0) len += (size_t)snprintf(text + len, sizeof(text) - len, "  # note \"x");
      len += (size_t)snprintf(text + len, sizeof(text) - len, rand() % 2 ? "\r\n" : "\n");
    }
    if (flaw == 1) text[rand() % (len ? len : 1)] = 0; /* a NUL somewhere (len keeps it) */
    if (flaw == 2) len += (size_t)snprintf(text + len, sizeof(text) - len, "-o \"open\n");
    if (flaw == 3) len += (size_t)snprintf(text + len, sizeof(text) - len, "-n 3\r-b 1K\n");
    if (flaw == 4) {
      len += (size_t)snprintf(text + len, sizeof(text) - len, "--sizes ");
      memset(text + len, '1', 5000); /* the lines above take a few hundred bytes */
      len += 5000;
      text[len++] = '\n';
    }
    FILE *f = fopen(path, "wb");
    fwrite(text, 1, len, f);
    fclose(f);
    struct config_args a;
    begin_err();
    int rc = config_expand(path, "arbench", 0, NULL, &a);
    if (flaw == 1 && memchr(text, 0, len)) {
      CHECK_REFUSED(rc, "a NUL byte");
    } else if (flaw >= 2) {
      CHECK_REFUSED(rc, flaw == 2 ? "an open quote" : flaw == 3 ? "a lone CR" : "a 5000-byte word");
    } else if (nw == 0) {
      CHECK_REFUSED(rc, "no words");
    } else {
      int same = rc == 0 && a.argc == nw + 1;
      for (int j = 0; same && j < nw; j++) same = !strcmp(a.argv[j + 1], want[j]);
      CHECK(same, "config %d: rc %d, %d words, want %d", i, rc, rc ? -1 : a.argc - 1, nw);
    }
    if (rc == 0) config_free(&a);
  }
}

int main(void) {
  const char *seed = getenv("FUZZ_SEED");
  srand(seed ? (unsigned)atoi(seed) : 26u);
  char errpath[] = "/tmp/arbench-fuzz-errXXXXXX", cpath[] = "/tmp/arbench-fuzz-confXXXXXX";
  int efd = mkstemp(errpath), cfd = mkstemp(cpath);
  if (efd < 0 || cfd < 0 || dup2(efd, 2) < 0) return perror("mkstemp"), 1;
  close(cfd);
  fuzz_sizes(2000);
  fuzz_times(2000);
  fuzz_specs(1000);
  fuzz_repeats(500);
  fuzz_configs(1000, cpath);
  fuzz_forms(500);
  fuzz_delay_files(500, cpath);
  unlink(errpath);
  unlink(cpath);
  return TEST_DONE();
}
