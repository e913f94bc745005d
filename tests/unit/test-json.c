/*
 * test-json.c: the strict JSON reader (valid and invalid tables, limits,
 * accessors, getters) and the writer (escaping, misuse, caps, round trips).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "airlox/err.h"
#include "airlox/buf.h"
#include "airlox/json.h"
#include "tap.h"

/* A literal with its exact length, so that NUL bytes count. */
#define L(s)	s, sizeof(s) - 1

struct jcase {
	const char	*s;
	size_t		 len;
	int		 want;	/* error, or root type if valid */
};

static const struct jcase valid[] = {
	{ L("{}"), ALX_JSON_OBJECT },
	{ L("[]"), ALX_JSON_ARRAY },
	{ L("0"), ALX_JSON_NUMBER },
	{ L("-0"), ALX_JSON_NUMBER },
	{ L("7"), ALX_JSON_NUMBER },
	{ L("1.5"), ALX_JSON_NUMBER },
	{ L("-1.5e10"), ALX_JSON_NUMBER },
	{ L("1E+2"), ALX_JSON_NUMBER },
	{ L("1e-2"), ALX_JSON_NUMBER },
	{ L("0.0e0"), ALX_JSON_NUMBER },
	{ L("1e400"), ALX_JSON_NUMBER },
	{ L("123456789012345678901234567890"), ALX_JSON_NUMBER },
	{ L("true"), ALX_JSON_BOOL },
	{ L("false"), ALX_JSON_BOOL },
	{ L("null"), ALX_JSON_NULL },
	{ L("\"\""), ALX_JSON_STRING },
	{ L("\"a\""), ALX_JSON_STRING },
	{ L(" {} "), ALX_JSON_OBJECT },
	{ L("\t\n\r[ ]\n"), ALX_JSON_ARRAY },
	{ L(" 1 "), ALX_JSON_NUMBER },
	{ L("{\"a\":1}"), ALX_JSON_OBJECT },
	{ L("{ \"a\" : 1 , \"b\" : [ 1 , 2 ] }"), ALX_JSON_OBJECT },
	{ L("{\"a\":{\"b\":[1,2,{\"c\":null}]}}"), ALX_JSON_OBJECT },
	{ L("[1,\"x\",true,false,null,{},[]]"), ALX_JSON_ARRAY },
	{ L("\"\\u00e9\""), ALX_JSON_STRING },
	{ L("\"\\uD83D\\uDE00\""), ALX_JSON_STRING },
	{ L("\"\xc3\xa9\""), ALX_JSON_STRING },
	{ L("\"\xf0\x9f\x98\x80\""), ALX_JSON_STRING },
	{ L("\"\xf4\x8f\xbf\xbf\""), ALX_JSON_STRING },
	{ L("\"\xef\xbf\xbf\""), ALX_JSON_STRING },
	{ L("\"\xed\x9f\xbf\""), ALX_JSON_STRING },
	{ L("\"\xee\x80\x80\""), ALX_JSON_STRING },
	{ L("\"\x7f\""), ALX_JSON_STRING },
	{ L("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\""), ALX_JSON_STRING },
	{ L("\"\\u0000\""), ALX_JSON_STRING },
	{ L("{\"a\":1,\"A\":2}"), ALX_JSON_OBJECT },
	{ L("{\"\":1}"), ALX_JSON_OBJECT },
	{ L("{\"a\":1,\"a \":2,\"ab\":3}"), ALX_JSON_OBJECT },
	{ L("{\"a\":[1,2],\"b\":{\"a\":1}}"), ALX_JSON_OBJECT },
	{ L("[{\"a\":1},{\"a\":1}]"), ALX_JSON_ARRAY },
	{ L("[[[[]]]]"), ALX_JSON_ARRAY },
	{ L("[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]"), ALX_JSON_ARRAY },
	{ L("[\"\\u12aB\"]"), ALX_JSON_ARRAY },
};

