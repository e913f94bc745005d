/*
 * airlox/b64.h: strict base64url (RFC 4648 section 5) without padding.
 *
 * Decoding accepts only the canonical form: alphabet A-Z a-z 0-9 - _, no
 * '=' padding, no whitespace, a length that is not 1 mod 4, and zero bits
 * in the unused low bits of the last character. Anything else is
 * ALX_ERR_BAD_BASE64. Encoding always produces that form.
 */
#ifndef AIRLOX_B64_H
#define AIRLOX_B64_H

#include <stddef.h>
#include <stdint.h>

/* Encoded length for n bytes (without the NUL). */
#define ALX_B64_ENCLEN(n)	(((n) * 4 + 2) / 3)
/* Maximum decoded length for an encoded string of length n. */
#define ALX_B64_DECLEN(n)	(((n) * 3) / 4)

/* Encode into out, which holds at least ALX_B64_ENCLEN(n) + 1 bytes. */
void	alx_b64_encode(char *out, const uint8_t *in, size_t n);
/* Encode into a new NUL-terminated string; NULL on allocation failure. */
char	*alx_b64_encode_alloc(const uint8_t *in, size_t n);
/* Decode; out holds outmax bytes; *outlen receives the decoded length. */
int	alx_b64_decode(uint8_t *out, size_t outmax, size_t *outlen,
	    const char *in, size_t inlen);
/* Decode exactly `want` bytes; any other length is ALX_ERR_BAD_BASE64. */
int	alx_b64_decode_exact(uint8_t *out, size_t want, const char *in,
	    size_t inlen);

#endif /* AIRLOX_B64_H */
