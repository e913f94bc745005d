/*
 * alx_signed.c: signed objects, the one container for everything signed
 * (protocol.md section 3).
 *
 *	{"v":1,"t":TYPE,"key":B64(pk),"body":B64(bytes),"sig":B64(sig)}
 *	sig = Ed25519("airlox/v1/" || TYPE || 0x00 || body)
 */
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/json.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"
#include "alx_int.h"

struct alx_typelimit {
	const char	*type;
	size_t		 max;
};
static const struct alx_typelimit alx_typelimits[] = {
	{ "manifest",	ALX_MANIFEST_BODY_MAX },
	{ "cert",	ALX_SMALL_BODY_MAX },
	{ "item",	ALX_ITEM_BODY_MAX },
	{ "claim",	ALX_SMALL_BODY_MAX },
	{ "announce",	ALX_SMALL_BODY_MAX },
	{ "close",	ALX_SMALL_BODY_MAX },
	{ "code-open",	ALX_SMALL_BODY_MAX },
	{ "code-fail",	ALX_SMALL_BODY_MAX },
};

size_t
alx_signed_max_body(const char *type)
{
	size_t	i;

	for (i = 0; i < sizeof(alx_typelimits) / sizeof(alx_typelimits[0]); i++)
		if (strcmp(alx_typelimits[i].type, type) == 0)
			return alx_typelimits[i].max;
	return 0;
}

/* The largest outer object: the biggest body in base64 plus the rest. */
static size_t
alx_signed_max_raw(void)
{
	return ALX_B64_ENCLEN(ALX_MANIFEST_BODY_MAX) + 512;
}

/* "airlox/v1/" || type, the signature domain. */
static void
alx_signed_domain(char out[32], const char *type)
{
	strcpy(out, "airlox/v1/");
	strcat(out, type);
}

void
alx_signed_free(struct alx_signed *s)
{
	if (s == NULL)
		return;
	free(s->body);
	free(s->raw);
	memset(s, 0, sizeof(*s));
}

int
alx_signed_seal(struct alx_signed *s, const char *type, const void *body,
    size_t len, const struct alx_signkey *key)
{
	struct alx_jw	 w;
	char		 domain[32];
	size_t		 max;
	int		 r;

	memset(s, 0, sizeof(*s));
	if ((max = alx_signed_max_body(type)) == 0)
		return ALX_ERR_INVALID;
	if (len > max)
		return ALX_ERR_TOO_LARGE;
	alx_signed_domain(domain, type);
	if ((r = alx_sign_parts(s->sig, domain, body, len, NULL, 0,
	    key)) != ALX_OK)
		return r;
	strcpy(s->type, type);
	memcpy(s->key, key->pk, sizeof(s->key));
	if ((s->body = malloc(len + 1)) == NULL)
		return ALX_ERR_NOMEM;
	memcpy(s->body, body, len);
	s->body[len] = '\0';
	s->body_len = len;

	alx_jw_init(&w, alx_signed_max_raw());
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "v", ALX_PROTO_VERSION);
	alx_jw_kstr(&w, "t", type);
	alx_jw_kb64(&w, "key", s->key, sizeof(s->key));
	alx_jw_kb64(&w, "body", s->body, s->body_len);
	alx_jw_kb64(&w, "sig", s->sig, sizeof(s->sig));
	alx_jw_obj_end(&w);
	if ((r = alx_jw_finish(&w, &s->raw, &s->raw_len)) != ALX_OK) {
		alx_signed_free(s);
		return r;
	}
	return ALX_OK;
}

