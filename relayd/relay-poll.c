/*
 * relay-poll.c: parked long-polls.
 *
 * libevent 2.1.12 trap: while a request is being handled evhttp does not
 * read from its connection, so a parked request never sees its client go
 * away. Every parked request therefore has a server timer, capped by
 * --max-wait, that answers it (204 from the owner's callback); a reply to a
 * client that left fails on write and evhttp frees the connection. When
 * evhttp frees the connection first (shutdown, errors), the close hook
 * (relay-conn.c) unparks the request without touching it.
 *
 * The owner's callback answers the request: timedout is 0 when woken by
 * relay_poll_wake(), 1 when the timer fired or at shutdown, and -1 when the
 * connection is gone (free your state, do not answer).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <event2/http.h>

#include "airlox.h"
#include "util/log.h"
#include "relayd.h"

TAILQ_HEAD(relay_pollq, relay_poll);

static struct relay_pollq	 relay_polls = TAILQ_HEAD_INITIALIZER(relay_polls);
static struct event_base	*relay_poll_base;
static unsigned			 relay_npolls;

unsigned
relay_poll_count(void)
{
	return relay_npolls;
}

static void
relay_poll_finish(struct relay_poll *p, int how)
{
	struct relay_conn	*c;

	TAILQ_REMOVE(&relay_polls, p, entry);
	relay_npolls--;
	event_free(p->timer);
	if (how >= 0 && (c = relay_conn_find(p->evcon)) != NULL)
		relay_conn_set_close(c, NULL, NULL);
	p->fn(p, how, p->arg);
	free(p);
}

static void
relay_poll_timercb(evutil_socket_t fd, short ev, void *arg)
{
	relay_poll_finish(arg, 1);
}

static void
relay_poll_closed(struct relay_conn *c, void *arg)
{
	relay_poll_finish(arg, -1);
}

int
relay_poll_park(struct relay_req *r, const uint8_t sid[RELAY_SID_LEN],
    uint64_t wait, relay_poll_fn *fn, void *arg)
{
	struct relay_poll	*p;
	struct relay_conn	*c;
	struct timeval		 tv;

	if (wait > relay_cfg.max_wait)
		wait = relay_cfg.max_wait;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return ALX_ERR_NOMEM;
	p->req = r->req;
	p->evcon = evhttp_request_get_connection(r->req);
	if (p->evcon == NULL || (c = relay_conn_find(p->evcon)) == NULL ||
	    (p->timer = evtimer_new(relay_poll_base, relay_poll_timercb,
	    p)) == NULL) {
		free(p);
		return ALX_ERR_NOMEM;
	}
	memcpy(p->sid, sid, RELAY_SID_LEN);
	p->fn = fn;
	p->arg = arg;
	tv.tv_sec = (time_t)wait;
	tv.tv_usec = 0;
	evtimer_add(p->timer, &tv);
	relay_conn_set_close(c, relay_poll_closed, p);
	TAILQ_INSERT_TAIL(&relay_polls, p, entry);
	relay_npolls++;
	return 0;
}

/* Something new in a session: answer its parked requests. */
void
relay_poll_wake(const uint8_t sid[RELAY_SID_LEN])
{
	struct relay_poll	*p, *next;

	for (p = TAILQ_FIRST(&relay_polls); p != NULL; p = next) {
		next = TAILQ_NEXT(p, entry);
		if (memcmp(p->sid, sid, RELAY_SID_LEN) == 0)
			relay_poll_finish(p, 0);
	}
}

void
relay_poll_init(struct event_base *base)
{
	relay_poll_base = base;
}

void
relay_poll_shutdown(void)
{
	struct relay_poll	*p;

	while ((p = TAILQ_FIRST(&relay_polls)) != NULL)
		relay_poll_finish(p, 1);
}

void
relay_poll_free(void)
{
	relay_poll_shutdown();
}
