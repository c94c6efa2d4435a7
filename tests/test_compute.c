/* --compute's words and sizing rule (src/compute.c): every kind parsed exactly, every bad value
 * refused with its reason, the load's text, and the fit that sizes a load to the AllReduce. */
#include <math.h>

#include "compute.h"
#include "test.h"

/* Parses text; returns 0 or -1, the reason in why. */
static int parse(const char *text, struct ar_compute *c, char *why) {
  return ar_compute_parse(text, c, why, 256);
}

int main(void) {
  struct ar_compute c, p, f;
  char why[256], buf[96];
  /* the kinds */
  CHECK_INT(parse("membw", &c, why), ==, 0);
  CHECK(c.kind == AR_COMPUTE_MEMBW && !c.fixed, "membw");
  CHECK_INT(parse("sm:8", &c, why), ==, 0);
  CHECK(c.kind == AR_COMPUTE_SM && c.sms == 8, "sm:8 -> %d", c.sms);
  CHECK_INT(parse("sm:1024", &c, why), ==, 0);
  CHECK_INT(parse("gemm", &c, why), ==, 0);
  CHECK(c.kind == AR_COMPUTE_GEMM && !c.fixed && !c.m, "gemm is sized per row");
  CHECK_STR(ar_compute_kind_text(&c, buf, sizeof(buf)), "gemm");
  CHECK_INT(parse("gemm:4096x2048x1024", &c, why), ==, 0);
  CHECK(c.fixed && c.m == 4096 && c.n == 2048 && c.k == 1024, "gemm:MxNxK");
  CHECK_STR(ar_compute_kind_text(&c, buf, sizeof(buf)), "gemm:4096x2048x1024");
  CHECK_STR(ar_compute_text(&c, buf, sizeof(buf)), "gemm:4096x2048x1024");
  /* bad values, each with its reason */
  static const struct {
    const char *text, *why;
  } bad[] = {{"", "empty; use membw"},
             {"gpu", "unknown load; use membw, sm:N"},
             {"membw:3", "membw takes no value"},
             {"sm", "sm needs the SMs to keep busy"},
             {"sm:", "sm needs"},
             {"sm:0", "from 1 to 1024"},
             {"sm:1025", "from 1 to 1024"},
             {"sm:+4", "sm needs"},
             {"sm: 4", "sm needs"},
             {"sm:4x", "sm needs"},
             {"sm:0x10", "sm needs"},
             {"gemm:", "gemm's shape is MxNxK"},
             {"gemm:4096", "gemm's shape is MxNxK"},
             {"gemm:1x2", "gemm's shape is MxNxK"},
             {"gemm:1x2x3x4", "gemm's shape is MxNxK"},
             {"gemm:0x8x8", "gemm's shape is MxNxK"},
             {"gemm:65537x8x8", "gemm's shape is MxNxK"},
             {"gemm:8x-8x8", "gemm's shape is MxNxK"},
             {"gemm:65536x65536x65536", "at most 8 GiB"},
             {"GEMM", "unknown load"}};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    int rc = parse(bad[i].text, &c, why);
    CHECK(rc == -1 && strstr(why, bad[i].why), "'%s' -> %d '%s', want '%s'", bad[i].text, rc, why,
          bad[i].why);
  }
  /* the probes */
  parse("gemm", &c, why);
  ar_compute_probe(&c, &p);
  CHECK(p.m == 2048 && p.n == 2048 && p.k == 2048, "gemm's probe");
  CHECK(fabs(ar_compute_work(&p) - 2.0 * 2048 * 2048 * 2048) < 1, "a GEMM's work: 2mnk");
  /* a probe of 100 us, a target of 800: 8 x the flops, twice each side (4096), a multiple of 128 */
  ar_compute_fit(&p, 100, 800, &f);
  CHECK(f.m == 4096 && f.n == 4096 && f.k == 4096, "gemm fit %d", f.m);
  CHECK_STR(ar_compute_text(&f, buf, sizeof(buf)), "gemm:4096x4096x4096");
  ar_compute_fit(&p, 100, 100 * 1.3, &f); /* cbrt(1.3) x 2048 = 2235: 2176 is the nearest */
  CHECK(f.m == 2176, "gemm rounds to the nearest 128: %d", f.m);
  ar_compute_fit(&p, 100, 1e-3, &f);
  CHECK(f.m == 128, "gemm's smallest: %d", f.m);
  ar_compute_fit(&p, 100, 1e9, &f);
  CHECK(f.m == 16384, "gemm's largest: %d", f.m);
  ar_compute_fit(&p, 0, 100, &f);
  CHECK(f.m == 128, "no probe time: the smallest, %d", f.m);
  parse("gemm:512x512x512", &c, why);
  ar_compute_probe(&c, &p);
  ar_compute_fit(&p, 10, 1000, &f);
  CHECK(f.m == 512 && f.fixed, "a given GEMM is never sized");
  parse("membw", &c, why);
  ar_compute_probe(&c, &p);
  CHECK(p.bytes == 64ull << 20 && p.passes == 1, "membw's probe");
  ar_compute_fit(&p, 100, 50, &f); /* half of 128 MiB moved: 32 MiB buffers, one pass */
  CHECK(f.bytes == 32ull << 20 && f.passes == 1, "membw fit %llu x %d", (unsigned long long)f.bytes,
        f.passes);
  ar_compute_fit(&p, 100, 1000, &f); /* 1280 MiB moved: 256 MiB buffers, 2.5 -> 3 passes */
  CHECK(f.bytes == 256ull << 20 && f.passes == 3, "membw fit %llu x %d",
        (unsigned long long)f.bytes, f.passes);
  CHECK_STR(ar_compute_text(&f, buf, sizeof(buf)), "membw:268435456x3");
  ar_compute_fit(&p, 100, 0.001, &f);
  CHECK(f.bytes == 1ull << 20 && f.passes == 1, "membw's smallest");
  parse("sm:16", &c, why);
  ar_compute_probe(&c, &p);
  CHECK(p.sms == 16 && p.steps == 4096, "sm's probe");
  ar_compute_fit(&p, 200, 50, &f);
  CHECK(f.sms == 16 && f.steps == 1024, "sm fit %llu", (unsigned long long)f.steps);
  CHECK_STR(ar_compute_text(&f, buf, sizeof(buf)), "sm:16x1024");
  ar_compute_fit(&p, 200, 0, &f);
  CHECK(f.steps == 16, "sm's smallest");
  memset(&c, 0, sizeof(c));
  CHECK_STR(ar_compute_text(&c, buf, sizeof(buf)), "");
  CHECK_STR(ar_compute_kind_text(&c, buf, sizeof(buf)), "");
  return TEST_DONE();
}
