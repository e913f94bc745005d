/*
 * alx_session.c: the owner's side of the manifest: creating a session, and
 * the updates that make a new manifest version (approve, revoke, rotate a
 * role, start a new epoch). Protocol.md section 4.
 */
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"
#include "alx_int.h"

void
alx_session_secrets_wipe(struct alx_session_secrets *s)
{
	alx_wipe(s, sizeof(*s));
}

/* Append one wrap of `ekey` for `to` to m->wraps. */
static int
alx_session_add_wrap(struct alx_manifest *m, const char *to,
    const uint8_t rpk[ALX_KX_PK_LEN], const uint8_t ekey[ALX_KEY_LEN])
{
	struct alx_wrap	*nw;
	uint8_t		 ctx[64];
	size_t		 n;
	static const uint8_t zero[ALX_SID_LEN];

	if (m->nwraps >= ALX_MAX_WRAPS + ALX_MAX_LIST)
		return ALX_ERR_TOO_LARGE;
	nw = realloc(m->wraps, (m->nwraps + 1) * sizeof(*nw));
	if (nw == NULL)
		return ALX_ERR_NOMEM;
	m->wraps = nw;
	n = alx_wrap_ctx_manifest(ctx, m->epoch == 0 ? zero : m->sid,
	    m->epoch);
	if (alx_wrap_seal(&m->wraps[m->nwraps], to, rpk, ctx, n, ekey) !=
	    ALX_OK)
		return ALX_ERR_CRYPTO;
	m->nwraps++;
	return ALX_OK;
}

/* Wrap the epoch key to the owner, every role and every kept member. */
static int
alx_session_wrap_all(struct alx_manifest *m, const uint8_t ekey[ALX_KEY_LEN],
    const struct alx_member *members, size_t nmembers)
{
	char	fps[ALX_FP_STRLEN + 1];
	size_t	i;
	int	r;

	free(m->wraps);
	m->wraps = NULL;
	m->nwraps = 0;
	if ((r = alx_session_add_wrap(m, "owner", m->owner_kx, ekey)) != ALX_OK)
		return r;
	for (i = ALX_ROLE_SENDER; i < ALX_ROLE_COUNT; i++) {
		if (!m->roles[i].present)
			continue;
		if ((r = alx_session_add_wrap(m, alx_role_name((int)i),
		    m->roles[i].kx, ekey)) != ALX_OK)
			return r;
	}
	for (i = 0; i < nmembers; i++) {
		if (!alx_manifest_is_kept(m, members[i].fp) ||
		    alx_manifest_is_revoked(m, members[i].fp))
			continue;
		alx_b64_encode(fps, members[i].fp, ALX_FP_LEN);
		if ((r = alx_session_add_wrap(m, fps, members[i].kx,
		    ekey)) != ALX_OK)
			return r;
	}
	return ALX_OK;
}

static int
alx_session_role_keys(struct alx_manifest *m, int role,
    const uint8_t seed[ALX_SEED_LEN])
{
	struct alx_signkey	sk;
	struct alx_kxkey	kx;
	int			r;

	if ((r = alx_seed_keys(seed, &sk, &kx)) != ALX_OK)
		return r;
	memcpy(m->roles[role].pk, sk.pk, ALX_SIGN_PK_LEN);
	memcpy(m->roles[role].kx, kx.pk, ALX_KX_PK_LEN);
	alx_sign_wipe(&sk);
	alx_kx_wipe(&kx);
	return ALX_OK;
}

