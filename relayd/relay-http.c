/*
 * relay-http.c: the HTTP front: limits, client address, request rate,
 * the route table, and JSON replies.
 *
 * Every reply the relay makes itself is JSON; errors are
 * {"error": CODE, "message": TEXT} with CODE an alx_errname(). evhttp 2.1.12
 * answers a few malformed requests itself with its own HTML page and no
 * hook: a body over --max-body-size (413), an unparsable request line
 * (400), and headers over its own cap (400, since 2.1.12 reports oversized
 * headers as invalid ones). So evhttp's header cap is set to four times
 * --max-header-size and the relay measures the headers itself: between the
 * two, the answer is our JSON 413; only beyond four times is it evhttp's
 * 400. EVHTTP_SERVER_LINGERING_CLOSE makes evhttp read and drop an
 * oversized body before answering, so the client sees the 413 instead of a
 * connection reset.
 */
#include "config.h"

#include <sys/socket.h>
#include <netinet/in.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "airlox.h"
#include "util/mono.h"
#include "util/log.h"
#include "relayd.h"

#define RELAY_MAX_ROUTES	64
#define RELAY_ALL_METHODS	(EVHTTP_REQ_GET | EVHTTP_REQ_POST | \
	EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE | \
	EVHTTP_REQ_OPTIONS | EVHTTP_REQ_PATCH)

static struct relay_route	 relay_routes[RELAY_MAX_ROUTES];
static size_t			 relay_nroutes;

static const struct {
	int	err;
	int	status;
} relay_status_map[] = {
	{ ALX_ERR_NOT_FOUND,		404 },
	{ ALX_ERR_BAD_METHOD,		405 },
	{ ALX_ERR_TOO_LARGE,		413 },
	{ ALX_ERR_RATE_LIMITED,		429 },
	{ ALX_ERR_NO_SPACE,		507 },
	{ ALX_ERR_TOO_MANY_CONNS,	503 },
	{ ALX_ERR_NOT_READY,		503 },
	{ ALX_ERR_SESSION_EXPIRED,	410 },
	{ ALX_ERR_EXPIRED,		410 },
	{ ALX_ERR_FORBIDDEN,		403 },
	{ ALX_ERR_WRONG_ROLE,		403 },
	{ ALX_ERR_REVOKED,		403 },
	{ ALX_ERR_NOT_ALLOWED,		403 },
	{ ALX_ERR_NOT_RECIPIENT,	403 },
	{ ALX_ERR_BAD_SIGNATURE,	401 },
	{ ALX_ERR_NOT_SIGNED,		401 },
	{ ALX_ERR_UNKNOWN_KEY,		401 },
	{ ALX_ERR_CLOCK_SKEW,		401 },
	{ ALX_ERR_REPLAYED,		409 },
	{ ALX_ERR_ORDER,		409 },
	{ ALX_ERR_RUNNER_BUSY,		409 },
	{ ALX_ERR_NOT_PARTICIPANT,	403 },
	{ ALX_ERR_STALE_MANIFEST,	409 },
	{ ALX_ERR_CURSOR_GONE,		410 },
	{ ALX_ERR_CLAIMED,		409 },
	{ ALX_ERR_EXISTS,		409 },
	{ ALX_ERR_CHUNK_PENDING,	409 },
	{ ALX_ERR_TOO_MANY_FAILS,	429 },
	{ ALX_ERR_NOMEM,		503 },
	{ ALX_ERR_IO,			500 },
	{ ALX_ERR_STORAGE,		500 },
	{ ALX_ERR_CRYPTO,		500 },
};

int
relay_http_status_for(int err)
{
	size_t	i;

	for (i = 0; i < sizeof(relay_status_map) / sizeof(relay_status_map[0]);
	    i++)
		if (relay_status_map[i].err == err)
			return relay_status_map[i].status;
	return 400;
}

static const char *
relay_http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 204: return "No Content";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 409: return "Conflict";
	case 410: return "Gone";
	case 411: return "Length Required";
	case 413: return "Content Too Large";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	case 507: return "Insufficient Storage";
	default: return "Error";
	}
}

void
relay_http_json(struct evhttp_request *req, int status, const char *json,
    size_t len)
{
	struct evkeyvalq	*h = evhttp_request_get_output_headers(req);
	struct evbuffer		*b;

	evhttp_add_header(h, "Content-Type", "application/json");
	evhttp_add_header(h, "Cache-Control", "no-store");
	evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
	if ((b = evbuffer_new()) == NULL) {
		evhttp_send_error(req, 503, NULL);
		return;
	}
	if (evhttp_request_get_command(req) != EVHTTP_REQ_HEAD)
		evbuffer_add(b, json, len);
	evhttp_send_reply(req, status, relay_http_reason(status), b);
	evbuffer_free(b);
}

