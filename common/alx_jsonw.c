/*
 * alx_jsonw.c: a sticky-error builder of compact JSON.
 *
 * Depth 0 is the top level; bit d of nonempty says that the container at
 * depth d (or, for d = 0, the document) already holds a value, and bit d of
 * objmask that it is an object. The first error is kept and every later call
 * does nothing, so callers check once, at alx_jw_finish().
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/json.h"

static void
jw_fail(struct alx_jw *w, int r)
{
	if (w->err == 0)
		w->err = r;
}

static void
jw_put(struct alx_jw *w, const void *p, size_t n)
{
	int	r;

	if (w->err == 0 && (r = alx_buf_add(&w->buf, p, n)) != 0)
		jw_fail(w, r);
}

static void
jw_putc(struct alx_jw *w, char c)
{
	jw_put(w, &c, 1);
}

/* Check that a value may go here and write the comma before it. */
static int
jw_value(struct alx_jw *w)
{
	uint64_t	bit;

	if (w->err != 0)
		return -1;
	bit = (uint64_t)1 << w->depth;
	if (w->depth == 0) {
		if (w->nonempty & bit)
			jw_fail(w, ALX_ERR_INVALID);	/* 2nd document */
	} else if (w->objmask & bit) {
		if (!w->after_key)
			jw_fail(w, ALX_ERR_INVALID);	/* key needed */
	} else if (w->nonempty & bit)
		jw_putc(w, ',');
	w->nonempty |= bit;
	w->after_key = 0;
	return w->err != 0 ? -1 : 0;
}

/* Write s as a JSON string: quotes, escapes, UTF-8 checked. */
static void
jw_string(struct alx_jw *w, const char *s, size_t n)
{
	const uint8_t	*p = (const uint8_t *)s;
	size_t		 i, run = 0;
	char		 esc[8];

	if (w->err != 0)
		return;
	if (s == NULL && n != 0) {
		jw_fail(w, ALX_ERR_INVALID);
		return;
	}
	if (alx_utf8_valid(p, n) != 0) {
		jw_fail(w, ALX_ERR_BAD_UTF8);
		return;
	}
	jw_putc(w, '"');
	for (i = 0; i < n; i++) {
		if (p[i] != '"' && p[i] != '\\' && p[i] >= 0x20)
			continue;
		jw_put(w, p + run, i - run);
		if (p[i] == '"' || p[i] == '\\') {
			esc[0] = '\\';
			esc[1] = (char)p[i];
			jw_put(w, esc, 2);
		} else {
			snprintf(esc, sizeof(esc), "\\u%04x", p[i]);
			jw_put(w, esc, 6);
		}
		run = i + 1;
	}
	jw_put(w, p + run, n - run);
	jw_putc(w, '"');
}

void
alx_jw_init(struct alx_jw *w, size_t max)
{
	alx_buf_init(&w->buf, max);
	w->err = 0;
	w->depth = 0;
	w->nonempty = 0;
	w->objmask = 0;
	w->after_key = 0;
}

void
alx_jw_free(struct alx_jw *w)
{
	size_t	max = w->buf.max;

	alx_buf_free(&w->buf);
	alx_jw_init(w, max);
}

static void
jw_begin(struct alx_jw *w, int obj)
{
	uint64_t	bit;

	if (jw_value(w) != 0)
		return;
	if (w->depth + 1 > ALX_JW_MAX_DEPTH) {
		jw_fail(w, ALX_ERR_TOO_DEEP);
		return;
	}
	jw_putc(w, obj ? '{' : '[');
	w->depth++;
	bit = (uint64_t)1 << w->depth;
	w->nonempty &= ~bit;
	if (obj)
		w->objmask |= bit;
	else
		w->objmask &= ~bit;
}

static void
jw_end(struct alx_jw *w, int obj)
{
	uint64_t	bit;

	if (w->err != 0)
		return;
	bit = (uint64_t)1 << w->depth;
	if (w->depth == 0 || w->after_key || !(w->objmask & bit) != !obj) {
		jw_fail(w, ALX_ERR_INVALID);
		return;
	}
	jw_putc(w, obj ? '}' : ']');
	w->depth--;
}

void
alx_jw_obj_begin(struct alx_jw *w)
{
	jw_begin(w, 1);
}

void
alx_jw_obj_end(struct alx_jw *w)
{
	jw_end(w, 1);
}

void
alx_jw_arr_begin(struct alx_jw *w)
{
	jw_begin(w, 0);
}

void
alx_jw_arr_end(struct alx_jw *w)
{
	jw_end(w, 0);
}

void
alx_jw_key(struct alx_jw *w, const char *key)
{
	uint64_t	bit;

	if (w->err != 0)
		return;
	bit = (uint64_t)1 << w->depth;
	if (key == NULL || w->depth == 0 || !(w->objmask & bit) ||
	    w->after_key) {
		jw_fail(w, ALX_ERR_INVALID);
		return;
	}
	if (w->nonempty & bit)
		jw_putc(w, ',');
	jw_string(w, key, strlen(key));
	jw_putc(w, ':');
	w->nonempty |= bit;
	w->after_key = 1;
}

