/*
 * relay-host.c: the names this relay answers to.
 *
 * A request signature covers the host the client signed for (protocol.md
 * section 9), the host of its invite link. The relay accepts a signature
 * only for one of its own names, so a request signed for another relay
 * cannot be replayed here: a signature for any other host is
 * bad_signature.
 *
 * The names: those of --public-name (a name without a port stands for the
 * host on any port). Without any, as fallbacks: the address the request
 * came to (a client that connects by address signs that address), a name
 * the TLS certificate this relay serves is valid for, and, on a connection
 * from a --trust-proxy proxy, whatever host the proxy forwards (the proxy
 * routes only the names it serves to the relay).
 */
#include "config.h"

#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/http.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "airlox.h"
#include "util/log.h"
#include "relayd.h"

struct relay_name {
	char		host[256];
	uint16_t	port;		/* 0: any */
};
static struct relay_name	relay_names[RELAY_MAX_NAMES];
static int			relay_nnames;

int
relay_host_init(char **cause)
{
	char	list[1024];
	size_t	n = 0;
	int	i;

	relay_nnames = 0;
	list[0] = '\0';
	for (i = 0; i < relay_cfg.npublic_name; i++) {
		if (alx_authority_parse(relay_cfg.public_name[i],
		    relay_names[i].host, sizeof(relay_names[i].host),
		    &relay_names[i].port) != 0) {
			relay_setcause(cause, "--public-name: not a host: %s",
			    relay_cfg.public_name[i]);
			return -1;
		}
		relay_nnames++;
		if (n < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
			    i > 0 ? ", " : "", relay_cfg.public_name[i]);
	}
	if (relay_nnames > 0)
		log_info("public names: %s", list);
	else
		log_info("no --public-name: requests are accepted signed for "
		    "the address they come to%s%s", relay_cfg.plain_http ?
		    "" : ", a name of the TLS certificate",
		    relay_cfg.ntrust_proxy > 0 ? ", or the host a trusted "
		    "proxy forwards" : "");
	return 0;
}

static struct bufferevent *
relay_host_bev(struct relay_req *r)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(r->req);

	/* The socket's (or TLS) bufferevent, under the gate's filter. */
	return evcon != NULL ?
	    relay_gate_lower(evhttp_connection_get_bufferevent(evcon)) : NULL;
}

/* The address the request came to: host (an IP literal) and port. */
static int
relay_host_local(struct relay_req *r, const char *host, uint16_t port)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	struct bufferevent	*bev;
	socklen_t		 sl = sizeof(ss);
	uint8_t			 want[16], got[16];
	char			 ip[INET6_ADDRSTRLEN + 2];
	size_t			 len = strlen(host);
	uint16_t		 lport;

	if ((bev = relay_host_bev(r)) == NULL || bufferevent_getfd(bev) < 0 ||
	    getsockname(bufferevent_getfd(bev), (struct sockaddr *)&ss,
	    &sl) != 0)
		return 0;
	/* Both sides as IPv6 (IPv4 mapped), so a dual-stack socket matches. */
	memset(want, 0, sizeof(want));
	if (host[0] == '[' && len > 2 && len - 2 < sizeof(ip)) {
		memcpy(ip, host + 1, len - 2);
		ip[len - 2] = '\0';
		if (inet_pton(AF_INET6, ip, want) != 1)
			return 0;
	} else {
		want[10] = want[11] = 0xff;
		if (inet_pton(AF_INET, host, want + 12) != 1)
			return 0;
	}
	memset(got, 0, sizeof(got));
	if (ss.ss_family == AF_INET) {
		got[10] = got[11] = 0xff;
		memcpy(got + 12, &sin->sin_addr, 4);
		lport = ntohs(sin->sin_port);
	} else if (ss.ss_family == AF_INET6) {
		memcpy(got, &sin6->sin6_addr, 16);
		lport = ntohs(sin6->sin6_port);
	} else
		return 0;
	if (port == 0)
		port = relay_tls_enabled() ? 443 : 80;
	return port == lport && memcmp(want, got, sizeof(got)) == 0;
}

/* A name (or IP address) the certificate being served is valid for. */
static int
relay_host_cert(struct relay_req *r, const char *host)
{
	struct bufferevent	*bev;
	SSL			*ssl;
	X509			*x;
	char			 ip[INET6_ADDRSTRLEN + 2];
	size_t			 len = strlen(host);

	if (!relay_tls_enabled())
		return 0;
	/* evhttp's bufferevent may be a filter over the TLS one. */
	ssl = NULL;
	for (bev = relay_host_bev(r); bev != NULL && ssl == NULL;
	    bev = bufferevent_get_underlying(bev))
		ssl = bufferevent_openssl_get_ssl(bev);
	if (ssl == NULL || (x = SSL_get_certificate(ssl)) == NULL)
		return 0;
	if (host[0] == '[') {
		if (len < 3 || len - 2 >= sizeof(ip))
			return 0;
		memcpy(ip, host + 1, len - 2);
		ip[len - 2] = '\0';
		return X509_check_ip_asc(x, ip, 0) == 1;
	}
	if (X509_check_ip_asc(x, host, 0) == 1)
		return 1;
	return X509_check_host(x, host, len,
	    X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, NULL) == 1;
}

const char *
relay_host_signed(struct relay_req *r)
{
	if (r->fwd_host[0] != '\0')
		return r->fwd_host;
	return relay_http_header(r, "Host");
}

int
relay_host_ours(struct relay_req *r, const char *signed_host)
{
	static time_t	 warned;
	char		 host[256];
	uint16_t	 port;
	time_t		 now;
	int		 i;

	if (alx_authority_parse(signed_host, host, sizeof(host), &port) != 0)
		return 0;
	if (relay_nnames > 0) {
		for (i = 0; i < relay_nnames; i++)
			if (strcmp(host, relay_names[i].host) == 0 &&
			    (relay_names[i].port == 0 ||
			    relay_names[i].port == port))
				return 1;
	} else if (r->via_proxy || relay_host_local(r, host, port) ||
	    relay_host_cert(r, host))
		return 1;
	/* Said once a minute at most: a peer can send this at will. */
	now = time(NULL);
	if (now - warned >= 60) {
		warned = now;
		log_warnx("a request signed for host %.64s was refused: not a "
		    "name of this relay (--public-name)", host);
	}
	return 0;
}
