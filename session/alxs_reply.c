/*
 * alxs_reply.c: what a relay sends back, read: the Server-Sent Events
 * stream (lines, fields, events), the JSON body of an error answer, and
 * Retry-After. No I/O and no libcurl: alxs_sse.c and alxs_http.c feed
 * these the bytes libcurl hands them, and tests/fuzz/fuzz-reply.c feeds
 * them anything.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "airlox.h"
#include "alxs_reply.h"

void
reply_sse_init(struct reply_sse *s, reply_event_cb cb, void *arg)
{
	memset(s, 0, sizeof(*s));
	s->cb = cb;
	s->arg = arg;
	alx_buf_init(&s->line, REPLY_SSE_MAX);
	alx_buf_init(&s->data, REPLY_SSE_MAX);
}

void
reply_sse_reset(struct reply_sse *s)
{
	alx_buf_reset(&s->line);
	alx_buf_reset(&s->data);
	s->type[0] = '\0';
	s->got_cr = 0;
	s->stop = 0;
	s->events = 0;
}

void
reply_sse_free(struct reply_sse *s)
{
	alx_buf_free(&s->line);
	alx_buf_free(&s->data);
}

static void
reply_sse_dispatch(struct reply_sse *s)
{
	int	r;

	if (s->data.len > 0 && s->data.data[s->data.len - 1] == '\n')
		s->data.data[--s->data.len] = '\0';
	if (s->data.len > 0 || s->type[0] != '\0') {
		r = s->cb(s->type[0] != '\0' ? s->type : "message", s->id,
		    s->data.len ? (const char *)s->data.data : "",
		    s->data.len, s->arg);
		if (r != 0)
			s->stop = r;
		s->events++;
	}
	alx_buf_reset(&s->data);
	s->type[0] = '\0';
}

/* One line without its terminator. */
static void
reply_sse_line(struct reply_sse *s, const char *p, size_t len)
{
	const char	*colon, *v;
	size_t		 flen, vlen;
	char		 num[24];

	if (len == 0) {
		reply_sse_dispatch(s);
		return;
	}
	if (p[0] == ':')
		return;
	colon = memchr(p, ':', len);
	flen = colon ? (size_t)(colon - p) : len;
	v = colon ? colon + 1 : p + len;
	vlen = len - (size_t)(v - p);
	if (vlen > 0 && *v == ' ') {
		v++;
		vlen--;
	}
	if (flen == 4 && memcmp(p, "data", 4) == 0) {
		if (alx_buf_add(&s->data, v, vlen) != 0 ||
		    alx_buf_addc(&s->data, '\n') != 0)
			s->stop = ALX_ERR_TOO_LARGE;
	} else if (flen == 5 && memcmp(p, "event", 5) == 0) {
		if (vlen >= sizeof(s->type))
			vlen = sizeof(s->type) - 1;
		memcpy(s->type, v, vlen);
		s->type[vlen] = '\0';
	} else if (flen == 2 && memcmp(p, "id", 2) == 0) {
		if (vlen < sizeof(num)) {
			memcpy(num, v, vlen);
			num[vlen] = '\0';
			s->id = strtoll(num, NULL, 10);
		}
	}
}

int
reply_sse_feed(struct reply_sse *s, const char *p, size_t len)
{
	size_t	i;
	char	c;

	for (i = 0; i < len && s->stop == 0; i++) {
		c = p[i];
		if (s->got_cr && c == '\n') {
			s->got_cr = 0;
			continue;
		}
		s->got_cr = 0;
		if (c == '\r' || c == '\n') {
			s->got_cr = c == '\r';
			reply_sse_line(s, (const char *)s->line.data,
			    s->line.len);
			alx_buf_reset(&s->line);
			continue;
		}
		if (alx_buf_addc(&s->line, (uint8_t)c) != 0)
			s->stop = ALX_ERR_TOO_LARGE;
	}
	return s->stop;
}

/* The code an HTTP status stands for, before the body says better. */
static int
reply_status_err(long status)
{
	switch (status) {
	case 400:
		return ALX_ERR_INVALID;
	case 401:
		return ALX_ERR_BAD_SIGNATURE;
	case 403:
		return ALX_ERR_FORBIDDEN;
	case 404:
		return ALX_ERR_NOT_FOUND;
	case 409:
		return ALX_ERR_EXISTS;
	case 410:
		return ALX_ERR_SESSION_EXPIRED;
	case 413:
		return ALX_ERR_TOO_LARGE;
	case 429:
		return ALX_ERR_RATE_LIMITED;
	case 503:
		return ALX_ERR_NOT_READY;
	case 507:
		return ALX_ERR_NO_SPACE;
	default:
		return ALX_ERR_IO;
	}
}

int
reply_error(long status, const void *body, size_t len, char **message,
    int64_t *server_time, int *has_time)
{
	struct alx_json	*j = NULL;
	char		*name = NULL;
	int64_t		 st;
	int		 err, code;

	if (message != NULL)
		*message = NULL;
	if (has_time != NULL)
		*has_time = 0;
	err = reply_status_err(status);
	if (body == NULL || len == 0 || alx_json_parse(&j, body, len,
	    NULL) != 0)
		return err;
	if (alx_json_get_str(j, 0, "error", &name, 64) == 0 &&
	    (code = alx_errcode(name)) != 0)
		err = code;
	free(name);
	if (message != NULL && alx_json_get_str(j, 0, "message", message,
	    REPLY_MESSAGE_MAX) != 0)
		*message = NULL;
	if (err == ALX_ERR_CLOCK_SKEW && server_time != NULL &&
	    alx_json_get_int(j, 0, "server_time", &st, 0,
	    ALX_JSON_INT_MAX) == 0) {
		*server_time = st;
		if (has_time != NULL)
			*has_time = 1;
	}
	alx_json_free(j);
	return err;
}

int
reply_retry_after(const char *line, size_t len)
{
	size_t		i;
	long long	n = 0;

	if (len < 12 || strncasecmp(line, "retry-after:", 12) != 0)
		return 0;
	for (i = 12; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
		;
	if (i == len || line[i] < '0' || line[i] > '9')
		return 0;
	for (; i < len && line[i] >= '0' && line[i] <= '9'; i++)
		if ((n = n * 10 + (line[i] - '0')) > REPLY_RETRY_MAX)
			n = REPLY_RETRY_MAX + 1;	/* and stays there */
	for (; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r' &&
		    line[i] != '\n')
			return 0;
	return n > REPLY_RETRY_MAX ? REPLY_RETRY_MAX : (int)n;
}
