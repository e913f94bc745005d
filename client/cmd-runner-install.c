/*
 * cmd-runner-install.c: "airlox runner install-service": receive the
 * runner invite (--code, or AIRLOX_INVITE), keep it in the runner's state
 * dir, and write and enable a systemd user unit that runs airlox-runnerd
 * with the options given and the PATH this command ran with. The unit is
 * contrib/systemd/airlox-runner.service, filled in (runner-unit.h is made
 * from it at build time, so the two cannot drift apart).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"
#include "client-job.h"
#include "runner-unit.h"

static const struct cmd_opt cmd_runner_install_opts[] = {
	{ "code", "CODE", 0, "receive the runner invite with a one-time code" },
	{ "labels", "A,B", 0, "labels jobs may target (default: none)" },
	{ "concurrency", "N", 0, "job slots (default: 1)" },
	{ "sandbox", "local|process", 0, "how jobs run (default: local)" },
	{ "workspace", NULL, 0, "keep a workspace per sender between jobs" },
	{ "state-dir", "DIR", 0, "the runner's state dir (default: "
	    "$XDG_STATE_HOME/airlox)" },
	{ "no-enable", NULL, 0, "write the unit, but do not run systemctl" },
	{ NULL, NULL, 0, NULL }
};

static int
install_home(char *out, size_t len, const char *xdg, const char *sub)
{
	const char	*v = getenv(xdg), *home = getenv("HOME");
	struct passwd	*pw;

	if (v != NULL && v[0] == '/')
		return (size_t)snprintf(out, len, "%s", v) < len ? 0 :
		    ALX_ERR_TOO_LARGE;
	if (home == NULL || home[0] != '/') {
		if ((pw = getpwuid(geteuid())) == NULL)
			return ALX_ERR_IO;
		home = pw->pw_dir;
	}
	return (size_t)snprintf(out, len, "%s/%s", home, sub) < len ? 0 :
	    ALX_ERR_TOO_LARGE;
}

static int
install_mkdirs(const char *dir, mode_t last)
{
	char	tmp[PATH_MAX], *p;

	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) == -1 && errno != EEXIST)
			return ALX_ERR_IO;
		*p = '/';
	}
	if (mkdir(tmp, last) == -1 && errno != EEXIST)
		return ALX_ERR_IO;
	return 0;
}

/* An argument quoted for a systemd command line. */
static void
install_quote(struct alx_buf *b, const char *s)
{
	alx_buf_addc(b, ' ');
	alx_buf_addc(b, '"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			alx_buf_addc(b, '\\');
		if (*s == '%' || *s == '$')
			alx_buf_addc(b, *s);	/* %% and $$ */
		alx_buf_addc(b, (uint8_t)*s);
	}
	alx_buf_addc(b, '"');
}

/* Fill the template's @NAME@ placeholders. */
static char *
install_fill(const char *runnerd, const char *state, const char *args,
    const char *path)
{
	struct alx_buf	 b;
	const char	*p = runner_unit_template, *at;

	alx_buf_init(&b, 64 * 1024);
	while ((at = strchr(p, '@')) != NULL) {
		alx_buf_add(&b, p, (size_t)(at - p));
		if (strncmp(at, "@PATH@", 6) == 0) {
			alx_buf_addstr(&b, runnerd);
			p = at + 6;
		} else if (strncmp(at, "@STATE_DIR@", 11) == 0) {
			struct alx_buf	q;

			alx_buf_init(&q, PATH_MAX * 2 + 8);
			install_quote(&q, state);
			alx_buf_add(&b, q.data + 1, q.len - 1);
			alx_buf_free(&q);
			p = at + 11;
		} else if (strncmp(at, "@ARGS@", 6) == 0) {
			alx_buf_addstr(&b, args);
			p = at + 6;
		} else if (strncmp(at, "@ENVPATH@", 9) == 0) {
			alx_buf_addstr(&b, path);
			p = at + 9;
		} else {
			alx_buf_addc(&b, '@');
			p = at + 1;
		}
	}
	alx_buf_addstr(&b, p);
	return (char *)alx_buf_steal(&b, NULL);
}

