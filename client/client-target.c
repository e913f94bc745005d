/*
 * client-target.c: the --to and --reply-to options of the commands that
 * post items, resolved against the session (kept apart from alxs_item.c,
 * which the runner daemon links too and which knows no command line).
 *
 * --to NAME needs the session's participants, not its history: their
 * certificates come from the relay's participant list (one request, not a
 * replay of every item), and each is opened against the verified manifest
 * before it joins the view, so the relay can name no participant that the
 * owner's role keys did not certify, nor one the owner revoked. A view
 * that already read the log resolves from its own members.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "util/log.h"
#include "client.h"

/*
 * Add the certificates of the relay's participant list to the view (at
 * cursor 0: the view has read no log yet, and a later replay starts from a
 * fresh view). A participant the manifest no longer admits (revoked, or
 * certified by a role key rotated away) is left out; a certificate that
 * does not verify at all means the relay tampered: nothing is trusted.
 */
static int
target_load_members(struct alxs_sess *cs, int *untrusted)
{
	struct alx_json		*j = NULL;
	const char		*raw;
	size_t			 len, gone = 0;
	int			 arr, i, n, r;

	*untrusted = 0;
	if ((r = alxs_sess_participants(cs, &j, &arr, &n)) != 0)
		return r;
	for (i = 0; i < n; i++) {
		if ((r = alx_json_raw(j, alxs_sess_participant_cert(j,
		    alx_json_arr_at(j, arr, i)), &raw, &len)) != 0)
			goto out;
		r = alx_view_add_cert(&cs->view, raw, len, 0, NULL);
		if (r == ALX_ERR_REVOKED || r == ALX_ERR_WRONG_ROLE)
			gone++;
		else if (r == ALX_ERR_NOMEM || r == ALX_ERR_TOO_LARGE)
			goto out;
		else if (r != 0 && r != ALX_ERR_EXISTS) {
			*untrusted = 1;
			goto out;
		}
	}
	r = 0;
	if (gone > 0)
		log_debug("target: %zu revoked or rotated participant(s) left "
		    "out", gone);
out:
	alx_json_free(j);
	return r;
}

/* --to NAME|FP (repeatable) and --reply-to ITEM into p. */
int
item_targets(struct alxs_sess *cs, struct alxs_item_post *p)
{
	const struct client_ctx	*ctx = cs->arg;
	const struct cmd_args	*a = &ctx->args;
	const char		*v;
	char			*cause = NULL;
	size_t			 i;
	int			 r, untrusted;

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
	if (cs->view.cursor == 0 &&
	    (r = target_load_members(cs, &untrusted)) != 0) {
		if (untrusted)
			return out_fail_code(EXIT_VERIFY, r, "the relay's "
			    "participant list has a certificate that does not "
			    "verify; it was not trusted");
		return csess_fail(cs, r, "cannot read the session's "
		    "participants");
	}
	for (i = 0; (v = args_nth(a, "to", i)) != NULL; i++) {
		if (i >= ALX_MAX_TO)
			return out_usage("--to: at most %d", ALX_MAX_TO);
		if (p->nto == 0 && (p->to = calloc(ALX_MAX_TO,
		    ALX_FP_LEN)) == NULL)
			return EXIT_FAIL;
		if (alxs_sess_resolve(cs, v, p->to[p->nto], &cause) != 0) {
			r = out_fail(ALX_ERR_NOT_FOUND, "--to: %s", cause ?
			    cause : v);
			free(cause);
			return r;
		}
		p->nto++;
	}
	return 0;
}
