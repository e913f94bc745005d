/*
 * alx_json.c: strict JSON reading on jsmn.
 *
 * jsmn is lax even in strict mode (it does not check where commas and colons
 * go, and accepts any primitive made of printable characters), so the input
 * is first checked here against the RFC 8259 grammar in one iterative pass
 * that also validates strings (escapes, surrogate pairs, UTF-8), numbers and
 * literals, and enforces the depth and token limits. That pass yields the
 * exact token count, so jsmn then tokenizes into an array of exactly that
 * size. Finally each container's children are indexed (lookups never rescan
 * subtrees) and objects are checked for duplicate keys by sorting their
 * unescaped keys.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/json.h"

/* Longest number literal accepted; longer ones are ALX_ERR_RANGE. */
#define JSON_MAX_NUMLEN	64

struct alx_json {
	char		*text;		/* copy of the input, + NUL */
	size_t		 len;
	jsmntok_t	*tok;
	int		 ntok;
	int		*kidoff;	/* container: first child in kids */
	int		*kids;		/* children of containers */
};

/* State of the grammar pass. */
struct json_scan {
	const uint8_t	*p;
	const uint8_t	*end;
	uint8_t		*stack;		/* { or [ per level */
	size_t		 depth;
	size_t		 max_depth;
	size_t		 ntok;
	size_t		 max_tokens;
};

/* A key after unescaping, for the duplicate check. */
struct json_key {
	const uint8_t	*p;
	size_t		 n;
};

