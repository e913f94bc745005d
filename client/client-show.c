/*
 * client-show.c: printing a verified item for people or as JSON.
 *
 * Only items the view accepted reach here. Text from peers is printed with
 * control characters replaced, so an item cannot drive the terminal.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"

struct show_meta {
	struct alx_json	*j;
	char		*raw;
	size_t		 len;
	int		 err;		/* opening the meta failed */
};

static void
show_meta_open(struct alxs_sess *cs, const struct alx_item *it,
    struct show_meta *sm)
{
	memset(sm, 0, sizeof(*sm));
	if ((sm->err = alxs_item_meta(cs, it, &sm->raw, &sm->len)) != 0)
		return;
	if ((sm->err = alx_json_parse(&sm->j, sm->raw, sm->len, NULL)) != 0 ||
	    alx_json_type(sm->j, 0) != ALX_JSON_OBJECT) {
		sm->err = ALX_ERR_BAD_JSON;
		alx_json_free(sm->j);
		sm->j = NULL;
	}
}

static void
show_meta_free(struct show_meta *sm)
{
	alx_json_free(sm->j);
	if (sm->raw != NULL) {
		alx_wipe(sm->raw, sm->len);
		free(sm->raw);
	}
}

static char *
show_str(const struct show_meta *sm, const char *key, size_t max)
{
	char	*s = NULL;

	if (sm->j == NULL || alx_json_get_str(sm->j, 0, key, &s, max) != 0)
		return NULL;
	return s;
}

static void
show_member_json(struct alx_jw *jw, const struct alx_view_member *m,
    const uint8_t fp[ALX_FP_LEN])
{
	alx_jw_key(jw, "author");
	alx_jw_obj_begin(jw);
	alx_jw_kb64(jw, "fp", fp, ALX_FP_LEN);
	if (m != NULL) {
		alx_jw_kstr(jw, "name", m->cert.name);
		alx_jw_kstr(jw, "role", alx_role_name(m->cert.role));
		alx_jw_kstr(jw, "kind", alx_pkind_name(m->cert.kind));
	}
	alx_jw_obj_end(jw);
}

static void
show_json(struct alxs_sess *cs, const struct alx_view_event *ev,
    const struct show_meta *sm, const char *event, const char *saved)
{
	const struct alx_item	*it = &ev->item;
	struct alx_jw		 jw;
	size_t			 i;
	char			*s;

	out_obj_begin(&jw);
	alx_jw_kstr(&jw, "event", event);
	alx_jw_kint(&jw, "cursor", ev->cursor);
	alx_jw_kb64(&jw, "id", it->id, ALX_ID_LEN);
	alx_jw_kstr(&jw, "kind", it->kind);
	alx_jw_kint(&jw, "time", it->time);
	show_member_json(&jw, ev->member, it->author);
	alx_jw_key(&jw, "to");
	alx_jw_arr_begin(&jw);
	for (i = 0; i < it->nto; i++)
		alx_jw_b64(&jw, it->to[i], ALX_FP_LEN);
	alx_jw_arr_end(&jw);
	if (it->has_reply_to)
		alx_jw_kb64(&jw, "reply_to", it->reply_to, ALX_ID_LEN);
	alx_jw_kint(&jw, "size", it->size);
	if (sm->err != 0)
		alx_jw_kstr(&jw, "unreadable", alx_errname(sm->err));
	else if (strcmp(it->kind, "text") == 0) {
		if ((s = show_str(sm, "text", ALX_META_MAX)) != NULL)
			alx_jw_kstr(&jw, "text", s);
		free(s);
	} else if (strcmp(it->kind, "file") == 0) {
		alx_jw_key(&jw, "file");
		alx_jw_obj_begin(&jw);
		if ((s = show_str(sm, "name", 1024)) != NULL)
			alx_jw_kstr(&jw, "name", s);
		free(s);
		if ((s = show_str(sm, "type", 64)) != NULL)
			alx_jw_kstr(&jw, "type", s);
		free(s);
		if (saved != NULL)
			alx_jw_kstr(&jw, "saved", saved);
		alx_jw_obj_end(&jw);
	} else if (sm->j != NULL) {
		alx_jw_key(&jw, "meta");
		alx_jw_raw(&jw, sm->raw, sm->len);
	}
	out_obj_end(&jw);
	alx_wipe(&jw, sizeof(jw));
}

