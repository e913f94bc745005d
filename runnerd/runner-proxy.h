/*
 * runner-proxy.h: the egress proxy's own pieces (runner-proxy*.c).
 */
#ifndef ALX_RUNNER_PROXY_H
#define ALX_RUNNER_PROXY_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "runner-egress.h"

/* Read buffer for a job id: longer than ALX_JOB_ID_MAX, so that a longer
 * id is read whole and then refused by alx_job_id_valid(). */
#define EGRESS_JOBID_MAX	80
#define EGRESS_JOBS_MAX		256

/* Exit codes of a connection's process, read by the proxy's loop. */
#define EGRESS_EXIT_OK		0	/* served (or failed upstream) */
#define EGRESS_EXIT_DENIED	2	/* refused and recorded */
#define EGRESS_EXIT_SILENT	3	/* refused, over the job's log cap */

struct egress_job {
	char		  id[EGRESS_JOBID_MAX];
	int		  flags;
	char		**allow;
	size_t		  nallow;
	int		  sock;		/* SEQPACKET from the sandbox, or -1 */
	unsigned	  nconns;
	uint64_t	  logged;	/* denials written one by one */
	uint64_t	  silent;	/* denials over the cap */
	int		  used;
};

struct egress_denial {
	char		host[256];
	char		method[16];
	char		reason[32];
	char		sni[256];	/* the ClientHello's name, or "" */
	unsigned	port;
};

/* runner-proxy-http.c */
int	egress_serve_conn(const struct egress_job *, int fd,
	    struct egress_denial *);

/* runner-proxy-req.c: the request line and headers, read. */
struct egress_request {
	char		 method[16];
	char		 target[EGRESS_HEADER_MAX];
	char		 host[256];	/* lower case, once read */
	unsigned	 port;
	int		 connect;	/* CONNECT (else GET) */
	size_t		 hlen;
	size_t		 outlen;
	char		 head[EGRESS_HEADER_MAX + 1];
	char		 out[EGRESS_HEADER_MAX + 512];	/* GET: to the origin */
};
/*
 * Where the head (request line and headers) of buf[0..len) ends: 0 with
 * *hlen (the empty line included), 1 when more is needed, 431 when len
 * reached EGRESS_HEADER_MAX without one, 400 for a NUL in it.
 */
int	egress_head_end(const char *buf, size_t len, size_t *hlen);
/*
 * The head buf[0..hlen) of a job's request: 0 when the job may go where
 * it asks (host and port filled; for GET, out[0..outlen) is the request
 * to send the origin), else an HTTP status with *why the denial's reason.
 */
int	egress_request_parse(const struct egress_job *, const char *buf,
	    size_t hlen, struct egress_request *, const char **why);

/*
 * runner-proxy-tls.c: the first bytes of a tunnel as a TLS ClientHello.
 * The hello's message is at most EGRESS_HELLO_MAX bytes and must be whole
 * within the first EGRESS_PEEK_MAX bytes of records.
 */
#define EGRESS_HELLO_MAX	16384
#define EGRESS_PEEK_MAX		(EGRESS_HELLO_MAX + 8192)

#define EGRESS_HELLO_OK		0	/* a whole, well-formed ClientHello */
#define EGRESS_HELLO_MORE	1	/* well-formed so far: read more */
#define EGRESS_HELLO_BAD	(-1)	/* not one (or refused, see *why) */

struct egress_hello {
	char		sni[256];	/* its server name, when has_sni */
	int		has_sni;
	int		ech;		/* an encrypted_client_hello extension */
	size_t		msglen;
	uint8_t		msg[4 + EGRESS_HELLO_MAX];	/* scratch; last */
};

/* Parse buf[0..len) as the records carrying a ClientHello. */
int	egress_hello_parse(const uint8_t *buf, size_t len,
	    struct egress_hello *);
/*
 * The verdict for a tunnel to host (lower case): EGRESS_HELLO_OK when the
 * hello names host (ASCII case folded, a trailing dot ignored),
 * EGRESS_HELLO_MORE, or EGRESS_HELLO_BAD with *why "not_tls", "no_sni" or
 * "sni_mismatch". With ECH the name checked is the outer one, the only
 * one in the clear.
 */
int	egress_hello_check(const uint8_t *buf, size_t len, const char *host,
	    struct egress_hello *, const char **why);

#endif /* ALX_RUNNER_PROXY_H */
