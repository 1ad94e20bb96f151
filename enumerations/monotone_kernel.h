/* The per-function kernel of enumerations.compiled (every monotone function of n = k + 2
 * variables, one row g1 at a time), in C for enumerations/_monotone.pyx. One body, compiled
 * for three instruction sets and chosen once by what the CPU has (AVX-512 with VPOPCNTDQ:
 * 16 uint32 lanes with a vector popcount; AVX2 with POPCNT; the baseline). The quarter width
 * k is a constant in each instance, so the loop over the quarter's variables unrolls and the
 * loop over a0 vectorises. See enumerations/compiled.py for the method. */
#ifndef JTMS_MONOTONE_KERNEL_H
#define JTMS_MONOTONE_KERNEL_H

#include <stdint.h>

typedef uint32_t mk_u32;

/* the variables of a 5-variable table: bit p set iff variable i is 1 at point p */
static const mk_u32 MK_VAR[5] = {0xAAAAAAAAu, 0xCCCCCCCCu, 0xF0F0F0F0u, 0xFF00FF00u, 0xFFFF0000u};

#define MK_BODY(K)                                                                          \
    {                                                                                       \
        const int Q = 1 << (K);                                                             \
        const mk_u32 MASK = (Q == 32) ? 0xFFFFFFFFu : ((1u << Q) - 1u);                     \
        const int TOP = Q - 1;                                                              \
        int64_t functions = 0, active_total = 0, unique_total = 0, agree_total = 0;         \
        int64_t mismatch_total = 0;                                                         \
        int64_t recorded = 0;                                                               \
        for (int64_t r = start; r < stop; r++) {                                            \
            const int32_t ib0 = row_b0[r], ib1 = row_b1[r];                                 \
            const mk_u32 b0 = tables[ib0], b1 = tables[ib1];                                \
            const int active = (b1 >> TOP) & 1;                                             \
            const mk_u32 cB0 = minimal[ib0];                                                \
            const mk_u32 cB1 = minimal[ib1] & ~b0;                                          \
            int64_t row_functions = 0, row_unique = 0, row_agree = 0, row_mismatch = 0;     \
            for (int64_t t1 = down_off[ib1]; t1 < down_off[ib1 + 1]; t1++) {                \
                const int32_t ia1 = down_idx[t1];                                           \
                const mk_u32 a1 = tables[ia1], cA1 = minimal[ia1];                          \
                const mk_u32 m3 = cB1 & ~a1;                                                \
                const int64_t m = meet[(int64_t)ib0 * count + ia1];                         \
                const int64_t lo = down_off[m], hi = down_off[m + 1];                       \
                mk_u32 u_sum = 0, a_sum = 0, d_sum = 0;                                     \
                for (int64_t t = lo; t < hi; t++) {                                         \
                    mk_u32 u, a;                                                            \
                    MK_INNER(K, down_tab[t], down_min[t], u, a);                            \
                    u_sum += u;                                                             \
                    a_sum += a;                                                             \
                    d_sum += u ^ a;                                                         \
                }                                                                           \
                row_functions += hi - lo;                                                   \
                row_unique += u_sum;                                                        \
                row_agree += a_sum;                                                         \
                if (d_sum && active) { /* rare: find which functions, for the report */     \
                    row_mismatch += d_sum;                                                  \
                    for (int64_t t = lo; t < hi; t++) {                                     \
                        mk_u32 u, a;                                                        \
                        MK_INNER(K, down_tab[t], down_min[t], u, a);                        \
                        if (u != a && recorded < bad_rows) {                                \
                            bad[3 * recorded] = r;                                          \
                            bad[3 * recorded + 1] = t;                                      \
                            bad[3 * recorded + 2] = ia1;                                    \
                            recorded++;                                                     \
                        }                                                                   \
                    }                                                                       \
                }                                                                           \
            }                                                                               \
            functions += row_functions;                                                     \
            if (active) {                                                                   \
                active_total += row_functions;                                              \
                unique_total += row_unique;                                                 \
                agree_total += row_agree;                                                   \
                mismatch_total += row_mismatch;                                             \
            }                                                                               \
        }                                                                                   \
        counts[0] += functions;                                                             \
        counts[1] += active_total;                                                          \
        counts[2] += unique_total;                                                          \
        counts[3] += agree_total;                                                           \
        counts[4] += mismatch_total;                                                        \
        return recorded;                                                                    \
    }

/* One function (a0, a1, b0, b1): (unique, agree) as 0/1, branch-free. m0 = min(a0),
 * m3 = min(b1) & ~b0 & ~a1 (fixed for the loop over a0). */
#define MK_INNER(K, A0, M0, U, AG)                                                          \
    do {                                                                                    \
        const mk_u32 a0_ = (A0), m0_ = (M0);                                                \
        const mk_u32 na0_ = ~a0_;                                                           \
        const mk_u32 m1_ = cA1 & na0_; /* min(a1) & ~a0 */                                  \
        const mk_u32 m2_ = cB0 & na0_; /* min(b0) & ~a0 */                                  \
        const mk_u32 c_ = (mk_u32)__builtin_popcount(m0_) + (mk_u32)__builtin_popcount(m1_) \
                          + (mk_u32)__builtin_popcount(m2_) + (mk_u32)__builtin_popcount(m3); \
        const mk_u32 any_ = m0_ | m1_ | m2_ | m3;                                           \
        mk_u32 inside_ = MASK;                                                              \
        for (int i_ = 0; i_ < (K); i_++) { /* AND of x_i over the essential variables */    \
            const mk_u32 p_ = MK_VAR[i_] & MASK;                                            \
            inside_ &= p_ | (mk_u32)(0u - (mk_u32)((any_ & p_) == 0));                      \
        }                                                                                   \
        const mk_u32 keep_low_ = 0u - (mk_u32)((m1_ | m3) == 0);  /* variable k out */      \
        const mk_u32 keep_high_ = 0u - (mk_u32)((m2_ | m3) == 0); /* variable k+1 out */    \
        const mk_u32 low_ = inside_ & keep_low_;                                            \
        (U) = (mk_u32)(c_ == 1);                                                            \
        (AG) = (mk_u32)(a0_ == (low_ & keep_high_)) & (mk_u32)(a1 == (inside_ & keep_high_)) \
               & (mk_u32)(b0 == low_) & (mk_u32)(b1 == inside_);                            \
    } while (0)

