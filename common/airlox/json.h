/*
 * airlox/json.h: strict JSON reading (on jsmn) and writing.
 *
 * Reading: RFC 8259 JSON only, within limits (bytes, depth, tokens); strings
 * must be valid UTF-8 with valid escapes (no lone surrogates, no raw control
 * characters); an object with a duplicate key is rejected (ALX_ERR_DUP_KEY);
 * numbers must match the JSON grammar, and alx_json_int() accepts only
 * integers within +-(2^53 - 1). Values are addressed by token index; the
 * root is token 0. A failed lookup never crashes: bad indexes and wrong types
 * are errors.
 *
 * Writing: a sticky-error builder producing compact JSON (no spaces) with
 * members in the order written; strings are checked for UTF-8 and escaped.
 */
#ifndef AIRLOX_JSON_H
#define AIRLOX_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "airlox/buf.h"

#define ALX_JSON_INT_MAX	9007199254740991LL	/* 2^53 - 1 */

enum alx_json_type {
	ALX_JSON_OBJECT = 1,
	ALX_JSON_ARRAY,
	ALX_JSON_STRING,
	ALX_JSON_NUMBER,
	ALX_JSON_BOOL,
	ALX_JSON_NULL
};

struct alx_json_limits {
	size_t		max_bytes;	/* input size */
	unsigned	max_depth;	/* nesting of objects and arrays */
	unsigned	max_tokens;	/* values + keys */
};
/* Used when limits is NULL (or a field is 0): 1 MiB, depth 16, 16384 tokens. */
#define ALX_JSON_DEFAULT_MAX_BYTES	(1024 * 1024)
#define ALX_JSON_DEFAULT_MAX_DEPTH	16
#define ALX_JSON_DEFAULT_MAX_TOKENS	16384

struct alx_json;

int	alx_json_parse(struct alx_json **out, const char *text, size_t len,
	    const struct alx_json_limits *limits);
void	alx_json_free(struct alx_json *);

/* Type of a token, or -1 for an invalid index. */
int	alx_json_type(const struct alx_json *, int tok);
/* Value token of `key` in object `obj`; -1 when absent or obj not object. */
int	alx_json_obj_get(const struct alx_json *, int obj, const char *key);
int	alx_json_has(const struct alx_json *, int obj, const char *key);
/* Number of members / elements; negative error on wrong type. */
int	alx_json_obj_len(const struct alx_json *, int obj);
int	alx_json_arr_len(const struct alx_json *, int arr);
/* i-th member of an object: key token and value token. */
int	alx_json_obj_at(const struct alx_json *, int obj, int i, int *keytok,
	    int *valtok);
/* Token of the i-th element of an array, or -1. */
int	alx_json_arr_at(const struct alx_json *, int arr, int i);

/*
 * Unescaped copy of a string token (NUL-terminated; len excludes NUL). With
 * lenp NULL, a string holding an escaped NUL (\u0000) is ALX_ERR_INVALID.
 */
int	alx_json_str(const struct alx_json *, int tok, char **out,
	    size_t *lenp);
/* 1 when the string token equals s after unescaping, 0 otherwise. */
int	alx_json_str_eq(const struct alx_json *, int tok, const char *s);
int	alx_json_int(const struct alx_json *, int tok, int64_t *out);
int	alx_json_bool(const struct alx_json *, int tok, int *out);
/* Raw bytes of a value token as it appears in the input (strings quoted). */
int	alx_json_raw(const struct alx_json *, int tok, const char **p,
	    size_t *lenp);

/*
 * Member getters: ALX_ERR_MISSING when absent, ALX_ERR_TYPE on the wrong
 * type, ALX_ERR_TOO_LARGE / ALX_ERR_RANGE when outside the bounds given.
 * get_str: maxlen counts unescaped bytes; an escaped NUL is ALX_ERR_INVALID.
 */
int	alx_json_get_str(const struct alx_json *, int obj, const char *key,
	    char **out, size_t maxlen);
int	alx_json_get_int(const struct alx_json *, int obj, const char *key,
	    int64_t *out, int64_t min, int64_t max);
int	alx_json_get_bool(const struct alx_json *, int obj, const char *key,
	    int *out);
/* base64url member decoding to exactly `want` bytes. */
int	alx_json_get_b64(const struct alx_json *, int obj, const char *key,
	    uint8_t *out, size_t want);
/* base64url member of at most `max` bytes, allocated. */
int	alx_json_get_b64_alloc(const struct alx_json *, int obj,
	    const char *key, uint8_t **out, size_t *lenp, size_t max);

/* Validate UTF-8 (no overlongs, no surrogates, <= U+10FFFF). */
int	alx_utf8_valid(const uint8_t *, size_t);

struct alx_jw {
	struct alx_buf	 buf;
	int		 err;		/* first error, sticky */
	unsigned	 depth;
	uint64_t	 nonempty;	/* bit per depth: holds a value */
	uint64_t	 objmask;	/* bit per depth: inside an object */
	int		 after_key;
};
#define ALX_JW_MAX_DEPTH	63

void	alx_jw_init(struct alx_jw *, size_t max);
void	alx_jw_free(struct alx_jw *);
void	alx_jw_obj_begin(struct alx_jw *);
void	alx_jw_obj_end(struct alx_jw *);
void	alx_jw_arr_begin(struct alx_jw *);
void	alx_jw_arr_end(struct alx_jw *);
void	alx_jw_key(struct alx_jw *, const char *);
void	alx_jw_str(struct alx_jw *, const char *);
void	alx_jw_strn(struct alx_jw *, const char *, size_t);
/* Integers within +-(2^53 - 1) only, else ALX_ERR_RANGE (as the reader). */
void	alx_jw_int(struct alx_jw *, int64_t);
void	alx_jw_bool(struct alx_jw *, int);
void	alx_jw_null(struct alx_jw *);
void	alx_jw_b64(struct alx_jw *, const uint8_t *, size_t);
/* Insert an already valid JSON value verbatim. */
void	alx_jw_raw(struct alx_jw *, const char *, size_t);
/* Shorthands: key then value. */
void	alx_jw_kstr(struct alx_jw *, const char *, const char *);
void	alx_jw_kint(struct alx_jw *, const char *, int64_t);
void	alx_jw_kbool(struct alx_jw *, const char *, int);
void	alx_jw_kb64(struct alx_jw *, const char *, const uint8_t *, size_t);
/*
 * Finish: returns the sticky error, or ALX_ERR_INVALID when containers are
 * unbalanced; on success hands the NUL-terminated text to the caller.
 */
int	alx_jw_finish(struct alx_jw *, char **out, size_t *lenp);

#endif /* AIRLOX_JSON_H */
