/*
 * alxs_item.c: posting items and opening them.
 *
 * A payload streams from disk one chunk at a time (twice: once to hash the
 * sealed chunks for the signed envelope, once to upload them), so memory
 * stays bounded whatever the file's size. Reading streams to disk the same
 * way: each chunk is checked against the hash in the verified envelope and
 * its tag before its plaintext is written, into a temporary file that
 * becomes the final name only when every chunk opened; an existing file is
 * never overwritten.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "alxs.h"


/* Our own chain as the relay knows it (GET participants). */
static int
item_my_chain(struct alxs_sess *cs, int64_t *seq, uint8_t hash[ALX_HASH_LEN],
    int *has_hash)
{
	struct alx_json		*j = NULL;
	struct alx_cert		 cert;
	const char		*raw;
	size_t			 len;
	int			 arr, i, n, p, r, c;

	*seq = 0;
	*has_hash = 0;
	if ((r = alxs_sess_participants(cs, &j, &arr, &n)) != 0)
		return r;
	for (i = 0; i < n; i++) {
		p = alx_json_arr_at(j, arr, i);
		/* A bare certificate (no last_seq) says less. */
		c = alxs_sess_participant_cert(j, p);
		if (alx_json_raw(j, c, &raw, &len) != 0 ||
		    alx_cert_open(&cert, raw, len,
		    alx_view_manifest(&cs->view)) != 0)
			continue;
		c = memcmp(cert.pk, cs->me.sk.pk, ALX_SIGN_PK_LEN) == 0;
		alx_cert_free(&cert);
		if (!c)
			continue;
		if (!alx_json_has(j, p, "last_seq")) {
			r = ALX_ERR_MISSING;
			goto out;
		}
		if ((r = alx_json_get_int(j, p, "last_seq", seq, 0,
		    ALX_JSON_INT_MAX)) != 0)
			goto out;
		if (*seq > 0) {
			if ((r = alx_json_get_b64(j, p, "last_hash", hash,
			    ALX_HASH_LEN)) != 0)
				goto out;
			*has_hash = 1;
		}
		goto out;
	}
	r = ALX_ERR_NOT_PARTICIPANT;
out:
	alx_json_free(j);
	return r;
}

static int
item_read_chunk(int fd, int64_t size, size_t i, uint8_t *pt, size_t *len)
{
	off_t	off = (off_t)i * ALX_CHUNK_SIZE;
	size_t	want, got = 0;
	ssize_t	n;

	want = (size_t)(size - off < ALX_CHUNK_SIZE ? size - off :
	    ALX_CHUNK_SIZE);
	while (got < want) {
		n = pread(fd, pt + got, want - got, off + (off_t)got);
		if (n <= 0)
			return ALX_ERR_IO;
		got += (size_t)n;
	}
	*len = want;
	return 0;
}

/* Seal every chunk to fill the envelope's hashes. */
int
alxs_item_hash_chunks(struct alx_item *it, const uint8_t kitem[ALX_KEY_LEN],
    int fd, uint8_t *pt, uint8_t *ct)
{
	size_t	i, len;
	int	r;

	it->nchunks = alx_chunk_count(it->size);
	if (it->nchunks == 0)
		return 0;
	if ((it->chunks = calloc(it->nchunks, ALX_HASH_LEN)) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < it->nchunks; i++) {
		if ((r = item_read_chunk(fd, it->size, i, pt, &len)) != 0 ||
		    (r = alx_chunk_seal(it, kitem, i, pt, len, ct)) != 0)
			return r;
		alx_sha256(it->chunks[i], ct, len + ALX_TAG_LEN);
	}
	return 0;
}

int
alxs_item_upload_chunks(struct alxs_sess *cs, const struct alx_item *it,
    const uint8_t kitem[ALX_KEY_LEN], int fd, uint8_t *pt, uint8_t *ct,
    char **cause)
{
	struct alxs_resp	 resp;
	char			 path[192], id[ALX_FP_STRLEN + 1];
	size_t			 i, len;
	int			 r;

	alx_b64_encode(id, it->id, ALX_ID_LEN);
	for (i = 0; i < it->nchunks; i++) {
		if ((r = item_read_chunk(fd, it->size, i, pt, &len)) != 0 ||
		    (r = alx_chunk_seal(it, kitem, i, pt, len, ct)) != 0)
			return r;
		alxs_sess_path(cs, path, sizeof(path), "/items/%s/chunks/%zu",
		    id,
		    i);
		r = alxs_http_request(&cs->http, "PUT", path, ct,
		    len + ALX_TAG_LEN,
		    "application/octet-stream", 1, 4096, &resp);
		if (r == ALX_ERR_EXISTS)
			r = 0;
		if (r == ALX_ERR_BAD_HASH && asprintf(cause, "the file "
		    "changed while it was being sent") < 0)
			*cause = NULL;
		alxs_http_resp_free(&resp);
		if (r != 0)
			return r;
	}
	return 0;
}

