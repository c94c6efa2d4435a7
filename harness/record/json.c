/* A small JSON reader (json.h). */
#include "record/json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int jp_line(const struct jp *j) {
  int ln = 1;
  for (const char *q = j->s; q < j->p; q++)
    ln += *q == '\n';
  return ln;
}

void jv_free(struct jv *v) {
  for (int i = 0; i < v->n; i++)
    jv_free(&v->kids[i]);
  free(v->kids);
  free(v->str);
  free(v->key);
}

void jp_ws(struct jp *j) {
  j->p += strspn(j->p, " \t\r\n");
}

static char *jstring(struct jp *j) {
  if (*j->p != '"') {
    j->err = "a string was expected";
    return NULL;
  }
  const char *q = ++j->p;
  size_t n = 0;
  char *out = malloc(strlen(q) + 1);
  if (!out) {
    j->err = "out of memory";
    return NULL;
  }
  for (; *q && *q != '"'; q++) {
    if (*q == '\\' && q[1]) {
      q++;
      char c = *q == 'n' ? '\n' : *q == 't' ? '\t' : *q;
      if (*q == 'u') {
        c = '?';
        q += strspn(q + 1, "0123456789abcdefABCDEF") >= 4 ? 4 : 0;
      }
      out[n++] = c;
    } else
      out[n++] = *q;
  }
  out[n] = 0;
  if (*q != '"') {
    free(out);
    j->p = q;
    j->err = "the text ends inside a string";
    return NULL;
  }
  j->p = q + 1;
  return out;
}

int jvalue(struct jp *j, struct jv *v, int depth) {
  memset(v, 0, sizeof(*v));
  jp_ws(j);
  if (depth > 32) {
    j->err = "nested too deep";
    return -1;
  }
  char c = *j->p;
  if (!c) {
    j->err = "the document ends early (cut off?)";
    return -1;
  }
  if (c == '"') {
    v->type = J_STR;
    return (v->str = jstring(j)) ? 0 : -1;
  }
  if (c == '{' || c == '[') {
    v->type = c == '{' ? J_OBJ : J_ARR;
    char close = c == '{' ? '}' : ']';
    j->p++;
    jp_ws(j);
    if (*j->p == close) {
      j->p++;
      return 0;
    }
    for (;;) {
      struct jv *k = realloc(v->kids, (size_t)(v->n + 1) * sizeof(*k));
      if (!k) {
        j->err = "out of memory";
        return -1;
      }
      v->kids = k;
      struct jv *e = &v->kids[v->n];
      char *key = NULL;
      if (v->type == J_OBJ) {
        jp_ws(j);
        if (!(key = jstring(j))) return -1;
        jp_ws(j);
        if (*j->p != ':') {
          free(key);
          j->err = "':' was expected";
          return -1;
        }
        j->p++;
      }
      int r = jvalue(j, e, depth + 1);
      e->key = key;
      v->n++;
      if (r) return -1;
      jp_ws(j);
      if (*j->p == ',') {
        j->p++;
        continue;
      }
      if (*j->p == close) {
        j->p++;
        return 0;
      }
      j->err =
          *j->p ? "',' or a closing bracket was expected" : "the document ends early (cut off?)";
      return -1;
    }
  }
  if (!strncmp(j->p, "null", 4)) {
    j->p += 4;
    v->type = J_NULL;
    return 0;
  }
  if (!strncmp(j->p, "true", 4)) {
    j->p += 4;
    v->type = J_BOOL;
    v->num = 1;
    return 0;
  }
  if (!strncmp(j->p, "false", 5)) {
    j->p += 5;
    v->type = J_BOOL;
    return 0;
  }
  /* a number as JSON writes one: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, finite */
  const char *q = j->p + (*j->p == '-');
  size_t k = strspn(q, "0123456789");
  if (!k || (*q == '0' && k > 1)) {
    j->err = k ? "a number with a leading zero" : "a value was expected";
    return -1;
  }
  q += k;
  if (*q == '.' && !(k = strspn(q + 1, "0123456789"))) {
    j->err = "a number with no digit after its point";
    return -1;
  }
  if (*q == '.') q += 1 + k;
  if (*q == 'e' || *q == 'E') {
    q += 1 + (q[1] == '+' || q[1] == '-');
    if (!(k = strspn(q, "0123456789"))) {
      j->err = "a number with no digit in its exponent";
      return -1;
    }
    q += k;
  }
  errno = 0;
  v->num = strtod(j->p, NULL);
  if (errno == ERANGE && fabs(v->num) > 1) {
    j->err = "a number beyond what a double holds";
    return -1;
  }
  v->type = J_NUM;
  j->p = q;
  return 0;
}

const struct jv *jget(const struct jv *o, const char *key) {
  for (int i = 0; o && o->type == J_OBJ && i < o->n; i++)
    if (!strcmp(o->kids[i].key, key)) return &o->kids[i];
  return NULL;
}
double jnum(const struct jv *o, const char *key, double dflt) {
  const struct jv *v = jget(o, key);
  return v && v->type == J_NUM ? v->num : dflt;
}
const char *jstr(const struct jv *o, const char *key) {
  const struct jv *v = jget(o, key);
  return v && v->type == J_STR ? v->str : "";
}
