/*
 * Fused softmax (Triton tutorial 02) calling SLEEF, as a C programmer writes it: one row per
 * program.
 *
 * With the V extension (-march=rv64gcv): the three passes over the row in RVV intrinsics,
 * strip-mined with `vsetvl`. The max and scale passes run at LMUL 8; the exp-and-sum pass at
 * LMUL 2, the widest fp32 exp SLEEF provides for RVV (`Sleef_expfx_u10rvvm2`, 1 ULP; it runs at
 * VLMAX and clobbers every vector register, so the sum accumulator lives in memory across the
 * call). Maximum and sum accumulate lane-wise (tail-undisturbed, so a partial last strip keeps
 * the other lanes) and are reduced once after their pass.
 * Without it (-march=rv64gc): the loops of `softmax.c` with `Sleef_expf_u10` for `expf`.
 */
#include <math.h>
#include <sleef.h>

#include "kernel_abi.h"

void softmax_kernel(float *restrict output, const float *restrict input, int32_t input_row_stride,
                    int32_t output_row_stride, int32_t n_cols, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    const float *row = input + (int64_t)pid_x * input_row_stride;
    float *out = output + (int64_t)pid_x * output_row_stride;
#if defined(__riscv_v)
    size_t n = n_cols > 0 ? (size_t)n_cols : 0;
    size_t vlmax8 = __riscv_vsetvlmax_e32m8();
    vfloat32m8_t max_acc = __riscv_vfmv_v_f_f32m8(-INFINITY, vlmax8);
    for (size_t i = 0; i < n;) {
        size_t vl = __riscv_vsetvl_e32m8(n - i);
        max_acc = __riscv_vfmax_vv_f32m8_tu(max_acc, max_acc, __riscv_vle32_v_f32m8(row + i, vl), vl);
        i += vl;
    }
    float max = __riscv_vfmv_f_s_f32m1_f32(
        __riscv_vfredmax_vs_f32m8_f32m1(max_acc, __riscv_vfmv_s_f_f32m1(-INFINITY, 1), vlmax8));

    size_t vlmax2 = __riscv_vsetvlmax_e32m2();
    vfloat32m2_t sum_acc = __riscv_vfmv_v_f_f32m2(0.0f, vlmax2);
    for (size_t i = 0; i < n;) {
        size_t vl = __riscv_vsetvl_e32m2(n - i);
        vfloat32m2_t e = Sleef_expfx_u10rvvm2(__riscv_vfsub_vf_f32m2(__riscv_vle32_v_f32m2(row + i, vl), max, vl));
        __riscv_vse32_v_f32m2(out + i, e, vl);
        sum_acc = __riscv_vfadd_vv_f32m2_tu(sum_acc, sum_acc, e, vl);
        i += vl;
    }
    float sum = __riscv_vfmv_f_s_f32m1_f32(
        __riscv_vfredusum_vs_f32m2_f32m1(sum_acc, __riscv_vfmv_s_f_f32m1(0.0f, 1), vlmax2));

    for (size_t i = 0; i < n;) {
        size_t vl = __riscv_vsetvl_e32m8(n - i);
        __riscv_vse32_v_f32m8(out + i, __riscv_vfdiv_vf_f32m8(__riscv_vle32_v_f32m8(out + i, vl), sum, vl), vl);
        i += vl;
    }
#else
    float max = -INFINITY;
    for (int32_t i = 0; i < n_cols; i++) max = fmaxf(max, row[i]);
    float sum = 0.0f;
    for (int32_t i = 0; i < n_cols; i++) {
        float e = Sleef_expf_u10(row[i] - max);
        out[i] = e;
        sum += e;
    }
    for (int32_t i = 0; i < n_cols; i++) out[i] = out[i] / sum;
#endif
}

void softmax_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    softmax_kernel(ARG_PTR(float, 0), ARG_PTR(const float, 1), ARG_I32(2), ARG_I32(3), ARG_I32(4), PROGRAM_ARGS);
}
