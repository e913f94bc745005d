/*
 * relay-sse.c: Server-Sent Events streams, one registry per session.
 *
 * libevent 2.1.12 traps handled here:
 * - While a reply is being written, evhttp keeps EV_READ enabled (to see
 *   the peer close) with the connection's read timeout, so an idle stream
 *   would be cut after --timeout. Once the stream starts we clear the read
 *   timeout and keep a write timeout on the bufferevent.
 * - A client that stops reading makes output pile up in memory: each send
 *   checks the bufferevent's pending output against --stream-buffer and
 *   drops the subscriber past it (it resumes with Last-Event-ID).
 * - When the peer closes, evhttp detaches the unfinished request from the
 *   connection and frees the connection; our close hook (relay-conn.c)
 *   then unregisters the stream and frees the request with
 *   evhttp_send_reply_end(), which frees a detached request.
 * Heartbeats are comment lines (": hb") from one timer for all streams.
 *
 * Output is staged per stream and written once per loop turn: the first
 * frame adds a zero timeout of the lowest priority (RELAY_PRIO_LOW), so
 * the flush runs in the next turn after the sockets that turn found
 * ready, the writers' replies among them: a publisher gets its 201
 * before the fan-out of its item to the readers, and the events of one
 * group commit reach each subscriber in one write, not one write each.
 * libevent runs a lower priority only in a turn with nothing of a higher
 * one to run, which a loaded relay may never have: a second timeout, of
 * the default priority, flushes after at most RELAY_SSE_LATE_USEC, so
 * readers are never starved into the --stream-buffer drop. A plain-HTTP
 * subscriber whose output buffer is empty gets that write on its socket
 * at once, framed as evhttp would frame it, instead of through
 * evhttp_send_reply_chunk(): that would enable the write event (an
 * epoll_ctl), wait a loop turn for it, write, and disable it again
 * (another epoll_ctl), for every subscriber. What the socket does not
 * take goes to the bufferevent, which then writes the rest in order, with
 * its write timeout, and reports a failed socket. TLS streams always go
 * through the bufferevent (OpenSSL frames them).
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>

#include "airlox.h"
#include "util/log.h"
#include "relayd.h"

#define RELAY_SSE_BUCKETS	1024
#define RELAY_SSE_SNDBUF	(128 * 1024)	/* the kernel doubles it */
/* The longest staged output waits when replies keep the loop busy. */
#define RELAY_SSE_LATE_USEC	1000

TAILQ_HEAD(relay_sseq, relay_sse);

static struct relay_sseq	 relay_sse_tab[RELAY_SSE_BUCKETS];
static struct event		*relay_sse_hb;
static struct event		*relay_sse_flush_ev;	/* next turn, low */
static struct event		*relay_sse_late_ev;	/* the bound, default */
static const struct timeval	 relay_sse_now = { 0, 0 };
static const struct timeval	 relay_sse_late = { 0, RELAY_SSE_LATE_USEC };
static TAILQ_HEAD(, relay_sse)	 relay_sse_dirty =
    TAILQ_HEAD_INITIALIZER(relay_sse_dirty);
static unsigned			 relay_nsse;
static struct log_rl		 relay_sse_rl = LOG_RL_INIT(5, 60);

static unsigned
relay_sse_bucket(const uint8_t sid[RELAY_SID_LEN])
{
	return ((unsigned)sid[0] | (unsigned)sid[1] << 8) % RELAY_SSE_BUCKETS;
}

unsigned
relay_sse_count(void)
{
	return relay_nsse;
}

static void
relay_sse_unlink(struct relay_sse *s)
{
	TAILQ_REMOVE(&relay_sse_tab[relay_sse_bucket(s->sid)], s, entry);
	relay_nsse--;
	if (s->dirty)
		TAILQ_REMOVE(&relay_sse_dirty, s, dirty_entry);
	if (s->stage != NULL)
		evbuffer_free(s->stage);
	if (s->on_end != NULL)
		s->on_end(s, s->arg);
	free(s);
}

/* The connection is going away (peer closed, dropped, or shutdown). */
static void
relay_sse_closed(struct relay_conn *c, void *arg)
{
	struct relay_sse	*s = arg;

	/* Detached by evhttp on a peer close: ours to free. */
	if (evhttp_request_get_connection(s->req) == NULL)
		evhttp_send_reply_end(s->req);
	relay_sse_unlink(s);
}

/* Output queued for the subscriber: in the gate's filter and under it. */
static size_t
relay_sse_pending(struct relay_sse *s)
{
	return relay_gate_pending_out(evhttp_connection_get_bufferevent(
	    s->evcon));
}

