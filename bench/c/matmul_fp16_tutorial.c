/*
 * The fp16 matmul of Triton's tutorial 03 (fixtures/matmul.py) at the benchmark's
 * config, BLOCK_SIZE_M/N/K = 128/256/64: fp16 inputs widened to fp32, an fp32 accumulator, the
 * result rounded to fp16; see matmul.h.
 */
#include "half.h"

#define BLOCK_M 128
#define BLOCK_N 256
#define BLOCK_K 64
#define ELEM uint16_t
#define LOAD(p) half_to_float(*(p))
#define OUT uint16_t
#define STORE(v) float_to_half(v)
#include "matmul.h"
