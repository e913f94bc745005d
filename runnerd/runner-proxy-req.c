/*
 * runner-proxy-req.c: a job's request to the egress proxy (request line
 * and headers, written by the job, the one party the sandbox assumes
 * hostile), read into what the proxy may do with it. Pure functions of
 * the bytes and the job's allow list: no I/O, so a fuzzer calls them on
 * anything (tests/fuzz/fuzz-proxy-req.c); runner-proxy-http.c reads the
 * bytes and carries out the answer.
 *
 * Allowed:
 *   CONNECT name:443		a tunnel (TLS) to an allowed name
 *   GET http://name[:80]/...	when the job's flags allow plain HTTP;
 *				no body, one request, Connection: close
 * The name must not be an IP literal and must be a valid lower-case DNS
 * name (alx_domain_valid) on the job's list (alx_domain_allowed).
 */
#include "config.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "airlox.h"
#include "runner-egress.h"
#include "runner-proxy.h"
#include "sandbox.h"

int
egress_head_end(const char *buf, size_t len, size_t *hlen)
{
	const char	*end;

	*hlen = 0;
	if ((end = memmem(buf, len, "\r\n\r\n", 4)) == NULL)
		return len >= EGRESS_HEADER_MAX ? 431 : 1;
	*hlen = (size_t)(end - buf) + 4;
	return memchr(buf, '\0', *hlen) != NULL ? 400 : 0;
}

/* A header field name: RFC 9110 token characters, at least one. */
static int
egress_field_name(const char *line, size_t len)
{
	static const char	tchar[] = "!#$%&'*+-.^_`|~";
	size_t			i;

	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)line[i]) &&
		    strchr(tchar, line[i]) == NULL)
			return 0;
	return len > 0;
}

