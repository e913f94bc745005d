/* alx_manifest.c: not written yet. */
#include "airlox/err.h"
