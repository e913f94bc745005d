/*
 * relay-session.c: sessions as the relay keeps them.
 *
 * In LMDB (relay-store.h), every key starts with the session id:
 *   SESSIONS      sid                 -> record (be64 fields, below)
 *   SESSIONS      sid 'm' be64(ver)   -> manifest object, verbatim
 *   PARTICIPANTS  sid fp              -> be64 last seq, last item hash,
 *                                        certificate object, verbatim
 *   ITEMS         sid be64(cursor)    -> event: be64 time, type NUL data
 *   ITEMIDX       sid id              -> be64(cursor) of the item event
 *   CHUNKS        sid id be32(i)      -> chunk ciphertext
 *   RECEIPTS      sid id fp           -> be64 time of the first fetch
 * In memory, a cache of opened sessions: the current manifest (opened,
 * chain checked, by libairlox), the record, and the members with their
 * certificates (opened against the current manifest by libairlox; a
 * member whose certificate no longer holds is not loaded). A failed write
 * marks the session stale so it is read again from the store.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/http.h>

#include "airlox.h"
#include "util/log.h"
#include "relayd.h"

#define RELAY_SESS_BUCKETS	1024

static struct relay_session	*relay_sess_tab[RELAY_SESS_BUCKETS];
static unsigned			 relay_nsess;

/*
 * Sessions whose deletion is queued but not committed: a request in that
 * window must not read the session back from the store and write to it
 * (its keys would outlive the deletion).
 */
struct relay_deleting {
	uint8_t			 sid[RELAY_SID_LEN];
	struct relay_deleting	*next;
};
static struct relay_deleting	*relay_deleting;

void
relay_session_deleting(const uint8_t *sid, int on)
{
	struct relay_deleting	**pp, *d;

	if (on) {
		if ((d = calloc(1, sizeof(*d))) == NULL)
			return;
		memcpy(d->sid, sid, RELAY_SID_LEN);
		d->next = relay_deleting;
		relay_deleting = d;
		return;
	}
	for (pp = &relay_deleting; (d = *pp) != NULL; pp = &d->next) {
		if (memcmp(d->sid, sid, RELAY_SID_LEN) == 0) {
			*pp = d->next;
			free(d);
			return;
		}
	}
}

static int
relay_session_is_deleting(const uint8_t *sid)
{
	struct relay_deleting	*d;

	for (d = relay_deleting; d != NULL; d = d->next)
		if (memcmp(d->sid, sid, RELAY_SID_LEN) == 0)
			return 1;
	return 0;
}

static unsigned
relay_sess_bucket(const uint8_t *sid)
{
	return ((unsigned)sid[0] | (unsigned)sid[1] << 8) % RELAY_SESS_BUCKETS;
}

/* The record: seven be64 fields. */
void
relay_srec_encode(const struct relay_srec *r, uint8_t *out)
{
	relay_be64(out, r->created);
	relay_be64(out + 8, r->expires);
	relay_be64(out + 16, r->ver);
	relay_be64(out + 24, r->bytes);
	relay_be64(out + 32, r->transfer);
	relay_be64(out + 40, r->nparts);
	relay_be64(out + 48, r->closed);
	relay_be64(out + 56, r->trimmed);
}

static int
relay_srec_decode(struct relay_srec *r, const uint8_t *in, size_t len)
{
	if (len != RELAY_SREC_LEN)
		return ALX_ERR_STORAGE;
	r->created = relay_get_be64(in);
	r->expires = relay_get_be64(in + 8);
	r->ver = relay_get_be64(in + 16);
	r->bytes = relay_get_be64(in + 24);
	r->transfer = relay_get_be64(in + 32);
	r->nparts = relay_get_be64(in + 40);
	r->closed = relay_get_be64(in + 48);
	r->trimmed = relay_get_be64(in + 56);
	return 0;
}

/* Manifest key: sid 'm' be64(ver). */
void
relay_manifest_key(uint8_t *key, const uint8_t *sid,
    uint64_t ver)
{
	memcpy(key, sid, RELAY_SID_LEN);
	key[RELAY_SID_LEN] = 'm';
	relay_be64(key + RELAY_SID_LEN + 1, ver);
}

static void
relay_member_free(struct relay_member *m)
{
	alx_cert_free(&m->cert);
	free(m);
}

void
relay_session_free(struct relay_session *s)
{
	struct relay_member	*m;

	while ((m = s->members) != NULL) {
		s->members = m->next;
		relay_member_free(m);
	}
	alx_manifest_free(&s->man);
	free(s);
}

