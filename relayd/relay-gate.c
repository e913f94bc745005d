/*
 * relay-gate.c: what a connection may send before evhttp reads it.
 *
 * evhttp 2.1.12 reads a request's whole body into memory before any of our
 * code sees the request, and offers no hook between the headers and the
 * body; it resets its idle timer on every line of a head. So a thousand
 * clients could each have the relay hold a whole body (memory bounded only
 * by connections x --max-body-size), an over-size body was answered only
 * once it had been read and dropped, and a head sent a line at a time never
 * ended. The gate sits between the socket (or TLS) and evhttp: a
 * bufferevent filter of ours on every connection, which reads each request
 * head itself, to its blank line, before evhttp sees a byte of it:
 *
 * - the head must arrive whole within --header-timeout of its first byte
 *   (408 otherwise), and be at most four times --max-header-size (413);
 * - a body must announce its length: Content-Length, at most
 *   --max-body-size (413, before a byte of the body is read); no
 *   Transfer-Encoding (411), no obs-fold line, one Content-Length;
 * - the body's length is taken from a budget shared by every connection
 *   (--body-memory; bodies over 64 KiB may use seven eighths of it, one
 *   client address a quarter) before it is read; past it the request is
 *   answered 503 with Retry-After. The budget is given back when the
 *   request has been handled (relay_gate_release() from the dispatcher):
 *   what outlives that is a copy in the verify or write queue, which
 *   --queue-limit bounds.
 *
 * A refused request reaches evhttp as its request line and headers, less
 * the body (Content-Length: 0); the dispatcher asks relay_gate_refusal(),
 * answers with the refusal and Connection: close, and the gate drops
 * everything that connection sends afterwards. When evhttp frees a
 * connection, the socket under the filter is ours again: its last reply is
 * flushed, and if the client was still sending a refused body the socket
 * is read and the bytes dropped for a while (a lingering close), so that
 * the client reads its answer instead of a reset.
 *
 * One request at a time: once a request's last byte went to evhttp the
 * gate passes nothing more until evhttp has sent the reply (the request's
 * on-complete callback); what the client pipelines waits in the socket
 * bufferevent, whose read high-water mark then stops reading. A request
 * answered later (a stream) thus holds its connection's input, as evhttp
 * did itself.
 */
#include "config.h"

#include <sys/socket.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>

#include "airlox.h"
#include "util/mono.h"
#include "util/log.h"
#include "relayd.h"

#define GATE_HEAD	0	/* reading a request head */
#define GATE_BODY	1	/* passing its body to evhttp */
#define GATE_WAIT	2	/* passed whole: until it is answered */
#define GATE_DROP	3	/* refused: everything is dropped */

/* Bodies up to this size may use all of the budget, larger ones 7/8. */
#define GATE_SMALL_BODY		(64 * 1024)
/* Socket input held while a request is being answered. */
#define GATE_HOLD		(64 * 1024)
/* The longest a refused body is read and dropped after the answer. */
#define GATE_LINGER_SEC		5
/* After a burst, free memory goes back to the system past this much. */
#define GATE_TRIM_MARK		((uint64_t)8 * 1024 * 1024)

struct relay_gate {
	struct bufferevent	*under;		/* socket or TLS, ours */
	struct bufferevent	*bev;		/* the filter, evhttp's */
	struct evhttp_connection *evcon;	/* known once a request came */
	struct evbuffer		*head;		/* the head being read */
	size_t			 scanned;	/* bytes of head without its end */
	uint64_t		 body;		/* body bytes to pass or drop */
	uint64_t		 reserved;	/* of the budget */
	int			 state;
	int			 refused;	/* the request passed is refused */
	struct relay_refusal	 refusal;
	int			 close_after;	/* the client asked for a close */
	int			 closing;	/* answered: close once it is out */
	double			 close_by;	/* ... or at this time */
	int			 plain;		/* no TLS: output goes to the fd */
	int			 has_addr;	/* a counted client address */
	struct relay_addr	 addr;
	int			 detached;	/* evhttp let go of the filter */
	int			 abort;		/* close at once, no flush */
	int			 werr;		/* writing to the socket failed */
	struct event		*timer;		/* head deadline, then linger */
	struct event		*kick;		/* resume, or close, after a reply */
	struct event		*flush;		/* move a reply down */
	struct event		*wev;		/* the socket can take more */
	TAILQ_ENTRY(relay_gate)	 entry;		/* lingering */
};

