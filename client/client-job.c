/*
 * client-job.c: jobs from the sender's side: seal a job to exactly its
 * readers (the owner, the sender, the approved runners it targets), post
 * it with its payload, and follow its progress to the signed result, which
 * is shown only after it verified and bound this job.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"
#include "client-job.h"

#define JOB_OUTAGE_PAUSE_MAX	10	/* s between tries, the relay away */
#define JOB_EXPIRED_GRACE	10	/* s for a refusal of an expired job */

/* Append one wrap of the job key to a runner, the owner or the sender. */
static int
job_wrap_add(struct alx_item *it, const char *to, const uint8_t kx[32],
    const uint8_t kitem[ALX_KEY_LEN])
{
	struct alx_wrap	*nw;
	uint8_t		 ctx[64];
	size_t		 n, i;

	for (i = 0; i < it->job.nwraps; i++)
		if (strcmp(it->job.wraps[i].to, to) == 0)
			return 0;
	if (it->job.nwraps >= ALX_MAX_WRAPS)
		return ALX_ERR_TOO_LARGE;
	nw = realloc(it->job.wraps, (it->job.nwraps + 1) * sizeof(*nw));
	if (nw == NULL)
		return ALX_ERR_NOMEM;
	it->job.wraps = nw;
	n = alx_wrap_ctx_job(ctx, it->sid, it->id);
	if (alx_wrap_seal(&nw[it->job.nwraps], to, kx, ctx, n, kitem) != 0)
		return ALX_ERR_CRYPTO;
	it->job.nwraps++;
	return 0;
}

/*
 * Does runner member m serve the target (name or label)? By the name and
 * labels the owner approved it with; in a session without approval, by
 * those of its last announcement in the log (never its display name).
 */
static int
job_runner_matches(const struct alx_manifest *m,
    const struct alx_view_member *mem, const struct job_target *t)
{
	if (mem->cert.role != ALX_ROLE_RUNNER)
		return 0;
	return alx_runner_serves(m, mem->cert.fp, mem->has_ann ? &mem->ann :
	    NULL, t->is_label, t->name);
}

/* Wrap the job key to its readers; the count of runners wrapped to. */
static int
job_wraps(struct alxs_sess *cs, struct alx_item *it, const struct job_target *t,
    const uint8_t kitem[ALX_KEY_LEN], int *nrunners)
{
	const struct alx_manifest	*m = alx_view_manifest(&cs->view);
	char				 fps[ALX_FP_STRLEN + 1];
	size_t				 i;
	int				 r;

	*nrunners = 0;
	if ((r = job_wrap_add(it, "owner", m->owner_kx, kitem)) != 0 ||
	    (r = job_wrap_add(it, cs->view.me_fps, cs->view.me_kx.pk,
	    kitem)) != 0)
		return r;
	for (i = 0; i < cs->view.nmembers; i++) {
		const struct alx_view_member *mem = &cs->view.members[i];

		if (!job_runner_matches(m, mem, t))
			continue;
		alx_b64_encode(fps, mem->cert.fp, ALX_FP_LEN);
		if ((r = job_wrap_add(it, fps, mem->cert.kx, kitem)) != 0)
			return r;
		(*nrunners)++;
	}
	return 0;
}

int
job_post(struct alxs_sess *cs, const struct job_target *t, const char *meta,
    size_t metalen, int fd, int64_t size, const uint8_t *kjob,
    struct job_posted *out)
{
	struct alx_item		 it;
	struct alxs_resp	 resp;
	uint8_t			 kitem[ALX_KEY_LEN];
	uint8_t			*pt = NULL, *ct = NULL;
	char			*cause = NULL, path[128];
	int			 r, nrunners;

