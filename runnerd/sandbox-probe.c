/*
 * sandbox-probe.c: airlox-probe, the boundary probes `verify` runs inside
 * a job's sandbox (runner-verify.c). Static, no sanitizers, no resolver
 * library: it runs under the job's seccomp filter in any root.
 *
 *	airlox-probe -m none|allow|full [-p hostport] [-a allowed-name]
 *	    [-d denied-name] [-M mounts] [-D devs] [-v canary-var]
 *	    [-e "allowed env names"] [-c label:path]... [-k]
 *	    [-b name=outcome]... [-T no-ia32]
 *	airlox-probe -B [-T no-ia32]
 *
 * -B: the baseline, run by the runner outside any sandbox: what the kernel
 * itself does with the calls whose answer depends on its features, one
 * line "BASE name outcome" each. -b hands that to the probe in the
 * sandbox: a probe never fails for a refusal the kernel gives everyone
 * (a kernel without the 32-bit syscall entry faults `int $0x80` with
 * SIGSEGV before any filter sees it), and says so in its reason.
 *
 * -T no-ia32 (tests only; the runner passes it only when a test program
 * asks): both runs execute `int $0x81` instead of `int $0x80`. No user
 * gate exists for that vector, so the CPU's general protection fault
 * becomes SIGSEGV: the exact path `int $0x80` takes on a kernel without
 * IA32 emulation, on a kernel that has it.
 *
 * -k: the docker layout: the mount list leaves out the kernel's file
 * systems (proc, sysfs, cgroup, devpts, mqueue and whatever is mounted
 * under /proc and /sys, which the container runtime masks), and the
 * root_ro probe checks that / is mounted read-only.
 *
 * One line per probe on stdout: "PASS|FAIL|SKIP name reason". A probe
 * passes only on the exact failure the boundary should cause (no route,
 * EPERM, 403 from the proxy ...), never on a timeout or a vague error.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROBE_PROXY_PORT	3128
#define PROBE_CONNECT_MS	3000
#define PROBE_MAX_CANARY	4
#define PROBE_MAX_BASE		4

extern char **environ;

static struct {
	const char	*mode;
	int		 hostport;
	const char	*allowed;
	const char	*denied;
	const char	*mounts;
	const char	*devs;
	const char	*canary_var;
	const char	*env_names;
	const char	*canary[PROBE_MAX_CANARY];
	int		 ncanary;
	int		 docker;
	const char	*base[PROBE_MAX_BASE];	/* "name=outcome" */
	int		 nbase;
	int		 no_ia32;		/* -T no-ia32 */
} opt;

static void __attribute__((format(printf, 3, 4)))
report(const char *result, const char *name, const char *fmt, ...)
{
	char	reason[240];
	va_list	ap;
	size_t	i;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	for (i = 0; reason[i] != '\0'; i++)
		if ((unsigned char)reason[i] < 0x20 ||
		    (unsigned char)reason[i] >= 0x7f)
			reason[i] = ' ';
	printf("%s %s %s\n", result, name, reason);
	fflush(stdout);
}

static int
is_mode(const char *m)
{
	return strcmp(opt.mode, m) == 0;
}

/* TCP connect with a deadline: 0 connected, else the errno. */
static int
tcp_connect(const struct sockaddr *sa, socklen_t len, int *fdp)
{
	struct pollfd	pfd;
	socklen_t	elen = sizeof(int);
	int		s, err = 0;

	*fdp = -1;
	if ((s = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1)
		return errno;
	if (connect(s, sa, len) == 0)
		goto done;
	if (errno != EINPROGRESS) {
		err = errno;
		close(s);
		return err;
	}
	pfd.fd = s;
	pfd.events = POLLOUT;
	if (poll(&pfd, 1, PROBE_CONNECT_MS) != 1) {
		close(s);
		return ETIMEDOUT;
	}
	getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &elen);
	if (err != 0) {
		close(s);
		return err;
	}
done:
	fcntl(s, F_SETFL, 0);
	*fdp = s;
	return 0;
}

static int
tcp4(const char *ip, int port, int *fdp)
{
	struct sockaddr_in	sin;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)port);
	inet_pton(AF_INET, ip, &sin.sin_addr);
	return tcp_connect((struct sockaddr *)&sin, sizeof sin, fdp);
}

static int
tcp6(const char *ip, int port, int *fdp)
{
	struct sockaddr_in6	sin6;

	memset(&sin6, 0, sizeof sin6);
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons((unsigned short)port);
	inet_pton(AF_INET6, ip, &sin6.sin6_addr);
	return tcp_connect((struct sockaddr *)&sin6, sizeof sin6, fdp);
}

static int
no_route(int err)
{
	return err == ENETUNREACH || err == EHOSTUNREACH;
}

