/*
 * airlox/code.h: transfer codes, "N-word-word" (as in "7-guitar-orbit").
 *
 * N is the nameplate, a decimal number from 1 to 999999 without leading
 * zeros, which the relay uses to find the session; the two words come from a
 * fixed list of 1024 short English words (20 bits of secret). The whole text
 * is the CPace password (see airlox/cpace.h), so a guess costs an attacker one
 * online attempt.
 *
 * Parsing is strict: surrounding ASCII white space is trimmed and upper-case
 * ASCII letters are folded to lower case (people type codes), nothing else is
 * forgiven. Unknown words, missing or extra parts, leading zeros, a zero
 * nameplate, other characters and over-long input fail with ALX_ERR_BAD_CODE.
 * alx_code_format() of the parsed parts gives the canonical text.
 */
#ifndef AIRLOX_CODE_H
#define AIRLOX_CODE_H

#include <stdint.h>

#define ALX_CODE_MAXLEN		40	/* buffer size for a code, with NUL */
#define ALX_CODE_INPUT_MAX	256	/* longest input accepted by parse */
#define ALX_CODE_NAMEPLATE_MAX	999999
#define ALX_CODE_NWORDS		1024
#define ALX_CODE_WORD_MAXLEN	8

/* A code with this nameplate and two random words. ALX_ERR_RANGE when the
 * nameplate is out of range. */
int	alx_code_make(char out[ALX_CODE_MAXLEN], uint32_t nameplate);
/* Split a code into nameplate and word indexes (strict, see above). */
int	alx_code_parse(const char *s, uint32_t *nameplate, uint16_t words[2]);
/* Canonical text of a code; ALX_ERR_RANGE for a bad nameplate or index. */
int	alx_code_format(char out[ALX_CODE_MAXLEN], uint32_t nameplate,
	    const uint16_t words[2]);
/* Parse and re-format: the canonical text, as used for the CPace PRS. */
int	alx_code_normalize(char out[ALX_CODE_MAXLEN], const char *s);
/* Word number i of the list, NULL when i >= ALX_CODE_NWORDS. */
const char *alx_code_word(unsigned int i);
/* Index of a lower-case word in the list, or -1. */
int	alx_code_word_index(const char *word);

#endif /* AIRLOX_CODE_H */
