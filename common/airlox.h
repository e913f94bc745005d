/*
 * airlox.h: libairlox, the airlox protocol core.
 *
 * Crypto, wire formats, invite links and input checks, once, for the relay,
 * the runner, the client and other bindings. Exported symbols start with
 * alx_. Functions return 0 or a negative ALX_ERR_* code (airlox/err.h).
 */
#ifndef AIRLOX_H
#define AIRLOX_H

#include "airlox/err.h"
#include "airlox/buf.h"
#include "airlox/b64.h"
#include "airlox/json.h"
#include "airlox/crypto.h"
#include "airlox/cpace.h"
#include "airlox/code.h"
#include "airlox/proto.h"
#include "airlox/view.h"
#include "airlox/jobmeta.h"
#include "airlox/tree.h"

#define ALX_VERSION_STRING	"0.1.0"

#endif /* AIRLOX_H */
