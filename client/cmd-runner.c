/*
 * cmd-runner.c: "airlox runner join|serve|verify": the client side of a
 * runner. join starts airlox-runnerd with the options given; serve keeps it
 * running, restarting it after failures with backoff; verify runs its
 * boundary probes.
 */
#include "config.h"

#include <sys/wait.h>

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"
#include "util/runopt.h"

#define RUNNER_ARGV_MAX	64

#define RUNNER_OPTS_MAX	40

/* Filled at start from the runner's table (cmd_runner_init()). */
static struct cmd_opt	cmd_runner_join_opts[RUNNER_OPTS_MAX + 1];
static struct cmd_opt	cmd_runner_verify_opts[RUNNER_OPTS_MAX + 1];

size_t
cmd_runner_opts(int flag, const struct cmd_opt *extra, struct cmd_opt *out,
    size_t max)
{
	/* The help with its default, per row; made once. */
	static char		 help[RUNNER_OPTS_MAX][320];
	const struct runopt	*o;
	size_t			 n = 0, i;

	for (o = runopt_table, i = 0; o->name != NULL && n < max &&
	    i < RUNNER_OPTS_MAX; o++, i++) {
		if (!(o->flags & flag))
			continue;
		if (o->def != NULL)
			snprintf(help[i], sizeof(help[i]), "%s (default: %s)",
			    o->help, o->def);
		else
			snprintf(help[i], sizeof(help[i]), "%s", o->help);
		out[n].name = o->name;
		out[n].arg = o->arg;
		out[n].flags = 0;
		out[n].help = help[i];
		n++;
	}
	for (; extra != NULL && extra->name != NULL && n < max; extra++)
		out[n++] = *extra;
	memset(&out[n], 0, sizeof(out[n]));
	return n;
}

void
cmd_runner_init(void)
{
	cmd_runner_opts(RUNOPT_JOIN, NULL, cmd_runner_join_opts,
	    RUNNER_OPTS_MAX);
	cmd_runner_opts(RUNOPT_VERIFY, NULL, cmd_runner_verify_opts,
	    RUNNER_OPTS_MAX);
}

/* airlox-runnerd: beside this program, in a build tree, or on PATH. */
static const char *
runner_program(void)
{
	static char	path[PATH_MAX];
	char		self[PATH_MAX], *dir;
	ssize_t		n;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		dir = dirname(self);
		snprintf(path, sizeof(path), "%s/airlox-runnerd", dir);
		if (access(path, X_OK) == 0)
			return path;
		snprintf(path, sizeof(path), "%s/../runnerd/airlox-runnerd",
		    dir);
		if (access(path, X_OK) == 0)
			return path;
		snprintf(path, sizeof(path), "%s/../sbin/airlox-runnerd", dir);
		if (access(path, X_OK) == 0)
			return path;
	}
	return "airlox-runnerd";	/* execvp searches PATH */
}

/* The runner's command line from this command's options. */
static int
runner_argv(struct client_ctx *ctx, const char *verb, char **argv)
{
	const struct cmd_opt	*o;
	int			 n = 0;
	size_t			 i;
	static char		 optbuf[RUNNER_ARGV_MAX][48];

	argv[n++] = (char *)runner_program();
	if (verb != NULL)
		argv[n++] = (char *)verb;
	if (ctx->name != NULL) {
		argv[n++] = (char *)"--name";
		argv[n++] = (char *)ctx->name;
	}
	if (ctx->description != NULL) {
		argv[n++] = (char *)"--description";
		argv[n++] = (char *)ctx->description;
	}
	if (ctx->relay != NULL && args_has(&ctx->args, "code")) {
		argv[n++] = (char *)"--relay";
		argv[n++] = (char *)ctx->relay;
	}
	if (ctx->ca_file != NULL) {
		argv[n++] = (char *)"--ca-file";
		argv[n++] = (char *)ctx->ca_file;
	}
	if (ctx->insecure_host != NULL) {
		argv[n++] = (char *)"--insecure-http-host";
		argv[n++] = (char *)ctx->insecure_host;
	}
	for (i = 0; i < ctx->args.nset && n < RUNNER_ARGV_MAX - 3; i++) {
		o = ctx->args.set[i].opt;
		/* Only this command's own options go through. */
		if (o < cmd_runner_join_opts || o >= cmd_runner_join_opts +
		    RUNNER_OPTS_MAX)
			continue;
		snprintf(optbuf[n], sizeof(optbuf[n]), "--%s", o->name);
		argv[n] = optbuf[n];
		n++;
		if (o->arg != NULL)
			argv[n++] = (char *)ctx->args.set[i].val;
	}
	argv[n] = NULL;
	return n;
}

