/*
 * alx_b64.c: strict unpadded base64url (RFC 4648 section 5).
 *
 * The alphabet mapping is computed with arithmetic rather than table lookups
 * so that encoding and decoding keys does not index memory by secret bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"

/* 0xff when lo <= x <= hi, else 0; without branches on x. */
static unsigned
b64_in(unsigned x, unsigned lo, unsigned hi)
{
	unsigned	ge = ((x - lo) >> 8) ^ 1;	/* x >= lo (< 256) */
	unsigned	le = ((hi - x) >> 8) ^ 1;	/* x <= hi */

	return (0u - (ge & le & 1)) & 0xff;
}

static char
b64_char(unsigned v)
{
	unsigned	c;

	c = (b64_in(v, 0, 25) & (v + 'A')) |
	    (b64_in(v, 26, 51) & (v - 26 + 'a')) |
	    (b64_in(v, 52, 61) & (v - 52 + '0')) |
	    (b64_in(v, 62, 62) & '-') |
	    (b64_in(v, 63, 63) & '_');
	return (char)c;
}

/* Value of an alphabet character, or 0xff. */
static unsigned
b64_val(unsigned char ch)
{
	unsigned	c = ch, v, ok;

	v = (b64_in(c, 'A', 'Z') & (c - 'A')) |
	    (b64_in(c, 'a', 'z') & (c - 'a' + 26)) |
	    (b64_in(c, '0', '9') & (c - '0' + 52)) |
	    (b64_in(c, '-', '-') & 62) |
	    (b64_in(c, '_', '_') & 63);
	ok = b64_in(c, 'A', 'Z') | b64_in(c, 'a', 'z') | b64_in(c, '0', '9') |
	    b64_in(c, '-', '-') | b64_in(c, '_', '_');
	return (v & ok & 0xff) | (~ok & 0xff);
}

/*
 * Eight characters at once in a 64-bit word, each byte a lane, with the
 * same arithmetic as b64_val() done for all lanes together (SWAR): no
 * branch or memory index depends on the data. For a lane holding a byte
 * b < 0x80, b + (0x80 - lo) has its top bit set exactly when b >= lo, and
 * b + (0x7f - hi) exactly when b > hi; neither carries into the next lane.
 * Lanes with their own top bit set (not ASCII) are invalid. Returns the
 * six decoded bytes in *out and the lanes that are not in the alphabet
 * (0 when all eight are).
 */
#define B64_REP(c)	((uint64_t)(c) * 0x0101010101010101ULL)
#define B64_HI		B64_REP(0x80)

static uint64_t
b64_lanes_in(uint64_t x, unsigned lo, unsigned hi)
{
	uint64_t	ge = x + B64_REP(0x80 - lo);
	uint64_t	gt = x + B64_REP(0x7f - hi);

	/* 0xff in each lane with lo <= b <= hi (x has no top bits here). */
	return ((ge & ~gt & B64_HI) >> 7) * 0xff;
}

static uint64_t
b64_decode8(const unsigned char *p, uint8_t out[6])
{
	uint64_t	x = 0, top, m1, m2, m3, m4, m5, off, v;
	int		i;

	for (i = 7; i >= 0; i--)		/* lane i = p[i] */
		x = x << 8 | p[i];
	top = x & B64_HI;
	x &= ~B64_HI;
	m1 = b64_lanes_in(x, 'A', 'Z');
	m2 = b64_lanes_in(x, 'a', 'z');
	m3 = b64_lanes_in(x, '0', '9');
	m4 = b64_lanes_in(x, '-', '-');
	m5 = b64_lanes_in(x, '_', '_');
	/* What to add to each lane's byte (mod 256) for its value. */
	off = (m1 & B64_REP((0u - 'A') & 0xff)) |
	    (m2 & B64_REP((26u - 'a') & 0xff)) |
	    (m3 & B64_REP((52u - '0') & 0xff)) |
	    (m4 & B64_REP((62u - '-') & 0xff)) |
	    (m5 & B64_REP((63u - '_') & 0xff));
	/* A lane-wise add: the low seven bits add, the top bits xor in. */
	v = ((x & ~B64_HI) + (off & ~B64_HI)) ^ ((x ^ off) & B64_HI);
	v &= B64_REP(0x3f);
	/* Pack: 16-bit lanes of 12 bits, then 32-bit lanes of 24 bits. */
	v = ((v & 0x003f003f003f003fULL) << 6) |
	    ((v >> 8) & 0x003f003f003f003fULL);
	v = ((v & 0x00000fff00000fffULL) << 12) |
	    ((v >> 16) & 0x00000fff00000fffULL);
	out[0] = (uint8_t)(v >> 16);
	out[1] = (uint8_t)(v >> 8);
	out[2] = (uint8_t)v;
	out[3] = (uint8_t)(v >> 48);
	out[4] = (uint8_t)(v >> 40);
	out[5] = (uint8_t)(v >> 32);
	return top | ~(m1 | m2 | m3 | m4 | m5);
}

