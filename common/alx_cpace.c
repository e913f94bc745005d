/*
 * alx_cpace.c: CPace (draft-irtf-cfrg-cpace-21), suite CPACE-RISTR255-SHA512,
 * and airlox's key confirmation on top. See airlox/cpace.h.
 */
#include <string.h>

#include <sodium.h>

#include "airlox/err.h"
#include "airlox/crypto.h"
#include "airlox/cpace.h"

#define CPACE_DSI_ISK		ALX_CPACE_DSI "_ISK"
#define CPACE_SID_OUTPUT	"CPaceSidOutput"
#define CPACE_KC_SALT		"airlox/v1/cpace"
#define CPACE_KC_INFO_INIT	"airlox/v1/cpace confirm initiator"
#define CPACE_KC_INFO_RESP	"airlox/v1/cpace confirm responder"
#define CPACE_KC_INFO_KEY	"airlox/v1/cpace session key"
#define CPACE_KC_LABEL_INIT	"airlox/v1/cpace initiator confirms"
#define CPACE_KC_LABEL_RESP	"airlox/v1/cpace responder confirms"

/* Bytes of the LEB128 encoding of n. */
static size_t
cpace_leb128_len(size_t n)
{
	size_t	len = 1;

	while (n >= 128) {
		n >>= 7;
		len++;
	}
	return len;
}

int
alx_cpace_lv_add(uint8_t *buf, size_t cap, size_t *pos, const void *data,
    size_t len)
{
	size_t	n = len, need = cpace_leb128_len(len);

	if (*pos > cap || need > cap - *pos || len > cap - *pos - need)
		return ALX_ERR_TOO_LARGE;
	while (n >= 128) {
		buf[(*pos)++] = (uint8_t)((n & 0x7f) | 0x80);
		n >>= 7;
	}
	buf[(*pos)++] = (uint8_t)n;
	if (len > 0)
		memcpy(buf + *pos, data, len);
	*pos += len;
	return ALX_OK;
}

static int
cpace_check_inputs(size_t prslen, size_t cilen, size_t sidlen)
{
	if (prslen > ALX_CPACE_PRS_MAX || cilen > ALX_CPACE_CI_MAX ||
	    sidlen > ALX_CPACE_SID_MAX)
		return ALX_ERR_TOO_LARGE;
	return ALX_OK;
}

int
alx_cpace_generator_string(uint8_t *out, size_t cap, size_t *outlen,
    const uint8_t *prs, size_t prslen, const uint8_t *ci, size_t cilen,
    const uint8_t *sid, size_t sidlen)
{
	static const uint8_t	 zeros[ALX_CPACE_HASH_BLOCK];
	const size_t		 dsilen = sizeof(ALX_CPACE_DSI) - 1;
	size_t			 pos = 0, used, zpad = 0;
	int			 r;

	*outlen = 0;
	if ((r = cpace_check_inputs(prslen, cilen, sidlen)) != ALX_OK)
		return r;
	used = 1 + cpace_leb128_len(prslen) + prslen +
	    cpace_leb128_len(dsilen) + dsilen;
	if (used < ALX_CPACE_HASH_BLOCK)
		zpad = ALX_CPACE_HASH_BLOCK - used;
	if ((r = alx_cpace_lv_add(out, cap, &pos, ALX_CPACE_DSI,
	    dsilen)) != ALX_OK ||
	    (r = alx_cpace_lv_add(out, cap, &pos, prs, prslen)) != ALX_OK ||
	    (r = alx_cpace_lv_add(out, cap, &pos, zeros, zpad)) != ALX_OK ||
	    (r = alx_cpace_lv_add(out, cap, &pos, ci, cilen)) != ALX_OK ||
	    (r = alx_cpace_lv_add(out, cap, &pos, sid, sidlen)) != ALX_OK) {
		alx_wipe(out, pos);
		return r;
	}
	*outlen = pos;
	return ALX_OK;
}

