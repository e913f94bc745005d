/*
 * test-vectors.c: check libairlox against the conformance vectors in
 * tests/vectors/ (format: tests/vectors/README.md): every .json file of
 * $top_srcdir/tests/vectors.
 *
 * Each file names its "structure"; every case gives "inputs" and either
 * "expected" (exact bytes, as hex or text) or "error" (a stable error name
 * from airlox/err.h). One builder per structure turns the inputs into
 * outputs with libairlox; the check runs the builder and compares every
 * output byte for byte, or the error code. The generator
 * (tests/tools/mkvectors.c) runs the same builders on inputs it makes from
 * fixed labels, so every byte in the files is reproducible. Builders also cross-check libairlox against the formulas
 * of docs/protocol.md computed here from the primitives (AAD, subkeys,
 * signed message, session id), so a file written by a broken library would
 * not pass either.
 *
 * Files of other structures are checked by their own tests (cpace.json by
 * test-cpace, invite.json by test-invite, request.json by test-req); any
 * other file without a builder here fails the test.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "airlox.h"
#include "alx_int.h"
#include "tap.h"

#define VEC_BADINPUT	(-1000)	/* the vector file is malformed */
#define VEC_MISMATCH	(-1001)	/* libairlox disagrees with the doc */
#define VEC_OUT_MAX	96
#define VEC_TEXT_MAX	(4 * 1024 * 1024)
#define VEC_RULE	"i*7+3"	/* byte i = (i * 7 + 3) mod 256 */
#define VEC_FULL_CT_MAX	4096	/* chunks given whole up to this */

struct outs {
	size_t	 n;
	char	*key[VEC_OUT_MAX];
	char	*val[VEC_OUT_MAX];
};

typedef int (*build_fn)(const struct alx_json *, int, struct outs *);

/*
 * Small helpers: hex, outputs, inputs.
 */

static char *
hex_alloc(const uint8_t *p, size_t n)
{
	static const char	 digits[] = "0123456789abcdef";
	char			*s;
	size_t			 i;

	if ((s = malloc(2 * n + 1)) == NULL)
		abort();
	for (i = 0; i < n; i++) {
		s[2 * i] = digits[p[i] >> 4];
		s[2 * i + 1] = digits[p[i] & 15];
	}
	s[2 * n] = '\0';
	return s;
}

static int
hex_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode lower-case hex; *out is malloc'd (at least 1 byte). */
static int
hex_decode(const char *s, uint8_t **out, size_t *len)
{
	size_t	n = strlen(s), i;
	int	hi, lo;

	if (n % 2 != 0)
		return VEC_BADINPUT;
	if ((*out = malloc(n / 2 + 1)) == NULL)
		abort();
	for (i = 0; i < n / 2; i++) {
		hi = hex_val((unsigned char)s[2 * i]);
		lo = hex_val((unsigned char)s[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			free(*out);
			*out = NULL;
			return VEC_BADINPUT;
		}
		(*out)[i] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return 0;
}

static void
outs_free(struct outs *o)
{
	size_t	i;

	for (i = 0; i < o->n; i++) {
		free(o->key[i]);
		free(o->val[i]);
	}
	o->n = 0;
}

static void
out_str(struct outs *o, const char *key, const char *val)
{
	if (o->n >= VEC_OUT_MAX)
		abort();
	o->key[o->n] = strdup(key);
	o->val[o->n] = strdup(val);
	if (o->key[o->n] == NULL || o->val[o->n] == NULL)
		abort();
	o->n++;
}

static void
out_mem(struct outs *o, const char *key, const void *p, size_t n)
{
	char	*s;

	if ((s = malloc(n + 1)) == NULL)
		abort();
	memcpy(s, p, n);
	s[n] = '\0';
	out_str(o, key, s);
	free(s);
}

static void
out_hex(struct outs *o, const char *key, const uint8_t *p, size_t n)
{
	char	*s = hex_alloc(p, n);

	out_str(o, key, s);
	free(s);
}

static void
out_b64(struct outs *o, const char *key, const uint8_t *p, size_t n)
{
	char	*s = alx_b64_encode_alloc(p, n);

	if (s == NULL)
		abort();
	out_str(o, key, s);
	free(s);
}

static void
out_int(struct outs *o, const char *key, int64_t v)
{
	char	buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	out_str(o, key, buf);
}

static const char *
out_get(const struct outs *o, const char *key)
{
	size_t	i;

	for (i = 0; i < o->n; i++)
		if (strcmp(o->key[i], key) == 0)
			return o->val[i];
	return NULL;
}

static int
in_has(const struct alx_json *j, int in, const char *key)
{
	return alx_json_obj_get(j, in, key) >= 0;
}

/* Text member; NULL when absent or not a string. */
static char *
in_text(const struct alx_json *j, int in, const char *key)
{
	char	*s = NULL;

	if (alx_json_get_str(j, in, key, &s, VEC_TEXT_MAX) != ALX_OK)
		return NULL;
	return s;
}

static int
in_int(const struct alx_json *j, int in, const char *key, int64_t *v)
{
	if (alx_json_get_int(j, in, key, v, -ALX_JSON_INT_MAX,
	    ALX_JSON_INT_MAX) != ALX_OK)
		return VEC_BADINPUT;
	return 0;
}

static int
in_bool(const struct alx_json *j, int in, const char *key, int *v)
{
	return alx_json_get_bool(j, in, key, v) == ALX_OK ? 0 : VEC_BADINPUT;
}

/* Hex member of any length, malloc'd. */
static int
in_hexa(const struct alx_json *j, int in, const char *key, uint8_t **out,
    size_t *len)
{
	char	*s;
	int	 r;

	*out = NULL;
	if ((s = in_text(j, in, key)) == NULL)
		return VEC_BADINPUT;
	r = hex_decode(s, out, len);
	free(s);
	return r;
}

/* Hex member of exactly `want` bytes. */
static int
in_hex(const struct alx_json *j, int in, const char *key, uint8_t *out,
    size_t want)
{
	uint8_t	*p;
	size_t	 len;
	int	 r;

	if ((r = in_hexa(j, in, key, &p, &len)) != 0)
		return r;
	if (len != want)
		r = VEC_BADINPUT;
	else
		memcpy(out, p, want);
	free(p);
	return r;
}

/* Hex string token (an array element) of exactly `want` bytes. */
static int
tok_hex(const struct alx_json *j, int tok, uint8_t *out, size_t want)
{
	char	*s = NULL;
	uint8_t	*p;
	size_t	 len;
	int	 r;

	if (alx_json_str(j, tok, &s, NULL) != ALX_OK)
		return VEC_BADINPUT;
	r = hex_decode(s, &p, &len);
	free(s);
	if (r != 0)
		return r;
	if (len != want)
		r = VEC_BADINPUT;
	else
		memcpy(out, p, want);
	free(p);
	return r;
}

static int
in_role(const struct alx_json *j, int in, const char *key, int *role)
{
	char	*s;
	int	 r;

	if ((s = in_text(j, in, key)) == NULL)
		return VEC_BADINPUT;
	r = alx_role_parse(s, role) == ALX_OK ? 0 : VEC_BADINPUT;
	free(s);
	return r;
}

/* The payload byte rule of the chunk vectors. */
static void
rule_fill(uint8_t *p, size_t len, uint64_t offset)
{
	size_t	i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)((offset + i) * 7 + 3);
}

/*
 * Structure: seed-keys, fingerprint, base64, private.
 */

static int
build_keys(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_signkey	sk;
	struct alx_kxkey	kx;
	uint8_t			seed[ALX_SEED_LEN], sseed[32];
	uint8_t			fp[ALX_FP_LEN];
	uint8_t			want[32];
	int			r;

	if ((r = in_hex(j, in, "seed", seed, sizeof(seed))) != 0)
		return r;
	if ((r = alx_seed_keys(seed, &sk, &kx)) != ALX_OK)
		return r;
	alx_sign_seed(&sk, sseed);
	/* The formulas of section 2, computed here. */
	alx_hkdf_sha256(want, 32, seed, 32, NULL, 0, "airlox/v1/sign", 14);
	if (memcmp(want, sseed, 32) != 0)
		r = VEC_MISMATCH;
	alx_hkdf_sha256(want, 32, seed, 32, NULL, 0, "airlox/v1/kx", 12);
	if (memcmp(want, kx.sk, 32) != 0)
		r = VEC_MISMATCH;
	out_hex(o, "sign_seed", sseed, 32);
	out_hex(o, "sign_pk", sk.pk, ALX_SIGN_PK_LEN);
	out_hex(o, "kx_secret", kx.sk, ALX_KX_SK_LEN);
	out_hex(o, "kx_pk", kx.pk, ALX_KX_PK_LEN);
	alx_fingerprint(fp, sk.pk, ALX_SIGN_PK_LEN);
	out_b64(o, "fp", fp, ALX_FP_LEN);
	alx_sign_wipe(&sk);
	alx_kx_wipe(&kx);
	return r;
}

/* A participant's key from a secret it keeps (section 2). */
static int
build_participant(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_signkey	 sk;
	struct alx_kxkey	 kx;
	uint8_t			 sid[ALX_SID_LEN], salt[ALX_SID_LEN + 16];
	uint8_t			 seed[ALX_SEED_LEN], fp[ALX_FP_LEN];
	char			*secret = NULL, *role = NULL;
	int			 r, ro;

	if ((secret = in_text(j, in, "secret")) == NULL ||
	    (role = in_text(j, in, "role")) == NULL ||
	    (r = in_hex(j, in, "sid", sid, sizeof(sid))) != 0 ||
	    alx_role_parse(role, &ro) != ALX_OK || strlen(role) > 16) {
		free(secret);
		free(role);
		return VEC_BADINPUT;
	}
	r = alx_participant_keys(secret, strlen(secret), sid, ro, &sk, &kx);
	if (r == ALX_OK) {
		/* The formula of section 2, computed here. */
		memcpy(salt, sid, ALX_SID_LEN);
		memcpy(salt + ALX_SID_LEN, role, strlen(role));
		alx_hkdf_sha256(seed, sizeof(seed), secret, strlen(secret),
		    salt, ALX_SID_LEN + strlen(role), "airlox/v1/participant",
		    21);
		out_hex(o, "seed", seed, sizeof(seed));
		out_hex(o, "sign_pk", sk.pk, ALX_SIGN_PK_LEN);
		out_hex(o, "kx_pk", kx.pk, ALX_KX_PK_LEN);
		alx_fingerprint(fp, sk.pk, ALX_SIGN_PK_LEN);
		out_b64(o, "fp", fp, ALX_FP_LEN);
		{
			struct alx_signkey	sk2;
			struct alx_kxkey	kx2;

			if (alx_seed_keys(seed, &sk2, &kx2) != ALX_OK ||
			    memcmp(sk2.pk, sk.pk, ALX_SIGN_PK_LEN) != 0 ||
			    memcmp(kx2.pk, kx.pk, ALX_KX_PK_LEN) != 0)
				r = VEC_MISMATCH;
			alx_sign_wipe(&sk2);
			alx_kx_wipe(&kx2);
		}
		alx_sign_wipe(&sk);
		alx_kx_wipe(&kx);
		alx_wipe(seed, sizeof(seed));
	}
	free(secret);
	free(role);
	return r;
}

static int
build_fingerprint(const struct alx_json *j, int in, struct outs *o)
{
	uint8_t	 pk[32], fp[ALX_FP_LEN], h[ALX_HASH_LEN], msg[10 + 32];
	char	 s[ALX_FP_STRLEN + 1];
	int	 r;

	if ((r = in_hex(j, in, "pk", pk, sizeof(pk))) != 0)
		return r;
	memcpy(msg, "airlox-fp", 10);		/* with its 0x00 */
	memcpy(msg + 10, pk, 32);
	alx_sha256(h, msg, sizeof(msg));
	alx_fingerprint(fp, pk, sizeof(pk));
	alx_fingerprint_str(s, pk, sizeof(pk));
	if (memcmp(h, fp, ALX_FP_LEN) != 0)
		return VEC_MISMATCH;
	out_hex(o, "hash_input", msg, sizeof(msg));
	out_hex(o, "fp_hex", fp, ALX_FP_LEN);
	out_str(o, "fp", s);
	return 0;
}

static int
build_base64(const struct alx_json *j, int in, struct outs *o)
{
	uint8_t	 buf[256];
	char	*s, *back;
	size_t	 len;
	int	 r;

	if ((s = in_text(j, in, "text")) == NULL)
		return VEC_BADINPUT;
	r = alx_b64_decode(buf, sizeof(buf), &len, s, strlen(s));
	if (r == ALX_OK) {
		out_hex(o, "bytes", buf, len);
		back = alx_b64_encode_alloc(buf, len);
		if (back == NULL || strcmp(back, s) != 0)
			r = VEC_MISMATCH;
		free(back);
	}
	free(s);
	return r;
}

static int
build_private(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_private	 p;
	char			*s, *enc = NULL;
	size_t			 len;
	int			 r;

	if ((s = in_text(j, in, "text")) == NULL)
		return VEC_BADINPUT;
	r = alx_private_decode(&p, s, strlen(s));
	if (r == ALX_OK) {
		if ((r = alx_private_encode(&p, &enc, &len)) == ALX_OK)
			out_mem(o, "encoded", enc, len);
		alx_private_free(&p);
	}
	free(enc);
	free(s);
	return r;
}

/*
 * Structure: signed.
 */

/* "airlox/v1/" t 0x00 body: the bytes an object's signature covers. */
static uint8_t *
signed_message(const char *type, const uint8_t *body, size_t blen,
    size_t *len)
{
	uint8_t	*m;
	size_t	 dl = strlen("airlox/v1/") + strlen(type) + 1;

	if ((m = malloc(dl + blen + 1)) == NULL)
		abort();
	snprintf((char *)m, dl + 1, "airlox/v1/%s", type);
	memcpy(m + dl, body, blen);
	*len = dl + blen;
	return m;
}

static int
signed_seal_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_signkey	 k;
	struct alx_signed	 s, got;
	uint8_t			 seed[32], h[ALX_HASH_LEN], *msg;
	char			*type, *body;
	size_t			 mlen;
	int			 r;

	if ((r = in_hex(j, in, "seed", seed, 32)) != 0)
		return r;
	type = in_text(j, in, "type");
	body = in_text(j, in, "body");
	if (type == NULL || body == NULL) {
		r = VEC_BADINPUT;
		goto out;
	}
	alx_sign_from_seed(&k, seed);
	if ((r = alx_signed_seal(&s, type, body, strlen(body), &k)) != ALX_OK)
		goto out;
	msg = signed_message(type, s.body, s.body_len, &mlen);
	if (alx_verify(s.sig, msg, mlen, k.pk) != ALX_OK)
		r = VEC_MISMATCH;
	else if ((r = alx_signed_open(&got, s.raw, s.raw_len, type,
	    k.pk)) == ALX_OK) {
		alx_signed_hash(&got, h);
		alx_signed_free(&got);
		out_hex(o, "key", k.pk, 32);
		out_hex(o, "message", msg, mlen);
		out_hex(o, "sig", s.sig, ALX_SIG_LEN);
		out_mem(o, "object", s.raw, s.raw_len);
		out_hex(o, "hash", h, sizeof(h));
	}
	free(msg);
	alx_signed_free(&s);
	alx_sign_wipe(&k);
out:
	free(type);
	free(body);
	return r;
}

