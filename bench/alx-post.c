/*
 * alx-post.c: publish-rate load generator for bench/relay-vs-nchan.sh.
 *
 *	alx-post signed DIR HOST:PORT N SIZE NAME...
 *		pre-signs N items of about SIZE bytes (JSON body) for each
 *		participant NAME of the relay-cli session directory DIR
 *		(fresh participants, already joined; an item post carries
 *		no request signature), then posts them: one keep-alive
 *		connection per NAME, one request in flight per connection,
 *		each participant's items in order.
 *	alx-post raw HOST:PORT PATH N SIZE CONNS LABEL
 *		the same client loop posting N unsigned SIZE-byte bodies per
 *		connection to PATH (for nchan's publisher location).
 *
 * Prints one line: "posted=N ok=N failed=N seconds=S rate=R
 * client_cpu_us_per_item=C" (rate in requests per second, wall clock from
 * the first request written to the last response read; signing is done
 * before the clock starts; C is this program's own CPU time over the same
 * span, per request).
 * Bench tool, not part of the product: it may print and exit.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "util/mono.h"

struct conn {
	int	  fd;
	char	**req;		/* whole requests, header and body */
	size_t	 *reqlen;
	size_t	  n, next;	/* requests, next to send */
	size_t	  off;		/* bytes of req[next] written */
	int	  waiting;	/* a response is due */
	char	  in[8192];
	size_t	  inlen;
	size_t	  ok, failed;
};

static const char	*dir;

static void __attribute__((noreturn))
die(const char *what, int rc)
{
	fprintf(stderr, "alx-post: %s: %s\n", what, rc ? alx_errname(rc) :
	    strerror(errno));
	exit(1);
}

static uint8_t *
get(const char *name, size_t *lenp)
{
	char	 p[1024];
	FILE	*f;
	uint8_t	*buf;
	long	 n;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((f = fopen(p, "rb")) == NULL)
		die(p, 0);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	if ((buf = malloc((size_t)n + 1)) == NULL ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n)
		die(p, 0);
	fclose(f);
	buf[n] = '\0';
	*lenp = (size_t)n;
	return buf;
}

/* This process's user + system CPU time, in seconds. */
static double
cpu_s(void)
{
	struct rusage	ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int
dial(const char *hostport)
{
	struct sockaddr_in	sa;
	char			host[64];
	const char		*c = strrchr(hostport, ':');
	int			fd, one = 1;

	if (c == NULL || (size_t)(c - hostport) >= sizeof(host))
		die("HOST:PORT", ALX_ERR_INVALID);
	memcpy(host, hostport, (size_t)(c - hostport));
	host[c - hostport] = '\0';
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)atoi(c + 1));
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		die("HOST", ALX_ERR_INVALID);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1)
		die("connect", 0);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static char *
request(size_t *lenp, const char *hostport, const char *path,
    const char *auth, const void *body, size_t blen)
{
	char	*r;
	int	 h;

	if ((r = malloc(blen + 1024 + ALX_REQ_HDR_MAX)) == NULL)
		die("malloc", 0);
	h = snprintf(r, 1024 + ALX_REQ_HDR_MAX, "POST %s HTTP/1.1\r\n"
	    "Host: %s\r\n%s%s%sContent-Type: application/json\r\n"
	    "Content-Length: %zu\r\n\r\n", path, hostport,
	    auth ? "Authorization: " : "", auth ? auth : "",
	    auth ? "\r\n" : "", blen);
	memcpy(r + h, body, blen);
	*lenp = (size_t)h + blen;
	return r;
}

