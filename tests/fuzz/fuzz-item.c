/*
 * fuzz-item.c: libFuzzer target for item envelopes (alx_item_open and
 * the relay's alx_item_open_claimed, which must agree;
 * alx_item_check_chain, alx_item_open_meta, alx_item_job_key,
 * alx_chunk_check).
 *
 * Input: an item object, or 'S' followed by body bytes, which the target
 * signs with the key of the vectors' review-agent. The object's own key is
 * trusted as the author's and the session id is the one its body names, so
 * everything after the signature is reached. The meta is opened with the
 * item key of the vectors' epoch-0 key, and a job's wraps with the
 * vectors' owner and runner keys. Seeds: the items and jobs of
 * tests/vectors/, as objects and as 'S' bodies.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/crypto.h"
#include "airlox/json.h"
#include "airlox/proto.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct alx_signkey	fuzz_author;
static struct alx_kxkey		fuzz_okx, fuzz_rkx;
static uint8_t			fuzz_ekey[ALX_KEY_LEN];
static int			fuzz_ready;

static void
fuzz_label(const char *label, uint8_t *out, size_t n)
{
	alx_hkdf_sha256(out, n, label, strlen(label), NULL, 0,
	    "airlox/vectors", 14);
}

static int
fuzz_init(void)
{
	uint8_t	seed[32];

	if (alx_crypto_init() != ALX_OK)
		return -1;
	fuzz_label("participant review-agent", seed, sizeof(seed));
	alx_sign_from_seed(&fuzz_author, seed);
	fuzz_label("owner seed", seed, sizeof(seed));
	alx_seed_keys(seed, NULL, &fuzz_okx);
	fuzz_label("participant gpu-box kx", seed, sizeof(seed));
	alx_kx_from_secret(&fuzz_rkx, seed);
	fuzz_label("epoch key 0", fuzz_ekey, sizeof(fuzz_ekey));
	fuzz_ready = 1;
	return 0;
}

static void
fuzz_body_sid(const struct alx_signed *s, uint8_t sid[ALX_SID_LEN])
{
	struct alx_json	*j;

	memset(sid, 0, ALX_SID_LEN);
	if (alx_json_parse(&j, (const char *)s->body, s->body_len, NULL) ==
	    ALX_OK) {
		(void)alx_json_get_b64(j, 0, "sid", sid, ALX_SID_LEN);
		alx_json_free(j);
	}
}

static void
fuzz_use(const struct alx_item *it, const uint8_t *data, size_t size)
{
	uint8_t	 k[ALX_KEY_LEN], h[ALX_HASH_LEN];
	char	*meta;
	size_t	 len, i;

	/* The chain an opened item claims is the one it checks against. */
	if (alx_item_check_chain(it, it->seq - 1, it->has_prev ? it->prev :
	    NULL) != ALX_OK)
		abort();
	if (alx_chunk_count(it->size) != it->nchunks)
		abort();
	alx_signed_hash(&it->obj, h);
	if (memcmp(h, it->hash, ALX_HASH_LEN) != 0)
		abort();
	alx_item_key_epoch(fuzz_ekey, it->id, k);
	if (alx_item_open_meta(it, k, &meta, &len) == ALX_OK) {
		if (strlen(meta) > len)
			abort();
		free(meta);
	}
	if (it->has_job) {
		for (i = 0; i < it->job.nwraps; i++) {
			(void)alx_item_job_key(it, it->job.wraps[i].to,
			    &fuzz_okx, k);
			(void)alx_item_job_key(it, it->job.wraps[i].to,
			    &fuzz_rkx, k);
		}
	}
	for (i = 0; i < it->nchunks && i < 4; i++)
		(void)alx_chunk_check(it, i, data, size);
	(void)alx_item_is_to(it, it->author);
}

static void
fuzz_object(const char *raw, size_t len)
{
	struct alx_signed	s;
	struct alx_item		it, cl;
	uint8_t			sid[ALX_SID_LEN], pk[ALX_SIGN_PK_LEN];
	uint8_t			key[ALX_SIGN_PK_LEN];
	int			r;

	if (alx_signed_parse(&s, raw, len) != ALX_OK)
		return;
	fuzz_body_sid(&s, sid);
	memcpy(pk, s.key, sizeof(pk));
	alx_signed_free(&s);
	/* The relay's open (key from the object) agrees with the reader's. */
	r = alx_item_open_claimed(&cl, raw, len, sid, key);
	if (alx_item_open(&it, raw, len, sid, pk) != ALX_OK) {
		if (r == ALX_OK)
			abort();
		return;
	}
	if (r != ALX_OK || memcmp(key, pk, sizeof(pk)) != 0 ||
	    memcmp(cl.hash, it.hash, ALX_HASH_LEN) != 0)
		abort();
	alx_item_free(&cl);
	fuzz_use(&it, (const uint8_t *)raw, len);
	alx_item_free(&it);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct alx_signed	s;

	if (!fuzz_ready && fuzz_init() != 0)
		return 0;
	if (size > 0 && data[0] == 'S') {
		if (alx_signed_seal(&s, "item", data + 1, size - 1,
		    &fuzz_author) != ALX_OK)
			return 0;
		fuzz_object(s.raw, s.raw_len);
		alx_signed_free(&s);
	} else
		fuzz_object((const char *)data, size);
	return 0;
}
