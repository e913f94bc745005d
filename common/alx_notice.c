/*
 * alx_notice.c: the small signed objects (docs/protocol.md sections 8.2
 * and 14): claim and announce, signed by a runner's participant key, and
 * the notices close, code-open and code-fail, signed by the owner's
 * participant key.
 *
 * Opening verifies the outer object first (type, trusted key, signature:
 * alx_signed_open), then decodes the body: v = 1, sid equal to the
 * caller's (ALX_ERR_WRONG_SESSION), the runner member of a claim or an
 * announce equal to fp(signing key) (ALX_ERR_NOT_SIGNED), names and
 * labels valid (ALX_ERR_BAD_NAME), slots 1..64. Unknown body members are
 * ignored (section 15).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/code.h"
#include "airlox/json.h"
#include "airlox/proto.h"
#include "alx_int.h"

#define NOTICE_SLOTS_MAX	64

/* Seal body into obj, replacing what obj held only on success. */
static int
notice_seal(struct alx_signed *obj, const char *type, struct alx_jw *w,
    const struct alx_signkey *k)
{
	struct alx_signed	 tmp;
	char			*body;
	size_t			 len;
	int			 r;

	alx_jw_obj_end(w);
	if ((r = alx_jw_finish(w, &body, &len)) != 0)
		return r;
	r = alx_signed_seal(&tmp, type, body, len, k);
	free(body);
	if (r != 0)
		return r;
	alx_signed_free(obj);
	*obj = tmp;
	return 0;
}

/* {"v":1,"sid":...: the start every body shares. */
static void
notice_begin(struct alx_jw *w, const uint8_t sid[ALX_SID_LEN])
{
	alx_jw_init(w, ALX_SMALL_BODY_MAX);
	alx_jw_obj_begin(w);
	alx_jw_kint(w, "v", ALX_PROTO_VERSION);
	alx_jw_kb64(w, "sid", sid, ALX_SID_LEN);
}

static int
notice_time_ok(int64_t t)
{
	return t >= 0 && t <= ALX_JSON_INT_MAX;
}

/* Open obj as type with pk, then begin its body and check v and sid. */
static int
notice_open_body(struct alx_signed *obj, struct alx_json **jp,
    const char *json, size_t len, const char *type,
    const uint8_t sid[ALX_SID_LEN], const uint8_t pk[ALX_SIGN_PK_LEN])
{
	int	r;

	*jp = NULL;
	if (json == NULL || type == NULL || sid == NULL || pk == NULL)
		return ALX_ERR_INVALID;
	if ((r = alx_signed_open(obj, json, len, type, pk)) != 0)
		return r;
	if ((r = alx_body_begin(jp, obj->body, obj->body_len,
	    ALX_SMALL_BODY_MAX)) != 0)
		return r;
	if ((r = alx_body_sid(*jp, sid)) != 0) {
		alx_json_free(*jp);
		*jp = NULL;
	}
	return r;
}

/* The body's runner fp must be the signer's. */
static int
notice_runner(const struct alx_json *j, const uint8_t pk[ALX_SIGN_PK_LEN],
    uint8_t runner[ALX_FP_LEN])
{
	uint8_t	fp[ALX_FP_LEN];
	int	r;

	if ((r = alx_json_get_b64(j, 0, "runner", runner, ALX_FP_LEN)) != 0)
		return r;
	alx_fingerprint(fp, pk, ALX_SIGN_PK_LEN);
	return alx_ct_eq(fp, runner, ALX_FP_LEN) ? 0 : ALX_ERR_NOT_SIGNED;
}

/*
 * Claims.
 */

int
alx_claim_sign(struct alx_claim *c, const struct alx_signkey *k)
{
	struct alx_jw	w;

	if (c == NULL || k == NULL)
		return ALX_ERR_INVALID;
	if (!notice_time_ok(c->time))
		return ALX_ERR_RANGE;
	alx_fingerprint(c->runner, k->pk, ALX_SIGN_PK_LEN);
	notice_begin(&w, c->sid);
	alx_jw_kb64(&w, "job", c->job, ALX_ID_LEN);
	alx_jw_kb64(&w, "runner", c->runner, ALX_FP_LEN);
	alx_jw_kint(&w, "time", c->time);
	return notice_seal(&c->obj, "claim", &w, k);
}

