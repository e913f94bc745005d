/*
 * test-invite.c: invite links (protocol.md section 2): alx_invite_parse,
 * alx_invite_format, alx_invite_base_url, alx_invite_wipe, and the
 * vectors in tests/vectors/invite.json.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/crypto.h"
#include "airlox/json.h"
#include "airlox/proto.h"
#include "tap.h"

#define SID	"EBESExQVFhcYGRobHB0eHw"
#define SEED	"oKGio6SlpqeoqaqrrK2ur7CxsrO0tba3uLm6u7y9vr8"

static int
all_zero(const void *p, size_t n)
{
	const uint8_t	*b = p;
	size_t		 i;

	for (i = 0; i < n; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

static void
test_round_trip(void)
{
	struct alx_invite	 inv;
	const char		*link = "https://relay.example:8443/s/" SID
	    "#1.runner." SEED;
	char			*out = NULL, base[64];
	size_t			 i;

	is_int(alx_invite_parse(&inv, link), 0, "parse");
	ok(inv.https == 1 && inv.port == 8443 &&
	    strcmp(inv.host, "relay.example") == 0 &&
	    inv.role == ALX_ROLE_RUNNER, "fields");
	for (i = 0; i < ALX_SID_LEN; i++)
		if (inv.sid[i] != 0x10 + i)
			break;
	ok(i == ALX_SID_LEN, "sid bytes");
	for (i = 0; i < ALX_SEED_LEN; i++)
		if (inv.seed[i] != 0xa0 + i)
			break;
	ok(i == ALX_SEED_LEN, "seed bytes");
	is_int(alx_invite_format(&inv, &out), 0, "format");
	is_str(out, link, "format gives the link back");
	if (out != NULL) {
		alx_wipe(out, strlen(out));
		free(out);
	}
	is_int(alx_invite_base_url(&inv, base, sizeof(base)), 0, "base url");
	is_str(base, "https://relay.example:8443", "base url text");
	is_int(alx_invite_base_url(&inv, base, 26), ALX_ERR_TOO_LARGE,
	    "base url too small a buffer");
	is_str(base, "", "base url cleared on failure");
	inv.https = 0;
	inv.port = 0;
	is_int(alx_invite_base_url(&inv, base, sizeof(base)), 0,
	    "base url http");
	is_str(base, "http://relay.example", "base url without a port");

	alx_invite_wipe(&inv);
	ok(all_zero(&inv, sizeof(inv)), "wipe clears the invite");
}

static void
test_format_errors(void)
{
	struct alx_invite	 inv;
	char			*out = (char *)1;

	memset(&inv, 0, sizeof(inv));
	inv.https = 1;
	strcpy(inv.host, "relay.example");
	inv.role = ALX_ROLE_COUNT;
	is_int(alx_invite_format(&inv, &out), ALX_ERR_INVALID, "bad role");
	ok(out == NULL, "no output on failure");
	inv.role = -1;
	is_int(alx_invite_format(&inv, &out), ALX_ERR_INVALID,
	    "negative role");
	inv.role = ALX_ROLE_SENDER;
	strcpy(inv.host, "Relay.example");
	is_int(alx_invite_format(&inv, &out), ALX_ERR_INVALID,
	    "host not in canonical (lower) case");
	strcpy(inv.host, "relay.example/x");
	is_int(alx_invite_format(&inv, &out), ALX_ERR_INVALID,
	    "host with a slash");
	strcpy(inv.host, "");
	is_int(alx_invite_format(&inv, &out), ALX_ERR_INVALID, "empty host");
	memset(inv.host, 'a', sizeof(inv.host));
	is_int(alx_invite_format(&inv, &out), ALX_ERR_INVALID,
	    "host without a terminator");
	strcpy(inv.host, "[::1]");
	inv.port = 65535;
	is_int(alx_invite_format(&inv, &out), 0, "IPv6 host formats");
	ok(out != NULL && strncmp(out, "https://[::1]:65535/s/", 22) == 0,
	    "IPv6 host keeps its brackets");
	free(out);
}

static void
test_failure_wipes(void)
{
	struct alx_invite	inv;

	memset(&inv, 0x5a, sizeof(inv));
	/* Everything valid up to a bad seed: nothing may be left behind. */
	is_int(alx_invite_parse(&inv, "https://relay.example/s/" SID
	    "#1.owner." SEED "A"), ALX_ERR_BAD_INVITE, "over-long seed");
	ok(all_zero(&inv, sizeof(inv)), "failed parse leaves a zeroed invite");
	is_int(alx_invite_parse(&inv, NULL), ALX_ERR_BAD_INVITE, "NULL link");
	is_int(alx_invite_parse(NULL, "x"), ALX_ERR_INVALID, "NULL invite");
}

/*
 * Vectors.
 */

static char *
load_file(const char *name, size_t *lenp)
{
	const char	*srcdir = getenv("srcdir");
	char		 path[1024], *buf;
	FILE		*f;
	long		 n;

	snprintf(path, sizeof(path), "%s/tests/vectors/%s",
	    srcdir != NULL ? srcdir : ".", name);
	if ((f = fopen(path, "rb")) == NULL) {
		snprintf(path, sizeof(path), "%s/../../tests/vectors/%s",
		    srcdir != NULL ? srcdir : ".", name);
		if ((f = fopen(path, "rb")) == NULL)
			return NULL;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 ||
	    (buf = malloc((size_t)n + 1)) == NULL) {
		fclose(f);
		return NULL;
	}
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*lenp = (size_t)n;
	return buf;
}

