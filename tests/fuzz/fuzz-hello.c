/*
 * fuzz-hello.c: libFuzzer target for the egress proxy's ClientHello
 * reader (runnerd/runner-proxy-tls.c), which reads the first bytes of
 * every tunnel a job opens.
 *
 * The first byte picks the CONNECT host from a short list; the rest is
 * the tunnel's first bytes. Invariants, any broken one aborts:
 * - the verdict on the whole input is the one the proxy would reach
 *   reading it in any pieces: every prefix is "more" until the first one
 *   with a verdict, and from there on the verdict does not change;
 * - let through means a ClientHello was read whose name is the host, up
 *   to case and one trailing dot; a refusal names one of the reasons;
 * - a name read is printable ASCII without spaces, NUL-terminated.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runner-proxy.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(x)	do { if (!(x)) abort(); } while (0)

static const char *const hosts[] = {
	"allowed.test", "a.b", "pypi.org", "files.pythonhosted.org",
	"xn--bcher-kva.example",
};

static struct egress_hello	h;

/* The name read, from a hello that was let through, is the host. */
static void
check_name(const char *host)
{
	size_t	sl = strlen(h.sni), i;

	CHECK(h.has_sni && sl > 0 && sl < sizeof h.sni);
	for (i = 0; i < sl; i++)
		CHECK(h.sni[i] > 0x20 && h.sni[i] < 0x7f);
	if (h.sni[sl - 1] == '.')
		sl--;
	CHECK(sl == strlen(host) && strncasecmp(h.sni, host, sl) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*host, *why, *why2;
	size_t		 i, step;
	int		 r, r2, seen;

	if (size < 1 || size > EGRESS_PEEK_MAX + 64)
		return 0;
	host = hosts[data[0] % (sizeof hosts / sizeof hosts[0])];
	data++;
	size--;
	r = egress_hello_check(data, size, host, &h, &why);
	CHECK(r == EGRESS_HELLO_OK || r == EGRESS_HELLO_MORE ||
	    r == EGRESS_HELLO_BAD);
	if (r == EGRESS_HELLO_OK) {
		CHECK(why == NULL);
		check_name(host);
	} else if (r == EGRESS_HELLO_BAD)
		CHECK(why != NULL && (strcmp(why, "not_tls") == 0 ||
		    strcmp(why, "no_sni") == 0 ||
		    strcmp(why, "sni_mismatch") == 0));
	else
		CHECK(why == NULL && size < EGRESS_PEEK_MAX);

	/* Read in pieces (every cut of a short input, 32 of a long one):
	 * "more" until a verdict, then that verdict, the final one. */
	step = size <= 256 ? 1 : size / 32;
	for (i = 1, seen = 0; i < size; i += step) {
		r2 = egress_hello_check(data, i, host, &h, &why2);
		if (r2 == EGRESS_HELLO_MORE) {
			CHECK(!seen);
			continue;
		}
		seen = 1;
		CHECK(r2 == r);
		if (r == EGRESS_HELLO_BAD)
			CHECK(strcmp(why, why2) == 0);
	}
	return 0;
}