static TAILQ_HEAD(, relay_gate)	 relay_gate_lingering =
    TAILQ_HEAD_INITIALIZER(relay_gate_lingering);
static int			 relay_gate_ending;	/* at exit */
static uint64_t		 relay_gate_used;	/* bytes reserved */
static uint64_t		 relay_gate_peak;	/* since the last trim */

static void	relay_gate_wevcb(evutil_socket_t, short, void *);

uint64_t
relay_gate_inuse(void)
{
	return relay_gate_used;
}

/* The socket (or TLS) bufferevent under a connection's filter. */
struct bufferevent *
relay_gate_lower(struct bufferevent *bev)
{
	struct bufferevent	*u;

	if (bev != NULL && (u = bufferevent_get_underlying(bev)) != NULL)
		return u;
	return bev;
}

/* Bytes a connection has queued for its client, in both bufferevents. */
size_t
relay_gate_pending_out(struct bufferevent *bev)
{
	struct bufferevent	*u = relay_gate_lower(bev);
	size_t			 n = evbuffer_get_length(bufferevent_get_output(bev));

	if (u != bev)
		n += evbuffer_get_length(bufferevent_get_output(u));
	return n;
}

static uint64_t
relay_gate_share(void)
{
	uint64_t	share = relay_cfg.body_memory / 4;

	return share < relay_cfg.max_body_size ? relay_cfg.max_body_size :
	    share;
}

/* Take n bytes of the budget for a request of g; 0, or -1 when full. */
static int
relay_gate_reserve(struct relay_gate *g, uint64_t n)
{
	struct relay_peer	*p = NULL;
	uint64_t		 limit = relay_cfg.body_memory;

	if (n == 0)
		return 0;
	if (n > GATE_SMALL_BODY)
		limit -= limit / 8;
	if (relay_gate_used + n > limit)
		return -1;
	if (g->has_addr && (p = relay_peer_get(&g->addr, 0)) != NULL &&
	    p->body + n > relay_gate_share())
		return -1;
	if (p != NULL)
		p->body += n;
	relay_gate_used += n;
	if (relay_gate_used > relay_gate_peak)
		relay_gate_peak = relay_gate_used;
	g->reserved = n;
	return 0;
}

static void
relay_gate_unreserve(struct relay_gate *g)
{
	struct relay_peer	*p;

	if (g->reserved == 0)
		return;
	if (g->has_addr && (p = relay_peer_get(&g->addr, 0)) != NULL)
		p->body -= p->body < g->reserved ? p->body : g->reserved;
	relay_gate_used -= relay_gate_used < g->reserved ? relay_gate_used :
	    g->reserved;
	g->reserved = 0;
}

/*
 * From the cron: once the bodies of a burst are gone, hand the memory
 * they used back to the system (glibc keeps freed heap pages otherwise,
 * and a burst of 2 MiB bodies read 16 KiB at a time leaves a fragmented
 * heap it never returns).
 */
void
relay_gate_trim(int idle)
{
	if (!idle || relay_gate_used != 0 || relay_gate_peak < GATE_TRIM_MARK)
		return;
	relay_gate_peak = 0;
#ifdef HAVE_MALLOC_TRIM
	malloc_trim(0);
#endif
}

/* The refusal a head gets, in g->refusal; 0 when it may pass. */
static void
relay_gate_refuse(struct relay_gate *g, int status, int err, const char *msg)
{
	g->refused = 1;
	g->refusal.status = status;
	g->refusal.err = err;
	g->refusal.msg = msg;
}