/* One participant's N items, chained from seq 1, each about size bytes. */
static void
sign_items(struct conn *c, const char *name, size_t n, size_t size,
    const char *hostport)
{
	struct alx_session_secrets	 sec;
	struct alx_manifest		 m;
	struct alx_signkey		 sk;
	struct alx_kxkey		 kx;
	struct alx_item			 it;
	uint8_t				 kitem[ALX_KEY_LEN], prev[ALX_HASH_LEN];
	uint8_t				*b;
	char				 file[256], path[256], *meta;
	char				 sidb[ALX_B64_ENCLEN(ALX_SID_LEN) + 1];
	size_t				 len, i, pad;
	int				 rc, v;

	b = get("secrets", &len);
	if (len != sizeof(sec))
		die("secrets", ALX_ERR_INVALID);
	memcpy(&sec, b, sizeof(sec));
	free(b);
	b = get("manifest.1.json", &len);
	{
		size_t	 slen;
		uint8_t	*sid = get("sid.bin", &slen);

		if ((rc = alx_manifest_open(&m, (char *)b, len, sid,
		    NULL)) != 0)
			die("manifest", rc);
		free(sid);
	}
	free(b);
	snprintf(file, sizeof(file), "%s.seed", name);
	b = get(file, &len);
	if ((rc = alx_seed_keys(b, &sk, &kx)) != 0)
		die("participant key", rc);
	free(b);
	alx_b64_encode(sidb, m.sid, ALX_SID_LEN);
	snprintf(path, sizeof(path), "/v1/sessions/%s/items", sidb);
	c->n = n;
	if ((c->req = calloc(n, sizeof(*c->req))) == NULL ||
	    (c->reqlen = calloc(n, sizeof(*c->reqlen))) == NULL ||
	    (meta = malloc(size + 64)) == NULL)
		die("calloc", 0);
	pad = size > 700 ? size - 700 : 16;	/* refined after item 1 */
	for (i = 0; i < n; i++) {
		memset(&it, 0, sizeof(it));
		memcpy(it.sid, m.sid, ALX_SID_LEN);
		alx_random(it.id, ALX_ID_LEN);
		snprintf(it.kind, sizeof(it.kind), "text");
		alx_fingerprint(it.author, sk.pk, ALX_SIGN_PK_LEN);
		it.seq = (int64_t)i + 1;
		if (i > 0) {
			it.has_prev = 1;
			memcpy(it.prev, prev, ALX_HASH_LEN);
		}
		it.time = (int64_t)time(NULL);
		it.mv = m.ver;
		if ((rc = alx_item_key_epoch(sec.epoch_key, it.id,
		    kitem)) != 0)
			die("item key", rc);
		v = snprintf(meta, size + 64, "{\"v\":1,\"text\":\"");
		memset(meta + v, 'x', pad);
		snprintf(meta + v + pad, 8, "\"}");
		if ((rc = alx_item_seal_meta(&it, kitem, meta,
		    strlen(meta))) != 0)
			die("seal meta", rc);
		if ((rc = alx_item_sign(&it, &sk)) != 0)
			die("item sign", rc);
		if (i == 0 && it.obj.raw_len != size) {
			/* adjust the padding so the body is size bytes */
			long d = (long)size - (long)it.obj.raw_len;

			/* base64 of the sealed meta: 4 chars per 3 bytes */
			d = d * 3 / 4;
			if ((long)pad + d > 16)
				pad = (size_t)((long)pad + d);
		}
		memcpy(prev, it.hash, ALX_HASH_LEN);
		/* No request signature: the item authenticates itself. */
		c->req[i] = request(&c->reqlen[i], hostport, path, NULL,
		    it.obj.raw, it.obj.raw_len);
		alx_item_free(&it);
	}
	fprintf(stderr, "alx-post: %s: %zu items, last body %zu bytes\n",
	    name, n, c->reqlen[n - 1] - (strstr(c->req[n - 1], "\r\n\r\n") +
	    4 - c->req[n - 1]));
	free(meta);
	alx_manifest_free(&m);
}

/* A complete response in c->in: its status; consumes it. 0 if partial. */
static int
response(struct conn *c)
{
	char	*e, *cl;
	size_t	 hl, bl = 0, t;
	int	 st;

	if (c->inlen < 12)
		return 0;
	c->in[c->inlen] = '\0';
	if ((e = strstr(c->in, "\r\n\r\n")) == NULL)
		return 0;
	hl = (size_t)(e + 4 - c->in);
	if ((cl = strcasestr(c->in, "\r\nContent-Length:")) != NULL &&
	    cl < e)
		bl = strtoul(cl + 17, NULL, 10);
	if (c->inlen < hl + bl)
		return 0;
	st = atoi(c->in + 9);
	t = hl + bl;
	memmove(c->in, c->in + t, c->inlen - t);
	c->inlen -= t;
	return st;
}

