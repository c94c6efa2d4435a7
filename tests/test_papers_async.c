/* The model against AsyncAllReduce's own figures (issue #24): the mini-batch trend (more
 * mini-batches, less time; +31.6% over the NCCL-style ring) and its abstract's asynchronous
 * copies (ce) against send/receive (nccl-p2p) for large inputs. Each line prints the paper's
 * figure beside the model's and holds the model to the paper's words (tests/claims.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "claims.h"
#include "model.h"
#include "papers_price.h"
#include "test.h"

/* ---- AsyncAllReduce: 4 A100s on NVLink, 25 GB/s a direction; sums at ~500 GB/s (HBM:
 * read two, write one) ---- */

static void test_async(void) {
  struct ar_params q;
  struct model_net net;
  struct model_price ring, as;
  struct model_hw hw = {.alpha_us = 10, .beta = 1e6 / 25e9, .gamma = 1e6 / 500e9};
  ar_params_init(&q, 4);
  model_net_init(&net, MODEL_SWITCH, &q);
  if (!price("ring", &q, &net, &ring) || !price("async-ring", &q, &net, &as)) return;
  double bytes = 8.0 * (1 << 30), last = INFINITY, tr = time_of(&ring, &hw, bytes);
  /* docs/papers.md's times for 1 .. 64 mini-batches */
  static const char *const t_doc[] = {"528341", "521899", "518677", "517067",
                                      "516261", "515859", "515657"};
  for (int k = 1, i = 0; k <= 64; k *= 2, i++) {
    as.minibatches = k;
    double t = time_of(&as, &hw, bytes);
    printf("AsyncAllReduce 4 GPUs 8GiB: %2d mini-batches: %.0f us (ring %.0f)\n", k, t, tr);
    shown("AsyncAllReduce 4 GPUs 8GiB: us", t, t_doc[i]);
    CHECK(k == 1 ? fabs(t - tr) < 1e-6 * tr : t < last, "K=%d: %g after %g", k, t, last);
    last = t;
  }
  as.minibatches = 8;
  /* docs: only the reduce-scatter's sums can hide, gamma/beta = 0.05 of its copies */
  double g = 25.0 / 500, c = 3 * (1 + g) + 3, a = 3 * ((1 + g) / 8 + 7.0 / 8) + 3;
  figure("AsyncAllReduce: throughput over the NCCL-style ring (+31.6%)", 1.316,
         tr / time_of(&as, &hw, bytes), c / a);
  shown("AsyncAllReduce: throughput over the NCCL-style ring", tr / time_of(&as, &hw, bytes),
        "1.022");
}

/* AsyncAllReduce's abstract: replacing send/recv (nccl-p2p) with asynchronous copies (ce)
 * raises a ring's throughput for large inputs. Priced with each transport's fitted figures on
 * 4 x H200 (src/model.c): a copy-engine round costs more (alpha) but moves bytes faster, so
 * the copies win once a step carries more than about 18 MB (docs/papers.md). */
static void test_async_transports(void) {
  struct ar_params q;
  struct model_net net;
  struct model_price ring;
  struct model_hw ce = {0}, p2p = {0};
  ar_params_init(&q, 4);
  model_net_init(&net, MODEL_SWITCH, &q);
  if (!price("ring", &q, &net, &ring)) return;
  model_transport_hw(model_transport_find("ce"), &ce);
  model_transport_hw(model_transport_find("nccl-p2p"), &p2p);
  double big = 8.0 * (1 << 30), small = 1 << 20;
  claim("AsyncAllReduce abstract: ring 4 GPUs 8GiB, async copies (ce) / send-recv throughput",
        AT_LEAST, 1.0, time_of(&ring, &p2p, big) / time_of(&ring, &ce, big), -1);
  double step = (ce.alpha_us - p2p.alpha_us) / (p2p.beta - ce.beta); /* equal cost, bytes */
  printf("AsyncAllReduce: a ce step costs less than a nccl-p2p step above %.1f MB; "
         "1 MiB ring: ce %.0f us, nccl-p2p %.0f us\n", step / 1e6, time_of(&ring, &ce, small),
         time_of(&ring, &p2p, small));
  CHECK(step > 0 && time_of(&ring, &ce, small) > time_of(&ring, &p2p, small),
        "1 MiB: the copy engine's larger per-round cost should show (%g MB)", step / 1e6);
  shown("AsyncAllReduce: ring 4 GPUs 8GiB, ce / nccl-p2p throughput",
        time_of(&ring, &p2p, big) / time_of(&ring, &ce, big), "1.257");
  shown("AsyncAllReduce: a ce step cheaper above (MB)", step / 1e6, "18.4");
  shown("AsyncAllReduce: ring 4 GPUs 1MiB on ce (us)", time_of(&ring, &ce, small), "170");
  shown("AsyncAllReduce: ring 4 GPUs 1MiB on nccl-p2p (us)", time_of(&ring, &p2p, small), "77");
}

int main(void) {
  test_async();
  test_async_transports();
  return TEST_DONE();
}
