/*
 * The tilec kernel ABI for the C reference kernels: each kernel is one function per program
 * instance, `void NAME(runtime args..., int32 pid_x, pid_y, pid_z, uint32 grid_x, grid_y,
 * grid_z)`, plus `NAME_launch`, which reads runtime argument i from the 8-byte slot args[i]
 * (pointers as addresses, ints sign-extended, fp32 bits in the low 32 bits) and calls NAME.
 * The runner calls NAME_launch once per program, exactly as for a tilec kernel.
 */
#ifndef KERNEL_ABI_H
#define KERNEL_ABI_H

#include <stdint.h>
#include <string.h>

#define PROGRAM_PARAMS int32_t pid_x, int32_t pid_y, int32_t pid_z, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z
#define PROGRAM_ARGS pid_x, pid_y, pid_z, grid_x, grid_y, grid_z
#define UNUSED_PROGRAM_PARAMS() ((void)pid_x, (void)pid_y, (void)pid_z, (void)grid_x, (void)grid_y, (void)grid_z)

/* Argument slot decoders. */
#define ARG_PTR(type, i) ((type *)(uintptr_t)args[i])
#define ARG_I32(i) ((int32_t)args[i])

static inline float arg_f32(const uint64_t *args, int i) {
    uint32_t bits = (uint32_t)args[i];
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

#endif