int
alx_claim_open(struct alx_claim *c, const char *json, size_t len,
    const uint8_t sid[ALX_SID_LEN], const uint8_t pk[ALX_SIGN_PK_LEN])
{
	struct alx_json	*j;
	int		 r;

	if (c == NULL)
		return ALX_ERR_INVALID;
	memset(c, 0, sizeof(*c));
	if ((r = notice_open_body(&c->obj, &j, json, len, "claim", sid,
	    pk)) == 0) {
		memcpy(c->sid, sid, ALX_SID_LEN);
		if ((r = alx_json_get_b64(j, 0, "job", c->job,
		    ALX_ID_LEN)) == 0 &&
		    (r = notice_runner(j, pk, c->runner)) == 0)
			r = alx_json_get_int(j, 0, "time", &c->time, 0,
			    ALX_JSON_INT_MAX);
		alx_json_free(j);
	}
	if (r != 0)
		alx_claim_free(c);
	return r;
}

void
alx_claim_free(struct alx_claim *c)
{
	if (c == NULL)
		return;
	alx_signed_free(&c->obj);
	memset(c, 0, sizeof(*c));
}

/*
 * Announcements.
 */

/* [a-z0-9] then up to max - 1 of [a-z0-9._-] (plus A-Z when upper). */
static int
notice_token_valid(const char *s, size_t max, int upper)
{
	size_t	i, len;
	int	c;

	len = strnlen(s, max + 1);
	if (len == 0 || len > max)
		return 0;
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    (upper && c >= 'A' && c <= 'Z'))
			continue;
		if (i > 0 && c != '\0' && strchr(upper ? "._+-" : "._-", c))
			continue;
		return 0;
	}
	return 1;
}

static int
notice_labels_valid(char *const *labels, size_t n)
{
	size_t	i, k;

	if (n > ALX_MAX_LABELS)
		return ALX_ERR_TOO_LARGE;
	if (labels == NULL && n != 0)
		return ALX_ERR_INVALID;
	for (i = 0; i < n; i++) {
		if (labels[i] == NULL || !alx_name_valid(labels[i]))
			return ALX_ERR_BAD_NAME;
		for (k = 0; k < i; k++)
			if (strcmp(labels[k], labels[i]) == 0)
				return ALX_ERR_INVALID;
	}
	return 0;
}

/* Every field an announcement carries, checked before signing and after
 * decoding. */
static int
notice_announce_valid(const struct alx_announce *a)
{
	int	r;

	if (memchr(a->name, '\0', sizeof(a->name)) == NULL ||
	    !alx_name_valid(a->name))
		return ALX_ERR_BAD_NAME;
	if ((r = notice_labels_valid(a->labels, a->nlabels)) != 0)
		return r;
	if (a->slots < 1 || a->slots > NOTICE_SLOTS_MAX ||
	    !notice_time_ok(a->time))
		return ALX_ERR_RANGE;
	if (a->kinds == 0 ||
	    (a->kinds & ~(unsigned)(ALX_JOBKIND_SHELL | ALX_JOBKIND_PYTHON)))
		return ALX_ERR_INVALID;
	if (!notice_token_valid(a->sandbox, sizeof(a->sandbox) - 1, 0) ||
	    !notice_token_valid(a->version, sizeof(a->version) - 1, 1))
		return ALX_ERR_INVALID;
	return 0;
}

