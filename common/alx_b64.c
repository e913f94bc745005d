/* alx_b64.c: not written yet. */
#include "airlox/err.h"