/* Drop a session from the cache (it is read again on next use). */
void
relay_session_forget(struct relay_session *s)
{
	struct relay_session	**pp;

	for (pp = &relay_sess_tab[relay_sess_bucket(s->sid)]; *pp != NULL;
	    pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			relay_nsess--;
			break;
		}
	}
	if (s->refs > 0)
		s->stale = 1;	/* freed when the last user lets go */
	else
		relay_session_free(s);
}

void
relay_session_unref(struct relay_session *s)
{
	if (--s->refs == 0 && s->stale)
		relay_session_free(s);
}

struct relay_load {
	struct relay_session	*s;
	int			 err;
};

static int
relay_load_manifest(const uint8_t *key, size_t klen, const uint8_t *val,
    size_t vlen, void *arg)
{
	struct relay_load	*l = arg;
	struct alx_manifest	 next;
	int			 first = l->s->man.ver == 0;

	if (klen != RELAY_SID_LEN + 9)
		return 0;
	l->err = alx_manifest_open(&next, (const char *)val, vlen, l->s->sid,
	    first ? NULL : &l->s->man);
	if (l->err != 0)
		return l->err;
	alx_manifest_free(&l->s->man);
	l->s->man = next;
	return 0;
}

static int
relay_load_member(const uint8_t *key, size_t klen, const uint8_t *val,
    size_t vlen, void *arg)
{
	struct relay_load	*l = arg;
	struct relay_member	*m;

	if (klen != RELAY_SID_LEN + ALX_FP_LEN || vlen <= 8 + ALX_HASH_LEN)
		return 0;
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return ALX_ERR_NOMEM;
	/* A certificate that no longer holds leaves its member out. */
	if (alx_cert_open(&m->cert, (const char *)val + 8 + ALX_HASH_LEN,
	    vlen - 8 - ALX_HASH_LEN, &l->s->man) != 0) {
		free(m);
		return 0;
	}
	m->last_seq = (int64_t)relay_get_be64(val);
	memcpy(m->last_hash, val + 8, ALX_HASH_LEN);
	memcpy(m->fp, key + RELAY_SID_LEN, ALX_FP_LEN);
	m->next = l->s->members;
	l->s->members = m;
	return 0;
}

