/*
 * fuzz-b64.c: libFuzzer target for strict base64url.
 *
 * Decoding arbitrary bytes: whatever is accepted must re-encode to exactly
 * the input (the canonical form is unique), and decode_exact must agree.
 * Encoding arbitrary bytes: the result must decode back to them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(x)	do { if (!(x)) abort(); } while (0)

static void
check_decode(const char *in, size_t n)
{
	uint8_t	*out;
	char	*enc;
	size_t	 outlen, junk, max = ALX_B64_DECLEN(n);
	int	 r;

	out = malloc(max + 1);
	CHECK(out != NULL);
	r = alx_b64_decode(out, max, &outlen, in, n);
	CHECK(r == 0 || r == ALX_ERR_BAD_BASE64);
	if (r == 0) {
		CHECK(outlen <= max);
		enc = alx_b64_encode_alloc(out, outlen);
		CHECK(enc != NULL);
		CHECK(strlen(enc) == n && memcmp(enc, in, n) == 0);
		free(enc);
		CHECK(alx_b64_decode_exact(out, outlen, in, n) == 0);
		if (outlen > 0) {
			CHECK(alx_b64_decode(out, outlen - 1, &junk, in,
			    n) == ALX_ERR_TOO_LARGE);
			CHECK(alx_b64_decode_exact(out, outlen - 1, in, n) ==
			    ALX_ERR_BAD_BASE64);
		}
	} else
		CHECK(alx_b64_decode_exact(out, max, in, n) ==
		    ALX_ERR_BAD_BASE64);
	free(out);
}

static void
check_encode(const uint8_t *in, size_t n)
{
	uint8_t	*back;
	char	*enc;
	size_t	 len;

	enc = alx_b64_encode_alloc(in, n);
	CHECK(enc != NULL && strlen(enc) == ALX_B64_ENCLEN(n));
	back = malloc(n + 1);
	CHECK(back != NULL);
	CHECK(alx_b64_decode(back, n, &len, enc, strlen(enc)) == 0);
	CHECK(len == n && memcmp(back, in, n) == 0);
	free(back);
	free(enc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_decode((const char *)data, size);
	check_encode(data, size);
	return 0;
}