static const struct jcase invalid[] = {
	/* Empty, truncated, unbalanced. */
	{ L(""), ALX_ERR_BAD_JSON },
	{ L(" \n"), ALX_ERR_BAD_JSON },
	{ L("{"), ALX_ERR_BAD_JSON },
	{ L("}"), ALX_ERR_BAD_JSON },
	{ L("["), ALX_ERR_BAD_JSON },
	{ L("]"), ALX_ERR_BAD_JSON },
	{ L("[1,2"), ALX_ERR_BAD_JSON },
	{ L("{\"a\":[1,{\"b\":"), ALX_ERR_BAD_JSON },
	{ L("{\"a\""), ALX_ERR_BAD_JSON },
	{ L("\"abc"), ALX_ERR_BAD_JSON },
	{ L("\"\\"), ALX_ERR_BAD_JSON },
	{ L("[1}"), ALX_ERR_BAD_JSON },
	{ L("{\"a\":1]"), ALX_ERR_BAD_JSON },
	{ L("[1]]"), ALX_ERR_BAD_JSON },
	{ L("{\"a\":1}}"), ALX_ERR_BAD_JSON },
	/* Commas and colons. */
	{ L("{,}"), ALX_ERR_BAD_JSON },
	{ L("[,]"), ALX_ERR_BAD_JSON },
	{ L("[1,]"), ALX_ERR_BAD_JSON },
	{ L("[\"a\",]"), ALX_ERR_BAD_JSON },
	{ L("{\"a\":1,}"), ALX_ERR_BAD_JSON },
	{ L("[1,,2]"), ALX_ERR_BAD_JSON },
	{ L("[,1]"), ALX_ERR_BAD_JSON },
	{ L("{\"a\":1,,\"b\":2}"), ALX_ERR_BAD_JSON },
	{ L("{\"a\" 1}"), ALX_ERR_BAD_JSON },
	{ L("{\"a\"::1}"), ALX_ERR_BAD_JSON },
	{ L("{\"a\":}"), ALX_ERR_BAD_JSON },
	{ L("{:1}"), ALX_ERR_BAD_JSON },
	{ L("{\"a\",\"b\"}"), ALX_ERR_BAD_JSON },
	{ L("{\"a\"}"), ALX_ERR_BAD_JSON },
	{ L("[1:2]"), ALX_ERR_BAD_JSON },
	{ L("[1 2]"), ALX_ERR_BAD_JSON },
	{ L("[true false]"), ALX_ERR_BAD_JSON },
	{ L("{\"a\":1 \"b\":2}"), ALX_ERR_BAD_JSON },
	{ L(","), ALX_ERR_BAD_JSON },
	{ L(":"), ALX_ERR_BAD_JSON },
	{ L("\"a\":1"), ALX_ERR_BAD_JSON },
	/* Keys that are not strings, quotes that are not double. */
	{ L("{1:1}"), ALX_ERR_BAD_JSON },
	{ L("{a:1}"), ALX_ERR_BAD_JSON },
	{ L("{true:1}"), ALX_ERR_BAD_JSON },
	{ L("{null:1}"), ALX_ERR_BAD_JSON },
	{ L("{{}:1}"), ALX_ERR_BAD_JSON },
	{ L("{[]:1}"), ALX_ERR_BAD_JSON },
	{ L("{'a':1}"), ALX_ERR_BAD_JSON },
	{ L("['a']"), ALX_ERR_BAD_JSON },
	/* Garbage after the value, several values, comments, BOM. */
	{ L("[1]x"), ALX_ERR_BAD_JSON },
	{ L("{} {}"), ALX_ERR_BAD_JSON },
	{ L("{}{}"), ALX_ERR_BAD_JSON },
	{ L("1 2"), ALX_ERR_BAD_JSON },
	{ L("\"a\"\"b\""), ALX_ERR_BAD_JSON },
	{ L("{\"a\":1}\n\n]"), ALX_ERR_BAD_JSON },
	{ L("// c\n{}"), ALX_ERR_BAD_JSON },
	{ L("/* c */ {}"), ALX_ERR_BAD_JSON },
	{ L("{}/**/"), ALX_ERR_BAD_JSON },
	{ L("{} // c"), ALX_ERR_BAD_JSON },
	{ L("#{}"), ALX_ERR_BAD_JSON },
	{ L("\xef\xbb\xbf{}"), ALX_ERR_BAD_JSON },
	{ L("\f{}"), ALX_ERR_BAD_JSON },
	{ L("{}\v"), ALX_ERR_BAD_JSON },
	{ L("[\xc3\xa9]"), ALX_ERR_BAD_JSON },
	{ L("\x80"), ALX_ERR_BAD_JSON },
	/* Numbers. */
	{ L("01"), ALX_ERR_BAD_JSON },
	{ L("-01"), ALX_ERR_BAD_JSON },
	{ L("00"), ALX_ERR_BAD_JSON },
	{ L("[007]"), ALX_ERR_BAD_JSON },
	{ L("+1"), ALX_ERR_BAD_JSON },
	{ L(".5"), ALX_ERR_BAD_JSON },
	{ L("1."), ALX_ERR_BAD_JSON },
	{ L("1.e5"), ALX_ERR_BAD_JSON },
	{ L("1e"), ALX_ERR_BAD_JSON },
	{ L("1e+"), ALX_ERR_BAD_JSON },
	{ L("1E-"), ALX_ERR_BAD_JSON },
	{ L("-"), ALX_ERR_BAD_JSON },
	{ L("[-]"), ALX_ERR_BAD_JSON },
	{ L("--1"), ALX_ERR_BAD_JSON },
	{ L("[- 1]"), ALX_ERR_BAD_JSON },
	{ L("0x10"), ALX_ERR_BAD_JSON },
	{ L("[0x1F]"), ALX_ERR_BAD_JSON },
	{ L("[1.2.3]"), ALX_ERR_BAD_JSON },
	{ L("[1e5e5]"), ALX_ERR_BAD_JSON },
	{ L("NaN"), ALX_ERR_BAD_JSON },
	{ L("[Infinity]"), ALX_ERR_BAD_JSON },
	{ L("-Infinity"), ALX_ERR_BAD_JSON },
	{ L("[1,2,3]x"), ALX_ERR_BAD_JSON },
	{ L("1_000"), ALX_ERR_BAD_JSON },
	{ L("[12345678901234567890123456789012345678901234567890"
	    "123456789012345]"), ALX_ERR_RANGE },
	{ L("1.0000000000000000000000000000000000000000000000000"
	    "0000000000000000"), ALX_ERR_RANGE },
	/* Literals. */
	{ L("tru"), ALX_ERR_BAD_JSON },
	{ L("truee"), ALX_ERR_BAD_JSON },
	{ L("True"), ALX_ERR_BAD_JSON },
	{ L("nul"), ALX_ERR_BAD_JSON },
	{ L("NULL"), ALX_ERR_BAD_JSON },
	{ L("[falsey]"), ALX_ERR_BAD_JSON },
	{ L("[undefined]"), ALX_ERR_BAD_JSON },
	/* Escapes and control characters. */
	{ L("\"\\x41\""), ALX_ERR_BAD_JSON },
	{ L("\"\\'\""), ALX_ERR_BAD_JSON },
	{ L("\"\\a\""), ALX_ERR_BAD_JSON },
	{ L("\"\\U0041\""), ALX_ERR_BAD_JSON },
	{ L("\"\\u12\""), ALX_ERR_BAD_JSON },
	{ L("\"\\u12G4\""), ALX_ERR_BAD_JSON },
	{ L("[\"\\u00\"]"), ALX_ERR_BAD_JSON },
	{ L("\"\\ \""), ALX_ERR_BAD_JSON },
	{ L("\"a\tb\""), ALX_ERR_BAD_JSON },
	{ L("\"a\nb\""), ALX_ERR_BAD_JSON },
	{ L("\"\x01\""), ALX_ERR_BAD_JSON },
	{ L("\"\x1f\""), ALX_ERR_BAD_JSON },
	{ L("{\"a\rb\":1}"), ALX_ERR_BAD_JSON },
	/* NUL bytes anywhere. */
	{ L("\0"), ALX_ERR_BAD_JSON },
	{ L("[1]\0"), ALX_ERR_BAD_JSON },
	{ L("\0[1]"), ALX_ERR_BAD_JSON },
	{ L("{\"a\0\":1}"), ALX_ERR_BAD_JSON },
	{ L("[\"a\"\0]"), ALX_ERR_BAD_JSON },
	{ L("[1,\0 2]"), ALX_ERR_BAD_JSON },
	/* Invalid UTF-8 and lone surrogates. */
	{ L("\"\xc0\xaf\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xc1\xbf\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xe0\x80\xaf\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xe0\x9f\xbf\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xf0\x80\x80\xaf\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xf0\x8f\xbf\xbf\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xed\xa0\x80\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xed\xbf\xbf\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xf4\x90\x80\x80\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xf5\x80\x80\x80\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xf8\x88\x80\x80\x80\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xff\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xfe\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\x80\""), ALX_ERR_BAD_UTF8 },
	{ L("\"a\xbf\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xc3\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xc3x\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xe2\x82\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\xf0\x9f\x98\""), ALX_ERR_BAD_UTF8 },
	{ L("{\"\xc3\x28\":1}"), ALX_ERR_BAD_UTF8 },
	{ L("\"\\ud800\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\\uDBFF\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\\udc00\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\\uDFFF\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\\ud800\\u0041\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\\ud800x\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\\ud800\\n\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\\udc00\\ud800\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\\ud800\\ud800\""), ALX_ERR_BAD_UTF8 },
	{ L("\"\\ud83d\""), ALX_ERR_BAD_UTF8 },
	{ L("{\"\\ud800\":1}"), ALX_ERR_BAD_UTF8 },
	{ L("[\"\\ude00\\ud83d\"]"), ALX_ERR_BAD_UTF8 },
	/* Duplicate keys, also when they differ only by escaping. */
	{ L("{\"a\":1,\"a\":2}"), ALX_ERR_DUP_KEY },
	{ L("{\"a\":1,\"a\":1}"), ALX_ERR_DUP_KEY },
	{ L("{\"a\":1,\"b\":2,\"a\":3}"), ALX_ERR_DUP_KEY },
	{ L("{\"a\":1,\"\\u0061\":2}"), ALX_ERR_DUP_KEY },
	{ L("{\"\\u0061\":1,\"\\u0061\":2}"), ALX_ERR_DUP_KEY },
	{ L("{\"\\/\":1,\"/\":2}"), ALX_ERR_DUP_KEY },
	{ L("{\"\xc3\xa9\":1,\"\\u00e9\":2}"), ALX_ERR_DUP_KEY },
	{ L("{\"\xc3\xa9\":1,\"\\u00E9\":2}"), ALX_ERR_DUP_KEY },
	{ L("{\"\xf0\x9f\x98\x80\":1,\"\\ud83d\\ude00\":2}"), ALX_ERR_DUP_KEY },
	{ L("{\"x\":{\"a\":1,\"a\":1}}"), ALX_ERR_DUP_KEY },
	{ L("[{\"a\":1},{\"b\":1,\"b\":2}]"), ALX_ERR_DUP_KEY },
	{ L("{\"\":1,\"\":2}"), ALX_ERR_DUP_KEY },
	{ L("{\"a\\u0000\":1,\"a\\u0000\":2}"), ALX_ERR_DUP_KEY },
	{ L("{\"\\n\":1,\"\\u000a\":2}"), ALX_ERR_DUP_KEY },
	{ L("{\"a\":{},\"b\":[],\"a\":null}"), ALX_ERR_DUP_KEY },
	/* Depth. */
	{ L("[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]"), ALX_ERR_TOO_DEEP },
	{ L("{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":"
	    "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{}}}}}}}"
	    "}}}}}}}}}}}"), ALX_ERR_TOO_DEEP },
	{ L("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["),
	    ALX_ERR_TOO_DEEP },
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
parse(const char *s, size_t len, struct alx_json **jp)
{
	return alx_json_parse(jp, s, len, NULL);
}

static void
test_tables(void)
{
	struct alx_json	*j;
	size_t		 i;
	int		 r;

	for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		j = NULL;
		r = parse(valid[i].s, valid[i].len, &j);
		ok(r == 0 && alx_json_type(j, 0) == valid[i].want,
		    "valid #%zu: %s (r=%d)", i, show(valid[i].s, valid[i].len),
		    r);
		alx_json_free(j);
	}
	for (i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		j = (struct alx_json *)&r;	/* must be reset to NULL */
		r = parse(invalid[i].s, invalid[i].len, &j);
		if (!ok(r == invalid[i].want && j == NULL,
		    "invalid #%zu: %s", i, show(invalid[i].s, invalid[i].len)))
			tap_diag("got %d (%s), want %d", r, alx_errname(r),
			    invalid[i].want);
	}
	ok(sizeof(invalid) / sizeof(invalid[0]) >= 60, "at least 60 invalid");
}

