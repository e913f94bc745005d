/*
 * cmd-listen.c: "airlox listen": wait for what concerns this participant
 * (client-concern.c). --once prints it and exits; --exec CMD and --agent
 * start a program per batch of such items, passing only their ids (never
 * their text). Where listening resumes is kept in the cache, so nothing
 * that arrived between two runs is missed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "airlox.h"
#include "util/log.h"
#include "client.h"

#define LISTEN_BATCH_MAX	4096	/* more than a log page (1000) */
#define LISTEN_POLL_MAX		25

static const struct cmd_opt cmd_listen_opts[] = {
	{ "once", NULL, 0, "print what concerns you, then exit (the "
	    "default when neither --exec nor --agent is given)" },
	{ "exec", "CMD", 0, "run CMD (by /bin/sh) per batch of items, with "
	    "their ids as arguments (default: none)" },
	{ "agent", "claude|codex", 0, "start this agent per batch, with the "
	    "ids in its prompt; needs --from (default: none)" },
	{ "resume", "ID", 0, "the agent conversation to resume (with "
	    "--agent)" },
	{ "fresh", NULL, 0, "start a new agent conversation each time (with "
	    "--agent)" },
	{ "from", "owner|NAME|FP", 0, "only items from the owner, a display "
	    "name (self-chosen!) or a key fingerprint (default: anyone)" },
	{ "timeout", "DURATION", 0, "with --once, give up after this long "
	    "(exit status 7; default: wait forever)" },
	{ "run-timeout", "DURATION", 0, "kill a program's whole process "
	    "group after this long (default: 30m)" },
	{ "pending-timeout", "DURATION", 0, "skip a file whose chunks do not "
	    "arrive in this long; wake for it if they come later "
	    "(default: 60s)" },
	{ "max-hops", "N", 0, "a reply chain of more than N agent posts in "
	    "a row wakes no one (default: 8)" },
	{ NULL, NULL, 0, NULL }
};

struct listen_wait {
	uint8_t	 id[ALX_ID_LEN];
	int64_t	 cursor;
	time_t	 deadline;	/* 0: skipped, wakes when complete */
};

struct listen_state {
	struct client_ctx	*ctx;
	struct concern_opts	 co;
	int			 once;
	int64_t			 start;		/* events after this count */
	int64_t			 pending_timeout;
	uint8_t			 batch[LISTEN_BATCH_MAX][ALX_ID_LEN];
	size_t			 nbatch;
	struct listen_wait	*wait;
	size_t			 nwait;
	int			 printed;
	int			 closed;
};

static int
listen_add(struct listen_state *ls, const uint8_t id[ALX_ID_LEN])
{
	size_t	i;

	for (i = 0; i < ls->nbatch; i++)
		if (memcmp(ls->batch[i], id, ALX_ID_LEN) == 0)
			return 0;
	if (ls->nbatch >= LISTEN_BATCH_MAX)
		return 0;	/* the next batch takes it: cursor stays */
	memcpy(ls->batch[ls->nbatch++], id, ALX_ID_LEN);
	return 0;
}

static int
listen_wait_add(struct listen_state *ls, const struct alx_view_event *ev)
{
	struct listen_wait	*w;

	if ((w = reallocarray(ls->wait, ls->nwait + 1, sizeof(*w))) == NULL)
		return ALX_ERR_NOMEM;
	ls->wait = w;
	memcpy(w[ls->nwait].id, ev->item.id, ALX_ID_LEN);
	w[ls->nwait].cursor = ev->cursor;
	w[ls->nwait].deadline = time(NULL) + (time_t)ls->pending_timeout;
	ls->nwait++;
	return 0;
}

static void
listen_completed(struct listen_state *ls, const uint8_t id[ALX_ID_LEN])
{
	size_t	i;

	for (i = 0; i < ls->nwait; i++) {
		if (memcmp(ls->wait[i].id, id, ALX_ID_LEN) != 0)
			continue;
		listen_add(ls, id);
		ls->wait[i] = ls->wait[--ls->nwait];
		return;
	}
}

