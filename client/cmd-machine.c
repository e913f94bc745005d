/*
 * cmd-machine.c: "airlox machine add|ls|approve|invite|rm": a machine is an
 * execute session with the host-runner profile whose runner the owner
 * approved; its invites are kept in the cache (client-machine.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"
#include "client-job.h"
#include "util/runopt.h"

#define MACHINE_JOIN_WAIT	600	/* s, for the runner to join */

static const struct cmd_opt cmd_machine_add_opts[] = {
	{ "sandbox", runopt_sandbox_arg, 0, "the runner's sandbox "
	    "(default: docker with --image, else local)" },
	{ "image", "IMAGE", 0, "the Docker image jobs run in (implies "
	    "--sandbox docker)" },
	{ "network", NULL, 0, "let jobs use the network (default: none)" },
	{ "allow", "DOMAIN", OPT_MULTI, "let jobs reach DOMAIN through the "
	    "runner's egress proxy (default: none)" },
	{ "kinds", "shell,python", 0, "the job kinds allowed (default: both)" },
	{ "runtime", "NAME", 0, "the Python jobs run with, like python3.11 "
	    "(default: python3, the machine's)" },
	{ "package", "SPEC", OPT_MULTI, "a Python package jobs may use, with "
	    "an optional PEP 440 pin like 'cugrid==0.1.0' (default: none)" },
	{ "labels", "A,B", 0, "labels the runner is approved with (default: "
	    "none)" },
	{ "yes", NULL, 0, "approve the runner without asking" },
	{ "accept-weaker", NULL, 0, "approve even when the runner's verify "
	    "report has a FAIL" },
	{ "creation-token", "TOKEN", 0, "the token of a relay that lets only "
	    "its holders create sessions (default: $AIRLOX_CREATION_TOKEN)" },
	{ NULL, NULL, 0, NULL }
};

/*
 * A runner joined under this name: its key, once the log shows it; then
 * its signed verify report.
 */
struct machine_wait {
	const char		*name;
	int			 joined;
	uint8_t			 fp[ALX_FP_LEN];
	int			 announced;	/* its announcement seen */
	int			 network;	/* started with --network */
	struct verify_reports	 reports;
};

static int
machine_join_event(struct alxs_sess *cs, const struct alx_view_event *ev,
    void *arg)
{
	struct machine_wait	*w = arg;

	if (ev->type == ALX_EV_JOIN && ev->member != NULL &&
	    ev->member->cert.role == ALX_ROLE_RUNNER &&
	    strcmp(ev->member->cert.name, w->name) == 0 && !w->joined) {
		memcpy(w->fp, ev->member->cert.fp, ALX_FP_LEN);
		w->joined = 1;
	}
	verify_reports_event(cs, ev, &w->reports);
	if (ev->type == ALX_EV_ANNOUNCE && w->joined && ev->member != NULL &&
	    memcmp(ev->member->cert.fp, w->fp, ALX_FP_LEN) == 0) {
		w->announced = 1;
		w->network = ev->announce.network;
	}
	return w->joined && verify_reports_find(&w->reports, w->fp) != NULL;
}

/* Approve at a terminal after asking; off a terminal only with --yes. */
static int
machine_confirm(struct client_ctx *ctx, const char *name, const char *fps)
{
	char	line[16];

	if (args_has(&ctx->args, "yes"))
		return 1;
	if (!isatty(STDIN_FILENO)) {
		out_fail(ALX_ERR_NOT_ALLOWED, "not at a terminal: approve the "
		    "runner %s (key %s) with --yes, or later with airlox "
		    "machine approve %s", name, fps, name);
		return 0;
	}
	fprintf(stderr, "Runner %s joined with key %s.\nApprove exactly this "
	    "key? [y/N] ", name, fps);
	if (fgets(line, sizeof(line), stdin) == NULL)
		return 0;
	return line[0] == 'y' || line[0] == 'Y';
}

/*
 * The runner's sandbox: --sandbox, or docker when an image is named (an
 * image means its jobs run in it), else local. NULL after a usage error.
 */
