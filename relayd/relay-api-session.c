/*
 * relay-api-session.c: create a session, read and update its manifest,
 * close it, and the expiry sweep (protocol.md section 11).
 *
 * Every check of a manifest, certificate or close object is libairlox's;
 * the relay adds its own policy (creation token, owner keys, lifetimes,
 * counts) and only then queues a write.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/http.h>

#include "airlox.h"
#include "util/mono.h"
#include "util/log.h"
#include "relayd.h"

#define RELAY_MAX_OWNER_KEYS	4096

static uint8_t		(*relay_owner_keys)[ALX_SIGN_PK_LEN];
static size_t		  relay_nowner_keys;
static uint64_t		  relay_nsessions;

/* A write in flight and the request that waits for it. */
struct relay_wctx {
	struct relay_hold	 hold;
	struct relay_session	*s;
	int			 status;
	int			 flags;		/* RELAY_SUBMIT_* */
};

static struct relay_wctx *
relay_wctx_new(struct relay_req *r, struct relay_session *s, int status)
{
	struct relay_wctx	*w;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	if (relay_hold(r, &w->hold) != 0) {
		free(w);
		return NULL;
	}
	w->s = s;
	w->status = status;
	if (s != NULL)
		s->refs++;
	return w;
}

/* Common completion: answer {"cursor":N} (plus the sid on create). */
static void
relay_wctx_done(struct relay_wop *op, void *arg)
{
	struct relay_wctx	*w = arg;
	struct evhttp_request	*req = relay_release(&w->hold);
	struct alx_jw		 jw;
	struct relay_session	*s = w->s;

	if (op->result != 0) {
		if (req != NULL)
			relay_http_error(req, 0, op->result != ALX_ERR_REPLAYED ?
			    op->result : (w->flags & RELAY_SUBMIT_CLAIM) ?
			    ALX_ERR_CLAIMED : ALX_ERR_EXISTS, NULL);
		if (op->result != ALX_ERR_REPLAYED ||
		    !(w->flags & RELAY_SUBMIT_CLAIM))
			relay_session_write_failed(s, op->result);
	} else {
		relay_event_publish(s, op);
		if (req != NULL) {
			alx_jw_init(&jw, 1024);
			alx_jw_obj_begin(&jw);
			if (w->flags & RELAY_SUBMIT_SID) {
				alx_jw_kstr(&jw, "sid", s->sids);
				/* The relay's end of life for it (0: never). */
				alx_jw_kint(&jw, "expires",
				    (int64_t)s->rec.expires);
			}
			if (w->flags & RELAY_SUBMIT_VER)
				alx_jw_kint(&jw, "ver", (int64_t)s->rec.ver);
			alx_jw_kint(&jw, "cursor", (int64_t)op->cursor);
			alx_jw_obj_end(&jw);
			relay_http_jw(req, w->status, &jw);
		}
		if (w->flags & RELAY_SUBMIT_FORGET)
			relay_session_forget(s);
	}
	relay_session_unref(s);
	relay_wop_free(op);
	free(w);
}

/* Queue op for session s and answer r when it commits. */
int
relay_submit(struct relay_req *r, struct relay_session *s,
    struct relay_wop *op, int status, int flags)
{
	struct relay_wctx	*w;
	int			 rc;

	if ((w = relay_wctx_new(r, s, status)) == NULL) {
		relay_wop_free(op);
		return ALX_ERR_NOMEM;
	}
	w->flags = flags;
	op->done = relay_wctx_done;
	op->arg = w;
	if ((rc = relay_store_submit(relay.store, op)) != 0) {
		relay_release(&w->hold);
		relay_session_unref(s);
		relay_wop_free(op);
		free(w);
	}
	return rc;
}

static void
relay_publish_done(struct relay_wop *op, void *arg)
{
	struct relay_session	*s = arg;

	if (op->result == 0)
		relay_event_publish(s, op);
	else if (op->result != ALX_ERR_REPLAYED)
		relay_session_write_failed(s, op->result);
	relay_session_unref(s);
	relay_wop_free(op);
}

/* Queue op for session s with no one waiting; publish at commit. */
int
relay_submit_publish(struct relay_session *s, struct relay_wop *op)
{
	int	rc;

	op->done = relay_publish_done;
	op->arg = s;
	if ((rc = relay_store_submit(relay.store, op)) == 0)
		s->refs++;
	return rc;
}

