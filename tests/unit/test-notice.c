/*
 * test-notice.c: claim, announce and the notices close, code-open and
 * code-fail (protocol.md sections 8.2 and 14): exact body bytes, round
 * trips, and every check of the open functions.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/crypto.h"
#include "airlox/json.h"
#include "airlox/proto.h"
#include "tap.h"

#define SID_B64		"EBESExQVFhcYGRobHB0eHw"
#define JOB_B64		"ICEiIyQlJicoKSorLC0uLw"
#define T0		1767225600

static struct alx_signkey	runner, owner, other;
static uint8_t			sid[ALX_SID_LEN], sid2[ALX_SID_LEN];
static uint8_t			job[ALX_ID_LEN];
static char			runner_fp[ALX_FP_STRLEN + 1];
static char			other_fp[ALX_FP_STRLEN + 1];

static void
make_key(struct alx_signkey *k, uint8_t fill)
{
	uint8_t	seed[ALX_SIGN_SEED_LEN];

	memset(seed, fill, sizeof(seed));
	if (alx_sign_from_seed(k, seed) != 0)
		abort();
}

static void
setup(void)
{
	size_t	i;

	make_key(&runner, 0x11);
	make_key(&owner, 0x22);
	make_key(&other, 0x33);
	for (i = 0; i < ALX_SID_LEN; i++) {
		sid[i] = (uint8_t)(0x10 + i);
		sid2[i] = sid[i];
		job[i] = (uint8_t)(0x20 + i);
	}
	sid2[15] ^= 1;
	alx_fingerprint_str(runner_fp, runner.pk, ALX_SIGN_PK_LEN);
	alx_fingerprint_str(other_fp, other.pk, ALX_SIGN_PK_LEN);
}

/* An outer object around any body, signed with k (sealed by alx_signed). */
static char *
seal(const char *type, const char *body, const struct alx_signkey *k)
{
	struct alx_signed	 s;
	char			*raw;

	memset(&s, 0, sizeof(s));
	if (alx_signed_seal(&s, type, body, strlen(body), k) != 0)
		return NULL;
	raw = s.raw;
	s.raw = NULL;
	alx_signed_free(&s);
	return raw;
}

/* The outer object text with one bit of the signature flipped. */
static char *
flip_sig(const struct alx_signed *s, unsigned bit)
{
	struct alx_jw	 w;
	uint8_t		 sig[ALX_SIG_LEN];
	char		*out;

	memcpy(sig, s->sig, sizeof(sig));
	sig[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	alx_jw_init(&w, 0);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "v", 1);
	alx_jw_kstr(&w, "t", s->type);
	alx_jw_kb64(&w, "key", s->key, sizeof(s->key));
	alx_jw_kb64(&w, "body", s->body, s->body_len);
	alx_jw_kb64(&w, "sig", sig, sizeof(sig));
	alx_jw_obj_end(&w);
	if (alx_jw_finish(&w, &out, NULL) != 0)
		return NULL;
	return out;
}

/* Count how many of the 512 one-bit signature flips still open. */
static int
flips_that_open(const struct alx_signed *s,
    int (*open)(const char *, size_t))
{
	unsigned	bit;
	char		*j;
	int		n = 0;

	for (bit = 0; bit < ALX_SIG_LEN * 8; bit++) {
		if ((j = flip_sig(s, bit)) == NULL ||
		    open(j, strlen(j)) != ALX_ERR_BAD_SIGNATURE)
			n++;
		free(j);
	}
	return n;
}

/*
 * Claims.
 */

static int
claim_open_fn(const char *j, size_t len)
{
	struct alx_claim	c;
	int			r;

	r = alx_claim_open(&c, j, len, sid, runner.pk);
	alx_claim_free(&c);
	return r;
}

static int
claim_open_body(const char *body, const struct alx_signkey *k)
{
	char	*j;
	int	 r;

	if ((j = seal("claim", body, k)) == NULL)
		return -999;
	r = claim_open_fn(j, strlen(j));
	free(j);
	return r;
}