static const char *
machine_sandbox(struct client_ctx *ctx)
{
	const struct runopt_sandbox	*s;
	const char			*sb = args_get(&ctx->args, "sandbox");
	const char			*img = args_get(&ctx->args, "image");
	char				 names[64];

	if (sb == NULL)
		s = img != NULL ? runopt_sandbox_with(RUNOPT_SB_IMAGE) :
		    &runopt_sandboxes[0];
	else if ((s = runopt_sandbox_find(sb)) == NULL) {
		runopt_sandbox_names(", ", names, sizeof(names));
		out_usage("--sandbox %s: one of %s", sb, names);
		return NULL;
	}
	if (img != NULL && !(s->flags & RUNOPT_SB_IMAGE)) {
		out_usage("--image %s runs jobs in an image: it cannot go "
		    "with --sandbox %s", img, s->name);
		return NULL;
	}
	if (img == NULL && (s->flags & RUNOPT_SB_IMAGE)) {
		out_usage("--sandbox %s needs --image IMAGE, the image jobs "
		    "run in", s->name);
		return NULL;
	}
	return s->name;
}

static char *
machine_join_command(struct client_ctx *ctx, const char *name,
    const char *sb)
{
	const char	*img = args_get(&ctx->args, "image");
	const char	*labels = args_get(&ctx->args, "labels");
	char		*cmd;

	if (asprintf(&cmd, "airlox runner join --code %%s --relay %s --name %s "
	    "--sandbox %s%s%s%s%s%s --workspace", ctx->relay, name,
	    sb, img ? " --image " : "", img ? img : "",
	    labels ? " --labels " : "", labels ? labels : "",
	    args_has(&ctx->args, "network") ? " --network" : "") == -1)
		return NULL;
	return cmd;
}

static int
machine_add_approve(struct client_ctx *ctx, struct alxs_sess *cs,
    const char *name, const struct alx_view_member *m)
{
	const char	*labels[ALX_MAX_LABELS], *lv;
	char		 buf[512], *p, *tok, *save = NULL;
	char		 fps[ALX_FP_STRLEN + 1];
	size_t		 n = 0;
	int64_t		 ver;
	int		 r;

	alx_b64_encode(fps, m->cert.fp, ALX_FP_LEN);
	if (!machine_confirm(ctx, name, fps))
		return EXIT_ACCESS;
	if ((lv = args_get(&ctx->args, "labels")) != NULL) {
		snprintf(buf, sizeof(buf), "%s", lv);
		for (p = buf; n < ALX_MAX_LABELS &&
		    (tok = strtok_r(p, ",", &save)) != NULL; p = NULL)
			labels[n++] = tok;
	}
	if ((r = session_approve(cs, m, name, labels, n, 0, &ver)) != 0)
		return out_fail(r, "the relay did not take the approval");
	return 0;
}