int
alx_announce_sign(struct alx_announce *a, const struct alx_signkey *k)
{
	struct alx_jw	w;
	unsigned	kind;
	size_t		i;
	int		r;

	if (a == NULL || k == NULL)
		return ALX_ERR_INVALID;
	if ((r = notice_announce_valid(a)) != 0)
		return r;
	alx_fingerprint(a->runner, k->pk, ALX_SIGN_PK_LEN);
	notice_begin(&w, a->sid);
	alx_jw_kb64(&w, "runner", a->runner, ALX_FP_LEN);
	alx_jw_kstr(&w, "name", a->name);
	alx_jw_key(&w, "labels");
	alx_jw_arr_begin(&w);
	for (i = 0; i < a->nlabels; i++)
		alx_jw_str(&w, a->labels[i]);
	alx_jw_arr_end(&w);
	alx_jw_kint(&w, "slots", a->slots);
	alx_jw_key(&w, "kinds");
	alx_jw_arr_begin(&w);
	for (kind = ALX_JOBKIND_SHELL; kind <= ALX_JOBKIND_PYTHON; kind <<= 1)
		if (a->kinds & kind)
			alx_jw_str(&w, alx_job_kind_name(kind));
	alx_jw_arr_end(&w);
	alx_jw_kstr(&w, "sandbox", a->sandbox);
	alx_jw_kstr(&w, "version", a->version);
	/* Only when true: a runner that allows "full" network says so. */
	if (a->network)
		alx_jw_kbool(&w, "network", 1);
	alx_jw_kint(&w, "time", a->time);
	return notice_seal(&a->obj, "announce", &w, k);
}

/* A string member copied into a fixed buffer (no escaped NUL). */
static int
notice_get_fixed(const struct alx_json *j, const char *key, char *out,
    size_t size)
{
	char	*s;
	int	 r;

	if ((r = alx_json_get_str(j, 0, key, &s, size - 1)) != 0)
		return r;
	memcpy(out, s, strlen(s) + 1);	/* at most size - 1 bytes */
	free(s);
	return 0;
}

