/*
 * alx_req.c: signed HTTP requests (docs/protocol.md section 9).
 *
 * The header value is
 *
 *	Airlox v=1,key=<B64 fp>,t=<decimal time>,sig=<B64 signature>
 *
 * and nothing else: fields in that order, no spaces, no other fields. The
 * signature is Ed25519 over
 *
 *	"airlox/v1/req" 0x00 lower(host) 0x0a METHOD 0x0a path 0x0a
 *	B64(H(body)) 0x0a decimal(t)
 *
 * Host, method and path are checked before anything is signed or verified:
 * none of them may contain the 0x0a separator or any other byte outside
 * their small alphabets, so no two requests share a signed string.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/buf.h"
#include "airlox/crypto.h"
#include "airlox/json.h"
#include "airlox/proto.h"

#define REQ_DOMAIN	"airlox/v1/req"
#define REQ_PREFIX	"Airlox v=1,key="
#define REQ_HOST_MAX	255
#define REQ_METHOD_MAX	16
#define REQ_PATH_MAX	8192
#define REQ_TIME_DIGITS	16		/* 2^53 - 1 has 16 digits */
#define REQ_SIG_STRLEN	86		/* B64 of 64 bytes */
#define REQ_HASH_STRLEN	43		/* B64 of 32 bytes */
#define REQ_MSG_MAX	(REQ_HOST_MAX + REQ_METHOD_MAX + REQ_PATH_MAX + \
			    REQ_HASH_STRLEN + REQ_TIME_DIGITS + 8)

/* Host as sent in the Host header: reg-name or [IPv6], optional :port. */
static int
req_host_char(int c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return 1;
	return c != '\0' && strchr("-._~%!$&'()*+,;=:[]", c) != NULL;
}

static int
req_check_host(const char *host)
{
	size_t	i, len;

	len = strnlen(host, REQ_HOST_MAX + 1);
	if (len == 0 || len > REQ_HOST_MAX)
		return ALX_ERR_INVALID;
	for (i = 0; i < len; i++)
		if (!req_host_char((unsigned char)host[i]))
			return ALX_ERR_INVALID;
	return 0;
}

/* Methods are upper-case tokens (GET, POST, PUT, DELETE, ...). */
static int
req_check_method(const char *method)
{
	size_t	i, len;

	len = strnlen(method, REQ_METHOD_MAX + 1);
	if (len == 0 || len > REQ_METHOD_MAX)
		return ALX_ERR_INVALID;
	for (i = 0; i < len; i++)
		if (method[i] < 'A' || method[i] > 'Z')
			return ALX_ERR_INVALID;
	return 0;
}

/* The raw request target: starts with '/', visible ASCII only. */
static int
req_check_path(const char *path)
{
	size_t	i, len;

	len = strnlen(path, REQ_PATH_MAX + 1);
	if (len == 0 || len > REQ_PATH_MAX || path[0] != '/')
		return ALX_ERR_INVALID;
	for (i = 0; i < len; i++)
		if ((unsigned char)path[i] <= 0x20 ||
		    (unsigned char)path[i] >= 0x7f)
			return ALX_ERR_INVALID;
	return 0;
}

/* The signed string after the domain and its 0x00 separator. */
static int
req_message(struct alx_buf *b, const char *host, const char *method,
    const char *path, const uint8_t bodyhash[ALX_HASH_LEN], int64_t t)
{
	char	hb[REQ_HASH_STRLEN + 1];
	size_t	i;
	int	r;

	if (host == NULL || method == NULL || path == NULL || bodyhash == NULL)
		return ALX_ERR_INVALID;
	if ((r = req_check_host(host)) != 0 ||
	    (r = req_check_method(method)) != 0 ||
	    (r = req_check_path(path)) != 0)
		return r;
	if (t < 0 || t > ALX_JSON_INT_MAX)
		return ALX_ERR_RANGE;
	for (i = 0; host[i] != '\0'; i++) {
		uint8_t	c = (uint8_t)host[i];

		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if ((r = alx_buf_addc(b, c)) != 0)
			return r;
	}
	alx_b64_encode(hb, bodyhash, ALX_HASH_LEN);
	hb[REQ_HASH_STRLEN] = '\0';
	return alx_buf_printf(b, "\n%s\n%s\n%s\n%lld", method, path, hb,
	    (long long)t);
}

