/* The one line that refuses a bad value (bad_value.h). */
#include "cli/bad_value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int args_bad(const char *flag, const char *value, const char *why) {
  /* the value as typed, its control bytes escaped: a newline in it must not make two lines */
  const unsigned char *v = (const unsigned char *)(value ? value : "");
  char *shown = malloc(4 * strlen((const char *)v) + 1);
  size_t k = 0;
  for (; shown && *v; v++) {
    const char *esc = *v == '\n' ? "\\n" : *v == '\r' ? "\\r" : *v == '\t' ? "\\t" : NULL;
    if (esc) k += (size_t)sprintf(shown + k, "%s", esc);
    else if (*v < 0x20 || *v == 0x7f) k += (size_t)sprintf(shown + k, "\\x%02x", *v);
    else shown[k++] = (char)*v;
  }
  if (shown) shown[k] = 0;
  fprintf(stderr, "arbench: %s: bad value '%s': %s\n", flag, shown ? shown : "", why);
  free(shown);
  return -1;
}
