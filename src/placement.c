/* Where ranks run (placement.h). */
#include "placement.h"

#include <stdio.h>
#include <string.h>

void ar_place(struct ar_placement *p, const int *dev, int n) {
  memset(p, 0, sizeof(*p));
  if (n < 0) n = 0;
  if (n > AR_PLACE_MAX) n = AR_PLACE_MAX;
  p->n = n;
  for (int r = 0; r < n; r++) {
    p->dev[r] = dev[r];
    int first = 1;
    for (int q = 0; q < r; q++)
      if (dev[q] == dev[r]) {
        p->slot[r]++;
        first = 0;
      }
    p->ndev += first;
  }
  for (int r = 0; r < n; r++)
    for (int q = 0; q < n; q++) p->share[r] += dev[q] == dev[r];
  p->min_share = n ? p->share[0] : 0;
  p->max_share = p->min_share;
  for (int r = 1; r < n; r++) {
    if (p->share[r] < p->min_share) p->min_share = p->share[r];
    if (p->share[r] > p->max_share) p->max_share = p->share[r];
  }
}

void ar_place_round_robin(struct ar_placement *p, const int *gpus, int ngpus, int n) {
  int dev[AR_PLACE_MAX];
  if (n > AR_PLACE_MAX) n = AR_PLACE_MAX;
  for (int r = 0; r < n; r++) dev[r] = ngpus > 0 ? gpus[r % ngpus] : 0;
  ar_place(p, dev, n);
}

int ar_place_colocated(const struct ar_placement *p) { return p->max_share > 1; }

void ar_place_hosts(struct ar_placement *p, int nhosts, int machines) {
  p->nhosts = nhosts;
  p->machines = machines;
}

char *ar_place_text(const struct ar_placement *p, char *buf, size_t len) {
  char hosts[64] = ""; /* no comma: the text is a CSV field that awk-style readers split */
  if (p->nhosts > 1 && p->machines == 1)
    snprintf(hosts, sizeof(hosts), " on %d hosts (rehearsed on one)", p->nhosts);
  else if (p->nhosts > 1 && p->machines > 1)
    snprintf(hosts, sizeof(hosts), " on %d hosts (rehearsed on %d)", p->nhosts, p->machines);
  else if (p->nhosts > 1)
    snprintf(hosts, sizeof(hosts), " on %d hosts", p->nhosts);
  if (p->min_share == p->max_share)
    snprintf(buf, len, "%d rank%s/GPU%s", p->max_share, p->max_share == 1 ? "" : "s", hosts);
  else
    snprintf(buf, len, "%d-%d ranks/GPU%s", p->min_share, p->max_share, hosts);
  return buf;
}

/* Appends the ranks of device d to buf at *k, a run of three or more as "a-b". */
static void ranks_of(const struct ar_placement *p, int d, char *buf, size_t len, size_t *k) {
  int list[AR_PLACE_MAX], m = 0;
  for (int r = 0; r < p->n; r++)
    if (p->dev[r] == d) list[m++] = r;
  for (int i = 0; i < m;) {
    int j = i;
    while (j + 1 < m && list[j + 1] == list[j] + 1) j++;
    if (j - i < 2) j = i; /* two in a row read better as "0,1" */
    if (*k < len) {
      if (j > i) *k += (size_t)snprintf(buf + *k, len - *k, "%s%d-%d", i ? "," : "", list[i], list[j]);
      else *k += (size_t)snprintf(buf + *k, len - *k, "%s%d", i ? "," : "", list[i]);
    }
    i = j + 1;
  }
}

char *ar_place_detail(const struct ar_placement *p, char *buf, size_t len) {
  size_t k = 0;
  if (len) buf[0] = 0;
  for (int r = 0; r < p->n; r++) {
    if (p->slot[r]) continue; /* each device once, at its first rank */
    int d = p->dev[r];
    if (k < len)
      k += (size_t)snprintf(buf + k, len - k, "%sGPU %d: rank%s ", k ? "; " : "", d,
                            p->share[r] > 1 ? "s" : "");
    ranks_of(p, d, buf, len, &k);
  }
  return buf;
}

int ar_place_sms(const struct ar_placement *p, int r, int sms) {
  int share = r >= 0 && r < p->n && p->share[r] > 0 ? p->share[r] : 1;
  int v = sms / share;
  return v < 1 ? 1 : v;
}
