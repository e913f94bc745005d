/*
 * tap.h: a tiny TAP producer for the unit tests (header only).
 *
 *	int main(void) {
 *		ok(1 + 1 == 2, "arithmetic");
 *		is_int(f(), ALX_OK, "f succeeds");
 *		return tap_done();
 *	}
 *
 * The plan is printed at the end ("1..N"). tap_skip_all() prints a TAP "skip all" plan with the
 * reason, which automake's driver reports as a skip.
 */
#ifndef ALX_TAP_H
#define ALX_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static int __attribute__((format(printf, 2, 3), unused))
tap_ok(int cond, const char *fmt, ...)
{
	va_list	ap;

	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

#define ok(cond, ...)	tap_ok(!!(cond), __VA_ARGS__)

#define is_int(got, want, ...) do {					\
	long long tap_g_ = (long long)(got), tap_w_ = (long long)(want);\
	if (!tap_ok(tap_g_ == tap_w_, __VA_ARGS__))			\
		printf("#   %s:%d: got %lld, want %lld\n", __FILE__,	\
		    __LINE__, tap_g_, tap_w_);				\
} while (0)

#define is_str(got, want, ...) do {					\
	const char *tap_g_ = (got), *tap_w_ = (want);			\
	int tap_c_ = tap_g_ != NULL && tap_w_ != NULL &&		\
	    strcmp(tap_g_, tap_w_) == 0;				\
	if (!tap_ok(tap_c_, __VA_ARGS__))				\
		printf("#   %s:%d: got \"%s\", want \"%s\"\n", __FILE__,\
		    __LINE__, tap_g_ ? tap_g_ : "(null)",		\
		    tap_w_ ? tap_w_ : "(null)");			\
} while (0)

#define is_mem(got, want, n, ...)					\
	tap_ok(memcmp((got), (want), (n)) == 0, __VA_ARGS__)

static void __attribute__((format(printf, 1, 2), unused))
tap_diag(const char *fmt, ...)
{
	va_list	ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void __attribute__((noreturn, unused))
tap_skip_all(const char *reason)
{
	printf("1..0 # SKIP %s\n", reason);
	exit(0);
}

static int __attribute__((unused))
tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* ALX_TAP_H */
