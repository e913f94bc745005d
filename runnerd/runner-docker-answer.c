/*
 * runner-docker-answer.c: what the Docker daemon answers, read: the JSON
 * of create, wait, inspect, list and error answers, the 8-byte framed
 * stream of attach and logs, the error text of a start that found no
 * command. Pure functions of the bytes (no libcurl, no socket), used by
 * runner-docker.c and fuzzed by tests/fuzz/fuzz-docker.c. Every id that
 * comes back is checked (hex, bounded) before it can go into a URL.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "runner-docker.h"

char *
runner_docker_errtext(const struct runner_docker_resp *r)
{
	struct alx_json	*j = NULL;
	char		*msg = NULL;

	if (r->body != NULL && r->len > 0 &&
	    alx_json_parse(&j, r->body, r->len, NULL) == 0 &&
	    alx_json_get_str(j, 0, "message", &msg, 400) == 0) {
		alx_json_free(j);
		return msg;
	}
	alx_json_free(j);
	if (asprintf(&msg, "HTTP status %ld", r->status) == -1)
		return NULL;
	return msg;
}

/* A container id: 1..RUNNER_DOCKER_ID_MAX lower-case hex digits. */
int
runner_docker_id_valid(const char *s)
{
	size_t	i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' &&
		    s[i] <= 'f')) || i >= RUNNER_DOCKER_ID_MAX)
			return 0;
	return i > 0;
}

int
runner_docker_parse_id(const char *body, size_t len, char *id)
{
	struct alx_json	*j = NULL;
	char		*s = NULL;
	int		 rc;

	id[0] = '\0';
	if ((rc = alx_json_parse(&j, body, len, NULL)) == 0)
		rc = alx_json_get_str(j, 0, "Id", &s, RUNNER_DOCKER_ID_MAX);
	if (rc == 0 && !runner_docker_id_valid(s))
		rc = ALX_ERR_INVALID;
	if (rc == 0)
		snprintf(id, RUNNER_DOCKER_ID_MAX + 1, "%s", s);
	free(s);
	alx_json_free(j);
	return rc;
}

int
runner_docker_parse_wait(const char *body, size_t len, int *code)
{
	struct alx_json	*j = NULL;
	int64_t		 v = 0;
	int		 rc;

	*code = -1;
	if ((rc = alx_json_parse(&j, body, len, NULL)) == 0 &&
	    (rc = alx_json_get_int(j, 0, "StatusCode", &v, -1, 1 << 16)) == 0)
		*code = (int)v;
	alx_json_free(j);
	return rc;
}

int
runner_docker_parse_state(const char *body, size_t len,
    struct runner_docker_state *st)
{
	struct alx_json	*j = NULL;
	int64_t		 v;
	int		 rc, state, b;

	memset(st, 0, sizeof *st);
	rc = alx_json_parse(&j, body, len, NULL);
	if (rc == 0 && ((state = alx_json_obj_get(j, 0, "State")) < 0 ||
	    alx_json_type(j, state) != ALX_JSON_OBJECT))
		rc = ALX_ERR_MISSING;
	if (rc == 0) {
		if (alx_json_get_bool(j, state, "Running", &b) == 0)
			st->running = b;
		if (alx_json_get_bool(j, state, "OOMKilled", &b) == 0)
			st->oom_killed = b;
		if (alx_json_get_int(j, state, "ExitCode", &v, -1, 1 << 16) ==
		    0)
			st->exit_code = (int)v;
		if (alx_json_get_int(j, state, "Pid", &v, 0, 1 << 30) == 0)
			st->pid = (long)v;
	}
	alx_json_free(j);
	return rc;
}

void
runner_docker_ids_free(char **ids, size_t n)
{
	while (n > 0)
		free(ids[--n]);
	free(ids);
}

int
runner_docker_parse_list(const char *body, size_t len, char ***idsp,
    size_t *np)
{
	struct alx_json	 *j = NULL;
	char		**ids = NULL, *s;
	int		  n, i, rc, el;

	*idsp = NULL;
	*np = 0;
	if ((rc = alx_json_parse(&j, body, len, NULL)) != 0)
		return rc;
	if ((n = alx_json_arr_len(j, 0)) < 0) {
		alx_json_free(j);
		return ALX_ERR_TYPE;
	}
	if ((ids = calloc((size_t)n + 1, sizeof *ids)) == NULL) {
		alx_json_free(j);
		return ALX_ERR_NOMEM;
	}
	for (i = 0; i < n; i++) {
		el = alx_json_arr_at(j, 0, i);
		if (alx_json_get_str(j, el, "Id", &s, RUNNER_DOCKER_ID_MAX) !=
		    0)
			continue;
		if (runner_docker_id_valid(s))
			ids[(*np)++] = s;
		else
			free(s);
	}
	alx_json_free(j);
	*idsp = ids;
	return 0;
}

int
runner_docker_missing_cmd(const char *body)
{
	return body != NULL && (strstr(body, "no such file") != NULL ||
	    strstr(body, "not found in $PATH") != NULL ||
	    strstr(body, "executable file not found") != NULL);
}

void
runner_docker_demux(struct runner_docker_frames *f, const char *p,
    size_t len, void (*out)(void *, int, const char *, size_t), void *arg)
{
	size_t	take, k;

	for (k = 0; k < len; ) {
		if (f->left == 0) {
			f->hdr[f->hlen++] = (uint8_t)p[k++];
			if (f->hlen < 8)
				continue;
			f->hlen = 0;
			f->left = (size_t)f->hdr[4] << 24 |
			    (size_t)f->hdr[5] << 16 | (size_t)f->hdr[6] << 8 |
			    f->hdr[7];
			f->stream = f->hdr[0] == 2 ? 2 : 1;
			continue;
		}
		take = len - k < f->left ? len - k : f->left;
		out(arg, f->stream, p + k, take);
		k += take;
		f->left -= take;
	}
}

size_t
runner_docker_unframe(char *buf, size_t len, size_t max)
{
	size_t	i = 0, o = 0, fl, keep;

	while (i + 8 <= len) {
		fl = (size_t)(uint8_t)buf[i + 4] << 24 |
		    (size_t)(uint8_t)buf[i + 5] << 16 |
		    (size_t)(uint8_t)buf[i + 6] << 8 | (uint8_t)buf[i + 7];
		i += 8;
		if (fl > len - i)
			fl = len - i;
		keep = o + fl > max ? max - o : fl;
		memmove(buf + o, buf + i, keep);
		o += keep;
		i += fl;		/* the whole frame, kept or not */
	}
	return o;
}