	memset(out, 0, sizeof(*out));
	if (cs->view.cursor == 0 && (r = alxs_sess_replay(cs, NULL, NULL)) != 0)
		return r;
	if ((r = alx_view_item_begin(&cs->view, &it, "job",
	    alxs_http_now(&cs->http))) != 0)
		return r;
	it.has_job = 1;
	it.job.is_label = t->is_label;
	snprintf(it.job.name, sizeof(it.job.name), "%s", t->name);
	it.job.not_after = alxs_http_now(&cs->http) + t->wait_s;
	it.size = size;
	if (kjob != NULL)
		memcpy(kitem, kjob, sizeof(kitem));
	else if ((r = alx_random(kitem, sizeof(kitem))) != 0)
		goto out;
	if ((r = job_wraps(cs, &it, t, kitem, &nrunners)) != 0)
		goto out;
	if (nrunners == 0) {
		r = ALX_ERR_NOT_FOUND;
		goto out;
	}
	if ((r = alx_item_seal_meta(&it, kitem, meta, metalen)) != 0)
		goto out;
	if (size > 0) {
		pt = malloc(ALX_CHUNK_SIZE);
		ct = malloc(ALX_CHUNK_CT_MAX);
		if (pt == NULL || ct == NULL) {
			r = ALX_ERR_NOMEM;
			goto out;
		}
		if ((r = alxs_item_hash_chunks(&it, kitem, fd, pt, ct)) != 0)
			goto out;
	}
	if ((r = alx_item_sign(&it, &cs->me.sk)) != 0)
		goto out;
	/* Unsigned: the item's own signature authenticates it (section 11). */
	alxs_sess_path(cs, path, sizeof(path), "/items");
	r = alxs_http_request(&cs->http, "POST", path, it.obj.raw,
	    it.obj.raw_len,
	    NULL, 0, 4096, &resp);
	if (r != 0)
		out->message = resp.message != NULL ? strdup(resp.message) : NULL;
	alxs_http_resp_free(&resp);
	if (r != 0)
		goto out;
	alxs_item_note_chain(cs, &it);
	memcpy(out->id, it.id, ALX_ID_LEN);
	memcpy(out->hash, it.hash, ALX_HASH_LEN);
	out->not_after = it.job.not_after;
	if (size > 0)
		r = alxs_item_upload_chunks(cs, &it, kitem, fd, pt, ct, &cause);
out:
	free(cause);
	alx_wipe(kitem, sizeof(kitem));
	if (pt != NULL) {
		alx_wipe(pt, ALX_CHUNK_SIZE);
		free(pt);
	}
	free(ct);
	alx_item_free(&it);
	return r;
}

struct job_follow {
	const uint8_t		*id;
	const uint8_t		*hash;
	int			 done;
	int			 err;
	struct alx_resultmeta	 rm;
	char			 runner[ALX_DISPLAY_MAX + 1];
	uint8_t			 result_id[ALX_ID_LEN];
	struct jobout		*out;
	char			*raw;		/* the result item */
	size_t			 rawlen;
	uint8_t			 pk[ALX_SIGN_PK_LEN];
};

/* The result: verified, bound to the job, and to the output that came. */
static int
job_follow_result(struct job_follow *f, struct alxs_sess *cs,
    const struct alx_view_event *ev, const char *meta, size_t len)
{
	const struct alx_view_job	*vj = alx_view_job(&cs->view, f->id);
	int				 r;

	/* The job's hash: the caller's, or the job as the log had it. */
	if ((r = alx_resultmeta_decode(&f->rm, meta, len)) != 0) {
		memset(&f->rm, 0, sizeof(f->rm));
		return r;
	}
	if (f->hash == NULL && vj == NULL)
		r = ALX_ERR_NOT_FOUND;
	if (r == 0)
		r = alx_resultmeta_check_job(&f->rm, f->id, f->hash != NULL ?
		    f->hash : vj->hash);
	if (r == 0)
		r = jobout_check(f->out, &f->rm, ev->item.author);
	if (r == ALX_ERR_BAD_HASH)
		out_warn("the output shown is not the output the runner "
		    "signed (%lld progress item(s) taken, %lld signed)",
		    (long long)f->out->nprog,
		    (long long)f->rm.output.progress);
	if (r != 0)
		alx_resultmeta_free(&f->rm);
	memcpy(f->result_id, ev->item.id, ALX_ID_LEN);
	snprintf(f->runner, sizeof(f->runner), "%s",
	    ev->member != NULL ? ev->member->cert.name : "?");
	/* The item itself, to fetch its files from (--save). */
	if (r == 0 && ev->member != NULL && ev->item.size > 0 &&
	    (f->raw = malloc(ev->item.obj.raw_len)) != NULL) {
		memcpy(f->raw, ev->item.obj.raw, ev->item.obj.raw_len);
		f->rawlen = ev->item.obj.raw_len;
		memcpy(f->pk, ev->member->cert.pk, ALX_SIGN_PK_LEN);
	}
	return r;
}