/* Interfaces of /proc/net/dev, space-separated. */
static void
probe_ifaces(void)
{
	char	line[512], names[256] = "", *c, *p;
	FILE	*fp;

	if (is_mode("full")) {
		report("SKIP", "net_only_lo", "network full: the job has the "
		    "host's network (runner started with --network)");
		return;
	}
	if ((fp = fopen("/proc/net/dev", "re")) == NULL) {
		report("FAIL", "net_only_lo", "cannot read /proc/net/dev: %s",
		    strerror(errno));
		return;
	}
	while (fgets(line, sizeof line, fp) != NULL) {
		if ((c = strchr(line, ':')) == NULL)
			continue;
		*c = '\0';
		for (p = line; *p == ' '; p++)
			;
		if (strlen(names) + strlen(p) + 2 < sizeof names) {
			if (names[0] != '\0')
				strcat(names, " ");
			strcat(names, p);
		}
	}
	fclose(fp);
	if (strcmp(names, "lo") == 0)
		report("PASS", "net_only_lo", "interfaces: lo");
	else
		report("FAIL", "net_only_lo", "interfaces: %s", names);
}

static void
probe_routes(void)
{
	char	line[512];
	FILE	*fp;
	int	n4 = 0, n6 = 0;

	if (is_mode("full")) {
		report("SKIP", "net_no_route", "network full: host routes");
		return;
	}
	if ((fp = fopen("/proc/net/route", "re")) != NULL) {
		if (fgets(line, sizeof line, fp) != NULL)	/* header */
			while (fgets(line, sizeof line, fp) != NULL)
				n4++;
		fclose(fp);
	}
	if ((fp = fopen("/proc/net/ipv6_route", "re")) != NULL) {
		while (fgets(line, sizeof line, fp) != NULL) {
			line[strcspn(line, "\n")] = '\0';
			if (strlen(line) < 3 ||
			    strcmp(line + strlen(line) - 3, " lo") != 0)
				n6++;
		}
		fclose(fp);
	}
	if (n4 == 0 && n6 == 0)
		report("PASS", "net_no_route", "no IPv4 route, IPv6 only on lo");
	else
		report("FAIL", "net_no_route", "%d IPv4 and %d IPv6 routes "
		    "off loopback", n4, n6);
}

static void
probe_direct_ip(void)
{
	const char	*what[] = { "1.1.1.1:443", "8.8.8.8:443",
			    "[2606:4700:4700::1111]:443" };
	int		 e[3], fd, i;

	if (is_mode("full")) {
		report("SKIP", "direct_ip", "network full: direct connections "
		    "are the mode's purpose");
		return;
	}
	e[0] = tcp4("1.1.1.1", 443, &fd);
	if (fd != -1)
		close(fd);
	e[1] = tcp4("8.8.8.8", 443, &fd);
	if (fd != -1)
		close(fd);
	e[2] = tcp6("2606:4700:4700::1111", 443, &fd);
	if (fd != -1)
		close(fd);
	for (i = 0; i < 3; i++)
		/* No IPv6 in the kernel: no such socket can be made at all. */
		if (!no_route(e[i]) && !(i == 2 && e[i] == EAFNOSUPPORT)) {
			report("FAIL", "direct_ip", "connect %s: %s", what[i],
			    e[i] == 0 ? "connected" : strerror(e[i]));
			return;
		}
	report("PASS", "direct_ip", "connect to 1.1.1.1, 8.8.8.8 and "
	    "2606:4700:4700::1111 port 443: %s%s", strerror(e[0]),
	    e[2] == EAFNOSUPPORT ? " (the kernel has no IPv6)" : "");
}

/* A DNS query for name, sent over UDP to server: 0 sent, else errno. */
static int
dns_send(const char *server, const char *name)
{
	struct sockaddr_in	sin;
	unsigned char		q[300];
	size_t			len = 12, l;
	const char		*p = name, *dot;
	int			s, r = 0;

	memset(q, 0, sizeof q);
	q[0] = 0x12; q[1] = 0x34; q[2] = 0x01; q[5] = 1;
	while (*p != '\0' && len < 250) {
		dot = strchr(p, '.');
		l = dot != NULL ? (size_t)(dot - p) : strlen(p);
		if (l == 0 || l > 63 || len + l + 1 > 250)
			break;
		q[len++] = (unsigned char)l;
		memcpy(q + len, p, l);
		len += l;
		p += l + (dot != NULL);
	}
	q[len++] = 0;
	q[len++] = 0; q[len++] = 1; q[len++] = 0; q[len++] = 1;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons(53);
	inet_pton(AF_INET, server, &sin.sin_addr);
	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return errno;
	if (sendto(s, q, len, 0, (struct sockaddr *)&sin, sizeof sin) !=
	    (ssize_t)len)
		r = errno;
	close(s);
	return r;
}

/* The nameservers a resolver would use, from /etc/resolv.conf. */
static int
resolv_servers(char out[][64], int max)
{
	char	line[256], addr[64];
	FILE	*fp;
	int	n = 0;

	if ((fp = fopen("/etc/resolv.conf", "re")) == NULL)
		return -1;
	while (n < max && fgets(line, sizeof line, fp) != NULL)
		if (sscanf(line, "nameserver %63s", addr) == 1)
			snprintf(out[n++], 64, "%s", addr);
	fclose(fp);
	return n;
}

