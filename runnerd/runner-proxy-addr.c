/*
 * runner-proxy-addr.c: what the egress proxy may connect to. A name is
 * resolved by the proxy itself; IP literals in any spelling are refused,
 * and every resolved address must be public unicast. The proxy connects
 * to the very address checked here (no second resolution).
 */
#include "config.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <netdb.h>
#include <stdint.h>
#include <string.h>

#include "airlox.h"
#include "runner-egress.h"

runner_egress_resolver	runner_egress_resolve = runner_egress_resolve_default;

/* IPv4 ranges that are never a job's destination (address, prefix). */
static const struct {
	uint32_t	net;
	unsigned	bits;
} egress_v4_deny[] = {
	{ 0x00000000, 8 },	/* 0/8 "this network" */
	{ 0x0a000000, 8 },	/* 10/8 private */
	{ 0x64400000, 10 },	/* 100.64/10 CGNAT */
	{ 0x7f000000, 8 },	/* 127/8 loopback */
	{ 0xa9fe0000, 16 },	/* 169.254/16 link-local, cloud metadata */
	{ 0xac100000, 12 },	/* 172.16/12 private */
	{ 0xc0000000, 24 },	/* 192.0.0/24 IETF protocol assignments */
	{ 0xc0000200, 24 },	/* 192.0.2/24 TEST-NET-1 */
	{ 0xc0586300, 24 },	/* 192.88.99/24 6to4 relay */
	{ 0xc0a80000, 16 },	/* 192.168/16 private */
	{ 0xc6120000, 15 },	/* 198.18/15 benchmarking */
	{ 0xc6336400, 24 },	/* 198.51.100/24 TEST-NET-2 */
	{ 0xcb007100, 24 },	/* 203.0.113/24 TEST-NET-3 */
	{ 0xe0000000, 4 },	/* 224/4 multicast */
	{ 0xf0000000, 4 },	/* 240/4 reserved, 255.255.255.255 */
};

/* IPv6 ranges refused inside 2000::/3 (the only part allowed). */
static const struct {
	uint8_t		net[4];
	unsigned	bits;
} egress_v6_deny[] = {
	{ { 0x20, 0x01, 0x00, 0x00 }, 23 },	/* IETF: Teredo, ORCHID, bench */
	{ { 0x20, 0x01, 0x0d, 0xb8 }, 32 },	/* documentation */
	{ { 0x20, 0x02, 0x00, 0x00 }, 16 },	/* 6to4 (embeds IPv4) */
	{ { 0x3f, 0xff, 0x00, 0x00 }, 20 },	/* documentation (2024) */
};

static int
egress_v4_public(uint32_t a)
{
	size_t		i;
	uint32_t	mask;

	for (i = 0; i < sizeof egress_v4_deny / sizeof egress_v4_deny[0];
	    i++) {
		mask = 0xffffffffU << (32 - egress_v4_deny[i].bits);
		if ((a & mask) == egress_v4_deny[i].net)
			return 0;
	}
	return 1;
}

static int
egress_prefix_eq(const uint8_t *a, const uint8_t *net, unsigned bits)
{
	unsigned	full = bits / 8, rest = bits % 8;

	if (memcmp(a, net, full) != 0)
		return 0;
	if (rest == 0)
		return 1;
	return ((a[full] ^ net[full]) & (0xff << (8 - rest))) == 0;
}

static int
egress_v6_public(const uint8_t *a)
{
	size_t	i;

	/* Global unicast only: this drops ::/8 (loopback, mapped,
	 * compatible), 64:ff9b::/96 NAT64, fc00::/7, fe80::/10, fec0::/10,
	 * ff00::/8 and every other special range outside 2000::/3. */
	if ((a[0] & 0xe0) != 0x20)
		return 0;
	for (i = 0; i < sizeof egress_v6_deny / sizeof egress_v6_deny[0];
	    i++)
		if (egress_prefix_eq(a, egress_v6_deny[i].net,
		    egress_v6_deny[i].bits))
			return 0;
	return 1;
}

int
runner_egress_addr_public(const struct sockaddr *sa)
{
	const struct sockaddr_in	*s4;
	const struct sockaddr_in6	*s6;

	if (sa == NULL)
		return 0;
	if (sa->sa_family == AF_INET) {
		s4 = (const struct sockaddr_in *)sa;
		return egress_v4_public(ntohl(s4->sin_addr.s_addr));
	}
	if (sa->sa_family == AF_INET6) {
		s6 = (const struct sockaddr_in6 *)sa;
		return egress_v6_public(s6->sin6_addr.s6_addr);
	}
	return 0;
}

/*
 * An IP literal in any form: what inet_aton() takes (2130706433, 0x7f.1,
 * 017700000001, 127.1), IPv6 with or without brackets or a zone, and a
 * name whose labels are all numbers in any base.
 */
int
runner_egress_ip_literal(const char *host)
{
	struct in_addr	 a4;
	struct in6_addr	 a6;
	char		 buf[256];
	const char	*p;
	int		 numeric = 1, label_num;

	if (host == NULL || host[0] == '\0')
		return 1;
	if (host[0] == '[' || strchr(host, ':') != NULL ||
	    strchr(host, '%') != NULL)
		return 1;
	if (strlen(host) >= sizeof buf)
		return 0;
	snprintf(buf, sizeof buf, "%s", host);
	if (inet_aton(buf, &a4) != 0 || inet_pton(AF_INET6, buf, &a6) == 1)
		return 1;
	/* Every label a number (decimal, 0x hex, octal): treat as IP. */
	for (p = host; *p != '\0' && numeric; ) {
		label_num = 0;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			p += 2;
			while ((*p >= '0' && *p <= '9') ||
			    (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')) {
				p++;
				label_num = 1;
			}
			label_num = 1;
		} else
			while (*p >= '0' && *p <= '9') {
				p++;
				label_num = 1;
			}
		if (!label_num || (*p != '.' && *p != '\0'))
			numeric = 0;
		else if (*p == '.')
			p++;
	}
	return numeric;
}

int
runner_egress_resolve_default(const char *host, uint16_t port,
    struct sockaddr_storage *out, size_t max, size_t *n)
{
	struct addrinfo	 hints, *res = NULL, *ai;
	size_t		 seen = 0;

	*n = 0;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_ADDRCONFIG;
	if (getaddrinfo(host, NULL, &hints, &res) != 0 || res == NULL)
		return ALX_ERR_NOT_FOUND;
	for (ai = res; ai != NULL && *n < max; ai = ai->ai_next) {
		if (ai->ai_addrlen > sizeof *out)
			continue;
		seen++;
		if (!runner_egress_addr_public(ai->ai_addr))
			continue;
		memset(&out[*n], 0, sizeof out[*n]);
		memcpy(&out[*n], ai->ai_addr, ai->ai_addrlen);
		if (ai->ai_family == AF_INET)
			((struct sockaddr_in *)&out[*n])->sin_port = htons(port);
		else
			((struct sockaddr_in6 *)&out[*n])->sin6_port =
			    htons(port);
		(*n)++;
	}
	freeaddrinfo(res);
	if (*n == 0)
		return seen > 0 ? ALX_ERR_NOT_ALLOWED : ALX_ERR_NOT_FOUND;
	return 0;
}
