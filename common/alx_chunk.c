/*
 * alx_chunk.c: content encryption of items (protocol.md section 6): the
 * item key and its commitment, the sealed meta, and the chunked payload,
 * each chunk authenticated on its own and bound to session, item, author
 * and kind, and opened only under the key the signed envelope commits to.
 */
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"
#include "alx_int.h"

/* "airlox/v1/<dom>" 0x00 sid id fp(author) kind 0x00: the common prefix. */
#define ALX_AAD_MAX	(32 + ALX_SID_LEN + ALX_ID_LEN + ALX_FP_LEN + \
			    ALX_KIND_MAX + 1 + 9)

static size_t
alx_chunk_aad(uint8_t *aad, const char *dom, const struct alx_item *it)
{
	size_t	n, klen = strlen(it->kind);

	n = strlen(dom) + 1;
	memcpy(aad, dom, n);
	memcpy(aad + n, it->sid, ALX_SID_LEN);
	n += ALX_SID_LEN;
	memcpy(aad + n, it->id, ALX_ID_LEN);
	n += ALX_ID_LEN;
	memcpy(aad + n, it->author, ALX_FP_LEN);
	n += ALX_FP_LEN;
	memcpy(aad + n, it->kind, klen + 1);
	n += klen + 1;
	return n;
}

static int
alx_item_subkey(uint8_t out[ALX_KEY_LEN], const uint8_t kitem[ALX_KEY_LEN],
    const char *info)
{
	return alx_hkdf_sha256(out, ALX_KEY_LEN, kitem, ALX_KEY_LEN, NULL, 0,
	    info, strlen(info));
}

size_t
alx_chunk_count(int64_t size)
{
	if (size <= 0)
		return 0;
	return (size_t)((size + ALX_CHUNK_SIZE - 1) / ALX_CHUNK_SIZE);
}

int
alx_item_key_epoch(const uint8_t ekey[ALX_KEY_LEN],
    const uint8_t id[ALX_ID_LEN], uint8_t kitem[ALX_KEY_LEN])
{
	static const char info[] = "airlox/v1/item";

	return alx_hkdf_sha256(kitem, ALX_KEY_LEN, ekey, ALX_KEY_LEN, id,
	    ALX_ID_LEN, info, sizeof(info) - 1);
}

int
alx_item_key_reply(const uint8_t kjob[ALX_KEY_LEN],
    const uint8_t id[ALX_ID_LEN], uint8_t kitem[ALX_KEY_LEN])
{
	static const char info[] = "airlox/v1/reply";

	return alx_hkdf_sha256(kitem, ALX_KEY_LEN, kjob, ALX_KEY_LEN, id,
	    ALX_ID_LEN, info, sizeof(info) - 1);
}

int
alx_item_key_input(const uint8_t kjob[ALX_KEY_LEN],
    const uint8_t id[ALX_ID_LEN], uint8_t kitem[ALX_KEY_LEN])
{
	static const char info[] = "airlox/v1/input";

	return alx_hkdf_sha256(kitem, ALX_KEY_LEN, kjob, ALX_KEY_LEN, id,
	    ALX_ID_LEN, info, sizeof(info) - 1);
}

int
alx_item_commit(const uint8_t kitem[ALX_KEY_LEN], uint8_t kc[ALX_HASH_LEN])
{
	return alx_hkdf_sha256(kc, ALX_HASH_LEN, kitem, ALX_KEY_LEN, NULL, 0,
	    "airlox/v1/commit", 16);
}

int
alx_epoch_commit(const uint8_t ekey[ALX_KEY_LEN], uint8_t ekc[ALX_HASH_LEN])
{
	return alx_hkdf_sha256(ekc, ALX_HASH_LEN, ekey, ALX_KEY_LEN, NULL, 0,
	    "airlox/v1/epoch-commit", 22);
}

int
alx_item_check_key(const struct alx_item *it,
    const uint8_t kitem[ALX_KEY_LEN])
{
	uint8_t	kc[ALX_HASH_LEN];
	int	r;

	if ((r = alx_item_commit(kitem, kc)) != ALX_OK)
		return r;
	return alx_ct_eq(kc, it->kc, ALX_HASH_LEN) ? ALX_OK :
	    ALX_ERR_KEY_COMMIT;
}

int
alx_item_seal_meta(struct alx_item *it, const uint8_t kitem[ALX_KEY_LEN],
    const char *meta, size_t len)
{
	static const uint8_t	nonce[ALX_NONCE_LEN];
	uint8_t			k[ALX_KEY_LEN], aad[ALX_AAD_MAX];
	size_t			aadlen;
	int			r;

	if (len > ALX_META_MAX)
		return ALX_ERR_TOO_LARGE;
	if ((r = alx_item_commit(kitem, it->kc)) != ALX_OK ||
	    (r = alx_item_subkey(k, kitem, "airlox/v1/meta")) != ALX_OK)
		return r;
	aadlen = alx_chunk_aad(aad, "airlox/v1/meta", it);
	free(it->meta_ct);
	it->meta_len = 0;
	if ((it->meta_ct = malloc(len + ALX_TAG_LEN)) == NULL) {
		r = ALX_ERR_NOMEM;
		goto out;
	}
	if ((r = alx_aead_seal(it->meta_ct, k, nonce, aad, aadlen, meta,
	    len)) == ALX_OK)
		it->meta_len = len + ALX_TAG_LEN;
out:
	alx_wipe(k, sizeof(k));
	return r;
}

