/* alx_chunk.c: not written yet. */
#include "airlox/err.h"