static int
signed_open_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_signed	 s;
	uint8_t			 key[32], h[ALX_HASH_LEN];
	char			*type, *obj;
	int			 r;

	if ((r = in_hex(j, in, "key", key, 32)) != 0)
		return r;
	type = in_text(j, in, "type");
	obj = in_text(j, in, "object");
	if (type == NULL || obj == NULL)
		r = VEC_BADINPUT;
	else if ((r = alx_signed_open(&s, obj, strlen(obj), type,
	    key)) == ALX_OK) {
		alx_signed_hash(&s, h);
		out_mem(o, "body", s.body, s.body_len);
		out_hex(o, "hash", h, sizeof(h));
		alx_signed_free(&s);
	}
	free(type);
	free(obj);
	return r;
}

/*
 * Manifests. Inputs name a chain of manifest objects ("manifests", v1
 * first) and the session id that anchors it.
 */

static int
open_chain(const struct alx_json *j, int in, const uint8_t sid[ALX_SID_LEN],
    struct alx_manifest *last)
{
	struct alx_manifest	 prev;
	char			*s = NULL;
	int			 arr, i, n, r = 0;

	memset(last, 0, sizeof(*last));
	memset(&prev, 0, sizeof(prev));
	if ((arr = alx_json_obj_get(j, in, "manifests")) < 0 ||
	    (n = alx_json_arr_len(j, arr)) < 1)
		return VEC_BADINPUT;
	for (i = 0; i < n; i++) {
		if (alx_json_str(j, alx_json_arr_at(j, arr, i), &s, NULL) !=
		    ALX_OK)
			return VEC_BADINPUT;
		r = alx_manifest_open(last, s, strlen(s), sid,
		    i == 0 ? NULL : &prev);
		free(s);
		alx_manifest_free(&prev);
		if (r != ALX_OK)
			return r;
		if (i + 1 < n) {
			prev = *last;
			memset(last, 0, sizeof(*last));
		}
	}
	return 0;
}

static int
chain_of_input(const struct alx_json *j, int in, struct alx_manifest *m)
{
	uint8_t	sid[ALX_SID_LEN];
	int	r;

	memset(m, 0, sizeof(*m));
	if ((r = in_hex(j, in, "sid", sid, sizeof(sid))) != 0)
		return r;
	return open_chain(j, in, sid, m);
}

/* Append a wrap of ekey for `to` with the ephemeral secret esk. */
static int
manifest_add_wrap(struct alx_manifest *m, const char *to,
    const uint8_t rpk[32], const uint8_t ekey[32], const uint8_t esk[32])
{
	static const uint8_t	 zero[ALX_SID_LEN];
	struct alx_wrap		*nw;
	uint8_t			 ctx[64];
	size_t			 n;

	if ((nw = realloc(m->wraps, (m->nwraps + 1) * sizeof(*nw))) == NULL)
		abort();
	m->wraps = nw;
	n = alx_wrap_ctx_manifest(ctx, m->epoch == 0 ? zero : m->sid,
	    m->epoch);
	return alx_wrap_seal_eph(&m->wraps[m->nwraps++], to, rpk, ctx, n, ekey,
	    esk);
}

/* Wraps to owner and each present role, ephemeral keys from "eph". */
static int
manifest_wrap_roles(const struct alx_json *j, int in, struct alx_manifest *m,
    const uint8_t ekey[32])
{
	uint8_t	esk[32];
	int	eph, i, r;

	free(m->wraps);
	m->wraps = NULL;
	m->nwraps = 0;
	if ((eph = alx_json_obj_get(j, in, "eph")) < 0)
		return VEC_BADINPUT;
	if ((r = in_hex(j, eph, "owner", esk, 32)) != 0 ||
	    (r = manifest_add_wrap(m, "owner", m->owner_kx, ekey, esk)) != 0)
		return r;
	for (i = ALX_ROLE_SENDER; i < ALX_ROLE_COUNT; i++) {
		if (!m->roles[i].present)
			continue;
		if ((r = in_hex(j, eph, alx_role_name(i), esk, 32)) != 0 ||
		    (r = manifest_add_wrap(m, alx_role_name(i), m->roles[i].kx,
		    ekey, esk)) != 0)
			return r;
	}
	return 0;
}