/* A string of n nested arrays. */
static char *
nested(size_t n, size_t *lenp)
{
	char	*s = malloc(2 * n + 1);

	memset(s, '[', n);
	memset(s + n, ']', n);
	s[2 * n] = '\0';
	*lenp = 2 * n;
	return s;
}

static void
test_limits(void)
{
	struct alx_json_limits	 l;
	struct alx_json		*j = NULL;
	struct alx_buf		 b;
	char			*s;
	size_t			 len, i;

	memset(&l, 0, sizeof(l));
	l.max_bytes = 7;
	is_int(alx_json_parse(&j, L("[1,2,3]"), &l), 0, "exactly max_bytes");
	alx_json_free(j);
	l.max_bytes = 6;
	is_int(alx_json_parse(&j, L("[1,2,3]"), &l), ALX_ERR_TOO_LARGE,
	    "one byte over max_bytes");
	memset(&l, 0, sizeof(l));
	l.max_tokens = 4;
	is_int(alx_json_parse(&j, L("[1,2,3]"), &l), 0, "exactly max_tokens");
	alx_json_free(j);
	l.max_tokens = 3;
	is_int(alx_json_parse(&j, L("[1,2,3]"), &l), ALX_ERR_TOO_LARGE,
	    "one token over max_tokens");
	is_int(alx_json_parse(&j, L("{\"a\":1}"), &l), 0,
	    "keys count as tokens (3)");
	alx_json_free(j);
	is_int(alx_json_parse(&j, L("{\"a\":1,\"b\":2}"), &l),
	    ALX_ERR_TOO_LARGE, "keys count as tokens (5)");
	memset(&l, 0, sizeof(l));
	l.max_depth = 2;
	is_int(alx_json_parse(&j, L("[[1]]"), &l), 0, "exactly max_depth");
	alx_json_free(j);
	is_int(alx_json_parse(&j, L("[[[1]]]"), &l), ALX_ERR_TOO_DEEP,
	    "max_depth + 1");
	is_int(alx_json_parse(&j, L("{\"a\":[{}]}"), &l), ALX_ERR_TOO_DEEP,
	    "objects and arrays both count");

	/*
	 * Deep input with a generous depth: no recursion in the parser (jsmn
	 * costs O(depth) per closing bracket, hence the limit matters).
	 */
	s = nested(5000, &len);
	l.max_depth = 5000;
	l.max_bytes = len;
	l.max_tokens = 5000;
	is_int(alx_json_parse(&j, s, len, &l), 0, "5000 levels when allowed");
	is_int(alx_json_arr_len(j, 4999), 0, "innermost array is empty");
	is_int(alx_json_arr_len(j, 4998), 1, "next one holds it");
	alx_json_free(j);
	is_int(alx_json_parse(&j, s, len, NULL), ALX_ERR_TOO_DEEP,
	    "5000 levels with the default limits");
	s[len - 1] = ' ';
	is_int(alx_json_parse(&j, s, len, &l), ALX_ERR_BAD_JSON,
	    "5000 levels, one missing bracket");
	free(s);

	/* Default token limit: 16384. */
	alx_buf_init(&b, 0);
	alx_buf_addc(&b, '[');
	for (i = 0; i < 16383; i++)
		alx_buf_addstr(&b, i ? ",0" : "0");
	alx_buf_addc(&b, ']');
	is_int(alx_json_parse(&j, (char *)b.data, b.len, NULL), 0,
	    "16384 tokens with the defaults");
	is_int(alx_json_arr_len(j, 0), 16383, "16383 elements");
	alx_json_free(j);
	b.len--;
	alx_buf_addstr(&b, ",0]");
	is_int(alx_json_parse(&j, (char *)b.data, b.len, NULL),
	    ALX_ERR_TOO_LARGE, "16385 tokens with the defaults");
	alx_buf_free(&b);

	s = malloc(ALX_JSON_DEFAULT_MAX_BYTES + 3);
	s[0] = '"';
	memset(s + 1, 'a', ALX_JSON_DEFAULT_MAX_BYTES - 2);
	s[ALX_JSON_DEFAULT_MAX_BYTES - 1] = '"';
	is_int(alx_json_parse(&j, s, ALX_JSON_DEFAULT_MAX_BYTES, NULL), 0,
	    "a 1 MiB string with the defaults");
	alx_json_free(j);
	s[ALX_JSON_DEFAULT_MAX_BYTES - 1] = 'a';
	s[ALX_JSON_DEFAULT_MAX_BYTES] = '"';
	is_int(alx_json_parse(&j, s, ALX_JSON_DEFAULT_MAX_BYTES + 1, NULL),
	    ALX_ERR_TOO_LARGE, "1 MiB + 1 with the defaults");
	free(s);

	s = nested(16, &len);
	is_int(alx_json_parse(&j, s, len, NULL), 0, "default depth 16");
	alx_json_free(j);
	free(s);
	s = nested(17, &len);
	is_int(alx_json_parse(&j, s, len, NULL), ALX_ERR_TOO_DEEP,
	    "default depth 16 + 1");
	free(s);
	memset(&l, 0, sizeof(l));
	l.max_tokens = UINT32_MAX;
	l.max_depth = UINT32_MAX;
	l.max_bytes = SIZE_MAX;
	is_int(alx_json_parse(&j, L("[[1,{\"a\":2}]]"), &l), 0,
	    "huge limits are clamped, not refused");
	alx_json_free(j);
	is_int(alx_json_parse(NULL, L("{}"), NULL), ALX_ERR_INVALID,
	    "NULL out");
	is_int(alx_json_parse(&j, NULL, 0, NULL), ALX_ERR_INVALID,
	    "NULL text");
}

