/* wrap_take: one line's worth of a text, broken between words (cli/wrap.h). */
#include "cli/wrap.h"

#include <string.h>

const char *wrap_take(const char *text, int width, char *out, size_t len) {
  while (*text == ' ') text++;
  size_t n = strlen(text), w = width > 0 ? (size_t)width : 1;
  if (n > w) { /* the last blank at or before column width ends the head */
    size_t k = w;
    while (k > 0 && text[k] != ' ') k--;
    n = k ? k : w;
  }
  if (len && n >= len) n = len - 1;
  if (len) {
    memcpy(out, text, n);
    out[n] = '\0';
    while (n && out[n - 1] == ' ') out[--n] = '\0';
  }
  text += n;
  while (*text == ' ') text++;
  return text;
}