static int
notice_get_labels(const struct alx_json *j, struct alx_announce *a)
{
	int	tok, i, n, r;

	if ((tok = alx_json_obj_get(j, 0, "labels")) < 0)
		return ALX_ERR_MISSING;
	if ((n = alx_json_arr_len(j, tok)) < 0)
		return ALX_ERR_TYPE;
	if (n > ALX_MAX_LABELS)
		return ALX_ERR_TOO_LARGE;
	if (n == 0)
		return 0;
	if ((a->labels = calloc((size_t)n, sizeof(char *))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		if ((r = alx_json_str(j, alx_json_arr_at(j, tok, i),
		    &a->labels[i], NULL)) != 0)
			return r;
		a->nlabels++;
	}
	return 0;
}

static int
notice_get_kinds(const struct alx_json *j, unsigned *kinds)
{
	unsigned	 k;
	char		*s;
	int		 tok, i, n, r;

	if ((tok = alx_json_obj_get(j, 0, "kinds")) < 0)
		return ALX_ERR_MISSING;
	if ((n = alx_json_arr_len(j, tok)) < 0)
		return ALX_ERR_TYPE;
	if (n > 2)
		return ALX_ERR_TOO_LARGE;
	for (i = 0; i < n; i++) {
		if ((r = alx_json_str(j, alx_json_arr_at(j, tok, i), &s,
		    NULL)) != 0)
			return r;
		r = alx_job_kind_parse(s, &k);
		free(s);
		if (r != 0 || (*kinds & k) != 0)
			return ALX_ERR_INVALID;
		*kinds |= k;
	}
	return 0;
}

static int
notice_announce_body(const struct alx_json *j, struct alx_announce *a,
    const uint8_t pk[ALX_SIGN_PK_LEN])
{
	int	r;

	if ((r = notice_runner(j, pk, a->runner)) != 0 ||
	    (r = notice_get_fixed(j, "name", a->name, sizeof(a->name))) != 0 ||
	    (r = notice_get_labels(j, a)) != 0 ||
	    (r = alx_json_get_int(j, 0, "slots", &a->slots, 1,
	    NOTICE_SLOTS_MAX)) != 0 ||
	    (r = notice_get_kinds(j, &a->kinds)) != 0 ||
	    (r = notice_get_fixed(j, "sandbox", a->sandbox,
	    sizeof(a->sandbox))) != 0 ||
	    (r = notice_get_fixed(j, "version", a->version,
	    sizeof(a->version))) != 0 ||
	    (r = alx_json_get_int(j, 0, "time", &a->time, 0,
	    ALX_JSON_INT_MAX)) != 0)
		return r;
	if (alx_json_has(j, 0, "network") &&
	    (r = alx_json_get_bool(j, 0, "network", &a->network)) != 0)
		return r;
	return notice_announce_valid(a);
}

int
alx_announce_open(struct alx_announce *a, const char *json, size_t len,
    const uint8_t sid[ALX_SID_LEN], const uint8_t pk[ALX_SIGN_PK_LEN])
{
	struct alx_json	*j;
	int		 r;

	if (a == NULL)
		return ALX_ERR_INVALID;
	memset(a, 0, sizeof(*a));
	if ((r = notice_open_body(&a->obj, &j, json, len, "announce", sid,
	    pk)) == 0) {
		memcpy(a->sid, sid, ALX_SID_LEN);
		r = notice_announce_body(j, a, pk);
		alx_json_free(j);
	}
	if (r != 0)
		alx_announce_free(a);
	return r;
}

void
alx_announce_free(struct alx_announce *a)
{
	size_t	i;

	if (a == NULL)
		return;
	for (i = 0; i < a->nlabels; i++)
		free(a->labels[i]);
	free(a->labels);
	alx_signed_free(&a->obj);
	memset(a, 0, sizeof(*a));
}

/*
 * Notices: close, code-open, code-fail.
 */

static int
notice_type_valid(const char *type)
{
	return type != NULL && (strcmp(type, "close") == 0 ||
	    strcmp(type, "code-open") == 0 || strcmp(type, "code-fail") == 0);
}

int
alx_notice_sign(struct alx_notice *n, const struct alx_signkey *k)
{
	struct alx_jw	w;
	char		type[sizeof(n->type)];

	if (n == NULL || k == NULL ||
	    memchr(n->type, '\0', sizeof(n->type)) == NULL ||
	    !notice_type_valid(n->type))
		return ALX_ERR_INVALID;
	if (!notice_time_ok(n->time))
		return ALX_ERR_RANGE;
	memcpy(type, n->type, sizeof(type));
	if (strcmp(type, "code-open") == 0 &&
	    (n->role < 0 || n->role >= ALX_ROLE_COUNT))
		return ALX_ERR_WRONG_ROLE;
	if (strcmp(type, "code-fail") == 0 &&
	    (n->nameplate < 1 || n->nameplate > ALX_CODE_NAMEPLATE_MAX))
		return ALX_ERR_RANGE;
	notice_begin(&w, n->sid);
	if (strcmp(type, "code-open") == 0)
		alx_jw_kstr(&w, "role", alx_role_name(n->role));
	if (strcmp(type, "code-fail") == 0)
		alx_jw_kint(&w, "nameplate", n->nameplate);
	alx_jw_kint(&w, "time", n->time);
	return notice_seal(&n->obj, type, &w, k);
}

static int
notice_body(const struct alx_json *j, struct alx_notice *n)
{
	char	*role;
	int	 r;

	if (strcmp(n->type, "code-open") == 0) {
		if ((r = alx_json_get_str(j, 0, "role", &role,
		    ALX_TYPE_MAX)) != 0)
			return r;
		r = alx_role_parse(role, &n->role);
		free(role);
		if (r != 0)
			return ALX_ERR_WRONG_ROLE;
	}
	if (strcmp(n->type, "code-fail") == 0 &&
	    (r = alx_json_get_int(j, 0, "nameplate", &n->nameplate, 1,
	    ALX_CODE_NAMEPLATE_MAX)) != 0)
		return r;
	return alx_json_get_int(j, 0, "time", &n->time, 0, ALX_JSON_INT_MAX);
}

int
alx_notice_open(struct alx_notice *n, const char *json, size_t len,
    const char *type, const uint8_t sid[ALX_SID_LEN],
    const uint8_t pk[ALX_SIGN_PK_LEN])
{
	struct alx_json	*j;
	int		 r;

	if (n == NULL)
		return ALX_ERR_INVALID;
	memset(n, 0, sizeof(*n));
	if (!notice_type_valid(type))
		return ALX_ERR_INVALID;
	if ((r = notice_open_body(&n->obj, &j, json, len, type, sid,
	    pk)) == 0) {
		memcpy(n->type, type, strlen(type) + 1);
		memcpy(n->sid, sid, ALX_SID_LEN);
		r = notice_body(j, n);
		alx_json_free(j);
	}
	if (r != 0)
		alx_notice_free(n);
	return r;
}

void
alx_notice_free(struct alx_notice *n)
{
	if (n == NULL)
		return;
	alx_signed_free(&n->obj);
	memset(n, 0, sizeof(*n));
}
