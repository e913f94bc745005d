/*
 * alx_buf.c: growable byte buffers with a hard cap.
 *
 * The cap (max) bounds len, the number of data bytes; one more byte is
 * always allocated for the terminating NUL. Growing never uses realloc():
 * the old block is wiped before it is freed, so secrets held in a buffer do
 * not linger in freed memory.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "airlox/err.h"
#include "airlox/buf.h"

/* The cap in effect; one byte is kept for the NUL. */
static size_t
buf_max(const struct alx_buf *b)
{
	if (b->max == 0)
		return ALX_BUF_DEFAULT_MAX;
	return b->max < SIZE_MAX ? b->max : SIZE_MAX - 1;
}

void
alx_buf_init(struct alx_buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

void
alx_buf_free(struct alx_buf *b)
{
	size_t	max = b->max;

	if (b->data != NULL) {
		sodium_memzero(b->data, b->cap);
		free(b->data);
	}
	alx_buf_init(b, max);
}

void
alx_buf_reset(struct alx_buf *b)
{
	if (b->data != NULL) {
		sodium_memzero(b->data, b->len);
		b->data[0] = '\0';
	}
	b->len = 0;
}

int
alx_buf_reserve(struct alx_buf *b, size_t more)
{
	size_t	 max = buf_max(b), want, ncap;
	uint8_t	*n;

	if (b->len > max || more > max - b->len)
		return ALX_ERR_TOO_LARGE;
	want = b->len + more + 1;	/* <= max + 1: no overflow */
	if (b->data != NULL && want <= b->cap)
		return 0;
	ncap = b->cap < 64 ? 64 : b->cap;
	while (ncap < want)
		ncap = ncap > SIZE_MAX / 2 ? SIZE_MAX : ncap * 2;
	if (ncap > max + 1)
		ncap = max + 1;
	if ((n = malloc(ncap)) == NULL)
		return ALX_ERR_NOMEM;
	if (b->data != NULL) {
		memcpy(n, b->data, b->len);
		sodium_memzero(b->data, b->cap);
		free(b->data);
	}
	n[b->len] = '\0';
	b->data = n;
	b->cap = ncap;
	return 0;
}

int
alx_buf_add(struct alx_buf *b, const void *p, size_t n)
{
	int	r;

	if (p == NULL && n != 0)
		return ALX_ERR_INVALID;
	if ((r = alx_buf_reserve(b, n)) != 0)
		return r;
	if (n != 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
alx_buf_addstr(struct alx_buf *b, const char *s)
{
	if (s == NULL)
		return ALX_ERR_INVALID;
	return alx_buf_add(b, s, strlen(s));
}

int
alx_buf_addc(struct alx_buf *b, uint8_t c)
{
	return alx_buf_add(b, &c, 1);
}

int
alx_buf_printf(struct alx_buf *b, const char *fmt, ...)
{
	va_list	ap;
	int	n, r;

	if (fmt == NULL)
		return ALX_ERR_INVALID;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return ALX_ERR_INVALID;
	if ((r = alx_buf_reserve(b, (size_t)n)) != 0)
		return r;
	va_start(ap, fmt);
	r = vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	if (r != n) {
		b->data[b->len] = '\0';
		return ALX_ERR_INVALID;
	}
	b->len += (size_t)n;
	return 0;
}

uint8_t *
alx_buf_steal(struct alx_buf *b, size_t *lenp)
{
	uint8_t	*p;
	size_t	 len = b->len;

	if (b->data == NULL) {
		if ((p = malloc(1)) == NULL)
			return NULL;
		p[0] = '\0';
	} else
		p = b->data;
	if (lenp != NULL)
		*lenp = len;
	alx_buf_init(b, b->max);
	return p;
}
