/*
 * relay-conn.c: counting connections, in total and per client address.
 *
 * libevent 2.1.12's evhttp has no connection cap and no hook that sees an
 * accepted socket's address before a request arrives. What it has:
 * - the bevcb (evhttp_set_bevcb), called for every accepted connection
 *   before the socket is attached, where we create the bufferevent (a TLS
 *   one when serving HTTPS), count the connection, take a reference on the
 *   bufferevent and queue a deferred check;
 * - after evhttp attached the socket, the bufferevent's callback argument
 *   is the evhttp_connection (bufferevent_getcb), from which the deferred
 *   check gets the peer address (evhttp_connection_get_addr) and installs
 *   the close callback that uncounts it. The check runs in the same loop
 *   iteration, before the connection is read. If evhttp already freed the
 *   connection, the callbacks were cleared by bufferevent_free() and our
 *   reference kept the memory valid, so we see that and uncount.
 * Over a limit, the deferred check frees the connection at once (the peer
 * sees it closed; no request was read, so there is nobody to answer).
 * The bufferevent evhttp gets is the gate's filter over the socket's (or
 * TLS) bufferevent (relay-gate.c).
 * Other modules (event streams, long-polls) hook the close through
 * relay_conn_set_close(), since evhttp keeps a single close callback.
 */
#include "config.h"

#include <sys/socket.h>

#include <stdlib.h>
#include <string.h>

#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <openssl/ssl.h>

#include "airlox.h"
#include "util/mono.h"
#include "util/log.h"
#include "relayd.h"

#define RELAY_CONN_BUCKETS	8192

TAILQ_HEAD(relay_connq, relay_conn);

static struct relay_connq	 relay_pending = TAILQ_HEAD_INITIALIZER(relay_pending);
static struct relay_conn	*relay_conn_tab[RELAY_CONN_BUCKETS];
static struct event		*relay_pending_ev;
static unsigned			 relay_nconns;
static struct log_rl		 relay_conn_rl = LOG_RL_INIT(5, 60);

static unsigned
relay_conn_hash(const void *p)
{
	uintptr_t	v = (uintptr_t)p;

	v ^= v >> 17;
	v *= 0x9e3779b1u;
	return (unsigned)(v >> 7) % RELAY_CONN_BUCKETS;
}

static void
relay_conn_tab_del(struct relay_conn *c)
{
	struct relay_conn	**pp;

	for (pp = &relay_conn_tab[relay_conn_hash(c->evcon)]; *pp != NULL;
	    pp = &(*pp)->hnext) {
		if (*pp == c) {
			*pp = c->hnext;
			return;
		}
	}
}

struct relay_conn *
relay_conn_find(struct evhttp_connection *evcon)
{
	struct relay_conn	*c;

	for (c = relay_conn_tab[relay_conn_hash(evcon)]; c != NULL;
	    c = c->hnext)
		if (c->evcon == evcon)
			return c;
	return NULL;
}

unsigned
relay_conn_count(void)
{
	return relay_nconns;
}

static void
relay_conn_uncount(struct relay_conn *c)
{
	struct relay_peer	*p;

	if (c->counted_addr && (p = relay_peer_get(&c->addr, 0)) != NULL &&
	    p->conns > 0)
		p->conns--;
	relay_nconns--;
}

/* evhttp frees the connection: uncount, tell the hooked module. */
static void
relay_conn_closecb(struct evhttp_connection *evcon, void *arg)
{
	struct relay_conn	*c = arg;

	if (c->on_close != NULL)
		c->on_close(c, c->on_close_arg);
	relay_conn_tab_del(c);
	relay_conn_uncount(c);
	relay_gate_detach(c->gate);
	free(c);
}

void
relay_conn_set_close(struct relay_conn *c, relay_conn_close_fn *fn,
    void *arg)
{
	c->on_close = fn;
	c->on_close_arg = arg;
}

