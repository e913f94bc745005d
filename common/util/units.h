/*
 * units.h: the one reading of sizes, durations and counts that people
 * type, for every program (the client's options, the relay's, the
 * runner's). The rule, as airlox(7) states it:
 *
 *	count		a whole number: digits only, no sign, no leading zero
 *	size		a count of bytes, or a count and one of K, M, G, T
 *			(or k, m, g, t): KiB, MiB, GiB, TiB
 *	duration	a count of seconds, or a count and one of s, m, h, d;
 *			`never` (where a duration may be endless) is
 *			UNITS_NEVER, which no range of a bounded duration
 *			holds
 *
 * Pure functions: 0, or ALX_ERR_INVALID (not of that form) or
 * ALX_ERR_RANGE (more than UINT64_MAX).
 */
#ifndef ALX_UNITS_H
#define ALX_UNITS_H

#include <stdint.h>

#define UNITS_NEVER	UINT64_MAX

int	units_count(const char *, uint64_t *);
int	units_size(const char *, uint64_t *);
int	units_duration(const char *, uint64_t *);

#endif /* ALX_UNITS_H */