/*
 * Refused requests: one line each at info (5xx failures of the relay's own
 * at warn), at most RELAY_REFUSE_BURST a minute, and every minute a count
 * by status of all of them (relay_http_refusal_summary(), from the cron).
 * A line names the method, the endpoint's pattern (never the path itself,
 * which a confused client could fill with an invite), the client address
 * and the answer; never a header, query or body.
 */
#define RELAY_REFUSE_BURST	10
#define RELAY_REFUSE_MIN	400
#define RELAY_REFUSE_MAX	600

static unsigned		 relay_refused[RELAY_REFUSE_MAX - RELAY_REFUSE_MIN];
static unsigned		 relay_refused_total, relay_refused_logged;

static const char	*relay_http_route_name(struct evhttp_request *);
static void		 relay_http_client(struct relay_req *);

static void
relay_http_log_refusal(struct evhttp_request *req, int status, int err)
{
	struct relay_req	 r;

	if (status < RELAY_REFUSE_MIN || status >= RELAY_REFUSE_MAX)
		return;
	relay_refused[status - RELAY_REFUSE_MIN]++;
	relay_refused_total++;
	if (relay_refused_logged >= RELAY_REFUSE_BURST)
		return;			/* counted for the summary only */
	relay_refused_logged++;
	memset(&r, 0, sizeof(r));
	r.req = req;
	relay_http_client(&r);
	if (status >= 500 && status != 503 && status != 507)
		log_warnx("http: failed %s %s from %s: %d %s",
		    relay_method_name(evhttp_request_get_command(req)),
		    relay_http_route_name(req), r.client_str, status,
		    alx_errname(err));
	else
		log_info("http: refused %s %s from %s: %d %s",
		    relay_method_name(evhttp_request_get_command(req)),
		    relay_http_route_name(req), r.client_str, status,
		    alx_errname(err));
}

/* From the cron, once a minute: how many were refused, by status. */
void
relay_http_refusal_summary(void)
{
	char	buf[512];
	size_t	n = 0;
	int	i;

	if (relay_refused_total > relay_refused_logged) {
		buf[0] = '\0';
		for (i = 0; i < RELAY_REFUSE_MAX - RELAY_REFUSE_MIN &&
		    n < sizeof(buf) - 32; i++)
			if (relay_refused[i] > 0)
				n += (size_t)snprintf(buf + n, sizeof(buf) - n,
				    " %d:%u", i + RELAY_REFUSE_MIN,
				    relay_refused[i]);
		log_info("http: %u requests refused in the last minute, %u "
		    "of them logged; by status:%s", relay_refused_total,
		    relay_refused_logged, buf);
	}
	memset(relay_refused, 0, sizeof(relay_refused));
	relay_refused_total = relay_refused_logged = 0;
}

void
relay_http_error(struct evhttp_request *req, int status, int err,
    const char *msg)
{
	struct alx_jw	 jw;
	char		*out = NULL;
	size_t		 len = 0;

	if (status == 0)
		status = relay_http_status_for(err);
	relay_http_log_refusal(req, status, err);
	/* A full queue (back-pressure): come back in a second. */
	if (status == 503 && err == ALX_ERR_NOT_READY &&
	    evhttp_find_header(evhttp_request_get_output_headers(req),
	    "Retry-After") == NULL)
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Retry-After", "1");
	alx_jw_init(&jw, 4096);
	alx_jw_obj_begin(&jw);
	alx_jw_kstr(&jw, "error", alx_errname(err));
	alx_jw_kstr(&jw, "message", msg != NULL ? msg : alx_strerror(err));
	if (err == ALX_ERR_CLOCK_SKEW)
		alx_jw_kint(&jw, "server_time", (int64_t)time(NULL));
	alx_jw_obj_end(&jw);
	if (alx_jw_finish(&jw, &out, &len) != 0) {
		alx_jw_free(&jw);
		evhttp_send_error(req, status, NULL);
		return;
	}
	alx_jw_free(&jw);
	relay_http_json(req, status, out, len);
	free(out);
}

const char *
relay_http_header(struct relay_req *r, const char *name)
{
	return evhttp_find_header(evhttp_request_get_input_headers(r->req),
	    name);
}

/* A query parameter (decoded, caller frees) or NULL. */
char *
relay_http_query(struct relay_req *r, const char *name)
{
	return relay_query_get(r->query, name);
}

