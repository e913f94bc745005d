/*
 * test-code.c: transfer codes: the word list, make/parse/format round trips
 * and a table of malformed codes.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "airlox/err.h"
#include "airlox/code.h"
#include "tap.h"

static void
test_wordlist(void)
{
	unsigned int	 i, bad_alpha = 0, bad_len = 0, unsorted = 0;
	unsigned int	 lookup = 0;
	const char	*w, *prev = NULL;
	size_t		 j, len;

	for (i = 0; (w = alx_code_word(i)) != NULL; i++) {
		len = strlen(w);
		if (len < 3 || len > ALX_CODE_WORD_MAXLEN)
			bad_len++;
		for (j = 0; j < len; j++)
			if (w[j] < 'a' || w[j] > 'z')
				bad_alpha++;
		/* Strictly increasing: sorted and distinct. */
		if (prev != NULL && strcmp(prev, w) >= 0)
			unsorted++;
		if (alx_code_word_index(w) != (int)i)
			lookup++;
		prev = w;
	}
	is_int(i, 1024, "the list has 1024 words");
	is_int(bad_len, 0, "every word has 3 to 8 letters");
	is_int(bad_alpha, 0, "every word is lowercase ASCII a-z");
	is_int(unsorted, 0, "the words are sorted and distinct");
	is_int(lookup, 0, "every word is found at its index");
	ok(alx_code_word(1024) == NULL, "no word 1024");
	is_int(alx_code_word_index("zzzzz"), -1, "unknown word not found");
	is_int(alx_code_word_index(""), -1, "empty word not found");
}

static void
test_roundtrip(void)
{
	char		code[ALX_CODE_MAXLEN], again[ALX_CODE_MAXLEN];
	uint32_t	np, got_np;
	uint16_t	w[2];
	int		i, bad = 0, seen_last = 0;
	int		differ = 0;
	char		prev[ALX_CODE_MAXLEN] = "";

	for (i = 0; i < 5000; i++) {
		np = 1 + randombytes_uniform(ALX_CODE_NAMEPLATE_MAX);
		if (alx_code_make(code, np) != ALX_OK ||
		    alx_code_parse(code, &got_np, w) != ALX_OK ||
		    got_np != np ||
		    alx_code_format(again, got_np, w) != ALX_OK ||
		    strcmp(code, again) != 0 || strlen(code) > 24) {
			if (bad++ == 0)
				tap_diag("round trip failed: %u %s", np, code);
			continue;
		}
		if (strcmp(code, prev) != 0)
			differ++;
		memcpy(prev, code, sizeof(prev));
		seen_last |= w[0] >= 1000 || w[1] >= 1000;
	}
	is_int(bad, 0, "5000 random codes make/parse/format round trip");
	ok(differ >= 4990, "random codes differ (%d of 5000)", differ);
	ok(seen_last, "words from the end of the list appear");

	/* Every word, in both positions, round-trips through the text. */
	bad = 0;
	for (i = 0; i < ALX_CODE_NWORDS; i++) {
		w[0] = (uint16_t)i;
		w[1] = (uint16_t)(ALX_CODE_NWORDS - 1 - i);
		if (alx_code_format(code, 999999, w) != ALX_OK ||
		    alx_code_parse(code, &np, w) != ALX_OK || np != 999999 ||
		    w[0] != i || w[1] != ALX_CODE_NWORDS - 1 - i)
			bad++;
	}
	is_int(bad, 0, "every word round-trips in both positions");

	w[0] = 0;
	w[1] = 1;
	is_int(alx_code_format(code, 7, w), ALX_OK, "format 7");
	ok(strcmp(code, "7-acid-acorn") == 0, "format gives N-word-word");
	is_int(alx_code_format(code, 0, w), ALX_ERR_RANGE, "nameplate 0");
	is_int(alx_code_format(code, 1000000, w), ALX_ERR_RANGE,
	    "nameplate 1000000");
	w[1] = 1024;
	is_int(alx_code_format(code, 7, w), ALX_ERR_RANGE, "word index 1024");
	is_int(alx_code_make(code, 0), ALX_ERR_RANGE, "make: nameplate 0");
	is_int(alx_code_make(code, 1000000), ALX_ERR_RANGE,
	    "make: nameplate too big");
	is_int(alx_code_make(code, 1), ALX_OK, "make: nameplate 1");
	ok(code[0] == '1' && code[1] == '-', "make: starts with 1-");
}

