/* Whole numbers from plain decimals, exactly (decimal.h). */
#include "decimal.h"

int ar_decimal_whole(const char *s, size_t len, int pow1024, uint64_t max, uint64_t *out,
                     const char **why) {
  const char *p = s, *e = s + len;
  int neg = p < e && *p == '-';
  if (p < e && (*p == '+' || *p == '-')) p++;
  const char *ib = p;
  while (p < e && *p >= '0' && *p <= '9') p++;
  const char *ie = p, *fb = p, *fe = p;
  if (p < e && *p == '.') {
    fb = ++p;
    while (p < e && *p >= '0' && *p <= '9') p++;
    fe = p;
  }
  if (p != e || (ie == ib && fe == fb)) return *why = "not a plain decimal number", -1;
  while (ib < ie && *ib == '0') ib++; /* leading zeros of the whole part, trailing of the rest */
  while (fe > fb && fe[-1] == '0') fe--;
  int f = (int)(fe - fb), shift = 10 * pow1024;
  /* F / 10^f x 2^shift is whole only when 5^f divides F and f <= shift (F ends in a digit
   * other than 0, so F / 5^f is odd) */
  if (f > shift) return *why = "not a whole number (more decimals than it can hold)", -1;
  if (ie - ib > 19) return *why = "out of range", -1;
  unsigned __int128 whole = 0, five = 1, q = 0, r = 0;
  for (const char *d = ib; d < ie; d++) whole = whole * 10 + (unsigned)(*d - '0');
  for (int i = 0; i < f; i++) five *= 5;
  for (const char *d = fb; d < fe; d++) { /* long division of the fraction's digits by 5^f */
    r = r * 10 + (unsigned)(*d - '0');
    q = q * 10 + r / five;
    r %= five;
  }
  if (r) return *why = "not a whole number (more decimals than it can hold)", -1;
  unsigned __int128 v = (whole << shift) + (q << (shift - f));
  if (neg && v) return *why = "negative", -1;
  if (v > max) return *why = "out of range", -1;
  *out = (uint64_t)v;
  return 0;
}
