/*
 * fuzz-invite.c: libFuzzer target for alx_invite_parse() and
 * alx_invite_format().
 *
 * Input: the link text (a NUL ends it early). A failed parse must report
 * ALX_ERR_BAD_INVITE and leave the structure zeroed (seeds are secrets).
 * A successful one must format, the formatted link must be at most as long
 * as the input and equal to it but for the case of the host, and parsing
 * it again must give the same structure.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "airlox/err.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FUZZ_INVITE_MAX	2048

static int
fuzz_zero(const void *p, size_t n)
{
	const uint8_t	*b = p;
	size_t		 i;

	for (i = 0; i < n; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct alx_invite	 a, b;
	char			*link, *out = NULL, base[600];
	size_t			 n;
	int			 r;

	if (size > FUZZ_INVITE_MAX)
		return 0;
	if ((link = malloc(size + 1)) == NULL)
		return 0;
	memcpy(link, data, size);
	link[size] = '\0';

	r = alx_invite_parse(&a, link);
	if (r != 0) {
		if (r != ALX_ERR_BAD_INVITE || !fuzz_zero(&a, sizeof(a)))
			abort();
		free(link);
		return 0;
	}
	if (alx_invite_format(&a, &out) != 0 ||
	    strlen(out) != strlen(link) || strcasecmp(out, link) != 0)
		abort();
	if (alx_invite_parse(&b, out) != 0 || memcmp(&a, &b, sizeof(a)) != 0)
		abort();
	if (alx_invite_base_url(&a, base, sizeof(base)) != 0 ||
	    strncmp(base, out, strlen(base)) != 0 ||
	    strncmp(out + strlen(base), "/s/", 3) != 0)
		abort();
	/* Only the host may differ from the input, and only in case. */
	n = a.https ? 8 : 7;
	if (strncmp(out, link, n) != 0 ||
	    strcmp(out + strlen(base), link + strlen(base)) != 0)
		abort();
	alx_invite_wipe(&a);
	alx_invite_wipe(&b);
	if (!fuzz_zero(&a, sizeof(a)))
		abort();
	alx_wipe(out, strlen(out));
	free(out);
	free(link);
	return 0;
}
