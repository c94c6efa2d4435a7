/* docs/papers.md's Swing figures as the page prints them, by the name of the claim
 * tests/test_papers.c checks them under (pin_all, tests/claims.h): the figures a paper's
 * tolerance alone would let drift. */
#ifndef PAPERS_SWING_PINS_H
#define PAPERS_SWING_PINS_H

#include "claims.h"

static const struct pinned swing_pins[] = {
    {"Fig.7 64x64 2MiB: best RD / Swing (s5.1: \"more than 2x\")", "2.495"},
    {"Fig.7 64x64 2MiB: best known / Swing (gain ~120%)", "2.088"},
    {"Fig.7 64x64 512MiB: Swing goodput / peak (77%)", "0.837"},
    {"Fig.7 64x64 <=32KiB: RD (L) / Swing (L), largest (\"up to 50%\")", "1.709"},
    {"Fig.7 64x64: Swing leads through 32 MiB (bucket's first lead, MiB)", "64"},
    {"Fig.11 s5.5: 128x8's largest gain over 64x16's (grows)", "1.028"},
    {"Fig.11 s5.5: 256x4's largest gain over 64x16's (grows)", "0.997"},
    {"Fig.12 8^3: worst ratio (s5.5: outperforms at any size)", "0.974"},
    {"Fig.12 8^4: worst ratio (s5.5: outperforms at any size)", "0.994"},
    {"Fig.9 8x8 3.2Tb/s 512MiB: best known / Swing (s5.1.2: Swing leads)", "0.924"},
    {"Fig.10 2x4: synchronised bucket's latency deficiency", "4"},
    {"Swing s3.2: p=7, the (p-1)+1 scheme over 2n: 1+1/p", "1.143"},
    {"Swing s3.2: p=7, the (p-1)+1 scheme over ring: 1+1/p", "1.333"},
    {"Swing s3.2: p=15, the (p-1)+1 scheme over 2n: 1+1/p", "1.133"},
    {"Swing s3.2: p=15, the (p-1)+1 scheme over ring: 1+1/p", "1.214"},
    {"Swing s2.3.3: n=7, RH/D with 3-2 elimination over 2n (3/2)", "1.5"},
    {"Swing s2.3.3: n=12, RH/D with 3-2 elimination over 2n (3/2)", "1.375"},
    {"Swing s2.3.3: n=63, RH/D with 3-2 elimination over 2n (3/2)", "1.719"},
    {"Table 2 D=2 Ring           Lambda", "682.5"},
    {"Table 2 D=2 Rec.Doub. (L)  Psi", "22"},
    {"Table 2 D=2 Rec.Doub. (B)  Xi", "1.466"},
    {"Table 2 D=3 Rec.Doub. (B)  Xi", "1.157"},
    {"Table 2 D=4 Rec.Doub. (B)  Xi", "1.064"},
    {"Table 2 D=2 Swing (B)      Xi", "1.185"},
    {"Table 2 D=3 Swing (B)      Xi", "1.034"},
    {"Table 2 D=4 Swing (B)      Xi", "1.007"},
    {"Table 2 D=2 Bucket         Lambda", "21"},
    {"Table 2 D=3 Bucket         Lambda", "7.5"},
    {"Table 2 D=4 Bucket         Lambda", "4.667"},
    {"Table 2 D=2 Rec.Doub. (L)  Xi", "8.545"},
    {"Table 2 D=3 Rec.Doub. (L)  Xi", "3.143"},
    {"Table 2 D=4 Rec.Doub. (L)  Xi", "2.0"},
    {"Table 2 D=3 Rec.Doub. (L)  Psi", "31.5"},
    {"Table 2 D=4 Rec.Doub. (L)  Psi", "40"},
    {"Table 2 D=2 Swing (L)      Xi", "4.0"},
    {"Table 2 D=3 Swing (L)      Xi", "1.75"},
    {"Table 2 D=4 Swing (L)      Xi", "1.333"},
};

#endif
