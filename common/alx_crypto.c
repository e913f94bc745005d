/*
 * alx_crypto.c: the cryptographic primitives of airlox (airlox/crypto.h).
 *
 * Ed25519, X25519, SHA-512 and HMAC come from libsodium, AES-256-GCM from
 * OpenSSL EVP, HKDF-SHA-256 (RFC 5869) is built here over libsodium's HMAC.
 * SHA-256 comes from OpenSSL's SHA256_* functions: they use the CPU's SHA
 * extensions where it has them (about 3x libsodium's portable code here,
 * and SHA-256 runs over every chunk, tree file and item), and unlike EVP
 * they keep their state in the caller's context, so alx_sha256_ctx needs
 * no allocation and no free. OpenSSL 3 marks them deprecated, not removed;
 * OPENSSL_SUPPRESS_DEPRECATED says we use them on purpose.
 * Every temporary that held secret material is wiped before returning.
 */
#define OPENSSL_SUPPRESS_DEPRECATED

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <sodium.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/crypto.h"

/* The opaque SHA-256 context must hold OpenSSL's state. */
_Static_assert(sizeof(SHA256_CTX) <=
    sizeof(((struct alx_sha256_ctx *)0)->opaque),
    "alx_sha256_ctx too small for SHA256_CTX");
_Static_assert(_Alignof(SHA256_CTX) <= 16,
    "alx_sha256_ctx alignment too small for SHA256_CTX");
_Static_assert(ALX_HASH_LEN == SHA256_DIGEST_LENGTH, "sha256 length");

/* Our sizes are libsodium's. */
_Static_assert(ALX_SIGN_PK_LEN == crypto_sign_PUBLICKEYBYTES, "sign pk");
_Static_assert(ALX_SIGN_SK_LEN == crypto_sign_SECRETKEYBYTES, "sign sk");
_Static_assert(ALX_SIGN_SEED_LEN == crypto_sign_SEEDBYTES, "sign seed");
_Static_assert(ALX_SIG_LEN == crypto_sign_BYTES, "sig");
_Static_assert(ALX_KX_PK_LEN == crypto_scalarmult_BYTES, "kx pk");
_Static_assert(ALX_KX_SK_LEN == crypto_scalarmult_SCALARBYTES, "kx sk");
_Static_assert(ALX_HASH_LEN == crypto_hash_sha256_BYTES, "sha256");
_Static_assert(ALX_HASH512_LEN == crypto_hash_sha512_BYTES, "sha512");
_Static_assert(ALX_HASH_LEN == crypto_auth_hmacsha256_BYTES, "hmac");
_Static_assert(ALX_FP_STRLEN == ALX_B64_ENCLEN(ALX_FP_LEN), "fp text");

/* HKDF-SHA-256 can produce at most 255 blocks (RFC 5869 section 2.3). */
#define ALX_HKDF_MAX		(255 * ALX_HASH_LEN)

/* GCM encrypts at most 2^39 - 256 bits with one key and nonce. */
#define ALX_AEAD_MAX		((((uint64_t)1) << 36) - 32)
/* EVP takes int lengths: feed longer inputs in pieces of this size. */
#define ALX_AEAD_PIECE		((size_t)1 << 30)

/* Domain of public key fingerprints, hashed with its terminating NUL. */
#define ALX_FP_DOMAIN		"airlox-fp"

int
alx_crypto_init(void)
{
	if (sodium_init() < 0)
		return ALX_ERR_CRYPTO;
	return 0;
}

int
alx_random(void *buf, size_t n)
{
	if (buf == NULL && n != 0)
		return ALX_ERR_INVALID;
	if (n != 0)
		randombytes_buf(buf, n);
	return 0;
}

void
alx_wipe(void *p, size_t n)
{
	if (p != NULL && n != 0)
		sodium_memzero(p, n);
}

void
alx_wipe_str(char *s)
{
	if (s == NULL)
		return;
	sodium_memzero(s, strlen(s));
	free(s);
}

int
alx_ct_eq(const void *a, const void *b, size_t n)
{
	if (n == 0)
		return 1;
	return sodium_memcmp(a, b, n) == 0;
}

/* SHA-2 and HMAC. */

void
alx_sha256(uint8_t out[ALX_HASH_LEN], const void *in, size_t len)
{
	SHA256(in, len, out);
}

void
alx_sha512(uint8_t out[ALX_HASH512_LEN], const void *in, size_t len)
{
	crypto_hash_sha512(out, in, len);
}

static SHA256_CTX *
alx_sha256_state(struct alx_sha256_ctx *ctx)
{
	return (SHA256_CTX *)(void *)ctx->opaque;
}

