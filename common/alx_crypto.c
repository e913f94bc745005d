/* alx_crypto.c: not written yet. */
#include "airlox/err.h"
