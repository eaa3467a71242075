/*
 * GELU through erf (FlagGems' gelu, bench/kernels/gelu.py) calling SLEEF, as a C programmer
 * writes it: with the V extension a strip-mined loop in RVV intrinsics at e32m2 calling
 * `Sleef_erffx_u10rvvm2` (1-ULP, LMUL 2, the widest SLEEF builds for RVV); without it the
 * scalar loop calling `Sleef_erff_u10`.
 */
#include <sleef.h>

#include "kernel_abi.h"

#define BLOCK_SIZE 1024

void gelu_none_kernel(const float *restrict x, float *restrict y, int32_t n, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    int32_t start = pid_x * BLOCK_SIZE;
    int32_t end = start + BLOCK_SIZE < n ? start + BLOCK_SIZE : n;
#if defined(__riscv_v)
    for (int32_t i = start; i < end;) {
        size_t vl = __riscv_vsetvl_e32m2((size_t)(end - i));
        vfloat32m2_t v = __riscv_vle32_v_f32m2(x + i, vl);
        vfloat32m2_t erf = Sleef_erffx_u10rvvm2(__riscv_vfmul_vf_f32m2(v, 0.7071067811f, vl));
        vfloat32m2_t half_x = __riscv_vfmul_vf_f32m2(v, 0.5f, vl);
        vfloat32m2_t out = __riscv_vfmul_vv_f32m2(half_x, __riscv_vfadd_vf_f32m2(erf, 1.0f, vl), vl);
        __riscv_vse32_v_f32m2(y + i, out, vl);
        i += (int32_t)vl;
    }
#else
    for (int32_t i = start; i < end; i++) y[i] = 0.5f * x[i] * (1.0f + Sleef_erff_u10(x[i] * 0.7071067811f));
#endif
}

void gelu_none_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    gelu_none_kernel(ARG_PTR(const float, 0), ARG_PTR(float, 1), ARG_I32(2), PROGRAM_ARGS);
}