/*
 * seq and prev of the next item: from the cache (unless refresh), else the
 * relay's participant list, else the log (the view tracks every author's
 * chain).
 */
static int
item_chain(struct alxs_sess *cs, struct alx_item *it, int refresh)
{
	const struct alx_view_member	*me;
	int				 has_hash, r;

	if (!refresh && cs->me.has_chain && cs->view.cursor == 0) {
		it->seq = cs->me.seq + 1;
		it->has_prev = cs->me.seq > 0;
		memcpy(it->prev, cs->me.hash, ALX_HASH_LEN);
		return 0;
	}
	if (cs->view.cursor == 0) {
		r = item_my_chain(cs, &it->seq, it->prev, &has_hash);
		if (r == 0) {
			it->seq++;
			it->has_prev = has_hash;
			return 0;
		}
		if (r != ALX_ERR_MISSING || (r = alxs_sess_replay(cs, NULL,
		    NULL)) != 0)
			return r;
	} else if (refresh && (r = alxs_sess_poll(cs, 0, NULL, NULL)) != 0)
		return r;
	me = alx_view_member_by_fp(&cs->view, cs->view.me_fp);
	it->seq = (me != NULL ? me->last_seq : 0) + 1;
	it->has_prev = me != NULL && me->last_seq > 0;
	if (it->has_prev)
		memcpy(it->prev, me->last_hash, ALX_HASH_LEN);
	return 0;
}

static int
item_fill(struct alxs_sess *cs, struct alx_item *it,
    const struct alxs_item_post *p)
{
	const struct alx_manifest	*m;
	int				 r;

	memset(it, 0, sizeof(*it));
	/* Never under a manifest older than one verified before. */
	if ((r = alx_view_check_current(&cs->view)) != 0 ||
	    (r = item_chain(cs, it, 0)) != 0)
		return r;
	memcpy(it->sid, cs->inv.sid, ALX_SID_LEN);
	if ((r = alx_random(it->id, ALX_ID_LEN)) != 0)
		return r;
	snprintf(it->kind, sizeof(it->kind), "%s", p->kind);
	memcpy(it->author, cs->view.me_fp, ALX_FP_LEN);
	it->time = alxs_http_now(&cs->http);
	m = alx_view_manifest(&cs->view);
	it->mv = m->ver;
	it->epoch = m->epoch;
	it->size = p->size;
	if (p->nto > 0) {
		if ((it->to = calloc(p->nto, ALX_FP_LEN)) == NULL)
			return ALX_ERR_NOMEM;
		memcpy(it->to, p->to, p->nto * ALX_FP_LEN);
		it->nto = p->nto;
	}
	it->has_reply_to = p->has_reply;
	memcpy(it->reply_to, p->reply_to, ALX_ID_LEN);
	return 0;
}

/*
 * After a POST was refused as out of order or a replay: is the item the
 * relay holds under our id exactly the object we signed? Then an earlier
 * attempt was stored and only its answer was lost (a dropped connection
 * retried by alxs_http_request): the post succeeded. 1 yes, 0 no.
 */
