/* test-redact.c: the runner's path redaction of result text. */
#include <stdlib.h>
#include <string.h>

#include "runnerd.h"
#include "tap.h"

static const struct redact_rule rules[] = {
	{ "/srv/airlox/job-X/work", "$WORK" },
	{ "/srv/airlox/job-X/out", "$AIRLOX_OUT" },
	{ "/srv/airlox/job-X", "$JOB" },
	{ "/work", "$WORK" },
	{ "/home/alice", "~" },
	{ NULL, "never" },
};
#define NRULES	(sizeof(rules) / sizeof(rules[0]))

static char *
red(const char *in)
{
	return runner_redact(in, strlen(in), rules, NRULES, NULL);
}

/* The text given to the stream in pieces of `step` bytes. */
static char *
red_stream(const char *in, size_t step)
{
	struct redact_stream	rs;
	struct alx_buf		b;
	size_t			i, n = strlen(in), k;

	alx_buf_init(&b, 0);
	if (runner_redact_stream_init(&rs, rules, NRULES) != 0)
		return NULL;
	for (i = 0; i < n; i += k) {
		k = n - i < step ? n - i : step;
		runner_redact_stream(&rs, in + i, k, 0, &b);
	}
	runner_redact_stream(&rs, NULL, 0, 1, &b);
	runner_redact_stream_free(&rs);
	alx_buf_addc(&b, 0);
	return (char *)alx_buf_steal(&b, NULL);
}

static void
check(const char *in, const char *want, const char *what)
{
	char	*got = red(in);
	size_t	 step;
	int	 same = 1;

	is_str(got, want, "%s", what);
	free(got);
	/* A stream cut anywhere gives the same text. */
	for (step = 1; step <= strlen(in) + 1; step++) {
		got = red_stream(in, step);
		if (got == NULL || strcmp(got, want) != 0)
			same = 0;
		free(got);
	}
	ok(same, "%s: the same in pieces of every size", what);
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
	{
		struct redact_stream	rs;
		struct alx_buf		b;

		/* A whole line goes out at once; an open one waits. */
		alx_buf_init(&b, 0);
		runner_redact_stream_init(&rs, rules, NRULES);
		runner_redact_stream(&rs, "begin\nhalf", 10, 0, &b);
		is_int((int)b.len, 6, "a stream lets a whole line out at once");
		ok(b.len == 6 && memcmp(b.data, "begin\n", 6) == 0,
		    "  the line as it was");
		runner_redact_stream(&rs, NULL, 0, 1, &b);
		is_int((int)b.len, 10, "the open line at the end");
		runner_redact_stream_free(&rs);
		alx_buf_free(&b);
	}
	check("/work/a /work", "$WORK/a $WORK", "a path at the very end");
	check("x/srv/airlox/job-X/work", "x/srv/airlox/job-X/work",
	    "a path that starts inside a word stays");
	check("\n/home/alice\n/home/alice/.cache/srv/airlox/job-X/out/x",
	    "\n~\n~/.cache/srv/airlox/job-X/out/x",
	    "lines, and a path after a replacement");
	return tap_done();
}
