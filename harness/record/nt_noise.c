/* The lines of a nccl-tests log that other programs wrote (nccl_tests.h): a log saved with
 * 2>&1, NCCL_DEBUG=INFO, under mpirun or srun holds NCCL's own log, ssh's and UCX's warnings,
 * mpirun's help messages and its --tag-output tags. Each such line is known by its shape,
 * counted by kind and said in one line; a result line is never taken for one. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "record/nccl_tests.h"

static const char *const kind_name[NT_NOISE_KINDS] = {
    "NCCL INFO", "NCCL WARN", "ssh", "UCX", "mpirun", "libfabric", "X11", "shell trace",
    "nccl-tests error", "comment", "other"};

/* Length of "[1,0]<stdout>:" (or <stderr>) at p, else 0. */
static size_t tag_at(const char *p) {
  const char *q = p;
  if (*q++ != '[' || !isdigit((unsigned char)*q)) return 0;
  while (isdigit((unsigned char)*q)) q++;
  if (*q++ != ',' || !isdigit((unsigned char)*q)) return 0;
  while (isdigit((unsigned char)*q)) q++;
  if (strncmp(q, "]<stdout>:", 10) && strncmp(q, "]<stderr>:", 10)) return 0;
  return (size_t)(q + 10 - p);
}

int nt_untag(char *line) {
  int n = 0;
  char *w = line;
  for (const char *r = line; *r;) {
    size_t k = tag_at(r);
    if (k) {
      r += k;
      n++;
    } else *w++ = *r++;
  }
  *w = 0;
  /* srun --label: "12: " before every line */
  char *p = line + strspn(line, " ");
  char *d = p;
  while (isdigit((unsigned char)*d)) d++;
  if (d > p && d[0] == ':' && d[1] == ' ') {
    memmove(line, d + 2, strlen(d + 2) + 1);
    n++;
  }
  return n;
}

void nt_add_host(struct nt_set *s, const char *host) {
  size_t k = strlen(host), used = strlen(s->hosts);
  if (!k || used + k + 2 > sizeof(s->hosts)) return;
  for (const char *p = s->hosts; (p = strstr(p, host)); p += k)
    if ((p == s->hosts || p[-1] == ' ') && (p[k] == ' ' || !p[k])) return;
  snprintf(s->hosts + used, sizeof(s->hosts) - used, "%s%s", used ? " " : "", host);
}

/* NCCL's own log line "host:pid:tid [dev] [file:line] NCCL INFO|WARN ..." (older NCCL: "INFO"
 * without "NCCL"): its level's kind, the host into host[len]; -1 when line is not one. */
static int nccl_line(const char *line, char *host, size_t len) {
  const char *p = line, *c1 = NULL, *c2 = NULL;
  for (; *p && *p != ' '; p++)
    if (*p == ':') c1 = c2, c2 = p;
  if (!c1 || c1 == line || p == c2 + 1 || strspn(c1 + 1, "0123456789") != (size_t)(c2 - c1 - 1) ||
      strspn(c2 + 1, "0123456789") != (size_t)(p - c2 - 1) || strncmp(p, " [", 2))
    return -1;
  const char *b = p + 2 + strspn(p + 2, "0123456789");
  if (b == p + 2 || strncmp(b, "] ", 2)) return -1;
  const char *lvl = strstr(b, "NCCL ");
  lvl = lvl ? lvl + 5 : b + 2;
  if (strncmp(lvl, "INFO", 4) && strncmp(lvl, "WARN", 4) && strncmp(lvl, "TRACE", 5) &&
      strncmp(lvl, "ERROR", 5) && strncmp(lvl, "ABORT", 5))
    return -1;
  snprintf(host, len, "%.*s", (int)(c1 - line), line);
  return !strncmp(lvl, "INFO", 4) || !strncmp(lvl, "TRACE", 5) ? NT_NCCL_INFO : NT_NCCL_WARN;
}

/* "[host:12345] ..." as mpirun's own lines start. */
static int mpirun_prefix(const char *p) {
  if (*p != '[') return 0;
  const char *e = strchr(p, ']'), *c = e ? memchr(p, ':', (size_t)(e - p)) : NULL;
  return c && c > p + 1 && e > c + 1 && strspn(c + 1, "0123456789") == (size_t)(e - c - 1) &&
         e[1] == ' ';
}