static int
hex_eq(const struct alx_json *j, int c, const char *key, const uint8_t *want,
    size_t n)
{
	char	*s, tmp[3];
	size_t	 i;
	int	 good;

	if (alx_json_get_str(j, c, key, &s, 2 * n) != 0)
		return 0;
	good = strlen(s) == 2 * n;
	for (i = 0; good && i < n; i++) {
		snprintf(tmp, sizeof(tmp), "%02x", want[i]);
		good = memcmp(s + 2 * i, tmp, 2) == 0;
	}
	free(s);
	return good;
}

static int
vec_case(const struct alx_json *j, int c, int *negative)
{
	struct alx_invite	 inv;
	char			*link = NULL, *err = NULL, *host = NULL;
	char			*role = NULL, *fmt = NULL, *out = NULL;
	int64_t			 port;
	int			 https, r, good = 0;

	if (alx_json_get_str(j, c, "link", &link, 4096) != 0)
		goto out;
	r = alx_invite_parse(&inv, link);
	if (alx_json_has(j, c, "error")) {
		*negative = 1;
		if (alx_json_get_str(j, c, "error", &err, 64) == 0)
			good = r != 0 && strcmp(alx_errname(r), err) == 0 &&
			    all_zero(&inv, sizeof(inv));
		goto out;
	}
	if (r != 0 ||
	    alx_json_get_bool(j, c, "https", &https) != 0 ||
	    alx_json_get_str(j, c, "host", &host, 300) != 0 ||
	    alx_json_get_int(j, c, "port", &port, 0, 65535) != 0 ||
	    alx_json_get_str(j, c, "role", &role, 16) != 0 ||
	    alx_json_get_str(j, c, "format", &fmt, 4096) != 0)
		goto out;
	good = https == inv.https && strcmp(host, inv.host) == 0 &&
	    port == inv.port && strcmp(role, alx_role_name(inv.role)) == 0 &&
	    hex_eq(j, c, "sid_hex", inv.sid, ALX_SID_LEN) &&
	    hex_eq(j, c, "seed_hex", inv.seed, ALX_SEED_LEN) &&
	    alx_invite_format(&inv, &out) == 0 && strcmp(out, fmt) == 0;
out:
	alx_invite_wipe(&inv);
	free(link);
	free(err);
	free(host);
	free(role);
	free(fmt);
	free(out);
	return good;
}

static void
test_vectors(void)
{
	struct alx_json	*j = NULL;
	char		*text, *name;
	size_t		 len;
	int		 cases, i, n, c, neg, nneg = 0;

	if ((text = load_file("invite.json", &len)) == NULL) {
		ok(0, "tests/vectors/invite.json loads");
		return;
	}
	if (alx_json_parse(&j, text, len, NULL) != 0 ||
	    (cases = alx_json_obj_get(j, 0, "cases")) < 0 ||
	    (n = alx_json_arr_len(j, cases)) <= 0 ||
	    !alx_json_has(j, 0, "description")) {
		ok(0, "invite.json has a description and cases");
		goto out;
	}
	for (i = 0; i < n; i++) {
		c = alx_json_arr_at(j, cases, i);
		name = NULL;
		neg = 0;
		if (alx_json_get_str(j, c, "name", &name, 256) != 0) {
			ok(0, "invite.json: case %d has a name", i);
			continue;
		}
		ok(vec_case(j, c, &neg), "invite.json: %s", name);
		nneg += neg;
		free(name);
	}
	ok(nneg >= 25 && n - nneg >= 10,
	    "invite.json: %d malformed links, %d good ones", nneg, n - nneg);
out:
	alx_json_free(j);
	free(text);
}

/* host[:port] on its own, as the relay's --public-name takes it. */
static void
test_authority(void)
{
	static const struct {
		const char	*in;
		const char	*host;		/* NULL: refused */
		int		 port;
	} t[] = {
		{ "Relay.Example.COM", "relay.example.com", 0 },
		{ "relay.example.com:8443", "relay.example.com", 8443 },
		{ "127.0.0.1:8080", "127.0.0.1", 8080 },
		{ "[::1]", "[::1]", 0 },
		{ "[::1]:443", "[::1]", 443 },
		{ "relay.example.com:0", NULL, 0 },
		{ "relay.example.com:99999", NULL, 0 },
		{ "relay.example.com:08", NULL, 0 },
		{ "user@relay.example.com", NULL, 0 },
		{ "relay example", NULL, 0 },
		{ "-relay.example", NULL, 0 },
		{ "[::1", NULL, 0 },
		{ "", NULL, 0 },
	};
	char		host[256];
	uint16_t	port;
	size_t		i;
	int		r;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		r = alx_authority_parse(t[i].in, host, sizeof(host), &port);
		if (t[i].host == NULL)
			ok(r == ALX_ERR_INVALID && host[0] == '\0',
			    "authority \"%s\": refused", t[i].in);
		else
			ok(r == ALX_OK && strcmp(host, t[i].host) == 0 &&
			    port == t[i].port, "authority \"%s\": %s port %d",
			    t[i].in, t[i].host, t[i].port);
	}
}

int
main(void)
{
	if (alx_crypto_init() != 0)
		tap_skip_all("crypto init failed");
	test_round_trip();
	test_format_errors();
	test_failure_wipes();
	test_vectors();
	test_authority();
	return tap_done();
}
