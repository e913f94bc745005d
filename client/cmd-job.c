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

/*
 * Why a job waits. The relay knows which approved runners are online and
 * how many of their slots are taken (no_runner, all_busy, unclaimed); the
 * verified log adds what the relay does not say: each job's target, and
 * the runners that announced themselves for it, so a runner that is
 * online but not approved is named as the reason (not_approved).
 */
#define JOB_LS_RUNNERS_MAX	256

struct job_ls_target {
	uint8_t	 id[ALX_ID_LEN];
	int	 is_label;
	char	 name[ALX_NAME_MAX + 1];
};

struct job_ls_runner {
	uint8_t	 fp[ALX_FP_LEN];
	char	 name[ALX_NAME_MAX + 1];
	char	 labels[ALX_MAX_LABELS][ALX_NAME_MAX + 1];
	size_t	 nlabels;
	int	 online;		/* the relay's word */
};

struct job_ls {
	struct job_ls_target	*targets;
	size_t			 ntargets;
	size_t			 tcap;
	struct job_ls_runner	*runners;
	size_t			 nrunners;
};

static struct job_ls_runner *
job_ls_runner(struct job_ls *jl, const uint8_t fp[ALX_FP_LEN])
{
	size_t	i;

	for (i = 0; i < jl->nrunners; i++)
		if (memcmp(jl->runners[i].fp, fp, ALX_FP_LEN) == 0)
			return &jl->runners[i];
	return NULL;
}

/* A runner's newest verified announcement: its name and labels. */
static int
job_ls_announce(struct job_ls *jl, const struct alx_announce *a)
{
	struct job_ls_runner	*r;
	size_t			 i;

	if ((r = job_ls_runner(jl, a->runner)) == NULL) {
		if (jl->nrunners >= JOB_LS_RUNNERS_MAX)
			return 0;
		r = &jl->runners[jl->nrunners++];
	}
	memset(r, 0, sizeof(*r));
	memcpy(r->fp, a->runner, ALX_FP_LEN);
	snprintf(r->name, sizeof(r->name), "%s", a->name);
	for (i = 0; i < a->nlabels && i < ALX_MAX_LABELS; i++)
		snprintf(r->labels[i], sizeof(r->labels[i]), "%s",
		    a->labels[i]);
	r->nlabels = i;
	return 0;
}

static int
job_ls_event(struct alxs_sess *cs, const struct alx_view_event *ev, void *arg)
{
	struct job_ls		*jl = arg;
	struct job_ls_target	*t;
	size_t			 ncap;

	(void)cs;
	if (ev->type == ALX_EV_ANNOUNCE)
		return job_ls_announce(jl, &ev->announce);
	if (ev->type != ALX_EV_ITEM || !ev->item.has_job ||
	    strcmp(ev->item.kind, "job") != 0)
		return 0;
	if (jl->ntargets == jl->tcap) {
		ncap = jl->tcap ? jl->tcap * 2 : 64;
		if ((t = reallocarray(jl->targets, ncap, sizeof(*t))) == NULL)
			return ALX_ERR_NOMEM;
		jl->targets = t;
		jl->tcap = ncap;
	}
	t = &jl->targets[jl->ntargets++];
	memcpy(t->id, ev->item.id, ALX_ID_LEN);
	t->is_label = ev->item.job.is_label;
	snprintf(t->name, sizeof(t->name), "%s", ev->item.job.name);
	return 0;
}

