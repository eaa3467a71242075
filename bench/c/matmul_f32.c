/* Matmul with fp32 inputs; see matmul.h. */
#define ELEM float
#define LOAD(p) (*(p))
#include "matmul.h"
