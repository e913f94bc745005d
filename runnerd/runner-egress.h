/*
 * runner-egress.h: the runner's boundary (docs/sandbox.md): the egress proxy of
 * network mode `allow` (runner-proxy.c), the denied-attempts log, and
 * `verify` (runner-verify.c), for the daemon (runnerd.c, runner-loop.c).
 *
 * The proxy is its own process, airlox-egress (pkglibexec), started with
 * a clean environment and no fd but its control socket: it never holds
 * the runner's keys or invite. Each job in mode `allow` gets a socketpair;
 * its end goes into the sandbox (sandbox_spec.egress_fd), where airlox-shim
 * listens on 127.0.0.1:SANDBOX_EGRESS_PORT and hands every accepted TCP
 * connection to the proxy (SCM_RIGHTS). The proxy allows CONNECT to port
 * 443 (and plain GET of http:// URLs when asked) to allowed names only,
 * resolves them itself, refuses IP literals and non-public addresses, and
 * connects to the address it checked.
 *
 * Functions return 0 or a negative ALX_ERR_* code; nothing here prints,
 * except runner_verify() to the FILE it is given.
 */
#ifndef ALX_RUNNER_EGRESS_H
#define ALX_RUNNER_EGRESS_H

#include <sys/socket.h>
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef RUNNER_EGRESS_PATH
#define RUNNER_EGRESS_PATH	"/usr/local/libexec/airlox/airlox-egress"
#endif
#ifndef RUNNER_PROBE_PATH
#define RUNNER_PROBE_PATH	"/usr/local/libexec/airlox/airlox-probe"
#endif

/* Bounds of the proxy. */
#define EGRESS_HEADER_MAX	8192	/* request line and headers */
#define EGRESS_HEADER_LINES	64
#define EGRESS_HEADER_MS	10000	/* whole request within this time */
#define EGRESS_HELLO_MS		10000	/* a tunnel's ClientHello within this */
#define EGRESS_CONNECT_MS	10000	/* per upstream address */
#define EGRESS_IDLE_MS		300000	/* a tunnel idle this long ends */
#define EGRESS_CONNS_MAX	32	/* concurrent connections per job */
#define EGRESS_DENIED_LOG_MAX	200	/* lines logged per job */
#define EGRESS_LOG_ROTATE	(8 << 20)	/* denied.log -> denied.log.1 */
#define EGRESS_ADDRS_MAX	8

/* Job flags. */
#define EGRESS_HTTP		0x1	/* plain GET of http:// URLs (port 80) */

struct runner_egress;

/*
 * Start the proxy process. cmd: argv of the program (NULL: airlox-egress
 * beside this program, else RUNNER_EGRESS_PATH); "-s statedir" is
 * appended. It writes denied attempts to statedir/denied.log and dies with
 * the runner. Call before the runner's keys and invite are loaded, and
 * keep it for the runner's life (one per runner).
 */
int	runner_egress_start(struct runner_egress **, const char *const *cmd,
	    const char *statedir, char **cause);
void	runner_egress_stop(struct runner_egress *);
/*
 * Register a job of mode `allow`: allow[] is its (normalised) domain
 * list, flags EGRESS_HTTP or 0. *fd is the job's end of its socket, for
 * sandbox_spec.egress_fd; the caller closes it once sandbox_start()
 * returned.
 */
int	runner_egress_job(struct runner_egress *, const char *job_id,
	    char *const *allow, size_t nallow, int flags, int *fd);
/*
 * A job's network, from its network mode (ALX_NET_*): *net for
 * sandbox_spec.net and *fd for sandbox_spec.egress_fd (-1 unless mode
 * allow; close it after sandbox_start()). Mode full is
 * ALX_ERR_NOT_ALLOWED unless the runner was started with --network
 * (runner_network 1); mode allow needs the proxy (eg).
 */
int	runner_egress_net(struct runner_egress *, const char *job_id,
	    int net_mode, int runner_network, char *const *allow,
	    size_t nallow, int flags, int *net, int *fd);
