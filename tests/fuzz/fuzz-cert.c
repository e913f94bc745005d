/*
 * fuzz-cert.c: libFuzzer target for certificates (alx_cert_open,
 * alx_cert_valid).
 *
 * Input: a certificate object, or 'S' followed by body bytes, which the
 * target signs with the sender role key. It is checked against a manifest
 * whose role keys are those of tests/vectors/ (seeds from their labels),
 * whose sender role was rotated once (generation 2; generation 1 is the
 * vectors' sender key) keeping one participant, and which revokes another;
 * its session id is the one the body names, so the checks after the
 * session id are reached too. Seeds: the certificates of tests/vectors/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/crypto.h"
#include "airlox/json.h"
#include "airlox/proto.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct alx_manifest	fuzz_m;
static struct alx_signkey	fuzz_sender;
static uint8_t			fuzz_old[1][ALX_SIGN_PK_LEN];
static uint8_t			fuzz_keep[1][ALX_FP_LEN];
static uint8_t			fuzz_revoked[1][ALX_FP_LEN];
static int			fuzz_ready;

static void
fuzz_label(const char *label, uint8_t *out, size_t n)
{
	alx_hkdf_sha256(out, n, label, strlen(label), NULL, 0,
	    "airlox/vectors", 14);
}

static void
fuzz_fp_of(const char *label, uint8_t fp[ALX_FP_LEN])
{
	struct alx_signkey	sk;
	uint8_t			seed[32];

	fuzz_label(label, seed, sizeof(seed));
	alx_sign_from_seed(&sk, seed);
	alx_fingerprint(fp, sk.pk, ALX_SIGN_PK_LEN);
	alx_sign_wipe(&sk);
}

static int
fuzz_init(void)
{
	struct alx_signkey	sk;
	struct alx_kxkey	kx;
	uint8_t			seed[ALX_SEED_LEN];
	char			label[32];
	int			i;

	if (alx_crypto_init() != ALX_OK)
		return -1;
	memset(&fuzz_m, 0, sizeof(fuzz_m));
	fuzz_m.ver = 2;
	fuzz_m.mode = ALX_MODE_EXECUTE;
	fuzz_label("owner seed", seed, sizeof(seed));
	alx_seed_keys(seed, &sk, &kx);
	memcpy(fuzz_m.owner_pk, sk.pk, ALX_SIGN_PK_LEN);
	memcpy(fuzz_m.owner_kx, kx.pk, ALX_KX_PK_LEN);
	for (i = ALX_ROLE_SENDER; i < ALX_ROLE_COUNT; i++) {
		snprintf(label, sizeof(label), "%s seed", alx_role_name(i));
		fuzz_label(label, seed, sizeof(seed));
		alx_seed_keys(seed, &sk, &kx);
		fuzz_m.roles[i].present = 1;
		fuzz_m.roles[i].n = 1;
		memcpy(fuzz_m.roles[i].pk, sk.pk, ALX_SIGN_PK_LEN);
		memcpy(fuzz_m.roles[i].kx, kx.pk, ALX_KX_PK_LEN);
		if (i == ALX_ROLE_SENDER)
			fuzz_sender = sk;
	}
	/* The sender role rotated once: generation 1 is now old. */
	memcpy(fuzz_old[0], fuzz_m.roles[ALX_ROLE_SENDER].pk, ALX_SIGN_PK_LEN);
	fuzz_label("sender seed 2", seed, sizeof(seed));
	alx_seed_keys(seed, &sk, NULL);
	memcpy(fuzz_m.roles[ALX_ROLE_SENDER].pk, sk.pk, ALX_SIGN_PK_LEN);
	fuzz_m.roles[ALX_ROLE_SENDER].n = 2;
	fuzz_m.roles[ALX_ROLE_SENDER].old = fuzz_old;
	fuzz_m.roles[ALX_ROLE_SENDER].nold = 1;
	fuzz_fp_of("participant review-agent", fuzz_keep[0]);
	fuzz_fp_of("participant build-agent", fuzz_revoked[0]);
	fuzz_m.keep = fuzz_keep;
	fuzz_m.nkeep = 1;
	fuzz_m.revoked = fuzz_revoked;
	fuzz_m.nrevoked = 1;
	alx_sign_wipe(&sk);
	alx_kx_wipe(&kx);
	fuzz_ready = 1;
	return 0;
}

/* The session id the body names, if it names one. */
static void
fuzz_body_sid(const char *raw, size_t len)
{
	struct alx_signed	 s;
	struct alx_json		*j;

	memset(fuzz_m.sid, 0, ALX_SID_LEN);
	if (alx_signed_parse(&s, raw, len) != ALX_OK)
		return;
	if (alx_json_parse(&j, (const char *)s.body, s.body_len, NULL) ==
	    ALX_OK) {
		(void)alx_json_get_b64(j, 0, "sid", fuzz_m.sid, ALX_SID_LEN);
		alx_json_free(j);
	}
	alx_signed_free(&s);
}

static void
fuzz_object(const char *raw, size_t len)
{
	struct alx_cert	c;
	uint8_t		fp[ALX_FP_LEN];

	fuzz_body_sid(raw, len);
	if (alx_cert_open(&c, raw, len, &fuzz_m) != ALX_OK)
		return;
	/* An opened certificate stays valid in the same manifest. */
	alx_fingerprint(fp, c.pk, sizeof(c.pk));
	if (alx_cert_valid(&c, &fuzz_m) != ALX_OK ||
	    memcmp(fp, c.fp, ALX_FP_LEN) != 0 ||
	    !alx_display_valid(c.name) || alx_manifest_is_revoked(&fuzz_m,
	    c.fp))
		abort();
	alx_cert_free(&c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct alx_signed	s;

	if (!fuzz_ready && fuzz_init() != 0)
		return 0;
	if (size > 0 && data[0] == 'S') {
		if (alx_signed_seal(&s, "cert", data + 1, size - 1,
		    &fuzz_sender) != ALX_OK)
			return 0;
		fuzz_object(s.raw, s.raw_len);
		alx_signed_free(&s);
	} else
		fuzz_object((const char *)data, size);
	return 0;
}
