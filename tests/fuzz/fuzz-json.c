/*
 * fuzz-json.c: libFuzzer target for the strict JSON reader and the writer.
 *
 * Parses arbitrary bytes with the default limits; for an accepted document
 * every token goes through every accessor, every string is re-encoded with
 * the writer and read back, every value's raw text must be valid JSON on its
 * own, and the whole document, rebuilt through the writer, must parse to
 * the same shape. Any broken invariant aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/json.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(x)	do { if (!(x)) abort(); } while (0)

/* A string token re-encoded by the writer reads back the same. */
static void
check_string(const struct alx_json *j, int tok)
{
	struct alx_json	*k;
	struct alx_jw	 w;
	char		*s, *out, *back;
	size_t		 n, outlen, blen;

	CHECK(alx_json_str(j, tok, &s, &n) == 0);
	CHECK(alx_utf8_valid((const uint8_t *)s, n) == 0);
	if (memchr(s, '\0', n) == NULL)
		CHECK(alx_json_str_eq(j, tok, s) == 1);
	alx_jw_init(&w, 0);
	alx_jw_strn(&w, s, n);
	CHECK(alx_jw_finish(&w, &out, &outlen) == 0);
	CHECK(alx_json_parse(&k, out, outlen, NULL) == 0);
	CHECK(alx_json_str(k, 0, &back, &blen) == 0);
	CHECK(blen == n && memcmp(back, s, n) == 0);
	free(back);
	alx_json_free(k);
	free(out);
	free(s);
}

static void
check_token(const struct alx_json *j, int tok)
{
	struct alx_jw	 w;
	const char	*raw;
	char		*out;
	size_t		 rawlen, outlen;
	int64_t		 x;
	int		 type, n, i, k, v, b, r;

	type = alx_json_type(j, tok);
	CHECK(type >= ALX_JSON_OBJECT && type <= ALX_JSON_NULL);
	CHECK(alx_json_raw(j, tok, &raw, &rawlen) == 0);

	/* The raw text of a value stands on its own. */
	alx_jw_init(&w, 0);
	alx_jw_raw(&w, raw, rawlen);
	r = alx_jw_finish(&w, &out, &outlen);
	if (r == 0)
		free(out);
	CHECK(r == 0 || r == ALX_ERR_TOO_DEEP);

	switch (type) {
	case ALX_JSON_OBJECT:
		n = alx_json_obj_len(j, tok);
		CHECK(n >= 0);
		CHECK(alx_json_arr_len(j, tok) == ALX_ERR_TYPE);
		for (i = 0; i < n; i++) {
			CHECK(alx_json_obj_at(j, tok, i, &k, &v) == 0);
			CHECK(alx_json_type(j, k) == ALX_JSON_STRING);
			CHECK(alx_json_type(j, v) > 0);
			check_string(j, k);
		}
		CHECK(alx_json_obj_at(j, tok, n, &k, &v) == ALX_ERR_RANGE);
		CHECK(alx_json_has(j, tok, "") == (alx_json_obj_get(j, tok,
		    "") >= 0));
		break;
	case ALX_JSON_ARRAY:
		n = alx_json_arr_len(j, tok);
		CHECK(n >= 0);
		for (i = 0; i < n; i++)
			CHECK(alx_json_type(j, alx_json_arr_at(j, tok, i)) > 0);
		CHECK(alx_json_arr_at(j, tok, n) == -1);
		CHECK(alx_json_obj_get(j, tok, "a") == -1);
		break;
	case ALX_JSON_STRING:
		check_string(j, tok);
		CHECK(alx_json_int(j, tok, &x) == ALX_ERR_TYPE);
		break;
	case ALX_JSON_NUMBER:
		r = alx_json_int(j, tok, &x);
		CHECK(r == 0 || r == ALX_ERR_TYPE || r == ALX_ERR_RANGE);
		if (r == 0)
			CHECK(x >= -ALX_JSON_INT_MAX && x <= ALX_JSON_INT_MAX);
		CHECK(alx_json_bool(j, tok, &b) == ALX_ERR_TYPE);
		break;
	case ALX_JSON_BOOL:
		CHECK(alx_json_bool(j, tok, &b) == 0 && (b == 0 || b == 1));
		break;
	default:
		CHECK(alx_json_bool(j, tok, &b) == ALX_ERR_TYPE);
		break;
	}
}

