/*
 * relay-addr.c: client addresses and the state kept per address
 * (connections, the request token bucket, sessions created this hour).
 *
 * IPv4 addresses are kept as IPv4-mapped IPv6; IPv6 addresses are grouped
 * by /64, since one host usually holds a whole /64. Records are freed by
 * relay_peer_gc() (from the cron) once idle.
 */
#include "config.h"

#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "airlox.h"
#include "util/mono.h"
#include "util/log.h"
#include "relayd.h"

#define RELAY_PEER_BUCKETS	4096

static struct relay_peer	*relay_peers[RELAY_PEER_BUCKETS];
static struct relay_cidr	 relay_proxies[RELAY_MAX_PROXIES];
static int			 relay_nproxies;
static unsigned			 relay_npeers;
static uint8_t			 relay_peer_salt[16];
static int			 relay_peer_salted;

static void
relay_addr_v4(struct relay_addr *a, const void *in4)
{
	memset(a->a, 0, 10);
	a->a[10] = a->a[11] = 0xff;
	memcpy(a->a + 12, in4, 4);
}

static void
relay_addr_v6(struct relay_addr *a, const struct in6_addr *in6)
{
	if (IN6_IS_ADDR_V4MAPPED(in6)) {
		relay_addr_v4(a, in6->s6_addr + 12);
		return;
	}
	memcpy(a->a, in6->s6_addr, 8);	/* the /64 */
	memset(a->a + 8, 0, 8);
}

int
relay_addr_from_sa(struct relay_addr *a, const struct sockaddr *sa)
{
	if (sa == NULL)
		return ALX_ERR_INVALID;
	if (sa->sa_family == AF_INET) {
		relay_addr_v4(a,
		    &((const struct sockaddr_in *)(const void *)sa)->sin_addr);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		relay_addr_v6(a,
		    &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr);
		return 0;
	}
	return ALX_ERR_INVALID;
}

int
relay_addr_parse(struct relay_addr *a, const char *s)
{
	struct in_addr	 in4;
	struct in6_addr	 in6;

	if (inet_pton(AF_INET, s, &in4) == 1) {
		relay_addr_v4(a, &in4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &in6) == 1) {
		relay_addr_v6(a, &in6);
		return 0;
	}
	return ALX_ERR_INVALID;
}

/* A full address (no /64 grouping), IPv4 as IPv4-mapped IPv6. */
int
relay_ip_parse(uint8_t *ip, const char *s)
{
	struct in_addr	 in4;
	struct in6_addr	 in6;

	if (inet_pton(AF_INET, s, &in4) == 1) {
		memset(ip, 0, 10);
		ip[10] = ip[11] = 0xff;
		memcpy(ip + 12, &in4, 4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &in6) == 1) {
		memcpy(ip, in6.s6_addr, 16);
		return 0;
	}
	return ALX_ERR_INVALID;
}

