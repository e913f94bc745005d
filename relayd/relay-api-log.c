/*
 * relay-api-log.c: the session's event log (protocol.md section 12):
 * GET .../log with long-polling, and GET .../stream as Server-Sent Events.
 *
 * Events are read from LMDB in short read transactions (copied out before
 * any socket write). A stream is sent what it has not seen: a subscriber
 * whose last id is behind the event being published is first caught up
 * from the store, so a stream never skips and never repeats an event.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <event2/http.h>

#include "airlox.h"
#include "util/log.h"
#include "relayd.h"

#define RELAY_LOG_LIMIT		100
#define RELAY_LOG_LIMIT_MAX	1000
#define RELAY_BACKFILL_BATCH	64

static int
relay_uint_param(struct relay_req *r, const char *name, uint64_t def,
    uint64_t max, uint64_t *out)
{
	char	*v;
	int	 rc;

	*out = def;
	if ((v = relay_http_query(r, name)) == NULL)
		return 0;
	rc = relay_path_uint(v, max, out);
	free(v);
	return rc;
}

/* A page of events as {"events":[...],"next":C}. */
struct relay_page {
	struct alx_jw	*jw;
	uint64_t	 next;
	int		 n;
};

static int
relay_page_cb(uint64_t cursor, const uint8_t *val, size_t len, void *arg)
{
	struct relay_page	*p = arg;
	int			 rc;

	if ((rc = relay_event_json(cursor, val, len, p->jw)) != 0)
		return rc;
	p->next = cursor;
	p->n++;
	return 0;
}

/* 200 with the events after `after`; 0 events: returns 0 and sends none. */
static int
relay_log_reply(struct evhttp_request *req, const uint8_t *sid,
    uint64_t after, uint64_t limit, int send_empty)
{
	struct relay_page	 p;
	struct alx_jw		 jw;
	int			 rc;

	alx_jw_init(&jw, (size_t)256 * 1024 * 1024);
	alx_jw_obj_begin(&jw);
	alx_jw_key(&jw, "events");
	alx_jw_arr_begin(&jw);
	p.jw = &jw;
	p.next = after;
	p.n = 0;
	rc = relay_store_items_after(relay.store, sid, after, (unsigned)limit,
	    relay_page_cb, &p);
	alx_jw_arr_end(&jw);
	alx_jw_kint(&jw, "next", (int64_t)p.next);
	alx_jw_obj_end(&jw);
	if (rc < 0) {
		alx_jw_free(&jw);
		relay_http_error(req, 0, rc, NULL);
		return 1;
	}
	if (p.n == 0 && !send_empty) {
		alx_jw_free(&jw);
		return 0;
	}
	relay_http_jw(req, 200, &jw);
	return 1;
}

/*
 * Retention dropped events up to the session's trim point: a reader
 * asking for what came after an older cursor has missed items, and is told
 * so (410 cursor_gone with the oldest cursor it can resume from). 1 when
 * answered.
 */
static int
relay_cursor_gone(struct relay_req *r, struct relay_session *s,
    uint64_t after)
{
	struct alx_jw	jw;

	if (s->rec.trimmed == 0 || after >= s->rec.trimmed)
		return 0;
	alx_jw_init(&jw, 512);
	alx_jw_obj_begin(&jw);
	alx_jw_kstr(&jw, "error", alx_errname(ALX_ERR_CURSOR_GONE));
	alx_jw_kstr(&jw, "message", "items after this cursor were dropped by "
	    "the relay's retention; resume from oldest");
	alx_jw_kint(&jw, "oldest", (int64_t)s->rec.trimmed + 1);
	alx_jw_obj_end(&jw);
	relay_http_jw(r->req, 410, &jw);
	return 1;
}

struct relay_logwait {
	uint64_t	after;
	uint64_t	limit;
};

static void
relay_log_woken(struct relay_poll *p, int how, void *arg)
{
	struct relay_logwait	*w = arg;

	if (how == 0) {
		/* Something new: answer with it (or keep the 200 empty). */
		relay_log_reply(p->req, p->sid, w->after, w->limit, 1);
	} else if (how == 1)
		evhttp_send_reply(p->req, 204, "No Content", NULL);
	free(w);
}

