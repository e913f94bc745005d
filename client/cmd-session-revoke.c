/*
 * cmd-session-revoke.c: "airlox session revoke NAME|FP": the owner revokes
 * a participant. The new manifest lists its key as revoked and starts a
 * new epoch it cannot read; its role's invite is rotated too (the revoked
 * participant holds it and could join again with a new key), and every
 * other participant of that role carries on. The new invite is printed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"

static const struct cmd_opt cmd_session_revoke_opts[] = {
	{ NULL, NULL, 0, NULL }
};

static int
revoke_print(struct alxs_sess *cs, const struct alx_view_member *m,
    int64_t ver, const char *link)
{
	struct alx_jw	jw;
	char		fps[ALX_FP_STRLEN + 1];

	alx_b64_encode(fps, m->cert.fp, ALX_FP_LEN);
	if (out_json()) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "event", "revoked");
		alx_jw_kstr(&jw, "fp", fps);
		alx_jw_kstr(&jw, "name", m->cert.name);
		alx_jw_kstr(&jw, "role", alx_role_name(m->cert.role));
		alx_jw_kint(&jw, "version", ver);
		alx_jw_kstr(&jw, "invite", link);
		out_obj_end(&jw);
		return EXIT_OK;
	}
	printf("revoked %s (", fps);
	out_safe(stdout, m->cert.name, strlen(m->cert.name));
	printf(", %s); manifest version %lld.\nThe %s invite was rotated; "
	    "participants who joined carry on. New %s invite:\n  %s\n",
	    alx_role_name(m->cert.role), (long long)ver,
	    alx_role_name(m->cert.role), alx_role_name(m->cert.role), link);
	(void)cs;
	return EXIT_OK;
}

static int
cmd_session_revoke_exec(struct client_ctx *ctx)
{
	const struct alx_view_member	*m;
	struct alxs_sess			 cs;
	uint8_t				 fp[ALX_FP_LEN], seed[ALX_SEED_LEN];
	char				*cause = NULL, *link = NULL;
	int64_t				 ver = 0;
	int				 r, role;

	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0)
		goto out;
	if (!alxs_sess_is_owner(&cs)) {
		r = out_fail(ALX_ERR_WRONG_ROLE, "only the owner can revoke "
		    "(this is %s invite)", alxs_a_role(cs.inv.role));
		goto out;
	}
	if ((r = alxs_sess_replay(&cs, NULL, NULL)) != 0) {
		r = csess_fail(&cs, r, "cannot read the session's log");
		goto out;
	}
	if (alxs_sess_resolve(&cs, ctx->args.pos[0], fp, &cause) != 0) {
		r = out_fail(ALX_ERR_NOT_FOUND, "%s", cause);
		goto out;
	}
	m = alx_view_member_by_fp(&cs.view, fp);
	if (m->cert.role == ALX_ROLE_OWNER) {
		r = out_usage("the owner cannot be revoked; close the session");
		goto out;
	}
	role = m->cert.role;
	if ((r = alxs_sess_rekey(&cs, fp, role, seed, &ver)) != 0) {
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
	r = revoke_print(&cs, m, ver, link);
out:
	alx_wipe(seed, sizeof(seed));
	alx_wipe_str(link);
	free(cause);
	alxs_sess_close(&cs);
	return r;
}

const struct cmd_entry cmd_session_revoke_entry = {
	"session revoke", "NAME|FP", 1, 1, cmd_session_revoke_opts,
	CMD_INVITE | CMD_PARTICIPANT, cmd_session_revoke_exec,
	"revoke a participant and rotate its role's invite (owner only)"
};