static int
private_of_input(const struct alx_json *j, int in, struct alx_private *p)
{
	char	*s, *enc = NULL;
	size_t	 len;
	int	 r;

	if ((s = in_text(j, in, "private")) == NULL)
		return VEC_BADINPUT;
	if ((r = alx_private_decode(p, s, strlen(s))) == ALX_OK &&
	    (r = alx_private_encode(p, &enc, &len)) == ALX_OK &&
	    (len != strlen(s) || memcmp(enc, s, len) != 0))
		r = VEC_BADINPUT;	/* give the private part canonically */
	free(enc);
	free(s);
	return r;
}

static void
manifest_outputs(struct outs *o, const struct alx_manifest *m)
{
	out_mem(o, "body", m->obj.body, m->obj.body_len);
	out_mem(o, "object", m->obj.raw, m->obj.raw_len);
	out_hex(o, "sid_hex", m->sid, ALX_SID_LEN);
	out_b64(o, "sid", m->sid, ALX_SID_LEN);
	out_hex(o, "hash", m->hash, ALX_HASH_LEN);
}

/* A new manifest opens against its anchor and every wrap opens. */
static int
manifest_selfcheck(const struct alx_manifest *m,
    const struct alx_manifest *prev, const struct alx_json *j, int in,
    const uint8_t ekey[32])
{
	struct alx_manifest	 got;
	struct alx_private	 p;
	struct alx_kxkey	 kx;
	uint8_t			 seed[32], k[32];
	char			 name[32];
	int			 i, r;

	if ((r = alx_manifest_open(&got, m->obj.raw, m->obj.raw_len, m->sid,
	    prev)) != ALX_OK)
		return r;
	for (i = ALX_ROLE_OWNER; i < ALX_ROLE_COUNT && r == 0; i++) {
		if (i != ALX_ROLE_OWNER && !got.roles[i].present)
			continue;
		snprintf(name, sizeof(name), "%s_seed", alx_role_name(i));
		if (in_hex(j, in, name, seed, 32) != 0)
			continue;	/* an update names changed ones */
		alx_seed_keys(seed, NULL, &kx);
		if ((r = alx_manifest_epoch_key(&got, alx_role_name(i), &kx,
		    k)) == ALX_OK && memcmp(k, ekey, 32) != 0)
			r = VEC_MISMATCH;
		alx_kx_wipe(&kx);
	}
	if (r == 0 && (r = alx_manifest_open_private(&got, ekey, &p)) == 0)
		alx_private_free(&p);
	alx_manifest_free(&got);
	return r;
}

static int
manifest_create_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_manifest	 m;
	struct alx_private	 p;
	struct alx_signkey	 osk;
	struct alx_kxkey	 kx;
	uint8_t			 seed[32], ekey[32];
	char			*mode = NULL, name[32];
	int			 i, r;

	memset(&m, 0, sizeof(m));
	memset(&p, 0, sizeof(p));
	memset(&osk, 0, sizeof(osk));
	m.ver = 1;
	if ((r = in_hex(j, in, "owner_seed", seed, 32)) != 0 ||
	    (r = in_hex(j, in, "nonce", m.nonce, 16)) != 0 ||
	    (r = in_hex(j, in, "epoch_key", ekey, 32)) != 0 ||
	    (r = in_int(j, in, "created", &m.created)) != 0 ||
	    (r = in_int(j, in, "expires", &m.expires)) != 0 ||
	    (r = in_int(j, in, "item_max", &m.item_max)) != 0 ||
	    (r = in_int(j, in, "session_max", &m.session_max)) != 0 ||
	    (r = in_bool(j, in, "approve", &m.approve)) != 0 ||
	    (r = private_of_input(j, in, &p)) != 0)
		goto out;
	if ((mode = in_text(j, in, "mode")) == NULL) {
		r = VEC_BADINPUT;
		goto out;
	}
	m.mode = strcmp(mode, "execute") == 0 ? ALX_MODE_EXECUTE :
	    ALX_MODE_CHAT;
	alx_seed_keys(seed, &osk, &kx);
	memcpy(m.owner_pk, osk.pk, 32);
	memcpy(m.owner_kx, kx.pk, 32);
	for (i = ALX_ROLE_SENDER; i < ALX_ROLE_COUNT; i++) {
		struct alx_signkey rk;

		snprintf(name, sizeof(name), "%s_seed", alx_role_name(i));
		if (!in_has(j, in, name))
			continue;
		if ((r = in_hex(j, in, name, seed, 32)) != 0)
			goto out;
		alx_seed_keys(seed, &rk, &kx);
		memcpy(m.roles[i].pk, rk.pk, 32);
		memcpy(m.roles[i].kx, kx.pk, 32);
		m.roles[i].present = 1;
		m.roles[i].n = 1;
		alx_sign_wipe(&rk);
	}
	alx_kx_wipe(&kx);
	if ((r = manifest_wrap_roles(j, in, &m, ekey)) != 0 ||
	    (r = alx_manifest_seal_private(&m, ekey, &p)) != 0 ||
	    (r = alx_manifest_sign(&m, &osk)) != 0)
		goto out;
	if ((r = manifest_selfcheck(&m, NULL, j, in, ekey)) == 0)
		manifest_outputs(o, &m);
out:
	free(mode);
	alx_sign_wipe(&osk);
	alx_private_free(&p);
	alx_manifest_free(&m);
	return r;
}

/* "rotate": {"role","seed","keep":[{"fp","kx","eph"}]} */
static int
manifest_rotate(const struct alx_json *j, int rot, struct alx_manifest *m,
    int *role)
{
	struct alx_role_pub	*rp;
	struct alx_signkey	 rk;
	struct alx_kxkey	 kx;
	uint8_t			 seed[32], fp[ALX_FP_LEN];
	int			 keep, i, n, r;

	if ((r = in_role(j, rot, "role", role)) != 0 ||
	    (r = in_hex(j, rot, "seed", seed, 32)) != 0)
		return r;
	rp = &m->roles[*role];
	if ((rp->old = realloc(rp->old, (rp->nold + 1) * 32)) == NULL)
		abort();
	memcpy(rp->old[rp->nold++], rp->pk, 32);
	rp->n++;
	alx_seed_keys(seed, &rk, &kx);
	memcpy(rp->pk, rk.pk, 32);
	memcpy(rp->kx, kx.pk, 32);
	alx_sign_wipe(&rk);
	alx_kx_wipe(&kx);
	if ((keep = alx_json_obj_get(j, rot, "keep")) < 0)
		return VEC_BADINPUT;
	n = alx_json_arr_len(j, keep);
	for (i = 0; i < n; i++) {
		if ((r = in_hex(j, alx_json_arr_at(j, keep, i), "fp", fp,
		    ALX_FP_LEN)) != 0)
			return r;
		if ((m->keep = realloc(m->keep, (m->nkeep + 1) *
		    ALX_FP_LEN)) == NULL)
			abort();
		memcpy(m->keep[m->nkeep++], fp, ALX_FP_LEN);
	}
	return 0;
}

/* Wraps of the new epoch to the kept members of the rotation. */
static int
manifest_wrap_kept(const struct alx_json *j, int rot, struct alx_manifest *m,
    const uint8_t ekey[32])
{
	uint8_t	fp[ALX_FP_LEN], rkx[32], esk[32];
	char	fps[ALX_FP_STRLEN + 1];
	int	keep, i, n, t, r;

	if ((keep = alx_json_obj_get(j, rot, "keep")) < 0)
		return VEC_BADINPUT;
	n = alx_json_arr_len(j, keep);
	for (i = 0; i < n; i++) {
		t = alx_json_arr_at(j, keep, i);
		if ((r = in_hex(j, t, "fp", fp, ALX_FP_LEN)) != 0 ||
		    (r = in_hex(j, t, "kx", rkx, 32)) != 0 ||
		    (r = in_hex(j, t, "eph", esk, 32)) != 0)
			return r;
		if (alx_manifest_is_revoked(m, fp))
			continue;
		alx_b64_encode(fps, fp, ALX_FP_LEN);
		if ((r = manifest_add_wrap(m, fps, rkx, ekey, esk)) != 0)
			return r;
	}
	return 0;
}

/* "approve": {"fp","name","labels"}, "revoke": [fp...] */
static int
manifest_approve_revoke(const struct alx_json *j, int in,
    struct alx_manifest *m)
{
	uint8_t	  fp[ALX_FP_LEN];
	char	**labels = NULL, *name = NULL;
	size_t	  nl = 0, k;
	int	  a, t, i, n, r = 0;

	if ((a = alx_json_obj_get(j, in, "approve")) >= 0) {
		name = in_text(j, a, "name");
		t = alx_json_obj_get(j, a, "labels");
		if (name == NULL || t < 0 ||
		    in_hex(j, a, "fp", fp, ALX_FP_LEN) != 0 ||
		    alx_strlist_decode(j, t, 16, 63, NULL, &labels, &nl) != 0)
			r = VEC_BADINPUT;
		else
			r = alx_manifest_approve(m, fp, name,
			    (const char *const *)labels, nl);
		for (k = 0; k < nl; k++)
			free(labels[k]);
		free(labels);
		free(name);
		if (r != 0)
			return r;
	}
	if ((a = alx_json_obj_get(j, in, "revoke")) >= 0) {
		n = alx_json_arr_len(j, a);
		for (i = 0; i < n; i++) {
			if ((r = tok_hex(j, alx_json_arr_at(j, a, i), fp,
			    ALX_FP_LEN)) != 0 ||
			    (r = alx_manifest_revoke(m, fp)) != 0)
				return r;
		}
	}
	return 0;
}

