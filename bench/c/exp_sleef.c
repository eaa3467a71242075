/*
 * Elementwise exp calling SLEEF, as a C programmer writes it: y[i] = exp(x[i]) over one
 * BLOCK_SIZE block per program.
 *
 * With the V extension (-march=rv64gcv): a strip-mined loop in RVV intrinsics, `vsetvl` at
 * e32m2, calling SLEEF's vector `Sleef_expfx_u10rvvm2` (1-ULP, LMUL 2: the widest fp32 exp
 * SLEEF provides for RVV; it runs at VLMAX, the lanes past vl are computed and not stored).
 * Without it (-march=rv64gc): the same loop over scalars calling `Sleef_expf_u10`.
 */
#include <sleef.h>

#include "kernel_abi.h"

#define BLOCK_SIZE 1024

void exp_kernel(const float *restrict x, float *restrict y, int32_t n_elements, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    int32_t start = pid_x * BLOCK_SIZE;
    int32_t end = start + BLOCK_SIZE < n_elements ? start + BLOCK_SIZE : n_elements;
#if defined(__riscv_v)
    for (int32_t i = start; i < end;) {
        size_t vl = __riscv_vsetvl_e32m2((size_t)(end - i));
        vfloat32m2_t v = __riscv_vle32_v_f32m2(x + i, vl);
        __riscv_vse32_v_f32m2(y + i, Sleef_expfx_u10rvvm2(v), vl);
        i += (int32_t)vl;
    }
#else
    for (int32_t i = start; i < end; i++) y[i] = Sleef_expf_u10(x[i]);
#endif
}

void exp_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    exp_kernel(ARG_PTR(const float, 0), ARG_PTR(float, 1), ARG_I32(2), PROGRAM_ARGS);
}
