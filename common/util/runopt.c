/*
 * runopt.c: the runner's settings, one table that the runner and the
 * client share (runopt.h). Data and pure functions only: no output, no
 * I/O.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "runopt.h"

#define OFF(f)		offsetof(struct runner_cfg, f)
#define J		RUNOPT_JOIN
#define I		(RUNOPT_INSTALL | RUNOPT_UNIT)
#define V		RUNOPT_VERIFY

const struct runopt runopt_table[] = {
	{ "invite", NULL, "AIRLOX_INVITE", "LINK", NULL,
	  "the session's runner invite (visible in ps: prefer AIRLOX_INVITE "
	  "or --invite-file)",
	  RUNOPT_STRING, 0, 0, OFF(invite), 0 },
	{ "invite-file", NULL, NULL, "FILE", NULL,
	  "read the runner invite from FILE",
	  RUNOPT_PATH, 0, 0, OFF(invite_file), 0 },
	{ "code", NULL, NULL, "CODE", NULL,
	  "receive the runner invite with a one-time transfer code",
	  RUNOPT_STRING, 0, 0, OFF(code), J | RUNOPT_INSTALL },
	{ "relay", NULL, "AIRLOX_RELAY", "URL", NULL,
	  "the relay for --code (the invite names its own)",
	  RUNOPT_STRING, 0, 0, OFF(relay), 0 },
	{ "name", "NAME", "AIRLOX_NAME", "NAME", NULL,
	  "this runner's name ([a-z0-9][a-z0-9._-]*)",
	  RUNOPT_NAME, 0, 0, OFF(name), 0 },
	{ "labels", "LABELS", NULL, "A,B", NULL,
	  "labels jobs may target (pool/LABEL; default: none)",
	  RUNOPT_LABELS, 0, 0, OFF(labels), J | I },
	{ "description", "DESCRIPTION", "AIRLOX_DESCRIPTION", "TEXT", NULL,
	  "a short description shown to the session",
	  RUNOPT_TEXT, 0, 0, OFF(description), 0 },
	{ "concurrency", "CONCURRENCY", NULL, "N", "1",
	  "job slots",
	  RUNOPT_COUNT, 1, 64, OFF(concurrency), J | I },
	{ "sandbox", "SANDBOX", NULL, runopt_sandbox_arg, "local",
	  "how jobs run",
	  RUNOPT_SANDBOX, 0, 0, OFF(sandbox), J | I | V },
	{ "image", "IMAGE", NULL, "IMAGE", NULL,
	  "--sandbox docker: the image jobs run in (each job in a fresh "
	  "container of it)",
	  RUNOPT_IMAGE, 0, 0, OFF(image), J | I | V },
	{ "workspace", "WORKSPACE", NULL, NULL, NULL,
	  "keep a workspace per sender between jobs",
	  RUNOPT_SWITCH, 0, 0, OFF(workspace), J | I },
	{ "work-root", "WORK_ROOT", "AIRLOX_WORK_ROOT", "DIR", NULL,
	  "where job folders live (default: STATE_DIR-work)",
	  RUNOPT_PATH, 0, 0, OFF(work_root), J },
	{ "state-dir", "STATE_DIR", "AIRLOX_STATE_DIR", "DIR", NULL,
	  "key, invite, audit log, pending results of one session (default: "
	  "$XDG_STATE_HOME/airlox-runner/NAME, or /var/lib/airlox-runner/NAME "
	  "as root)",
	  RUNOPT_PATH, 0, 0, OFF(state_dir), J | V },
	{ "config", NULL, NULL, "FILE", NULL,
	  "read settings from FILE (default: " RUNNER_CONF_DEFAULT " if it "
	  "exists)",
	  RUNOPT_PATH, 0, 0, OFF(config), RUNOPT_FIRST },
	{ "network", "NETWORK", NULL, NULL, NULL,
	  "allow sessions whose jobs have full network access",
	  RUNOPT_SWITCH, 0, 0, OFF(network), J },
	{ "allow-weaker-sandbox", "ALLOW_WEAKER_SANDBOX", NULL, NULL, NULL,
	  "run even when a limit cannot be enforced here",
	  RUNOPT_SWITCH, 0, 0, OFF(allow_weaker), J },
	{ "force", NULL, NULL, NULL, NULL,
	  "accept a work root the guard refuses (/, a home, a parent of "
	  "either, inside the state dir)",
	  RUNOPT_SWITCH, 0, 0, OFF(force), 0 },
	{ "ca-file", "CA_FILE", "AIRLOX_CA_FILE", "FILE", NULL,
	  "trust this CA for the relay",
	  RUNOPT_PATH, 0, 0, OFF(ca_file), 0 },
	{ "insecure-http-host", NULL, NULL, "HOST", NULL,
	  "allow plain http to HOST",
	  RUNOPT_STRING, 0, 0, OFF(insecure_host), 0 },
	{ "env-allow", "ENV_ALLOW", NULL, "A,B", NULL,
	  "more variables passed to jobs from the runner's environment "
	  "(besides LANG, LC_ALL, LC_CTYPE, TZ); credential names never are",
	  RUNOPT_ENVNAMES, 0, 0, OFF(env_allow), 0 },
	{ "python", "PYTHON", "AIRLOX_PYTHON", "PATH", NULL,
	  "run Python jobs with this interpreter as is (default: a venv per "
	  "package allowlist, made with the machine's pythonX.Y)",
	  RUNOPT_PATH, 0, 0, OFF(python), J | I },
	{ "package-index", "PACKAGE_INDEX", "AIRLOX_PACKAGE_INDEX", "URL", NULL,
	  "pip's package index for the venvs (default: pip's own, pypi.org)",
	  RUNOPT_URL, 0, 0, OFF(package_index), J | I },
	{ "find-links", "FIND_LINKS", "AIRLOX_FIND_LINKS", "DIR", NULL,
	  "install the venvs' packages from the wheels in DIR only, no index",
	  RUNOPT_PATH, 0, 0, OFF(find_links), J | I },
	{ "allow", NULL, NULL, "DOMAIN", NULL,
	  "verify: probe the egress proxy's allow mode with DOMAIN allowed "
	  "(repeatable; without it, verify probes mode none)",
	  RUNOPT_DOMAIN, 0, 0, OFF(verify_allow), 0 },
	{ "grace", NULL, NULL, "SECONDS", "30",
	  "on SIGTERM, let jobs finish this long",
	  RUNOPT_COUNT, 1, 3600, OFF(grace_s), 0 },
	{ "log-level", "LOG_LEVEL", NULL, "warn|info|debug", "info",
	  "how much to log",
	  RUNOPT_LEVEL, 0, 0, OFF(log_level), 0 },
	{ "help", NULL, NULL, NULL, NULL,
	  "print this help",
	  RUNOPT_SWITCH, 0, 0, OFF(help), RUNOPT_FIRST },
	{ "version", NULL, NULL, NULL, NULL,
	  "print the version",
	  RUNOPT_SWITCH, 0, 0, OFF(version), RUNOPT_FIRST },
	{ NULL, NULL, NULL, NULL, NULL, NULL, RUNOPT_SWITCH, 0, 0, 0, 0 }
};

const struct runopt *
runopt_find(const char *name)
{
	const struct runopt	*o;

	for (o = runopt_table; name != NULL && o->name != NULL; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

const struct runopt *
runopt_find_conf(const char *key)
{
	const struct runopt	*o;

	for (o = runopt_table; key != NULL && o->name != NULL; o++)
		if (o->conf != NULL && strcmp(o->conf, key) == 0)
			return o;
	return NULL;
}

const struct runopt_sandbox runopt_sandboxes[] = {
	{ "local", 0 },			/* namespaces, Landlock, seccomp */
	{ "process", RUNOPT_SB_PORTABLE },	/* rlimits only */
	{ "docker", RUNOPT_SB_IMAGE },		/* a container per job */
	{ NULL, 0 }
};

const char runopt_sandbox_arg[] = "local|process|docker";

const struct runopt_sandbox *
runopt_sandbox_find(const char *name)
{
	const struct runopt_sandbox	*s;

	if (name == NULL)
		return NULL;
	for (s = runopt_sandboxes; s->name != NULL; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

const struct runopt_sandbox *
runopt_sandbox_with(int flags)
{
	const struct runopt_sandbox	*s;

	for (s = runopt_sandboxes; s->name != NULL; s++)
		if ((s->flags & flags) == flags)
			return s;
	return NULL;
}

void
runopt_sandbox_names(const char *sep, char *buf, size_t len)
{
	const struct runopt_sandbox	*s;
	size_t				 used = 0;
	int				 w;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (s = runopt_sandboxes; s->name != NULL && used < len; s++) {
		w = snprintf(buf + used, len - used, "%s%s",
		    s == runopt_sandboxes ? "" : sep, s->name);
		if (w < 0)
			return;
		used += (size_t)w;
	}
}
