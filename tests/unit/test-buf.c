/* test-buf.c: alx_buf caps, growth, NUL termination, reset, steal, free. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/buf.h"
#include "tap.h"

static void
test_cap(void)
{
	struct alx_buf	b;

	alx_buf_init(&b, 10);
	is_int(alx_buf_add(&b, "0123456789", 10), 0, "fill to the cap");
	is_int(b.len, 10, "len is the cap");
	ok(b.data[10] == '\0', "NUL after the data");
	is_int(alx_buf_addc(&b, 'x'), ALX_ERR_TOO_LARGE,
	    "one byte past the cap");
	is_int(alx_buf_add(&b, "", 0), 0, "empty add at the cap");
	is_int(b.len, 10, "failed add leaves len");
	is_str((char *)b.data, "0123456789", "failed add leaves the bytes");
	is_int(alx_buf_printf(&b, "%d", 1), ALX_ERR_TOO_LARGE,
	    "printf past the cap");
	is_str((char *)b.data, "0123456789", "failed printf leaves the bytes");
	alx_buf_free(&b);
	is_int(b.max, 10, "free keeps the cap");
	ok(b.data == NULL && b.len == 0 && b.cap == 0, "free re-inits");

	alx_buf_init(&b, 10);
	is_int(alx_buf_add(&b, "01234", 5), 0, "half");
	is_int(alx_buf_add(&b, "abcdef", 6), ALX_ERR_TOO_LARGE,
	    "a chunk crossing the cap fails whole");
	is_str((char *)b.data, "01234", "... and adds nothing");
	is_int(alx_buf_reserve(&b, SIZE_MAX), ALX_ERR_TOO_LARGE,
	    "reserve SIZE_MAX");
	is_int(alx_buf_reserve(&b, SIZE_MAX - 2), ALX_ERR_TOO_LARGE,
	    "reserve that would overflow len + more");
	is_int(alx_buf_add(&b, "abcde", 5), 0, "exactly to the cap");
	alx_buf_free(&b);
}

static void
test_default_cap(void)
{
	struct alx_buf	b;

	alx_buf_init(&b, 0);
	is_int(alx_buf_reserve(&b, ALX_BUF_DEFAULT_MAX + 1), ALX_ERR_TOO_LARGE,
	    "max 0 means the default cap");
	is_int(alx_buf_reserve(&b, 1000), 0, "small reserve under the default");
	ok(b.cap >= 1001, "reserve leaves room for the NUL");
	alx_buf_free(&b);

	alx_buf_init(&b, SIZE_MAX);
	is_int(alx_buf_addstr(&b, "no cap"), 0, "max SIZE_MAX works");
	is_int(alx_buf_reserve(&b, SIZE_MAX - 6), ALX_ERR_TOO_LARGE,
	    "max SIZE_MAX: no room left for the NUL");
	alx_buf_free(&b);

	memset(&b, 0, sizeof(b));
	is_int(alx_buf_addstr(&b, "zeroed struct"), 0,
	    "a zeroed struct works as an empty buffer");
	is_str((char *)b.data, "zeroed struct", "... with its content");
	alx_buf_free(&b);
}

static void
test_growth(void)
{
	struct alx_buf	b;
	size_t		i;
	int		good = 1;

	alx_buf_init(&b, 100000);
	for (i = 0; i < 100000; i++)
		if (alx_buf_addc(&b, (uint8_t)(i % 251)) != 0)
			good = 0;
	ok(good, "100000 single-byte adds up to the cap");
	is_int(alx_buf_addc(&b, 0), ALX_ERR_TOO_LARGE, "then full");
	for (i = 0; i < 100000; i++)
		if (b.data[i] != (uint8_t)(i % 251))
			good = 0;
	ok(good && b.data[100000] == '\0', "bytes survive every regrowth");
	ok(b.cap <= 100001, "capacity never exceeds the cap plus the NUL");
	alx_buf_free(&b);

	alx_buf_init(&b, 0);
	is_int(alx_buf_printf(&b, "%s-%d-%0200d", "x", 7, 5), 0, "long printf");
	is_int(b.len, 1 + 1 + 1 + 1 + 200, "printf length");
	ok(b.data[0] == 'x' && b.data[3] == '-' && b.data[203] == '5' &&
	    b.data[204] == '\0', "printf content");
	is_int(alx_buf_printf(&b, "%s", ""), 0, "empty printf");
	is_int(b.len, 204, "empty printf adds nothing");
	alx_buf_free(&b);
}

static void
test_misc(void)
{
	struct alx_buf	 b;
	uint8_t		*p, *old;
	size_t		 len, cap, i;
	int		 zero = 1;

	alx_buf_init(&b, 64);
	is_int(alx_buf_add(&b, NULL, 0), 0, "add NULL, 0");
	is_int(alx_buf_add(&b, NULL, 1), ALX_ERR_INVALID, "add NULL, 1");
	is_int(alx_buf_addstr(&b, NULL), ALX_ERR_INVALID, "addstr NULL");
	is_int(alx_buf_addstr(&b, "secret"), 0, "addstr");
	old = b.data;
	cap = b.cap;
	alx_buf_reset(&b);
	ok(b.len == 0 && b.data == old && b.cap == cap, "reset keeps memory");
	for (i = 0; i < 6; i++)
		if (old[i] != 0)
			zero = 0;
	ok(zero, "reset wipes the old bytes");
	is_int(alx_buf_addstr(&b, "abc"), 0, "add after reset");
	p = alx_buf_steal(&b, &len);
	ok(p != NULL && len == 3 && strcmp((char *)p, "abc") == 0,
	    "steal hands out the NUL-terminated bytes");
	ok(b.data == NULL && b.len == 0 && b.max == 64, "steal re-inits");
	free(p);
	p = alx_buf_steal(&b, &len);
	ok(p != NULL && len == 0 && p[0] == '\0', "steal of an empty buffer");
	free(p);
	alx_buf_free(&b);
	alx_buf_free(&b);
	ok(b.data == NULL, "double free is harmless");
}

int
main(void)
{
	test_cap();
	test_default_cap();
	test_growth();
	test_misc();
	return tap_done();
}