static int
install_systemctl(const char *verb, const char *unit)
{
	pid_t	pid;
	int	st;

	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		execlp("systemctl", "systemctl", "--user", verb, "--now", unit,
		    (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int
cmd_runner_install_exec(struct client_ctx *ctx)
{
	struct alx_buf	 args;
	const char	*v, *pathenv = getenv("PATH");
	char		 state[PATH_MAX], conf[PATH_MAX], unitdir[PATH_MAX];
	char		 unit[PATH_MAX + 32], invpath[PATH_MAX + 16];
	char		 runnerd[PATH_MAX], self[PATH_MAX];
	char		*invite = NULL, *text = NULL;
	ssize_t		 n;
	int		 r;

	if (ctx->name == NULL || !alx_name_valid(ctx->name))
		return out_usage("runner install-service: --name NAME is "
		    "required ([a-z0-9][a-z0-9._-]*)");
	/* airlox-runnerd, found as runner join finds it, by full path. */
	runnerd[0] = '\0';
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		snprintf(runnerd, sizeof(runnerd), "%s/airlox-runnerd",
		    dirname(self));
		if (access(runnerd, X_OK) != 0 &&
		    (size_t)snprintf(runnerd, sizeof(runnerd),
		    "%s/../runnerd/airlox-runnerd", self) >= sizeof(runnerd))
			runnerd[0] = '\0';
		if (access(runnerd, X_OK) != 0 ||
		    realpath(runnerd, self) == NULL)
			runnerd[0] = '\0';
		else
			snprintf(runnerd, sizeof(runnerd), "%s", self);
	}
	if (runnerd[0] == '\0')
		return out_fail(ALX_ERR_NOT_FOUND, "airlox-runnerd is not "
		    "installed beside airlox");
	if ((v = args_get(&ctx->args, "state-dir")) != NULL)
		snprintf(state, sizeof(state), "%s", v);
	else if (install_home(state, sizeof(state) - 8, "XDG_STATE_HOME",
	    ".local/state") != 0)
		return out_fail(ALX_ERR_IO, "no home directory");
	else
		strcat(state, "/airlox");
	if (install_home(conf, sizeof(conf), "XDG_CONFIG_HOME", ".config") != 0)
		return out_fail(ALX_ERR_IO, "no home directory");
	/* The invite: received now, kept where the runner looks for it. */
	if ((v = args_get(&ctx->args, "code")) != NULL) {
		if ((r = code_receive(ctx, v, &invite)) != 0)
			return r;
	} else if (ctx->invite != NULL)
		invite = strdup(ctx->invite);
	else
		return out_usage("give --code CODE, or the runner invite in "
		    "AIRLOX_INVITE");
	if (install_mkdirs(state, 0700) != 0) {
		r = out_fail(ALX_ERR_IO, "cannot make %s", state);
		goto out;
	}
	snprintf(invpath, sizeof(invpath), "%s/invite", state);
	if ((r = cache_write_file(invpath, invite, strlen(invite))) != 0) {
		r = out_fail(r, "cannot keep the invite in %s", invpath);
		goto out;
	}
	alx_buf_init(&args, 8192);
	install_quote(&args, "--name");
	install_quote(&args, ctx->name);
	if ((v = args_get(&ctx->args, "labels")) != NULL) {
		install_quote(&args, "--labels");
		install_quote(&args, v);
	}
	if ((v = args_get(&ctx->args, "concurrency")) != NULL) {
		install_quote(&args, "--concurrency");
		install_quote(&args, v);
	}
	if ((v = args_get(&ctx->args, "sandbox")) != NULL) {
		install_quote(&args, "--sandbox");
		install_quote(&args, v);
	}
	if (args_has(&ctx->args, "workspace"))
		install_quote(&args, "--workspace");
	text = install_fill(runnerd, state, args.len ? (char *)args.data + 1 :
	    "", pathenv != NULL ? pathenv : "/usr/bin:/bin");
	alx_buf_free(&args);
	if (text == NULL || (size_t)snprintf(unitdir, sizeof(unitdir),
	    "%s/systemd/user", conf) >= sizeof(unitdir) ||
	    install_mkdirs(unitdir, 0755) != 0) {
		r = out_fail(ALX_ERR_IO, "cannot make %s", unitdir);
		goto out;
	}
	snprintf(unit, sizeof(unit), "%s/airlox-runner.service", unitdir);
	if ((r = cache_write_file(unit, text, strlen(text))) != 0 ||
	    chmod(unit, 0644) != 0) {
		r = out_fail(ALX_ERR_IO, "cannot write %s", unit);
		goto out;
	}
	printf("wrote %s\n", unit);
	if (args_has(&ctx->args, "no-enable"))
		r = 0;
	else if (install_systemctl("enable", "airlox-runner.service") == 0) {
		printf("enabled and started: systemctl --user status "
		    "airlox-runner\n");
		r = 0;
	} else {
		printf("systemctl --user did not enable it here; run:\n"
		    "  systemctl --user daemon-reload\n"
		    "  systemctl --user enable --now airlox-runner\n");
		r = 0;
	}
	printf("For the full limits (memory and process caps for every job), "
	    "run the runner as a system service instead: see "
	    "airlox-runnerd.service in airlox-runnerd(8).\n");
out:
	if (invite != NULL) {
		alx_wipe(invite, strlen(invite));
		free(invite);
	}
	free(text);
	return r;
}

const struct cmd_entry cmd_runner_install_entry = {
	"runner install-service", "", 0, 0, cmd_runner_install_opts,
	CMD_PARTICIPANT, cmd_runner_install_exec,
	"install the runner as a systemd user service (with the PATH of now)"
};
