/*
 * test-util.c: the programs' shared helpers (common/util): one reading of
 * counts, sizes and durations for every program, and the monotonic clock.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "airlox.h"
#include "util/mono.h"
#include "util/units.h"
#include "tap.h"

static void
test_units(void)
{
	static const struct {
		int		(*parse)(const char *, uint64_t *);
		const char	*what, *in;
		int		 r;
		uint64_t	 want;
	} t[] = {
		{ units_count, "count", "0", 0, 0 },
		{ units_count, "count", "42", 0, 42 },
		{ units_count, "count", "18446744073709551615", 0, UINT64_MAX },
		{ units_count, "count", "18446744073709551616", ALX_ERR_RANGE, 0 },
		{ units_count, "count", "010", ALX_ERR_INVALID, 0 },
		{ units_count, "count", "+1", ALX_ERR_INVALID, 0 },
		{ units_count, "count", "-1", ALX_ERR_INVALID, 0 },
		{ units_count, "count", " 1", ALX_ERR_INVALID, 0 },
		{ units_count, "count", "", ALX_ERR_INVALID, 0 },
		{ units_count, "count", "1k", ALX_ERR_INVALID, 0 },
		{ units_size, "size", "1048576", 0, 1048576 },
		{ units_size, "size", "512K", 0, 512 * 1024 },
		{ units_size, "size", "512k", 0, 512 * 1024 },
		{ units_size, "size", "10M", 0, 10 * 1024 * 1024 },
		{ units_size, "size", "10m", 0, 10 * 1024 * 1024 },
		{ units_size, "size", "1G", 0, 1024 * 1024 * 1024 },
		{ units_size, "size", "2T", 0, (uint64_t)2 << 40 },
		{ units_size, "size", "2t", 0, (uint64_t)2 << 40 },
		{ units_size, "size", "16777216T", ALX_ERR_RANGE, 0 },
		{ units_size, "size", "1KB", ALX_ERR_INVALID, 0 },
		{ units_size, "size", "1.5M", ALX_ERR_INVALID, 0 },
		{ units_size, "size", "M", ALX_ERR_INVALID, 0 },
		{ units_size, "size", "1P", ALX_ERR_INVALID, 0 },
		{ units_duration, "duration", "90", 0, 90 },
		{ units_duration, "duration", "90s", 0, 90 },
		{ units_duration, "duration", "30m", 0, 1800 },
		{ units_duration, "duration", "24h", 0, 86400 },
		{ units_duration, "duration", "7d", 0, 7 * 86400 },
		{ units_duration, "duration", "0", 0, 0 },
		{ units_duration, "duration", "never", 0, UNITS_NEVER },
		{ units_duration, "duration", "Never", ALX_ERR_INVALID, 0 },
		{ units_duration, "duration", "1w", ALX_ERR_INVALID, 0 },
		{ units_duration, "duration", "1h30m", ALX_ERR_INVALID, 0 },
		{ units_duration, "duration", "5S", ALX_ERR_INVALID, 0 },
		{ units_duration, "duration", "213503982334602d", ALX_ERR_RANGE,
		    0 },
	};
	uint64_t	v;
	size_t		i;
	int		r;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v = 12345;
		r = t[i].parse(t[i].in, &v);
		ok(r == t[i].r && (r != 0 || v == t[i].want),
		    "%s '%s': %s", t[i].what, t[i].in, r == 0 ? "read" :
		    alx_errname(r));
		if (r != 0)
			is_int(v, 12345, "... and nothing written");
	}
	ok(units_size(NULL, &v) == ALX_ERR_INVALID &&
	    units_duration(NULL, &v) == ALX_ERR_INVALID, "no text: invalid");
}

static void
test_mono(void)
{
	struct timespec	 ts = { 0, 20 * 1000 * 1000 };
	int64_t		 a, b;
	double		 s;

	a = mono_ms();
	s = mono_sec();
	while (nanosleep(&ts, &ts) == -1)
		;
	b = mono_ms();
	ok(b >= a + 20, "mono_ms() moves with time (%lld ms)",
	    (long long)(b - a));
	ok(mono_sec() >= s + 0.02, "mono_sec() is the same clock");
	ok(s >= (double)a / 1000 - 0.001 && s <= (double)b / 1000 + 0.001,
	    "in seconds");
}

int
main(void)
{
	test_units();
	test_mono();
	return tap_done();
}