/*
 * Writes are refused below the disk watermark, and when the store is
 * damaged (reads go on); a session whose records are damaged refuses
 * them in the store (relay-store.c).
 */
int
relay_write_allowed(void)
{
	int	rc;

	if ((rc = relay_write_allowed_reserved()) != 0)
		return rc;
	return relay_disk_ok() ? 0 : ALX_ERR_NO_SPACE;
}

/* A write into room set aside for it (a chunk): the watermark aside. */
int
relay_write_allowed_reserved(void)
{
	return relay_store_damaged(relay.store, NULL, NULL) != 0 ?
	    ALX_ERR_STORAGE : 0;
}

/*
 * --owner-keys: may this session be created? Its manifest's owner key is
 * listed, or the request is signed (protocol.md section 9) by a listed
 * key: the lasting identity of its owner (airlox identity), since a
 * session's own owner key is new with every session. 0, or the error.
 */
static int
relay_owner_allowed(struct relay_req *r, const uint8_t pk[ALX_SIGN_PK_LEN])
{
	struct alx_reqauth	 ra;
	const char		*hdr;
	uint8_t			 fp[ALX_FP_LEN];
	size_t			 i;
	int			 rc;

	if (relay_owner_keys == NULL)
		return 0;
	for (i = 0; i < relay_nowner_keys; i++)
		if (alx_ct_eq(relay_owner_keys[i], pk, ALX_SIGN_PK_LEN))
			return 0;
	if ((hdr = relay_http_header(r, "Authorization")) == NULL)
		return ALX_ERR_FORBIDDEN;
	if ((rc = alx_req_parse(&ra, hdr)) != 0)
		return rc;
	for (i = 0; i < relay_nowner_keys; i++) {
		alx_fingerprint(fp, relay_owner_keys[i], ALX_SIGN_PK_LEN);
		if (alx_ct_eq(fp, ra.fp, ALX_FP_LEN))
			return relay_auth(r, NULL, relay_owner_keys[i], NULL);
	}
	return ALX_ERR_FORBIDDEN;
}

/* --creation-token: compared in constant time. */
static int
relay_token_ok(struct relay_req *r)
{
	const char	*t;
	size_t		 n;

	if (relay_cfg.creation_token == NULL)
		return 1;
	if ((t = relay_http_header(r, "Airlox-Create-Token")) == NULL)
		return 0;
	n = strlen(relay_cfg.creation_token);
	return strlen(t) == n && alx_ct_eq(t, relay_cfg.creation_token, n);
}

/* Sessions created per client address per hour. */
static int
relay_create_quota(struct relay_req *r)
{
	struct relay_peer	*p;
	time_t			 now = time(NULL);

	if ((p = relay_peer_get(&r->client, 1)) == NULL)
		return ALX_ERR_NOMEM;
	if (now - p->hour_start >= 3600) {
		p->hour_start = now;
		p->hour_sessions = 0;
	}
	if (p->hour_sessions >= relay_cfg.sessions_per_hour)
		return ALX_ERR_RATE_LIMITED;
	p->hour_sessions++;
	p->last = mono_sec();
	return 0;
}

/*
 * 403 not_allowed for a lifetime over this relay's maximum; the reply names
 * the maximum ("max_lifetime", seconds) so a client can ask for it instead.
 */