/* Which of the runners the log knows the relay sees online. */
static int
job_ls_online(struct alxs_sess *cs, struct job_ls *jl)
{
	struct alxs_resp	 resp;
	struct alx_json		*j = NULL;
	struct job_ls_runner	*r;
	uint8_t			 pk[ALX_SIGN_PK_LEN], fp[ALX_FP_LEN];
	char			 path[128];
	int			 arr, i, n, e, a, on, rc;

	alxs_sess_path(cs, path, sizeof(path), "/runners");
	if ((rc = alxs_http_request(&cs->http, "GET", path, NULL, 0, NULL, 1,
	    4 * 1024 * 1024, &resp)) != 0)
		goto out;
	if ((rc = alx_json_parse(&j, (const char *)resp.body.data,
	    resp.body.len, NULL)) != 0)
		goto out;
	if ((arr = alx_json_obj_get(j, 0, "runners")) < 0 ||
	    (n = alx_json_arr_len(j, arr)) < 0) {
		rc = ALX_ERR_BAD_JSON;
		goto out;
	}
	for (i = 0; i < n; i++) {
		e = alx_json_arr_at(j, arr, i);
		/* The signed announcement's key: only runners the log
		 * verified are looked up, the rest is the relay's word. */
		if ((a = alx_json_obj_get(j, e, "announce")) < 0 ||
		    alx_json_get_b64(j, a, "key", pk, sizeof(pk)) != 0 ||
		    alx_json_get_bool(j, e, "online", &on) != 0)
			continue;
		alx_fingerprint(fp, pk, sizeof(pk));
		if ((r = job_ls_runner(jl, fp)) != NULL)
			r->online = on;
	}
out:
	alx_json_free(j);
	alxs_http_resp_free(&resp);
	return rc;
}

static const struct job_ls_target *
job_ls_target(const struct job_ls *jl, const uint8_t id[ALX_ID_LEN])
{
	size_t	i;

	for (i = jl->ntargets; i-- > 0;)
		if (memcmp(jl->targets[i].id, id, ALX_ID_LEN) == 0)
			return &jl->targets[i];
	return NULL;
}

/* "NAME" or "pool/LABEL". */
static void
job_ls_target_str(const struct job_ls_target *t, char *out, size_t len)
{
	if (t == NULL)
		snprintf(out, len, "its target");
	else
		snprintf(out, len, "%s%s", t->is_label ? "pool/" : "", t->name);
}

/* Does the runner, as it announced itself, serve the target? */
static int
job_ls_serves(const struct job_ls_runner *r, const struct job_ls_target *t)
{
	size_t	i;

	if (!t->is_label)
		return strcmp(r->name, t->name) == 0;
	for (i = 0; i < r->nlabels; i++)
		if (strcmp(r->labels[i], t->name) == 0)
			return 1;
	return 0;
}

/*
 * A runner that announced itself for the target and waits for the owner's
 * approval; one the relay sees online first.
 */
static const struct job_ls_runner *
job_ls_unapproved(const struct alxs_sess *cs, const struct job_ls *jl,
    const struct job_ls_target *t)
{
	const struct alx_manifest	*m = alx_view_manifest(&cs->view);
	const struct job_ls_runner	*found = NULL;
	size_t				 i;

	for (i = 0; i < jl->nrunners; i++) {
		const struct job_ls_runner *r = &jl->runners[i];

		if (!job_ls_serves(r, t) ||
		    alx_manifest_find_approved(m, r->fp) != NULL ||
		    alx_manifest_is_revoked(m, r->fp))
			continue;
		if (r->online)
			return r;
		if (found == NULL)
			found = r;
	}
	return found;
}

/*
 * The reason a job waits, as a code and a sentence; runner: the fp of an
 * unapproved runner (not_approved), else empty.
 */
static const char *
job_ls_explain(const struct alxs_sess *cs, const struct job_ls *jl,
    const uint8_t id[ALX_ID_LEN], const char *why, char *text, size_t len,
    char runner[ALX_FP_STRLEN + 1])
{
	const struct client_ctx		*ctx = cs->arg;
	const char			*machine = args_get(&ctx->args, "on");
	const struct job_ls_target	*t = job_ls_target(jl, id);
	const struct job_ls_runner	*r;
	char				 target[ALX_NAME_MAX + 8];

	runner[0] = '\0';
	job_ls_target_str(t, target, sizeof(target));
	if (strcmp(why, "all_busy") == 0) {
		snprintf(text, len, "every slot of the runners for %s is busy",
		    target);
		return why;
	}
	if (strcmp(why, "unclaimed") == 0) {
		snprintf(text, len, "a runner for %s has a free slot but has "
		    "not claimed the job yet", target);
		return why;
	}
	if (strcmp(why, "no_runner") != 0) {
		snprintf(text, len, "%s", why);
		return why;
	}
	r = t != NULL ? job_ls_unapproved(cs, jl, t) : NULL;
	if (r != NULL && !r->online) {
		snprintf(text, len, "no approved runner for %s is online "
		    "(runner %s announced itself for it once, but is not "
		    "approved)", target, r->name);
		return why;
	}
	if (r != NULL) {
		alx_b64_encode(runner, r->fp, ALX_FP_LEN);
		if (machine != NULL)
			snprintf(text, len, "runner %s (key %s) for %s is "
			    "online but not approved (airlox machine approve "
			    "%s)", r->name, runner, target, machine);
		else
			snprintf(text, len, "runner %s (key %s) for %s is "
			    "online but not approved (airlox session approve "
			    "%s)", r->name, runner, target, runner);
		return "not_approved";
	}
	snprintf(text, len, "no approved runner for %s is online", target);
	return why;
}

