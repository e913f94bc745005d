/*
 * cmd-result.c: "airlox result [--on NAME] [--wait D] -- JOB": the signed
 * result of a job posted earlier (with --no-wait, or by a process that is
 * gone), verified and bound to that job before it is shown. A working
 * tree the job sent is kept as confirmed when the result says the runner
 * holds it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"
#include "client-job.h"
#include "client-tree.h"

static const struct cmd_opt cmd_result_opts[] = {
	{ "on", "NAME", 0, "the machine kept here whose job this is "
	    "(default: the session of AIRLOX_INVITE)" },
	{ "wait", "DURATION", 0, "wait this long for a job still running "
	    "(default: do not wait)" },
	{ "save", "DIR", 0, "save the files the job wrote to $AIRLOX_OUT into "
	    "DIR, never overwriting (default: not saved)" },
	{ NULL, NULL, 0, NULL }
};

static int
cmd_result_exec(struct client_ctx *ctx)
{
	struct alxs_sess			 cs;
	struct job_outcome		 o;
	uint8_t				 id[ALX_ID_LEN];
	char				 sid[ALX_B64_ENCLEN(ALX_SID_LEN) + 1];
	int64_t				 wait_s = 0;
	int				 r;

	memset(&o, 0, sizeof(o));
	if ((r = args_duration(&ctx->args, "wait", 0, &wait_s)) != 0 ||
	    (r = run_save_dir(args_get(&ctx->args, "save"))) != 0)
		return r;
	if (alx_b64_decode_exact(id, sizeof(id), ctx->args.pos[0],
	    strlen(ctx->args.pos[0])) != 0)
		return out_usage("%s: not a job id", ctx->args.pos[0]);
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0)
		goto out;
	/* The output first, as the job wrote it, then the footer. */
	r = job_wait(&cs, id, NULL, wait_s > 0 ? wait_s : 1, 1, &o);
	if (r == ALX_ERR_NOT_FOUND) {
		r = out_fail(r, "no job %s in this session", ctx->args.pos[0]);
		goto out;
	}
	if (r == ALX_ERR_EXPIRED && o.unclaimed) {
		out_fail(ALX_ERR_EXPIRED, "job %s expired: no runner took it "
		    "in time, and none will", ctx->args.pos[0]);
		r = RUN_EXIT_LOST;
		goto out;
	}
	if (r == ALX_ERR_EXPIRED) {
		r = out_fail(ALX_ERR_EXPIRED, "no result yet for job %s",
		    ctx->args.pos[0]);
		goto out;
	}
	if (r != 0) {
		r = out_fail(r, "the job's result could not be verified");
		goto out;
	}
	/* A tree sent with --no-wait: the runner confirms it here. */
	alx_b64_encode(sid, cs.inv.sid, ALX_SID_LEN);
	if (ctree_confirm_pending(sid, o.rm.env) == 0 && !out_json())
		fprintf(stderr, "tree: the runner holds the tree this job "
		    "sent; the next run sends only changes\n");
	run_print_result(&o, ctx->args.pos[0],
	    args_get(&ctx->args, "save") != NULL);
	r = run_exit_code(&o.rm);
	if (args_get(&ctx->args, "save") != NULL)
		r = run_save(&cs, &o, args_get(&ctx->args, "save"), r);
out:
	job_outcome_free(&o);
	alxs_sess_close(&cs);
	return r;
}

const struct cmd_entry cmd_result_entry = {
	"result", "JOB", 1, 1, cmd_result_opts, CMD_INVITE | CMD_PARTICIPANT,
	cmd_result_exec,
	"print the verified result of a job posted earlier"
};
