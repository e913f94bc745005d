/*
 * alxs_code.c: transfer codes (protocol.md section 14), both sides.
 *
 * The creator (holding the owner invite) opens a nameplate on the relay and
 * prints "N-word-word"; the claimant, given the code, runs CPace as the
 * initiator. Messages through the relay's mailbox (side "a" is the
 * claimant, side "b" the creator; each "data" is base64url):
 *   1 claimant: Ya                     (lv_cat(Y, AD), AD "airlox/v1/claimant")
 *   2 creator:  tag_b || Yb            (AD "airlox/v1/creator")
 *   3 claimant: tag_a
 *   4 creator:  AEAD(session key, 0^12, "airlox/v1/code-invite", invite)
 *   5 claimant: "ok" (received; the creator then deletes the code, or
 *               after 15 s without it)
 * PRS is the canonical code, CI "airlox/v1/code" || 0x00 || host[:port] of
 * the relay, sid the session id || role name. A wrong code fails the
 * creator's check of message 3 (it reports a code-fail; three cancel the
 * code) and the claimant's check of message 2. The relay never sees the
 * words and learns nothing it could test offline.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "airlox.h"
#include "alxs.h"

#define CODE_TTL	600
#define CODE_MSG_MAX	(64 * 1024)
#define CODE_AD_A	"airlox/v1/claimant"
#define CODE_AD_B	"airlox/v1/creator"
#define CODE_AAD	"airlox/v1/code-invite"

struct code_msg {
	int64_t	 seq;
	uint8_t	*data;
	size_t	 len;
};

static size_t
code_ci(uint8_t *ci, size_t cap, const char *authority)
{
	size_t	p = sizeof("airlox/v1/code") - 1, n = strlen(authority);

	if (p + 1 + n > cap)
		return 0;
	memcpy(ci, "airlox/v1/code", p);
	ci[p++] = 0;
	memcpy(ci + p, authority, n);
	return p + n;
}

static size_t
code_sid(uint8_t *out, size_t cap, const uint8_t sid[ALX_SID_LEN], int role)
{
	const char	*rn = alx_role_name(role);
	size_t		 n = strlen(rn);

	if (ALX_SID_LEN + n > cap)
		return 0;
	memcpy(out, sid, ALX_SID_LEN);
	memcpy(out + ALX_SID_LEN, rn, n);
	return ALX_SID_LEN + n;
}

static int
code_post(struct alxs_http *hc, int64_t np, const char *side, int64_t seq,
    const uint8_t *data, size_t len, int sign)
{
	struct alxs_resp	 resp;
	struct alx_jw		 jw;
	char			*body, path[64];
	size_t			 blen;
	int			 r;

	alx_jw_init(&jw, CODE_MSG_MAX);
	alx_jw_obj_begin(&jw);
	alx_jw_kstr(&jw, "side", side);
	alx_jw_kint(&jw, "seq", seq);
	alx_jw_kb64(&jw, "data", data, len);
	alx_jw_obj_end(&jw);
	if ((r = alx_jw_finish(&jw, &body, &blen)) != 0) {
		alx_jw_free(&jw);
		return r;
	}
	alx_jw_free(&jw);
	snprintf(path, sizeof(path), "/v1/codes/%lld/msgs", (long long)np);
	r = alxs_http_request(hc, "POST", path, body, blen, NULL, sign, 4096,
	    &resp);
	alxs_http_resp_free(&resp);
	alx_wipe(body, blen);
	free(body);
	return r;
}

/* The first message of `side` with seq > after; waits up to deadline. */
static int
code_wait(struct alxs_http *hc, int64_t np, const char *side, int64_t after,
    int sign, time_t deadline, struct code_msg *m)
{
	struct alxs_resp	 resp;
	struct alx_json		*j = NULL;
	char			 path[128];
	int			 arr, n, i, e, r, wait;

	memset(m, 0, sizeof(*m));
	for (;;) {
		wait = (int)(deadline - time(NULL));
		if (wait <= 0)
			return ALX_ERR_EXPIRED;
		if (wait > 25)
			wait = 25;
		snprintf(path, sizeof(path), "/v1/codes/%lld/msgs?side=%s&"
		    "after=%lld&wait=%d", (long long)np, side,
		    (long long)after, wait);
		r = alxs_http_request(hc, "GET", path, NULL, 0, NULL, sign,
		    CODE_MSG_MAX * 4, &resp);
		if (r != 0 || resp.status == 204) {
			alxs_http_resp_free(&resp);
			if (r != 0)
				return r;
			continue;
		}
		r = alx_json_parse(&j, (const char *)resp.body.data,
		    resp.body.len, NULL);
		alxs_http_resp_free(&resp);
		if (r != 0)
			return r;
		arr = alx_json_obj_get(j, 0, "msgs");
		n = alx_json_arr_len(j, arr);
		for (i = 0; i < n; i++) {
			e = alx_json_arr_at(j, arr, i);
			if (alx_json_get_int(j, e, "seq", &m->seq, 0,
			    ALX_JSON_INT_MAX) != 0 || m->seq <= after)
				continue;
			r = alx_json_get_b64_alloc(j, e, "data", &m->data,
			    &m->len, CODE_MSG_MAX);
			alx_json_free(j);
			return r;
		}
		alx_json_free(j);
		j = NULL;
	}
}