static void
probe_dns(const char *pname, const char *name)
{
	char	 srv[4][64];
	int	 n, i, e;

	if (is_mode("full")) {
		report("SKIP", pname, "network full: the host's resolver");
		return;
	}
	n = resolv_servers(srv, 4);
	for (i = 0; i < n; i++) {
		if (strchr(srv[i], ':') != NULL)
			continue;
		if (!no_route(e = dns_send(srv[i], name))) {
			report("FAIL", pname, "DNS query to the configured "
			    "nameserver %s: %s", srv[i], e == 0 ? "sent" :
			    strerror(e));
			return;
		}
	}
	if (!no_route(e = dns_send("1.1.1.1", name)) ||
	    !no_route(e = dns_send("8.8.8.8", name))) {
		report("FAIL", pname, "DNS query for %s to a public resolver: "
		    "%s", name, e == 0 ? "sent" : strerror(e));
		return;
	}
	report("PASS", pname, "%s; DNS queries for %s to 1.1.1.1 and 8.8.8.8:"
	    " %s", n < 0 ? "no /etc/resolv.conf" : "nameservers unreachable",
	    name, strerror(e));
}

static void
probe_host_loopback(void)
{
	int	e, fd;

	if (is_mode("full")) {
		report("SKIP", "host_loopback", "network full: the host's "
		    "loopback is reachable in this mode");
		return;
	}
	if (opt.hostport <= 0) {
		report("SKIP", "host_loopback", "no host listener given");
		return;
	}
	e = tcp4("127.0.0.1", opt.hostport, &fd);
	if (fd != -1)
		close(fd);
	if (e == ECONNREFUSED)
		report("PASS", "host_loopback", "a listener on the host's "
		    "127.0.0.1 is not reachable (connection refused)");
	else
		report("FAIL", "host_loopback", "the host's 127.0.0.1:%d: %s",
		    opt.hostport, e == 0 ? "connected" : strerror(e));
}

