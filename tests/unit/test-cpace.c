/*
 * test-cpace.c: CPace against the CFRG vectors (tests/vectors/cpace.json,
 * read table-driven), full exchanges with key confirmation, and rejection
 * of bad messages.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sodium.h>

#include "airlox/json.h"
#include "airlox/err.h"
#include "airlox/cpace.h"
#include "tap.h"

#define HEXMAX	1024

/* The vectors, read with libairlox's own JSON reader. */
static struct alx_json	*vj;

static int
tok_eq(int i, const char *s)
{
	return alx_json_str_eq(vj, i, s);
}

/* Value token of key in object obj, or -1. */
static int
obj_get(int obj, const char *key)
{
	return obj < 0 ? -1 : alx_json_obj_get(vj, obj, key);
}

/* Hex string at obj.key into out; length or -1. */
static int
get_hex(int obj, const char *key, uint8_t *out, size_t cap)
{
	int	 t = obj_get(obj, key);
	char	*hex = NULL;
	size_t	 hlen, len;
	int	 r = -1;

	if (t < 0 || alx_json_str(vj, t, &hex, &hlen) != ALX_OK)
		return -1;
	if (sodium_hex2bin(out, cap, hex, hlen, NULL, &len, NULL) == 0)
		r = (int)len;
	free(hex);
	return r;
}

static int
load_vectors(void)
{
	struct alx_json_limits	 lim = { 4 * 1024 * 1024, 16, 65536 };
	const char		*srcdir = getenv("srcdir");
	char			 path[1024], *text;
	FILE			*f;
	long			 size;
	int			 r;

	snprintf(path, sizeof(path), "%s/tests/vectors/cpace.json",
	    srcdir != NULL ? srcdir : ".");
	if ((f = fopen(path, "rb")) == NULL)
		return -1;
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (text = malloc((size_t)size)) == NULL) {
		fclose(f);
		return -1;
	}
	if (fread(text, 1, (size_t)size, f) != (size_t)size) {
		free(text);
		fclose(f);
		return -1;
	}
	fclose(f);
	r = alx_json_parse(&vj, text, (size_t)size, &lim);
	free(text);
	return r == ALX_OK && alx_json_type(vj, 0) == ALX_JSON_OBJECT ? 0 : -1;
}

struct hexv {
	uint8_t	b[HEXMAX];
	int	len;
};

static void
check_prepend_len(const char *name, int in, int out)
{
	struct hexv	data, want;
	uint8_t		got[HEXMAX];
	size_t		pos = 0;

	data.len = get_hex(in, "data", data.b, sizeof(data.b));
	want.len = get_hex(out, "result", want.b, sizeof(want.b));
	ok(data.len >= 0 && want.len > 0 &&
	    alx_cpace_lv_add(got, sizeof(got), &pos, data.b,
	    (size_t)data.len) == ALX_OK && pos == (size_t)want.len &&
	    memcmp(got, want.b, pos) == 0, "%s", name);
	/* One byte short of room: refused. */
	pos = 0;
	is_int(alx_cpace_lv_add(got, (size_t)want.len - 1, &pos, data.b,
	    (size_t)data.len), ALX_ERR_TOO_LARGE, "%s: no overflow", name);
}

static void
check_lv_cat(const char *name, int in, int out)
{
	static const char	*keys[] = { "a0", "a1", "a2", "a3" };
	struct hexv		 a, want;
	uint8_t			 got[HEXMAX];
	size_t			 i, pos = 0;
	int			 r = 0;

	for (i = 0; i < 4; i++) {
		a.len = get_hex(in, keys[i], a.b, sizeof(a.b));
		if (a.len < 0 || alx_cpace_lv_add(got, sizeof(got), &pos, a.b,
		    (size_t)a.len) != ALX_OK)
			r = -1;
	}
	want.len = get_hex(out, "result", want.b, sizeof(want.b));
	ok(r == 0 && pos == (size_t)want.len && memcmp(got, want.b, pos) == 0,
	    "%s", name);
}

