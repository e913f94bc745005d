/*
 * fuzz-manifest.c: libFuzzer target for manifests (alx_manifest_open and
 * what reads an opened manifest).
 *
 * Input: a manifest object, or 'S' followed by body bytes, which the target
 * signs with its owner key so that the body decoder behind the signature is
 * reached. Each is opened as version 1 for the session id its body derives
 * (docs/protocol.md section 4), and as an update on top of a fixed
 * version 1 of the same owner. Seeds: the manifests of tests/vectors/, as
 * objects and as 'S' bodies.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct alx_signkey	fuzz_owner;
static struct alx_kxkey		fuzz_okx;
static struct alx_manifest	fuzz_v1;
static uint8_t			fuzz_ekey[ALX_KEY_LEN];
static int			fuzz_ready;

/* The vectors' owner seed: HKDF("owner seed", "", "airlox/vectors"). */
static void
fuzz_label(const char *label, uint8_t *out, size_t n)
{
	alx_hkdf_sha256(out, n, label, strlen(label), NULL, 0,
	    "airlox/vectors", 14);
}

static int
fuzz_init(void)
{
	struct alx_private	p;
	uint8_t			seed[ALX_SEED_LEN];
	int			i;

	if (alx_crypto_init() != ALX_OK)
		return -1;
	fuzz_label("owner seed", seed, sizeof(seed));
	alx_seed_keys(seed, &fuzz_owner, &fuzz_okx);
	fuzz_label("epoch key 0", fuzz_ekey, sizeof(fuzz_ekey));
	memset(&fuzz_v1, 0, sizeof(fuzz_v1));
	fuzz_v1.ver = 1;
	fuzz_v1.mode = ALX_MODE_EXECUTE;
	fuzz_v1.created = 1767225600;
	fuzz_v1.item_max = 1024 * 1024;
	fuzz_v1.session_max = 16 * 1024 * 1024;
	memcpy(fuzz_v1.owner_pk, fuzz_owner.pk, ALX_SIGN_PK_LEN);
	memcpy(fuzz_v1.owner_kx, fuzz_okx.pk, ALX_KX_PK_LEN);
	for (i = ALX_ROLE_SENDER; i < ALX_ROLE_COUNT; i++) {
		fuzz_v1.roles[i].present = 1;
		fuzz_v1.roles[i].n = 1;
		memcpy(fuzz_v1.roles[i].pk, fuzz_owner.pk, ALX_SIGN_PK_LEN);
		memcpy(fuzz_v1.roles[i].kx, fuzz_okx.pk, ALX_KX_PK_LEN);
	}
	memset(&p, 0, sizeof(p));
	if (alx_manifest_seal_private(&fuzz_v1, fuzz_ekey, &p) != ALX_OK ||
	    alx_manifest_sign(&fuzz_v1, &fuzz_owner) != ALX_OK)
		return -1;
	fuzz_ready = 1;
	return 0;
}

/* sid = first 16 bytes of SHA-256("airlox/v1/sid" 0x00 body). */
static void
fuzz_sid(const struct alx_signed *s, uint8_t sid[ALX_SID_LEN])
{
	struct alx_sha256_ctx	ctx;
	uint8_t			h[ALX_HASH_LEN];

	alx_sha256_init(&ctx);
	alx_sha256_update(&ctx, "airlox/v1/sid", 14);
	alx_sha256_update(&ctx, s->body, s->body_len);
	alx_sha256_final(&ctx, h);
	memcpy(sid, h, ALX_SID_LEN);
}

/* Everything a reader does with an opened manifest. */
static void
fuzz_use(const struct alx_manifest *m)
{
	struct alx_manifest	 c, next;
	struct alx_private	 p;
	uint8_t			 k[ALX_KEY_LEN], fp[ALX_FP_LEN];
	char			*json;
	size_t			 len, i;

	(void)alx_manifest_epoch_key(m, "owner", &fuzz_okx, k);
	for (i = 0; i < m->nwraps; i++)
		(void)alx_manifest_epoch_key(m, m->wraps[i].to, &fuzz_okx, k);
	if (alx_manifest_open_private(m, fuzz_ekey, &p) == ALX_OK)
		alx_private_free(&p);
	memset(fp, 0, sizeof(fp));
	(void)alx_manifest_is_revoked(m, fp);
	(void)alx_manifest_is_kept(m, fp);
	(void)alx_manifest_find_approved(m, fp);
	if (alx_manifest_encode(m, &json, &len) == ALX_OK)
		free(json);
	if (alx_manifest_copy(&c, m) == ALX_OK) {
		if (memcmp(c.hash, m->hash, ALX_HASH_LEN) != 0)
			abort();
		alx_manifest_free(&c);
	}
	if (alx_manifest_next(&next, m) == ALX_OK)
		alx_manifest_free(&next);
}

static void
fuzz_object(const char *raw, size_t len)
{
	struct alx_signed	s;
	struct alx_manifest	m;
	uint8_t			sid[ALX_SID_LEN];

	if (alx_signed_parse(&s, raw, len) != ALX_OK)
		return;
	fuzz_sid(&s, sid);
	alx_signed_free(&s);
	if (alx_manifest_open(&m, raw, len, sid, NULL) == ALX_OK) {
		if (m.ver != 1 || memcmp(m.sid, sid, ALX_SID_LEN) != 0)
			abort();
		fuzz_use(&m);
		alx_manifest_free(&m);
	}
	if (alx_manifest_open(&m, raw, len, fuzz_v1.sid, &fuzz_v1) ==
	    ALX_OK) {
		if (m.ver != 2)
			abort();
		fuzz_use(&m);
		alx_manifest_free(&m);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct alx_signed	s;

	if (!fuzz_ready && fuzz_init() != 0)
		return 0;
	if (size > 0 && data[0] == 'S') {
		if (alx_signed_seal(&s, "manifest", data + 1, size - 1,
		    &fuzz_owner) != ALX_OK)
			return 0;
		fuzz_object(s.raw, s.raw_len);
		alx_signed_free(&s);
	} else
		fuzz_object((const char *)data, size);
	return 0;
}
