/* alx_req.c: not written yet. */
#include "airlox/err.h"
