/*
 * healthcheck.c: airlox-healthcheck, the relay container's HEALTHCHECK.
 *
 * The relay writes the addresses it listens on to its --port-file
 * ($AIRLOX_PORT_FILE); this reads the first one, so the check follows
 * whatever port was set, and asks GET /v1/health (or the path given) on
 * it: over TLS when AIRLOX_CERT is set (the relay's own certificate on
 * loopback, not verified), plain HTTP otherwise. A wildcard address is
 * asked on loopback. Exit 0 on a 200 answer, 1 otherwise, with the reason
 * on stderr (docker inspect shows it).
 *
 *	airlox-healthcheck [-f PORTFILE] [-p PATH] [-t SECONDS]
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#define HC_MAX_REPLY	4096

struct hc_conn {
	int	 fd;
	SSL_CTX	*ctx;
	SSL	*ssl;
};

static void __attribute__((noreturn, format(printf, 1, 2)))
hc_fail(const char *fmt, ...)
{
	va_list	ap;

	fputs("airlox-healthcheck: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The first "ADDR:PORT" line of the port file, wildcards made loopback. */
static void
hc_read_addr(const char *file, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)ss;
	char			 line[128], *host, *colon, *end;
	FILE			*f;
	long			 port;

	if ((f = fopen(file, "r")) == NULL)
		hc_fail("%s: %s", file, strerror(errno));
	if (fgets(line, sizeof(line), f) == NULL) {
		fclose(f);
		hc_fail("%s: empty", file);
	}
	fclose(f);
	line[strcspn(line, "\r\n")] = '\0';
	if ((colon = strrchr(line, ':')) == NULL)
		hc_fail("%s: not ADDR:PORT: %s", file, line);
	*colon = '\0';
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno != 0 || *end != '\0' || port < 1 || port > 65535)
		hc_fail("%s: bad port: %s", file, colon + 1);
	host = line;
	memset(ss, 0, sizeof(*ss));
	if (host[0] == '[') {
		host++;
		if ((end = strchr(host, ']')) == NULL || end[1] != '\0')
			hc_fail("%s: bad address", file);
		*end = '\0';
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
			hc_fail("%s: bad address: %s", file, host);
		if (IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr))
			sin6->sin6_addr = in6addr_loopback;
		*len = sizeof(*sin6);
		return;
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		hc_fail("%s: bad address: %s", file, host);
	if (sin->sin_addr.s_addr == htonl(INADDR_ANY))
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*len = sizeof(*sin);
}

static void
hc_connect(struct hc_conn *c, const struct sockaddr_storage *ss,
    socklen_t len, int secs, int tls)
{
	struct timeval	tv = { secs, 0 };

	if ((c->fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		hc_fail("socket: %s", strerror(errno));
	/* SO_SNDTIMEO also bounds connect(2) on Linux. */
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(c->fd, (const struct sockaddr *)ss, len) == -1)
		hc_fail("connect: %s", strerror(errno));
	if (!tls)
		return;
	if ((c->ctx = SSL_CTX_new(TLS_client_method())) == NULL ||
	    (c->ssl = SSL_new(c->ctx)) == NULL ||
	    SSL_set_fd(c->ssl, c->fd) != 1)
		hc_fail("TLS setup failed");
	/* Our own relay on loopback: its certificate names a public host. */
	SSL_set_verify(c->ssl, SSL_VERIFY_NONE, NULL);
	if (SSL_connect(c->ssl) != 1)
		hc_fail("TLS handshake failed");
}

static ssize_t
hc_io(struct hc_conn *c, void *buf, size_t len, int writing)
{
	int	n;

	if (c->ssl != NULL) {
		n = writing ? SSL_write(c->ssl, buf, (int)len) :
		    SSL_read(c->ssl, buf, (int)len);
		return n > 0 ? n : (n == 0 ? 0 : -1);
	}
	return writing ? write(c->fd, buf, len) : read(c->fd, buf, len);
}

int
main(int argc, char **argv)
{
	struct sockaddr_storage	 ss;
	struct hc_conn		 c = { -1, NULL, NULL };
	socklen_t		 len;
	const char		*file = getenv("AIRLOX_PORT_FILE");
	const char		*path = "/v1/health", *cert = getenv("AIRLOX_CERT");
	char			 req[512], reply[HC_MAX_REPLY + 1];
	size_t			 got = 0;
	ssize_t			 n;
	int			 ch, secs = 5, status;

	while ((ch = getopt(argc, argv, "f:p:t:")) != -1) {
		switch (ch) {
		case 'f':
			file = optarg;
			break;
		case 'p':
			if (optarg[0] != '/' || strlen(optarg) > 200 ||
			    strpbrk(optarg, " \r\n") != NULL)
				hc_fail("-p: not a path: %s", optarg);
			path = optarg;
			break;
		case 't':
			secs = atoi(optarg);
			if (secs < 1 || secs > 300)
				hc_fail("-t: 1 to 300 seconds");
			break;
		default:
			fprintf(stderr, "usage: airlox-healthcheck [-f PORTFILE] "
			    "[-p PATH] [-t SECONDS]\n");
			return 2;
		}
	}
	if (file == NULL || *file == '\0')
		hc_fail("no port file: set AIRLOX_PORT_FILE or give -f");
	hc_read_addr(file, &ss, &len);
	hc_connect(&c, &ss, len, secs, cert != NULL && *cert != '\0');
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: localhost\r\n"
	    "User-Agent: airlox-healthcheck\r\nConnection: close\r\n\r\n", path);
	if (hc_io(&c, req, (size_t)n, 1) != n)
		hc_fail("write: %s", strerror(errno));
	while (got < HC_MAX_REPLY &&
	    (n = hc_io(&c, reply + got, HC_MAX_REPLY - got, 0)) > 0)
		got += (size_t)n;
	reply[got] = '\0';
	if (sscanf(reply, "HTTP/1.%*1[01] %3d", &status) != 1)
		hc_fail("no HTTP answer");
	if (status != 200)
		hc_fail("%s answered %d", path, status);
	if (c.ssl != NULL) {
		SSL_free(c.ssl);
		SSL_CTX_free(c.ctx);
	}
	close(c.fd);
	return 0;
}
