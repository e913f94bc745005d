/*
 * relay-api-items.c: joining, items, chunks and delivery receipts
 * (protocol.md sections 5, 7 and 11).
 *
 * Order of checks for a write: the request signature and the signer's
 * certificate against the current manifest, then the object itself (all by
 * libairlox), then the relay's transport limits, and only then a write is
 * queued: no byte is stored before every check passed. An item post is the
 * exception to the first step: it carries no request signature, the item's
 * own signature authenticates it (relay_item_post() below).
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

/* Bytes a payload-less result may go past a full session (see below). */
#define RELAY_RESULT_OVERDRAFT	(256 * 1024)

/* The member record: be64 last seq, last hash, the certificate object. */
static int
relay_member_record(struct relay_wop *op, const uint8_t sid[RELAY_SID_LEN],
    const struct relay_member *m, int kind)
{
	uint8_t	 key[RELAY_SID_LEN + ALX_FP_LEN], *val;
	size_t	 len = 8 + ALX_HASH_LEN + m->cert.obj.raw_len;

	if ((val = malloc(len)) == NULL)
		return ALX_ERR_NOMEM;
	relay_be64(val, (uint64_t)m->last_seq);
	memcpy(val + 8, m->last_hash, ALX_HASH_LEN);
	memcpy(val + 8 + ALX_HASH_LEN, m->cert.obj.raw, m->cert.obj.raw_len);
	memcpy(key, sid, RELAY_SID_LEN);
	memcpy(key + RELAY_SID_LEN, m->fp, ALX_FP_LEN);
	return relay_wop_add_take(op, kind, RELAY_DB_PARTICIPANTS, key,
	    sizeof(key), val, len);
}

static int
relay_srec_step(struct relay_wop *op, struct relay_session *s)
{
	uint8_t	rec[RELAY_SREC_LEN];

	relay_srec_encode(&s->rec, rec);
	return relay_wop_add(op, RELAY_W_PUT, RELAY_DB_SESSIONS, s->sid,
	    RELAY_SID_LEN, rec, sizeof(rec));
}