static void
run(struct conn *cs, size_t nc, const char *what)
{
	struct pollfd	*p;
	size_t		 i, done = 0, ok = 0, failed = 0, total = 0;
	ssize_t		 r;
	double		 t0, t1, c0;
	int		 st;

	if ((p = calloc(nc, sizeof(*p))) == NULL)
		die("calloc", 0);
	for (i = 0; i < nc; i++)
		total += cs[i].n;
	c0 = cpu_s();
	t0 = mono_sec();
	while (done < nc) {
		for (i = 0; i < nc; i++) {
			p[i].fd = cs[i].next < cs[i].n ? cs[i].fd : -1;
			p[i].events = cs[i].waiting ? POLLIN : POLLOUT;
		}
		if (poll(p, nc, 10000) <= 0)
			die("poll (timeout)", 0);
		for (i = 0; i < nc; i++) {
			struct conn *c = &cs[i];

			if (p[i].revents == 0)
				continue;
			if (!c->waiting) {
				r = write(c->fd, c->req[c->next] + c->off,
				    c->reqlen[c->next] - c->off);
				if (r <= 0)
					die("write", 0);
				c->off += (size_t)r;
				if (c->off == c->reqlen[c->next])
					c->waiting = 1;
				continue;
			}
			r = read(c->fd, c->in + c->inlen,
			    sizeof(c->in) - 1 - c->inlen);
			if (r <= 0)
				die("read (connection closed)", 0);
			c->inlen += (size_t)r;
			if ((st = response(c)) == 0)
				continue;
			if (st >= 200 && st < 300)
				c->ok++;
			else {
				if (c->failed++ == 0)
					fprintf(stderr, "alx-post: status %d\n",
					    st);
			}
			c->waiting = 0;
			c->off = 0;
			if (++c->next == c->n)
				done++;
		}
	}
	t1 = mono_sec();
	for (i = 0; i < nc; i++) {
		ok += cs[i].ok;
		failed += cs[i].failed;
	}
	printf("%s posted=%zu ok=%zu failed=%zu seconds=%.3f rate=%.0f "
	    "client_cpu_us_per_item=%.0f\n", what, total, ok, failed,
	    t1 - t0, (double)ok / (t1 - t0),
	    total > 0 ? (cpu_s() - c0) * 1e6 / (double)total : 0.0);
	free(p);
}

int
main(int argc, char **argv)
{
	struct conn	*cs;
	size_t		 n, size, nc, i, j;
	char		*body;

	if (argc >= 7 && strcmp(argv[1], "signed") == 0) {
		dir = argv[2];
		n = strtoul(argv[4], NULL, 10);
		size = strtoul(argv[5], NULL, 10);
		nc = (size_t)argc - 6;
		if ((cs = calloc(nc, sizeof(*cs))) == NULL)
			die("calloc", 0);
		for (i = 0; i < nc; i++)
			sign_items(&cs[i], argv[6 + i], n, size, argv[3]);
		for (i = 0; i < nc; i++)
			cs[i].fd = dial(argv[3]);
		run(cs, nc, "airlox");
		return 0;
	}
	if (argc == 8 && strcmp(argv[1], "raw") == 0) {
		n = strtoul(argv[4], NULL, 10);
		size = strtoul(argv[5], NULL, 10);
		nc = strtoul(argv[6], NULL, 10);
		if ((cs = calloc(nc, sizeof(*cs))) == NULL ||
		    (body = malloc(size)) == NULL)
			die("calloc", 0);
		memset(body, 'x', size);
		for (i = 0; i < nc; i++) {
			cs[i].n = n;
			if ((cs[i].req = calloc(n, sizeof(char *))) == NULL ||
			    (cs[i].reqlen = calloc(n, sizeof(size_t))) == NULL)
				die("calloc", 0);
			cs[i].req[0] = request(&cs[i].reqlen[0], argv[2],
			    argv[3], NULL, body, size);
			for (j = 1; j < n; j++) {
				cs[i].req[j] = cs[i].req[0];
				cs[i].reqlen[j] = cs[i].reqlen[0];
			}
			cs[i].fd = dial(argv[2]);
		}
		run(cs, nc, argv[7]);
		return 0;
	}
	fprintf(stderr, "usage: alx-post signed DIR HOST:PORT N SIZE NAME...\n"
	    "       alx-post raw HOST:PORT PATH N SIZE CONNS LABEL\n");
	return 2;
}
