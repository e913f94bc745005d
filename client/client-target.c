/*
 * client-target.c: the --to and --reply-to options of the commands that
 * post items, resolved against the session (kept apart from client-item.c,
 * which the runner daemon links too and which knows no command line).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"

/* --to NAME|FP (repeatable) and --reply-to ITEM into p. */
int
item_targets(struct csession *cs, struct item_post *p)
{
	const struct cmd_args	*a = &cs->ctx->args;
	const char		*v;
	char			*cause = NULL;
	size_t			 i;
	int			 r;

	v = args_get(a, "reply-to");
	if (v != NULL) {
		if (strlen(v) != ALX_FP_STRLEN || alx_b64_decode_exact(
		    p->reply_to, ALX_ID_LEN, v, strlen(v)) != 0)
			return out_usage("--reply-to: an item id (22 "
			    "characters)");
		p->has_reply = 1;
	}
	if (!args_has(a, "to"))
		return 0;
	if ((r = csess_replay(cs, NULL, NULL)) != 0)
		return csess_fail(cs, r, "cannot read the session's log");
	for (i = 0; (v = args_nth(a, "to", i)) != NULL; i++) {
		if (i >= ALX_MAX_TO)
			return out_usage("--to: at most %d", ALX_MAX_TO);
		if (p->nto == 0 && (p->to = calloc(ALX_MAX_TO,
		    ALX_FP_LEN)) == NULL)
			return EXIT_FAIL;
		if (csess_resolve(cs, v, p->to[p->nto], &cause) != 0) {
			r = out_fail(ALX_ERR_NOT_FOUND, "--to: %s", cause ?
			    cause : v);
			free(cause);
			return r;
		}
		p->nto++;
	}
	return 0;
}
