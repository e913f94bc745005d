/*
 * test-conf.c: the runner's configuration file is parsed, never sourced:
 * good lines are accepted, and each hostile line is refused with its line
 * number named.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "runnerd.h"
#include "runopt.h"
#include "sandbox.h"
#include "tap.h"

struct seen {
	char	key[64];
	char	val[600];
	int	n;
};

static int
set_cb(void *arg, const char *key, const char *val)
{
	struct seen *s = arg;

	snprintf(s->key, sizeof(s->key), "%s", key);
	snprintf(s->val, sizeof(s->val), "%s", val);
	s->n++;
	return ALX_OK;
}

static void
like_env(const char *got, const char *want)
{
	ok(strncmp(got, want, strlen(want)) == 0, "the option refused: %s",
	    got);
}

static const char *hostile[] = {
	"NAME=$(reboot)",
	"NAME=`id`",
	"NAME=box;rm -rf /",
	"NAME=box|nc evil 1",
	"NAME=box&",
	"NAME=a>b",
	"NAME=a<b",
	"NAME=\"${HOME}\"",
	"NAME='$HOME'",
	"NAME=box\\",
	"PATH=/tmp/evil",
	"LD_PRELOAD=/tmp/x.so",
	"AWS_SECRET_ACCESS_KEY=abc",
	"name=lowercase-key",
	"NAME",
	"=value",
	"NAME=Box-Upper",
	"NAME=\"unterminated",
	"NAME='mixed\"",
	"NAME=two words",
	"CONCURRENCY=0",
	"CONCURRENCY=65",
	"CONCURRENCY=-1",
	"CONCURRENCY=010",
	"CONCURRENCY=4x",
	"SANDBOX=none",
	"WORK_ROOT=relative/path",
	"WORK_ROOT=/srv/../etc",
	"NETWORK=yes",
	"LABELS=gpu,,cpu",
	"LABELS=GPU",
	"PACKAGE_INDEX=ftp://mirror",
	"ENV_ALLOW=PATH;ID",
	"IMAGE=Ubuntu:Latest",
	"LOG_LEVEL=trace",
	"source /etc/profile",
	"NAME=box\x01",
	"ENV_ALLOW=A,,B",
	"ENV_ALLOW=,A",
	"ENV_ALLOW=A,",
	"ENV_ALLOW=1ABC",
	NULL
};

/*
 * airlox-runnerd --config (an empty file) FLAG VALUE: the cause, or "ok";
 * c holds the settings (runner_cfg_free() them).
 */
static void
cfg_opt(struct runner_cfg *c, const char *flag, const char *val, char *out,
    size_t len)
{
	char			 conf[] = "/tmp/test-conf-XXXXXX", *cause = NULL;
	char			*argv[] = { "airlox-runnerd", "--config", conf,
				    (char *)flag, (char *)val, NULL };
	int			 fd, r;

	if ((fd = mkstemp(conf)) == -1) {
		snprintf(out, len, "mkstemp failed");
		return;
	}
	fchmod(fd, 0644);
	close(fd);
	r = runner_cfg_parse(c, val != NULL ? 5 : 4, argv, &cause);
	snprintf(out, len, "%s", r == ALX_OK ? "ok" : cause != NULL ? cause :
	    "refused, no message");
	free(cause);
	unlink(conf);
}

/* --env-allow VALUE on the command line: the cause, or "ok". */
static void
env_opt(const char *val, char *out, size_t len)
{
	struct runner_cfg	 c;
	char			 conf[] = "/tmp/test-conf-XXXXXX", *cause = NULL;
	char			*argv[] = { "airlox-runnerd", "--config", conf,
				    "--env-allow", (char *)val, NULL };
	int			 fd, r;

	if ((fd = mkstemp(conf)) == -1) {
		snprintf(out, len, "mkstemp failed");
		return;
	}
	fchmod(fd, 0644);
	close(fd);
	r = runner_cfg_parse(&c, 5, argv, &cause);
	snprintf(out, len, "%s", r == ALX_OK ? "ok" : cause != NULL ? cause :
	    "refused, no message");
	free(cause);
	runner_cfg_free(&c);
	unlink(conf);
}

