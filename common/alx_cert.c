/* alx_cert.c: not written yet. */
#include "airlox/err.h"
