/*
 * alxs_sse.c: reading a Server-Sent Events stream through libcurl's
 * write callback (the bytes are read by alxs_reply.c), with automatic
 * resume (Last-Event-ID) after a dropped connection, and a dead-connection
 * check (the relay sends a heartbeat comment every 15 s; 45 s of silence,
 * one and a half --stall-timeout, means the connection is gone).
 *
 * What the relay did wrong ends the stream with io_error and its cause in
 * words (alxs_http_net_note()): a reply that is not an event stream (a proxy's
 * or captive portal's page), a line or event over 2 MiB, or a second
 * silence in a row. A refused or lost connection is retried, with
 * backoff, after one warning that names it: the relay may be restarting.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "airlox.h"
#include "util/mono.h"
#include "alxs.h"
#include "alxs_reply.h"

#define SSE_ERR_MAX	4096
#define SSE_DEADLINE_SLACK_MS	1000	/* curl's timer against ours */

struct sse_state {
	CURL		*curl;
	alxs_sse_cb		 cb;
	void		*arg;
	struct reply_sse rs;		/* the stream, read (alxs_reply.c) */
	struct alx_buf	 err;		/* body of a non-200 reply */
	int64_t		*last_id;
	int		 checked;	/* the reply's type was looked at */
	int64_t		 deadline;	/* mono_ms() to stop at, 0: none */
	char		 where[320];	/* host:port, for messages */
};

/* An event, to the caller; its id is where a reconnection resumes. */
static int
sse_event(const char *type, int64_t id, const char *data, size_t len,
    void *arg)
{
	struct sse_state	*s = arg;
	int			 r;

	if ((r = s->cb(type, id, data, len, s->arg)) == 0 &&
	    id > *s->last_id)
		*s->last_id = id;
	return r;
}

static size_t
sse_write(char *p, size_t size, size_t n, void *arg)
{
	struct sse_state	*s = arg;
	size_t			 len = size * n;
	long			 status = 0;

	curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		if (alx_buf_add(&s->err, p, len) != 0)
			return 0;
		return len;
	}
	if (!s->checked) {
		const char	*ct = NULL;

		s->checked = 1;
		curl_easy_getinfo(s->curl, CURLINFO_CONTENT_TYPE, &ct);
		if (ct == NULL || strncasecmp(ct, "text/event-stream", 17) != 0) {
			s->rs.stop = alxs_http_net_note(ALX_ERR_IO,
			    "the relay at %s "
			    "answered the event stream with %.64s, not events "
			    "(is a proxy or a captive portal in the way?)",
			    s->where, ct != NULL ? ct : "no content type");
			return 0;
		}
	}
	if (reply_sse_feed(&s->rs, p, len) == ALX_ERR_TOO_LARGE)
		s->rs.stop = alxs_http_net_note(ALX_ERR_IO,
		    "the relay at %s sent "
		    "an event stream line or event over %d MiB", s->where,
		    REPLY_SSE_MAX / (1024 * 1024));
	return s->rs.stop != 0 ? 0 : len;
}

/*
 * One connection to the stream: 0 when it ended (to be resumed), an error
 * (the relay's refusal, or ALX_ERR_IO with its cause noted), or
 * ALX_ERR_EXPIRED at the deadline. *stalled: it ended in a silence.
 */
