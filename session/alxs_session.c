/*
 * alxs_session.c: a session as one participant sees it.
 *
 * Opening a session: parse the invite, fetch the manifest chain and verify
 * it into a view (anchored by the invite's session id and by the newest
 * manifest this machine verified before, kept in the cache), load this
 * participant's key from the cache and join with a certificate when not
 * joined yet. Reading: the event log is replayed from the start into a
 * fresh view, which verifies every event before the commands see it, and
 * then followed by long-polling or by the SSE stream. A chain shorter than
 * the one verified before, or another one, is refused (a relay rolling the
 * session back); the newest verified manifest is kept again on close.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "alxs.h"

#define CS_MANIFESTS_MAX	(64 * 1024 * 1024)
#define CS_LOG_MAX		(64 * 1024 * 1024)
#define CS_LOG_LIMIT		1000
#define CS_PARTS_MAX		(16 * 1024 * 1024)	/* participants */

int
alxs_sess_path(const struct alxs_sess *cs, char *out, size_t len,
    const char *fmt,
    ...)
{
	va_list	ap;
	int	n, m;

	n = snprintf(out, len, "/v1/sessions/%s", cs->sidstr);
	if (n < 0 || (size_t)n >= len)
		return ALX_ERR_TOO_LARGE;
	va_start(ap, fmt);
	m = vsnprintf(out + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= len - (size_t)n)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

/*
 * GET the relay's participant list, parsed (the caller frees *jp): *arr
 * is the array's token, *n its length. Each entry is {"cert":obj,
 * "last_seq",...} or a bare certificate; alxs_sess_participant_cert() gives
 * the certificate's token. Nothing in it is trusted before each
 * certificate is checked against the verified manifest.
 */
int
alxs_sess_participants(struct alxs_sess *cs, struct alx_json **jp, int *arr,
    int *n)
{
	struct alx_json_limits	 lim = { CS_PARTS_MAX, 8, 200000 };
	struct alxs_resp	 resp;
	char			 path[128];
	int			 r;

	*jp = NULL;
	alxs_sess_path(cs, path, sizeof(path), "/participants");
	if ((r = alxs_http_request(&cs->http, "GET", path, NULL, 0, NULL, 1,
	    CS_PARTS_MAX, &resp)) == 0)
		r = alx_json_parse(jp, (const char *)resp.body.data,
		    resp.body.len, &lim);
	alxs_http_resp_free(&resp);
	if (r == 0 && ((*arr = alx_json_obj_get(*jp, 0, "participants")) < 0 ||
	    (*n = alx_json_arr_len(*jp, *arr)) < 0))
		r = ALX_ERR_MISSING;
	if (r != 0) {
		alx_json_free(*jp);
		*jp = NULL;
	}
	return r;
}

int
alxs_sess_participant_cert(const struct alx_json *j, int entry)
{
	int	c;

	return (c = alx_json_obj_get(j, entry, "cert")) >= 0 ? c : entry;
}

/* GET the manifest chain and verify it into v. */
static int
csess_fetch_manifests(struct alxs_sess *cs, struct alx_view *v)
{
	struct alx_json_limits	 lim = { CS_MANIFESTS_MAX, 8, 65536 };
	struct alxs_resp	 resp;
	struct alx_json		*j = NULL;
	const char		*raw;
	size_t			 len;
	char			 path[128];
	int			 arr, i, n, r;

	alxs_sess_path(cs, path, sizeof(path), "/manifest");
	r = alxs_http_request(&cs->http, "GET", path, NULL, 0, NULL, 0,
	    CS_MANIFESTS_MAX, &resp);
	if (r != 0)
		goto out;
	if ((r = alx_json_parse(&j, (const char *)resp.body.data,
	    resp.body.len, &lim)) != 0)
		goto out;
	if ((arr = alx_json_obj_get(j, 0, "manifests")) < 0 ||
	    (n = alx_json_arr_len(j, arr)) <= 0) {
		r = ALX_ERR_MISSING;
		goto out;
	}
	if (alx_json_get_int(j, 0, "expires", &cs->relay_expires, 0,
	    ALX_JSON_INT_MAX) != 0)
		cs->relay_expires = -1;
	for (i = 0; i < n; i++) {
		if ((r = alx_json_raw(j, alx_json_arr_at(j, arr, i), &raw,
		    &len)) != 0 || (r = alx_view_add_manifest(v, raw, len)) != 0)
			goto out;
	}
out:
	alx_json_free(j);
	alxs_http_resp_free(&resp);
	return r;
}

/* What the view verified, newer than what is kept: keep it. */
static void
csess_keep_seen(struct alxs_sess *cs)
{
	if (!cs->have_view || cs->view.seen.ver <= cs->seen.ver)
		return;
	if (alxs_cache_seen_save(cs->conf.store_dir, cs->inv.sid,
	    &cs->view.seen) == 0)
		cs->seen = cs->view.seen;
	else
		alxs_debug(&cs->http, "session: cannot keep the manifest "
		    "version in the cache");
}

static int
csess_new_view(struct alxs_sess *cs)
{
	int	r;

	if (cs->have_view) {
		csess_keep_seen(cs);
		if (cs->view.seen.ver > cs->seen.ver)
			cs->seen = cs->view.seen;
		alx_view_free(&cs->view);
	}
	cs->have_view = 0;
	if ((r = alx_view_init(&cs->view, &cs->inv)) != 0)
		return r;
	cs->have_view = 1;
	alx_view_set_seen(&cs->view, &cs->seen);
	if (cs->have_me)
		alx_view_set_me(&cs->view, &cs->me.sk, &cs->me.kx);
	return 0;
}

/* A relay that served less than (or another chain than) was verified. */
static int
csess_rollback_fail(struct alxs_sess *cs)
{
	const struct alx_manifest	*m = alx_view_manifest(&cs->view);

	return alxs_fail_class(ALXS_UNVERIFIED, ALX_ERR_ROLLBACK, "the relay "
	    "served "
	    "this session's manifest chain up to version %lld, but version "
	    "%lld was verified on this machine before (or another chain): "
	    "the relay is hiding the owner's changes, such as a revocation; "
	    "nothing was read or sent", m != NULL ? (long long)m->ver : 0LL,
	    (long long)cs->view.seen.ver);
}

/*
 * AIRLOX_KEY: this participant's key comes from a secret it keeps (a
 * hosted agent whose sandbox is new each time keeps it beside its
 * invite), not from the cache: the same secret is the same participant in
 * every sandbox, so its items go on in one chain and its jobs find its
 * workspace on the runner, which is keyed by the participant key. A cache
 * entry made with another key is taken over: its cursors were that key's.
 */
static int
csess_key_secret(struct alxs_sess *cs, const char *secret)
{
	struct alx_signkey	sk;
	struct alx_kxkey	kx;
	int			r;

	if ((r = alx_participant_keys(secret, strlen(secret), cs->inv.sid,
	    cs->inv.role, &sk, &kx)) != 0)
		return alxs_fail_class(ALXS_BAD_SETTING, r, "AIRLOX_KEY: a "
		    "secret of %d to %d characters "
		    "(openssl rand -base64 32 makes one)", ALX_KEY_SECRET_MIN,
		    ALX_KEY_SECRET_MAX);
	if (!alx_ct_eq(sk.pk, cs->me.sk.pk, ALX_SIGN_PK_LEN)) {
		alxs_debug(&cs->http, "session: the participant key is "
		    "AIRLOX_KEY's");
		alx_sign_wipe(&cs->me.sk);
		alx_kx_wipe(&cs->me.kx);
		cs->me.sk = sk;
		cs->me.kx = kx;
		cs->me.joined = cs->me.listen = 0;
		cs->me.has_chain = 0;
		cs->me.seq = 0;
		if ((r = alxs_cache_save(&cs->me)) != 0) {
			alx_sign_wipe(&sk);
			alx_kx_wipe(&kx);
			return alxs_fail(r, "cannot write the cache");
		}
	}
	alx_sign_wipe(&sk);
	alx_kx_wipe(&kx);
	return 0;
}

/* This participant's key from the cache, for the view and the requests. */
static int
csess_load_me(struct alxs_sess *cs)
{
	const struct alxs_conf	*conf = &cs->conf;
	int			 r, created;

	if ((r = alxs_cache_load(conf->store_dir, &cs->me, &cs->inv,
	    conf->name !=
	    NULL ? conf->name : conf->default_name, conf->kind,
	    &created)) != 0)
		return alxs_fail(r, "cannot use the cache directory");
	if (conf->key_secret != NULL &&
	    (r = csess_key_secret(cs, conf->key_secret)) != 0)
		return r;
	cs->have_me = 1;
	if (!created && conf->name != NULL && strcmp(conf->name,
	    cs->me.name) != 0) {
		cs->name_ignored = 1;
		alxs_notice(conf->notice, conf->notice_arg, "already joined "
		    "this session as \"%s\"; --name %s is ignored",
		    cs->me.name, conf->name);
	}
	alx_view_set_me(&cs->view, &cs->me.sk, &cs->me.kx);
	cs->http.key = &cs->me.sk;
	return 0;
}

static int
csess_manifest_fail(struct alxs_sess *cs, int r)
{
	if (r == ALX_ERR_NOT_FOUND || r == ALX_ERR_SESSION_EXPIRED)
		return alxs_fail(ALX_ERR_SESSION_EXPIRED, "the session of this "
		    "invite has expired, was closed, or never existed on %s",
		    cs->http.authority);
	if (alxs_err_net(r) || r == ALX_ERR_NOMEM)
		return alxs_fail(r, "cannot fetch the session's manifest from "
		    "%s", cs->http.authority);
	return alxs_fail_class(ALXS_UNVERIFIED, r, "the relay served a "
	    "manifest "
	    "chain that does not verify against the invite");
}

int
alxs_open(struct alxs_sess *cs, const struct alxs_conf *conf, int flags)
{
	char	 base[400], *cause = NULL;
	int	 r;

	memset(cs, 0, sizeof(*cs));
	cs->conf = *conf;
	alxs_error_clear();
	cs->chunk_wait = 10;
	cs->relay_expires = -1;
	if (alx_invite_parse(&cs->inv, conf->invite) != 0)
		return alxs_fail(ALX_ERR_BAD_INVITE, "the invite is not an "
		    "airlox invite link (https://HOST/s/SID#1.ROLE.SEED)");
	alx_b64_encode(cs->sidstr, cs->inv.sid, ALX_SID_LEN);
	if ((r = alx_invite_base_url(&cs->inv, base, sizeof(base))) != 0)
		return alxs_fail(ALX_ERR_BAD_INVITE, "bad host in the invite");
	if ((r = alxs_http_open(&cs->http, base, conf, &cause)) != 0) {
		r = alxs_fail(ALX_ERR_BAD_INVITE, "%s", cause ? cause :
		    "cannot use the invite's relay");
		free(cause);
		return r;
	}
	if ((r = alxs_cache_seen_load(conf->store_dir, cs->inv.sid,
	    &cs->seen)) != 0)
		return alxs_fail(r, "cannot read the session's manifest "
		    "version kept in the cache (sessions/%s/manifest)",
		    cs->sidstr);
	if ((r = csess_new_view(cs)) != 0)
		return alxs_fail(r, "cannot derive the invite's keys");
	/* Our keys first: the view learns the epoch keys wrapped to us. */
	if ((flags & ALXS_JOIN) && (r = csess_load_me(cs)) != 0)
		return r;
	if ((r = csess_fetch_manifests(cs, &cs->view)) != 0) {
		if (r == ALX_ERR_ROLLBACK)
			return csess_rollback_fail(cs);
		return csess_manifest_fail(cs, r);
	}
	if (alx_view_check_current(&cs->view) != 0)
		return csess_rollback_fail(cs);
	csess_keep_seen(cs);
	if (!(flags & ALXS_JOIN))
		return 0;
	if (alx_manifest_is_revoked(alx_view_manifest(&cs->view),
	    cs->view.me_fp))
		return alxs_fail(ALX_ERR_REVOKED, "this participant (%s) was "
		    "revoked by the session's owner", cs->view.me_fps);
	if (cs->me.joined == 0 && (r = alxs_sess_join(cs)) != 0)
		return r;
	return 0;
}

void
alxs_sess_close(struct alxs_sess *cs)
{
	if (cs->have_view) {
		if (alx_view_check_current(&cs->view) == 0)
			csess_keep_seen(cs);
		alx_view_free(&cs->view);
	}
	if (cs->have_me)
		alxs_cache_wipe(&cs->me);
	alxs_http_close(&cs->http);
	free(cs->items);
	alx_invite_wipe(&cs->inv);
	memset(cs, 0, sizeof(*cs));
}

static int
csess_join_fail(int r, const struct alxs_resp *resp)
{
	switch (r) {
	case ALX_ERR_REVOKED:
		return alxs_fail(r, "this invite was revoked (the owner "
		    "rotated its role or revoked this participant)");
	case ALX_ERR_WRONG_ROLE:
	case ALX_ERR_FORBIDDEN:
		return alxs_fail(r, "the relay refused to let this invite "
		    "join: %s", resp->message ? resp->message : "forbidden");
	case ALX_ERR_SESSION_EXPIRED:
		return alxs_fail(r, "the session has expired or was closed");
	default:
		return alxs_fail(r, "cannot join the session%s%s",
		    resp->message ? ": " : "",
		    resp->message ? resp->message : "");
	}
}

int
alxs_sess_join(struct alxs_sess *cs)
{
	struct alx_cert		 cert;
	struct alxs_resp	 resp;
	struct alx_json		*j = NULL;
	int64_t			 cursor = 0;
	char			 path[128];
	int			 r;

	r = alx_view_make_cert(&cs->view, cs->me.name, cs->me.kind,
	    alxs_http_now(&cs->http), &cert);
	if (r != 0) {
		if (r == ALX_ERR_REVOKED || r == ALX_ERR_WRONG_ROLE)
			return alxs_fail(ALX_ERR_REVOKED, "this invite no "
			    "longer works: its role was rotated");
		return alxs_fail(r, "cannot make a certificate");
	}
	/* Check our own certificate as every reader will. */
	if ((r = alx_cert_valid(&cert, alx_view_manifest(&cs->view))) != 0) {
		alx_cert_free(&cert);
		return alxs_fail(ALX_ERR_REVOKED, "this invite no longer "
		    "works: its role was rotated or the key revoked (%s)",
		    alx_errname(r));
	}
	alxs_sess_path(cs, path, sizeof(path), "/participants");
	r = alxs_http_request(&cs->http, "POST", path, cert.obj.raw,
	    cert.obj.raw_len, NULL, 1, 4096, &resp);
	alx_cert_free(&cert);
	if (r == ALX_ERR_EXISTS)
		r = 0;
	if (r != 0) {
		r = csess_join_fail(r, &resp);
		alxs_http_resp_free(&resp);
		return r;
	}
	if (resp.body.len > 0 && alx_json_parse(&j, (const char *)
	    resp.body.data, resp.body.len, NULL) == 0)
		alx_json_get_int(j, 0, "cursor", &cursor, 0, ALX_JSON_INT_MAX);
	alx_json_free(j);
	alxs_http_resp_free(&resp);
	cs->me.joined = cursor > 0 ? cursor : 1;
	cs->me.listen = cursor;
	alxs_debug(&cs->http, "session: joined as %s (cursor %lld)",
	    cs->view.me_fps, (long long)cursor);
	if ((r = alxs_cache_save(&cs->me)) != 0)
		return alxs_fail(r, "cannot write the cache");
	return 0;
}

static int
csess_note_item(struct alxs_sess *cs, const struct alx_view_event *ev)
{
	struct alxs_sess_item	*ci;
	size_t			 ncap;

	if (cs->nitems == cs->itemcap) {
		ncap = cs->itemcap ? cs->itemcap * 2 : 64;
		if ((ci = reallocarray(cs->items, ncap, sizeof(*ci))) == NULL)
			return ALX_ERR_NOMEM;
		cs->items = ci;
		cs->itemcap = ncap;
	}
	ci = &cs->items[cs->nitems++];
	memset(ci, 0, sizeof(*ci));
	memcpy(ci->id, ev->item.id, ALX_ID_LEN);
	memcpy(ci->author, ev->item.author, ALX_FP_LEN);
	ci->has_reply = ev->item.has_reply_to;
	memcpy(ci->reply_to, ev->item.reply_to, ALX_ID_LEN);
	ci->author_kind = ev->member ? ev->member->cert.kind : ALX_PKIND_AGENT;
	ci->author_role = ev->member ? ev->member->cert.role : ALX_ROLE_SENDER;
	ci->size = ev->item.size;
	ci->complete = ev->item.size == 0;
	ci->cursor = ev->cursor;
	snprintf(ci->kind, sizeof(ci->kind), "%s", ev->item.kind);
	return 0;
}

const struct alxs_sess_item *
alxs_sess_item(const struct alxs_sess *cs, const uint8_t id[ALX_ID_LEN])
{
	size_t	i;

	for (i = cs->nitems; i-- > 0;)
		if (memcmp(cs->items[i].id, id, ALX_ID_LEN) == 0)
			return &cs->items[i];
	return NULL;
}

/* Verify one event into the view; then the caller's callback. */
static int
csess_apply(struct alxs_sess *cs, const char *raw, size_t len, alxs_sess_cb cb,
    void *arg)
{
	struct alx_view_event	 ev;
	struct alxs_sess_item	*ci;
	int			 r;

	if ((r = alx_view_apply(&cs->view, raw, len, &ev)) != 0) {
		alxs_debug(&cs->http, "session: event after cursor %lld "
		    "refused: %s", (long long)cs->view.cursor, alx_errname(r));
		cs->bad_event = 1;
		return r;
	}
	if (ev.cursor > cs->head)
		cs->head = ev.cursor;
	/* A newer manifest verified: kept now, not only when closing. */
	if (ev.type == ALX_EV_MANIFEST)
		csess_keep_seen(cs);
	if (ev.type == ALX_EV_ITEM)
		r = csess_note_item(cs, &ev);
	else if (ev.type == ALX_EV_COMPLETE &&
	    (ci = (struct alxs_sess_item *)alxs_sess_item(cs, ev.id)) != NULL)
		ci->complete = 1;
	if (r == 0 && cb != NULL)
		r = cb(cs, &ev, arg);
	alx_view_event_free(&ev);
	return r;
}

/* One GET of the log; *nevents receives how many events it held. */
static int
csess_log_once(struct alxs_sess *cs, int wait_s, alxs_sess_cb cb, void *arg,
    int *nevents)
{
	struct alx_json_limits	 lim = { CS_LOG_MAX, 10, 200000 };
	struct alxs_resp	 resp;
	struct alx_json		*j = NULL;
	const char		*raw;
	size_t			 len;
	char			 path[192];
	int			 arr, i, n, r;

	*nevents = 0;
	alxs_sess_path(cs, path, sizeof(path), "/log?after=%lld&limit=%d",
	    (long long)cs->view.cursor, CS_LOG_LIMIT);
	if (wait_s > 0)
		snprintf(path + strlen(path), sizeof(path) - strlen(path),
		    "&wait=%d", wait_s);
	r = alxs_http_request(&cs->http, "GET", path, NULL, 0, NULL, 1,
	    CS_LOG_MAX,
	    &resp);
	if (r != 0 || resp.status == 204)
		goto out;
	if ((r = alx_json_parse(&j, (const char *)resp.body.data,
	    resp.body.len, &lim)) != 0)
		goto out;
	if ((arr = alx_json_obj_get(j, 0, "events")) < 0 ||
	    (n = alx_json_arr_len(j, arr)) < 0) {
		r = ALX_ERR_MISSING;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if ((r = alx_json_raw(j, alx_json_arr_at(j, arr, i), &raw,
		    &len)) != 0 || (r = csess_apply(cs, raw, len, cb, arg)) != 0)
			goto out;
		(*nevents)++;
	}
out:
	alx_json_free(j);
	alxs_http_resp_free(&resp);
	return r;
}

int
alxs_sess_poll(struct alxs_sess *cs, int wait_s, alxs_sess_cb cb, void *arg)
{
	int	n;

	return csess_log_once(cs, wait_s, cb, arg, &n);
}

int
alxs_sess_replay(struct alxs_sess *cs, alxs_sess_cb cb, void *arg)
{
	int	r, n;

	if (cs->view.cursor == 0 && cs->view.nmans > 0 &&
	    (r = csess_new_view(cs)) != 0)
		return r;
	do {
		r = csess_log_once(cs, 0, cb, arg, &n);
		if (r == 1)
			return 1;
	} while (r == 0 && n >= CS_LOG_LIMIT);
	/* The whole log now: it must reach the manifest verified before. */
	if (r == 0 && (r = alx_view_check_current(&cs->view)) != 0)
		cs->bad_event = 1;
	return r;
}

struct csess_sse {
	struct alxs_sess	*cs;
	alxs_sess_cb	 cb;
	void		*arg;
	int		 err;
};

/* An SSE event: rebuild the log event object when the data is its data. */
static int
csess_sse_event(const char *type, int64_t id, const char *data, size_t len,
    void *arg)
{
	struct csess_sse	*s = arg;
	struct alx_json		*j = NULL;
	struct alx_jw		 jw;
	char			*ev;
	size_t			 evlen;
	int			 whole = 0, r;
	int64_t			 c;

	if (alx_json_parse(&j, data, len, NULL) != 0) {
		/* Not the relay's events: a broken stream (exit 5, not 1). */
		char	where[320];

		alxs_http_where(&s->cs->http, where, sizeof(where));
		return s->err = alxs_http_net_note(ALX_ERR_IO,
		    "the relay at %s "
		    "sent an event that is not JSON (event %lld of the "
		    "stream)", where, (long long)id);
	}
	if (alx_json_get_int(j, 0, "cursor", &c, 1, ALX_JSON_INT_MAX) == 0 &&
	    alx_json_has(j, 0, "type") && alx_json_has(j, 0, "data"))
		whole = 1;
	alx_json_free(j);
	if (id <= s->cs->view.cursor && id > 0)
		return 0;	/* resumed stream repeating what we have */
	if (whole)
		r = csess_apply(s->cs, data, len, s->cb, s->arg);
	else {
		alx_jw_init(&jw, 2 * len + 256);
		alx_jw_obj_begin(&jw);
		alx_jw_kint(&jw, "cursor", id);
		alx_jw_kstr(&jw, "type", type);
		alx_jw_key(&jw, "data");
		alx_jw_raw(&jw, data, len);
		alx_jw_obj_end(&jw);
		if ((r = alx_jw_finish(&jw, &ev, &evlen)) != 0) {
			alx_jw_free(&jw);
			return r;
		}
		alx_jw_free(&jw);
		r = csess_apply(s->cs, ev, evlen, s->cb, s->arg);
		free(ev);
	}
	if (r < 0)
		s->err = r;
	return r;
}

int
alxs_sess_stream(struct alxs_sess *cs, int64_t timeout_ms, alxs_sess_cb cb,
    void *arg)
{
	struct csess_sse	 s;
	char			 path[128];
	int64_t			 last = cs->view.cursor;
	int			 r;

	s.cs = cs;
	s.cb = cb;
	s.arg = arg;
	s.err = 0;
	alxs_sess_path(cs, path, sizeof(path), "/stream");
	r = alxs_sse_run(&cs->http, path, &last, timeout_ms, csess_sse_event,
	    &s);
	if (s.err != 0)
		return s.err;
	return r;
}

int
alxs_sess_put_manifest(struct alxs_sess *cs, struct alx_manifest *m)
{
	struct alxs_resp	resp;
	char			path[128];
	int			r;

	alxs_sess_path(cs, path, sizeof(path), "/manifest");
	r = alxs_http_request(&cs->http, "PUT", path, m->obj.raw,
	    m->obj.raw_len,
	    NULL, 1, 4096, &resp);
	alxs_http_resp_free(&resp);
	/* The owner's own update is verified by its maker: keep it. */
	if (r == 0 && m->ver > cs->seen.ver) {
		struct alx_view_seen	seen;

		seen.ver = m->ver;
		memcpy(seen.hash, m->hash, ALX_HASH_LEN);
		seen.epoch = m->epoch;
		if (alxs_cache_seen_save(cs->conf.store_dir, cs->inv.sid,
		    &seen) == 0)
			cs->seen = seen;
	}
	return r;
}

int
alxs_sess_is_owner(const struct alxs_sess *cs)
{
	return cs->inv.role == ALX_ROLE_OWNER;
}

const char *
alxs_sess_member_name(const struct alxs_sess *cs, const uint8_t fp[ALX_FP_LEN])
{
	const struct alx_view_member	*m;

	m = alx_view_member_by_fp(&cs->view, fp);
	return m != NULL ? m->cert.name : "?";
}

int
alxs_sess_resolve(const struct alxs_sess *cs, const char *s,
    uint8_t fp[ALX_FP_LEN], char **cause)
{
	const struct alx_view_member	*m;
	size_t				 n, i;

	*cause = NULL;
	if (strlen(s) == ALX_FP_STRLEN && alx_b64_decode_exact(fp, ALX_FP_LEN,
	    s, ALX_FP_STRLEN) == 0 && alx_view_member_by_fp(&cs->view,
	    fp) != NULL)
		return 0;
	if (strcmp(s, "owner") == 0) {
		for (i = 0; i < cs->view.nmembers; i++)
			if (cs->view.members[i].cert.role == ALX_ROLE_OWNER) {
				memcpy(fp, cs->view.members[i].cert.fp,
				    ALX_FP_LEN);
				return 0;
			}
	}
	n = alx_view_members_by_name(&cs->view, s, &m);
	if (n == 1) {
		memcpy(fp, m->cert.fp, ALX_FP_LEN);
		return 0;
	}
	if ((n == 0 ? asprintf(cause, "no participant named \"%s\"", s) :
	    asprintf(cause, "%zu participants are named \"%s\": use a "
	    "fingerprint (see airlox session show)", n, s)) < 0)
		*cause = NULL;
	return ALX_ERR_NOT_FOUND;
}

int
alxs_sess_owner_update(struct alxs_sess *cs, struct alx_manifest *next,
    struct alx_signkey *owner)
{
	int	r;

	if (!alxs_sess_is_owner(cs))
		return ALX_ERR_WRONG_ROLE;
	if ((r = alx_seed_keys(cs->inv.seed, owner, NULL)) != 0)
		return r;
	return alx_manifest_next(next, alx_view_manifest(&cs->view));
}

/* Every member the view knows, as the owner's manifest updates want. */
int
alxs_sess_members(const struct alxs_sess *cs, struct alx_member **out,
    size_t *n)
{
	size_t	i;

	*n = 0;
	if ((*out = calloc(cs->view.nmembers + 1, sizeof(**out))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < cs->view.nmembers; i++) {
		memcpy((*out)[i].fp, cs->view.members[i].cert.fp, ALX_FP_LEN);
		memcpy((*out)[i].kx, cs->view.members[i].cert.kx,
		    ALX_KX_PK_LEN);
		(*out)[i].role = cs->view.members[i].cert.role;
	}
	*n = cs->view.nmembers;
	return 0;
}

/* A new invite link for role with seed, on this session's relay. */
int
alxs_sess_invite(const struct alxs_sess *cs, int role,
    const uint8_t seed[ALX_SEED_LEN], char **link)
{
	struct alx_invite	inv = cs->inv;
	int			r;

	inv.role = role;
	memcpy(inv.seed, seed, ALX_SEED_LEN);
	r = alx_invite_format(&inv, link);
	alx_invite_wipe(&inv);
	return r;
}

/*
 * Owner update: revoke `fp` (when not NULL) and rotate `role` (when
 * >= 0, new_seed receives its seed), with a new epoch; sign and store.
 */
int
alxs_sess_rekey(struct alxs_sess *cs, const uint8_t *fp, int role,
    uint8_t new_seed[ALX_SEED_LEN], int64_t *ver)
{
	struct alx_manifest	 next;
	struct alx_signkey	 owner;
	struct alx_private	 priv;
	struct alx_member	*mem = NULL;
	uint8_t			 ekey[ALX_KEY_LEN];
	size_t			 nmem;
	int			 r;

	memset(&priv, 0, sizeof(priv));
	memset(&next, 0, sizeof(next));
	if ((r = alx_view_private(&cs->view, &priv)) != 0)
		return r;
	if ((r = alxs_sess_members(cs, &mem, &nmem)) != 0 ||
	    (r = alxs_sess_owner_update(cs, &next, &owner)) != 0)
		goto out;
	if (fp != NULL && (r = alx_manifest_revoke(&next, fp)) != 0)
		goto out;
	if (role >= 0 && (r = alx_manifest_rotate_role(&next, role, new_seed,
	    mem, nmem)) != 0)
		goto out;
	if ((r = alx_manifest_new_epoch(&next, ekey, &priv, mem, nmem)) != 0 ||
	    (r = alx_manifest_finish(&next, &owner, ekey, &priv)) != 0)
		goto out;
	r = alxs_sess_put_manifest(cs, &next);
	*ver = next.ver;
out:
	alx_wipe(ekey, sizeof(ekey));
	alx_sign_wipe(&owner);
	alx_manifest_free(&next);
	alx_private_free(&priv);
	free(mem);
	return r;
}

int
alxs_read_fail(struct alxs_sess *cs, int err, const char *what)
{
	if (err == ALX_ERR_ROLLBACK)
		return csess_rollback_fail(cs);
	if (cs->bad_event)
		return alxs_fail_class(ALXS_UNVERIFIED, err, "the relay "
		    "served an "
		    "event that does not verify (after cursor %lld); it was "
		    "not trusted", (long long)cs->view.cursor);
	if (alxs_err_verify(err))
		return alxs_fail_class(ALXS_UNVERIFIED, err, "the relay "
		    "served data that does not verify; it was not trusted");
	return alxs_fail(err, "%s", what);
}
