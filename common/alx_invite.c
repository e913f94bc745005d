/* alx_invite.c: not written yet. */
#include "airlox/err.h"