static int
item_already_posted(struct alxs_sess *cs, const struct alx_item *it,
    int64_t *cursor)
{
	struct alxs_resp	 resp;
	struct alx_json		*j = NULL;
	const char		*raw;
	char			 path[160], id[ALX_FP_STRLEN + 1];
	size_t			 rawlen;
	int			 tok, same = 0;

	alx_b64_encode(id, it->id, ALX_ID_LEN);
	alxs_sess_path(cs, path, sizeof(path), "/items/%s", id);
	if (alxs_http_request(&cs->http, "GET", path, NULL, 0, NULL, 1,
	    ALX_ITEM_BODY_MAX * 2, &resp) == 0 &&
	    alx_json_parse(&j, (const char *)resp.body.data, resp.body.len,
	    NULL) == 0 && (tok = alx_json_obj_get(j, 0, "item")) >= 0 &&
	    alx_json_raw(j, tok, &raw, &rawlen) == 0 &&
	    rawlen == it->obj.raw_len &&
	    memcmp(raw, it->obj.raw, rawlen) == 0) {
		same = 1;
		alx_json_get_int(j, 0, "cursor", cursor, 0, ALX_JSON_INT_MAX);
	}
	alx_json_free(j);
	alxs_http_resp_free(&resp);
	return same;
}

static int
item_post_envelope(struct alxs_sess *cs, struct alx_item *it, int64_t *cursor)
{
	struct alxs_resp	 resp;
	struct alx_json		*j = NULL;
	char			 path[128];
	int			 r;

	/* Unsigned: the item's own signature authenticates it (section 11). */
	alxs_sess_path(cs, path, sizeof(path), "/items");
	r = alxs_http_request(&cs->http, "POST", path, it->obj.raw,
	    it->obj.raw_len,
	    NULL, 0, 4096, &resp);
	if (r == 0 && alx_json_parse(&j, (const char *)resp.body.data,
	    resp.body.len, NULL) == 0)
		alx_json_get_int(j, 0, "cursor", cursor, 0, ALX_JSON_INT_MAX);
	alx_json_free(j);
	alxs_http_resp_free(&resp);
	if ((r == ALX_ERR_ORDER || r == ALX_ERR_REPLAYED ||
	    r == ALX_ERR_EXISTS) && item_already_posted(cs, it, cursor)) {
		alxs_debug(&cs->http, "item: an earlier attempt was stored; "
		    "its answer was lost");
		r = 0;
	}
	return r;
}

void
alxs_item_note_chain(struct alxs_sess *cs, const struct alx_item *it)
{
	/* A view that follows the log (a runner, watch) continues from it. */
	if (cs->view.cursor > 0)
		alx_view_note_own(&cs->view, it);
	cs->me.has_chain = 1;
	cs->me.seq = it->seq;
	memcpy(cs->me.hash, it->hash, ALX_HASH_LEN);
	if (alxs_cache_note(&cs->me) != 0)
		alxs_debug(&cs->http, "item: cannot note the chain in the "
		    "cache");
}

int
alxs_item_seal(struct alxs_sess *cs, const struct alxs_item_post *p,
    struct alxs_item_sealed *is, char **cause)
{
	const struct alx_manifest	*m = alx_view_manifest(&cs->view);
	uint8_t				 ekey[ALX_KEY_LEN];
	uint8_t				*pt = NULL, *ct = NULL;
	int				 r;

	*cause = NULL;
	memset(is, 0, sizeof(*is));
	is->fd = p->fd;
	if ((r = alx_role_may_post(cs->inv.role, p->kind)) != 0)
		return ALX_ERR_WRONG_ROLE;
	if (p->size > m->item_max || p->size > ALX_ITEM_MAX_SIZE) {
		char	have[64], max[64];

		alxs_size(have, sizeof(have), p->size);
		alxs_size(max, sizeof(max), m->item_max < ALX_ITEM_MAX_SIZE ?
		    m->item_max : ALX_ITEM_MAX_SIZE);
		if (asprintf(cause, "the item is %s, more than this session's "
		    "largest item, %s", have, max) < 0)
			*cause = NULL;
		return ALX_ERR_TOO_LARGE;
	}
	if ((r = item_fill(cs, &is->it, p)) != 0)
		goto out;
	if (alx_kind_job_reply(p->kind) && p->has_reply) {
		/* Sealed to the job's readers, never to every member. */
		if (p->job_key == NULL) {
			r = ALX_ERR_INVALID;
			goto out;
		}
		r = alx_item_key_reply(p->job_key, is->it.id, is->kitem);
	} else if (strcmp(p->kind, "input") == 0) {
		/* A file for a job: sealed with a key from that job's. */
		if (p->job_key == NULL) {
			r = ALX_ERR_INVALID;
			goto out;
		}
		r = alx_item_key_input(p->job_key, is->it.id, is->kitem);
	} else {
		if ((r = alx_view_epoch_key(&cs->view, is->it.epoch,
		    ekey)) != 0)
			goto out;
		r = alx_item_key_epoch(ekey, is->it.id, is->kitem);
		alx_wipe(ekey, sizeof(ekey));
	}
	if (r != 0 || (r = alx_item_seal_meta(&is->it, is->kitem, p->meta,
	    p->metalen)) != 0)
		goto out;
	if (p->size > 0) {
		pt = malloc(ALX_CHUNK_SIZE);
		ct = malloc(ALX_CHUNK_CT_MAX);
		if (pt == NULL || ct == NULL) {
			r = ALX_ERR_NOMEM;
			goto out;
		}
		if ((r = alxs_item_hash_chunks(&is->it, is->kitem, p->fd, pt,
		    ct)) != 0)
			goto out;
	}
	r = alx_item_sign(&is->it, &cs->me.sk);
out:
	if (pt != NULL) {
		alx_wipe(pt, ALX_CHUNK_SIZE);
		free(pt);
	}
	free(ct);
	if (r != 0)
		alxs_item_sealed_free(is);
	return r;
}