/* Objects with many keys: parse time must not be quadratic. */
static void
test_many_keys(void)
{
	struct alx_json	*j = NULL;
	struct alx_buf	 b;
	clock_t		 t0;
	double		 secs;
	int		 i, v;
	int64_t		 x;
	char		 key[32];

	alx_buf_init(&b, 0);
	alx_buf_addc(&b, '{');
	for (i = 0; i < 8190; i++)
		alx_buf_printf(&b, "%s\"k%d\":%d", i ? "," : "", i, i);
	alx_buf_addc(&b, '}');
	t0 = clock();
	is_int(alx_json_parse(&j, (char *)b.data, b.len, NULL), 0,
	    "an object of 8190 members");
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	ok(secs < 2.0, "parsed in %.3f s", secs);
	is_int(alx_json_obj_len(j, 0), 8190, "8190 members");
	snprintf(key, sizeof(key), "k%d", 8189);
	ok(alx_json_get_int(j, 0, key, &x, 0, 10000) == 0 && x == 8189,
	    "last member found");
	v = 1;
	for (i = 0; i < 8190; i += 97) {
		snprintf(key, sizeof(key), "k%d", i);
		if (alx_json_get_int(j, 0, key, &x, 0, 10000) != 0 || x != i)
			v = 0;
	}
	ok(v, "members found by name");
	alx_json_free(j);

	/* The same with a duplicate of the first key at the end. */
	b.len--;
	alx_buf_addstr(&b, ",\"k\\u0030\":1}");
	t0 = clock();
	is_int(alx_json_parse(&j, (char *)b.data, b.len, NULL),
	    ALX_ERR_DUP_KEY, "a duplicate among 8191 keys");
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	ok(secs < 2.0, "found in %.3f s", secs);
	alx_buf_free(&b);
}

static const char doc[] =
    "{\"s\":\"h\\u00e9llo\",\"n\":42,\"neg\":-7,\"f\":1.5,\"e\":1e3,"
    "\"big\":9007199254740991,\"big1\":9007199254740992,"
    "\"nbig\":-9007199254740991,\"nbig1\":-9007199254740992,"
    "\"t\":true,\"fa\":false,\"nu\":null,"
    "\"arr\":[1,[2,3],{\"x\":\"y\",\"z\":[[]]},4],\"obj\":{\"k\":\"v\"},"
    "\"b64\":\"Zm9vYmFy\",\"b64pad\":\"Zm9vYg==\",\"b64bad\":\"Zh\","
    "\"b64esc\":\"Zm9v\\u0059mFy\",\"b64empty\":\"\","
    "\"esc\":\"a\\u0000b\",\"huge\":123456789012345678901234567890,"
    "\"mz\":-0,\"\\u0041b\":\"escaped key\",\"zero\":0,\"exp0\":1E0}";