int
alx_session_create(struct alx_manifest *m, struct alx_session_secrets *sec,
    const struct alx_session_params *p, const struct alx_private *priv)
{
	struct alx_signkey	owner;
	struct alx_kxkey	okx;
	int			i, r;

	memset(m, 0, sizeof(*m));
	memset(sec, 0, sizeof(*sec));
	if (p->mode != ALX_MODE_CHAT && p->mode != ALX_MODE_EXECUTE)
		return ALX_ERR_INVALID;
	/* What alx_manifest_open() accepts: never sign what cannot open. */
	if (p->item_max < 0 || p->item_max > ALX_ITEM_MAX_SIZE ||
	    p->session_max < 0 || p->expires < 0 || p->now < 0)
		return ALX_ERR_RANGE;
	if ((r = alx_random(sec->seed[ALX_ROLE_OWNER], ALX_SEED_LEN)) != ALX_OK)
		return r;
	if ((r = alx_seed_keys(sec->seed[ALX_ROLE_OWNER], &owner, &okx)) != ALX_OK)
		return r;
	m->ver = 1;
	m->mode = p->mode;
	m->created = p->now;
	m->expires = p->expires;
	m->item_max = p->item_max;
	m->session_max = p->session_max;
	m->approve = p->approve;
	memcpy(m->owner_pk, owner.pk, ALX_SIGN_PK_LEN);
	memcpy(m->owner_kx, okx.pk, ALX_KX_PK_LEN);
	if ((r = alx_random(m->nonce, sizeof(m->nonce))) != ALX_OK)
		goto out;
	for (i = ALX_ROLE_SENDER; i < ALX_ROLE_COUNT; i++) {
		if (i == ALX_ROLE_RUNNER && p->mode != ALX_MODE_EXECUTE)
			continue;
		if ((r = alx_random(sec->seed[i], ALX_SEED_LEN)) != ALX_OK ||
		    (r = alx_session_role_keys(m, i, sec->seed[i])) != ALX_OK)
			goto out;
		m->roles[i].present = 1;
		m->roles[i].n = 1;
	}
	m->epoch = 0;
	if ((r = alx_random(sec->epoch_key, ALX_KEY_LEN)) != ALX_OK ||
	    (r = alx_session_wrap_all(m, sec->epoch_key, NULL, 0)) != ALX_OK ||
	    (r = alx_manifest_seal_private(m, sec->epoch_key, priv)) != ALX_OK)
		goto out;
	r = alx_manifest_sign(m, &owner);
out:
	alx_sign_wipe(&owner);
	alx_kx_wipe(&okx);
	if (r != ALX_OK) {
		alx_manifest_free(m);
		alx_session_secrets_wipe(sec);
	}
	return r;
}

int
alx_manifest_next(struct alx_manifest *next, const struct alx_manifest *cur)
{
	int	r;

	if ((r = alx_manifest_copy(next, cur)) != ALX_OK)
		return r;
	alx_signed_free(&next->obj);
	next->ver = cur->ver + 1;
	next->has_prev = 1;
	memcpy(next->prev, cur->hash, ALX_HASH_LEN);
	memcpy(next->sid, cur->sid, ALX_SID_LEN);
	return ALX_OK;
}

static int
alx_fplist_add(uint8_t (**list)[ALX_FP_LEN], size_t *n,
    const uint8_t fp[ALX_FP_LEN])
{
	uint8_t	(*nl)[ALX_FP_LEN];
	size_t	 i;

	for (i = 0; i < *n; i++)
		if (alx_ct_eq((*list)[i], fp, ALX_FP_LEN))
			return ALX_OK;
	if (*n >= ALX_MAX_LIST)
		return ALX_ERR_TOO_LARGE;
	if ((nl = realloc(*list, (*n + 1) * ALX_FP_LEN)) == NULL)
		return ALX_ERR_NOMEM;
	memcpy(nl[*n], fp, ALX_FP_LEN);
	*list = nl;
	(*n)++;
	return ALX_OK;
}