static int
cmd_runner_join_exec(struct client_ctx *ctx)
{
	char	*argv[RUNNER_ARGV_MAX];

	if (ctx->name == NULL)
		return out_usage("runner join: --name NAME is required");
	if (!args_has(&ctx->args, "code") && ctx->invite == NULL)
		return out_usage("runner join: give --code CODE, or the runner "
		    "invite in AIRLOX_INVITE");
	if (ctx->invite != NULL)
		setenv("AIRLOX_INVITE", ctx->invite, 1);
	runner_argv(ctx, NULL, argv);
	fflush(stdout);
	execvp(argv[0], argv);
	return out_fail(ALX_ERR_IO, "cannot start %s: %s", argv[0],
	    strerror(errno));
}

const struct cmd_entry cmd_runner_join_entry = {
	"runner join", "", 0, 0, cmd_runner_join_opts, CMD_PARTICIPANT,
	cmd_runner_join_exec,
	"join a session as its runner on this machine (starts airlox-runnerd)"
};

static volatile sig_atomic_t	runner_serve_stop;

static void
runner_serve_signal(int sig)
{
	(void)sig;
	runner_serve_stop = 1;
}

static int
cmd_runner_serve_exec(struct client_ctx *ctx)
{
	char		*argv[RUNNER_ARGV_MAX];
	struct sigaction sa;
	pid_t		 pid;
	time_t		 started;
	int		 status, backoff = 1;

	if (ctx->name == NULL)
		return out_usage("runner serve: --name NAME is required");
	if (ctx->invite != NULL)
		setenv("AIRLOX_INVITE", ctx->invite, 1);
	runner_argv(ctx, NULL, argv);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = runner_serve_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!runner_serve_stop) {
		started = time(NULL);
		if ((pid = fork()) == -1)
			return out_fail(ALX_ERR_IO, "fork: %s", strerror(errno));
		if (pid == 0) {
			execvp(argv[0], argv);
			_exit(127);
		}
		while (waitpid(pid, &status, 0) == -1) {
			if (errno != EINTR)
				break;
			if (runner_serve_stop)
				kill(pid, SIGTERM);
		}
		if (runner_serve_stop ||
		    (WIFEXITED(status) && WEXITSTATUS(status) == 0))
			break;
		/* A runner that ran a while starts over with a short pause. */
		if (time(NULL) - started > 60)
			backoff = 1;
		out_warn("the runner stopped (%s %d); starting it again in %d s",
		    WIFEXITED(status) ? "exit" : "signal",
		    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		    backoff);
		sleep((unsigned)backoff);
		if (backoff < 300)
			backoff *= 2;
	}
	return 0;
}

const struct cmd_entry cmd_runner_serve_entry = {
	"runner serve", "", 0, 0, cmd_runner_join_opts, CMD_PARTICIPANT,
	cmd_runner_serve_exec,
	"run the runner and restart it after failures, with backoff"
};

static int
cmd_runner_verify_exec(struct client_ctx *ctx)
{
	static char		 flag[RUNNER_OPTS_MAX][48];
	char			*argv[2 + 2 * RUNNER_OPTS_MAX + 1];
	const struct cmd_opt	*o;
	int			 n = 0;
	size_t			 i, k = 0;

	argv[n++] = (char *)runner_program();
	argv[n++] = (char *)"verify";
	/* Only this command's own options go through. */
	for (i = 0; i < ctx->args.nset && k < RUNNER_OPTS_MAX; i++) {
		o = ctx->args.set[i].opt;
		if (o < cmd_runner_verify_opts || o >= cmd_runner_verify_opts +
		    RUNNER_OPTS_MAX)
			continue;
		snprintf(flag[k], sizeof(flag[k]), "--%s", o->name);
		argv[n++] = flag[k++];
		if (o->arg != NULL)
			argv[n++] = (char *)ctx->args.set[i].val;
	}
	argv[n] = NULL;
	fflush(stdout);
	execvp(argv[0], argv);
	return out_fail(ALX_ERR_IO, "cannot start %s: %s", argv[0],
	    strerror(errno));
}

const struct cmd_entry cmd_runner_verify_entry = {
	"runner verify", "", 0, 0, cmd_runner_verify_opts, 0,
	cmd_runner_verify_exec,
	"prove the runner's sandbox boundary from inside a sandbox"
};
