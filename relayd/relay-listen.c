/*
 * relay-listen.c: listening sockets and TLS.
 *
 * Each --listen address gets its own socket and evconnlistener, handed to
 * evhttp with evhttp_bind_listener(). The listener's error callback pauses
 * accepting when the process runs out of descriptors (EMFILE/ENFILE) and a
 * timer resumes it, instead of spinning on a readable listening socket.
 * TLS uses one SSL_CTX at a time; SIGHUP builds a new one from --cert/--key
 * and swaps it in for new connections, keeping the old one on failure.
 */
#include "config.h"

#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <event2/util.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "airlox.h"
#include "util/log.h"
#include "relayd.h"

#define RELAY_BACKLOG		511
#define RELAY_PAUSE_MS		250

static struct evconnlistener	*relay_listeners[RELAY_MAX_LISTEN];
static int			 relay_nlisteners;
static struct event		*relay_resume_ev;
static int			 relay_paused;
static SSL_CTX			*relay_ssl_ctx;
static struct log_rl		 relay_accept_rl = LOG_RL_INIT(3, 60);

/* "ADDR:PORT", "[V6]:PORT"; fills a sockaddr. */
static int
relay_listen_parse(const char *spec, struct sockaddr_storage *ss,
    socklen_t *len, char **cause)
{
	char		 host[128];
	const char	*colon, *p;
	char		*end;
	unsigned long	 port;
	struct sockaddr_in	*s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (spec[0] == '[') {
		if ((p = strchr(spec, ']')) == NULL || p[1] != ':')
			goto bad;
		if ((size_t)(p - spec - 1) >= sizeof(host))
			goto bad;
		memcpy(host, spec + 1, p - spec - 1);
		host[p - spec - 1] = '\0';
		colon = p + 1;
	} else {
		if ((colon = strrchr(spec, ':')) == NULL ||
		    (size_t)(colon - spec) >= sizeof(host))
			goto bad;
		memcpy(host, spec, colon - spec);
		host[colon - spec] = '\0';
	}
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end != '\0' || port > 65535 || errno != 0)
		goto bad;
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1 && spec[0] != '[') {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		*len = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*s6);
		return 0;
	}
bad:
	relay_setcause(cause, "--listen %s: not ADDR:PORT or [ADDR]:PORT",
	    spec);
	return -1;
}

static void
relay_sa_str(const struct sockaddr *sa, char *out, size_t len)
{
	char	 host[INET6_ADDRSTRLEN];
	int	 port;

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		port = ntohs(s6->sin6_port);
		snprintf(out, len, "[%s]:%d", host, port);
	} else {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		port = ntohs(s4->sin_port);
		snprintf(out, len, "%s:%d", host, port);
	}
}

static void
relay_resume_cb(evutil_socket_t fd, short ev, void *arg)
{
	relay_listen_resume();
}

void
relay_listen_pause(void)
{
	struct timeval	tv = { 0, RELAY_PAUSE_MS * 1000 };
	int		i;

	if (relay_paused)
		return;
	for (i = 0; i < relay_nlisteners; i++)
		evconnlistener_disable(relay_listeners[i]);
	relay_paused = 1;
	if (relay_resume_ev != NULL)
		evtimer_add(relay_resume_ev, &tv);
}

void
relay_listen_resume(void)
{
	int	i;

	if (!relay_paused || relay.stopping)
		return;
	for (i = 0; i < relay_nlisteners; i++)
		evconnlistener_enable(relay_listeners[i]);
	relay_paused = 0;
}

/* accept() failed: out of descriptors pauses accepting for a moment. */
static void
relay_accept_errcb(struct evconnlistener *l, void *arg)
{
	int	err = EVUTIL_SOCKET_ERROR();

	if (err == EMFILE || err == ENFILE || err == ENOBUFS ||
	    err == ENOMEM) {
		if (log_rl_allow(&relay_accept_rl))
			log_warnx("listen: accept: %s; pausing accepts for "
			    "%d ms", strerror(err), RELAY_PAUSE_MS);
		relay_listen_pause();
		return;
	}
	if (log_rl_allow(&relay_accept_rl))
		log_warnx("listen: accept: %s", strerror(err));
}

static int
relay_listen_one(struct evhttp *http, const char *spec, int dual,
    FILE *pf, char **cause)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len;
	struct evconnlistener	*l;
	evutil_socket_t		 fd;
	int			 on = 1, v6only = !dual;
	char			 name[80];

	if (relay_listen_parse(spec, &ss, &len, cause) != 0)
		return -1;
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		relay_setcause(cause, "socket for %s: %s", spec,
		    strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only,
		    sizeof(v6only));
	if (bind(fd, (struct sockaddr *)&ss, len) == -1 ||
	    listen(fd, RELAY_BACKLOG) == -1) {
		relay_setcause(cause, "listen on %s: %s", spec,
		    strerror(errno));
		close(fd);
		return -1;
	}
	len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len);
	relay_sa_str((struct sockaddr *)&ss, name, sizeof(name));
	l = evconnlistener_new(relay.base, NULL, NULL, LEV_OPT_CLOSE_ON_FREE |
	    LEV_OPT_CLOSE_ON_EXEC, -1, fd);
	if (l == NULL) {
		close(fd);
		relay_setcause(cause, "evconnlistener for %s", spec);
		return -1;
	}
	evconnlistener_set_error_cb(l, relay_accept_errcb);
	if (evhttp_bind_listener(http, l) == NULL) {
		evconnlistener_free(l);
		relay_setcause(cause, "evhttp_bind_listener for %s", spec);
		return -1;
	}
	relay_listeners[relay_nlisteners++] = l;
	log_info("listening on %s (%s)", name,
	    relay_tls_enabled() ? "https" : "plain http");
	if (pf != NULL)
		fprintf(pf, "%s\n", name);
	return 0;
}