static int
relay_conn_over(struct relay_conn *c, const struct sockaddr *sa)
{
	struct relay_peer	*p;
	uint8_t			 ip[16];
	char			 s[64];

	if (relay_nconns > relay_cfg.max_connections) {
		if (log_rl_allow(&relay_conn_rl))
			log_warnx("conn: refused, %u connections open",
			    relay_nconns - 1);
		return 1;
	}
	if (relay_addr_from_sa(&c->addr, sa) != 0)
		return 0;
	/* A trusted proxy carries many clients: no per-address cap. */
	if (relay_ip_from_sa(ip, sa) == 0 && relay_proxy_trusted(ip))
		return 0;
	if ((p = relay_peer_get(&c->addr, 1)) == NULL)
		return 1;
	if (p->conns >= relay_cfg.max_connections_per_addr) {
		if (log_rl_allow(&relay_conn_rl)) {
			relay_addr_str(&c->addr, s, sizeof(s));
			log_warnx("conn: refused, %u connections from %s",
			    p->conns, s);
		}
		return 1;
	}
	p->conns++;
	p->last = mono_sec();
	c->counted_addr = 1;
	relay_gate_set_addr(c->gate, &c->addr);
	return 0;
}

/* Deferred: connections evhttp has attached since the last run. */
static void
relay_conn_pendingcb(evutil_socket_t fd, short ev, void *arg)
{
	struct relay_conn	*c;
	bufferevent_data_cb	 rcb;
	bufferevent_event_cb	 ecb;
	void			*cbarg;

	while ((c = TAILQ_FIRST(&relay_pending)) != NULL) {
		TAILQ_REMOVE(&relay_pending, c, entry);
		bufferevent_getcb(c->bev, &rcb, NULL, &ecb, &cbarg);
		if (ecb == NULL || cbarg == NULL) {
			/* evhttp gave up on it already. */
			relay_gate_detach(c->gate);
			bufferevent_decref(c->bev);
			free(c);
			continue;
		}
		c->evcon = cbarg;
		bufferevent_decref(c->bev);
		/* Counted here, in accept order: the newest are refused. */
		relay_nconns++;
		if (relay.stopping || relay_conn_over(c,
		    evhttp_connection_get_addr(c->evcon))) {
			relay_nconns--;
			relay_gate_detach(c->gate);
			evhttp_connection_free(c->evcon);
			free(c);
			continue;
		}
		c->hnext = relay_conn_tab[relay_conn_hash(c->evcon)];
		relay_conn_tab[relay_conn_hash(c->evcon)] = c;
		evhttp_connection_set_closecb(c->evcon, relay_conn_closecb, c);
	}
}

struct bufferevent *
relay_conn_bevcb(struct event_base *base, void *arg)
{
	struct bufferevent	*bev, *gate;
	struct relay_conn	*c;
	SSL			*ssl;
	SSL_CTX			*ctx = relay_tls_ctx();

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	if (ctx != NULL) {
		if ((ssl = SSL_new(ctx)) == NULL) {
			free(c);
			return NULL;
		}
		bev = bufferevent_openssl_socket_new(base, -1, ssl,
		    BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
	} else
		bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (bev == NULL) {
		free(c);
		return NULL;	/* evhttp then makes a plain one; see below */
	}
	/* evhttp reads and writes through the gate (relay-gate.c). */
	if ((gate = relay_gate_new(base, bev, &c->gate)) == NULL) {
		bufferevent_free(bev);
		free(c);
		return NULL;
	}
	bev = gate;
	c->bev = bev;
	bufferevent_incref(bev);
	TAILQ_INSERT_TAIL(&relay_pending, c, entry);
	event_active(relay_pending_ev, EV_TIMEOUT, 0);
	return bev;
}

void
relay_conn_init(struct event_base *base)
{
	relay_pending_ev = event_new(base, -1, 0, relay_conn_pendingcb, NULL);
	if (relay_pending_ev == NULL)
		fatalx("conn: event_new");
}

void
relay_conn_free_all(void)
{
	relay_conn_pendingcb(-1, 0, NULL);
	if (relay_pending_ev != NULL)
		event_free(relay_pending_ev);
	relay_pending_ev = NULL;
}
