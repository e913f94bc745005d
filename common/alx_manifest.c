/*
 * alx_manifest.c: the owner-signed manifest (protocol.md section 4).
 */
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/json.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"
#include "alx_int.h"

static const char alx_sid_dom[] = "airlox/v1/sid";

void
alx_manifest_free(struct alx_manifest *m)
{
	size_t	i, k;

	if (m == NULL)
		return;
	for (i = 0; i < ALX_ROLE_COUNT; i++)
		free(m->roles[i].old);
	for (i = 0; i < m->napproved; i++) {
		for (k = 0; k < m->approved[i].nlabels; k++)
			free(m->approved[i].labels[k]);
		free(m->approved[i].labels);
	}
	free(m->approved);
	free(m->keep);
	free(m->revoked);
	free(m->wraps);
	free(m->private_ct);
	alx_signed_free(&m->obj);
	memset(m, 0, sizeof(*m));
}

static void
alx_manifest_sid(const uint8_t *body, size_t len, uint8_t sid[ALX_SID_LEN])
{
	struct alx_sha256_ctx	ctx;
	uint8_t			h[ALX_HASH_LEN];

	alx_sha256_init(&ctx);
	alx_sha256_update(&ctx, alx_sid_dom, sizeof(alx_sid_dom));
	alx_sha256_update(&ctx, body, len);
	alx_sha256_final(&ctx, h);
	memcpy(sid, h, ALX_SID_LEN);
}

/* sid for the AAD and wrap contexts: zero for epoch 0 (section 4). */
static const uint8_t *
alx_manifest_ctx_sid(const struct alx_manifest *m)
{
	static const uint8_t zero[ALX_SID_LEN];

	return m->epoch == 0 ? zero : m->sid;
}

static void
alx_jw_fplist(struct alx_jw *w, const char *key, uint8_t (*fps)[ALX_FP_LEN],
    size_t n)
{
	size_t	i;

	alx_jw_key(w, key);
	alx_jw_arr_begin(w);
	for (i = 0; i < n; i++)
		alx_jw_b64(w, fps[i], ALX_FP_LEN);
	alx_jw_arr_end(w);
}