/*
 * X-Forwarded-For from a trusted proxy: each proxy appends the address it
 * saw, so the list is read from the right, passing over addresses that
 * are trusted proxies themselves (a chain of them); the first one that is
 * not is the client. An entry that is not an address ends the walk (what
 * was found so far stands; nothing found: the socket's peer).
 */
#define RELAY_XFF_MAX	32

static void
relay_http_xff(struct relay_req *r, const char *xff)
{
	const char	*end = xff + strlen(xff), *p, *s;
	char		 one[INET6_ADDRSTRLEN + 1], found[INET6_ADDRSTRLEN + 1];
	uint8_t		 ip[16];
	size_t		 n;
	int		 i;

	found[0] = '\0';
	for (i = 0; i < RELAY_XFF_MAX && end > xff; i++) {
		for (p = end; p > xff && p[-1] != ','; p--)
			;
		for (s = p; s < end && (*s == ' ' || *s == '\t'); s++)
			;
		n = strcspn(s, " \t,");
		if (n == 0 || n >= sizeof(one))
			break;
		memcpy(one, s, n);
		one[n] = '\0';
		if (relay_ip_parse(ip, one) != 0)
			break;
		memcpy(found, one, n + 1);
		if (!relay_proxy_trusted(ip))
			break;
		end = p > xff ? p - 1 : xff;
	}
	if (found[0] != '\0')
		relay_addr_parse(&r->client, found);
}

/*
 * X-Forwarded-Host from a trusted proxy: its last entry, the host the
 * nearest proxy was asked for (relay-host.c); too long: none.
 */
static void
relay_http_xfh(struct relay_req *r, const char *xfh)
{
	const char	*p = strrchr(xfh, ',');
	size_t		 n;

	p = p != NULL ? p + 1 : xfh;
	p += strspn(p, " \t");
	n = strcspn(p, " \t");
	if (n > 0 && n < sizeof(r->fwd_host)) {
		memcpy(r->fwd_host, p, n);
		r->fwd_host[n] = '\0';
	}
}

/* The client: the socket's peer, or X-Forwarded-For from --trust-proxy. */
static void
relay_http_client(struct relay_req *r)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(r->req);
	const struct sockaddr	*sa;
	struct evkeyval		*kv;
	const char		*xff = NULL, *xfh = NULL;
	uint8_t			 ip[16];

	memset(&r->client, 0, sizeof(r->client));
	r->via_proxy = 0;
	r->fwd_host[0] = '\0';
	if (evcon == NULL ||
	    (sa = evhttp_connection_get_addr(evcon)) == NULL ||
	    relay_addr_from_sa(&r->client, sa) != 0)
		return;
	if (relay_ip_from_sa(ip, sa) == 0 && relay_proxy_trusted(ip)) {
		r->via_proxy = 1;
		/* Several headers: the last, which the nearest proxy added. */
		TAILQ_FOREACH(kv, evhttp_request_get_input_headers(r->req),
		    next) {
			if (strcasecmp(kv->key, "X-Forwarded-For") == 0)
				xff = kv->value;
			if (strcasecmp(kv->key, "X-Forwarded-Host") == 0)
				xfh = kv->value;
		}
		if (xff != NULL)
			relay_http_xff(r, xff);
		if (xfh != NULL)
			relay_http_xfh(r, xfh);
	}
	relay_addr_str(&r->client, r->client_str, sizeof(r->client_str));
}

/* Request line and headers, as they came (near enough: CRLFs counted). */
static size_t
relay_http_header_size(struct evhttp_request *req)
{
	struct evkeyval	*kv;
	size_t		 n = strlen(evhttp_request_get_uri(req)) + 16;

	TAILQ_FOREACH(kv, evhttp_request_get_input_headers(req), next)
		n += strlen(kv->key) + strlen(kv->value) + 4;
	return n;
}

/* Token bucket per client address: 0 to go on, or seconds to wait. */
static int
relay_http_ratelimit(struct relay_req *r)
{
	struct relay_peer	*p;
	double			 now = relay_rate_now(), rate, burst;

	rate = (double)relay_cfg.rate_limit;
	burst = rate * 2;
	if ((p = relay_peer_get(&r->client, 1)) == NULL)
		return 1;
	if (p->tokens < 0)
		p->tokens = burst;
	else
		p->tokens = fmin(burst, p->tokens + (now - p->refill) * rate);
	p->refill = now;
	p->last = mono_sec();	/* for the idle sweep */
	if (p->tokens >= 1) {
		p->tokens -= 1;
		return 0;
	}
	return (int)ceil((1 - p->tokens) / rate);
}

