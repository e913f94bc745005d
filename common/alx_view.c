/*
 * alx_view.c: a participant's verified view of one session (see
 * airlox/view.h). Events of the relay's log are applied in order; each is
 * verified before it changes the view.
 */
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/json.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"
#include "airlox/view.h"
#include "alx_int.h"

#define ALX_VIEW_MAX_MEMBERS	4096
#define ALX_VIEW_MAX_JOBS	65536

int
alx_view_init(struct alx_view *v, const struct alx_invite *inv)
{
	int	r;

	memset(v, 0, sizeof(*v));
	memcpy(v->sid, inv->sid, ALX_SID_LEN);
	v->role = inv->role;
	if ((r = alx_seed_keys(inv->seed, &v->role_sk, &v->role_kx)) != ALX_OK)
		alx_view_free(v);
	return r;
}

void
alx_view_free(struct alx_view *v)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; i < v->nmans; i++)
		alx_manifest_free(&v->mans[i]);
	free(v->mans);
	for (i = 0; i < v->nmembers; i++) {
		alx_cert_free(&v->members[i].cert);
		alx_announce_free(&v->members[i].ann);
	}
	free(v->members);
	if (v->epochs != NULL)
		alx_wipe(v->epochs, v->nepochs * sizeof(*v->epochs));
	free(v->epochs);
	for (i = 0; i < v->njobs; i++)
		free(v->jobs[i].runners);
	free(v->jobs);
	alx_wipe(v, sizeof(*v));
}

void
alx_view_set_me(struct alx_view *v, const struct alx_signkey *sk,
    const struct alx_kxkey *kx)
{
	v->me_sk = *sk;
	v->me_kx = *kx;
	alx_fingerprint(v->me_fp, sk->pk, ALX_SIGN_PK_LEN);
	alx_b64_encode(v->me_fps, v->me_fp, ALX_FP_LEN);
	v->has_me = 1;
}

const struct alx_manifest *
alx_view_manifest(const struct alx_view *v)
{
	return v->nmans > 0 ? &v->mans[v->nmans - 1] : NULL;
}

int
alx_view_make_cert(struct alx_view *v, const char *name, int kind,
    int64_t now, struct alx_cert *out)
{
	const struct alx_manifest *m = alx_view_manifest(v);

	if (m == NULL || !v->has_me)
		return ALX_ERR_INVALID;
	memset(out, 0, sizeof(*out));
	memcpy(out->sid, v->sid, ALX_SID_LEN);
	out->role = v->role;
	out->n = v->role == ALX_ROLE_OWNER ? 0 : m->roles[v->role].n;
	memcpy(out->pk, v->me_sk.pk, ALX_SIGN_PK_LEN);
	memcpy(out->kx, v->me_kx.pk, ALX_KX_PK_LEN);
	if (strlen(name) > ALX_DISPLAY_MAX)
		return ALX_ERR_BAD_NAME;
	strcpy(out->name, name);
	out->kind = kind;
	out->time = now;
	return alx_cert_sign(out, &v->role_sk);
}

/* Remember the epoch key of m if one of its wraps is for us. */
static void
alx_view_learn_epoch(struct alx_view *v, const struct alx_manifest *m)
{
	struct alx_view_epoch	*ne;
	uint8_t			 key[ALX_KEY_LEN];
	size_t			 i;
	int			 r;

	for (i = 0; i < v->nepochs; i++)
		if (v->epochs[i].epoch == m->epoch)
			return;
	/* Through the role's wrap, our own (kept members), or the owner's. */
	r = alx_manifest_epoch_key(m, alx_role_name(v->role), &v->role_kx,
	    key);
	if (r != ALX_OK && v->has_me)
		r = alx_manifest_epoch_key(m, v->me_fps, &v->me_kx, key);
	if (r != ALX_OK)
		return;
	ne = realloc(v->epochs, (v->nepochs + 1) * sizeof(*ne));
	if (ne != NULL) {
		v->epochs = ne;
		v->epochs[v->nepochs].epoch = m->epoch;
		memcpy(v->epochs[v->nepochs].key, key, ALX_KEY_LEN);
		v->nepochs++;
	}
	alx_wipe(key, sizeof(key));
}

