/*
 * units.c: counts, sizes and durations as people type them (units.h).
 */
#include <stdint.h>
#include <string.h>

#include "airlox.h"
#include "units.h"

/* A count, then at most one unit from units (its multiplier in mult). */
static int
units_parse(const char *s, const char *units, const uint64_t *mult,
    uint64_t *out)
{
	const char	*p = s, *u;
	uint64_t	 v = 0, m = 1;

	if (s == NULL || *p < '0' || *p > '9' || (p[0] == '0' &&
	    p[1] >= '0' && p[1] <= '9'))
		return ALX_ERR_INVALID;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return ALX_ERR_RANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p != '\0') {
		if (units[0] == '\0' || (u = strchr(units, *p)) == NULL ||
		    p[1] != '\0')
			return ALX_ERR_INVALID;
		m = mult[u - units];
	}
	if (v != 0 && m > UINT64_MAX / v)
		return ALX_ERR_RANGE;
	*out = v * m;
	return 0;
}

int
units_count(const char *s, uint64_t *out)
{
	return units_parse(s, "", NULL, out);
}

int
units_size(const char *s, uint64_t *out)
{
	static const uint64_t	mult[] = {
		(uint64_t)1 << 10, (uint64_t)1 << 20, (uint64_t)1 << 30,
		(uint64_t)1 << 40,
		(uint64_t)1 << 10, (uint64_t)1 << 20, (uint64_t)1 << 30,
		(uint64_t)1 << 40
	};

	return units_parse(s, "KMGTkmgt", mult, out);
}

int
units_duration(const char *s, uint64_t *out)
{
	static const uint64_t	mult[] = { 1, 60, 3600, 86400 };

	if (s != NULL && strcmp(s, "never") == 0) {
		*out = UNITS_NEVER;
		return 0;
	}
	return units_parse(s, "smhd", mult, out);
}