/* A header line's value, trimmed: *v, *vlen. */
static int
relay_gate_header_is(const char *line, size_t len, const char *name,
    const char **v, size_t *vlen)
{
	size_t	n = strlen(name);

	if (len <= n || line[n] != ':' || strncasecmp(line, name, n) != 0)
		return 0;
	line += n + 1;
	len -= n + 1;
	while (len > 0 && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	*v = line;
	*vlen = len;
	return 1;
}

/* Does a Connection header's value hold the token "close"? */
static int
relay_gate_has_close(const char *v, size_t len)
{
	const char	*end = v + len, *t;
	size_t		 n;

	while (v < end) {
		while (v < end && (*v == ',' || *v == ' ' || *v == '\t'))
			v++;
		for (t = v; t < end && *t != ',' && *t != ' ' && *t != '\t';
		    t++)
			;
		n = (size_t)(t - v);
		if (n == 5 && strncasecmp(v, "close", 5) == 0)
			return 1;
		v = t;
	}
	return 0;
}

/*
 * The line of a head at p, before end: its length without CR LF (0: the
 * blank line that ends the head); *next is where the next one starts.
 */
static size_t
relay_gate_line(const char *p, const char *end, const char **next)
{
	const char	*nl;
	size_t		 len;

	if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
		nl = end - 1;
	*next = nl + 1;
	len = (size_t)(nl - p);
	if (len > 0 && p[len - 1] == '\r')
		len--;
	return len;
}

#define GATE_SKIP_BODY	0x1	/* Content-Length, Transfer-Encoding, Expect */
#define GATE_SKIP_CONN	0x2	/* Connection */

/*
 * The head's request line and header lines to dst, less those that
 * `skip` names, ending with `tail` (which ends the head).
 */
static void
relay_gate_copy_head(struct evbuffer *dst, const char *h, size_t hlen,
    int skip, const char *tail)
{
	const char	*p, *end = h + hlen, *next, *v;
	size_t		 len, vlen;
	int		 first = 1;

	for (p = h; p < end; p = next) {
		if ((len = relay_gate_line(p, end, &next)) == 0)
			break;
		if (!first && (*p == ' ' || *p == '\t' ||
		    ((skip & GATE_SKIP_BODY) && (relay_gate_header_is(p, len,
		    "Content-Length", &v, &vlen) || relay_gate_header_is(p, len,
		    "Transfer-Encoding", &v, &vlen) || relay_gate_header_is(p,
		    len, "Expect", &v, &vlen))) ||
		    ((skip & GATE_SKIP_CONN) && relay_gate_header_is(p, len,
		    "Connection", &v, &vlen))))
			continue;
		first = 0;
		evbuffer_add(dst, p, len);
		evbuffer_add(dst, "\r\n", 2);
	}
	evbuffer_add(dst, tail, strlen(tail));
}

/*
 * One complete head (its bytes, to the blank line): decide, and write
 * what evhttp is to read to dst. An HTTP/1.1 request for a close loses
 * its Connection header on the way, and the gate closes the connection
 * once the answer is out (evhttp would shut the socket down as soon as it
 * handed the answer to the filter, before it was sent).
 */
static void
relay_gate_decide(struct relay_gate *g, const char *h, size_t hlen,
    struct evbuffer *dst)
{
	const char	*p = h, *end = h + hlen, *next, *v;
	size_t		 len, vlen, i;
	uint64_t	 cl = 0;
	int		 ncl = 0, te = 0, bad = 0, head_method = 0, first = 1;
	int		 http11 = 0, close = 0;

	g->refused = 0;
	for (; p < end; p = next) {
		if ((len = relay_gate_line(p, end, &next)) == 0)
			break;			/* the blank line */
		if (first) {
			first = 0;
			head_method = (len > 5 && memcmp(p, "HEAD ", 5) == 0) ||
			    (len > 6 && memcmp(p, "TRACE ", 6) == 0);
			http11 = len > 9 && memcmp(p + len - 9, " HTTP/1.1",
			    9) == 0;
			continue;
		}
		if (*p == ' ' || *p == '\t')
			bad = 1;		/* obs-fold: refused */
		else if (relay_gate_header_is(p, len, "Content-Length", &v,
		    &vlen)) {
			ncl++;
			cl = 0;
			if (vlen == 0 || vlen > 18)
				bad = 1;
			for (i = 0; i < vlen; i++) {
				if (v[i] < '0' || v[i] > '9')
					bad = 1;
				else
					cl = cl * 10 + (uint64_t)(v[i] - '0');
			}
		} else if (relay_gate_header_is(p, len, "Transfer-Encoding",
		    &v, &vlen))
			te = 1;
		else if (relay_gate_header_is(p, len, "Connection", &v, &vlen) &&
		    relay_gate_has_close(v, vlen))
			close = 1;
	}
	if (bad || ncl > 1 || (head_method && (cl > 0 || te)))
		relay_gate_refuse(g, 400, ALX_ERR_INVALID,
		    "the request head is malformed or ambiguous");
	else if (te)
		relay_gate_refuse(g, 411, ALX_ERR_INVALID,
		    "a request body needs a Content-Length");
	else if (cl > relay_cfg.max_body_size)
		relay_gate_refuse(g, 413, ALX_ERR_TOO_LARGE,
		    "the request body exceeds the relay's --max-body-size");
	else if (relay_gate_reserve(g, cl) != 0)
		relay_gate_refuse(g, 503, ALX_ERR_NOT_READY,
		    "the relay holds its most request bodies at once; retry");
	if (g->refused) {
		/* Without its body; the gate drops it and closes. */
		relay_gate_copy_head(dst, h, hlen,
		    GATE_SKIP_BODY | GATE_SKIP_CONN, "Content-Length: 0\r\n\r\n");
		g->state = GATE_DROP;
		return;
	}
	if (close && http11) {
		g->close_after = 1;
		relay_gate_copy_head(dst, h, hlen, GATE_SKIP_CONN, "\r\n");
	} else if (!http11 && !g->plain) {
		/*
		 * HTTP/1.0 over TLS (a load balancer's health probe): evhttp
		 * would shut the socket down before the TLS bufferevent sent
		 * the answer. Asked to keep it alive, evhttp leaves the close
		 * to the gate, which closes once the answer is out. (A stream
		 * drops the header again: relay-sse.c.)
		 */
		g->close_after = 1;
		relay_gate_copy_head(dst, h, hlen, GATE_SKIP_CONN,
		    "Connection: keep-alive\r\n\r\n");
	} else
		evbuffer_add(dst, h, hlen);
	g->body = cl;
	g->state = cl > 0 ? GATE_BODY : GATE_WAIT;
}

/*
 * A refusal with no usable head (too large, too slow): evhttp reads a
 * minimal request of ours, and the dispatcher answers the refusal.
 */
static void
relay_gate_refuse_raw(struct relay_gate *g, struct evbuffer *dst, int status,
    int err, const char *msg)
{
	static const char	req[] = "GET / HTTP/1.1\r\nHost: -\r\n"
				    "Content-Length: 0\r\n\r\n";

	relay_gate_refuse(g, status, err, msg);
	evbuffer_drain(g->head, evbuffer_get_length(g->head));
	evbuffer_add(dst, req, sizeof(req) - 1);
	g->state = GATE_DROP;
}

/*
 * The end of the head in g->head: the offset just past its blank line, or
 * 0 while it has none. Scans each byte once (g->scanned), without copying.
 */
static size_t
relay_gate_head_end(struct relay_gate *g)
{
	struct evbuffer_ptr	 pos;
	size_t			 len = evbuffer_get_length(g->head);
	char			 next[2];

	if (len == 0)
		return 0;
	if (evbuffer_ptr_set(g->head, &pos, g->scanned, EVBUFFER_PTR_SET) != 0)
		return 0;
	for (;;) {
		pos = evbuffer_search(g->head, "\n", 1, &pos);
		if (pos.pos < 0)
			break;
		/* A line feed, then a line feed or CR LF: the blank line. */
		if ((size_t)pos.pos + 1 >= len)
			break;
		if (evbuffer_copyout_from(g->head, &pos, next, 2) >= 2) {
			if (next[1] == '\n')
				return (size_t)pos.pos + 2;
			if (next[1] == '\r') {
				if ((size_t)pos.pos + 2 >= len)
					break;
				evbuffer_ptr_set(g->head, &pos, 2,
				    EVBUFFER_PTR_ADD);
				if (evbuffer_copyout_from(g->head, &pos, next,
				    1) == 1 && next[0] == '\n')
					return (size_t)pos.pos + 1;
				continue;
			}
		}
		if (evbuffer_ptr_set(g->head, &pos, 1, EVBUFFER_PTR_ADD) != 0)
			break;
	}
	/* Resume where an end could still start. */
	g->scanned = len > 2 ? len - 2 : 0;
	return 0;
}

static void
relay_gate_arm(struct relay_gate *g, uint64_t sec)
{
	struct timeval	tv;

	tv.tv_sec = (time_t)sec;
	tv.tv_usec = 0;
	event_add(g->timer, &tv);
}

/* GATE_HEAD: 1 once the head went on (the state changed), 0 for more. */
static int
relay_gate_read_head(struct relay_gate *g, struct evbuffer *src,
    struct evbuffer *dst)
{
	struct evbuffer	*h;
	size_t		 cap = (size_t)relay_cfg.max_header_size * 4, have, end;
	size_t		 n;

	have = evbuffer_get_length(g->head);
	n = evbuffer_get_length(src);
	if (n > cap + 4 - have)
		n = cap + 4 - have;
	if (n == 0 && have == 0)
		return 0;
	evbuffer_remove_buffer(src, g->head, n);
	if (have == 0)
		relay_gate_arm(g, relay_cfg.header_timeout);
	if ((end = relay_gate_head_end(g)) == 0) {
		if (evbuffer_get_length(g->head) < cap)
			return 0;
		event_del(g->timer);
		relay_gate_refuse_raw(g, dst, 413, ALX_ERR_TOO_LARGE,
		    "request headers too large");
		return 1;
	}
	event_del(g->timer);
	g->scanned = 0;
	/* What follows the head goes back in front of the socket's input. */
	if ((h = evbuffer_new()) == NULL) {
		relay_gate_refuse_raw(g, dst, 503, ALX_ERR_NOMEM, NULL);
		return 1;
	}
	evbuffer_remove_buffer(g->head, h, end);
	evbuffer_prepend_buffer(src, g->head);
	relay_gate_decide(g, (const char *)evbuffer_pullup(h, -1), end, dst);
	evbuffer_free(h);
	return 1;
}

/* The filter, socket to evhttp (see the top of this file). */
static enum bufferevent_filter_result
relay_gate_in(struct evbuffer *src, struct evbuffer *dst, ev_ssize_t limit,
    enum bufferevent_flush_mode mode, void *arg)
{
	struct relay_gate	*g = arg;
	size_t			 before = evbuffer_get_length(dst), n;

	(void)limit;		/* evhttp sets no read high-water mark */
	(void)mode;
	for (;;) {
		switch (g->state) {
		case GATE_HEAD:
			if (!relay_gate_read_head(g, src, dst))
				goto out;
			break;
		case GATE_BODY:
			n = evbuffer_get_length(src);
			if (n == 0)
				goto out;
			if (n > g->body)
				n = (size_t)g->body;
			evbuffer_remove_buffer(src, dst, n);
			g->body -= n;
			if (g->body == 0)
				g->state = GATE_WAIT;
			break;
		case GATE_DROP:
			evbuffer_drain(src, evbuffer_get_length(src));
			goto out;
		default:		/* GATE_WAIT: hold */
			goto out;
		}
	}
out:
	return evbuffer_get_length(dst) > before ? BEV_OK : BEV_NEED_MORE;
}

/* Output, evhttp to the client (see relay_gate_out()). */
static enum bufferevent_filter_result
relay_gate_out(struct evbuffer *src, struct evbuffer *dst, ev_ssize_t limit,
    enum bufferevent_flush_mode mode, void *arg)
{
	struct relay_gate	*g = arg;
	struct timeval		 tv;
	evutil_socket_t		 fd;
	int			 n;

	(void)mode;
	if (evbuffer_get_length(src) == 0)
		return BEV_NEED_MORE;
	/*
	 * TLS: into the TLS bufferevent, as far as its high-water mark. (A
	 * connection evhttp closes itself, after an error of its own, may
	 * lose what that one had not sent yet; an HTTP/1.0 one is closed by
	 * the gate, see relay_gate_decide().)
	 */
	if (!g->plain ||
	    evbuffer_get_length(bufferevent_get_output(g->under)) != 0 ||
	    (fd = bufferevent_getfd(g->under)) == -1) {
		if (evbuffer_remove_buffer(src, dst, limit >= 0 ? (size_t)limit :
		    evbuffer_get_length(src)) <= 0)
			return BEV_NEED_MORE;
		return BEV_OK;
	}
	/*
	 * A plain socket: straight to it, so that when the filter's output
	 * is empty (and evhttp goes on, maybe to close the connection with
	 * a shutdown()) the bytes are with the kernel, not in a buffer above
	 * it. What the socket does not take waits here for it.
	 */
	if ((n = evbuffer_write(src, fd)) > 0)
		return BEV_OK;
	if (n == 0 || errno == EAGAIN || errno == EWOULDBLOCK ||
	    errno == EINTR) {
		if (g->wev == NULL && (g->wev = event_new(bufferevent_get_base(
		    g->bev), fd, EV_WRITE, relay_gate_wevcb, g)) == NULL)
			return BEV_ERROR;
		tv.tv_sec = (time_t)relay_cfg.timeout;
		tv.tv_usec = 0;
		if (!event_pending(g->wev, EV_WRITE, NULL))
			event_add(g->wev, &tv);
		return BEV_NEED_MORE;
	}
	g->werr = 1;
	event_active(g->flush, EV_TIMEOUT, 0);
	return BEV_ERROR;
}

static void
relay_gate_free(struct relay_gate *g)
{
	relay_gate_unreserve(g);
	if (g->timer != NULL)
		event_free(g->timer);
	if (g->kick != NULL)
		event_free(g->kick);
	if (g->flush != NULL)
		event_free(g->flush);
	if (g->wev != NULL)
		event_free(g->wev);
	if (g->head != NULL)
		evbuffer_free(g->head);
	if (g->under != NULL)
		bufferevent_free(g->under);	/* our reference: closes it */
	free(g);
}

static void
relay_gate_linger_end(struct relay_gate *g)
{
	TAILQ_REMOVE(&relay_gate_lingering, g, entry);
	relay_gate_free(g);
}

/* After evhttp: what a refused client still sends is dropped. */
static void
relay_gate_linger_readcb(struct bufferevent *bev, void *arg)
{
	struct evbuffer	*in = bufferevent_get_input(bev);

	(void)arg;
	evbuffer_drain(in, evbuffer_get_length(in));
}

static void
relay_gate_linger_eventcb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	relay_gate_linger_end(arg);
}