/* The outer object has exactly the five members, each once. */
static int
alx_signed_check_members(const struct alx_json *j)
{
	static const char *names[] = { "v", "t", "key", "body", "sig" };
	int		 i, n, k, v, found;
	size_t		 m;

	if (alx_json_type(j, 0) != ALX_JSON_OBJECT)
		return ALX_ERR_TYPE;
	n = alx_json_obj_len(j, 0);
	if (n != 5)
		return n < 5 ? ALX_ERR_MISSING : ALX_ERR_INVALID;
	for (i = 0; i < n; i++) {
		if (alx_json_obj_at(j, 0, i, &k, &v) != ALX_OK)
			return ALX_ERR_INVALID;
		found = 0;
		for (m = 0; m < sizeof(names) / sizeof(names[0]); m++)
			if (alx_json_str_eq(j, k, names[m]))
				found = 1;
		if (!found)
			return ALX_ERR_INVALID;
	}
	return ALX_OK;
}

int
alx_signed_parse(struct alx_signed *s, const char *json, size_t len)
{
	struct alx_json_limits	 lim;
	struct alx_json		*j = NULL;
	char			*type = NULL;
	int64_t			 v;
	size_t			 max;
	int			 r;

	memset(s, 0, sizeof(*s));
	if (len > alx_signed_max_raw())
		return ALX_ERR_TOO_LARGE;
	lim.max_bytes = alx_signed_max_raw();
	lim.max_depth = 2;
	lim.max_tokens = 16;
	if ((r = alx_json_parse(&j, json, len, &lim)) != ALX_OK)
		return r;
	if ((r = alx_signed_check_members(j)) != ALX_OK)
		goto out;
	if ((r = alx_json_get_int(j, 0, "v", &v, 0, ALX_JSON_INT_MAX)) != ALX_OK)
		goto out;
	if (v != ALX_PROTO_VERSION) {
		r = ALX_ERR_VERSION;
		goto out;
	}
	if ((r = alx_json_get_str(j, 0, "t", &type, ALX_TYPE_MAX)) != ALX_OK)
		goto out;
	if ((max = alx_signed_max_body(type)) == 0) {
		r = ALX_ERR_INVALID;
		goto out;
	}
	strcpy(s->type, type);
	if ((r = alx_json_get_b64(j, 0, "key", s->key, sizeof(s->key))) != ALX_OK ||
	    (r = alx_json_get_b64(j, 0, "sig", s->sig, sizeof(s->sig))) != ALX_OK ||
	    (r = alx_json_get_b64_alloc(j, 0, "body", &s->body, &s->body_len,
	    max)) != ALX_OK)
		goto out;
	if ((s->raw = malloc(len + 1)) == NULL) {
		r = ALX_ERR_NOMEM;
		goto out;
	}
	memcpy(s->raw, json, len);
	s->raw[len] = '\0';
	s->raw_len = len;
	r = ALX_OK;
out:
	free(type);
	alx_json_free(j);
	if (r != ALX_OK)
		alx_signed_free(s);
	return r;
}

int
alx_signed_verify(const struct alx_signed *s, const char *type,
    const uint8_t trusted[ALX_SIGN_PK_LEN])
{
	char	domain[32];

	if (strcmp(s->type, type) != 0)
		return ALX_ERR_INVALID;
	if (!alx_ct_eq(s->key, trusted, ALX_SIGN_PK_LEN))
		return ALX_ERR_UNKNOWN_KEY;
	alx_signed_domain(domain, type);
	return alx_verify_parts(s->sig, domain, s->body, s->body_len, NULL, 0,
	    s->key);
}

int
alx_signed_open(struct alx_signed *s, const char *json, size_t len,
    const char *type, const uint8_t trusted[ALX_SIGN_PK_LEN])
{
	int	r;

	if ((r = alx_signed_parse(s, json, len)) != ALX_OK)
		return r;
	if ((r = alx_signed_verify(s, type, trusted)) != ALX_OK)
		alx_signed_free(s);
	return r;
}

void
alx_signed_hash(const struct alx_signed *s, uint8_t out[ALX_HASH_LEN])
{
	struct alx_sha256_ctx	ctx;
	static const char	dom[] = "airlox/v1/hash";

	alx_sha256_init(&ctx);
	alx_sha256_update(&ctx, dom, sizeof(dom));	/* with its 0x00 */
	alx_sha256_update(&ctx, s->type, strlen(s->type) + 1);
	alx_sha256_update(&ctx, s->body, s->body_len);
	alx_sha256_final(&ctx, out);
}

