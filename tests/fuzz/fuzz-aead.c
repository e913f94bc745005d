/*
 * fuzz-aead.c: libFuzzer target for alx_aead_open() and alx_aead_seal().
 *
 * Input: nonce (12 bytes) || aad length byte || aad || ciphertext, opened
 * with a fixed key. A failed open must report ALX_ERR_DECRYPT and leave
 * the output zeroed; a successful one must reseal to the same bytes. The
 * same bytes are then sealed as plaintext: that must open again, and open
 * no more once one bit chosen by the input is flipped.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/crypto.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const uint8_t fuzz_key[ALX_KEY_LEN] = {
	0x61, 0x69, 0x72, 0x6c, 0x6f, 0x78, 0x2d, 0x66,
	0x75, 0x7a, 0x7a, 0x2d, 0x61, 0x65, 0x61, 0x64,
	0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,
};

static int
fuzz_zero(const uint8_t *p, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

/* Open arbitrary bytes; check what a failure or a success leaves behind. */
static void
fuzz_open(const uint8_t *nonce, const uint8_t *aad, size_t aadlen,
    const uint8_t *ct, size_t ctlen)
{
	uint8_t	*pt, *again;
	size_t	 ptlen;
	int	 r;

	ptlen = ctlen >= ALX_TAG_LEN ? ctlen - ALX_TAG_LEN : 0;
	if ((pt = malloc(ptlen + 1)) == NULL)
		return;
	memset(pt, 0xa5, ptlen + 1);
	r = alx_aead_open(pt, fuzz_key, nonce, aad, aadlen, ct, ctlen);
	if (r != 0) {
		if (r != ALX_ERR_DECRYPT || !fuzz_zero(pt, ptlen))
			abort();
	} else {
		/* Only a genuine ciphertext opens: it must reseal exactly. */
		if ((again = malloc(ctlen)) == NULL)
			abort();
		if (alx_aead_seal(again, fuzz_key, nonce, aad, aadlen, pt,
		    ptlen) != 0 || memcmp(again, ct, ctlen) != 0)
			abort();
		free(again);
	}
	if (pt[ptlen] != 0xa5)
		abort();
	free(pt);
}

/* Seal the bytes, open them, then flip one bit and open again. */
static void
fuzz_roundtrip(const uint8_t *nonce, const uint8_t *aad, size_t aadlen,
    const uint8_t *msg, size_t len, unsigned int flip)
{
	uint8_t	*ct, *pt;
	size_t	 ctlen = len + ALX_TAG_LEN, bit;

	ct = malloc(ctlen);
	pt = malloc(len + 1);
	if (ct == NULL || pt == NULL)
		abort();
	if (alx_aead_seal(ct, fuzz_key, nonce, aad, aadlen, msg, len) != 0)
		abort();
	if (alx_aead_open(pt, fuzz_key, nonce, aad, aadlen, ct, ctlen) != 0 ||
	    (len != 0 && memcmp(pt, msg, len) != 0))
		abort();
	bit = flip % (ctlen * 8);
	ct[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	if (alx_aead_open(pt, fuzz_key, nonce, aad, aadlen, ct, ctlen) !=
	    ALX_ERR_DECRYPT || !fuzz_zero(pt, len))
		abort();
	free(pt);
	free(ct);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int	 ready;
	const uint8_t	*nonce, *aad, *ct;
	size_t		 aadlen, ctlen;
	unsigned int	 flip;

	if (!ready) {
		if (alx_crypto_init() != 0)
			abort();
		ready = 1;
	}
	if (size < ALX_NONCE_LEN + 1)
		return 0;
	nonce = data;
	aadlen = data[ALX_NONCE_LEN];
	data += ALX_NONCE_LEN + 1;
	size -= ALX_NONCE_LEN + 1;
	if (aadlen > size)
		aadlen = size;
	aad = aadlen != 0 ? data : NULL;
	ct = data + aadlen;
	ctlen = size - aadlen;

	fuzz_open(nonce, aad, aadlen, ctlen != 0 ? ct : NULL, ctlen);
	flip = ctlen != 0 ? ct[0] | (unsigned int)ct[ctlen - 1] << 8 : 0;
	fuzz_roundtrip(nonce, aad, aadlen, ctlen != 0 ? ct : NULL, ctlen,
	    flip);
	return 0;
}