int
alx_item_open_meta(const struct alx_item *it, const uint8_t kitem[ALX_KEY_LEN],
    char **meta, size_t *lenp)
{
	static const uint8_t	 nonce[ALX_NONCE_LEN];
	uint8_t			 k[ALX_KEY_LEN], aad[ALX_AAD_MAX];
	char			*pt;
	size_t			 aadlen, len;
	int			 r;

	*meta = NULL;
	if (it->meta_len < ALX_TAG_LEN)
		return ALX_ERR_TRUNCATED;
	len = it->meta_len - ALX_TAG_LEN;
	if (len > ALX_META_MAX)
		return ALX_ERR_TOO_LARGE;
	if ((r = alx_item_check_key(it, kitem)) != ALX_OK)
		return r;
	if ((pt = malloc(len + 1)) == NULL)
		return ALX_ERR_NOMEM;
	if ((r = alx_item_subkey(k, kitem, "airlox/v1/meta")) != ALX_OK)
		goto out;
	aadlen = alx_chunk_aad(aad, "airlox/v1/meta", it);
	if ((r = alx_aead_open((uint8_t *)pt, k, nonce, aad, aadlen,
	    it->meta_ct, it->meta_len)) != ALX_OK)
		goto out;
	pt[len] = '\0';
	*meta = pt;
	pt = NULL;
	if (lenp != NULL)
		*lenp = len;
out:
	alx_wipe(k, sizeof(k));
	free(pt);
	return r;
}

/* Expected plaintext length of chunk `index`, or 0 when out of range. */
static size_t
alx_chunk_len(const struct alx_item *it, uint64_t index)
{
	size_t	n = alx_chunk_count(it->size);

	if (index >= n || n != it->nchunks)
		return 0;
	if (index + 1 < n)
		return ALX_CHUNK_SIZE;
	return (size_t)(it->size - (int64_t)index * ALX_CHUNK_SIZE);
}

static int
alx_chunk_keys(const struct alx_item *it, const uint8_t kitem[ALX_KEY_LEN],
    uint64_t index, uint8_t k[ALX_KEY_LEN], uint8_t nonce[ALX_NONCE_LEN],
    uint8_t *aad, size_t *aadlen)
{
	size_t	n;

	memset(nonce, 0, 4);
	alx_be64(nonce + 4, index);
	n = alx_chunk_aad(aad, "airlox/v1/chunk", it);
	alx_be64(aad + n, index);
	n += 8;
	aad[n++] = index + 1 == it->nchunks ? 1 : 0;	/* final flag */
	*aadlen = n;
	return alx_item_subkey(k, kitem, "airlox/v1/chunk");
}

int
alx_chunk_seal(const struct alx_item *it, const uint8_t kitem[ALX_KEY_LEN],
    uint64_t index, const uint8_t *pt, size_t len, uint8_t *ct)
{
	uint8_t	k[ALX_KEY_LEN], nonce[ALX_NONCE_LEN], aad[ALX_AAD_MAX];
	size_t	aadlen;
	int	r;

	if (len == 0 || len != alx_chunk_len(it, index))
		return ALX_ERR_INVALID;
	/* Only under the key the envelope commits to (alx_item_seal_meta). */
	if ((r = alx_item_check_key(it, kitem)) != ALX_OK)
		return r;
	if ((r = alx_chunk_keys(it, kitem, index, k, nonce, aad,
	    &aadlen)) == ALX_OK)
		r = alx_aead_seal(ct, k, nonce, aad, aadlen, pt, len);
	alx_wipe(k, sizeof(k));
	return r;
}

int
alx_chunk_check(const struct alx_item *it, uint64_t index, const uint8_t *ct,
    size_t ctlen)
{
	uint8_t	h[ALX_HASH_LEN];
	size_t	want;

	if ((want = alx_chunk_len(it, index)) == 0)
		return ALX_ERR_NOT_FOUND;
	if (ctlen != want + ALX_TAG_LEN)
		return ctlen < want + ALX_TAG_LEN ? ALX_ERR_TRUNCATED :
		    ALX_ERR_TOO_LARGE;
	alx_sha256(h, ct, ctlen);
	if (!alx_ct_eq(h, it->chunks[index], ALX_HASH_LEN))
		return ALX_ERR_BAD_HASH;
	return ALX_OK;
}

int
alx_chunk_open(const struct alx_item *it, const uint8_t kitem[ALX_KEY_LEN],
    uint64_t index, const uint8_t *ct, size_t ctlen, uint8_t *pt)
{
	uint8_t	k[ALX_KEY_LEN], nonce[ALX_NONCE_LEN], aad[ALX_AAD_MAX];
	size_t	aadlen;
	int	r;

	if ((r = alx_chunk_check(it, index, ct, ctlen)) != ALX_OK ||
	    (r = alx_item_check_key(it, kitem)) != ALX_OK)
		return r;
	if ((r = alx_chunk_keys(it, kitem, index, k, nonce, aad,
	    &aadlen)) == ALX_OK)
		r = alx_aead_open(pt, k, nonce, aad, aadlen, ct, ctlen);
	alx_wipe(k, sizeof(k));
	return r;
}
