/*
 * alx_cert.c: participant certificates (protocol.md section 5): a
 * participant's own keys certified by a role key named in the manifest.
 */
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/json.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"
#include "alx_int.h"

static const char *alx_pkind_names[] = { "agent", "person", "runner" };

const char *
alx_pkind_name(int kind)
{
	if (kind < 0 || kind > ALX_PKIND_RUNNER)
		return "unknown";
	return alx_pkind_names[kind];
}

static int
alx_pkind_parse(const char *s, int *kind)
{
	int	i;

	for (i = 0; i <= ALX_PKIND_RUNNER; i++) {
		if (strcmp(s, alx_pkind_names[i]) == 0) {
			*kind = i;
			return ALX_OK;
		}
	}
	return ALX_ERR_INVALID;
}

void
alx_cert_free(struct alx_cert *c)
{
	if (c == NULL)
		return;
	alx_signed_free(&c->obj);
	memset(c, 0, sizeof(*c));
}

int
alx_cert_sign(struct alx_cert *c, const struct alx_signkey *rolekey)
{
	struct alx_jw	 w;
	char		*body = NULL;
	size_t		 len;
	int		 r;

	if (c->role < 0 || c->role >= ALX_ROLE_COUNT ||
	    !alx_display_valid(c->name) || c->kind < 0 ||
	    c->kind > ALX_PKIND_RUNNER)
		return ALX_ERR_INVALID;
	alx_fingerprint(c->fp, c->pk, sizeof(c->pk));
	alx_jw_init(&w, ALX_SMALL_BODY_MAX);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "v", ALX_PROTO_VERSION);
	alx_jw_kb64(&w, "sid", c->sid, ALX_SID_LEN);
	alx_jw_kstr(&w, "role", alx_role_name(c->role));
	alx_jw_kint(&w, "n", c->n);
	alx_jw_kb64(&w, "pk", c->pk, sizeof(c->pk));
	alx_jw_kb64(&w, "kx", c->kx, sizeof(c->kx));
	alx_jw_kstr(&w, "name", c->name);
	alx_jw_kstr(&w, "kind", alx_pkind_name(c->kind));
	alx_jw_kint(&w, "time", c->time);
	alx_jw_obj_end(&w);
	if ((r = alx_jw_finish(&w, &body, &len)) == ALX_OK) {
		alx_signed_free(&c->obj);
		r = alx_signed_seal(&c->obj, "cert", body, len, rolekey);
	}
	alx_jw_free(&w);
	free(body);
	return r;
}

/* The key that must have signed a certificate of `role` in m. */
static int
alx_cert_signer_ok(const struct alx_cert *c, const uint8_t *signer,
    const struct alx_manifest *m)
{
	const struct alx_role_pub *rp;

	if (c->role == ALX_ROLE_OWNER)
		return alx_ct_eq(signer, m->owner_pk, ALX_SIGN_PK_LEN) ?
		    ALX_OK : ALX_ERR_WRONG_ROLE;
	rp = &m->roles[c->role];
	if (!rp->present || c->n < 1 || c->n > rp->n)
		return ALX_ERR_WRONG_ROLE;
	if (c->n == rp->n)
		return alx_ct_eq(signer, rp->pk, ALX_SIGN_PK_LEN) ? ALX_OK :
		    ALX_ERR_WRONG_ROLE;
	/* An earlier role key: valid only for participants kept across it. */
	if ((size_t)(c->n - 1) >= rp->nold ||
	    !alx_ct_eq(signer, rp->old[c->n - 1], ALX_SIGN_PK_LEN))
		return ALX_ERR_WRONG_ROLE;
	return alx_manifest_is_kept(m, c->fp) ? ALX_OK : ALX_ERR_REVOKED;
}

int
alx_cert_valid(const struct alx_cert *c, const struct alx_manifest *m)
{
	int	r;

	if (!alx_ct_eq(c->sid, m->sid, ALX_SID_LEN))
		return ALX_ERR_WRONG_SESSION;
	if ((r = alx_cert_signer_ok(c, c->obj.key, m)) != ALX_OK)
		return r;
	if (alx_manifest_is_revoked(m, c->fp))
		return ALX_ERR_REVOKED;
	return ALX_OK;
}

static int
alx_cert_decode(struct alx_cert *c, const uint8_t *body, size_t len)
{
	struct alx_json	*j;
	char		*s = NULL;
	int		 r;

	if ((r = alx_body_begin(&j, body, len, ALX_SMALL_BODY_MAX)) != ALX_OK)
		return r;
	if ((r = alx_json_get_b64(j, 0, "sid", c->sid, ALX_SID_LEN)) != ALX_OK)
		goto out;
	if ((r = alx_json_get_str(j, 0, "role", &s, 16)) != ALX_OK)
		goto out;
	r = alx_role_parse(s, &c->role);
	free(s);
	s = NULL;
	if (r != ALX_OK)
		goto out;
	if ((r = alx_json_get_int(j, 0, "n", &c->n, 0, ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_json_get_b64(j, 0, "pk", c->pk, sizeof(c->pk))) != ALX_OK ||
	    (r = alx_json_get_b64(j, 0, "kx", c->kx, sizeof(c->kx))) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "time", &c->time, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK)
		goto out;
	if ((r = alx_json_get_str(j, 0, "name", &s, ALX_DISPLAY_MAX)) != ALX_OK)
		goto out;
	if (!alx_display_valid(s)) {
		r = ALX_ERR_BAD_NAME;
		goto out;
	}
	strcpy(c->name, s);
	free(s);
	s = NULL;
	if ((r = alx_json_get_str(j, 0, "kind", &s, 16)) != ALX_OK)
		goto out;
	r = alx_pkind_parse(s, &c->kind);
out:
	free(s);
	alx_json_free(j);
	return r;
}

int
alx_cert_open(struct alx_cert *c, const char *json, size_t len,
    const struct alx_manifest *m)
{
	struct alx_signed	s;
	int			r;

	memset(c, 0, sizeof(*c));
	if ((r = alx_signed_parse(&s, json, len)) != ALX_OK)
		return r;
	if (strcmp(s.type, "cert") != 0) {
		alx_signed_free(&s);
		return ALX_ERR_INVALID;
	}
	/*
	 * Which key is trusted depends on the role the body claims; the
	 * signature is checked against the key in the object first, and the
	 * body is read only after it verifies; then that key must be the
	 * manifest's key for the role.
	 */
	if ((r = alx_signed_verify(&s, "cert", s.key)) != ALX_OK) {
		alx_signed_free(&s);
		return r;
	}
	c->obj = s;
	if ((r = alx_cert_decode(c, s.body, s.body_len)) != ALX_OK)
		goto fail;
	alx_fingerprint(c->fp, c->pk, sizeof(c->pk));
	if ((r = alx_cert_valid(c, m)) != ALX_OK)
		goto fail;
	return ALX_OK;
fail:
	alx_cert_free(c);
	return r;
}
