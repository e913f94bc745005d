/* test-b64.c: strict unpadded base64url, RFC 4648 vectors, rejections. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "tap.h"

/* RFC 4648 section 10, padding removed (the alphabets agree here). */
static const struct {
	const char	*plain;
	const char	*enc;
} rfc[] = {
	{ "", "" },
	{ "f", "Zg" },
	{ "fo", "Zm8" },
	{ "foo", "Zm9v" },
	{ "foob", "Zm9vYg" },
	{ "fooba", "Zm9vYmE" },
	{ "foobar", "Zm9vYmFy" },
};

/* Bytes where base64url differs from base64 ('+' -> '-', '/' -> '_'). */
static const struct {
	uint8_t		 in[3];
	size_t		 n;
	const char	*enc;
} url[] = {
	{ { 0xfb, 0xef, 0xbe }, 3, "----" },
	{ { 0xff, 0xff, 0xff }, 3, "____" },
	{ { 0xfb, 0xff }, 2, "-_8" },
	{ { 0xf8 }, 1, "-A" },
	{ { 0xfc }, 1, "_A" },
	{ { 0x03, 0xef, 0xff }, 3, "A-__" },
};

static const char *bad[] = {
	"Zg==",		/* padding */
	"Zg=",
	"Zm8=",
	"=",
	"Zm9v====",
	"Zm9v\n",	/* whitespace */
	" Zm9v",
	"Zm 9v",
	"Zm9v\r\n",
	"Zm\t9v",
	"+/8",		/* the standard alphabet */
	"Zm9v+w",
	"Zm9v/w",
	"Z",		/* length 1 mod 4 */
	"Zm9vY",
	"Zm9vYmFyZ",
	"Zh",		/* nonzero unused bits */
	"Zm9",
	"Zm_",
	"AB",
	"AAB",
	"Zm9vYh",
	"Zm9v.",	/* other characters */
	"Zm9v*A",
	"Zm9v\x80\x41",
	"Zm\xc3\xa9",
	"Zm9v%3D",
};

/* A printable rendering of s (for test names), in a static buffer. */
static const char *
show(const char *s, size_t n)
{
	static char	out[64];
	size_t		i, o = 0;

	for (i = 0; i < n && o + 5 < sizeof(out); i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, sizeof(out) - o,
			    "\\x%02x", c);
	}
	out[o] = '\0';
	return out;
}

static int
roundtrip_ok(size_t n)
{
	uint8_t	*in, *out;
	char	*enc;
	size_t	 i, outlen;
	int	 good;

	in = malloc(n + 1);
	out = malloc(n + 1);
	for (i = 0; i < n; i++)
		in[i] = (uint8_t)(i * 131 + n * 7 + (i >> 3));
	enc = alx_b64_encode_alloc(in, n);
	good = enc != NULL && strlen(enc) == ALX_B64_ENCLEN(n) &&
	    strcspn(enc, "=+/") == strlen(enc) &&
	    alx_b64_decode(out, n, &outlen, enc, strlen(enc)) == 0 &&
	    outlen == n && memcmp(in, out, n) == 0 &&
	    alx_b64_decode_exact(out, n, enc, strlen(enc)) == 0;
	free(enc);
	free(in);
	free(out);
	return good;
}

/*
 * For every string s in a set: decode accepts s exactly when s is the
 * encoding of what it decodes to.
 */
static int
canonical_ok(const char *s, size_t n)
{
	uint8_t	out[8];
	char	enc[16];
	size_t	outlen;
	int	r;

	r = alx_b64_decode(out, sizeof(out), &outlen, s, n);
	if (r != 0)
		return r == ALX_ERR_BAD_BASE64;
	alx_b64_encode(enc, out, outlen);
	return strlen(enc) == n && memcmp(enc, s, n) == 0;
}

