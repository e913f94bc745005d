/*
 * cmd-run.c: "airlox run": run a command (or a shell script, or a Python
 * file) on a runner of the session, stream its output, and print the
 * signed result's footer after it verified. The exit status is the job's;
 * airlox's own outcomes use the reserved codes of airlox(1).
 */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"
#include "client-job.h"
#include "client-tree.h"

static const struct cmd_opt cmd_run_opts[] = {
	{ "on", "NAME|pool/LABEL", 0, "the runner the owner approved as NAME, "
	    "or any runner it approved with LABEL (default: the session's "
	    "only approved runner)" },
	{ "shell", "FILE", 0, "send the shell script FILE as the command" },
	{ "timeout", "DURATION", 0, "give up waiting for the result after "
	    "this long, riding out a relay outage meanwhile (default 2h)" },
	{ "wait-runner", "DURATION", 0, "how long the job may wait for a free "
	    "runner before it expires, which ends the run (default 10m)" },
	/* tree: the working tree options (client-tree.c) */
	{ "tree", NULL, 0, "send the working tree to this sender's workspace "
	    "on the runner (default: off)" },
	{ "tree-exclude", "PATTERN", OPT_MULTI, "leave files matching PATTERN "
	    "out of the tree (default: none)" },
	{ "tree-allow", "PATTERN", OPT_MULTI, "send credential-like files "
	    "matching PATTERN (default: none)" },
	{ "tree-folder", NULL, 0, "with --tree, send the current folder as it "
	    "is, though it is not inside one git repository or is the home "
	    "folder (default: refused)" },
	{ "fresh", NULL, 0, "start from an empty workspace; with --tree, send "
	    "the full tree (default: off)" },
	{ "no-wait", NULL, 0, "print the job id and exit; pick the result up "
	    "with airlox result" },
	{ "save", "DIR", 0, "save the files the job wrote to $AIRLOX_OUT into "
	    "DIR, never overwriting (default: not saved)" },
	{ "input", "FILE", OPT_MULTI, "send FILE with the job, readable by it "
	    "at $AIRLOX_IN/NAME (default: none)" },
	{ "require", "NAME", OPT_MULTI, "a Python package the job needs, by "
	    "name only: the session's allowlist pins its version (default: "
	    "none)" },
	{ NULL, NULL, 0, NULL }
};

/* --require NAME...: package names; their versions are the session's. */
static int
run_requirements(struct client_ctx *ctx, struct alx_jobmeta *jm)
{
	const char	*v;
	char		**nr;
	size_t		 i, k, n;

	for (i = 0; (v = args_nth(&ctx->args, "require", i)) != NULL; i++) {
		n = strlen(v);
		if (strpbrk(v, "<>=!~@[; ") != NULL)
			return out_usage("--require %s: give the package's name "
			    "only; its version is pinned by the session's "
			    "allowlist (airlox session create --package)", v);
		for (k = 0; k < n; k++)
			if (!isalnum((unsigned char)v[k]) && v[k] != '-' &&
			    v[k] != '_' && v[k] != '.')
				break;
		if (n == 0 || n > 100 || k < n || !isalnum((unsigned char)v[0]) ||
		    !isalnum((unsigned char)v[n - 1]))
			return out_usage("--require %s: not a package name", v);
		if (i >= ALX_JOB_MAX_REQS)
			return out_usage("--require: at most %d packages",
			    ALX_JOB_MAX_REQS);
		if ((nr = reallocarray(jm->reqs, i + 1, sizeof(*nr))) == NULL)
			return EXIT_FAIL;
		jm->reqs = nr;
		if ((nr[i] = strdup(v)) == NULL)
			return EXIT_FAIL;
		jm->nreqs = i + 1;
	}
	return 0;
}

/* The one approved runner of the session, for a run without --on. */
static int
run_default_target(struct alxs_sess *cs, struct job_target *t)
{
	const struct alx_manifest	*m = alx_view_manifest(&cs->view);

	if (m->napproved != 1)
		return out_fail(ALX_ERR_INVALID, "name the runner with --on "
		    "NAME (the session has %zu approved runners)",
		    m->napproved);
	snprintf(t->name, sizeof(t->name), "%s", m->approved[0].name);
	return 0;
}

