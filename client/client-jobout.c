/*
 * client-jobout.c: a job's output as the client takes it in. The output
 * comes in the job's progress items, in order, each with the next stretch
 * of stdout and stderr as its payload (protocol.md section 8.3). Each
 * chunk is checked against its signed envelope before a byte of it is
 * printed, one chunk in memory at a time, so a job's output of any size
 * passes with bounded memory. The result then binds it all: the number of
 * progress items and the last one's hash, each stream's size and SHA-256;
 * jobout_check() compares them with what came, so a relay that dropped or
 * replayed a piece, or a runner that posted another one, is caught.
 *
 * Printed as it comes: to stdout and stderr as the bytes are when they
 * are not a terminal (a redirect gets exactly the bytes the runner
 * signed), with control characters shown as '?' when they are; with
 * --json as "output" events of text (invalid UTF-8 as U+FFFD). A UTF-8
 * character cut between two pieces is held back until it is whole, so no
 * control character can be made of two pieces.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"
#include "client-job.h"

#define JOBOUT_KEEP	(1024 * 1024)	/* each stream in --json's result */
#define JOBOUT_TRIES	3	/* chunk_wait each: a chunk never sent */

static const char *const jobout_names[ALX_OUT_STREAMS] = {
	"stdout", "stderr"
};

void
jobout_init(struct jobout *jo, const char *idtxt, int print, int json)
{
	int	i;

	memset(jo, 0, sizeof(*jo));
	snprintf(jo->idtxt, sizeof(jo->idtxt), "%s", idtxt);
	jo->print = print;
	jo->json = json;
	for (i = 0; i < ALX_OUT_STREAMS; i++) {
		alx_sha256_init(&jo->sha[i]);
		alx_buf_init(&jo->keep[i], JOBOUT_KEEP + 8);
		jo->tty[i] = isatty(i == 0 ? STDOUT_FILENO : STDERR_FILENO);
	}
}

void
jobout_free(struct jobout *jo)
{
	int	i;

	for (i = 0; i < ALX_OUT_STREAMS; i++)
		alx_buf_free(&jo->keep[i]);
	free(jo->pend_raw);
	jo->pend_raw = NULL;
}

/* How many bytes at the end of p start a UTF-8 character not yet whole. */
static size_t
jobout_cut_char(const uint8_t *p, size_t len)
{
	size_t	k, need;

	for (k = 1; k <= 3 && k <= len; k++) {
		uint8_t c = p[len - k];

		if ((c & 0xc0) == 0x80)
			continue;		/* a continuation byte */
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		return need > k ? k : 0;
	}
	return 0;
}

/* --json's result repeats the start of each stream: whole characters. */
static void
jobout_keep(struct jobout *jo, int i, const char *text, size_t tlen)
{
	size_t	room = JOBOUT_KEEP - jo->keep[i].len;

	if (tlen > room) {
		while (room > 0 && ((uint8_t)text[room] & 0xc0) == 0x80)
			room--;
		jo->cut_keep[i] = 1;
	} else
		room = tlen;
	if (room > 0 && alx_buf_add(&jo->keep[i], text, room) != 0)
		jo->cut_keep[i] = 1;
}

/* Whole characters of stream i: to the terminal, a pipe, or --json. */
static void
jobout_emit(struct jobout *jo, int i, const uint8_t *p, size_t len)
{
	FILE		*f = i == 0 ? stdout : stderr;
	struct alx_jw	 jw;
	char		*text;
	size_t		 tlen;

	if (len == 0)
		return;
	if (jo->json || jo->keep[i].len < JOBOUT_KEEP) {
		if ((text = alx_utf8_sanitize((const char *)p, len, &tlen)) ==
		    NULL)
			return;
		jobout_keep(jo, i, text, tlen);
		if (jo->json && jo->print) {
			out_obj_begin(&jw);
			alx_jw_kstr(&jw, "event", "output");
			alx_jw_kstr(&jw, "job", jo->idtxt);
			alx_jw_kstr(&jw, "stream", jobout_names[i]);
			alx_jw_key(&jw, "data");
			alx_jw_strn(&jw, text, tlen);
			out_obj_end(&jw);
		}
		free(text);
	} else
		jo->cut_keep[i] = 1;
	if (!jo->print || jo->json)
		return;
	if (jo->tty[i])
		out_safe(f, (const char *)p, len);
	else
		out_raw(f, p, len);
	fflush(f);
}

