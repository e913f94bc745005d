/*
 * fuzz-reply.c: libFuzzer target for how the client reads a relay's
 * answers (session/alxs_reply.c): the event stream, an error answer's
 * JSON body, Retry-After. The relay is hostile in the threat model.
 *
 * The first byte picks what the rest is:
 * 0 mod 3: an event stream. Fed whole to one reader and in pieces (sizes
 *   taken from the bytes) to another, it must give the same events in the
 *   same order and stop the same way; an event's type is at most 31
 *   bytes and its data holds no CR and stays within the bound.
 * 1 mod 3: two bytes of HTTP status, then an error body: the code is one
 *   libairlox names, the message (if any) at most REPLY_MESSAGE_MAX bytes.
 * 2 mod 3: a header line: Retry-After is 0..REPLY_RETRY_MAX seconds.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "alxs_reply.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(x)	do { if (!(x)) abort(); } while (0)

struct seen {
	uint64_t	hash;
	unsigned	n;
	unsigned	stop_at;	/* stop after this many events (0: never) */
};

static uint64_t
fnv(uint64_t h, const void *p, size_t len)
{
	const uint8_t	*b = p;
	size_t		 i;

	for (i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static int
on_event(const char *type, int64_t id, const char *data, size_t len,
    void *arg)
{
	struct seen	*s = arg;

	CHECK(type != NULL && type[0] != '\0' && strlen(type) < REPLY_TYPE_MAX);
	CHECK(len <= REPLY_SSE_MAX && memchr(data, '\r', len) == NULL);
	s->hash = fnv(s->hash, type, strlen(type) + 1);
	s->hash = fnv(s->hash, &id, sizeof id);
	s->hash = fnv(s->hash, data, len);
	s->n++;
	return s->stop_at != 0 && s->n >= s->stop_at ? 1 : 0;
}

static void
fuzz_sse(const uint8_t *data, size_t size)
{
	struct reply_sse	a, b;
	struct seen		sa, sb;
	size_t			off, piece;
	int			ra, rb = 0;
	unsigned		k = 0;

	memset(&sa, 0, sizeof sa);
	sa.hash = sb.hash = 0xcbf29ce484222325ULL;
	sa.stop_at = size > 0 ? data[0] % 8 : 0;
	sb = sa;
	reply_sse_init(&a, on_event, &sa);
	reply_sse_init(&b, on_event, &sb);
	ra = reply_sse_feed(&a, (const char *)data, size);
	for (off = 0; off < size && rb == 0; off += piece) {
		piece = 1 + data[(off + k++) % size] % 17;
		if (piece > size - off)
			piece = size - off;
		rb = reply_sse_feed(&b, (const char *)data + off, piece);
	}
	CHECK(ra == rb);
	CHECK(ra == 0 || ra == 1 || ra == ALX_ERR_TOO_LARGE);
	CHECK(sa.n == sb.n && sa.hash == sb.hash);
	/* A reconnection starts clean and keeps reading. */
	reply_sse_reset(&a);
	CHECK(a.stop == 0 && a.line.len == 0 && a.data.len == 0);
	reply_sse_free(&a);
	reply_sse_free(&b);
}

static void
fuzz_error(const uint8_t *data, size_t size)
{
	char	*msg = NULL;
	int64_t	 t = -1;
	long	 status;
	int	 err, has;

	if (size < 2)
		return;
	status = (long)(data[0] << 8 | data[1]);
	err = reply_error(status, data + 2, size - 2, &msg, &t, &has);
	CHECK(err < 0 && alx_errcode(alx_errname(err)) == err);
	if (msg != NULL)
		CHECK(strlen(msg) <= REPLY_MESSAGE_MAX);
	CHECK(has ? err == ALX_ERR_CLOCK_SKEW && t >= 0 : t == -1);
	free(msg);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int	n;

	if (size < 1 || size > 256 * 1024)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fuzz_sse(data + 1, size - 1);
		break;
	case 1:
		fuzz_error(data + 1, size - 1);
		break;
	default:
		n = reply_retry_after((const char *)data + 1, size - 1);
		CHECK(n >= 0 && n <= REPLY_RETRY_MAX);
	}
	return 0;
}