static int
run_target(struct client_ctx *ctx, struct alxs_sess *cs, struct job_target *t)
{
	const char	*on = args_get(&ctx->args, "on");

	memset(t, 0, sizeof(*t));
	if (on == NULL)
		return run_default_target(cs, t);
	if (strncmp(on, "pool/", 5) == 0) {
		t->is_label = 1;
		on += 5;
	}
	if (!alx_name_valid(on))
		return out_usage("--on %s: not a runner name or pool/LABEL",
		    on);
	snprintf(t->name, sizeof(t->name), "%s", on);
	return 0;
}

/*
 * The words after "--", run as they are: no shell parses them again on the
 * runner (shell syntax is for -- sh -c '...' and --shell FILE).
 */
static int
run_argv(struct client_ctx *ctx, struct alx_jobmeta *jm)
{
	size_t	i, total = 0;

	if (ctx->args.npos == 0)
		return out_usage("nothing to run: give -- CMD..., --shell FILE "
		    "or FILE.py");
	if (ctx->args.pos[0][0] == '\0')
		return out_usage("-- CMD: the command's name is empty");
	if ((size_t)ctx->args.npos > ALX_JOB_ARGV_MAX)
		return out_fail(ALX_ERR_TOO_LARGE, "the command has more than "
		    "%d words", ALX_JOB_ARGV_MAX);
	if ((jm->argv = calloc((size_t)ctx->args.npos,
	    sizeof(*jm->argv))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < (size_t)ctx->args.npos; i++) {
		total += strlen(ctx->args.pos[i]) + 1;
		if ((jm->argv[i] = strdup(ctx->args.pos[i])) == NULL)
			return ALX_ERR_NOMEM;
		jm->argc++;
	}
	if (total > ALX_JOB_CMD_MAX)
		return out_fail(ALX_ERR_TOO_LARGE, "the command is longer than "
		    "%d bytes", ALX_JOB_CMD_MAX);
	return 0;
}

/* The job meta: a command's words, a shell script, or a Python file. */
static int
run_meta(struct client_ctx *ctx, struct alx_jobmeta *jm, int *fd,
    int64_t *size)
{
	const char	*script = args_get(&ctx->args, "shell");
	struct alx_buf	 cmd;
	struct stat	 st;
	char		*base;

	memset(jm, 0, sizeof(*jm));
	*fd = -1;
	*size = 0;
	jm->cwd = strdup("");
	if (script == NULL && ctx->args.npos == 1 &&
	    strlen(ctx->args.pos[0]) > 3 &&
	    strcmp(ctx->args.pos[0] + strlen(ctx->args.pos[0]) - 3, ".py") == 0 &&
	    access(ctx->args.pos[0], R_OK) == 0) {
		jm->kind = ALX_JOBKIND_PYTHON;
		base = strrchr(ctx->args.pos[0], '/');
		jm->file = strdup(base != NULL ? base + 1 : ctx->args.pos[0]);
		if ((*fd = open(ctx->args.pos[0], O_RDONLY | O_CLOEXEC)) == -1 ||
		    fstat(*fd, &st) == -1)
			return out_fail(ALX_ERR_IO, "cannot read %s",
			    ctx->args.pos[0]);
		*size = st.st_size;
		return 0;
	}
	jm->kind = ALX_JOBKIND_SHELL;
	alx_buf_init(&cmd, ALX_JOB_CMD_MAX);
	if (script != NULL && ctx->args.npos > 0)
		return out_usage("--shell FILE runs the script FILE: give no "
		    "command after it");
	if (script != NULL) {
		char	tmp[4096];
		ssize_t	n;
		int	sfd = open(script, O_RDONLY | O_CLOEXEC);

		if (sfd == -1)
			return out_fail(ALX_ERR_IO, "cannot read %s", script);
		while ((n = read(sfd, tmp, sizeof(tmp))) > 0)
			if (alx_buf_add(&cmd, tmp, (size_t)n) != 0) {
				close(sfd);
				alx_buf_free(&cmd);
				return out_fail(ALX_ERR_TOO_LARGE, "%s is larger "
				    "than %d bytes", script, ALX_JOB_CMD_MAX);
			}
		close(sfd);
		jm->cmd = (char *)alx_buf_steal(&cmd, NULL);
		return jm->cmd != NULL ? 0 : ALX_ERR_NOMEM;
	}
	alx_buf_free(&cmd);
	return run_argv(ctx, jm);
}

/* --input FILE...: files sent with the job, open from the start. */
struct run_inputs {
	size_t		 n;
	int		 fd[ALX_JOB_MAX_INPUTS];
	char		*name[ALX_JOB_MAX_INPUTS];
	int64_t		 size[ALX_JOB_MAX_INPUTS];
	int64_t		 total;
};

static void
run_inputs_free(struct run_inputs *in)
{
	size_t	i;

	for (i = 0; i < in->n; i++) {
		close(in->fd[i]);
		free(in->name[i]);
	}
	in->n = 0;
}

static int
run_inputs_open(struct client_ctx *ctx, struct run_inputs *in)
{
	struct stat	 st;
	const char	*v, *base;
	size_t		 i, k;

	memset(in, 0, sizeof(*in));
	for (i = 0; (v = args_nth(&ctx->args, "input", i)) != NULL; i++) {
		if (i >= ALX_JOB_MAX_INPUTS)
			return out_usage("--input: at most %d files",
			    ALX_JOB_MAX_INPUTS);
		base = strrchr(v, '/') != NULL ? strrchr(v, '/') + 1 : v;
		if (!alx_input_name_valid(base))
			return out_usage("--input %s: not a file name the job "
			    "can be given", v);
		for (k = 0; k < in->n; k++)
			if (strcmp(in->name[k], base) == 0)
				return out_usage("--input %s: a second file "
				    "named %s", v, base);
		if ((in->fd[in->n] = open(v, O_RDONLY | O_CLOEXEC)) == -1)
			return out_fail(ALX_ERR_IO, "--input %s: %s", v,
			    strerror(errno));
		if (fstat(in->fd[in->n], &st) != 0 || !S_ISREG(st.st_mode)) {
			close(in->fd[in->n]);
			return out_usage("--input %s: not a regular file", v);
		}
		if ((in->name[in->n] = strdup(base)) == NULL) {
			close(in->fd[in->n]);
			return ALX_ERR_NOMEM;
		}
		in->size[in->n] = st.st_size;
		in->total += st.st_size;
		in->n++;
	}
	return 0;
}

/*
 * Post the inputs, each an item of kind input sealed with a key from the
 * job's (kjob), and name them in the job's meta.
 */
static int
run_inputs_post(struct alxs_sess *cs, struct run_inputs *in,
    const uint8_t kjob[ALX_KEY_LEN], struct alx_jobmeta *jm)
{
	struct alxs_item_post	 p;
	char			*meta = NULL, *cause = NULL;
	size_t			 i;
	int			 r;

	for (i = 0; i < jm->ninputs; i++)
		free(jm->inputs[i].name);
	free(jm->inputs);
	jm->inputs = NULL;
	jm->ninputs = 0;
	if (in->n == 0)
		return 0;
	if ((jm->inputs = calloc(in->n, sizeof(*jm->inputs))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < in->n; i++) {
		if (asprintf(&meta, "{\"v\":1,\"name\":\"input\"}") < 0)
			return ALX_ERR_NOMEM;
		memset(&p, 0, sizeof(p));
		p.kind = "input";
		p.meta = meta;
		p.metalen = strlen(meta);
		p.fd = in->fd[i];
		p.size = in->size[i];
		p.job_key = kjob;
		r = alxs_item_post(cs, &p, &cause);
		free(meta);
		if (r != 0) {
			r = out_fail(r, "--input %s was not sent%s%s",
			    in->name[i], cause ? ": " : "", cause ? cause : "");
			free(cause);
			return r;
		}
		memcpy(jm->inputs[i].id, p.id, ALX_ID_LEN);
		jm->inputs[i].size = in->size[i];
		if ((jm->inputs[i].name = strdup(in->name[i])) == NULL)
			return ALX_ERR_NOMEM;
		jm->ninputs++;
	}
	return 0;
}

/* tree: the options of --tree, and what ctree_build needs to key its state. */
struct run_tree {
	int			 on;
	struct ctree_opts	 o;
	const char		*pat[2][64];
	char			 sid[ALX_B64_ENCLEN(ALX_SID_LEN) + 1];
	char			 target[ALX_NAME_MAX + 6];
};

/* tree: build the tree (again, after a tree_mismatch) as the payload. */
static int
run_tree(struct client_ctx *ctx, struct alxs_sess *cs,
    const struct job_target *t, struct alx_jobmeta *jm, struct ctree *tr,
    struct run_tree *rt, int *fd, int64_t *size)
{
	const char	*v;
	char		*cause = NULL;
	size_t		 i;
	int		 r;

	rt->on = args_has(&ctx->args, "tree");
	if (!rt->on && !args_has(&ctx->args, "fresh"))
		return 0;
	if (jm->kind != ALX_JOBKIND_SHELL)
		return out_usage("--tree and --fresh take a command or --shell, "
		    "not FILE.py");
	jm->fresh = args_has(&ctx->args, "fresh");
	memset(&rt->o, 0, sizeof(rt->o));
	alx_b64_encode(rt->sid, cs->inv.sid, ALX_SID_LEN);
	snprintf(rt->target, sizeof(rt->target), "%s%s", t->is_label ?
	    "pool/" : "", t->name);
	rt->o.sid = rt->sid;
	rt->o.target = rt->target;
	rt->o.fresh = jm->fresh;
	rt->o.any_folder = args_has(&ctx->args, "tree-folder");
	for (i = 0; i < 64 && (v = args_nth(&ctx->args, "tree-exclude", i));
	    i++)
		rt->pat[0][rt->o.nexclude++] = v;
	for (i = 0; i < 64 && (v = args_nth(&ctx->args, "tree-allow", i)); i++)
		rt->pat[1][rt->o.nallow++] = v;
	rt->o.exclude = rt->pat[0];
	rt->o.allow = rt->pat[1];
	if (!rt->on)
		return ctree_forget(&rt->o) == 0 ? 0 : out_fail(ALX_ERR_IO,
		    "cannot reset the kept tree state");
	ctree_free(tr);
	if ((r = ctree_build(tr, &rt->o, &cause)) != 0) {
		r = out_fail(r, "--tree: %s", cause != NULL ? cause :
		    alx_strerror(r));
		free(cause);
		return r;
	}
	free(jm->tree);
	free(jm->cwd);
	jm->tree = strdup(tr->desc);
	jm->cwd = strdup(tr->cwd);
	if (jm->tree == NULL || jm->cwd == NULL)
		return ALX_ERR_NOMEM;
	*fd = tr->fd;
	*size = tr->size;
	return 0;
}

/* Reserved exit codes: see airlox(1). */
int
run_exit_code(const struct alx_resultmeta *rm)
{
	switch (rm->status) {
	case ALX_JOB_COMPLETED:
		return rm->has_exit ? (int)rm->exit_code : 125;
	case ALX_JOB_REFUSED:
		return RUN_EXIT_REFUSED;
	case ALX_JOB_TIMEOUT:
		return RUN_EXIT_TIMEOUT;
	case ALX_JOB_CANCELLED:
		return RUN_EXIT_CANCELLED;
	case ALX_JOB_KILLED_OOM:
	case ALX_JOB_KILLED_DISK:
		return RUN_EXIT_KILLED;
	default:
		return RUN_EXIT_LOST;
	}
}

/* One " · NAME VALUE" of the env line; only short text values. */
static void
run_env_item(const struct alx_json *j, int obj, const char *key,
    const char *label)
{
	char	*v = NULL;

	if (alx_json_get_str(j, obj, key, &v, 128) == 0 && v[0] != '\0') {
		fprintf(stderr, " · %s ", label);
		out_safe(stderr, v, strlen(v));
	}
	free(v);
}

/*
 * The result's env on one line under the footer: the sandbox, the airlox
 * version, the Python and where it came from, each allowlisted package's
 * installed version. The runner signed it; --json has all of it.
 */
static void
run_print_env(const char *env)
{
	struct alx_json	*j = NULL;
	char		*name = NULL, *ver = NULL;
	int		 pk, n, i, k, v;

	if (env == NULL || alx_json_parse(&j, env, strlen(env), NULL) != 0 ||
	    alx_json_type(j, 0) != ALX_JSON_OBJECT) {
		alx_json_free(j);
		return;
	}
	if (alx_json_obj_len(j, 0) <= 0) {
		alx_json_free(j);
		return;
	}
	fprintf(stderr, "env");
	run_env_item(j, 0, "sandbox", "sandbox");
	run_env_item(j, 0, "airlox", "airlox");
	run_env_item(j, 0, "python", "python");
	run_env_item(j, 0, "python_source", "from");
	if ((pk = alx_json_obj_get(j, 0, "packages")) >= 0 &&
	    (n = alx_json_obj_len(j, pk)) > 0)
		for (i = 0; i < n && i < 64; i++) {
			if (alx_json_obj_at(j, pk, i, &k, &v) != 0 ||
			    alx_json_str(j, k, &name, NULL) != 0)
				continue;
			fprintf(stderr, " · ");
			out_safe(stderr, name, strlen(name));
			if (alx_json_str(j, v, &ver, NULL) == 0) {
				fputc(' ', stderr);
				out_safe(stderr, ver, strlen(ver));
			} else
				fprintf(stderr, " not installed");
			free(name);
			free(ver);
			name = ver = NULL;
		}
	fputc('\n', stderr);
	alx_json_free(j);
}

/* Why output did not all come back, in words (the result's "cut"). */
static const char *
run_cut_words(const char *cut)
{
	if (strcmp(cut, "item_max") == 0)
		return "a job returns at most the session's largest item "
		    "(item_max) of output";
	if (strcmp(cut, "session_max") == 0 || strcmp(cut, "too_large") == 0)
		return "the session is full (session_max)";
	if (strcmp(cut, "not_allowed") == 0)
		return "the relay's transfer limit";
	if (strcmp(cut, "insufficient_storage") == 0)
		return "the relay is out of storage";
	if (strcmp(cut, "interrupted") == 0)
		return "the runner stopped before it sent it";
	return cut;
}

/* Text: a stream's kept start, then the runner's own words. */
static void
run_json_text(struct alx_jw *jw, const char *key, const struct alx_buf *b,
    const char *words)
{
	struct alx_buf	t;

	alx_buf_init(&t, 0);
	if (alx_buf_add(&t, b->data, b->len) != 0 ||
	    alx_buf_addstr(&t, words != NULL ? words : "") != 0)
		alx_buf_reset(&t);
	alx_jw_key(jw, key);
	alx_jw_strn(jw, (const char *)t.data, t.len);
	alx_buf_free(&t);
}

static void
run_print_json(const struct job_outcome *o, const char *idtxt)
{
	const struct alx_resultmeta	*rm = &o->rm;
	const struct alx_result_output	*ro = &rm->output;
	struct alx_jw			 jw;
	size_t				 i;

	out_obj_begin(&jw);
	alx_jw_kstr(&jw, "event", "result");
	alx_jw_kstr(&jw, "job", idtxt);
	alx_jw_kstr(&jw, "status", alx_job_status_name(rm->status));
	if (rm->reason[0] != '\0')
		alx_jw_kstr(&jw, "reason", rm->reason);
	if (rm->has_exit)
		alx_jw_kint(&jw, "exit_code", rm->exit_code);
	/* The start of each stream (its "output" events have all of it). */
	run_json_text(&jw, "stdout", &o->out.keep[0], rm->out);
	run_json_text(&jw, "stderr", &o->out.keep[1], rm->err);
	alx_jw_kbool(&jw, "stdout_truncated", o->out.cut_keep[0] ||
	    rm->out_truncated);
	alx_jw_kbool(&jw, "stderr_truncated", o->out.cut_keep[1] ||
	    rm->err_truncated);
	if (ro->has) {
		alx_jw_kint(&jw, "stdout_bytes", ro->s[0].size);
		alx_jw_kint(&jw, "stderr_bytes", ro->s[1].size);
		alx_jw_kint(&jw, "stdout_dropped", ro->s[0].dropped);
		alx_jw_kint(&jw, "stderr_dropped", ro->s[1].dropped);
		if (ro->cut[0] != '\0')
			alx_jw_kstr(&jw, "output_cut", ro->cut);
	}
	alx_jw_kint(&jw, "duration_ms", rm->duration_ms);
	alx_jw_kint(&jw, "peak_memory", rm->peak_memory);
	alx_jw_key(&jw, "files");
	alx_jw_arr_begin(&jw);
	for (i = 0; i < rm->nfiles; i++)
		alx_jw_str(&jw, rm->files[i].name);
	alx_jw_arr_end(&jw);
	alx_jw_key(&jw, "env");
	alx_jw_raw(&jw, rm->env ? rm->env : "{}",
	    strlen(rm->env ? rm->env : "{}"));
	alx_jw_kstr(&jw, "runner", o->runner);
	alx_jw_kbool(&jw, "verified", 1);
	alx_jw_kint(&jw, "exit", run_exit_code(rm));
	out_obj_end(&jw);
}

/* Loud, under the footer: output the job wrote that did not come back. */
static void
run_print_dropped(const struct alx_result_output *ro)
{
	const char	*words;

	if (!ro->has || (ro->s[0].dropped == 0 && ro->s[1].dropped == 0))
		return;
	fprintf(stderr, "!! OUTPUT CUT: %lld bytes of stdout and %lld bytes of "
	    "stderr the job wrote did not come back (", (long long)
	    ro->s[0].dropped, (long long)ro->s[1].dropped);
	words = run_cut_words(ro->cut);
	out_safe(stderr, words, strlen(words));
	fprintf(stderr, "); %lld and %lld bytes came\n",
	    (long long)ro->s[0].size, (long long)ro->s[1].size);
}

/*
 * The files the job wrote to $AIRLOX_OUT, when they are not being saved:
 * their names (the first RUN_FILES_SHOWN) and how to save them.
 */
#define RUN_FILES_SHOWN	8
static void
run_print_files(const struct alx_resultmeta *rm, const char *idtxt)
{
	char	size[64];
	int64_t	total = 0;
	size_t	i;

	if (rm->nfiles == 0)
		return;
	for (i = 0; i < rm->nfiles; i++)
		total += rm->files[i].size;
	alxs_size(size, sizeof(size), total);
	fprintf(stderr, "files · %zu (%s)", rm->nfiles, size);
	for (i = 0; i < rm->nfiles && i < RUN_FILES_SHOWN; i++) {
		fprintf(stderr, " · ");
		out_safe(stderr, rm->files[i].name, strlen(rm->files[i].name));
	}
	if (rm->nfiles > RUN_FILES_SHOWN)
		fprintf(stderr, " · %zu more", rm->nfiles - RUN_FILES_SHOWN);
	/* "--" before the id: one in 64 starts with '-'. */
	fprintf(stderr, " · not saved: airlox result --save DIR -- %s\n",
	    idtxt);
}

void
run_print_result(const struct job_outcome *o, const char *idtxt, int saving)
{
	const struct alx_resultmeta	*rm = &o->rm;
	char				 line[256];

	if (out_json()) {
		run_print_json(o, idtxt);
		return;
	}
	/* The runner's own words (a refusal's reason, a restart). */
	out_safe(stdout, rm->out, strlen(rm->out));
	out_safe(stderr, rm->err, strlen(rm->err));
	if (rm->err[0] != '\0' && rm->err[strlen(rm->err) - 1] != '\n')
		fputc('\n', stderr);
	snprintf(line, sizeof(line), "── %s", alx_job_status_name(rm->status));
	if (rm->reason[0] != '\0')
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
		    " (%s)", rm->reason);
	if (rm->has_exit)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
		    " · exit %lld", (long long)rm->exit_code);
	snprintf(line + strlen(line), sizeof(line) - strlen(line),
	    " · %.1f s", (double)rm->duration_ms / 1000.0);
	if (rm->peak_memory >= 0)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
		    " · peak %lld MB", (long long)(rm->peak_memory >> 20));
	fflush(stdout);
	out_line_start(stderr);		/* output without a last newline */
	fprintf(stderr, "%s · signed by runner ", line);
	out_safe(stderr, o->runner, strlen(o->runner));
	fprintf(stderr, "\n");
	run_print_dropped(&rm->output);
	run_print_env(rm->env);
	if (!saving)
		run_print_files(rm, idtxt);
}

