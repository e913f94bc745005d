/*
 * fuzz-req.c: libFuzzer target for signed requests (alx_req_*).
 *
 * The first byte picks a mode.
 *
 * Even: the rest is an Authorization header value. A successful parse
 * must print back to exactly the same text (the grammar has one spelling
 * per value); verifying it against a fixed key must fail cleanly with one
 * of the expected codes.
 *
 * Odd: the rest is host NUL method NUL path NUL body, signed with a fixed
 * key at a time taken from the input. When signing succeeds, the header
 * must parse and verify, verify with the host in upper case too, and fail
 * once one bit of the signature (chosen by the input) is flipped, or the
 * body changes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FUZZ_REQ_MAX	(16 * 1024)
#define FUZZ_T0		1767225600

static struct alx_signkey	fuzz_key;

static void
fuzz_init(void)
{
	uint8_t	seed[ALX_SIGN_SEED_LEN];
	size_t	i;

	if (alx_crypto_init() != 0)
		abort();
	for (i = 0; i < sizeof(seed); i++)
		seed[i] = (uint8_t)i;
	if (alx_sign_from_seed(&fuzz_key, seed) != 0)
		abort();
}

static void
fuzz_header(const char *h)
{
	struct alx_reqauth	ra;
	char			again[ALX_REQ_HDR_MAX + 64];
	char			fp[ALX_B64_ENCLEN(ALX_FP_LEN) + 1];
	char			sig[ALX_B64_ENCLEN(ALX_SIG_LEN) + 1];
	uint8_t			hash[ALX_HASH_LEN];
	int			r;

	r = alx_req_parse(&ra, h);
	if (r != 0) {
		if (r != ALX_ERR_INVALID && r != ALX_ERR_BAD_BASE64)
			abort();
		return;
	}
	alx_b64_encode(fp, ra.fp, ALX_FP_LEN);
	alx_b64_encode(sig, ra.sig, ALX_SIG_LEN);
	fp[ALX_B64_ENCLEN(ALX_FP_LEN)] = '\0';
	sig[ALX_B64_ENCLEN(ALX_SIG_LEN)] = '\0';
	snprintf(again, sizeof(again), "Airlox v=1,key=%s,t=%lld,sig=%s", fp,
	    (long long)ra.time, sig);
	if (strcmp(again, h) != 0)
		abort();
	memset(hash, 0, sizeof(hash));
	r = alx_req_verify(&ra, fuzz_key.pk, "relay.example", "GET", "/",
	    hash, ra.time);
	if (r != ALX_ERR_UNKNOWN_KEY && r != ALX_ERR_BAD_SIGNATURE)
		abort();
}

static void
fuzz_sign(const uint8_t *data, size_t size)
{
	struct alx_reqauth	 ra;
	const char		*host, *method, *path;
	const uint8_t		*body, *end = data + size, *p;
	char			 hdr[ALX_REQ_HDR_MAX], upper[512];
	uint8_t			 hash[ALX_HASH_LEN];
	size_t			 bodylen, i, bit;
	int64_t			 t;

	/* Split at the first three NULs; the strings end there. */
	host = (const char *)data;
	if ((p = memchr(data, 0, size)) == NULL)
		return;
	method = (const char *)++p;
	if ((p = memchr(p, 0, (size_t)(end - p))) == NULL)
		return;
	path = (const char *)++p;
	if ((p = memchr(p, 0, (size_t)(end - p))) == NULL)
		return;
	body = ++p;
	bodylen = (size_t)(end - p);
	t = FUZZ_T0 + (int64_t)(bodylen % 1000);

	if (alx_req_sign(hdr, &fuzz_key, host, method, path, body, bodylen,
	    t) != 0) {
		if (hdr[0] != '\0')
			abort();
		return;
	}
	alx_sha256(hash, body, bodylen);
	if (alx_req_parse(&ra, hdr) != 0 ||
	    alx_req_verify(&ra, fuzz_key.pk, host, method, path, hash,
	    t + 17) != 0)
		abort();
	if (strlen(host) < sizeof(upper)) {
		for (i = 0; host[i] != '\0'; i++)
			upper[i] = (char)(host[i] >= 'a' && host[i] <= 'z' ?
			    host[i] - ('a' - 'A') : host[i]);
		upper[i] = '\0';
		if (alx_req_verify(&ra, fuzz_key.pk, upper, method, path,
		    hash, t) != 0)
			abort();
	}
	hash[bodylen % ALX_HASH_LEN] ^= 1;
	if (alx_req_verify(&ra, fuzz_key.pk, host, method, path, hash,
	    t) != ALX_ERR_BAD_SIGNATURE)
		abort();
	hash[bodylen % ALX_HASH_LEN] ^= 1;
	bit = (size_t)(bodylen != 0 ? body[0] | body[bodylen - 1] << 8 : 0) %
	    (ALX_SIG_LEN * 8);
	ra.sig[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	if (alx_req_verify(&ra, fuzz_key.pk, host, method, path, hash,
	    t) != ALX_ERR_BAD_SIGNATURE)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int	 ready;
	char		*h;

	if (!ready) {
		fuzz_init();
		ready = 1;
	}
	if (size < 1 || size > FUZZ_REQ_MAX)
		return 0;
	if ((data[0] & 1) == 0) {
		if ((h = malloc(size)) == NULL)
			return 0;
		memcpy(h, data + 1, size - 1);
		h[size - 1] = '\0';
		fuzz_header(h);
		free(h);
	} else
		fuzz_sign(data + 1, size - 1);
	return 0;
}