int
alxs_item_put(struct alxs_sess *cs, struct alxs_item_sealed *is, char **cause)
{
	uint8_t	*pt = NULL, *ct = NULL;
	int	 r = 0;

	*cause = NULL;
	if (!is->posted) {
		r = item_post_envelope(cs, &is->it, &is->cursor);
		if (r == ALX_ERR_ORDER || r == ALX_ERR_REPLAYED) {
			/* Our chain was stale (we or another posted). */
			if ((r = item_chain(cs, &is->it, 1)) != 0 ||
			    (r = alx_item_sign(&is->it, &cs->me.sk)) != 0)
				return r;
			r = item_post_envelope(cs, &is->it, &is->cursor);
		}
		if (r != 0)
			return r;
		is->posted = 1;
		alxs_item_note_chain(cs, &is->it);
	}
	if (is->it.size == 0)
		return 0;
	/* Every chunk; those the relay holds already answer "exists". */
	pt = malloc(ALX_CHUNK_SIZE);
	ct = malloc(ALX_CHUNK_CT_MAX);
	if (pt == NULL || ct == NULL)
		r = ALX_ERR_NOMEM;
	else
		r = alxs_item_upload_chunks(cs, &is->it, is->kitem, is->fd, pt,
		    ct,
		    cause);
	if (pt != NULL) {
		alx_wipe(pt, ALX_CHUNK_SIZE);
		free(pt);
	}
	free(ct);
	return r;
}

void
alxs_item_sealed_free(struct alxs_item_sealed *is)
{
	alx_wipe(is->kitem, sizeof(is->kitem));
	alx_item_free(&is->it);
	memset(is, 0, sizeof(*is));
	is->fd = -1;
}

int
alxs_item_post(struct alxs_sess *cs, struct alxs_item_post *p, char **cause)
{
	struct alxs_item_sealed	is;
	int			r;

	if ((r = alxs_item_seal(cs, p, &is, cause)) != 0)
		return r;
	r = alxs_item_put(cs, &is, cause);
	if (is.posted) {
		memcpy(p->id, is.it.id, ALX_ID_LEN);
		memcpy(p->hash, is.it.hash, ALX_HASH_LEN);
		p->cursor = is.cursor;
	}
	alxs_item_sealed_free(&is);
	return r;
}

int
alxs_item_meta(struct alxs_sess *cs, const struct alx_item *it, char **meta,
    size_t *len)
{
	uint8_t	kitem[ALX_KEY_LEN];
	int	r;

	*meta = NULL;
	if ((r = alx_view_item_key(&cs->view, it, kitem)) != 0)
		return r;
	r = alx_item_open_meta(it, kitem, meta, len);
	alx_wipe(kitem, sizeof(kitem));
	return r;
}

/* A file name from a peer, made safe: no directories, no dot files. */
static void
item_safe_name(char *out, size_t len, const char *name, const uint8_t *id)
{
	const char	*b;
	char		 ids[ALX_FP_STRLEN + 1];
	size_t		 i;

	b = name != NULL ? strrchr(name, '/') : NULL;
	b = b != NULL ? b + 1 : name;
	if (b == NULL || *b == '\0' || *b == '.' || strlen(b) >= len ||
	    strlen(b) > 200) {
		alx_b64_encode(ids, id, ALX_ID_LEN);
		snprintf(out, len, "item-%s", ids);
		return;
	}
	snprintf(out, len, "%s", b);
	for (i = 0; out[i] != '\0'; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f ||
		    out[i] == '\\')
			out[i] = '_';
}