static int
job_follow_event(struct alxs_sess *cs, const struct alx_view_event *ev,
    void *arg)
{
	struct job_follow	*f = arg;
	char			*meta = NULL;
	size_t			 len;
	int			 r;

	if ((ev->type != ALX_EV_ITEM && ev->type != ALX_EV_REFUSED) ||
	    !ev->item.has_reply_to ||
	    memcmp(ev->item.reply_to, f->id, ALX_ID_LEN) != 0)
		return 0;
	/* Not from a runner the job went to (or a second result): not ours. */
	if (ev->type == ALX_EV_REFUSED) {
		item_refused(cs, ev);
		return 0;
	}
	if (strcmp(ev->item.kind, "progress") == 0) {
		if ((r = jobout_progress(f->out, cs, ev)) == 0)
			return 0;
		/* The relay away: this item again, before any other. */
		if (jobout_transient(r) && jobout_pending(f->out))
			return 1;
		/*
		 * An item that does not open is passed over (the result's
		 * binding then tells whether it was the job's output).
		 */
		if (r == ALX_ERR_NOT_RECIPIENT || r == ALX_ERR_DECRYPT ||
		    r == ALX_ERR_KEY_COMMIT || r == ALX_ERR_NOT_FOUND) {
			item_passed_over(cs, ev, r, "does not open");
			return 0;
		}
		f->err = r;
		f->done = 1;
		return 1;
	}
	if (strcmp(ev->item.kind, "result") != 0)
		return 0;
	if ((r = alxs_item_meta(cs, &ev->item, &meta, &len)) != 0) {
		/* The job's one result, sealed wrong by its runner. */
		item_passed_over(cs, ev, r, "does not open");
		f->err = r;
		f->done = 1;
		return 1;
	}
	f->err = job_follow_result(f, cs, ev, meta, len);
	f->done = 1;
	free(meta);
	return 1;
}

/*
 * The job's state at the relay ("waiting", "claimed", "done", "expired"):
 * 0, or the relay's error.
 */
static int
job_state(struct alxs_sess *cs, const uint8_t id[ALX_ID_LEN], char *state,
    size_t len)
{
	struct alxs_resp	 resp;
	struct alx_json		*j = NULL;
	char			 path[160], idtxt[ALX_FP_STRLEN + 1], *s = NULL;
	int			 arr, r;

	alx_b64_encode(idtxt, id, ALX_ID_LEN);
	alxs_sess_path(cs, path, sizeof(path), "/jobs/%s", idtxt);
	r = alxs_http_request(&cs->http, "GET", path, NULL, 0, NULL, 1, 65536,
	    &resp);
	if (r == 0 && (r = alx_json_parse(&j, (const char *)resp.body.data,
	    resp.body.len, NULL)) == 0) {
		if ((arr = alx_json_obj_get(j, 0, "jobs")) < 0 ||
		    alx_json_arr_len(j, arr) < 1)
			r = ALX_ERR_NOT_FOUND;
		else if ((r = alx_json_get_str(j, alx_json_arr_at(j, arr, 0),
		    "state", &s, 16)) == 0)
			snprintf(state, len, "%s", s);
	}
	free(s);
	alx_json_free(j);
	alxs_http_resp_free(&resp);
	return r;
}

/* The relay is away: say so once, wait a little longer each time. */
struct job_outage {
	int	down;
	int	pause;		/* s */
};

static void
job_outage_wait(struct job_outage *o, int err, int left)
{
	if (!o->down++)
		out_warn("the relay is unavailable (%s); retrying until the "
		    "timeout (%d s left)", alx_errname(err), left);
	sleep((unsigned)(o->pause < left ? o->pause : left));
	if ((o->pause *= 2) > JOB_OUTAGE_PAUSE_MAX)
		o->pause = JOB_OUTAGE_PAUSE_MAX;
}

static void
job_outage_over(struct job_outage *o, const struct alxs_sess *cs)
{
	if (o->down)
		out_warn("the relay is back; resuming after event %lld",
		    (long long)cs->view.cursor);
	o->down = 0;
	o->pause = 1;
}

