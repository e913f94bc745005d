/*
 * cmd-runner-install.c: "airlox runner install-service": receive the
 * runner invite (--code, or AIRLOX_INVITE), keep it in the runner's state
 * dir, and write and enable a systemd user unit that runs airlox-runnerd
 * with the options given and the PATH this command ran with, or (--launchd,
 * the default on macOS) a launchd agent. The unit is
 * contrib/systemd/airlox-runner.service and the agent
 * contrib/launchd/org.airlox.runnerd.plist.in, filled in (runner-unit.h and
 * runner-plist.h are made from them at build time, so they cannot drift).
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
#include "runner-plist.h"
#include "util/runopt.h"

#define INSTALL_OPTS_MAX	40

/* The runner's settings this command takes (runopt.h), then its own. */
static struct cmd_opt cmd_runner_install_opts[INSTALL_OPTS_MAX + 1];
static const struct cmd_opt cmd_runner_install_own[] = {
	{ "state-dir", "DIR", 0, "where the service keeps the runner's state "
	    "(default: $XDG_STATE_HOME/airlox, or Application Support/airlox "
	    "with --launchd)" },
	{ "launchd", NULL, 0, "write a launchd agent instead of a systemd "
	    "unit (the default on macOS)" },
	{ "no-enable", NULL, 0, "write the unit or agent, but do not run "
	    "systemctl or launchctl" },
	{ NULL, NULL, 0, NULL }
};

void
cmd_runner_install_init(void)
{
	cmd_runner_opts(RUNOPT_INSTALL, cmd_runner_install_own,
	    cmd_runner_install_opts, INSTALL_OPTS_MAX);
}

/* The user's home directory: $HOME when absolute, else the passwd entry. */
static int
install_homedir(char *out, size_t len)
{
	const char	*home = getenv("HOME");
	struct passwd	*pw;

	if (home == NULL || home[0] != '/') {
		if ((pw = getpwuid(geteuid())) == NULL)
			return ALX_ERR_IO;
		home = pw->pw_dir;
	}
	return (size_t)snprintf(out, len, "%s", home) < len ? 0 :
	    ALX_ERR_TOO_LARGE;
}

/* $xdg when it is absolute, else ~/sub. */
static int
install_home(char *out, size_t len, const char *xdg, const char *sub)
{
	const char	*v = getenv(xdg);
	char		 home[PATH_MAX];

	if (v != NULL && v[0] == '/')
		return (size_t)snprintf(out, len, "%s", v) < len ? 0 :
		    ALX_ERR_TOO_LARGE;
	if (install_homedir(home, sizeof(home)) != 0)
		return ALX_ERR_IO;
	return (size_t)snprintf(out, len, "%s/%s", home, sub) < len ? 0 :
	    ALX_ERR_TOO_LARGE;
}

/* mkdir -p: missing folders 0700 (as the XDG spec asks), the last last. */
static int
install_mkdirs(const char *dir, mode_t last)
{
	char	tmp[PATH_MAX], *p;

	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) == -1 && errno != EEXIST)
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

/* Text for an XML (property list) string element. */
static void
install_xml(struct alx_buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '&')
			alx_buf_addstr(b, "&amp;");
		else if (*s == '<')
			alx_buf_addstr(b, "&lt;");
		else if (*s == '>')
			alx_buf_addstr(b, "&gt;");
		else
			alx_buf_addc(b, (uint8_t)*s);
	}
}

/* A template's @NAME@ placeholder and what replaces it. */
struct install_sub {
	const char	*name;		/* "@PATH@" */
	const char	*value;
};

/* Fill a template's placeholders; an unknown @ is kept as it is. */
static char *
install_fill(const char *tmpl, const struct install_sub *subs, size_t n)
{
	struct alx_buf	 b;
	const char	*p = tmpl, *at;
	size_t		 i, len;

	alx_buf_init(&b, 64 * 1024);
	while ((at = strchr(p, '@')) != NULL) {
		alx_buf_add(&b, p, (size_t)(at - p));
		for (i = 0; i < n; i++) {
			len = strlen(subs[i].name);
			if (strncmp(at, subs[i].name, len) == 0)
				break;
		}
		if (i < n) {
			alx_buf_addstr(&b, subs[i].value);
			p = at + len;
		} else {
			alx_buf_addc(&b, '@');
			p = at + 1;
		}
	}
	alx_buf_addstr(&b, p);
	return (char *)alx_buf_steal(&b, NULL);
}

