/*
 * runner-proxy-tls.c: the first bytes of a tunnel, read as a TLS
 * ClientHello (RFC 8446 section 4.1.2, RFC 6066 section 3), for the
 * server name the job asks the far end for. A pure function of the bytes
 * seen so far: no I/O, no allocation, nothing kept between calls, so the
 * proxy can call it again after each read and a fuzzer can call it on
 * anything (tests/fuzz/fuzz-hello.c).
 *
 * The ClientHello may arrive in several TCP segments and be split over
 * several handshake records; its pieces are put together in h->msg, up to
 * EGRESS_HELLO_MAX bytes of message and EGRESS_PEEK_MAX bytes of records.
 * Anything else in the first record (another record type, another
 * handshake message, an SSLv2 hello, a malformed or over-long hello) is
 * "not TLS": port 443 carries only TLS through this proxy. Where the
 * grammar leaves room for two readings (two server_name extensions, two
 * names in one, a name with a NUL), the hello is refused, so that the
 * proxy and the far end cannot read different names from it.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runner-proxy.h"

#define TLS_REC_HEADER		5
#define TLS_REC_HANDSHAKE	22
#define TLS_REC_PAYLOAD_MAX	16384		/* 2^14, RFC 8446 5.1 */
#define TLS_HS_CLIENT_HELLO	1
#define TLS_EXT_SERVER_NAME	0x0000
#define TLS_EXT_ECH		0xfe0d	/* encrypted_client_hello */
#define TLS_SNI_HOST_NAME	0

struct hello_rd {
	const uint8_t	*p;
	size_t		 left;
	int		 bad;
};

static unsigned
hello_u8(struct hello_rd *r)
{
	if (r->bad || r->left < 1) {
		r->bad = 1;
		return 0;
	}
	r->left--;
	return *r->p++;
}

static unsigned
hello_u16(struct hello_rd *r)
{
	unsigned	v = hello_u8(r) << 8;

	return v | hello_u8(r);
}

/* A sub-reader over the next n bytes, which r skips. */
static struct hello_rd
hello_sub(struct hello_rd *r, size_t n)
{
	struct hello_rd	s = { r->p, n, r->bad };

	if (r->bad || r->left < n) {
		r->bad = s.bad = 1;
		s.left = 0;
		return s;
	}
	r->p += n;
	r->left -= n;
	return s;
}

/*
 * server_name: a list of exactly one host_name of 1..255 printable ASCII
 * bytes (RFC 6066 allows one name per type and defines one type).
 */
static int
hello_sni(struct hello_rd ext, struct egress_hello *h)
{
	struct hello_rd	list, name;
	size_t		i;

	list = hello_sub(&ext, hello_u16(&ext));
	if (ext.bad || ext.left != 0 || hello_u8(&list) != TLS_SNI_HOST_NAME)
		return -1;
	name = hello_sub(&list, hello_u16(&list));
	if (list.bad || list.left != 0 || name.left == 0 ||
	    name.left >= sizeof h->sni)
		return -1;
	for (i = 0; i < name.left; i++) {
		if (name.p[i] <= 0x20 || name.p[i] >= 0x7f)
			return -1;
		h->sni[i] = (char)name.p[i];
	}
	h->sni[i] = '\0';
	h->has_sni = 1;
	return 0;
}

/* The ClientHello body (after its 4-byte header): 0 or -1 malformed. */
static int
hello_body(const uint8_t *p, size_t len, struct egress_hello *h)
{
	struct hello_rd	r = { p, len, 0 }, sid, cs, comp, exts, ext;
	unsigned	type;
	int		seen_sni = 0;

	if (hello_u8(&r) != 3)			/* legacy_version 3.x */
		return -1;
	(void)hello_u8(&r);
	(void)hello_sub(&r, 32);		/* random */
	sid = hello_sub(&r, hello_u8(&r));
	cs = hello_sub(&r, hello_u16(&r));
	comp = hello_sub(&r, hello_u8(&r));
	if (r.bad || sid.left > 32 || cs.left < 2 || cs.left % 2 != 0 ||
	    comp.left < 1)
		return -1;
	if (r.left == 0)
		return 0;			/* no extensions at all */
	exts = hello_sub(&r, hello_u16(&r));
	if (r.bad || r.left != 0)
		return -1;
	while (exts.left > 0) {
		type = hello_u16(&exts);
		ext = hello_sub(&exts, hello_u16(&exts));
		if (exts.bad)
			return -1;
		if (type == TLS_EXT_SERVER_NAME) {
			if (seen_sni++ || hello_sni(ext, h) != 0)
				return -1;
		} else if (type == TLS_EXT_ECH) {
			if (h->ech++)
				return -1;
		}
	}
	return 0;
}