static int
cmd_machine_add_exec(struct client_ctx *ctx)
{
	struct alxs_sess		 cs;
	struct machine_wait	 w;
	struct alx_jw		 jw;
	const struct alx_view_member *m;
	const char		*name = ctx->args.pos[0], *sb;
	char			*inv[ALX_ROLE_COUNT], *how = NULL, fps[64];
	char			 settings[512];
	time_t			 end;
	int			 r, role;

	memset(&cs, 0, sizeof(cs));
	memset(&w, 0, sizeof(w));
	if (!alx_name_valid(name))
		return out_usage("machine add: NAME is [a-z0-9][a-z0-9._-]*");
	if ((sb = machine_sandbox(ctx)) == NULL)
		return EXIT_USAGE;
	if (machine_exists(name))
		return out_fail(ALX_ERR_EXISTS, "a machine %s exists already "
		    "(airlox machine rm %s first)", name, name);
	if ((r = session_create_quiet(ctx, inv)) != 0)
		return r;
	snprintf(settings, sizeof(settings), "sandbox=%s\nimage=%s\n", sb,
	    args_get(&ctx->args, "image") ? args_get(&ctx->args, "image") : "");
	if (machine_write(name, "owner", inv[ALX_ROLE_OWNER]) != 0 ||
	    machine_write(name, "sender", inv[ALX_ROLE_SENDER]) != 0 ||
	    machine_write(name, "runner", inv[ALX_ROLE_RUNNER]) != 0 ||
	    machine_write(name, "settings", settings) != 0) {
		r = out_fail(ALX_ERR_IO, "cannot keep the machine's invites in "
		    "the cache directory");
		goto out;
	}
	ctx->invite = inv[ALX_ROLE_OWNER];
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0)
		goto out;
	if ((how = machine_join_command(ctx, name, sb)) == NULL) {
		r = EXIT_FAIL;
		goto out;
	}
	/* The code's creator stays until the runner took its invite. */
	if ((r = code_create(&cs, ALX_ROLE_RUNNER, inv[ALX_ROLE_RUNNER],
	    600, how)) != 0)
		goto out;
	w.name = name;
	end = time(NULL) + MACHINE_JOIN_WAIT;
	if ((r = alxs_sess_replay(&cs, machine_join_event, &w)) != 0 && r != 1)
		goto out;
	while (!w.joined && time(NULL) < end) {
		r = alxs_sess_poll(&cs, 10, machine_join_event, &w);
		if (r != 0 && r != 1)
			goto out;
	}
	if (!w.joined || (m = alx_view_member_by_fp(&cs.view, w.fp)) == NULL) {
		r = out_fail(ALX_ERR_EXPIRED, "the runner %s did not join", name);
		goto out;
	}
	/* Its boundary, proven from inside a sandbox, before approving it. */
	end = time(NULL) + VERIFY_REPORT_WAIT;
	while (verify_reports_find(&w.reports, w.fp) == NULL &&
	    time(NULL) < end) {
		r = alxs_sess_poll(&cs, 10, machine_join_event, &w);
		if (r != 0 && r != 1)
			goto out;
	}
	if (w.announced)
		out_text("runner %s was started %s\n", name, w.network ?
		    "WITH --network: a session that allows full network gives "
		    "its jobs the host's network" : "without --network: its "
		    "jobs never get the host's network");
	if ((r = verify_report_gate(ctx, name, verify_reports_find(&w.reports,
	    w.fp))) != 0)
		goto out;
	m = alx_view_member_by_fp(&cs.view, w.fp);
	if ((r = machine_add_approve(ctx, &cs, name, m)) != 0)
		goto out;
	alx_b64_encode(fps, w.fp, ALX_FP_LEN);
	if (out_json()) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "event", "machine");
		alx_jw_kstr(&jw, "name", name);
		alx_jw_kstr(&jw, "runner_fp", fps);
		alx_jw_kbool(&jw, "approved", 1);
		r = out_obj_end(&jw);
	} else
		printf("Machine %s is ready: runner key %s approved.\n"
		    "Run jobs with: airlox run --on %s -- CMD\n", name, fps,
		    name);
out:
	verify_reports_free(&w.reports);
	alxs_sess_close(&cs);
	free(how);
	for (role = 0; role < ALX_ROLE_COUNT; role++)
		if (inv[role] != NULL) {
			alx_wipe(inv[role], strlen(inv[role]));
			free(inv[role]);
		}
	return r;
}

const struct cmd_entry cmd_machine_add_entry = {
	"machine add", "NAME", 1, 1, cmd_machine_add_opts, CMD_RELAY,
	cmd_machine_add_exec,
	"make a job slot on a machine: a session, a one-time runner code, "
	"and the approval of exactly the runner that joins"
};

/* Open the machine's session as its owner. */
static int
machine_open(struct client_ctx *ctx, const char *name, struct alxs_sess *cs,
    char **owner)
{
	memset(cs, 0, sizeof(*cs));
	if (machine_read(name, "owner", owner) != 0)
		return out_fail(ALX_ERR_NOT_FOUND, "no machine %s here "
		    "(airlox machine ls)", name);
	ctx->invite = *owner;
	return csess_open(cs, ctx, ALXS_JOIN);
}

static const struct cmd_opt cmd_machine_ls_opts[] = {
	{ NULL, NULL, 0, NULL }
};