/*
 * The filter is being freed (evhttp freed the connection, which shut the
 * socket down for writing): the socket is ours again. It is closed now,
 * or after a refusal, once the client stopped sending (what it sends is
 * read and dropped, GATE_LINGER_SEC at most), so that it reads the answer
 * instead of a reset.
 */
static void
relay_gate_release_socket(void *arg)
{
	struct relay_gate	*g = arg;
	struct timeval		 tv;

	relay_gate_detach(g);
	if (g->abort || !g->refused || relay_gate_ending || g->under == NULL) {
		relay_gate_free(g);
		return;
	}
	TAILQ_INSERT_TAIL(&relay_gate_lingering, g, entry);
	bufferevent_setwatermark(g->under, EV_READ, 0, 0);
	bufferevent_setcb(g->under, relay_gate_linger_readcb, NULL,
	    relay_gate_linger_eventcb, g);
	tv.tv_sec = GATE_LINGER_SEC;
	tv.tv_usec = 0;
	bufferevent_set_timeouts(g->under, &tv, NULL);
	bufferevent_disable(g->under, EV_WRITE);
	bufferevent_enable(g->under, EV_READ);
	relay_gate_arm(g, GATE_LINGER_SEC);
}

/*
 * The head deadline passed: a 408 for evhttp to read; or, after evhttp
 * let go, the lingering close is over.
 */
