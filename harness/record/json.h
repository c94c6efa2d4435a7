/* A small JSON reader: a whole document in memory into a tree of values (json.c), with the
 * line of the first error; enough for the files arbench reads (nccl-tests' -J output). */
#ifndef HX_JSON_H
#define HX_JSON_H

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };
struct jv {
  int type;
  double num;
  char *str;       /* J_STR */
  char *key;       /* an object's member */
  struct jv *kids; /* J_ARR, J_OBJ */
  int n;
};

struct jp {
  const char *s, *p, *file;
  const char *err;
};

int jp_line(const struct jp *j);
void jv_free(struct jv *v);
int jvalue(struct jp *j, struct jv *v, int depth);
const struct jv *jget(const struct jv *o, const char *key);
double jnum(const struct jv *o, const char *key, double dflt);
const char *jstr(const struct jv *o, const char *key);
void jp_ws(struct jp *j);

#endif