/* Bytes of stream i as they come: hashed, counted, shown. */
static void
jobout_add(struct jobout *jo, int i, const uint8_t *p, size_t len)
{
	uint8_t	buf[8];
	size_t	n, k;

	alx_sha256_update(&jo->sha[i], p, len);
	jo->size[i] += (int64_t)len;
	/* Complete a character held back from the last piece. */
	while (jo->nheld[i] > 0 && len > 0) {
		memcpy(buf, jo->held[i], jo->nheld[i]);
		n = jo->nheld[i];
		buf[n++] = *p++;
		len--;
		jo->nheld[i] = 0;
		if ((k = jobout_cut_char(buf, n)) > 0 && n < 4) {
			memcpy(jo->held[i], buf, n);
			jo->nheld[i] = n;
			continue;
		}
		jobout_emit(jo, i, buf, n);
	}
	if (len == 0)
		return;
	k = jobout_cut_char(p, len);
	jobout_emit(jo, i, p, len - k);
	memcpy(jo->held[i], p + len - k, k);
	jo->nheld[i] = k;
}

void
jobout_flush(struct jobout *jo)
{
	int	i;

	for (i = 0; i < ALX_OUT_STREAMS; i++) {
		jobout_emit(jo, i, jo->held[i], jo->nheld[i]);
		jo->nheld[i] = 0;
	}
}

struct jobout_piece {
	struct jobout	*jo;
	int64_t		 split;		/* stdout's bytes, then stderr's */
};

/*
 * One chunk of a progress item's payload. A chunk taken before a retry
 * (jo->pend_done bytes of this item) is not taken twice.
 */
static int
jobout_chunk(void *arg, const uint8_t *pt, size_t len, int64_t off)
{
	struct jobout_piece	*pc = arg;
	struct jobout		*jo = pc->jo;
	size_t			 skip = 0, n;

	if (off + (int64_t)len <= jo->pend_done)
		return 0;
	if (off < jo->pend_done)
		skip = (size_t)(jo->pend_done - off);
	pt += skip;
	off += (int64_t)skip;
	len -= skip;
	n = 0;
	if (off < pc->split) {
		n = (int64_t)len < pc->split - off ? len :
		    (size_t)(pc->split - off);
		jobout_add(jo, ALX_OUT_STDOUT, pt, n);
	}
	if (n < len)
		jobout_add(jo, ALX_OUT_STDERR, pt + n, len - n);
	jo->pend_done = off + (int64_t)len;
	return 0;
}

/* Keep a progress item whose chunks could not be read yet. */
static int
jobout_hold(struct jobout *jo, const struct alx_item *it,
    const uint8_t pk[ALX_SIGN_PK_LEN])
{
	char	*raw;

	if ((raw = malloc(it->obj.raw_len)) == NULL)
		return ALX_ERR_NOMEM;
	memcpy(raw, it->obj.raw, it->obj.raw_len);
	free(jo->pend_raw);
	jo->pend_raw = raw;
	jo->pend_len = it->obj.raw_len;
	memcpy(jo->pend_pk, pk, ALX_SIGN_PK_LEN);
	return ALX_OK;
}

/* Errors that pass: the relay is away or busy, the item is still coming. */
int
jobout_transient(int r)
{
	return r == ALX_ERR_IO || r == ALX_ERR_NOT_READY ||
	    r == ALX_ERR_RATE_LIMITED || r == ALX_ERR_TOO_MANY_CONNS ||
	    r == ALX_ERR_CHUNK_PENDING;
}