static void
show_text(struct alxs_sess *cs, const struct alx_view_event *ev,
    const struct show_meta *sm, const char *saved)
{
	const struct alx_item		*it = &ev->item;
	const struct alx_view_member	*m = ev->member;
	char				 when[32], id[ALX_FP_STRLEN + 1];
	char				*s, *t;
	size_t				 i;

	out_time(when, sizeof(when), it->time);
	alx_b64_encode(id, it->id, ALX_ID_LEN);
	printf("%s ", when);
	if (m != NULL) {
		out_safe(stdout, m->cert.name, strlen(m->cert.name));
		printf(" (%s, %s)", alx_role_name(m->cert.role),
		    alx_pkind_name(m->cert.kind));
	}
	printf(" %s %s", it->kind, id);
	if (it->nto > 0) {
		printf(" to");
		for (i = 0; i < it->nto; i++) {
			s = (char *)alxs_sess_member_name(cs, it->to[i]);
			printf("%s ", i ? "," : "");
			out_safe(stdout, s, strlen(s));
		}
	}
	if (it->has_reply_to) {
		alx_b64_encode(id, it->reply_to, ALX_ID_LEN);
		printf(" reply to %s", id);
	}
	printf("\n");
	if (sm->err != 0)
		printf("  (not readable by this participant: %s)\n",
		    alx_errname(sm->err));
	else if (strcmp(it->kind, "text") == 0 &&
	    (s = show_str(sm, "text", ALX_META_MAX)) != NULL) {
		printf("  ");
		out_safe_indent(stdout, s, strlen(s), "  ");
		printf("\n");
		free(s);
	} else if (strcmp(it->kind, "file") == 0) {
		s = show_str(sm, "name", 1024);
		t = show_str(sm, "type", 64);
		printf("  file ");
		out_safe_indent(stdout, s ? s : "?", s ? strlen(s) : 1, "  ");
		printf(" (");
		out_safe_indent(stdout, t ? t : "?", t ? strlen(t) : 1, "  ");
		printf(", %lld bytes)%s%s\n", (long long)it->size,
		    saved ? ", saved as " : "", saved ? saved : "");
		free(s);
		free(t);
	} else if (sm->j != NULL) {
		printf("  ");
		out_safe_indent(stdout, sm->raw, sm->len, "  ");
		printf("\n");
	}
	fflush(stdout);
}

/* Tell the relay this participant read the item (its author's receipt). */
static void
show_ack(struct alxs_sess *cs, const struct alx_item *it)
{
	struct alxs_resp	resp;
	char			path[160], id[ALX_FP_STRLEN + 1];

	if (memcmp(it->author, cs->view.me_fp, ALX_FP_LEN) == 0)
		return;
	alx_b64_encode(id, it->id, ALX_ID_LEN);
	alxs_sess_path(cs, path, sizeof(path), "/items/%s", id);
	alxs_http_request(&cs->http, "GET", path, NULL, 0, NULL, 1,
	    ALX_ITEM_BODY_MAX * 2, &resp);
	alxs_http_resp_free(&resp);
}

/*
 * An item the reader passes over, with the reason, naming its author (a
 * participant, who answers for what it signed): a warning on stderr, and
 * with --json a {"event":"passed_over"} line.
 */
