/*
 * IEEE binary16 (fp16) conversions in integer code, as a C programmer targeting rv64gc(v)
 * without Zfh writes them: half_to_float is exact, float_to_half rounds to nearest even
 * (overflow to infinity, NaN kept quiet), as Triton's `.to(tl.float16)` and the fp16 store do.
 */
#ifndef HALF_H
#define HALF_H

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

static inline uint16_t float_to_half(float value) {
    uint32_t bits;
    __builtin_memcpy(&bits, &value, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    uint32_t abs = bits & 0x7fffffffu;
    if (abs > 0x7f800000u) return sign | 0x7e00u; /* NaN */
    if (abs >= 0x477ff000u) return sign | 0x7c00u; /* rounds to infinity (>= 65520) */
    if (abs < 0x38800000u) {                       /* below 2^-14: subnormal or zero */
        if (abs < 0x33000000u) return sign;        /* below 2^-25: rounds to zero */
        uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
        int shift = 126 - (int)(abs >> 23); /* 14..24 */
        uint32_t half = mantissa >> shift;
        uint32_t rest = mantissa & ((1u << shift) - 1);
        uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half & 1))) half++;
        return sign | (uint16_t)half;
    }
    uint32_t rounded = abs - 0x38000000u; /* rebias the exponent: 127 - 15 = 112 */
    uint32_t rest = rounded & 0x1fffu;
    uint32_t half = rounded >> 13;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) half++;
    return sign | (uint16_t)half;
}

#endif
