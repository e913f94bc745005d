/*
 * alxs_err.c: failures in words, and notices.
 *
 * The library prints nothing: a function that fails for a reason people
 * should read leaves it here, with its error code and what it means for
 * the caller (enum alxs_class), and returns the code; the program prints
 * it (the client, with its exit status) or logs it (the runner). A notice
 * (a retry, a setting ignored) goes to the callback in the settings.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "airlox.h"
#include "alxs.h"

static struct alxs_error	alxs_last;

const struct alxs_error *
alxs_error(void)
{
	return &alxs_last;
}

void
alxs_error_clear(void)
{
	memset(&alxs_last, 0, sizeof(alxs_last));
}

static int
alxs_vfail(int class, int err, const char *fmt, va_list ap)
{
	alxs_last.err = err;
	alxs_last.class = class;
	vsnprintf(alxs_last.cause, sizeof(alxs_last.cause), fmt, ap);
	return err;
}

int
alxs_fail(int err, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	alxs_vfail(ALXS_FAILED, err, fmt, ap);
	va_end(ap);
	return err;
}

int
alxs_fail_class(int class, int err, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	alxs_vfail(class, err, fmt, ap);
	va_end(ap);
	return err;
}

int
alxs_err_net(int err)
{
	switch (err) {
	case ALX_ERR_IO:
	case ALX_ERR_NOT_READY:
	case ALX_ERR_RATE_LIMITED:
	case ALX_ERR_TOO_MANY_CONNS:
	case ALX_ERR_NO_SPACE:
		return 1;
	default:
		return 0;
	}
}

int
alxs_err_verify(int err)
{
	switch (err) {
	case ALX_ERR_BAD_SIGNATURE:
	case ALX_ERR_ORDER:
	case ALX_ERR_REPLAYED:
	case ALX_ERR_BAD_HASH:
	case ALX_ERR_DECRYPT:
	case ALX_ERR_KEY_COMMIT:
	case ALX_ERR_WRONG_SESSION:
	case ALX_ERR_ROLLBACK:
		return 1;
	default:
		return 0;
	}
}

const char *
alxs_a_role(int role)
{
	switch (role) {
	case ALX_ROLE_OWNER:
		return "an owner";
	case ALX_ROLE_OBSERVER:
		return "an observer";
	case ALX_ROLE_RUNNER:
		return "a runner";
	default:
		return "a sender";
	}
}

void
alxs_size(char *buf, size_t len, int64_t n)
{
	static const char	*unit[] = { "KiB", "MiB", "GiB", "TiB" };
	int64_t			 v = n;
	int			 u = -1;

	while (u < 3 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (u >= 0)
		snprintf(buf, len, "%lld %s", (long long)v, unit[u]);
	else if (n >= 1024 * 1024)
		snprintf(buf, len, "%.1f MiB (%lld bytes)",
		    (double)n / (1024.0 * 1024.0), (long long)n);
	else
		snprintf(buf, len, "%lld bytes", (long long)n);
}

void
alxs_debug(const struct alxs_http *hc, const char *fmt, ...)
{
	va_list	ap;
	char	msg[ALXS_CAUSE_MAX];

	if (hc->debug == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hc->debug(msg, hc->notice_arg);
}

void
alxs_notice(alxs_notice_cb cb, void *arg, const char *fmt, ...)
{
	va_list	ap;
	char	msg[ALXS_CAUSE_MAX];

	if (cb == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cb(msg, arg);
}