/* Print one progress item's output; it must be the next of its runner. */
static int
jobout_take(struct jobout *jo, struct alxs_sess *cs, const struct alx_item *it,
    const uint8_t pk[ALX_SIGN_PK_LEN])
{
	struct alx_progressmeta	 pm;
	struct jobout_piece	 pc;
	char			*meta = NULL;
	size_t			 len;
	int			 r;

	if ((r = alxs_item_meta(cs, it, &meta, &len)) != 0)
		return r;
	r = alx_progressmeta_decode(&pm, meta, len);
	free(meta);
	if (r != 0)
		return r;
	/* In order, for this job, and the payload is what the meta says. */
	if (memcmp(pm.job, it->reply_to, ALX_ID_LEN) != 0 ||
	    pm.size[0] + pm.size[1] != it->size)
		return ALX_ERR_INVALID;
	if (pm.seq != jo->nprog + 1)
		return pm.seq <= jo->nprog ? ALX_ERR_REPLAYED : ALX_ERR_ORDER;
	pc.jo = jo;
	pc.split = pm.size[ALX_OUT_STDOUT];
	if (it->size > 0 && (r = alxs_item_read_chunks(cs, it, jobout_chunk,
	    &pc)) != 0) {
		if (jobout_transient(r) && jobout_hold(jo, it, pk) != 0)
			return ALX_ERR_NOMEM;
		return r;
	}
	free(jo->pend_raw);
	jo->pend_raw = NULL;
	jo->pend_done = 0;
	jo->pend_tries = 0;
	jo->nprog = pm.seq;
	memcpy(jo->last, it->hash, ALX_HASH_LEN);
	return 0;
}

int
jobout_progress(struct jobout *jo, struct alxs_sess *cs,
    const struct alx_view_event *ev)
{
	const struct alx_item	*it = &ev->item;

	if (ev->member == NULL)
		return ALX_ERR_NOT_FOUND;
	/* The first runner that reports on the job is the one followed. */
	if (!jo->has_runner) {
		jo->has_runner = 1;
		memcpy(jo->runner, it->author, ALX_FP_LEN);
	} else if (memcmp(jo->runner, it->author, ALX_FP_LEN) != 0) {
		if (!jo->warned_other++)
			out_warn("job %s: progress from another runner "
			    "ignored", jo->idtxt);
		return 0;
	}
	return jobout_take(jo, cs, it, ev->member->cert.pk);
}

int
jobout_pending(const struct jobout *jo)
{
	return jo->pend_raw != NULL;
}

int
jobout_retry(struct jobout *jo, struct alxs_sess *cs)
{
	struct alx_item	it;
	int		r;

	if (jo->pend_raw == NULL)
		return 0;
	if ((r = alx_item_open(&it, jo->pend_raw, jo->pend_len, cs->inv.sid,
	    jo->pend_pk)) != 0)
		return r;
	r = jobout_take(jo, cs, &it, jo->pend_pk);
	/*
	 * The relay answers, but the runner never sent the chunks (it died
	 * between the envelope and them): go on without them; the result's
	 * binding then says the output is incomplete.
	 */
	if (r == ALX_ERR_CHUNK_PENDING && ++jo->pend_tries >= JOBOUT_TRIES) {
		out_warn("job %s: the output of progress item %lld never came; "
		    "going on without it", jo->idtxt, (long long)jo->nprog + 1);
		jo->nprog++;
		memcpy(jo->last, it.hash, ALX_HASH_LEN);
		free(jo->pend_raw);
		jo->pend_raw = NULL;
		jo->pend_done = 0;
		jo->pend_tries = 0;
		r = 0;
	}
	alx_item_free(&it);
	return r;
}

int
jobout_check(struct jobout *jo, const struct alx_resultmeta *rm,
    const uint8_t author[ALX_FP_LEN])
{
	const struct alx_result_output	*o = &rm->output;
	struct alx_sha256_ctx		 sha;
	uint8_t				 h[ALX_HASH_LEN];
	int				 i, same = 1;

	jobout_flush(jo);
	/* An interrupted job's result binds nothing: the items said it all. */
	if (!o->has)
		return 0;
	if (o->progress != jo->nprog || (jo->nprog > 0 &&
	    (memcmp(author, jo->runner, ALX_FP_LEN) != 0 ||
	    !alx_ct_eq(o->last, jo->last, ALX_HASH_LEN))))
		same = 0;
	for (i = 0; i < ALX_OUT_STREAMS; i++) {
		sha = jo->sha[i];
		alx_sha256_final(&sha, h);
		if (o->s[i].size != jo->size[i] ||
		    !alx_ct_eq(o->s[i].sha256, h, ALX_HASH_LEN))
			same = 0;
	}
	return same ? 0 : ALX_ERR_BAD_HASH;
}