int
alx_cpace_generator(uint8_t g[ALX_CPACE_POINT_LEN],
    uint8_t hash[ALX_CPACE_ISK_LEN], const uint8_t *prs, size_t prslen,
    const uint8_t *ci, size_t cilen, const uint8_t *sid, size_t sidlen)
{
	uint8_t	genstr[ALX_CPACE_GENSTR_MAX], h[crypto_hash_sha512_BYTES];
	size_t	len;
	int	r;

	r = alx_cpace_generator_string(genstr, sizeof(genstr), &len, prs,
	    prslen, ci, cilen, sid, sidlen);
	if (r != ALX_OK)
		return r;
	crypto_hash_sha512(h, genstr, len);
	alx_wipe(genstr, sizeof(genstr));
	if (crypto_core_ristretto255_from_hash(g, h) != 0)
		r = ALX_ERR_CRYPTO;
	if (hash != NULL)
		memcpy(hash, h, sizeof(h));
	alx_wipe(h, sizeof(h));
	return r;
}

int
alx_cpace_scalar_mult_vfy(uint8_t out[ALX_CPACE_POINT_LEN],
    const uint8_t y[ALX_CPACE_SCALAR_LEN], const uint8_t x[ALX_CPACE_POINT_LEN])
{
	/*
	 * libsodium fails when x is not a ristretto255 encoding and when the
	 * product is the identity (G.I): the draft's abort. libsodium 1.0.18
	 * ignores the top bit of the encoding, which RFC 9496 requires to be
	 * zero (s < p), so that check is made here.
	 */
	if ((x[ALX_CPACE_POINT_LEN - 1] & 0x80) != 0 ||
	    crypto_scalarmult_ristretto255(out, y, x) != 0) {
		alx_wipe(out, ALX_CPACE_POINT_LEN);
		return ALX_ERR_PAKE;
	}
	return ALX_OK;
}

int
alx_cpace_msg_parse(const uint8_t *msg, size_t len, const uint8_t **y,
    const uint8_t **ad, size_t *adlen)
{
	size_t	pos, n = 0;
	int	shift = 0;

	if (len < 1 + ALX_CPACE_POINT_LEN + 1 || len > ALX_CPACE_MSG_MAX ||
	    msg[0] != ALX_CPACE_POINT_LEN)
		return ALX_ERR_PAKE;
	pos = 1 + ALX_CPACE_POINT_LEN;
	/* LEB128, at most 2 bytes here (AD <= 512), shortest form only. */
	for (;;) {
		if (pos >= len || shift > 7)
			return ALX_ERR_PAKE;
		n |= (size_t)(msg[pos] & 0x7f) << shift;
		if ((msg[pos++] & 0x80) == 0)
			break;
		shift += 7;
	}
	if (cpace_leb128_len(n) != (size_t)(shift / 7 + 1) ||
	    n > ALX_CPACE_AD_MAX || n != len - pos)
		return ALX_ERR_PAKE;
	*y = msg + 1;
	*ad = msg + pos;
	*adlen = n;
	return ALX_OK;
}

/* Is a larger than b in the draft's lexicographical order? */
static int
cpace_larger(const uint8_t *a, size_t la, const uint8_t *b, size_t lb)
{
	size_t	i, min = la < lb ? la : lb;

	for (i = 0; i < min; i++)
		if (a[i] != b[i])
			return a[i] > b[i];
	return la > lb;
}

int
alx_cpace_transcript(uint8_t *out, size_t cap, size_t *outlen, int symmetric,
    const uint8_t *msga, size_t la, const uint8_t *msgb, size_t lb)
{
	size_t	pos = 0;

	*outlen = 0;
	if (la > ALX_CPACE_MSG_MAX || lb > ALX_CPACE_MSG_MAX ||
	    cap < 2 + la + lb)
		return ALX_ERR_TOO_LARGE;
	if (symmetric) {
		memcpy(out, "oc", 2);
		pos = 2;
		if (!cpace_larger(msga, la, msgb, lb)) {
			const uint8_t	*t = msga;
			size_t		 tl = la;

			msga = msgb;
			la = lb;
			msgb = t;
			lb = tl;
		}
	}
	memcpy(out + pos, msga, la);
	memcpy(out + pos + la, msgb, lb);
	*outlen = pos + la + lb;
	return ALX_OK;
}

