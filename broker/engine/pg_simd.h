/* SPDX-License-Identifier: MIT */
/* pg_simd.h - engine-internal: PG_CLONES marks a hot, element-wise loop
 * function to be compiled twice, for AVX2 and for the x86-64 baseline, with
 * the CPU picking at load time (GCC/clang target_clones, ELF only). The
 * loops it marks have no reductions and the build forbids FMA contraction,
 * so both versions produce bit-identical results: determinism holds across
 * machines. Elsewhere (mingw-w64, other CPUs) it expands to nothing.
 * Never: visible outside broker/engine.
 */
#ifndef PG_SIMD_H
#define PG_SIMD_H

#if defined(__x86_64__) && defined(__ELF__) && !defined(PG_NO_CLONES) && \
    ((defined(__clang__) && __clang_major__ >= 14) || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 8))
#define PG_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PG_CLONES
#endif

#endif
