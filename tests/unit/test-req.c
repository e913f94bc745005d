/*
 * test-req.c: signed requests (protocol.md section 9): alx_req_sign,
 * alx_req_sign_hash, alx_req_parse, alx_req_verify, and the vectors in
 * tests/vectors/request.json (made by an independent implementation).
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

#define T0	1767225600

static struct alx_signkey	key_a, key_b;

static void
make_key(struct alx_signkey *k, uint8_t fill)
{
	uint8_t	seed[ALX_SIGN_SEED_LEN];
	size_t	i;

	for (i = 0; i < sizeof(seed); i++)
		seed[i] = (uint8_t)(fill + i);
	if (alx_sign_from_seed(k, seed) != 0)
		abort();
}

static void
body_hash(uint8_t h[ALX_HASH_LEN], const char *body)
{
	alx_sha256(h, body, strlen(body));
}

/* Sign, parse and verify with the given request parts at server time now. */
static int
round_trip(const char *host, const char *vhost, const char *method,
    const char *path, const char *body, int64_t t, int64_t now)
{
	struct alx_reqauth	ra;
	char			hdr[ALX_REQ_HDR_MAX];
	uint8_t			h[ALX_HASH_LEN];
	int			r;

	if ((r = alx_req_sign(hdr, &key_a, host, method, path, body,
	    strlen(body), t)) != 0)
		return r;
	if ((r = alx_req_parse(&ra, hdr)) != 0)
		return r;
	body_hash(h, body);
	return alx_req_verify(&ra, key_a.pk, vhost, method, path, h, now);
}

static void
test_round_trips(void)
{
	const char	*path = "/v1/sessions/EBESExQVFhcYGRobHB0eHw/items";

	is_int(round_trip("relay.example", "relay.example", "POST", path,
	    "{\"v\":1}", T0, T0), 0, "sign, parse, verify");
	is_int(round_trip("Relay.Example:8443", "relay.example:8443", "POST",
	    path, "{}", T0, T0), 0, "host is compared in lower case");
	is_int(round_trip("relay.example", "RELAY.EXAMPLE", "GET", path, "",
	    T0, T0), 0, "verifier's host is lowered too");
	is_int(round_trip("[::1]:8080", "[::1]:8080", "DELETE", path, "", T0,
	    T0), 0, "IPv6 host");
	is_int(round_trip("relay.example", "relay.example", "GET", path, "",
	    0, 0), 0, "time 0");
	is_int(round_trip("relay.example", "relay.example", "GET", path, "",
	    T0, T0 + ALX_CLOCK_SKEW), 0, "client 300 s behind");
	is_int(round_trip("relay.example", "relay.example", "GET", path, "",
	    T0, T0 - ALX_CLOCK_SKEW), 0, "client 300 s ahead");
	is_int(round_trip("relay.example", "relay.example", "GET", path, "",
	    T0, T0 + ALX_CLOCK_SKEW + 1), ALX_ERR_CLOCK_SKEW,
	    "client 301 s behind: clock_skew");
	is_int(round_trip("relay.example", "relay.example", "GET", path, "",
	    T0, T0 - ALX_CLOCK_SKEW - 1), ALX_ERR_CLOCK_SKEW,
	    "client 301 s ahead: clock_skew");
	is_int(round_trip("relay.example", "relay.example", "GET", path, "",
	    T0, INT64_MIN), ALX_ERR_CLOCK_SKEW, "extreme server time");
	is_int(round_trip("relay.example", "relay.example", "GET", path, "",
	    T0, INT64_MAX), ALX_ERR_CLOCK_SKEW, "extreme server time (max)");
	is_int(round_trip("relay.example", "other.example", "GET", path, "",
	    T0, T0), ALX_ERR_BAD_SIGNATURE, "tampered host");
	is_int(round_trip("relay.example", "relay.example:443", "GET", path,
	    "", T0, T0), ALX_ERR_BAD_SIGNATURE, "port added to host");
}