int
alx_cpace_sid_output(uint8_t out[ALX_CPACE_ISK_LEN], int symmetric,
    const uint8_t *msga, size_t la, const uint8_t *msgb, size_t lb)
{
	uint8_t				 t[ALX_CPACE_TRANSCRIPT_MAX];
	crypto_hash_sha512_state	 st;
	size_t				 tlen;
	int				 r;

	r = alx_cpace_transcript(t, sizeof(t), &tlen, symmetric, msga, la,
	    msgb, lb);
	if (r != ALX_OK)
		return r;
	crypto_hash_sha512_init(&st);
	crypto_hash_sha512_update(&st, (const uint8_t *)CPACE_SID_OUTPUT,
	    sizeof(CPACE_SID_OUTPUT) - 1);
	crypto_hash_sha512_update(&st, t, tlen);
	crypto_hash_sha512_final(&st, out);
	return ALX_OK;
}

/* Is y a canonical (reduced) non-zero scalar? */
static int
cpace_scalar_ok(const uint8_t y[ALX_CPACE_SCALAR_LEN])
{
	uint8_t	wide[crypto_core_ristretto255_NONREDUCEDSCALARBYTES];
	uint8_t	red[crypto_core_ristretto255_SCALARBYTES];
	int	ok;

	memset(wide, 0, sizeof(wide));
	memcpy(wide, y, ALX_CPACE_SCALAR_LEN);
	crypto_core_ristretto255_scalar_reduce(red, wide);
	ok = alx_ct_eq(red, y, sizeof(red)) &&
	    !sodium_is_zero(y, ALX_CPACE_SCALAR_LEN);
	alx_wipe(wide, sizeof(wide));
	alx_wipe(red, sizeof(red));
	return ok;
}

static int
cpace_start(struct alx_cpace *st, int role, const uint8_t *prs,
    size_t prslen, const uint8_t *ci, size_t cilen, const uint8_t *sid,
    size_t sidlen, const uint8_t *ad, size_t adlen, uint8_t *msg,
    size_t *msglen)
{
	uint8_t	g[ALX_CPACE_POINT_LEN], y_pub[ALX_CPACE_POINT_LEN];
	size_t	pos = 0;
	int	r;

	if (adlen > ALX_CPACE_AD_MAX)
		return ALX_ERR_TOO_LARGE;
	if ((r = alx_cpace_generator(g, NULL, prs, prslen, ci, cilen, sid,
	    sidlen)) != ALX_OK)
		return r;
	if (crypto_scalarmult_ristretto255(y_pub, st->y, g) != 0) {
		r = ALX_ERR_CRYPTO;	/* impossible with a non-zero y */
		goto out;
	}
	if ((r = alx_cpace_lv_add(st->msg, sizeof(st->msg), &pos, y_pub,
	    sizeof(y_pub))) != ALX_OK ||
	    (r = alx_cpace_lv_add(st->msg, sizeof(st->msg), &pos, ad,
	    adlen)) != ALX_OK)
		goto out;
	if (*msglen < pos) {
		r = ALX_ERR_TOO_LARGE;
		goto out;
	}
	memcpy(msg, st->msg, pos);
	*msglen = pos;
	st->msglen = pos;
	if (sidlen > 0)
		memcpy(st->sid, sid, sidlen);
	st->sidlen = sidlen;
	st->role = role;
	st->started = 1;
out:
	alx_wipe(g, sizeof(g));
	return r;
}

static int
cpace_start_args_ok(int role, const uint8_t *prs, size_t prslen,
    const uint8_t *ci, size_t cilen, const uint8_t *sid, size_t sidlen,
    const uint8_t *ad, size_t adlen, const uint8_t *msg, const size_t *msglen)
{
	if (role != ALX_CPACE_INITIATOR && role != ALX_CPACE_RESPONDER &&
	    role != ALX_CPACE_SYMMETRIC)
		return ALX_ERR_INVALID;
	if ((prs == NULL && prslen > 0) || (ci == NULL && cilen > 0) ||
	    (sid == NULL && sidlen > 0) || (ad == NULL && adlen > 0) ||
	    msg == NULL || msglen == NULL)
		return ALX_ERR_INVALID;
	return ALX_OK;
}

