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
	{ "timeout", "DURATION", 0, "how long to wait for each answer of the "
	    "code's creator before giving up (default: 60s)" },
	{ NULL, NULL, 0, NULL }
};

static int
cmd_receive_exec(struct client_ctx *ctx)
{
	struct alx_invite	 inv;
	struct alx_jw		 jw;
	char			*invite = NULL, sid[ALX_FP_STRLEN + 1];
	struct alxs_conf	 conf;
	int64_t			 answer_s;
	int			 r, gone;

	if ((r = args_duration(&ctx->args, "timeout", ALXS_CODE_ANSWER_S,
	    &answer_s)) != 0)
		return r;
	if (answer_s <= 0)
		return out_usage("--timeout: must be above zero (like 60s)");
	client_conf(ctx, &conf);
	r = alxs_code_receive(&conf, ctx->args.pos[0], answer_s, &invite,
	    &gone);
	if (r != 0)
		return code_receive_fail(r, gone, answer_s);
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