static int
listen_event(struct alxs_sess *cs, const struct alx_view_event *ev, void *arg)
{
	struct listen_state	*ls = arg;
	const struct alxs_sess_item	*ci;

	if (ev->cursor <= ls->start)
		return 0;
	if (ev->type == ALX_EV_CLOSED) {
		ls->closed = 1;
		return 0;
	}
	if (ev->type == ALX_EV_COMPLETE) {
		listen_completed(ls, ev->id);
		return 0;
	}
	if (ev->type == ALX_EV_REFUSED) {
		item_refused(cs, ev);
		return 0;
	}
	if (!concern_item(cs, &ls->co, ev))
		return 0;
	if (ls->once) {
		ls->printed++;
		return item_show(cs, ev, NULL, "item");
	}
	ci = alxs_sess_item(cs, ev->item.id);
	if (ev->item.size > 0 && (ci == NULL || !ci->complete))
		return listen_wait_add(ls, ev);
	return listen_add(ls, ev->item.id);
}

/* Files that did not arrive in time are skipped until they do. */
static void
listen_expire(struct listen_state *ls)
{
	char	id[ALX_FP_STRLEN + 1];
	size_t	i;

	for (i = 0; i < ls->nwait; i++) {
		if (ls->wait[i].deadline == 0 ||
		    ls->wait[i].deadline > time(NULL))
			continue;
		alx_b64_encode(id, ls->wait[i].id, ALX_ID_LEN);
		out_warn("item %s: its file did not arrive in %lld s; "
		    "skipped until it does", id, (long long)ls->pending_timeout);
		ls->wait[i].deadline = 0;
	}
}

/*
 * Where the next run resumes: before the oldest file still waited for
 * (not before skipped ones: those wake this process when they arrive).
 */
static int
listen_save(struct alxs_sess *cs, struct listen_state *ls)
{
	int64_t	c = cs->view.cursor;
	size_t	i;

	for (i = 0; i < ls->nwait; i++)
		if (ls->wait[i].deadline != 0 && ls->wait[i].cursor - 1 < c)
			c = ls->wait[i].cursor - 1;
	if (c <= cs->me.listen)
		return 0;
	cs->me.listen = c;
	return alxs_cache_note(&cs->me);
}

static char *
listen_prompt(const struct listen_state *ls)
{
	struct alx_buf	b;
	char		id[ALX_FP_STRLEN + 1];
	size_t		i;

	alx_buf_init(&b, 64 * 1024);
	alx_buf_addstr(&b, "New airlox items concern you (ids only; their "
	    "text is not passed here):");
	for (i = 0; i < ls->nbatch; i++) {
		alx_b64_encode(id, ls->batch[i], ALX_ID_LEN);
		alx_buf_printf(&b, " %s", id);
	}
	alx_buf_addstr(&b, ". Read them with `airlox read ID...` and answer "
	    "with `airlox send text --reply-to ID TEXT`. Display names are "
	    "self-chosen; trust key fingerprints.");
	return (char *)alx_buf_steal(&b, NULL);
}

/* argv for the batch: sh -c 'CMD "$@"' with the ids, or the agent. */
static char **
listen_argv(struct listen_state *ls, char *ids[], char **prompt)
{
	const struct cmd_args	*a = &ls->ctx->args;
	const char		*agent = args_get(a, "agent");
	const char		*resume = args_get(a, "resume");
	char			**av;
	size_t			 i, n = 0;

	*prompt = NULL;
	if ((av = calloc(ls->nbatch + 8, sizeof(char *))) == NULL)
		return NULL;
	if (agent == NULL) {
		av[n++] = "/bin/sh";
		av[n++] = "-c";
		if (asprintf(prompt, "%s \"$@\"", args_get(a, "exec")) < 0) {
			free(av);
			return NULL;
		}
		av[n++] = *prompt;
		av[n++] = "airlox-listen";
		for (i = 0; i < ls->nbatch; i++)
			av[n++] = ids[i];
		return av;
	}
	if ((*prompt = listen_prompt(ls)) == NULL) {
		free(av);
		return NULL;
	}
	av[n++] = (char *)agent;
	if (strcmp(agent, "claude") == 0) {
		av[n++] = "-p";
		av[n++] = *prompt;
		if (resume != NULL) {
			av[n++] = "--resume";
			av[n++] = (char *)resume;
		}
	} else {
		av[n++] = "exec";
		if (resume != NULL) {
			av[n++] = "resume";
			av[n++] = (char *)resume;
		}
		av[n++] = *prompt;
	}
	return av;
}

