/*
 * runner-proxy-http.c: one connection of a job to the egress proxy, in a
 * child process of airlox-egress (one per connection, so a slow or
 * hostile client holds only itself).
 *
 * The request (line and headers) must arrive within EGRESS_HEADER_MS and
 * fit EGRESS_HEADER_MAX bytes and EGRESS_HEADER_LINES lines; what it may
 * do is decided by runner-proxy-req.c. The name is resolved here
 * (runner_egress_resolve) to public addresses only; the proxy connects to
 * one of those addresses, never resolving again.
 * A tunnel then carries nothing until its first bytes are a whole TLS
 * ClientHello naming the same host (runner-proxy-tls.c), read within
 * EGRESS_HELLO_MS and EGRESS_PEEK_MAX bytes and forwarded unchanged: the
 * proxy peeks, it never terminates TLS. Every refusal is recorded by the
 * caller (the exit code says which).
 */
#include "config.h"

#include <sys/socket.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "util/mono.h"
#include "runner-egress.h"
#include "runner-proxy.h"
#include "sandbox.h"

struct egress_req {
	char	 buf[EGRESS_HEADER_MAX + 1];
	size_t	 len;		/* bytes read */
	size_t	 hlen;		/* header bytes, incl. the empty line */
	struct egress_request req;
	int	 tunnel;	/* CONNECT answered: the job speaks TLS now */
	uint8_t	 peek[EGRESS_PEEK_MAX];	/* the tunnel's first bytes */
	size_t	 plen;
	struct egress_hello hello;
};

/* A fatal access_denied alert (RFC 8446 6.2), as a TLS 1.2 record. */
static const uint8_t	egress_tls_refusal[] = {
	0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x31
};

static int
egress_write_all(int fd, const char *p, size_t len, int64_t deadline)
{
	struct pollfd	pfd;
	ssize_t		n;
	int64_t		left;

	while (len > 0) {
		n = write(fd, p, len);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == -1 && errno != EAGAIN && errno != EINTR)
			return -1;
		if ((left = deadline - mono_ms()) <= 0)
			return -1;
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			return -1;
	}
	return 0;
}

static void
egress_reply(int fd, int code, const char *text, const char *reason)
{
	char	msg[512];
	int	n;

	n = snprintf(msg, sizeof msg, "HTTP/1.1 %d %s\r\n"
	    "Content-Type: text/plain\r\nConnection: close\r\n"
	    "X-Airlox-Egress: %s\r\nContent-Length: %zu\r\n\r\n"
	    "airlox egress: %s\n", code, text, reason,
	    strlen("airlox egress: \n") + strlen(reason), reason);
	if (n > 0 && (size_t)n < sizeof msg)
		egress_write_all(fd, msg, (size_t)n, mono_ms() + 2000);
}

/* Read until the empty line; 0, or the HTTP status to answer with. */
static int
egress_read_head(int fd, struct egress_req *rq)
{
	struct pollfd	 pfd;
	int64_t		 deadline = mono_ms() + EGRESS_HEADER_MS, left;
	ssize_t		 n;
	int		 r;

	for (;;) {
		if ((r = egress_head_end(rq->buf, rq->len, &rq->hlen)) != 1)
			return r;
		if ((left = deadline - mono_ms()) <= 0)
			return 408;
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		n = read(fd, rq->buf + rq->len, EGRESS_HEADER_MAX - rq->len);
		if (n == 0)
			return 400;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return 400;
		}
		rq->len += (size_t)n;
	}
}

static int
egress_connect1(const struct sockaddr_storage *ss)
{
	struct pollfd	pfd;
	socklen_t	len = ss->ss_family == AF_INET ?
			    sizeof(struct sockaddr_in) :
			    sizeof(struct sockaddr_in6);
	int		s, err = 0;

	s = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (s == -1)
		return -1;
	if (connect(s, (const struct sockaddr *)ss, len) == 0)
		return s;
	if (errno != EINPROGRESS) {
		close(s);
		return -1;
	}
	pfd.fd = s;
	pfd.events = POLLOUT;
	len = sizeof err;
	if (poll(&pfd, 1, EGRESS_CONNECT_MS) != 1 ||
	    getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
		close(s);
		return -1;
	}
	return s;
}

