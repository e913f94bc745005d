/*
 * alx_code.c: transfer codes "N-word-word". See airlox/code.h.
 */
#include <stdio.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/crypto.h"
#include "airlox/code.h"
#include "alx_words.h"

#if ALX_WORDS_COUNT != ALX_CODE_NWORDS
#error "alx_words.h and ALX_CODE_NWORDS disagree"
#endif
#if (ALX_CODE_NWORDS & (ALX_CODE_NWORDS - 1)) != 0
#error "alx_code_make() needs a power of two words"
#endif

/* Longest canonical code: "999999-" and two 8-letter words. */
#define CODE_CANON_MAX	(6 + 1 + ALX_CODE_WORD_MAXLEN + 1 + ALX_CODE_WORD_MAXLEN)

const char *
alx_code_word(unsigned int i)
{
	if (i >= ALX_CODE_NWORDS)
		return NULL;
	return alx_words[i];
}

int
alx_code_word_index(const char *word)
{
	int	lo = 0, hi = ALX_CODE_NWORDS - 1, mid, c;

	if (word == NULL)
		return -1;
	while (lo <= hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(word, alx_words[mid]);
		if (c == 0)
			return mid;
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return -1;
}

int
alx_code_format(char out[ALX_CODE_MAXLEN], uint32_t nameplate,
    const uint16_t words[2])
{
	int	n;

	out[0] = '\0';
	if (nameplate < 1 || nameplate > ALX_CODE_NAMEPLATE_MAX ||
	    words[0] >= ALX_CODE_NWORDS || words[1] >= ALX_CODE_NWORDS)
		return ALX_ERR_RANGE;
	n = snprintf(out, ALX_CODE_MAXLEN, "%u-%s-%s", (unsigned)nameplate,
	    alx_words[words[0]], alx_words[words[1]]);
	if (n < 0 || n >= ALX_CODE_MAXLEN) {
		out[0] = '\0';
		return ALX_ERR_TOO_LARGE;
	}
	return ALX_OK;
}

int
alx_code_make(char out[ALX_CODE_MAXLEN], uint32_t nameplate)
{
	uint8_t		rnd[4];
	uint16_t	words[2];
	int		r;

	out[0] = '\0';
	if (nameplate < 1 || nameplate > ALX_CODE_NAMEPLATE_MAX)
		return ALX_ERR_RANGE;
	/* 1024 words: 10 uniform bits each, no modulo bias. */
	if ((r = alx_crypto_init()) != ALX_OK ||
	    (r = alx_random(rnd, sizeof(rnd))) != ALX_OK)
		return r;
	words[0] = (uint16_t)((rnd[0] | rnd[1] << 8) & (ALX_CODE_NWORDS - 1));
	words[1] = (uint16_t)((rnd[2] | rnd[3] << 8) & (ALX_CODE_NWORDS - 1));
	alx_wipe(rnd, sizeof(rnd));
	r = alx_code_format(out, nameplate, words);
	alx_wipe(words, sizeof(words));
	return r;
}

static int
code_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	    c == '\v' || c == '\f';
}

/* The nameplate: 1 to 6 digits, no leading zero, not 0. */
static int
code_nameplate(const char *s, size_t len, uint32_t *out)
{
	uint32_t	n = 0;
	size_t		i;

	if (len < 1 || len > 6 || s[0] == '0')
		return ALX_ERR_BAD_CODE;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return ALX_ERR_BAD_CODE;
		n = n * 10 + (uint32_t)(s[i] - '0');
	}
	*out = n;
	return ALX_OK;
}

/* A word: 3 to 8 letters a-z, in the list. */
static int
code_word(const char *s, size_t len, uint16_t *out)
{
	char	w[ALX_CODE_WORD_MAXLEN + 1];
	size_t	i;
	int	idx;

	if (len < 3 || len > ALX_CODE_WORD_MAXLEN)
		return ALX_ERR_BAD_CODE;
	for (i = 0; i < len; i++) {
		if (s[i] < 'a' || s[i] > 'z')
			return ALX_ERR_BAD_CODE;
		w[i] = s[i];
	}
	w[len] = '\0';
	idx = alx_code_word_index(w);
	alx_wipe(w, sizeof(w));
	if (idx < 0)
		return ALX_ERR_BAD_CODE;
	*out = (uint16_t)idx;
	return ALX_OK;
}

int
alx_code_parse(const char *s, uint32_t *nameplate, uint16_t words[2])
{
	char		 buf[CODE_CANON_MAX + 1];
	const char	*p, *dash1, *dash2;
	size_t		 len, i;
	uint32_t	 np;
	uint16_t	 w[2];
	int		 r;

	if (s == NULL)
		return ALX_ERR_BAD_CODE;
	len = strnlen(s, ALX_CODE_INPUT_MAX + 1);
	if (len > ALX_CODE_INPUT_MAX)
		return ALX_ERR_BAD_CODE;
	while (len > 0 && code_space(*s)) {
		s++;
		len--;
	}
	while (len > 0 && code_space(s[len - 1]))
		len--;
	if (len == 0 || len > CODE_CANON_MAX)
		return ALX_ERR_BAD_CODE;
	for (i = 0; i < len; i++)
		buf[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a') :
		    s[i];
	buf[len] = '\0';
	p = buf;
	if ((dash1 = memchr(p, '-', len)) == NULL ||
	    (dash2 = memchr(dash1 + 1, '-', len - (size_t)(dash1 + 1 - p))) ==
	    NULL) {
		r = ALX_ERR_BAD_CODE;
		goto out;
	}
	/* A third dash falls into the second word and fails there. */
	if ((r = code_nameplate(p, (size_t)(dash1 - p), &np)) != ALX_OK ||
	    (r = code_word(dash1 + 1, (size_t)(dash2 - dash1 - 1),
	    &w[0])) != ALX_OK ||
	    (r = code_word(dash2 + 1, len - (size_t)(dash2 + 1 - p),
	    &w[1])) != ALX_OK)
		goto out;
	*nameplate = np;
	words[0] = w[0];
	words[1] = w[1];
out:
	/* The code is a password: leave no copy behind. */
	alx_wipe(buf, sizeof(buf));
	alx_wipe(w, sizeof(w));
	return r;
}

int
alx_code_normalize(char out[ALX_CODE_MAXLEN], const char *s)
{
	uint32_t	np;
	uint16_t	w[2];
	int		r;

	out[0] = '\0';
	if ((r = alx_code_parse(s, &np, w)) != ALX_OK)
		return r;
	return alx_code_format(out, np, w);
}