static void
test_claim(void)
{
	struct alx_claim	 c, d;
	char			 want[256], body[512];

	memset(&c, 0, sizeof(c));
	memcpy(c.sid, sid, sizeof(sid));
	memcpy(c.job, job, sizeof(job));
	c.time = T0;
	is_int(alx_claim_sign(&c, &runner), 0, "claim: sign");
	snprintf(want, sizeof(want), "{\"v\":1,\"sid\":\"" SID_B64
	    "\",\"job\":\"" JOB_B64 "\",\"runner\":\"%s\",\"time\":%d}",
	    runner_fp, T0);
	is_str((char *)c.obj.body, want, "claim: exact body bytes");
	is_str(c.obj.type, "claim", "claim: type");
	is_int(alx_claim_sign(&c, &runner), 0, "claim: re-sign replaces obj");

	is_int(alx_claim_open(&d, c.obj.raw, c.obj.raw_len, sid, runner.pk),
	    0, "claim: open");
	ok(memcmp(d.sid, sid, sizeof(sid)) == 0 &&
	    memcmp(d.job, job, sizeof(job)) == 0 && d.time == T0 &&
	    memcmp(d.runner, c.runner, ALX_FP_LEN) == 0, "claim: fields");
	alx_claim_free(&d);
	is_int(alx_claim_open(&d, c.obj.raw, c.obj.raw_len, sid, other.pk),
	    ALX_ERR_UNKNOWN_KEY, "claim: not the trusted key");
	ok(d.obj.raw == NULL && d.time == 0, "claim: nothing left on failure");
	is_int(alx_claim_open(&d, c.obj.raw, c.obj.raw_len, sid2, runner.pk),
	    ALX_ERR_WRONG_SESSION, "claim: other session");
	is_int(alx_claim_open(&d, c.obj.raw, c.obj.raw_len - 1, sid,
	    runner.pk), ALX_ERR_BAD_JSON, "claim: truncated object");
	is_int(flips_that_open(&c.obj, claim_open_fn), 0,
	    "claim: every signature bit flip refused");
	{
		struct alx_announce a;

		is_int(alx_announce_open(&a, c.obj.raw, c.obj.raw_len, sid,
		    runner.pk), ALX_ERR_INVALID,
		    "claim: not accepted as an announce");
	}

	/* Bodies signed by the trusted key but wrong inside. */
	snprintf(body, sizeof(body), "{\"v\":1,\"sid\":\"" SID_B64
	    "\",\"job\":\"" JOB_B64 "\",\"runner\":\"%s\",\"time\":1}",
	    other_fp);
	is_int(claim_open_body(body, &runner), ALX_ERR_NOT_SIGNED,
	    "claim: runner is not the signer");
	snprintf(body, sizeof(body), "{\"v\":2,\"sid\":\"" SID_B64
	    "\",\"job\":\"" JOB_B64 "\",\"runner\":\"%s\",\"time\":1}",
	    runner_fp);
	is_int(claim_open_body(body, &runner), ALX_ERR_VERSION,
	    "claim: body version 2");
	snprintf(body, sizeof(body), "{\"v\":1,\"sid\":\"" SID_B64
	    "\",\"runner\":\"%s\",\"time\":1}", runner_fp);
	is_int(claim_open_body(body, &runner), ALX_ERR_MISSING,
	    "claim: no job");
	snprintf(body, sizeof(body), "{\"v\":1,\"sid\":\"" SID_B64
	    "\",\"job\":\"" JOB_B64 "A\",\"runner\":\"%s\",\"time\":1}",
	    runner_fp);
	is_int(claim_open_body(body, &runner), ALX_ERR_BAD_BASE64,
	    "claim: job id of the wrong length");
	snprintf(body, sizeof(body), "{\"v\":1,\"sid\":\"" SID_B64
	    "\",\"job\":\"" JOB_B64 "\",\"runner\":\"%s\",\"time\":-1}",
	    runner_fp);
	is_int(claim_open_body(body, &runner), ALX_ERR_RANGE,
	    "claim: negative time");
	snprintf(body, sizeof(body), "{\"v\":1,\"job\":\"" JOB_B64
	    "\",\"runner\":\"%s\",\"time\":1}", runner_fp);
	is_int(claim_open_body(body, &runner), ALX_ERR_MISSING,
	    "claim: no sid");
	snprintf(body, sizeof(body), "{\"v\":1,\"sid\":\"" SID_B64
	    "\",\"job\":\"" JOB_B64 "\",\"runner\":\"%s\",\"time\":1,"
	    "\"later\":[1,2]}", runner_fp);
	is_int(claim_open_body(body, &runner), 0,
	    "claim: unknown body member ignored");
	is_int(claim_open_body("[]", &runner), ALX_ERR_TYPE,
	    "claim: body not an object");
	c.time = -1;
	is_int(alx_claim_sign(&c, &runner), ALX_ERR_RANGE,
	    "claim: sign refuses a negative time");
	alx_claim_free(&c);
}

