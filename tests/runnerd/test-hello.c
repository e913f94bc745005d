/*
 * test-hello.c: the egress proxy's ClientHello reader
 * (runnerd/runner-proxy-tls.c) on hellos built here: whole, cut at every
 * byte, split over records, and each way a first record can be refused.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner-proxy.h"
#include "tap.h"

#define B_MAX	(64 * 1024)

struct b {
	uint8_t	p[B_MAX];
	size_t	n;
};

static void
put(struct b *b, const void *p, size_t n)
{
	if (b->n + n > B_MAX)
		abort();
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void
put8(struct b *b, unsigned v)
{
	uint8_t	c = (uint8_t)v;

	put(b, &c, 1);
}

static void
put16(struct b *b, unsigned v)
{
	put8(b, v >> 8);
	put8(b, v);
}

static void
put24(struct b *b, size_t v)
{
	put8(b, (unsigned)(v >> 16));
	put16(b, (unsigned)v & 0xffff);
}

static void
ext(struct b *b, unsigned type, const struct b *body)
{
	put16(b, type);
	put16(b, (unsigned)body->n);
	put(b, body->p, body->n);
}

/* A server_name extension body with the names given (type 0 each). */
static void
sni_body(struct b *e, const char *const *names, size_t n)
{
	struct b	list;
	size_t		i;

	memset(&list, 0, sizeof list);
	for (i = 0; i < n; i++) {
		put8(&list, 0);
		put16(&list, (unsigned)strlen(names[i]));
		put(&list, names[i], strlen(names[i]));
	}
	put16(e, (unsigned)list.n);
	put(e, list.p, list.n);
}

struct hello_opts {
	const char	*sni;		/* NULL: no server_name */
	int		 sni_twice;	/* two server_name extensions */
	const char	*second;	/* a second name in the list */
	int		 ech;		/* encrypted_client_hello, how many */
	size_t		 pad;		/* padding extension bytes */
	int		 trailing;	/* a byte after the extensions */
	int		 no_exts;	/* no extensions block at all */
	unsigned	 hs_type;	/* 0: ClientHello */
};

/* The handshake message (header included). */
static void
hello_msg(struct b *m, const struct hello_opts *o)
{
	static struct b	body, exts, e;
	const char	*names[2];
	int		 i;

	memset(&body, 0, sizeof body);
	memset(&exts, 0, sizeof exts);
	put16(&body, 0x0303);
	for (i = 0; i < 32; i++)
		put8(&body, (unsigned)i);
	put8(&body, 0);				/* session id */
	put16(&body, 4);
	put16(&body, 0x1301);
	put16(&body, 0xc02f);
	put8(&body, 1);
	put8(&body, 0);
	if (o->sni != NULL) {
		memset(&e, 0, sizeof e);
		names[0] = o->sni;
		names[1] = o->second;
		sni_body(&e, names, o->second != NULL ? 2 : 1);
		ext(&exts, 0, &e);
		if (o->sni_twice)
			ext(&exts, 0, &e);
	}
	memset(&e, 0, sizeof e);
	put16(&e, 2);
	put16(&e, 0x001d);
	ext(&exts, 10, &e);
	for (i = 0; i < o->ech; i++) {
		memset(&e, 0, sizeof e);
		put8(&e, 0);
		put(&e, "\0\1\0\1\52\0\0\0\0", 9);
		ext(&exts, 0xfe0d, &e);
	}
	if (o->pad > 0) {
		memset(&e, 0, sizeof e);
		e.n = o->pad;
		ext(&exts, 21, &e);
	}
	if (!o->no_exts) {
		put16(&body, (unsigned)exts.n);
		put(&body, exts.p, exts.n);
	}
	if (o->trailing)
		put8(&body, 0);
	memset(m, 0, sizeof *m);
	put8(m, o->hs_type ? o->hs_type : 1);
	put24(m, body.n);
	put(m, body.p, body.n);
}

/* The message in handshake records of at most rec bytes each. */
static void
records(struct b *out, const struct b *m, size_t rec)
{
	size_t	i, n;

	memset(out, 0, sizeof *out);
	for (i = 0; i < m->n; i += n) {
		n = m->n - i < rec ? m->n - i : rec;
		put8(out, 22);
		put16(out, 0x0301);
		put16(out, (unsigned)n);
		put(out, m->p + i, n);
	}
}

static struct egress_hello	h;
static struct b			msg, rec;

static int
check(const struct hello_opts *o, size_t recsize, const char *host,
    const char **why)
{
	hello_msg(&msg, o);
	records(&rec, &msg, recsize);
	return egress_hello_check(rec.p, rec.n, host, &h, why);
}

