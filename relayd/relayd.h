/*
 * relayd.h: the private header of airlox-relayd, one section per file.
 *
 * The relay is one event loop (libevent, evhttp), one LMDB writer thread
 * (relay-store.c) and a few verify workers (relay-verify.c) that check
 * the signatures of posted items. Everything under "struct relay", and
 * every session, member, connection and stream, belongs to the loop
 * thread; the other threads touch only the jobs and writes handed to
 * them (docs/DESIGN.md, "The relay's threads").
 */
#ifndef RELAYD_H
#define RELAYD_H

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <openssl/ssl.h>

#include "airlox.h"

struct event;
struct event_base;
struct evhttp;
struct evhttp_request;
struct evhttp_connection;
struct evconnlistener;
struct evbuffer;

#include "relay-store.h"

#define RELAY_MAX_LISTEN	16
#define RELAY_MAX_PROXIES	32
#define RELAY_MAX_NAMES		32
/*
 * Event priorities: every event runs at libevent's default (the middle,
 * 1) but the SSE flush, which runs after them; a timer of the default
 * priority bounds its wait (relay-sse.c).
 */
#define RELAY_PRIO_COUNT	3
#define RELAY_PRIO_LOW		2

/* relay-config.c */
struct relay_config {
	char		*listen[RELAY_MAX_LISTEN];
	int		 nlisten;
	int		 listen_default;	/* no --listen given */
	char		*port_file;
	char		*cert;
	char		*key;
	int		 plain_http;
	char		*data_dir;
	int		 ephemeral;
	uint64_t	 map_size;
	char		*trust_proxy[RELAY_MAX_PROXIES];	/* ADDR[/BITS] */
	int		 ntrust_proxy;
	char		*public_name[RELAY_MAX_NAMES];	/* HOST[:PORT] */
	int		 npublic_name;
	int		 log_level;

	uint64_t	 session_lifetime;	/* seconds */
	uint64_t	 max_session_lifetime;	/* seconds */
	int		 allow_no_expiry;
	uint64_t	 max_item_size;
	uint64_t	 max_session_size;
	uint64_t	 retention_age;		/* seconds */
	uint64_t	 retention_count;
	uint64_t	 max_transfer;
	uint64_t	 max_sessions;
	uint64_t	 sessions_per_hour;
	uint64_t	 max_participants;
	uint64_t	 max_connections;
	uint64_t	 max_connections_per_addr;
	uint64_t	 rate_limit;		/* requests/s per address */
	uint64_t	 max_header_size;
	uint64_t	 max_body_size;
	uint64_t	 body_memory;		/* bodies held, all connections */
	uint64_t	 header_timeout;	/* a whole request head, seconds */
	uint64_t	 disk_watermark;	/* free bytes */
	char		*creation_token;
	char		*owner_keys;		/* file of owner keys */

	uint64_t	 timeout;		/* idle read/write, seconds */
	uint64_t	 heartbeat;		/* SSE comment interval */
	uint64_t	 max_wait;		/* long-poll cap, seconds */
	uint64_t	 sse_max_pending;	/* bytes queued per stream */
	uint64_t	 shutdown_grace;	/* seconds */
	uint64_t	 verify_threads;
	uint64_t	 verify_queue;		/* requests waiting */
	uint64_t	 queue_limit;		/* bytes waiting, per queue */
	int		 check;			/* --check: check, exit */
	char		*salvage;		/* --salvage DIR: copy, exit */
};

extern struct relay_config relay_cfg;

