/*
 * Matmul with fp16 inputs (IEEE binary16 bits) widened to fp32; see matmul.h. Without Zfh
 * the conversion is integer code, as a C programmer targeting rv64gc(v) would write it.
 */
#include <stdint.h>

static inline float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1f;
    uint32_t mantissa = h & 0x3ffu;
    uint32_t bits;
    if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else { /* subnormal: normalize */
        int shift = __builtin_clz(mantissa) - 21;
        bits = sign | ((uint32_t)(113 - shift) << 23) | ((mantissa << shift) & 0x3ffu) << 13;
    }
    float value;
    __builtin_memcpy(&value, &bits, sizeof value);
    return value;
}

#define ELEM uint16_t
#define LOAD(p) half_to_float(*(p))
#include "matmul.h"