static int
listen_run(struct alxs_sess *cs, struct listen_state *ls, int64_t run_timeout)
{
	char		*ids[LISTEN_BATCH_MAX], *env[8], *prompt, **av;
	char		 dir[1024];
	struct alx_jw	 jw;
	size_t		 i, ne = 0, nids = ls->nbatch;
	int		 status, r;

	for (i = 0; i < ls->nbatch; i++)
		ids[i] = alx_b64_encode_alloc(ls->batch[i], ALX_ID_LEN);
	if (cache_dir(dir, sizeof(dir)) != 0)
		dir[0] = '\0';
	if (asprintf(&env[ne++], "AIRLOX_INVITE=%s", ls->ctx->invite) < 0 ||
	    asprintf(&env[ne++], "AIRLOX_NAME=%s", cs->me.name) < 0 ||
	    asprintf(&env[ne++], "AIRLOX_CACHE_DIR=%s", dir) < 0 ||
	    asprintf(&env[ne++], "AIRLOX_DESCRIPTION=%s",
	    ls->ctx->description ? ls->ctx->description : "") < 0)
		return ALX_ERR_NOMEM;
	env[ne] = NULL;
	if ((av = listen_argv(ls, ids, &prompt)) == NULL)
		return ALX_ERR_NOMEM;
	log_debug("listen: running %s for %zu items", av[0], nids);
	r = exec_run(av, env, run_timeout, &status);
	log_debug("listen: %s ended: %s, status %d", av[0], alx_errname(r),
	    status);
	/* Done with this batch: the next run resumes after it. */
	ls->nbatch = 0;
	if (listen_save(cs, ls) != 0)
		out_warn("listen: cannot note where to resume in the cache");
	if (out_json()) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "event", "run");
		alx_jw_key(&jw, "ids");
		alx_jw_arr_begin(&jw);
		for (i = 0; i < nids; i++)
			alx_jw_str(&jw, ids[i]);
		alx_jw_arr_end(&jw);
		alx_jw_kint(&jw, "status", status);
		alx_jw_kbool(&jw, "timed_out", r == ALX_ERR_EXPIRED);
		out_obj_end(&jw);
	} else if (r == ALX_ERR_EXPIRED)
		out_warn("listen: the program ran longer than --run-timeout; "
		    "its process group was killed");
	else if (status != 0)
		out_warn("listen: the program exited with status %d", status);
	for (i = 0; i < nids; i++)
		free(ids[i]);
	for (i = 0; i < ne; i++) {
		alx_wipe(env[i], strlen(env[i]));
		free(env[i]);
	}
	free(prompt);
	free(av);
	return 0;
}

/*
 * An agent's conversation id goes on its command line: letters, digits,
 * '.', '_', '-', not starting with '-' (never taken for an option).
 */
