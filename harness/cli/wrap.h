/* Text that fits a terminal: arbench's tables and lists stay within WRAP_COLUMNS, a long field
 * continuing on the lines under it. */
#ifndef CLI_WRAP_H
#define CLI_WRAP_H

#include <stddef.h>

#define WRAP_COLUMNS 100

/* Copies into out (len bytes) the longest head of text that fits width columns, broken at a
 * blank where there is one (a word longer than width is cut); returns the rest of text, past
 * the blanks after the head ("" when all of it was taken). */
const char *wrap_take(const char *text, int width, char *out, size_t len);

#endif