int
alx_cpace_start_scalar(struct alx_cpace *st, int role,
    const uint8_t y[ALX_CPACE_SCALAR_LEN], const uint8_t *prs, size_t prslen,
    const uint8_t *ci, size_t cilen, const uint8_t *sid, size_t sidlen,
    const uint8_t *ad, size_t adlen, uint8_t *msg, size_t *msglen)
{
	int	r;

	alx_cpace_wipe(st);
	if ((r = cpace_start_args_ok(role, prs, prslen, ci, cilen, sid, sidlen,
	    ad, adlen, msg, msglen)) != ALX_OK)
		return r;
	if (alx_crypto_init() != ALX_OK)
		return ALX_ERR_CRYPTO;
	if (!cpace_scalar_ok(y))
		return ALX_ERR_INVALID;
	memcpy(st->y, y, ALX_CPACE_SCALAR_LEN);
	if ((r = cpace_start(st, role, prs, prslen, ci, cilen, sid, sidlen,
	    ad, adlen, msg, msglen)) != ALX_OK)
		alx_cpace_wipe(st);
	return r;
}

int
alx_cpace_start(struct alx_cpace *st, int role, const uint8_t *prs,
    size_t prslen, const uint8_t *ci, size_t cilen, const uint8_t *sid,
    size_t sidlen, const uint8_t *ad, size_t adlen, uint8_t *msg,
    size_t *msglen)
{
	int	r;

	alx_cpace_wipe(st);
	if ((r = cpace_start_args_ok(role, prs, prslen, ci, cilen, sid, sidlen,
	    ad, adlen, msg, msglen)) != ALX_OK)
		return r;
	if (alx_crypto_init() != ALX_OK)
		return ALX_ERR_CRYPTO;
	/* Uniform in [1, L-1]: the draft's alternative sampling. */
	crypto_core_ristretto255_scalar_random(st->y);
	if ((r = cpace_start(st, role, prs, prslen, ci, cilen, sid, sidlen,
	    ad, adlen, msg, msglen)) != ALX_OK)
		alx_cpace_wipe(st);
	return r;
}

/* ISK = SHA-512(lv_cat(DSI_ISK, sid, K) || transcript). */
static int
cpace_isk(const struct alx_cpace *st, const uint8_t k[ALX_CPACE_POINT_LEN],
    const uint8_t *peer, size_t peerlen, uint8_t isk[ALX_CPACE_ISK_LEN])
{
	uint8_t				 buf[ALX_CPACE_TRANSCRIPT_MAX +
					    ALX_CPACE_SID_MAX + 64];
	crypto_hash_sha512_state	 hs;
	size_t				 pos = 0, tlen;
	int				 r;

	if ((r = alx_cpace_lv_add(buf, sizeof(buf), &pos, CPACE_DSI_ISK,
	    sizeof(CPACE_DSI_ISK) - 1)) != ALX_OK ||
	    (r = alx_cpace_lv_add(buf, sizeof(buf), &pos, st->sid,
	    st->sidlen)) != ALX_OK ||
	    (r = alx_cpace_lv_add(buf, sizeof(buf), &pos, k,
	    ALX_CPACE_POINT_LEN)) != ALX_OK)
		goto out;
	if (st->role == ALX_CPACE_RESPONDER)
		r = alx_cpace_transcript(buf + pos, sizeof(buf) - pos, &tlen, 0,
		    peer, peerlen, st->msg, st->msglen);
	else
		r = alx_cpace_transcript(buf + pos, sizeof(buf) - pos, &tlen,
		    st->role == ALX_CPACE_SYMMETRIC, st->msg, st->msglen, peer,
		    peerlen);
	if (r != ALX_OK)
		goto out;
	crypto_hash_sha512_init(&hs);
	crypto_hash_sha512_update(&hs, buf, pos + tlen);
	crypto_hash_sha512_final(&hs, isk);
	alx_wipe(&hs, sizeof(hs));
out:
	alx_wipe(buf, sizeof(buf));
	return r;
}