static void
test_access(void)
{
	struct alx_json	*j = NULL;
	const char	*raw;
	char		*s;
	uint8_t		 bin[16], *p;
	size_t		 n;
	int64_t		 x;
	int		 b, v, k, a, i, ntok;

	if (!ok(parse(doc, sizeof(doc) - 1, &j) == 0, "parse the sample"))
		return;
	is_int(alx_json_type(j, 0), ALX_JSON_OBJECT, "root is an object");
	is_int(alx_json_obj_len(j, 0), 25, "25 members");
	is_int(alx_json_type(j, -1), -1, "type of -1");
	is_int(alx_json_type(j, 100000), -1, "type of a huge index");
	is_int(alx_json_type(NULL, 0), -1, "type with no document");

	v = alx_json_obj_get(j, 0, "s");
	is_int(alx_json_type(j, v), ALX_JSON_STRING, "s is a string");
	ok(alx_json_str(j, v, &s, &n) == 0 && n == 6 &&
	    strcmp(s, "h\xc3\xa9llo") == 0, "s unescaped");
	free(s);
	ok(alx_json_str_eq(j, v, "h\xc3\xa9llo"), "str_eq equal");
	ok(!alx_json_str_eq(j, v, "h\xc3\xa9ll"), "str_eq shorter");
	ok(!alx_json_str_eq(j, v, "h\xc3\xa9lloo"), "str_eq longer");
	ok(!alx_json_str_eq(j, v, "h\\u00e9llo"), "str_eq raw form");
	ok(!alx_json_str_eq(j, v, NULL), "str_eq NULL");
	ok(alx_json_raw(j, v, &raw, &n) == 0 &&
	    n == sizeof("\"h\\u00e9llo\"") - 1 &&
	    memcmp(raw, "\"h\\u00e9llo\"", n) == 0, "raw string with quotes");
	is_int(alx_json_str(j, alx_json_obj_get(j, 0, "n"), &s, &n),
	    ALX_ERR_TYPE, "str of a number");
	is_int(alx_json_str(j, -3, &s, &n), ALX_ERR_INVALID, "str of -3");

	/* Integers. */
	ok(alx_json_int(j, alx_json_obj_get(j, 0, "n"), &x) == 0 && x == 42,
	    "int 42");
	ok(alx_json_int(j, alx_json_obj_get(j, 0, "neg"), &x) == 0 && x == -7,
	    "int -7");
	ok(alx_json_int(j, alx_json_obj_get(j, 0, "zero"), &x) == 0 && x == 0,
	    "int 0");
	ok(alx_json_int(j, alx_json_obj_get(j, 0, "mz"), &x) == 0 && x == 0,
	    "int -0");
	is_int(alx_json_int(j, alx_json_obj_get(j, 0, "f"), &x), ALX_ERR_TYPE,
	    "int of 1.5");
	is_int(alx_json_int(j, alx_json_obj_get(j, 0, "e"), &x), ALX_ERR_TYPE,
	    "int of 1e3");
	is_int(alx_json_int(j, alx_json_obj_get(j, 0, "exp0"), &x),
	    ALX_ERR_TYPE, "int of 1E0");
	ok(alx_json_int(j, alx_json_obj_get(j, 0, "big"), &x) == 0 &&
	    x == ALX_JSON_INT_MAX, "int 2^53-1");
	is_int(alx_json_int(j, alx_json_obj_get(j, 0, "big1"), &x),
	    ALX_ERR_RANGE, "int 2^53");
	ok(alx_json_int(j, alx_json_obj_get(j, 0, "nbig"), &x) == 0 &&
	    x == -ALX_JSON_INT_MAX, "int -(2^53-1)");
	is_int(alx_json_int(j, alx_json_obj_get(j, 0, "nbig1"), &x),
	    ALX_ERR_RANGE, "int -2^53");
	is_int(alx_json_int(j, alx_json_obj_get(j, 0, "huge"), &x),
	    ALX_ERR_RANGE, "int of a 30-digit number");
	is_int(alx_json_int(j, alx_json_obj_get(j, 0, "s"), &x), ALX_ERR_TYPE,
	    "int of a string");
	is_int(alx_json_int(j, alx_json_obj_get(j, 0, "t"), &x), ALX_ERR_TYPE,
	    "int of true");
	is_int(alx_json_int(j, alx_json_obj_get(j, 0, "nu"), &x), ALX_ERR_TYPE,
	    "int of null");
	is_int(alx_json_int(j, 9999, &x), ALX_ERR_INVALID,
	    "int of a bad index");

	/* Booleans and null. */
	ok(alx_json_bool(j, alx_json_obj_get(j, 0, "t"), &b) == 0 && b == 1,
	    "bool true");
	ok(alx_json_bool(j, alx_json_obj_get(j, 0, "fa"), &b) == 0 && b == 0,
	    "bool false");
	is_int(alx_json_bool(j, alx_json_obj_get(j, 0, "nu"), &b), ALX_ERR_TYPE,
	    "bool of null");
	is_int(alx_json_bool(j, alx_json_obj_get(j, 0, "n"), &b), ALX_ERR_TYPE,
	    "bool of a number");
	is_int(alx_json_type(j, alx_json_obj_get(j, 0, "nu")), ALX_JSON_NULL,
	    "null type");
	is_int(alx_json_type(j, alx_json_obj_get(j, 0, "fa")), ALX_JSON_BOOL,
	    "false is a bool");

	/* Arrays: elements after nested containers are found. */
	a = alx_json_obj_get(j, 0, "arr");
	is_int(alx_json_arr_len(j, a), 4, "arr has 4 elements");
	is_int(alx_json_arr_len(j, alx_json_arr_at(j, a, 1)), 2, "arr[1] len");
	v = alx_json_arr_at(j, a, 2);
	is_int(alx_json_obj_len(j, v), 2, "arr[2] is an object of 2");
	ok(alx_json_get_str(j, v, "x", &s, 10) == 0 && strcmp(s, "y") == 0,
	    "arr[2].x");
	free(s);
	ok(alx_json_int(j, alx_json_arr_at(j, a, 3), &x) == 0 && x == 4,
	    "arr[3] after nested containers");
	is_int(alx_json_arr_at(j, a, 4), -1, "arr[4] is absent");
	is_int(alx_json_arr_at(j, a, -1), -1, "arr[-1] is absent");
	is_int(alx_json_arr_at(j, 0, 0), -1, "arr_at of an object");
	is_int(alx_json_arr_len(j, 0), ALX_ERR_TYPE, "arr_len of an object");
	is_int(alx_json_obj_len(j, a), ALX_ERR_TYPE, "obj_len of an array");
	is_int(alx_json_obj_len(j, -1), ALX_ERR_INVALID, "obj_len of -1");
	ok(alx_json_raw(j, a, &raw, &n) == 0 &&
	    n == sizeof("[1,[2,3],{\"x\":\"y\",\"z\":[[]]},4]") - 1 &&
	    memcmp(raw, "[1,[2,3],{\"x\":\"y\",\"z\":[[]]},4]", n) == 0,
	    "raw array");

	/* Members in order. */
	ok(alx_json_obj_at(j, 0, 0, &k, &v) == 0 && alx_json_str_eq(j, k, "s"),
	    "member 0 is s");
	ok(alx_json_obj_at(j, 0, 24, &k, &v) == 0 &&
	    alx_json_str_eq(j, k, "exp0") &&
	    alx_json_type(j, v) == ALX_JSON_NUMBER, "member 24 is exp0");
	is_int(alx_json_obj_at(j, 0, 25, &k, &v), ALX_ERR_RANGE, "member 25");
	is_int(alx_json_obj_at(j, 0, -1, &k, &v), ALX_ERR_RANGE, "member -1");
	is_int(alx_json_obj_at(j, a, 0, &k, &v), ALX_ERR_TYPE,
	    "obj_at of an array");
	b = 1;
	ntok = 0;
	for (i = 0; i < alx_json_obj_len(j, 0); i++) {
		if (alx_json_obj_at(j, 0, i, &k, &v) != 0 ||
		    alx_json_type(j, k) != ALX_JSON_STRING ||
		    alx_json_str(j, k, &s, NULL) != 0) {
			b = 0;
			continue;
		}
		if (alx_json_obj_get(j, 0, s) != v)
			b = 0;
		free(s);
		ntok++;
	}
	ok(b && ntok == 25, "every member found back by its key");

	/* Lookups. */
	is_int(alx_json_obj_get(j, 0, "missing"), -1, "absent key");
	is_int(alx_json_obj_get(j, a, "x"), -1, "obj_get on an array");
	is_int(alx_json_obj_get(j, 0, NULL), -1, "obj_get NULL key");
	ok(alx_json_has(j, 0, "Ab"), "escaped key found unescaped");
	ok(!alx_json_has(j, 0, "\\u0041b"), "escaped key not found raw");
	ok(!alx_json_has(j, 0, "x"), "nested key not found at the top");
	ok(!alx_json_has(j, 0, "S"), "keys are case-sensitive");

	/* Getters. */
	is_int(alx_json_get_str(j, 0, "s", &s, 5), ALX_ERR_TOO_LARGE,
	    "get_str over maxlen");
	ok(alx_json_get_str(j, 0, "s", &s, 6) == 0 && strlen(s) == 6,
	    "get_str at maxlen");
	free(s);
	is_int(alx_json_get_str(j, 0, "esc", &s, 100), ALX_ERR_INVALID,
	    "get_str refuses an escaped NUL");
	ok(s == NULL, "... and returns nothing");
	is_int(alx_json_str(j, alx_json_obj_get(j, 0, "esc"), &s, NULL),
	    ALX_ERR_INVALID, "str without a length refuses an escaped NUL");
	ok(alx_json_str(j, alx_json_obj_get(j, 0, "esc"), &s, &n) == 0 &&
	    n == 3 && memcmp(s, "a\0b", 4) == 0, "str with a length keeps it");
	free(s);
	ok(!alx_json_str_eq(j, alx_json_obj_get(j, 0, "esc"), "a"),
	    "str_eq: an escaped NUL does not end the string");
	is_int(alx_json_get_str(j, 0, "n", &s, 100), ALX_ERR_TYPE,
	    "get_str of a number");
	is_int(alx_json_get_str(j, 0, "nope", &s, 100), ALX_ERR_MISSING,
	    "get_str missing");
	is_int(alx_json_get_str(j, a, "x", &s, 100), ALX_ERR_TYPE,
	    "get_str on an array");
	is_int(alx_json_get_str(j, 77777, "x", &s, 100), ALX_ERR_INVALID,
	    "get_str on a bad index");
	ok(alx_json_get_int(j, 0, "n", &x, 0, 42) == 0 && x == 42,
	    "get_int at max");
	is_int(alx_json_get_int(j, 0, "n", &x, 0, 41), ALX_ERR_RANGE,
	    "get_int over max");
	is_int(alx_json_get_int(j, 0, "neg", &x, 0, 41), ALX_ERR_RANGE,
	    "get_int under min");
	is_int(alx_json_get_int(j, 0, "f", &x, 0, 41), ALX_ERR_TYPE,
	    "get_int of 1.5");
	is_int(alx_json_get_int(j, 0, "s", &x, 0, 41), ALX_ERR_TYPE,
	    "get_int of a string");
	is_int(alx_json_get_int(j, 0, "nope", &x, 0, 41), ALX_ERR_MISSING,
	    "get_int missing");
	is_int(alx_json_get_int(j, 0, "big1", &x, INT64_MIN, INT64_MAX),
	    ALX_ERR_RANGE, "get_int 2^53 with wide bounds");
	ok(alx_json_get_bool(j, 0, "t", &b) == 0 && b == 1, "get_bool");
	is_int(alx_json_get_bool(j, 0, "nu", &b), ALX_ERR_TYPE,
	    "get_bool of null");
	is_int(alx_json_get_bool(j, 0, "nope", &b), ALX_ERR_MISSING,
	    "get_bool missing");
	ok(alx_json_get_b64(j, 0, "b64", bin, 6) == 0 &&
	    memcmp(bin, "foobar", 6) == 0, "get_b64 exact");
	is_int(alx_json_get_b64(j, 0, "b64", bin, 5), ALX_ERR_BAD_BASE64,
	    "get_b64 want too short");
	is_int(alx_json_get_b64(j, 0, "b64", bin, 7), ALX_ERR_BAD_BASE64,
	    "get_b64 want too long");
	is_int(alx_json_get_b64(j, 0, "b64pad", bin, 4), ALX_ERR_BAD_BASE64,
	    "get_b64 padded");
	is_int(alx_json_get_b64(j, 0, "b64bad", bin, 1), ALX_ERR_BAD_BASE64,
	    "get_b64 nonzero bits");
	is_int(alx_json_get_b64(j, 0, "b64esc", bin, 6), ALX_ERR_BAD_BASE64,
	    "get_b64 with an escape");
	is_int(alx_json_get_b64(j, 0, "n", bin, 6), ALX_ERR_TYPE,
	    "get_b64 of a number");
	is_int(alx_json_get_b64(j, 0, "nope", bin, 6), ALX_ERR_MISSING,
	    "get_b64 missing");
	ok(alx_json_get_b64_alloc(j, 0, "b64", &p, &n, 6) == 0 && n == 6 &&
	    memcmp(p, "foobar", 6) == 0, "get_b64_alloc at max");
	free(p);
	is_int(alx_json_get_b64_alloc(j, 0, "b64", &p, &n, 5),
	    ALX_ERR_TOO_LARGE, "get_b64_alloc over max");
	ok(p == NULL, "... returns nothing");
	is_int(alx_json_get_b64_alloc(j, 0, "b64pad", &p, &n, 100),
	    ALX_ERR_BAD_BASE64, "get_b64_alloc padded");
	ok(alx_json_get_b64_alloc(j, 0, "b64empty", &p, &n, 100) == 0 &&
	    n == 0 && p != NULL, "get_b64_alloc empty");
	free(p);
	is_int(alx_json_get_b64_alloc(j, 0, "nu", &p, &n, 100), ALX_ERR_TYPE,
	    "get_b64_alloc of null");
	alx_json_free(j);
	alx_json_free(NULL);
}