static void
check_o_cat(const char *name, int in, int out)
{
	struct hexv	a, b, want;
	uint8_t		got[HEXMAX];
	size_t		len;

	a.len = get_hex(in, "a", a.b, sizeof(a.b));
	b.len = get_hex(in, "b", b.b, sizeof(b.b));
	want.len = get_hex(out, "result", want.b, sizeof(want.b));
	ok(a.len >= 0 && b.len >= 0 && want.len > 0 &&
	    alx_cpace_transcript(got, sizeof(got), &len, 1, a.b, (size_t)a.len,
	    b.b, (size_t)b.len) == ALX_OK && len == (size_t)want.len &&
	    memcmp(got, want.b, len) == 0, "%s", name);
}

/* lv_cat(Y, AD) of the named inputs. */
static int
make_msg(int in, const char *ykey, const char *adkey, uint8_t *msg,
    size_t cap, size_t *len)
{
	struct hexv	y, ad;

	*len = 0;
	y.len = get_hex(in, ykey, y.b, sizeof(y.b));
	ad.len = get_hex(in, adkey, ad.b, sizeof(ad.b));
	if (y.len < 0 || ad.len < 0)
		return -1;
	if (alx_cpace_lv_add(msg, cap, len, y.b, (size_t)y.len) != ALX_OK ||
	    alx_cpace_lv_add(msg, cap, len, ad.b, (size_t)ad.len) != ALX_OK)
		return -1;
	return 0;
}

static void
check_transcript(const char *name, int in, int out, int symmetric)
{
	uint8_t		ma[HEXMAX], mb[HEXMAX], got[2 * HEXMAX];
	size_t		la, lb, len;
	struct hexv	want;

	want.len = get_hex(out, "result", want.b, sizeof(want.b));
	ok(make_msg(in, "Ya", "ADa", ma, sizeof(ma), &la) == 0 &&
	    make_msg(in, "Yb", "ADb", mb, sizeof(mb), &lb) == 0 &&
	    alx_cpace_transcript(got, sizeof(got), &len, symmetric, ma, la,
	    mb, lb) == ALX_OK && want.len > 0 && len == (size_t)want.len &&
	    memcmp(got, want.b, len) == 0, "%s", name);
}

static void
check_scalar_mult_vfy(const char *name, int in, int out)
{
	struct hexv	s, x, want;
	uint8_t		got[ALX_CPACE_POINT_LEN];
	int		r;

	s.len = get_hex(in, "s", s.b, sizeof(s.b));
	x.len = get_hex(in, "X", x.b, sizeof(x.b));
	want.len = get_hex(out, "result", want.b, sizeof(want.b));
	if (s.len != 32 || x.len != 32 || want.len != 32) {
		ok(0, "%s: vector readable", name);
		return;
	}
	r = alx_cpace_scalar_mult_vfy(got, s.b, x.b);
	if (sodium_is_zero(want.b, 32))	/* G.I: the protocol aborts */
		is_int(r, ALX_ERR_PAKE, "%s: rejected", name);
	else
		ok(r == ALX_OK && memcmp(got, want.b, 32) == 0, "%s", name);
}

/* Expected output `key` equals got[0..len). */
static void
is_out(int out, const char *key, const uint8_t *got, size_t len)
{
	struct hexv	want;

	want.len = get_hex(out, key, want.b, sizeof(want.b));
	ok(want.len > 0 && (size_t)want.len == len &&
	    memcmp(got, want.b, len) == 0, "ristretto255 vector: %s", key);
}

struct run_in {
	struct hexv	prs, ci, sid, ada, adb, ya, yb;
};

static int
read_run(int in, struct run_in *v)
{
	v->prs.len = get_hex(in, "PRS", v->prs.b, sizeof(v->prs.b));
	v->ci.len = get_hex(in, "CI", v->ci.b, sizeof(v->ci.b));
	v->sid.len = get_hex(in, "sid", v->sid.b, sizeof(v->sid.b));
	v->ada.len = get_hex(in, "ADa", v->ada.b, sizeof(v->ada.b));
	v->adb.len = get_hex(in, "ADb", v->adb.b, sizeof(v->adb.b));
	v->ya.len = get_hex(in, "ya", v->ya.b, sizeof(v->ya.b));
	v->yb.len = get_hex(in, "yb", v->yb.b, sizeof(v->yb.b));
	return v->prs.len < 0 || v->ci.len < 0 || v->sid.len < 0 ||
	    v->ada.len < 0 || v->adb.len < 0 || v->ya.len != 32 ||
	    v->yb.len != 32 ? -1 : 0;
}