int
alx_manifest_encode(const struct alx_manifest *m, char **json, size_t *len)
{
	struct alx_jw	w;
	size_t		i, k;
	int		r;

	alx_jw_init(&w, ALX_MANIFEST_BODY_MAX);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "v", ALX_MANIFEST_VERSION);
	alx_jw_kint(&w, "ver", m->ver);
	if (m->ver > 1) {
		alx_jw_kb64(&w, "sid", m->sid, ALX_SID_LEN);
		alx_jw_kb64(&w, "prev", m->prev, ALX_HASH_LEN);
	} else
		alx_jw_kb64(&w, "nonce", m->nonce, sizeof(m->nonce));
	alx_jw_kstr(&w, "mode", alx_mode_name(m->mode));
	alx_jw_kint(&w, "created", m->created);
	alx_jw_kint(&w, "expires", m->expires);
	alx_jw_kint(&w, "item_max", m->item_max);
	alx_jw_kint(&w, "session_max", m->session_max);
	alx_jw_key(&w, "owner");
	alx_jw_obj_begin(&w);
	alx_jw_kb64(&w, "pk", m->owner_pk, ALX_SIGN_PK_LEN);
	alx_jw_kb64(&w, "kx", m->owner_kx, ALX_KX_PK_LEN);
	alx_jw_obj_end(&w);
	alx_jw_key(&w, "roles");
	alx_jw_obj_begin(&w);
	for (i = ALX_ROLE_SENDER; i < ALX_ROLE_COUNT; i++) {
		if (!m->roles[i].present)
			continue;
		alx_jw_key(&w, alx_role_name((int)i));
		alx_jw_obj_begin(&w);
		alx_jw_kb64(&w, "pk", m->roles[i].pk, ALX_SIGN_PK_LEN);
		alx_jw_kb64(&w, "kx", m->roles[i].kx, ALX_KX_PK_LEN);
		alx_jw_kint(&w, "n", m->roles[i].n);
		alx_jw_key(&w, "old");
		alx_jw_arr_begin(&w);
		for (k = 0; k < m->roles[i].nold; k++)
			alx_jw_b64(&w, m->roles[i].old[k], ALX_SIGN_PK_LEN);
		alx_jw_arr_end(&w);
		alx_jw_obj_end(&w);
	}
	alx_jw_obj_end(&w);
	alx_jw_fplist(&w, "keep", m->keep, m->nkeep);
	alx_jw_kbool(&w, "approve", m->approve);
	alx_jw_key(&w, "approved");
	alx_jw_arr_begin(&w);
	for (i = 0; i < m->napproved; i++) {
		alx_jw_obj_begin(&w);
		alx_jw_kb64(&w, "fp", m->approved[i].fp, ALX_FP_LEN);
		alx_jw_kstr(&w, "name", m->approved[i].name);
		alx_jw_key(&w, "labels");
		alx_jw_arr_begin(&w);
		for (k = 0; k < m->approved[i].nlabels; k++)
			alx_jw_str(&w, m->approved[i].labels[k]);
		alx_jw_arr_end(&w);
		alx_jw_obj_end(&w);
	}
	alx_jw_arr_end(&w);
	alx_jw_fplist(&w, "revoked", m->revoked, m->nrevoked);
	alx_jw_kint(&w, "epoch", m->epoch);
	alx_jw_kb64(&w, "ekc", m->ekc, ALX_HASH_LEN);
	alx_jw_wraps(&w, "wraps", m->wraps, m->nwraps);
	alx_jw_kb64(&w, "private", m->private_ct, m->private_len);
	alx_jw_obj_end(&w);
	r = alx_jw_finish(&w, json, len);
	alx_jw_free(&w);
	return r;
}

int
alx_manifest_sign(struct alx_manifest *m, const struct alx_signkey *owner)
{
	char	*body = NULL;
	size_t	 len;
	int	 r;

	if (!alx_ct_eq(owner->pk, m->owner_pk, ALX_SIGN_PK_LEN))
		return ALX_ERR_UNKNOWN_KEY;
	if (m->ver < 1 || (m->ver > 1 && !m->has_prev))
		return ALX_ERR_INVALID;
	if ((r = alx_manifest_encode(m, &body, &len)) != ALX_OK)
		return r;
	alx_signed_free(&m->obj);
	r = alx_signed_seal(&m->obj, "manifest", body, len, owner);
	if (r == ALX_OK) {
		if (m->ver == 1)
			alx_manifest_sid(m->obj.body, m->obj.body_len, m->sid);
		alx_signed_hash(&m->obj, m->hash);
	}
	free(body);
	return r;
}

/*
 * Body decoding.
 */

static int
alx_manifest_get_fplist(const struct alx_json *j, int obj, const char *key,
    uint8_t (**out)[ALX_FP_LEN], size_t *np)
{
	uint8_t	*p = NULL;
	int	 r;

	r = alx_b64list_decode(j, obj, key, ALX_FP_LEN, ALX_MAX_LIST, &p, np);
	*out = (uint8_t (*)[ALX_FP_LEN])p;
	return r;
}

static int
alx_manifest_get_keylist(const struct alx_json *j, int obj, const char *key,
    uint8_t (**out)[ALX_SIGN_PK_LEN], size_t *np)
{
	uint8_t	*p = NULL;
	int	 r;

	r = alx_b64list_decode(j, obj, key, ALX_SIGN_PK_LEN, ALX_MAX_LIST, &p,
	    np);
	*out = (uint8_t (*)[ALX_SIGN_PK_LEN])p;
	return r;
}