static int
manifest_update_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_manifest	 cur, m;
	struct alx_private	 p;
	struct alx_signkey	 osk;
	uint8_t			 seed[32], ekey[32];
	int			 rot, role = -1, newep = 0, r;

	memset(&m, 0, sizeof(m));
	memset(&p, 0, sizeof(p));
	memset(&osk, 0, sizeof(osk));
	if ((r = chain_of_input(j, in, &cur)) != 0)
		return r;
	if ((r = in_hex(j, in, "owner_signing_seed", seed, 32)) != 0 ||
	    (r = in_hex(j, in, "epoch_key", ekey, 32)) != 0 ||
	    (r = in_bool(j, in, "new_epoch", &newep)) != 0 ||
	    (r = private_of_input(j, in, &p)) != 0 ||
	    (r = alx_manifest_next(&m, &cur)) != 0 ||
	    (r = manifest_approve_revoke(j, in, &m)) != 0)
		goto out;
	rot = alx_json_obj_get(j, in, "rotate");
	if (rot >= 0 && (r = manifest_rotate(j, rot, &m, &role)) != 0)
		goto out;
	if (newep) {
		m.epoch++;
		if ((r = manifest_wrap_roles(j, in, &m, ekey)) != 0 ||
		    (rot >= 0 && (r = manifest_wrap_kept(j, rot, &m,
		    ekey)) != 0))
			goto out;
	}
	alx_sign_from_seed(&osk, seed);
	if ((r = alx_manifest_finish(&m, &osk, ekey, &p)) != 0)
		goto out;
	if ((r = manifest_selfcheck(&m, &cur, j, in, ekey)) == 0)
		manifest_outputs(o, &m);
out:
	alx_sign_wipe(&osk);
	alx_private_free(&p);
	alx_manifest_free(&m);
	alx_manifest_free(&cur);
	return r;
}

static int
manifest_open_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_manifest	m;
	int			r;

	if ((r = chain_of_input(j, in, &m)) != 0)
		return r;
	out_int(o, "ver", m.ver);
	out_int(o, "epoch", m.epoch);
	out_hex(o, "hash", m.hash, ALX_HASH_LEN);
	alx_manifest_free(&m);
	return 0;
}

/* Open the current epoch key with a role seed or a kx secret. */
static int
manifest_epoch_key_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_manifest	 m;
	struct alx_kxkey	 kx;
	uint8_t			 sk[32], k[32];
	char			*to;
	int			 r;

	if ((r = chain_of_input(j, in, &m)) != 0)
		return r;
	if ((to = in_text(j, in, "to")) == NULL)
		r = VEC_BADINPUT;
	else if (in_has(j, in, "role_seed")) {
		if ((r = in_hex(j, in, "role_seed", sk, 32)) == 0)
			r = alx_seed_keys(sk, NULL, &kx);
	} else if ((r = in_hex(j, in, "kx_secret", sk, 32)) == 0)
		r = alx_kx_from_secret(&kx, sk);
	if (r == 0 && (r = alx_manifest_epoch_key(&m, to, &kx, k)) == 0)
		out_hex(o, "epoch_key", k, 32);
	alx_kx_wipe(&kx);
	free(to);
	alx_manifest_free(&m);
	return r;
}

static int
manifest_private_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_manifest	 m;
	struct alx_private	 p;
	uint8_t			 k[32];
	char			*enc;
	size_t			 len;
	int			 r;

	if ((r = chain_of_input(j, in, &m)) != 0)
		return r;
	if ((r = in_hex(j, in, "epoch_key", k, 32)) == 0 &&
	    (r = alx_manifest_open_private(&m, k, &p)) == 0) {
		if ((r = alx_private_encode(&p, &enc, &len)) == 0) {
			out_mem(o, "private", enc, len);
			free(enc);
		}
		alx_private_free(&p);
	}
	alx_manifest_free(&m);
	return r;
}

static int
build_sid(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_manifest	 m;
	struct alx_signed	 s;
	uint8_t			 h[ALX_HASH_LEN], *msg;
	char			*obj;
	size_t			 dl = sizeof("airlox/v1/sid");
	int			 r;

	if ((obj = in_text(j, in, "object")) == NULL)
		return VEC_BADINPUT;
	if ((r = alx_signed_parse(&s, obj, strlen(obj))) != 0) {
		free(obj);
		return r;
	}
	if ((msg = malloc(dl + s.body_len)) == NULL)
		abort();
	memcpy(msg, "airlox/v1/sid", dl);
	memcpy(msg + dl, s.body, s.body_len);
	alx_sha256(h, msg, dl + s.body_len);
	free(msg);
	alx_signed_free(&s);
	/* libairlox must accept the object for exactly this anchor. */
	if ((r = alx_manifest_open(&m, obj, strlen(obj), h, NULL)) == 0) {
		out_hex(o, "sid_hex", h, ALX_SID_LEN);
		out_b64(o, "sid", h, ALX_SID_LEN);
		alx_manifest_free(&m);
	}
	free(obj);
	return r;
}

/*
 * Certificates.
 */

static int
cert_sign_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_cert		 c;
	struct alx_signkey	 rk, pk;
	struct alx_kxkey	 kx;
	uint8_t			 seed[32];
	char			*name = NULL, *kind = NULL;
	int			 r;

	memset(&c, 0, sizeof(c));
	if ((r = in_hex(j, in, "sid", c.sid, ALX_SID_LEN)) != 0 ||
	    (r = in_role(j, in, "role", &c.role)) != 0 ||
	    (r = in_int(j, in, "n", &c.n)) != 0 ||
	    (r = in_int(j, in, "time", &c.time)) != 0)
		return r;
	name = in_text(j, in, "name");
	kind = in_text(j, in, "kind");
	if (name == NULL || kind == NULL || strlen(name) > ALX_DISPLAY_MAX) {
		r = VEC_BADINPUT;
		goto out;
	}
	strcpy(c.name, name);
	c.kind = strcmp(kind, "runner") == 0 ? ALX_PKIND_RUNNER :
	    strcmp(kind, "person") == 0 ? ALX_PKIND_PERSON : ALX_PKIND_AGENT;
	if ((r = in_hex(j, in, "participant_seed", seed, 32)) != 0)
		goto out;
	alx_sign_from_seed(&pk, seed);
	memcpy(c.pk, pk.pk, 32);
	alx_sign_wipe(&pk);
	if ((r = in_hex(j, in, "participant_kx_secret", seed, 32)) != 0)
		goto out;
	alx_kx_from_secret(&kx, seed);
	memcpy(c.kx, kx.pk, 32);
	alx_kx_wipe(&kx);
	if ((r = in_hex(j, in, "signer_role_seed", seed, 32)) != 0)
		goto out;
	alx_seed_keys(seed, &rk, NULL);
	r = alx_cert_sign(&c, &rk);
	alx_sign_wipe(&rk);
	if (r == 0) {
		out_mem(o, "body", c.obj.body, c.obj.body_len);
		out_mem(o, "object", c.obj.raw, c.obj.raw_len);
		out_b64(o, "fp", c.fp, ALX_FP_LEN);
	}
out:
	alx_cert_free(&c);
	free(name);
	free(kind);
	return r;
}

static int
cert_open_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_manifest	 m;
	struct alx_cert		 c;
	char			*obj;
	int			 r;

	if ((r = chain_of_input(j, in, &m)) != 0)
		return r;
	if ((obj = in_text(j, in, "object")) == NULL)
		r = VEC_BADINPUT;
	else if ((r = alx_cert_open(&c, obj, strlen(obj), &m)) == 0) {
		out_str(o, "role", alx_role_name(c.role));
		out_b64(o, "fp", c.fp, ALX_FP_LEN);
		out_str(o, "name", c.name);
		alx_cert_free(&c);
	}
	free(obj);
	alx_manifest_free(&m);
	return r;
}

/*
 * Content: meta, chunks, items, jobs.
 */

/* The fields the content AAD binds: sid, id, author fp, kind. */
static int
content_fields(const struct alx_json *j, int in, struct alx_item *it)
{
	char	*kind;
	int	 r;

	memset(it, 0, sizeof(*it));
	if ((r = in_hex(j, in, "sid", it->sid, ALX_SID_LEN)) != 0 ||
	    (r = in_hex(j, in, "id", it->id, ALX_ID_LEN)) != 0 ||
	    (r = in_hex(j, in, "author", it->author, ALX_FP_LEN)) != 0)
		return r;
	if ((kind = in_text(j, in, "kind")) == NULL || strlen(kind) >
	    ALX_KIND_MAX) {
		free(kind);
		return VEC_BADINPUT;
	}
	strcpy(it->kind, kind);
	free(kind);
	return 0;
}

/*
 * kc of an item key, computed here from section 6 (HKDF-SHA-256(key, "",
 * "airlox/v1/commit", 32)) and checked against libairlox's.
 */
static int
content_commit(const uint8_t k[32], uint8_t kc[32])
{
	uint8_t	lib[32];

	alx_hkdf_sha256(kc, 32, k, 32, NULL, 0, "airlox/v1/commit", 16);
	if (alx_item_commit(k, lib) != ALX_OK || memcmp(lib, kc, 32) != 0)
		return VEC_MISMATCH;
	return 0;
}

/* The commitment the envelope signs: "kc" (hex) as the reader is given. */
static int
content_kc(const struct alx_json *j, int in, struct alx_item *it)
{
	return in_hex(j, in, "kc", it->kc, sizeof(it->kc));
}

/* "airlox/v1/<dom>" 0x00 sid id author kind 0x00, per section 6. */
static size_t
content_aad(uint8_t *aad, const char *dom, const struct alx_item *it)
{
	size_t	n = strlen(dom) + 1, kl = strlen(it->kind) + 1;

	memcpy(aad, dom, n);
	memcpy(aad + n, it->sid, ALX_SID_LEN);
	n += ALX_SID_LEN;
	memcpy(aad + n, it->id, ALX_ID_LEN);
	n += ALX_ID_LEN;
	memcpy(aad + n, it->author, ALX_FP_LEN);
	n += ALX_FP_LEN;
	memcpy(aad + n, it->kind, kl);
	return n + kl;
}