/* Drop a stream: close its connection (the close hook frees it). */
static void
relay_sse_drop(struct relay_sse *s, const char *why)
{
	struct relay_conn	*c;

	if (log_rl_allow(&relay_sse_rl))
		log_info("sse: dropping a subscriber: %s", why);
	/* What it did not read is dropped with it, not flushed. */
	if ((c = relay_conn_find(s->evcon)) != NULL)
		relay_gate_abort(c->gate);
	evhttp_connection_free(s->evcon);
}

/*
 * Straight to the socket (see the top of this file): 0 when the data was
 * written or queued, 1 when this stream must go through evhttp.
 */
static int
relay_sse_write_direct(struct relay_sse *s, const char *data, size_t len)
{
	struct bufferevent	*bev;
	struct iovec		 iov[3];
	char			 hdr[24];
	ssize_t			 n;
	size_t			 skip, i, cnt = 0;
	evutil_socket_t		 fd;

	bev = evhttp_connection_get_bufferevent(s->evcon);
	if (!s->direct || len == 0 || bev == NULL ||
	    relay_gate_pending_out(bev) != 0 ||
	    (fd = bufferevent_getfd(bev)) == -1)
		return 1;
	if (s->chunked) {
		iov[cnt].iov_base = hdr;
		iov[cnt++].iov_len = (size_t)snprintf(hdr, sizeof(hdr),
		    "%zx\r\n", len);
	}
	iov[cnt].iov_base = (void *)(uintptr_t)data;
	iov[cnt++].iov_len = len;
	if (s->chunked) {
		iov[cnt].iov_base = (void *)(uintptr_t)"\r\n";
		iov[cnt++].iov_len = 2;
	}
	do
		n = writev(fd, iov, (int)cnt);
	while (n == -1 && errno == EINTR);
	/*
	 * Not taken (full, or failed): the connection's bufferevent (the
	 * gate's filter, which writes to this socket in order) writes or
	 * reports it.
	 */
	skip = n > 0 ? (size_t)n : 0;
	for (i = 0; i < cnt; i++) {
		if (skip >= iov[i].iov_len) {
			skip -= iov[i].iov_len;
			continue;
		}
		if (bufferevent_write(bev, (char *)iov[i].iov_base + skip,
		    iov[i].iov_len - skip) != 0)
			return ALX_ERR_NOMEM;
		skip = 0;
	}
	return 0;
}

/* Write what a stream has staged: one write (or one chunk for evhttp). */
static void
relay_sse_flush_one(struct relay_sse *s)
{
	size_t	 n;
	char	*p;

	if (s->dirty) {
		TAILQ_REMOVE(&relay_sse_dirty, s, dirty_entry);
		s->dirty = 0;
	}
	if (s->stage == NULL || (n = evbuffer_get_length(s->stage)) == 0)
		return;
	if ((p = (char *)evbuffer_pullup(s->stage, -1)) != NULL &&
	    relay_sse_write_direct(s, p, n) == 0)
		evbuffer_drain(s->stage, n);
	else
		evhttp_send_reply_chunk(s->req, s->stage);	/* moves it */
}

static void
relay_sse_flushcb(evutil_socket_t fd, short ev, void *arg)
{
	struct relay_sse	*s;

	(void)fd;
	(void)ev;
	(void)arg;
	event_del(relay_sse_flush_ev);
	event_del(relay_sse_late_ev);
	while ((s = TAILQ_FIRST(&relay_sse_dirty)) != NULL)
		relay_sse_flush_one(s);
}

/* Stage bytes on a stream; 0, or -1 when the subscriber was dropped. */
static int
relay_sse_write(struct relay_sse *s, const char *data, size_t len)
{
	size_t	pending = relay_sse_pending(s);

	if (s->stage != NULL)
		pending += evbuffer_get_length(s->stage);
	if (pending + len > relay_cfg.sse_max_pending) {
		relay_sse_drop(s, "too much pending output");
		return -1;
	}
	if (s->stage == NULL && (s->stage = evbuffer_new()) == NULL)
		return ALX_ERR_NOMEM;
	if (evbuffer_add(s->stage, data, len) != 0)
		return ALX_ERR_NOMEM;
	if (!s->dirty) {
		/*
		 * Next turn, after the replies (see the top of this file);
		 * added once per flush, so the bound is not pushed back.
		 */
		if (TAILQ_EMPTY(&relay_sse_dirty)) {
			event_add(relay_sse_flush_ev, &relay_sse_now);
			event_add(relay_sse_late_ev, &relay_sse_late);
		}
		s->dirty = 1;
		TAILQ_INSERT_TAIL(&relay_sse_dirty, s, dirty_entry);
	}
	return 0;
}

