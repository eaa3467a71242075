/*
 * Layer norm forward of Triton's tutorial 05 (fixtures/layer_norm.py) on fp16 data, as the
 * tutorial runs it: x, w, b widened to fp32, y rounded to fp16; see layernorm.h.
 */
#include "half.h"

#define ELEM uint16_t
#define LOAD(p) half_to_float(*(p))
#define STORE(v) float_to_half(v)
#include "layernorm.h"