/* Request line and header lines: shape, count, no body. */
static int
egress_parse_head(struct egress_request *rq, const char **why)
{
	char	*line, *next, *sp1, *sp2, *colon;
	char	*end = rq->head + rq->hlen - 2;	/* the empty line */
	size_t	 i, nlines = 0;

	line = rq->head;
	next = strstr(line, "\r\n");
	*next = '\0';
	for (i = 0; line[i] != '\0'; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			return (*why = "bad_request", 400);
	if ((sp1 = strchr(line, ' ')) == NULL ||
	    (sp2 = strchr(sp1 + 1, ' ')) == NULL || strchr(sp2 + 1, ' '))
		return (*why = "bad_request", 400);
	if ((size_t)(sp1 - line) >= sizeof rq->method ||
	    (strcmp(sp2 + 1, "HTTP/1.1") != 0 &&
	    strcmp(sp2 + 1, "HTTP/1.0") != 0))
		return (*why = "bad_request", 400);
	memcpy(rq->method, line, (size_t)(sp1 - line));
	rq->method[sp1 - line] = '\0';
	memcpy(rq->target, sp1 + 1, (size_t)(sp2 - sp1 - 1));
	rq->target[sp2 - sp1 - 1] = '\0';
	*next = '\r';
	for (line = next + 2; line < end; line = next + 2) {
		next = strstr(line, "\r\n");
		*next = '\0';
		if (++nlines > EGRESS_HEADER_LINES)
			return (*why = "too_many_headers", 431);
		/* "Host : x" would reach the origin as a second Host. */
		if ((colon = strchr(line, ':')) == NULL ||
		    !egress_field_name(line, (size_t)(colon - line)))
			return (*why = "bad_request", 400);
		for (i = 0; line[i] != '\0'; i++)
			if (((unsigned char)line[i] < 0x20 &&
			    line[i] != '\t') || line[i] == 0x7f)
				return (*why = "bad_request", 400);
		if (strncasecmp(line, "transfer-encoding:", 18) == 0 ||
		    (strncasecmp(line, "content-length:", 15) == 0 &&
		    strtol(line + 15, NULL, 10) != 0))
			return (*why = "request_body", 400);
		*next = '\r';
	}
	return 0;
}

/* "name:port" (CONNECT) or "name[:port]" (GET), name lower-cased. */
static int
egress_authority(struct egress_request *rq, const char *a, size_t len,
    unsigned defport, const char **why)
{
	const char	*colon;
	size_t		 hlen, i;
	unsigned long	 port = defport;
	char		 num[8];

	if (len == 0)
		return (*why = "bad_name", 403);
	if (a[0] == '['
#ifdef SANDBOX_TEST_WEAKEN
	    && !(sandbox_test_weaken & SANDBOX_WEAKEN_PROXY)
#endif
	    )
		return (*why = "ip_literal", 403);
	colon = memchr(a, ':', len);
	hlen = colon != NULL ? (size_t)(colon - a) : len;
	if (hlen == 0 || hlen >= sizeof rq->host)
		return (*why = "bad_name", 403);
	if (colon != NULL) {
		i = len - hlen - 1;
		if (i == 0 || i > 5)
			return (*why = "bad_port", 403);
		memcpy(num, colon + 1, i);
		num[i] = '\0';
		for (i = 0; num[i] != '\0'; i++)
			if (!isdigit((unsigned char)num[i]))
				return (*why = "bad_port", 403);
		port = strtoul(num, NULL, 10);
	} else if (defport == 0)
		return (*why = "bad_port", 403);
	for (i = 0; i < hlen; i++)
		rq->host[i] = (char)tolower((unsigned char)a[i]);
	rq->host[hlen] = '\0';
	rq->port = (unsigned)port;
	return 0;
}

/* The name rules, in order; 0 when this job may go there. */
static int
egress_name_check(const struct egress_job *job, struct egress_request *rq,
    unsigned want_port, const char **why)
{
#ifdef SANDBOX_TEST_WEAKEN
	if (sandbox_test_weaken & SANDBOX_WEAKEN_PROXY)
		return 0;
#endif
	if (runner_egress_ip_literal(rq->host))
		return (*why = "ip_literal", 403);
	if (alx_domain_valid(rq->host) != 0)
		return (*why = "bad_name", 403);
	if (alx_domain_allowed(job->allow, job->nallow, rq->host) != 0)
		return (*why = "not_allowed", 403);
	if (rq->port != want_port)
		return (*why = "port", 403);
	return 0;
}

/* Headers passed on to the origin (hop-by-hop and proxy ones dropped). */
static int
egress_header_kept(const char *line)
{
	static const char *const drop[] = {
		"host:", "connection:", "proxy-connection:", "proxy-",
		"keep-alive:", "te:", "upgrade:", "trailer:", NULL
	};
	size_t	i;

	for (i = 0; drop[i] != NULL; i++)
		if (strncasecmp(line, drop[i], strlen(drop[i])) == 0)
			return 0;
	return 1;
}

/* GET http://name/...: the checks, then the request for the origin. */
static int
egress_get(const struct egress_job *job, struct egress_request *rq,
    const char **why)
{
	const char	*a = rq->target + 7, *end, *line, *next, *path;
	size_t		 olen;
	int		 r, n;

	if (!(job->flags & EGRESS_HTTP))
		return (*why = "plain_http", 403);
	if (strncasecmp(rq->target, "http://", 7) != 0)
		return (*why = "method", 405);
	end = a + strcspn(a, "/?#");
	if (memchr(a, '@', (size_t)(end - a)) != NULL)
		return (*why = "bad_url", 403);
	if ((r = egress_authority(rq, a, (size_t)(end - a), 80, why)) != 0 ||
	    (r = egress_name_check(job, rq, 80, why)) != 0)
		return r;
	path = *end == '/' ? end : "/";
	if (strchr(path, '#') != NULL)
		return (*why = "bad_url", 400);
	n = snprintf(rq->out, sizeof rq->out, "GET %s HTTP/1.1\r\nHost: %s\r\n",
	    path, rq->host);
	if (n < 0 || (size_t)n >= sizeof rq->out)
		return (*why = "bad_url", 400);
	olen = (size_t)n;
	line = strstr(rq->head, "\r\n") + 2;
	for (; line < rq->head + rq->hlen - 2; line = next + 2) {
		next = strstr(line, "\r\n");
		if (!egress_header_kept(line))
			continue;
		if (olen + (size_t)(next - line) + 2 >= sizeof rq->out - 32)
			return (*why = "header_too_large", 431);
		memcpy(rq->out + olen, line, (size_t)(next - line) + 2);
		olen += (size_t)(next - line) + 2;
	}
	memcpy(rq->out + olen, "Connection: close\r\n\r\n", 21);
	rq->outlen = olen + 21;
	return 0;
}

int
egress_request_parse(const struct egress_job *job, const char *buf,
    size_t hlen, struct egress_request *rq, const char **why)
{
	int	r;

	memset(rq, 0, offsetof(struct egress_request, head));
	*why = NULL;
	if (hlen < 4 || hlen > EGRESS_HEADER_MAX ||
	    memcmp(buf + hlen - 4, "\r\n\r\n", 4) != 0 ||
	    memchr(buf, '\0', hlen) != NULL)
		return (*why = "bad_request", 400);
	memcpy(rq->head, buf, hlen);
	rq->head[hlen] = '\0';
	rq->hlen = hlen;
	rq->out[0] = '\0';
	if ((r = egress_parse_head(rq, why)) != 0)
		return r;
	if (strcmp(rq->method, "CONNECT") == 0) {
		rq->connect = 1;
		if ((r = egress_authority(rq, rq->target, strlen(rq->target),
		    0, why)) != 0 || (r = egress_name_check(job, rq, 443,
		    why)) != 0)
			return r;
		return 0;
	}
	if (strcmp(rq->method, "GET") == 0)
		return egress_get(job, rq, why);
	return (*why = "method", 405);
}
