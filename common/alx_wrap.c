/*
 * alx_wrap.c: a 32-byte key sealed to one X25519 public key
 * (protocol.md section 4).
 *
 *	ss = X25519(esk, rpk)
 *	wk = HKDF(ss, epk || rpk, "airlox/v1/wrap" || 0x00 || ctx, 32)
 *	ct = AES-256-GCM(wk, 0^12, ctx, key)
 */
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/crypto.h"
#include "airlox/b64.h"
#include "airlox/json.h"
#include "airlox/proto.h"
#include "alx_int.h"

#define ALX_WRAP_CTX_MAX	64

static int
alx_wrap_key(uint8_t wk[ALX_KEY_LEN], const uint8_t ss[32],
    const uint8_t epk[ALX_KX_PK_LEN], const uint8_t rpk[ALX_KX_PK_LEN],
    const void *ctx, size_t ctxlen)
{
	static const char	dom[] = "airlox/v1/wrap";
	uint8_t			salt[2 * ALX_KX_PK_LEN];
	uint8_t			info[sizeof(dom) + ALX_WRAP_CTX_MAX];

	if (ctxlen > ALX_WRAP_CTX_MAX)
		return ALX_ERR_INVALID;
	memcpy(salt, epk, ALX_KX_PK_LEN);
	memcpy(salt + ALX_KX_PK_LEN, rpk, ALX_KX_PK_LEN);
	memcpy(info, dom, sizeof(dom));		/* with its 0x00 */
	memcpy(info + sizeof(dom), ctx, ctxlen);
	return alx_hkdf_sha256(wk, ALX_KEY_LEN, ss, 32, salt, sizeof(salt),
	    info, sizeof(dom) + ctxlen);
}

int
alx_wrap_seal(struct alx_wrap *w, const char *to,
    const uint8_t rpk[ALX_KX_PK_LEN], const void *ctx, size_t ctxlen,
    const uint8_t key[ALX_KEY_LEN])
{
	uint8_t	esk[ALX_KX_SK_LEN];
	int	r;

	if ((r = alx_random(esk, sizeof(esk))) != ALX_OK)
		return r;
	r = alx_wrap_seal_eph(w, to, rpk, ctx, ctxlen, key, esk);
	alx_wipe(esk, sizeof(esk));
	return r;
}

int
alx_wrap_seal_eph(struct alx_wrap *w, const char *to,
    const uint8_t rpk[ALX_KX_PK_LEN], const void *ctx, size_t ctxlen,
    const uint8_t key[ALX_KEY_LEN], const uint8_t esk[ALX_KX_SK_LEN])
{
	static const uint8_t	nonce[ALX_NONCE_LEN];
	struct alx_kxkey	eph;
	uint8_t			ss[32], wk[ALX_KEY_LEN];
	int			r;

	memset(w, 0, sizeof(*w));
	if (strlen(to) > ALX_FP_STRLEN)
		return ALX_ERR_INVALID;
	strcpy(w->to, to);
	if ((r = alx_kx_from_secret(&eph, esk)) != ALX_OK)
		return r;
	if ((r = alx_kx(ss, eph.sk, rpk)) != ALX_OK)
		goto out;
	memcpy(w->epk, eph.pk, sizeof(w->epk));
	if ((r = alx_wrap_key(wk, ss, eph.pk, rpk, ctx, ctxlen)) != ALX_OK)
		goto out;
	r = alx_aead_seal(w->ct, wk, nonce, ctx, ctxlen, key, ALX_KEY_LEN);
out:
	alx_kx_wipe(&eph);
	alx_wipe(ss, sizeof(ss));
	alx_wipe(wk, sizeof(wk));
	return r;
}