static void
test_lenient(void)
{
	static const struct {
		const char	*in, *want;
	} t[] = {
		{ "7-guitar-orbit", "7-guitar-orbit" },
		{ "  7-guitar-orbit\n", "7-guitar-orbit" },
		{ "\t7-Guitar-ORBIT \r\n", "7-guitar-orbit" },
		{ "999999-zoom-acid", "999999-zoom-acid" },
		{ "1-acid-acid", "1-acid-acid" },
		{ "120-SUNSET-ZEBRA", "120-sunset-zebra" },
	};
	char		out[ALX_CODE_MAXLEN];
	uint32_t	np;
	uint16_t	w[2];
	size_t		i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		is_int(alx_code_normalize(out, t[i].in), ALX_OK,
		    "accepted: lenient input %zu", i);
		if (!ok(strcmp(out, t[i].want) == 0, "normalised to %s",
		    t[i].want))
			tap_diag("got \"%s\"", out);
	}
	is_int(alx_code_parse("7-guitar-orbit", &np, w), ALX_OK, "parse");
	ok(np == 7 && strcmp(alx_code_word(w[0]), "guitar") == 0 &&
	    strcmp(alx_code_word(w[1]), "orbit") == 0, "parts of the code");
}

static void
test_malformed(void)
{
	static const char *bad[] = {
		"",			/* empty */
		"   ",			/* blank */
		"7",			/* nameplate only */
		"7-guitar",		/* one word */
		"7-guitar-",		/* empty second word */
		"-guitar-orbit",	/* no nameplate */
		"7--orbit",		/* empty first word */
		"7-guitar-orbit-zoom",	/* extra word */
		"7-guitar-orbit-",	/* trailing dash */
		"07-guitar-orbit",	/* leading zero */
		"0-guitar-orbit",	/* zero nameplate */
		"1000000-guitar-orbit",	/* nameplate too big */
		"12345678901-guitar-orbit", /* overflow */
		"+7-guitar-orbit",	/* sign */
		"7a-guitar-orbit",	/* letter in nameplate */
		"seven-guitar-orbit",	/* words for the number */
		"7-guitar-orbitt",	/* unknown word */
		"7-gutar-orbit",	/* typo */
		"7-guitar orbit",	/* space inside */
		"7 guitar orbit",	/* spaces, no dashes */
		"7_guitar_orbit",	/* other separator */
		"7-guitar--orbit",	/* double dash */
		"7.guitar.orbit",	/* dots */
		"7-gui\xc3\xa9r-orbit",	/* non-ASCII */
		"7-guitar-orbit\x01",	/* control character */
		"7-gu1tar-orbit",	/* digit in a word */
		"7-ab-orbit",		/* too short for a word */
		"7-abcdefghi-orbit",	/* too long for a word */
		"guitar-orbit-7",	/* parts in the wrong order */
		"7-guitar-orbit 8",	/* trailing junk */
		"\xef\xbc\x97-guitar-orbit", /* full-width digit */
	};
	char		long_in[ALX_CODE_INPUT_MAX + 40];
	uint32_t	np = 42;
	uint16_t	w[2] = { 5, 6 };
	size_t		i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(alx_code_parse(bad[i], &np, w), ALX_ERR_BAD_CODE,
		    "malformed code %zu rejected", i);
	ok(i >= 20, "%zu malformed codes in the table", i);
	ok(np == 42 && w[0] == 5 && w[1] == 6,
	    "outputs untouched on failure");
	is_int(alx_code_parse(NULL, &np, w), ALX_ERR_BAD_CODE, "NULL");

	/* Long input: white space padding beyond the bound is refused. */
	memset(long_in, ' ', sizeof(long_in));
	memcpy(long_in + 200, "7-guitar-orbit", 14);
	long_in[ALX_CODE_INPUT_MAX] = '\0';
	is_int(alx_code_parse(long_in, &np, w), ALX_OK,
	    "%d bytes with padding accepted", ALX_CODE_INPUT_MAX);
	long_in[ALX_CODE_INPUT_MAX] = ' ';
	long_in[ALX_CODE_INPUT_MAX + 1] = '\0';
	is_int(alx_code_parse(long_in, &np, w), ALX_ERR_BAD_CODE,
	    "%d bytes refused", ALX_CODE_INPUT_MAX + 1);
}

int
main(void)
{
	if (sodium_init() < 0)
		tap_skip_all("libsodium does not initialise");
	test_wordlist();
	test_roundtrip();
	test_lenient();
	test_malformed();
	return tap_done();
}
