/*
 * fuzz-proxy-req.c: libFuzzer target for the egress proxy's request
 * reader (runnerd/runner-proxy-req.c) and its address rules
 * (runnerd/runner-proxy-addr.c): what a job, the party the sandbox
 * assumes hostile, sends the proxy first.
 *
 * The first byte's low bit allows plain HTTP for the job; the rest is the
 * bytes the job sent. Invariants, any broken one aborts:
 * - the head ends at the first empty line, within the bound;
 * - a request let through names an allowed, valid, lower-case DNS name
 *   that is no IP literal, on port 443 (CONNECT) or 80 (GET);
 * - the request a GET sends the origin is one request line, headers in
 *   CRLF lines without control bytes, exactly one Host (the checked
 *   name), no hop-by-hop or proxy header, "Connection: close" last;
 * - a refusal has an HTTP status and a reason.
 * The input, read as an address (IPv4 or IPv6), goes through the address
 * rule too, which must agree with a few plain facts.
 */
#include "config.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "airlox.h"
#include "runner-egress.h"
#include "runner-proxy.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(x)	do { if (!(x)) abort(); } while (0)

static char	*allow[] = { ".allowed.test", "plain.test", "pypi.org" };
static struct egress_request	rq;

static void
check_out(const struct egress_request *r)
{
	const char	*p = r->out, *end = r->out + r->outlen, *nl;
	size_t		 hosts = 0, i;
	char		 want[300];

	CHECK(r->outlen > 4 && r->outlen < sizeof r->out);
	CHECK(memcmp(p, "GET /", 5) == 0);
	CHECK(memcmp(end - 4, "\r\n\r\n", 4) == 0);
	CHECK(r->outlen >= 23 && memcmp(end - 23,
	    "\r\nConnection: close\r\n\r\n", 23) == 0);
	snprintf(want, sizeof want, "Host: %s", r->host);
	for (; p < end - 2; p = nl + 2) {
		nl = memmem(p, (size_t)(end - p), "\r\n", 2);
		CHECK(nl != NULL);
		for (i = 0; p + i < nl; i++)
			CHECK(((unsigned char)p[i] >= 0x20 || p[i] == '\t') &&
			    p[i] != 0x7f);
		if (p == r->out)
			continue;
		if (strncasecmp(p, "host:", 5) == 0) {
			CHECK((size_t)(nl - p) == strlen(want) &&
			    memcmp(p, want, strlen(want)) == 0);
			hosts++;
		}
		CHECK(strncasecmp(p, "proxy-", 6) != 0 &&
		    strncasecmp(p, "upgrade:", 8) != 0 &&
		    strncasecmp(p, "transfer-encoding:", 18) != 0 &&
		    (strncasecmp(p, "connection:", 11) != 0 ||
		    nl + 4 == end));
	}
	CHECK(hosts == 1);
}

static void
check_addr(const uint8_t *data, size_t size)
{
	struct sockaddr_in	s4;
	struct sockaddr_in6	s6;
	uint32_t		a;

	if (size >= 4) {
		memset(&s4, 0, sizeof s4);
		s4.sin_family = AF_INET;
		memcpy(&s4.sin_addr, data, 4);
		a = ntohl(s4.sin_addr.s_addr);
		if (runner_egress_addr_public((struct sockaddr *)&s4))
			CHECK((a >> 24) != 127 && (a >> 24) != 10 &&
			    (a >> 24) != 0 && (a >> 16) != 0xa9fe &&
			    (a >> 28) < 0xe);
	}
	if (size >= 16) {
		memset(&s6, 0, sizeof s6);
		s6.sin6_family = AF_INET6;
		memcpy(&s6.sin6_addr, data, 16);
		if (runner_egress_addr_public((struct sockaddr *)&s6))
			CHECK((data[0] & 0xe0) == 0x20);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct egress_job	 job;
	const char		*buf, *why, *first;
	size_t			 hlen, len;
	int			 r;

	if (size < 1 || size > EGRESS_HEADER_MAX + 64)
		return 0;
	check_addr(data + 1, size - 1);
	memset(&job, 0, sizeof job);
	job.flags = data[0] & 1 ? EGRESS_HTTP : 0;
	job.allow = allow;
	job.nallow = sizeof allow / sizeof allow[0];
	buf = (const char *)data + 1;
	len = size - 1;

	r = egress_head_end(buf, len, &hlen);
	first = memmem(buf, len, "\r\n\r\n", 4);
	CHECK(r == 0 || r == 1 || r == 400 || r == 431);
	if (r == 1)
		CHECK(first == NULL && len < EGRESS_HEADER_MAX);
	if (r == 431)
		CHECK(first == NULL);
	if (r != 0 && r != 400)
		return 0;
	CHECK(first != NULL && hlen == (size_t)(first - buf) + 4);
	if (r == 400) {
		CHECK(memchr(buf, '\0', hlen) != NULL);
		return 0;
	}
	if (hlen > EGRESS_HEADER_MAX)
		return 0;	/* the proxy never reads that far */

	r = egress_request_parse(&job, buf, hlen, &rq, &why);
	if (r != 0) {
		CHECK(r >= 400 && r < 500 && why != NULL && why[0] != '\0');
		return 0;
	}
	CHECK(why == NULL);
	CHECK(!runner_egress_ip_literal(rq.host));
	CHECK(alx_domain_valid(rq.host) == 0);
	CHECK(alx_domain_allowed(job.allow, job.nallow, rq.host) == 0);
	if (rq.connect) {
		CHECK(strcmp(rq.method, "CONNECT") == 0 && rq.port == 443);
		CHECK(rq.outlen == 0);
	} else {
		CHECK(strcmp(rq.method, "GET") == 0 && rq.port == 80);
		CHECK(job.flags & EGRESS_HTTP);
		check_out(&rq);
	}
	return 0;
}