int
alx_view_add_manifest(struct alx_view *v, const char *json, size_t len)
{
	struct alx_manifest	*nm, *m;
	int			 r;

	if (v->nmans >= ALX_MAX_LIST)
		return ALX_ERR_TOO_LARGE;
	nm = realloc(v->mans, (v->nmans + 1) * sizeof(*nm));
	if (nm == NULL)
		return ALX_ERR_NOMEM;
	v->mans = nm;
	m = &v->mans[v->nmans];
	r = alx_manifest_open(m, json, len, v->sid,
	    v->nmans > 0 ? &v->mans[v->nmans - 1] : NULL);
	if (r != ALX_OK)
		return r;
	/* The version seen before must be the very same manifest. */
	if (m->ver == v->seen.ver &&
	    !alx_ct_eq(m->hash, v->seen.hash, ALX_HASH_LEN)) {
		alx_manifest_free(m);
		return ALX_ERR_ROLLBACK;
	}
	if (m->ver > v->seen.ver) {
		v->seen.ver = m->ver;
		memcpy(v->seen.hash, m->hash, ALX_HASH_LEN);
		v->seen.epoch = m->epoch;
	}
	v->nmans++;
	alx_view_learn_epoch(v, m);
	return ALX_OK;
}

void
alx_view_set_seen(struct alx_view *v, const struct alx_view_seen *seen)
{
	size_t	i;

	/* A manifest the view holds already must be the one seen. */
	for (i = 0; i < v->nmans; i++)
		if (v->mans[i].ver == seen->ver &&
		    !alx_ct_eq(v->mans[i].hash, seen->hash, ALX_HASH_LEN))
			v->forked = 1;
	if (seen->ver > v->seen.ver)
		v->seen = *seen;
}

int
alx_view_check_current(const struct alx_view *v)
{
	const struct alx_manifest	*m = alx_view_manifest(v);
	size_t				 i;

	if (v->forked)
		return ALX_ERR_ROLLBACK;
	if (v->seen.ver == 0)
		return ALX_OK;
	if (m == NULL || m->ver < v->seen.ver || m->epoch < v->seen.epoch)
		return ALX_ERR_ROLLBACK;
	for (i = 0; i < v->nmans; i++)
		if (v->mans[i].ver == v->seen.ver &&
		    !alx_ct_eq(v->mans[i].hash, v->seen.hash, ALX_HASH_LEN))
			return ALX_ERR_ROLLBACK;
	return ALX_OK;
}

int
alx_view_seen_encode(const struct alx_view_seen *seen, char **json,
    size_t *len)
{
	struct alx_jw	w;
	int		r;

	alx_jw_init(&w, 256);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "v", 1);
	alx_jw_kint(&w, "ver", seen->ver);
	alx_jw_kb64(&w, "hash", seen->hash, ALX_HASH_LEN);
	alx_jw_kint(&w, "epoch", seen->epoch);
	alx_jw_obj_end(&w);
	r = alx_jw_finish(&w, json, len);
	alx_jw_free(&w);
	return r;
}

