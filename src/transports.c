/* The transport table (transports.h). The figures: `arbench model --calibrate
 * runs/reference/h200x4-nightly` (every algorithm's rows of a transport, 1 KiB..8 GiB on
 * 4 x H200; about 25% rms per row); ll from `arbench model --calibrate
 * runs/reference/h200x4-issue27-ll/best` (7 algorithms, 1 KiB..8 GiB; 30% rms). The cost per
 * message (msg_us) is 0 for each: the nightly run's pooled fits put none on messages (alpha
 * alone fits as well); the ll run's fits 2.5 us a message with alpha 0 (22% rms), which the
 * table does not take while the dry run's estimate (harness/plan) prices no messages. */
#include "transports.h"

#include <stdio.h>
#include <string.h>

#define CAP(c) (1u << (c))
/* what the transports that reach peers through CUDA IPC cannot do */
#define IPC_HOSTS "reaches other GPUs' memory within one host only (CUDA IPC)"

static const struct ar_transport table[AR_NEXECUTORS] = {
    [AR_TP_NCCL_P2P] =
        {.id = AR_TP_NCCL_P2P, .name = "nccl-p2p", .lowering = AR_LOWER_NONE,
         .caps = CAP(AR_TP_PROCESSES) | CAP(AR_TP_HOSTS) | CAP(AR_TP_DEGRADE) |
                 CAP(AR_TP_GRAPH_COLOCATED),
         .alpha_us = 11.8, .bytes_per_s = 242e9,
         .na = {[AR_TP_COLOCATED] = "NCCL cannot run two ranks on one GPU",
                [AR_TP_NCCL_REG] = "ncclSend/ncclRecv on the registered data buffer take NCCL's "
                                   "zero-copy path, which summed wrong and hung from 16 MiB up "
                                   "(NCCL 2.28.3, 2 x H200: runs/reference/h200x2-nccl-modes)"}},
    [AR_TP_CE] =
        {.id = AR_TP_CE, .name = "ce", .lowering = AR_LOWER_CE, .pipelines = 1,
         .caps = CAP(AR_TP_COLOCATED) | CAP(AR_TP_PROCESSES) | CAP(AR_TP_DEGRADE) |
                 CAP(AR_TP_NCCL_REG),
         .alpha_us = 27.5, .bytes_per_s = 305e9,
         .na = {[AR_TP_HOSTS] = IPC_HOSTS,
                [AR_TP_GRAPH_COLOCATED] = "ce's captured stream waits can hold back another "
                                          "rank's graph on that GPU (async-ring/ce never "
                                          "finished so on an H200)"}},
    [AR_TP_SM] =
        {.id = AR_TP_SM, .name = "sm", .lowering = AR_LOWER_SM,
         .caps = CAP(AR_TP_COLOCATED) | CAP(AR_TP_PROCESSES) | CAP(AR_TP_DEGRADE) |
                 CAP(AR_TP_NCCL_REG) | CAP(AR_TP_GRAPH_COLOCATED),
         .alpha_us = 12.5, .bytes_per_s = 303e9,
         .na = {[AR_TP_HOSTS] = IPC_HOSTS}},
    [AR_TP_LL] =
        {.id = AR_TP_LL, .name = "ll", .lowering = AR_LOWER_LL,
         .caps = CAP(AR_TP_COLOCATED) | CAP(AR_TP_PROCESSES) | CAP(AR_TP_NCCL_REG) |
                 CAP(AR_TP_GRAPH_COLOCATED),
         .alpha_us = 3.2, .bytes_per_s = 271e9,
         .na = {[AR_TP_HOSTS] = IPC_HOSTS,
                [AR_TP_DEGRADE] = "no degraded-link emulation on this transport (ce, sm and "
                                  "nccl-p2p have one)"}},
    /* NCCL's own AllReduce; its figures from nccl-tests on runs/reference/h200x4-nightly's
     * 4 x H200 (10 us at 1 KiB, 365 GB/s bus bandwidth at 8 GiB) */
    [AR_EX_NCCL] =
        {.id = AR_EX_NCCL, .name = "nccl", .lowering = AR_LOWER_NONE,
         .caps = CAP(AR_TP_PROCESSES) | CAP(AR_TP_HOSTS) | CAP(AR_TP_NCCL_REG) |
                 CAP(AR_TP_GRAPH_COLOCATED),
         .alpha_us = 1.7, .bytes_per_s = 365e9,
         .na = {[AR_TP_COLOCATED] = "NCCL cannot run two ranks on one GPU",
                [AR_TP_DEGRADE] = "nccl cannot be degraded"}},
};

const struct ar_transport *ar_transport_at(int id) {
  return id >= 0 && id < AR_NTRANSPORTS ? &table[id] : NULL;
}

const struct ar_transport *ar_executor_at(int id) {
  return id >= 0 && id < AR_NEXECUTORS ? &table[id] : NULL;
}

const struct ar_transport *ar_transport_find(const char *name) {
  for (int i = 0; i < AR_NTRANSPORTS; i++)
    if (table[i].name && !strcmp(table[i].name, name)) return &table[i];
  return NULL;
}

char *ar_transport_names(char *buf, size_t len, const char *sep) {
  size_t at = 0;
  if (len) buf[0] = 0;
  for (int i = 0; i < AR_NTRANSPORTS && at < len; i++)
    at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? sep : "", table[i].name);
  return buf;
}
