/* alx_wrap.c: not written yet. */
#include "airlox/err.h"
