/*
 * fuzz-cpace.c: libFuzzer target for the CPace message decoder and finish.
 *
 * Input: the first byte picks the role, the rest is the peer's message,
 * handed to a run started with fixed inputs and a fixed scalar. A failure
 * must be ALX_ERR_PAKE with an all-zero ISK; a success is only possible for
 * a well-formed lv_cat(Y, AD), and must be reproducible. The input is also
 * split into PRS, CI and sid for the generator, which must either work or
 * refuse over-long inputs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/cpace.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const uint8_t fuzz_y[ALX_CPACE_SCALAR_LEN] = {
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01,
	0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
	0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x01,
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

static int
fuzz_finish(int role, const uint8_t *peer, size_t len,
    uint8_t isk[ALX_CPACE_ISK_LEN])
{
	struct alx_cpace	st;
	uint8_t			msg[ALX_CPACE_MSG_MAX];
	size_t			msglen = sizeof(msg);
	int			r;

	if (alx_cpace_start_scalar(&st, role, fuzz_y,
	    (const uint8_t *)"1-acid-acorn", 12, (const uint8_t *)"ci", 2,
	    (const uint8_t *)"sid", 3, (const uint8_t *)"ad", 2, msg,
	    &msglen) != ALX_OK)
		abort();
	r = alx_cpace_finish(&st, peer, len, isk);
	alx_cpace_wipe(&st);
	return r;
}

static void
fuzz_generator(const uint8_t *data, size_t size)
{
	uint8_t	g[ALX_CPACE_POINT_LEN];
	size_t	a, b;
	int	r;

	if (size < 2)
		return;
	a = data[0];
	b = data[1];
	data += 2;
	size -= 2;
	if (a > size)
		a = size;
	if (b > size - a)
		b = size - a;
	r = alx_cpace_generator(g, NULL, data, a, data + a, b, data + a + b,
	    size - a - b);
	if (r != ALX_OK && r != ALX_ERR_TOO_LARGE)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t		 isk[ALX_CPACE_ISK_LEN], isk2[ALX_CPACE_ISK_LEN];
	const uint8_t	*y, *ad;
	size_t		 adlen;
	int		 role, r, parsed;

	if (size < 1)
		return 0;
	role = data[0] % 3;
	parsed = alx_cpace_msg_parse(data + 1, size - 1, &y, &ad, &adlen);
	if (parsed == ALX_OK && (y != data + 2 || ad + adlen != data + size))
		abort();
	r = fuzz_finish(role, data + 1, size - 1, isk);
	if (r != ALX_OK) {
		if (r != ALX_ERR_PAKE || !fuzz_zero(isk, sizeof(isk)))
			abort();
	} else {
		if (parsed != ALX_OK)
			abort();
		if (fuzz_finish(role, data + 1, size - 1, isk2) != ALX_OK ||
		    memcmp(isk, isk2, sizeof(isk)) != 0)
			abort();
	}
	fuzz_generator(data, size);
	return 0;
}