static int
sse_once(struct alxs_http *hc, struct sse_state *s, const char *path,
    int64_t timeout_ms, long *status, int *stalled)
{
	struct curl_slist	*h = NULL;
	char			 url[2048], auth[ALX_REQ_HDR_MAX + 32], lid[64];
	char			 errbuf[CURL_ERROR_SIZE];
	long			 stall = hc->stall_s * 3 / 2;
	int			 r, cc;

	*stalled = 0;
	curl_easy_reset(s->curl);
	alxs_http_tls_setup(hc, s->curl);
	snprintf(url, sizeof(url), "%s%s", hc->base, path);
	if ((r = alxs_http_auth_header(hc, "GET", path, NULL, 0, auth,
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
	/* Silence, not slowness: heartbeats are a few bytes. */
	curl_easy_setopt(s->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(s->curl, CURLOPT_LOW_SPEED_TIME, stall);
	curl_easy_setopt(s->curl, CURLOPT_ERRORBUFFER, errbuf);
	if (timeout_ms > 0)
		curl_easy_setopt(s->curl, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	reply_sse_reset(&s->rs);
	alx_buf_reset(&s->err);
	s->checked = 0;
	errbuf[0] = '\0';
	cc = curl_easy_perform(s->curl);
	curl_slist_free_all(h);
	*status = 0;
	curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, status);
	if (s->rs.stop != 0)
		return 0;
	if (*status != 0 && *status != 200)
		return reply_error(*status, s->err.data, s->err.len, NULL,
		    NULL, NULL);
	/*
	 * The deadline: curl's timer may end a moment before our clock says
	 * it passed (a silence that ends so close to it is the deadline too).
	 */
	if (cc == CURLE_OPERATION_TIMEDOUT && timeout_ms > 0 &&
	    mono_ms() >= s->deadline - SSE_DEADLINE_SLACK_MS)
		return ALX_ERR_EXPIRED;
	if (cc == CURLE_OK || cc == CURLE_ABORTED_BY_CALLBACK) {
		alxs_debug(hc, "sse: stream ended: %s", curl_easy_strerror(cc));
		return 0;
	}
	*stalled = cc == CURLE_OPERATION_TIMEDOUT;
	r = alxs_http_net_failed(hc, s->curl, cc, stall, errbuf);
	alxs_debug(hc, "sse: %s", alxs_http_net_cause(r));
	return r;
}

int
alxs_sse_run(struct alxs_http *hc, const char *path, int64_t *last_id,
    int64_t timeout_ms, alxs_sse_cb cb, void *arg)
{
	struct sse_state	 s;
	int64_t			 deadline = 0, left = 0, backoff = 250;
	long			 status;
	int			 r, stalled, stalls = 0, warned = 0;

	memset(&s, 0, sizeof(s));
	/* A handle of its own: callbacks make requests while it streams. */
	if ((s.curl = curl_easy_init()) == NULL)
		return ALX_ERR_NOMEM;
	s.cb = cb;
	s.arg = arg;
	s.last_id = last_id;
	reply_sse_init(&s.rs, sse_event, &s);
	alx_buf_init(&s.err, SSE_ERR_MAX);
	alxs_http_where(hc, s.where, sizeof(s.where));
	if (timeout_ms > 0)
		deadline = mono_ms() + timeout_ms;
	s.deadline = deadline;
	for (;;) {
		if (deadline != 0 && (left = deadline - mono_ms()) <= 0) {
			r = ALX_ERR_EXPIRED;
			break;
		}
		alxs_http_net_clear();
		r = sse_once(hc, &s, path, left, &status, &stalled);
		if (s.rs.stop != 0) {
			r = s.rs.stop > 0 ? 0 : s.rs.stop;
			break;
		}
		if (hc->stop != NULL && *hc->stop != 0) {
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
		/* Silent twice in a row, nothing between: the relay is stuck. */
		stalls = stalled ? (s.rs.events > 0 ? 1 : stalls + 1) : 0;
		if (stalls >= 2)
			break;
		if (alxs_http_net_cause(r) != NULL && !warned) {
			alxs_notice(hc->notice, hc->notice_arg,
			    "%s; trying again", alxs_http_net_cause(r));
			warned = 1;
		}
		if (s.rs.events > 0) {
			backoff = 250;
			warned = 0;
		}
		alxs_debug(hc, "sse: reconnecting after event %lld",
		    (long long)*last_id);
		usleep((useconds_t)backoff * 1000);
		if (backoff < 5000)
			backoff *= 2;
	}
	reply_sse_free(&s.rs);
	alx_buf_free(&s.err);
	curl_easy_cleanup(s.curl);
	return r;
}
