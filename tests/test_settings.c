/* The declared settings (src/settings.h): every default parses and lies in its range, values
 * are read exactly (plain decimals: no hexadecimal, no leading blanks) or refused naming --set
 * and the user's words, the text of results.csv's settings column, and the retired
 * environment variables are only warned about. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"
#include "test.h"

/* ar_settings_parse with stderr hidden; returns its result. */
static int parse_quiet(struct ar_settings *s, const char *assign) {
  fflush(stderr);
  FILE *saved = stderr;
  stderr = fopen("/dev/null", "w");
  int rc = ar_settings_parse(s, assign, NULL);
  fclose(stderr);
  stderr = saved;
  return rc;
}

int main(void) {
  const struct ar_setting *t = ar_settings_table();
  struct ar_settings s;
  memset(&s, 0, sizeof(s));
  char buf[512];
  /* every declaration: a unique name, a doc, a retired variable, a default that parses */
  for (int i = 0; i < AR_SET_COUNT; i++) {
    CHECK(t[i].name && t[i].doc && t[i].def, "setting %d declared", i);
    for (int j = 0; j < i; j++) CHECK(strcmp(t[i].name, t[j].name), "%s twice", t[i].name);
    snprintf(buf, sizeof(buf), "%s=%s", t[i].name, t[i].def);
    struct ar_settings d;
    memset(&d, 0, sizeof(d));
    CHECK_INT(parse_quiet(&d, buf), ==, 0);
    CHECK(ar_setting_value(&d, i) == ar_setting_value(NULL, i), "%s default", t[i].name);
  }
  /* the defaults are the figures the lowering had built in */
  CHECK(ar_setting_value(NULL, AR_SET_CE_RING_BATCH) == 256.0 * (1 << 20), "ring batch");
  CHECK(ar_setting_value(NULL, AR_SET_CE_FLOW_BATCH) == 128.0 * (1 << 20), "flow batch");
  CHECK(ar_setting_value(NULL, AR_SET_CE_DIRECT_BATCH) == 1024.0 * (1 << 20), "direct batch");
  CHECK(ar_setting_value(NULL, AR_SET_CE_FLOW_SUM_BLOCKS) == 64, "flow sum blocks");
  CHECK(ar_setting_value(NULL, AR_SET_CE_SUM_WAIT) == 1, "sum wait");
  CHECK_STR(ar_settings_text(&s, buf, sizeof(buf)), "");
  /* good values, read exactly */
  CHECK_INT(parse_quiet(&s, "ce.flow_batch=8M"), ==, 0);
  CHECK_INT(parse_quiet(&s, "ce.program=round"), ==, 0);
  CHECK_INT(parse_quiet(&s, "flags=kernel"), ==, 0);
  CHECK(ar_setting_value(&s, AR_SET_CE_FLOW_BATCH) == 8.0 * (1 << 20), "8M");
  CHECK(ar_setting_value(&s, AR_SET_CE_PROGRAM) == 1, "round is 1");
  CHECK(ar_setting_value(&s, AR_SET_FLAGS) == 2, "kernel is 2");
  CHECK_STR(ar_settings_text(&s, buf, sizeof(buf)), "ce.program=round;ce.flow_batch=8388608;flags=kernel");
  /* decimals in every plain form still read */
  struct ar_settings g;
  memset(&g, 0, sizeof(g));
  CHECK(parse_quiet(&g, "ce.ring_streams=+2") == 0 && ar_setting_value(&g, AR_SET_CE_RING_STREAMS) == 2 &&
            parse_quiet(&g, "ce.flow_batch=0.5M") == 0 &&
            ar_setting_value(&g, AR_SET_CE_FLOW_BATCH) == 512 * 1024, "plain decimals");
  /* exact decimals: trailing zeros and halves of a binary unit are whole numbers */
  CHECK(parse_quiet(&g, "ce.ring_streams=2.000") == 0 && ar_setting_value(&g, AR_SET_CE_RING_STREAMS) == 2 &&
            parse_quiet(&g, "degrade.network_bw=999999999999") == 0 &&
            ar_setting_value(&g, AR_SET_DEGRADE_NETWORK_BW) == 999999999999.0 &&
            parse_quiet(&g, "ce.flow_batch=64.3K") == -1 && parse_quiet(&g, "ce.flow_batch=64.5K") == 0 &&
            ar_setting_value(&g, AR_SET_CE_FLOW_BATCH) == 66048, "exact decimals");
  /* stats.ci_target is a fraction (off by default), stats.max_iters a count */
  struct ar_settings st;
  memset(&st, 0, sizeof(st));
  CHECK(ar_setting_value(NULL, AR_SET_STATS_CI_TARGET) == 0 &&
            ar_setting_value(NULL, AR_SET_STATS_MAX_ITERS) == 1000, "stats defaults");
  CHECK(parse_quiet(&st, "stats.ci_target=0.01") == 0 &&
            parse_quiet(&st, "stats.max_iters=250") == 0 &&
            ar_setting_value(&st, AR_SET_STATS_CI_TARGET) == 0.01 &&
            ar_setting_value(&st, AR_SET_STATS_MAX_ITERS) == 250, "stats values");
  CHECK_STR(ar_settings_text(&st, buf, sizeof(buf)), "stats.ci_target=0.01;stats.max_iters=250");
  CHECK(parse_quiet(&st, "stats.ci_target=.5") == 0 &&
            ar_setting_value(&st, AR_SET_STATS_CI_TARGET) == 0.5,
        "a plain decimal without its 0");
  /* a setting named after what it tunes: its old name still read, as the new one */
  struct ar_settings rn;
  memset(&rn, 0, sizeof(rn));
  CHECK(parse_quiet(&rn, "sm.ll_max_bytes=4096") == 0 &&
            ar_setting_value(&rn, AR_SET_SM_ONESHOT_MAX_BYTES) == 4096,
        "sm.ll_max_bytes read as sm.oneshot_max_bytes");
  CHECK_STR(ar_settings_text(&rn, buf, sizeof(buf)), "sm.oneshot_max_bytes=4096");
  CHECK(parse_quiet(&rn, "sm.oneshot_max=1") == -1, "a prefix of a name is no name");
  /* applied: what the process reads */
  ar_settings_apply(&s);
  CHECK(ar_setting(AR_SET_CE_PROGRAM) == 1 && ar_setting(AR_SET_CE_RING_STREAMS) == 1, "applied");
  ar_settings_apply(NULL);
  CHECK(ar_setting(AR_SET_CE_PROGRAM) == 0, "defaults again");
  /* bad values: refused, nothing changed */
  const char *bad[] = {"ce.flow_batch",       "=1",  "ce.bogus=1",          "ce.program=fast",
                       "ce.ring_streams=0",   "ce.ring_streams=5", "ce.ring_streams=1.5",
                       "ce.flow_batch=8X",    "ce.flow_batch=",    "ce.sum_wait=2",
                       "ce.flow_batch=-1M",   "flags=Kernel",      "ce.program=round,flow",
                       /* numbers are plain decimals: these were read as 1, 1, 8M and 1 */
                       "ce.sum_wait=0x1",     "ce.sum_wait= 1",    "ce.flow_batch=0x8M",
                       "ce.ring_streams=\t1", "ce.ring_streams=inf", "ce.ring_streams=nan",
                       /* more precision than a whole number holds: these were read as 1, 1,
                        * 1024 and 64M through a double (#45) */
                       "ce.ring_streams=1.00000000000000001", "ce.ring_streams=1e0",
                       "ce.flow_batch=64.0000000000000000001K", "ce.flow_batch=67108864.0000000001",
                       "ce.flow_batch=0.3K", "degrade.network_bw=1e12",
                       /* a fraction of 0..1 and a whole count of 1..100000 */
                       "stats.ci_target=-0.01", "stats.ci_target=1.01", "stats.ci_target=1%",
                       "stats.ci_target=0x1", "stats.ci_target=",
                       "stats.ci_target=nan", "stats.max_iters=0", "stats.max_iters=2.5",
                       "stats.max_iters=100001", "stats.max_iters=1K"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    struct ar_settings b = s;
    CHECK(parse_quiet(&b, bad[i]) == -1 && !memcmp(&b, &s, sizeof(b)), "'%s' accepted", bad[i]);
  }
  /* the retired variables: one warning each, nothing else */
  unsetenv("AR_CE_PROGRAM");
  unsetenv("AR_FLAGS");
  fflush(stderr);
  FILE *saved = stderr;
  stderr = fopen("/dev/null", "w");
  int none = ar_settings_retired();
  setenv("AR_CE_PROGRAM", "flow", 1);
  setenv("AR_FLAGS", "kernel", 1);
  int two = ar_settings_retired();
  fclose(stderr);
  stderr = saved;
  CHECK(none == 0 && two == 2, "retired warnings %d %d", none, two);
  CHECK(ar_setting(AR_SET_CE_PROGRAM) == 0, "an environment variable changed a setting");
  return TEST_DONE();
}
