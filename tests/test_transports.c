/* The transport table (src/transports.h): every entry whole (an id that is its index, a name,
 * a lowering, a capability set, the dry run's figures, and a reason for each capability it
 * lacks, none for one it has), and its names exactly the ones `--transport` accepts, in the
 * table's order for `all`. The options parser is compiled in (as tests/test_harness.c does). */
#include <fcntl.h>
#include <unistd.h>

#include "test.h"

#include "plan/options.c"
#include "plan/critical.c"
#include "plan/sweep.c"

/* The capabilities in words, for the messages. */
static const char *const cap_name[AR_TP_NCAPS] = {"co-located", "across processes",
                                                  "across hosts", "degraded links",
                                                  "NCCL registration", "graph timing co-located"};

static void test_table(void) {
  unsigned all = (1u << AR_TP_NCAPS) - 1;
  for (int i = 0; i < AR_NTRANSPORTS; i++) {
    const struct ar_transport *t = ar_transport_at(i);
    CHECK(t != NULL, "no entry %d", i);
    if (!t) continue;
    const char *name = t->name ? t->name : "(no name)";
    CHECK(t->id == i, "%s: id %d at index %d", name, t->id, i);
    CHECK(t->name && t->name[0], "entry %d has no name", i);
    for (int j = 0; j < i && t->name; j++)
      CHECK(!ar_transport_at(j)->name || strcmp(ar_transport_at(j)->name, t->name),
            "%s named twice", t->name);
    CHECK(t->lowering >= AR_LOWER_NONE && t->lowering <= AR_LOWER_LL, "%s: lowering %d", name,
          t->lowering);
    CHECK(t->caps != 0 && !(t->caps & ~all), "%s: capability set %#x", name, t->caps);
    CHECK(t->alpha_us > 0 && t->bytes_per_s > 0, "%s: the dry run's figures %g us %g B/s", name,
          t->alpha_us, t->bytes_per_s);
    for (int c = 0; c < AR_TP_NCAPS; c++) {
      if (AR_TP_CAN(t, c))
        CHECK(!t->na[c], "%s can run %s but says why not: %s", name, cap_name[c], t->na[c]);
      else
        CHECK(t->na[c] && t->na[c][0], "%s cannot run %s and does not say why", name,
              cap_name[c]);
    }
    CHECK(ar_transport_find(name) == t, "%s: not found by its name", name);
  }
  CHECK(ar_transport_at(-1) == NULL && ar_transport_at(AR_NTRANSPORTS) == NULL, "out of range");
  /* the executors: every transport, then NCCL's own AllReduce, which no --transport names */
  for (int i = 0; i < AR_NTRANSPORTS; i++)
    CHECK(ar_executor_at(i) == ar_transport_at(i), "executor %d is transport %d", i, i);
  const struct ar_transport *nc = ar_executor_nccl();
  CHECK(nc && nc->id == AR_EX_NCCL && !strcmp(nc->name, "nccl") && nc->lowering == AR_LOWER_NONE &&
            !ar_transport_find("nccl") && ar_executor_at(AR_NEXECUTORS) == NULL,
        "nccl's executor");
  CHECK(!AR_TP_CAN(nc, AR_TP_COLOCATED) && nc->na[AR_TP_COLOCATED] && AR_TP_CAN(nc, AR_TP_HOSTS) &&
            !AR_TP_CAN(nc, AR_TP_DEGRADE) && nc->na[AR_TP_DEGRADE],
        "nccl's executor: no co-located ranks, several hosts, no degraded links");
  CHECK(ar_transport_find("nccl") == NULL, "nccl is an algorithm, not a transport");
}

/* run_opts_parse on line, its messages hidden; 0 or -1. */
static int parse_quiet(struct run_opts *o, const char *line) {
  char buf[512], *argv[16];
  int argc = test_argv(line, buf, sizeof(buf), argv, 16);
  fflush(stderr);
  int saved = dup(2), null = open("/dev/null", O_WRONLY);
  dup2(null, 2);
  close(null);
  run_opts_free(o);
  int rc = run_opts_parse(argc, argv, o);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  return rc;
}

static void test_option(void) {
  struct run_opts o;
  memset(&o, 0, sizeof(o));
  char line[128];
  for (int i = 0; i < AR_NTRANSPORTS; i++) {
    const char *name = ar_transport_at(i)->name;
    snprintf(line, sizeof(line), "--transport %s", name);
    CHECK(parse_quiet(&o, line) == 0 && o.ntransports == 1 && o.transports[0] == ar_transport_at(i),
          "--transport %s not accepted as itself", name);
  }
  CHECK_INT(parse_quiet(&o, "--transport all"), ==, 0);
  CHECK_INT(o.ntransports, ==, AR_NTRANSPORTS);
  for (int i = 0; i < o.ntransports && i < AR_NTRANSPORTS; i++)
    CHECK(o.transports[i] == ar_transport_at(i), "--transport all: entry %d", i);
  static const char *const not_ones[] = {"nccl", "llk", "CE", "sm-oneshot", ""};
  for (size_t i = 0; i < sizeof(not_ones) / sizeof(not_ones[0]); i++) {
    snprintf(line, sizeof(line), "--transport %s,ce", not_ones[i]);
    CHECK(parse_quiet(&o, line) != 0, "--transport %s accepted", not_ones[i]);
  }
  run_opts_free(&o);
}

int main(void) {
  test_table();
  test_option();
  return TEST_DONE();
}