void
alx_sha256_init(struct alx_sha256_ctx *ctx)
{
	sodium_memzero(ctx, sizeof(*ctx));
	SHA256_Init(alx_sha256_state(ctx));
}

void
alx_sha256_update(struct alx_sha256_ctx *ctx, const void *in, size_t len)
{
	if (len != 0)
		SHA256_Update(alx_sha256_state(ctx), in, len);
}

void
alx_sha256_final(struct alx_sha256_ctx *ctx, uint8_t out[ALX_HASH_LEN])
{
	SHA256_Final(out, alx_sha256_state(ctx));
	sodium_memzero(ctx, sizeof(*ctx));
}

void
alx_hmac_sha256(uint8_t out[ALX_HASH_LEN], const void *key, size_t keylen,
    const void *msg, size_t msglen)
{
	crypto_auth_hmacsha256_state	st;

	crypto_auth_hmacsha256_init(&st, key, keylen);
	if (msglen != 0)
		crypto_auth_hmacsha256_update(&st, msg, msglen);
	crypto_auth_hmacsha256_final(&st, out);
	sodium_memzero(&st, sizeof(st));
}

/* HKDF-Expand: T(i) = HMAC(prk, T(i-1) || info || i), out = T(1) || ... */
static void
alx_hkdf_expand(uint8_t *out, size_t outlen, const uint8_t prk[ALX_HASH_LEN],
    const void *info, size_t infolen)
{
	crypto_auth_hmacsha256_state	st;
	uint8_t				t[ALX_HASH_LEN];
	size_t				done, n;
	unsigned char			ctr;

	for (done = 0, ctr = 1; done < outlen; done += n, ctr++) {
		crypto_auth_hmacsha256_init(&st, prk, ALX_HASH_LEN);
		if (ctr > 1)
			crypto_auth_hmacsha256_update(&st, t, sizeof(t));
		if (infolen != 0)
			crypto_auth_hmacsha256_update(&st, info, infolen);
		crypto_auth_hmacsha256_update(&st, &ctr, 1);
		crypto_auth_hmacsha256_final(&st, t);
		n = outlen - done < sizeof(t) ? outlen - done : sizeof(t);
		memcpy(out + done, t, n);
	}
	sodium_memzero(&st, sizeof(st));
	sodium_memzero(t, sizeof(t));
}

int
alx_hkdf_sha256(uint8_t *out, size_t outlen, const void *ikm, size_t ikmlen,
    const void *salt, size_t saltlen, const void *info, size_t infolen)
{
	uint8_t	zeros[ALX_HASH_LEN], prk[ALX_HASH_LEN];

	if (outlen > ALX_HKDF_MAX)
		return ALX_ERR_INVALID;
	if ((out == NULL && outlen != 0) || (ikm == NULL && ikmlen != 0) ||
	    (salt == NULL && saltlen != 0) || (info == NULL && infolen != 0))
		return ALX_ERR_INVALID;
	if (outlen == 0)
		return 0;

	/* HKDF-Extract; no salt means HashLen zero bytes. */
	if (saltlen == 0) {
		memset(zeros, 0, sizeof(zeros));
		salt = zeros;
		saltlen = sizeof(zeros);
	}
	alx_hmac_sha256(prk, salt, saltlen, ikm, ikmlen);
	alx_hkdf_expand(out, outlen, prk, info, infolen);
	sodium_memzero(prk, sizeof(prk));
	return 0;
}

/* Ed25519. */

int
alx_sign_keygen(struct alx_signkey *k)
{
	if (k == NULL)
		return ALX_ERR_INVALID;
	if (crypto_sign_keypair(k->pk, k->sk) != 0) {
		sodium_memzero(k, sizeof(*k));
		return ALX_ERR_CRYPTO;
	}
	return 0;
}

int
alx_sign_from_seed(struct alx_signkey *k,
    const uint8_t seed[ALX_SIGN_SEED_LEN])
{
	if (k == NULL || seed == NULL)
		return ALX_ERR_INVALID;
	if (crypto_sign_seed_keypair(k->pk, k->sk, seed) != 0) {
		sodium_memzero(k, sizeof(*k));
		return ALX_ERR_CRYPTO;
	}
	return 0;
}

void
alx_sign_seed(const struct alx_signkey *k, uint8_t seed[ALX_SIGN_SEED_LEN])
{
	crypto_sign_ed25519_sk_to_seed(seed, k->sk);
}

void
alx_sign_wipe(struct alx_signkey *k)
{
	if (k != NULL)
		sodium_memzero(k, sizeof(*k));
}

