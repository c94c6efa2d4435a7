/* `arbench model --help`: the options, grouped as a reader looks for them. */
#include <stdio.h>

#include "model/model_cmd.h"

void model_usage(FILE *f) {
  char names[128];
  fputs("usage: arbench model --algo A[,B..]|all --ranks N[,M..] --sizes S[,S..] [options]\n"
        "  prices each schedule without a GPU (docs/model.md). One case prints key: value\n"
        "  lines (model_time_us: X; with a straggler model_time_after_arrival_us: Y); lists\n"
        "  print a table. The first line says which link figures the prices rest on.\n"
        "What is priced\n"
        "      --algo LIST|all     algorithms (all: every schedule; nccl has none to price)\n"
        "      --ranks LIST        rank counts (up to 65536)\n"
        "      --sizes LIST        sizes in plain bytes, binary units (1K, 8M); --bytes is its\n"
        "                          alias; or -b MIN -e MAX [-f F] (default F 2)\n"
        "      --straggler R:D     rank R late by D (8ms)\n"
        "      --degrade R:F[,R:F..]  GPU R's links (two tiers: its NIC) F times slower;\n"
        "                          repeated flags add up\n"
        "      --segments K        OPTCC's k; async-ring's mini-batches, each round's sums\n"
        "                          overlapping its copies: (copy + sum) / K + (1 - 1/K)\n"
        "                          max(copy, sum) (default: ~8 MiB each, at most 8)\n"
        "      --compute KIND      as arbench run's (membw, sm:N, gemm, gemm:MxNxK): not\n"
        "                          priced, and said so in one line; the AllReduce alone is\n"
        "Links\n"
        "      --alpha T           cost of a round (default 3us)\n"
        "      --bw RATE           a GPU's port (default 450GB/s; with --alpha's 3us\n"
        "                          StragglAR's H100 NVLink figures, not a measurement)\n",
        f);
  fprintf(f, "      --transport LIST|all  %s: each transport's own alpha, bw and\n"
          "                          message cost, a row per transport, as --calibrate\n"
          "                          fitted them on 4 x H200 (--alpha, --bw given override):\n"
          "                          ", ar_transport_names(names, sizeof(names), ","));
  for (int t = 0; t < AR_NTRANSPORTS; t++) { /* two a line */
    const struct ar_transport *tp = ar_transport_at(t);
    fprintf(f, "%s %g us %g GB/s%s", tp->name, tp->alpha_us, tp->bytes_per_s / 1e9,
            t + 1 == AR_NTRANSPORTS ? "\n" : t % 2 ? ",\n                          " : ", ");
  }
  fputs("      --hop-latency T     per hop on routed topologies (default 0)\n"
        "      --msg-cost T        per message, on the port it leaves by (default 0)\n"
        "      --gamma RATE        the rate of sums (default: free), summed after the\n"
        "                          bytes they sum arrive\n"
        "      --gamma-overlap     sums overlapped with their bytes instead, as most\n"
        "                          implementations fuse them: a round costs the larger of\n"
        "                          its bytes' time and its sums' time (async-ring: its\n"
        "                          mini-batches' limit); flows: a reduce's sum runs as its\n"
        "                          bytes land, a rank's sums one after another at RATE\n"
        "Topology\n"
        "      --topology switch|mesh|torus|two-tier|hx2mesh|hx4mesh|hyperx\n"
        "                          default switch; mesh: a link of bw/(n-1) to each peer\n"
        "      --torus AxB[xC..]   implies the torus topology and the ranks (or gives the\n"
        "                          2-D shape of hx2mesh, hx4mesh: 2x2 or 4x4 mesh boards\n"
        "                          joined by a fat tree a row and a column; hyperx: every\n"
        "                          rank linked to its row and column)\n"
        "      --gpus-per-node G   two tiers: G GPUs a node on a switch, a NIC per GPU\n"
        "                          between nodes (--bw, --alpha; --degrade slows a NIC)\n"
        "      --bw-local RATE     inside a node (default (G-1) x --bw)\n"
        "      --alpha-local T     inside a node (default --alpha)\n"
        "Pricing\n"
        "      --pricing rounds|flows  rounds (the default): per round alpha + hops x\n"
        "                          hop-latency + the busiest port's messages x --msg-cost +\n"
        "                          the most loaded link's bytes / bw (a degraded GPU's links\n"
        "                          F times slower) + reduced bytes / gamma; flows: every\n"
        "                          transfer a flow started when the transfers it waits for\n"
        "                          end (its data, its ports' earlier rounds, a straggler),\n"
        "                          the links shared max-min fairly, priced by events\n"
        "      --set model.jobs=N  scenarios priced at once (arbench settings)\n"
        "Output and fits\n"
        "      --csv FILE          rows with results.csv's columns, source=model\n"
        "      --calibrate RUN_DIR  fits alpha, bw and the cost of a message per transport\n"
        "                          from RUN_DIR/results.csv and, without --algo, prices\n"
        "                          every measured row beside its measurement\n",
        f);
}