/* Resolve (checked addresses only) and connect: fd, or -status. */
static int
egress_upstream(const struct egress_request *rq, const char **why)
{
	struct sockaddr_storage	addrs[EGRESS_ADDRS_MAX];
	size_t			n = 0, i;
	int			r, s;

	r = runner_egress_resolve(rq->host, (uint16_t)rq->port, addrs,
	    EGRESS_ADDRS_MAX, &n);
	if (r == ALX_ERR_NOT_ALLOWED)
		return (*why = "non_public_address", -403);
	if (r != 0 || n == 0)
		return (*why = "unresolved", -502);
	for (i = 0; i < n; i++) {
		/* Belt and braces: the resolver's answer is checked again. */
		if (runner_egress_resolve == runner_egress_resolve_default &&
		    !runner_egress_addr_public((struct sockaddr *)&addrs[i]))
			continue;
		if ((s = egress_connect1(&addrs[i])) != -1)
			return s;
	}
	return (*why = "unreachable", -502);
}

/* Copy both ways until both ends are done or idle too long. */
static void
egress_relay(int a, int b, int both)
{
	struct pollfd	 pfd[2];
	char		 buf[2][16384];
	size_t		 len[2] = { 0, 0 }, off[2] = { 0, 0 };
	int		 fds[2] = { a, b }, eof[2] = { !both, 0 }, i, n;
	ssize_t		 r;

	/* Direction i: read fds[i], write fds[1 - i]. */
	for (;;) {
		for (i = 0; i < 2; i++) {
			pfd[i].fd = fds[i];
			pfd[i].events = 0;
			if (len[i] == off[i] && !eof[i])
				pfd[i].events |= POLLIN;
			if (len[1 - i] > off[1 - i])
				pfd[i].events |= POLLOUT;
			if (pfd[i].events == 0)
				pfd[i].fd = -1;		/* nothing to wait for */
		}
		if (eof[0] && eof[1] && len[0] == off[0] && len[1] == off[1])
			return;
		if (eof[1] && len[1] == off[1] && !both)
			return;
		n = poll(pfd, 2, EGRESS_IDLE_MS);
		if (n == 0)
			return;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (i = 0; i < 2; i++) {
			if ((pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
			    len[i] == off[i] && !eof[i]) {
				r = read(fds[i], buf[i], sizeof buf[i]);
				if (r > 0) {
					len[i] = (size_t)r;
					off[i] = 0;
				} else if (r == 0 || (errno != EAGAIN &&
				    errno != EINTR)) {
					eof[i] = 1;
					shutdown(fds[1 - i], SHUT_WR);
				}
			}
			if ((pfd[i].revents & (POLLOUT | POLLERR)) &&
			    len[1 - i] > off[1 - i]) {
				r = write(fds[i], buf[1 - i] + off[1 - i],
				    len[1 - i] - off[1 - i]);
				if (r > 0)
					off[1 - i] += (size_t)r;
				else if (errno != EAGAIN && errno != EINTR)
					return;
			}
		}
	}
}

/*
 * The tunnel's first bytes (those that came with the request first), read
 * until they hold a whole ClientHello, whose name must be the CONNECT
 * host. 0: let through (rq->peek[0..plen) is what to forward); an HTTP
 * status with *why when refused; -1 when the job closed before sending
 * anything (nothing to record).
 */
static int
egress_peek_hello(int fd, struct egress_req *rq, const char **why)
{
	struct pollfd	pfd;
	int64_t		deadline = mono_ms() + EGRESS_HELLO_MS, left;
	ssize_t		n;
	int		r;

	rq->plen = rq->len - rq->hlen;
	memcpy(rq->peek, rq->buf + rq->hlen, rq->plen);
#ifdef SANDBOX_TEST_WEAKEN
	if (sandbox_test_weaken & SANDBOX_WEAKEN_PROXY)
		return 0;
#endif
	for (;;) {
		if (rq->plen > 0) {
			r = egress_hello_check(rq->peek, rq->plen,
			    rq->req.host, &rq->hello, why);
			if (r == EGRESS_HELLO_OK)
				return 0;
			if (r == EGRESS_HELLO_BAD)
				return 403;
			if (rq->plen == sizeof rq->peek)	/* defensive */
				return (*why = "not_tls", 403);
		}
		if ((left = deadline - mono_ms()) <= 0)
			return (*why = "hello_timeout", 408);
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		n = read(fd, rq->peek + rq->plen, sizeof rq->peek - rq->plen);
		if (n == 0 && rq->plen == 0)
			return -1;
		if (n == 0)
			return (*why = "not_tls", 403);	/* a cut hello */
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -1;
		}
		rq->plen += (size_t)n;
	}
}