int
alx_sign(uint8_t sig[ALX_SIG_LEN], const void *msg, size_t len,
    const struct alx_signkey *k)
{
	if (sig == NULL || k == NULL || (msg == NULL && len != 0))
		return ALX_ERR_INVALID;
	/* libsodium signs with the pk half of sk: it must be ours. */
	if (sodium_memcmp(k->pk, k->sk + ALX_SIGN_SEED_LEN,
	    ALX_SIGN_PK_LEN) != 0)
		return ALX_ERR_INVALID;
	if (crypto_sign_detached(sig, NULL, msg, len, k->sk) != 0) {
		sodium_memzero(sig, ALX_SIG_LEN);
		return ALX_ERR_CRYPTO;
	}
	return 0;
}

/*
 * Canonical, not of small order, in the prime-order subgroup: the check
 * costs about as much as a verification (a scalar multiplication by the
 * group order), and a relay or runner sees the same few keys again and
 * again. So each thread remembers the last keys that passed, by their
 * full bytes, in a small table: a memo of a pure function of public data
 * (a key that passed always passes), never of a failure. The table is
 * set-associative (ALX_PK_WAYS keys per set, the set chosen by the key's
 * first bytes, the oldest replaced), so a few dozen authors posting in
 * turn do not evict each other (direct-mapped, 32 keys in 64 slots
 * collided often enough to cost a relay about 7% of its CPU).
 */
#define ALX_PK_SETS	64
#define ALX_PK_WAYS	4
struct alx_pk_set {
	uint8_t	pk[ALX_PK_WAYS][ALX_SIGN_PK_LEN];
	uint8_t	used[ALX_PK_WAYS];
	uint8_t	next;			/* the way to replace */
};
static __thread struct alx_pk_set	alx_pk_memo[ALX_PK_SETS];

static int
alx_pk_valid(const uint8_t pk[ALX_SIGN_PK_LEN])
{
	struct alx_pk_set	*set;
	size_t			 i;

	set = &alx_pk_memo[((size_t)pk[0] | (size_t)pk[1] << 8) % ALX_PK_SETS];
	for (i = 0; i < ALX_PK_WAYS; i++)
		if (set->used[i] &&
		    memcmp(set->pk[i], pk, ALX_SIGN_PK_LEN) == 0)
			return 1;
	if (!crypto_core_ed25519_is_valid_point(pk))
		return 0;
	i = set->next;
	set->next = (uint8_t)((i + 1) % ALX_PK_WAYS);
	memcpy(set->pk[i], pk, ALX_SIGN_PK_LEN);
	set->used[i] = 1;
	return 1;
}

int
alx_verify(const uint8_t sig[ALX_SIG_LEN], const void *msg, size_t len,
    const uint8_t pk[ALX_SIGN_PK_LEN])
{
	if (sig == NULL || pk == NULL || (msg == NULL && len != 0))
		return ALX_ERR_INVALID;
	if (!alx_pk_valid(pk))
		return ALX_ERR_BAD_SIGNATURE;
	/* Also rejects S >= L and a small-order R. */
	if (crypto_sign_verify_detached(sig, msg, len, pk) != 0)
		return ALX_ERR_BAD_SIGNATURE;
	return 0;
}

/*
 * Build domain || 0x00 || p1 || p2 in a buffer of the exact size. Pure
 * Ed25519 reads the message twice, so it cannot be streamed through
 * libsodium; the caller wipes and frees the buffer.
 */
static int
alx_parts_join(uint8_t **msgp, size_t *lenp, const char *domain,
    const void *p1, size_t l1, const void *p2, size_t l2)
{
	uint8_t	*m;
	size_t	 dl, len;

	*msgp = NULL;
	*lenp = 0;
	if (domain == NULL || *domain == '\0' || (p1 == NULL && l1 != 0) ||
	    (p2 == NULL && l2 != 0))
		return ALX_ERR_INVALID;
	dl = strlen(domain);
	if (dl > SIZE_MAX - 1 || l1 > SIZE_MAX - 1 - dl ||
	    l2 > SIZE_MAX - 1 - dl - l1)
		return ALX_ERR_TOO_LARGE;
	len = dl + 1 + l1 + l2;
	if ((m = malloc(len)) == NULL)
		return ALX_ERR_NOMEM;
	memcpy(m, domain, dl);
	m[dl] = 0;
	if (l1 != 0)
		memcpy(m + dl + 1, p1, l1);
	if (l2 != 0)
		memcpy(m + dl + 1 + l1, p2, l2);
	*msgp = m;
	*lenp = len;
	return 0;
}