/* How many messages `side` has posted so far (their highest seq). */
static int64_t
code_last_seq(struct alxs_http *hc, int64_t np, const char *side, int sign)
{
	struct alxs_resp	 resp;
	struct alx_json		*j = NULL;
	char			 path[128];
	int64_t			 seq, max = 0;
	int			 arr, n, i;

	snprintf(path, sizeof(path), "/v1/codes/%lld/msgs?side=%s&after=0",
	    (long long)np, side);
	if (alxs_http_request(hc, "GET", path, NULL, 0, NULL, sign,
	    CODE_MSG_MAX * 4, &resp) == 0 && resp.status == 200 &&
	    alx_json_parse(&j, (const char *)resp.body.data, resp.body.len,
	    NULL) == 0) {
		arr = alx_json_obj_get(j, 0, "msgs");
		n = alx_json_arr_len(j, arr);
		for (i = 0; i < n; i++)
			if (alx_json_get_int(j, alx_json_arr_at(j, arr, i),
			    "seq", &seq, 0, ALX_JSON_INT_MAX) == 0 &&
			    seq > max)
				max = seq;
	}
	alx_json_free(j);
	alxs_http_resp_free(&resp);
	return max;
}

static int
code_signed_post(struct alxs_sess *cs, const char *type, int role,
    int64_t np, const char *path, struct alxs_resp *resp)
{
	struct alx_notice	n;
	int			r;

	memset(&n, 0, sizeof(n));
	snprintf(n.type, sizeof(n.type), "%s", type);
	memcpy(n.sid, cs->inv.sid, ALX_SID_LEN);
	n.role = role;
	n.nameplate = np;
	n.time = alxs_http_now(&cs->http);
	if ((r = alx_notice_sign(&n, &cs->me.sk)) != 0)
		return r;
	r = alxs_http_request(&cs->http, "POST", path, n.obj.raw, n.obj.raw_len,
	    NULL, 1, 4096, resp);
	alx_notice_free(&n);
	return r;
}

/*
 * One attempt on the creator's side. Returns 0 when the invite went out,
 * ALX_ERR_PAKE when the claimant had a wrong code.
 */
