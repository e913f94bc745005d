/*
 * fuzz-chunk.c: libFuzzer target for chunk and meta ciphertexts
 * (alx_chunk_check, alx_chunk_open, alx_item_open_meta).
 *
 * Input: a header that fixes the item the ciphertext belongs to, then the
 * ciphertext:
 *
 *	size (4 bytes, big-endian, payload bytes of the item)
 *	index (1 byte) kind (1 byte: 0 text, 1 file, 2 result, 3 job)
 *	sid (16) id (16) author fp (16) item key (32)
 *	ciphertext (the rest)
 *
 * The envelope lists the ciphertext's own hash at `index`, as a relay that
 * accepted it would, and commits to the header's key, so the tag check is
 * what decides. A chunk or meta that
 * opens must seal back to the same bytes. Seeds: chunk ciphertexts of
 * tests/vectors/chunk.json with their headers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"

#define FUZZ_HDR	(4 + 1 + 1 + 16 + 16 + 16 + 32)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const char *const fuzz_kinds[] = { "text", "file", "result", "job" };

static void
fuzz_chunk(struct alx_item *it, const uint8_t *k, unsigned index,
    const uint8_t *ct, size_t ctlen)
{
	uint8_t	*pt, *again;
	size_t	 ptlen;

	if (alx_chunk_check(it, index, ct, ctlen) != ALX_OK)
		return;
	ptlen = ctlen - ALX_TAG_LEN;
	if ((pt = malloc(ptlen + 1)) == NULL ||
	    (again = malloc(ctlen)) == NULL) {
		free(pt);
		return;
	}
	if (alx_chunk_open(it, k, index, ct, ctlen, pt) == ALX_OK) {
		if (alx_chunk_seal(it, k, index, pt, ptlen, again) != ALX_OK ||
		    memcmp(again, ct, ctlen) != 0)
			abort();
	}
	free(pt);
	free(again);
}

static void
fuzz_meta(struct alx_item *it, const uint8_t *k, const uint8_t *ct,
    size_t ctlen)
{
	struct alx_item	 copy;
	char		*meta;
	size_t		 len;

	if ((it->meta_ct = malloc(ctlen + 1)) == NULL)
		return;
	memcpy(it->meta_ct, ct, ctlen);
	it->meta_len = ctlen;
	if (alx_item_open_meta(it, k, &meta, &len) != ALX_OK)
		return;
	copy = *it;
	copy.meta_ct = NULL;
	if (alx_item_seal_meta(&copy, k, meta, len) != ALX_OK ||
	    copy.meta_len != ctlen || memcmp(copy.meta_ct, ct, ctlen) != 0)
		abort();
	free(copy.meta_ct);
	free(meta);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct alx_item	 it;
	const uint8_t	*p = data, *k, *ct;
	uint32_t	 psize;
	unsigned	 index;
	size_t		 n, ctlen;

	if (alx_crypto_init() != ALX_OK || size < FUZZ_HDR)
		return 0;
	memset(&it, 0, sizeof(it));
	psize = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
	it.size = psize % (4 * ALX_CHUNK_SIZE + 1);
	index = p[4] % 8;
	strcpy(it.kind, fuzz_kinds[p[5] % 4]);
	memcpy(it.sid, p + 6, ALX_SID_LEN);
	memcpy(it.id, p + 22, ALX_ID_LEN);
	memcpy(it.author, p + 38, ALX_FP_LEN);
	k = p + 54;
	/* The envelope commits to the header's key, as a sealer's would. */
	alx_item_commit(k, it.kc);
	ct = p + FUZZ_HDR;
	ctlen = size - FUZZ_HDR;
	n = alx_chunk_count(it.size);
	it.nchunks = n;
	if ((it.chunks = calloc(n + 1, ALX_HASH_LEN)) == NULL)
		return 0;
	if (index < n)
		alx_sha256(it.chunks[index], ct, ctlen);
	fuzz_chunk(&it, k, index, ct, ctlen);
	fuzz_meta(&it, k, ct, ctlen);
	alx_item_free(&it);
	return 0;
}