static void
alx_parts_free(uint8_t *m, size_t len)
{
	if (m != NULL) {
		sodium_memzero(m, len);
		free(m);
	}
}

int
alx_sign_parts(uint8_t sig[ALX_SIG_LEN], const char *domain, const void *p1,
    size_t l1, const void *p2, size_t l2, const struct alx_signkey *k)
{
	uint8_t	*m;
	size_t	 len;
	int	 r;

	if ((r = alx_parts_join(&m, &len, domain, p1, l1, p2, l2)) != 0)
		return r;
	r = alx_sign(sig, m, len, k);
	alx_parts_free(m, len);
	return r;
}

int
alx_verify_parts(const uint8_t sig[ALX_SIG_LEN], const char *domain,
    const void *p1, size_t l1, const void *p2, size_t l2,
    const uint8_t pk[ALX_SIGN_PK_LEN])
{
	uint8_t	*m;
	size_t	 len;
	int	 r;

	if ((r = alx_parts_join(&m, &len, domain, p1, l1, p2, l2)) != 0)
		return r;
	r = alx_verify(sig, m, len, pk);
	alx_parts_free(m, len);
	return r;
}

/* X25519. */

int
alx_kx_keygen(struct alx_kxkey *k)
{
	uint8_t	sk[ALX_KX_SK_LEN];
	int	r;

	if (k == NULL)
		return ALX_ERR_INVALID;
	randombytes_buf(sk, sizeof(sk));
	r = alx_kx_from_secret(k, sk);
	sodium_memzero(sk, sizeof(sk));
	return r;
}

int
alx_kx_from_secret(struct alx_kxkey *k, const uint8_t sk[ALX_KX_SK_LEN])
{
	if (k == NULL || sk == NULL)
		return ALX_ERR_INVALID;
	memmove(k->sk, sk, ALX_KX_SK_LEN);
	if (crypto_scalarmult_base(k->pk, k->sk) != 0) {
		sodium_memzero(k, sizeof(*k));
		return ALX_ERR_CRYPTO;
	}
	return 0;
}

void
alx_kx_wipe(struct alx_kxkey *k)
{
	if (k != NULL)
		sodium_memzero(k, sizeof(*k));
}

int
alx_kx(uint8_t shared[32], const uint8_t sk[ALX_KX_SK_LEN],
    const uint8_t pk[ALX_KX_PK_LEN])
{
	if (shared == NULL || sk == NULL || pk == NULL)
		return ALX_ERR_INVALID;
	/* libsodium fails on a zero result; check it again ourselves. */
	if (crypto_scalarmult(shared, sk, pk) != 0 ||
	    sodium_is_zero(shared, crypto_scalarmult_BYTES)) {
		sodium_memzero(shared, crypto_scalarmult_BYTES);
		return ALX_ERR_CRYPTO;
	}
	return 0;
}

/* AES-256-GCM. */

/* Start an AES-256-GCM context with key and a 12-byte nonce, and add aad. */
static int
alx_aead_start(EVP_CIPHER_CTX *ctx, int enc, const uint8_t *key,
    const uint8_t *nonce, const uint8_t *aad, size_t aadlen)
{
	size_t	n;
	int	outl;

	if (EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL,
	    enc) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, ALX_NONCE_LEN,
	    NULL) != 1 ||
	    EVP_CipherInit_ex(ctx, NULL, NULL, key, nonce, enc) != 1)
		return ALX_ERR_CRYPTO;
	for (; aadlen != 0; aad += n, aadlen -= n) {
		n = aadlen < ALX_AEAD_PIECE ? aadlen : ALX_AEAD_PIECE;
		if (EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)n) != 1)
			return ALX_ERR_CRYPTO;
	}
	return 0;
}

/* Encrypt or decrypt len bytes from in to out, in pieces EVP accepts. */
static int
alx_aead_run(EVP_CIPHER_CTX *ctx, uint8_t *out, const uint8_t *in,
    size_t len)
{
	size_t	n;
	int	outl;

	for (; len != 0; in += n, out += n, len -= n) {
		n = len < ALX_AEAD_PIECE ? len : ALX_AEAD_PIECE;
		if (EVP_CipherUpdate(ctx, out, &outl, in, (int)n) != 1 ||
		    outl < 0 || (size_t)outl != n)
			return ALX_ERR_CRYPTO;
	}
	return 0;
}

