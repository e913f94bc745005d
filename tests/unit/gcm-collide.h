/*
 * gcm-collide.h: one AES-256-GCM ciphertext that authenticates under two
 * keys, for the key-commitment tests (test-vectors, mkvectors,
 * test-guarantees).
 *
 * AES-GCM does not commit to its key: the tag is GHASH_H(aad, ct) xor
 * E_K(J0), and GHASH is linear in each ciphertext block. With every block
 * but the first fixed, the first block X that makes the tags under K1 and
 * K2 equal solves X * (H1^e + H2^e) = T1(0) + T2(0) in GF(2^128), e being
 * the first block's power of H. Decrypted with K1 and with K2, the one
 * ciphertext gives two different plaintexts and both tags check: what a
 * sender needs to show two recipients two different things, unless the
 * signed envelope commits to the key.
 */
#ifndef GCM_COLLIDE_H
#define GCM_COLLIDE_H

#include <stdint.h>
#include <string.h>

#include <openssl/evp.h>

/* GF(2^128) multiplication in GCM's bit order (SP 800-38D, 6.3). */
static void
gcm_gf_mul(uint8_t out[16], const uint8_t x[16], const uint8_t y[16])
{
	uint8_t	z[16], v[16];
	int	i, k, lsb;

	memset(z, 0, 16);
	memcpy(v, y, 16);
	for (i = 0; i < 128; i++) {
		if (x[i / 8] & (0x80 >> (i % 8)))
			for (k = 0; k < 16; k++)
				z[k] ^= v[k];
		lsb = v[15] & 1;
		for (k = 15; k > 0; k--)
			v[k] = (uint8_t)((v[k] >> 1) | (v[k - 1] << 7));
		v[0] >>= 1;
		if (lsb)
			v[0] ^= 0xe1;
	}
	memcpy(out, z, 16);
}

/* x^(2^128 - 2), the inverse of a non-zero x. */
static void
gcm_gf_inv(uint8_t out[16], const uint8_t x[16])
{
	uint8_t	r[16], p[16];
	int	i;

	memset(r, 0, 16);
	r[0] = 0x80;		/* 1 */
	memcpy(p, x, 16);
	for (i = 1; i < 128; i++) {
		gcm_gf_mul(p, p, p);
		gcm_gf_mul(r, r, p);
	}
	memcpy(out, r, 16);
}

static int
gcm_aes_block(const uint8_t key[32], const uint8_t in[16], uint8_t out[16])
{
	EVP_CIPHER_CTX	*c;
	int		 n, ok;

	if ((c = EVP_CIPHER_CTX_new()) == NULL)
		return -1;
	ok = EVP_EncryptInit_ex(c, EVP_aes_256_ecb(), NULL, key, NULL) == 1 &&
	    EVP_CIPHER_CTX_set_padding(c, 0) == 1 &&
	    EVP_EncryptUpdate(c, out, &n, in, 16) == 1 && n == 16;
	EVP_CIPHER_CTX_free(c);
	return ok ? 0 : -1;
}

/* GHASH_H over aad and ct (each zero-padded) and the length block. */
static void
gcm_ghash(uint8_t y[16], const uint8_t h[16], const uint8_t *aad,
    size_t alen, const uint8_t *ct, size_t clen)
{
	uint8_t		 b[16];
	const uint8_t	*parts[2] = { aad, ct };
	size_t		 lens[2] = { alen, clen }, i, k, n;
	uint64_t	 bits;
	int		 p;

	memset(y, 0, 16);
	for (p = 0; p < 2; p++) {
		for (i = 0; i < lens[p]; i += 16) {
			n = lens[p] - i < 16 ? lens[p] - i : 16;
			memset(b, 0, 16);
			memcpy(b, parts[p] + i, n);
			for (k = 0; k < 16; k++)
				y[k] ^= b[k];
			gcm_gf_mul(y, y, h);
		}
	}
	for (p = 0; p < 2; p++) {
		bits = (uint64_t)lens[p] * 8;
		for (k = 0; k < 8; k++)
			y[8 * p + k] ^= (uint8_t)(bits >> (56 - 8 * k));
	}
	gcm_gf_mul(y, y, h);
}

/*
 * Fill ct (len >= 16 bytes; its bytes after the first block are kept as
 * the caller gave them) and tag so that ct || tag opens under both k1 and
 * k2 with this nonce and aad. 0 on success.
 */
static int
gcm_collide(const uint8_t k1[32], const uint8_t k2[32],
    const uint8_t nonce[12], const uint8_t *aad, size_t alen, uint8_t *ct,
    size_t len, uint8_t tag[16])
{
	static const uint8_t	 zero[16];
	const uint8_t		*keys[2] = { k1, k2 };
	uint8_t			 h[2][16], t[2][16], j0[16], hp[2][16];
	uint8_t			 d[16], x[16];
	size_t			 nblocks, i;
	int			 k;

	if (len < 16)
		return -1;
	nblocks = (len + 15) / 16;
	memcpy(j0, nonce, 12);
	memset(j0 + 12, 0, 3);
	j0[15] = 1;
	memset(ct, 0, 16);
	for (k = 0; k < 2; k++) {
		uint8_t	s[16];

		if (gcm_aes_block(keys[k], zero, h[k]) != 0 ||
		    gcm_aes_block(keys[k], j0, s) != 0)
			return -1;
		gcm_ghash(t[k], h[k], aad, alen, ct, len);
		for (i = 0; i < 16; i++)
			t[k][i] ^= s[i];
		/* H^(nblocks + 1): the first ciphertext block's power. */
		memcpy(hp[k], h[k], 16);
		for (i = 0; i < nblocks; i++)
			gcm_gf_mul(hp[k], hp[k], h[k]);
	}
	for (i = 0; i < 16; i++) {
		d[i] = hp[0][i] ^ hp[1][i];
		x[i] = t[0][i] ^ t[1][i];
	}
	if (memcmp(d, zero, 16) == 0)
		return -1;
	gcm_gf_inv(d, d);
	gcm_gf_mul(x, x, d);
	memcpy(ct, x, 16);
	/* The tag under k1 (equal to the one under k2 by construction). */
	gcm_gf_mul(d, x, hp[0]);
	for (i = 0; i < 16; i++)
		tag[i] = t[0][i] ^ d[i];
	return 0;
}

#endif /* GCM_COLLIDE_H */