static void
test_writer(void)
{
	static const uint8_t	 foo[3] = { 'f', 'o', 'o' };
	struct alx_jw		 w;
	char			*out;
	size_t			 n;
	int			 i;

	alx_jw_init(&w, 0);
	alx_jw_obj_begin(&w);
	alx_jw_kstr(&w, "a", "x\"y\\z\n\x01\x1f\x7f/\xc3\xa9");
	alx_jw_key(&w, "b");
	alx_jw_arr_begin(&w);
	alx_jw_int(&w, 1);
	alx_jw_int(&w, -2);
	alx_jw_bool(&w, 1);
	alx_jw_bool(&w, 0);
	alx_jw_null(&w);
	alx_jw_arr_end(&w);
	alx_jw_key(&w, "c");
	alx_jw_obj_begin(&w);
	alx_jw_obj_end(&w);
	alx_jw_key(&w, "d");
	alx_jw_arr_begin(&w);
	alx_jw_arr_end(&w);
	alx_jw_kb64(&w, "e", foo, 3);
	alx_jw_kint(&w, "f", ALX_JSON_INT_MAX);
	alx_jw_kbool(&w, "g\t", 0);
	alx_jw_key(&w, "h");
	alx_jw_raw(&w, L("{\"z\":[1, 2]}"));
	alx_jw_key(&w, "i");
	alx_jw_strn(&w, "a\0b", 3);
	alx_jw_obj_end(&w);
	ok(alx_jw_finish(&w, &out, &n) == 0, "writer finishes");
	is_str(out, "{\"a\":\"x\\\"y\\\\z\\u000a\\u0001\\u001f\x7f/\xc3\xa9\","
	    "\"b\":[1,-2,true,false,null],\"c\":{},\"d\":[],\"e\":\"Zm9v\","
	    "\"f\":9007199254740991,\"g\\u0009\":false,"
	    "\"h\":{\"z\":[1, 2]},\"i\":\"a\\u0000b\"}", "compact output");
	is_int(n, strlen(out), "length");
	free(out);

	alx_jw_init(&w, 0);
	alx_jw_str(&w, "top");
	ok(alx_jw_finish(&w, &out, &n) == 0 && strcmp(out, "\"top\"") == 0,
	    "a top-level string");
	free(out);
	alx_jw_int(&w, -5);
	ok(alx_jw_finish(&w, &out, &n) == 0 && strcmp(out, "-5") == 0,
	    "the writer is reusable after finish");
	free(out);

	/*
	 * Raw JSON from a peer, with line breaks between its tokens: one line
	 * out, so a line of it cannot pass for a record of JSON-lines output.
	 */
	alx_jw_init(&w, 0);
	alx_jw_obj_begin(&w);
	alx_jw_key(&w, "meta");
	alx_jw_raw(&w, L("{\"x\":\r\n{\"event\":\"text\",\"text\":\"a\\nb\"}\n,\r\"y\":[\n]}"));
	alx_jw_obj_end(&w);
	ok(alx_jw_finish(&w, &out, &n) == 0 && strcmp(out, "{\"meta\":{\"x\":  "
	    "{\"event\":\"text\",\"text\":\"a\\nb\"} , \"y\":[ ]}}") == 0,
	    "raw JSON is written on one line: its CR and LF become spaces, "
	    "escapes in strings stay");
	free(out);

#define WERR(want, msg, ...) do {					\
	alx_jw_init(&w, 0);						\
	__VA_ARGS__;							\
	is_int(alx_jw_finish(&w, &out, &n), want, msg);			\
	ok(out == NULL, msg ": no output");				\
	alx_jw_free(&w);						\
} while (0)

	WERR(ALX_ERR_INVALID, "nothing written");
	WERR(ALX_ERR_INVALID, "key at the top", alx_jw_key(&w, "a"));
	WERR(ALX_ERR_INVALID, "key in an array", alx_jw_arr_begin(&w);
	    alx_jw_key(&w, "a"); alx_jw_int(&w, 1); alx_jw_arr_end(&w));
	WERR(ALX_ERR_INVALID, "value without a key", alx_jw_obj_begin(&w);
	    alx_jw_int(&w, 1); alx_jw_obj_end(&w));
	WERR(ALX_ERR_INVALID, "container without a key", alx_jw_obj_begin(&w);
	    alx_jw_arr_begin(&w); alx_jw_arr_end(&w); alx_jw_obj_end(&w));
	WERR(ALX_ERR_INVALID, "two keys", alx_jw_obj_begin(&w);
	    alx_jw_key(&w, "a"); alx_jw_key(&w, "b"); alx_jw_int(&w, 1);
	    alx_jw_obj_end(&w));
	WERR(ALX_ERR_INVALID, "key without a value", alx_jw_obj_begin(&w);
	    alx_jw_key(&w, "a"); alx_jw_obj_end(&w));
	WERR(ALX_ERR_INVALID, "NULL key", alx_jw_obj_begin(&w);
	    alx_jw_key(&w, NULL); alx_jw_int(&w, 1); alx_jw_obj_end(&w));
	WERR(ALX_ERR_INVALID, "NULL string", alx_jw_str(&w, NULL));
	WERR(ALX_ERR_INVALID, "unclosed", alx_jw_arr_begin(&w));
	WERR(ALX_ERR_INVALID, "close at the top", alx_jw_arr_end(&w));
	WERR(ALX_ERR_INVALID, "mismatched close", alx_jw_arr_begin(&w);
	    alx_jw_obj_end(&w));
	WERR(ALX_ERR_INVALID, "two documents", alx_jw_int(&w, 1);
	    alx_jw_int(&w, 2));
	WERR(ALX_ERR_BAD_UTF8, "invalid UTF-8 value",
	    alx_jw_str(&w, "\xc0\xaf"));
	WERR(ALX_ERR_BAD_UTF8, "surrogate in UTF-8",
	    alx_jw_str(&w, "\xed\xa0\x80"));
	WERR(ALX_ERR_BAD_UTF8, "invalid UTF-8 key", alx_jw_obj_begin(&w);
	    alx_jw_kint(&w, "\xff", 1); alx_jw_obj_end(&w));
	WERR(ALX_ERR_BAD_UTF8, "error is sticky", alx_jw_arr_begin(&w);
	    alx_jw_str(&w, "\x80"); alx_jw_key(&w, "k"); alx_jw_arr_end(&w);
	    alx_jw_obj_end(&w));
	WERR(ALX_ERR_RANGE, "int over 2^53-1", alx_jw_int(&w,
	    ALX_JSON_INT_MAX + 1));
	WERR(ALX_ERR_RANGE, "int under -(2^53-1)", alx_jw_int(&w, INT64_MIN));
	WERR(ALX_ERR_BAD_JSON, "invalid raw", alx_jw_raw(&w, L("[1,]")));
	WERR(ALX_ERR_DUP_KEY, "raw with a duplicate key",
	    alx_jw_raw(&w, L("{\"a\":1,\"a\":2}")));
	WERR(ALX_ERR_INVALID, "empty raw", alx_jw_raw(&w, "", 0));
	WERR(ALX_ERR_TOO_DEEP, "depth 64", for (i = 0; i < 64; i++)
	    alx_jw_arr_begin(&w); for (i = 0; i < 64; i++)
	    alx_jw_arr_end(&w));

	alx_jw_init(&w, 0);
	for (i = 0; i < ALX_JW_MAX_DEPTH; i++)
		alx_jw_arr_begin(&w);
	for (i = 0; i < ALX_JW_MAX_DEPTH; i++)
		alx_jw_arr_end(&w);
	ok(alx_jw_finish(&w, &out, &n) == 0 && n == 2 * ALX_JW_MAX_DEPTH,
	    "depth 63 is allowed");
	free(out);
	for (i = 0; i < ALX_JW_MAX_DEPTH; i++) {
		alx_jw_obj_begin(&w);
		alx_jw_key(&w, "k");
	}
	alx_jw_null(&w);
	for (i = 0; i < ALX_JW_MAX_DEPTH; i++)
		alx_jw_obj_end(&w);
	ok(alx_jw_finish(&w, &out, &n) == 0, "63 nested objects");
	free(out);

	alx_jw_init(&w, 10);
	alx_jw_str(&w, "12345678");
	ok(alx_jw_finish(&w, &out, &n) == 0 && n == 10, "exactly the cap");
	free(out);
	alx_jw_init(&w, 10);
	alx_jw_str(&w, "123456789");
	is_int(alx_jw_finish(&w, &out, &n), ALX_ERR_TOO_LARGE, "over the cap");
	alx_jw_init(&w, 10);
	alx_jw_b64(&w, foo, 3);
	alx_jw_b64(&w, foo, 3);
	is_int(alx_jw_finish(&w, &out, &n), ALX_ERR_INVALID,
	    "two documents (b64)");
	alx_jw_init(&w, 5);
	alx_jw_b64(&w, foo, 3);
	is_int(alx_jw_finish(&w, &out, &n), ALX_ERR_TOO_LARGE,
	    "b64 over the cap");
	alx_jw_free(&w);
}