static void
test_exhaustive(void)
{
	static const char extra[] = "=+/ .\n\x80\xff";
	char	alpha[64 + sizeof(extra)], s[3];
	size_t	na, a, b, c;
	int	good = 1, accepted = 0;

	for (a = 0; a < 256; a++)
		for (b = 0; b < 256; b++) {
			s[0] = (char)a;
			s[1] = (char)b;
			if (!canonical_ok(s, 2))
				good = 0;
			else if (alx_b64_decode((uint8_t *)alpha, 1, &na, s,
			    2) == 0)
				accepted++;
		}
	ok(good, "every 2-byte string: accepted iff canonical");
	is_int(accepted, 64 * 4, "exactly 256 two-character encodings");

	alx_b64_encode(alpha, (const uint8_t *)"\x00\x10\x83\x10\x51\x87"
	    "\x20\x92\x8b\x30\xd3\x8f\x41\x14\x93\x51\x55\x97\x61\x96\x9b"
	    "\x71\xd7\x9f\x82\x18\xa3\x92\x59\xa7\xa2\x9a\xab\xb2\xdb\xaf"
	    "\xc3\x1c\xb3\xd3\x5d\xb7\xe3\x9e\xbb\xf3\xdf\xbf", 48);
	ok(strcmp(alpha, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789-_") == 0, "encoding the alphabet, in order");
	memcpy(alpha + 64, extra, sizeof(extra));
	na = 64 + sizeof(extra) - 1;
	good = 1;
	for (a = 0; a < na; a++)
		for (b = 0; b < na; b++)
			for (c = 0; c < na; c++) {
				s[0] = alpha[a];
				s[1] = alpha[b];
				s[2] = alpha[c];
				if (!canonical_ok(s, 3))
					good = 0;
			}
	ok(good, "every 3-char string over the alphabet and extras");
}

/* A plain decoder to compare with: a table, a branch per character. */
static int
ref_decode(const char *s, size_t n, uint8_t *out, size_t *outlen)
{
	static const char	 A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-_";
	const char		*c;
	uint32_t		 acc = 0;
	size_t			 i, o = 0;
	int			 bits = 0;

	if (n % 4 == 1)
		return ALX_ERR_BAD_BASE64;
	for (i = 0; i < n; i++) {
		if (s[i] == '\0' || (c = strchr(A, s[i])) == NULL)
			return ALX_ERR_BAD_BASE64;
		acc = acc << 6 | (uint32_t)(c - A);
		if ((bits += 6) >= 8) {
			bits -= 8;
			out[o++] = (uint8_t)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (acc != 0)			/* unused low bits must be zero */
		return ALX_ERR_BAD_BASE64;
	*outlen = o;
	return 0;
}

/*
 * Longer strings, where eight characters are decoded at once: every byte
 * value at every position of a 24-character string, and random strings
 * up to 80 characters with random bytes put in, against ref_decode().
 */
static void
test_wide(void)
{
	static const char	A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-_";
	uint8_t			got[64], want[64];
	char			s[81];
	size_t			glen, wlen, pos, n, i;
	int			b, t, rg, rw, good = 1, zeroed = 1;

	srand(7);
	for (pos = 0; pos < 24; pos++)
		for (b = 0; b < 256; b++) {
			for (i = 0; i < 24; i++)
				s[i] = A[(i * 7 + 3) % 64];
			s[pos] = (char)b;
			glen = wlen = 0;
			rg = alx_b64_decode(got, sizeof(got), &glen, s, 24);
			rw = ref_decode(s, 24, want, &wlen);
			if (rg != rw || (rg == 0 && (glen != wlen ||
			    memcmp(got, want, wlen) != 0)))
				good = 0;
		}
	ok(good, "every byte at every position of 24 characters: as the "
	    "plain decoder");
	good = 1;
	for (t = 0; t < 20000; t++) {
		n = (size_t)rand() % 81;
		for (i = 0; i < n; i++)
			s[i] = rand() % 20 == 0 ? (char)(rand() % 256) :
			    A[rand() % 64];
		glen = wlen = 0;
		memset(got, 0xaa, sizeof(got));
		rg = alx_b64_decode(got, sizeof(got), &glen, s, n);
		rw = ref_decode(s, n, want, &wlen);
		if (rg != rw || (rg == 0 && (glen != wlen ||
		    memcmp(got, want, wlen) != 0)))
			good = 0;
		/* Refused: what was written is zeroed, the rest untouched. */
		for (i = 0; rg != 0 && i < sizeof(got); i++)
			if (got[i] != 0 && got[i] != 0xaa)
				zeroed = 0;
	}
	ok(good, "20,000 random strings up to 80 characters: as the plain "
	    "decoder");
	ok(zeroed, "and nothing decoded is left in the output when refused");
}

int
main(void)
{
	uint8_t	out[64];
	char	enc[64];
	size_t	i, n, outlen;
	int	good;

	for (i = 0; i < sizeof(rfc) / sizeof(rfc[0]); i++) {
		n = strlen(rfc[i].plain);
		alx_b64_encode(enc, (const uint8_t *)rfc[i].plain, n);
		is_str(enc, rfc[i].enc, "RFC 4648 encode \"%s\"", rfc[i].plain);
		memset(out, 0xaa, sizeof(out));
		ok(alx_b64_decode(out, sizeof(out), &outlen, rfc[i].enc,
		    strlen(rfc[i].enc)) == 0 && outlen == n &&
		    memcmp(out, rfc[i].plain, n) == 0,
		    "RFC 4648 decode \"%s\"", rfc[i].enc);
		is_int(alx_b64_decode_exact(out, n, rfc[i].enc,
		    strlen(rfc[i].enc)), 0, "decode_exact %zu bytes", n);
	}
	for (i = 0; i < sizeof(url) / sizeof(url[0]); i++) {
		alx_b64_encode(enc, url[i].in, url[i].n);
		is_str(enc, url[i].enc, "base64url encode #%zu", i);
		ok(alx_b64_decode(out, sizeof(out), &outlen, url[i].enc,
		    strlen(url[i].enc)) == 0 && outlen == url[i].n &&
		    memcmp(out, url[i].in, url[i].n) == 0,
		    "base64url decode #%zu", i);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(out, 0xaa, sizeof(out));
		is_int(alx_b64_decode(out, sizeof(out), &outlen, bad[i],
		    strlen(bad[i])), ALX_ERR_BAD_BASE64, "reject \"%s\"",
		    show(bad[i], strlen(bad[i])));
		/* No decoded byte is left: zeroed where it was written. */
		good = 1;
		for (n = 0; n < sizeof(out); n++)
			if (out[n] != 0xaa && out[n] != 0)
				good = 0;
		ok(good && outlen == 0, "nothing decoded left for \"%s\"",
		    show(bad[i], strlen(bad[i])));
	}
	is_int(alx_b64_decode(out, sizeof(out), &outlen, "Zm9v\0Zm9v", 9),
	    ALX_ERR_BAD_BASE64, "NUL inside the input");
	is_int(alx_b64_decode(out, sizeof(out), &outlen, "Zm9v\0", 5),
	    ALX_ERR_BAD_BASE64, "trailing NUL counted in the length");

	/* Output size. */
	is_int(alx_b64_decode(out, 5, &outlen, "Zm9vYmFy", 8),
	    ALX_ERR_TOO_LARGE, "output buffer too small");
	is_int(alx_b64_decode(out, 6, &outlen, "Zm9vYmFy", 8), 0,
	    "output buffer exactly large enough");
	is_int(alx_b64_decode_exact(out, 5, "Zm9vYmFy", 8), ALX_ERR_BAD_BASE64,
	    "decode_exact: too long");
	is_int(alx_b64_decode_exact(out, 7, "Zm9vYmFy", 8), ALX_ERR_BAD_BASE64,
	    "decode_exact: too short");
	is_int(alx_b64_decode_exact(out, 32, "Zm9v", 4), ALX_ERR_BAD_BASE64,
	    "decode_exact: key-sized want, short input");
	is_int(alx_b64_decode_exact(out, 1, "Zg==", 4), ALX_ERR_BAD_BASE64,
	    "decode_exact: padded");
	is_int(alx_b64_decode(NULL, 0, &outlen, "", 0), 0, "empty input");
	is_int(alx_b64_decode(out, 0, NULL, NULL, 0), 0, "NULL empty input");
	is_int(alx_b64_decode(out, 8, &outlen, NULL, 4), ALX_ERR_INVALID,
	    "NULL input with a length");
	ok(ALX_B64_ENCLEN(32) == 43 && ALX_B64_DECLEN(43) == 32,
	    "32-byte keys are 43 characters");

	good = 1;
	for (n = 0; n <= 300; n++)
		if (!roundtrip_ok(n))
			good = 0;
	ok(good, "round trip for every length 0..300");
	ok(roundtrip_ok(100000), "round trip of 100000 bytes");
	test_exhaustive();
	test_wide();
	return tap_done();
}
