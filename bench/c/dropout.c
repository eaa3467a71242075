/*
 * Seeded dropout of Triton's tutorial 04 (fixtures/dropout.py): one block of BLOCK_SIZE
 * elements per program; an element is kept when tl.rand(seed, offset) > p, and kept elements
 * are scaled by 1 / (1 - p). tl.rand is Philox 4x32 with 10 rounds on the counter (offset, 0,
 * 0, 0) and the key (seed low, seed high), its first word turned into a float in [0, 1) as
 * Triton's uint_to_uniform_float does.
 */
#include "kernel_abi.h"

#define BLOCK_SIZE 1024

static inline uint32_t umulhi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }

static inline float philox_uniform(uint64_t seed, uint32_t offset) {
    uint32_t c0 = offset, c1 = 0, c2 = 0, c3 = 0;
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int round = 0; round < 10; round++) {
        uint32_t prev_c0 = c0, prev_c2 = c2;
        c0 = umulhi(0xCD9E8D57u, prev_c2) ^ c1 ^ k0;
        c2 = umulhi(0xD2511F53u, prev_c0) ^ c3 ^ k1;
        c1 = 0xCD9E8D57u * prev_c2;
        c3 = 0xD2511F53u * prev_c0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    int32_t x = (int32_t)c0;
    if (x < 0) x = -x - 1;
    return (float)x * 4.6566127342e-10f;
}

void _seeded_dropout(const float *restrict x, float *restrict out, int32_t n, float p, int32_t seed, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    int32_t start = pid_x * BLOCK_SIZE;
    int32_t end = n - start < BLOCK_SIZE ? n : start + BLOCK_SIZE;
    float scale_divisor = 1.0f - p;
    for (int32_t i = start; i < end; i++) {
        float random = philox_uniform((uint64_t)(int64_t)seed, (uint32_t)i);
        out[i] = random > p ? x[i] / scale_divisor : 0.0f;
    }
}

void _seeded_dropout_launch(const uint64_t *args, PROGRAM_PARAMS) {
    _seeded_dropout(ARG_PTR(const float, 0), ARG_PTR(float, 1), ARG_I32(2), arg_f32(args, 3), ARG_I32(4),
                    PROGRAM_ARGS);
}