/* 0 to run, 1 when --help or --version was printed, -1 on error. */
int	 relay_config_load(struct relay_config *, int, char **, char **cause);
void	 relay_config_free(struct relay_config *);
void	 relay_config_usage(FILE *);
void	 relay_setcause(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

/* relay-addr.c: per client address state (IPv6 grouped by /64) */
struct relay_addr {
	uint8_t		 a[16];		/* IPv4 as ::ffff:a.b.c.d */
};
struct relay_peer {
	struct relay_addr	 key;
	struct relay_peer	*next;		/* hash chain */
	unsigned		 conns;
	double			 tokens;	/* request bucket */
	double			 refill;	/* bucket time, monotonic */
	double			 last;		/* last use, monotonic */
	time_t			 hour_start;
	unsigned		 hour_sessions;
	time_t			 fail_start;	/* transfer code failures */
	unsigned		 fails;
	uint64_t		 body;		/* request bodies held (gate) */
};
int	 relay_addr_from_sa(struct relay_addr *, const struct sockaddr *);
int	 relay_addr_parse(struct relay_addr *, const char *);
void	 relay_addr_str(const struct relay_addr *, char *, size_t);
struct relay_peer *relay_peer_get(const struct relay_addr *, int create);
void	 relay_peer_gc(void);
void	 relay_peer_free_all(void);
/* Trusted proxies: IPv4 kept as IPv4-mapped (::ffff:0:0/96 + bits). */
struct relay_cidr {
	uint8_t		 a[16];
	unsigned	 bits;		/* 0..128 */
};
int	 relay_cidr_parse(struct relay_cidr *, const char *);
int	 relay_cidr_match(const struct relay_cidr *, int, const uint8_t *);
int	 relay_ip_from_sa(uint8_t *, const struct sockaddr *);
int	 relay_ip_parse(uint8_t *, const char *);
int	 relay_proxy_init(char **cause);
int	 relay_proxy_trusted(const uint8_t *);

/* relay-host.c: the names signed requests must be made for */
struct relay_req;
int	 relay_host_init(char **cause);
/* The host a request was signed for: Host, or a trusted proxy's. */
const char *relay_host_signed(struct relay_req *);
/* 1 when it is one of this relay's names. */
int	 relay_host_ours(struct relay_req *, const char *host);

/* relay-listen.c */
int	 relay_listen_start(struct evhttp *, char **cause);
void	 relay_listen_pause(void);
void	 relay_listen_resume(void);
void	 relay_listen_stop(void);
int	 relay_tls_init(char **cause);
void	 relay_tls_reload(void);
void	 relay_tls_free(void);
int	 relay_tls_enabled(void);
SSL_CTX	*relay_tls_ctx(void);

/* relay-gate.c: each connection's door, between its socket and evhttp */
struct relay_gate;
struct relay_refusal {
	int		 status;
	int		 err;
	const char	*msg;
	int		 say_close;	/* answer with Connection: close */
};
struct bufferevent *relay_gate_new(struct event_base *, struct bufferevent *,
	    struct relay_gate **);
void	 relay_gate_set_addr(struct relay_gate *, const struct relay_addr *);
void	 relay_gate_detach(struct relay_gate *);
void	 relay_gate_abort(struct relay_gate *);
void	 relay_gate_shutdown(void);
int	 relay_gate_refusal(struct evhttp_request *, struct relay_gate **,
	    struct relay_refusal *);
void	 relay_gate_release(struct relay_gate *);
struct bufferevent *relay_gate_lower(struct bufferevent *);
size_t	 relay_gate_pending_out(struct bufferevent *);
uint64_t relay_gate_inuse(void);
void	 relay_gate_trim(int idle);

/* relay-conn.c */
struct relay_conn;
typedef void relay_conn_close_fn(struct relay_conn *, void *);
struct relay_conn {
	struct evhttp_connection *evcon;
	struct bufferevent	*bev;		/* the gate's filter */
	struct relay_gate	*gate;
	struct relay_addr	 addr;
	int			 counted_addr;
	relay_conn_close_fn	*on_close;
	void			*on_close_arg;
	struct relay_conn	*hnext;		/* by evcon */
	TAILQ_ENTRY(relay_conn)	 entry;
};
void	 relay_conn_init(struct event_base *);
void	 relay_conn_free_all(void);
struct bufferevent *relay_conn_bevcb(struct event_base *, void *);
struct relay_conn *relay_conn_find(struct evhttp_connection *);
void	 relay_conn_set_close(struct relay_conn *, relay_conn_close_fn *,
	    void *);
unsigned relay_conn_count(void);

/* relay-http.c */
struct relay_req;
typedef void relay_handler_fn(struct relay_req *);
#define RELAY_MAX_PARAMS	4
struct relay_req {
	struct evhttp_request	*req;
	int			 method;
	const char		*path;		/* decoded path */
	const char		*query;
	char			*params[RELAY_MAX_PARAMS];
	int			 nparams;
	struct relay_addr	 client;
	char			 client_str[64];
	int			 via_proxy;	/* from a --trust-proxy peer */
	char			 fwd_host[256];	/* its X-Forwarded-Host */
};
struct relay_route {
	int			 methods;	/* EVHTTP_REQ_* mask */
	const char		*pattern;	/* "/v1/sessions/:/items" */
	relay_handler_fn	*handler;
	int			 flags;
#define RELAY_ROUTE_NO_RATELIMIT	0x1
};
int	 relay_http_init(struct event_base *, struct evhttp **, char **);
void	 relay_http_add_routes(const struct relay_route *, size_t);
void	 relay_http_error(struct evhttp_request *, int status, int err,
	    const char *msg);
void	 relay_http_json(struct evhttp_request *, int status,
	    const char *json, size_t len);
int	 relay_http_status_for(int err);
void	 relay_http_fail(struct relay_req *, int err, const char *msg);
void	 relay_http_jw(struct evhttp_request *, int status, struct alx_jw *);
void	 relay_http_refusal_summary(void);
const char *relay_method_name(int);
/* A request answered later (after a write): survives its connection. */
struct relay_hold {
	struct evhttp_request	*req;
	struct relay_conn	*conn;
};
int	 relay_hold(struct relay_req *, struct relay_hold *);
struct evhttp_request *relay_release(struct relay_hold *);
const char *relay_http_header(struct relay_req *, const char *);
char	*relay_http_query(struct relay_req *, const char *);

/* relay-path.c: the path and query, read (pure). */
#define RELAY_MAX_PATH		1024
/* The decoded path (malloc'd): not empty, '/' first, no NUL, bounded. */
int	 relay_path_decode(const char *raw, char **path);
/*
 * Match "/a/:/c" against a path: 1 with each ':' segment's text in
 * params[0..*n) (malloc'd; at most RELAY_MAX_PARAMS), 0 and none kept.
 */
int	 relay_path_match(const char *pattern, const char *path,
	    char **params, int *n);
void	 relay_path_params_free(char **params, int *n);
/* A number as digits only, no sign, no leading zero, at most max. */
int	 relay_path_uint(const char *, uint64_t max, uint64_t *);
/* A query parameter, decoded (malloc'd), or NULL. */
char	*relay_query_get(const char *query, const char *name);
/*
 * The query form of the Authorization header: the one "auth" parameter,
 * which must come last, spelt as is; *signed_uri is the URI before it
 * (what the signature covers), *auth its value (both malloc'd).
 * ALX_ERR_NOT_SIGNED without one, ALX_ERR_INVALID when not so.
 */
int	 relay_query_auth(const char *uri, char **signed_uri, char **auth);

/* relay-sse.c */
struct relay_sse;
typedef void relay_sse_end_fn(struct relay_sse *, void *);
struct relay_sse {
	struct evhttp_request	*req;
	struct evhttp_connection *evcon;
	uint8_t			 sid[RELAY_SID_LEN];
	uint64_t		 cursor;	/* last id sent */
	int			 direct;	/* plain socket: write it */
	int			 chunked;	/* HTTP/1.1 chunk framing */
	struct evbuffer		*stage;		/* this turn's frames */
	int			 dirty;		/* on the flush list */
	TAILQ_ENTRY(relay_sse)	 dirty_entry;
	relay_sse_end_fn	*on_end;
	void			*arg;
	TAILQ_ENTRY(relay_sse)	 entry;
};
void	 relay_sse_init(struct event_base *);
void	 relay_sse_shutdown(void);
void	 relay_sse_free(void);
unsigned relay_sse_count(void);
struct relay_sse *relay_sse_start(struct relay_req *,
	    const uint8_t sid[RELAY_SID_LEN], uint64_t, relay_sse_end_fn *,
	    void *);
int	 relay_sse_send(struct relay_sse *, uint64_t, const char *,
	    const char *, size_t);
int	 relay_sse_frame(uint64_t, const char *, const char *, size_t,
	    char **, size_t *);
int	 relay_sse_send_frame(struct relay_sse *, uint64_t, const char *,
	    size_t);
void	 relay_sse_end(struct relay_sse *);
void	 relay_sse_foreach(const uint8_t sid[RELAY_SID_LEN],
	    void (*)(struct relay_sse *, void *), void *);

/* relay-poll.c */
struct relay_poll;
typedef void relay_poll_fn(struct relay_poll *, int timedout, void *);
struct relay_poll {
	struct evhttp_request	*req;
	struct evhttp_connection *evcon;
	uint8_t			 sid[RELAY_SID_LEN];
	struct event		*timer;
	relay_poll_fn		*fn;
	void			*arg;
	TAILQ_ENTRY(relay_poll)	 entry;
};
void	 relay_poll_init(struct event_base *);
void	 relay_poll_shutdown(void);
void	 relay_poll_free(void);
unsigned relay_poll_count(void);
int	 relay_poll_park(struct relay_req *, const uint8_t sid[RELAY_SID_LEN],
	    uint64_t wait, relay_poll_fn *, void *);
void	 relay_poll_wake(const uint8_t sid[RELAY_SID_LEN]);

/* relay-verify.c: signature checks on worker threads */
struct relay_vjob;
typedef int relay_vjob_work_fn(struct relay_vjob *);	/* on a worker */
typedef void relay_vjob_done_fn(struct relay_vjob *);	/* on the loop */
struct relay_vjob {
	relay_vjob_work_fn	*work;
	relay_vjob_done_fn	*done;
	size_t			 cost;		/* bytes held while queued */
	int			 result;	/* work's return */
	int			 finished;
	TAILQ_ENTRY(relay_vjob)	 order_entry;
	TAILQ_ENTRY(relay_vjob)	 todo_entry;
};
int	 relay_verify_start(struct event_base *, unsigned);
int	 relay_verify_submit(struct relay_vjob *);
unsigned relay_verify_pending(void);
void	 relay_verify_stop(void);

/* relay-session.c */
#define RELAY_SREC_LEN	64
struct relay_srec {
	uint64_t	created;
	uint64_t	expires;	/* the relay's end of life; 0 never */
	uint64_t	ver;		/* current manifest version */
	uint64_t	bytes;		/* stored */
	uint64_t	transfer;	/* received and served */
	uint64_t	nparts;
	uint64_t	closed;
	uint64_t	trimmed;	/* events up to here were dropped */
};
struct relay_member {
	uint8_t			 fp[16];
	struct alx_cert		 cert;
	int64_t			 last_seq;
	uint8_t			 last_hash[32];
	struct relay_member	*next;
};
struct relay_session {
	uint8_t			 sid[RELAY_SID_LEN];
	char			 sids[24];
	struct alx_manifest	 man;		/* current, opened */
	struct relay_srec	 rec;
	struct relay_member	*members;
	uint64_t		 last_cursor;
	int			 refs;		/* async writes in flight */
	int			 stale;
	struct relay_session	*next;
};
void	 relay_srec_encode(const struct relay_srec *, uint8_t *);
void	 relay_manifest_key(uint8_t *, const uint8_t *, uint64_t);
void	 relay_session_free(struct relay_session *);
void	 relay_session_forget(struct relay_session *);
void	 relay_session_unref(struct relay_session *);
void	 relay_session_insert(struct relay_session *);
int	 relay_session_get(const uint8_t *, struct relay_session **);
/*
 * Count n bytes received or served against --max-transfer: 0, or
 * ALX_ERR_NOT_ALLOWED (nothing counted) when they would exceed it.
 */
int	 relay_transfer_take(struct relay_session *, uint64_t n);
#define RELAY_TRANSFER_WHY	"this session has moved as many bytes as the " \
	"relay allows one session (--max-transfer)"
struct relay_member *relay_member_find(struct relay_session *,
	    const uint8_t *);
int	 relay_sid_param(struct relay_req *, int, uint8_t *);
int	 relay_id_param(struct relay_req *, int, uint8_t *);
int	 relay_session_request(struct relay_req *, struct relay_session **,
	    struct relay_member **);
const uint8_t *relay_body(struct relay_req *, size_t *);
void	 relay_body_done(struct relay_req *);
int	 relay_auth(struct relay_req *, struct relay_session *,
	    const uint8_t *, struct relay_member **);
int	 relay_event_add(struct relay_wop *, const uint8_t *,
	    const uint8_t *, const char *, const void *, size_t);
int	 relay_event_json(uint64_t, const uint8_t *, size_t, struct alx_jw *);
void	 relay_event_publish(struct relay_session *, const struct relay_wop *);
void	 relay_session_write_failed(struct relay_session *, int);
void	 relay_session_free_all(void);

void	 relay_session_drop_cached(const uint8_t *);
void	 relay_session_deleting(const uint8_t *, int);

/* relay-api-session.c */
#define RELAY_SUBMIT_FORGET	0x1	/* reload the session after */
#define RELAY_SUBMIT_SID	0x2	/* the reply names the sid */
#define RELAY_SUBMIT_VER	0x4	/* the reply names the version */
#define RELAY_SUBMIT_CLAIM	0x8	/* a taken key is already_claimed */
int	 relay_submit(struct relay_req *, struct relay_session *,
	    struct relay_wop *, int, int);
int	 relay_write_allowed(void);
int	 relay_write_allowed_reserved(void);
int	 relay_submit_publish(struct relay_session *, struct relay_wop *);
int	 relay_api_session_init(char **);
void	 relay_api_session_free(void);

/* relay-api-items.c */
void	 relay_api_items_init(void);

/* relay-api-jobs.c */
void	 relay_api_jobs_init(void);
int	 relay_jobs_on_post(struct relay_session *, const struct alx_item *,
	    struct relay_wop *);
int	 relay_jobs_on_result(struct relay_session *, const struct alx_item *,
	    struct relay_wop *);
int	 relay_jobs_ref(struct relay_session *, const uint8_t id[ALX_ID_LEN],
	    struct alx_jobref *, uint8_t **, int *);

/* relay-api-codes.c */
void	 relay_api_codes_init(void);
void	 relay_codes_sweep(uint64_t);
void	 relay_codes_free(void);

/* relay-api-log.c */
void	 relay_api_log_init(void);
void	 relay_stream_publish(const uint8_t *, uint64_t, const uint8_t *,
	    size_t);
void	 relay_stream_close_session(const uint8_t *);

/* relay-health.c */
void	 relay_health_init(void);

/* relay-notify.c */
void	 relay_notify_init(void);
void	 relay_notify_ready(void);
void	 relay_notify_status(const char *, ...)
	    __attribute__((format(printf, 1, 2)));
void	 relay_notify_stopping(void);
void	 relay_notify_watchdog(void);
uint64_t relay_notify_watchdog_usec(void);

/* relay-cron.c */
typedef void relay_expire_fn(uint64_t now, unsigned max);
void	 relay_cron_set_expire(relay_expire_fn *);
void	 relay_cron_start(struct event_base *);
void	 relay_cron_stop(void);
int	 relay_disk_ok(void);
uint64_t relay_expiry_now(void);
double	 relay_rate_now(void);
#ifdef RELAY_TEST
void	 relay_test_init(void);
int	 relay_test_lax_roles(void);
int	 relay_test_hides(const char *);
#endif
int	 relay_disk_check(char **why);

/* relayd.c */
struct relay {
	struct event_base	*base;
	struct evhttp		*http;
	struct relay_store	*store;
	int			 stopping;
	int			 disk_low;
	time_t			 started;
};
extern struct relay relay;
void	 relay_shutdown(void);

#endif /* RELAYD_H */