/* Writer output parses back to the same values. */
static void
test_roundtrip(void)
{
	static const int64_t	 ints[] = { 0, 1, -1, 10, -10,
	    ALX_JSON_INT_MAX, -ALX_JSON_INT_MAX, 4294967296LL, 1000000007 };
	struct alx_jw		 w;
	struct alx_json		*j = NULL;
	char			 s[300], key[8], *out, *got;
	uint8_t			 bin[64], back[64];
	size_t			 n, i, glen;
	int64_t			 x;
	int			 good = 1, v;

	/* Every ASCII byte, then some multibyte characters. */
	for (i = 0; i < 127; i++)
		s[i] = (char)(i + 1);
	memcpy(s + 127, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf"
	    "\xef\xbf\xbf\xed\x9f\xbf", 19);
	n = 127 + 19;
	s[n] = '\0';
	for (i = 0; i < sizeof(bin); i++)
		bin[i] = (uint8_t)(i * 37 + 11);

	alx_jw_init(&w, 0);
	alx_jw_obj_begin(&w);
	alx_jw_key(&w, "str");
	alx_jw_strn(&w, s, n);
	alx_jw_key(&w, "nul");
	alx_jw_strn(&w, "\0x\0", 3);
	alx_jw_key(&w, "ints");
	alx_jw_arr_begin(&w);
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		alx_jw_int(&w, ints[i]);
	alx_jw_arr_end(&w);
	alx_jw_kb64(&w, "bin", bin, sizeof(bin));
	alx_jw_kb64(&w, "empty", bin, 0);
	for (i = 0; i < 200; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		alx_jw_kint(&w, key, (int64_t)i);
	}
	alx_jw_kstr(&w, s + 40, "a key with punctuation");
	alx_jw_obj_end(&w);
	if (!ok(alx_jw_finish(&w, &out, &n) == 0, "round-trip document"))
		return;
	if (!ok(alx_json_parse(&j, out, n, NULL) == 0, "parses back")) {
		free(out);
		return;
	}
	ok(alx_json_str(j, alx_json_obj_get(j, 0, "str"), &got, &glen) == 0 &&
	    glen == 127 + 19 && memcmp(got, s, glen) == 0,
	    "every character survives");
	free(got);
	ok(alx_json_str(j, alx_json_obj_get(j, 0, "nul"), &got, &glen) == 0 &&
	    glen == 3 && memcmp(got, "\0x\0", 3) == 0, "NUL bytes survive");
	free(got);
	v = alx_json_obj_get(j, 0, "ints");
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (alx_json_int(j, alx_json_arr_at(j, v, (int)i), &x) != 0 ||
		    x != ints[i])
			good = 0;
	ok(good, "integers survive");
	ok(alx_json_get_b64(j, 0, "bin", back, sizeof(back)) == 0 &&
	    memcmp(back, bin, sizeof(bin)) == 0, "bytes survive");
	ok(alx_json_get_b64(j, 0, "empty", back, 0) == 0, "empty bytes");
	good = 1;
	for (i = 0; i < 200; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		if (alx_json_get_int(j, 0, key, &x, 0, 199) != 0 ||
		    x != (int64_t)i)
			good = 0;
	}
	ok(good, "200 members survive");
	ok(alx_json_get_str(j, 0, s + 40, &got, 100) == 0 &&
	    strcmp(got, "a key with punctuation") == 0, "an odd key survives");
	free(got);
	is_int(alx_json_obj_len(j, 0), 206, "member count");
	alx_json_free(j);
	free(out);
}

