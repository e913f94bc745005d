/*
 * fuzz-docker.c: libFuzzer target for how the runner reads the Docker
 * daemon's answers (runnerd/runner-docker-answer.c): the JSON of create,
 * wait, inspect, list and errors, and the framed attach and logs streams.
 *
 * The first byte picks the reader; the rest is the answer. Invariants:
 * - an id read (create, list) is 1..64 lower-case hex digits, nothing
 *   else can reach a URL;
 * - an exit code read is -1..65536, a pid 0..2^30;
 * - the attach stream read whole and in pieces (sizes from the bytes)
 *   gives the same stdout and stderr bytes, and the logs unframed are
 *   those bytes in order (both streams), cut at the bound.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "runner-docker.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(x)	do { if (!(x)) abort(); } while (0)

struct sink {
	char	*b[3];		/* [1] stdout, [2] stderr, [0] both */
	size_t	 n[3];
};

static void
sink_add(struct sink *s, int k, const char *p, size_t len)
{
	s->b[k] = realloc(s->b[k], s->n[k] + len + 1);
	CHECK(s->b[k] != NULL);
	memcpy(s->b[k] + s->n[k], p, len);
	s->n[k] += len;
}

static void
sink_out(void *arg, int stream, const char *p, size_t len)
{
	CHECK(stream == 1 || stream == 2);
	sink_add(arg, stream, p, len);
	sink_add(arg, 0, p, len);
}

static void
sink_free(struct sink *s)
{
	int	k;

	for (k = 0; k < 3; k++)
		free(s->b[k]);
}

static void
frames(const uint8_t *data, size_t size)
{
	struct runner_docker_frames	 fa, fb;
	struct sink			 a, b;
	char				*copy;
	size_t				 off, piece, n, max;
	int				 k;

	memset(&fa, 0, sizeof fa);
	memset(&fb, 0, sizeof fb);
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	runner_docker_demux(&fa, (const char *)data, size, sink_out, &a);
	for (off = 0; off < size; off += piece) {
		piece = 1 + data[off] % 13;
		if (piece > size - off)
			piece = size - off;
		runner_docker_demux(&fb, (const char *)data + off, piece,
		    sink_out, &b);
	}
	for (k = 0; k < 3; k++)
		CHECK(a.n[k] == b.n[k] && (a.n[k] == 0 ||
		    memcmp(a.b[k], b.b[k], a.n[k]) == 0));
	/* Logs: the same bytes, both streams in order, cut at max. */
	max = size > 0 ? data[0] * 3 : 0;
	if ((copy = malloc(size + 1)) == NULL)
		abort();
	memcpy(copy, data, size);
	n = runner_docker_unframe(copy, size, max);
	CHECK(n <= max && n <= size);
	CHECK(n == (a.n[0] < max ? a.n[0] : max));
	CHECK(n == 0 || memcmp(copy, a.b[0], n) == 0);
	free(copy);
	sink_free(&a);
	sink_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct runner_docker_state	 st;
	struct runner_docker_resp	 r;
	char				 id[RUNNER_DOCKER_ID_MAX + 1];
	char				**ids, *t;
	const char			*body;
	size_t				 n, i, len;
	int				 code;

	if (size < 1 || size > 128 * 1024)
		return 0;
	body = (const char *)data + 1;
	len = size - 1;
	switch (data[0] % 7) {
	case 0:
		if (runner_docker_parse_id(body, len, id) == 0)
			CHECK(runner_docker_id_valid(id));
		else
			CHECK(id[0] == '\0');
		break;
	case 1:
		if (runner_docker_parse_wait(body, len, &code) == 0)
			CHECK(code >= -1 && code <= 65536);
		else
			CHECK(code == -1);
		break;
	case 2:
		if (runner_docker_parse_state(body, len, &st) == 0)
			CHECK(st.exit_code >= -1 && st.exit_code <= 65536 &&
			    st.pid >= 0 && st.pid <= (1L << 30) &&
			    (st.running == 0 || st.running == 1));
		break;
	case 3:
		if (runner_docker_parse_list(body, len, &ids, &n) == 0) {
			for (i = 0; i < n; i++)
				CHECK(runner_docker_id_valid(ids[i]));
			CHECK(ids[n] == NULL);
			runner_docker_ids_free(ids, n);
		}
		break;
	case 4:
		r.status = (long)data[0] * 3;
		r.body = (char *)body;
		r.len = len;
		if ((t = runner_docker_errtext(&r)) != NULL)
			CHECK(strlen(t) <= 400 || strncmp(t, "HTTP", 4) == 0);
		free(t);
		if ((t = malloc(len + 1)) != NULL) {
			memcpy(t, body, len);
			t[len] = '\0';
			(void)runner_docker_missing_cmd(t);
			free(t);
		}
		break;
	default:
		frames(data + 1, size - 1);
	}
	return 0;
}