/*
 * The end of the line at p: the first CR or LF before end (or end), and in
 * *tl the length of its terminator (CR LF is one). SSE readers end a line
 * at any of the three, so the relay must too: a CR left inside a "data:"
 * line would end it there, and what follows would be read as a field of
 * its own, or a CR CR as the end of the event.
 */
static const char *
relay_sse_eol(const char *p, const char *end, size_t *tl)
{
	const char	*lf, *cr;

	lf = memchr(p, '\n', end - p);
	cr = memchr(p, '\r', (lf != NULL ? lf : end) - p);
	if (cr != NULL) {
		*tl = cr + 1 < end && cr[1] == '\n' ? 2 : 1;
		return cr;
	}
	*tl = lf != NULL ? 1 : 0;
	return lf != NULL ? lf : end;
}

/*
 * One event as SSE text ("id:", "event:", one "data:" line per line of
 * data, a blank line) in *out (caller frees). Built once per event and
 * copied to each subscriber. A reader joins the data lines with LF: a CR
 * or CR LF in the data (JSON whitespace a client may have sent) reaches it
 * as an LF, the same JSON.
 */
int
relay_sse_frame(uint64_t id, const char *event, const char *data,
    size_t len, char **out, size_t *outlen)
{
	const char	*p, *nl, *end = data + len;
	char		 head[128], *w;
	size_t		 n, tl;
	int		 hl;

	*out = NULL;
	*outlen = 0;
	hl = snprintf(head, sizeof(head), "id: %llu\nevent: %s\n",
	    (unsigned long long)id, event);
	if (hl < 0 || (size_t)hl >= sizeof(head))
		return ALX_ERR_INVALID;
	/* A line break in data starts a new data: line: count, then copy. */
	n = (size_t)hl + 1;
	for (p = data; p < end; p = nl + tl) {
		nl = relay_sse_eol(p, end, &tl);
		n += 6 + (size_t)(nl - p) + 1;
	}
	if ((w = *out = malloc(n)) == NULL)
		return ALX_ERR_NOMEM;
	memcpy(w, head, (size_t)hl);
	w += hl;
	for (p = data; p < end; p = nl + tl) {
		nl = relay_sse_eol(p, end, &tl);
		memcpy(w, "data: ", 6);
		memcpy(w + 6, p, (size_t)(nl - p));
		w += 6 + (nl - p);
		*w++ = '\n';
	}
	*w++ = '\n';
	*outlen = n;
	return 0;
}

/* Queue a built frame of event `id`; 0, or -1 when dropped. */
int
relay_sse_send_frame(struct relay_sse *s, uint64_t id, const char *frame,
    size_t len)
{
	int	rc;

	rc = relay_sse_write(s, frame, len);
	if (rc == 0)
		s->cursor = id;
	return rc;
}

int
relay_sse_send(struct relay_sse *s, uint64_t id, const char *event,
    const char *data, size_t len)
{
	char	*frame;
	size_t	 flen;
	int	 rc;

	if ((rc = relay_sse_frame(id, event, data, len, &frame, &flen)) != 0)
		return rc;
	rc = relay_sse_send_frame(s, id, frame, flen);
	free(frame);
	return rc;
}

struct relay_sse *
relay_sse_start(struct relay_req *r, const uint8_t sid[RELAY_SID_LEN],
    uint64_t after, relay_sse_end_fn *on_end, void *arg)
{
	struct evkeyvalq	*h = evhttp_request_get_output_headers(r->req);
	struct relay_sse	*s;
	struct relay_conn	*c;
	struct timeval		 wtv;
	struct bufferevent	*bev;
	const char		*te;
	evutil_socket_t		 fd;
	int			 sndbuf = RELAY_SSE_SNDBUF, one = 1;

	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->evcon = evhttp_request_get_connection(r->req)) == NULL ||
	    (c = relay_conn_find(s->evcon)) == NULL) {
		free(s);
		relay_http_error(r->req, 503, ALX_ERR_NOMEM, NULL);
		return NULL;
	}
	s->req = r->req;
	memcpy(s->sid, sid, RELAY_SID_LEN);
	s->cursor = after;
	s->on_end = on_end;
	s->arg = arg;
	evhttp_add_header(h, "Content-Type", "text/event-stream");
	evhttp_add_header(h, "Cache-Control", "no-store");
	evhttp_add_header(h, "X-Accel-Buffering", "no");
	/*
	 * An HTTP/1.0 stream ends with the connection: without this, the
	 * gate's keep-alive would have evhttp announce a length of 0.
	 */
	evhttp_remove_header(evhttp_request_get_input_headers(r->req),
	    "Connection");
	evhttp_send_reply_start(r->req, 200, "OK");
	/* evhttp frames in chunks exactly when it added this header. */
	te = evhttp_find_header(h, "Transfer-Encoding");
	s->chunked = te != NULL && strcmp(te, "chunked") == 0;
	/*
	 * Trap: no read timeout on a stream. Timeouts are on the socket's
	 * bufferevent under the gate's filter (relay-gate.c): a plain
	 * socket's output waits for it at most --timeout in the gate, a TLS
	 * one in the TLS bufferevent, with this write timeout.
	 */
	bev = evhttp_connection_get_bufferevent(s->evcon);
	s->direct = bufferevent_openssl_get_ssl(relay_gate_lower(bev)) == NULL;
	wtv.tv_sec = (time_t)relay_cfg.timeout;
	wtv.tv_usec = 0;
	bufferevent_set_timeouts(relay_gate_lower(bev), NULL, &wtv);
	/*
	 * A bounded kernel buffer, so a stalled reader shows in our count,
	 * but not under 256 KB: with loopback's 64 KB segments a smaller one
	 * and the reader's delayed acknowledgements stalled a busy stream
	 * 40 ms at a time. No Nagle delay either: each write is a whole
	 * turn's events, wanted now (tests/relayd/fanout.sh).
	 */
	if ((fd = bufferevent_getfd(bev)) != -1) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	relay_conn_set_close(c, relay_sse_closed, s);
	TAILQ_INSERT_TAIL(&relay_sse_tab[relay_sse_bucket(sid)], s, entry);
	relay_nsse++;
	return s;
}

