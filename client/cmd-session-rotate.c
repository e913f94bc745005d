/*
 * cmd-session-rotate.c: "airlox session rotate ROLE": the owner replaces a
 * role's invite. Old links of that role stop working (revoked); those who
 * already joined with it carry on. Prints the new invite.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"

static const struct cmd_opt cmd_session_rotate_opts[] = {
	{ NULL, NULL, 0, NULL }
};

static int
cmd_session_rotate_exec(struct client_ctx *ctx)
{
	struct alxs_sess	 cs;
	struct alx_jw	 jw;
	uint8_t		 seed[ALX_SEED_LEN];
	char		*link = NULL;
	int64_t		 ver = 0;
	int		 r, role;

	if (alx_role_parse(ctx->args.pos[0], &role) != 0 ||
	    role == ALX_ROLE_OWNER)
		return out_usage("session rotate: sender, observer or runner");
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0)
		goto out;
	if (!alxs_sess_is_owner(&cs)) {
		r = out_fail(ALX_ERR_WRONG_ROLE, "only the owner can rotate "
		    "invites (this is %s invite)", alxs_a_role(cs.inv.role));
		goto out;
	}
	if (!alx_view_manifest(&cs.view)->roles[role].present) {
		r = out_usage("this session has no %s role",
		    alx_role_name(role));
		goto out;
	}
	if ((r = alxs_sess_replay(&cs, NULL, NULL)) != 0) {
		r = csess_fail(&cs, r, "cannot read the session's log");
		goto out;
	}
	if ((r = alxs_sess_rekey(&cs, NULL, role, seed, &ver)) != 0) {
		r = out_fail(r, "the relay did not take the new manifest");
		goto out;
	}
	if ((r = alxs_sess_invite(&cs, role, seed, &link)) != 0) {
		r = out_fail(r, "cannot format the new invite");
		goto out;
	}
	if (alxs_cache_invite_update(cs.conf.store_dir, cs.inv.sid, role,
	    link) != 0)
		out_warn("cannot update the kept %s invite",
		    alx_role_name(role));
	if (ctx->json) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "event", "rotated");
		alx_jw_kstr(&jw, "role", alx_role_name(role));
		alx_jw_kint(&jw, "version", ver);
		alx_jw_kstr(&jw, "invite", link);
		out_obj_end(&jw);
	} else
		printf("rotated the %s invite (manifest version %lld); old "
		    "links stop working, joined participants carry on.\n"
		    "New %s invite:\n  %s\n", alx_role_name(role),
		    (long long)ver, alx_role_name(role), link);
out:
	alx_wipe(seed, sizeof(seed));
	alx_wipe_str(link);
	alxs_sess_close(&cs);
	return r;
}

const struct cmd_entry cmd_session_rotate_entry = {
	"session rotate", "ROLE", 1, 1, cmd_session_rotate_opts,
	CMD_INVITE | CMD_PARTICIPANT, cmd_session_rotate_exec,
	"replace a role's invite; old links stop working (owner only)"
};
