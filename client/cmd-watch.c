/*
 * cmd-watch.c: "airlox watch": print items as they arrive, verified. Files
 * are saved only with --save DIR, once all their chunks are stored, and
 * never over an existing file.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"

static const struct cmd_opt cmd_watch_opts[] = {
	{ "save", "DIR", 0, "save files into DIR, never overwriting "
	    "(default: files are not saved)" },
	{ "all", NULL, 0, "print the items already in the session first "
	    "(default: only new ones)" },
	{ "timeout", "DURATION", 0, "stop after this long (default: run "
	    "until the session ends or Ctrl-C)" },
	{ NULL, NULL, 0, NULL }
};

struct watch_pending {
	char	*raw;
	size_t	 len;
	uint8_t	 author[ALX_FP_LEN];
	int64_t	 cursor;
	uint8_t	 id[ALX_ID_LEN];
};

struct watch_state {
	const char		*save;
	int			 live;		/* past the replay */
	int			 all;
	struct watch_pending	*pend;
	size_t			 npend;
	int			 closed;
};

static int
watch_defer(struct watch_state *w, const struct alx_view_event *ev)
{
	struct watch_pending	*p;

	p = reallocarray(w->pend, w->npend + 1, sizeof(*p));
	if (p == NULL)
		return ALX_ERR_NOMEM;
	w->pend = p;
	p = &w->pend[w->npend];
	if ((p->raw = malloc(ev->item.obj.raw_len)) == NULL)
		return ALX_ERR_NOMEM;
	memcpy(p->raw, ev->item.obj.raw, ev->item.obj.raw_len);
	p->len = ev->item.obj.raw_len;
	memcpy(p->author, ev->item.author, ALX_FP_LEN);
	memcpy(p->id, ev->item.id, ALX_ID_LEN);
	p->cursor = ev->cursor;
	w->npend++;
	return 0;
}

/* All chunks of a deferred file are stored: open it again and show it. */
static int
watch_complete(struct alxs_sess *cs, struct watch_state *w,
    const uint8_t id[ALX_ID_LEN])
{
	struct alx_view_event	 ev;
	struct watch_pending	*p;
	size_t			 i;
	int			 r;

	for (i = 0; i < w->npend; i++)
		if (memcmp(w->pend[i].id, id, ALX_ID_LEN) == 0)
			break;
	if (i == w->npend)
		return 0;
	p = &w->pend[i];
	memset(&ev, 0, sizeof(ev));
	ev.cursor = p->cursor;
	ev.type = ALX_EV_ITEM;
	ev.member = alx_view_member_by_fp(&cs->view, p->author);
	r = ev.member == NULL ? ALX_ERR_UNKNOWN_KEY :
	    alx_item_open(&ev.item, p->raw, p->len, cs->inv.sid,
	    ev.member->cert.pk);
	if (r == 0)
		r = item_show(cs, &ev, w->save, "item");
	alx_item_free(&ev.item);
	free(p->raw);
	w->pend[i] = w->pend[--w->npend];
	return r;
}

static int
watch_event(struct alxs_sess *cs, const struct alx_view_event *ev, void *arg)
{
	struct watch_state	*w = arg;
	const struct alxs_sess_item	*ci;

	if (ev->type == ALX_EV_CLOSED) {
		w->closed = 1;
		return w->live ? 1 : 0;
	}
	if (ev->type == ALX_EV_COMPLETE)
		return w->save != NULL ? watch_complete(cs, w, ev->id) : 0;
	if (!w->live && !w->all)
		return 0;
	/* An item its author had no right to post: say so, read on. */
	if (ev->type == ALX_EV_REFUSED) {
		item_refused(cs, ev);
		return 0;
	}
	if (ev->type != ALX_EV_ITEM)
		return 0;
	ci = alxs_sess_item(cs, ev->item.id);
	if (w->save != NULL && strcmp(ev->item.kind, "file") == 0 &&
	    ev->item.size > 0 && (ci == NULL || !ci->complete))
		return watch_defer(w, ev);
	return item_show(cs, ev, w->save, "item");
}

static int
cmd_watch_exec(struct client_ctx *ctx)
{
	struct watch_state	 w;
	struct alxs_sess		 cs;
	struct stat		 st;
	struct alx_jw		 jw;
	int64_t			 timeout;
	size_t			 i;
	int			 r;

	memset(&w, 0, sizeof(w));
	w.save = args_get(&ctx->args, "save");
	w.all = args_has(&ctx->args, "all");
	if (args_duration(&ctx->args, "timeout", 0, &timeout) != 0)
		return EXIT_USAGE;
	if (w.save != NULL && (stat(w.save, &st) != 0 || !S_ISDIR(st.st_mode)))
		return out_usage("--save %s: not a directory", w.save);
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0) {
		alxs_sess_close(&cs);
		return r;
	}
	r = alxs_sess_replay(&cs, watch_event, &w);
	w.live = 1;
	if (r == 0 && !w.closed)
		r = alxs_sess_stream(&cs, timeout * 1000, watch_event, &w);
	if (r == ALX_ERR_EXPIRED && timeout > 0)
		r = 0;
	if (r == 0 && w.closed) {
		if (out_json()) {
			out_obj_begin(&jw);
			alx_jw_kstr(&jw, "event", "closed");
			out_obj_end(&jw);
		} else
			printf("the session was closed\n");
	}
	if (r != 0)
		r = csess_fail(&cs, r, "watching stopped");
	for (i = 0; i < w.npend; i++)
		free(w.pend[i].raw);
	free(w.pend);
	alxs_sess_close(&cs);
	return r;
}

const struct cmd_entry cmd_watch_entry = {
	"watch", "", 0, 0, cmd_watch_opts, CMD_INVITE | CMD_PARTICIPANT,
	cmd_watch_exec,
	"print items as they arrive (files saved only with --save)"
};