static void
test_tamper(void)
{
	struct alx_reqauth	ra, ra2;
	char			hdr[ALX_REQ_HDR_MAX], hdr2[ALX_REQ_HDR_MAX];
	const char		*path = "/v1/sessions/x/log?after=1";
	uint8_t			h[ALX_HASH_LEN], h2[ALX_HASH_LEN];
	unsigned		bit, bad = 0;

	body_hash(h, "{\"a\":1}");
	body_hash(h2, "{\"a\":2}");
	is_int(alx_req_sign_hash(hdr, &key_a, "relay.example", "PUT", path, h,
	    T0), 0, "sign_hash");
	is_int(alx_req_sign(hdr2, &key_a, "relay.example", "PUT", path,
	    "{\"a\":1}", 7, T0), 0, "sign");
	is_str(hdr, hdr2, "sign and sign_hash agree");
	ok(strncmp(hdr, "Airlox v=1,key=", 15) == 0 &&
	    strlen(hdr) == 15 + 22 + 3 + 10 + 5 + 86, "header shape");
	is_int(alx_req_parse(&ra, hdr), 0, "parse");
	is_int(alx_req_verify(&ra, key_a.pk, "relay.example", "PUT", path, h,
	    T0), 0, "verifies");
	is_int(alx_req_verify(&ra, key_a.pk, "relay.example", "POST", path, h,
	    T0), ALX_ERR_BAD_SIGNATURE, "tampered method");
	is_int(alx_req_verify(&ra, key_a.pk, "relay.example", "PUT",
	    "/v1/sessions/x/log?after=2", h, T0), ALX_ERR_BAD_SIGNATURE,
	    "tampered query");
	is_int(alx_req_verify(&ra, key_a.pk, "relay.example", "PUT",
	    "/v1/sessions/y/log?after=1", h, T0), ALX_ERR_BAD_SIGNATURE,
	    "tampered path");
	is_int(alx_req_verify(&ra, key_a.pk, "relay.example", "PUT", path, h2,
	    T0), ALX_ERR_BAD_SIGNATURE, "tampered body");
	is_int(alx_req_verify(&ra, key_b.pk, "relay.example", "PUT", path, h,
	    T0), ALX_ERR_UNKNOWN_KEY, "wrong key: unknown_key");

	ra2 = ra;
	ra2.time++;
	is_int(alx_req_verify(&ra2, key_a.pk, "relay.example", "PUT", path, h,
	    T0), ALX_ERR_BAD_SIGNATURE, "tampered time");
	ra2 = ra;
	ra2.fp[3] ^= 0x10;
	is_int(alx_req_verify(&ra2, key_a.pk, "relay.example", "PUT", path, h,
	    T0), ALX_ERR_UNKNOWN_KEY, "tampered key fingerprint");
	for (bit = 0; bit < ALX_SIG_LEN * 8; bit++) {
		ra2 = ra;
		ra2.sig[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (alx_req_verify(&ra2, key_a.pk, "relay.example", "PUT",
		    path, h, T0) != ALX_ERR_BAD_SIGNATURE)
			bad++;
	}
	is_int(bad, 0, "every one of 512 signature bit flips is refused");

	/* Inputs that could make two requests sign the same string. */
	is_int(alx_req_sign(hdr, &key_a, "relay.example\nGET", "PUT", path,
	    "", 0, T0), ALX_ERR_INVALID, "newline in host refused");
	is_int(alx_req_sign(hdr, &key_a, "relay.example", "P\nUT", path,
	    "", 0, T0), ALX_ERR_INVALID, "newline in method refused");
	is_int(alx_req_sign(hdr, &key_a, "relay.example", "get", path,
	    "", 0, T0), ALX_ERR_INVALID, "lower-case method refused");
	is_int(alx_req_sign(hdr, &key_a, "relay.example", "PUT", "/a\nb",
	    "", 0, T0), ALX_ERR_INVALID, "newline in path refused");
	is_int(alx_req_sign(hdr, &key_a, "relay.example", "PUT", "/a b",
	    "", 0, T0), ALX_ERR_INVALID, "space in path refused");
	is_int(alx_req_sign(hdr, &key_a, "relay.example", "PUT", "v1/x",
	    "", 0, T0), ALX_ERR_INVALID, "relative path refused");
	is_int(alx_req_sign(hdr, &key_a, "", "PUT", path, "", 0, T0),
	    ALX_ERR_INVALID, "empty host refused");
	is_int(alx_req_sign(hdr, &key_a, "relay/example", "PUT", path, "", 0,
	    T0), ALX_ERR_INVALID, "slash in host refused");
	is_int(alx_req_sign(hdr, &key_a, "relay.example", "PUT", path, "", 0,
	    -1), ALX_ERR_RANGE, "negative time refused");
	is_int(alx_req_sign(hdr, &key_a, "relay.example", "PUT", path, NULL,
	    3, T0), ALX_ERR_INVALID, "NULL body with a length");
	is_str(hdr, "", "failed sign leaves an empty header");
	is_int(alx_req_parse(&ra2, NULL), ALX_ERR_INVALID, "parse NULL");
	is_int(alx_req_verify(&ra, key_a.pk, "relay.example", "PUT", "/a\nb",
	    h, T0), ALX_ERR_INVALID, "verify refuses a newline in path");
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
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode a hex member into a new buffer. */
static uint8_t *
get_hex(const struct alx_json *j, int obj, const char *key, size_t *lenp)
{
	char	*s;
	uint8_t	*out;
	size_t	 i, n;

	if (alx_json_get_str(j, obj, key, &s, 1 << 20) != 0)
		return NULL;
	n = strlen(s);
	if (n % 2 != 0 || (out = malloc(n / 2 + 1)) == NULL) {
		free(s);
		return NULL;
	}
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			free(s);
			free(out);
			return NULL;
		}
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	free(s);
	*lenp = n / 2;
	return out;
}

struct vreq {
	char	*host, *method, *path, *header;
	uint8_t	*body;
	size_t	 bodylen;
	struct alx_signkey key;
};

static void
vreq_free(struct vreq *v)
{
	free(v->host);
	free(v->method);
	free(v->path);
	free(v->header);
	free(v->body);
	alx_sign_wipe(&v->key);
	memset(v, 0, sizeof(*v));
}

static int
vreq_load(const struct alx_json *j, int c, struct vreq *v, int need_key)
{
	uint8_t	*seed;
	size_t	 n;
	int	 r;

	memset(v, 0, sizeof(*v));
	if (alx_json_has(j, c, "host") &&
	    (alx_json_get_str(j, c, "host", &v->host, 1024) != 0 ||
	    alx_json_get_str(j, c, "method", &v->method, 64) != 0 ||
	    alx_json_get_str(j, c, "path", &v->path, 16384) != 0 ||
	    (v->body = get_hex(j, c, "body_hex", &v->bodylen)) == NULL))
		return -1;
	if (alx_json_has(j, c, "header") &&
	    alx_json_get_str(j, c, "header", &v->header, 4096) != 0)
		return -1;
	if (!need_key)
		return 0;
	if ((seed = get_hex(j, c, "seed_hex", &n)) == NULL)
		return -1;
	r = n == ALX_SIGN_SEED_LEN ? alx_sign_from_seed(&v->key, seed) : -1;
	free(seed);
	return r;
}

static int
vec_sign(const struct alx_json *j, int c)
{
	struct vreq	 v;
	char		 hdr[ALX_REQ_HDR_MAX], *want_msg = NULL;
	char		 msg[ALX_REQ_HDR_MAX * 64];
	uint8_t		 h[ALX_HASH_LEN];
	size_t		 wlen;
	int64_t		 t;
	int		 good = 0, tok, n;

	if (vreq_load(j, c, &v, 1) != 0 ||
	    alx_json_get_int(j, c, "t", &t, 0, ALX_JSON_INT_MAX) != 0 ||
	    (tok = alx_json_obj_get(j, c, "message")) < 0 ||
	    alx_json_str(j, tok, &want_msg, &wlen) != 0)
		goto out;
	/* The signed string, rebuilt here from section 9's definition. */
	alx_sha256(h, v.body, v.bodylen);
	{
		char	hb[ALX_B64_ENCLEN(ALX_HASH_LEN) + 1], lhost[1024];
		size_t	i;

		alx_b64_encode(hb, h, ALX_HASH_LEN);
		hb[ALX_B64_ENCLEN(ALX_HASH_LEN)] = '\0';
		for (i = 0; v.host[i] != '\0' && i < sizeof(lhost) - 1; i++)
			lhost[i] = (char)(v.host[i] >= 'A' && v.host[i] <= 'Z' ?
			    v.host[i] + ('a' - 'A') : v.host[i]);
		lhost[i] = '\0';
		n = snprintf(msg, sizeof(msg),
		    "airlox/v1/req%c%s\n%s\n%s\n%s\n%lld", 0, lhost,
		    v.method, v.path, hb, (long long)t);
	}
	if (n < 0 || (size_t)n != wlen || memcmp(msg, want_msg, wlen) != 0)
		goto out;
	if (alx_req_sign(hdr, &v.key, v.host, v.method, v.path, v.body,
	    v.bodylen, t) != 0 || strcmp(hdr, v.header) != 0)
		goto out;
	good = 1;
out:
	free(want_msg);
	vreq_free(&v);
	return good;
}

static int
vec_parse(const struct alx_json *j, int c, const char *err)
{
	struct alx_reqauth	 ra;
	struct vreq		 v;
	uint8_t			 fp[ALX_FP_LEN], sig[ALX_SIG_LEN];
	int64_t			 t;
	int			 r, good = 0;

	if (vreq_load(j, c, &v, 0) != 0 || v.header == NULL)
		goto out;
	r = alx_req_parse(&ra, v.header);
	if (err != NULL) {
		good = r != 0 && strcmp(alx_errname(r), err) == 0;
		goto out;
	}
	if (r != 0 || alx_json_get_b64(j, c, "fp", fp, sizeof(fp)) != 0 ||
	    alx_json_get_b64(j, c, "sig", sig, sizeof(sig)) != 0 ||
	    alx_json_get_int(j, c, "t", &t, 0, ALX_JSON_INT_MAX) != 0)
		goto out;
	good = memcmp(ra.fp, fp, sizeof(fp)) == 0 &&
	    memcmp(ra.sig, sig, sizeof(sig)) == 0 && ra.time == t;
out:
	vreq_free(&v);
	return good;
}

static int
vec_verify(const struct alx_json *j, int c, const char *err)
{
	struct alx_reqauth	ra;
	struct vreq		v;
	uint8_t			h[ALX_HASH_LEN];
	int64_t			now;
	int			r, good = 0;

	if (vreq_load(j, c, &v, 1) != 0 || v.header == NULL ||
	    alx_json_get_int(j, c, "now", &now, 0, ALX_JSON_INT_MAX) != 0 ||
	    alx_req_parse(&ra, v.header) != 0)
		goto out;
	alx_sha256(h, v.body, v.bodylen);
	r = alx_req_verify(&ra, v.key.pk, v.host, v.method, v.path, h, now);
	if (err != NULL)
		good = r != 0 && strcmp(alx_errname(r), err) == 0;
	else
		good = r == 0;
out:
	vreq_free(&v);
	return good;
}

static void
test_vectors(void)
{
	struct alx_json	*j = NULL;
	char		*text, *name, *op, *err;
	size_t		 len;
	int		 cases, i, n, c, good, nops[3] = { 0, 0, 0 };

	if ((text = load_file("request.json", &len)) == NULL) {
		ok(0, "tests/vectors/request.json loads");
		return;
	}
	if (alx_json_parse(&j, text, len, NULL) != 0 ||
	    (cases = alx_json_obj_get(j, 0, "cases")) < 0 ||
	    (n = alx_json_arr_len(j, cases)) <= 0 ||
	    !alx_json_has(j, 0, "description")) {
		ok(0, "request.json has a description and cases");
		goto out;
	}
	for (i = 0; i < n; i++) {
		c = alx_json_arr_at(j, cases, i);
		name = op = err = NULL;
		good = 0;
		if (alx_json_get_str(j, c, "name", &name, 256) != 0 ||
		    alx_json_get_str(j, c, "op", &op, 16) != 0)
			goto next;
		if (alx_json_has(j, c, "error") &&
		    alx_json_get_str(j, c, "error", &err, 64) != 0)
			goto next;
		if (err != NULL && alx_errcode(err) == 0)
			goto next;	/* not a known error name */
		if (strcmp(op, "sign") == 0) {
			good = err == NULL && vec_sign(j, c);
			nops[0]++;
		} else if (strcmp(op, "parse") == 0) {
			good = vec_parse(j, c, err);
			nops[1]++;
		} else if (strcmp(op, "verify") == 0) {
			good = (err != NULL || alx_json_has(j, c, "ok")) &&
			    vec_verify(j, c, err);
			nops[2]++;
		}
next:
		ok(good, "request.json: %s", name != NULL ? name : "(no name)");
		free(name);
		free(op);
		free(err);
	}
	ok(nops[0] >= 5 && nops[1] >= 25 && nops[2] >= 10,
	    "request.json: %d sign, %d parse, %d verify cases", nops[0],
	    nops[1], nops[2]);
out:
	alx_json_free(j);
	free(text);
}

int
main(void)
{
	if (alx_crypto_init() != 0)
		tap_skip_all("crypto init failed");
	make_key(&key_a, 0);
	make_key(&key_b, 0x42);
	test_round_trips();
	test_tamper();
	test_vectors();
	alx_sign_wipe(&key_a);
	alx_sign_wipe(&key_b);
	return tap_done();
}
