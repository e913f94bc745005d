/*
 * cmd-job.c: "airlox job ls|logs|cancel": jobs after "airlox run" let go
 * of them. ls shows each job's state as the relay keeps it (and why a job
 * waits); logs replays a job's output from the start (-f: until its
 * verified result); cancel posts a signed cancel the runner checks.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"
#include "client-job.h"

static const struct cmd_opt cmd_job_ls_opts[] = {
	{ "on", "NAME", 0, "the machine kept here whose jobs these are "
	    "(default: the session of AIRLOX_INVITE)" },
	{ NULL, NULL, 0, NULL }
};

static int
cmd_job_ls_exec(struct client_ctx *ctx)
{
	struct csession		 cs;
	struct http_resp	 resp;
	struct alx_json		*j = NULL;
	struct alx_jw		 jw;
	char			 path[128], *id = NULL, *state = NULL;
	char			*why = NULL, *by = NULL;
	int			 arr, i, n, t, r;

	if ((r = csess_open(&cs, ctx, CS_JOIN)) != 0)
		goto out;
	csess_path(&cs, path, sizeof(path), "/jobs");
	if ((r = http_request(&cs.http, "GET", path, NULL, 0, NULL, 1,
	    4 * 1024 * 1024, &resp)) != 0) {
		r = out_fail(r, "the relay did not list the jobs");
		http_resp_free(&resp);
		goto out;
	}
	r = alx_json_parse(&j, (const char *)resp.body.data, resp.body.len,
	    NULL);
	http_resp_free(&resp);
	if (r != 0 || (arr = alx_json_obj_get(j, 0, "jobs")) < 0 ||
	    (n = alx_json_arr_len(j, arr)) < 0) {
		r = out_fail(ALX_ERR_BAD_JSON, "the relay's job list is not "
		    "well formed");
		goto out;
	}
	if (n == 0 && !out_json())
		printf("no jobs\n");
	for (i = 0; i < n; i++) {
		t = alx_json_arr_at(j, arr, i);
		if (alx_json_get_str(j, t, "id", &id, 64) != 0 ||
		    alx_json_get_str(j, t, "state", &state, 32) != 0)
			continue;
		if (alx_json_has(j, t, "why"))
			alx_json_get_str(j, t, "why", &why, 32);
		if (alx_json_has(j, t, "claimed_by"))
			alx_json_get_str(j, t, "claimed_by", &by, 64);
		if (out_json()) {
			out_obj_begin(&jw);
			alx_jw_kstr(&jw, "job", id);
			alx_jw_kstr(&jw, "state", state);
			if (why != NULL)
				alx_jw_kstr(&jw, "why", why);
			if (by != NULL)
				alx_jw_kstr(&jw, "claimed_by", by);
			out_obj_end(&jw);
		} else {
			printf("%s  %s", id, state);
			if (why != NULL)
				printf(" (%s)", why);
			if (by != NULL)
				printf("  by %s", by);
			printf("\n");
		}
		free(id);
		free(state);
		free(why);
		free(by);
		id = state = why = by = NULL;
	}
	r = 0;
out:
	alx_json_free(j);
	csess_close(&cs);
	return r;
}

const struct cmd_entry cmd_job_ls_entry = {
	"job ls", "", 0, 0, cmd_job_ls_opts, CMD_INVITE | CMD_PARTICIPANT,
	cmd_job_ls_exec,
	"list your jobs (the owner: all) with their state, and why a job waits"
};

static const struct cmd_opt cmd_job_logs_opts[] = {
	{ "on", "NAME", 0, "the machine kept here whose jobs these are "
	    "(default: the session of AIRLOX_INVITE)" },
	{ "follow", NULL, 0, "follow the job until its result, then print "
	    "the verified footer" },
	{ "wait", "DURATION", 0, "with --follow, give up after this long "
	    "(default 24h)" },
	{ NULL, NULL, 0, NULL }
};

static int
cmd_job_logs_exec(struct client_ctx *ctx)
{
	struct csession		 cs;
	struct job_outcome	 o;
	uint8_t			 id[ALX_ID_LEN];
	int64_t			 wait_s = 86400;
	int			 r;

	if ((r = args_duration(&ctx->args, "wait", wait_s, &wait_s)) != 0)
		return r;
	if (alx_b64_decode_exact(id, sizeof(id), ctx->args.pos[0],
	    strlen(ctx->args.pos[0])) != 0)
		return out_usage("%s: not a job id", ctx->args.pos[0]);
	if ((r = csess_open(&cs, ctx, CS_JOIN)) != 0)
		goto out;
	/* The whole log is read: the output from the start, then live. */
	r = job_wait(&cs, id, NULL, args_has(&ctx->args, "follow") ? wait_s :
	    1, 1, &o);
	if (r == ALX_ERR_EXPIRED && !args_has(&ctx->args, "follow")) {
		r = 0;		/* still running: what there is so far */
		goto out;
	}
	if (r != 0) {
		r = out_fail(r, r == ALX_ERR_EXPIRED ? "no result within "
		    "--wait" : "the job's result could not be verified");
		goto out;
	}
	o.streamed = 1;
	run_print_result(&o, ctx->args.pos[0]);
	r = run_exit_code(&o.rm);
	alx_resultmeta_free(&o.rm);