static int
meta_seal_op(const struct alx_json *j, int in, struct outs *o)
{
	static const uint8_t	 zero[ALX_NONCE_LEN];
	struct alx_item		 it;
	uint8_t			 k[32], km[32], kc[32], aad[128], *ct;
	char			*meta;
	size_t			 al, ml;
	int			 r;

	if ((r = content_fields(j, in, &it)) != 0 ||
	    (r = in_hex(j, in, "item_key", k, 32)) != 0)
		return r;
	if ((meta = in_text(j, in, "meta")) == NULL)
		return VEC_BADINPUT;
	ml = strlen(meta);
	if ((r = alx_item_seal_meta(&it, k, meta, ml)) == 0 &&
	    (r = content_commit(k, kc)) == 0) {
		if (memcmp(kc, it.kc, 32) != 0)
			r = VEC_MISMATCH;
		out_hex(o, "kc", kc, 32);
		alx_hkdf_sha256(km, 32, k, 32, NULL, 0, "airlox/v1/meta", 14);
		al = content_aad(aad, "airlox/v1/meta", &it);
		if ((ct = malloc(ml + ALX_TAG_LEN)) == NULL)
			abort();
		alx_aead_seal(ct, km, zero, aad, al, meta, ml);
		if (it.meta_len != ml + ALX_TAG_LEN ||
		    memcmp(ct, it.meta_ct, it.meta_len) != 0)
			r = VEC_MISMATCH;
		out_hex(o, "k_meta", km, 32);
		out_hex(o, "aad", aad, al);
		out_hex(o, "ct", it.meta_ct, it.meta_len);
		free(ct);
	}
	free(meta);
	alx_item_free(&it);
	return r;
}

static int
meta_open_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_item	 it;
	uint8_t		 k[32];
	char		*meta;
	size_t		 len;
	int		 r;

	if ((r = content_fields(j, in, &it)) != 0 ||
	    (r = content_kc(j, in, &it)) != 0 ||
	    (r = in_hex(j, in, "item_key", k, 32)) != 0 ||
	    (r = in_hexa(j, in, "ct", &it.meta_ct, &it.meta_len)) != 0)
		goto out;
	if ((r = alx_item_open_meta(&it, k, &meta, &len)) == 0) {
		out_mem(o, "meta", meta, len);
		free(meta);
	}
out:
	alx_item_free(&it);
	return r;
}

/*
 * Payload of a chunk vector: "payload" hex, or "size" with the rule.
 * Returns the plaintext of chunk i (len bytes) into pt.
 */
static int
payload_size(const struct alx_json *j, int in, int64_t *size)
{
	uint8_t	*p;
	size_t	 len;
	int	 r;

	if (in_has(j, in, "payload")) {
		if ((r = in_hexa(j, in, "payload", &p, &len)) != 0)
			return r;
		free(p);
		*size = (int64_t)len;
		return 0;
	}
	return in_int(j, in, "size", size);
}

static int
payload_chunk(const struct alx_json *j, int in, size_t i, uint8_t *pt,
    size_t len)
{
	uint8_t	*p;
	size_t	 plen;
	int	 r;

	if (in_has(j, in, "payload")) {
		if ((r = in_hexa(j, in, "payload", &p, &plen)) != 0)
			return r;
		memcpy(pt, p + i * ALX_CHUNK_SIZE, len);
		free(p);
		return 0;
	}
	rule_fill(pt, len, (uint64_t)i * ALX_CHUNK_SIZE);
	return 0;
}

static size_t
chunk_len(int64_t size, size_t i)
{
	size_t	n = alx_chunk_count(size);

	return i + 1 < n ? ALX_CHUNK_SIZE :
	    (size_t)(size - (int64_t)i * ALX_CHUNK_SIZE);
}

/* Outputs of chunk i, checked against section 6 computed here. */
static int
chunk_report(struct outs *o, const struct alx_item *it, const uint8_t k[32],
    size_t i, const uint8_t *pt, const uint8_t *ct, size_t len)
{
	uint8_t	 kc[32], nonce[ALX_NONCE_LEN], aad[160], h[ALX_HASH_LEN];
	uint8_t	*want;
	char	 key[32];
	size_t	 al;
	int	 r = 0;

	alx_hkdf_sha256(kc, 32, k, 32, NULL, 0, "airlox/v1/chunk", 15);
	memset(nonce, 0, 4);
	alx_be64(nonce + 4, i);
	al = content_aad(aad, "airlox/v1/chunk", it);
	alx_be64(aad + al, i);
	al += 8;
	aad[al++] = i + 1 == it->nchunks ? 1 : 0;
	if ((want = malloc(len + ALX_TAG_LEN)) == NULL)
		abort();
	alx_aead_seal(want, kc, nonce, aad, al, pt, len);
	if (memcmp(want, ct, len + ALX_TAG_LEN) != 0)
		r = VEC_MISMATCH;
	free(want);
	if (i == 0)
		out_hex(o, "k_chunk", kc, 32);
	alx_sha256(h, ct, len + ALX_TAG_LEN);
	snprintf(key, sizeof(key), "nonce[%zu]", i);
	out_hex(o, key, nonce, sizeof(nonce));
	snprintf(key, sizeof(key), "aad[%zu]", i);
	out_hex(o, key, aad, al);
	snprintf(key, sizeof(key), "ct_len[%zu]", i);
	out_int(o, key, (int64_t)(len + ALX_TAG_LEN));
	snprintf(key, sizeof(key), "ct_sha256[%zu]", i);
	out_hex(o, key, h, sizeof(h));
	if (len <= VEC_FULL_CT_MAX) {
		snprintf(key, sizeof(key), "ct[%zu]", i);
		out_hex(o, key, ct, len + ALX_TAG_LEN);
	} else {
		snprintf(key, sizeof(key), "ct_head64[%zu]", i);
		out_hex(o, key, ct, 64);
	}
	snprintf(key, sizeof(key), "tag[%zu]", i);
	out_hex(o, key, ct + len, ALX_TAG_LEN);
	alx_wipe(kc, sizeof(kc));
	return r;
}

/* Seal every chunk of the payload into it->chunks; report each. */
static int
seal_chunks(const struct alx_json *j, int in, struct alx_item *it,
    const uint8_t k[32], struct outs *o)
{
	uint8_t		*pt, *ct;
	size_t		 n, i, len;
	int		 r = 0;

	if ((r = payload_size(j, in, &it->size)) != 0)
		return r;
	n = alx_chunk_count(it->size);
	it->nchunks = n;
	if ((it->chunks = calloc(n + 1, ALX_HASH_LEN)) == NULL ||
	    (pt = malloc(ALX_CHUNK_SIZE)) == NULL ||
	    (ct = malloc(ALX_CHUNK_CT_MAX)) == NULL)
		abort();
	for (i = 0; i < n && r == 0; i++) {
		len = chunk_len(it->size, i);
		if ((r = payload_chunk(j, in, i, pt, len)) != 0 ||
		    (r = alx_chunk_seal(it, k, i, pt, len, ct)) != 0)
			break;
		alx_sha256(it->chunks[i], ct, len + ALX_TAG_LEN);
		if (o != NULL)
			r = chunk_report(o, it, k, i, pt, ct, len);
	}
	free(pt);
	free(ct);
	return r;
}

static int
chunk_seal_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_item	it;
	uint8_t		k[32];
	int		r;

	if ((r = content_fields(j, in, &it)) != 0 ||
	    (r = in_hex(j, in, "item_key", k, 32)) != 0 ||
	    (r = content_commit(k, it.kc)) != 0)
		return r;
	if ((r = payload_size(j, in, &it.size)) == 0)
		out_int(o, "chunk_count", (int64_t)alx_chunk_count(it.size));
	if (r == 0)
		r = seal_chunks(j, in, &it, k, o);
	alx_item_free(&it);
	return r;
}

/*
 * The ciphertext of chunk "ct_of_chunk" of the payload rule, sealed for the
 * item of the inputs, or for one that differs in "ct_item_size" (another
 * chunk count: the final flag moves) or "ct_item_id" (another item).
 */
static int
chunk_reseal(const struct alx_json *j, int in, const struct alx_item *it,
    const uint8_t k[32], uint8_t **ct, size_t *ctlen)
{
	struct alx_item	 s;
	uint8_t		*pt;
	int64_t		 from;
	size_t		 len;
	int		 r;

	s = *it;
	if ((r = in_int(j, in, "ct_of_chunk", &from)) != 0 ||
	    (in_has(j, in, "ct_item_size") &&
	    (r = in_int(j, in, "ct_item_size", &s.size)) != 0) ||
	    (in_has(j, in, "ct_item_id") &&
	    (r = in_hex(j, in, "ct_item_id", s.id, ALX_ID_LEN)) != 0))
		return r;
	s.nchunks = alx_chunk_count(s.size);
	if (from < 0 || (size_t)from >= s.nchunks)
		return VEC_BADINPUT;
	if ((r = content_commit(k, s.kc)) != 0)
		return r;
	len = chunk_len(s.size, (size_t)from);
	if ((pt = malloc(ALX_CHUNK_SIZE)) == NULL ||
	    (*ct = malloc(ALX_CHUNK_CT_MAX)) == NULL)
		abort();
	rule_fill(pt, len, (uint64_t)from * ALX_CHUNK_SIZE);
	r = alx_chunk_seal(&s, k, (uint64_t)from, pt, len, *ct);
	*ctlen = len + ALX_TAG_LEN;
	free(pt);
	return r;
}