/* A relay word we print: lower case and '_' only. */
static int
job_ls_word(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if ((*s < 'a' || *s > 'z') && *s != '_')
			return 0;
	return 1;
}

/* The log and the runners online, read when some job waits. */
static int
job_ls_load(struct alxs_sess *cs, struct alx_json *j, int arr, int n,
    struct job_ls *jl)
{
	char	*state = NULL;
	int	 i, waiting = 0, r;

	for (i = 0; i < n && !waiting; i++) {
		if (alx_json_get_str(j, alx_json_arr_at(j, arr, i), "state",
		    &state, 32) == 0 && strcmp(state, "waiting") == 0)
			waiting = 1;
		free(state);
		state = NULL;
	}
	if (!waiting)
		return 0;
	if ((jl->runners = calloc(JOB_LS_RUNNERS_MAX,
	    sizeof(*jl->runners))) == NULL)
		return ALX_ERR_NOMEM;
	if ((r = alxs_sess_replay(cs, job_ls_event, jl)) != 0)
		return csess_fail(cs, r, "cannot read the session's log");
	if ((r = job_ls_online(cs, jl)) != 0)
		return out_fail(r, "the relay did not list the runners");
	return 0;
}

static void
job_ls_print(struct alxs_sess *cs, const struct job_ls *jl,
    const char *idtxt, const uint8_t id[ALX_ID_LEN], const char *state,
    const char *why, const char *by)
{
	const struct job_ls_target	*t = job_ls_target(jl, id);
	struct alx_jw			 jw;
	const char			*code = NULL;
	char				 text[512], runner[ALX_FP_STRLEN + 1];
	char				 target[ALX_NAME_MAX + 8];

	if (why != NULL && job_ls_word(why))
		code = job_ls_explain(cs, jl, id, why, text, sizeof(text),
		    runner);
	if (out_json()) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "job", idtxt);
		alx_jw_kstr(&jw, "state", state);
		if (t != NULL) {
			job_ls_target_str(t, target, sizeof(target));
			alx_jw_kstr(&jw, "target", target);
		}
		if (code != NULL) {
			alx_jw_kstr(&jw, "why", code);
			alx_jw_kstr(&jw, "explain", text);
			if (runner[0] != '\0')
				alx_jw_kstr(&jw, "runner", runner);
		}
		if (by != NULL)
			alx_jw_kstr(&jw, "claimed_by", by);
		out_obj_end(&jw);
		return;
	}
	printf("%s  %s", idtxt, state);
	if (code != NULL)
		printf(": %s", text);
	if (by != NULL)
		printf("  by %s", by);
	printf("\n");
}