static void
expect(const struct hello_opts *o, const char *host, const char *want,
    const char *what)
{
	const char	*why;
	int		 r = check(o, 16384, host, &why);

	if (want == NULL)
		is_int(r, EGRESS_HELLO_OK, "%s: let through", what);
	else {
		is_int(r, EGRESS_HELLO_BAD, "%s: refused", what);
		is_str(why, want, "%s: %s", what, want);
	}
}

/* Every strict prefix of rec is "more"; the whole has verdict want. */
static void
prefixes(const char *host, int want, const char *what)
{
	const char	*why;
	size_t		 i;

	for (i = 1; i < rec.n; i++)
		if (egress_hello_check(rec.p, i, host, &h, &why) !=
		    EGRESS_HELLO_MORE)
			break;
	is_int(i, rec.n, "%s: every cut of it asks for more", what);
	is_int(egress_hello_check(rec.p, rec.n, host, &h, &why), want,
	    "%s: whole", what);
}

static void
raw(const char *bytes, size_t n, int want, const char *what)
{
	const char	*why;

	is_int(egress_hello_check((const uint8_t *)bytes, n, "a.test", &h,
	    &why), want, "%s", what);
	if (want == EGRESS_HELLO_BAD)
		is_str(why, "not_tls", "%s: not_tls", what);
}