/* Open one chunk: "ct" hex, or "ct_of_chunk" j re-sealed from the rule. */
static int
chunk_open_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_item	 it;
	uint8_t		 k[32], h[ALX_HASH_LEN], *ct = NULL, *pt = NULL;
	int64_t		 idx;
	size_t		 ctlen = 0;
	int		 arr, i, n, r;

	if ((r = content_fields(j, in, &it)) != 0 ||
	    (r = content_kc(j, in, &it)) != 0 ||
	    (r = in_hex(j, in, "item_key", k, 32)) != 0 ||
	    (r = in_int(j, in, "size", &it.size)) != 0 ||
	    (r = in_int(j, in, "index", &idx)) != 0)
		goto out;
	if ((arr = alx_json_obj_get(j, in, "chunks")) < 0 ||
	    (n = alx_json_arr_len(j, arr)) < 0) {
		r = VEC_BADINPUT;
		goto out;
	}
	if ((it.chunks = calloc((size_t)n + 1, ALX_HASH_LEN)) == NULL)
		abort();
	for (i = 0; i < n; i++)
		if ((r = tok_hex(j, alx_json_arr_at(j, arr, i), it.chunks[i],
		    ALX_HASH_LEN)) != 0)
			goto out;
	it.nchunks = (size_t)n;
	if (in_has(j, in, "ct")) {
		if ((r = in_hexa(j, in, "ct", &ct, &ctlen)) != 0)
			goto out;
	} else if ((r = chunk_reseal(j, in, &it, k, &ct, &ctlen)) != 0)
		goto out;
	if ((pt = malloc(ctlen + 1)) == NULL)
		abort();
	if ((r = alx_chunk_open(&it, k, (uint64_t)idx, ct, ctlen, pt)) == 0) {
		alx_sha256(h, pt, ctlen - ALX_TAG_LEN);
		out_hex(o, "pt_sha256", h, sizeof(h));
	}
out:
	free(pt);
	free(ct);
	alx_item_free(&it);
	return r;
}

/*
 * The plain AES-GCM of section 6 under k_chunk of item_key, without the
 * commitment check: what a reader that skipped it would accept. The
 * two-key chunk of chunk.json opens here under both keys, to different
 * plaintexts; op open refuses the key the envelope does not commit to.
 */
static int
chunk_gcm_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_item	 it;
	uint8_t		 k[32], kch[32], nonce[ALX_NONCE_LEN], aad[160];
	uint8_t		 h[ALX_HASH_LEN], *ct = NULL, *pt = NULL;
	int64_t		 idx, n;
	size_t		 al, ctlen = 0;
	int		 r;

	if ((r = content_fields(j, in, &it)) != 0 ||
	    (r = in_hex(j, in, "item_key", k, 32)) != 0 ||
	    (r = in_int(j, in, "chunk_count", &n)) != 0 ||
	    (r = in_int(j, in, "index", &idx)) != 0 ||
	    (r = in_hexa(j, in, "ct", &ct, &ctlen)) != 0)
		goto out;
	if (ctlen < ALX_TAG_LEN || idx < 0 || idx >= n) {
		r = VEC_BADINPUT;
		goto out;
	}
	alx_hkdf_sha256(kch, 32, k, 32, NULL, 0, "airlox/v1/chunk", 15);
	memset(nonce, 0, 4);
	alx_be64(nonce + 4, (uint64_t)idx);
	al = content_aad(aad, "airlox/v1/chunk", &it);
	alx_be64(aad + al, (uint64_t)idx);
	al += 8;
	aad[al++] = idx + 1 == n ? 1 : 0;
	if ((pt = malloc(ctlen)) == NULL)
		abort();
	if ((r = alx_aead_open(pt, kch, nonce, aad, al, ct, ctlen)) == 0) {
		alx_sha256(h, pt, ctlen - ALX_TAG_LEN);
		out_hex(o, "pt_sha256", h, sizeof(h));
		out_hex(o, "pt_head16", pt, 16);
	}
out:
	free(pt);
	free(ct);
	alx_item_free(&it);
	return r;
}

/*
 * "job": {"runner"|"label", "not_after", "wraps": [{"to","kx_pk","eph"}]};
 * a wrap with "key" wraps that key instead of the item key (a sender that
 * gives one recipient another key).
 */
static int
item_job(const struct alx_json *j, int job, struct alx_item *it,
    const uint8_t k[32])
{
	uint8_t	 ctx[64], rpk[32], esk[32], wk[32];
	char	*name, *to;
	size_t	 cl;
	int	 arr, i, n, t, r;

	it->has_job = 1;
	it->job.is_label = in_has(j, job, "label");
	if ((name = in_text(j, job, it->job.is_label ? "label" :
	    "runner")) == NULL || strlen(name) > ALX_NAME_MAX) {
		free(name);
		return VEC_BADINPUT;
	}
	strcpy(it->job.name, name);
	free(name);
	if ((r = in_int(j, job, "not_after", &it->job.not_after)) != 0)
		return r;
	if ((arr = alx_json_obj_get(j, job, "wraps")) < 0 ||
	    (n = alx_json_arr_len(j, arr)) < 1)
		return VEC_BADINPUT;
	if ((it->job.wraps = calloc((size_t)n, sizeof(struct alx_wrap))) ==
	    NULL)
		abort();
	cl = alx_wrap_ctx_job(ctx, it->sid, it->id);
	for (i = 0; i < n; i++) {
		t = alx_json_arr_at(j, arr, i);
		if ((r = in_hex(j, t, "kx_pk", rpk, 32)) != 0 ||
		    (r = in_hex(j, t, "eph", esk, 32)) != 0)
			return r;
		memcpy(wk, k, 32);
		if (in_has(j, t, "key") && (r = in_hex(j, t, "key", wk,
		    32)) != 0)
			return r;
		if ((to = in_text(j, t, "to")) == NULL)
			return VEC_BADINPUT;
		r = alx_wrap_seal_eph(&it->job.wraps[i], to, rpk, ctx, cl, wk,
		    esk);
		free(to);
		if (r != 0)
			return r;
		it->job.nwraps++;
	}
	return 0;
}

/* Envelope fields of an item from the inputs. */
static int
item_fields(const struct alx_json *j, int in, struct alx_item *it,
    struct alx_signkey *sk)
{
	uint8_t	 seed[32];
	char	*kind;
	int	 arr, i, n, r;

	memset(it, 0, sizeof(*it));
	if ((r = in_hex(j, in, "sid", it->sid, ALX_SID_LEN)) != 0 ||
	    (r = in_hex(j, in, "id", it->id, ALX_ID_LEN)) != 0 ||
	    (r = in_hex(j, in, "author_seed", seed, 32)) != 0 ||
	    (r = in_int(j, in, "seq", &it->seq)) != 0 ||
	    (r = in_int(j, in, "time", &it->time)) != 0 ||
	    (r = in_int(j, in, "mv", &it->mv)) != 0 ||
	    (r = in_int(j, in, "epoch", &it->epoch)) != 0)
		return r;
	alx_sign_from_seed(sk, seed);
	alx_fingerprint(it->author, sk->pk, ALX_SIGN_PK_LEN);
	if ((kind = in_text(j, in, "kind")) == NULL ||
	    strlen(kind) > ALX_KIND_MAX) {
		free(kind);
		return VEC_BADINPUT;
	}
	strcpy(it->kind, kind);
	free(kind);
	if (in_has(j, in, "prev")) {
		it->has_prev = 1;
		if ((r = in_hex(j, in, "prev", it->prev, ALX_HASH_LEN)) != 0)
			return r;
	}
	if (in_has(j, in, "reply_to")) {
		it->has_reply_to = 1;
		if ((r = in_hex(j, in, "reply_to", it->reply_to,
		    ALX_ID_LEN)) != 0)
			return r;
	}
	if ((arr = alx_json_obj_get(j, in, "to")) >= 0) {
		n = alx_json_arr_len(j, arr);
		if (n < 0 || (it->to = calloc((size_t)n + 1, ALX_FP_LEN)) ==
		    NULL)
			return VEC_BADINPUT;
		for (i = 0; i < n; i++)
			if ((r = tok_hex(j, alx_json_arr_at(j, arr, i),
			    it->to[i], ALX_FP_LEN)) != 0)
				return r;
		it->nto = (size_t)n;
	}
	return 0;
}

/* The item key: from "epoch_key" (section 6) or given as "item_key". */
static int
item_key_of_input(const struct alx_json *j, int in, const struct alx_item *it,
    uint8_t k[32])
{
	uint8_t	ekey[32], want[32];
	int	r;

	if (in_has(j, in, "item_key"))
		return in_hex(j, in, "item_key", k, 32);
	if ((r = in_hex(j, in, "epoch_key", ekey, 32)) != 0 ||
	    (r = alx_item_key_epoch(ekey, it->id, k)) != 0)
		return r;
	alx_hkdf_sha256(want, 32, ekey, 32, it->id, ALX_ID_LEN,
	    "airlox/v1/item", 14);
	return memcmp(want, k, 32) == 0 ? 0 : VEC_MISMATCH;
}