/* Call fn for every stream of a session (fn may drop the stream). */
void
relay_sse_foreach(const uint8_t sid[RELAY_SID_LEN],
    void (*fn)(struct relay_sse *, void *), void *arg)
{
	struct relay_sseq	*q = &relay_sse_tab[relay_sse_bucket(sid)];
	struct relay_sse	*s, *next;

	for (s = TAILQ_FIRST(q); s != NULL; s = next) {
		next = TAILQ_NEXT(s, entry);
		if (memcmp(s->sid, sid, RELAY_SID_LEN) == 0)
			fn(s, arg);
	}
}

static void
relay_sse_hbcb(evutil_socket_t fd, short ev, void *arg)
{
	struct relay_sse	*s, *next;
	unsigned		 i;

	for (i = 0; i < RELAY_SSE_BUCKETS; i++) {
		for (s = TAILQ_FIRST(&relay_sse_tab[i]); s != NULL; s = next) {
			next = TAILQ_NEXT(s, entry);
			relay_sse_write(s, ": hb\n\n", 6);
		}
	}
}

/* End one stream cleanly: the reply is finished, the connection lives. */
void
relay_sse_end(struct relay_sse *s)
{
	struct relay_conn	*c = relay_conn_find(s->evcon);

	if (c != NULL)
		relay_conn_set_close(c, NULL, NULL);
	relay_sse_flush_one(s);
	evhttp_send_reply_end(s->req);
	relay_sse_unlink(s);
}

void
relay_sse_init(struct event_base *base)
{
	struct timeval	tv;
	unsigned	i;

	for (i = 0; i < RELAY_SSE_BUCKETS; i++)
		TAILQ_INIT(&relay_sse_tab[i]);
	tv.tv_sec = (time_t)relay_cfg.heartbeat;
	tv.tv_usec = 0;
	relay_sse_hb = event_new(base, -1, EV_PERSIST, relay_sse_hbcb, NULL);
	if (relay_sse_hb == NULL || event_add(relay_sse_hb, &tv) == -1)
		fatalx("sse: cannot add the heartbeat timer");
	if ((relay_sse_flush_ev = event_new(base, -1, 0, relay_sse_flushcb,
	    NULL)) == NULL ||
	    event_priority_set(relay_sse_flush_ev, RELAY_PRIO_LOW) == -1 ||
	    (relay_sse_late_ev = event_new(base, -1, 0, relay_sse_flushcb,
	    NULL)) == NULL)
		fatalx("sse: cannot make the flush events");
}

/* SIGTERM: end every stream with a final chunk. */
void
relay_sse_shutdown(void)
{
	struct relay_sse	*s;
	unsigned		 i;

	for (i = 0; i < RELAY_SSE_BUCKETS; i++)
		while ((s = TAILQ_FIRST(&relay_sse_tab[i])) != NULL)
			relay_sse_end(s);
}

void
relay_sse_free(void)
{
	relay_sse_shutdown();
	if (relay_sse_hb != NULL)
		event_free(relay_sse_hb);
	relay_sse_hb = NULL;
	if (relay_sse_flush_ev != NULL)
		event_free(relay_sse_flush_ev);
	relay_sse_flush_ev = NULL;
	if (relay_sse_late_ev != NULL)
		event_free(relay_sse_late_ev);
	relay_sse_late_ev = NULL;
}
