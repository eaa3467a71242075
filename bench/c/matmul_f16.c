/*
 * Matmul with fp16 inputs (IEEE binary16 bits) widened to fp32; see matmul.h. Without Zfh
 * the conversion is integer code, as a C programmer targeting rv64gc(v) would write it.
 */
#include "half.h"

#define ELEM uint16_t
#define LOAD(p) half_to_float(*(p))
#include "matmul.h"