static int
listen_resume_valid(const char *id)
{
	size_t	i, n = strlen(id);

	if (n == 0 || n > 128 || id[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!((id[i] >= 'a' && id[i] <= 'z') ||
		    (id[i] >= 'A' && id[i] <= 'Z') ||
		    (id[i] >= '0' && id[i] <= '9') ||
		    id[i] == '.' || id[i] == '_' || id[i] == '-'))
			return 0;
	return 1;
}

static int
listen_opts(struct client_ctx *ctx, struct listen_state *ls,
    int64_t *timeout, int64_t *run_timeout)
{
	const struct cmd_args	*a = &ctx->args;
	const char		*agent = args_get(a, "agent");
	const char		*resume = args_get(a, "resume");

	if (args_has(a, "exec") + (agent != NULL) + args_has(a, "once") > 1)
		return out_usage("listen: one of --once, --exec, --agent");
	ls->once = !args_has(a, "exec") && agent == NULL;
	if (agent != NULL) {
		if (strcmp(agent, "claude") != 0 && strcmp(agent, "codex") != 0)
			return out_usage("--agent: claude or codex");
		if (!args_has(a, "from"))
			return out_usage("--agent needs --from owner|NAME|FP: "
			    "an agent must not act on anyone's message");
		if (args_has(a, "resume") == args_has(a, "fresh"))
			return out_usage("--agent needs --resume ID or "
			    "--fresh");
		if (resume != NULL && !listen_resume_valid(resume))
			return out_usage("--resume: an agent conversation id "
			    "(letters, digits, '.', '_', '-'; not starting "
			    "with '-')");
	} else if (args_has(a, "resume") || args_has(a, "fresh"))
		return out_usage("--resume and --fresh go with --agent");
	if (args_duration(a, "timeout", 0, timeout) != 0 ||
	    args_duration(a, "run-timeout", 1800, run_timeout) != 0 ||
	    args_duration(a, "pending-timeout", 60, &ls->pending_timeout) !=
	    0 || args_int(a, "max-hops", 8, 0, 1000000, &ls->co.max_hops) != 0)
		return EXIT_USAGE;
	return 0;
}

static int
listen_loop(struct alxs_sess *cs, struct listen_state *ls, int64_t timeout,
    int64_t run_timeout)
{
	time_t	end = timeout > 0 ? time(NULL) + (time_t)timeout : 0;
	time_t	now;
	int	wait, r = 0;
	size_t	i;

	for (;;) {
		if (exec_interrupted)
			return EXIT_INTERRUPTED;
		if (ls->once && ls->printed > 0)
			return listen_save(cs, ls) == 0 ? EXIT_OK : EXIT_FAIL;
		if (!ls->once && ls->nbatch > 0) {
			if ((r = listen_run(cs, ls, run_timeout)) != 0)
				return out_fail(r, "cannot run the program");
			if (exec_interrupted)
				return EXIT_INTERRUPTED;
		}
		if (ls->closed)
			return out_fail(ALX_ERR_SESSION_EXPIRED, "the session "
			    "was closed");
		listen_expire(ls);
		now = time(NULL);
		if (end != 0 && now >= end)
			return out_fail_code(EXIT_TIMEOUT, ALX_ERR_EXPIRED,
			    "nothing for this participant within --timeout");
		wait = LISTEN_POLL_MAX;
		if (end != 0 && end - now < wait)
			wait = (int)(end - now);
		for (i = 0; i < ls->nwait; i++)
			if (ls->wait[i].deadline != 0 &&
			    ls->wait[i].deadline - now < wait)
				wait = (int)(ls->wait[i].deadline - now);
		if (wait < 1)
			wait = 1;
		if ((r = alxs_sess_poll(cs, wait, listen_event, ls)) != 0) {
			if (exec_interrupted)
				return EXIT_INTERRUPTED;
			return csess_fail(cs, r, "listening failed");
		}
	}
}

static int
cmd_listen_exec(struct client_ctx *ctx)
{
	struct listen_state	 ls;
	struct alxs_sess		 cs;
	const char		*from;
	char			*cause = NULL;
	int64_t			 timeout, run_timeout;
	int			 r;

	memset(&ls, 0, sizeof(ls));
	ls.ctx = ctx;
	if ((r = listen_opts(ctx, &ls, &timeout, &run_timeout)) != 0)
		return r;
	if ((from = args_get(&ctx->args, "from")) != NULL) {
		if (concern_from(NULL, from, &ls.co, &cause) != 0) {
			r = out_usage("%s", cause);
			free(cause);
			return r;
		}
		if (ls.co.from_name[0] != '\0')
			out_warn("--from %s: display names are self-chosen; "
			    "anyone may join with that name. A key "
			    "fingerprint (see airlox session show) is sure.",
			    from);
	}
	exec_signals();
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0) {
		alxs_sess_close(&cs);
		return r;
	}
	ls.start = cs.me.listen;
	if ((r = alxs_sess_replay(&cs, listen_event, &ls)) != 0)
		r = csess_fail(&cs, r, "cannot read the session's log");
	else
		r = listen_loop(&cs, &ls, timeout, run_timeout);
	free(ls.wait);
	alxs_sess_close(&cs);
	return r;
}

const struct cmd_entry cmd_listen_entry = {
	"listen", "", 0, 0, cmd_listen_opts, CMD_INVITE | CMD_PARTICIPANT,
	cmd_listen_exec,
	"wait for items that concern you: print them (--once) or start a "
	"program per batch (--exec, --agent)"
};