static void
test_utf8(void)
{
	is_int(alx_utf8_valid((const uint8_t *)"", 0), 0, "empty UTF-8");
	is_int(alx_utf8_valid((const uint8_t *)"a\0b", 3), 0,
	    "NUL is valid UTF-8");
	is_int(alx_utf8_valid((const uint8_t *)"\xf4\x8f\xbf\xbf", 4), 0,
	    "U+10FFFF");
	is_int(alx_utf8_valid((const uint8_t *)"\xf4\x90\x80\x80", 4),
	    ALX_ERR_BAD_UTF8, "U+110000");
	is_int(alx_utf8_valid((const uint8_t *)"\xe0\x80\x80", 3),
	    ALX_ERR_BAD_UTF8, "overlong NUL (3)");
	is_int(alx_utf8_valid((const uint8_t *)"\xc0\x80", 2),
	    ALX_ERR_BAD_UTF8, "overlong NUL (2)");
	is_int(alx_utf8_valid((const uint8_t *)"\xed\xb0\x80", 3),
	    ALX_ERR_BAD_UTF8, "encoded low surrogate");
	is_int(alx_utf8_valid((const uint8_t *)"\xe2\x82\xac", 2),
	    ALX_ERR_BAD_UTF8, "sequence cut by the length");
}

int
main(void)
{
	test_tables();
	test_limits();
	test_many_keys();
	test_access();
	test_writer();
	test_roundtrip();
	test_utf8();
	return tap_done();
}