static int
alx_manifest_get_keypair(const struct alx_json *j, int obj, uint8_t *pk,
    uint8_t *kx)
{
	int	r;

	if (alx_json_type(j, obj) != ALX_JSON_OBJECT)
		return ALX_ERR_TYPE;
	if ((r = alx_json_get_b64(j, obj, "pk", pk, ALX_SIGN_PK_LEN)) != ALX_OK)
		return r;
	return alx_json_get_b64(j, obj, "kx", kx, ALX_KX_PK_LEN);
}

static int
alx_manifest_get_roles(const struct alx_json *j, int obj,
    struct alx_manifest *m)
{
	int	roles, t, i, r;

	if ((roles = alx_json_obj_get(j, obj, "roles")) < 0)
		return ALX_ERR_MISSING;
	if (alx_json_type(j, roles) != ALX_JSON_OBJECT)
		return ALX_ERR_TYPE;
	for (i = ALX_ROLE_SENDER; i < ALX_ROLE_COUNT; i++) {
		t = alx_json_obj_get(j, roles, alx_role_name(i));
		if (t < 0) {
			/* Chat sessions have no runner role; the rest must be. */
			if (i == ALX_ROLE_RUNNER && m->mode == ALX_MODE_CHAT)
				continue;
			return ALX_ERR_MISSING;
		}
		if (i == ALX_ROLE_RUNNER && m->mode == ALX_MODE_CHAT)
			return ALX_ERR_INVALID;
		if ((r = alx_manifest_get_keypair(j, t, m->roles[i].pk,
		    m->roles[i].kx)) != ALX_OK)
			return r;
		if ((r = alx_json_get_int(j, t, "n", &m->roles[i].n, 1,
		    ALX_MAX_LIST)) != ALX_OK)
			return r;
		m->roles[i].present = 1;
		if ((r = alx_manifest_get_keylist(j, t, "old",
		    &m->roles[i].old, &m->roles[i].nold)) != ALX_OK)
			return r;
		if ((int64_t)m->roles[i].nold != m->roles[i].n - 1)
			return ALX_ERR_INVALID;
	}
	return ALX_OK;
}

static int
alx_manifest_get_approved(const struct alx_json *j, int obj,
    struct alx_manifest *m)
{
	char	*name = NULL;
	int	 arr, i, n, t, lab, r;