/* One role's run with the vector's scalars; returns ISK. */
static int
vector_run(const struct run_in *v, int role, uint8_t *ma, size_t *la,
    uint8_t *mb, size_t *lb, uint8_t isk_a[64], uint8_t isk_b[64])
{
	struct alx_cpace	a, b;
	int			ra = role == ALX_CPACE_SYMMETRIC ? role :
				    ALX_CPACE_INITIATOR;
	int			rb = role == ALX_CPACE_SYMMETRIC ? role :
				    ALX_CPACE_RESPONDER;

	*la = *lb = ALX_CPACE_MSG_MAX;
	if (alx_cpace_start_scalar(&a, ra, v->ya.b, v->prs.b,
	    (size_t)v->prs.len, v->ci.b, (size_t)v->ci.len, v->sid.b,
	    (size_t)v->sid.len, v->ada.b, (size_t)v->ada.len, ma, la) != 0 ||
	    alx_cpace_start_scalar(&b, rb, v->yb.b, v->prs.b,
	    (size_t)v->prs.len, v->ci.b, (size_t)v->ci.len, v->sid.b,
	    (size_t)v->sid.len, v->adb.b, (size_t)v->adb.len, mb, lb) != 0)
		return -1;
	if (alx_cpace_finish(&a, mb, *lb, isk_a) != 0 ||
	    alx_cpace_finish(&b, ma, *la, isk_b) != 0)
		return -1;
	return 0;
}

static void
check_run(int in, int out)
{
	struct run_in	v;
	uint8_t		buf[ALX_CPACE_GENSTR_MAX], g[32], h[64], k[32];
	uint8_t		ma[ALX_CPACE_MSG_MAX], mb[ALX_CPACE_MSG_MAX];
	uint8_t		isk_a[64], isk_b[64], t[ALX_CPACE_TRANSCRIPT_MAX];
	uint8_t		isk_in[ALX_CPACE_TRANSCRIPT_MAX + 512], so[64];
	size_t		len, la, lb, pos;
	const uint8_t	*py, *pad;
	size_t		 padlen;

	if (read_run(in, &v) != 0) {
		ok(0, "ristretto255 vector readable");
		return;
	}
	ok(alx_cpace_generator_string(buf, sizeof(buf), &len, v.prs.b,
	    (size_t)v.prs.len, v.ci.b, (size_t)v.ci.len, v.sid.b,
	    (size_t)v.sid.len) == ALX_OK, "generator_string");
	is_out(out, "generator_string", buf, len);
	ok(alx_cpace_generator(g, h, v.prs.b, (size_t)v.prs.len, v.ci.b,
	    (size_t)v.ci.len, v.sid.b, (size_t)v.sid.len) == ALX_OK,
	    "calculate_generator");
	is_out(out, "generator_hash", h, 64);
	is_out(out, "g", g, 32);

	/* Initiator-responder run. */
	ok(vector_run(&v, ALX_CPACE_INITIATOR, ma, &la, mb, &lb, isk_a,
	    isk_b) == 0, "initiator-responder run with the vector scalars");
	ok(alx_cpace_msg_parse(ma, la, &py, &pad, &padlen) == ALX_OK &&
	    padlen == (size_t)v.ada.len && memcmp(pad, v.ada.b, padlen) == 0,
	    "message A is lv_cat(Ya, ADa)");
	is_out(out, "Ya", ma + 1, 32);
	ok(alx_cpace_msg_parse(mb, lb, &py, &pad, &padlen) == ALX_OK &&
	    padlen == (size_t)v.adb.len, "message B is lv_cat(Yb, ADb)");
	is_out(out, "Yb", mb + 1, 32);
	ok(alx_cpace_scalar_mult_vfy(k, v.ya.b, mb + 1) == ALX_OK,
	    "scalar_mult_vfy(ya, Yb)");
	is_out(out, "K", k, 32);
	ok(alx_cpace_scalar_mult_vfy(k, v.yb.b, ma + 1) == ALX_OK,
	    "scalar_mult_vfy(yb, Ya)");
	is_out(out, "K", k, 32);
	ok(alx_cpace_transcript(t, sizeof(t), &len, 0, ma, la, mb, lb) ==
	    ALX_OK, "transcript_ir");
	is_out(out, "transcript_ir", t, len);
	/* The ISK hash input, rebuilt from the pieces. */
	pos = 0;
	alx_cpace_lv_add(isk_in, sizeof(isk_in), &pos, "CPaceRistretto255_ISK",
	    21);
	alx_cpace_lv_add(isk_in, sizeof(isk_in), &pos, v.sid.b,
	    (size_t)v.sid.len);
	alx_cpace_lv_add(isk_in, sizeof(isk_in), &pos, k, 32);
	memcpy(isk_in + pos, t, len);
	is_out(out, "isk_input_ir", isk_in, pos + len);
	is_out(out, "ISK_IR", isk_a, 64);
	is_out(out, "ISK_IR", isk_b, 64);
	ok(alx_cpace_sid_output(so, 0, ma, la, mb, lb) == ALX_OK,
	    "sid_output ir");
	is_out(out, "sid_output_ir", so, 64);

	/* Symmetric run: transcript_oc. */
	ok(vector_run(&v, ALX_CPACE_SYMMETRIC, ma, &la, mb, &lb, isk_a,
	    isk_b) == 0, "symmetric run with the vector scalars");
	ok(alx_cpace_transcript(t, sizeof(t), &len, 1, ma, la, mb, lb) ==
	    ALX_OK, "transcript_oc");
	is_out(out, "transcript_oc", t, len);
	memcpy(isk_in + pos, t, len);
	is_out(out, "isk_input_oc", isk_in, pos + len);
	is_out(out, "ISK_SY", isk_a, 64);
	is_out(out, "ISK_SY", isk_b, 64);
	ok(alx_cpace_sid_output(so, 1, mb, lb, ma, la) == ALX_OK,
	    "sid_output oc");
	is_out(out, "sid_output_oc", so, 64);
}