static void
relay_gate_timercb(evutil_socket_t fd, short ev, void *arg)
{
	struct relay_gate	*g = arg;
	struct evbuffer		*in;

	(void)fd;
	(void)ev;
	if (g->detached) {
		relay_gate_linger_end(g);
		return;
	}
	if (g->state != GATE_HEAD || evbuffer_get_length(g->head) == 0)
		return;
	in = bufferevent_get_input(g->bev);
	relay_gate_refuse_raw(g, in, 408, ALX_ERR_INVALID,
	    "the request head was not sent in time");
	bufferevent_trigger(g->bev, EV_READ, BEV_TRIG_IGNORE_WATERMARKS);
}

/*
 * The answer went out of evhttp: read the next request (pipelined bytes
 * first), or close the connection once the answer left the relay.
 */
static void
relay_gate_complete(struct evhttp_request *req, void *arg)
{
	struct relay_gate	*g = arg;

	(void)req;
	if (g->detached)
		return;
	if (g->state == GATE_DROP || g->close_after) {
		g->state = GATE_DROP;
		g->closing = 1;
		g->close_by = mono_sec() + (double)relay_cfg.timeout;
	} else if (g->state == GATE_WAIT)
		g->state = GATE_HEAD;
	else
		return;
	event_active(g->kick, EV_TIMEOUT, 0);
}