static void
relay_req_clear(struct relay_req *r)
{
	relay_path_params_free(r->params, &r->nparams);
}

static void
relay_http_allow(struct evhttp_request *req, int methods)
{
	static const struct {
		int		 m;
		const char	*name;
	} names[] = {
		{ EVHTTP_REQ_GET, "GET" }, { EVHTTP_REQ_HEAD, "HEAD" },
		{ EVHTTP_REQ_POST, "POST" }, { EVHTTP_REQ_PUT, "PUT" },
		{ EVHTTP_REQ_DELETE, "DELETE" }, { EVHTTP_REQ_PATCH, "PATCH" },
		{ EVHTTP_REQ_OPTIONS, "OPTIONS" },
	};
	char	buf[64];
	size_t	i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(methods & names[i].m) || n >= sizeof(buf))
			continue;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
		    n > 0 ? ", " : "", names[i].name);
	}
	evhttp_add_header(evhttp_request_get_output_headers(req), "Allow",
	    buf);
}

/* Match "/a/:/c" against a path; ':' segments become params. */
static int
relay_route_match(const char *pat, const char *path, struct relay_req *r)
{
	return relay_path_match(pat, path, r->params, &r->nparams);
}

/* The pattern of the endpoint a request asked for, for the log. */
static const char *
relay_http_route_name(struct evhttp_request *req)
{
	const struct evhttp_uri	*uri = evhttp_request_get_evhttp_uri(req);
	struct relay_req	 r;
	const char		*name = "(no such endpoint)";
	char			*path;
	size_t			 i, plen;

	if (uri == NULL || evhttp_uri_get_path(uri) == NULL ||
	    (path = evhttp_uridecode(evhttp_uri_get_path(uri), 0, &plen)) ==
	    NULL)
		return "(no path)";
	memset(&r, 0, sizeof(r));
	for (i = 0; i < relay_nroutes; i++) {
		if (relay_route_match(relay_routes[i].pattern, path, &r)) {
			name = relay_routes[i].pattern;
			break;
		}
	}
	relay_req_clear(&r);
	free(path);
	return name;
}

/* The gate refused the request before evhttp read its body. */
static void
relay_http_refuse(struct evhttp_request *req, const struct relay_refusal *rf)
{
	struct evkeyvalq	*h = evhttp_request_get_output_headers(req);

	if (rf->say_close)
		evhttp_add_header(h, "Connection", "close");
	relay_http_error(req, rf->status, rf->err, rf->msg);
}

static void
relay_http_route(struct evhttp_request *req)
{
	struct relay_req	 r;
	const struct evhttp_uri	*uri = evhttp_request_get_evhttp_uri(req);
	const struct relay_route *rt, *found = NULL;
	char			*path = NULL, ra[16];
	size_t			 i;
	int			 wait, allow = 0;

	memset(&r, 0, sizeof(r));
	r.req = req;
	r.method = evhttp_request_get_command(req);
	relay_http_client(&r);
	if (relay_http_header_size(req) > relay_cfg.max_header_size) {
		relay_http_error(req, 413, ALX_ERR_TOO_LARGE,
		    "request headers too large");
		return;
	}
	if (uri == NULL || evhttp_uri_get_path(uri) == NULL) {
		relay_http_error(req, 400, ALX_ERR_INVALID, "bad request URI");
		return;
	}
	if (relay_path_decode(evhttp_uri_get_path(uri), &path) != 0) {
		relay_http_error(req, 400, ALX_ERR_BAD_PATH, "bad path");
		return;
	}
	r.path = path;
	r.query = evhttp_uri_get_query(uri);
	for (i = 0; i < relay_nroutes; i++) {
		rt = &relay_routes[i];
		if (!relay_route_match(rt->pattern, path, &r))
			continue;
		allow |= rt->methods;
		if (found == NULL && (rt->methods & r.method))
			found = rt;
		else
			relay_req_clear(&r);
	}
	if (found != NULL) {
		/* The params of the route found: match it once more. */
		relay_req_clear(&r);
		relay_route_match(found->pattern, path, &r);
	}
	if ((found == NULL || !(found->flags & RELAY_ROUTE_NO_RATELIMIT)) &&
	    (wait = relay_http_ratelimit(&r)) > 0) {
		snprintf(ra, sizeof(ra), "%d", wait);
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Retry-After", ra);
		relay_http_error(req, 429, ALX_ERR_RATE_LIMITED, NULL);
	} else if (found == NULL && allow != 0) {
		relay_http_allow(req, allow);
		relay_http_error(req, 405, ALX_ERR_BAD_METHOD, NULL);
	} else if (found == NULL)
		relay_http_error(req, 404, ALX_ERR_NOT_FOUND,
		    "no such endpoint");
	else if (relay.stopping &&
	    !(found->flags & RELAY_ROUTE_NO_RATELIMIT)) {
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Connection", "close");
		relay_http_error(req, 503, ALX_ERR_NOT_READY,
		    "the relay is shutting down");
	} else
		found->handler(&r);
	relay_req_clear(&r);
	free(path);
}