static int
item_seal_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_item		 it, got;
	struct alx_signkey	 sk;
	uint8_t			 k[32], kc[32];
	char			*meta = NULL;
	int			 job, r;

	memset(&sk, 0, sizeof(sk));
	if ((r = item_fields(j, in, &it, &sk)) != 0 ||
	    (r = item_key_of_input(j, in, &it, k)) != 0)
		goto out;
	if ((meta = in_text(j, in, "meta")) == NULL) {
		r = VEC_BADINPUT;
		goto out;
	}
	if ((r = alx_item_seal_meta(&it, k, meta, strlen(meta))) != 0)
		goto out;
	if ((in_has(j, in, "size") || in_has(j, in, "payload")) &&
	    (r = seal_chunks(j, in, &it, k, NULL)) != 0)
		goto out;
	if ((job = alx_json_obj_get(j, in, "job")) >= 0 &&
	    (r = item_job(j, job, &it, k)) != 0)
		goto out;
	if ((r = alx_item_sign(&it, &sk)) != 0)
		goto out;
	if ((r = alx_item_open(&got, it.obj.raw, it.obj.raw_len, it.sid,
	    sk.pk)) != 0)
		goto out;
	alx_item_free(&got);
	if ((r = content_commit(k, kc)) != 0)
		goto out;
	if (memcmp(kc, it.kc, 32) != 0) {
		r = VEC_MISMATCH;
		goto out;
	}
	out_hex(o, "author_pk", sk.pk, 32);
	out_b64(o, "author", it.author, ALX_FP_LEN);
	out_hex(o, "item_key", k, 32);
	out_hex(o, "kc", kc, 32);
	out_mem(o, "body", it.obj.body, it.obj.body_len);
	out_mem(o, "object", it.obj.raw, it.obj.raw_len);
	out_hex(o, "hash", it.hash, ALX_HASH_LEN);
out:
	free(meta);
	alx_sign_wipe(&sk);
	alx_item_free(&it);
	return r;
}

/* Open an item object, with the chain check when last_seq is given. */
static int
item_open_in(const struct alx_json *j, int in, struct alx_item *it)
{
	uint8_t	 sid[ALX_SID_LEN], pk[32], lh[ALX_HASH_LEN];
	int64_t	 ls;
	char	*obj;
	int	 r;

	memset(it, 0, sizeof(*it));
	if ((r = in_hex(j, in, "sid", sid, sizeof(sid))) != 0 ||
	    (r = in_hex(j, in, "author_pk", pk, 32)) != 0)
		return r;
	if ((obj = in_text(j, in, "object")) == NULL)
		return VEC_BADINPUT;
	r = alx_item_open(it, obj, strlen(obj), sid, pk);
	free(obj);
	if (r != 0 || !in_has(j, in, "last_seq"))
		return r;
	if ((r = in_int(j, in, "last_seq", &ls)) != 0)
		return r;
	if (in_has(j, in, "last_hash") &&
	    (r = in_hex(j, in, "last_hash", lh, sizeof(lh))) != 0)
		return r;
	return alx_item_check_chain(it, ls, in_has(j, in, "last_hash") ?
	    lh : NULL);
}

static int
item_open_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_item	it;
	int		r;

	if ((r = item_open_in(j, in, &it)) == 0) {
		out_str(o, "kind", it.kind);
		out_int(o, "seq", it.seq);
		out_int(o, "size", it.size);
		out_hex(o, "hash", it.hash, ALX_HASH_LEN);
	}
	alx_item_free(&it);
	return r;
}

static int
item_meta_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_item	 it;
	uint8_t		 k[32];
	char		*meta;
	size_t		 len;
	int		 r;

	if ((r = item_open_in(j, in, &it)) == 0 &&
	    (r = in_hex(j, in, "item_key", k, 32)) == 0 &&
	    (r = alx_item_open_meta(&it, k, &meta, &len)) == 0) {
		out_mem(o, "meta", meta, len);
		free(meta);
	}
	alx_item_free(&it);
	return r;
}

static int
item_job_key_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_item		 it;
	struct alx_kxkey	 kx;
	uint8_t			 sk[32], k[32];
	char			*to = NULL;
	int			 r;

	memset(&kx, 0, sizeof(kx));
	if ((r = item_open_in(j, in, &it)) == 0 &&
	    (r = in_hex(j, in, "kx_secret", sk, 32)) == 0 &&
	    (to = in_text(j, in, "to")) != NULL &&
	    (r = alx_kx_from_secret(&kx, sk)) == 0 &&
	    (r = alx_item_job_key(&it, to, &kx, k)) == 0)
		out_hex(o, "item_key", k, 32);
	else if (r == 0 && to == NULL)
		r = VEC_BADINPUT;
	alx_kx_wipe(&kx);
	free(to);
	alx_item_free(&it);
	return r;
}

/* The item against the manifest it acts on ("manifests", "manifest_sid"). */
static int
item_check_manifest_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_manifest	m;
	struct alx_item		it;
	uint8_t			msid[ALX_SID_LEN];
	int			r;

	if ((r = in_hex(j, in, "manifest_sid", msid, sizeof(msid))) != 0 ||
	    (r = open_chain(j, in, msid, &m)) != 0)
		return r;
	if ((r = item_open_in(j, in, &it)) == 0 &&
	    (r = alx_item_check_manifest(&it, &m)) == 0)
		out_int(o, "size", it.size);
	alx_item_free(&it);
	alx_manifest_free(&m);
	return r;
}

/* A job against the reader's clock ("now"). */
static int
item_expiry_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_item	it;
	int64_t		now;
	int		r;

	if ((r = in_int(j, in, "now", &now)) != 0)
		return r;
	if ((r = item_open_in(j, in, &it)) == 0 &&
	    (r = alx_item_check_expiry(&it, now)) == 0)
		out_int(o, "not_after", it.job.not_after);
	alx_item_free(&it);
	return r;
}

/* One author's items in the order a reader gets them. */
static int
chain_check_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_item	 it;
	uint8_t		 sid[ALX_SID_LEN], pk[32], last[ALX_HASH_LEN];
	int64_t		 seq = 0;
	char		*obj = NULL, key[32];
	int		 arr, i, n, r;

	if ((r = in_hex(j, in, "sid", sid, sizeof(sid))) != 0 ||
	    (r = in_hex(j, in, "author_pk", pk, 32)) != 0)
		return r;
	if ((arr = alx_json_obj_get(j, in, "items")) < 0 ||
	    (n = alx_json_arr_len(j, arr)) < 1)
		return VEC_BADINPUT;
	for (i = 0; i < n; i++) {
		if (alx_json_str(j, alx_json_arr_at(j, arr, i), &obj, NULL) !=
		    ALX_OK)
			return VEC_BADINPUT;
		r = alx_item_open(&it, obj, strlen(obj), sid, pk);
		free(obj);
		if (r == 0)
			r = alx_item_check_chain(&it, seq, seq ? last : NULL);
		if (r != 0) {
			alx_item_free(&it);
			return r;
		}
		seq = it.seq;
		memcpy(last, it.hash, ALX_HASH_LEN);
		snprintf(key, sizeof(key), "hash[%d]", i);
		out_hex(o, key, it.hash, ALX_HASH_LEN);
		alx_item_free(&it);
	}
	return 0;
}

/*
 * Wraps.
 */

static int
wrap_seal_op(const struct alx_json *j, int in, struct outs *o)
{
	static const uint8_t	 zero[ALX_NONCE_LEN];
	struct alx_wrap		 w;
	struct alx_kxkey	 rk;
	struct alx_jw		 jw;
	uint8_t			 rsk[32], esk[32], key[32], ss[32];
	uint8_t			 wk[32], salt[64], info[128], ct[48];
	uint8_t			*ctx = NULL;
	char			*to = NULL, *text = NULL;
	size_t			 cl, tl;
	int			 r;

	if ((r = in_hex(j, in, "recipient_kx_secret", rsk, 32)) != 0 ||
	    (r = in_hex(j, in, "eph_secret", esk, 32)) != 0 ||
	    (r = in_hex(j, in, "key", key, 32)) != 0 ||
	    (r = in_hexa(j, in, "ctx", &ctx, &cl)) != 0)
		goto out;
	if ((to = in_text(j, in, "to")) == NULL || cl > 64) {
		r = VEC_BADINPUT;
		goto out;
	}
	alx_kx_from_secret(&rk, rsk);
	if ((r = alx_wrap_seal_eph(&w, to, rk.pk, ctx, cl, key, esk)) != 0)
		goto out;
	/* Section 4, computed here. */
	alx_kx(ss, esk, rk.pk);
	memcpy(salt, w.epk, 32);
	memcpy(salt + 32, rk.pk, 32);
	memcpy(info, "airlox/v1/wrap", 15);
	memcpy(info + 15, ctx, cl);
	alx_hkdf_sha256(wk, 32, ss, 32, salt, 64, info, 15 + cl);
	alx_aead_seal(ct, wk, zero, ctx, cl, key, 32);
	if (memcmp(ct, w.ct, sizeof(ct)) != 0)
		r = VEC_MISMATCH;
	alx_jw_init(&jw, 4096);
	alx_jw_wraps(&jw, "wrap", &w, 1);
	alx_jw_finish(&jw, &text, &tl);
	alx_jw_free(&jw);
	out_hex(o, "recipient_pk", rk.pk, 32);
	out_hex(o, "epk", w.epk, 32);
	out_hex(o, "shared", ss, 32);
	out_hex(o, "wrap_key", wk, 32);
	out_hex(o, "ct", w.ct, sizeof(w.ct));
	/* The array member as it appears in manifests and jobs. */
	out_str(o, "json", text != NULL ? text : "");
	free(text);
	alx_kx_wipe(&rk);
out:
	free(ctx);
	free(to);
	return r;
}

static int
wrap_open_op(const struct alx_json *j, int in, struct outs *o)
{
	struct alx_wrap		 w;
	struct alx_kxkey	 rk;
	uint8_t			 rsk[32], key[32], *ctx = NULL;
	size_t			 cl;
	int			 r;

	memset(&w, 0, sizeof(w));
	if ((r = in_hex(j, in, "recipient_kx_secret", rsk, 32)) != 0 ||
	    (r = in_hex(j, in, "epk", w.epk, 32)) != 0 ||
	    (r = in_hex(j, in, "ct", w.ct, sizeof(w.ct))) != 0 ||
	    (r = in_hexa(j, in, "ctx", &ctx, &cl)) != 0)
		goto out;
	if (cl > 64) {
		r = VEC_BADINPUT;
		goto out;
	}
	alx_kx_from_secret(&rk, rsk);
	if ((r = alx_wrap_open(&w, &rk, ctx, cl, key)) == 0)
		out_hex(o, "key", key, 32);
	alx_kx_wipe(&rk);
out:
	free(ctx);
	return r;
}

