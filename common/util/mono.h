/*
 * mono.h: the one monotonic clock of the programs (CLOCK_MONOTONIC):
 * timeouts, rates and intervals, never wall time.
 */
#ifndef ALX_MONO_H
#define ALX_MONO_H

#include <stdint.h>

/* Milliseconds since an arbitrary start. */
int64_t	mono_ms(void);
/* The same clock in seconds, with its full resolution. */
double	mono_sec(void);

#endif /* ALX_MONO_H */
