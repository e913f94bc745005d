/*
 * client-sse.c: reading a Server-Sent Events stream through libcurl's
 * write callback, with automatic resume (Last-Event-ID) after a dropped
 * connection, and a dead-connection check (the relay sends a heartbeat
 * comment every 15 s; 45 s of silence means the connection is gone).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "airlox.h"
#include "util/log.h"
#include "client.h"

#define SSE_LINE_MAX	(2 * 1024 * 1024)
#define SSE_ERR_MAX	4096

struct sse_state {
	CURL		*curl;
	sse_cb		 cb;
	void		*arg;
	struct alx_buf	 line;
	struct alx_buf	 data;
	struct alx_buf	 err;		/* body of a non-200 reply */
	char		 type[32];
	int64_t		 id;
	int64_t		*last_id;
	int		 got_cr;
	int		 stop;		/* 1: cb said stop; <0: error */
	int		 events;
};

static int64_t
sse_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sse_dispatch(struct sse_state *s)
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
		else if (s->id > *s->last_id)
			*s->last_id = s->id;
		s->events++;
	}
	alx_buf_reset(&s->data);
	s->type[0] = '\0';
}

/* One line without its terminator. */
static void
sse_line(struct sse_state *s, const char *p, size_t len)
{
	const char	*colon, *v;
	size_t		 flen, vlen;

	if (len == 0) {
		sse_dispatch(s);
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
		char	num[24];
		if (vlen < sizeof(num)) {
			memcpy(num, v, vlen);
			num[vlen] = '\0';
			s->id = strtoll(num, NULL, 10);
		}
	}
}

static size_t
sse_write(char *p, size_t size, size_t n, void *arg)
{
	struct sse_state	*s = arg;
	size_t			 len = size * n, i;
	long			 status = 0;

	curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		if (alx_buf_add(&s->err, p, len) != 0)
			return 0;
		return len;
	}
	for (i = 0; i < len && s->stop == 0; i++) {
		char c = p[i];
		if (s->got_cr && c == '\n') {
			s->got_cr = 0;
			continue;
		}
		s->got_cr = 0;
		if (c == '\r' || c == '\n') {
			s->got_cr = c == '\r';
			sse_line(s, (const char *)s->line.data, s->line.len);
			alx_buf_reset(&s->line);
			continue;
		}
		if (alx_buf_addc(&s->line, (uint8_t)c) != 0)
			s->stop = ALX_ERR_TOO_LARGE;
	}
	return s->stop != 0 ? 0 : len;
}

/* Map the error body of a refused stream. */
static int
sse_refused(struct sse_state *s, long status)
{
	struct alx_json	*j = NULL;
	char		*name = NULL;
	int		 err = ALX_ERR_IO;

	if (status == 404)
		err = ALX_ERR_NOT_FOUND;
	else if (status == 410)
		err = ALX_ERR_SESSION_EXPIRED;
	else if (status == 401)
		err = ALX_ERR_BAD_SIGNATURE;
	else if (status == 403)
		err = ALX_ERR_FORBIDDEN;
	if (alx_json_parse(&j, (const char *)s->err.data, s->err.len,
	    NULL) == 0 && alx_json_get_str(j, 0, "error", &name, 64) == 0 &&
	    alx_errcode(name) != 0)
		err = alx_errcode(name);
	free(name);
	alx_json_free(j);
	return err;
}

static int
sse_once(struct http_conn *hc, struct sse_state *s, const char *path,
    int64_t timeout_ms, long *status)
{
	struct curl_slist	*h = NULL;
	char			 url[2048], auth[ALX_REQ_HDR_MAX + 32], lid[64];
	int			 r, cc;

	curl_easy_reset(s->curl);
	http_tls_setup(hc, s->curl);
	snprintf(url, sizeof(url), "%s%s", hc->base, path);
	if ((r = http_auth_header(hc, "GET", path, NULL, 0, auth,
	    sizeof(auth))) != 0)
		return r;
	h = curl_slist_append(h, auth);
	h = curl_slist_append(h, "Accept: text/event-stream");
	if (*s->last_id > 0) {
		snprintf(lid, sizeof(lid), "Last-Event-ID: %lld",
		    (long long)*s->last_id);
		h = curl_slist_append(h, lid);
	}
	curl_easy_setopt(s->curl, CURLOPT_URL, url);
	curl_easy_setopt(s->curl, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(s->curl, CURLOPT_WRITEFUNCTION, sse_write);
	curl_easy_setopt(s->curl, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(s->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(s->curl, CURLOPT_LOW_SPEED_TIME, 45L);
	if (timeout_ms > 0)
		curl_easy_setopt(s->curl, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	alx_buf_reset(&s->line);
	alx_buf_reset(&s->data);
	alx_buf_reset(&s->err);
	s->type[0] = '\0';
	s->got_cr = 0;
	cc = curl_easy_perform(s->curl);
	curl_slist_free_all(h);
	*status = 0;
	curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, status);
	if (s->stop != 0)
		return 0;
	if (*status != 0 && *status != 200)
		return sse_refused(s, *status);
	if (cc == CURLE_OPERATION_TIMEDOUT)
		return ALX_ERR_EXPIRED;
	log_debug("sse: stream ended: %s", curl_easy_strerror(cc));
	return 0;
}

int
sse_run(struct http_conn *hc, const char *path, int64_t *last_id,
    int64_t timeout_ms, sse_cb cb, void *arg)
{
	struct sse_state	 s;
	int64_t			 deadline = 0, left = 0, backoff = 250;
	long			 status;
	int			 r;

	memset(&s, 0, sizeof(s));
	/* A handle of its own: callbacks make requests while it streams. */
	if ((s.curl = curl_easy_init()) == NULL)
		return ALX_ERR_NOMEM;
	s.cb = cb;
	s.arg = arg;
	s.last_id = last_id;
	alx_buf_init(&s.line, SSE_LINE_MAX);
	alx_buf_init(&s.data, SSE_LINE_MAX);
	alx_buf_init(&s.err, SSE_ERR_MAX);
	if (timeout_ms > 0)
		deadline = sse_ms() + timeout_ms;
	for (;;) {
		if (deadline != 0 && (left = deadline - sse_ms()) <= 0) {
			r = ALX_ERR_EXPIRED;
			break;
		}
		s.events = 0;
		r = sse_once(hc, &s, path, left, &status);
		if (s.stop != 0) {
			r = s.stop > 0 ? 0 : s.stop;
			break;
		}
		if (exec_interrupted) {
			r = ALX_ERR_IO;
			break;
		}
		if (r == ALX_ERR_CLOCK_SKEW)
			continue;
		if (r != 0 && !(r == ALX_ERR_NOT_READY ||
		    r == ALX_ERR_TOO_MANY_CONNS || r == ALX_ERR_RATE_LIMITED ||
		    r == ALX_ERR_IO))
			break;
		if (r == ALX_ERR_EXPIRED)
			break;
		if (s.events > 0)
			backoff = 250;
		log_debug("sse: reconnecting after event %lld",
		    (long long)*last_id);
		usleep((useconds_t)backoff * 1000);
		if (backoff < 5000)
			backoff *= 2;
	}
	alx_buf_free(&s.line);
	alx_buf_free(&s.data);
	alx_buf_free(&s.err);
	curl_easy_cleanup(s.curl);
	return r;
}