/*
 * Announcements.
 */

static int
announce_open_fn(const char *j, size_t len)
{
	struct alx_announce	a;
	int			r;

	r = alx_announce_open(&a, j, len, sid, runner.pk);
	alx_announce_free(&a);
	return r;
}

static int
announce_open_body(const char *rest, const char *fp)
{
	char	 body[2048], *j;
	int	 r;

	snprintf(body, sizeof(body), "{\"v\":1,\"sid\":\"" SID_B64
	    "\",\"runner\":\"%s\",%s}", fp, rest);
	if ((j = seal("announce", body, &runner)) == NULL)
		return -999;
	r = announce_open_fn(j, strlen(j));
	free(j);
	return r;
}

static void
announce_fill(struct alx_announce *a, char **labels, size_t n)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->sid, sid, sizeof(sid));
	strcpy(a->name, "gpu-box");
	a->labels = labels;
	a->nlabels = n;
	a->slots = 2;
	a->kinds = ALX_JOBKIND_SHELL | ALX_JOBKIND_PYTHON;
	strcpy(a->sandbox, "docker");
	strcpy(a->version, "0.1.0");
	a->time = T0;
}

#define ANN(x)	x	/* after v, sid and runner */
#define ANN_REST \
	"\"slots\":1,\"kinds\":[\"shell\"],\"sandbox\":\"linux\"," \
	"\"version\":\"1.0\",\"time\":5"