int
run_save(struct alxs_sess *cs, const struct job_outcome *o, const char *dir,
    int code)
{
	int	r, refused;

	if ((r = job_save(cs, o, dir, &refused)) != 0)
		return out_fail(r, "--save: the job's files were not saved");
	if (refused > 0)
		return out_fail(ALX_ERR_BAD_PATH, "--save: %d of the job's "
		    "files refused (named above); the rest saved in %s",
		    refused, dir);
	return code;
}

/* --save DIR: a folder that exists, checked before the job is sent. */
int
run_save_dir(const char *dir)
{
	struct stat	st;

	if (dir != NULL && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
		return out_usage("--save %s: not a directory", dir);
	return 0;
}

/* The header's command: the argv quoted so it can be pasted back. */
static void
run_print_command(const struct alx_jobmeta *jm, const char *script)
{
	struct alx_buf	b;

	if (jm->argv == NULL) {
		if (script != NULL)
			fputs("--shell ", stderr);
		out_safe(stderr, script != NULL ? script : jm->file,
		    strlen(script != NULL ? script : jm->file));
		return;
	}
	alx_buf_init(&b, 4 * ALX_JOB_CMD_MAX + 16);
	if (out_argv_quote(&b, jm->argv, jm->argc) == 0)
		fwrite(b.data, 1, b.len, stderr);
	alx_buf_free(&b);
}

static int
cmd_run_exec(struct client_ctx *ctx)
{
	struct alxs_sess		 cs;
	struct job_target	 t;
	struct job_posted	 posted;
	struct job_outcome	 o;
	struct alx_jobmeta	 jm;
	struct alx_jw		 jw;
	struct ctree		 tr;		/* tree: */
	struct run_tree		 rt;
	char			*meta = NULL, idtxt[ALX_FP_STRLEN + 1];
	size_t			 metalen;
	int64_t			 size, timeout_s = 7200, wait_s = 600;
	struct run_inputs	 in;
	uint8_t			 kjob[ALX_KEY_LEN];
	size_t			 i;
	int			 fd = -1, r, tries = 0;

	memset(&in, 0, sizeof(in));
	memset(kjob, 0, sizeof(kjob));
	memset(&tr, 0, sizeof(tr));
	tr.fd = -1;
	memset(&rt, 0, sizeof(rt));
	memset(&o, 0, sizeof(o));

	if ((r = args_duration(&ctx->args, "timeout", timeout_s,
	    &timeout_s)) != 0 || (r = args_duration(&ctx->args, "wait-runner",
	    wait_s, &wait_s)) != 0)
		return r;
	if ((r = run_save_dir(args_get(&ctx->args, "save"))) != 0)
		return r;
	if ((r = run_inputs_open(ctx, &in)) != 0) {
		run_inputs_free(&in);
		return r;
	}
	if ((r = run_meta(ctx, &jm, &fd, &size)) != 0 ||
	    (r = run_requirements(ctx, &jm)) != 0)
		goto done;
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0)
		goto close;
	if ((r = run_target(ctx, &cs, &t)) != 0)
		goto close;
	t.wait_s = wait_s;
again:
	if ((r = run_tree(ctx, &cs, &t, &jm, &tr, &rt, &fd, &size)) != 0)
		goto close;
	/* The job's key: its inputs are sealed with it before it goes. */
	if ((r = alx_random(kjob, sizeof(kjob))) != 0 ||
	    (r = run_inputs_post(&cs, &in, kjob, &jm)) != 0)
		goto close;
	free(meta);
	if ((r = alx_jobmeta_encode(&jm, &meta, &metalen)) != 0) {
		meta = NULL;
		r = out_fail(r, "cannot encode the job");
		goto close;
	}
	r = job_post(&cs, &t, meta, metalen, fd, size, kjob, &posted);
	alx_wipe(kjob, sizeof(kjob));
	if (r == ALX_ERR_NOT_FOUND) {
		r = out_fail(r, "no approved runner is %s %s in this session",
		    t.is_label ? "labelled" : "named", t.name);
		goto close;
	}
	if (r != 0) {
		r = out_fail(r, "the job was not posted%s%s", posted.message ?
		    ": " : "", posted.message ? posted.message : "");
		free(posted.message);
		goto close;
	}
	alx_b64_encode(idtxt, posted.id, ALX_ID_LEN);
	if (out_json()) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "event", "job");
		alx_jw_kstr(&jw, "job", idtxt);
		alx_jw_kstr(&jw, "target", t.name);
		alx_jw_kbool(&jw, "pool", t.is_label);
		if (jm.argv != NULL) {
			alx_jw_key(&jw, "argv");
			alx_jw_arr_begin(&jw);
			for (i = 0; i < jm.argc; i++)
				alx_jw_str(&jw, jm.argv[i]);
			alx_jw_arr_end(&jw);
		} else if (jm.file != NULL)
			alx_jw_kstr(&jw, "file", jm.file);
		else
			alx_jw_kstr(&jw, "shell",
			    args_get(&ctx->args, "shell"));
		if (in.n > 0) {
			alx_jw_key(&jw, "inputs");
			alx_jw_arr_begin(&jw);
			for (i = 0; i < in.n; i++)
				alx_jw_str(&jw, in.name[i]);
			alx_jw_arr_end(&jw);
		}
		if (rt.on) {	/* tree: what was sent */
			alx_jw_key(&jw, "tree");
			alx_jw_obj_begin(&jw);
			alx_jw_kint(&jw, "files", tr.nfiles);
			alx_jw_kint(&jw, "bytes", tr.total);
			alx_jw_kint(&jw, "changed", tr.nsent);
			alx_jw_kint(&jw, "deleted", (int64_t)tr.ndeleted);
			alx_jw_kint(&jw, "sent", tr.size);
			alx_jw_kbool(&jw, "delta", tr.delta);
			alx_jw_obj_end(&jw);
		}
		out_obj_end(&jw);
	} else if (args_has(&ctx->args, "no-wait"))
		printf("%s\n", idtxt);
	else {
		fprintf(stderr, "%s · job %s · ", t.name, idtxt);
		run_print_command(&jm, args_get(&ctx->args, "shell"));
		if (in.n > 0)
			fprintf(stderr, " · %zu input%s, %lld bytes", in.n,
			    in.n == 1 ? "" : "s", (long long)in.total);
		if (rt.on)	/* tree: its size and what changed */
			fprintf(stderr, " · tree %lld files, %lld %s, %lld "
			    "deleted, %lld bytes sent", (long long)tr.nfiles,
			    (long long)tr.nsent, tr.delta ? "changed" : "sent",
			    (long long)tr.ndeleted, (long long)tr.size);
		fprintf(stderr, "\n");
		if (tr.nskipped > 0)
			fprintf(stderr, "tree: %zu entries not sent (special "
			    "files or links out of the tree): %s\n",
			    tr.nskipped, tr.skipped);
	}
	if (args_has(&ctx->args, "no-wait")) {
		r = 0;
		goto close;
	}
	r = job_wait(&cs, posted.id, posted.hash, timeout_s, 1, &o);
	if (r == ALX_ERR_EXPIRED && o.unclaimed) {
		out_fail(ALX_ERR_EXPIRED, "no runner took job %s within "
		    "--wait-runner; it expired and will not run", idtxt);
		r = RUN_EXIT_LOST;
		goto close;
	}
	if (r == ALX_ERR_EXPIRED) {
		r = out_fail(ALX_ERR_EXPIRED, "no result within the timeout; "
		    "the job is %s (airlox result --wait picks it up)", idtxt);
		r = RUN_EXIT_LOST;
		goto close;
	}
	if (r != 0) {
		r = out_fail(r, "the job's result could not be verified");
		goto close;
	}
	/* tree: keep what the runner confirmed; a stale base: once more, full */
	if (rt.on) {
		ctree_confirm(&rt.o, &tr, o.rm.env);
		if (o.rm.status == ALX_JOB_REFUSED && tr.delta && tries++ == 0 &&
		    strcmp(o.rm.reason, alx_errname(ALX_ERR_TREE_MISMATCH)) == 0) {
			job_outcome_free(&o);
			if (!out_json())
				fprintf(stderr, "tree: the runner holds another "
				    "tree; sending the full tree\n");
			goto again;
		}
	}
	run_print_result(&o, idtxt, args_get(&ctx->args, "save") != NULL);
	/* A runner from before argv jobs cannot decode one: it refuses. */
	if (jm.argv != NULL && o.rm.status == ALX_JOB_REFUSED &&
	    strcmp(o.rm.reason, alx_errname(ALX_ERR_NOT_ALLOWED)) == 0 &&
	    o.rm.err[0] == '\0' &&
	    !out_json())
		fprintf(stderr, "note: a runner older than this client refuses "
		    "a command sent as words (-- CMD ...) as not_allowed; "
		    "update it, or send a script with --shell FILE\n");
	r = run_exit_code(&o.rm);
	if (args_get(&ctx->args, "save") != NULL)
		r = run_save(&cs, &o, args_get(&ctx->args, "save"), r);
close:
	job_outcome_free(&o);
	alxs_sess_close(&cs);
done:
	run_inputs_free(&in);
	alx_wipe(kjob, sizeof(kjob));
	if (fd != -1 && fd != tr.fd)
		close(fd);
	ctree_free(&tr);
	alx_jobmeta_free(&jm);
	free(meta);
	return r;
}

const struct cmd_entry cmd_run_entry = {
	"run", "[-- CMD ... | FILE.py]", 0, -1, cmd_run_opts,
	CMD_INVITE | CMD_PARTICIPANT, cmd_run_exec,
	"run a command, a shell script or a Python file on a runner and "
	"wait for its signed result"
};
