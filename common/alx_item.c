/*
 * alx_item.c: item envelopes (protocol.md sections 7 and 8): what the
 * relay stores and routes, signed by the author over exact bytes, with the
 * per-author sequence number and hash chain.
 */
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/json.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"
#include "alx_int.h"

void
alx_item_free(struct alx_item *it)
{
	if (it == NULL)
		return;
	free(it->to);
	free(it->meta_ct);
	free(it->chunks);
	free(it->job.wraps);
	alx_signed_free(&it->obj);
	memset(it, 0, sizeof(*it));
}

static int
alx_item_check_fields(const struct alx_item *it)
{
	if (strlen(it->kind) == 0 || alx_name_valid(it->kind) == 0)
		return ALX_ERR_INVALID;
	if (it->seq < 1 || (it->seq == 1) == (it->has_prev != 0))
		return ALX_ERR_ORDER;
	if (it->size < 0 || it->size > ALX_ITEM_MAX_SIZE)
		return ALX_ERR_TOO_LARGE;
	if (alx_chunk_count(it->size) != it->nchunks)
		return ALX_ERR_TRUNCATED;
	if (it->nto > ALX_MAX_TO)
		return ALX_ERR_TOO_LARGE;
	if (it->meta_len < ALX_TAG_LEN)
		return ALX_ERR_TRUNCATED;
	if (it->meta_len > ALX_META_MAX + ALX_TAG_LEN)
		return ALX_ERR_TOO_LARGE;
	if ((strcmp(it->kind, "job") == 0) != (it->has_job != 0))
		return ALX_ERR_INVALID;
	if (it->has_job) {
		if (!alx_name_valid(it->job.name))
			return ALX_ERR_BAD_NAME;
		if (it->job.nwraps == 0)
			return ALX_ERR_MISSING;
		if (it->job.nwraps > ALX_MAX_WRAPS)
			return ALX_ERR_TOO_LARGE;
	}
	return ALX_OK;
}

static int
alx_item_encode(const struct alx_item *it, char **json, size_t *len)
{
	struct alx_jw	w;
	size_t		i;
	int		r;

	alx_jw_init(&w, ALX_ITEM_BODY_MAX);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "v", ALX_ITEM_VERSION);
	alx_jw_kb64(&w, "sid", it->sid, ALX_SID_LEN);
	alx_jw_kb64(&w, "id", it->id, ALX_ID_LEN);
	alx_jw_kstr(&w, "kind", it->kind);
	alx_jw_kb64(&w, "author", it->author, ALX_FP_LEN);
	alx_jw_kint(&w, "seq", it->seq);
	if (it->has_prev)
		alx_jw_kb64(&w, "prev", it->prev, ALX_HASH_LEN);
	alx_jw_kint(&w, "time", it->time);
	alx_jw_kint(&w, "mv", it->mv);
	alx_jw_kint(&w, "epoch", it->epoch);
	if (it->nto > 0) {
		alx_jw_key(&w, "to");
		alx_jw_arr_begin(&w);
		for (i = 0; i < it->nto; i++)
			alx_jw_b64(&w, it->to[i], ALX_FP_LEN);
		alx_jw_arr_end(&w);
	}
	if (it->has_reply_to)
		alx_jw_kb64(&w, "reply_to", it->reply_to, ALX_ID_LEN);
	alx_jw_kb64(&w, "meta", it->meta_ct, it->meta_len);
	alx_jw_kb64(&w, "kc", it->kc, ALX_HASH_LEN);
	alx_jw_kint(&w, "size", it->size);
	alx_jw_key(&w, "chunks");
	alx_jw_arr_begin(&w);
	for (i = 0; i < it->nchunks; i++)
		alx_jw_b64(&w, it->chunks[i], ALX_HASH_LEN);
	alx_jw_arr_end(&w);
	if (it->has_job) {
		alx_jw_key(&w, "job");
		alx_jw_obj_begin(&w);
		alx_jw_key(&w, "target");
		alx_jw_obj_begin(&w);
		alx_jw_kstr(&w, it->job.is_label ? "label" : "runner",
		    it->job.name);
		alx_jw_obj_end(&w);
		alx_jw_kint(&w, "not_after", it->job.not_after);
		alx_jw_wraps(&w, "wraps", it->job.wraps, it->job.nwraps);
		alx_jw_obj_end(&w);
	}
	alx_jw_obj_end(&w);
	r = alx_jw_finish(&w, json, len);
	alx_jw_free(&w);
	return r;
}

int
alx_item_sign(struct alx_item *it, const struct alx_signkey *author)
{
	uint8_t	 fp[ALX_FP_LEN];
	char	*body = NULL;
	size_t	 len;
	int	 r;

	alx_fingerprint(fp, author->pk, ALX_SIGN_PK_LEN);
	if (!alx_ct_eq(fp, it->author, ALX_FP_LEN))
		return ALX_ERR_UNKNOWN_KEY;
	if ((r = alx_item_check_fields(it)) != ALX_OK)
		return r;
	if ((r = alx_item_encode(it, &body, &len)) != ALX_OK)
		return r;
	alx_signed_free(&it->obj);
	if ((r = alx_signed_seal(&it->obj, "item", body, len, author)) == ALX_OK)
		alx_signed_hash(&it->obj, it->hash);
	free(body);
	return r;
}