static int
code_attempt(struct alxs_sess *cs, int64_t np, const char *code, int role,
    const char *invite, time_t deadline, int64_t *after_a, int64_t *seq_b)
{
	struct alx_cpace	 cp;
	struct code_msg		 m1, m3;
	uint8_t			 ci[400], sid[64], msg[ALX_CPACE_MSG_MAX + 32];
	uint8_t			 isk[ALX_CPACE_ISK_LEN], key[ALX_CPACE_KEY_LEN];
	uint8_t			 tag[ALX_CPACE_TAG_LEN], want[ALX_CPACE_TAG_LEN];
	uint8_t			 nonce[ALX_NONCE_LEN], *ct = NULL;
	size_t			 cil, sidl, ml = ALX_CPACE_MSG_MAX, il;
	int			 r;

	memset(&m3, 0, sizeof(m3));
	if ((r = code_wait(&cs->http, np, "a", *after_a, 1, deadline,
	    &m1)) != 0)
		return r;
	*after_a = m1.seq;
	cil = code_ci(ci, sizeof(ci), cs->http.authority);
	sidl = code_sid(sid, sizeof(sid), cs->inv.sid, role);
	r = alx_cpace_start(&cp, ALX_CPACE_RESPONDER, (const uint8_t *)code,
	    strlen(code), ci, cil, sid, sidl, (const uint8_t *)CODE_AD_B,
	    sizeof(CODE_AD_B) - 1, msg + ALX_CPACE_TAG_LEN, &ml);
	if (r == 0)
		r = alx_cpace_finish(&cp, m1.data, m1.len, isk);
	if (r == 0 && (cp.peer_adlen != sizeof(CODE_AD_A) - 1 ||
	    memcmp(cp.peer_ad, CODE_AD_A, cp.peer_adlen) != 0))
		r = ALX_ERR_PAKE;
	alx_cpace_wipe(&cp);
	free(m1.data);
	if (r == 0)
		r = alx_cpace_confirm(isk, ALX_CPACE_RESPONDER, tag, want, key);
	alx_wipe(isk, sizeof(isk));
	if (r != 0) {
		/* A malformed first message: answer nothing, count it. */
		return ALX_ERR_PAKE;
	}
	memcpy(msg, tag, ALX_CPACE_TAG_LEN);
	if ((r = code_post(&cs->http, np, "b", ++*seq_b, msg,
	    ALX_CPACE_TAG_LEN + ml, 1)) != 0)
		goto out;
	if ((r = code_wait(&cs->http, np, "a", *after_a, 1, deadline,
	    &m3)) != 0)
		goto out;
	*after_a = m3.seq;
	if (alx_cpace_check_tag(want, m3.data, m3.len) != 0) {
		r = ALX_ERR_PAKE;
		goto out;
	}
	il = strlen(invite);
	if ((ct = malloc(il + ALX_TAG_LEN)) == NULL) {
		r = ALX_ERR_NOMEM;
		goto out;
	}
	memset(nonce, 0, sizeof(nonce));
	if ((r = alx_aead_seal(ct, key, nonce, CODE_AAD, sizeof(CODE_AAD) - 1,
	    invite, il)) == 0)
		r = code_post(&cs->http, np, "b", ++*seq_b, ct,
		    il + ALX_TAG_LEN, 1);
	if (r == 0) {
		/* Let the claimant fetch it before the code goes away. */
		free(m3.data);
		m3.data = NULL;
		if (code_wait(&cs->http, np, "a", *after_a, 1, time(NULL) + 15 <
		    deadline ? time(NULL) + 15 : deadline, &m3) == 0)
			*after_a = m3.seq;
	}
out:
	free(m3.data);
	free(ct);
	alx_wipe(key, sizeof(key));
	alx_wipe(want, sizeof(want));
	return r;
}

int
alxs_code_create(struct alxs_sess *cs, int role, const char *invite,
    int64_t ttl, alxs_code_cb cb, void *arg, int *failsp)
{
	struct alxs_resp	 resp;
	struct alx_json		*j = NULL;
	char			 code[ALX_CODE_MAXLEN], path[64];
	int64_t			 np = 0, expires = 0, after_a = 0, seq_b = 0;
	time_t			 deadline;
	int			 r, fails = 0, cancelled = 0;

	*failsp = 0;
	alxs_error_clear();
	r = code_signed_post(cs, "code-open", role, 0, "/v1/codes", &resp);
	if (r == 0 && alx_json_parse(&j, (const char *)resp.body.data,
	    resp.body.len, NULL) == 0) {
		alx_json_get_int(j, 0, "nameplate", &np, 1,
		    ALX_CODE_NAMEPLATE_MAX);
		alx_json_get_int(j, 0, "expires", &expires, 0,
		    ALX_JSON_INT_MAX);
	}
	alx_json_free(j);
	alxs_http_resp_free(&resp);
	if (r != 0)
		return alxs_fail(r, "the relay did not open a code");
	if (np == 0 || (r = alx_code_make(code, (uint32_t)np)) != 0)
		return alxs_fail(ALX_ERR_INVALID, "the relay gave no "
		    "nameplate");
	deadline = time(NULL) + (time_t)(ttl > 0 && ttl < CODE_TTL ? ttl :
	    CODE_TTL);
	if (expires > 0 && (time_t)expires < deadline)
		deadline = (time_t)expires;
	cb(ALXS_CODE_OPEN, code, (int64_t)deadline, 0, arg);
	for (;;) {
		r = code_attempt(cs, np, code, role, invite, deadline,
		    &after_a, &seq_b);
		if (r != ALX_ERR_PAKE)
			break;
		fails++;
		snprintf(path, sizeof(path), "/v1/codes/%lld/fail",
		    (long long)np);
		if (code_signed_post(cs, "code-fail", role, np, path,
		    &resp) == 0 && alx_json_parse(&j, (const char *)
		    resp.body.data, resp.body.len, NULL) == 0)
			alx_json_get_bool(j, 0, "cancelled", &cancelled);
		alx_json_free(j);
		j = NULL;
		alxs_http_resp_free(&resp);
		cb(ALXS_CODE_WRONG, NULL, (int64_t)deadline, fails, arg);
		if (fails >= ALXS_CODE_MAX_FAILS || cancelled)
			break;
	}
	alx_wipe(code, sizeof(code));
	snprintf(path, sizeof(path), "/v1/codes/%lld", (long long)np);
	if (r != ALX_ERR_EXPIRED && !cancelled) {
		alxs_http_request(&cs->http, "DELETE", path, NULL, 0, NULL, 1,
		    4096,
		    &resp);
		alxs_http_resp_free(&resp);
	}
	*failsp = fails;
	if (r == 0)
		return 0;
	if (r == ALX_ERR_PAKE)
		return alxs_fail(ALX_ERR_TOO_MANY_FAILS, "the code was "
		    "cancelled after "
		    "%d wrong attempts; make a new one", fails);
	if (r == ALX_ERR_EXPIRED)
		return alxs_fail_class(ALXS_TIMED_OUT, r, "the code expired "
		    "unused");
	return alxs_fail(r, "the code transfer failed");
}

