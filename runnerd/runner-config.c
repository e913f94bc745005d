/*
 * runner-config.c: the one option table of airlox-runnerd. It drives
 * option parsing, --help and the man page consistency test; the
 * configuration file (runner-conf.c) sets the same settings by key.
 * Precedence: defaults, then the config file, then the environment, then
 * the command line.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "runopt.h"
#include "runnerd.h"

#ifndef ALX_SYSCONFDIR
#define ALX_SYSCONFDIR		"/etc"
#endif
#define RUNNER_CONF_DEFAULT	ALX_SYSCONFDIR "/airlox/runner.conf"

struct runner_opt {
	const char	*name;		/* long flag */
	const char	*conf;		/* config file key, or NULL */
	const char	*env;		/* environment variable, or NULL */
	const char	*arg;		/* NULL: a switch */
	const char	*help;
};

static const struct runner_opt runner_opts[] = {
	{ "invite", NULL, "AIRLOX_INVITE", "LINK",
	  "the session's runner invite (visible in ps: prefer AIRLOX_INVITE "
	  "or --invite-file)" },
	{ "invite-file", NULL, NULL, "FILE",
	  "read the runner invite from FILE" },
	{ "code", NULL, NULL, "CODE",
	  "receive the runner invite with a one-time transfer code" },
	{ "relay", NULL, "AIRLOX_RELAY", "URL",
	  "the relay for --code (the invite names its own)" },
	{ "name", "NAME", "AIRLOX_NAME", "NAME",
	  "this runner's name ([a-z0-9][a-z0-9._-]*)" },
	{ "labels", "LABELS", NULL, "A,B",
	  "labels jobs may target (pool/LABEL)" },
	{ "description", "DESCRIPTION", "AIRLOX_DESCRIPTION", "TEXT",
	  "a short description shown to the session" },
	{ "concurrency", "CONCURRENCY", NULL, "N",
	  "job slots (default 1)" },
	{ "sandbox", "SANDBOX", NULL, runopt_sandbox_arg,
	  "how jobs run (default local)" },
	{ "image", "IMAGE", NULL, "IMG",
	  "--sandbox docker: the image jobs run in (each job in a fresh "
	  "container of it)" },
	{ "workspace", "WORKSPACE", NULL, NULL,
	  "keep a workspace per sender between jobs" },
	{ "work-root", "WORK_ROOT", "AIRLOX_WORK_ROOT", "DIR",
	  "where job folders live (default STATE_DIR/work)" },
	{ "state-dir", "STATE_DIR", "AIRLOX_STATE_DIR", "DIR",
	  "key, invite, audit log, pending results of one session (default "
	  "$XDG_STATE_HOME/airlox-runner/NAME, or /var/lib/airlox-runner/NAME "
	  "as root)" },
	{ "config", NULL, NULL, "FILE",
	  "read settings from FILE (default " RUNNER_CONF_DEFAULT " if it "
	  "exists)" },
	{ "network", "NETWORK", NULL, NULL,
	  "allow sessions whose jobs have full network access" },
	{ "allow-weaker-sandbox", "ALLOW_WEAKER_SANDBOX", NULL, NULL,
	  "run even when a limit cannot be enforced here" },
	{ "force", NULL, NULL, NULL,
	  "accept a work root the guard refuses (/, a home, a parent of "
	  "either, inside the state dir)" },
	{ "ca-file", "CA_FILE", "AIRLOX_CA_FILE", "FILE",
	  "trust this CA for the relay" },
	{ "insecure-http-host", NULL, NULL, "HOST",
	  "allow plain http to HOST" },
	{ "env-allow", "ENV_ALLOW", NULL, "A,B",
	  "more variables passed to jobs from the runner's environment "
	  "(besides LANG, LC_ALL, LC_CTYPE, TZ); credential names never are" },
	{ "python", "PYTHON", "AIRLOX_PYTHON", "PATH",
	  "run Python jobs with this interpreter as is (default: a venv per "
	  "package allowlist, made with the machine's pythonX.Y)" },
	{ "package-index", "PACKAGE_INDEX", "AIRLOX_PACKAGE_INDEX", "URL",
	  "pip's package index for the venvs (default: pip's own, pypi.org)" },
	{ "find-links", "FIND_LINKS", "AIRLOX_FIND_LINKS", "DIR",
	  "install the venvs' packages from the wheels in DIR only, no index" },
	{ "allow", NULL, NULL, "DOMAIN",
	  "verify: probe the egress proxy's allow mode with DOMAIN allowed "
	  "(repeatable; without it, verify probes mode none)" },
	{ "grace", NULL, NULL, "SECONDS",
	  "on SIGTERM, let jobs finish this long (default 30)" },
	{ "log-level", "LOG_LEVEL", NULL, "warn|info|debug",
	  "how much to log (default info)" },
	{ "help", NULL, NULL, NULL, "print this help" },
	{ "version", NULL, NULL, NULL, "print the version" },
};
#define RUNNER_NOPTS	(sizeof(runner_opts) / sizeof(runner_opts[0]))