static void
relay_join(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct relay_wop	*op;
	const uint8_t		*body;
	uint8_t			 sid[RELAY_SID_LEN];
	size_t			 len;
	int			 rc;

	if (relay_sid_param(r, 0, sid) != 0) {
		relay_http_fail(r, ALX_ERR_NOT_FOUND, NULL);
		return;
	}
	if ((rc = relay_session_get(sid, &s)) != 0 ||
	    (rc = relay_write_allowed()) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	if ((m = calloc(1, sizeof(*m))) == NULL) {
		relay_http_fail(r, ALX_ERR_NOMEM, NULL);
		return;
	}
	body = relay_body(r, &len);
	/* The certificate against the manifest, then the request by its key. */
	if ((rc = alx_cert_open(&m->cert, (const char *)body, len,
	    &s->man)) != 0 || (rc = relay_auth(r, s, m->cert.pk, NULL)) != 0) {
		alx_cert_free(&m->cert);
		free(m);
		relay_http_fail(r, rc, NULL);
		return;
	}
	memcpy(m->fp, m->cert.fp, ALX_FP_LEN);
	if (relay_member_find(s, m->fp) != NULL) {
		rc = ALX_ERR_EXISTS;
	} else if (s->rec.nparts >= relay_cfg.max_participants ||
	    (s->rec.nparts >= ALX_MAX_LIST)) {
		rc = ALX_ERR_NOT_ALLOWED;
	}
	if (rc != 0) {
		alx_cert_free(&m->cert);
		free(m);
		relay_http_fail(r, rc, rc == ALX_ERR_NOT_ALLOWED ?
		    "the session has its maximum of participants" : NULL);
		return;
	}
	s->rec.nparts++;
	s->rec.bytes += len;
	op = relay_wop_new(NULL, NULL);
	if (op == NULL || relay_member_record(op, s->sid, m,
	    RELAY_W_PUT_NEW) != 0 || relay_srec_step(op, s) != 0 ||
	    relay_event_add(op, s->sid, NULL, "join", body, len) != 0) {
		relay_wop_free(op);
		alx_cert_free(&m->cert);
		free(m);
		relay_session_forget(s);
		relay_http_fail(r, ALX_ERR_NOMEM, NULL);
		return;
	}
	/* A member at once: its next requests queue behind this write. */
	m->next = s->members;
	s->members = m;
	if ((rc = relay_submit(r, s, op, 201, 0)) != 0) {
		relay_session_forget(s);
		relay_http_fail(r, rc, NULL);
	}
}

static void
relay_participants(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct alx_jw		 jw;
	int			 rc;

	if ((rc = relay_session_request(r, &s, &m)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	alx_jw_init(&jw, (size_t)16 * 1024 * 1024);
	alx_jw_obj_begin(&jw);
	alx_jw_key(&jw, "participants");
	alx_jw_arr_begin(&jw);
	/* Each with its newest item, so a stateless client can go on. */
	for (m = s->members; m != NULL; m = m->next) {
		alx_jw_obj_begin(&jw);
		alx_jw_key(&jw, "cert");
		alx_jw_raw(&jw, m->cert.obj.raw, m->cert.obj.raw_len);
		alx_jw_kint(&jw, "last_seq", m->last_seq);
		if (m->last_seq > 0)
			alx_jw_kb64(&jw, "last_hash", m->last_hash,
			    sizeof(m->last_hash));
		alx_jw_obj_end(&jw);
	}
	alx_jw_arr_end(&jw);
	alx_jw_obj_end(&jw);
	relay_http_jw(r->req, 200, &jw);
}

static int	relay_item_load(struct relay_session *,
		    const uint8_t id[ALX_ID_LEN], uint64_t *, struct alx_item *,
		    struct alx_buf *);

/*
 * What the item may do (libairlox's alx_item_check_rules(): the
 * permission matrix, a job's wraps, who answers or cancels a job), with
 * the relay's records of the job it answers. A job posted before the
 * relay kept its wraps apart has them read from its item.
 */
static int
relay_item_rules(struct relay_session *s, const struct relay_member *m,
    const struct alx_item *it)
{
	struct alx_jobref	 ref, *refp = NULL;
	struct alx_item		 job;
	struct alx_buf		 raw;
	uint8_t			*fps = NULL, (*jfps)[ALX_FP_LEN] = NULL;
	uint64_t		 cursor;
	int			 rc, wraps_known = 1;

#ifdef RELAY_TEST
	if (relay_test_lax_roles())	/* a hostile relay, for tests */
		return 0;
#endif
	if (!it->has_job && alx_item_answers_job(it) && it->has_reply_to) {
		rc = relay_jobs_ref(s, it->reply_to, &ref, &fps, &wraps_known);
		if (rc != 0 && rc != ALX_ERR_NOT_FOUND)
			return rc;
		if (rc == 0)
			refp = &ref;
	}
	if (refp != NULL && !wraps_known) {
		memset(&job, 0, sizeof(job));
		alx_buf_init(&raw, 4096);
		if ((rc = relay_item_load(s, it->reply_to, &cursor, &job,
		    &raw)) == 0 && (rc = alx_job_wrap_fps(&job, &jfps,
		    &ref.nrunners)) == 0)
			ref.runners = (const uint8_t (*)[ALX_FP_LEN])jfps;
		alx_item_free(&job);
		alx_buf_free(&raw);
		if (rc != 0) {
			free(fps);
			return rc;
		}
	}
	rc = alx_item_check_rules(&s->man, &m->cert, it, refp);
	free(fps);
	free(jfps);
	return rc;
}

/* A message that says which rule an item broke. */
static const char *
relay_item_why(const struct alx_item *it, int rc)
{
	switch (rc) {
	case ALX_ERR_TOO_LARGE:
		return "the item exceeds the item or session size limit";
	case ALX_ERR_NOT_RECIPIENT:
		return it->has_job ? "a job's key must be wrapped to the owner" :
		    "only a runner the job was given to (and, for a label job, "
		    "the one that claimed it) answers it";
	case ALX_ERR_CLAIMED:
		return "another runner claimed this job";
	case ALX_ERR_EXISTS:
		return "the job has its result already";
	case ALX_ERR_NOT_FOUND:
		return "its reply_to names no job of this session";
	case ALX_ERR_WRONG_ROLE:
		return strcmp(it->kind, "cancel") == 0 ? "only the job's author "
		    "or the owner cancels it" : NULL;
	case ALX_ERR_NOT_ALLOWED:
		return it->has_job ? "a job's key is wrapped to the owner and "
		    "to participants' keys only" : NULL;
	}
	return NULL;
}

/* The disk space an item's chunks will need (relay-store.c). */
static int64_t
relay_item_promise(const struct alx_item *it)
{
	uint64_t	n = 0, left, len;
	size_t		i;

	left = it->size > 0 ? (uint64_t)it->size : 0;
	for (i = 0; i < it->nchunks; i++) {
		len = left < ALX_CHUNK_SIZE ? left : ALX_CHUNK_SIZE;
		left -= len;
		n += relay_store_chunk_need((size_t)len + ALX_TAG_LEN);
	}
	return (int64_t)n;
}

/*
 * The checks after the signatures, on the loop: what the item may do,
 * manifest version, the author's chain, the size and transfer limits;
 * then the write.
 */
static void
relay_item_accept(struct relay_req *r, struct relay_session *s,
    struct relay_member *m, struct alx_item *it, const uint8_t *body,
    size_t len)
{
	struct relay_wop	*op;
	const char		*why = NULL;
	uint64_t		 item_max, session_max, need;
	int			 rc;

	if (it->mv != s->man.ver) {
		rc = ALX_ERR_STALE_MANIFEST;
		goto fail;
	}
	if ((rc = alx_item_check_chain(it, m->last_seq,
	    m->last_seq > 0 ? m->last_hash : NULL)) != 0)
		goto fail;
	if ((rc = relay_item_rules(s, m, it)) != 0)
		goto fail;
	item_max = relay_cfg.max_item_size;
	if (s->man.item_max > 0 && (uint64_t)s->man.item_max < item_max)
		item_max = (uint64_t)s->man.item_max;
	session_max = relay_cfg.max_session_size;
	if (s->man.session_max > 0 &&
	    (uint64_t)s->man.session_max < session_max)
		session_max = (uint64_t)s->man.session_max;
	need = (uint64_t)it->size + it->nchunks * ALX_TAG_LEN + len;
	/*
	 * A result without payload may go a little past the session's size:
	 * a session that filled up (a job's output, say) still hears how its
	 * jobs ended, and a runner's slot is freed.
	 */
	if ((uint64_t)it->size > item_max || s->rec.bytes + need >
	    session_max + (strcmp(it->kind, "result") == 0 && it->size == 0 ?
	    RELAY_RESULT_OVERDRAFT : 0)) {
		rc = ALX_ERR_TOO_LARGE;
		goto fail;
	}
	if (need > relay_cfg.max_transfer ||
	    s->rec.transfer > relay_cfg.max_transfer - need) {
		rc = ALX_ERR_NOT_ALLOWED;
		why = RELAY_TRANSFER_WHY;
		goto fail;
	}
	if ((rc = relay_store_room(relay.store, len)) != 0)
		goto fail;
	if ((op = relay_wop_new(NULL, NULL)) == NULL) {
		rc = ALX_ERR_NOMEM;
		goto fail;
	}
	/* Jobs: a busy named runner refuses now; results free a slot. */
	if ((strcmp(it->kind, "job") == 0 &&
	    (rc = relay_jobs_on_post(s, it, op)) != 0) ||
	    (strcmp(it->kind, "result") == 0 &&
	    (rc = relay_jobs_on_result(s, it, op)) != 0)) {
		relay_wop_free(op);
		goto fail;
	}
	/* Its chunks' room on disk, kept for them from this write on. */
	op->promise = relay_item_promise(it);
	/* Accepted: advance the author's chain and the counters. */
	m->last_seq = it->seq;
	memcpy(m->last_hash, it->hash, ALX_HASH_LEN);
	s->rec.bytes += need;
	s->rec.transfer += need;	/* checked above */
	if (relay_member_record(op, s->sid, m, RELAY_W_PUT) != 0 ||
	    relay_srec_step(op, s) != 0 ||
	    relay_event_add(op, s->sid, it->id, "item", body, len) != 0) {
		relay_wop_free(op);
		relay_session_forget(s);
		rc = ALX_ERR_NOMEM;
		goto fail;
	}
	if ((rc = relay_submit(r, s, op, 201, 0)) != 0) {
		relay_session_forget(s);
		relay_http_fail(r, rc, NULL);
	}
	return;
fail:
	relay_http_fail(r, rc, why != NULL ? why : relay_item_why(it, rc));
}

/*
 * POST .../items: the session on the loop; the item's signature and its
 * decoding on a verify worker (relay-verify.c); the rest on the loop again,
 * in arrival order. The item is its own authentication (protocol.md
 * section 11): it is signed by its author, and the relay refuses a
 * repeated or out-of-order one by the author's chain, so a request
 * signature would add a second Ed25519 check and nothing else; the relay
 * does not read one. The worker checks the signature with the key the
 * object names; back on the loop, that key must be the key of a current
 * participant's certificate (constant-time compare) before anything else
 * is looked at. Nothing is queued for the store before every check passed.
 */
struct relay_post {
	struct relay_vjob	 job;
	struct relay_hold	 hold;
	uint8_t			 sid[RELAY_SID_LEN];
	uint8_t			 pk[ALX_SIGN_PK_LEN];	/* the key it names */
	uint8_t			*body;
	size_t			 len;
	struct alx_item		 it;
};

static void
relay_post_free(struct relay_post *p)
{
	alx_item_free(&p->it);
	free(p->body);
	free(p);
}

/* On a worker: only the job's own copies are touched. */
static int
relay_post_work(struct relay_vjob *j)
{
	struct relay_post	*p = (struct relay_post *)j;

	return alx_item_open_claimed(&p->it, (const char *)p->body, p->len,
	    p->sid, p->pk);
}

/* Back on the loop: the session may have changed while we verified. */
static void
relay_post_done(struct relay_vjob *j)
{
	struct relay_post	*p = (struct relay_post *)j;
	struct relay_req	 r;
	struct relay_session	*s;
	struct relay_member	*m;
	int			 rc;

	memset(&r, 0, sizeof(r));
	/* The client left: it had no answer, so nothing is stored. */
	if ((r.req = relay_release(&p->hold)) == NULL)
		goto out;
	if ((rc = j->result) != 0) {
		relay_http_fail(&r, rc, "the item does not verify");
		goto out;
	}
	if ((rc = relay_session_get(p->sid, &s)) != 0 ||
	    (rc = relay_write_allowed()) != 0) {
		relay_http_fail(&r, rc, NULL);
		goto out;
	}
	/* The author is a member with this key, still valid (revocation). */
	if ((m = relay_member_find(s, p->it.author)) == NULL ||
	    !alx_ct_eq(m->cert.pk, p->pk, ALX_SIGN_PK_LEN))
		rc = ALX_ERR_NOT_PARTICIPANT;
	else
		rc = alx_cert_valid(&m->cert, &s->man);
	if (rc != 0) {
		relay_http_fail(&r, rc, NULL);
		goto out;
	}
	relay_item_accept(&r, s, m, &p->it, p->body, p->len);
out:
	relay_store_expect(relay.store, -1);	/* queued, or never will be */
	relay_post_free(p);
}

static void
relay_item_post(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_post	*p;
	const uint8_t		*body;
	int			 rc;

	if ((p = calloc(1, sizeof(*p))) == NULL) {
		relay_http_fail(r, ALX_ERR_NOMEM, NULL);
		return;
	}
	if ((rc = relay_sid_param(r, 0, p->sid)) != 0)
		rc = ALX_ERR_NOT_FOUND;
	else if ((rc = relay_session_get(p->sid, &s)) == 0)
		rc = relay_write_allowed();
	if (rc != 0)
		goto fail;
	body = relay_body(r, &p->len);
	/* Bounded by --max-body-size; copied, since the connection may go. */
	if ((p->body = malloc(p->len + 1)) == NULL) {
		rc = ALX_ERR_NOMEM;
		goto fail;
	}
	memcpy(p->body, body, p->len);
	p->body[p->len] = '\0';
	relay_body_done(r);
	p->job.work = relay_post_work;
	p->job.done = relay_post_done;
	p->job.cost = p->len + sizeof(*p);
	if ((rc = relay_hold(r, &p->hold)) != 0)
		goto fail;
	if ((rc = relay_verify_submit(&p->job)) != 0) {
		relay_release(&p->hold);
		goto fail;
	}
	relay_store_expect(relay.store, 1);
	return;
fail:
	relay_post_free(p);
	relay_http_fail(r, rc, NULL);
}

/* The item event of an id: its cursor and object, opened by libairlox. */
static int
relay_item_load(struct relay_session *s, const uint8_t id[ALX_ID_LEN],
    uint64_t *cursor, struct alx_item *it, struct alx_buf *raw)
{
	struct alx_buf		 b;
	struct alx_signed	 so;
	struct relay_member	*a;
	uint8_t			 key[RELAY_SID_LEN + ALX_ID_LEN], fp[ALX_FP_LEN];
	uint8_t			 ikey[RELAY_SID_LEN + 8];
	const uint8_t		*nul;
	int			 rc;

	memcpy(key, s->sid, RELAY_SID_LEN);
	memcpy(key + RELAY_SID_LEN, id, ALX_ID_LEN);
	memcpy(ikey, s->sid, RELAY_SID_LEN);
	alx_buf_init(&b, 64);
	if ((rc = relay_store_get(relay.store, RELAY_DB_ITEMIDX, key,
	    sizeof(key), &b)) != 0 || b.len != 8) {
		alx_buf_free(&b);
		return rc != 0 ? rc : ALX_ERR_STORAGE;
	}
	*cursor = relay_get_be64(b.data);
	alx_buf_free(&b);
	relay_be64(ikey + RELAY_SID_LEN, *cursor);
	if ((rc = relay_store_get(relay.store, RELAY_DB_ITEMS, ikey,
	    sizeof(ikey), raw)) != 0)
		return rc;
	if (raw->len < 9 ||
	    (nul = memchr(raw->data + 8, '\0', raw->len - 8)) == NULL)
		return ALX_ERR_STORAGE;
	/* Drop the time and "item\0": raw holds the object alone. */
	memmove(raw->data, nul + 1, raw->len - (size_t)(nul + 1 - raw->data));
	raw->len -= (size_t)(nul + 1 - raw->data);
	raw->data[raw->len] = '\0';
	/*
	 * It was checked before it was stored, and its record's tag holds:
	 * failing now is the relay's fault, never the reader's.
	 */
	if (alx_signed_parse(&so, (const char *)raw->data, raw->len) != 0)
		return ALX_ERR_STORAGE;
	alx_fingerprint(fp, so.key, ALX_SIGN_PK_LEN);
	alx_signed_free(&so);
	if ((a = relay_member_find(s, fp)) == NULL)
		return ALX_ERR_UNKNOWN_KEY;
	if ((rc = alx_item_open(it, (const char *)raw->data, raw->len, s->sid,
	    a->cert.pk)) != 0 && rc != ALX_ERR_REVOKED &&
	    rc != ALX_ERR_UNKNOWN_KEY)
		rc = ALX_ERR_STORAGE;
	return rc;
}

static void
relay_receipt(struct relay_session *s, const uint8_t id[ALX_ID_LEN],
    const struct relay_member *reader)
{
	struct relay_wop	*op;
	uint8_t			 key[RELAY_SID_LEN + ALX_ID_LEN + ALX_FP_LEN];
	uint8_t			 t[8];

	memcpy(key, s->sid, RELAY_SID_LEN);
	memcpy(key + RELAY_SID_LEN, id, ALX_ID_LEN);
	memcpy(key + RELAY_SID_LEN + ALX_ID_LEN, reader->fp, ALX_FP_LEN);
	relay_be64(t, (uint64_t)time(NULL));
	/* Best effort: the first fetch counts; a repeat is refused. */
	if ((op = relay_wop_new(NULL, NULL)) == NULL)
		return;
	if (relay_wop_add(op, RELAY_W_PUT_NEW, RELAY_DB_RECEIPTS, key,
	    sizeof(key), t, sizeof(t)) != 0 ||
	    relay_store_submit(relay.store, op) != 0)
		relay_wop_free(op);
}

static void
relay_item_get(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct alx_item		 it;
	struct alx_buf		 raw;
	struct alx_jw		 jw;
	uint8_t			 id[ALX_ID_LEN], prefix[RELAY_SID_LEN +
				    ALX_ID_LEN];
	uint64_t		 cursor;
	int			 rc, have;

	if ((rc = relay_session_request(r, &s, &m)) != 0 ||
	    (rc = relay_id_param(r, 1, id)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	alx_buf_init(&raw, ALX_ITEM_BODY_MAX + 4096);
	memset(&it, 0, sizeof(it));
	if ((rc = relay_item_load(s, id, &cursor, &it, &raw)) != 0 ||
	    (rc = relay_transfer_take(s, raw.len)) != 0) {
		alx_item_free(&it);
		alx_buf_free(&raw);
		relay_http_fail(r, rc, rc == ALX_ERR_NOT_ALLOWED ?
		    RELAY_TRANSFER_WHY : NULL);
		return;
	}
	memcpy(prefix, s->sid, RELAY_SID_LEN);
	memcpy(prefix + RELAY_SID_LEN, id, ALX_ID_LEN);
	have = relay_store_scan(relay.store, RELAY_DB_CHUNKS, prefix,
	    sizeof(prefix), NULL, NULL);
	alx_jw_init(&jw, (size_t)1024 * 1024);
	alx_jw_obj_begin(&jw);
	alx_jw_kint(&jw, "cursor", (int64_t)cursor);
	alx_jw_key(&jw, "item");
	alx_jw_raw(&jw, (const char *)raw.data, raw.len);
	alx_jw_kbool(&jw, "complete", have >= 0 &&
	    (size_t)have == it.nchunks);
	alx_jw_obj_end(&jw);
	relay_http_jw(r->req, 200, &jw);
	relay_receipt(s, id, m);
	alx_item_free(&it);
	alx_buf_free(&raw);
}

static int
relay_chunk_index(struct relay_req *r, const struct alx_item *it,
    uint32_t *idx)
{
	uint64_t	v;

	if (r->nparams < 3 || relay_path_uint(r->params[2], 9999, &v) != 0 ||
	    v >= it->nchunks)
		return ALX_ERR_NOT_FOUND;
	*idx = (uint32_t)v;
	return 0;
}

static void
relay_chunk_key(uint8_t key[RELAY_SID_LEN + ALX_ID_LEN + 4],
    const uint8_t *sid, const uint8_t *id, uint32_t idx)
{
	memcpy(key, sid, RELAY_SID_LEN);
	memcpy(key + RELAY_SID_LEN, id, ALX_ID_LEN);
	key[RELAY_SID_LEN + ALX_ID_LEN] = (uint8_t)(idx >> 24);
	key[RELAY_SID_LEN + ALX_ID_LEN + 1] = (uint8_t)(idx >> 16);
	key[RELAY_SID_LEN + ALX_ID_LEN + 2] = (uint8_t)(idx >> 8);
	key[RELAY_SID_LEN + ALX_ID_LEN + 3] = (uint8_t)idx;
}

/* After a chunk commits: the last one stored makes a "complete" event. */
struct relay_chunk_ctx {
	struct relay_hold	 hold;
	struct relay_session	*s;
	uint8_t			 id[ALX_ID_LEN];
	size_t			 nchunks;
};

static void
relay_chunk_done(struct relay_wop *op, void *arg)
{
	struct relay_chunk_ctx	*c = arg;
	struct evhttp_request	*req = relay_release(&c->hold);
	struct relay_wop	*ev;
	struct alx_jw		 jw;
	uint8_t			 prefix[RELAY_SID_LEN + ALX_ID_LEN];
	uint8_t			 mark[RELAY_SID_LEN + ALX_ID_LEN + 1];
	char			*data = NULL;
	size_t			 dlen = 0;
	int			 have;

	if (op->result != 0) {
		if (req != NULL)
			relay_http_error(req, 0, op->result == ALX_ERR_REPLAYED ?
			    ALX_ERR_EXISTS : op->result, NULL);
		goto out;
	}
	if (req != NULL) {
		alx_jw_init(&jw, 64);
		alx_jw_obj_begin(&jw);
		alx_jw_kbool(&jw, "stored", 1);
		alx_jw_obj_end(&jw);
		relay_http_jw(req, 201, &jw);
	}
	memcpy(prefix, c->s->sid, RELAY_SID_LEN);
	memcpy(prefix + RELAY_SID_LEN, c->id, ALX_ID_LEN);
	have = relay_store_scan(relay.store, RELAY_DB_CHUNKS, prefix,
	    sizeof(prefix), NULL, NULL);
	if (have < 0 || (size_t)have != c->nchunks)
		goto out;
	/* Once only: the mark in the id index is put_new. */
	memcpy(mark, prefix, sizeof(prefix));
	mark[sizeof(prefix)] = 'c';
	alx_jw_init(&jw, 128);
	alx_jw_obj_begin(&jw);
	alx_jw_kb64(&jw, "id", c->id, ALX_ID_LEN);
	alx_jw_obj_end(&jw);
	if (alx_jw_finish(&jw, &data, &dlen) != 0 ||
	    (ev = relay_wop_new(NULL, NULL)) == NULL) {
		alx_jw_free(&jw);
		goto out;
	}
	alx_jw_free(&jw);
	if (relay_wop_add(ev, RELAY_W_PUT_NEW, RELAY_DB_ITEMIDX, mark,
	    sizeof(mark), "", 0) != 0 || relay_event_add(ev, c->s->sid, NULL,
	    "complete", data, dlen) != 0 || relay_submit_publish(c->s,
	    ev) != 0)
		relay_wop_free(ev);
out:
	free(data);
	relay_session_unref(c->s);
	relay_wop_free(op);
	free(c);
}

static void
relay_chunk_put(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct relay_chunk_ctx	*c;
	struct relay_wop	*op;
	struct alx_item		 it;
	struct alx_buf		 raw;
	const uint8_t		*body;
	uint8_t			 id[ALX_ID_LEN];
	uint8_t			 key[RELAY_SID_LEN + ALX_ID_LEN + 4];
	uint64_t		 cursor;
	uint32_t		 idx;
	size_t			 len;
	int			 rc;

	/*
	 * No watermark here: the item's post set its chunks' room aside,
	 * and the store refuses what does not fit in it (relay-store.c).
	 */
	if ((rc = relay_session_request(r, &s, &m)) != 0 ||
	    (rc = relay_write_allowed_reserved()) != 0 ||
	    (rc = relay_id_param(r, 1, id)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	alx_buf_init(&raw, ALX_ITEM_BODY_MAX + 4096);
	memset(&it, 0, sizeof(it));
	if ((rc = relay_item_load(s, id, &cursor, &it, &raw)) != 0)
		goto fail;
	if (memcmp(it.author, m->fp, ALX_FP_LEN) != 0) {
		rc = ALX_ERR_WRONG_ROLE;	/* only the author uploads */
		goto fail;
	}
	if ((rc = relay_chunk_index(r, &it, &idx)) != 0)
		goto fail;
	body = relay_body(r, &len);
	if ((rc = alx_chunk_check(&it, idx, body, len)) != 0)
		goto fail;
	if ((rc = relay_store_room(relay.store, len)) != 0)
		goto fail;
	relay_chunk_key(key, s->sid, id, idx);
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (op = relay_wop_new(relay_chunk_done, c)) == NULL) {
		free(c);
		rc = ALX_ERR_NOMEM;
		goto fail;
	}
	c->s = s;
	memcpy(c->id, id, ALX_ID_LEN);
	c->nchunks = it.nchunks;
	/* It takes the room its item's post set aside. */
	op->promise = -(int64_t)relay_store_chunk_need(len);
	if (relay_wop_add(op, RELAY_W_PUT_NEW, RELAY_DB_CHUNKS, key,
	    sizeof(key), body, len) != 0 || relay_hold(r, &c->hold) != 0 ||
	    relay_store_submit(relay.store, op) != 0) {
		relay_release(&c->hold);
		relay_wop_free(op);
		free(c);
		rc = ALX_ERR_NOMEM;
		goto fail;
	}
	relay_body_done(r);
	s->refs++;
	alx_item_free(&it);
	alx_buf_free(&raw);
	return;
fail:
	alx_item_free(&it);
	alx_buf_free(&raw);
	relay_http_fail(r, rc, NULL);
}

static void
relay_chunk_get(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct alx_item		 it;
	struct alx_buf		 raw, chunk;
	struct evbuffer		*out;
	uint8_t			 id[ALX_ID_LEN];
	uint8_t			 key[RELAY_SID_LEN + ALX_ID_LEN + 4];
	uint64_t		 cursor;
	uint32_t		 idx;
	const char		*why = NULL;
	int			 rc;

	if ((rc = relay_session_request(r, &s, &m)) != 0 ||
	    (rc = relay_id_param(r, 1, id)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	alx_buf_init(&raw, ALX_ITEM_BODY_MAX + 4096);
	alx_buf_init(&chunk, ALX_CHUNK_CT_MAX);
	memset(&it, 0, sizeof(it));
	if ((rc = relay_item_load(s, id, &cursor, &it, &raw)) != 0 ||
	    (rc = relay_chunk_index(r, &it, &idx)) != 0)
		goto fail;
#ifdef RELAY_TEST
	if (relay_test_hides(it.kind)) {	/* a relay that lost it */
		rc = ALX_ERR_NOT_FOUND;
		goto fail;
	}
#endif
	relay_chunk_key(key, s->sid, id, idx);
	/* The read transaction ends inside relay_store_get(). */
	rc = relay_store_get(relay.store, RELAY_DB_CHUNKS, key, sizeof(key),
	    &chunk);
	if (rc == ALX_ERR_NOT_FOUND)
		rc = ALX_ERR_CHUNK_PENDING;
	if (rc != 0)
		goto fail;
	/* Downloads count against --max-transfer as uploads do. */
	if ((rc = relay_transfer_take(s, chunk.len)) != 0) {
		why = RELAY_TRANSFER_WHY;
		goto fail;
	}
	if ((out = evbuffer_new()) == NULL) {
		rc = ALX_ERR_NOMEM;
		goto fail;
	}
	evbuffer_add(out, chunk.data, chunk.len);
	evhttp_add_header(evhttp_request_get_output_headers(r->req),
	    "Content-Type", "application/octet-stream");
	evhttp_send_reply(r->req, 200, "OK", out);
	evbuffer_free(out);
	relay_receipt(s, id, m);
	alx_item_free(&it);
	alx_buf_free(&raw);
	alx_buf_free(&chunk);
	return;
fail:
	alx_item_free(&it);
	alx_buf_free(&raw);
	alx_buf_free(&chunk);
	relay_http_fail(r, rc, why);
}

struct relay_rlist {
	struct alx_jw	*jw;
};

static int
relay_rlist_cb(const uint8_t *key, size_t klen, const uint8_t *val,
    size_t vlen, void *arg)
{
	struct relay_rlist	*rl = arg;
	size_t			 off = RELAY_SID_LEN + ALX_ID_LEN;

	if (klen != off + ALX_FP_LEN || vlen != 8)
		return 0;
	alx_jw_obj_begin(rl->jw);
	alx_jw_kb64(rl->jw, "fp", key + off, ALX_FP_LEN);
	alx_jw_kint(rl->jw, "time", (int64_t)relay_get_be64(val));
	alx_jw_obj_end(rl->jw);
	return 0;
}

static void
relay_receipts(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct alx_item		 it;
	struct alx_buf		 raw;
	struct alx_jw		 jw;
	struct relay_rlist	 rl;
	uint8_t			 id[ALX_ID_LEN], prefix[RELAY_SID_LEN +
				    ALX_ID_LEN];
	uint64_t		 cursor;
	int			 rc;

	if ((rc = relay_session_request(r, &s, &m)) != 0 ||
	    (rc = relay_id_param(r, 1, id)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	alx_buf_init(&raw, ALX_ITEM_BODY_MAX + 4096);
	memset(&it, 0, sizeof(it));
	if ((rc = relay_item_load(s, id, &cursor, &it, &raw)) == 0 &&
	    memcmp(it.author, m->fp, ALX_FP_LEN) != 0)
		rc = ALX_ERR_WRONG_ROLE;	/* the author's to read */
	alx_item_free(&it);
	alx_buf_free(&raw);
	if (rc != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	memcpy(prefix, s->sid, RELAY_SID_LEN);
	memcpy(prefix + RELAY_SID_LEN, id, ALX_ID_LEN);
	alx_jw_init(&jw, (size_t)1024 * 1024);
	alx_jw_obj_begin(&jw);
	alx_jw_key(&jw, "receipts");
	alx_jw_arr_begin(&jw);
	rl.jw = &jw;
	relay_store_scan(relay.store, RELAY_DB_RECEIPTS, prefix,
	    sizeof(prefix), relay_rlist_cb, &rl);
	alx_jw_arr_end(&jw);
	alx_jw_obj_end(&jw);
	relay_http_jw(r->req, 200, &jw);
}

static const struct relay_route relay_items_routes[] = {
	{ EVHTTP_REQ_POST, "/v1/sessions/:/participants", relay_join, 0 },
	{ EVHTTP_REQ_GET, "/v1/sessions/:/participants", relay_participants,
	  0 },
	{ EVHTTP_REQ_POST, "/v1/sessions/:/items", relay_item_post, 0 },
	{ EVHTTP_REQ_GET, "/v1/sessions/:/items/:", relay_item_get, 0 },
	{ EVHTTP_REQ_PUT, "/v1/sessions/:/items/:/chunks/:",
	  relay_chunk_put, 0 },
	{ EVHTTP_REQ_GET, "/v1/sessions/:/items/:/chunks/:",
	  relay_chunk_get, 0 },
	{ EVHTTP_REQ_GET, "/v1/sessions/:/receipts/:", relay_receipts, 0 },
};

void
relay_api_items_init(void)
{
	relay_http_add_routes(relay_items_routes,
	    sizeof(relay_items_routes) / sizeof(relay_items_routes[0]));
}
