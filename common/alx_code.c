/* alx_code.c: not written yet. */
#include "airlox/err.h"