static void
run_vectors(void)
{
	int	vecs, i, v, n = 0;

	if ((vecs = obj_get(0, "vectors")) < 0 ||
	    alx_json_type(vj, vecs) != ALX_JSON_ARRAY) {
		ok(0, "cpace.json has a vectors array");
		return;
	}
	for (i = 0; i < alx_json_arr_len(vj, vecs); i++) {
		int	fn, in, out, nm;
		char	name[128], *nms = NULL;

		v = alx_json_arr_at(vj, vecs, i);
		fn = obj_get(v, "function");
		in = obj_get(v, "inputs");
		out = obj_get(v, "outputs");
		nm = obj_get(v, "name");
		if (fn < 0 || in < 0 || out < 0 || nm < 0 ||
		    alx_json_str(vj, nm, &nms, NULL) != ALX_OK) {
			ok(0, "vector %d is complete", i);
			continue;
		}
		snprintf(name, sizeof(name), "%s", nms);
		free(nms);
		n++;
		if (tok_eq(fn, "prepend_len"))
			check_prepend_len(name, in, out);
		else if (tok_eq(fn, "lv_cat"))
			check_lv_cat(name, in, out);
		else if (tok_eq(fn, "o_cat"))
			check_o_cat(name, in, out);
		else if (tok_eq(fn, "transcript_ir"))
			check_transcript(name, in, out, 0);
		else if (tok_eq(fn, "transcript_oc"))
			check_transcript(name, in, out, 1);
		else if (tok_eq(fn, "scalar_mult_vfy"))
			check_scalar_mult_vfy(name, in, out);
		else if (tok_eq(fn, "cpace"))
			check_run(in, out);
		else
			ok(0, "%s: known function", name);
	}
	ok(n >= 15, "ran %d vectors", n);
}

/* --- exchanges ------------------------------------------------------ */

struct party {
	const char	*prs, *ci, *sid, *ad;
};

/*
 * Full exchange; fills the ISKs, returns 0 or the first error. isk_a/isk_b
 * are the initiator's and the responder's.
 */
