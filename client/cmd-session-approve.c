/*
 * cmd-session-approve.c: "airlox session approve NAME|FP": the owner
 * approves exactly one runner key, under a name and labels, in a new
 * manifest version; "--remove" un-approves it, which stops new work for it
 * at once.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"
#include "client-job.h"

static const struct cmd_opt cmd_session_approve_opts[] = {
	{ "label", "LABEL", OPT_MULTI, "a label jobs may target the runner by "
	    "(pool/LABEL; default: none)" },
	{ "as", "NAME", 0, "the name jobs address the runner by (default: the "
	    "name it joined with)" },
	{ "remove", NULL, 0, "un-approve the runner instead" },
	{ "accept-weaker", NULL, 0, "approve even when the runner's verify "
	    "report has a FAIL, or it posted none" },
	{ NULL, NULL, 0, NULL }
};

int
session_approve(struct alxs_sess *cs, const struct alx_view_member *m,
    const char *name, const char *const *labels, size_t nlabels, int remove,
    int64_t *ver)
{
	struct alx_manifest	 next;
	struct alx_signkey	 owner;
	struct alx_private	 priv;
	uint8_t			 ekey[ALX_KEY_LEN];
	const struct alx_manifest *cur = alx_view_manifest(&cs->view);
	int			 r;

	memset(&next, 0, sizeof(next));
	if ((r = alx_view_private(&cs->view, &priv)) != 0)
		return r;
	if ((r = alx_view_epoch_key(&cs->view, cur->epoch, ekey)) != 0 ||
	    (r = alxs_sess_owner_update(cs, &next, &owner)) != 0)
		goto out;
	if (remove)
		r = alx_manifest_unapprove(&next, m->cert.fp);
	else {
		(void)alx_manifest_unapprove(&next, m->cert.fp);
		r = alx_manifest_approve(&next, m->cert.fp, name, labels,
		    nlabels);
	}
	if (r != 0 || (r = alx_manifest_finish(&next, &owner, ekey,
	    &priv)) != 0 || (r = alxs_sess_put_manifest(cs, &next)) != 0)
		goto out;
	*ver = next.ver;
out:
	alx_sign_wipe(&owner);
	alx_wipe(ekey, sizeof(ekey));
	alx_private_free(&priv);
	alx_manifest_free(&next);
	return r;
}

static int
cmd_session_approve_exec(struct client_ctx *ctx)
{
	const struct alx_view_member	*m;
	const struct verify_report	*rep;
	struct verify_reports		 reports;
	struct alxs_sess			 cs;
	struct alx_jw			 jw;
	const char			*labels[ALX_MAX_LABELS], *name;
	uint8_t				 fp[ALX_FP_LEN];
	char				*cause = NULL, fps[ALX_FP_STRLEN + 1];
	char				 nbuf[ALX_DISPLAY_MAX + 1];
	size_t				 nlabels = 0;
	int64_t				 ver = 0;
	int				 r, remove;

	memset(&reports, 0, sizeof(reports));
	remove = args_has(&ctx->args, "remove");
	while (nlabels < ALX_MAX_LABELS && (labels[nlabels] =
	    args_nth(&ctx->args, "label", nlabels)) != NULL)
		if (!alx_name_valid(labels[nlabels++]))
			return out_usage("--label %s: not a valid label",
			    labels[nlabels - 1]);
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0)
		goto out;
	if (!alxs_sess_is_owner(&cs)) {
		r = out_fail(ALX_ERR_WRONG_ROLE, "only the owner can approve "
		    "runners (this is %s invite)", alxs_a_role(cs.inv.role));
		goto out;
	}
	if ((r = alxs_sess_replay(&cs, verify_reports_event, &reports)) != 0) {
		r = out_fail(r, "cannot read the session's log");
		goto out;
	}
	if (alxs_sess_resolve(&cs, ctx->args.pos[0], fp, &cause) != 0) {
		r = out_fail(ALX_ERR_NOT_FOUND, "%s", cause);
		goto out;
	}
	m = alx_view_member_by_fp(&cs.view, fp);
	if (m->cert.role != ALX_ROLE_RUNNER) {
		r = out_usage("%s is %s, not a runner", ctx->args.pos[0],
		    alxs_a_role(m->cert.role));
		goto out;
	}
	/* A copy: the view's members move as others join while we wait. */
	name = args_get(&ctx->args, "as");
	snprintf(nbuf, sizeof(nbuf), "%s", name != NULL ? name : m->cert.name);
	name = nbuf;
	if (!alx_name_valid(name)) {
		r = out_usage("the runner's name \"%s\" cannot address jobs; "
		    "give --as NAME", name);
		goto out;
	}
	/* Its boundary first: the report it posted, or the one it will. */
	if (!remove) {
		if ((rep = verify_reports_find(&reports, fp)) == NULL &&
		    !args_has(&ctx->args, "accept-weaker"))
			rep = verify_report_await(&cs, &reports, fp,
			    VERIFY_REPORT_WAIT);
		if ((r = verify_report_gate(ctx, name, rep)) != 0)
			goto out;
		if ((m = alx_view_member_by_fp(&cs.view, fp)) == NULL) {
			r = out_fail(ALX_ERR_NOT_FOUND, "the runner %s left",
			    name);
			goto out;
		}
	}
	if ((r = session_approve(&cs, m, name, labels, nlabels, remove,
	    &ver)) != 0) {
		r = out_fail(r, "the relay did not take the new manifest");
		goto out;
	}
	alx_b64_encode(fps, fp, ALX_FP_LEN);
	if (out_json()) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "event", remove ? "unapproved" : "approved");
		alx_jw_kstr(&jw, "fp", fps);
		alx_jw_kstr(&jw, "name", name);
		alx_jw_kint(&jw, "version", ver);
		r = out_obj_end(&jw);
	} else {
		printf("%s runner %s (key %s); manifest version %lld\n",
		    remove ? "un-approved" : "approved", name, fps,
		    (long long)ver);
		r = EXIT_OK;
	}
out:
	verify_reports_free(&reports);
	free(cause);
	alxs_sess_close(&cs);
	return r;
}

const struct cmd_entry cmd_session_approve_entry = {
	"session approve", "NAME|FP", 1, 1, cmd_session_approve_opts,
	CMD_INVITE | CMD_PARTICIPANT, cmd_session_approve_exec,
	"approve exactly one runner key (or --remove it) (owner only)"
};
