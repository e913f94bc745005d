/*
 * test-docker.c: the runner's reading of Docker's answers
 * (runnerd/runner-docker-answer.c) without a daemon: ids, exit codes,
 * states, lists, the framed streams.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "runner-docker.h"
#include "tap.h"

struct sink {
	char	out[256], err[256];
	size_t	nout, nerr;
};

static void
sink_out(void *arg, int stream, const char *p, size_t len)
{
	struct sink	*s = arg;
	char		*b = stream == 2 ? s->err : s->out;
	size_t		*n = stream == 2 ? &s->nerr : &s->nout;

	if (*n + len < sizeof s->out) {
		memcpy(b + *n, p, len);
		*n += len;
		b[*n] = '\0';
	}
}

int
main(void)
{
	static const char	stream[] =
	    "\1\0\0\0\0\0\0\6hello\n\2\0\0\0\0\0\0\5oops\n\1\0\0\0\0\0\0\3end";
	struct runner_docker_state	 st;
	struct runner_docker_frames	 f;
	struct sink			 s;
	char				 id[RUNNER_DOCKER_ID_MAX + 1], **ids;
	char				 logs[sizeof stream];
	const char			*b;
	size_t				 n, i;
	int				 code;

	b = "{\"Id\":\"e90e34656806\",\"Warnings\":[]}";
	is_int(runner_docker_parse_id(b, strlen(b), id), 0, "create: an id");
	is_str(id, "e90e34656806", "create: the id");
	b = "{\"Id\":\"../../images/x?force=1\"}";
	is_int(runner_docker_parse_id(b, strlen(b), id), ALX_ERR_INVALID,
	    "create: an id that is not hex is refused");
	is_str(id, "", "create: and none is kept");
	b = "{\"Id\":\"E90E\"}";
	is_int(runner_docker_parse_id(b, strlen(b), id), ALX_ERR_INVALID,
	    "create: upper-case hex is refused");
	b = "{\"StatusCode\":137}";
	ok(runner_docker_parse_wait(b, strlen(b), &code) == 0 && code == 137,
	    "wait: the exit code");
	b = "{\"StatusCode\":99999999}";
	ok(runner_docker_parse_wait(b, strlen(b), &code) != 0 && code == -1,
	    "wait: an exit code out of range is refused");
	b = "{\"State\":{\"Running\":true,\"OOMKilled\":true,\"ExitCode\":1,"
	    "\"Pid\":4242}}";
	ok(runner_docker_parse_state(b, strlen(b), &st) == 0 && st.running &&
	    st.oom_killed && st.exit_code == 1 && st.pid == 4242,
	    "inspect: the state");
	b = "{\"State\":\"running\"}";
	is_int(runner_docker_parse_state(b, strlen(b), &st), ALX_ERR_MISSING,
	    "inspect: a State that is not an object is refused");
	b = "[{\"Id\":\"aa11\"},{\"Id\":\"x/../y\"},{\"Names\":[]},{\"Id\":\"bb\"}]";
	ok(runner_docker_parse_list(b, strlen(b), &ids, &n) == 0 && n == 2 &&
	    strcmp(ids[0], "aa11") == 0 && strcmp(ids[1], "bb") == 0 &&
	    ids[2] == NULL, "list: the hex ids, the rest left out");
	runner_docker_ids_free(ids, n);
	b = "{\"message\":\"failed: exec: \\\"python3\\\": executable file not "
	    "found in $PATH\"}";
	ok(runner_docker_missing_cmd(b), "start: a missing command is seen");

	for (i = 1; i <= sizeof stream - 1; i++) {
		memset(&f, 0, sizeof f);
		memset(&s, 0, sizeof s);
		for (n = 0; n < sizeof stream - 1; n += i)
			runner_docker_demux(&f, stream + n, n + i <
			    sizeof stream - 1 ? i : sizeof stream - 1 - n,
			    sink_out, &s);
		if (strcmp(s.out, "hello\nend") != 0 ||
		    strcmp(s.err, "oops\n") != 0)
			break;
	}
	is_int(i, sizeof stream, "attach: the streams apart, read in pieces "
	    "of every size");
	memcpy(logs, stream, sizeof stream);
	n = runner_docker_unframe(logs, sizeof stream - 1, 100);
	ok(n == 14 && memcmp(logs, "hello\noops\nend", 14) == 0,
	    "logs: the frames' bytes in order");
	memcpy(logs, stream, sizeof stream);
	n = runner_docker_unframe(logs, sizeof stream - 1, 3);
	ok(n == 3 && memcmp(logs, "hel", 3) == 0, "logs: cut at the bound");
	return tap_done();
}