static int
egress_connect_req(struct egress_req *rq, int fd, const char **why)
{
	static const char	ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	int			r, up;

	if ((up = egress_upstream(&rq->req, why)) < 0)
		return -up;
	if (egress_write_all(fd, ok, sizeof ok - 1, mono_ms() + 5000) != 0) {
		close(up);
		return -1;
	}
	rq->tunnel = 1;
	if ((r = egress_peek_hello(fd, rq, why)) != 0) {
		close(up);
		return r;
	}
	if (egress_write_all(up, (const char *)rq->peek, rq->plen,
	    mono_ms() + 5000) != 0) {
		close(up);
		return -1;
	}
	egress_relay(fd, up, 1);
	close(up);
	return -1;
}

static int
egress_get_req(struct egress_req *rq, int fd, const char **why)
{
	int	up;

	if ((up = egress_upstream(&rq->req, why)) < 0)
		return -up;
	if (egress_write_all(up, rq->req.out, rq->req.outlen,
	    mono_ms() + 10000) == 0)
		egress_relay(fd, up, 0);	/* one request: origin -> job */
	close(up);
	return -1;
}

static const char *
egress_status_text(int code)
{
	switch (code) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 431: return "Request Header Fields Too Large";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	}
	return "Error";
}

/*
 * Serve one connection. Returns EGRESS_EXIT_OK when it was served or
 * failed upstream, EGRESS_EXIT_DENIED after a refusal (rec filled in).
 */
int
egress_serve_conn(const struct egress_job *job, int fd,
    struct egress_denial *rec)
{
	struct egress_req	*rq;
	const char		*why = NULL;
	int			 code, r;

	if ((rq = calloc(1, sizeof *rq)) == NULL)
		return EGRESS_EXIT_OK;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if ((code = egress_read_head(fd, rq)) != 0)
		why = code == 408 ? "request_timeout" : code == 431 ?
		    "header_too_large" : "bad_request";
	else if ((code = egress_request_parse(job, rq->buf, rq->hlen,
	    &rq->req, &why)) != 0)
		;
	else if (rq->req.connect)
		code = egress_connect_req(rq, fd, &why);
	else
		code = egress_get_req(rq, fd, &why);
	r = EGRESS_EXIT_OK;
	if (code > 0) {
		/* In a tunnel the job expects TLS, unless it sent none. */
		if (rq->tunnel && strcmp(why, "not_tls") != 0)
			egress_write_all(fd, (const char *)egress_tls_refusal,
			    sizeof egress_tls_refusal, mono_ms() + 2000);
		else
			egress_reply(fd, code, egress_status_text(code), why);
		if (code != 502) {
			snprintf(rec->host, sizeof rec->host, "%.*s",
			    (int)sizeof rec->host - 1, rq->req.host[0] != '\0' ?
			    rq->req.host : rq->req.target);
			snprintf(rec->method, sizeof rec->method, "%s",
			    rq->req.method);
			snprintf(rec->reason, sizeof rec->reason, "%s", why);
			if (rq->tunnel && rq->hello.has_sni)
				snprintf(rec->sni, sizeof rec->sni, "%s",
				    rq->hello.sni);
			rec->port = rq->req.port;
			r = EGRESS_EXIT_DENIED;
		}
	}
	free(rq);
	return r;
}
