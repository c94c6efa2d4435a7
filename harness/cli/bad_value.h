/* Bad input on the command line or in a file it names: one line naming the flag and the
 * user's own value (bad_value.c); the callers exit with status 2. */
#ifndef HX_BAD_VALUE_H
#define HX_BAD_VALUE_H

/* Prints "arbench: FLAG: bad value 'VALUE': WHY" to stderr (control bytes of VALUE escaped:
 * always one line); returns -1. */
int args_bad(const char *flag, const char *value, const char *why);

#endif