void
item_passed_over(struct alxs_sess *cs, const struct alx_view_event *ev,
    int why, const char *what)
{
	const struct alx_view_member	*m = ev->member;
	struct alx_jw			 jw;
	char				 id[ALX_FP_STRLEN + 1];
	char				 fp[ALX_FP_STRLEN + 1];

	cs->passed_over++;
	cs->passed_why = why;
	alx_b64_encode(id, ev->item.id, ALX_ID_LEN);
	alx_b64_encode(fp, ev->item.author, ALX_FP_LEN);
	fflush(stdout);
	fprintf(stderr, "airlox: %s item %s from ", ev->item.kind, id);
	if (m != NULL) {
		out_safe(stderr, m->cert.name, strlen(m->cert.name));
		fprintf(stderr, " (%s, ", alx_role_name(m->cert.role));
	} else
		fprintf(stderr, "(");
	fprintf(stderr, "key %s) %s (%s); passed over\n", fp, what,
	    alx_errname(why));
	if (!out_json())
		return;
	out_obj_begin(&jw);
	alx_jw_kstr(&jw, "event", "passed_over");
	alx_jw_kint(&jw, "cursor", ev->cursor);
	alx_jw_kb64(&jw, "id", ev->item.id, ALX_ID_LEN);
	alx_jw_kstr(&jw, "kind", ev->item.kind);
	show_member_json(&jw, m, ev->item.author);
	alx_jw_kstr(&jw, "error", alx_errname(why));
	out_obj_end(&jw);
}

/* What the view said of an item it passed over (ALX_EV_REFUSED). */
void
item_refused(struct alxs_sess *cs, const struct alx_view_event *ev)
{
	const char	*what;

	switch (ev->refused) {
	case ALX_ERR_WRONG_ROLE:
		what = strcmp(ev->item.kind, "cancel") == 0 ? "cancels a job "
		    "of another author" : "is of a kind its role may not post";
		break;
	case ALX_ERR_NOT_RECIPIENT:
		what = ev->item.has_job ? "is a job the owner cannot read" :
		    "answers a job that was not given to its author";
		break;
	case ALX_ERR_NOT_FOUND:
		what = "answers no job of this session";
		break;
	case ALX_ERR_EXISTS:
		what = "is a second result for its job";
		break;
	default:
		what = "breaks the session's rules";
	}
	item_passed_over(cs, ev, ev->refused, what);
}

int
item_show(struct alxs_sess *cs, const struct alx_view_event *ev,
    const char *savedir, const char *event)
{
	struct show_meta	 sm;
	char			*saved = NULL, *cause = NULL, *name;
	int			 r = 0;

	show_meta_open(cs, &ev->item, &sm);
	/* Signed, but sealed so that it does not open: its author's doing. */
	if (sm.err == ALX_ERR_DECRYPT || sm.err == ALX_ERR_KEY_COMMIT) {
		show_meta_free(&sm);
		item_passed_over(cs, ev, sm.err, "does not open");
		return 0;
	}
	if (savedir != NULL && strcmp(ev->item.kind, "file") == 0 &&
	    sm.err == 0 && ev->item.size > 0) {
		name = show_str(&sm, "name", 1024);
		r = alxs_item_save(cs, &ev->item, savedir, name, &saved,
		    &cause);
		free(name);
		if (r == ALX_ERR_DECRYPT || r == ALX_ERR_KEY_COMMIT) {
			/* A chunk its author sealed wrong: nothing was kept. */
			free(cause);
			show_meta_free(&sm);
			item_passed_over(cs, ev, r, "has a file that does not "
			    "open");
			return 0;
		}
		if (r != 0) {
			out_warn("%s", cause ? cause : alx_strerror(r));
			free(cause);
			show_meta_free(&sm);
			return r;
		}
	}
	if (saved == NULL)
		show_ack(cs, &ev->item);
	if (out_json())
		show_json(cs, ev, &sm, event, saved);
	else
		show_text(cs, ev, &sm, saved);
	free(saved);
	show_meta_free(&sm);
	return 0;
}
