/*
 * fuzz-signed.c: libFuzzer target for the outer signed object
 * (alx_signed_parse, alx_signed_verify, alx_signed_open, alx_signed_hash).
 *
 * Input: the object's bytes. What parses must keep its invariants: the raw
 * bytes are the input, the body fits its type's limit, and a signature
 * never verifies under another type (domain separation). Seeds: every
 * signed object of tests/vectors/ (test-vectors --corpus).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const char *const fuzz_types[] = {
	"manifest", "cert", "item", "claim", "announce", "close",
	"code-open", "code-fail"
};
#define FUZZ_NTYPES	(sizeof(fuzz_types) / sizeof(fuzz_types[0]))

static const uint8_t fuzz_key[ALX_SIGN_PK_LEN] = {
	0xd7, 0x5a, 0x98, 0x01, 0x82, 0xb1, 0x0a, 0xb7,
	0xd5, 0x4b, 0xfe, 0xd3, 0xc9, 0x64, 0x07, 0x3a,
	0x0e, 0xe1, 0x72, 0xf3, 0xda, 0xa6, 0x23, 0x25,
	0xaf, 0x02, 0x1a, 0x68, 0xf7, 0x07, 0x51, 0x1a,
};

static void
fuzz_parsed(const struct alx_signed *s, const uint8_t *data, size_t size)
{
	uint8_t	h[ALX_HASH_LEN], h2[ALX_HASH_LEN];
	size_t	i, ok = 0;

	if (s->raw_len != size || memcmp(s->raw, data, size) != 0)
		abort();
	if (s->body_len > alx_signed_max_body(s->type) || s->body == NULL ||
	    s->body[s->body_len] != '\0')
		abort();
	alx_signed_hash(s, h);
	alx_signed_hash(s, h2);
	if (memcmp(h, h2, sizeof(h)) != 0)
		abort();
	for (i = 0; i < FUZZ_NTYPES; i++)
		if (alx_signed_verify(s, fuzz_types[i], s->key) == ALX_OK)
			ok++;
	/* At most its own type: a signature belongs to one domain. */
	if (ok > 1 || (ok == 1 && alx_signed_verify(s, s->type,
	    s->key) != ALX_OK))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct alx_signed	s;
	size_t			i;

	if (alx_crypto_init() != ALX_OK)
		return 0;
	if (alx_signed_parse(&s, (const char *)data, size) == ALX_OK) {
		fuzz_parsed(&s, data, size);
		alx_signed_free(&s);
	}
	for (i = 0; i < FUZZ_NTYPES; i++) {
		if (alx_signed_open(&s, (const char *)data, size, fuzz_types[i],
		    fuzz_key) == ALX_OK)
			alx_signed_free(&s);
	}
	return 0;
}