int
egress_hello_parse(const uint8_t *buf, size_t len, struct egress_hello *h)
{
	size_t	off = 0, rlen, take, want;

	memset(h, 0, offsetof(struct egress_hello, msg));
	h->msglen = 0;
	for (;;) {
		/* The handshake header, once there: type and length. */
		if (h->msglen >= 4) {
			if (h->msg[0] != TLS_HS_CLIENT_HELLO)
				return EGRESS_HELLO_BAD;
			want = (size_t)h->msg[1] << 16 |
			    (size_t)h->msg[2] << 8 | h->msg[3];
			if (want > EGRESS_HELLO_MAX)
				return EGRESS_HELLO_BAD;
			if (h->msglen >= 4 + want)
				return hello_body(h->msg + 4, want, h) == 0 ?
				    EGRESS_HELLO_OK : EGRESS_HELLO_BAD;
		} else if (h->msglen >= 1 && h->msg[0] != TLS_HS_CLIENT_HELLO)
			return EGRESS_HELLO_BAD;
		/* The next record's header, checked as far as it came. */
		if (off >= len)
			return off >= EGRESS_PEEK_MAX ? EGRESS_HELLO_BAD :
			    EGRESS_HELLO_MORE;
		if (buf[off] != TLS_REC_HANDSHAKE ||
		    (len - off > 1 && buf[off + 1] != 3) ||
		    (len - off > 2 && buf[off + 2] > 4))
			return EGRESS_HELLO_BAD;
		if (len - off < TLS_REC_HEADER)
			return off + TLS_REC_HEADER > EGRESS_PEEK_MAX ?
			    EGRESS_HELLO_BAD : EGRESS_HELLO_MORE;
		rlen = (size_t)buf[off + 3] << 8 | buf[off + 4];
		if (rlen == 0 || rlen > TLS_REC_PAYLOAD_MAX ||
		    off + TLS_REC_HEADER + rlen > EGRESS_PEEK_MAX)
			return EGRESS_HELLO_BAD;
		off += TLS_REC_HEADER;
		take = rlen < len - off ? rlen : len - off;
		if (take > sizeof h->msg - h->msglen)
			take = sizeof h->msg - h->msglen;
		memcpy(h->msg + h->msglen, buf + off, take);
		h->msglen += take;
		if (len - off < rlen) {
			/* A partial record may already hold the whole hello. */
			off = len;
			continue;
		}
		off += rlen;
	}
}

/* Equal as DNS names: ASCII case folded, one trailing dot ignored. */
static int
hello_name_eq(const char *sni, const char *host)
{
	size_t	sl = strlen(sni), hl = strlen(host), i;
	int	a, b;

	if (sl > 0 && sni[sl - 1] == '.')
		sl--;
	if (hl > 0 && host[hl - 1] == '.')
		hl--;
	if (sl != hl || sl == 0)
		return 0;
	for (i = 0; i < sl; i++) {
		a = (unsigned char)sni[i];
		b = (unsigned char)host[i];
		if (a >= 'A' && a <= 'Z')
			a += 'a' - 'A';
		if (b >= 'A' && b <= 'Z')
			b += 'a' - 'A';
		if (a != b)
			return 0;
	}
	return 1;
}

int
egress_hello_check(const uint8_t *buf, size_t len, const char *host,
    struct egress_hello *h, const char **why)
{
	int	r;

	*why = NULL;
	if ((r = egress_hello_parse(buf, len, h)) == EGRESS_HELLO_MORE)
		return r;
	if (r != EGRESS_HELLO_OK)
		*why = "not_tls";
	else if (!h->has_sni)
		*why = "no_sni";
	else if (!hello_name_eq(h->sni, host))
		*why = "sni_mismatch";
	return *why == NULL ? EGRESS_HELLO_OK : EGRESS_HELLO_BAD;
}