static int
relay_session_load(const uint8_t *sid,
    struct relay_session **out)
{
	struct relay_session	*s;
	struct relay_load	 l;
	struct alx_buf		 b;
	uint8_t			 mprefix[RELAY_SID_LEN + 1];
	int			 rc;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return ALX_ERR_NOMEM;
	memcpy(s->sid, sid, RELAY_SID_LEN);
	alx_b64_encode(s->sids, sid, RELAY_SID_LEN);
	alx_buf_init(&b, 1024);
	rc = relay_store_get(relay.store, RELAY_DB_SESSIONS, sid,
	    RELAY_SID_LEN, &b);
	if (rc == 0)
		rc = relay_srec_decode(&s->rec, b.data, b.len);
	alx_buf_free(&b);
	if (rc != 0) {
		free(s);
		return rc;
	}
	l.s = s;
	l.err = 0;
	memcpy(mprefix, sid, RELAY_SID_LEN);
	mprefix[RELAY_SID_LEN] = 'm';
	rc = relay_store_scan(relay.store, RELAY_DB_SESSIONS, mprefix,
	    sizeof(mprefix), relay_load_manifest, &l);
	if (rc < 0 || s->man.ver == 0) {
		log_warnx("session %s: stored manifest chain does not open: "
		    "%s", s->sids, alx_errname(rc < 0 ? rc : l.err));
		relay_session_free(s);
		return ALX_ERR_STORAGE;
	}
	rc = relay_store_scan(relay.store, RELAY_DB_PARTICIPANTS, sid,
	    RELAY_SID_LEN, relay_load_member, &l);
	if (rc < 0) {
		relay_session_free(s);
		return rc;
	}
	if ((rc = relay_store_last_cursor(relay.store, sid,
	    &s->last_cursor)) != 0) {
		relay_session_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void
relay_session_insert(struct relay_session *s)
{
	unsigned	h = relay_sess_bucket(s->sid);

	s->next = relay_sess_tab[h];
	relay_sess_tab[h] = s;
	relay_nsess++;
}

/* The session, loaded if needed; not_found, or session_expired. */
int
relay_session_get(const uint8_t *sid,
    struct relay_session **out)
{
	struct relay_session	*s;
	int			 rc;

	*out = NULL;
	if (relay_session_is_deleting(sid))
		return ALX_ERR_SESSION_EXPIRED;
	for (s = relay_sess_tab[relay_sess_bucket(sid)]; s != NULL;
	    s = s->next)
		if (memcmp(s->sid, sid, RELAY_SID_LEN) == 0)
			break;
	if (s == NULL) {
		if ((rc = relay_session_load(sid, &s)) != 0)
			return rc;
		relay_session_insert(s);
	}
	if (s->rec.closed || (s->rec.expires != 0 &&
	    s->rec.expires <= relay_expiry_now()))
		return ALX_ERR_SESSION_EXPIRED;
	*out = s;
	return 0;
}

struct relay_member *
relay_member_find(struct relay_session *s, const uint8_t *fp)
{
	struct relay_member	*m;

	for (m = s->members; m != NULL; m = m->next)
		if (memcmp(m->fp, fp, ALX_FP_LEN) == 0)
			return m;
	return NULL;
}

/* The session id from a path parameter (canonical base64url only). */
int
relay_sid_param(struct relay_req *r, int i, uint8_t *sid)
{
	if (i >= r->nparams)
		return ALX_ERR_INVALID;
	return alx_b64_decode_exact(sid, RELAY_SID_LEN, r->params[i],
	    strlen(r->params[i]));
}

/* An item or job id from a path parameter; not_found when malformed. */
int
relay_id_param(struct relay_req *r, int i, uint8_t *id)
{
	if (i >= r->nparams || alx_b64_decode_exact(id, ALX_ID_LEN,
	    r->params[i], strlen(r->params[i])) != 0)
		return ALX_ERR_NOT_FOUND;
	return 0;
}

/* The session in the path and the member who signed the request. */
int
relay_session_request(struct relay_req *r, struct relay_session **sp,
    struct relay_member **mp)
{
	uint8_t	sid[RELAY_SID_LEN];
	int	rc;

	if (relay_sid_param(r, 0, sid) != 0)
		return ALX_ERR_NOT_FOUND;
	if ((rc = relay_session_get(sid, sp)) != 0)
		return rc;
	return relay_auth(r, *sp, NULL, mp);
}

int
relay_transfer_take(struct relay_session *s, uint64_t n)
{
	if (n > relay_cfg.max_transfer ||
	    s->rec.transfer > relay_cfg.max_transfer - n)
		return ALX_ERR_NOT_ALLOWED;
	/* Kept with the session's record at its next write. */
	s->rec.transfer += n;
	return 0;
}

/* The request body as bytes (evhttp bounded it by --max-body-size). */
const uint8_t *
relay_body(struct relay_req *r, size_t *len)
{
	struct evbuffer	*b = evhttp_request_get_input_buffer(r->req);
	static const uint8_t	empty[1];

	*len = evbuffer_get_length(b);
	if (*len == 0)
		return empty;
	return evbuffer_pullup(b, -1);
}

/* The body was copied: evhttp's copy goes now, not with the request. */
void
relay_body_done(struct relay_req *r)
{
	struct evbuffer	*b = evhttp_request_get_input_buffer(r->req);

	evbuffer_drain(b, evbuffer_get_length(b));
}

/*
 * A signed request (protocol.md section 9): the member it names, checked
 * by libairlox against the host, method, path and query, body and time;
 * the host must be one of this relay's names (relay-host.c).
 * `pk` may name a key that is not a member yet (joining); then *mp is NULL.
 * Item posts carry none: the item's own signature authenticates them
 * (relay-api-items.c).
 */
int
relay_auth(struct relay_req *r, struct relay_session *s,
    const uint8_t *pk, struct relay_member **mp)
{
	struct alx_reqauth	 ra;
	struct relay_member	*m = NULL;
	const char		*hdr, *host, *uri = evhttp_request_get_uri(r->req);
	char			*qauth = NULL, *signed_uri = NULL;
	const uint8_t		*body;
	uint8_t			 bh[ALX_HASH_LEN];
	size_t			 len;
	int			 rc;

	if (mp != NULL)
		*mp = NULL;
	if ((host = relay_host_signed(r)) == NULL)
		return ALX_ERR_INVALID;
	/* Signed for another relay's name: it was not made for us. */
	if (!relay_host_ours(r, host))
		return ALX_ERR_BAD_SIGNATURE;
	/*
	 * EventSource cannot set headers: the same value may come as the
	 * last query parameter, ?auth= or &auth=; the signature then covers
	 * the path and query before it.
	 */
	if ((hdr = relay_http_header(r, "Authorization")) == NULL) {
		if ((rc = relay_query_auth(uri, &signed_uri, &qauth)) != 0)
			return rc;
		uri = signed_uri;
		hdr = qauth;
	}
	if ((rc = alx_req_parse(&ra, hdr)) != 0)
		goto out;
	if (pk == NULL) {
		rc = ALX_ERR_NOT_PARTICIPANT;
		if (s == NULL || (m = relay_member_find(s, ra.fp)) == NULL) {
			/* On damaged storage its record may be what is lost. */
			if (s != NULL && relay_store_damaged(relay.store, NULL,
			    NULL) != 0)
				rc = ALX_ERR_STORAGE;
			goto out;
		}
		/* A later manifest may have revoked it or rotated its role. */
		if ((rc = alx_cert_valid(&m->cert, &s->man)) != 0)
			goto out;
		pk = m->cert.pk;
	}
	body = relay_body(r, &len);
	alx_sha256(bh, body, len);
	rc = alx_req_verify(&ra, pk, host, relay_method_name(r->method), uri,
	    bh, (int64_t)time(NULL));
	if (rc == 0 && mp != NULL)
		*mp = m;
out:
	free(qauth);
	free(signed_uri);
	return rc;
}

/* Queue an event for the session's log; the cursor comes at commit. */
int
relay_event_add(struct relay_wop *op, const uint8_t *sid,
    const uint8_t *id, const char *type, const void *data, size_t len)
{
	uint8_t	 key[RELAY_SID_LEN + ALX_ID_LEN], *val;
	size_t	 tl = strlen(type);

	memcpy(key, sid, RELAY_SID_LEN);
	if (id != NULL)
		memcpy(key + RELAY_SID_LEN, id, ALX_ID_LEN);
	if ((val = malloc(8 + tl + 1 + len)) == NULL)
		return ALX_ERR_NOMEM;
	relay_be64(val, (uint64_t)time(NULL));	/* for retention by age */
	memcpy(val + 8, type, tl + 1);
	memcpy(val + 8 + tl + 1, data, len);
	return relay_wop_add_take(op, RELAY_W_APPEND_ITEM, RELAY_DB_ITEMS, key,
	    RELAY_SID_LEN + (id != NULL ? ALX_ID_LEN : 0), val,
	    8 + tl + 1 + len);
}

/* An event as JSON: {"cursor":N,"type":T,"data":D}. */
int
relay_event_json(uint64_t cursor, const uint8_t *val, size_t len,
    struct alx_jw *jw)
{
	const uint8_t	*nul;

	if (len < 9 || (nul = memchr(val + 8, '\0', len - 8)) == NULL)
		return ALX_ERR_STORAGE;
	alx_jw_obj_begin(jw);
	alx_jw_kint(jw, "cursor", (int64_t)cursor);
	alx_jw_kstr(jw, "type", (const char *)val + 8);
	alx_jw_key(jw, "data");
	alx_jw_raw(jw, (const char *)nul + 1, len - (size_t)(nul + 1 - val));
	alx_jw_obj_end(jw);
	/* Stored data that is not JSON: the relay's fault. */
	if (jw->err != 0 && jw->err != ALX_ERR_NOMEM &&
	    jw->err != ALX_ERR_TOO_LARGE)
		return ALX_ERR_STORAGE;
	return jw->err;
}

/* After a commit: the new event goes to streams and parked polls. */
void
relay_event_publish(struct relay_session *s, const struct relay_wop *op)
{
	int	i;

	for (i = 0; i < op->nsteps; i++) {
		if (op->steps[i].kind != RELAY_W_APPEND_ITEM)
			continue;
		if (op->cursor > s->last_cursor)
			s->last_cursor = op->cursor;
		relay_stream_publish(s->sid, op->cursor, op->steps[i].val,
		    op->steps[i].vallen);
	}
	relay_poll_wake(s->sid);
}

/* A write's completion found the request gone, or a failure. */
void
relay_session_write_failed(struct relay_session *s, int err)
{
	log_warnx("session %s: write failed: %s", s->sids, alx_errname(err));
	relay_session_forget(s);
}

void
relay_session_free_all(void)
{
	struct relay_session	*s;
	unsigned		 i;

	while (relay_deleting != NULL)
		relay_session_deleting(relay_deleting->sid, 0);
	for (i = 0; i < RELAY_SESS_BUCKETS; i++) {
		while ((s = relay_sess_tab[i]) != NULL) {
			relay_sess_tab[i] = s->next;
			relay_session_free(s);
		}
	}
	relay_nsess = 0;
}

void
relay_session_drop_cached(const uint8_t *sid)
{
	struct relay_session	*s;

	for (s = relay_sess_tab[relay_sess_bucket(sid)]; s != NULL;
	    s = s->next)
		if (memcmp(s->sid, sid, RELAY_SID_LEN) == 0)
			break;
	if (s != NULL)
		relay_session_forget(s);
}