static void
relay_http_dispatch(struct evhttp_request *req, void *arg)
{
	struct relay_refusal	 rf;
	struct relay_gate	*g;

	if (relay_gate_refusal(req, &g, &rf)) {
		relay_http_refuse(req, &rf);
		return;
	}
	/* The handler may free req (a dropped stream); g stays valid. */
	relay_http_route(req);
	relay_gate_release(g);
}

void
relay_http_add_routes(const struct relay_route *routes, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (relay_nroutes >= RELAY_MAX_ROUTES)
			fatalx("http: too many routes");
		relay_routes[relay_nroutes++] = routes[i];
	}
}

int
relay_http_init(struct event_base *base, struct evhttp **out, char **cause)
{
	struct evhttp	*http;

	if ((http = evhttp_new(base)) == NULL) {
		relay_setcause(cause, "evhttp_new failed");
		return -1;
	}
	evhttp_set_max_headers_size(http,
	    (ev_ssize_t)relay_cfg.max_header_size * 4);
	evhttp_set_max_body_size(http, (ev_ssize_t)relay_cfg.max_body_size);
	/*
	 * No evhttp_set_timeout(): evhttp would set --timeout on its
	 * bufferevent, the gate's filter, whose timers libevent 2.1 can add
	 * back while the filter is being freed; the gate sets it on the
	 * socket's bufferevent under the filter instead (relay-gate.c).
	 */
	evhttp_set_allowed_methods(http, RELAY_ALL_METHODS);
	evhttp_set_default_content_type(http, "application/json");
	evhttp_set_flags(http, EVHTTP_SERVER_LINGERING_CLOSE);
	evhttp_set_bevcb(http, relay_conn_bevcb, NULL);
	evhttp_set_gencb(http, relay_http_dispatch, NULL);
	if (relay_proxy_init(cause) != 0)
		return -1;
	*out = http;
	return 0;
}

const char *
relay_method_name(int m)
{
	switch (m) {
	case EVHTTP_REQ_GET: return "GET";
	case EVHTTP_REQ_POST: return "POST";
	case EVHTTP_REQ_HEAD: return "HEAD";
	case EVHTTP_REQ_PUT: return "PUT";
	case EVHTTP_REQ_DELETE: return "DELETE";
	case EVHTTP_REQ_OPTIONS: return "OPTIONS";
	case EVHTTP_REQ_PATCH: return "PATCH";
	default: return "UNKNOWN";
	}
}

/* An error with its HTTP status from the code. */
void
relay_http_fail(struct relay_req *r, int err, const char *msg)
{
	relay_http_error(r->req, relay_http_status_for(err), err, msg);
}

/* Finish a JSON writer and send it (500 when it failed). */
void
relay_http_jw(struct evhttp_request *req, int status, struct alx_jw *jw)
{
	char	*out = NULL;
	size_t	 len = 0;
	int	 rc;

	if ((rc = alx_jw_finish(jw, &out, &len)) != 0) {
		alx_jw_free(jw);
		relay_http_error(req, 500, rc, "cannot build the reply");
		return;
	}
	alx_jw_free(jw);
	relay_http_json(req, status, out, len);
	free(out);
}

static void
relay_hold_closed(struct relay_conn *c, void *arg)
{
	struct relay_hold	*h = arg;

	h->req = NULL;		/* evhttp frees it with the connection */
	h->conn = NULL;
}

int
relay_hold(struct relay_req *r, struct relay_hold *h)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(r->req);

	h->req = r->req;
	if (evcon == NULL || (h->conn = relay_conn_find(evcon)) == NULL)
		return ALX_ERR_NOT_READY;
	relay_conn_set_close(h->conn, relay_hold_closed, h);
	return 0;
}

struct evhttp_request *
relay_release(struct relay_hold *h)
{
	if (h->conn != NULL)
		relay_conn_set_close(h->conn, NULL, NULL);
	h->conn = NULL;
	return h->req;
}