int
main(void)
{
	struct hello_opts	 o;
	const char		*why;
	size_t			 sizes[] = { 1, 2, 3, 5, 7, 64, 100, 16384 };
	size_t			 i;
	int			 r;

	memset(&o, 0, sizeof o);
	o.sni = "allowed.test";
	expect(&o, "allowed.test", NULL, "the CONNECT host");
	is_str(h.sni, "allowed.test", "its name is read");
	ok(h.has_sni && !h.ech, "a name, no ECH");
	expect(&o, "other.test", "sni_mismatch", "another host");
	expect(&o, "allowed.tes", "sni_mismatch", "a shorter host");
	expect(&o, "allowed.test.evil", "sni_mismatch", "a longer host");
	o.sni = "ALLOWED.Test";
	expect(&o, "allowed.test", NULL, "upper case");
	o.sni = "allowed.test.";
	expect(&o, "allowed.test", NULL, "a trailing dot");
	o.sni = "allowed.test..";
	expect(&o, "allowed.test", "sni_mismatch", "two trailing dots");
	o.sni = ".";
	expect(&o, "allowed.test", "sni_mismatch", "a lone dot");
	o.sni = "allowed.test";
	o.ech = 1;
	expect(&o, "allowed.test", NULL, "ECH, outer name the host");
	ok(h.ech, "ECH seen");
	o.sni = "cover.test";
	expect(&o, "allowed.test", "sni_mismatch", "ECH, outer name another");
	o.sni = NULL;
	expect(&o, "allowed.test", "no_sni", "ECH, no outer name");
	o.ech = 2;
	o.sni = "allowed.test";
	expect(&o, "allowed.test", "not_tls", "two ECH extensions");
	o.ech = 0;
	o.sni = NULL;
	expect(&o, "allowed.test", "no_sni", "no server_name");
	o.no_exts = 1;
	expect(&o, "allowed.test", "no_sni", "no extensions at all");
	o.no_exts = 0;
	o.sni = "allowed.test";
	o.sni_twice = 1;
	expect(&o, "allowed.test", "not_tls", "two server_name extensions");
	o.sni_twice = 0;
	o.second = "other.test";
	expect(&o, "allowed.test", "not_tls", "two names in one extension");
	o.second = NULL;
	o.sni = "allowed.test x";
	expect(&o, "allowed.test", "not_tls", "a space in the name");
	o.sni = "allowed.t\x7fst";
	expect(&o, "allowed.test", "not_tls", "DEL in the name");
	o.sni = "";
	expect(&o, "allowed.test", "not_tls", "an empty name");
	o.sni = "allowed.test";
	o.trailing = 1;
	expect(&o, "allowed.test", "not_tls", "a byte after the extensions");
	o.trailing = 0;
	o.hs_type = 2;
	expect(&o, "allowed.test", "not_tls", "a ServerHello");

	/* A name in a zero-terminated field with more after it. */
	memset(&o, 0, sizeof o);
	o.sni = "allowed.test";
	hello_msg(&msg, &o);
	for (i = 0; i + 12 <= msg.n; i++)
		if (memcmp(msg.p + i, "allowed.test", 12) == 0)
			break;
	ok(i + 12 <= msg.n, "the name is in the message");
	msg.p[i + 7] = '\0';
	records(&rec, &msg, 16384);
	r = egress_hello_check(rec.p, rec.n, "allowed", &h, &why);
	ok(r == EGRESS_HELLO_BAD && strcmp(why, "not_tls") == 0,
	    "a NUL inside the name: not_tls");

	/* Split: records of every size, cut at every byte. */
	memset(&o, 0, sizeof o);
	o.sni = "allowed.test";
	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		hello_msg(&msg, &o);
		records(&rec, &msg, sizes[i]);
		prefixes("allowed.test", EGRESS_HELLO_OK, sizes[i] == 16384 ?
		    "one record" : "split records");
		is_str(h.sni, "allowed.test", "in %zu-byte records: the name",
		    sizes[i]);
	}
	prefixes("other.test", EGRESS_HELLO_BAD, "the mismatch, cut");

	/* Bounds: the message and the bytes of records. */
	o.pad = EGRESS_HELLO_MAX - 200;
	hello_msg(&msg, &o);
	records(&rec, &msg, 16384);
	is_int(egress_hello_check(rec.p, rec.n, "allowed.test", &h, &why),
	    EGRESS_HELLO_OK, "a hello of almost EGRESS_HELLO_MAX: let through");
	records(&rec, &msg, 4000);
	is_int(egress_hello_check(rec.p, rec.n, "allowed.test", &h, &why),
	    EGRESS_HELLO_OK, "the same over five records");
	o.pad = EGRESS_HELLO_MAX;
	hello_msg(&msg, &o);
	records(&rec, &msg, 16384);
	r = egress_hello_check(rec.p, 10, "allowed.test", &h, &why);
	ok(r == EGRESS_HELLO_BAD && strcmp(why, "not_tls") == 0,
	    "a hello over EGRESS_HELLO_MAX: refused from its header on");
	o.pad = 5000;
	hello_msg(&msg, &o);
	records(&rec, &msg, 1);
	ok(rec.n > EGRESS_PEEK_MAX, "(5 KiB in 1-byte records passes the "
	    "peek bound)");
	r = egress_hello_check(rec.p, EGRESS_PEEK_MAX + 6, "allowed.test", &h,
	    &why);
	ok(r == EGRESS_HELLO_BAD && strcmp(why, "not_tls") == 0,
	    "records past EGRESS_PEEK_MAX: refused");
	r = egress_hello_check(rec.p, EGRESS_PEEK_MAX - 1, "allowed.test", &h,
	    &why);
	is_int(r, EGRESS_HELLO_MORE, "within EGRESS_PEEK_MAX: more");
	r = egress_hello_check(rec.p, EGRESS_PEEK_MAX, "allowed.test", &h,
	    &why);
	ok(r == EGRESS_HELLO_BAD && strcmp(why, "not_tls") == 0,
	    "records filling EGRESS_PEEK_MAX exactly, the hello not whole: "
	    "refused (no more may be read)");

	/* Not a hello: refused at the first byte that shows it. */
	raw("G", 1, EGRESS_HELLO_BAD, "plain text (first byte)");
	raw("GET / HTTP/1.1\r\n\r\n", 18, EGRESS_HELLO_BAD, "plain HTTP");
	raw("\x80\x2e\x01\x03\x01", 5, EGRESS_HELLO_BAD, "an SSLv2 hello");
	raw("\x16", 1, EGRESS_HELLO_MORE, "a handshake record's first byte");
	raw("\x16\x02", 2, EGRESS_HELLO_BAD, "record version 2.x");
	raw("\x16\x03\x05", 3, EGRESS_HELLO_BAD, "record version 3.5");
	raw("\x16\x03\x01\x00\x00", 5, EGRESS_HELLO_BAD, "an empty record");
	raw("\x16\x03\x01\x40\x01", 5, EGRESS_HELLO_BAD, "a record over 2^14");
	raw("\x15\x03\x01\x00\x02\x02\x28", 7, EGRESS_HELLO_BAD, "an alert");
	raw("\x17\x03\x03\x00\x01\x00", 6, EGRESS_HELLO_BAD, "application data");
	raw("\x16\x03\x01\x00\x01\x02", 6, EGRESS_HELLO_BAD,
	    "a handshake message of another type");
	raw("\x16\x03\x01\x00\x01\x01\x15\x03\x03\x00\x02\x02\x28", 13,
	    EGRESS_HELLO_BAD, "an alert between the pieces of a hello");
	raw("\x16\x03\x01\x00\x04\x01\x00\x00\x00", 9, EGRESS_HELLO_BAD,
	    "an empty ClientHello");
	return tap_done();
}