int
alx_cpace_finish(struct alx_cpace *st, const uint8_t *peer_msg,
    size_t peer_len, uint8_t isk[ALX_CPACE_ISK_LEN])
{
	uint8_t		 k[ALX_CPACE_POINT_LEN];
	const uint8_t	*py, *pad;
	size_t		 padlen;
	int		 r;

	memset(isk, 0, ALX_CPACE_ISK_LEN);
	if (!st->started)
		return ALX_ERR_INVALID;
	st->started = 0;
	if (peer_msg == NULL ||
	    alx_cpace_msg_parse(peer_msg, peer_len, &py, &pad,
	    &padlen) != ALX_OK) {
		r = ALX_ERR_PAKE;
		goto out;
	}
	if ((r = alx_cpace_scalar_mult_vfy(k, st->y, py)) != ALX_OK)
		goto out;
	if ((r = cpace_isk(st, k, peer_msg, peer_len, isk)) != ALX_OK)
		goto out;
	if (padlen > 0)
		memcpy(st->peer_ad, pad, padlen);
	st->peer_adlen = padlen;
out:
	alx_wipe(k, sizeof(k));
	alx_wipe(st->y, sizeof(st->y));
	if (r != ALX_OK)
		alx_wipe(isk, ALX_CPACE_ISK_LEN);
	return r;
}

void
alx_cpace_wipe(struct alx_cpace *st)
{
	alx_wipe(st, sizeof(*st));
}

/* One 32-byte HKDF-SHA-256 output of ISK for an info label. */
static int
cpace_kdf(uint8_t out[32], const uint8_t isk[ALX_CPACE_ISK_LEN],
    const char *info)
{
	return alx_hkdf_sha256(out, 32, isk, ALX_CPACE_ISK_LEN, CPACE_KC_SALT,
	    sizeof(CPACE_KC_SALT) - 1, info, strlen(info));
}

int
alx_cpace_confirm(const uint8_t isk[ALX_CPACE_ISK_LEN], int role,
    uint8_t my_tag[ALX_CPACE_TAG_LEN],
    uint8_t expected_peer_tag[ALX_CPACE_TAG_LEN],
    uint8_t session_key[ALX_CPACE_KEY_LEN])
{
	uint8_t	ki[32], kr[32], ti[ALX_CPACE_TAG_LEN], tr[ALX_CPACE_TAG_LEN];
	int	r;

	if (role != ALX_CPACE_INITIATOR && role != ALX_CPACE_RESPONDER)
		return ALX_ERR_INVALID;
	if ((r = cpace_kdf(ki, isk, CPACE_KC_INFO_INIT)) != ALX_OK ||
	    (r = cpace_kdf(kr, isk, CPACE_KC_INFO_RESP)) != ALX_OK ||
	    (r = cpace_kdf(session_key, isk, CPACE_KC_INFO_KEY)) != ALX_OK)
		goto out;
	alx_hmac_sha256(ti, ki, sizeof(ki), CPACE_KC_LABEL_INIT,
	    sizeof(CPACE_KC_LABEL_INIT) - 1);
	alx_hmac_sha256(tr, kr, sizeof(kr), CPACE_KC_LABEL_RESP,
	    sizeof(CPACE_KC_LABEL_RESP) - 1);
	memcpy(my_tag, role == ALX_CPACE_INITIATOR ? ti : tr,
	    ALX_CPACE_TAG_LEN);
	memcpy(expected_peer_tag, role == ALX_CPACE_INITIATOR ? tr : ti,
	    ALX_CPACE_TAG_LEN);
out:
	if (r != ALX_OK)
		alx_wipe(session_key, ALX_CPACE_KEY_LEN);
	alx_wipe(ki, sizeof(ki));
	alx_wipe(kr, sizeof(kr));
	alx_wipe(ti, sizeof(ti));
	alx_wipe(tr, sizeof(tr));
	return r;
}

int
alx_cpace_check_tag(const uint8_t expected[ALX_CPACE_TAG_LEN],
    const uint8_t *got, size_t gotlen)
{
	if (got == NULL || gotlen != ALX_CPACE_TAG_LEN)
		return ALX_ERR_PAKE;
	if (!alx_ct_eq(expected, got, ALX_CPACE_TAG_LEN))
		return ALX_ERR_PAKE;
	return ALX_OK;
}