static void
test_announce(void)
{
	char			*labels[] = { (char *)(uintptr_t)"gpu",
	    (char *)(uintptr_t)"pool.a" };
	char			*many[ALX_MAX_LABELS + 1];
	char			 lab[ALX_MAX_LABELS + 1][8];
	struct alx_announce	 a, b;
	char			 want[512];
	size_t			 i;

	announce_fill(&a, labels, 2);
	is_int(alx_announce_sign(&a, &runner), 0, "announce: sign");
	snprintf(want, sizeof(want), "{\"v\":1,\"sid\":\"" SID_B64
	    "\",\"runner\":\"%s\",\"name\":\"gpu-box\",\"labels\":[\"gpu\","
	    "\"pool.a\"],\"slots\":2,\"kinds\":[\"shell\",\"python\"],"
	    "\"sandbox\":\"docker\",\"version\":\"0.1.0\",\"time\":%d}",
	    runner_fp, T0);
	is_str((char *)a.obj.body, want, "announce: exact body bytes");
	is_int(alx_announce_open(&b, a.obj.raw, a.obj.raw_len, sid,
	    runner.pk), 0, "announce: open");
	ok(strcmp(b.name, "gpu-box") == 0 && b.nlabels == 2 &&
	    strcmp(b.labels[1], "pool.a") == 0 && b.slots == 2 &&
	    b.kinds == a.kinds && strcmp(b.sandbox, "docker") == 0 &&
	    strcmp(b.version, "0.1.0") == 0 && b.time == T0 &&
	    b.network == 0 && memcmp(b.runner, a.runner, ALX_FP_LEN) == 0,
	    "announce: fields");
	alx_announce_free(&b);
	ok(b.labels == NULL && b.obj.raw == NULL, "announce: free clears");
	is_int(alx_announce_open(&b, a.obj.raw, a.obj.raw_len, sid,
	    owner.pk), ALX_ERR_UNKNOWN_KEY, "announce: not the trusted key");
	is_int(alx_announce_open(&b, a.obj.raw, a.obj.raw_len, sid2,
	    runner.pk), ALX_ERR_WRONG_SESSION, "announce: other session");
	is_int(flips_that_open(&a.obj, announce_open_fn), 0,
	    "announce: every signature bit flip refused");
	alx_signed_free(&a.obj);

	/* A runner started with --network says so, signed. */
	announce_fill(&a, labels, 2);
	a.network = 1;
	is_int(alx_announce_sign(&a, &runner), 0, "announce: sign, network");
	ok(strstr((char *)a.obj.body, "\"version\":\"0.1.0\",\"network\":"
	    "true,\"time\"") != NULL, "announce: network member written");
	is_int(alx_announce_open(&b, a.obj.raw, a.obj.raw_len, sid,
	    runner.pk), 0, "announce: open, network");
	ok(b.network == 1, "announce: network read back");
	alx_announce_free(&b);
	alx_signed_free(&a.obj);

	/* Sign-side checks. */
	announce_fill(&a, NULL, 0);
	is_int(alx_announce_sign(&a, &runner), 0, "announce: no labels");
	ok(strstr((char *)a.obj.body, "\"labels\":[]") != NULL,
	    "announce: empty label list written");
	alx_signed_free(&a.obj);
	strcpy(a.name, "GPU");
	is_int(alx_announce_sign(&a, &runner), ALX_ERR_BAD_NAME,
	    "announce: upper-case name");
	strcpy(a.name, "");
	is_int(alx_announce_sign(&a, &runner), ALX_ERR_BAD_NAME,
	    "announce: empty name");
	announce_fill(&a, labels, 2);
	a.slots = 0;
	is_int(alx_announce_sign(&a, &runner), ALX_ERR_RANGE,
	    "announce: 0 slots");
	a.slots = 65;
	is_int(alx_announce_sign(&a, &runner), ALX_ERR_RANGE,
	    "announce: 65 slots");
	a.slots = 64;
	a.kinds = 0;
	is_int(alx_announce_sign(&a, &runner), ALX_ERR_INVALID,
	    "announce: no kinds");
	a.kinds = ALX_JOBKIND_PYTHON;
	strcpy(a.sandbox, "");
	is_int(alx_announce_sign(&a, &runner), ALX_ERR_INVALID,
	    "announce: empty sandbox");
	strcpy(a.sandbox, "process");
	strcpy(a.version, "1 0");
	is_int(alx_announce_sign(&a, &runner), ALX_ERR_INVALID,
	    "announce: space in version");
	strcpy(a.version, "0.2.0-rc1+g1234");
	labels[1] = (char *)(uintptr_t)"gpu";
	is_int(alx_announce_sign(&a, &runner), ALX_ERR_INVALID,
	    "announce: label listed twice");
	labels[1] = (char *)(uintptr_t)"-gpu";
	is_int(alx_announce_sign(&a, &runner), ALX_ERR_BAD_NAME,
	    "announce: bad label");
	labels[1] = (char *)(uintptr_t)"pool.a";
	for (i = 0; i <= ALX_MAX_LABELS; i++) {
		snprintf(lab[i], sizeof(lab[i]), "l%zu", i);
		many[i] = lab[i];
	}
	a.labels = many;
	a.nlabels = ALX_MAX_LABELS + 1;
	is_int(alx_announce_sign(&a, &runner), ALX_ERR_TOO_LARGE,
	    "announce: 17 labels");
	a.nlabels = ALX_MAX_LABELS;
	is_int(alx_announce_sign(&a, &runner), 0, "announce: 16 labels");
	is_int(alx_announce_open(&b, a.obj.raw, a.obj.raw_len, sid,
	    runner.pk), 0, "announce: 16 labels open");
	alx_announce_free(&b);
	alx_signed_free(&a.obj);

	/* Open-side checks on bodies the trusted key signed. */
	is_int(announce_open_body(ANN("\"name\":\"r1\",\"labels\":[],"
	    ANN_REST), runner_fp), 0, "announce body: minimal");
	is_int(announce_open_body(ANN("\"name\":\"r1\",\"labels\":[],"
	    ANN_REST), other_fp), ALX_ERR_NOT_SIGNED,
	    "announce body: runner is not the signer");
	is_int(announce_open_body(ANN("\"name\":\"R1\",\"labels\":[],"
	    ANN_REST), runner_fp), ALX_ERR_BAD_NAME,
	    "announce body: upper-case name");
	is_int(announce_open_body(ANN("\"name\":\"r1\",\"labels\":[\"a b\"],"
	    ANN_REST), runner_fp), ALX_ERR_BAD_NAME,
	    "announce body: bad label");
	is_int(announce_open_body(ANN("\"name\":\"r1\",\"labels\":[\"a\\u0000"
	    "b\"]," ANN_REST), runner_fp), ALX_ERR_INVALID,
	    "announce body: escaped NUL in a label");
	is_int(announce_open_body(ANN("\"name\":\"r1\",\"labels\":[1],"
	    ANN_REST), runner_fp), ALX_ERR_TYPE,
	    "announce body: label not a string");
	is_int(announce_open_body(ANN("\"name\":\"r1\",\"labels\":[\"a\",\"b\","
	    "\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\",\"l\",\"m\","
	    "\"n\",\"o\",\"p\",\"q\"]," ANN_REST), runner_fp),
	    ALX_ERR_TOO_LARGE, "announce body: 17 labels");
	is_int(announce_open_body(ANN("\"name\":\"r1\",\"labels\":[],"
	    "\"slots\":65,\"kinds\":[\"shell\"],\"sandbox\":\"linux\","
	    "\"version\":\"1.0\",\"time\":5"), runner_fp), ALX_ERR_RANGE,
	    "announce body: 65 slots");
	is_int(announce_open_body(ANN("\"name\":\"r1\",\"labels\":[],"
	    "\"slots\":0,\"kinds\":[\"shell\"],\"sandbox\":\"linux\","
	    "\"version\":\"1.0\",\"time\":5"), runner_fp), ALX_ERR_RANGE,
	    "announce body: 0 slots");
	is_int(announce_open_body(ANN("\"name\":\"r1\",\"labels\":[],"
	    "\"slots\":1,\"kinds\":[\"node\"],\"sandbox\":\"linux\","
	    "\"version\":\"1.0\",\"time\":5"), runner_fp), ALX_ERR_INVALID,
	    "announce body: unknown kind");
	is_int(announce_open_body(ANN("\"name\":\"r1\",\"labels\":[],"
	    "\"slots\":1,\"kinds\":[],\"sandbox\":\"linux\","
	    "\"version\":\"1.0\",\"time\":5"), runner_fp), ALX_ERR_INVALID,
	    "announce body: no kinds");
	is_int(announce_open_body(ANN("\"name\":\"r1\",\"labels\":[],"
	    "\"slots\":1,\"kinds\":[\"shell\"],"
	    "\"sandbox\":\"a-very-long-sandbox\","
	    "\"version\":\"1.0\",\"time\":5"), runner_fp), ALX_ERR_TOO_LARGE,
	    "announce body: sandbox too long");
	is_int(announce_open_body(ANN("\"name\":\"r1\",\"slots\":1,"
	    "\"kinds\":[\"shell\"],\"sandbox\":\"linux\",\"version\":\"1.0\","
	    "\"time\":5"), runner_fp), ALX_ERR_MISSING,
	    "announce body: no labels");
	is_int(announce_open_body(ANN("\"name\":\"r1\",\"labels\":[],"
	    ANN_REST ",\"gpu\":\"a100\""), runner_fp), 0,
	    "announce body: unknown member ignored");
}