static int
exchange(const struct party *pa, const struct party *pb,
    uint8_t isk_a[64], uint8_t isk_b[64])
{
	struct alx_cpace	a, b;
	uint8_t			ma[ALX_CPACE_MSG_MAX], mb[ALX_CPACE_MSG_MAX];
	size_t			la = sizeof(ma), lb = sizeof(mb);
	int			r;

	if ((r = alx_cpace_start(&a, ALX_CPACE_INITIATOR,
	    (const uint8_t *)pa->prs, strlen(pa->prs),
	    (const uint8_t *)pa->ci, strlen(pa->ci),
	    (const uint8_t *)pa->sid, strlen(pa->sid),
	    (const uint8_t *)pa->ad, strlen(pa->ad), ma, &la)) != 0)
		return r;
	if ((r = alx_cpace_start(&b, ALX_CPACE_RESPONDER,
	    (const uint8_t *)pb->prs, strlen(pb->prs),
	    (const uint8_t *)pb->ci, strlen(pb->ci),
	    (const uint8_t *)pb->sid, strlen(pb->sid),
	    (const uint8_t *)pb->ad, strlen(pb->ad), mb, &lb)) != 0)
		return r;
	if ((r = alx_cpace_finish(&b, ma, la, isk_b)) != 0)
		return r;
	if ((r = alx_cpace_finish(&a, mb, lb, isk_a)) != 0)
		return r;
	ok(a.peer_adlen == strlen(pb->ad) &&
	    memcmp(a.peer_ad, pb->ad, a.peer_adlen) == 0 &&
	    b.peer_adlen == strlen(pa->ad) &&
	    memcmp(b.peer_ad, pa->ad, b.peer_adlen) == 0,
	    "each side sees the peer's AD");
	alx_cpace_wipe(&a);
	alx_cpace_wipe(&b);
	return 0;
}

/* Both confirm; returns how many sides accepted the peer's tag (0..2). */
static int
confirm_both(const uint8_t isk_a[64], const uint8_t isk_b[64],
    uint8_t key_a[32], uint8_t key_b[32])
{
	uint8_t	ta[32], ea[32], tb[32], eb[32];
	int	n = 0;

	if (alx_cpace_confirm(isk_a, ALX_CPACE_INITIATOR, ta, ea, key_a) != 0 ||
	    alx_cpace_confirm(isk_b, ALX_CPACE_RESPONDER, tb, eb, key_b) != 0)
		return -1;
	if (alx_cpace_check_tag(ea, tb, sizeof(tb)) == ALX_OK)
		n++;
	if (alx_cpace_check_tag(eb, ta, sizeof(ta)) == ALX_OK)
		n++;
	return n;
}

static void
test_exchanges(void)
{
	const char	*ci = "airlox/v1/coderelay.example.org";
	struct party	 a = { "7-guitar-orbit", ci, "sess-1234",
			    "airlox/v1/claimant" };
	struct party	 b = { "7-guitar-orbit", ci, "sess-1234",
			    "airlox/v1/creator" };
	struct party	 x;
	uint8_t		 ia[64], ib[64], ka[32], kb[32], t1[32], t2[32];
	uint8_t		 t3[32], t4[32];

	is_int(exchange(&a, &b, ia, ib), ALX_OK, "same code: exchange runs");
	ok(memcmp(ia, ib, 64) == 0, "same code: equal ISK");
	is_int(confirm_both(ia, ib, ka, kb), 2, "same code: both confirm");
	ok(memcmp(ka, kb, 32) == 0 && !sodium_is_zero(ka, 32),
	    "same code: equal session keys");
	/* Tags differ by direction: a reflected tag does not pass. */
	alx_cpace_confirm(ia, ALX_CPACE_INITIATOR, t1, t2, ka);
	is_int(alx_cpace_check_tag(t2, t1, 32), ALX_ERR_PAKE,
	    "own tag reflected back is rejected");
	is_int(alx_cpace_check_tag(t2, t2, 31), ALX_ERR_PAKE,
	    "short tag rejected");
	ok(memcmp(t1, ka, 32) != 0 && memcmp(t2, ka, 32) != 0,
	    "session key is not a tag");
	is_int(alx_cpace_confirm(ia, ALX_CPACE_SYMMETRIC, t3, t4, kb),
	    ALX_ERR_INVALID, "confirm needs a direction");

	/* Two runs with the same code give different keys. */
	memcpy(t3, ka, 32);
	is_int(exchange(&a, &b, ia, ib), ALX_OK, "second run");
	is_int(confirm_both(ia, ib, ka, kb), 2, "second run confirms");
	ok(memcmp(t3, ka, 32) != 0, "fresh scalars: fresh session key");

	x = b;
	x.prs = "7-guitar-orchid";
	is_int(exchange(&a, &x, ia, ib), ALX_OK, "wrong code: exchange runs");
	ok(memcmp(ia, ib, 64) != 0, "wrong code: ISKs differ");
	is_int(confirm_both(ia, ib, ka, kb), 0,
	    "wrong code: confirmation fails on both sides");
	x = b;
	x.prs = "8-guitar-orbit";
	exchange(&a, &x, ia, ib);
	is_int(confirm_both(ia, ib, ka, kb), 0, "wrong nameplate: fails");
	x = b;
	x.sid = "sess-1235";
	exchange(&a, &x, ia, ib);
	is_int(confirm_both(ia, ib, ka, kb), 0, "different sid: fails");
	x = b;
	x.ci = "airlox/v1/coderelay.example.net";
	exchange(&a, &x, ia, ib);
	is_int(confirm_both(ia, ib, ka, kb), 0, "different CI: fails");
	x = b;
	x.sid = "";
	x.ci = "";
	exchange(&a, &x, ia, ib);
	is_int(confirm_both(ia, ib, ka, kb), 0, "empty sid and CI: fails");
}

