/*
 * alx_invite.c: invite links (docs/protocol.md section 2).
 *
 *	https://HOST[:PORT]/s/<B64 sid>#1.<role>.<B64 seed>
 *
 * The parser is strict and accepts nothing it would not write itself, with
 * one exception: upper-case letters in the host are folded to lower case.
 * HOST is a DNS name, a dotted-quad IPv4 literal or a bracketed IPv6
 * literal (kept with its brackets, as it appears in URLs and in the Host
 * header). Every failure is ALX_ERR_BAD_INVITE.
 *
 * The seed is a secret: the structure is wiped on failure, and temporary
 * copies of its text are wiped before they are released.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"

#define INV_LINK_MAX	512
#define INV_HOST_MAX	253		/* DNS names (IPv6 is shorter) */
#define INV_LABEL_MAX	63
#define INV_V6_MAX	45		/* INET6_ADDRSTRLEN - 1 */
#define INV_SID_STRLEN	22
#define INV_SEED_STRLEN	43
#define INV_ROLE_MAX	15

static int
inv_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static int
inv_ldh(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* Dotted-quad IPv4: four decimal parts 0..255, no leading zeros. */
static int
inv_ipv4(const char *h)
{
	const char	*p = h;
	int		 part, v, digits;

	for (part = 0; part < 4; part++) {
		if (part > 0 && *p++ != '.')
			return 0;
		v = 0;
		for (digits = 0; p[digits] >= '0' && p[digits] <= '9';
		    digits++) {
			if (digits == 3)
				return 0;
			v = v * 10 + (p[digits] - '0');
		}
		if (digits == 0 || (digits > 1 && p[0] == '0') || v > 255)
			return 0;
		p += digits;
	}
	return *p == '\0';
}

/*
 * A DNS name (labels of letters, digits and '-', not starting or ending
 * with '-', no trailing dot) or, when its last label is all digits, an
 * IPv4 literal. h is already lower case.
 */
static int
inv_dns_or_ipv4(const char *h, size_t len)
{
	size_t	i, label = 0, last = 0;
	int	numeric = 1;

	if (len == 0 || len > INV_HOST_MAX)
		return 0;
	for (i = 0; i <= len; i++) {
		if (i == len || h[i] == '.') {
			if (label == 0 || label > INV_LABEL_MAX ||
			    h[i - 1] == '-' || h[i - label] == '-')
				return 0;
			last = i - label;
			label = 0;
			continue;
		}
		if (!inv_ldh((unsigned char)h[i]))
			return 0;
		label++;
	}
	for (i = last; i < len; i++)
		if (h[i] < '0' || h[i] > '9')
			numeric = 0;
	return numeric ? inv_ipv4(h) : 1;
}

/* "[v6]" with hex digits, ':' and '.' inside; no zone identifier. */
static int
inv_ipv6(const char *h, size_t len)
{
	struct in6_addr	a;
	char		tmp[INV_V6_MAX + 1];
	size_t		i;

	if (len < 4 || len - 2 > INV_V6_MAX || h[0] != '[' || h[len - 1] != ']')
		return 0;
	for (i = 1; i < len - 1; i++)
		if (strchr("0123456789abcdef:.", h[i]) == NULL || h[i] == '\0')
			return 0;
	memcpy(tmp, h + 1, len - 2);
	tmp[len - 2] = '\0';
	return inet_pton(AF_INET6, tmp, &a) == 1;
}

/*
 * Check a host of len bytes and write its lower-case form to out (which
 * holds sizeof(struct alx_invite.host) bytes). 0 or ALX_ERR_BAD_INVITE.
 */
static int
inv_host(char *out, size_t outlen, const char *h, size_t len)
{
	size_t	i;

	if (len == 0 || len >= outlen)
		return ALX_ERR_BAD_INVITE;
	for (i = 0; i < len; i++)
		out[i] = (char)inv_lower((unsigned char)h[i]);
	out[len] = '\0';
	if (out[0] == '[' ? inv_ipv6(out, len) : inv_dns_or_ipv4(out, len))
		return 0;
	return ALX_ERR_BAD_INVITE;
}

/* Decimal port 1..65535 without leading zeros. */
static int
inv_port(const char *p, size_t len, uint16_t *port)
{
	unsigned long	v = 0;
	size_t		i;

	if (len == 0 || len > 5 || p[0] == '0')
		return ALX_ERR_BAD_INVITE;
	for (i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return ALX_ERR_BAD_INVITE;
		v = v * 10 + (unsigned long)(p[i] - '0');
	}
	if (v > 65535)
		return ALX_ERR_BAD_INVITE;
	*port = (uint16_t)v;
	return 0;
}

/* host[:port] of n bytes; host (lower case) holds hostlen bytes. */
static int
inv_host_port(const char *a, size_t n, char *host, size_t hostlen,
    uint16_t *port)
{
	const char	*end;
	size_t		 hlen;

	if (memchr(a, '@', n) != NULL)
		return ALX_ERR_BAD_INVITE;
	if (n > 0 && a[0] == '[') {
		if ((end = memchr(a, ']', n)) == NULL)
			return ALX_ERR_BAD_INVITE;
		hlen = (size_t)(end - a) + 1;
	} else if ((end = memchr(a, ':', n)) != NULL)
		hlen = (size_t)(end - a);
	else
		hlen = n;
	if (inv_host(host, hostlen, a, hlen) != 0)
		return ALX_ERR_BAD_INVITE;
	*port = 0;
	if (hlen == n)
		return 0;
	if (a[hlen] != ':')
		return ALX_ERR_BAD_INVITE;
	return inv_port(a + hlen + 1, n - hlen - 1, port);
}

/* host[:port] between "//" and the path. No userinfo. */
static int
inv_authority(struct alx_invite *inv, const char *a, size_t n)
{
	return inv_host_port(a, n, inv->host, sizeof(inv->host), &inv->port);
}

int
alx_authority_parse(const char *s, char *host, size_t hostlen,
    uint16_t *port)
{
	*port = 0;
	if (hostlen > 0)
		host[0] = '\0';
	if (inv_host_port(s, strlen(s), host, hostlen, port) != 0) {
		if (hostlen > 0)
			host[0] = '\0';
		return ALX_ERR_INVALID;
	}
	return ALX_OK;
}

/* "1.<role>.<seed>" */
static int
inv_fragment(struct alx_invite *inv, const char *f)
{
	char		 role[INV_ROLE_MAX + 1];
	const char	*dot;
	size_t		 rlen;

	if (f[0] != '1' || f[1] != '.')
		return ALX_ERR_BAD_INVITE;
	f += 2;
	if ((dot = strchr(f, '.')) == NULL)
		return ALX_ERR_BAD_INVITE;
	rlen = (size_t)(dot - f);
	if (rlen == 0 || rlen > INV_ROLE_MAX)
		return ALX_ERR_BAD_INVITE;
	memcpy(role, f, rlen);
	role[rlen] = '\0';
	if (alx_role_parse(role, &inv->role) != 0)
		return ALX_ERR_BAD_INVITE;
	f = dot + 1;
	if (strlen(f) != INV_SEED_STRLEN ||
	    alx_b64_decode_exact(inv->seed, ALX_SEED_LEN, f,
	    INV_SEED_STRLEN) != 0)
		return ALX_ERR_BAD_INVITE;
	return 0;
}

static int
inv_parse(struct alx_invite *inv, const char *link)
{
	const char	*p;
	size_t		 n;

	if (strnlen(link, INV_LINK_MAX + 1) > INV_LINK_MAX)
		return ALX_ERR_BAD_INVITE;
	if (strncmp(link, "https://", 8) == 0) {
		inv->https = 1;
		p = link + 8;
	} else if (strncmp(link, "http://", 7) == 0) {
		inv->https = 0;
		p = link + 7;
	} else
		return ALX_ERR_BAD_INVITE;
	n = strcspn(p, "/?#");
	if (p[n] != '/' || inv_authority(inv, p, n) != 0)
		return ALX_ERR_BAD_INVITE;
	p += n;
	if (strncmp(p, "/s/", 3) != 0)
		return ALX_ERR_BAD_INVITE;
	p += 3;
	if (strnlen(p, INV_SID_STRLEN + 1) != INV_SID_STRLEN + 1 ||
	    p[INV_SID_STRLEN] != '#' ||
	    alx_b64_decode_exact(inv->sid, ALX_SID_LEN, p,
	    INV_SID_STRLEN) != 0)
		return ALX_ERR_BAD_INVITE;
	return inv_fragment(inv, p + INV_SID_STRLEN + 1);
}

int
alx_invite_parse(struct alx_invite *inv, const char *link)
{
	if (inv == NULL)
		return ALX_ERR_INVALID;
	memset(inv, 0, sizeof(*inv));
	if (link == NULL)
		return ALX_ERR_BAD_INVITE;
	if (inv_parse(inv, link) != 0) {
		alx_invite_wipe(inv);
		return ALX_ERR_BAD_INVITE;
	}
	return 0;
}

/* The host in inv must be valid and already in its canonical form. */
static int
inv_check_host(const struct alx_invite *inv)
{
	char	canon[sizeof(inv->host)];
	size_t	len;

	len = strnlen(inv->host, sizeof(inv->host));
	if (len == sizeof(inv->host) ||
	    inv_host(canon, sizeof(canon), inv->host, len) != 0 ||
	    strcmp(canon, inv->host) != 0)
		return ALX_ERR_INVALID;
	return 0;
}

int
alx_invite_base_url(const struct alx_invite *inv, char *out, size_t len)
{
	char	port[8] = "";
	int	n;

	if (inv == NULL || out == NULL || len == 0)
		return ALX_ERR_INVALID;
	out[0] = '\0';
	if (inv_check_host(inv) != 0)
		return ALX_ERR_INVALID;
	if (inv->port != 0)
		snprintf(port, sizeof(port), ":%u", (unsigned)inv->port);
	n = snprintf(out, len, "%s://%s%s", inv->https ? "https" : "http",
	    inv->host, port);
	if (n < 0 || (size_t)n >= len) {
		out[0] = '\0';
		return ALX_ERR_TOO_LARGE;
	}
	return 0;
}

int
alx_invite_format(const struct alx_invite *inv, char **out)
{
	char		 base[INV_LINK_MAX];
	char		 sid[INV_SID_STRLEN + 1], seed[INV_SEED_STRLEN + 1];
	const char	*role;
	char		*link;
	int		 n, r;

	if (out == NULL)
		return ALX_ERR_INVALID;
	*out = NULL;
	if (inv == NULL || inv->role < 0 || inv->role >= ALX_ROLE_COUNT)
		return ALX_ERR_INVALID;
	role = alx_role_name(inv->role);
	if ((r = alx_invite_base_url(inv, base, sizeof(base))) != 0)
		return r;
	if ((link = malloc(INV_LINK_MAX + 1)) == NULL)
		return ALX_ERR_NOMEM;
	alx_b64_encode(sid, inv->sid, ALX_SID_LEN);
	alx_b64_encode(seed, inv->seed, ALX_SEED_LEN);
	sid[INV_SID_STRLEN] = '\0';
	seed[INV_SEED_STRLEN] = '\0';
	n = snprintf(link, INV_LINK_MAX + 1, "%s/s/%s#1.%s.%s", base, sid,
	    role, seed);
	alx_wipe(seed, sizeof(seed));
	if (n < 0 || n > INV_LINK_MAX) {
		alx_wipe(link, INV_LINK_MAX + 1);
		free(link);
		return ALX_ERR_TOO_LARGE;
	}
	*out = link;
	return 0;
}

void
alx_invite_wipe(struct alx_invite *inv)
{
	if (inv != NULL)
		alx_wipe(inv, sizeof(*inv));
}