static void
machine_ls_one(struct client_ctx *ctx, const char *name)
{
	struct alxs_sess		 cs;
	const struct alx_manifest *m;
	struct alx_jw		 jw;
	char			*owner = NULL, *settings = NULL, fps[64];
	size_t			 i;

	if (machine_open(ctx, name, &cs, &owner) != 0 ||
	    alxs_sess_replay(&cs, NULL, NULL) != 0) {
		alxs_sess_close(&cs);
		free(owner);
		return;
	}
	machine_read(name, "settings", &settings);
	m = alx_view_manifest(&cs.view);
	if (out_json()) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "machine", name);
		alx_jw_key(&jw, "runners");
		alx_jw_arr_begin(&jw);
	} else
		printf("%s\n", name);
	for (i = 0; i < cs.view.nmembers; i++) {
		const struct alx_view_member *mem = &cs.view.members[i];
		const struct alx_approved *a;

		if (mem->cert.role != ALX_ROLE_RUNNER)
			continue;
		a = alx_manifest_find_approved(m, mem->cert.fp);
		alx_b64_encode(fps, mem->cert.fp, ALX_FP_LEN);
		if (out_json()) {
			alx_jw_obj_begin(&jw);
			alx_jw_kstr(&jw, "name", mem->cert.name);
			alx_jw_kstr(&jw, "fp", fps);
			alx_jw_kbool(&jw, "approved", a != NULL);
			alx_jw_obj_end(&jw);
		} else {
			printf("  runner ");
			out_safe(stdout, mem->cert.name, strlen(mem->cert.name));
			printf("  key %s  %s\n", fps, a != NULL ? "approved" :
			    "not approved");
		}
	}
	if (out_json()) {
		alx_jw_arr_end(&jw);
		alx_jw_kint(&jw, "jobs", (int64_t)cs.view.njobs);
		out_obj_end(&jw);
	} else
		printf("  jobs so far: %zu\n", cs.view.njobs);
	free(settings);
	alxs_sess_close(&cs);
	alx_wipe_str(owner);
}

static int
cmd_machine_ls_exec(struct client_ctx *ctx)
{
	char	**names;
	size_t	  n, i;

	machine_list(&names, &n);
	if (n == 0 && !out_json())
		printf("no machines (airlox machine add NAME)\n");
	for (i = 0; i < n; i++)
		machine_ls_one(ctx, names[i]);
	machine_list_free(names, n);
	return 0;
}

const struct cmd_entry cmd_machine_ls_entry = {
	"machine ls", "", 0, 0, cmd_machine_ls_opts, 0, cmd_machine_ls_exec,
	"list the machines kept here, their runners and approvals"
};

static const struct cmd_opt cmd_machine_approve_opts[] = {
	{ "on", "pool/LABEL", 0, "approve it with this label, for "
	    "--on pool/LABEL jobs (default: none)" },
	{ "yes", NULL, 0, "approve without asking" },
	{ "accept-weaker", NULL, 0, "approve even when the runner's verify "
	    "report has a FAIL, or it posted none" },
	{ NULL, NULL, 0, NULL }
};

