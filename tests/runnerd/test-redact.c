/* test-redact.c: the runner's path redaction of result text. */
#include <stdlib.h>
#include <string.h>

#include "runnerd.h"
#include "tap.h"

static char *
red(const char *in)
{
	static const struct redact_rule rules[] = {
		{ "/srv/airlox/job-X/work", "$WORK" },
		{ "/srv/airlox/job-X/out", "$AIRLOX_OUT" },
		{ "/srv/airlox/job-X", "$JOB" },
		{ "/work", "$WORK" },
		{ "/home/alice", "~" },
		{ NULL, "never" },
	};

	return runner_redact(in, strlen(in), rules,
	    sizeof(rules) / sizeof(rules[0]), NULL);
}

static void
check(const char *in, const char *want, const char *what)
{
	char	*got = red(in);

	is_str(got, want, "%s", what);
	free(got);
}

int
main(void)
{
	check("File \"/srv/airlox/job-X/work/t.py\", line 3",
	    "File \"$WORK/t.py\", line 3", "work folder");
	check("/srv/airlox/job-X/out/a.png", "$AIRLOX_OUT/a.png", "out folder");
	check("/srv/airlox/job-X/tmp", "$JOB/tmp", "job folder");
	check("cd /work && ls /work/src", "cd $WORK && ls $WORK/src",
	    "the sandbox's own /work");
	check("/workspace/x", "/workspace/x", "a longer name is not the folder");
	check("/data/work/x", "/data/work/x", "inside another path: untouched");
	check("HOME=/home/alice ok", "HOME=~ ok", "home folder");
	check("/home/alicebob", "/home/alicebob", "another user's home untouched");
	check("", "", "empty text");
	check("no paths here", "no paths here", "text without paths");
	return tap_done();
}