/* Give the finished temporary file a name that does not exist yet. */
static int
item_place(const char *dir, const char *tmp, const char *name, char **saved)
{
	char	path[4096];
	int	i;

	for (i = 0; i < 1000; i++) {
		if (i == 0)
			snprintf(path, sizeof(path), "%s/%s", dir, name);
		else
			snprintf(path, sizeof(path), "%s/%s.%d", dir, name, i);
		if (link(tmp, path) == 0) {
			unlink(tmp);
			*saved = strdup(path);
			return *saved != NULL ? 0 : ALX_ERR_NOMEM;
		}
		if (errno != EEXIST)
			return ALX_ERR_IO;
	}
	return ALX_ERR_EXISTS;
}

static int
item_get_chunk(struct alxs_sess *cs, const struct alx_item *it, size_t i,
    struct alxs_resp *resp)
{
	char	path[192], id[ALX_FP_STRLEN + 1];
	int	r;
	long	pause_ms = 5, waited_ms = 0;

	alx_b64_encode(id, it->id, ALX_ID_LEN);
	alxs_sess_path(cs, path, sizeof(path), "/items/%s/chunks/%zu", id, i);
	/*
	 * A chunk still being uploaded: wait for it, up to chunk_wait. A
	 * reader usually sees an item just as its author starts uploading
	 * (a runner and its job's tree), so look again soon, then back off
	 * to 200 ms.
	 */
	for (;;) {
		r = alxs_http_request(&cs->http, "GET", path, NULL, 0, NULL, 1,
		    ALX_CHUNK_CT_MAX, resp);
		if (r != ALX_ERR_CHUNK_PENDING ||
		    waited_ms >= (long)cs->chunk_wait * 1000)
			return r;
		alxs_http_resp_free(resp);
		usleep((useconds_t)pause_ms * 1000);
		waited_ms += pause_ms;
		if ((pause_ms *= 2) > 200)
			pause_ms = 200;
	}
}

int
alxs_item_read_chunks(struct alxs_sess *cs, const struct alx_item *it,
    int (*cb)(void *, const uint8_t *, size_t, int64_t), void *arg)
{
	uint8_t	kitem[ALX_KEY_LEN];
	int	r;

	if ((r = alx_view_item_key(&cs->view, it, kitem)) != 0)
		return r;
	r = alxs_item_read_chunks_key(cs, it, kitem, cb, arg);
	alx_wipe(kitem, sizeof(kitem));
	return r;
}

int
alxs_item_read_chunks_key(struct alxs_sess *cs, const struct alx_item *it,
    const uint8_t kitem[ALX_KEY_LEN],
    int (*cb)(void *, const uint8_t *, size_t, int64_t), void *arg)
{
	struct alxs_resp	 resp;
	uint8_t			*pt;
	size_t			 i, ptlen;
	int64_t			 off = 0;
	int			 r = 0;

	if ((pt = malloc(ALX_CHUNK_SIZE)) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < it->nchunks && r == 0; i++) {
		if ((r = item_get_chunk(cs, it, i, &resp)) == 0) {
			/* The envelope's hash and the tag, before any use. */
			if (resp.body.len < ALX_TAG_LEN ||
			    resp.body.len > ALX_CHUNK_CT_MAX)
				r = ALX_ERR_BAD_HASH;
			else
				r = alx_chunk_open(it, kitem, i, resp.body.data,
				    resp.body.len, pt);
			ptlen = resp.body.len - ALX_TAG_LEN;
		}
		alxs_http_resp_free(&resp);
		if (r == 0) {
			r = cb(arg, pt, ptlen, off);
			off += (int64_t)ptlen;
		}
	}
	alx_wipe(pt, ALX_CHUNK_SIZE);
	free(pt);
	return r;
}

