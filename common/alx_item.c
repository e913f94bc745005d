/* alx_item.c: not written yet. */
#include "airlox/err.h"