/*
 * Notices.
 */

static void
notice_fill(struct alx_notice *n, const char *type)
{
	memset(n, 0, sizeof(*n));
	strcpy(n->type, type);
	memcpy(n->sid, sid, sizeof(sid));
	n->time = T0;
}

static int
notice_open_body(const char *type, const char *open_as, const char *body)
{
	struct alx_notice	 n;
	char			*j;
	int			 r;

	if ((j = seal(type, body, &owner)) == NULL)
		return -999;
	r = alx_notice_open(&n, j, strlen(j), open_as, sid, owner.pk);
	alx_notice_free(&n);
	free(j);
	return r;
}

static int
close_open_fn(const char *j, size_t len)
{
	struct alx_notice	n;
	int			r;

	r = alx_notice_open(&n, j, len, "close", sid, owner.pk);
	alx_notice_free(&n);
	return r;
}

#define NB(x)	"{\"v\":1,\"sid\":\"" SID_B64 "\"" x "}"

static void
test_notices(void)
{
	struct alx_notice	n, m;

	notice_fill(&n, "close");
	is_int(alx_notice_sign(&n, &owner), 0, "close: sign");
	is_str((char *)n.obj.body, NB(",\"time\":1767225600"),
	    "close: exact body bytes");
	is_int(alx_notice_open(&m, n.obj.raw, n.obj.raw_len, "close", sid,
	    owner.pk), 0, "close: open");
	ok(strcmp(m.type, "close") == 0 && m.time == T0, "close: fields");
	alx_notice_free(&m);
	is_int(alx_notice_open(&m, n.obj.raw, n.obj.raw_len, "code-open", sid,
	    owner.pk), ALX_ERR_INVALID, "close: not a code-open");
	is_int(alx_notice_open(&m, n.obj.raw, n.obj.raw_len, "claim", sid,
	    owner.pk), ALX_ERR_INVALID, "close: claim is not a notice type");
	is_int(alx_notice_open(&m, n.obj.raw, n.obj.raw_len, "close", sid,
	    runner.pk), ALX_ERR_UNKNOWN_KEY, "close: not the trusted key");
	is_int(alx_notice_open(&m, n.obj.raw, n.obj.raw_len, "close", sid2,
	    owner.pk), ALX_ERR_WRONG_SESSION, "close: other session");
	is_int(flips_that_open(&n.obj, close_open_fn), 0,
	    "close: every signature bit flip refused");
	alx_notice_free(&n);

	notice_fill(&n, "code-open");
	n.role = ALX_ROLE_RUNNER;
	is_int(alx_notice_sign(&n, &owner), 0, "code-open: sign");
	is_str((char *)n.obj.body,
	    NB(",\"role\":\"runner\",\"time\":1767225600"),
	    "code-open: exact body bytes");
	is_int(alx_notice_open(&m, n.obj.raw, n.obj.raw_len, "code-open", sid,
	    owner.pk), 0, "code-open: open");
	ok(m.role == ALX_ROLE_RUNNER && m.time == T0, "code-open: fields");
	alx_notice_free(&m);
	alx_notice_free(&n);
	notice_fill(&n, "code-open");
	n.role = ALX_ROLE_COUNT;
	is_int(alx_notice_sign(&n, &owner), ALX_ERR_WRONG_ROLE,
	    "code-open: sign refuses an unknown role");

	notice_fill(&n, "code-fail");
	n.nameplate = 7;
	is_int(alx_notice_sign(&n, &owner), 0, "code-fail: sign");
	is_str((char *)n.obj.body, NB(",\"nameplate\":7,\"time\":1767225600"),
	    "code-fail: exact body bytes");
	is_int(alx_notice_open(&m, n.obj.raw, n.obj.raw_len, "code-fail", sid,
	    owner.pk), 0, "code-fail: open");
	ok(m.nameplate == 7, "code-fail: nameplate");
	alx_notice_free(&m);
	alx_notice_free(&n);
	notice_fill(&n, "code-fail");
	n.nameplate = 0;
	is_int(alx_notice_sign(&n, &owner), ALX_ERR_RANGE,
	    "code-fail: nameplate 0");
	n.nameplate = 1000000;
	is_int(alx_notice_sign(&n, &owner), ALX_ERR_RANGE,
	    "code-fail: nameplate above 999999");
	notice_fill(&n, "claim");
	is_int(alx_notice_sign(&n, &owner), ALX_ERR_INVALID,
	    "notice: claim is not a notice type");
	notice_fill(&n, "close");
	memset(n.type, 'c', sizeof(n.type));
	is_int(alx_notice_sign(&n, &owner), ALX_ERR_INVALID,
	    "notice: unterminated type");

	is_int(notice_open_body("code-open", "code-open",
	    NB(",\"role\":\"admin\",\"time\":1")), ALX_ERR_WRONG_ROLE,
	    "code-open body: unknown role");
	is_int(notice_open_body("code-open", "code-open",
	    NB(",\"time\":1")), ALX_ERR_MISSING, "code-open body: no role");
	is_int(notice_open_body("code-fail", "code-fail",
	    NB(",\"nameplate\":0,\"time\":1")), ALX_ERR_RANGE,
	    "code-fail body: nameplate 0");
	is_int(notice_open_body("code-fail", "code-fail",
	    NB(",\"nameplate\":\"7\",\"time\":1")), ALX_ERR_TYPE,
	    "code-fail body: nameplate as a string");
	is_int(notice_open_body("close", "close", NB("")), ALX_ERR_MISSING,
	    "close body: no time");
	is_int(notice_open_body("close", "close",
	    "{\"v\":1,\"sid\":\"" SID_B64 "\",\"time\":1,\"sid\":\"x\"}"),
	    ALX_ERR_DUP_KEY, "close body: duplicate sid");
	is_int(notice_open_body("close", "close",
	    "{\"v\":1,\"sid\":\"EBESExQVFhcYGRobHB0eHx\",\"time\":1}"),
	    ALX_ERR_BAD_BASE64, "close body: non-canonical sid");
	is_int(notice_open_body("close", "close",
	    NB(",\"time\":1,\"why\":\"done\"")), 0,
	    "close body: unknown member ignored");
}

int
main(void)
{
	if (alx_crypto_init() != 0)
		tap_skip_all("crypto init failed");
	setup();
	test_claim();
	test_announce();
	test_notices();
	alx_sign_wipe(&runner);
	alx_sign_wipe(&owner);
	alx_sign_wipe(&other);
	return tap_done();
}