/* Symmetric mode: equal ISKs whichever order the messages meet. */
static void
test_symmetric(void)
{
	struct alx_cpace	a, b;
	uint8_t			ma[ALX_CPACE_MSG_MAX], mb[ALX_CPACE_MSG_MAX];
	uint8_t			ia[64], ib[64];
	size_t			la = sizeof(ma), lb = sizeof(mb);
	const uint8_t		*prs = (const uint8_t *)"pw";

	alx_cpace_start(&a, ALX_CPACE_SYMMETRIC, prs, 2, NULL, 0, NULL, 0,
	    (const uint8_t *)"A", 1, ma, &la);
	alx_cpace_start(&b, ALX_CPACE_SYMMETRIC, prs, 2, NULL, 0, NULL, 0,
	    (const uint8_t *)"B", 1, mb, &lb);
	ok(alx_cpace_finish(&a, mb, lb, ia) == ALX_OK &&
	    alx_cpace_finish(&b, ma, la, ib) == ALX_OK &&
	    memcmp(ia, ib, 64) == 0, "symmetric: equal ISK");
}

/* HMAC-SHA-256 of a || b with OpenSSL, independent of libairlox. */
static void
ossl_hmac(uint8_t out[32], const void *key, size_t keylen, const char *a,
    const void *b, size_t blen)
{
	uint8_t		msg[128];
	unsigned int	len = 32;
	size_t		alen = strlen(a);

	memcpy(msg, a, alen);
	if (blen > 0)
		memcpy(msg + alen, b, blen);
	HMAC(EVP_sha256(), key, (int)keylen, msg, alen + blen, out, &len);
}

/*
 * The key confirmation of cpace.h, recomputed from its description with
 * OpenSSL's HMAC: HKDF-SHA-256 (RFC 5869, one block) and HMAC tags.
 */
static void
test_confirm_derivation(void)
{
	static const uint8_t	one = 1;
	const char		*salt = "airlox/v1/cpace";
	uint8_t			isk[64], prk[32], ki[32], kr[32], ks[32];
	uint8_t			ti[32], tr[32], t1[32], t2[32], key[32];

	randombytes_buf(isk, sizeof(isk));
	ossl_hmac(prk, salt, strlen(salt), "", isk, sizeof(isk));
	ossl_hmac(ki, prk, 32, "airlox/v1/cpace confirm initiator", &one, 1);
	ossl_hmac(kr, prk, 32, "airlox/v1/cpace confirm responder", &one, 1);
	ossl_hmac(ks, prk, 32, "airlox/v1/cpace session key", &one, 1);
	ossl_hmac(ti, ki, 32, "airlox/v1/cpace initiator confirms", NULL, 0);
	ossl_hmac(tr, kr, 32, "airlox/v1/cpace responder confirms", NULL, 0);
	is_int(alx_cpace_confirm(isk, ALX_CPACE_INITIATOR, t1, t2, key),
	    ALX_OK, "confirm as initiator");
	ok(memcmp(t1, ti, 32) == 0 && memcmp(t2, tr, 32) == 0 &&
	    memcmp(key, ks, 32) == 0,
	    "initiator: tags and session key as documented");
	is_int(alx_cpace_confirm(isk, ALX_CPACE_RESPONDER, t1, t2, key),
	    ALX_OK, "confirm as responder");
	ok(memcmp(t1, tr, 32) == 0 && memcmp(t2, ti, 32) == 0 &&
	    memcmp(key, ks, 32) == 0,
	    "responder: tags and session key as documented");
}