static void
relay_log_get(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct relay_logwait	*w;
	uint64_t		 after, limit, wait;
	int			 rc;

	if ((rc = relay_session_request(r, &s, &m)) != 0 ||
	    (rc = relay_uint_param(r, "after", 0, INT64_MAX, &after)) != 0 ||
	    (rc = relay_uint_param(r, "limit", RELAY_LOG_LIMIT,
	    RELAY_LOG_LIMIT_MAX, &limit)) != 0 ||
	    (rc = relay_uint_param(r, "wait", 0, 3600, &wait)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	if (limit == 0)
		limit = RELAY_LOG_LIMIT;
	if (relay_cursor_gone(r, s, after))
		return;
	if (relay_log_reply(r->req, s->sid, after, limit, wait == 0))
		return;
	/* Nothing newer: park until an event or the server timer. */
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		relay_http_fail(r, ALX_ERR_NOMEM, NULL);
		return;
	}
	w->after = after;
	w->limit = limit;
	if ((rc = relay_poll_park(r, s->sid, wait, relay_log_woken, w)) != 0) {
		free(w);
		relay_http_fail(r, rc, NULL);
	}
}

/*
 * Catch a stream up from the store. Events are copied out of the read
 * transaction first and sent after it ended: with TLS, queueing output can
 * write to the socket at once, and no read transaction may span that.
 */
struct relay_fill {
	uint64_t	 cursor[RELAY_BACKFILL_BATCH];
	char		*type[RELAY_BACKFILL_BATCH];
	char		*json[RELAY_BACKFILL_BATCH];
	size_t		 len[RELAY_BACKFILL_BATCH];
	int		 n;
};

static int
relay_fill_cb(uint64_t cursor, const uint8_t *val, size_t len, void *arg)
{
	struct relay_fill	*f = arg;
	struct alx_jw		 jw;
	int			 rc;

	alx_jw_init(&jw, len + 256);
	if ((rc = relay_event_json(cursor, val, len, &jw)) != 0 ||
	    (rc = alx_jw_finish(&jw, &f->json[f->n], &f->len[f->n])) != 0) {
		alx_jw_free(&jw);
		return rc;
	}
	alx_jw_free(&jw);
	if ((f->type[f->n] = strdup((const char *)val + 8)) == NULL) {
		free(f->json[f->n]);
		return ALX_ERR_NOMEM;
	}
	f->cursor[f->n++] = cursor;
	return 0;
}

/* 0, or -1 when the subscriber was dropped (it is freed then). */
static int
relay_stream_fill(struct relay_sse *sse, uint64_t upto)
{
	struct relay_fill	f;
	int			i, n, dropped = 0;

	do {
		f.n = 0;
		n = relay_store_items_after(relay.store, sse->sid, sse->cursor,
		    RELAY_BACKFILL_BATCH, relay_fill_cb, &f);
		for (i = 0; i < f.n; i++) {
			if (!dropped && relay_sse_send(sse, f.cursor[i],
			    f.type[i], f.json[i], f.len[i]) != 0)
				dropped = 1;
			free(f.type[i]);
			free(f.json[i]);
		}
	} while (!dropped && n == RELAY_BACKFILL_BATCH && f.n > 0 &&
	    f.cursor[f.n - 1] < upto);
	return dropped ? -1 : 0;
}

/*
 * One new event, encoded once (JSON, then the SSE frame) for every
 * subscriber that is caught up; each gets a copy of the same bytes.
 */
struct relay_pub {
	uint64_t	 cursor;
	char		*frame;
	size_t		 len;
};

static void
relay_stream_one(struct relay_sse *sse, void *arg)
{
	struct relay_pub	*p = arg;

	if (p->frame != NULL && sse->cursor + 1 == p->cursor)
		(void)relay_sse_send_frame(sse, p->cursor, p->frame, p->len);
	else if (sse->cursor < p->cursor)
		relay_stream_fill(sse, p->cursor);	/* behind: catch up */
}

/*
 * {"cursor":N,"type":T,"data":D} for an event this process has just
 * committed: the head by the JSON writer, D spliced in as it is. D was
 * parsed and checked by libairlox before it was committed, so it is not
 * parsed once more for every event (alx_jw_raw would); events read back
 * from the store still go through relay_event_json().
 */
static int
relay_event_json_fresh(uint64_t cursor, const char *type, const uint8_t *d,
    size_t dlen, char **out, size_t *outlen)
{
	struct alx_jw	 jw;
	char		*head = NULL, *json = NULL;
	size_t		 hlen = 0, n = 0;
	int		 rc;

	alx_jw_init(&jw, 256);
	alx_jw_obj_begin(&jw);
	alx_jw_kint(&jw, "cursor", (int64_t)cursor);
	alx_jw_kstr(&jw, "type", type);
	alx_jw_obj_end(&jw);
	rc = alx_jw_finish(&jw, &head, &hlen);
	alx_jw_free(&jw);
	if (rc == 0 && (dlen == 0 || hlen < 2 || head[hlen - 1] != '}'))
		rc = ALX_ERR_INVALID;
	if (rc == 0 && (json = malloc(hlen + 8 + dlen)) == NULL)
		rc = ALX_ERR_NOMEM;
	if (rc == 0) {
		memcpy(json, head, hlen - 1);	/* without its '}' */
		n = hlen - 1;
		memcpy(json + n, ",\"data\":", 8);
		n += 8;
		memcpy(json + n, d, dlen);
		n += dlen;
		json[n++] = '}';
		*out = json;
		*outlen = n;
	}
	free(head);
	return rc;
}

void
relay_stream_publish(const uint8_t *sid, uint64_t cursor,
    const uint8_t *val, size_t len)
{
	struct relay_pub	 p;
	const uint8_t		*nul;
	const char		*type;
	char			*json = NULL;
	size_t			 jlen = 0;

	memset(&p, 0, sizeof(p));
	p.cursor = cursor;
	/* The stored event: 8 bytes, its type and a NUL, then its data. */
	if (len > 8 && (nul = memchr(val + 8, '\0', len - 8)) != NULL) {
		type = (const char *)val + 8;
		if (relay_event_json_fresh(cursor, type, nul + 1,
		    len - (size_t)(nul + 1 - val), &json, &jlen) == 0 &&
		    relay_sse_frame(cursor, type, json, jlen, &p.frame,
		    &p.len) != 0)
			p.frame = NULL;
		free(json);
	}
	/* Without a frame, every subscriber catches up from the store. */
	relay_sse_foreach(sid, relay_stream_one, &p);
	free(p.frame);
}

static void
relay_stream_end_one(struct relay_sse *sse, void *arg)
{
	static const char	data[] = "{\"type\":\"closed\"}";

	if (relay_sse_send(sse, sse->cursor + 1, "closed", data,
	    sizeof(data) - 1) == 0)
		relay_sse_end(sse);
}

/* The session is closed or expired: tell its streams and end them. */
void
relay_stream_close_session(const uint8_t *sid)
{
	relay_sse_foreach(sid, relay_stream_end_one, NULL);
}

static void
relay_stream_get(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct relay_sse	*sse;
	uint64_t		 after = 0;
	const char		*h;
	int			 rc;

	if ((rc = relay_session_request(r, &s, &m)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	/* Resume: the Last-Event-ID header, or ?last_event_id=. */
	if ((h = relay_http_header(r, "Last-Event-ID")) != NULL) {
		if (relay_path_uint(h, INT64_MAX, &after) != 0) {
			relay_http_fail(r, ALX_ERR_INVALID,
			    "Last-Event-ID is not a cursor");
			return;
		}
	} else if ((rc = relay_uint_param(r, "last_event_id", 0, INT64_MAX,
	    &after)) != 0) {
		relay_http_fail(r, rc, "last_event_id is not a cursor");
		return;
	}
	if (relay_cursor_gone(r, s, after))
		return;
	if ((sse = relay_sse_start(r, s->sid, after, NULL, NULL)) == NULL)
		return;
	relay_stream_fill(sse, UINT64_MAX);
}

static const struct relay_route relay_log_routes[] = {
	{ EVHTTP_REQ_GET, "/v1/sessions/:/log", relay_log_get, 0 },
	{ EVHTTP_REQ_GET, "/v1/sessions/:/stream", relay_stream_get, 0 },
};

void
relay_api_log_init(void)
{
	relay_http_add_routes(relay_log_routes,
	    sizeof(relay_log_routes) / sizeof(relay_log_routes[0]));
}
