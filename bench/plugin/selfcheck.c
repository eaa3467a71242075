/*
 * The insn_count plugin's self-check, run by `cargo xtask bench` before the benchmarks: a
 * kernel launch whose vector instruction classes and register-group weights are known.
 * Expected (see xtask/src/bench/selfcheck.rs): vset 2, vector 10, vector memory 3, and an
 * LMUL-weighted vector count of 31 =
 *   vadd.vv under e32/m8 (vtype from a register, through vsetvl)  8
 *   vmv.x.s, vmv.s.x and vcpop.m under e32/m8 (one register each) 3
 *   vle32.v, EEW = SEW                                            8
 *   vle16.v, EMUL = 8*16/32                                       4
 *   vadd.vv under e32/mf2                                         1
 *   vl4re32.v                                                     4
 *   vmv2r.v                                                       2
 *   vmand.mm                                                      1
 */
#include <stdint.h>

void selfcheck_launch(const uint64_t *args, int32_t pid_x, int32_t pid_y, int32_t pid_z, uint32_t grid_x,
                      uint32_t grid_y, uint32_t grid_z) {
    (void)pid_x, (void)pid_y, (void)pid_z, (void)grid_x, (void)grid_y, (void)grid_z;
    uint64_t vtype = (2 << 3) | 3; /* e32, m8 */
    uint64_t vl;
    const void *buffer = (const void *)(uintptr_t)args[0];
    __asm__ volatile(
        "vsetvl %0, %1, %2\n\t"
        "vadd.vv v8, v8, v16\n\t"
        "vmv.x.s %0, v8\n\t"
        "vmv.s.x v8, %0\n\t"
        "vcpop.m %0, v0\n\t"
        "vle32.v v8, (%3)\n\t"
        "vle16.v v16, (%3)\n\t"
        "vsetivli x0, 4, e32, mf2, ta, ma\n\t"
        "vadd.vv v8, v8, v9\n\t"
        "vl4re32.v v8, (%3)\n\t"
        "vmv2r.v v8, v10\n\t"
        "vmand.mm v0, v1, v2"
        : "=&r"(vl)
        : "r"(16L), "r"(vtype), "r"(buffer)
        : "memory");
}