/* The claimant's run. */
struct code_claim {
	struct alxs_http	 hc;
	char			 code[ALX_CODE_MAXLEN];
	uint32_t		 np;
	uint8_t			 sid[ALX_SID_LEN];
	int			 role;
	uint8_t			 key[ALX_CPACE_KEY_LEN];
	int64_t			 base_a;	/* our messages before this run */
	int64_t			 after_b;	/* the creator's seen so far */
	time_t			 deadline;	/* the code's end */
	int64_t			 answer_s;	/* wait for each answer */
	int			 gone;		/* the creator did not answer */
};

/*
 * The creator's next message: it answers within seconds while `session
 * code` runs, so waiting longer than answer_s means it no longer does
 * (stopped, killed, offline); the code itself may live on at the relay.
 */
static int
claim_wait(struct code_claim *cl, struct code_msg *m)
{
	time_t	by = time(NULL) + (time_t)cl->answer_s;
	int	r;

	r = code_wait(&cl->hc, cl->np, "b", cl->after_b, 0,
	    by < cl->deadline ? by : cl->deadline, m);
	if (r == ALX_ERR_EXPIRED && by < cl->deadline)
		cl->gone = 1;
	return r;
}

/* GET /v1/codes/N: the session and role the code is for. */
static int
claim_lookup(struct code_claim *cl)
{
	struct alxs_resp	 resp;
	struct alx_json		*j = NULL;
	char			 path[64], *rolename = NULL;
	int			 r;

	snprintf(path, sizeof(path), "/v1/codes/%u", cl->np);
	r = alxs_http_request(&cl->hc, "GET", path, NULL, 0, NULL, 0, 4096,
	    &resp);
	if (r == 0 && (r = alx_json_parse(&j, (const char *)resp.body.data,
	    resp.body.len, NULL)) == 0 &&
	    (r = alx_json_get_b64(j, 0, "sid", cl->sid, ALX_SID_LEN)) == 0 &&
	    (r = alx_json_get_str(j, 0, "role", &rolename, 16)) == 0)
		r = alx_role_parse(rolename, &cl->role);
	alx_json_free(j);
	free(rolename);
	alxs_http_resp_free(&resp);
	cl->deadline = time(NULL) + CODE_TTL;
	cl->base_a = code_last_seq(&cl->hc, cl->np, "a", 0);
	cl->after_b = code_last_seq(&cl->hc, cl->np, "b", 0);
	return r;
}

/*
 * Messages 1 to 3: CPace as the initiator, check the creator's tag, send
 * ours (even when the creator's is wrong, so that it counts a failure).
 */
