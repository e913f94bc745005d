/* alx_signed.c: not written yet. */
#include "airlox/err.h"