	if ((arr = alx_json_obj_get(j, obj, "approved")) < 0)
		return ALX_ERR_MISSING;
	if ((n = alx_json_arr_len(j, arr)) < 0)
		return ALX_ERR_TYPE;
	if (n > ALX_MAX_LIST)
		return ALX_ERR_TOO_LARGE;
	if (n == 0)
		return ALX_OK;
	if ((m->approved = calloc((size_t)n, sizeof(*m->approved))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		struct alx_approved *a = &m->approved[i];
		t = alx_json_arr_at(j, arr, i);
		if (alx_json_type(j, t) != ALX_JSON_OBJECT)
			return ALX_ERR_TYPE;
		m->napproved++;
		if ((r = alx_json_get_b64(j, t, "fp", a->fp, ALX_FP_LEN)) != ALX_OK)
			return r;
		if ((r = alx_json_get_str(j, t, "name", &name,
		    ALX_NAME_MAX)) != ALX_OK)
			return r;
		if (!alx_name_valid(name)) {
			free(name);
			return ALX_ERR_BAD_NAME;
		}
		strcpy(a->name, name);
		free(name);
		if ((lab = alx_json_obj_get(j, t, "labels")) < 0)
			return ALX_ERR_MISSING;
		if ((r = alx_strlist_decode(j, lab, ALX_MAX_LABELS,
		    ALX_NAME_MAX, alx_name_valid, &a->labels,
		    &a->nlabels)) != ALX_OK)
			return r;
	}
	return ALX_OK;
}

static int
alx_manifest_decode(struct alx_manifest *m, const uint8_t *body, size_t len)
{
	struct alx_json_limits	 lim = { ALX_MANIFEST_BODY_MAX, 8, 16384 };
	struct alx_json		*j = NULL;
	char			*mode = NULL;
	int64_t			 v;
	int			 t, r;

	if ((r = alx_json_parse(&j, (const char *)body, len, &lim)) != ALX_OK)
		return r;
	if (alx_json_type(j, 0) != ALX_JSON_OBJECT) {
		r = ALX_ERR_TYPE;
		goto out;
	}
	if ((r = alx_json_get_int(j, 0, "v", &v, 0, ALX_JSON_INT_MAX)) != ALX_OK)
		goto out;
	if (v != ALX_MANIFEST_VERSION) {
		r = ALX_ERR_VERSION;
		goto out;
	}
	if ((r = alx_json_get_int(j, 0, "ver", &m->ver, 1,
	    ALX_JSON_INT_MAX)) != ALX_OK)
		goto out;
	if (m->ver == 1) {
		if (alx_json_has(j, 0, "sid") || alx_json_has(j, 0, "prev")) {
			r = ALX_ERR_INVALID;
			goto out;
		}
		if ((r = alx_json_get_b64(j, 0, "nonce", m->nonce,
		    sizeof(m->nonce))) != ALX_OK)
			goto out;
	} else {
		if ((r = alx_json_get_b64(j, 0, "sid", m->sid,
		    ALX_SID_LEN)) != ALX_OK ||
		    (r = alx_json_get_b64(j, 0, "prev", m->prev,
		    ALX_HASH_LEN)) != ALX_OK)
			goto out;
		m->has_prev = 1;
	}
	if ((r = alx_json_get_str(j, 0, "mode", &mode, 16)) != ALX_OK)
		goto out;
	if (strcmp(mode, "chat") == 0)
		m->mode = ALX_MODE_CHAT;
	else if (strcmp(mode, "execute") == 0)
		m->mode = ALX_MODE_EXECUTE;
	else {
		r = ALX_ERR_INVALID;
		goto out;
	}
	if ((r = alx_json_get_int(j, 0, "created", &m->created, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "expires", &m->expires, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "item_max", &m->item_max, 0,
	    ALX_ITEM_MAX_SIZE)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "session_max", &m->session_max, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "epoch", &m->epoch, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_json_get_b64(j, 0, "ekc", m->ekc,
	    ALX_HASH_LEN)) != ALX_OK ||
	    (r = alx_json_get_bool(j, 0, "approve", &m->approve)) != ALX_OK)
		goto out;
	if ((t = alx_json_obj_get(j, 0, "owner")) < 0) {
		r = ALX_ERR_MISSING;
		goto out;
	}
	if ((r = alx_manifest_get_keypair(j, t, m->owner_pk,
	    m->owner_kx)) != ALX_OK ||
	    (r = alx_manifest_get_roles(j, 0, m)) != ALX_OK ||
	    (r = alx_manifest_get_fplist(j, 0, "keep", &m->keep,
	    &m->nkeep)) != ALX_OK ||
	    (r = alx_manifest_get_fplist(j, 0, "revoked", &m->revoked,
	    &m->nrevoked)) != ALX_OK ||
	    (r = alx_manifest_get_approved(j, 0, m)) != ALX_OK)
		goto out;
	if ((t = alx_json_obj_get(j, 0, "wraps")) < 0) {
		r = ALX_ERR_MISSING;
		goto out;
	}
	if ((r = alx_wraps_decode(j, t, &m->wraps, &m->nwraps)) != ALX_OK)
		goto out;
	r = alx_json_get_b64_alloc(j, 0, "private", &m->private_ct,
	    &m->private_len, ALX_MANIFEST_BODY_MAX);
out:
	free(mode);
	alx_json_free(j);
	return r;
}

int
alx_manifest_open(struct alx_manifest *m, const char *json, size_t len,
    const uint8_t sid[ALX_SID_LEN], const struct alx_manifest *prev)
{
	struct alx_signed	s;
	uint8_t			derived[ALX_SID_LEN];
	int			r;

	memset(m, 0, sizeof(*m));
	if ((r = alx_signed_parse(&s, json, len)) != ALX_OK)
		return r;
	/*
	 * The trusted key: the owner key of the previous version, or, for
	 * version 1, the key the session id commits to (checked below).
	 */
	r = alx_signed_verify(&s, "manifest", prev != NULL ? prev->owner_pk :
	    s.key);
	if (r != ALX_OK) {
		alx_signed_free(&s);
		return r;
	}
	m->obj = s;
	if ((r = alx_manifest_decode(m, s.body, s.body_len)) != ALX_OK)
		goto fail;
	if (!alx_ct_eq(m->owner_pk, s.key, ALX_SIGN_PK_LEN)) {
		r = ALX_ERR_UNKNOWN_KEY;
		goto fail;
	}
	alx_signed_hash(&m->obj, m->hash);
	if (prev == NULL) {
		if (m->ver != 1) {
			r = ALX_ERR_ORDER;
			goto fail;
		}
		alx_manifest_sid(s.body, s.body_len, derived);
		/* No anchor (the relay creating the session): derive it. */
		if (sid != NULL && !alx_ct_eq(derived, sid, ALX_SID_LEN)) {
			r = ALX_ERR_WRONG_SESSION;
			goto fail;
		}
		memcpy(m->sid, derived, ALX_SID_LEN);
		return ALX_OK;
	}
	if (!alx_ct_eq(m->sid, prev->sid, ALX_SID_LEN) ||
	    (sid != NULL && !alx_ct_eq(m->sid, sid, ALX_SID_LEN))) {
		r = ALX_ERR_WRONG_SESSION;
		goto fail;
	}
	if (m->ver != prev->ver + 1 ||
	    !alx_ct_eq(m->prev, prev->hash, ALX_HASH_LEN)) {
		r = ALX_ERR_ORDER;
		goto fail;
	}
	if (!alx_ct_eq(m->owner_kx, prev->owner_kx, ALX_KX_PK_LEN) ||
	    m->mode != prev->mode || m->created != prev->created ||
	    m->epoch < prev->epoch) {
		r = ALX_ERR_INVALID;
		goto fail;
	}
	return ALX_OK;
fail:
	alx_manifest_free(m);
	return r;
}

static int
alx_signed_copy(struct alx_signed *dst, const struct alx_signed *src)
{
	*dst = *src;
	dst->body = NULL;
	dst->raw = NULL;
	if (src->body != NULL) {
		if ((dst->body = malloc(src->body_len + 1)) == NULL)
			return ALX_ERR_NOMEM;
		memcpy(dst->body, src->body, src->body_len + 1);
	}
	if (src->raw != NULL) {
		if ((dst->raw = malloc(src->raw_len + 1)) == NULL)
			return ALX_ERR_NOMEM;
		memcpy(dst->raw, src->raw, src->raw_len + 1);
	}
	return ALX_OK;
}

static void *
alx_memdup(const void *p, size_t n)
{
	void	*q;

	if (n == 0 || p == NULL)
		return NULL;
	if ((q = malloc(n)) != NULL)
		memcpy(q, p, n);
	return q;
}

int
alx_manifest_copy(struct alx_manifest *dst, const struct alx_manifest *src)
{
	size_t	i, k;

	/* Start from a copy whose pointers are all cleared, then fill them. */
	*dst = *src;
	dst->keep = NULL;
	dst->revoked = NULL;
	dst->wraps = NULL;
	dst->private_ct = NULL;
	dst->approved = NULL;
	dst->napproved = 0;
	memset(&dst->obj, 0, sizeof(dst->obj));
	for (i = 0; i < ALX_ROLE_COUNT; i++)
		dst->roles[i].old = NULL;

	for (i = 0; i < ALX_ROLE_COUNT; i++) {
		dst->roles[i].old = alx_memdup(src->roles[i].old,
		    src->roles[i].nold * ALX_SIGN_PK_LEN);
		if (src->roles[i].nold && !dst->roles[i].old)
			goto nomem;
	}
	dst->keep = alx_memdup(src->keep, src->nkeep * ALX_FP_LEN);
	dst->revoked = alx_memdup(src->revoked, src->nrevoked * ALX_FP_LEN);
	dst->wraps = alx_memdup(src->wraps, src->nwraps * sizeof(*src->wraps));
	dst->private_ct = alx_memdup(src->private_ct, src->private_len);
	if ((src->nkeep && !dst->keep) || (src->nrevoked && !dst->revoked) ||
	    (src->nwraps && !dst->wraps) ||
	    (src->private_len && !dst->private_ct))
		goto nomem;
	if (src->napproved > 0 && (dst->approved = calloc(src->napproved,
	    sizeof(*dst->approved))) == NULL)
		goto nomem;
	for (i = 0; i < src->napproved; i++) {
		struct alx_approved *a = &dst->approved[i];
		const struct alx_approved *sa = &src->approved[i];

		memcpy(a->fp, sa->fp, sizeof(a->fp));
		memcpy(a->name, sa->name, sizeof(a->name));
		dst->napproved++;
		if (sa->nlabels == 0)
			continue;
		if ((a->labels = calloc(sa->nlabels, sizeof(char *))) == NULL)
			goto nomem;
		for (k = 0; k < sa->nlabels; k++) {
			if ((a->labels[k] = strdup(sa->labels[k])) == NULL)
				goto nomem;
			a->nlabels++;
		}
	}
	if (alx_signed_copy(&dst->obj, &src->obj) != ALX_OK)
		goto nomem;
	return ALX_OK;
nomem:
	alx_manifest_free(dst);
	return ALX_ERR_NOMEM;
}

const struct alx_wrap *
alx_manifest_find_wrap(const struct alx_manifest *m, const char *to)
{
	size_t	i;

	for (i = 0; i < m->nwraps; i++)
		if (strcmp(m->wraps[i].to, to) == 0)
			return &m->wraps[i];
	return NULL;
}

int
alx_manifest_epoch_key(const struct alx_manifest *m, const char *to,
    const struct alx_kxkey *kx, uint8_t key[ALX_KEY_LEN])
{
	const struct alx_wrap	*w;
	uint8_t			 ctx[64];
	size_t			 n;
	int			 r;

	if ((w = alx_manifest_find_wrap(m, to)) == NULL)
		return ALX_ERR_NOT_RECIPIENT;
	n = alx_wrap_ctx_manifest(ctx, alx_manifest_ctx_sid(m), m->epoch);
	if ((r = alx_wrap_open(w, kx, ctx, n, key)) == ALX_OK &&
	    (r = alx_manifest_check_epoch_key(m, key)) != ALX_OK)
		alx_wipe(key, ALX_KEY_LEN);
	return r;
}

int
alx_manifest_check_epoch_key(const struct alx_manifest *m,
    const uint8_t ekey[ALX_KEY_LEN])
{
	uint8_t	ekc[ALX_HASH_LEN];
	int	r;

	if ((r = alx_epoch_commit(ekey, ekc)) != ALX_OK)
		return r;
	return alx_ct_eq(ekc, m->ekc, ALX_HASH_LEN) ? ALX_OK :
	    ALX_ERR_KEY_COMMIT;
}

/* K_priv and the AAD of the private part. */
static int
alx_manifest_private_key(const struct alx_manifest *m,
    const uint8_t ekey[ALX_KEY_LEN], uint8_t k[ALX_KEY_LEN], uint8_t *aad,
    size_t *aadlen)
{
	static const char	dom[] = "airlox/v1/private";
	uint8_t			salt[8];
	size_t			n = 0;

	alx_be64(salt, (uint64_t)m->ver);
	memcpy(aad, dom, sizeof(dom));
	n = sizeof(dom);
	memcpy(aad + n, alx_manifest_ctx_sid(m), ALX_SID_LEN);
	n += ALX_SID_LEN;
	alx_be64(aad + n, (uint64_t)m->epoch);
	n += 8;
	memcpy(aad + n, salt, 8);
	n += 8;
	*aadlen = n;
	return alx_hkdf_sha256(k, ALX_KEY_LEN, ekey, ALX_KEY_LEN, salt,
	    sizeof(salt), dom, sizeof(dom) - 1);
}

int
alx_manifest_seal_private(struct alx_manifest *m,
    const uint8_t ekey[ALX_KEY_LEN], const struct alx_private *p)
{
	static const uint8_t	 nonce[ALX_NONCE_LEN];
	uint8_t			 k[ALX_KEY_LEN], aad[64];
	char			*json = NULL;
	size_t			 len, aadlen;
	int			 r;

	/* The key sealing the private part is the one the manifest commits. */
	if ((r = alx_epoch_commit(ekey, m->ekc)) != ALX_OK ||
	    (r = alx_private_encode(p, &json, &len)) != ALX_OK)
		return r;
	if ((r = alx_manifest_private_key(m, ekey, k, aad, &aadlen)) != ALX_OK)
		goto out;
	free(m->private_ct);
	m->private_len = 0;
	if ((m->private_ct = malloc(len + ALX_TAG_LEN)) == NULL) {
		r = ALX_ERR_NOMEM;
		goto out;
	}
	if ((r = alx_aead_seal(m->private_ct, k, nonce, aad, aadlen, json,
	    len)) == ALX_OK)
		m->private_len = len + ALX_TAG_LEN;
out:
	alx_wipe(k, sizeof(k));
	free(json);
	return r;
}

int
alx_manifest_open_private(const struct alx_manifest *m,
    const uint8_t ekey[ALX_KEY_LEN], struct alx_private *p)
{
	static const uint8_t	 nonce[ALX_NONCE_LEN];
	uint8_t			 k[ALX_KEY_LEN], aad[64];
	uint8_t			*pt = NULL;
	size_t			 aadlen, len;
	int			 r;

	memset(p, 0, sizeof(*p));
	if (m->private_len < ALX_TAG_LEN)
		return ALX_ERR_TRUNCATED;
	if ((r = alx_manifest_check_epoch_key(m, ekey)) != ALX_OK)
		return r;
	len = m->private_len - ALX_TAG_LEN;
	if ((r = alx_manifest_private_key(m, ekey, k, aad, &aadlen)) != ALX_OK)
		goto out;
	if ((pt = malloc(len + 1)) == NULL) {
		r = ALX_ERR_NOMEM;
		goto out;
	}
	if ((r = alx_aead_open(pt, k, nonce, aad, aadlen, m->private_ct,
	    m->private_len)) != ALX_OK)
		goto out;
	pt[len] = '\0';
	r = alx_private_decode(p, (const char *)pt, len);
out:
	alx_wipe(k, sizeof(k));
	free(pt);
	return r;
}

static int
alx_fplist_has(uint8_t (*list)[ALX_FP_LEN], size_t n,
    const uint8_t fp[ALX_FP_LEN])
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (alx_ct_eq(list[i], fp, ALX_FP_LEN))
			return 1;
	return 0;
}

int
alx_manifest_is_revoked(const struct alx_manifest *m,
    const uint8_t fp[ALX_FP_LEN])
{
	return alx_fplist_has(m->revoked, m->nrevoked, fp);
}

int
alx_manifest_is_kept(const struct alx_manifest *m,
    const uint8_t fp[ALX_FP_LEN])
{
	return alx_fplist_has(m->keep, m->nkeep, fp);
}

const struct alx_approved *
alx_manifest_find_approved(const struct alx_manifest *m,
    const uint8_t fp[ALX_FP_LEN])
{
	size_t	i;

	for (i = 0; i < m->napproved; i++)
		if (alx_ct_eq(m->approved[i].fp, fp, ALX_FP_LEN))
			return &m->approved[i];
	return NULL;
}
