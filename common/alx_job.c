/* alx_job.c: not written yet. */
#include "airlox/err.h"