static int
json_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Four hex digits at p (at least 4 bytes available), or -1. */
static long
json_hex4(const uint8_t *p)
{
	long	v = 0;
	int	i, h;

	for (i = 0; i < 4; i++) {
		if ((h = json_hexval(p[i])) < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

/* Length of the valid UTF-8 sequence at p (n bytes available), or 0. */
static size_t
json_utf8_seq(const uint8_t *p, size_t n)
{
	uint8_t	c = p[0];
	size_t	len, i;
	uint8_t	lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;		/* overlong */
		else if (c == 0xed)
			hi = 0x9f;		/* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;		/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;		/* > U+10FFFF */
	} else
		return 0;
	if (n < len)
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

int
alx_utf8_valid(const uint8_t *p, size_t n)
{
	size_t	i = 0, l;

	if (p == NULL && n != 0)
		return ALX_ERR_INVALID;
	while (i < n) {
		if ((l = json_utf8_seq(p + i, n - i)) == 0)
			return ALX_ERR_BAD_UTF8;
		i += l;
	}
	return 0;
}

/* --- The grammar pass. */

static void
json_skip_ws(struct json_scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
	    *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static int
json_count_token(struct json_scan *s)
{
	if (++s->ntok > s->max_tokens)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

/* A \u escape at s->p (after the backslash and 'u'). */
static int
json_scan_uescape(struct json_scan *s)
{
	long	cp, lo;

	if (s->end - s->p < 4 || (cp = json_hex4(s->p)) < 0)
		return ALX_ERR_BAD_JSON;
	s->p += 4;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return ALX_ERR_BAD_UTF8;		/* lone low surrogate */
	if (cp < 0xd800 || cp > 0xdbff)
		return 0;
	/* A high surrogate must be followed by an escaped low one. */
	if (s->end - s->p < 6 || s->p[0] != '\\' || s->p[1] != 'u')
		return ALX_ERR_BAD_UTF8;
	if ((lo = json_hex4(s->p + 2)) < 0)
		return ALX_ERR_BAD_JSON;
	if (lo < 0xdc00 || lo > 0xdfff)
		return ALX_ERR_BAD_UTF8;
	s->p += 6;
	return 0;
}

/* A string; s->p is on the opening quote. */
static int
json_scan_string(struct json_scan *s)
{
	size_t	l;
	int	r;

	s->p++;
	while (s->p < s->end) {
		if (*s->p == '"') {
			s->p++;
			return 0;
		}
		if (*s->p < 0x20)
			return ALX_ERR_BAD_JSON;
		if (*s->p == '\\') {
			if (s->end - s->p < 2)
				return ALX_ERR_BAD_JSON;
			s->p += 2;
			switch (s->p[-1]) {
			case '"': case '\\': case '/': case 'b': case 'f':
			case 'n': case 'r': case 't':
				break;
			case 'u':
				if ((r = json_scan_uescape(s)) != 0)
					return r;
				break;
			default:
				return ALX_ERR_BAD_JSON;
			}
			continue;
		}
		if ((l = json_utf8_seq(s->p, (size_t)(s->end - s->p))) == 0)
			return ALX_ERR_BAD_UTF8;
		s->p += l;
	}
	return ALX_ERR_BAD_JSON;		/* unterminated */
}

static int
json_is_digit(const struct json_scan *s)
{
	return s->p < s->end && *s->p >= '0' && *s->p <= '9';
}

/* A number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static int
json_scan_number(struct json_scan *s)
{
	const uint8_t	*start = s->p;

	if (*s->p == '-')
		s->p++;
	if (!json_is_digit(s))
		return ALX_ERR_BAD_JSON;
	if (*s->p++ != '0')
		while (json_is_digit(s))
			s->p++;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (!json_is_digit(s))
			return ALX_ERR_BAD_JSON;
		while (json_is_digit(s))
			s->p++;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (!json_is_digit(s))
			return ALX_ERR_BAD_JSON;
		while (json_is_digit(s))
			s->p++;
	}
	if (s->p - start > JSON_MAX_NUMLEN)
		return ALX_ERR_RANGE;
	return 0;
}

static int
json_scan_literal(struct json_scan *s, const char *lit)
{
	size_t	n = strlen(lit);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, lit, n) != 0)
		return ALX_ERR_BAD_JSON;
	s->p += n;
	return 0;
}

static int
json_scan_open(struct json_scan *s, uint8_t c)
{
	if (s->depth >= s->max_depth)
		return ALX_ERR_TOO_DEEP;
	s->stack[s->depth++] = c;
	s->p++;
	return 0;
}

/*
 * One value that is not a container, or the opening of a container. On
 * return *opened tells whether a container was opened.
 */
static int
json_scan_value(struct json_scan *s, int *opened)
{
	int	r;

	*opened = 0;
	json_skip_ws(s);
	if (s->p >= s->end)
		return ALX_ERR_BAD_JSON;
	if ((r = json_count_token(s)) != 0)
		return r;
	switch (*s->p) {
	case '{':
	case '[':
		*opened = 1;
		return json_scan_open(s, *s->p);
	case '"':
		return json_scan_string(s);
	case 't':
		return json_scan_literal(s, "true");
	case 'f':
		return json_scan_literal(s, "false");
	case 'n':
		return json_scan_literal(s, "null");
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return json_scan_number(s);
	default:
		return ALX_ERR_BAD_JSON;
	}
}

/* A key and its colon. */
static int
json_scan_key(struct json_scan *s)
{
	int	r;

	json_skip_ws(s);
	if (s->p >= s->end || *s->p != '"')
		return ALX_ERR_BAD_JSON;
	if ((r = json_count_token(s)) != 0)
		return r;
	if ((r = json_scan_string(s)) != 0)
		return r;
	json_skip_ws(s);
	if (s->p >= s->end || *s->p != ':')
		return ALX_ERR_BAD_JSON;
	s->p++;
	return 0;
}

/*
 * After a value: close containers and find where the next value starts.
 * Returns 1 when another value (or a member) follows, 0 at the end of the
 * top-level value.
 */
static int
json_scan_after(struct json_scan *s)
{
	uint8_t	top;
	int	r;

	for (;;) {
		json_skip_ws(s);
		if (s->depth == 0)
			return s->p == s->end ? 0 : ALX_ERR_BAD_JSON;
		if (s->p >= s->end)
			return ALX_ERR_BAD_JSON;
		top = s->stack[s->depth - 1];
		if (*s->p == ',') {
			s->p++;
			if (top == '{' && (r = json_scan_key(s)) != 0)
				return r;
			return 1;
		}
		if (*s->p != (top == '{' ? '}' : ']'))
			return ALX_ERR_BAD_JSON;
		s->p++;
		s->depth--;
	}
}

static int
json_scan(struct json_scan *s)
{
	int	r, opened;

	for (;;) {
		if ((r = json_scan_value(s, &opened)) != 0)
			return r;
		if (opened) {
			json_skip_ws(s);
			if (s->p < s->end &&
			    *s->p == (s->stack[s->depth - 1] == '{' ?
			    '}' : ']')) {
				s->p++;
				s->depth--;
			} else if (s->stack[s->depth - 1] == '{') {
				if ((r = json_scan_key(s)) != 0)
					return r;
				continue;
			} else
				continue;
		}
		if ((r = json_scan_after(s)) <= 0)
			return r;
	}
}

/* --- Unescaping. */

/*
 * Decode one unit of a validated string body at *pp (before end) into u:
 * a raw byte or an escape. Returns the number of bytes written (1 to 4).
 */
static size_t
json_unit(const char **pp, const char *end, uint8_t u[4])
{
	const uint8_t	*p = (const uint8_t *)*pp;
	long		 cp, lo;

	if (*p != '\\' || end - *pp < 2) {
		u[0] = *p;
		*pp += 1;
		return 1;
	}
	*pp += 2;
	switch (p[1]) {
	case 'b': u[0] = '\b'; return 1;
	case 'f': u[0] = '\f'; return 1;
	case 'n': u[0] = '\n'; return 1;
	case 'r': u[0] = '\r'; return 1;
	case 't': u[0] = '\t'; return 1;
	case 'u': break;
	default: u[0] = p[1]; return 1;
	}
	if (end - *pp < 4 || (cp = json_hex4(p + 2)) < 0) {
		u[0] = '?';		/* not reached: validated */
		return 1;
	}
	*pp += 4;
	if (cp >= 0xd800 && cp <= 0xdbff && end - *pp >= 6 && p[6] == '\\' &&
	    p[7] == 'u' && (lo = json_hex4(p + 8)) >= 0xdc00 && lo <= 0xdfff) {
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		*pp += 6;
	}
	if (cp < 0x80) {
		u[0] = (uint8_t)cp;
		return 1;
	}
	if (cp < 0x800) {
		u[0] = (uint8_t)(0xc0 | cp >> 6);
		u[1] = (uint8_t)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		u[0] = (uint8_t)(0xe0 | cp >> 12);
		u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (uint8_t)(0x80 | (cp & 0x3f));
		return 3;
	}
	u[0] = (uint8_t)(0xf0 | cp >> 18);
	u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
	u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
	u[3] = (uint8_t)(0x80 | (cp & 0x3f));
	return 4;
}

/* Unescape a string body into out (room for end - p bytes); its length. */
static size_t
json_unescape(const char *p, const char *end, uint8_t *out)
{
	size_t	n = 0;

	while (p < end)
		n += json_unit(&p, end, out + n);
	return n;
}

/* --- Parsing. */

static int
json_tokenize(struct alx_json *j)
{
	jsmn_parser	parser;
	int		r;

	if ((j->tok = calloc((size_t)j->ntok, sizeof(*j->tok))) == NULL)
		return ALX_ERR_NOMEM;
	jsmn_init(&parser);
	/*
	 * In strict mode jsmn wants a delimiter after a primitive, even at
	 * the very end; the copy carries one extra space for that.
	 */
	r = jsmn_parse(&parser, j->text, j->len + 1, j->tok,
	    (unsigned)j->ntok);
	if (r != j->ntok || j->tok[0].parent != -1)
		return ALX_ERR_BAD_JSON;	/* the two parsers disagree */
	return 0;
}

/* Index each container's children: kids[kidoff[c] .. + size). */
static int
json_index(struct alx_json *j)
{
	int	*fill, i, p, off = 0;
	size_t	 n = (size_t)j->ntok;

	if ((j->kidoff = calloc(n, sizeof(int))) == NULL ||
	    (j->kids = calloc(n, sizeof(int))) == NULL ||
	    (fill = calloc(n, sizeof(int))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < j->ntok; i++) {
		if (j->tok[i].type != JSMN_OBJECT &&
		    j->tok[i].type != JSMN_ARRAY)
			continue;
		if (j->tok[i].size < 0 || j->tok[i].size > j->ntok - off) {
			free(fill);
			return ALX_ERR_BAD_JSON;
		}
		j->kidoff[i] = off;
		off += j->tok[i].size;
	}
	for (i = 1; i < j->ntok; i++) {
		p = j->tok[i].parent;
		if (p < 0 || p >= i) {
			free(fill);
			return ALX_ERR_BAD_JSON;
		}
		if (j->tok[p].type != JSMN_OBJECT &&
		    j->tok[p].type != JSMN_ARRAY)
			continue;		/* a value under its key */
		if (fill[p] >= j->tok[p].size) {
			free(fill);
			return ALX_ERR_BAD_JSON;
		}
		j->kids[j->kidoff[p] + fill[p]++] = i;
	}
	for (i = 0; i < j->ntok; i++)
		if ((j->tok[i].type == JSMN_OBJECT ||
		    j->tok[i].type == JSMN_ARRAY) && fill[i] != j->tok[i].size)
			break;
	free(fill);
	return i == j->ntok ? 0 : ALX_ERR_BAD_JSON;
}

static int
json_key_cmp(const void *a, const void *b)
{
	const struct json_key	*x = a, *y = b;
	size_t			 n = x->n < y->n ? x->n : y->n;
	int			 c;

	if (n != 0 && (c = memcmp(x->p, y->p, n)) != 0)
		return c;
	return (x->n > y->n) - (x->n < y->n);
}

/* Reject objects with two keys that are equal after unescaping. */
static int
json_check_dups(struct alx_json *j)
{
	struct json_key	*keys = NULL;
	uint8_t		*scratch = NULL, *w;
	const jsmntok_t	*t;
	int		 i, k, size, r = 0;

	if ((scratch = malloc(j->len + 1)) == NULL ||
	    (keys = calloc((size_t)j->ntok, sizeof(*keys))) == NULL) {
		r = ALX_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < j->ntok && r == 0; i++) {
		if (j->tok[i].type != JSMN_OBJECT || j->tok[i].size < 2)
			continue;
		size = j->tok[i].size;
		w = scratch;
		for (k = 0; k < size; k++) {
			t = &j->tok[j->kids[j->kidoff[i] + k]];
			keys[k].p = w;
			keys[k].n = json_unescape(j->text + t->start,
			    j->text + t->end, w);
			w += keys[k].n;
		}
		qsort(keys, (size_t)size, sizeof(*keys), json_key_cmp);
		for (k = 1; k < size; k++)
			if (json_key_cmp(&keys[k - 1], &keys[k]) == 0)
				r = ALX_ERR_DUP_KEY;
	}
out:
	free(keys);
	free(scratch);
	return r;
}

static int
json_check(const char *text, size_t len, const struct alx_json_limits *l,
    size_t *ntokp)
{
	struct json_scan	s;
	size_t			depth;
	int			r;

	memset(&s, 0, sizeof(s));
	s.p = (const uint8_t *)text;
	s.end = s.p + len;
	s.max_depth = l->max_depth;
	s.max_tokens = l->max_tokens;
	depth = s.max_depth < len ? s.max_depth : len;
	if ((s.stack = malloc(depth + 1)) == NULL)
		return ALX_ERR_NOMEM;
	r = json_scan(&s);
	free(s.stack);
	*ntokp = s.ntok;
	return r;
}

void
alx_json_free(struct alx_json *j)
{
	if (j == NULL)
		return;
	free(j->text);
	free(j->tok);
	free(j->kidoff);
	free(j->kids);
	free(j);
}

int
alx_json_parse(struct alx_json **out, const char *text, size_t len,
    const struct alx_json_limits *limits)
{
	struct alx_json_limits	 l;
	struct alx_json		*j;
	size_t			 ntok;
	int			 r;

	if (out == NULL)
		return ALX_ERR_INVALID;
	*out = NULL;
	if (text == NULL)
		return ALX_ERR_INVALID;
	l.max_bytes = ALX_JSON_DEFAULT_MAX_BYTES;
	l.max_depth = ALX_JSON_DEFAULT_MAX_DEPTH;
	l.max_tokens = ALX_JSON_DEFAULT_MAX_TOKENS;
	if (limits != NULL) {	/* a zero field keeps the default */
		if (limits->max_bytes != 0)
			l.max_bytes = limits->max_bytes;
		if (limits->max_depth != 0)
			l.max_depth = limits->max_depth;
		if (limits->max_tokens != 0)
			l.max_tokens = limits->max_tokens;
	}
	if (l.max_tokens > INT_MAX - 1)	/* jsmn counts in int */
		l.max_tokens = INT_MAX - 1;
	if (len > l.max_bytes || len > INT_MAX - 2)
		return ALX_ERR_TOO_LARGE;
	if (memchr(text, '\0', len) != NULL)
		return ALX_ERR_BAD_JSON;
	if ((r = json_check(text, len, &l, &ntok)) != 0)
		return r;

	if ((j = calloc(1, sizeof(*j))) == NULL)
		return ALX_ERR_NOMEM;
	if ((j->text = malloc(len + 2)) == NULL) {
		free(j);
		return ALX_ERR_NOMEM;
	}
	memcpy(j->text, text, len);
	j->text[len] = ' ';
	j->text[len + 1] = '\0';
	j->len = len;
	j->ntok = (int)ntok;
	if ((r = json_tokenize(j)) != 0 || (r = json_index(j)) != 0 ||
	    (r = json_check_dups(j)) != 0) {
		alx_json_free(j);
		return r;
	}
	j->text[len] = '\0';
	*out = j;
	return 0;
}

/* --- Access. */

static const jsmntok_t *
json_tok(const struct alx_json *j, int tok)
{
	if (j == NULL || tok < 0 || tok >= j->ntok)
		return NULL;
	return &j->tok[tok];
}

int
alx_json_type(const struct alx_json *j, int tok)
{
	const jsmntok_t	*t;

	if ((t = json_tok(j, tok)) == NULL)
		return -1;
	switch (t->type) {
	case JSMN_OBJECT:
		return ALX_JSON_OBJECT;
	case JSMN_ARRAY:
		return ALX_JSON_ARRAY;
	case JSMN_STRING:
		return ALX_JSON_STRING;
	case JSMN_PRIMITIVE:
		switch (j->text[t->start]) {
		case 't':
		case 'f':
			return ALX_JSON_BOOL;
		case 'n':
			return ALX_JSON_NULL;
		default:
			return ALX_JSON_NUMBER;
		}
	default:
		return -1;
	}
}

/* Token checked to be of the given container type, or an error. */
static int
json_container(const struct alx_json *j, int tok, int type)
{
	int	t;

	if ((t = alx_json_type(j, tok)) < 0)
		return ALX_ERR_INVALID;
	return t == type ? 0 : ALX_ERR_TYPE;
}

int
alx_json_obj_len(const struct alx_json *j, int obj)
{
	int	r;

	if ((r = json_container(j, obj, ALX_JSON_OBJECT)) != 0)
		return r;
	return j->tok[obj].size;
}

int
alx_json_arr_len(const struct alx_json *j, int arr)
{
	int	r;

	if ((r = json_container(j, arr, ALX_JSON_ARRAY)) != 0)
		return r;
	return j->tok[arr].size;
}

int
alx_json_obj_at(const struct alx_json *j, int obj, int i, int *keytok,
    int *valtok)
{
	int	r, k;

	if ((r = json_container(j, obj, ALX_JSON_OBJECT)) != 0)
		return r;
	if (i < 0 || i >= j->tok[obj].size)
		return ALX_ERR_RANGE;
	k = j->kids[j->kidoff[obj] + i];
	if (keytok != NULL)
		*keytok = k;
	if (valtok != NULL)
		*valtok = k + 1;	/* a value follows its key */
	return 0;
}

int
alx_json_arr_at(const struct alx_json *j, int arr, int i)
{
	if (json_container(j, arr, ALX_JSON_ARRAY) != 0 || i < 0 ||
	    i >= j->tok[arr].size)
		return -1;
	return j->kids[j->kidoff[arr] + i];
}

int
alx_json_str_eq(const struct alx_json *j, int tok, const char *s)
{
	const jsmntok_t	*t;
	const char	*p, *end;
	uint8_t		 u[4];
	size_t		 n;

	if ((t = json_tok(j, tok)) == NULL || t->type != JSMN_STRING ||
	    s == NULL)
		return 0;
	p = j->text + t->start;
	end = j->text + t->end;
	while (p < end) {
		n = json_unit(&p, end, u);
		/* s ends at its NUL; a decoded NUL never matches it. */
		if (strncmp(s, (const char *)u, n) != 0 || memchr(u, 0, n))
			return 0;
		s += n;
	}
	return *s == '\0';
}

int
alx_json_obj_get(const struct alx_json *j, int obj, const char *key)
{
	int	i, k;

	if (key == NULL || json_container(j, obj, ALX_JSON_OBJECT) != 0)
		return -1;
	for (i = 0; i < j->tok[obj].size; i++) {
		k = j->kids[j->kidoff[obj] + i];
		if (alx_json_str_eq(j, k, key))
			return k + 1;
	}
	return -1;
}

int
alx_json_has(const struct alx_json *j, int obj, const char *key)
{
	return alx_json_obj_get(j, obj, key) >= 0;
}

int
alx_json_str(const struct alx_json *j, int tok, char **out, size_t *lenp)
{
	const jsmntok_t	*t;
	char		*s;
	size_t		 n;

	if (out == NULL)
		return ALX_ERR_INVALID;
	*out = NULL;
	if (lenp != NULL)
		*lenp = 0;
	if ((t = json_tok(j, tok)) == NULL)
		return ALX_ERR_INVALID;
	if (t->type != JSMN_STRING)
		return ALX_ERR_TYPE;
	if ((s = malloc((size_t)(t->end - t->start) + 1)) == NULL)
		return ALX_ERR_NOMEM;
	n = json_unescape(j->text + t->start, j->text + t->end, (uint8_t *)s);
	s[n] = '\0';
	/* Without a length the caller cannot see an escaped NUL: refuse. */
	if (lenp == NULL && memchr(s, '\0', n) != NULL) {
		free(s);
		return ALX_ERR_INVALID;
	}
	*out = s;
	if (lenp != NULL)
		*lenp = n;
	return 0;
}

int
alx_json_raw(const struct alx_json *j, int tok, const char **p,
    size_t *lenp)
{
	const jsmntok_t	*t;
	int		 q;

	if ((t = json_tok(j, tok)) == NULL || p == NULL || lenp == NULL)
		return ALX_ERR_INVALID;
	q = t->type == JSMN_STRING;	/* include the quotes */
	*p = j->text + t->start - q;
	*lenp = (size_t)(t->end - t->start + 2 * q);
	return 0;
}

int
alx_json_int(const struct alx_json *j, int tok, int64_t *out)
{
	const jsmntok_t	*t;
	const char	*p, *end;
	int64_t		 v = 0;
	int		 neg = 0;

	if (out == NULL || (t = json_tok(j, tok)) == NULL)
		return ALX_ERR_INVALID;
	if (alx_json_type(j, tok) != ALX_JSON_NUMBER)
		return ALX_ERR_TYPE;
	p = j->text + t->start;
	end = j->text + t->end;
	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (memchr(p, '.', (size_t)(end - p)) != NULL ||
	    memchr(p, 'e', (size_t)(end - p)) != NULL ||
	    memchr(p, 'E', (size_t)(end - p)) != NULL)
		return ALX_ERR_TYPE;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return ALX_ERR_TYPE;
		v = v * 10 + (*p - '0');
		if (v > ALX_JSON_INT_MAX)
			return ALX_ERR_RANGE;
	}
	*out = neg ? -v : v;
	return 0;
}

int
alx_json_bool(const struct alx_json *j, int tok, int *out)
{
	const jsmntok_t	*t;

	if (out == NULL || (t = json_tok(j, tok)) == NULL)
		return ALX_ERR_INVALID;
	if (alx_json_type(j, tok) != ALX_JSON_BOOL)
		return ALX_ERR_TYPE;
	*out = j->text[t->start] == 't';
	return 0;
}

/* --- Member getters. */

/* Value token of a member, or an error. */
static int
json_member(const struct alx_json *j, int obj, const char *key, int type)
{
	int	r, v;

	if (key == NULL)
		return ALX_ERR_INVALID;
	if ((r = json_container(j, obj, ALX_JSON_OBJECT)) != 0)
		return r;
	if ((v = alx_json_obj_get(j, obj, key)) < 0)
		return ALX_ERR_MISSING;
	if (type != 0 && alx_json_type(j, v) != type)
		return ALX_ERR_TYPE;
	return v;
}

int
alx_json_get_str(const struct alx_json *j, int obj, const char *key,
    char **out, size_t maxlen)
{
	char	*s;
	size_t	 n;
	int	 v, r;

	if (out == NULL)
		return ALX_ERR_INVALID;
	*out = NULL;
	if ((v = json_member(j, obj, key, ALX_JSON_STRING)) < 0)
		return v;
	if ((r = alx_json_str(j, v, &s, &n)) != 0)
		return r;
	if (n > maxlen) {
		free(s);
		return ALX_ERR_TOO_LARGE;
	}
	if (memchr(s, '\0', n) != NULL) {	/* escaped NUL: see above */
		free(s);
		return ALX_ERR_INVALID;
	}
	*out = s;
	return 0;
}

int
alx_json_get_int(const struct alx_json *j, int obj, const char *key,
    int64_t *out, int64_t min, int64_t max)
{
	int64_t	x;
	int	v, r;

	if (out == NULL)
		return ALX_ERR_INVALID;
	if ((v = json_member(j, obj, key, ALX_JSON_NUMBER)) < 0)
		return v;
	if ((r = alx_json_int(j, v, &x)) != 0)
		return r;
	if (x < min || x > max)
		return ALX_ERR_RANGE;
	*out = x;
	return 0;
}

int
alx_json_get_bool(const struct alx_json *j, int obj, const char *key,
    int *out)
{
	int	v;

	if (out == NULL)
		return ALX_ERR_INVALID;
	if ((v = json_member(j, obj, key, ALX_JSON_BOOL)) < 0)
		return v;
	return alx_json_bool(j, v, out);
}

int
alx_json_get_b64(const struct alx_json *j, int obj, const char *key,
    uint8_t *out, size_t want)
{
	const jsmntok_t	*t;
	int		 v;

	if (out == NULL && want != 0)
		return ALX_ERR_INVALID;
	if ((v = json_member(j, obj, key, ALX_JSON_STRING)) < 0)
		return v;
	/* The raw body: an escape is not in the alphabet, so it fails. */
	t = &j->tok[v];
	return alx_b64_decode_exact(out, want, j->text + t->start,
	    (size_t)(t->end - t->start));
}

int
alx_json_get_b64_alloc(const struct alx_json *j, int obj, const char *key,
    uint8_t **out, size_t *lenp, size_t max)
{
	const jsmntok_t	*t;
	uint8_t		*p;
	size_t		 inlen, need, got;
	int		 v, r;

	if (out == NULL || lenp == NULL)
		return ALX_ERR_INVALID;
	*out = NULL;
	*lenp = 0;
	if ((v = json_member(j, obj, key, ALX_JSON_STRING)) < 0)
		return v;
	t = &j->tok[v];
	inlen = (size_t)(t->end - t->start);
	if (inlen % 4 == 1)
		return ALX_ERR_BAD_BASE64;
	need = ALX_B64_DECLEN(inlen);
	if (need > max)
		return ALX_ERR_TOO_LARGE;
	if ((p = malloc(need + 1)) == NULL)
		return ALX_ERR_NOMEM;
	if ((r = alx_b64_decode(p, need, &got, j->text + t->start,
	    inlen)) != 0) {
		free(p);
		return r;
	}
	p[got] = '\0';		/* bodies are used as text: terminate */
	*out = p;
	*lenp = got;
	return 0;
}
