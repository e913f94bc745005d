/*
 * runner-proxy.h: the egress proxy's own pieces (runner-proxy*.c).
 */
#ifndef ALX_RUNNER_PROXY_H
#define ALX_RUNNER_PROXY_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

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
	unsigned	port;
};

/* runner-proxy-http.c */
int	egress_serve_conn(const struct egress_job *, int fd,
	    struct egress_denial *);

#endif /* ALX_RUNNER_PROXY_H */