int
main(void)
{
	struct seen	 s;
	char		*cause = NULL, buf[256];
	const char	*good =
	    "# a comment\n"
	    "\n"
	    "NAME=gpu-box\n"
	    "export LABELS=gpu,cuda\n"
	    "  CONCURRENCY=4  \n"
	    "DESCRIPTION=\"8 cores, in the lab\"\n"
	    "WORK_ROOT='/srv/airlox-work'\n"
	    "NETWORK=off\n";
	int		 i, r;

	memset(&s, 0, sizeof(s));
	r = runner_conf_parse_buf(good, strlen(good), "runner.conf", set_cb,
	    &s, &cause);
	is_int(r, ALX_OK, "a good file parses");
	is_int(s.n, 6, "six settings");
	is_str(s.key, "NETWORK", "last key");
	free(cause);

	memset(&s, 0, sizeof(s));
	r = runner_conf_parse_buf(good, strlen(good), "runner.conf", set_cb,
	    &s, NULL);
	for (i = 0; hostile[i] != NULL; i++) {
		snprintf(buf, sizeof(buf), "# fine\nNAME=ok\n%s\n", hostile[i]);
		cause = NULL;
		r = runner_conf_parse_buf(buf, strlen(buf), "runner.conf",
		    set_cb, &s, &cause);
		ok(r != ALX_OK && cause != NULL &&
		    strncmp(cause, "runner.conf:3: ", 15) == 0,
		    "hostile line %d refused, line named (%s)", i + 1,
		    cause != NULL ? cause : "no message");
		free(cause);
	}
	ok(i >= 30, "at least 30 hostile lines (%d)", i);
	{
		char big[70000];
		memset(big, '#', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		r = runner_conf_parse_buf(big, strlen(big), "runner.conf",
		    set_cb, &s, &cause);
		ok(r != ALX_OK, "an oversized file is refused");
		free(cause);
	}
	{
		static const char *const bad[] = {
			"FOO BAR", "FOO,,BAR", ",FOO", "FOO,", "", "1FOO",
			"foo", "FOO=1", "FOO;id", NULL
		};
		char	 **names, out[256], many[1024];
		size_t	 n, k;

		r = runner_conf_env_list("HOME_DIR,MY_VAR,X1", &names, &n,
		    &cause);
		ok(r == ALX_OK && n == 3 && strcmp(names[0], "HOME_DIR") == 0 &&
		    strcmp(names[2], "X1") == 0 && names[3] == NULL,
		    "an --env-allow list is split into its names");
		runner_conf_env_free(names);
		for (k = 0; bad[k] != NULL; k++) {
			r = runner_conf_env_list(bad[k], &names, &n, &cause);
			ok(r == ALX_ERR_INVALID && names == NULL && cause != NULL,
			    "--env-allow '%s' refused (%s)", bad[k],
			    cause != NULL ? cause : "no message");
			free(cause);
		}
		many[0] = '\0';
		for (k = 0; k <= RUNNER_ENV_EXTRA_MAX; k++)
			snprintf(many + strlen(many), sizeof(many) -
			    strlen(many), "%sV%zu", k ? "," : "", k);
		r = runner_conf_env_list(many, &names, &n, &cause);
		ok(r == ALX_ERR_INVALID && cause != NULL &&
		    strstr(cause, "more than") != NULL,
		    "%d names refused, not cut short silently (%s)",
		    RUNNER_ENV_EXTRA_MAX + 1, cause ? cause : "no message");
		free(cause);
		/* The option is read with the same rule as the file's key. */
		env_opt("FOO BAR", out, sizeof(out));
		like_env(out, "--env-allow: 'FOO BAR' is not a variable name");
		env_opt("FOO,,BAR", out, sizeof(out));
		like_env(out, "--env-allow: '' is not a variable name");
		env_opt("FOO,BAR_2", out, sizeof(out));
		is_str(out, "ok", "--env-allow FOO,BAR_2 accepted");
	}
	{
		/* Every source is checked by the setting's kind. */
		struct runner_cfg	 c;
		char			 out[256];

		cfg_opt(&c, "--log-level", "bogus", out, sizeof(out));
		is_str(out, "--log-level bogus: expected warn, info or debug",
		    "--log-level bogus is refused, not read as info");
		runner_cfg_free(&c);
		cfg_opt(&c, "--log-level", "debug", out, sizeof(out));
		ok(strcmp(out, "ok") == 0 && c.log_level == LOG_LEVEL_DEBUG,
		    "--log-level debug is read (%s)", out);
		runner_cfg_free(&c);
		cfg_opt(&c, "--concurrency", "65", out, sizeof(out));
		is_str(out, "--concurrency 65: expected a number from 1 to 64",
		    "the range is the table's");
		runner_cfg_free(&c);
		cfg_opt(&c, "--grace", "010", out, sizeof(out));
		like_env(out, "--grace 010: expected a number from 1 to 3600");
		runner_cfg_free(&c);
		cfg_opt(&c, "--sandbox", "none", out, sizeof(out));
		is_str(out, "--sandbox none: expected one of local, process, "
		    "docker", "a sandbox the runner lacks is named");
		runner_cfg_free(&c);
		cfg_opt(&c, "--name", "Box One", out, sizeof(out));
		like_env(out, "--name Box One: expected a runner name");
		runner_cfg_free(&c);
		cfg_opt(&c, "--workspace", NULL, out, sizeof(out));
		ok(strcmp(out, "ok") == 0 && c.workspace == 1 &&
		    c.concurrency == 1 && c.grace_s == 30 &&
		    c.log_level == LOG_LEVEL_INFO && c.sandbox != NULL &&
		    strcmp(c.sandbox, "local") == 0,
		    "a switch, and the table's defaults");
		runner_cfg_free(&c);
		cfg_opt(&c, "--state-dir", "rel/dir", out, sizeof(out));
		ok(strcmp(out, "ok") == 0 && c.state_dir != NULL,
		    "a relative path on the command line (%s)", out);
		runner_cfg_free(&c);
		setenv("AIRLOX_NAME", "Not A Name", 1);
		cfg_opt(&c, "--name", "box", out, sizeof(out));
		ok(strcmp(out, "ok") == 0 && c.name != NULL &&
		    strcmp(c.name, "box") == 0, "a variable the command line "
		    "overrides is not read (%s)", out);
		runner_cfg_free(&c);
		cfg_opt(&c, "--workspace", NULL, out, sizeof(out));
		is_str(out, "AIRLOX_NAME=Not A Name: expected a runner name "
		    "([a-z0-9][a-z0-9._-]*)", "a variable is checked as its "
		    "option is");
		runner_cfg_free(&c);
		unsetenv("AIRLOX_NAME");
	}
	{
		/* The client's list of sandboxes is the runner's. */
		char	 arg[64];
		size_t	 k;

		for (k = 0; sandbox_backends[k] != NULL; k++) {
			const char	*be = sandbox_backends[k]->name;
			const char	*cl = runopt_sandboxes[k].name;

			ok(cl != NULL && strcmp(cl, be) == 0, "sandbox %zu is "
			    "%s for the runner and %s for the client", k, be,
			    cl != NULL ? cl : "none");
		}
		ok(runopt_sandboxes[k].name == NULL, "the client lists no "
		    "sandbox the runner lacks");
		ok(runopt_find("sandbox") != NULL &&
		    strcmp(runopt_find("sandbox")->def,
		    runopt_sandboxes[0].name) == 0 &&
		    strcmp(runopt_sandboxes[0].name,
		    sandbox_backends[0]->name) == 0,
		    "--sandbox defaults to the first, %s",
		    sandbox_backends[0]->name);
		runopt_sandbox_names("|", arg, sizeof(arg));
		is_str(runopt_sandbox_arg, arg, "--sandbox %s names them all",
		    runopt_sandbox_arg);
		ok(sandbox_find("bogus") == NULL &&
		    runopt_sandbox_find("bogus") == NULL,
		    "another name is no sandbox");
	}
	return tap_done();
}