static int
claim_pake(struct code_claim *cl)
{
	struct alx_cpace	 cp;
	struct code_msg		 m2;
	uint8_t			 ci[400], sidb[64], msg[ALX_CPACE_MSG_MAX];
	uint8_t			 isk[ALX_CPACE_ISK_LEN];
	uint8_t			 tag[ALX_CPACE_TAG_LEN], want[ALX_CPACE_TAG_LEN];
	size_t			 cil, sidl, ml = sizeof(msg);
	int			 r, tag_ok = 0;

	memset(&m2, 0, sizeof(m2));
	cil = code_ci(ci, sizeof(ci), cl->hc.authority);
	sidl = code_sid(sidb, sizeof(sidb), cl->sid, cl->role);
	if ((r = alx_cpace_start(&cp, ALX_CPACE_INITIATOR,
	    (const uint8_t *)cl->code, strlen(cl->code), ci, cil, sidb, sidl,
	    (const uint8_t *)CODE_AD_A, sizeof(CODE_AD_A) - 1, msg, &ml)) != 0)
		return r;
	if ((r = code_post(&cl->hc, cl->np, "a", cl->base_a + 1, msg, ml,
	    0)) != 0 || (r = claim_wait(cl, &m2)) != 0)
		goto out;
	cl->after_b = m2.seq;
	if (m2.len > ALX_CPACE_TAG_LEN && alx_cpace_finish(&cp,
	    m2.data + ALX_CPACE_TAG_LEN, m2.len - ALX_CPACE_TAG_LEN,
	    isk) == 0 && cp.peer_adlen == sizeof(CODE_AD_B) - 1 &&
	    memcmp(cp.peer_ad, CODE_AD_B, cp.peer_adlen) == 0 &&
	    alx_cpace_confirm(isk, ALX_CPACE_INITIATOR, tag, want,
	    cl->key) == 0)
		tag_ok = alx_cpace_check_tag(want, m2.data,
		    ALX_CPACE_TAG_LEN) == 0;
	else
		alx_random(tag, sizeof(tag));
	alx_wipe(isk, sizeof(isk));
	alx_wipe(want, sizeof(want));
	if ((r = code_post(&cl->hc, cl->np, "a", cl->base_a + 2, tag,
	    sizeof(tag), 0)) == 0 && !tag_ok)
		r = ALX_ERR_PAKE;
out:
	alx_cpace_wipe(&cp);
	free(m2.data);
	return r;
}

/* Message 4: the sealed invite, for the session and role the code named;
 * then message 5, the receipt. */
static int
claim_invite(struct code_claim *cl, char **invite)
{
	struct alx_invite	 inv;
	struct code_msg		 m4;
	uint8_t			 nonce[ALX_NONCE_LEN], *pt = NULL;
	int			 r;

	if ((r = claim_wait(cl, &m4)) != 0)
		return r;
	r = ALX_ERR_PAKE;
	memset(nonce, 0, sizeof(nonce));
	if (m4.len > ALX_TAG_LEN && (pt = calloc(1, m4.len)) != NULL &&
	    alx_aead_open(pt, cl->key, nonce, CODE_AAD, sizeof(CODE_AAD) - 1,
	    m4.data, m4.len) == 0 && alx_invite_parse(&inv, (char *)pt) == 0) {
		if (memcmp(inv.sid, cl->sid, ALX_SID_LEN) == 0 &&
		    inv.role == cl->role) {
			*invite = (char *)pt;
			pt = NULL;
			r = 0;
		}
		alx_invite_wipe(&inv);
	}
	if (pt != NULL) {
		alx_wipe(pt, m4.len);
		free(pt);
	}
	alx_wipe(m4.data, m4.len);
	free(m4.data);
	if (r == 0 && code_post(&cl->hc, cl->np, "a", cl->base_a + 3,
	    (const uint8_t *)"ok", 2, 0) != 0)
		alxs_debug(&cl->hc, "code: the receipt did not go out");
	return r;
}

int
alxs_code_receive(const struct alxs_conf *conf, const char *text,
    int64_t answer_s, char **invite, int *gone)
{
	struct code_claim	 cl;
	char			*cause = NULL;
	uint16_t		 w[2];
	int			 r;

	*invite = NULL;
	*gone = 0;
	alxs_error_clear();
	memset(&cl, 0, sizeof(cl));
	cl.answer_s = answer_s;
	if (alx_code_normalize(cl.code, text) != 0 ||
	    alx_code_parse(cl.code, &cl.np, w) != 0)
		return ALX_ERR_BAD_CODE;
	if ((r = alxs_http_open(&cl.hc, conf->relay, conf, &cause)) != 0) {
		alxs_fail(r, "--relay: %s", cause ? cause : "unusable");
		free(cause);
		return r;
	}
	if ((r = claim_lookup(&cl)) == 0 && (r = claim_pake(&cl)) == 0)
		r = claim_invite(&cl, invite);
	*gone = cl.gone;
	alxs_http_close(&cl.hc);
	alx_wipe(&cl, sizeof(cl));
	return r;
}