out:
	csess_close(&cs);
	return r;
}

const struct cmd_entry cmd_job_logs_entry = {
	"job logs", "JOB", 1, 1, cmd_job_logs_opts, CMD_INVITE |
	CMD_PARTICIPANT, cmd_job_logs_exec,
	"print a job's output from the start (--follow: until its result)"
};

static const struct cmd_opt cmd_job_cancel_opts[] = {
	{ "on", "NAME", 0, "the machine kept here whose jobs these are "
	    "(default: the session of AIRLOX_INVITE)" },
	{ NULL, NULL, 0, NULL }
};

static int
cmd_job_cancel_exec(struct client_ctx *ctx)
{
	struct csession	 cs;
	struct item_post p;
	struct alx_jw	 jw;
	char		*meta = NULL, *cause = NULL;
	size_t		 len;
	int		 r;

	memset(&p, 0, sizeof(p));
	if (alx_b64_decode_exact(p.reply_to, ALX_ID_LEN, ctx->args.pos[0],
	    strlen(ctx->args.pos[0])) != 0)
		return out_usage("%s: not a job id", ctx->args.pos[0]);
	if ((r = csess_open(&cs, ctx, CS_JOIN)) != 0)
		goto out;
	if ((r = csess_replay(&cs, NULL, NULL)) != 0) {
		r = out_fail(r, "cannot read the session's log");
		goto out;
	}
	if (alx_view_job(&cs.view, p.reply_to) == NULL) {
		r = out_fail(ALX_ERR_NOT_FOUND, "no job %s in this session",
		    ctx->args.pos[0]);
		goto out;
	}
	alx_jw_init(&jw, 256);
	alx_jw_obj_begin(&jw);
	alx_jw_kint(&jw, "v", 1);
	alx_jw_kstr(&jw, "job", ctx->args.pos[0]);
	alx_jw_obj_end(&jw);
	r = alx_jw_finish(&jw, &meta, &len);
	alx_jw_free(&jw);
	if (r != 0)
		goto out;
	p.kind = "cancel";
	p.meta = meta;
	p.metalen = len;
	p.fd = -1;
	p.has_reply = 1;
	if ((r = item_post(&cs, &p, &cause)) != 0) {
		r = out_fail(r, "the cancel was not posted%s%s",
		    cause ? ": " : "", cause ? cause : "");
		goto out;
	}
	if (out_json()) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "event", "cancelled");
		alx_jw_kstr(&jw, "job", ctx->args.pos[0]);
		r = out_obj_end(&jw);
	} else
		printf("cancel sent for job %s; its result will say "
		    "\"cancelled\"\n", ctx->args.pos[0]);
out:
	free(cause);
	free(meta);
	csess_close(&cs);
	return r;
}

const struct cmd_entry cmd_job_cancel_entry = {
	"job cancel", "JOB", 1, 1, cmd_job_cancel_opts, CMD_INVITE |
	CMD_PARTICIPANT, cmd_job_cancel_exec,
	"stop a job: SIGTERM to its whole tree, SIGKILL after a grace period"
};