void
alx_jw_str(struct alx_jw *w, const char *s)
{
	if (s == NULL) {
		jw_fail(w, ALX_ERR_INVALID);
		return;
	}
	alx_jw_strn(w, s, strlen(s));
}

void
alx_jw_strn(struct alx_jw *w, const char *s, size_t n)
{
	if (jw_value(w) == 0)
		jw_string(w, s, n);
}

void
alx_jw_int(struct alx_jw *w, int64_t v)
{
	char	num[32];
	int	n;

	if (jw_value(w) != 0)
		return;
	/* Only what the reader accepts back as an integer. */
	if (v > ALX_JSON_INT_MAX || v < -ALX_JSON_INT_MAX) {
		jw_fail(w, ALX_ERR_RANGE);
		return;
	}
	n = snprintf(num, sizeof(num), "%" PRId64, v);
	jw_put(w, num, (size_t)n);
}

void
alx_jw_bool(struct alx_jw *w, int v)
{
	if (jw_value(w) == 0)
		jw_put(w, v ? "true" : "false", v ? 4 : 5);
}

void
alx_jw_null(struct alx_jw *w)
{
	if (jw_value(w) == 0)
		jw_put(w, "null", 4);
}

void
alx_jw_b64(struct alx_jw *w, const uint8_t *p, size_t n)
{
	size_t	enclen;
	int	r;

	if (jw_value(w) != 0)
		return;
	if (p == NULL && n != 0) {
		jw_fail(w, ALX_ERR_INVALID);
		return;
	}
	if (n > (SIZE_MAX - 8) / 4) {
		jw_fail(w, ALX_ERR_TOO_LARGE);
		return;
	}
	enclen = ALX_B64_ENCLEN(n);
	if ((r = alx_buf_reserve(&w->buf, enclen + 2)) != 0) {
		jw_fail(w, r);
		return;
	}
	jw_putc(w, '"');
	alx_b64_encode((char *)w->buf.data + w->buf.len, p, n);
	w->buf.len += enclen;
	jw_putc(w, '"');
}

/*
 * Valid JSON written on one line: a CR or LF in it can only be whitespace
 * between tokens (inside a string it must be escaped), so it becomes a
 * space. What a peer wrote then never splits a line of JSON-lines output
 * (`--json`), where a line of its own could pass for a record.
 */
static void
jw_put_oneline(struct alx_jw *w, const char *s, size_t n)
{
	size_t	i, from = 0;

	for (i = 0; i < n; i++) {
		if (s[i] != '\n' && s[i] != '\r')
			continue;
		jw_put(w, s + from, i - from);
		jw_putc(w, ' ');
		from = i + 1;
	}
	jw_put(w, s + from, n - from);
}

void
alx_jw_raw(struct alx_jw *w, const char *s, size_t n)
{
	struct alx_json_limits	 l;
	struct alx_json		*j;
	int			 r;

	if (jw_value(w) != 0)
		return;
	if (s == NULL || n == 0) {
		jw_fail(w, ALX_ERR_INVALID);
		return;
	}
	/* "Already valid" is checked, not trusted. */
	l.max_bytes = n;
	l.max_depth = ALX_JW_MAX_DEPTH;
	l.max_tokens = n < INT32_MAX - 1 ? (unsigned)n : INT32_MAX - 1;
	if ((r = alx_json_parse(&j, s, n, &l)) != 0) {
		jw_fail(w, r);
		return;
	}
	alx_json_free(j);
	jw_put_oneline(w, s, n);
}

void
alx_jw_kstr(struct alx_jw *w, const char *k, const char *v)
{
	alx_jw_key(w, k);
	alx_jw_str(w, v);
}

void
alx_jw_kint(struct alx_jw *w, const char *k, int64_t v)
{
	alx_jw_key(w, k);
	alx_jw_int(w, v);
}

void
alx_jw_kbool(struct alx_jw *w, const char *k, int v)
{
	alx_jw_key(w, k);
	alx_jw_bool(w, v);
}

void
alx_jw_kb64(struct alx_jw *w, const char *k, const uint8_t *p, size_t n)
{
	alx_jw_key(w, k);
	alx_jw_b64(w, p, n);
}

int
alx_jw_finish(struct alx_jw *w, char **out, size_t *lenp)
{
	size_t	max = w->buf.max, len;
	char	*p;
	int	r = w->err;

	if (out != NULL)
		*out = NULL;
	if (lenp != NULL)
		*lenp = 0;
	if (r == 0 && (out == NULL || w->depth != 0 || w->after_key ||
	    !(w->nonempty & 1)))
		r = ALX_ERR_INVALID;
	if (r != 0) {
		alx_jw_free(w);
		return r;
	}
	if ((p = (char *)alx_buf_steal(&w->buf, &len)) == NULL) {
		alx_jw_free(w);
		return ALX_ERR_NOMEM;
	}
	alx_jw_init(w, max);
	*out = p;
	if (lenp != NULL)
		*lenp = len;
	return 0;
}
