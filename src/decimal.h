/* Whole numbers written as plain decimals, read exactly: the settings (--set) and the sizes of
 * every subcommand. A double would round "1.00000000000000001" to 1 and take "0x10", " 1" and
 * "1e3"; here a value is the number its digits say, or it is refused. */
#ifndef AR_DECIMAL_H
#define AR_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reads s[0..len): [+]DIGITS[.DIGITS] (or .DIGITS) times 1024^pow1024 (a binary unit the caller
 * read: K 1, M 2, G 3, T 4), exactly. Returns 0 with *out, or -1 with *why: not a plain decimal,
 * negative, not a whole number (more decimals than the unit leaves whole: 0.3K), above max. */
int ar_decimal_whole(const char *s, size_t len, int pow1024, uint64_t max, uint64_t *out,
                     const char **why);

#ifdef __cplusplus
}
#endif
#endif