/* Run a program and wait for it: its exit status, or -1. */
static int
install_spawn(char *const argv[])
{
	pid_t	pid;
	int	st;

	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * The options the service passes to airlox-runnerd, after --state-dir:
 * those of the runner's table marked RUNOPT_UNIT that were given, the
 * valued ones first (the launchd template names the sandbox itself:
 * with_sandbox 0).
 */
static size_t
install_options(struct client_ctx *ctx, int with_sandbox, const char *opts[],
    size_t max)
{
	static char		 flag[INSTALL_OPTS_MAX][48];
	const struct runopt	*o;
	const char		*v;
	size_t			 n = 0, k = 0;
	int			 valued;

	opts[n++] = "--name";
	opts[n++] = ctx->name;
	for (valued = 1; valued >= 0; valued--)
		for (o = runopt_table; o->name != NULL && n + 2 <= max &&
		    k < INSTALL_OPTS_MAX; o++) {
			if (!(o->flags & RUNOPT_UNIT) ||
			    (o->arg != NULL) != valued ||
			    (!with_sandbox && o->kind == RUNOPT_SANDBOX) ||
			    !args_has(&ctx->args, o->name))
				continue;
			snprintf(flag[k], sizeof(flag[k]), "--%s", o->name);
			opts[n++] = flag[k++];
			if (valued && (v = args_get(&ctx->args, o->name)) !=
			    NULL)
				opts[n++] = v;
		}
	return n;
}

/* Write a file 0644 (the unit or agent), saying where. */
static int
install_write(const char *dir, const char *name, const char *text,
    char *path, size_t len)
{
	int	r;

	if (install_mkdirs(dir, 0755) != 0)
		return out_fail(ALX_ERR_IO, "cannot make %s", dir);
	if ((size_t)snprintf(path, len, "%s/%s", dir, name) >= len)
		return out_fail(ALX_ERR_TOO_LARGE, "%s: path too long", dir);
	if ((r = alxs_cache_write_file(path, text, strlen(text))) != 0 ||
	    chmod(path, 0644) != 0)
		return out_fail(ALX_ERR_IO, "cannot write %s", path);
	printf("wrote %s\n", path);
	return 0;
}

/* systemd: ~/.config/systemd/user/airlox-runner.service, then enable it. */
static int
install_systemd(struct client_ctx *ctx, const char *runnerd,
    const char *state, const char *opts[], size_t nopts)
{
	struct alx_buf		 args, st;
	struct install_sub	 subs[4];
	const char		*pathenv = getenv("PATH");
	char			*systemctl[] = { "systemctl", "--user", "enable",
				    "--now", "airlox-runner.service", NULL };
	char			 conf[PATH_MAX], dir[PATH_MAX], unit[PATH_MAX];
	char			*text;
	size_t			 i;
	int			 r;

	if (install_home(conf, sizeof(conf), "XDG_CONFIG_HOME", ".config") != 0)
		return out_fail(ALX_ERR_IO, "no home directory");
	if ((size_t)snprintf(dir, sizeof(dir), "%s/systemd/user", conf) >=
	    sizeof(dir))
		return out_fail(ALX_ERR_TOO_LARGE, "%s: path too long", conf);
	alx_buf_init(&args, 8192);
	for (i = 0; i < nopts; i++)
		install_quote(&args, opts[i]);
	alx_buf_init(&st, PATH_MAX * 2 + 8);
	install_quote(&st, state);
	alx_buf_addc(&args, '\0');
	alx_buf_addc(&st, '\0');
	subs[0].name = "@PATH@";	subs[0].value = runnerd;
	subs[1].name = "@STATE_DIR@";	subs[1].value = (char *)st.data + 1;
	subs[2].name = "@ARGS@";	subs[2].value = (char *)args.data + 1;
	subs[3].name = "@ENVPATH@";
	subs[3].value = pathenv != NULL ? pathenv : "/usr/bin:/bin";
	text = install_fill(runner_unit_template, subs, 4);
	alx_buf_free(&args);
	alx_buf_free(&st);
	if (text == NULL)
		return out_fail(ALX_ERR_NOMEM, "out of memory");
	r = install_write(dir, "airlox-runner.service", text, unit,
	    sizeof(unit));
	free(text);
	if (r != 0)
		return r;
	if (args_has(&ctx->args, "no-enable"))
		;
	else if (install_spawn(systemctl) == 0)
		printf("enabled and started: systemctl --user status "
		    "airlox-runner\n");
	else
		printf("systemctl --user did not enable it here; run:\n"
		    "  systemctl --user daemon-reload\n"
		    "  systemctl --user enable --now airlox-runner\n");
	printf("For the full limits (memory and process caps for every job), "
	    "run the runner as a system service instead: see "
	    "airlox-runnerd.service in airlox-runnerd(8).\n");
	return 0;
}

/*
 * The agent template without its opening comment, which names the
 * placeholders (filled in there, they would break the XML: "--" is not
 * allowed in a comment).
 */
static const char *
install_plist_body(struct alx_buf *b)
{
	const char	*t = runner_plist_template, *c, *e;

	alx_buf_init(b, sizeof(runner_plist_template) + 128);
	if ((c = strstr(t, "<!--")) == NULL ||
	    (e = strstr(c, "-->")) == NULL)
		alx_buf_addstr(b, t);
	else {
		alx_buf_add(b, t, (size_t)(c - t));
		alx_buf_addstr(b, "<!-- Written by airlox runner "
		    "install-service; see airlox(1). -->");
		alx_buf_addstr(b, e + 3);
	}
	alx_buf_addc(b, '\0');
	return (const char *)b->data;
}

/* launchd: ~/Library/LaunchAgents/org.airlox.runnerd.plist, bootstrapped. */
static int
install_launchd(struct client_ctx *ctx, const char *runnerd,
    const char *state, const char *opts[], size_t nopts)
{
	struct alx_buf		 args, path, st, log, body;
	struct install_sub	 subs[4];
	char			 home[PATH_MAX], dir[PATH_MAX], plist[PATH_MAX];
	char			 logpath[PATH_MAX], logdir[PATH_MAX], domain[32];
	char			*launchctl[] = { "launchctl", "bootstrap", domain,
				    plist, NULL };
	char			*text;
	size_t			 i;
	int			 r;

	if (install_homedir(home, sizeof(home)) != 0)
		return out_fail(ALX_ERR_IO, "no home directory");
	if ((size_t)snprintf(dir, sizeof(dir), "%s/Library/LaunchAgents",
	    home) >= sizeof(dir) || (size_t)snprintf(logpath,
	    sizeof(logpath), "%s/Library/Logs/airlox-runnerd.log", home) >=
	    sizeof(logpath))
		return out_fail(ALX_ERR_TOO_LARGE, "%s: path too long", home);
	snprintf(logdir, sizeof(logdir), "%s", logpath);
	*strrchr(logdir, '/') = '\0';
	if (install_mkdirs(logdir, 0755) != 0)
		return out_fail(ALX_ERR_IO, "cannot make %s", logdir);
	alx_buf_init(&args, 8192);
	for (i = 0; i < nopts; i++) {
		alx_buf_addstr(&args, i > 0 ? "\n\t\t<string>" :
		    "\t\t<string>");
		install_xml(&args, opts[i]);
		alx_buf_addstr(&args, "</string>");
	}
	alx_buf_init(&path, PATH_MAX);
	alx_buf_init(&st, PATH_MAX);
	alx_buf_init(&log, PATH_MAX);
	install_xml(&path, runnerd);
	install_xml(&st, state);
	install_xml(&log, logpath);
	alx_buf_addc(&args, '\0');
	alx_buf_addc(&path, '\0');
	alx_buf_addc(&st, '\0');
	alx_buf_addc(&log, '\0');
	subs[0].name = "@PATH@";	subs[0].value = (char *)path.data;
	subs[1].name = "@STATE_DIR@";	subs[1].value = (char *)st.data;
	subs[2].name = "@ARGS@";	subs[2].value = (char *)args.data;
	subs[3].name = "@LOG@";		subs[3].value = (char *)log.data;
	text = install_fill(install_plist_body(&body), subs, 4);
	alx_buf_free(&body);
	alx_buf_free(&args);
	alx_buf_free(&path);
	alx_buf_free(&st);
	alx_buf_free(&log);
	if (text == NULL)
		return out_fail(ALX_ERR_NOMEM, "out of memory");
	r = install_write(dir, "org.airlox.runnerd.plist", text, plist,
	    sizeof(plist));
	free(text);
	if (r != 0)
		return r;
	snprintf(domain, sizeof(domain), "gui/%u", (unsigned)geteuid());
	if (args_has(&ctx->args, "no-enable"))
		;
	else if (install_spawn(launchctl) == 0)
		printf("loaded: launchctl print %s/org.airlox.runnerd\n",
		    domain);
	else
		printf("launchctl did not load it here; run:\n"
		    "  launchctl bootstrap %s %s\n", domain, plist);
	return 0;
}

/* airlox-runnerd, found as runner join finds it, by full path. */
static int
install_find_runnerd(char *runnerd, size_t len)
{
	char	self[PATH_MAX];
	ssize_t	n;

	runnerd[0] = '\0';
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return -1;
	self[n] = '\0';
	snprintf(runnerd, len, "%s/airlox-runnerd", dirname(self));
	if (access(runnerd, X_OK) != 0 &&
	    (size_t)snprintf(runnerd, len, "%s/../runnerd/airlox-runnerd",
	    self) >= len)
		runnerd[0] = '\0';
	if (access(runnerd, X_OK) != 0 || realpath(runnerd, self) == NULL) {
		runnerd[0] = '\0';
		return -1;
	}
	snprintf(runnerd, len, "%s", self);
	return 0;
}

static int
cmd_runner_install_exec(struct client_ctx *ctx)
{
	const struct runopt_sandbox *s;
	const char	*v, *opts[24];
	char		 state[PATH_MAX], invpath[PATH_MAX + 16];
	char		 runnerd[PATH_MAX];
	struct alxs_conf conf;
	char		*invite = NULL;
	size_t		 nopts;
	int		 r, launchd, gone;

#ifdef __APPLE__
	launchd = 1;
#else
	launchd = args_has(&ctx->args, "launchd");
#endif
	if (ctx->name == NULL || !alx_name_valid(ctx->name))
		return out_usage("runner install-service: --name NAME is "
		    "required ([a-z0-9][a-z0-9._-]*)");
	if (install_find_runnerd(runnerd, sizeof(runnerd)) != 0)
		return out_fail(ALX_ERR_NOT_FOUND, "airlox-runnerd is not "
		    "installed beside airlox");
	if ((v = args_get(&ctx->args, "state-dir")) != NULL)
		snprintf(state, sizeof(state), "%s", v);
	else if (launchd) {
		if (install_homedir(state, sizeof(state) - 40) != 0)
			return out_fail(ALX_ERR_IO, "no home directory");
		strcat(state, "/Library/Application Support/airlox");
	} else if (install_home(state, sizeof(state) - 8, "XDG_STATE_HOME",
	    ".local/state") != 0)
		return out_fail(ALX_ERR_IO, "no home directory");
	else
		strcat(state, "/airlox");
	/* The invite: received now, kept where the runner looks for it. */
	if ((v = args_get(&ctx->args, "code")) != NULL) {
		client_conf(ctx, &conf);
		if ((r = alxs_code_receive(&conf, v, ALXS_CODE_ANSWER_S,
		    &invite,
		    &gone)) != 0)
			return code_receive_fail(r, gone, ALXS_CODE_ANSWER_S);
	} else if (ctx->invite != NULL)
		invite = strdup(ctx->invite);
	else
		return out_usage("give --code CODE, or the runner invite in "
		    "AIRLOX_INVITE");
	if (invite == NULL)
		return out_fail(ALX_ERR_NOMEM, "out of memory");
	if (install_mkdirs(state, 0700) != 0) {
		r = out_fail(ALX_ERR_IO, "cannot make %s", state);
		goto out;
	}
	snprintf(invpath, sizeof(invpath), "%s/invite", state);
	if ((r = alxs_cache_write_file(invpath, invite, strlen(invite))) != 0) {
		r = out_fail(r, "cannot keep the invite in %s", invpath);
		goto out;
	}
	if (((v = args_get(&ctx->args, "python")) != NULL && v[0] != '/') ||
	    ((v = args_get(&ctx->args, "find-links")) != NULL && v[0] != '/')) {
		r = out_usage("%s: the service needs an absolute path", v);
		goto out;
	}
	if (launchd && (v = args_get(&ctx->args, "sandbox")) != NULL &&
	    ((s = runopt_sandbox_find(v)) == NULL ||
	    !(s->flags & RUNOPT_SB_PORTABLE))) {
		r = out_usage("--launchd: the agent runs jobs in the %s "
		    "sandbox (macOS has no other)",
		    runopt_sandbox_with(RUNOPT_SB_PORTABLE)->name);
		goto out;
	}
	nopts = install_options(ctx, !launchd, opts,
	    sizeof(opts) / sizeof(opts[0]));
	if (launchd)
		r = install_launchd(ctx, runnerd, state, opts, nopts);
	else
		r = install_systemd(ctx, runnerd, state, opts, nopts);
out:
	alx_wipe_str(invite);
	return r;
}

const struct cmd_entry cmd_runner_install_entry = {
	"runner install-service", "", 0, 0, cmd_runner_install_opts,
	CMD_PARTICIPANT, cmd_runner_install_exec,
	"install the runner as a systemd user service (with the PATH of now) "
	"or a launchd agent"
};