int
relay_listen_start(struct evhttp *http, char **cause)
{
	FILE	*pf = NULL;
	char	 tmp[4096];
	int	 i, rc = 0;

	relay_resume_ev = evtimer_new(relay.base, relay_resume_cb, NULL);
	if (relay_cfg.port_file != NULL) {
		snprintf(tmp, sizeof(tmp), "%s.tmp", relay_cfg.port_file);
		if ((pf = fopen(tmp, "w")) == NULL) {
			relay_setcause(cause, "%s: %s", tmp, strerror(errno));
			return -1;
		}
	}
	for (i = 0; i < relay_cfg.nlisten && rc == 0; i++) {
		if (relay_cfg.listen_default &&
		    strncmp(relay_cfg.listen[i], "[::]:", 5) == 0) {
			/* Dual-stack; without IPv6, the IPv4 wildcard. */
			if (relay_listen_one(http, relay_cfg.listen[i], 1, pf,
			    cause) == 0)
				continue;
			log_warnx("listen: %s; trying 0.0.0.0", *cause);
			free(*cause);
			*cause = NULL;
			snprintf(tmp, sizeof(tmp), "0.0.0.0:%s",
			    relay_cfg.listen[i] + 5);
			rc = relay_listen_one(http, tmp, 0, pf, cause);
		} else
			rc = relay_listen_one(http, relay_cfg.listen[i], 0, pf,
			    cause);
	}
	if (pf != NULL) {
		if (fclose(pf) != 0 && rc == 0) {
			relay_setcause(cause, "%s: write failed",
			    relay_cfg.port_file);
			rc = -1;
		}
		snprintf(tmp, sizeof(tmp), "%s.tmp", relay_cfg.port_file);
		/* Renamed into place so a reader never sees half a file. */
		if (rc == 0 && rename(tmp, relay_cfg.port_file) == -1) {
			relay_setcause(cause, "%s: %s", relay_cfg.port_file,
			    strerror(errno));
			rc = -1;
		}
	}
	return rc;
}

void
relay_listen_stop(void)
{
	int	i;

	/* evhttp_free() frees bound listeners; here we only stop them. */
	for (i = 0; i < relay_nlisteners; i++)
		evconnlistener_disable(relay_listeners[i]);
	relay_paused = 1;
	if (relay_resume_ev != NULL) {
		event_free(relay_resume_ev);
		relay_resume_ev = NULL;
	}
}

/* TLS. */

static SSL_CTX *
relay_tls_load(char **cause)
{
	SSL_CTX		*ctx;
	unsigned long	 e;
	char		 buf[256];

	if ((ctx = SSL_CTX_new(TLS_server_method())) == NULL)
		goto fail;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION |
	    SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION);
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
	if (SSL_CTX_use_certificate_chain_file(ctx, relay_cfg.cert) != 1 ||
	    SSL_CTX_use_PrivateKey_file(ctx, relay_cfg.key,
	    SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(ctx) != 1)
		goto fail;
	return ctx;
fail:
	e = ERR_get_error();
	ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	relay_setcause(cause, "TLS with %s and %s: %s", relay_cfg.cert,
	    relay_cfg.key, e != 0 ? buf : "failed");
	SSL_CTX_free(ctx);
	return NULL;
}

int
relay_tls_init(char **cause)
{
	if (relay_cfg.plain_http)
		return 0;
	if ((relay_ssl_ctx = relay_tls_load(cause)) == NULL)
		return -1;
	return 0;
}

/* SIGHUP: a new context for new connections; old ones keep theirs. */
void
relay_tls_reload(void)
{
	SSL_CTX	*ctx;
	char	*cause = NULL;

	if (relay_ssl_ctx == NULL)
		return;
	if ((ctx = relay_tls_load(&cause)) == NULL) {
		log_warnx("tls: reload failed, keeping the current "
		    "certificate: %s", cause ? cause : "");
		free(cause);
		return;
	}
	SSL_CTX_free(relay_ssl_ctx);	/* live SSLs hold a reference */
	relay_ssl_ctx = ctx;
	log_info("tls: certificate reloaded from %s", relay_cfg.cert);
}

void
relay_tls_free(void)
{
	SSL_CTX_free(relay_ssl_ctx);
	relay_ssl_ctx = NULL;
}

int
relay_tls_enabled(void)
{
	return relay_ssl_ctx != NULL;
}

SSL_CTX *
relay_tls_ctx(void)
{
	return relay_ssl_ctx;
}