static int
cmd_job_ls_exec(struct client_ctx *ctx)
{
	struct alxs_sess		 cs;
	struct alxs_resp	 resp;
	struct job_ls		 jl;
	struct alx_json		*j = NULL;
	uint8_t			 id[ALX_ID_LEN], fp[ALX_FP_LEN];
	char			 path[128], idtxt[ALX_FP_STRLEN + 1];
	char			 bytxt[ALX_FP_STRLEN + 1];
	char			*state = NULL, *why = NULL;
	int			 arr, i, n, t, r, has_by;

	memset(&jl, 0, sizeof(jl));
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0)
		goto out;
	alxs_sess_path(&cs, path, sizeof(path), "/jobs");
	if ((r = alxs_http_request(&cs.http, "GET", path, NULL, 0, NULL, 1,
	    4 * 1024 * 1024, &resp)) != 0) {
		r = out_fail(r, "the relay did not list the jobs");
		alxs_http_resp_free(&resp);
		goto out;
	}
	r = alx_json_parse(&j, (const char *)resp.body.data, resp.body.len,
	    NULL);
	alxs_http_resp_free(&resp);
	if (r != 0 || (arr = alx_json_obj_get(j, 0, "jobs")) < 0 ||
	    (n = alx_json_arr_len(j, arr)) < 0) {
		r = out_fail(ALX_ERR_BAD_JSON, "the relay's job list is not "
		    "well formed");
		goto out;
	}
	if ((r = job_ls_load(&cs, j, arr, n, &jl)) != 0)
		goto out;
	if (n == 0 && !out_json())
		printf("no jobs\n");
	for (i = 0; i < n; i++) {
		t = alx_json_arr_at(j, arr, i);
		if (alx_json_get_b64(j, t, "id", id, ALX_ID_LEN) != 0 ||
		    alx_json_get_str(j, t, "state", &state, 32) != 0 ||
		    !job_ls_word(state)) {
			free(state);
			state = NULL;
			continue;
		}
		alx_b64_encode(idtxt, id, ALX_ID_LEN);
		if (alx_json_has(j, t, "why"))
			alx_json_get_str(j, t, "why", &why, 32);
		has_by = alx_json_has(j, t, "claimed_by") &&
		    alx_json_get_b64(j, t, "claimed_by", fp, ALX_FP_LEN) == 0;
		if (has_by)
			alx_b64_encode(bytxt, fp, ALX_FP_LEN);
		job_ls_print(&cs, &jl, idtxt, id, state, why, has_by ? bytxt :
		    NULL);
		free(state);
		free(why);
		state = why = NULL;
	}
	r = 0;
out:
	free(jl.targets);
	free(jl.runners);
	alx_json_free(j);
	alxs_sess_close(&cs);
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
	struct alxs_sess		 cs;
	struct job_outcome	 o;
	uint8_t			 id[ALX_ID_LEN];
	int64_t			 wait_s = 86400;
	int			 r;

	memset(&o, 0, sizeof(o));
	if ((r = args_duration(&ctx->args, "wait", wait_s, &wait_s)) != 0)
		return r;
	if (alx_b64_decode_exact(id, sizeof(id), ctx->args.pos[0],
	    strlen(ctx->args.pos[0])) != 0)
		return out_usage("%s: not a job id", ctx->args.pos[0]);
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0)
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
	run_print_result(&o, ctx->args.pos[0], 0);
	r = run_exit_code(&o.rm);
out:
	job_outcome_free(&o);
	alxs_sess_close(&cs);
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
	const struct alx_view_job *vj;
	struct alxs_sess	 cs;
	struct alxs_item_post p;
	struct alx_jw	 jw;
	char		*meta = NULL, *cause = NULL;
	size_t		 len;
	int		 r;

	memset(&p, 0, sizeof(p));
	if (alx_b64_decode_exact(p.reply_to, ALX_ID_LEN, ctx->args.pos[0],
	    strlen(ctx->args.pos[0])) != 0)
		return out_usage("%s: not a job id", ctx->args.pos[0]);
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0)
		goto out;
	if ((r = alxs_sess_replay(&cs, NULL, NULL)) != 0) {
		r = out_fail(r, "cannot read the session's log");
		goto out;
	}
	if ((vj = alx_view_job(&cs.view, p.reply_to)) == NULL) {
		r = out_fail(ALX_ERR_NOT_FOUND, "no job %s in this session",
		    ctx->args.pos[0]);
		goto out;
	}
	/* The relay and every reader refuse it from anyone else. */
	if (!alxs_sess_is_owner(&cs) &&
	    !alx_ct_eq(vj->author, cs.view.me_fp, ALX_FP_LEN)) {
		r = out_fail(ALX_ERR_WRONG_ROLE, "only job %s's author or the "
		    "session's owner can cancel it", ctx->args.pos[0]);
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
	if ((r = alxs_item_post(&cs, &p, &cause)) != 0) {
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
	alxs_sess_close(&cs);
	return r;
}

const struct cmd_entry cmd_job_cancel_entry = {
	"job cancel", "JOB", 1, 1, cmd_job_cancel_opts, CMD_INVITE |
	CMD_PARTICIPANT, cmd_job_cancel_exec,
	"stop a job: SIGTERM to its whole tree, SIGKILL after a grace period"
};