/* Next turn, once evhttp reads again: feed it what was held; or close. */
static void
relay_gate_kickcb(evutil_socket_t fd, short ev, void *arg)
{
	struct relay_gate	*g = arg;
	struct timeval		 tv = { 0, 20 * 1000 };

	(void)fd;
	(void)ev;
	if (g->detached || g->bev == NULL)
		return;
	if (g->closing) {
		/* TLS: what its bufferevent holds must go out first. */
		if (relay_gate_pending_out(g->bev) != 0 &&
		    mono_sec() < g->close_by) {
			event_add(g->kick, &tv);
			return;
		}
		if (g->evcon != NULL)
			evhttp_connection_free(g->evcon);
		return;
	}
	if (bufferevent_flush(g->bev, EV_READ, BEV_NORMAL) > 0)
		bufferevent_trigger(g->bev, EV_READ, 0);
}

/* Something was added to the filter's output: move it down next turn. */
static void
relay_gate_outcb(struct evbuffer *b, const struct evbuffer_cb_info *info,
    void *arg)
{
	struct relay_gate	*g = arg;

	(void)b;
	if (info->n_added > 0 && !g->detached)
		event_active(g->flush, EV_TIMEOUT, 0);
}

static void
relay_gate_flushcb(evutil_socket_t fd, short ev, void *arg)
{
	struct relay_gate	*g = arg;

	(void)fd;
	(void)ev;
	if (g->detached)
		return;
	if (g->werr) {
		g->werr = 0;
		bufferevent_trigger_event(g->bev, BEV_EVENT_ERROR |
		    BEV_EVENT_WRITING, 0);
		return;
	}
	bufferevent_flush(g->bev, EV_WRITE, BEV_NORMAL);
}

