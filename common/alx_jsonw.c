/* alx_jsonw.c: not written yet. */
#include "airlox/err.h"
