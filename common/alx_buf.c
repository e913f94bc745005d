/* alx_buf.c: not written yet. */
#include "airlox/err.h"
