/*
 * client-concern.c: what wakes a listener.
 *
 * An item concerns this participant when it is addressed to it (`to`), or
 * when it has no `to` and either answers one of its own items (job results
 * included) or comes from the owner (the owner's messages to everyone). A
 * message without `to` wakes only the author it replies to, unless the
 * owner sent it. Own items, jobs, progress and cancels never wake. --from
 * keeps only one author (the owner, a display name or a fingerprint); a
 * reply chain of more than --max-hops agent posts in a row, with no person
 * in between, wakes no one (two agents answering each other stop).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"

static int
concern_kind(const char *kind)
{
	return strcmp(kind, "text") == 0 || strcmp(kind, "file") == 0 ||
	    strcmp(kind, "result") == 0 || strcmp(kind, "report") == 0;
}

/* Agent posts in a row up the reply chain, ending at this item. */
static int64_t
concern_hops(const struct alxs_sess *cs, const struct alxs_sess_item *ci)
{
	int64_t	hops = 0;
	size_t	guard = 0;

	while (ci != NULL && guard++ < cs->nitems + 1) {
		if (ci->author_kind == ALX_PKIND_PERSON)
			break;
		if (ci->author_kind == ALX_PKIND_AGENT)
			hops++;
		if (!ci->has_reply)
			break;
		ci = alxs_sess_item(cs, ci->reply_to);
	}
	return hops;
}

int
concern_from(struct alxs_sess *cs, const char *from, struct concern_opts *o,
    char **cause)
{
	(void)cs;
	*cause = NULL;
	o->from_set = 1;
	if (strcmp(from, "owner") == 0) {
		o->from_owner = 1;
		return 0;
	}
	if (strlen(from) == ALX_FP_STRLEN && alx_b64_decode_exact(o->from_fp,
	    ALX_FP_LEN, from, ALX_FP_STRLEN) == 0) {
		o->from_fp_set = 1;
		return 0;
	}
	if (!alx_display_valid(from)) {
		*cause = strdup("--from: owner, a display name or a key "
		    "fingerprint");
		return ALX_ERR_INVALID;
	}
	snprintf(o->from_name, sizeof(o->from_name), "%s", from);
	return 0;
}

static int
concern_from_ok(const struct concern_opts *o,
    const struct alx_view_event *ev)
{
	const struct alx_view_member	*m = ev->member;

	if (!o->from_set)
		return 1;
	if (m == NULL)
		return 0;
	if (o->from_owner)
		return m->cert.role == ALX_ROLE_OWNER;
	if (o->from_fp_set)
		return alx_ct_eq(m->cert.fp, o->from_fp, ALX_FP_LEN);
	return strcmp(m->cert.name, o->from_name) == 0;
}

int
concern_item(const struct alxs_sess *cs, const struct concern_opts *o,
    const struct alx_view_event *ev)
{
	const struct alx_item	*it = &ev->item;
	const struct alxs_sess_item	*ci, *parent;
	int			 yes;

	if (ev->type != ALX_EV_ITEM || !concern_kind(it->kind))
		return 0;
	if (alx_ct_eq(it->author, cs->view.me_fp, ALX_FP_LEN))
		return 0;
	if (!concern_from_ok(o, ev))
		return 0;
	if (it->nto > 0)
		yes = alx_item_is_to(it, cs->view.me_fp);
	else if (ev->member != NULL && ev->member->cert.role == ALX_ROLE_OWNER)
		yes = 1;
	else if (it->has_reply_to) {
		parent = alxs_sess_item(cs, it->reply_to);
		yes = parent != NULL && alx_ct_eq(parent->author,
		    cs->view.me_fp, ALX_FP_LEN);
	} else
		yes = 0;
	if (!yes)
		return 0;
	if ((ci = alxs_sess_item(cs, it->id)) != NULL && o->max_hops > 0 &&
	    concern_hops(cs, ci) > o->max_hops)
		return 0;
	return 1;
}