/* The plain socket takes more, or has taken nothing for --timeout. */
static void
relay_gate_wevcb(evutil_socket_t fd, short ev, void *arg)
{
	struct relay_gate	*g = arg;

	(void)fd;
	if (g->detached)
		return;
	if (ev & EV_TIMEOUT)
		bufferevent_trigger_event(g->bev, BEV_EVENT_TIMEOUT |
		    BEV_EVENT_WRITING, 0);
	else
		bufferevent_flush(g->bev, EV_WRITE, BEV_NORMAL);
}

/*
 * A connection's filter over `under` (which the gate owns from now on,
 * and closes); evhttp gets the filter.
 */
struct bufferevent *
relay_gate_new(struct event_base *base, struct bufferevent *under,
    struct relay_gate **out)
{
	struct relay_gate	*g;
	struct timeval		 tv;

	*out = NULL;
	if ((g = calloc(1, sizeof(*g))) == NULL)
		return NULL;
	if ((g->head = evbuffer_new()) == NULL ||
	    (g->timer = event_new(base, -1, 0, relay_gate_timercb, g)) ==
	    NULL || (g->kick = event_new(base, -1, 0, relay_gate_kickcb,
	    g)) == NULL || (g->flush = event_new(base, -1, 0,
	    relay_gate_flushcb, g)) == NULL) {
		relay_gate_free(g);		/* under stays the caller's */
		return NULL;
	}
	/*
	 * BEV_OPT_CLOSE_ON_FREE, or evhttp would close the socket itself
	 * when it frees the connection; our reference keeps it open until
	 * the gate is done with it.
	 */
	g->bev = bufferevent_filter_new(under, relay_gate_in, relay_gate_out,
	    BEV_OPT_CLOSE_ON_FREE, relay_gate_release_socket, g);
	if (g->bev == NULL) {
		relay_gate_free(g);
		return NULL;
	}
	bufferevent_incref(under);
	g->under = under;
	g->plain = bufferevent_openssl_get_ssl(under) == NULL;
	/* The idle timeout, here rather than on the filter (relay-http.c). */
	tv.tv_sec = (time_t)relay_cfg.timeout;
	tv.tv_usec = 0;
	bufferevent_set_timeouts(under, &tv, &tv);
	bufferevent_setwatermark(under, EV_READ, 0, GATE_HOLD);
	/*
	 * TLS: the filter moves a reply down only this far ahead of the
	 * socket, so evhttp sees a reply written when the client has taken
	 * most of it, and its write timeout still catches a client that
	 * stopped reading.
	 */
	bufferevent_setwatermark(under, EV_WRITE, 0, GATE_HOLD);
	/*
	 * evhttp adds a reply to the filter's output before it enables
	 * writing, and the filter moves output down only when something is
	 * added while writing is enabled: a reply would wait for the next
	 * one. So each addition also schedules a flush for the next turn,
	 * after evhttp enabled writing. (Not evbuffer_defer_callbacks():
	 * libevent 2.1 then finalizes the filter with the evbuffer as its
	 * argument when the deferred callback freed it.)
	 */
	evbuffer_add_cb(bufferevent_get_output(g->bev), relay_gate_outcb, g);
	*out = g;
	return g->bev;
}