/* Member getters on every member of an object: no crash, sane codes. */
static void
check_getters(const struct alx_json *j, int obj)
{
	char	*key, *s;
	uint8_t	*p, bin[32];
	size_t	 n, len;
	int64_t	 x;
	int	 i, k, v, b, r;

	n = (size_t)alx_json_obj_len(j, obj);
	for (i = 0; i < (int)n; i++) {
		CHECK(alx_json_obj_at(j, obj, i, &k, &v) == 0);
		if (alx_json_str(j, k, &key, NULL) != 0)
			continue;	/* a key with an escaped NUL */
		CHECK(alx_json_obj_get(j, obj, key) == v);
		r = alx_json_get_str(j, obj, key, &s, 64);
		if (r == 0)
			free(s);
		r = alx_json_get_int(j, obj, key, &x, -1000, 1000);
		CHECK(r != 0 || (x >= -1000 && x <= 1000));
		(void)alx_json_get_bool(j, obj, key, &b);
		(void)alx_json_get_b64(j, obj, key, bin, sizeof(bin));
		r = alx_json_get_b64_alloc(j, obj, key, &p, &len, 64);
		if (r == 0) {
			CHECK(len <= 64);
			free(p);
		}
		free(key);
	}
}

/* Rebuild a value through the writer; 0 on success. */
static int
rebuild(const struct alx_json *j, int tok, struct alx_jw *w)
{
	const char	*raw;
	char		*s;
	size_t		 n;
	int		 i, k, v, b;

	switch (alx_json_type(j, tok)) {
	case ALX_JSON_OBJECT:
		alx_jw_obj_begin(w);
		for (i = 0; i < alx_json_obj_len(j, tok); i++) {
			if (alx_json_obj_at(j, tok, i, &k, &v) != 0 ||
			    alx_json_str(j, k, &s, NULL) != 0)
				return -1;	/* escaped NUL in a key */
			alx_jw_key(w, s);
			free(s);
			if (rebuild(j, v, w) != 0)
				return -1;
		}
		alx_jw_obj_end(w);
		return 0;
	case ALX_JSON_ARRAY:
		alx_jw_arr_begin(w);
		for (i = 0; i < alx_json_arr_len(j, tok); i++)
			if (rebuild(j, alx_json_arr_at(j, tok, i), w) != 0)
				return -1;
		alx_jw_arr_end(w);
		return 0;
	case ALX_JSON_STRING:
		CHECK(alx_json_str(j, tok, &s, &n) == 0);
		alx_jw_strn(w, s, n);
		free(s);
		return 0;
	case ALX_JSON_BOOL:
		CHECK(alx_json_bool(j, tok, &b) == 0);
		alx_jw_bool(w, b);
		return 0;
	case ALX_JSON_NULL:
		alx_jw_null(w);
		return 0;
	default:
		CHECK(alx_json_raw(j, tok, &raw, &n) == 0);
		alx_jw_raw(w, raw, n);
		return 0;
	}
}

/* Same shape: types, sizes and strings, token by token. */
static void
check_same(const struct alx_json *a, const struct alx_json *b)
{
	char	*s, *t;
	size_t	 n, m;
	int	 i;

	for (i = 0; alx_json_type(a, i) > 0; i++) {
		CHECK(alx_json_type(a, i) == alx_json_type(b, i));
		switch (alx_json_type(a, i)) {
		case ALX_JSON_OBJECT:
			CHECK(alx_json_obj_len(a, i) == alx_json_obj_len(b, i));
			break;
		case ALX_JSON_ARRAY:
			CHECK(alx_json_arr_len(a, i) == alx_json_arr_len(b, i));
			break;
		case ALX_JSON_STRING:
			CHECK(alx_json_str(a, i, &s, &n) == 0);
			CHECK(alx_json_str(b, i, &t, &m) == 0);
			CHECK(n == m && memcmp(s, t, n) == 0);
			free(s);
			free(t);
			break;
		}
	}
	CHECK(alx_json_type(b, i) == -1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct alx_json_limits	 small = { 256, 4, 32 };
	struct alx_json_limits	 big = { 0, 0, 0 };
	struct alx_json		*j, *k;
	struct alx_jw		 w;
	char			*out;
	size_t			 outlen;
	int			 i, r;

	r = alx_json_parse(&j, (const char *)data, size, &small);
	CHECK((r == 0) == (j != NULL));
	alx_json_free(j);

	r = alx_json_parse(&j, (const char *)data, size, NULL);
	CHECK((r == 0) == (j != NULL));
	if (r != 0)
		return 0;
	for (i = 0; alx_json_type(j, i) > 0; i++) {
		check_token(j, i);
		if (alx_json_type(j, i) == ALX_JSON_OBJECT)
			check_getters(j, i);
	}
	CHECK(alx_json_type(j, i) == -1 && alx_json_type(j, -1) == -1);

	alx_jw_init(&w, 0);
	if (rebuild(j, 0, &w) == 0) {
		CHECK(alx_jw_finish(&w, &out, &outlen) == 0);
		big.max_bytes = outlen;
		CHECK(alx_json_parse(&k, out, outlen, &big) == 0);
		check_same(j, k);
		alx_json_free(k);
		free(out);
	}
	alx_jw_free(&w);
	alx_json_free(j);
	return 0;
}