int
alx_view_seen_decode(struct alx_view_seen *seen, const char *json,
    size_t len)
{
	struct alx_json_limits	 lim = { 256, 2, 16 };
	struct alx_json		*j = NULL;
	int64_t			 v;
	int			 r;

	memset(seen, 0, sizeof(*seen));
	if ((r = alx_json_parse(&j, json, len, &lim)) != ALX_OK)
		return r;
	if (alx_json_type(j, 0) != ALX_JSON_OBJECT)
		r = ALX_ERR_TYPE;
	else if ((r = alx_json_get_int(j, 0, "v", &v, 1, 1)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "ver", &seen->ver, 1,
	    ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_json_get_b64(j, 0, "hash", seen->hash,
	    ALX_HASH_LEN)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "epoch", &seen->epoch, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK)
		memset(seen, 0, sizeof(*seen));
	alx_json_free(j);
	return r;
}

const struct alx_view_member *
alx_view_member_by_fp(const struct alx_view *v, const uint8_t fp[ALX_FP_LEN])
{
	size_t	i;

	for (i = 0; i < v->nmembers; i++)
		if (alx_ct_eq(v->members[i].cert.fp, fp, ALX_FP_LEN))
			return &v->members[i];
	return NULL;
}

size_t
alx_view_members_by_name(const struct alx_view *v, const char *name,
    const struct alx_view_member **out)
{
	size_t	i, n = 0;

	*out = NULL;
	for (i = 0; i < v->nmembers; i++) {
		if (strcmp(v->members[i].cert.name, name) != 0)
			continue;
		if (n++ == 0)
			*out = &v->members[i];
	}
	return n;
}

int
alx_view_add_cert(struct alx_view *v, const char *json, size_t len,
    int64_t cursor, const struct alx_view_member **out)
{
	const struct alx_manifest	*m = alx_view_manifest(v);
	struct alx_view_member		*nm;
	struct alx_cert			 c;
	int				 r;

	if (m == NULL)
		return ALX_ERR_ORDER;
	if ((r = alx_cert_open(&c, json, len, m)) != ALX_OK)
		return r;
	if (alx_view_member_by_fp(v, c.fp) != NULL) {
		alx_cert_free(&c);
		return ALX_ERR_EXISTS;
	}
	if (v->nmembers >= ALX_VIEW_MAX_MEMBERS) {
		alx_cert_free(&c);
		return ALX_ERR_TOO_LARGE;
	}
	nm = realloc(v->members, (v->nmembers + 1) * sizeof(*nm));
	if (nm == NULL) {
		alx_cert_free(&c);
		return ALX_ERR_NOMEM;
	}
	v->members = nm;
	memset(&nm[v->nmembers], 0, sizeof(*nm));
	nm[v->nmembers].cert = c;
	nm[v->nmembers].joined = cursor;
	if (out != NULL)
		*out = &nm[v->nmembers];
	v->nmembers++;
	return ALX_OK;
}

/* The signer of an item object, found by the fingerprint of its key. */
static struct alx_view_member *
alx_view_signer(struct alx_view *v, const char *json, size_t len, int *err)
{
	struct alx_signed	 s;
	uint8_t			 fp[ALX_FP_LEN];
	size_t			 i;

	if ((*err = alx_signed_parse(&s, json, len)) != ALX_OK)
		return NULL;
	alx_fingerprint(fp, s.key, ALX_SIGN_PK_LEN);
	alx_signed_free(&s);
	for (i = 0; i < v->nmembers; i++)
		if (alx_ct_eq(v->members[i].cert.fp, fp, ALX_FP_LEN))
			return &v->members[i];
	*err = ALX_ERR_UNKNOWN_KEY;
	return NULL;
}

static int
alx_view_note_job(struct alx_view *v, const struct alx_item *it)
{
	struct alx_view_job	*nj;
	size_t			 i;
	int			 r;

	if (v->njobs >= ALX_VIEW_MAX_JOBS)
		return ALX_ERR_TOO_LARGE;
	if ((nj = realloc(v->jobs, (v->njobs + 1) * sizeof(*nj))) == NULL)
		return ALX_ERR_NOMEM;
	v->jobs = nj;
	nj += v->njobs;
	memset(nj, 0, sizeof(*nj));
	if ((r = alx_job_wrap_fps(it, &nj->runners, &nj->nrunners)) != ALX_OK)
		return r;
	memcpy(nj->id, it->id, ALX_ID_LEN);
	memcpy(nj->hash, it->hash, ALX_HASH_LEN);
	memcpy(nj->author, it->author, ALX_FP_LEN);
	memcpy(nj->kc, it->kc, ALX_HASH_LEN);
	nj->is_label = it->job.is_label;
	nj->not_after = it->job.not_after;
	/* Only the wraps this participant could open. */
	for (i = 0; i < it->job.nwraps && nj->nwraps < 2; i++)
		if ((v->role == ALX_ROLE_OWNER &&
		    strcmp(it->job.wraps[i].to, "owner") == 0) ||
		    (v->has_me && strcmp(it->job.wraps[i].to, v->me_fps) == 0))
			nj->wraps[nj->nwraps++] = it->job.wraps[i];
	v->njobs++;
	return ALX_OK;
}

/* The key of a job the view has seen, through its wraps to us. */
int
alx_view_job_key(const struct alx_view *v, const struct alx_view_job *vj,
    uint8_t kjob[ALX_KEY_LEN])
{
	const struct alx_kxkey	*kx;
	uint8_t			 ctx[64], kc[ALX_HASH_LEN];
	size_t			 i, n;

	n = alx_wrap_ctx_job(ctx, v->sid, vj->id);
	for (i = 0; i < vj->nwraps; i++) {
		kx = strcmp(vj->wraps[i].to, "owner") == 0 ? &v->role_kx :
		    &v->me_kx;
		if (alx_wrap_open(&vj->wraps[i], kx, ctx, n, kjob) != ALX_OK)
			continue;
		/* The key the job's envelope commits to, and no other. */
		if (alx_item_commit(kjob, kc) == ALX_OK &&
		    alx_ct_eq(kc, vj->kc, ALX_HASH_LEN))
			return ALX_OK;
		alx_wipe(kjob, ALX_KEY_LEN);
	}
	return ALX_ERR_NOT_RECIPIENT;
}

static struct alx_view_job *
alx_view_job_rw(struct alx_view *v, const uint8_t id[ALX_ID_LEN])
{
	size_t	i;

	for (i = 0; i < v->njobs; i++)
		if (memcmp(v->jobs[i].id, id, ALX_ID_LEN) == 0)
			return &v->jobs[i];
	return NULL;
}

/* An accepted item: a job is remembered, a job's result noted. */
static int
alx_view_note(struct alx_view *v, const struct alx_item *it)
{
	struct alx_view_job	*job;

	if (it->has_job)
		return alx_view_job(v, it->id) != NULL ? ALX_OK :
		    alx_view_note_job(v, it);
	if (strcmp(it->kind, "result") == 0 && it->has_reply_to &&
	    (job = alx_view_job_rw(v, it->reply_to)) != NULL)
		job->has_result = 1;
	return ALX_OK;
}

const struct alx_view_job *
alx_view_job(const struct alx_view *v, const uint8_t id[ALX_ID_LEN])
{
	size_t	i;

	for (i = 0; i < v->njobs; i++)
		if (memcmp(v->jobs[i].id, id, ALX_ID_LEN) == 0)
			return &v->jobs[i];
	return NULL;
}

int
alx_view_is_approved(const struct alx_view *v, const uint8_t fp[ALX_FP_LEN])
{
	return alx_manifest_runner_approved(alx_view_manifest(v), fp);
}

/* The rules of alx_item_check_rules(), with what the log showed of a job. */
static int
alx_view_check_rules(const struct alx_view *v, const struct alx_item *it,
    const struct alx_view_member *au)
{
	const struct alx_view_job	*vj = NULL;
	struct alx_jobref		 ref;

	memset(&ref, 0, sizeof(ref));
	if (it->has_reply_to && (vj = alx_view_job(v, it->reply_to)) != NULL) {
		memcpy(ref.author, vj->author, ALX_FP_LEN);
		ref.is_label = vj->is_label;
		ref.runners = (const uint8_t (*)[ALX_FP_LEN])vj->runners;
		ref.nrunners = vj->nrunners;
		ref.has_result = vj->has_result;
	}
	return alx_item_check_rules(alx_view_manifest(v), &au->cert, it,
	    vj != NULL ? &ref : NULL);
}

static int	alx_view_own_seen(struct alx_view *, const struct alx_item *);

int
alx_view_add_item(struct alx_view *v, const char *json, size_t len,
    struct alx_item *out, const struct alx_view_member **author,
    int *refused)
{
	const struct alx_manifest	*m = alx_view_manifest(v);
	struct alx_view_member		*au;
	struct alx_item			 it;
	int				 r;

	memset(out, 0, sizeof(*out));
	*refused = 0;
	if (m == NULL)
		return ALX_ERR_ORDER;
	if ((au = alx_view_signer(v, json, len, &r)) == NULL)
		return r;
	/* The author's certificate must still hold in the current manifest. */
	if ((r = alx_cert_valid(&au->cert, m)) != ALX_OK)
		return r;
	if ((r = alx_item_open(&it, json, len, v->sid, au->cert.pk)) != ALX_OK)
		return r;
	if ((r = alx_item_check_manifest(&it, m)) != ALX_OK)
		goto fail;
	/* Our own item, noted when posted, now seen in the log: once. */
	if (alx_view_own_seen(v, &it)) {
		if ((r = alx_view_note(v, &it)) != ALX_OK)
			goto fail;
		goto done;
	}
	/* A gap or a repeat in an author's chain: the relay's doing. */
	if ((r = alx_item_check_chain(&it, au->last_seq,
	    au->last_seq > 0 ? au->last_hash : NULL)) != ALX_OK)
		goto fail;
	au->last_seq = it.seq;
	memcpy(au->last_hash, it.hash, ALX_HASH_LEN);
	/*
	 * Signed and in its place, so its author answers for it: an item it
	 * had no right to post is passed over, and the log goes on.
	 */
	if ((*refused = alx_view_check_rules(v, &it, au)) == ALX_OK &&
	    (r = alx_view_note(v, &it)) != ALX_OK)
		goto fail;
done:
	*out = it;
	if (author != NULL)
		*author = au;
	return ALX_OK;
fail:
	alx_item_free(&it);
	return r;
}

int
alx_view_epoch_key(const struct alx_view *v, int64_t e,
    uint8_t key[ALX_KEY_LEN])
{
	size_t	i;

	for (i = 0; i < v->nepochs; i++) {
		if (v->epochs[i].epoch == e) {
			memcpy(key, v->epochs[i].key, ALX_KEY_LEN);
			return ALX_OK;
		}
	}
	return ALX_ERR_NOT_RECIPIENT;
}

int
alx_view_item_key(const struct alx_view *v, const struct alx_item *it,
    uint8_t kitem[ALX_KEY_LEN])
{
	const struct alx_view_job	*vj;
	uint8_t				 ekey[ALX_KEY_LEN], kjob[ALX_KEY_LEN];
	int				 r;

	if (it->has_job) {
		if (v->role == ALX_ROLE_OWNER &&
		    alx_item_job_key(it, "owner", &v->role_kx, kitem) == ALX_OK)
			return ALX_OK;
		if (!v->has_me)
			return ALX_ERR_NOT_RECIPIENT;
		return alx_item_job_key(it, v->me_fps, &v->me_kx, kitem);
	}
	/* A reply to a job: for the job's readers only. */
	if (it->has_reply_to && alx_kind_job_reply(it->kind)) {
		if ((vj = alx_view_job(v, it->reply_to)) == NULL)
			return ALX_ERR_NOT_FOUND;
		if ((r = alx_view_job_key(v, vj, kjob)) != ALX_OK)
			return r;
		r = alx_item_key_reply(kjob, it->id, kitem);
		alx_wipe(kjob, sizeof(kjob));
		return r;
	}
	if (!alx_kind_member_readable(it->kind))
		return ALX_ERR_NOT_RECIPIENT;
	if ((r = alx_view_epoch_key(v, it->epoch, ekey)) != ALX_OK)
		return r;
	r = alx_item_key_epoch(ekey, it->id, kitem);
	alx_wipe(ekey, sizeof(ekey));
	return r;
}

int
alx_view_private(const struct alx_view *v, struct alx_private *p)
{
	const struct alx_manifest	*m = alx_view_manifest(v);
	uint8_t				 ekey[ALX_KEY_LEN];
	int				 r;

	if (m == NULL)
		return ALX_ERR_ORDER;
	if ((r = alx_view_epoch_key(v, m->epoch, ekey)) != ALX_OK)
		return r;
	r = alx_manifest_open_private(m, ekey, p);
	alx_wipe(ekey, sizeof(ekey));
	return r;
}

void
alx_view_event_free(struct alx_view_event *ev)
{
	alx_item_free(&ev->item);
	alx_announce_free(&ev->announce);
	memset(ev, 0, sizeof(*ev));
}

/* The relay's event types, by enum alx_view_evtype (REFUSED is ours). */
static const char *alx_evnames[] = {
	NULL, "manifest", "join", "item", "complete", "announce", "closed"
};

/* What a member keeps of its announcement: no signed object, no time. */
static int
alx_view_keep_announce(struct alx_view_member *au, const struct alx_announce *a)
{
	struct alx_announce	k;
	size_t			i;

	memset(&k, 0, sizeof(k));
	memcpy(k.sid, a->sid, ALX_SID_LEN);
	memcpy(k.runner, a->runner, ALX_FP_LEN);
	memcpy(k.name, a->name, sizeof(k.name));
	k.slots = a->slots;
	k.kinds = a->kinds;
	memcpy(k.sandbox, a->sandbox, sizeof(k.sandbox));
	memcpy(k.version, a->version, sizeof(k.version));
	k.network = a->network;
	k.time = a->time;
	if (a->nlabels > 0 &&
	    (k.labels = calloc(a->nlabels, sizeof(*k.labels))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < a->nlabels; i++, k.nlabels++)
		if ((k.labels[i] = strdup(a->labels[i])) == NULL) {
			alx_announce_free(&k);
			return ALX_ERR_NOMEM;
		}
	alx_announce_free(&au->ann);
	au->ann = k;
	au->has_ann = 1;
	return ALX_OK;
}

/* The announcement of a runner that is a member of the session. */
static int
alx_view_apply_announce(struct alx_view *v, const char *raw, size_t len,
    struct alx_view_event *ev)
{
	struct alx_view_member	*au;
	int			 r;

	if ((au = alx_view_signer(v, raw, len, &r)) == NULL)
		return r;
	if (au->cert.role != ALX_ROLE_RUNNER)
		return ALX_ERR_WRONG_ROLE;
	if ((r = alx_cert_valid(&au->cert, alx_view_manifest(v))) != ALX_OK)
		return r;
	ev->member = au;
	if ((r = alx_announce_open(&ev->announce, raw, len, v->sid,
	    au->cert.pk)) != ALX_OK)
		return r;
	return alx_view_keep_announce(au, &ev->announce);
}

static int
alx_view_apply_data(struct alx_view *v, const struct alx_json *j, int data,
    struct alx_view_event *ev)
{
	const char	*raw;
	size_t		 len;
	int		 r;

	if (ev->type == ALX_EV_COMPLETE)
		return alx_json_get_b64(j, data, "id", ev->id, ALX_ID_LEN);
	if (ev->type == ALX_EV_CLOSED) {
		v->closed = 1;
		return ALX_OK;
	}
	if (alx_json_type(j, data) != ALX_JSON_OBJECT)
		return ALX_ERR_TYPE;
	if ((r = alx_json_raw(j, data, &raw, &len)) != ALX_OK)
		return r;
	switch (ev->type) {
	case ALX_EV_MANIFEST:
		return alx_view_add_manifest(v, raw, len);
	case ALX_EV_JOIN:
		return alx_view_add_cert(v, raw, len, ev->cursor, &ev->member);
	case ALX_EV_ITEM:
		if ((r = alx_view_add_item(v, raw, len, &ev->item, &ev->member,
		    &ev->refused)) == ALX_OK && ev->refused != ALX_OK)
			ev->type = ALX_EV_REFUSED;
		return r;
	case ALX_EV_ANNOUNCE:
		return alx_view_apply_announce(v, raw, len, ev);
	}
	return ALX_ERR_INVALID;
}

int
alx_view_apply(struct alx_view *v, const char *json, size_t len,
    struct alx_view_event *ev)
{
	struct alx_json_limits	 lim = { ALX_ITEM_BODY_MAX * 2, 8, 4096 };
	struct alx_json		*j = NULL;
	int			 data, r;
	size_t			 i;

	memset(ev, 0, sizeof(*ev));
	lim.max_bytes = 2 * ALX_B64_ENCLEN(ALX_MANIFEST_BODY_MAX);
	if ((r = alx_json_parse(&j, json, len, &lim)) != ALX_OK)
		return r;
	if (alx_json_type(j, 0) != ALX_JSON_OBJECT) {
		r = ALX_ERR_TYPE;
		goto out;
	}
	if ((r = alx_json_get_int(j, 0, "cursor", &ev->cursor, 1,
	    ALX_JSON_INT_MAX)) != ALX_OK)
		goto out;
	if (ev->cursor <= v->cursor) {
		r = ALX_ERR_REPLAYED;
		goto out;
	}
	for (i = 1; i < sizeof(alx_evnames) / sizeof(alx_evnames[0]); i++)
		if (alx_json_str_eq(j, alx_json_obj_get(j, 0, "type"),
		    alx_evnames[i]))
			ev->type = (int)i;
	if (ev->type == 0) {
		r = ALX_ERR_INVALID;
		goto out;
	}
	if ((data = alx_json_obj_get(j, 0, "data")) < 0) {
		r = ALX_ERR_MISSING;
		goto out;
	}
	if ((r = alx_view_apply_data(v, j, data, ev)) == ALX_OK)
		v->cursor = ev->cursor;
out:
	alx_json_free(j);
	if (r != ALX_OK)
		alx_view_event_free(ev);
	return r;
}

int
alx_view_item_begin(struct alx_view *v, struct alx_item *it, const char *kind,
    int64_t now)
{
	const struct alx_manifest	*m = alx_view_manifest(v);
	const struct alx_view_member	*me;
	int				 r;

	if (m == NULL || !v->has_me)
		return ALX_ERR_INVALID;
	if (strlen(kind) > ALX_KIND_MAX)
		return ALX_ERR_INVALID;
	if ((r = alx_view_check_current(v)) != ALX_OK)
		return r;
	memset(it, 0, sizeof(*it));
	memcpy(it->sid, v->sid, ALX_SID_LEN);
	if ((r = alx_random(it->id, ALX_ID_LEN)) != ALX_OK)
		return r;
	strcpy(it->kind, kind);
	memcpy(it->author, v->me_fp, ALX_FP_LEN);
	me = alx_view_member_by_fp(v, v->me_fp);
	it->seq = (me != NULL ? me->last_seq : 0) + 1;
	if (me != NULL && me->last_seq > 0) {
		it->has_prev = 1;
		memcpy(it->prev, me->last_hash, ALX_HASH_LEN);
	}
	it->time = now;
	it->mv = m->ver;
	it->epoch = m->epoch;
	return ALX_OK;
}

/* Was this item noted by alx_view_note_own()? Forget it once seen. */
static int
alx_view_own_seen(struct alx_view *v, const struct alx_item *it)
{
	size_t	i;

	if (!v->has_me || !alx_ct_eq(it->author, v->me_fp, ALX_FP_LEN))
		return 0;
	for (i = 0; i < v->nown; i++) {
		if (v->own[i].seq != it->seq ||
		    !alx_ct_eq(v->own[i].hash, it->hash, ALX_HASH_LEN))
			continue;
		memmove(&v->own[i], &v->own[i + 1],
		    (v->nown - i - 1) * sizeof(v->own[0]));
		v->nown--;
		return 1;
	}
	return 0;
}

void
alx_view_note_own(struct alx_view *v, const struct alx_item *it)
{
	struct alx_view_member	*me = NULL;
	size_t			 i;

	for (i = 0; i < v->nmembers; i++)
		if (alx_ct_eq(v->members[i].cert.fp, it->author, ALX_FP_LEN))
			me = &v->members[i];
	if (me == NULL || it->seq != me->last_seq + 1)
		return;
	me->last_seq = it->seq;
	memcpy(me->last_hash, it->hash, ALX_HASH_LEN);
	if (v->nown == ALX_VIEW_OWN_MAX) {
		memmove(&v->own[0], &v->own[1],
		    (v->nown - 1) * sizeof(v->own[0]));
		v->nown--;
	}
	v->own[v->nown].seq = it->seq;
	memcpy(v->own[v->nown].hash, it->hash, ALX_HASH_LEN);
	v->nown++;
}
