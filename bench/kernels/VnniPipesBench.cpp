//===- VnniPipesBench.cpp - What competes with vpdpbusd for its pipes ----===//
//
// Part of the Strata project.
//
//===----------------------------------------------------------------------===//
//
// The int8 microkernel's K loop issues one 512-bit `vpdpbusd` per cycle;
// whatever else a tile does (the requantization, the stores of its sums) is
// free only if it runs on other pipes. This program times 24 independent
// `vpdpbusd`s (the 12 x 32 tile's K group) alone and with 12 other
// operations of one kind (independent of each other and of the
// `vpdpbusd`s) and prints what each extra operation costs in cycles of the
// `vpdpbusd` loop (the loop alone taken as 24 cycles, so the figure does not
// depend on the clock). Thread CPU time, so a shared machine distorts it
// little. docs/cpu-kernels.md ("Where the int8 time goes") has the figures.
//
//   build/bin/strata-bench-vnni-pipes
//
//===----------------------------------------------------------------------===//

#include <cstdio>
#include <ctime>

namespace {

double threadNs() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e9 + double(t.tv_nsec);
}

alignas(64) char scratch[4096];

// 24 vpdpbusd into zmm0..zmm23 (the sources zmm30, zmm31 are never written).
#define DP(i) "vpdpbusd %%zmm30, %%zmm31, %%zmm" #i "\n\t"
#define DP24                                                                   \
  DP(0)                                                                        \
  DP(1)                                                                        \
  DP(2) DP(3) DP(4) DP(5) DP(6) DP(7) DP(8) DP(9) DP(10) DP(11) DP(12) DP(13)  \
      DP(14) DP(15) DP(16) DP(17) DP(18) DP(19) DP(20) DP(21) DP(22) DP(23)
// An operation `op src2, src1, dst` twelve times, into zmm24..zmm27 (each
// written three times: no chain longer than three).
#define OP3(op, d) op " %%zmm29, %%zmm28, %%zmm" #d "\n\t"
#define X12(op)                                                                \
  OP3(op, 24)                                                                  \
  OP3(op, 25)                                                                  \
  OP3(op, 26) OP3(op, 27) OP3(op, 24) OP3(op, 25) OP3(op, 26) OP3(op, 27)      \
      OP3(op, 24) OP3(op, 25) OP3(op, 26) OP3(op, 27)
#define ST(i, off) "vmovdqa64 %%zmm" #i ", " #off "(%0)\n\t"
#define ST12                                                                   \
  ST(24, 0)                                                                    \
  ST(25, 64)                                                                   \
  ST(26, 128) ST(27, 192) ST(28, 256) ST(29, 320) ST(24, 384) ST(25, 448)      \
      ST(26, 512) ST(27, 576) ST(28, 640) ST(29, 704)
#define STY(i, off) "vmovdqa64 %%ymm" #i ", " #off "(%0)\n\t"
#define STY12                                                                  \
  STY(24, 0)                                                                   \
  STY(25, 64)                                                                  \
  STY(26, 128) STY(27, 192) STY(28, 256) STY(29, 320) STY(24, 384)             \
      STY(25, 448) STY(26, 512) STY(27, 576) STY(28, 640) STY(29, 704)
#define LD(d, off) "vmovdqu64 " #off "(%0), %%zmm" #d "\n\t"
#define LD12                                                                   \
  LD(24, 0)                                                                    \
  LD(25, 64) LD(26, 128) LD(27, 192) LD(24, 256) LD(25, 320) LD(26, 384)       \
      LD(27, 448) LD(24, 512) LD(25, 576) LD(26, 640) LD(27, 704)
#define MOVDB(d) "vpmovsdb %%zmm29, %%xmm" #d "\n\t"
#define MOVDB12                                                                \
  MOVDB(24)                                                                    \
  MOVDB(25)                                                                    \
  MOVDB(26) MOVDB(27) MOVDB(24) MOVDB(25) MOVDB(26) MOVDB(27) MOVDB(24)        \
      MOVDB(25) MOVDB(26) MOVDB(27)

#define CLOBBERS                                                               \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",      \
      "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16",   \
      "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24",  \
      "xmm25", "xmm26", "xmm27", "memory"

constexpr long kIters = 4000000;

/// Nanoseconds per iteration of `body` (a loop of kIters).
#define TIME(body)                                                             \
  [] {                                                                         \
    double t0 = threadNs();                                                    \
    for (long n = 0; n < kIters; ++n)                                          \
      asm volatile(body ::"r"(scratch) : CLOBBERS);                            \
    return (threadNs() - t0) / double(kIters);                                 \
  }()

} // namespace

int main() {
  if (!__builtin_cpu_supports("avx512vnni") ||
      !__builtin_cpu_supports("avx512bw")) {
    std::printf("this CPU has no AVX-512 VNNI: nothing to measure\n");
    return 0;
  }
  struct Case {
    const char *name;
    double ns;
  };
  for (int round = 0; round < 2; ++round) {
    double base = TIME(DP24);
    Case cases[] = {
        {"vpaddd", TIME(DP24 X12("vpaddd"))},
        {"vpmaxsd", TIME(DP24 X12("vpmaxsd"))},
        {"vpsrlvq", TIME(DP24 X12("vpsrlvq"))},
        {"vpackssdw", TIME(DP24 X12("vpackssdw"))},
        {"vpermd", TIME(DP24 X12("vpermd"))},
        {"vpmovsdb", TIME(DP24 MOVDB12)},
        {"vpmuludq", TIME(DP24 X12("vpmuludq"))},
        {"vpmulld", TIME(DP24 X12("vpmulld"))},
        {"vfmadd231ps", TIME(DP24 X12("vfmadd231ps"))},
        {"vmulpd", TIME(DP24 X12("vmulpd"))},
        {"load zmm", TIME(DP24 LD12)},
        {"store zmm", TIME(DP24 ST12)},
        {"store ymm", TIME(DP24 STY12)},
    };
    std::printf("round %d: 24 vpdpbusd %.2f ns (taken as 24 cycles)\n", round,
                base);
    for (const Case &c : cases)
      std::printf("  + 12 %-12s %6.2f ns  %+5.2f cycles each\n", c.name, c.ns,
                  (c.ns - base) / base * 24.0 / 12.0);
  }
  return 0;
}
