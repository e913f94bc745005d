/*
 * cmd-receive.c: "airlox receive CODE": get an invite from a transfer code
 * made by airlox session code on another machine, and print it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"

static const struct cmd_opt cmd_receive_opts[] = {
	{ NULL, NULL, 0, NULL }
};

static int
cmd_receive_exec(struct client_ctx *ctx)
{
	struct alx_invite	 inv;
	struct alx_jw		 jw;
	char			*invite = NULL, sid[ALX_FP_STRLEN + 1];
	int			 r;

	r = code_receive(ctx, ctx->args.pos[0], &invite);
	if (r == ALX_ERR_BAD_CODE)
		return out_fail(r, "not a transfer code (like 7-guitar-orbit)");
	if (r == ALX_ERR_PAKE)
		return out_fail(r, "wrong code (or it was tampered with); the "
		    "creator counted the attempt");
	if (r == ALX_ERR_NOT_FOUND || r == ALX_ERR_EXPIRED ||
	    r == ALX_ERR_SESSION_EXPIRED)
		return out_fail(r, "no such code on this relay: it was used, "
		    "cancelled or has expired");
	if (r != 0)
		return out_fail(r, "the transfer failed");
	alx_invite_parse(&inv, invite);
	alx_b64_encode(sid, inv.sid, ALX_SID_LEN);
	if (ctx->json) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "event", "invite");
		alx_jw_kstr(&jw, "sid", sid);
		alx_jw_kstr(&jw, "role", alx_role_name(inv.role));
		alx_jw_kstr(&jw, "invite", invite);
		out_obj_end(&jw);
		alx_wipe(&jw, sizeof(jw));
	} else
		printf("%s\n", invite);
	alx_invite_wipe(&inv);
	alx_wipe_str(invite);
	return EXIT_OK;
}

const struct cmd_entry cmd_receive_entry = {
	"receive", "CODE", 1, 1, cmd_receive_opts, CMD_RELAY, cmd_receive_exec,
	"print the invite a transfer code carries (--relay: the code's relay)"
};
