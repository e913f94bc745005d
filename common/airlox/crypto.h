/*
 * airlox/crypto.h: the cryptographic primitives of airlox, in one place.
 *
 * Ed25519 and X25519 and SHA-2 from libsodium; AES-256-GCM from OpenSSL EVP
 * (works without AES-NI); HKDF-SHA-256 (RFC 5869). Secret keys live in
 * structures that alx_*_free() / alx_wipe() clear. Compare secrets and MACs
 * with alx_ct_eq() only.
 */
#ifndef AIRLOX_CRYPTO_H
#define AIRLOX_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#define ALX_SIGN_PK_LEN		32
#define ALX_SIGN_SEED_LEN	32
#define ALX_SIGN_SK_LEN		64	/* libsodium: seed || pk */
#define ALX_SIG_LEN		64
#define ALX_KX_PK_LEN		32
#define ALX_KX_SK_LEN		32
#define ALX_KEY_LEN		32	/* AES-256 and HKDF outputs */
#define ALX_NONCE_LEN		12
#define ALX_TAG_LEN		16
#define ALX_HASH_LEN		32	/* SHA-256 */
#define ALX_HASH512_LEN		64
#define ALX_FP_LEN		16	/* fingerprint bytes */
#define ALX_FP_STRLEN		22	/* base64url of 16 bytes */

/* Call once before anything else (idempotent); ALX_ERR_CRYPTO on failure. */
int	alx_crypto_init(void);

int	alx_random(void *, size_t);
void	alx_wipe(void *, size_t);
/* Wipe a secret NUL-terminated string (an invite, a link) and free it. */
void	alx_wipe_str(char *);
/* 1 when equal, 0 otherwise; time depends only on n. */
int	alx_ct_eq(const void *, const void *, size_t n);

void	alx_sha256(uint8_t out[ALX_HASH_LEN], const void *, size_t);
void	alx_sha512(uint8_t out[ALX_HASH512_LEN], const void *, size_t);
struct alx_sha256_ctx {
	uint8_t	opaque[128] __attribute__((aligned(16)));
};
void	alx_sha256_init(struct alx_sha256_ctx *);
void	alx_sha256_update(struct alx_sha256_ctx *, const void *, size_t);
void	alx_sha256_final(struct alx_sha256_ctx *, uint8_t out[ALX_HASH_LEN]);
void	alx_hmac_sha256(uint8_t out[ALX_HASH_LEN], const void *key,
	    size_t keylen, const void *msg, size_t msglen);
/* HKDF-SHA-256, RFC 5869; outlen <= 255 * 32. */
int	alx_hkdf_sha256(uint8_t *out, size_t outlen, const void *ikm,
	    size_t ikmlen, const void *salt, size_t saltlen, const void *info,
	    size_t infolen);

/* Ed25519 signing key; sk is libsodium's 64-byte form (seed || pk). */
struct alx_signkey {
	uint8_t	pk[ALX_SIGN_PK_LEN];
	uint8_t	sk[ALX_SIGN_SK_LEN];
};
int	alx_sign_keygen(struct alx_signkey *);
int	alx_sign_from_seed(struct alx_signkey *,
	    const uint8_t seed[ALX_SIGN_SEED_LEN]);
void	alx_sign_seed(const struct alx_signkey *,
	    uint8_t seed[ALX_SIGN_SEED_LEN]);
void	alx_sign_wipe(struct alx_signkey *);
int	alx_sign(uint8_t sig[ALX_SIG_LEN], const void *msg, size_t len,
	    const struct alx_signkey *);
/* Ed25519 verification; also rejects small-order and non-canonical keys. */
int	alx_verify(const uint8_t sig[ALX_SIG_LEN], const void *msg, size_t len,
	    const uint8_t pk[ALX_SIGN_PK_LEN]);
/* Multi-part message signing: domain || 0x00 || part1 [|| part2]. */
int	alx_sign_parts(uint8_t sig[ALX_SIG_LEN], const char *domain,
	    const void *p1, size_t l1, const void *p2, size_t l2,
	    const struct alx_signkey *);
int	alx_verify_parts(const uint8_t sig[ALX_SIG_LEN], const char *domain,
	    const void *p1, size_t l1, const void *p2, size_t l2,
	    const uint8_t pk[ALX_SIGN_PK_LEN]);

/* X25519 key agreement key. */
struct alx_kxkey {
	uint8_t	pk[ALX_KX_PK_LEN];
	uint8_t	sk[ALX_KX_SK_LEN];
};
int	alx_kx_keygen(struct alx_kxkey *);
int	alx_kx_from_secret(struct alx_kxkey *, const uint8_t sk[ALX_KX_SK_LEN]);
void	alx_kx_wipe(struct alx_kxkey *);
/* Shared secret; ALX_ERR_CRYPTO for an all-zero result (small order pk). */
int	alx_kx(uint8_t shared[32], const uint8_t sk[ALX_KX_SK_LEN],
	    const uint8_t pk[ALX_KX_PK_LEN]);

/*
 * AES-256-GCM: ct receives ptlen + ALX_TAG_LEN bytes (ciphertext || tag).
 * Open fails with ALX_ERR_DECRYPT and writes no plaintext on a bad tag.
 */
int	alx_aead_seal(uint8_t *ct, const uint8_t key[ALX_KEY_LEN],
	    const uint8_t nonce[ALX_NONCE_LEN], const void *aad, size_t aadlen,
	    const void *pt, size_t ptlen);
int	alx_aead_open(uint8_t *pt, const uint8_t key[ALX_KEY_LEN],
	    const uint8_t nonce[ALX_NONCE_LEN], const void *aad, size_t aadlen,
	    const uint8_t *ct, size_t ctlen);

/* Fingerprint of a public key: first 16 bytes of SHA-256("airlox-fp" 0 pk). */
void	alx_fingerprint(uint8_t fp[ALX_FP_LEN], const uint8_t *pk, size_t len);
/* The same as base64url text (22 characters + NUL). */
void	alx_fingerprint_str(char out[ALX_FP_STRLEN + 1], const uint8_t *pk,
	    size_t len);

#endif /* AIRLOX_CRYPTO_H */