static int
alx_aead_check(const uint8_t *out, const uint8_t *key, const uint8_t *nonce,
    const void *aad, size_t aadlen, const void *in, size_t inlen)
{
	if (out == NULL || key == NULL || nonce == NULL ||
	    (aad == NULL && aadlen != 0) || (in == NULL && inlen != 0))
		return ALX_ERR_INVALID;
	if ((uint64_t)aadlen > UINT64_MAX / 8 ||
	    (uint64_t)inlen > ALX_AEAD_MAX + ALX_TAG_LEN)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

int
alx_aead_seal(uint8_t *ct, const uint8_t key[ALX_KEY_LEN],
    const uint8_t nonce[ALX_NONCE_LEN], const void *aad, size_t aadlen,
    const void *pt, size_t ptlen)
{
	EVP_CIPHER_CTX	*ctx;
	uint8_t		 tag[ALX_TAG_LEN];
	int		 outl, r;

	if ((r = alx_aead_check(ct, key, nonce, aad, aadlen, pt, ptlen)) != 0)
		return r;
	if ((uint64_t)ptlen > ALX_AEAD_MAX || ptlen > SIZE_MAX - ALX_TAG_LEN)
		return ALX_ERR_TOO_LARGE;
	if ((ctx = EVP_CIPHER_CTX_new()) == NULL)
		return ALX_ERR_NOMEM;
	if ((r = alx_aead_start(ctx, 1, key, nonce, aad, aadlen)) == 0 &&
	    (r = alx_aead_run(ctx, ct, pt, ptlen)) == 0) {
		if (EVP_EncryptFinal_ex(ctx, tag, &outl) != 1 || outl != 0 ||
		    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG,
		    ALX_TAG_LEN, tag) != 1)
			r = ALX_ERR_CRYPTO;
		else
			memcpy(ct + ptlen, tag, ALX_TAG_LEN);
	}
	EVP_CIPHER_CTX_free(ctx);
	if (r != 0)
		sodium_memzero(ct, ptlen + ALX_TAG_LEN);
	return r;
}

/*
 * EVP releases GCM plaintext before it checks the tag, so on any failure
 * the output is wiped before we return: the caller never sees plaintext
 * that did not authenticate.
 */
int
alx_aead_open(uint8_t *pt, const uint8_t key[ALX_KEY_LEN],
    const uint8_t nonce[ALX_NONCE_LEN], const void *aad, size_t aadlen,
    const uint8_t *ct, size_t ctlen)
{
	EVP_CIPHER_CTX	*ctx;
	uint8_t		 tag[ALX_TAG_LEN], last[16];
	size_t		 ptlen;
	int		 outl, r;

	if ((r = alx_aead_check(pt, key, nonce, aad, aadlen, ct, ctlen)) != 0)
		return r;
	if (ctlen < ALX_TAG_LEN)
		return ALX_ERR_DECRYPT;
	ptlen = ctlen - ALX_TAG_LEN;
	memcpy(tag, ct + ptlen, ALX_TAG_LEN);
	if ((ctx = EVP_CIPHER_CTX_new()) == NULL)
		return ALX_ERR_NOMEM;
	if ((r = alx_aead_start(ctx, 0, key, nonce, aad, aadlen)) == 0 &&
	    (r = alx_aead_run(ctx, pt, ct, ptlen)) == 0) {
		if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG,
		    ALX_TAG_LEN, tag) != 1)
			r = ALX_ERR_CRYPTO;
		else if (EVP_DecryptFinal_ex(ctx, last, &outl) != 1 ||
		    outl != 0)
			r = ALX_ERR_DECRYPT;
	}
	EVP_CIPHER_CTX_free(ctx);
	if (r != 0)
		sodium_memzero(pt, ptlen);
	return r;
}

/* Fingerprints. */

void
alx_fingerprint(uint8_t fp[ALX_FP_LEN], const uint8_t *pk, size_t len)
{
	crypto_hash_sha256_state	st;
	uint8_t				h[ALX_HASH_LEN];

	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, (const uint8_t *)ALX_FP_DOMAIN,
	    sizeof(ALX_FP_DOMAIN));	/* with its NUL: the 0x00 separator */
	if (len != 0)
		crypto_hash_sha256_update(&st, pk, len);
	crypto_hash_sha256_final(&st, h);
	memcpy(fp, h, ALX_FP_LEN);
}

void
alx_fingerprint_str(char out[ALX_FP_STRLEN + 1], const uint8_t *pk,
    size_t len)
{
	uint8_t	fp[ALX_FP_LEN];

	alx_fingerprint(fp, pk, len);
	alx_b64_encode(out, fp, sizeof(fp));
	out[ALX_FP_STRLEN] = '\0';
}