/*
 * After the job's sandbox is gone: waits (up to 3 s) for its last
 * connections, writes the job's summary to denied.log and gives the
 * number of denied attempts, for the result.
 */
int	runner_egress_job_end(struct runner_egress *, const char *job_id,
	    uint64_t *denied);
/*
 * The denied attempts recorded for a job (JSON lines of statedir/egress/
 * denied.log and denied.log.1: {"time","job","host","port","method",
 * "reason"}), for
 * `airlox machine denied`; *count includes attempts not logged one by
 * one. lines may be NULL to count only.
 */
int	runner_egress_denied(const char *statedir, const char *job_id,
	    char ***lines, size_t *nlines, uint64_t *count);
void	runner_egress_lines_free(char **, size_t);

/*
 * The proxy's address rule: 1 when addr is a public unicast address it
 * may connect to; 0 for loopback, private, link-local, CGNAT, multicast,
 * broadcast, 0/8, documentation and benchmark ranges, IPv4-mapped or
 * -compatible forms, NAT64, 6to4, Teredo, ULA, site-local, anything
 * outside 2000::/3.
 */
int	runner_egress_addr_public(const struct sockaddr *);
/* 1 when host is an IP literal in any form getaddrinfo would accept. */
int	runner_egress_ip_literal(const char *host);

/*
 * The proxy's resolver: host -> at most max addresses with port set, each
 * already checked (only public ones returned). The default is getaddrinfo
 * plus runner_egress_addr_public(). Only a test program replaces it
 * (tests/runnerd/proxy-test.c): the shipped programs have no option to.
 */
typedef int (*runner_egress_resolver)(const char *host, uint16_t port,
	    struct sockaddr_storage *out, size_t max, size_t *n);
extern runner_egress_resolver	runner_egress_resolve;
int	runner_egress_resolve_default(const char *host, uint16_t port,
	    struct sockaddr_storage *out, size_t max, size_t *n);

/*
 * The proxy process: first runner_egress_drop() (as root: its own
 * unprivileged uid RUNNER_EGRESS_UID, no groups, no_new_privs; its log
 * dir statedir/egress made its own and opened before), then the main
 * loop (ctlfd from the runner; denied.log in that dir).
 */
#define RUNNER_EGRESS_UID	((uid_t)1999999999u)	/* SANDBOX_UID_BASE - 1 */
int	runner_egress_drop(const char *statedir, int *logdirfd);
int	runner_egress_serve(int ctlfd, int logdirfd);

/*
 * verify: start a sandbox exactly as a job would (same spec, limits,
 * environment allow list, proxy in mode `allow`) and run the boundary
 * probes from inside it. Prints "PASS|FAIL|SKIP name: reason" per line
 * to out (may be NULL), gives the report JSON (malloc'd; may be NULL) to
 * sign and post, and returns the number of FAILs (or <0 on an error that
 * stopped it). net_mode: ALX_NET_NONE, ALX_NET_ALLOW or ALX_NET_FULL.
 */
struct sandbox_backend;
int	runner_verify(const struct sandbox_backend *, const char *statedir,
	    const char *workroot, int net_mode, char *const *allow,
	    size_t nallow, FILE *out, char **report_json);

/* The same with the programs named (tests, build trees); NULL: defaults. */
struct runner_verify_opts {
	const char		 *shim;		/* airlox-shim */
	const char		 *probe;	/* airlox-probe */
	const char *const	 *egress_cmd;	/* see runner_egress_start */
	const char *const	 *env_allow;	/* the runner's allow list */
	/*
	 * Tests only (verify-test -K): a kernel without a feature, as
	 * airlox-probe -T simulates it ("no-ia32"); NULL in the runner.
	 */
	const char		 *kernel_sim;
};
int	runner_verify_run(const struct runner_verify_opts *,
	    const struct sandbox_backend *, const char *statedir,
	    const char *workroot, int net_mode, char *const *allow,
	    size_t nallow, FILE *out, char **report_json);

#endif /* ALX_RUNNER_EGRESS_H */
