/* alx_json.c: not written yet. */
#include "airlox/err.h"