/* Send a request to the proxy, return the HTTP status (or -errno). */
static int
proxy_req(const char *req)
{
	char	buf[256];
	ssize_t	n;
	size_t	len = 0;
	int	fd, e, code;

	if ((e = tcp4("127.0.0.1", PROBE_PROXY_PORT, &fd)) != 0)
		return -e;
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return -EIO;
	}
	while (len < sizeof buf - 1 && memchr(buf, '\n', len) == NULL) {
		struct pollfd	pfd = { fd, POLLIN, 0 };

		if (poll(&pfd, 1, 20000) != 1)
			break;
		if ((n = read(fd, buf + len, sizeof buf - 1 - len)) <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	if (sscanf(buf, "HTTP/1.%*d %d", &code) != 1)
		return -EPROTO;
	return code;
}

static int
proxy_connect(const char *target)
{
	char	req[512];

	snprintf(req, sizeof req, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n",
	    target, target);
	return proxy_req(req);
}

static const char *
code_text(int c)
{
	static char	buf[64];

	if (c < 0)
		snprintf(buf, sizeof buf, "%s", strerror(-c));
	else
		snprintf(buf, sizeof buf, "HTTP %d", c);
	return buf;
}

static void
probe_proxy(void)
{
	static const char *const lits[] = {
		"1.1.1.1:443", "[2606:4700:4700::1111]:443", "2130706433:443",
		"0x7f.1:443", NULL
	};
	char		 target[300];
	const char	*env = getenv("HTTPS_PROXY");
	size_t		 i;
	int		 c, c2;

	if (!is_mode("allow")) {
		c = proxy_connect("example.com:443");
		if (is_mode("none") && env == NULL && c == -ECONNREFUSED)
			report("PASS", "proxy_absent", "network none: no proxy "
			    "variables, nothing on 127.0.0.1:%d",
			    PROBE_PROXY_PORT);
		else if (is_mode("none"))
			report("FAIL", "proxy_absent", "network none but a "
			    "proxy answers or is configured (%s)", code_text(c));
		return;
	}
	if (env == NULL || strcmp(env, "http://127.0.0.1:3128") != 0 ||
	    getenv("NO_PROXY") == NULL || getenv("NO_PROXY")[0] != '\0')
		report("FAIL", "proxy_env", "HTTPS_PROXY=%s NO_PROXY=%s",
		    env ? env : "(unset)", getenv("NO_PROXY") ?
		    getenv("NO_PROXY") : "(unset)");
	else
		report("PASS", "proxy_env", "HTTP(S)_PROXY and ALL_PROXY at "
		    "127.0.0.1:3128, NO_PROXY empty");
	if (opt.allowed == NULL || opt.allowed[0] == '\0')
		report("SKIP", "proxy_allowed", "no exact name in the allow "
		    "list");
	else {
		snprintf(target, sizeof target, "%s:443", opt.allowed);
		c = proxy_connect(target);
		if (c == 200)
			report("PASS", "proxy_allowed", "CONNECT %s: 200",
			    target);
		else if (c == 502)
			report("SKIP", "proxy_allowed", "CONNECT %s: 502 (the "
			    "proxy could not reach it: offline?)", target);
		else
			report("FAIL", "proxy_allowed", "CONNECT %s: %s",
			    target, code_text(c));
	}
	snprintf(target, sizeof target, "%s:443", opt.denied ? opt.denied :
	    "denied.invalid");
	c = proxy_connect(target);
	report(c == 403 ? "PASS" : "FAIL", "proxy_denied", "CONNECT %s: %s",
	    target, code_text(c));
	for (i = 0; lits[i] != NULL; i++)
		if ((c = proxy_connect(lits[i])) != 403)
			break;
	if (lits[i] == NULL)
		report("PASS", "proxy_ip_literal", "CONNECT 1.1.1.1, "
		    "[2606:4700:4700::1111], 2130706433, 0x7f.1: 403");
	else
		report("FAIL", "proxy_ip_literal", "CONNECT %s: %s", lits[i],
		    code_text(c));
	c = proxy_connect("169.254.169.254:443");
	c2 = proxy_req("GET http://169.254.169.254/latest/meta-data/ "
	    "HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n");
	if (c == 403 && (c2 == 403 || c2 == 405))
		report("PASS", "proxy_metadata", "CONNECT and GET of "
		    "169.254.169.254: 403");
	else
		report("FAIL", "proxy_metadata", "169.254.169.254: CONNECT %d, "
		    "GET %d", c, c2);
}

/* Read until the peer closes, buf is full or 20 s pass: the length. */
static size_t
read_some(int fd, uint8_t *buf, size_t len, const char *until)
{
	struct pollfd	pfd;
	size_t		got = 0;
	ssize_t		n;

	while (got < len) {
		if (until != NULL && memmem(buf, got, until, strlen(until)))
			break;
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 20000) != 1 ||
		    (n = read(fd, buf + got, len - got)) <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

/* A tunnel to host:443 through the proxy: the HTTP status, *fdp open. */
static int
tunnel_open(const char *host, int *fdp)
{
	uint8_t	buf[512];
	char	req[600];
	size_t	len;
	int	e, code;

	*fdp = -1;
	if ((e = tcp4("127.0.0.1", PROBE_PROXY_PORT, fdp)) != 0)
		return -e;
	snprintf(req, sizeof req, "CONNECT %s:443 HTTP/1.1\r\nHost: %s:443"
	    "\r\n\r\n", host, host);
	if (write(*fdp, req, strlen(req)) != (ssize_t)strlen(req))
		return -EIO;
	len = read_some(*fdp, buf, sizeof buf - 1, "\r\n\r\n");
	buf[len] = '\0';
	if (sscanf((char *)buf, "HTTP/1.%*d %d", &code) != 1)
		return -EPROTO;
	return code;
}

/*
 * A TLS 1.2 ClientHello a server would answer (ECDHE-RSA and -ECDSA with
 * AES-GCM), naming sni (NULL: no server_name extension): its length.
 */
static size_t
client_hello(uint8_t *p, size_t max, const char *sni)
{
	static const uint8_t	head[] = {
		0x16, 0x03, 0x01, 0, 0,		/* record, length below */
		0x01, 0, 0, 0,			/* ClientHello, length below */
		0x03, 0x03
	};
	static const uint8_t	mid[] = {
		0x00,				/* no session id */
		0x00, 0x06, 0xc0, 0x2f, 0xc0, 0x2b, 0xc0, 0x30,
		0x01, 0x00			/* null compression */
	};
	static const uint8_t	exts[] = {
		0x00, 0x0a, 0x00, 0x06, 0x00, 0x04, 0x00, 0x1d, 0x00, 0x17,
		0x00, 0x0b, 0x00, 0x02, 0x01, 0x00,
		0x00, 0x0d, 0x00, 0x08, 0x00, 0x06, 0x04, 0x03, 0x08, 0x04,
		0x04, 0x01
	};
	size_t	n = 0, nl = sni != NULL ? strlen(sni) : 0, el, i;

	if (sizeof head + 32 + sizeof mid + 2 + nl + 9 + sizeof exts > max)
		return 0;
	memcpy(p, head, sizeof head);
	n = sizeof head;
	for (i = 0; i < 32; i++)
		p[n++] = (uint8_t)(i * 7 + 1);	/* random: any will do */
	memcpy(p + n, mid, sizeof mid);
	n += sizeof mid;
	el = sizeof exts + (sni != NULL ? nl + 9 : 0);
	p[n++] = (uint8_t)(el >> 8);
	p[n++] = (uint8_t)el;
	if (sni != NULL) {
		p[n++] = 0;			/* server_name */
		p[n++] = 0;
		p[n++] = (uint8_t)((nl + 5) >> 8);
		p[n++] = (uint8_t)(nl + 5);
		p[n++] = (uint8_t)((nl + 3) >> 8);
		p[n++] = (uint8_t)(nl + 3);
		p[n++] = 0;			/* host_name */
		p[n++] = (uint8_t)(nl >> 8);
		p[n++] = (uint8_t)nl;
		memcpy(p + n, sni, nl);
		n += nl;
	}
	memcpy(p + n, exts, sizeof exts);
	n += sizeof exts;
	p[3] = (uint8_t)((n - 5) >> 8);
	p[4] = (uint8_t)(n - 5);
	p[6] = (uint8_t)((n - 9) >> 16);
	p[7] = (uint8_t)((n - 9) >> 8);
	p[8] = (uint8_t)(n - 9);
	return n;
}

/*
 * One tunnel to the allowed name carrying data: "refused" when the proxy
 * answered as it refuses (a TLS access_denied alert, or for plain bytes
 * its 403), else what came back, in text.
 */
static const char *
tunnel_try(const uint8_t *data, size_t len, int tls, int *code)
{
	static const uint8_t	alert[] = { 0x15, 0x03, 0x03, 0x00, 0x02,
				    0x02, 0x31 };
	static char		what[64];
	uint8_t			buf[256];
	size_t			n;
	int			fd;

	if ((*code = tunnel_open(opt.allowed, &fd)) != 200) {
		if (fd != -1)
			close(fd);
		return NULL;
	}
	if (write(fd, data, len) != (ssize_t)len) {
		close(fd);
		return "the write failed";
	}
	n = read_some(fd, buf, sizeof buf, NULL);
	close(fd);
	if (tls && n == sizeof alert && memcmp(buf, alert, n) == 0)
		return "refused";
	if (!tls && n > 12 && memcmp(buf, "HTTP/1.1 403 ", 13) == 0)
		return "refused";
	if (n == 0)
		return "nothing, then the end";
	if (n >= 7 && buf[0] == 0x15)
		snprintf(what, sizeof what, "the far end's alert %u", buf[6]);
	else if (buf[0] == 0x16)
		snprintf(what, sizeof what, "the far end's handshake");
	else
		snprintf(what, sizeof what, "%zu other bytes", n);
	return what;
}

/*
 * Domain fronting: inside a tunnel to the allowed name, a ClientHello for
 * another name, one without a name, and plain bytes are all refused.
 */
static void
probe_sni(void)
{
	static const char	 plain[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	const char		*other = opt.denied ? opt.denied :
				    "denied.invalid", *got;
	uint8_t			 hello[600];
	size_t			 len;
	int			 code;

	if (!is_mode("allow"))
		return;
	if (opt.allowed == NULL || opt.allowed[0] == '\0') {
		report("SKIP", "proxy_sni", "no exact name in the allow list");
		return;
	}
	len = client_hello(hello, sizeof hello, other);
	got = tunnel_try(hello, len, 1, &code);
	if (got == NULL && code == 502) {
		report("SKIP", "proxy_sni", "CONNECT %s:443: 502 (the proxy "
		    "could not reach it: offline?)", opt.allowed);
		return;
	}
	if (got == NULL || strcmp(got, "refused") != 0) {
		report("FAIL", "proxy_sni", "a ClientHello for %s in a tunnel "
		    "to %s: %s", other, opt.allowed, got != NULL ? got :
		    code_text(code));
		return;
	}
	len = client_hello(hello, sizeof hello, NULL);
	got = tunnel_try(hello, len, 1, &code);
	if (got == NULL || strcmp(got, "refused") != 0) {
		report("FAIL", "proxy_sni", "a ClientHello without a name in a "
		    "tunnel to %s: %s", opt.allowed, got != NULL ? got :
		    code_text(code));
		return;
	}
	got = tunnel_try((const uint8_t *)plain, sizeof plain - 1, 0, &code);
	if (got == NULL || strcmp(got, "refused") != 0) {
		report("FAIL", "proxy_sni", "plain HTTP in a tunnel to %s:443: "
		    "%s", opt.allowed, got != NULL ? got : code_text(code));
		return;
	}
	report("PASS", "proxy_sni", "in tunnels to %s: a ClientHello for %s "
	    "and one without a name get access_denied, plain bytes 403",
	    opt.allowed, other);
}

/* curl --noproxy '*': the name does not resolve and no route exists. */
static void
probe_bypass(void)
{
	int	e, fd;

	if (!is_mode("allow")) {
		report("SKIP", "proxy_bypass", "network %s: no proxy to bypass",
		    opt.mode);
		return;
	}
	e = dns_send("1.1.1.1", opt.allowed ? opt.allowed : "example.com");
	if (!no_route(e)) {
		report("FAIL", "proxy_bypass", "a DNS query for the allowed "
		    "name was %s", e == 0 ? "sent" : strerror(e));
		return;
	}
	e = tcp4("1.1.1.1", 443, &fd);
	if (fd != -1)
		close(fd);
	if (!no_route(e))
		report("FAIL", "proxy_bypass", "direct connect without the "
		    "proxy: %s", e == 0 ? "connected" : strerror(e));
	else
		report("PASS", "proxy_bypass", "without the proxy: no DNS, "
		    "connect %s", strerror(e));
}

static void
probe_writes(void)
{
	static const char *const outside[] = {
		"/x", "/etc/x", "/usr/x", "/bin/x", "/dev/x", "/proc/x",
		"/home/x", "/root/x", "/var/x", NULL
	};
	size_t	i;
	int	fd;

	for (i = 0; outside[i] != NULL; i++) {
		if ((fd = open(outside[i], O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC, 0644)) != -1) {
			close(fd);
			unlink(outside[i]);
			report("FAIL", "write_outside", "created %s",
			    outside[i]);
			return;
		}
	}
	if ((fd = open("/work/.airlox-probe-w", O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0644)) == -1) {
		report("FAIL", "write_outside", "the workspace is not writable: "
		    "%s", strerror(errno));
		return;
	}
	close(fd);
	unlink("/work/.airlox-probe-w");
	report("PASS", "write_outside", "/, /etc, /usr, /bin, /dev, /proc, "
	    "/home, /root, /var not writable; /work is");
}

static void
probe_landlock(void)
{
	long	abi = syscall(444, NULL, 0, 1UL);
	int	fd;

	if (abi <= 0) {
		report("SKIP", "landlock", "the kernel has no Landlock");
		return;
	}
	if ((fd = open("/proc/self/comm", O_WRONLY | O_CLOEXEC)) != -1) {
		close(fd);
		report("FAIL", "landlock", "/proc/self/comm is writable");
		return;
	}
	report("PASS", "landlock", "ABI %ld; a write only Landlock denies "
	    "(/proc/self/comm): %s", abi, strerror(errno));
}

static void
probe_canaries(void)
{
	struct stat	 st;
	const char	*colon;
	int		 i;

	for (i = 0; i < opt.ncanary; i++) {
		colon = strchr(opt.canary[i], ':');
		if (colon == NULL)
			continue;
		/*
		 * -k: the image has its own /root, which may hide a path
		 * with EACCES; no host directory but /work and /out is
		 * mounted (mountinfo proves it), so that is not the canary.
		 */
		if (stat(colon + 1, &st) == 0 || (errno != ENOENT &&
		    !(opt.docker && errno == EACCES))) {
			report("FAIL", "canary_files", "the %.*s canary is "
			    "visible (%s)", (int)(colon - opt.canary[i]),
			    opt.canary[i], strerror(errno));
			return;
		}
	}
	report(opt.ncanary > 0 ? "PASS" : "SKIP", "canary_files",
	    "%d canary files of the runner (state dir, home) do not exist "
	    "inside", opt.ncanary);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, space-separated words of a list (in place, max 64). */
static void
sorted_join(char **v, size_t n, char *out, size_t len)
{
	size_t	i, used = 0;

	qsort(v, n, sizeof *v, cmp_str);
	out[0] = '\0';
	for (i = 0; i < n && used + strlen(v[i]) + 2 < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s",
		    i ? " " : "", v[i]);
}

/* -k: a mount of the kernel's own file systems, or masked by the runtime. */
static int
kernel_mount(const char *line, const char *mp)
{
	static const char *const types[] = {
		"proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", NULL
	};
	const char	*sep = strstr(line, " - ");
	char		 type[64];
	size_t		 i;

	if (strncmp(mp, "/proc/", 6) == 0 || strncmp(mp, "/sys/", 5) == 0)
		return 1;
	if (sep == NULL || sscanf(sep + 3, "%63s", type) != 1)
		return 0;
	for (i = 0; types[i] != NULL; i++)
		if (strcmp(type, types[i]) == 0)
			return 1;
	return 0;
}

/* -k: / must be mounted read-only (the container's ReadonlyRootfs). */
static void
probe_root_ro(const char *opts)
{
	char	o[256], *t, *save = NULL;
	int	ro = 0;

	snprintf(o, sizeof o, "%s", opts);
	for (t = strtok_r(o, ",", &save); t != NULL;
	    t = strtok_r(NULL, ",", &save))
		if (strcmp(t, "ro") == 0)
			ro = 1;
	report(ro ? "PASS" : "FAIL", "root_ro", "/ is mounted %s", opts);
}

static void
probe_mountinfo(void)
{
	char	 line[4096], mp[1024], mo[256], *v[64], got[4096];
	char	 rootopts[256] = "(not found)";
	size_t	 n = 0, i;
	FILE	*fp;

	if ((fp = fopen("/proc/self/mountinfo", "re")) == NULL) {
		report("FAIL", "mountinfo", "cannot read: %s", strerror(errno));
		return;
	}
	while (n < 64 && fgets(line, sizeof line, fp) != NULL) {
		if (sscanf(line, "%*s %*s %*s %*s %1023s %255s", mp, mo) != 2)
			continue;
		if (strcmp(mp, "/") == 0)
			snprintf(rootopts, sizeof rootopts, "%s", mo);
		if (opt.docker && kernel_mount(line, mp))
			continue;
		v[n++] = strdup(mp);
	}
	fclose(fp);
	if (opt.docker)
		probe_root_ro(rootopts);
	sorted_join(v, n, got, sizeof got);
	for (i = 0; i < n; i++)
		free(v[i]);
	if (opt.mounts != NULL && strcmp(got, opt.mounts) == 0)
		report("PASS", "mountinfo", "exactly the %zu mounts the sandbox "
		    "made", n);
	else
		report("FAIL", "mountinfo", "mount points: %s", got);
}

static void
probe_dev(void)
{
	char		 got[1024], *v[64];
	DIR		*d;
	struct dirent	*de;
	size_t		 n = 0, i;

	if ((d = opendir("/dev")) == NULL) {
		report("FAIL", "dev_nodes", "cannot list /dev: %s",
		    strerror(errno));
		return;
	}
	while (n < 64 && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, ".."))
			v[n++] = strdup(de->d_name);
	closedir(d);
	sorted_join(v, n, got, sizeof got);
	for (i = 0; i < n; i++)
		free(v[i]);
	if (opt.devs != NULL && strcmp(got, opt.devs) == 0)
		report("PASS", "dev_nodes", "/dev: %s", got);
	else
		report("FAIL", "dev_nodes", "/dev: %s", got);
}

static void
probe_status(void)
{
	char	 line[256], key[64], val[128];
	char	 caps[5][40], nnp[8] = "?", sec[8] = "?";
	FILE	*fp;
	int	 i, zero = 1;
	static const char *const ck[] = {
		"CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"
	};

	for (i = 0; i < 5; i++)
		snprintf(caps[i], sizeof caps[i], "?");
	if ((fp = fopen("/proc/self/status", "re")) == NULL) {
		report("FAIL", "capabilities", "no /proc/self/status");
		return;
	}
	while (fgets(line, sizeof line, fp) != NULL) {
		if (sscanf(line, "%63s %127s", key, val) != 2)
			continue;
		for (i = 0; i < 5; i++)
			if (strcmp(key, ck[i]) == 0)
				snprintf(caps[i], sizeof caps[i], "%.39s", val);
		if (strcmp(key, "NoNewPrivs:") == 0)
			snprintf(nnp, sizeof nnp, "%.7s", val);
		if (strcmp(key, "Seccomp:") == 0)
			snprintf(sec, sizeof sec, "%.7s", val);
	}
	fclose(fp);
	for (i = 0; i < 5; i++)
		if (strcmp(caps[i], "0000000000000000") != 0)
			zero = 0;
	report(zero ? "PASS" : "FAIL", "capabilities", "CapInh %s CapPrm %s "
	    "CapEff %s CapBnd %s CapAmb %s", caps[0], caps[1], caps[2],
	    caps[3], caps[4]);
	report(strcmp(nnp, "1") == 0 ? "PASS" : "FAIL", "no_new_privs",
	    "NoNewPrivs %s", nnp);
	report(strcmp(sec, "2") == 0 ? "PASS" : "FAIL", "seccomp",
	    "Seccomp %s (filter)", sec);
}

static void
probe_userns(void)
{
	pid_t	p;
	int	st;

	if ((p = fork()) == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : errno == EPERM ? 1 : 2);
	if (p == -1 || waitpid(p, &st, 0) != p) {
		report("FAIL", "userns", "cannot fork: %s", strerror(errno));
		return;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
		report("PASS", "userns", "unshare(CLONE_NEWUSER): EPERM");
	else
		report("FAIL", "userns", "unshare(CLONE_NEWUSER): %s",
		    WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "succeeded" :
		    "another error");
}

/* The outcome the runner measured outside the sandbox, or NULL. */
static const char *
baseline(const char *name)
{
	size_t	len = strlen(name);
	int	i;

	for (i = 0; i < opt.nbase; i++)
		if (strncmp(opt.base[i], name, len) == 0 &&
		    opt.base[i][len] == '=')
			return opt.base[i] + len + 1;
	return NULL;
}

/* A child's end as one word: "returned", "SIGSYS", "SIGSEGV", "signal N". */
static const char *
child_outcome(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st) == 0 ? "returned" : "failed";
	if (!WIFSIGNALED(st))
		return "stopped";
	if (WTERMSIG(st) == SIGSYS)
		return "SIGSYS";
	if (WTERMSIG(st) == SIGSEGV)
		return "SIGSEGV";
	snprintf(buf, len, "signal_%d", WTERMSIG(st));
	return buf;
}

/* i386 getpid through `int $0x80` in a child: how the child ended. */
static const char *
syscall32_try(char *buf, size_t len)
{
#if defined(__x86_64__)
	pid_t	p;
	int	st;
	long	ret;

	if ((p = fork()) == 0) {
		if (opt.no_ia32)
			__asm__ volatile ("int $0x81" : "=a"(ret) : "a"(20L) :
			    "memory");
		else
			__asm__ volatile ("int $0x80" : "=a"(ret) : "a"(20L) :
			    "memory");
		_exit(ret > 0 ? 0 : 3);
	}
	if (p == -1 || waitpid(p, &st, 0) != p)
		return NULL;
	return child_outcome(st, buf, len);
#else
	(void)buf;
	(void)len;
	return "no_abi";
#endif
}

static void
probe_syscall32(void)
{
	const char	*in, *out = baseline("syscall32");
	char		 buf[32];

	if ((in = syscall32_try(buf, sizeof buf)) == NULL) {
		report("FAIL", "syscall32", "cannot fork");
		return;
	}
	if (strcmp(in, "no_abi") == 0)
		report("SKIP", "syscall32", "no 32-bit ABI on this "
		    "architecture");
	else if (strcmp(in, "SIGSYS") == 0)
		report("PASS", "syscall32", "int $0x80 (i386 getpid): killed "
		    "by SIGSYS");
	else if (strcmp(in, "SIGSEGV") == 0 && out != NULL &&
	    strcmp(out, "SIGSEGV") == 0)
		report("PASS", "syscall32", "the kernel has no 32-bit syscall "
		    "entry: int $0x80 gives SIGSEGV outside the sandbox too, "
		    "so no i386 syscall can run");
	else
		report("FAIL", "syscall32", "int $0x80: %s (outside the "
		    "sandbox: %s)", in, out != NULL ? out : "not measured");
}

/* -B: the kernel's own answers, outside any sandbox. */
static int
probe_baseline(void)
{
	const char	*o;
	char		 buf[32];

	if ((o = syscall32_try(buf, sizeof buf)) != NULL)
		printf("BASE syscall32 %s\n", o);
	fflush(stdout);
	return 0;
}

static void
probe_io_uring(void)
{
	unsigned char	params[120];
	long		r;

	memset(params, 0, sizeof params);
	r = syscall(425, 1, params);		/* io_uring_setup */
	if (r >= 0) {
		close((int)r);
		report("FAIL", "io_uring", "io_uring_setup succeeded");
	} else if (errno == EPERM)
		report("PASS", "io_uring", "io_uring_setup: EPERM");
	else if (errno == ENOSYS)
		report("SKIP", "io_uring", "the kernel has no io_uring");
	else
		report("FAIL", "io_uring", "io_uring_setup: %s",
		    strerror(errno));
}

static void
probe_nonroot(void)
{
	uid_t	ru, eu, su;
	gid_t	rg, eg, sg, groups[64];
	int	n, i, root = 0;

	if (getresuid(&ru, &eu, &su) != 0 || getresgid(&rg, &eg, &sg) != 0 ||
	    (n = getgroups(64, groups)) < 0) {
		report("FAIL", "nonroot", "cannot read ids: %s",
		    strerror(errno));
		return;
	}
	if (ru == 0 || eu == 0 || su == 0 || rg == 0 || eg == 0 || sg == 0)
		root = 1;
	for (i = 0; i < n; i++)
		if (groups[i] == 0)
			root = 1;
	report(root ? "FAIL" : "PASS", "nonroot", "uid %u gid %u, %d "
	    "supplementary group(s)%s", (unsigned)eu, (unsigned)eg, n,
	    root ? ", root among them" : ", none root");
}

static void
probe_tiocsti(void)
{
	char	c = 'x';

	if (ioctl(0, TIOCSTI, &c) == -1 && errno == EPERM)
		report("PASS", "tiocsti", "ioctl TIOCSTI: EPERM");
	else
		report("FAIL", "tiocsti", "ioctl TIOCSTI: %s", errno == 0 ?
		    "succeeded" : strerror(errno));
}

static int
env_name_listed(const char *entry)
{
	const char	*p = opt.env_names;
	size_t		 nl = strcspn(entry, "="), wl;

	while (p != NULL && *p != '\0') {
		wl = strcspn(p, " ");
		if (wl == nl && strncmp(p, entry, nl) == 0)
			return 1;
		p += wl;
		while (*p == ' ')
			p++;
	}
	return 0;
}

static void
probe_env(void)
{
	size_t	i;

	if (opt.canary_var != NULL && getenv(opt.canary_var) != NULL) {
		report("FAIL", "env_canary", "the runner's canary variable %s "
		    "is set inside", opt.canary_var);
		return;
	}
	for (i = 0; environ[i] != NULL; i++)
		if (!env_name_listed(environ[i])) {
			report("FAIL", "env_canary", "a variable outside the "
			    "allow list: %.*s", (int)strcspn(environ[i], "="),
			    environ[i]);
			return;
		}
	report("PASS", "env_canary", "the runner's canary variable is absent; "
	    "%zu variables, all on the allow list", i);
}

static void
probe_fds(void)
{
	char		 got[256] = "";
	DIR		*d;
	struct dirent	*de;
	int		 self;

	if ((d = opendir("/proc/self/fd")) == NULL) {
		report("FAIL", "fds", "cannot list /proc/self/fd");
		return;
	}
	self = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || atoi(de->d_name) == self)
			continue;
		if (strlen(got) + strlen(de->d_name) + 2 < sizeof got) {
			if (got[0] != '\0')
				strcat(got, " ");
			strcat(got, de->d_name);
		}
	}
	closedir(d);
	report(strcmp(got, "0 1 2") == 0 ? "PASS" : "FAIL", "fds",
	    "open fds: %s", got);
}

int
main(int argc, char **argv)
{
	int	c, base = 0;

	opt.mode = "none";
	while ((c = getopt(argc, argv, "m:p:a:d:M:D:v:e:c:kBb:T:")) != -1) {
		switch (c) {
		case 'm': opt.mode = optarg; break;
		case 'p': opt.hostport = atoi(optarg); break;
		case 'a': opt.allowed = optarg; break;
		case 'd': opt.denied = optarg; break;
		case 'M': opt.mounts = optarg; break;
		case 'D': opt.devs = optarg; break;
		case 'v': opt.canary_var = optarg; break;
		case 'e': opt.env_names = optarg; break;
		case 'k': opt.docker = 1; break;
		case 'B': base = 1; break;
		case 'b':
			if (opt.nbase < PROBE_MAX_BASE)
				opt.base[opt.nbase++] = optarg;
			break;
		case 'T':
			if (strcmp(optarg, "no-ia32") != 0)
				return 2;
			opt.no_ia32 = 1;
			break;
		case 'c':
			if (opt.ncanary < PROBE_MAX_CANARY)
				opt.canary[opt.ncanary++] = optarg;
			break;
		default:
			return 2;
		}
	}
	if (base)
		return probe_baseline();
	/* Before anything opens an fd of its own. */
	probe_fds();
	probe_env();
	probe_ifaces();
	probe_routes();
	probe_direct_ip();
	probe_dns("direct_domain", opt.allowed ? opt.allowed : "example.com");
	probe_dns("dns", "example.com");
	probe_host_loopback();
	probe_proxy();
	probe_sni();
	probe_bypass();
	probe_writes();
	probe_landlock();
	probe_canaries();
	probe_mountinfo();
	probe_dev();
	probe_status();
	probe_userns();
	probe_syscall32();
	probe_io_uring();
	probe_nonroot();
	probe_tiocsti();
	return 0;
}