static int
cmd_machine_approve_exec(struct client_ctx *ctx)
{
	const struct alx_view_member	*cand = NULL;
	const struct verify_report	*rep;
	const struct alx_manifest	*m;
	struct verify_reports		 reports;
	struct alxs_sess			 cs;
	const char			*on = args_get(&ctx->args, "on");
	const char			*labels[1];
	char				*owner = NULL, fps[64];
	char				 cname[ALX_DISPLAY_MAX + 1];
	uint8_t				 fp[ALX_FP_LEN];
	size_t				 i, n = 0;
	int64_t				 ver;
	int				 r;

	memset(&reports, 0, sizeof(reports));
	if (on != NULL && (strncmp(on, "pool/", 5) != 0 ||
	    !alx_name_valid(on + 5)))
		return out_usage("--on pool/LABEL");
	if ((r = machine_open(ctx, ctx->args.pos[0], &cs, &owner)) != 0 ||
	    (r = alxs_sess_replay(&cs, verify_reports_event, &reports)) != 0)
		goto out;
	m = alx_view_manifest(&cs.view);
	for (i = 0; i < cs.view.nmembers; i++) {
		const struct alx_view_member *mem = &cs.view.members[i];
		if (mem->cert.role == ALX_ROLE_RUNNER &&
		    alx_manifest_find_approved(m, mem->cert.fp) == NULL &&
		    !alx_manifest_is_revoked(m, mem->cert.fp)) {
			cand = mem;
			n++;
		}
	}
	if (n != 1) {
		r = out_fail(ALX_ERR_NOT_FOUND, "%zu runners wait for approval "
		    "on %s; approve one by key with airlox session approve",
		    n, ctx->args.pos[0]);
		goto out;
	}
	/* Its boundary first: the report it posted, or the one it will. */
	memcpy(fp, cand->cert.fp, ALX_FP_LEN);
	snprintf(cname, sizeof(cname), "%s", cand->cert.name);
	if ((rep = verify_reports_find(&reports, fp)) == NULL &&
	    !args_has(&ctx->args, "accept-weaker"))
		rep = verify_report_await(&cs, &reports, fp,
		    VERIFY_REPORT_WAIT);
	if ((r = verify_report_gate(ctx, cname, rep)) != 0)
		goto out;
	if ((cand = alx_view_member_by_fp(&cs.view, fp)) == NULL) {
		r = out_fail(ALX_ERR_NOT_FOUND, "the runner %s left", cname);
		goto out;
	}
	alx_b64_encode(fps, cand->cert.fp, ALX_FP_LEN);
	if (!machine_confirm(ctx, cand->cert.name, fps)) {
		r = EXIT_ACCESS;
		goto out;
	}
	if (on != NULL)
		labels[0] = on + 5;
	if ((r = session_approve(&cs, cand, alx_name_valid(cand->cert.name) ?
	    cand->cert.name : ctx->args.pos[0], labels, on != NULL ? 1 : 0, 0,
	    &ver)) != 0) {
		r = out_fail(r, "the relay did not take the approval");
		goto out;
	}
	printf("approved runner %s (key %s) on %s\n", cand->cert.name, fps,
	    ctx->args.pos[0]);
out:
	verify_reports_free(&reports);
	alxs_sess_close(&cs);
	alx_wipe_str(owner);
	return r;
}

const struct cmd_entry cmd_machine_approve_entry = {
	"machine approve", "NAME", 1, 1, cmd_machine_approve_opts, 0,
	cmd_machine_approve_exec,
	"approve the runner waiting on machine NAME (a second box for a pool)"
};

static const struct cmd_opt cmd_machine_invite_opts[] = {
	{ "code", NULL, 0, "make a one-time code for the sender invite "
	    "instead of printing it" },
	{ NULL, NULL, 0, NULL }
};

static int
cmd_machine_invite_exec(struct client_ctx *ctx)
{
	struct alxs_sess	 cs;
	char		*sender = NULL, *owner = NULL;
	int		 r;

	memset(&cs, 0, sizeof(cs));
	if (machine_read(ctx->args.pos[0], "sender", &sender) != 0)
		return out_fail(ALX_ERR_NOT_FOUND, "no machine %s here",
		    ctx->args.pos[0]);
	if (!args_has(&ctx->args, "code")) {
		printf("%s\n", sender);
		r = 0;
		goto out;
	}
	if ((r = machine_open(ctx, ctx->args.pos[0], &cs, &owner)) == 0)
		r = code_create(&cs, ALX_ROLE_SENDER, sender, 600,
		    "AIRLOX_INVITE=\"$(airlox receive --relay %r %s)\"");
out:
	alxs_sess_close(&cs);
	alx_wipe_str(sender);
	alx_wipe_str(owner);
	return r;
}

const struct cmd_entry cmd_machine_invite_entry = {
	"machine invite", "NAME", 1, 1, cmd_machine_invite_opts, 0,
	cmd_machine_invite_exec,
	"print the machine's sender invite (for AIRLOX_INVITE), or a code"
};

static const struct cmd_opt cmd_machine_rm_opts[] = {
	{ NULL, NULL, 0, NULL }
};