static void
relay_session_too_long(struct relay_req *r, const char *why)
{
	struct alx_jw	jw;

	alx_jw_init(&jw, 256);
	alx_jw_obj_begin(&jw);
	alx_jw_kstr(&jw, "error", alx_errname(ALX_ERR_NOT_ALLOWED));
	alx_jw_kstr(&jw, "message", why);
	alx_jw_kint(&jw, "max_lifetime",
	    (int64_t)relay_cfg.max_session_lifetime);
	alx_jw_obj_end(&jw);
	relay_http_jw(r->req, 403, &jw);
}
static void
relay_session_create(struct relay_req *r)
{
	struct relay_session	*s, *known;
	struct relay_wop	*op;
	const uint8_t		*body;
	uint8_t			 sid[RELAY_SID_LEN], rec[RELAY_SREC_LEN];
	uint8_t			 mkey[RELAY_SID_LEN + 9], ekey[8 + RELAY_SID_LEN];
	uint64_t		 now = (uint64_t)time(NULL), expires;
	size_t			 len;
	int			 rc;

	if (!relay_token_ok(r)) {
		relay_http_fail(r, ALX_ERR_FORBIDDEN,
		    "this relay needs a creation token");
		return;
	}
	if ((rc = relay_write_allowed()) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	body = relay_body(r, &len);
	if (len > ALX_MANIFEST_BODY_MAX + 4096) {
		relay_http_fail(r, ALX_ERR_TOO_LARGE, NULL);
		return;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		relay_http_fail(r, ALX_ERR_NOMEM, NULL);
		return;
	}
	/* No anchor yet: libairlox derives the session id from version 1. */
	if ((rc = alx_manifest_open(&s->man, (const char *)body, len, NULL,
	    NULL)) != 0) {
		free(s);
		relay_http_fail(r, rc, "the manifest does not verify");
		return;
	}
	memcpy(sid, s->man.sid, RELAY_SID_LEN);
	if ((rc = relay_session_get(sid, &known)) != ALX_ERR_NOT_FOUND) {
		/* Known (live or ended); or the store cannot say (damage). */
		relay_session_free(s);
		relay_http_fail(r, rc == 0 || rc == ALX_ERR_SESSION_EXPIRED ?
		    ALX_ERR_EXISTS : rc, NULL);
		return;
	}
	if ((rc = relay_owner_allowed(r, s->man.owner_pk)) != 0) {
		relay_session_free(s);
		relay_http_fail(r, rc, rc == ALX_ERR_FORBIDDEN ? "this relay "
		    "creates sessions for the owners it lists only; sign with "
		    "a listed owner key" : NULL);
		return;
	}
	expires = (uint64_t)(s->man.expires > 0 ? s->man.expires : 0);
	if (expires == 0 && !relay_cfg.allow_no_expiry)
		expires = now + relay_cfg.session_lifetime;
	if (expires != 0 && expires <= now) {
		relay_session_free(s);
		relay_http_fail(r, ALX_ERR_EXPIRED, "the session has expired");
		return;
	}
	if (expires > now + relay_cfg.max_session_lifetime) {
		char	why[128];
		uint64_t max = relay_cfg.max_session_lifetime;

		relay_session_free(s);
		/* In the unit the operator most likely wrote it in. */
		snprintf(why, sizeof(why), "the lifetime exceeds this relay's "
		    "maximum of %llu%s", (unsigned long long)(max % 86400 == 0 ?
		    max / 86400 : max % 3600 == 0 ? max / 3600 : max),
		    max % 86400 == 0 ? "d" : max % 3600 == 0 ? "h" : " s");
		relay_session_too_long(r, why);
		return;
	}
	if (relay_nsessions >= relay_cfg.max_sessions) {
		relay_session_free(s);
		relay_http_error(r->req, 507, ALX_ERR_NO_SPACE,
		    "this relay holds its maximum number of sessions");
		return;
	}
	if ((rc = relay_create_quota(r)) != 0) {
		relay_session_free(s);
		evhttp_add_header(evhttp_request_get_output_headers(r->req),
		    "Retry-After", "3600");
		relay_http_fail(r, rc, "too many sessions from this address");
		return;
	}
	memcpy(s->sid, sid, RELAY_SID_LEN);
	alx_b64_encode(s->sids, sid, RELAY_SID_LEN);
	s->rec.created = now;
	s->rec.expires = expires;
	s->rec.ver = 1;
	s->rec.bytes = len;
	relay_srec_encode(&s->rec, rec);
	relay_manifest_key(mkey, sid, 1);
	relay_be64(ekey, expires);
	memcpy(ekey + 8, sid, RELAY_SID_LEN);
	op = relay_wop_new(NULL, NULL);
	if (op == NULL ||
	    relay_wop_add(op, RELAY_W_PUT_NEW, RELAY_DB_SESSIONS, sid,
	    RELAY_SID_LEN, rec, sizeof(rec)) != 0 ||
	    relay_wop_add(op, RELAY_W_PUT, RELAY_DB_SESSIONS, mkey,
	    sizeof(mkey), body, len) != 0 ||
	    (expires != 0 && relay_wop_add(op, RELAY_W_PUT, RELAY_DB_EXPIRY,
	    ekey, sizeof(ekey), "", 0) != 0) ||
	    relay_event_add(op, sid, NULL, "manifest", body, len) != 0) {
		relay_wop_free(op);
		relay_session_free(s);
		relay_http_fail(r, ALX_ERR_NOMEM, NULL);
		return;
	}
	/* Not in the cache until it is stored: forget() frees it then. */
	s->stale = 1;
	relay_nsessions++;
	if ((rc = relay_submit(r, s, op, 201,
	    RELAY_SUBMIT_FORGET | RELAY_SUBMIT_SID)) != 0) {
		relay_nsessions--;
		relay_http_fail(r, rc, NULL);
	}
	log_info("session %s: created by %s", s->sids, r->client_str);
}

struct relay_mlist {
	struct alx_jw	*jw;
};

static int
relay_mlist_cb(const uint8_t *key, size_t klen, const uint8_t *val,
    size_t vlen, void *arg)
{
	struct relay_mlist	*ml = arg;

	if (klen == RELAY_SID_LEN + 9)
		alx_jw_raw(ml->jw, (const char *)val, vlen);
	return 0;
}

static void
relay_manifest_get(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_mlist	 ml;
	struct alx_jw		 jw;
	uint8_t			 sid[RELAY_SID_LEN], prefix[RELAY_SID_LEN + 1];
	int			 rc;

	if ((rc = relay_sid_param(r, 0, sid)) != 0 ||
	    (rc = relay_session_get(sid, &s)) != 0) {
		relay_http_fail(r, rc == ALX_ERR_BAD_BASE64 ?
		    ALX_ERR_NOT_FOUND : rc, NULL);
		return;
	}
	alx_jw_init(&jw, (size_t)64 * 1024 * 1024);
	alx_jw_obj_begin(&jw);
	alx_jw_key(&jw, "manifests");
	alx_jw_arr_begin(&jw);
	memcpy(prefix, sid, RELAY_SID_LEN);
	prefix[RELAY_SID_LEN] = 'm';
	ml.jw = &jw;
	rc = relay_store_scan(relay.store, RELAY_DB_SESSIONS, prefix,
	    sizeof(prefix), relay_mlist_cb, &ml);
	alx_jw_arr_end(&jw);
	/* When the relay deletes the session (0: never), whatever it asked. */
	alx_jw_kint(&jw, "expires", (int64_t)s->rec.expires);
	alx_jw_obj_end(&jw);
	if (rc < 0) {
		alx_jw_free(&jw);
		relay_http_fail(r, rc, NULL);
		return;
	}
	relay_http_jw(r->req, 200, &jw);
}

/* The owner participant behind a signed request. */
static int
relay_owner_request(struct relay_req *r, struct relay_session **sp,
    struct relay_member **mp)
{
	int	rc;

	if ((rc = relay_session_request(r, sp, mp)) != 0)
		return rc;
	if ((*mp)->cert.role != ALX_ROLE_OWNER)
		return ALX_ERR_WRONG_ROLE;
	return 0;
}

static void
relay_manifest_put(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct relay_wop	*op;
	struct alx_manifest	 next;
	const uint8_t		*body;
	uint8_t			 mkey[RELAY_SID_LEN + 9], rec[RELAY_SREC_LEN];
	struct relay_srec	 nrec;
	size_t			 len;
	int			 rc;

	if ((rc = relay_owner_request(r, &s, &m)) != 0 ||
	    (rc = relay_write_allowed()) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	body = relay_body(r, &len);
	if ((rc = alx_manifest_open(&next, (const char *)body, len, s->sid,
	    &s->man)) != 0) {
		relay_http_fail(r, rc, "the manifest update does not verify");
		return;
	}
	nrec = s->rec;
	nrec.ver = (uint64_t)next.ver;
	alx_manifest_free(&next);
	nrec.bytes += len;
	relay_srec_encode(&nrec, rec);
	relay_manifest_key(mkey, s->sid, nrec.ver);
	op = relay_wop_new(NULL, NULL);
	if (op == NULL ||
	    relay_wop_add(op, RELAY_W_PUT_NEW, RELAY_DB_SESSIONS, mkey,
	    sizeof(mkey), body, len) != 0 ||
	    relay_wop_add(op, RELAY_W_PUT, RELAY_DB_SESSIONS, s->sid,
	    RELAY_SID_LEN, rec, sizeof(rec)) != 0 ||
	    relay_event_add(op, s->sid, NULL, "manifest", body, len) != 0) {
		relay_wop_free(op);
		relay_http_fail(r, ALX_ERR_NOMEM, NULL);
		return;
	}
	s->rec.ver = nrec.ver;	/* a second update of this version fails */
	/* Reloaded after the commit: every certificate checked again. */
	if ((rc = relay_submit(r, s, op, 200,
	    RELAY_SUBMIT_FORGET | RELAY_SUBMIT_VER)) != 0)
		relay_http_fail(r, rc, NULL);
}

static void
relay_delete_done(struct relay_wop *op, void *arg)
{
	if (op->result != 0)
		log_warnx("store: deleting a session failed: %s",
		    alx_errname(op->result));
	relay_session_deleting(op->steps[0].key, 0);
	relay_wop_free(op);
}

/* Delete everything of a session; streams get a "closed" event. */
static int
relay_session_delete(const uint8_t sid[RELAY_SID_LEN], uint64_t expires)
{
	struct relay_wop	*op;
	uint8_t			 ekey[8 + RELAY_SID_LEN];
	int			 rc;

	relay_be64(ekey, expires);
	memcpy(ekey + 8, sid, RELAY_SID_LEN);
	if ((op = relay_wop_new(relay_delete_done, NULL)) == NULL)
		return ALX_ERR_NOMEM;
	if ((rc = relay_wop_add(op, RELAY_W_DEL_SESSION, RELAY_DB_SESSIONS,
	    sid, RELAY_SID_LEN, NULL, 0)) != 0 ||
	    (rc = relay_wop_add(op, RELAY_W_DEL, RELAY_DB_EXPIRY, ekey,
	    sizeof(ekey), NULL, 0)) != 0 ||
	    (rc = relay_store_submit(relay.store, op)) != 0) {
		relay_wop_free(op);
		return rc;
	}
	relay_session_deleting(sid, 1);
	if (relay_nsessions > 0)
		relay_nsessions--;
	relay_stream_close_session(sid);
	return 0;
}

static void
relay_session_close(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct alx_notice	 n;
	struct alx_jw		 jw;
	const uint8_t		*body;
	size_t			 len;
	int			 rc;

	if ((rc = relay_owner_request(r, &s, &m)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	body = relay_body(r, &len);
	if ((rc = alx_notice_open(&n, (const char *)body, len, "close",
	    s->sid, m->cert.pk)) != 0) {
		relay_http_fail(r, rc, "the close object does not verify");
		return;
	}
	alx_notice_free(&n);
	if ((rc = relay_session_delete(s->sid, s->rec.expires)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	log_info("session %s: closed by its owner", s->sids);
	s->rec.closed = 1;
	relay_session_forget(s);
	alx_jw_init(&jw, 256);
	alx_jw_obj_begin(&jw);
	alx_jw_kbool(&jw, "closed", 1);
	alx_jw_obj_end(&jw);
	relay_http_jw(r->req, 200, &jw);
}

/* The cron's sweep: sessions past their end are deleted. */
struct relay_sweep {
	uint8_t		sids[64][RELAY_SID_LEN];
	uint64_t	when[64];
	unsigned	n;
};

static int
relay_sweep_cb(const uint8_t sid[RELAY_SID_LEN], uint64_t when, void *arg)
{
	struct relay_sweep	*sw = arg;

	if (sw->n >= 64)
		return 1;
	memcpy(sw->sids[sw->n], sid, RELAY_SID_LEN);
	sw->when[sw->n++] = when;
	return 0;
}

/*
 * Retention: in each session, item events beyond --retention-count or
 * older than --retention-age go, with their index entry, chunks and
 * receipts; manifest and join events stay (readers need them). The
 * session's trim point records the last cursor dropped, so a reader asking
 * for events after an older cursor is told plainly (410 cursor_gone).
 * A few sessions per sweep, round robin.
 */
#define RELAY_RETAIN_SESSIONS	16
#define RELAY_RETAIN_DROPS	64

struct relay_retain {
	uint8_t		 sid[RELAY_SID_LEN];
	uint64_t	 now;
	uint64_t	 nitems;	/* item events seen */
	uint64_t	 total;		/* item events in the session */
	uint64_t	 drop[RELAY_RETAIN_DROPS];
	uint8_t		 ids[RELAY_RETAIN_DROPS][ALX_ID_LEN];
	int		 ndrop;
	int		 counting;
};

static int
relay_retain_cb(uint64_t cursor, const uint8_t *val, size_t len, void *arg)
{
	struct relay_retain	*rt = arg;
	struct alx_signed	 so;
	struct alx_json		*j = NULL;
	uint64_t		 t;
	int			 old, rc;

	if (len < 14 || memcmp(val + 8, "item", 5) != 0)
		return 0;
	if (rt->counting) {
		rt->total++;
		return 0;
	}
	rt->nitems++;
	t = relay_get_be64(val);
	old = t + relay_cfg.retention_age < rt->now;
	if (!old && rt->total - rt->nitems + 1 <= relay_cfg.retention_count)
		return 1;	/* this one and the rest stay */
	if (rt->ndrop >= RELAY_RETAIN_DROPS)
		return 1;
	/* The id, from the stored (already verified) item body. */
	if ((rc = alx_signed_parse(&so, (const char *)val + 13,
	    len - 13)) != 0)
		return 0;
	rc = alx_json_parse(&j, (const char *)so.body, so.body_len, NULL);
	if (rc == 0)
		rc = alx_json_get_b64(j, 0, "id", rt->ids[rt->ndrop],
		    ALX_ID_LEN);
	alx_json_free(j);
	alx_signed_free(&so);
	if (rc == 0)
		rt->drop[rt->ndrop++] = cursor;
	return 0;
}

static void
relay_retain_session(const uint8_t *sid, uint64_t now)
{
	struct relay_session	*s;
	struct relay_retain	 rt;
	struct relay_wop	*op;
	uint8_t			 key[RELAY_SID_LEN + ALX_ID_LEN + 1];
	uint8_t			 rec[RELAY_SREC_LEN];
	int			 i, rc;

	if (relay_session_get(sid, &s) != 0)
		return;
	memset(&rt, 0, sizeof(rt));
	memcpy(rt.sid, sid, RELAY_SID_LEN);
	rt.now = now;
	rt.counting = 1;
	relay_store_items_after(relay.store, sid, 0, UINT32_MAX,
	    relay_retain_cb, &rt);
	rt.counting = 0;
	if (rt.total == 0)
		return;
	relay_store_items_after(relay.store, sid, 0, UINT32_MAX,
	    relay_retain_cb, &rt);
	for (i = 0; i < rt.ndrop; i++) {
		if ((op = relay_wop_new(NULL, NULL)) == NULL)
			return;
		memcpy(key, sid, RELAY_SID_LEN);
		relay_be64(key + RELAY_SID_LEN, rt.drop[i]);
		rc = relay_wop_add(op, RELAY_W_DEL, RELAY_DB_ITEMS, key,
		    RELAY_SID_LEN + 8, NULL, 0);
		memcpy(key + RELAY_SID_LEN, rt.ids[i], ALX_ID_LEN);
		key[RELAY_SID_LEN + ALX_ID_LEN] = 'c';
		if (rc == 0)
			rc = relay_wop_add(op, RELAY_W_DEL_PREFIX,
			    RELAY_DB_ITEMIDX, key, RELAY_SID_LEN + ALX_ID_LEN,
			    NULL, 0);
		if (rc == 0)
			rc = relay_wop_add(op, RELAY_W_DEL_PREFIX,
			    RELAY_DB_CHUNKS, key, RELAY_SID_LEN + ALX_ID_LEN,
			    NULL, 0);
		if (rc == 0)
			rc = relay_wop_add(op, RELAY_W_DEL_PREFIX,
			    RELAY_DB_RECEIPTS, key, RELAY_SID_LEN + ALX_ID_LEN,
			    NULL, 0);
		if (rc == 0 && rt.drop[i] > s->rec.trimmed) {
			s->rec.trimmed = rt.drop[i];
			relay_srec_encode(&s->rec, rec);
			rc = relay_wop_add(op, RELAY_W_PUT, RELAY_DB_SESSIONS,
			    sid, RELAY_SID_LEN, rec, sizeof(rec));
		}
		if (rc != 0 || relay_store_submit(relay.store, op) != 0) {
			relay_wop_free(op);
			return;
		}
	}
}

struct relay_retain_scan {
	uint8_t		 sids[RELAY_RETAIN_SESSIONS][RELAY_SID_LEN];
	int		 n;
	int		 skip;
};

static uint8_t	relay_retain_next[RELAY_SID_LEN];	/* round robin */

static int
relay_retain_scan_cb(const uint8_t *key, size_t klen, const uint8_t *val,
    size_t vlen, void *arg)
{
	struct relay_retain_scan	*sc = arg;

	if (klen != RELAY_SID_LEN)
		return 0;
	if (memcmp(key, relay_retain_next, RELAY_SID_LEN) < 0)
		return 0;
	memcpy(sc->sids[sc->n++], key, RELAY_SID_LEN);
	return sc->n >= RELAY_RETAIN_SESSIONS;
}

static void
relay_retention(uint64_t now)
{
	struct relay_retain_scan	sc;
	int				i;

	sc.n = 0;
	relay_store_scan(relay.store, RELAY_DB_SESSIONS, NULL, 0,
	    relay_retain_scan_cb, &sc);
	for (i = 0; i < sc.n; i++)
		relay_retain_session(sc.sids[i], now);
	/* Next time, after the last one seen; from the start at the end. */
	if (sc.n < RELAY_RETAIN_SESSIONS)
		memset(relay_retain_next, 0, sizeof(relay_retain_next));
	else {
		memcpy(relay_retain_next, sc.sids[sc.n - 1], RELAY_SID_LEN);
		for (i = RELAY_SID_LEN - 1; i >= 0 &&
		    ++relay_retain_next[i] == 0; i--)
			;
	}
}

static void
relay_sweep(uint64_t now, unsigned max)
{
	struct relay_sweep	 sw;
	unsigned		 i;
	char			 name[ALX_B64_ENCLEN(RELAY_SID_LEN) + 1];

	relay_codes_sweep(now);
	relay_retention(now);
	sw.n = 0;
	relay_store_expired(relay.store, now, max < 64 ? max : 64,
	    relay_sweep_cb, &sw);
	for (i = 0; i < sw.n; i++) {
		relay_session_drop_cached(sw.sids[i]);
		if (relay_session_delete(sw.sids[i], sw.when[i]) == 0) {
			alx_b64_encode(name, sw.sids[i], RELAY_SID_LEN);
			log_info("session %s: expired, data deleted", name);
		}
	}
}

static const struct relay_route relay_session_routes[] = {
	{ EVHTTP_REQ_POST, "/v1/sessions", relay_session_create, 0 },
	{ EVHTTP_REQ_GET, "/v1/sessions/:/manifest", relay_manifest_get, 0 },
	{ EVHTTP_REQ_PUT, "/v1/sessions/:/manifest", relay_manifest_put, 0 },
	{ EVHTTP_REQ_DELETE, "/v1/sessions/:", relay_session_close, 0 },
};

static int
relay_count_cb(const uint8_t *key, size_t klen, const uint8_t *val,
    size_t vlen, void *arg)
{
	if (klen == RELAY_SID_LEN)
		relay_nsessions++;
	return 0;
}

static int
relay_owner_keys_load(char **cause)
{
	FILE	*f;
	char	 line[256];
	size_t	 n;

	if (relay_cfg.owner_keys == NULL)
		return 0;
	if ((f = fopen(relay_cfg.owner_keys, "r")) == NULL) {
		relay_setcause(cause, "%s: %s", relay_cfg.owner_keys,
		    strerror(errno));
		return -1;
	}
	relay_owner_keys = calloc(RELAY_MAX_OWNER_KEYS, ALX_SIGN_PK_LEN);
	while (relay_owner_keys != NULL && fgets(line, sizeof(line), f)) {
		n = strcspn(line, " \t\r\n");
		if (n == 0 || line[0] == '#')
			continue;
		if (relay_nowner_keys >= RELAY_MAX_OWNER_KEYS ||
		    alx_b64_decode_exact(relay_owner_keys[relay_nowner_keys],
		    ALX_SIGN_PK_LEN, line, n) != 0) {
			relay_setcause(cause, "%s: not a base64url owner key: "
			    "%.*s", relay_cfg.owner_keys, (int)n, line);
			fclose(f);
			return -1;
		}
		relay_nowner_keys++;
	}
	fclose(f);
	log_info("sessions: %zu owner keys may create sessions",
	    relay_nowner_keys);
	return 0;
}

int
relay_api_session_init(char **cause)
{
	if (relay_owner_keys_load(cause) != 0)
		return -1;
	relay_nsessions = 0;
	relay_store_scan(relay.store, RELAY_DB_SESSIONS, NULL, 0,
	    relay_count_cb, NULL);
	relay_http_add_routes(relay_session_routes,
	    sizeof(relay_session_routes) / sizeof(relay_session_routes[0]));
	relay_cron_set_expire(relay_sweep);
	return 0;
}

void
relay_api_session_free(void)
{
	free(relay_owner_keys);
	relay_owner_keys = NULL;
	relay_nowner_keys = 0;
}