void
alx_b64_encode(char *out, const uint8_t *in, size_t n)
{
	size_t		i;
	uint32_t	w;

	for (i = 0; i + 3 <= n; i += 3) {
		w = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 |
		    in[i + 2];
		*out++ = b64_char((w >> 18) & 63);
		*out++ = b64_char((w >> 12) & 63);
		*out++ = b64_char((w >> 6) & 63);
		*out++ = b64_char(w & 63);
	}
	if (n - i == 1) {
		w = (uint32_t)in[i] << 16;
		*out++ = b64_char((w >> 18) & 63);
		*out++ = b64_char((w >> 12) & 63);
	} else if (n - i == 2) {
		w = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
		*out++ = b64_char((w >> 18) & 63);
		*out++ = b64_char((w >> 12) & 63);
		*out++ = b64_char((w >> 6) & 63);
	}
	*out = '\0';
}

char *
alx_b64_encode_alloc(const uint8_t *in, size_t n)
{
	char	*out;

	if (n > (SIZE_MAX - 4) / 4)
		return NULL;
	if ((out = malloc(ALX_B64_ENCLEN(n) + 1)) == NULL)
		return NULL;
	alx_b64_encode(out, in, n);
	return out;
}

/* Decoded length of a canonical encoding of inlen characters, or -1. */
static int
b64_declen(size_t inlen, size_t *lenp)
{
	static const size_t	extra[4] = { 0, 0, 1, 2 };

	if (inlen % 4 == 1)
		return -1;
	*lenp = inlen / 4 * 3 + extra[inlen % 4];
	return 0;
}

/*
 * One pass, eight characters (six bytes) at a time, then four: each
 * character's value is computed once and also feeds the error flag, and
 * no branch depends on the data. Out is zeroed when the text is not valid, so a
 * caller never sees part of a decoded key.
 */
int
alx_b64_decode(uint8_t *out, size_t outmax, size_t *outlen, const char *in,
    size_t inlen)
{
	const unsigned char	*p = (const unsigned char *)in;
	size_t			 i, o = 0, need, rest;
	uint32_t		 w;
	uint64_t		 bad8 = 0;
	unsigned		 a, b, c, d, bad = 0;

	if (outlen != NULL)
		*outlen = 0;
	if (in == NULL && inlen != 0)
		return ALX_ERR_INVALID;
	if (b64_declen(inlen, &need) != 0)
		return ALX_ERR_BAD_BASE64;
	if (need > outmax)
		return ALX_ERR_TOO_LARGE;
	for (i = 0; i + 8 <= inlen; i += 8) {
		bad8 |= b64_decode8(p + i, out + o);
		o += 6;
	}
	for (; i + 4 <= inlen; i += 4) {
		a = b64_val(p[i]);
		b = b64_val(p[i + 1]);
		c = b64_val(p[i + 2]);
		d = b64_val(p[i + 3]);
		bad |= a | b | c | d;
		w = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | d;
		out[o] = (uint8_t)(w >> 16);
		out[o + 1] = (uint8_t)(w >> 8);
		out[o + 2] = (uint8_t)w;
		o += 3;
	}
	rest = inlen - i;		/* 0, 2 or 3 (1 was refused above) */
	if (rest >= 2) {
		a = b64_val(p[i]);
		b = b64_val(p[i + 1]);
		c = rest == 3 ? b64_val(p[i + 2]) : 0;
		bad |= a | b | c;
		/* The unused low bits of the last character must be zero. */
		if (rest == 2)
			bad |= (b & 0x0f) << 6;
		else
			bad |= (c & 0x03) << 6;
		w = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6;
		out[o++] = (uint8_t)(w >> 16);
		if (rest == 3)
			out[o++] = (uint8_t)(w >> 8);
	}
	/* A character outside the alphabet is 0xff: bits 6 and 7 set. */
	if ((bad >> 6) != 0 || bad8 != 0) {
		memset(out, 0, o);
		return ALX_ERR_BAD_BASE64;
	}
	if (outlen != NULL)
		*outlen = o;
	return 0;
}

int
alx_b64_decode_exact(uint8_t *out, size_t want, const char *in,
    size_t inlen)
{
	size_t	need, got;
	int	r;

	if (in == NULL && inlen != 0)
		return ALX_ERR_INVALID;
	if (b64_declen(inlen, &need) != 0 || need != want)
		return ALX_ERR_BAD_BASE64;
	if ((r = alx_b64_decode(out, want, &got, in, inlen)) != 0)
		return r;
	return got == want ? 0 : ALX_ERR_BAD_BASE64;
}