#define MK_ARGS                                                                             \
    int64_t start, int64_t stop, const mk_u32 *tables, const mk_u32 *minimal,               \
        const int64_t *down_off, const int32_t *down_idx, const mk_u32 *down_tab,           \
        const mk_u32 *down_min, const int16_t *meet, int64_t count, const int32_t *row_b0,  \
        const int32_t *row_b1, int64_t *counts, int64_t *bad, int64_t bad_rows

#define MK_DEFINE(SUFFIX, ATTR)                                                             \
    ATTR static int64_t mk_rows0_##SUFFIX(MK_ARGS) MK_BODY(0)                               \
    ATTR static int64_t mk_rows1_##SUFFIX(MK_ARGS) MK_BODY(1)                               \
    ATTR static int64_t mk_rows2_##SUFFIX(MK_ARGS) MK_BODY(2)                               \
    ATTR static int64_t mk_rows3_##SUFFIX(MK_ARGS) MK_BODY(3)                               \
    ATTR static int64_t mk_rows4_##SUFFIX(MK_ARGS) MK_BODY(4)                               \
    ATTR static int64_t mk_rows5_##SUFFIX(MK_ARGS) MK_BODY(5)                               \
    ATTR static int64_t mk_rows_##SUFFIX(int k, MK_ARGS) {                                  \
        switch (k) {                                                                        \
        case 0: return mk_rows0_##SUFFIX(start, stop, tables, minimal, down_off, down_idx,  \
                                          down_tab, down_min, meet, count, row_b0, row_b1, \
                                          counts, bad, bad_rows);                          \
        case 1: return mk_rows1_##SUFFIX(start, stop, tables, minimal, down_off, down_idx,  \
                                          down_tab, down_min, meet, count, row_b0, row_b1, \
                                          counts, bad, bad_rows);                          \
        case 2: return mk_rows2_##SUFFIX(start, stop, tables, minimal, down_off, down_idx,  \
                                          down_tab, down_min, meet, count, row_b0, row_b1, \
                                          counts, bad, bad_rows);                          \
        case 3: return mk_rows3_##SUFFIX(start, stop, tables, minimal, down_off, down_idx,  \
                                          down_tab, down_min, meet, count, row_b0, row_b1, \
                                          counts, bad, bad_rows);                          \
        case 4: return mk_rows4_##SUFFIX(start, stop, tables, minimal, down_off, down_idx,  \
                                          down_tab, down_min, meet, count, row_b0, row_b1, \
                                          counts, bad, bad_rows);                          \
        default: return mk_rows5_##SUFFIX(start, stop, tables, minimal, down_off, down_idx, \
                                           down_tab, down_min, meet, count, row_b0, row_b1, \
                                           counts, bad, bad_rows);                         \
        }                                                                                   \
    }

#if defined(__x86_64__) && defined(__GNUC__)
MK_DEFINE(avx512, __attribute__((target("avx512f,avx512vl,avx512bw,avx512vpopcntdq,avx2,popcnt,prefer-vector-width=512"))))
MK_DEFINE(avx2, __attribute__((target("avx2,popcnt"))))
#endif
MK_DEFINE(base, )

/* The instance for this CPU: 2 AVX-512 with VPOPCNTDQ, 1 AVX2, 0 the baseline. */
static int mk_level(void) {
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vpopcntdq"))
        return 2;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
        return 1;
#endif
    return 0;
}

/* rows [start, stop) of n = k + 2: counts[0..4] += functions, active, unique & active,
 * agree & active, mismatches; bad (bad_rows x 3) = (row, index into down_tab, a1) of the
 * first mismatches; returns how many were recorded. */
static int64_t mk_rows(int level, int k, MK_ARGS) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (level == 2)
        return mk_rows_avx512(k, start, stop, tables, minimal, down_off, down_idx, down_tab,
                              down_min, meet, count, row_b0, row_b1, counts, bad, bad_rows);
    if (level == 1)
        return mk_rows_avx2(k, start, stop, tables, minimal, down_off, down_idx, down_tab,
                            down_min, meet, count, row_b0, row_b1, counts, bad, bad_rows);
#endif
    return mk_rows_base(k, start, stop, tables, minimal, down_off, down_idx, down_tab, down_min,
                        meet, count, row_b0, row_b1, counts, bad, bad_rows);
}

/* Functions per row of [start, stop) (the outer loops only). */
static void mk_row_sizes(int64_t start, int64_t stop, const int64_t *down_off,
                         const int32_t *down_idx, const int16_t *meet, int64_t count,
                         const int32_t *row_b0, const int32_t *row_b1, int64_t *out) {
    for (int64_t r = start; r < stop; r++) {
        const int32_t ib0 = row_b0[r], ib1 = row_b1[r];
        int64_t total = 0;
        for (int64_t t1 = down_off[ib1]; t1 < down_off[ib1 + 1]; t1++) {
            const int64_t m = meet[(int64_t)ib0 * count + down_idx[t1]];
            total += down_off[m + 1] - down_off[m];
        }
        out[r - start] = total;
    }
}

#endif