static int
cmd_machine_rm_exec(struct client_ctx *ctx)
{
	struct alx_notice	 n;
	struct alxs_resp	 resp;
	struct alxs_sess		 cs;
	char			*owner = NULL, path[128];
	int			 r;

	if ((r = machine_open(ctx, ctx->args.pos[0], &cs, &owner)) != 0)
		goto out;
	memset(&n, 0, sizeof(n));
	strcpy(n.type, "close");
	memcpy(n.sid, cs.inv.sid, ALX_SID_LEN);
	n.time = alxs_http_now(&cs.http);
	if ((r = alx_notice_sign(&n, &cs.me.sk)) == 0) {
		alxs_sess_path(&cs, path, sizeof(path), "%s", "");
		r = alxs_http_request(&cs.http, "DELETE", path, n.obj.raw,
		    n.obj.raw_len, NULL, 1, 4096, &resp);
		alxs_http_resp_free(&resp);
		alx_notice_free(&n);
	}
	if (r != 0 && r != ALX_ERR_SESSION_EXPIRED && r != ALX_ERR_NOT_FOUND) {
		r = out_fail(r, "the relay did not close the session");
		goto out;
	}
	machine_remove(ctx->args.pos[0]);
	printf("machine %s removed (its session is closed)\n",
	    ctx->args.pos[0]);
	r = 0;
out:
	alxs_sess_close(&cs);
	alx_wipe_str(owner);
	return r;
}

const struct cmd_entry cmd_machine_rm_entry = {
	"machine rm", "NAME", 1, 1, cmd_machine_rm_opts, 0, cmd_machine_rm_exec,
	"close the machine's session and forget it"
};

static const struct cmd_opt cmd_machine_denied_opts[] = {
	{ NULL, NULL, 0, NULL }
};

/* Print the egress attempts a report of the machine's runner lists. */
static int
machine_denied_event(struct alxs_sess *cs, const struct alx_view_event *ev,
    void *arg)
{
	struct alx_json	*j = NULL;
	struct alx_jw	 jw;
	char		*meta = NULL, *job = NULL, *host = NULL, *when = NULL;
	char		*why = NULL;
	size_t		 len;
	int		 d, arr, i, n, t, *count = arg;

	if (ev->type != ALX_EV_ITEM || strcmp(ev->item.kind, "report") != 0 ||
	    alxs_item_meta(cs, &ev->item, &meta, &len) != 0)
		return 0;
	if (alx_json_parse(&j, meta, len, NULL) != 0 ||
	    (d = alx_json_obj_get(j, 0, "denied")) < 0 ||
	    alx_json_get_str(j, d, "job", &job, 64) != 0 ||
	    (arr = alx_json_obj_get(j, d, "entries")) < 0)
		goto out;
	n = alx_json_arr_len(j, arr);
	for (i = 0; i < n; i++) {
		t = alx_json_arr_at(j, arr, i);
		if (alx_json_get_str(j, t, "host", &host, 256) != 0)
			continue;
		alx_json_get_str(j, t, "time", &when, 64);
		alx_json_get_str(j, t, "reason", &why, 128);
		(*count)++;
		if (out_json()) {
			out_obj_begin(&jw);
			alx_jw_kstr(&jw, "job", job);
			alx_jw_kstr(&jw, "name", host);
			alx_jw_kstr(&jw, "time", when ? when : "");
			alx_jw_kstr(&jw, "reason", why ? why : "");
			out_obj_end(&jw);
		} else {
			printf("%s  %s  ", when ? when : "-", job);
			out_safe(stdout, host, strlen(host));
			printf("  %s\n", why ? why : "");
		}
		free(host);
		free(when);
		free(why);
		host = when = why = NULL;
	}
out:
	free(job);
	alx_json_free(j);
	free(meta);
	return 0;
}

static int
cmd_machine_denied_exec(struct client_ctx *ctx)
{
	struct alxs_sess	 cs;
	char		*owner = NULL;
	int		 r, count = 0;

	if ((r = machine_open(ctx, ctx->args.pos[0], &cs, &owner)) == 0 &&
	    (r = alxs_sess_replay(&cs, machine_denied_event, &count)) == 0 &&
	    count == 0 && !out_json())
		printf("no denied egress on %s\n", ctx->args.pos[0]);
	alxs_sess_close(&cs);
	alx_wipe_str(owner);
	return r;
}

const struct cmd_entry cmd_machine_denied_entry = {
	"machine denied", "NAME", 1, 1, cmd_machine_denied_opts, 0,
	cmd_machine_denied_exec,
	"list the network names the machine's egress proxy refused (job, "
	"name, time)"
};