int
relay_ip_from_sa(uint8_t *ip, const struct sockaddr *sa)
{
	if (sa == NULL)
		return ALX_ERR_INVALID;
	if (sa->sa_family == AF_INET) {
		memset(ip, 0, 10);
		ip[10] = ip[11] = 0xff;
		memcpy(ip + 12, &((const struct sockaddr_in *)(const void *)
		    sa)->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(ip, ((const struct sockaddr_in6 *)(const void *)
		    sa)->sin6_addr.s6_addr, 16);
		return 0;
	}
	return ALX_ERR_INVALID;
}

/*
 * "ADDR" or "ADDR/BITS", IPv4 or IPv6. An IPv4 range becomes the
 * IPv4-mapped range (bits + 96); host bits set in ADDR are refused, so a
 * typing error does not silently widen or narrow what is trusted.
 */
int
relay_cidr_parse(struct relay_cidr *c, const char *s)
{
	char		 buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long	 bits;
	int		 v4, i;

	if (strlen(s) >= sizeof(buf))
		return ALX_ERR_INVALID;
	memcpy(buf, s, strlen(s) + 1);
	if ((slash = strchr(buf, '/')) != NULL)
		*slash++ = '\0';
	if (relay_ip_parse(c->a, buf) != 0)
		return ALX_ERR_INVALID;
	v4 = strchr(buf, ':') == NULL;
	c->bits = 128;
	if (slash != NULL) {
		if (*slash < '0' || *slash > '9' || strlen(slash) > 3)
			return ALX_ERR_INVALID;
		bits = strtoul(slash, &end, 10);
		if (*end != '\0' || bits > (v4 ? 32UL : 128UL))
			return ALX_ERR_INVALID;
		c->bits = (unsigned)bits + (v4 ? 96 : 0);
	}
	for (i = (int)c->bits; i < 128; i++)
		if (c->a[i / 8] & (0x80 >> (i % 8)))
			return ALX_ERR_INVALID;
	return 0;
}

/* Whether ip is inside one of the n ranges. */
int
relay_cidr_match(const struct relay_cidr *c, int n, const uint8_t *ip)
{
	unsigned	full, rest;
	int		i;

	for (i = 0; i < n; i++) {
		full = c[i].bits / 8;
		rest = c[i].bits % 8;
		if (memcmp(c[i].a, ip, full) != 0)
			continue;
		if (rest != 0 && ((c[i].a[full] ^ ip[full]) &
		    (0xff << (8 - rest)) & 0xff) != 0)
			continue;
		return 1;
	}
	return 0;
}

/* --trust-proxy, parsed once at start. */
int
relay_proxy_init(char **cause)
{
	int	i;

	relay_nproxies = 0;
	for (i = 0; i < relay_cfg.ntrust_proxy; i++) {
		if (relay_cidr_parse(&relay_proxies[i],
		    relay_cfg.trust_proxy[i]) != 0) {
			relay_setcause(cause, "--trust-proxy: not an IP address "
			    "or CIDR range: %s", relay_cfg.trust_proxy[i]);
			return -1;
		}
		relay_nproxies++;
	}
	return 0;
}

/* Whether a full address (relay_ip_*) is a trusted proxy. */
int
relay_proxy_trusted(const uint8_t *ip)
{
	return relay_cidr_match(relay_proxies, relay_nproxies, ip);
}

void
relay_addr_str(const struct relay_addr *a, char *out, size_t len)
{
	static const uint8_t	 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				    0xff, 0xff };
	size_t			 n;

	if (memcmp(a->a, mapped, sizeof(mapped)) == 0) {
		inet_ntop(AF_INET, a->a + 12, out, (socklen_t)len);
		return;
	}
	inet_ntop(AF_INET6, a->a, out, (socklen_t)len);
	n = strlen(out);
	if (n + 4 < len)
		memcpy(out + n, "/64", 4);
}

static unsigned
relay_peer_hash(const struct relay_addr *a)
{
	uint8_t		h[ALX_HASH_LEN], in[32];
	unsigned	v;

	/* Salted so a client cannot aim its addresses at one chain. */
	if (!relay_peer_salted) {
		alx_random(relay_peer_salt, sizeof(relay_peer_salt));
		relay_peer_salted = 1;
	}
	memcpy(in, relay_peer_salt, 16);
	memcpy(in + 16, a->a, 16);
	alx_sha256(h, in, sizeof(in));
	v = (unsigned)h[0] | (unsigned)h[1] << 8 | (unsigned)h[2] << 16;
	return v % RELAY_PEER_BUCKETS;
}

struct relay_peer *
relay_peer_get(const struct relay_addr *a, int create)
{
	struct relay_peer	*p;
	unsigned		 h = relay_peer_hash(a);

	for (p = relay_peers[h]; p != NULL; p = p->next)
		if (memcmp(p->key.a, a->a, sizeof(a->a)) == 0)
			return p;
	if (!create || (p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->key = *a;
	p->tokens = -1;		/* full on first use */
	p->next = relay_peers[h];
	relay_peers[h] = p;
	relay_npeers++;
	return p;
}

/* Free records with no connection, a full bucket and no hourly count. */
void
relay_peer_gc(void)
{
	struct relay_peer	**pp, *p;
	double			  now = mono_sec();
	time_t			  t = time(NULL);
	unsigned		  i;

	for (i = 0; i < RELAY_PEER_BUCKETS; i++) {
		pp = &relay_peers[i];
		while ((p = *pp) != NULL) {
			if (p->conns == 0 && now - p->last > 60 &&
			    (p->hour_sessions == 0 ||
			    t - p->hour_start >= 3600) &&
			    (p->fails == 0 || t - p->fail_start >= 3600)) {
				*pp = p->next;
				free(p);
				relay_npeers--;
			} else
				pp = &p->next;
		}
	}
}

void
relay_peer_free_all(void)
{
	struct relay_peer	*p;
	unsigned		 i;

	for (i = 0; i < RELAY_PEER_BUCKETS; i++) {
		while ((p = relay_peers[i]) != NULL) {
			relay_peers[i] = p->next;
			free(p);
		}
	}
	relay_npeers = 0;
}