/*
 * Past the job's not-after time nobody can claim it any more: unless a
 * runner holds it, it expired (1). A runner that sees it then answers
 * with a signed refusal (expired); give it JOB_EXPIRED_GRACE to do so,
 * counted from when this wait began if that was later.
 */
static int
job_expired(struct alxs_sess *cs, const uint8_t id[ALX_ID_LEN],
    int64_t not_after, int64_t since, int *held)
{
	char	state[16];

	if (since > not_after)
		not_after = since;
	if (*held || not_after == 0 || alxs_http_now(&cs->http) <= not_after +
	    JOB_EXPIRED_GRACE)
		return 0;
	if (job_state(cs, id, state, sizeof(state)) != 0)
		return 0;		/* asked again on the next turn */
	if (strcmp(state, "claimed") == 0 || strcmp(state, "done") == 0) {
		*held = 1;
		return 0;
	}
	return strcmp(state, "expired") == 0;
}

int
job_wait(struct alxs_sess *cs, const uint8_t id[ALX_ID_LEN],
    const uint8_t hash[ALX_HASH_LEN], int64_t timeout_s, int print,
    struct job_outcome *out)
{
	const struct alx_view_job	*vj;
	struct job_follow		 f;
	struct job_outage		 o = { 0, 1 };
	char				 idtxt[ALX_FP_STRLEN + 1];
	time_t				 end = time(NULL) + (time_t)timeout_s;
	int64_t				 not_after = 0, wait, since, until;
	int				 r, left, held = 0;

	memset(&f, 0, sizeof(f));
	memset(out, 0, sizeof(*out));
	alx_b64_encode(idtxt, id, ALX_ID_LEN);
	jobout_init(&out->out, idtxt, print, out_json());
	f.id = id;
	f.hash = hash;
	f.out = &out->out;
	since = alxs_http_now(&cs->http);
	/* A fresh view reads the whole log first (the result may be there). */
	if (cs->view.cursor == 0 && (r = alxs_sess_replay(cs, job_follow_event,
	    &f)) != 0 && r != 1)
		return r;
	while (!f.done) {
		left = (int)(end - time(NULL));
		if (left <= 0)
			return ALX_ERR_EXPIRED;
		if (exec_interrupted)
			return ALX_ERR_IO;
		if (not_after == 0 &&
		    (vj = alx_view_job(&cs->view, id)) != NULL)
			not_after = vj->not_after;
		/* Output means a runner has it; else, after not_after, ask. */
		if (out->out.nprog > 0)
			held = 1;
		if (job_expired(cs, id, not_after, since, &held)) {
			out->unclaimed = 1;
			return ALX_ERR_EXPIRED;
		}
		if (jobout_pending(&out->out) &&
		    (r = jobout_retry(&out->out, cs)) != 0) {
			if (!jobout_transient(r))
				return r;
			job_outage_wait(&o, r, left);
			continue;
		}
		/* Wake up when the job may have expired, to ask then. */
		wait = left > 25 ? 25 : left;
		until = (not_after > since ? not_after : since) +
		    JOB_EXPIRED_GRACE - alxs_http_now(&cs->http) + 1;
		if (!held && not_after > 0 && until < wait)
			wait = until;
		if (wait < 1)
			wait = 1;
		r = alxs_sess_poll(cs, (int)wait, job_follow_event, &f);
		if (r != 0 && r != 1) {
			if (!jobout_transient(r))
				return r;
			job_outage_wait(&o, r, left);
			continue;
		}
		job_outage_over(&o, cs);
	}
	if (f.err != 0) {
		free(f.raw);
		return f.err;
	}
	out->rm = f.rm;
	out->result_raw = f.raw;
	out->result_len = f.rawlen;
	memcpy(out->result_pk, f.pk, ALX_SIGN_PK_LEN);
	memcpy(out->result_id, f.result_id, ALX_ID_LEN);
	snprintf(out->runner, sizeof(out->runner), "%s", f.runner);
	return 0;
}

void
job_outcome_free(struct job_outcome *o)
{
	alx_resultmeta_free(&o->rm);
	jobout_free(&o->out);
	free(o->result_raw);
	o->result_raw = NULL;
}