void
runner_usage(FILE *fp)
{
	size_t	i;
	char	left[64];

	fprintf(fp, "usage: airlox-runnerd [options]\n"
	    "       airlox-runnerd verify [options]\n\n"
	    "Runs jobs of one airlox execute session on this machine.\n\n");
	for (i = 0; i < RUNNER_NOPTS; i++) {
		snprintf(left, sizeof(left), "--%s%s%s", runner_opts[i].name,
		    runner_opts[i].arg ? " " : "",
		    runner_opts[i].arg ? runner_opts[i].arg : "");
		fprintf(fp, "  %-28s %s", left, runner_opts[i].help);
		if (runner_opts[i].env != NULL)
			fprintf(fp, " [%s]", runner_opts[i].env);
		fprintf(fp, "\n");
	}
}

static int
runner_cfg_set(struct runner_cfg *c, const char *name, const char *val,
    char **cause)
{
	long	n;
	char	*end, *err = NULL;

#define STR(opt, field)	if (strcmp(name, opt) == 0) {			\
		free(c->field);						\
		c->field = strdup(val);					\
		return c->field != NULL ? ALX_OK : ALX_ERR_NOMEM;	\
	}
	STR("invite", invite)
	STR("invite-file", invite_file)
	STR("code", code)
	STR("relay", relay)
	STR("name", name)
	STR("labels", labels)
	STR("description", description)
	STR("sandbox", sandbox)
	STR("image", image)
	STR("work-root", work_root)
	STR("state-dir", state_dir)
	STR("config", config)
	STR("ca-file", ca_file)
	STR("insecure-http-host", insecure_host)
	if (strcmp(name, "env-allow") == 0 &&
	    runner_conf_env_list(val, NULL, NULL, &err) != ALX_OK) {
		if (asprintf(cause, "--env-allow: %s", err != NULL ? err :
		    "not a list of names") == -1)
			*cause = NULL;
		free(err);
		return ALX_ERR_INVALID;
	}
	STR("env-allow", env_allow)
	STR("python", python)
	STR("package-index", package_index)
	STR("find-links", find_links)
#undef STR
	if (strcmp(name, "allow") == 0) {
		char	**nl;

		if (alx_domain_valid(val) != ALX_OK || c->verify_nallow >= 64) {
			if (asprintf(cause, "--allow %s: not a domain name",
			    val) == -1)
				*cause = NULL;
			return ALX_ERR_BAD_DOMAIN;
		}
		nl = reallocarray(c->verify_allow, c->verify_nallow + 1,
		    sizeof(*nl));
		if (nl == NULL || (nl[c->verify_nallow] = strdup(val)) == NULL)
			return ALX_ERR_NOMEM;
		c->verify_allow = nl;
		c->verify_nallow++;
		return ALX_OK;
	}
	if (strcmp(name, "workspace") == 0)
		c->workspace = val == NULL || strcmp(val, "off") != 0;
	else if (strcmp(name, "network") == 0)
		c->network = val == NULL || strcmp(val, "off") != 0;
	else if (strcmp(name, "allow-weaker-sandbox") == 0)
		c->allow_weaker = val == NULL || strcmp(val, "off") != 0;
	else if (strcmp(name, "force") == 0)
		c->force = 1;
	else if (strcmp(name, "concurrency") == 0 ||
	    strcmp(name, "grace") == 0) {
		errno = 0;
		n = strtol(val, &end, 10);
		if (errno != 0 || *end != '\0' || n < 1 ||
		    n > (name[0] == 'c' ? 64 : 3600)) {
			if (asprintf(cause, "--%s: bad number: %s", name,
			    val) == -1)
				*cause = NULL;
			return ALX_ERR_INVALID;
		}
		if (name[0] == 'c')
			c->concurrency = (int)n;
		else
			c->grace_s = (int)n;
	} else if (strcmp(name, "log-level") == 0) {
		if (strcmp(val, "warn") == 0)
			c->log_level = LOG_LEVEL_WARN;
		else if (strcmp(val, "debug") == 0)
			c->log_level = LOG_LEVEL_DEBUG;
		else
			c->log_level = LOG_LEVEL_INFO;
	}
	return ALX_OK;
}