int
alx_manifest_approve(struct alx_manifest *m, const uint8_t fp[ALX_FP_LEN],
    const char *name, const char *const *labels, size_t nlabels)
{
	struct alx_approved	*na, *a;
	size_t			 i;

	if (!alx_name_valid(name) || nlabels > ALX_MAX_LABELS)
		return ALX_ERR_BAD_NAME;
	for (i = 0; i < nlabels; i++)
		if (!alx_name_valid(labels[i]))
			return ALX_ERR_BAD_NAME;
	if (alx_manifest_find_approved(m, fp) != NULL)
		return ALX_OK;
	if (m->napproved >= ALX_MAX_LIST)
		return ALX_ERR_TOO_LARGE;
	na = realloc(m->approved, (m->napproved + 1) * sizeof(*na));
	if (na == NULL)
		return ALX_ERR_NOMEM;
	m->approved = na;
	a = &m->approved[m->napproved];
	memset(a, 0, sizeof(*a));
	memcpy(a->fp, fp, ALX_FP_LEN);
	strcpy(a->name, name);
	m->napproved++;
	if (nlabels == 0)
		return ALX_OK;
	if ((a->labels = calloc(nlabels, sizeof(char *))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < nlabels; i++) {
		if ((a->labels[i] = strdup(labels[i])) == NULL)
			return ALX_ERR_NOMEM;
		a->nlabels++;
	}
	return ALX_OK;
}

int
alx_manifest_unapprove(struct alx_manifest *m, const uint8_t fp[ALX_FP_LEN])
{
	size_t	i, k;

	for (i = 0; i < m->napproved; i++) {
		if (!alx_ct_eq(m->approved[i].fp, fp, ALX_FP_LEN))
			continue;
		for (k = 0; k < m->approved[i].nlabels; k++)
			free(m->approved[i].labels[k]);
		free(m->approved[i].labels);
		memmove(&m->approved[i], &m->approved[i + 1],
		    (m->napproved - i - 1) * sizeof(*m->approved));
		m->napproved--;
		return ALX_OK;
	}
	return ALX_ERR_NOT_FOUND;
}

int
alx_manifest_revoke(struct alx_manifest *m, const uint8_t fp[ALX_FP_LEN])
{
	/* A revoked runner is no longer approved either. */
	(void)alx_manifest_unapprove(m, fp);
	return alx_fplist_add(&m->revoked, &m->nrevoked, fp);
}

int
alx_manifest_rotate_role(struct alx_manifest *m, int role,
    uint8_t new_seed[ALX_SEED_LEN], const struct alx_member *members,
    size_t nmembers)
{
	struct alx_role_pub	*rp;
	uint8_t			(*old)[ALX_SIGN_PK_LEN];
	size_t			 i;
	int			 r;

	if (role <= ALX_ROLE_OWNER || role >= ALX_ROLE_COUNT ||
	    !m->roles[role].present)
		return ALX_ERR_WRONG_ROLE;
	rp = &m->roles[role];
	if (rp->nold + 1 >= ALX_MAX_LIST)
		return ALX_ERR_TOO_LARGE;
	if ((old = realloc(rp->old, (rp->nold + 1) * ALX_SIGN_PK_LEN)) == NULL)
		return ALX_ERR_NOMEM;
	rp->old = old;
	memcpy(rp->old[rp->nold], rp->pk, ALX_SIGN_PK_LEN);
	rp->nold++;
	rp->n++;
	if ((r = alx_random(new_seed, ALX_SEED_LEN)) != ALX_OK ||
	    (r = alx_session_role_keys(m, role, new_seed)) != ALX_OK)
		return r;
	/* The role's current participants carry on. */
	for (i = 0; i < nmembers; i++) {
		if (members[i].role != role ||
		    alx_manifest_is_revoked(m, members[i].fp))
			continue;
		if ((r = alx_fplist_add(&m->keep, &m->nkeep,
		    members[i].fp)) != ALX_OK)
			return r;
	}
	return ALX_OK;
}

int
alx_manifest_new_epoch(struct alx_manifest *m, uint8_t ekey[ALX_KEY_LEN],
    const struct alx_private *priv, const struct alx_member *members,
    size_t nmembers)
{
	int	r;

	m->epoch++;
	if ((r = alx_random(ekey, ALX_KEY_LEN)) != ALX_OK)
		return r;
	if ((r = alx_session_wrap_all(m, ekey, members, nmembers)) != ALX_OK)
		return r;
	return alx_manifest_seal_private(m, ekey, priv);
}

int
alx_manifest_finish(struct alx_manifest *m, const struct alx_signkey *owner,
    const uint8_t ekey[ALX_KEY_LEN], const struct alx_private *priv)
{
	int	r;

	if ((r = alx_manifest_seal_private(m, ekey, priv)) != ALX_OK)
		return r;
	return alx_manifest_sign(m, owner);
}

int
alx_manifest_revoke_member(struct alx_manifest *m,
    const struct alx_member *who, const struct alx_member *members,
    size_t nmembers, const struct alx_private *priv,
    uint8_t new_seed[ALX_SEED_LEN], uint8_t ekey[ALX_KEY_LEN])
{
	int	r;

	if (who->role == ALX_ROLE_OWNER)
		return ALX_ERR_WRONG_ROLE;
	if ((r = alx_manifest_revoke(m, who->fp)) != ALX_OK ||
	    (r = alx_manifest_rotate_role(m, who->role, new_seed, members,
	    nmembers)) != ALX_OK)
		return r;
	return alx_manifest_new_epoch(m, ekey, priv, members, nmembers);
}
