/*
 * fuzz-code.c: libFuzzer target for the transfer code parser.
 *
 * Input: any bytes, made a C string. A parse either fails with
 * ALX_ERR_BAD_CODE, or its parts format to a canonical code that parses to
 * the same parts and that equals the input up to trimmed white space and
 * case.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "airlox/err.h"
#include "airlox/code.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		*s, out[ALX_CODE_MAXLEN];
	uint32_t	 np, np2;
	uint16_t	 w[2], w2[2];
	size_t		 i, n;
	int		 r;

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	r = alx_code_parse(s, &np, w);
	if (r != ALX_OK) {
		if (r != ALX_ERR_BAD_CODE)
			abort();
		free(s);
		return 0;
	}
	if (alx_code_format(out, np, w) != ALX_OK ||
	    alx_code_parse(out, &np2, w2) != ALX_OK || np != np2 ||
	    w[0] != w2[0] || w[1] != w2[1])
		abort();
	/* The canonical text appears in the input, case folded. */
	n = strlen(out);
	for (i = 0; i + n <= size; i++)
		if (strncasecmp(s + i, out, n) == 0)
			break;
	if (i + n > size)
		abort();
	free(s);
	return 0;
}