static int
alx_item_decode_job(struct alx_item *it, const struct alx_json *j)
{
	char	*name = NULL;
	int	 job, tgt, t, r;

	if ((job = alx_json_obj_get(j, 0, "job")) < 0)
		return strcmp(it->kind, "job") == 0 ? ALX_ERR_MISSING : ALX_OK;
	if (alx_json_type(j, job) != ALX_JSON_OBJECT)
		return ALX_ERR_TYPE;
	it->has_job = 1;
	if ((tgt = alx_json_obj_get(j, job, "target")) < 0)
		return ALX_ERR_MISSING;
	if (alx_json_type(j, tgt) != ALX_JSON_OBJECT ||
	    alx_json_obj_len(j, tgt) != 1)
		return ALX_ERR_INVALID;
	if (alx_json_has(j, tgt, "label")) {
		it->job.is_label = 1;
		r = alx_json_get_str(j, tgt, "label", &name, ALX_NAME_MAX);
	} else
		r = alx_json_get_str(j, tgt, "runner", &name, ALX_NAME_MAX);
	if (r != ALX_OK)
		return r;
	if (!alx_name_valid(name)) {
		free(name);
		return ALX_ERR_BAD_NAME;
	}
	strcpy(it->job.name, name);
	free(name);
	if ((r = alx_json_get_int(j, job, "not_after", &it->job.not_after, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK)
		return r;
	if ((t = alx_json_obj_get(j, job, "wraps")) < 0)
		return ALX_ERR_MISSING;
	if (alx_json_arr_len(j, t) > ALX_MAX_WRAPS)
		return ALX_ERR_TOO_LARGE;
	return alx_wraps_decode(j, t, &it->job.wraps, &it->job.nwraps);
}

static int
alx_item_decode(struct alx_item *it, const uint8_t *body, size_t len)
{
	struct alx_json	*j;
	char		*kind = NULL;
	uint8_t		*p;
	int		 r;

	if ((r = alx_body_begin_v(&j, body, len, ALX_ITEM_BODY_MAX,
	    ALX_ITEM_VERSION)) != ALX_OK)
		return r;
	if ((r = alx_json_get_b64(j, 0, "sid", it->sid, ALX_SID_LEN)) != ALX_OK ||
	    (r = alx_json_get_b64(j, 0, "id", it->id, ALX_ID_LEN)) != ALX_OK ||
	    (r = alx_json_get_b64(j, 0, "author", it->author,
	    ALX_FP_LEN)) != ALX_OK)
		goto out;
	if ((r = alx_json_get_str(j, 0, "kind", &kind, ALX_KIND_MAX)) != ALX_OK)
		goto out;
	strcpy(it->kind, kind);
	if ((r = alx_json_get_int(j, 0, "seq", &it->seq, 1,
	    ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "time", &it->time, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "mv", &it->mv, 1,
	    ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "epoch", &it->epoch, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "size", &it->size, 0,
	    ALX_ITEM_MAX_SIZE)) != ALX_OK)
		goto out;
	if (alx_json_has(j, 0, "prev")) {
		if ((r = alx_json_get_b64(j, 0, "prev", it->prev,
		    ALX_HASH_LEN)) != ALX_OK)
			goto out;
		it->has_prev = 1;
	}
	if (alx_json_has(j, 0, "reply_to")) {
		if ((r = alx_json_get_b64(j, 0, "reply_to", it->reply_to,
		    ALX_ID_LEN)) != ALX_OK)
			goto out;
		it->has_reply_to = 1;
	}
	if (alx_json_has(j, 0, "to")) {
		p = NULL;
		r = alx_b64list_decode(j, 0, "to", ALX_FP_LEN, ALX_MAX_TO, &p,
		    &it->nto);
		it->to = (uint8_t (*)[ALX_FP_LEN])p;
		if (r != ALX_OK)
			goto out;
	}
	p = NULL;
	r = alx_b64list_decode(j, 0, "chunks", ALX_HASH_LEN, ALX_MAX_CHUNKS,
	    &p, &it->nchunks);
	it->chunks = (uint8_t (*)[ALX_HASH_LEN])p;
	if (r != ALX_OK)
		goto out;
	if ((r = alx_json_get_b64_alloc(j, 0, "meta", &it->meta_ct,
	    &it->meta_len, ALX_META_MAX + ALX_TAG_LEN)) != ALX_OK ||
	    (r = alx_json_get_b64(j, 0, "kc", it->kc, ALX_HASH_LEN)) != ALX_OK)
		goto out;
	r = alx_item_decode_job(it, j);
out:
	free(kind);
	alx_json_free(j);
	return r;
}

/* With it->obj parsed and its signature checked by author_pk: the body. */
static int
alx_item_open_body(struct alx_item *it, const uint8_t sid[ALX_SID_LEN],
    const uint8_t author_pk[ALX_SIGN_PK_LEN])
{
	uint8_t	fp[ALX_FP_LEN];
	int	r;

	if ((r = alx_item_decode(it, it->obj.body, it->obj.body_len)) != ALX_OK)
		goto fail;
	alx_fingerprint(fp, author_pk, ALX_SIGN_PK_LEN);
	if (!alx_ct_eq(fp, it->author, ALX_FP_LEN)) {
		r = ALX_ERR_UNKNOWN_KEY;
		goto fail;
	}
	if (!alx_ct_eq(it->sid, sid, ALX_SID_LEN)) {
		r = ALX_ERR_WRONG_SESSION;
		goto fail;
	}
	if ((r = alx_item_check_fields(it)) != ALX_OK)
		goto fail;
	alx_signed_hash(&it->obj, it->hash);
	return ALX_OK;
fail:
	alx_item_free(it);
	return r;
}

int
alx_item_open(struct alx_item *it, const char *json, size_t len,
    const uint8_t sid[ALX_SID_LEN], const uint8_t author_pk[ALX_SIGN_PK_LEN])
{
	int	r;

	memset(it, 0, sizeof(*it));
	if ((r = alx_signed_open(&it->obj, json, len, "item",
	    author_pk)) != ALX_OK)
		return r;
	return alx_item_open_body(it, sid, author_pk);
}

int
alx_item_open_claimed(struct alx_item *it, const char *json, size_t len,
    const uint8_t sid[ALX_SID_LEN], uint8_t key_out[ALX_SIGN_PK_LEN])
{
	int	r;

	memset(it, 0, sizeof(*it));
	memset(key_out, 0, ALX_SIGN_PK_LEN);
	if ((r = alx_signed_parse(&it->obj, json, len)) != ALX_OK)
		return r;
	/* The object's own key: the caller decides whether it trusts it. */
	if ((r = alx_signed_verify(&it->obj, "item", it->obj.key)) != ALX_OK) {
		alx_signed_free(&it->obj);
		return r;
	}
	if ((r = alx_item_open_body(it, sid, it->obj.key)) != ALX_OK)
		return r;
	memcpy(key_out, it->obj.key, ALX_SIGN_PK_LEN);
	return ALX_OK;
}

int
alx_item_check_chain(const struct alx_item *it, int64_t last_seq,
    const uint8_t *last_hash)
{
	if (it->seq != last_seq + 1)
		return it->seq <= last_seq ? ALX_ERR_REPLAYED : ALX_ERR_ORDER;
	if (last_seq == 0)
		return it->has_prev ? ALX_ERR_ORDER : ALX_OK;
	if (!it->has_prev || last_hash == NULL ||
	    !alx_ct_eq(it->prev, last_hash, ALX_HASH_LEN))
		return ALX_ERR_ORDER;
	return ALX_OK;
}

int
alx_item_job_key(const struct alx_item *it, const char *to,
    const struct alx_kxkey *me, uint8_t kitem[ALX_KEY_LEN])
{
	uint8_t	ctx[64];
	size_t	i, n;
	int	r;

	if (!it->has_job)
		return ALX_ERR_INVALID;
	n = alx_wrap_ctx_job(ctx, it->sid, it->id);
	for (i = 0; i < it->job.nwraps; i++) {
		if (strcmp(it->job.wraps[i].to, to) != 0)
			continue;
		/* A wrap of another key than the envelope commits to. */
		if ((r = alx_wrap_open(&it->job.wraps[i], me, ctx, n,
		    kitem)) == ALX_OK &&
		    (r = alx_item_check_key(it, kitem)) != ALX_OK)
			alx_wipe(kitem, ALX_KEY_LEN);
		return r;
	}
	return ALX_ERR_NOT_RECIPIENT;
}

int
alx_item_is_to(const struct alx_item *it, const uint8_t fp[ALX_FP_LEN])
{
	size_t	i;

	for (i = 0; i < it->nto; i++)
		if (alx_ct_eq(it->to[i], fp, ALX_FP_LEN))
			return 1;
	return 0;
}

int
alx_item_check_manifest(const struct alx_item *it,
    const struct alx_manifest *m)
{
	if (it->mv != m->ver || it->epoch != m->epoch)
		return ALX_ERR_STALE_MANIFEST;
	if (it->size > m->item_max)
		return ALX_ERR_TOO_LARGE;
	return ALX_OK;
}

int
alx_item_check_expiry(const struct alx_item *it, int64_t now)
{
	if (it->has_job && it->job.not_after < now)
		return ALX_ERR_EXPIRED;
	return ALX_OK;
}