/*
 * evhttp is freeing the connection (its close callback, or a connection
 * refused before any request): the filter is going away, so nothing of
 * ours touches it from now on; its socket comes back to us when it is
 * gone (relay_gate_release_socket()).
 */
void
relay_gate_detach(struct relay_gate *g)
{
	if (g == NULL || g->detached)
		return;
	g->detached = 1;
	g->bev = NULL;
	g->evcon = NULL;
	event_del(g->kick);
	event_del(g->flush);
	event_del(g->timer);
	if (g->wev != NULL)
		event_del(g->wev);
	relay_gate_unreserve(g);
}

/* The counted client address of a connection, for its share. */
void
relay_gate_set_addr(struct relay_gate *g, const struct relay_addr *a)
{
	g->addr = *a;
	g->has_addr = 1;
}

/* Drop the connection without flushing (a reader too slow to keep). */
void
relay_gate_abort(struct relay_gate *g)
{
	g->abort = 1;
}

/* At exit, before evhttp_free(): no more lingering; end what lingers. */
void
relay_gate_shutdown(void)
{
	struct relay_gate	*g;

	relay_gate_ending = 1;
	while ((g = TAILQ_FIRST(&relay_gate_lingering)) != NULL)
		relay_gate_linger_end(g);
}

static struct relay_gate *
relay_gate_of(struct evhttp_request *req)
{
	struct evhttp_connection	*evcon;
	struct relay_conn		*c;

	if ((evcon = evhttp_request_get_connection(req)) == NULL ||
	    (c = relay_conn_find(evcon)) == NULL)
		return NULL;
	c->gate->evcon = evcon;
	return c->gate;
}

/*
 * The dispatcher, before routing: 1 and the refusal when the gate refused
 * this request. Either way the gate reads on (or closes) once it is
 * answered; *gp is the gate, for relay_gate_release().
 */
int
relay_gate_refusal(struct evhttp_request *req, struct relay_gate **gp,
    struct relay_refusal *out)
{
	struct relay_gate	*g = relay_gate_of(req);

	*gp = g;
	if (g == NULL)
		return 0;
	evhttp_request_set_on_complete_cb(req, relay_gate_complete, g);
	if (!g->refused)
		return 0;
	*out = g->refusal;
	/*
	 * Say the connection closes where evhttp can close it safely (a
	 * plain socket, written to directly); with TLS the gate closes it
	 * once the answer is out (relay_gate_kickcb()).
	 */
	out->say_close = g->plain;
	return 1;
}

/*
 * The dispatcher, after the handler: the body was used, or copied into
 * the verify or write queue (relay_body_done() dropped evhttp's copy), so
 * its share of the budget goes back.
 */
void
relay_gate_release(struct relay_gate *g)
{
	if (g != NULL)
		relay_gate_unreserve(g);
}