/*
 * Dispatch: structure and op to a builder.
 */

struct vec_op {
	const char	*structure;
	const char	*op;
	build_fn	 fn;
};

static const struct vec_op vec_ops[] = {
	{ "seed-keys",	 "derive",	build_keys },
	{ "seed-keys",	 "participant",	build_participant },
	{ "fingerprint", "derive",	build_fingerprint },
	{ "base64",	 "decode",	build_base64 },
	{ "private",	 "decode",	build_private },
	{ "signed",	 "seal",	signed_seal_op },
	{ "signed",	 "open",	signed_open_op },
	{ "sid",	 "derive",	build_sid },
	{ "manifest",	 "create",	manifest_create_op },
	{ "manifest",	 "update",	manifest_update_op },
	{ "manifest",	 "open",	manifest_open_op },
	{ "manifest",	 "epoch_key",	manifest_epoch_key_op },
	{ "manifest",	 "private",	manifest_private_op },
	{ "cert",	 "sign",	cert_sign_op },
	{ "cert",	 "open",	cert_open_op },
	{ "meta",	 "seal",	meta_seal_op },
	{ "meta",	 "open",	meta_open_op },
	{ "chunk",	 "seal",	chunk_seal_op },
	{ "chunk",	 "open",	chunk_open_op },
	{ "chunk",	 "gcm",		chunk_gcm_op },
	{ "item",	 "seal",	item_seal_op },
	{ "item",	 "open",	item_open_op },
	{ "item",	 "meta",	item_meta_op },
	{ "item",	 "check_manifest", item_check_manifest_op },
	{ "job",	 "seal",	item_seal_op },
	{ "job",	 "open",	item_open_op },
	{ "job",	 "job_key",	item_job_key_op },
	{ "job",	 "meta",	item_meta_op },
	{ "job",	 "expiry",	item_expiry_op },
	{ "chain",	 "check",	chain_check_op },
	{ "chain",	 "seal",	item_seal_op },
	{ "wrap",	 "seal",	wrap_seal_op },
	{ "wrap",	 "open",	wrap_open_op },
};

static build_fn
vec_find(const char *structure, const char *op)
{
	size_t	i;

	for (i = 0; i < sizeof(vec_ops) / sizeof(vec_ops[0]); i++)
		if (strcmp(vec_ops[i].structure, structure) == 0 &&
		    strcmp(vec_ops[i].op, op) == 0)
			return vec_ops[i].fn;
	return NULL;
}

/* Run the builder named by a case's inputs. */
static int
vec_run(const struct alx_json *j, int in, const char *structure,
    struct outs *o)
{
	build_fn	 fn;
	char		*op;

	memset(o, 0, sizeof(*o));
	if ((op = in_text(j, in, "op")) == NULL)
		return VEC_BADINPUT;
	fn = vec_find(structure, op);
	free(op);
	if (fn == NULL)
		return VEC_BADINPUT;
	return fn(j, in, o);
}

static const char *
vec_errname(int r)
{
	if (r == VEC_BADINPUT)
		return "(malformed vector input)";
	if (r == VEC_MISMATCH)
		return "(libairlox disagrees with protocol.md)";
	return alx_errname(r);
}

#ifndef ALX_MKVECTORS
/*
 * Checking the files.
 */

/* Files whose structure another test checks. */
static const struct {
	const char	*file;
	const char	*test;
} vec_elsewhere[] = {
	{ "cpace.json",		"test-cpace" },
	{ "invite.json",	"test-invite" },
	{ "request.json",	"test-req" },
};

static int
vec_structure_known(const char *structure)
{
	size_t	i;

	for (i = 0; i < sizeof(vec_ops) / sizeof(vec_ops[0]); i++)
		if (strcmp(vec_ops[i].structure, structure) == 0)
			return 1;
	return 0;
}


static char *
read_file(const char *path, size_t *len)
{
	FILE	*f;
	char	*p;
	long	 n;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (p = malloc((size_t)n + 1)) == NULL) {
		fclose(f);
		return NULL;
	}
	if (fread(p, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(p);
		return NULL;
	}
	fclose(f);
	p[n] = '\0';
	*len = (size_t)n;
	return p;
}

/* Compare a builder's outputs with the case's "expected" object. */
static int
vec_compare(const struct alx_json *j, int exp, const struct outs *o,
    const char *name)
{
	const char	*got;
	char		*key = NULL, *want = NULL;
	int		 i, n, k, v, bad = 0;

	if ((n = alx_json_obj_len(j, exp)) < 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (alx_json_obj_at(j, exp, i, &k, &v) != ALX_OK ||
		    alx_json_str(j, k, &key, NULL) != ALX_OK ||
		    alx_json_str(j, v, &want, NULL) != ALX_OK) {
			free(key);
			return 0;
		}
		if ((got = out_get(o, key)) == NULL) {
			tap_diag("%s: no output %s", name, key);
			bad++;
		} else if (strcmp(got, want) != 0) {
			tap_diag("%s: %s differs", name, key);
			tap_diag("  want %.200s", want);
			tap_diag("  got  %.200s", got);
			bad++;
		}
		free(key);
		free(want);
		key = want = NULL;
	}
	if ((size_t)n != o->n) {
		tap_diag("%s: %zu outputs, %d expected", name, o->n, n);
		bad++;
	}
	return bad == 0;
}

static void
vec_check_case(const struct alx_json *j, int c, const char *structure)
{
	struct outs	 o;
	char		*name, *err = NULL;
	int		 in, exp, r, want;

	if ((name = in_text(j, c, "name")) == NULL ||
	    (in = alx_json_obj_get(j, c, "inputs")) < 0) {
		ok(0, "%s: a case without name or inputs", structure);
		free(name);
		return;
	}
	r = vec_run(j, in, structure, &o);
	if ((err = in_text(j, c, "error")) != NULL) {
		want = alx_errcode(err);
		if (!ok(want != 0 && r == want, "%s: %s -> %s", structure, name,
		    err))
			tap_diag("got %s", r == 0 ? "success" : vec_errname(r));
	} else if ((exp = alx_json_obj_get(j, c, "expected")) < 0) {
		ok(0, "%s: %s has neither expected nor error", structure, name);
	} else if (r != 0) {
		ok(0, "%s: %s", structure, name);
		tap_diag("failed: %s", vec_errname(r));
	} else
		ok(vec_compare(j, exp, &o, name), "%s: %s", structure, name);
	outs_free(&o);
	free(err);
	free(name);
}

/* A file another test checks: that test must exist. */
static int
vec_elsewhere_file(const char *top, const char *file)
{
	struct stat	st;
	char		path[4096];
	size_t		i;

	for (i = 0; i < sizeof(vec_elsewhere) / sizeof(vec_elsewhere[0]); i++) {
		if (strcmp(vec_elsewhere[i].file, file) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/tests/unit/%s.c", top,
		    vec_elsewhere[i].test);
		ok(stat(path, &st) == 0, "%s: checked by %s", file,
		    vec_elsewhere[i].test);
		return 1;
	}
	return 0;
}

static void
vec_check_file(const char *top, const char *file)
{
	struct alx_json_limits	 lim = { 64 * 1024 * 1024, 16, 1000000 };
	struct alx_json		*j = NULL;
	char			 path[4096], *text, *structure = NULL;
	size_t			 len;
	int64_t			 pv;
	int			 cases, i, n;

	if (vec_elsewhere_file(top, file))
		return;
	snprintf(path, sizeof(path), "%s/tests/vectors/%s", top, file);
	if ((text = read_file(path, &len)) == NULL) {
		ok(0, "%s: readable", file);
		return;
	}
	if (alx_json_parse(&j, text, len, &lim) != ALX_OK) {
		ok(0, "%s: valid JSON", file);
		goto out;
	}
	structure = in_text(j, 0, "structure");
	if (!ok(structure != NULL && vec_structure_known(structure) &&
	    in_has(j, 0, "description") &&
	    in_int(j, 0, "protocol_version", &pv) == 0 &&
	    pv == ALX_PROTOCOL, "%s: structure %s known, self-described",
	    file, structure != NULL ? structure : "(none)"))
		goto out;
	if ((cases = alx_json_obj_get(j, 0, "cases")) < 0 ||
	    (n = alx_json_arr_len(j, cases)) < 1) {
		ok(0, "%s: has cases", file);
		goto out;
	}
	for (i = 0; i < n; i++)
		vec_check_case(j, alx_json_arr_at(j, cases, i), structure);
out:
	free(structure);
	alx_json_free(j);
	free(text);
}

static int
vec_namecmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
vec_check_all(void)
{
	const char	*top = getenv("top_srcdir");
	struct dirent	*de;
	DIR		*d;
	char		 path[4096], *names[256];
	size_t		 n = 0, i, len;

	if (top == NULL || *top == '\0')
		top = ".";
	snprintf(path, sizeof(path), "%s/tests/vectors", top);
	if ((d = opendir(path)) == NULL) {
		ok(0, "vector directory %s", path);
		return tap_done();
	}
	while ((de = readdir(d)) != NULL && n < 256) {
		len = strlen(de->d_name);
		if (len > 5 && strcmp(de->d_name + len - 5, ".json") == 0)
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), vec_namecmp);
	ok(n >= 10, "%zu vector files in %s", n, path);
	for (i = 0; i < n; i++) {
		vec_check_file(top, names[i]);
		free(names[i]);
	}
	return tap_done();
}

int
main(void)
{
	if (alx_crypto_init() != ALX_OK)
		tap_skip_all("libsodium failed to initialise");
	return vec_check_all();
}
#endif /* ALX_MKVECTORS */