/* Start a responder for the rejection tests. */
static void
start_b(struct alx_cpace *b, uint8_t *mb, size_t *lb)
{
	*lb = ALX_CPACE_MSG_MAX;
	alx_cpace_start(b, ALX_CPACE_RESPONDER, (const uint8_t *)"code", 4,
	    NULL, 0, (const uint8_t *)"sid", 3, NULL, 0, mb, lb);
}

static void
reject(const uint8_t *m, size_t len, const char *what)
{
	struct alx_cpace	b;
	uint8_t			mb[ALX_CPACE_MSG_MAX], isk[64];
	size_t			lb;

	start_b(&b, mb, &lb);
	is_int(alx_cpace_finish(&b, m, len, isk), ALX_ERR_PAKE, "%s rejected",
	    what);
	ok(sodium_is_zero(isk, 64) && sodium_is_zero(b.y, 32),
	    "%s: no ISK, scalar wiped", what);
}

static void
test_rejections(void)
{
	struct alx_cpace	a, b;
	uint8_t			ma[ALX_CPACE_MSG_MAX], mb[ALX_CPACE_MSG_MAX];
	uint8_t			m[ALX_CPACE_MSG_MAX + 8], isk[64];
	uint8_t			big[ALX_CPACE_AD_MAX + 1];
	size_t			la = sizeof(ma), lb, i;

	alx_cpace_start(&a, ALX_CPACE_INITIATOR, (const uint8_t *)"code", 4,
	    NULL, 0, (const uint8_t *)"sid", 3, (const uint8_t *)"ad", 2,
	    ma, &la);
	is_int(la, 1 + 32 + 1 + 2, "message length is lv_cat(Y, AD)");

	memset(m, 0, sizeof(m));
	m[0] = 32;
	reject(m, 34, "identity point");
	/* The draft's invalid encoding Y_i1. */
	sodium_hex2bin(m + 1, 32, "2b3c6b8c4f3800e7aef6864025b4ed79"
	    "bd599117e427c41bd47d93d654b4a51c", 64, NULL, NULL, NULL);
	reject(m, 34, "non-decodable point");
	memset(m + 1, 0xff, 32);
	reject(m, 34, "garbage point");
	memcpy(m, ma, la);
	m[32] ^= 0x80;	/* top bit of the encoding: non-canonical */
	reject(m, la, "non-canonical point");
	reject(ma, 0, "empty message");
	reject(ma, la - 1, "truncated message");
	memcpy(m, ma, la);
	m[la] = 'x';
	reject(m, la + 1, "trailing byte");
	memcpy(m, ma, la);
	m[0] = 31;
	reject(m, la, "wrong point length prefix");
	memcpy(m, ma, 33);
	m[33] = 0x82;	/* AD length 2 as non-canonical LEB128 0x82 0x00 */
	m[34] = 0x00;
	memcpy(m + 35, "ad", 2);
	reject(m, 37, "non-canonical AD length");
	memcpy(m, ma, 33);
	m[33] = 0x81;	/* AD length 513 > max */
	m[34] = 0x04;
	memset(m + 35, 'a', 513);
	reject(m, 35 + 513, "AD over the limit");
	reject(ma, 33, "missing AD length");
	reject(NULL, 0, "NULL message");

	/* The real message is accepted by a matching responder. */
	start_b(&b, mb, &lb);
	is_int(alx_cpace_finish(&b, ma, la, isk), ALX_OK, "valid message");
	is_int(alx_cpace_finish(&b, ma, la, isk), ALX_ERR_INVALID,
	    "a state finishes once");

	memset(big, 'a', sizeof(big));
	lb = sizeof(mb);
	is_int(alx_cpace_start(&b, ALX_CPACE_RESPONDER, big, 257, NULL, 0,
	    NULL, 0, NULL, 0, mb, &lb), ALX_ERR_TOO_LARGE, "PRS too long");
	lb = sizeof(mb);
	is_int(alx_cpace_start(&b, ALX_CPACE_RESPONDER, big, 8, NULL, 0,
	    NULL, 0, big, sizeof(big), mb, &lb), ALX_ERR_TOO_LARGE,
	    "AD too long");
	lb = 10;
	is_int(alx_cpace_start(&b, ALX_CPACE_RESPONDER, big, 8, NULL, 0,
	    NULL, 0, NULL, 0, mb, &lb), ALX_ERR_TOO_LARGE,
	    "message buffer too small");
	lb = sizeof(mb);
	is_int(alx_cpace_start(&b, 7, big, 8, NULL, 0, NULL, 0, NULL, 0, mb,
	    &lb), ALX_ERR_INVALID, "bad role");
	memset(m, 0, 32);
	lb = sizeof(mb);
	is_int(alx_cpace_start_scalar(&b, ALX_CPACE_RESPONDER, m, big, 8,
	    NULL, 0, NULL, 0, NULL, 0, mb, &lb), ALX_ERR_INVALID,
	    "zero scalar refused");
	memset(m, 0xff, 32);
	is_int(alx_cpace_start_scalar(&b, ALX_CPACE_RESPONDER, m, big, 8,
	    NULL, 0, NULL, 0, NULL, 0, mb, &lb), ALX_ERR_INVALID,
	    "unreduced scalar refused");

	/* Every input at its bound: a full run works. */
	memset(big, 'p', sizeof(big));
	la = sizeof(ma);
	lb = sizeof(mb);
	ok(alx_cpace_start(&a, ALX_CPACE_INITIATOR, big, ALX_CPACE_PRS_MAX,
	    big, ALX_CPACE_CI_MAX, big, ALX_CPACE_SID_MAX, big,
	    ALX_CPACE_AD_MAX, ma, &la) == ALX_OK &&
	    alx_cpace_start(&b, ALX_CPACE_RESPONDER, big, ALX_CPACE_PRS_MAX,
	    big, ALX_CPACE_CI_MAX, big, ALX_CPACE_SID_MAX, big,
	    ALX_CPACE_AD_MAX, mb, &lb) == ALX_OK &&
	    la == ALX_CPACE_MSG_MAX && lb == ALX_CPACE_MSG_MAX &&
	    alx_cpace_finish(&a, mb, lb, isk) == ALX_OK &&
	    alx_cpace_finish(&b, ma, la, m) == ALX_OK &&
	    memcmp(isk, m, 64) == 0, "inputs at their bounds: equal ISK");
	lb = sizeof(mb);
	is_int(alx_cpace_start(&b, ALX_CPACE_RESPONDER, big, 8, big,
	    ALX_CPACE_CI_MAX + 1, NULL, 0, NULL, 0, mb, &lb),
	    ALX_ERR_TOO_LARGE, "CI too long");
	lb = sizeof(mb);
	is_int(alx_cpace_start(&b, ALX_CPACE_RESPONDER, big, 8, NULL, 0, big,
	    ALX_CPACE_SID_MAX + 1, NULL, 0, mb, &lb), ALX_ERR_TOO_LARGE,
	    "sid too long");

	/* Long PRS: zero padding vanishes, length prefix of 2 bytes. */
	for (i = 0; i < 256; i++)
		big[i] = (uint8_t)i;
	lb = sizeof(mb);
	is_int(alx_cpace_generator_string(m, sizeof(m), &lb, big, 200, NULL, 0,
	    NULL, 0), ALX_OK, "generator string, long PRS");
	ok(lb == 18 + 2 + 200 + 1 + 1 + 1 && m[18] == 0xc8 && m[19] == 0x01 &&
	    m[220] == 0, "no zero padding after a long PRS");
}

int
main(void)
{
	if (sodium_init() < 0)
		tap_skip_all("libsodium does not initialise");
	if (load_vectors() != 0)
		ok(0, "tests/vectors/cpace.json loads");
	else
		run_vectors();
	test_exchanges();
	test_symmetric();
	test_confirm_derivation();
	test_rejections();
	alx_json_free(vj);
	return tap_done();
}
