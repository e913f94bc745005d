/*
 * cmd-read.c: "airlox read ITEM...": print items by id, verified (programs
 * started by listen --exec get ids, never text, and read them with this).
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "airlox.h"
#include "client.h"

static const struct cmd_opt cmd_read_opts[] = {
	{ "save", "DIR", 0, "save files into DIR, never overwriting "
	    "(default: files are not saved)" },
	{ "wait", "DURATION", 0, "wait this long for an item or its chunks "
	    "to arrive (default: 60s)" },
	{ NULL, NULL, 0, NULL }
};

struct read_state {
	uint8_t		(*ids)[ALX_ID_LEN];
	int		*done;
	int		 n;
	int		 left;
	const char	*save;
	int64_t		 wait;
};

static int
read_event(struct alxs_sess *cs, const struct alx_view_event *ev, void *arg)
{
	struct read_state	*rs = arg;
	int			 i;

	if (ev->type != ALX_EV_ITEM && ev->type != ALX_EV_REFUSED)
		return 0;
	for (i = 0; i < rs->n; i++) {
		if (rs->done[i] || memcmp(rs->ids[i], ev->item.id,
		    ALX_ID_LEN) != 0)
			continue;
		rs->done[i] = 1;
		rs->left--;
		if (ev->type == ALX_EV_REFUSED) {
			item_refused(cs, ev);
			return 0;
		}
		/* Saving waits for chunks still being uploaded. */
		return item_show(cs, ev, rs->save, "item");
	}
	return 0;
}

static int
cmd_read_exec(struct client_ctx *ctx)
{
	struct read_state	 rs;
	struct alxs_sess		 cs;
	struct stat		 st;
	int			 i, r;
	time_t			 end;

	memset(&rs, 0, sizeof(rs));
	memset(&cs, 0, sizeof(cs));
	rs.n = ctx->args.npos;
	rs.left = rs.n;
	rs.save = args_get(&ctx->args, "save");
	if (args_duration(&ctx->args, "wait", 60, &rs.wait) != 0)
		return EXIT_USAGE;
	if (rs.save != NULL && (stat(rs.save, &st) != 0 ||
	    !S_ISDIR(st.st_mode)))
		return out_usage("--save %s: not a directory", rs.save);
	rs.ids = calloc(rs.n, ALX_ID_LEN);
	rs.done = calloc(rs.n, sizeof(int));
	if (rs.ids == NULL || rs.done == NULL)
		return EXIT_FAIL;
	for (i = 0; i < rs.n; i++)
		if (strlen(ctx->args.pos[i]) != ALX_FP_STRLEN ||
		    alx_b64_decode_exact(rs.ids[i], ALX_ID_LEN,
		    ctx->args.pos[i], ALX_FP_STRLEN) != 0) {
			r = out_usage("not an item id: %s", ctx->args.pos[i]);
			goto out;
		}
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0)
		goto out;
	cs.chunk_wait = rs.wait;
	r = alxs_sess_replay(&cs, read_event, &rs);
	end = time(NULL) + (time_t)rs.wait;
	while (r == 0 && rs.left > 0 && time(NULL) < end)
		r = alxs_sess_poll(&cs, (int)(end - time(NULL)) > 25 ? 25 :
		    (int)(end - time(NULL)) + 1, read_event, &rs);
	if (r != 0)
		r = csess_fail(&cs, r, "cannot read the items");
	else if (cs.passed_over > 0)
		r = out_fail_code(EXIT_VERIFY, cs.passed_why, "%d of the items "
		    "were passed over (see above)", cs.passed_over);
	else if (rs.left > 0) {
		for (i = 0; i < rs.n; i++)
			if (!rs.done[i])
				break;
		r = out_fail(ALX_ERR_NOT_FOUND, "no item %s in this session",
		    ctx->args.pos[i]);
	}
out:
	alxs_sess_close(&cs);
	free(rs.ids);
	free(rs.done);
	return r;
}

const struct cmd_entry cmd_read_entry = {
	"read", "ITEM...", 1, 64, cmd_read_opts, CMD_INVITE | CMD_PARTICIPANT,
	cmd_read_exec, "print items by id, verified (files saved with --save)"
};
