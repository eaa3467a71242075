/* Layer norm forward (Triton tutorial 05) on fp32 data; see layernorm.h. */
#define ELEM float
#define LOAD(p) (*(p))
#define STORE(v) (v)
#include "layernorm.h"