int
alx_wrap_open(const struct alx_wrap *w, const struct alx_kxkey *me,
    const void *ctx, size_t ctxlen, uint8_t key[ALX_KEY_LEN])
{
	static const uint8_t	nonce[ALX_NONCE_LEN];
	uint8_t			ss[32], wk[ALX_KEY_LEN];
	int			r;

	if ((r = alx_kx(ss, me->sk, w->epk)) != ALX_OK)
		goto out;
	if ((r = alx_wrap_key(wk, ss, w->epk, me->pk, ctx, ctxlen)) != ALX_OK)
		goto out;
	r = alx_aead_open(key, wk, nonce, ctx, ctxlen, w->ct, sizeof(w->ct));
out:
	alx_wipe(ss, sizeof(ss));
	alx_wipe(wk, sizeof(wk));
	return r;
}

size_t
alx_wrap_ctx_manifest(uint8_t *ctx, const uint8_t sid[ALX_SID_LEN],
    int64_t epoch)
{
	static const char	dom[] = "manifest";
	size_t			n = 0;

	memcpy(ctx, dom, sizeof(dom));		/* with its 0x00 */
	n += sizeof(dom);
	if (sid != NULL)
		memcpy(ctx + n, sid, ALX_SID_LEN);
	else
		memset(ctx + n, 0, ALX_SID_LEN);
	n += ALX_SID_LEN;
	alx_be64(ctx + n, (uint64_t)epoch);
	return n + 8;
}

size_t
alx_wrap_ctx_job(uint8_t *ctx, const uint8_t sid[ALX_SID_LEN],
    const uint8_t id[ALX_ID_LEN])
{
	static const char	dom[] = "job";
	size_t			n = 0;

	memcpy(ctx, dom, sizeof(dom));
	n += sizeof(dom);
	memcpy(ctx + n, sid, ALX_SID_LEN);
	n += ALX_SID_LEN;
	memcpy(ctx + n, id, ALX_ID_LEN);
	n += ALX_ID_LEN;
	return n;
}

int
alx_wrap_decode(const struct alx_json *j, int t, struct alx_wrap *w)
{
	char	*to = NULL;
	int	 r, role;

	if (alx_json_type(j, t) != ALX_JSON_OBJECT)
		return ALX_ERR_TYPE;
	if ((r = alx_json_get_str(j, t, "to", &to, ALX_FP_STRLEN)) != ALX_OK)
		return r;
	/* A role name, or the text of a fingerprint. */
	if (alx_role_parse(to, &role) != ALX_OK) {
		uint8_t fp[ALX_FP_LEN];
		if ((r = alx_b64_decode_exact(fp, sizeof(fp), to,
		    strlen(to))) != ALX_OK) {
			free(to);
			return r;
		}
	}
	strcpy(w->to, to);
	free(to);
	if ((r = alx_json_get_b64(j, t, "epk", w->epk, sizeof(w->epk))) != ALX_OK)
		return r;
	return alx_json_get_b64(j, t, "ct", w->ct, sizeof(w->ct));
}

int
alx_wraps_decode(const struct alx_json *j, int arr, struct alx_wrap **out,
    size_t *np)
{
	int	i, n, r;

	if ((n = alx_json_arr_len(j, arr)) < 0)
		return ALX_ERR_TYPE;
	if (n > ALX_MAX_WRAPS + ALX_MAX_LIST)
		return ALX_ERR_TOO_LARGE;
	*np = 0;
	if (n == 0)
		return ALX_OK;
	if ((*out = calloc((size_t)n, sizeof(**out))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		if ((r = alx_wrap_decode(j, alx_json_arr_at(j, arr, i),
		    &(*out)[i])) != ALX_OK)
			return r;
		(*np)++;
	}
	return ALX_OK;
}

void
alx_jw_wraps(struct alx_jw *w, const char *key, const struct alx_wrap *wr,
    size_t n)
{
	size_t	i;

	alx_jw_key(w, key);
	alx_jw_arr_begin(w);
	for (i = 0; i < n; i++) {
		alx_jw_obj_begin(w);
		alx_jw_kstr(w, "to", wr[i].to);
		alx_jw_kb64(w, "epk", wr[i].epk, sizeof(wr[i].epk));
		alx_jw_kb64(w, "ct", wr[i].ct, sizeof(wr[i].ct));
		alx_jw_obj_end(w);
	}
	alx_jw_arr_end(w);
}