int
alxs_item_chunk_to_fd(void *arg, const uint8_t *pt, size_t len, int64_t off)
{
	int	fd = *(int *)arg;
	ssize_t	n;

	(void)off;
	while (len > 0) {
		if ((n = write(fd, pt, len)) == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return ALX_ERR_IO;
		pt += n;
		len -= (size_t)n;
	}
	return 0;
}

int
alxs_item_save(struct alxs_sess *cs, const struct alx_item *it, const char *dir,
    const char *name, char **saved, char **cause)
{
	char	tmp[4096], safe[256], id[ALX_FP_STRLEN + 1];
	int	fd = -1, r;

	*saved = NULL;
	*cause = NULL;
	item_safe_name(safe, sizeof(safe), name, it->id);
	alx_b64_encode(id, it->id, ALX_ID_LEN);
	snprintf(tmp, sizeof(tmp), "%s/.airlox-%s.partial", dir, id);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0644)) == -1) {
		if (asprintf(cause, "cannot create %s: %s", tmp,
		    strerror(errno)) < 0)
			*cause = NULL;
		return ALX_ERR_IO;
	}
	/* Each chunk checked (envelope hash, tag) before it is written. */
	r = alxs_item_read_chunks(cs, it, alxs_item_chunk_to_fd, &fd);
	if ((r == ALX_ERR_BAD_HASH || r == ALX_ERR_DECRYPT ||
	    r == ALX_ERR_KEY_COMMIT) && asprintf(cause, "a chunk of item %s "
	    "does not verify", id) < 0)
		*cause = NULL;
	if (fsync(fd) != 0 && r == 0)
		r = ALX_ERR_IO;
	if (close(fd) != 0 && r == 0)
		r = ALX_ERR_IO;
	if (r == 0)
		r = item_place(dir, tmp, safe, saved);
	if (r != 0)
		unlink(tmp);
	return r;
}

/* Wait (long-polling the log) until the item's chunks are all stored. */
int
alxs_item_wait_complete(struct alxs_sess *cs, const uint8_t id[ALX_ID_LEN],
    int64_t timeout_ms)
{
	const struct alxs_sess_item	*ci;
	time_t			 end = time(NULL) + (time_t)(timeout_ms / 1000);
	int			 r;

	for (;;) {
		if ((ci = alxs_sess_item(cs, id)) != NULL && ci->complete)
			return 0;
		if (time(NULL) >= end)
			return ALX_ERR_CHUNK_PENDING;
		if ((r = alxs_sess_poll(cs, (int)(end - time(NULL)) > 25 ? 25 :
		    (int)(end - time(NULL)) + 1, NULL, NULL)) != 0)
			return r;
	}
}

static int
item_ext(const char *path, const char *ext)
{
	size_t	n = strlen(path), e = strlen(ext);

	return n > e && strcasecmp(path + n - e, ext) == 0;
}

const char *
alxs_item_file_type(const char *path, const uint8_t *h, size_t n,
    const char **mime)
{
	if (n >= 4 && memcmp(h, "PK\003\004", 4) == 0) {
		*mime = "application/zip";
		return "zip";
	}
	if (n >= 8 && memcmp(h, "\211PNG\r\n\032\n", 8) == 0) {
		*mime = "image/png";
		return "image";
	}
	if (n >= 3 && memcmp(h, "\377\330\377", 3) == 0) {
		*mime = "image/jpeg";
		return "image";
	}
	if (n >= 6 && (memcmp(h, "GIF87a", 6) == 0 ||
	    memcmp(h, "GIF89a", 6) == 0)) {
		*mime = "image/gif";
		return "image";
	}
	if (n >= 12 && memcmp(h, "RIFF", 4) == 0 &&
	    memcmp(h + 8, "WEBP", 4) == 0) {
		*mime = "image/webp";
		return "image";
	}
	if (memchr(h, '\0', n) != NULL || alx_utf8_valid(h, n) != 0) {
		/* A cut multi-byte character at the end is still text. */
		size_t	k = n;
		while (k > 0 && n - k < 4 && (h[k - 1] & 0xc0) == 0x80)
			k--;
		if (k > 0 && (h[k - 1] & 0xc0) == 0xc0)
			k--;
		if (memchr(h, '\0', n) != NULL || alx_utf8_valid(h, k) != 0) {
			*mime = "application/octet-stream";
			return "binary";
		}
	}
	if (item_ext(path, ".md") || item_ext(path, ".markdown")) {
		*mime = "text/markdown";
		return "markdown";
	}
	if (item_ext(path, ".py")) {
		*mime = "text/x-python";
		return "python";
	}
	*mime = "text/plain";
	return "text";
}
