/*
 * alxs_reply.h: what a relay sends back, read (alxs_reply.c): the
 * event stream's lines and events, an error answer's body, Retry-After.
 * Pure functions of the bytes (no libcurl), used by alxs_http.c and
 * alxs_sse.c and fuzzed by tests/fuzz/fuzz-reply.c. The relay is
 * hostile in the threat model: every input is bounded.
 */
#ifndef CLIENT_REPLY_H
#define CLIENT_REPLY_H

#include <stddef.h>
#include <stdint.h>

#include "airlox.h"

#define REPLY_SSE_MAX		(2 * 1024 * 1024) /* a line, an event */
#define REPLY_TYPE_MAX		32	/* an event's type */
#define REPLY_MESSAGE_MAX	512	/* an error's text */
#define REPLY_RETRY_MAX		60	/* Retry-After, seconds */

/* Called per event; return 0 to go on, 1 to stop, negative on error. */
typedef int (*reply_event_cb)(const char *type, int64_t id,
    const char *data, size_t len, void *arg);

struct reply_sse {
	reply_event_cb	 cb;
	void		*arg;
	struct alx_buf	 line;
	struct alx_buf	 data;
	char		 type[REPLY_TYPE_MAX];
	int64_t		 id;	/* the last id: kept across events */
	int		 got_cr;
	int		 stop;	/* 1: cb said stop; <0: error */
	int		 events; /* dispatched since the last reset */
};

void	reply_sse_init(struct reply_sse *, reply_event_cb, void *arg);
/*
 * A new connection: the line and event being read are dropped (the id
 * is kept: the stream resumes after it).
 */
void	reply_sse_reset(struct reply_sse *);
void	reply_sse_free(struct reply_sse *);
/*
 * Bytes of the stream, in any pieces: lines end at CR, LF or CR LF, an
 * empty line dispatches the event (data lines joined by LF, the type
 * "message" unless an event line named one). Returns 0 to read on, else
 * the stop value (1, or a negative error such as ALX_ERR_TOO_LARGE).
 */
int	reply_sse_feed(struct reply_sse *, const char *p, size_t len);

/*
 * An error answer: the code its status maps to, or the one its JSON body
 * names ({"error": NAME}); *message (may be NULL) the body's "message"
 * (malloc'd, or NULL); *server_time (may be NULL) the relay's clock when
 * the code is clock_skew and it says (else left alone, and 0 returned
 * in *has_time).
 */
int	reply_error(long status, const void *body, size_t len,
	    char **message, int64_t *server_time, int *has_time);
/*
 * A header line "Retry-After: N" (any case, as received, CR LF or not):
 * N seconds, capped at REPLY_RETRY_MAX; 0 for another header, an HTTP
 * date or anything that is not a number.
 */
int	reply_retry_after(const char *line, size_t len);

#endif /* CLIENT_REPLY_H */
