/*
 * cmd-session-close.c: "airlox session close": the owner ends the session;
 * the relay deletes it and tells every stream. Only the owner may (the
 * relay checks; other roles get exit status 3).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "airlox.h"
#include "client.h"

static const struct cmd_opt cmd_session_close_opts[] = {
	{ NULL, NULL, 0, NULL }
};

static int
cmd_session_close_exec(struct client_ctx *ctx)
{
	struct alxs_sess		 cs;
	struct alx_notice	 n;
	struct alxs_resp	 resp;
	struct alx_jw		 jw;
	char			 path[128];
	int			 r;

	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0) {
		alxs_sess_close(&cs);
		return r;
	}
	memset(&n, 0, sizeof(n));
	snprintf(n.type, sizeof(n.type), "close");
	memcpy(n.sid, cs.inv.sid, ALX_SID_LEN);
	n.time = alxs_http_now(&cs.http);
	if ((r = alx_notice_sign(&n, &cs.me.sk)) != 0) {
		alxs_sess_close(&cs);
		return out_fail(r, "cannot sign the close notice");
	}
	alxs_sess_path(&cs, path, sizeof(path), "%s", "");
	r = alxs_http_request(&cs.http, "DELETE", path, n.obj.raw,
	    n.obj.raw_len,
	    NULL, 1, 4096, &resp);
	alx_notice_free(&n);
	if (r == ALX_ERR_WRONG_ROLE || r == ALX_ERR_FORBIDDEN)
		r = out_fail(r, "only the owner can close the session (this "
		    "is %s invite)", alxs_a_role(cs.inv.role));
	else if (r != 0)
		r = out_fail(r, "the session was not closed%s%s",
		    resp.message ? ": " : "", resp.message ? resp.message : "");
	else if (ctx->json) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "event", "closed");
		alx_jw_kstr(&jw, "sid", cs.sidstr);
		out_obj_end(&jw);
	} else
		printf("session %s closed\n", cs.sidstr);
	alxs_http_resp_free(&resp);
	alxs_sess_close(&cs);
	return r;
}

const struct cmd_entry cmd_session_close_entry = {
	"session close", "", 0, 0, cmd_session_close_opts,
	CMD_INVITE | CMD_PARTICIPANT, cmd_session_close_exec,
	"close the session for everyone (owner only)"
};