int
alx_strlist_decode(const struct alx_json *j, int arr, size_t max,
    size_t maxlen, int (*valid)(const char *), char ***out, size_t *np)
{
	int	i, n, r;

	if ((n = alx_json_arr_len(j, arr)) < 0)
		return ALX_ERR_TYPE;
	if ((size_t)n > max)
		return ALX_ERR_TOO_LARGE;
	*np = 0;
	if (n == 0)
		return ALX_OK;
	if ((*out = calloc((size_t)n, sizeof(char *))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		size_t	len;
		if ((r = alx_json_str(j, alx_json_arr_at(j, arr, i),
		    &(*out)[i], &len)) != ALX_OK)
			return r;
		(*np)++;
		if (len > maxlen)
			return ALX_ERR_TOO_LARGE;
		if (valid != NULL && !valid((*out)[i]))
			return ALX_ERR_BAD_NAME;
	}
	return ALX_OK;
}

void
alx_be64(uint8_t out[8], uint64_t v)
{
	int	i;

	for (i = 0; i < 8; i++)
		out[i] = (uint8_t)(v >> (56 - 8 * i));
}

int
alx_body_begin(struct alx_json **jp, const uint8_t *body, size_t len,
    size_t max)
{
	return alx_body_begin_v(jp, body, len, max, ALX_PROTO_VERSION);
}

int
alx_body_begin_v(struct alx_json **jp, const uint8_t *body, size_t len,
    size_t max, int64_t version)
{
	struct alx_json_limits	lim = { max, 8, 4096 };
	int64_t			v;
	int			r;

	*jp = NULL;
	if ((r = alx_json_parse(jp, (const char *)body, len, &lim)) != ALX_OK)
		return r;
	if (alx_json_type(*jp, 0) != ALX_JSON_OBJECT)
		r = ALX_ERR_TYPE;
	else if ((r = alx_json_get_int(*jp, 0, "v", &v, 0,
	    ALX_JSON_INT_MAX)) == ALX_OK && v != version)
		r = ALX_ERR_VERSION;
	if (r != ALX_OK) {
		alx_json_free(*jp);
		*jp = NULL;
	}
	return r;
}

int
alx_body_sid(const struct alx_json *j, const uint8_t want[ALX_SID_LEN])
{
	uint8_t	sid[ALX_SID_LEN];
	int	r;

	if ((r = alx_json_get_b64(j, 0, "sid", sid, sizeof(sid))) != ALX_OK)
		return r;
	if (want != NULL && !alx_ct_eq(sid, want, ALX_SID_LEN))
		return ALX_ERR_WRONG_SESSION;
	return ALX_OK;
}

int
alx_b64list_decode(const struct alx_json *j, int obj, const char *key,
    size_t each, size_t max, uint8_t **out, size_t *np)
{
	char	*s = NULL;
	int	 arr, i, n, r;

	*np = 0;
	if ((arr = alx_json_obj_get(j, obj, key)) < 0)
		return ALX_ERR_MISSING;
	if ((n = alx_json_arr_len(j, arr)) < 0)
		return ALX_ERR_TYPE;
	if ((size_t)n > max)
		return ALX_ERR_TOO_LARGE;
	if (n == 0)
		return ALX_OK;
	if ((*out = calloc((size_t)n, each)) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		if ((r = alx_json_str(j, alx_json_arr_at(j, arr, i), &s,
		    NULL)) != ALX_OK)
			return r;
		r = alx_b64_decode_exact(*out + (size_t)i * each, each, s,
		    strlen(s));
		free(s);
		if (r != ALX_OK)
			return r;
		(*np)++;
	}
	return ALX_OK;
}
