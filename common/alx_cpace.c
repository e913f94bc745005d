/* alx_cpace.c: not written yet. */
#include "airlox/err.h"