int
alx_req_sign_hash(char out[ALX_REQ_HDR_MAX], const struct alx_signkey *k,
    const char *host, const char *method, const char *path,
    const uint8_t bodyhash[ALX_HASH_LEN], int64_t now)
{
	struct alx_buf	b;
	uint8_t		sig[ALX_SIG_LEN];
	char		fp[ALX_FP_STRLEN + 1], sigs[REQ_SIG_STRLEN + 1];
	int		r, n;

	if (out == NULL || k == NULL)
		return ALX_ERR_INVALID;
	out[0] = '\0';
	alx_buf_init(&b, REQ_MSG_MAX);
	if ((r = req_message(&b, host, method, path, bodyhash, now)) != 0)
		goto done;
	if ((r = alx_sign_parts(sig, REQ_DOMAIN, b.data, b.len, NULL, 0,
	    k)) != 0)
		goto done;
	alx_fingerprint_str(fp, k->pk, ALX_SIGN_PK_LEN);
	alx_b64_encode(sigs, sig, ALX_SIG_LEN);
	sigs[REQ_SIG_STRLEN] = '\0';
	n = snprintf(out, ALX_REQ_HDR_MAX, "%s%s,t=%lld,sig=%s", REQ_PREFIX,
	    fp, (long long)now, sigs);
	if (n < 0 || n >= ALX_REQ_HDR_MAX) {
		out[0] = '\0';
		r = ALX_ERR_TOO_LARGE;
	}
done:
	alx_buf_free(&b);
	return r;
}

int
alx_req_sign(char out[ALX_REQ_HDR_MAX], const struct alx_signkey *k,
    const char *host, const char *method, const char *path,
    const void *body, size_t bodylen, int64_t now)
{
	uint8_t	h[ALX_HASH_LEN];

	if (body == NULL && bodylen != 0)
		return ALX_ERR_INVALID;
	alx_sha256(h, bodylen != 0 ? body : "", bodylen);
	return alx_req_sign_hash(out, k, host, method, path, h, now);
}

/* Decimal time: digits only, no sign, no leading zero, at most 2^53 - 1. */
static int
req_parse_time(const char *p, size_t len, int64_t *t)
{
	int64_t	v = 0;
	size_t	i;

	if (len == 0 || len > REQ_TIME_DIGITS || (p[0] == '0' && len > 1))
		return ALX_ERR_INVALID;
	for (i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return ALX_ERR_INVALID;
		v = v * 10 + (p[i] - '0');
	}
	if (v > ALX_JSON_INT_MAX)
		return ALX_ERR_INVALID;
	*t = v;
	return 0;
}

static int
req_parse(struct alx_reqauth *ra, const char *h)
{
	const char	*p, *q;
	size_t		 len;
	int		 r;

	len = strnlen(h, ALX_REQ_HDR_MAX);
	if (len >= ALX_REQ_HDR_MAX)
		return ALX_ERR_INVALID;
	if (strncmp(h, REQ_PREFIX, sizeof(REQ_PREFIX) - 1) != 0)
		return ALX_ERR_INVALID;
	p = h + sizeof(REQ_PREFIX) - 1;
	if ((q = strchr(p, ',')) == NULL || q - p != ALX_FP_STRLEN)
		return ALX_ERR_INVALID;
	if ((r = alx_b64_decode_exact(ra->fp, ALX_FP_LEN, p,
	    ALX_FP_STRLEN)) != 0)
		return r;
	if (strncmp(q, ",t=", 3) != 0)
		return ALX_ERR_INVALID;
	p = q + 3;
	if ((q = strchr(p, ',')) == NULL)
		return ALX_ERR_INVALID;
	if ((r = req_parse_time(p, (size_t)(q - p), &ra->time)) != 0)
		return r;
	if (strncmp(q, ",sig=", 5) != 0)
		return ALX_ERR_INVALID;
	p = q + 5;
	if (strlen(p) != REQ_SIG_STRLEN)
		return ALX_ERR_INVALID;
	return alx_b64_decode_exact(ra->sig, ALX_SIG_LEN, p, REQ_SIG_STRLEN);
}

int
alx_req_parse(struct alx_reqauth *ra, const char *header)
{
	int	r;

	if (ra == NULL)
		return ALX_ERR_INVALID;
	memset(ra, 0, sizeof(*ra));
	if (header == NULL)
		return ALX_ERR_INVALID;
	if ((r = req_parse(ra, header)) != 0)
		memset(ra, 0, sizeof(*ra));
	return r;
}

/* |a - b| without overflow. */
static uint64_t
req_distance(int64_t a, int64_t b)
{
	return a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

int
alx_req_verify(const struct alx_reqauth *ra, const uint8_t pk[ALX_SIGN_PK_LEN],
    const char *host, const char *method, const char *path,
    const uint8_t bodyhash[ALX_HASH_LEN], int64_t now)
{
	struct alx_buf	b;
	uint8_t		fp[ALX_FP_LEN];
	int		r;

	if (ra == NULL || pk == NULL)
		return ALX_ERR_INVALID;
	if (req_distance(ra->time, now) > ALX_CLOCK_SKEW)
		return ALX_ERR_CLOCK_SKEW;
	alx_fingerprint(fp, pk, ALX_SIGN_PK_LEN);
	if (!alx_ct_eq(fp, ra->fp, ALX_FP_LEN))
		return ALX_ERR_UNKNOWN_KEY;
	alx_buf_init(&b, REQ_MSG_MAX);
	if ((r = req_message(&b, host, method, path, bodyhash,
	    ra->time)) == 0)
		r = alx_verify_parts(ra->sig, REQ_DOMAIN, b.data, b.len, NULL,
		    0, pk);
	alx_buf_free(&b);
	return r;
}