/* The config file's keys map onto options by the table. */
static int
runner_conf_cb(void *arg, const char *key, const char *val)
{
	struct runner_cfg	*c = arg;
	char			*cause = NULL;
	size_t			 i;
	int			 r;

	for (i = 0; i < RUNNER_NOPTS; i++) {
		if (runner_opts[i].conf == NULL ||
		    strcmp(runner_opts[i].conf, key) != 0)
			continue;
		r = runner_cfg_set(c, runner_opts[i].name, val, &cause);
		free(cause);
		return r;
	}
	return ALX_OK;	/* a key of the file with no option (checked there) */
}

static void
runner_cfg_defaults(struct runner_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->concurrency = 1;
	c->grace_s = 30;
	c->log_level = LOG_LEVEL_INFO;
}

int
runner_cfg_parse(struct runner_cfg *c, int argc, char **argv, char **cause)
{
	struct option	 lo[RUNNER_NOPTS + 1];
	const char	*conf, *v;
	struct stat	 st;
	size_t		 i;
	int		 ch, idx, r;

	*cause = NULL;
	runner_cfg_defaults(c);
	memset(lo, 0, sizeof(lo));
	for (i = 0; i < RUNNER_NOPTS; i++) {
		lo[i].name = runner_opts[i].name;
		lo[i].has_arg = runner_opts[i].arg ? required_argument :
		    no_argument;
		lo[i].val = 0;
	}
	/* First pass: --config, --help and --version only. */
	conf = NULL;
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "", lo, &idx)) != -1) {
		if (ch != 0)
			continue;
		if (strcmp(lo[idx].name, "config") == 0)
			conf = optarg;
		else if (strcmp(lo[idx].name, "help") == 0)
			c->help = 1;
		else if (strcmp(lo[idx].name, "version") == 0)
			c->version = 1;
	}
	if (conf == NULL && stat(RUNNER_CONF_DEFAULT, &st) == 0)
		conf = RUNNER_CONF_DEFAULT;
	if (conf != NULL && (r = runner_conf_parse(conf, runner_conf_cb, c,
	    cause)) != ALX_OK)
		return r;
	for (i = 0; i < RUNNER_NOPTS; i++) {
		if (runner_opts[i].env == NULL ||
		    (v = getenv(runner_opts[i].env)) == NULL || *v == '\0')
			continue;
		if ((r = runner_cfg_set(c, runner_opts[i].name, v,
		    cause)) != ALX_OK)
			return r;
	}
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "", lo, &idx)) != -1) {
		if (ch != 0) {
			if (asprintf(cause, "unknown or incomplete option: %s",
			    argv[optind - 1]) == -1)
				*cause = NULL;
			return ALX_ERR_INVALID;
		}
		if ((r = runner_cfg_set(c, lo[idx].name, optarg,
		    cause)) != ALX_OK)
			return r;
	}
	if (optind < argc) {
		if (asprintf(cause, "unexpected argument: %s",
		    argv[optind]) == -1)
			*cause = NULL;
		return ALX_ERR_INVALID;
	}
	return ALX_OK;
}

void
runner_cfg_free(struct runner_cfg *c)
{
	free(c->invite);
	free(c->invite_file);
	free(c->code);
	free(c->relay);
	free(c->name);
	free(c->labels);
	free(c->description);
	free(c->sandbox);
	free(c->image);
	free(c->work_root);
	free(c->state_dir);
	free(c->config);
	free(c->ca_file);
	free(c->insecure_host);
	free(c->env_allow);
	free(c->python);
	free(c->package_index);
	free(c->find_links);
	while (c->verify_nallow > 0)
		free(c->verify_allow[--c->verify_nallow]);
	free(c->verify_allow);
	memset(c, 0, sizeof(*c));
}