/* The kind of line, or -1 for a line no other program writes this way. */
static int kind_of(const char *p, char *host, size_t hlen) {
  int k = nccl_line(p, host, hlen);
  if (k >= 0) return k;
  if (!strncmp(p, "NCCL version ", 13)) return NT_NCCL_INFO;
  if (!strncmp(p, "Warning: Permanently added ", 27) || strstr(p, "to the list of known hosts") ||
      !strncmp(p, "ssh: ", 5))
    return NT_SSH;
  if (strstr(p, "UCX  WARN") || strstr(p, "UCX  ERROR") || strstr(p, "UCX  INFO") ||
      strstr(p, "UCX  DIAG") || strstr(p, "UCX WARN") || strstr(p, "UCX ERROR"))
    return NT_UCX;
  if (mpirun_prefix(p) || strstr(p, "sent help message") || strstr(p, "help_aggregate") ||
      (strlen(p) >= 10 && strspn(p, "-") == strlen(p)) ||
      ((!strncmp(p, "mpirun ", 7) || !strncmp(p, "prterun ", 8)) &&
       (strstr(p, "detected") || strstr(p, "noticed") || strstr(p, "was unable"))))
    return NT_MPIRUN;
  if (!strncmp(p, "libfabric:", 10)) return NT_LIBFABRIC;
  if (strstr(p, "Authorization required, but no authorization protocol specified"))
    return NT_X11;
  if (!strncmp(p, "+ ", 2)) return NT_SHELL;
  if (strstr(p, "Test NCCL failure") || strstr(p, "Test CUDA failure") ||
      strstr(p, "Test failure"))
    return NT_FAILURE;
  return -1;
}

int nt_noise_kind(const char *line) {
  char host[128];
  return kind_of(line, host, sizeof(host));
}

int nt_noise_line(struct nt_set *s, const char *line, int ln) {
  char host[128] = "";
  int k = kind_of(line, host, sizeof(host));
  if (k < 0) return 0;
  s->noise.n[k]++;
  s->noise.total++;
  if (host[0]) nt_add_host(s, host);
  const char *v = strstr(line, "NCCL version ");
  if (k == NT_NCCL_INFO && v) {
    v += 13;
    size_t n = strspn(v, "0123456789.");
    if (n) snprintf(s->nccl, sizeof(s->nccl), "%.*s", (int)n, v);
  }
  if (k == NT_FAILURE && !s->failure[0])
    snprintf(s->failure, sizeof(s->failure), "line %d: '%.140s'", ln, line);
  return 1;
}

/* 1 when the token [p, e) is one of hosts. */
static int known_host(const char *hosts, const char *p, const char *e) {
  size_t k = (size_t)(e - p);
  for (const char *h = hosts; k && *h;) {
    size_t n = strcspn(h, " ");
    if (n == k && !strncmp(h, p, k)) return 1;
    h += n + (h[n] == ' ');
  }
  return 0;
}

char *nt_glued_noise(char *line, const char *hosts) {
  for (char *b = strstr(line, "] "); b; b = strstr(b + 1, "] ")) {
    /* back from "[dev] " over ":tid", ":pid" and the host to the token's start */
    char *o = b;
    while (o > line && isdigit((unsigned char)o[-1])) o--;
    if (o == b || o == line || o[-1] != '[' || o - 1 == line || o[-2] != ' ') continue;
    char *c = o - 2, *t = c;
    while (t > line && isdigit((unsigned char)t[-1])) t--;
    if (t == c || t == line || t[-1] != ':') continue;
    char *c2 = t - 1, *t2 = c2;
    while (t2 > line && isdigit((unsigned char)t2[-1])) t2--;
    if (t2 == c2 || t2 == line || t2[-1] != ':') continue;
    char *hend = t2 - 1, *tok = hend;
    while (tok > line && tok[-1] != ' ' && tok[-1] != '\t') tok--;
    if (tok == hend) continue;
    char host[128];
    if (nccl_line(tok, host, sizeof(host)) < 0) continue;
    if (tok == line) return NULL; /* a whole NCCL line: not glued */
    /* the token is a row field, then the host: the longest known host that ends it */
    for (char *h = tok; h < hend; h++)
      if (known_host(hosts, h, hend)) return h;
    char *h = tok + (*tok == '-');
    h += strspn(h, "0123456789.");
    if (*h == 'e' && (h[1] == '+' || h[1] == '-')) h += 2 + strspn(h + 2, "0123456789");
    if (!strncmp(tok, "N/A", 3)) h = tok + 3;
    return h;
  }
  return NULL;
}

void nt_noise_said(const struct nt_noise *n, char *buf, size_t len) {
  buf[0] = 0;
  if (!n->total) return;
  size_t u = (size_t)snprintf(buf, len, "skipped %d line%s that %s not nccl-tests output:",
                              n->total, n->total == 1 ? "" : "s", n->total == 1 ? "is" : "are");
  int first = 1;
  for (int k = 0; k < NT_NOISE_KINDS && u < len; k++) {
    if (!n->n[k]) continue;
    u += (size_t)snprintf(buf + u, len - u, "%s %s %d", first ? "" : ",", kind_name[k], n->n[k]);
    first = 0;
  }
}
