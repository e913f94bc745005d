/*
 * cmd-session-code.c: "airlox session code ROLE": hand one role's invite to
 * another machine with a one-time code (alxs_code.c). Needs the owner
 * invite, and the role's invite kept in this machine's cache by session
 * create (or by the last rotation). Waits until the code is used, fails
 * three times or expires, and says which.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"

static const struct cmd_opt cmd_session_code_opts[] = {
	{ "ttl", "DURATION", 0, "give up after this long (default and most: "
	    "10m)" },
	{ NULL, NULL, 0, NULL }
};

static int
cmd_session_code_exec(struct client_ctx *ctx)
{
	struct alxs_sess	 cs;
	char		*link = NULL;
	int64_t		 ttl;
	int		 r, role;

	if (alx_role_parse(ctx->args.pos[0], &role) != 0)
		return out_usage("session code: owner, sender, observer or "
		    "runner");
	if (args_duration(&ctx->args, "ttl", 600, &ttl) != 0)
		return EXIT_USAGE;
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0)
		goto out;
	if (!alxs_sess_is_owner(&cs)) {
		r = out_fail(ALX_ERR_WRONG_ROLE, "only the owner can make "
		    "transfer codes (this is %s invite)",
		    alxs_a_role(cs.inv.role));
		goto out;
	}
	if (role == ALX_ROLE_OWNER)
		link = strdup(ctx->invite);
	else if (!alx_view_manifest(&cs.view)->roles[role].present) {
		r = out_usage("this session has no %s role",
		    alx_role_name(role));
		goto out;
	} else if (alxs_cache_invite_load(cs.conf.store_dir, cs.inv.sid, role,
	    &link) != 0) {
		r = out_fail(ALX_ERR_NOT_FOUND, "this machine does not keep "
		    "the %s invite (only the machine that created the "
		    "session, or rotated the role, does); run airlox "
		    "session rotate %s here first", alx_role_name(role),
		    alx_role_name(role));
		goto out;
	}
	if (link == NULL) {
		r = EXIT_FAIL;
		goto out;
	}
	r = code_create(&cs, role, link, ttl, NULL);
out:
	alx_wipe_str(link);
	alxs_sess_close(&cs);
	return r;
}

const struct cmd_entry cmd_session_code_entry = {
	"session code", "ROLE", 1, 1, cmd_session_code_opts,
	CMD_INVITE | CMD_PARTICIPANT, cmd_session_code_exec,
	"make a one-time transfer code for one role's invite and wait until "
	"it is used (owner only)"
};
