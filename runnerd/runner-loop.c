/*
 * runner-loop.c: the runner's work: follow the session's log, decide about
 * each job, claim it, run it in a slot, stream its output as progress
 * items, and post its signed result. Results are kept in the state dir
 * until the relay has taken them, so a dropped connection or a restart
 * loses none; a job that was running when the runner died is reported as
 * interrupted.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "runnerd.h"
#include "sandbox.h"
#include "alxs.h"
#include "runner-loop.h"
#include "runner-egress.h"
#include "runner-docker.h"
#include "runner-tree.h"
#include "util/mono.h"

#define PROGRESS_INTERVAL_MS	1000
#define PIECE_MAX		ALX_CHUNK_SIZE	/* output per progress item */
#define POST_RETRY_MS		2000
#define DRAIN_GIVE_UP_MS	30000	/* stopping: after the grace */
#define POLL_IDLE_S		10
#define STEP_WAIT_MS		250

volatile sig_atomic_t	runner_stop;

static struct runner_slot *
runner_slot_free(struct runner *rn)
{
	int	i;

	for (i = 0; i < rn->nslots; i++)
		if (!rn->slots[i].used)
			return &rn->slots[i];
	return NULL;
}

static struct runner_slot *
runner_slot_by_job(struct runner *rn, const uint8_t id[ALX_ID_LEN])
{
	int	i;

	for (i = 0; i < rn->nslots; i++)
		if (rn->slots[i].used &&
		    memcmp(rn->slots[i].job.id, id, ALX_ID_LEN) == 0)
			return &rn->slots[i];
	return NULL;
}

/* The state dir's record of a running job, for "interrupted". */
static void
runner_mark_running(struct runner *rn, const struct runner_job *rj, int on)
{
	char	path[PATH_MAX], hash[ALX_B64_ENCLEN(ALX_HASH_LEN) + 1];
	char	author[ALX_FP_STRLEN + 1], key[ALX_B64_ENCLEN(ALX_KEY_LEN) + 1];
	FILE	*fp;

	if (runner_pathf(path, sizeof(path), "%s/running/%s", rn->statedir,
	    rj->job_id) != ALX_OK)
		return;
	if (!on) {
		unlink(path);
		return;
	}
	if ((fp = fopen(path, "we")) == NULL)
		return;
	alx_b64_encode(hash, rj->hash, ALX_HASH_LEN);
	alx_b64_encode(author, rj->author, ALX_FP_LEN);
	alx_b64_encode(key, rj->kitem, ALX_KEY_LEN);
	/* The job's key: its "interrupted" result is sealed with it. */
	fprintf(fp, "%s %s %s\n", hash, author, key);
	alx_wipe(key, sizeof(key));
	fflush(fp);
	fsync(fileno(fp));
	fclose(fp);
}

/*
 * Post a result: kind result, a reply to the job sealed to the job's
 * readers with a key made from the job's (kjob), addressed to its author,
 * with the out files as payload. The meta (and the job's key, which the
 * state dir keeps beside the runner's own) is written to the state dir
 * first and removed once the relay answered 201.
 */
static int
runner_post_result(struct runner *rn, const uint8_t job[ALX_ID_LEN],
    const uint8_t author[ALX_FP_LEN], const uint8_t kjob[ALX_KEY_LEN],
    const struct alx_resultmeta *rm, struct runner_out *out)
{
	struct alxs_item_post	 p;
	uint8_t			 to[1][ALX_FP_LEN];
	char			*meta = NULL, *cause = NULL;
	char			 path[PATH_MAX], idtxt[ALX_FP_STRLEN + 1];
	char			 a[ALX_FP_STRLEN + 1];
	char			 k[ALX_B64_ENCLEN(ALX_KEY_LEN) + 1];
	size_t			 len;
	FILE			*fp;
	int			 r;

	if ((r = alx_resultmeta_encode(rm, &meta, &len)) != ALX_OK)
		return r;
	alx_b64_encode(idtxt, job, ALX_ID_LEN);
	runner_pathf(path, sizeof(path), "%s/pending/%s", rn->statedir, idtxt);
	if ((fp = fopen(path, "we")) != NULL) {
		alx_b64_encode(a, author, ALX_FP_LEN);
		alx_b64_encode(k, kjob, ALX_KEY_LEN);
		fprintf(fp, "%s %s\n%s\n", a, k, meta);
		alx_wipe(k, sizeof(k));
		fflush(fp);
		fsync(fileno(fp));
		fclose(fp);
	}
	memset(&p, 0, sizeof(p));
	memcpy(to[0], author, ALX_FP_LEN);
	p.kind = "result";
	p.meta = meta;
	p.metalen = len;
	p.fd = out != NULL ? out->fd : -1;
	p.size = out != NULL && out->fd != -1 ? out->size : 0;
	p.to = to;
	p.nto = 1;
	p.has_reply = 1;
	memcpy(p.reply_to, job, ALX_ID_LEN);
	p.job_key = kjob;
	r = alxs_item_post(&rn->cs, &p, &cause);
	/* The relay keeps one result per job: a second is "exists". */
	if (r == ALX_OK || r == ALX_ERR_EXISTS)
		unlink(path);
	else if (r == ALX_ERR_NOT_ALLOWED || r == ALX_ERR_NOT_FOUND ||
	    r == ALX_ERR_FORBIDDEN || r == ALX_ERR_WRONG_ROLE) {
		/* Refused for good (no such job here, not ours to answer). */
		log_warnx("result: job %s refused by the relay (%s%s%s); "
		    "dropped", idtxt, alx_errname(r), cause ? ": " : "",
		    cause ? cause : "");
		unlink(path);
	} else
		log_warnx("result: job %s not posted yet (%s%s%s); kept for a "
		    "retry", idtxt, alx_errname(r), cause ? ": " : "",
		    cause ? cause : "");
	free(cause);
	free(meta);
	return r;
}

/*
 * A line of the state dir: up to three base64url words (a job's hash or
 * an author, and the job's key). Files written before replies were
 * sealed to a job's readers have no key: nothing can be posted for them.
 */
static int
runner_state_words(const char *line, char w[3][64])
{
	w[0][0] = w[1][0] = w[2][0] = '\0';
	return sscanf(line, "%63s %63s %63s", w[0], w[1], w[2]);
}

/* Jobs that were running when the runner stopped: "interrupted". */
static void
runner_recover_running(struct runner *rn)
{
	struct alx_resultmeta	 rm;
	char			 dir[PATH_MAX], path[PATH_MAX], line[256];
	char			 w[3][64];
	uint8_t			 id[ALX_ID_LEN], author[ALX_FP_LEN];
	uint8_t			 key[ALX_KEY_LEN];
	DIR			*d;
	struct dirent		*de;
	FILE			*fp;

	runner_pathf(dir, sizeof(dir), "%s/running", rn->statedir);
	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || alx_b64_decode_exact(id,
		    ALX_ID_LEN, de->d_name, strlen(de->d_name)) != ALX_OK)
			continue;
		runner_pathf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if ((fp = fopen(path, "re")) == NULL)
			continue;
		if (fgets(line, sizeof(line), fp) == NULL)
			line[0] = '\0';
		fclose(fp);
		unlink(path);
		memset(&rm, 0, sizeof(rm));
		memcpy(rm.job, id, ALX_ID_LEN);
		if (runner_state_words(line, w) != 3 ||
		    alx_b64_decode_exact(rm.job_hash, ALX_HASH_LEN, w[0],
		    strlen(w[0])) != ALX_OK || alx_b64_decode_exact(author,
		    ALX_FP_LEN, w[1], strlen(w[1])) != ALX_OK ||
		    alx_b64_decode_exact(key, ALX_KEY_LEN, w[2],
		    strlen(w[2])) != ALX_OK) {
			log_warnx("recover: job %s was running when the runner "
			    "stopped; its record cannot be read: no result",
			    de->d_name);
			continue;
		}
		alx_wipe(line, sizeof(line));
		alx_wipe(w, sizeof(w));
		rm.status = ALX_JOB_INTERRUPTED;
		rm.peak_memory = -1;
		rm.out = strdup("");
		rm.err = strdup("the runner restarted while the job ran");
		log_warnx("recover: job %s was running when the runner "
		    "stopped: reporting it interrupted", de->d_name);
		runner_post_result(rn, id, author, key, &rm, NULL);
		alx_wipe(key, sizeof(key));
		alx_resultmeta_free(&rm);
	}
	closedir(d);
}

/* Re-post results kept from before, and report jobs a restart cut. */
static void
runner_recover(struct runner *rn)
{
	char		 dir[PATH_MAX], path[PATH_MAX], line1[256], w[3][64];
	char		*meta = NULL;
	size_t		 cap = 0;
	ssize_t		 n;
	DIR		*d;
	struct dirent	*de;
	FILE		*fp;
	uint8_t		 id[ALX_ID_LEN], author[ALX_FP_LEN], key[ALX_KEY_LEN];

	runner_recover_running(rn);
	/* Results not yet taken by the relay. */
	runner_pathf(dir, sizeof(dir), "%s/pending", rn->statedir);
	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		struct alx_resultmeta	rm;

		if (de->d_name[0] == '.' || alx_b64_decode_exact(id, ALX_ID_LEN,
		    de->d_name, strlen(de->d_name)) != ALX_OK)
			continue;
		runner_pathf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if ((fp = fopen(path, "re")) == NULL)
			continue;
		if (fgets(line1, sizeof(line1), fp) == NULL ||
		    (n = getline(&meta, &cap, fp)) <= 0) {
			fclose(fp);
			continue;
		}
		fclose(fp);
		if (meta[n - 1] == '\n')
			meta[--n] = '\0';
		if (runner_state_words(line1, w) != 2 ||
		    alx_b64_decode_exact(author, ALX_FP_LEN, w[0],
		    strlen(w[0])) != ALX_OK ||
		    alx_b64_decode_exact(key, ALX_KEY_LEN, w[1],
		    strlen(w[1])) != ALX_OK ||
		    alx_resultmeta_decode(&rm, meta, (size_t)n) != ALX_OK) {
			log_warnx("recover: the kept result of job %s cannot "
			    "be read (or has no key to seal it with); dropped",
			    de->d_name);
			unlink(path);
			continue;
		}
		alx_wipe(line1, sizeof(line1));
		alx_wipe(w, sizeof(w));
		log_info("recover: posting the kept result of job %s",
		    de->d_name);
		runner_post_result(rn, id, author, key, &rm, NULL);
		alx_wipe(key, sizeof(key));
		alx_resultmeta_free(&rm);
	}
	free(meta);
	closedir(d);
}

/*
 * A signed refusal for a reason of libairlox's list (alx_refusal_name()),
 * sealed to the job's readers with the job's key; detail (or NULL)
 * becomes its stderr text.
 */
static void
runner_refuse_why(struct runner *rn, const struct alx_item *job,
    const uint8_t kjob[ALX_KEY_LEN], const struct alx_view_member *author,
    int reason, const char *detail)
{
	struct alx_resultmeta	rm;
	char			*d;

	runner_audit(&rn->audit, job->id, job->author,
	    author != NULL ? author->cert.name : NULL, "job",
	    alx_job_status_name(ALX_JOB_REFUSED), alx_errname(reason));
	if (runner_refusal(job, reason, &rm) != ALX_OK)
		return;
	if (detail != NULL && *detail != '\0' && (d = strdup(detail)) != NULL) {
		free(rm.err);
		rm.err = d;
	}
	runner_post_result(rn, job->id, job->author, kjob, &rm, NULL);
	alx_resultmeta_free(&rm);
}

static void
runner_refuse(struct runner *rn, const struct alx_item *job,
    const uint8_t kjob[ALX_KEY_LEN], const struct alx_view_member *author,
    int reason)
{
	runner_refuse_why(rn, job, kjob, author, reason, NULL);
}

/* POST a signed claim; 0 when this runner won the job. */
static int
runner_claim(struct runner *rn, const struct alx_item *job)
{
	struct alx_claim	 c;
	struct alxs_resp	 resp;
	char			 path[160], idtxt[ALX_FP_STRLEN + 1];
	int			 r;

	memset(&c, 0, sizeof(c));
	memcpy(c.sid, rn->cs.inv.sid, ALX_SID_LEN);
	memcpy(c.job, job->id, ALX_ID_LEN);
	memcpy(c.runner, rn->me.fp, ALX_FP_LEN);
	c.time = alxs_http_now(&rn->cs.http);
	if ((r = alx_claim_sign(&c, &rn->cs.me.sk)) != ALX_OK)
		return r;
	alx_b64_encode(idtxt, job->id, ALX_ID_LEN);
	alxs_sess_path(&rn->cs, path, sizeof(path), "/jobs/%s/claim", idtxt);
	r = alxs_http_request(&rn->cs.http, "POST", path, c.obj.raw,
	    c.obj.raw_len,
	    NULL, 1, 4096, &resp);
	alxs_http_resp_free(&resp);
	alx_claim_free(&c);
	return r;
}

/* The sandbox's output callback: into the slot's spools. */
static void
runner_output(void *arg, int fd, const char *buf, size_t len)
{
	struct runner_slot	*sl = arg;

	runner_output_add(&sl->output, fd, buf, len, mono_ms());
}

/* Errors after which the same post is worth trying again later. */
static int
runner_post_transient(int r)
{
	return r == ALX_ERR_IO || r == ALX_ERR_NOT_READY ||
	    r == ALX_ERR_RATE_LIMITED || r == ALX_ERR_TOO_MANY_CONNS ||
	    r == ALX_ERR_CLOCK_SKEW || r == ALX_ERR_CHUNK_PENDING;
}

/* A post failed for a passing reason: wait a little, say so once. */
static void
runner_post_later(struct runner_slot *sl, const char *what, int r)
{
	sl->next_try = mono_ms() + POST_RETRY_MS;
	if (!sl->waiting++)
		log_warnx("job %s: its %s waits for the relay (%s); retrying",
		    sl->job.job_id, what, alx_errname(r));
}

/* Seal the next piece of output as a progress item. */
static int
runner_seal_piece(struct runner *rn, struct runner_slot *sl)
{
	struct alxs_item_post	 p;
	char			*meta = NULL, *cause = NULL;
	size_t			 len;
	int64_t			 max = PIECE_MAX;
	int			 r;

	if (sl->item_max > 0 && sl->item_max < max)
		max = sl->item_max;
	if ((r = runner_output_piece(&sl->output, sl->job.id, max,
	    &sl->pc)) != ALX_OK)
		return r;
	if ((r = alx_progressmeta_encode(&sl->pc.pm, &meta, &len)) != ALX_OK)
		return r;
	memset(&p, 0, sizeof(p));
	p.kind = "progress";
	p.meta = meta;
	p.metalen = len;
	p.fd = sl->pc.fd;
	p.size = sl->pc.size;
	p.has_reply = 1;
	memcpy(p.reply_to, sl->job.id, ALX_ID_LEN);
	p.job_key = sl->job.kitem;
	r = alxs_item_seal(&rn->cs, &p, &sl->piece, &cause);
	free(meta);
	free(cause);
	if (r == ALX_OK)
		sl->has_piece = 1;
	return r;
}

/*
 * Post the job's output as progress items: while it runs, a piece when
 * one is full or a second passed; once it ended (drain), all of it. 1:
 * more to post, 0: all posted (or the relay takes no more), -1: the relay
 * is away (tried again after POST_RETRY_MS).
 */
static int
runner_post_output(struct runner *rn, struct runner_slot *sl, int drain)
{
	struct runner_output	*o = &sl->output;
	char			*cause = NULL;
	int64_t			 now = mono_ms();
	int			 n, r;

	if (!drain)
		runner_output_idle(o, now);
	if (now < sl->next_try)
		return -1;
	for (n = 0; n < (drain ? 16 : 2); n++) {
		if (!sl->has_piece) {
			if (o->closed || runner_output_pending(o) == 0)
				return 0;
			if (!drain && runner_output_pending(o) < PIECE_MAX &&
			    now - sl->last_progress < PROGRESS_INTERVAL_MS)
				return 1;
			if ((r = runner_seal_piece(rn, sl)) != ALX_OK) {
				runner_output_refused(o, alx_errname(r));
				return 0;
			}
		}
		r = alxs_item_put(&rn->cs, &sl->piece, &cause);
		free(cause);
		cause = NULL;
		if (r == ALX_OK) {
			runner_output_posted(o, &sl->pc, sl->piece.it.hash);
			alxs_item_sealed_free(&sl->piece);
			sl->has_piece = 0;
			sl->last_progress = now;
			if (sl->waiting) {
				log_info("job %s: the relay is back",
				    sl->job.job_id);
				sl->waiting = 0;
			}
			continue;
		}
		if (runner_post_transient(r)) {
			runner_post_later(sl, "output", r);
			return -1;
		}
		/* The relay takes no more of it: the session is full. */
		log_warnx("job %s: output not taken (%s): the rest is dropped",
		    sl->job.job_id, alx_errname(r));
		runner_output_refused(o, r == ALX_ERR_TOO_LARGE ?
		    "session_max" : alx_errname(r));
		alxs_item_sealed_free(&sl->piece);
		sl->has_piece = 0;
		return 0;
	}
	return 1;
}

/* The result's env: how the job ran, without any path. */
static char *
runner_env_json(struct runner *rn, const char *enforced, const char *tree)
{
	struct alx_jw	 w;
	char		*out = NULL;
	size_t		 len;

	alx_jw_init(&w, 4096);
	alx_jw_obj_begin(&w);
	alx_jw_kstr(&w, "sandbox", rn->be->name);
	alx_jw_kstr(&w, "airlox", ALX_VERSION_STRING);
	alx_jw_kstr(&w, "enforced", enforced);
	runner_pyenv_json(&rn->py, &w);	/* python, packages, python_source */
	if (tree != NULL) {	/* tree: the tree the workspace holds */
		alx_jw_key(&w, "tree");
		alx_jw_raw(&w, tree, strlen(tree));
	}
	alx_jw_obj_end(&w);
	if (alx_jw_finish(&w, &out, &len) != ALX_OK)
		out = NULL;
	alx_jw_free(&w);
	return out;
}

/*
 * A job's refused egress attempts, posted as a signed report so the owner
 * reads them (airlox machine denied): job, name, time; at most what the
 * proxy logged (it logs 200 a job and counts the rest).
 */
static void
runner_post_denied(struct runner *rn, const struct runner_slot *sl,
    uint64_t denied)
{
	struct alxs_item_post	 p;
	struct alx_jw		 w;
	char			**lines = NULL, *meta = NULL, *cause = NULL;
	size_t			 n = 0, i, len;
	uint64_t		 count = 0;

	if (denied == 0 || runner_egress_denied(rn->statedir, sl->job.job_id,
	    &lines, &n, &count) != ALX_OK)
		return;
	alx_jw_init(&w, ALX_META_MAX);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "v", ALX_PROTO_VERSION);
	alx_jw_key(&w, "denied");
	alx_jw_obj_begin(&w);
	alx_jw_kstr(&w, "job", sl->job.job_id);
	alx_jw_kint(&w, "count", (int64_t)denied);
	alx_jw_key(&w, "entries");
	alx_jw_arr_begin(&w);
	for (i = 0; i < n && i < 200; i++)
		alx_jw_raw(&w, lines[i], strlen(lines[i]));
	alx_jw_arr_end(&w);
	alx_jw_obj_end(&w);
	alx_jw_obj_end(&w);
	if (alx_jw_finish(&w, &meta, &len) == ALX_OK) {
		memset(&p, 0, sizeof(p));
		p.kind = "report";
		p.meta = meta;
		p.metalen = len;
		p.fd = -1;
		p.has_reply = 1;
		memcpy(p.reply_to, sl->job.id, ALX_ID_LEN);
		p.job_key = sl->job.kitem;
		if (alxs_item_post(&rn->cs, &p, &cause) != ALX_OK)
			log_warnx("egress: the denied report of job %s was not "
			    "posted", sl->job.job_id);
	}
	alx_jw_free(&w);
	free(meta);
	free(cause);
	runner_egress_lines_free(lines, n);
}

/* The slot is free again. */
static void
runner_slot_done(struct runner *rn, struct runner_slot *sl)
{
	runner_audit(&rn->audit, sl->job.id, sl->job.author, sl->author_name,
	    "job", alx_job_status_name(sl->status), NULL);
	runner_post_denied(rn, sl, sl->denied);
	sl->rm.files = NULL;
	sl->rm.nfiles = 0;
	alx_resultmeta_free(&sl->rm);
	runner_out_free(&sl->files);
	if (sl->has_piece)
		alxs_item_sealed_free(&sl->piece);
	runner_output_free(&sl->output);
	runner_mark_running(rn, &sl->job, 0);
	runner_tree_close(sl->tree);
	runner_job_cleanup(&sl->job);
	memset(sl, 0, sizeof(*sl));
}

/*
 * A job in a slot ended: its result is made (but for the binding of its
 * output, which is still being posted) and the slot drains.
 */
static void
runner_ended(struct runner *rn, struct runner_slot *sl)
{
	struct sandbox_result	 res;
	char			 zip[PATH_MAX], *env, *tree;

	memset(&res, 0, sizeof(res));
	if (sandbox_result(sl->job.sb, &res) != ALX_OK) {
		res.status = ALX_JOB_INTERRUPTED;
		snprintf(res.enforced, sizeof(res.enforced), "unknown");
	}
	runner_output_end(&sl->output);
	sl->status = res.status;
	sl->denied = 0;
	runner_egress_job_end(rn->egress, sl->job.job_id, &sl->denied);
	tree = sl->tree != NULL ? runner_tree_report(sl->tree) : NULL;
	env = runner_env_json(rn, res.enforced, tree);
	free(tree);
	memset(&sl->files, 0, sizeof(sl->files));
	sl->files.fd = -1;
	runner_pathf(zip, sizeof(zip), "%s/out.zip", sl->job.jobdir);
	if (sl->return_out && runner_out_collect(&sl->files, sl->job.outdir,
	    zip, sl->item_max) != ALX_OK)
		log_warnx("job %s: its out files are over the limits; not "
		    "returned", sl->job.job_id);
	if (runner_job_result(&sl->job, &res, env, &sl->rm) == ALX_OK) {
		if (sl->files.n > 0) {
			sl->rm.files = sl->files.files;
			sl->rm.nfiles = sl->files.n;
		}
		sl->rm.denied = (int64_t)sl->denied;
	} else
		sl->status = ALX_JOB_INTERRUPTED;
	free(env);
	sandbox_result_free(&res);
	sl->state = SLOT_DRAINING;
	sl->next_try = 0;
}

/* The rest of the output, then the result: the slot is then free. */
static void
runner_drain(struct runner *rn, struct runner_slot *sl)
{
	int	r;

	if (runner_post_output(rn, sl, 1) != 0)
		return;		/* more to post, or the relay is away */
	runner_output_result(&sl->output, &sl->rm.output);
	r = runner_post_result(rn, sl->job.id, sl->job.author, sl->job.kitem,
	    &sl->rm, sl->files.n > 0 && sl->rm.nfiles > 0 ? &sl->files : NULL);
	if (r == ALX_ERR_TOO_LARGE && sl->rm.nfiles > 0) {
		/* No room for the files: the result without them. */
		log_warnx("job %s: its files do not fit in the session; the "
		    "result goes without them", sl->job.job_id);
		sl->rm.files = NULL;
		sl->rm.nfiles = 0;
		free(sl->rm.err);
		sl->rm.err = strdup("the job's files did not fit in the "
		    "session; they were not returned");
		r = runner_post_result(rn, sl->job.id, sl->job.author,
		    sl->job.kitem, &sl->rm, NULL);
	}
	if (runner_post_transient(r)) {
		runner_post_later(sl, "result", r);
		return;
	}
	runner_slot_done(rn, sl);
}

/*
 * Stopping with the relay away: the slots that still drain give up. What
 * was not posted is dropped ("interrupted"); the result is kept in the
 * state dir and posted at the next start.
 */
static void
runner_give_up(struct runner *rn)
{
	struct runner_slot	*sl;
	int			 i;

	for (i = 0; i < rn->nslots; i++) {
		sl = &rn->slots[i];
		if (!sl->used || sl->state != SLOT_DRAINING)
			continue;
		runner_output_refused(&sl->output,
		    alx_job_status_name(ALX_JOB_INTERRUPTED));
		runner_output_result(&sl->output, &sl->rm.output);
		runner_post_result(rn, sl->job.id, sl->job.author,
		    sl->job.kitem, &sl->rm, NULL);
		runner_slot_done(rn, sl);
	}
}

/* Sandbox limits for a job from the session's limits and its asks. */
static void
runner_job_limits(struct runner *rn, const struct alx_jobmeta *jm,
    struct sandbox_limits *lim)
{
	struct alx_private	priv;

	sandbox_limits_default(lim);
	if (alx_view_private(&rn->cs.view, &priv) == ALX_OK) {
		if (priv.has_limits) {
			if (priv.limits.timeout_s > 0)
				lim->wall_ms = priv.limits.timeout_s * 1000;
			if (priv.limits.memory_mb > 0)
				lim->mem_bytes = (uint64_t)priv.limits.memory_mb <<
				    20;
		}
		alx_private_free(&priv);
	}
	/* The output comes through the callback (runner-output.c). */
	lim->out_cap = 1;
	if (jm->timeout_s > 0 && jm->timeout_s * 1000 < lim->wall_ms)
		lim->wall_ms = jm->timeout_s * 1000;
	if (jm->memory_mb > 0 && ((uint64_t)jm->memory_mb << 20) <
	    lim->mem_bytes)
		lim->mem_bytes = (uint64_t)jm->memory_mb << 20;
}

void
runner_log_limits(struct runner *rn)
{
	struct alx_jobmeta	jm;
	struct sandbox_limits	lim;
	char			text[1024];

	memset(&jm, 0, sizeof(jm));
	runner_job_limits(rn, &jm, &lim);
	(void)sandbox_enforced(rn->be, &lim, text, sizeof(text));
	log_info("sandbox %s, the limits of session %s's jobs (a job may ask "
	    "for less): %s", rn->be->name, rn->cs.sidstr, text);
}

/* Fetch the payload of a python job into its work folder. */
static int
runner_fetch_source(struct runner *rn, struct runner_slot *sl,
    const struct alx_item *job)
{
	char	*saved = NULL, *cause = NULL;
	int	 r;

	if (sl->job.meta.kind != ALX_JOBKIND_PYTHON)
		return ALX_OK;
	r = alxs_item_save(&rn->cs, job, sl->job.workdir, sl->job.meta.file,
	    &saved,
	    &cause);
	if (r == ALX_OK && saved != NULL && strcmp(strrchr(saved, '/') + 1,
	    sl->job.meta.file) != 0)
		r = ALX_ERR_EXISTS;
	free(saved);
	free(cause);
	return r;
}

/*
 * One input: the item of kind input the job names, posted by the job's
 * own author (its signature checked with that author's key), of the size
 * the job says, its chunks opened with the key made from the job's.
 */
static int
runner_fetch_input(struct runner *rn, struct runner_slot *sl,
    const struct alx_job_input *in, const struct alx_view_member *author,
    int dfd)
{
	struct alxs_resp	 resp;
	struct alx_json		*j = NULL;
	struct alx_item		 it;
	const char		*raw;
	char			 path[160], idtxt[ALX_FP_STRLEN + 1];
	uint8_t			 k[ALX_KEY_LEN];
	size_t			 rawlen;
	int			 tok, fd, r;

	memset(&it, 0, sizeof(it));
	alx_b64_encode(idtxt, in->id, ALX_ID_LEN);
	alxs_sess_path(&rn->cs, path, sizeof(path), "/items/%s", idtxt);
	if ((r = alxs_http_request(&rn->cs.http, "GET", path, NULL, 0, NULL, 1,
	    ALX_ITEM_BODY_MAX * 2, &resp)) != 0)
		goto out;
	if ((r = alx_json_parse(&j, (const char *)resp.body.data,
	    resp.body.len, NULL)) != 0 || (tok = alx_json_obj_get(j, 0,
	    "item")) < 0 || (r = alx_json_raw(j, tok, &raw, &rawlen)) != 0 ||
	    (r = alx_item_open(&it, raw, rawlen, rn->cs.inv.sid,
	    author->cert.pk)) != 0) {
		r = r != 0 ? r : ALX_ERR_MISSING;
		goto out;
	}
	if (strcmp(it.kind, "input") != 0 || it.size != in->size ||
	    !alx_ct_eq(it.id, in->id, ALX_ID_LEN)) {
		r = ALX_ERR_INVALID;
		goto out;
	}
	if ((fd = openat(dfd, in->name, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0644)) == -1) {
		r = ALX_ERR_IO;
		goto out;
	}
	if ((r = alx_item_key_input(sl->job.kitem, it.id, k)) == ALX_OK &&
	    it.size > 0)
		r = alxs_item_read_chunks_key(&rn->cs, &it, k,
		    alxs_item_chunk_to_fd,
		    &fd);
	if (close(fd) != 0 && r == ALX_OK)
		r = ALX_ERR_IO;
out:
	alx_wipe(k, sizeof(k));
	alx_item_free(&it);
	alx_json_free(j);
	alxs_http_resp_free(&resp);
	return r;
}

/* The job's inputs (run --input), read-only for the job at $AIRLOX_IN. */
static int
runner_fetch_inputs(struct runner *rn, struct runner_slot *sl,
    const struct alx_view_member *author)
{
	struct runner_job	*rj = &sl->job;
	size_t			 i;
	int			 dfd, r = ALX_OK;

	if (rj->meta.ninputs == 0)
		return ALX_OK;
	if ((r = runner_pathf(rj->indir, sizeof(rj->indir), "%s/in",
	    rj->jobdir)) != ALX_OK)
		return r;
	/* 0755, files 0644, the runner's: the job reads, never writes. */
	if (mkdir(rj->indir, 0755) != 0 || (dfd = open(rj->indir, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return ALX_ERR_IO;
	for (i = 0; r == ALX_OK && i < rj->meta.ninputs; i++)
		if ((r = runner_fetch_input(rn, sl, &rj->meta.inputs[i],
		    author, dfd)) != ALX_OK)
			log_warnx("job %s: its input %s: %s", rj->job_id,
			    rj->meta.inputs[i].name, alx_errname(r));
	close(dfd);
	return r;
}

/* tree: a job with a tree (or --fresh) runs in its sender's workspace. */
static int
runner_fetch_tree(struct runner *rn, struct runner_slot *sl,
    const struct alx_item *job, const struct alx_view_member *author,
    int *reason)
{
	struct runner_tree_limits lim = { RUNNER_TREE_MAX_FILES,
	    RUNNER_TREE_MAX_BYTES };
	char	*saved = NULL, *cause = NULL;
	int	 r;

	*reason = ALX_ERR_NOT_ALLOWED;
	if (sl->job.meta.tree == NULL && !sl->job.meta.fresh)
		return ALX_OK;
	if (sl->job.meta.tree != NULL && job->size > 0 &&
	    (r = alxs_item_save(&rn->cs, job, sl->job.jobdir, "tree.tar",
	        &saved,
	    &cause)) != ALX_OK) {
		free(cause);
		return r;
	}
	free(cause);
	r = runner_tree_job(&sl->tree, &sl->job, rn->workroot, rn->statedir,
	    rn->cs.inv.sid, author->cert.fp, saved, &lim, reason);
	free(saved);
	return r;
}

/* A job that could not start: a signed refusal, and the slot is free. */
static void
runner_start_fail(struct runner *rn, struct runner_slot *sl,
    const struct alx_item *job, const uint8_t kitem[ALX_KEY_LEN],
    const struct alx_view_member *author, int reason, const char *detail)
{
	runner_mark_running(rn, &sl->job, 0);
	runner_refuse_why(rn, job, kitem, author, reason, detail);
	runner_output_free(&sl->output);
	runner_tree_close(sl->tree);
	runner_job_cleanup(&sl->job);
	memset(sl, 0, sizeof(*sl));
}

static void
runner_start(struct runner *rn, struct runner_slot *sl,
    const struct alx_item *job, const struct alx_view_member *author,
    struct alx_jobmeta *jm, const uint8_t kitem[ALX_KEY_LEN])
{
	struct sandbox_limits	 lim;
	const struct alx_manifest *m = alx_view_manifest(&rn->cs.view);
	struct alx_private	 priv;
	struct runner_net	 net;
	struct redact_rule	 rules[RUNNER_OUTPUT_RULES];
	size_t			 nrules;
	char			*cause = NULL;
	int			 reason;
	int			 r;

	memset(sl, 0, sizeof(*sl));
	sl->used = 1;
	memcpy(sl->job.id, job->id, ALX_ID_LEN);
	memcpy(sl->job.hash, job->hash, ALX_HASH_LEN);
	memcpy(sl->job.author, job->author, ALX_FP_LEN);
	memcpy(sl->job.kitem, kitem, ALX_KEY_LEN);
	sl->job.meta = *jm;
	memset(jm, 0, sizeof(*jm));
	sl->job.py = &rn->py;
	sl->job.output_cb = runner_output;
	sl->job.output_arg = sl;
	sl->item_max = m->item_max;
	snprintf(sl->author_name, sizeof(sl->author_name), "%s",
	    author->cert.name);
	runner_output_init(&sl->output);
	if (alx_view_private(&rn->cs.view, &priv) == ALX_OK) {
		sl->return_out = priv.has_limits && priv.limits.return_out;
		alx_private_free(&priv);
	}
	runner_audit(&rn->audit, job->id, job->author, author->cert.name,
	    "job", "accepted", NULL);
	if ((r = runner_job_prepare(&sl->job, rn->workroot)) != ALX_OK ||
	    (r = runner_fetch_source(rn, sl, job)) != ALX_OK) {
		log_warnx("job %s: cannot prepare its folder: %s",
		    sl->job.job_id, alx_errname(r));
		runner_start_fail(rn, sl, job, kitem, author,
		    ALX_ERR_NOT_ALLOWED, NULL);
		return;
	}
	if ((r = runner_fetch_inputs(rn, sl, author)) != ALX_OK) {
		runner_start_fail(rn, sl, job, kitem, author,
		    ALX_ERR_NOT_ALLOWED,
		    "an input of the job could not be read");
		return;
	}
	if ((r = runner_fetch_tree(rn, sl, job, author, &reason)) != ALX_OK) {
		log_warnx("job %s: its tree: %s", sl->job.job_id,
		    alx_errname(r));
		runner_start_fail(rn, sl, job, kitem, author, reason, NULL);
		return;
	}
	runner_job_limits(rn, &sl->job.meta, &lim);
	/*
	 * Its whole output comes back, spooled here (outside the sandbox),
	 * up to the session's largest item.
	 */
	nrules = runner_job_rules(&sl->job, rules, RUNNER_OUTPUT_RULES);
	if ((r = runner_output_open(&sl->output, sl->job.jobdir, sl->item_max,
	    rules, nrules)) != ALX_OK) {
		log_warnx("job %s: cannot keep its output: %s", sl->job.job_id,
		    alx_errname(r));
		runner_start_fail(rn, sl, job, kitem, author,
		    ALX_ERR_NOT_ALLOWED, NULL);
		return;
	}
	runner_mark_running(rn, &sl->job, 1);
	memset(&net, 0, sizeof(net));
	net.egress = rn->egress;
	net.runner_network = rn->network;
	net.env_allow = rn->env_allow;
	memset(&priv, 0, sizeof(priv));
	if (alx_view_private(&rn->cs.view, &priv) == ALX_OK) {
		if (priv.has_limits) {
			net.mode = priv.limits.net_mode;
			net.allow = priv.limits.net_allow;
			net.nallow = priv.limits.net_nallow;
		}
	}
	r = runner_job_start(&sl->job, rn->be, &lim, rn->shim,
	    (int)(sl - rn->slots), &net, &cause);
	alx_private_free(&priv);
	if (r != ALX_OK) {
		log_warnx("job %s: the sandbox did not start: %s",
		    sl->job.job_id, cause ? cause : alx_errname(r));
		free(cause);
		runner_start_fail(rn, sl, job, kitem, author,
		    ALX_ERR_NOT_ALLOWED, NULL);
		return;
	}
	log_info("job %s: started in slot %d", sl->job.job_id,
	    (int)(sl - rn->slots));
}

static void	runner_defer(struct runner *, const struct alx_item *);

/*
 * Refuse a job not claimed yet. A label job is answered only by the
 * runner whose claim the relay recorded, so this one claims it first; a
 * claim that fails means another runner has it, and says nothing here.
 */
static void
runner_refuse_unclaimed(struct runner *rn, const struct alx_item *job,
    const uint8_t kjob[ALX_KEY_LEN], const struct alx_view_member *author,
    int reason, const char *detail)
{
	int	r;

	runner_seen_add(rn->seen, job->id, job->job.not_after);
	if (job->job.is_label && (r = runner_claim(rn, job)) != ALX_OK) {
		log_info("job: not claimed (%s); not refused here",
		    alx_errname(r));
		return;
	}
	runner_refuse_why(rn, job, kjob, author, reason, detail);
}

static void
runner_on_job(struct runner *rn, const struct alx_item *job,
    const struct alx_view_member *author)
{
	struct runner_slot	*sl;
	struct alx_jobmeta	 jm;
	int			 reason = ALX_OK;
	char			 detail[256], idtxt[ALX_FP_STRLEN + 1];
	uint8_t			 kitem[ALX_KEY_LEN];
	int			 v, r;

	if (rn->stopping)
		return;
	/*
	 * Catching up on the log after a start: a job seen before (it ran,
	 * or was refused) or past its time is history, not a new request.
	 */
	if (rn->replaying && (runner_seen_has(rn->seen, job->id) ||
	    alx_item_check_expiry(job, alxs_http_now(&rn->cs.http)) != ALX_OK))
		return;
	/*
	 * The rest of a replay is decided once the view holds the current
	 * manifest: a sender revoked after it posted, or a runner no longer
	 * approved, must not get its job run by a runner that was away.
	 */
	if (rn->replaying) {
		runner_defer(rn, job);
		return;
	}
	v = runner_admit(&rn->cs.view, &rn->me, rn->seen, job, author,
	    alxs_http_now(&rn->cs.http), kitem, &jm, &reason, detail,
	    sizeof(detail));
	if (v == RUNNER_IGNORE) {
		if (reason != ALX_OK) {	/* for us, but not sealed to us */
			alx_b64_encode(idtxt, job->id, ALX_ID_LEN);
			log_warnx("job %s: %s; it cannot be answered", idtxt,
			    detail);
			runner_audit(&rn->audit, job->id, job->author,
			    author->cert.name, "job", "ignored",
			    alx_errname(reason));
		}
		return;
	}
	if (v == RUNNER_REFUSE) {
		runner_refuse_unclaimed(rn, job, kitem, author, reason, detail);
		alx_wipe(kitem, sizeof(kitem));
		return;
	}
	/* Python jobs need the session's runtime, which could not be made. */
	if ((jm.kind == ALX_JOBKIND_PYTHON || jm.nreqs > 0) &&
	    !rn->py.active && rn->py.error[0] != '\0') {
		alx_jobmeta_free(&jm);
		runner_refuse_unclaimed(rn, job, kitem, author, ALX_ERR_NOT_ALLOWED,
		    rn->py.error);
		alx_wipe(kitem, sizeof(kitem));
		return;
	}
	if ((sl = runner_slot_free(rn)) == NULL) {
		alx_jobmeta_free(&jm);
		if (!job->job.is_label) {
			runner_seen_add(rn->seen, job->id, job->job.not_after);
			runner_refuse(rn, job, kitem, author, ALX_ERR_RUNNER_BUSY);
		} else	/* it waits at the relay; we look again when free */
			runner_defer(rn, job);
		alx_wipe(kitem, sizeof(kitem));
		return;
	}
	if ((r = runner_claim(rn, job)) != ALX_OK) {
		log_info("job: not claimed (%s)", alx_errname(r));
		alx_jobmeta_free(&jm);
		alx_wipe(kitem, sizeof(kitem));
		return;
	}
	/* Remembered durably before it runs: a replay cannot run it again. */
	if (runner_seen_add(rn->seen, job->id, job->job.not_after) != ALX_OK) {
		alx_jobmeta_free(&jm);
		runner_refuse(rn, job, kitem, author, ALX_ERR_REPLAYED);
		alx_wipe(kitem, sizeof(kitem));
		return;
	}
	runner_start(rn, sl, job, author, &jm, kitem);
	alx_jobmeta_free(&jm);
	alx_wipe(kitem, sizeof(kitem));
}

/*
 * Keep a job to decide later: a label job seen while busy (claimed when a
 * slot frees), or any job met while catching up on the log (decided once
 * the view is current).
 */
static void
runner_defer(struct runner *rn, const struct alx_item *job)
{
	struct runner_deferred	*d;

	if (job->obj.raw == NULL)
		return;
	if (rn->ndefer == RUNNER_DEFER_MAX) {	/* drop the oldest */
		free(rn->defer[0].raw);
		memmove(&rn->defer[0], &rn->defer[1],
		    (RUNNER_DEFER_MAX - 1) * sizeof(rn->defer[0]));
		rn->ndefer--;
	}
	d = &rn->defer[rn->ndefer];
	if ((d->raw = malloc(job->obj.raw_len + 1)) == NULL)
		return;
	memcpy(d->raw, job->obj.raw, job->obj.raw_len);
	d->raw[job->obj.raw_len] = '\0';
	d->len = job->obj.raw_len;
	memcpy(d->author, job->author, ALX_FP_LEN);
	d->not_after = job->job.not_after;
	rn->ndefer++;
}

/*
 * Slots are free again: offer them the label jobs deferred while busy,
 * oldest first, each once. runner_on_job() admits it again (approval,
 * revocation, not-after, replay) and claims it; a job another runner
 * claimed meanwhile gets the relay's 409 and is left.
 */
static void
runner_retry_deferred(struct runner *rn)
{
	const struct alx_view_member	*m;
	struct runner_deferred		 d;
	struct alx_item			 it;

	while (rn->ndefer > 0 && !rn->stopping &&
	    runner_slot_free(rn) != NULL) {
		d = rn->defer[0];
		memmove(&rn->defer[0], &rn->defer[1],
		    (rn->ndefer - 1) * sizeof(rn->defer[0]));
		rn->ndefer--;
		memset(&it, 0, sizeof(it));
		if (d.not_after > alxs_http_now(&rn->cs.http) &&
		    (m = alx_view_member_by_fp(&rn->cs.view,
		    d.author)) != NULL &&
		    alx_item_open(&it, d.raw, d.len, rn->cs.inv.sid,
		    m->cert.pk) == ALX_OK && !runner_seen_has(rn->seen, it.id))
			runner_on_job(rn, &it, m);
		alx_item_free(&it);
		free(d.raw);
	}
}

void
runner_defer_free(struct runner *rn)
{
	while (rn->ndefer > 0)
		free(rn->defer[--rn->ndefer].raw);
}

int
runner_python_sync(struct runner *rn, char **cause)
{
	struct alx_private		 priv;
	struct alx_job_limits		 none;
	const struct alx_job_limits	*lim;
	char				 key[33];
	int				 r = ALX_OK;

	*cause = NULL;
	memset(&priv, 0, sizeof(priv));
	memset(&none, 0, sizeof(none));
	if (alx_view_private(&rn->cs.view, &priv) != ALX_OK)
		return ALX_OK;
	lim = priv.has_limits ? &priv.limits : &none;
	if ((lim->kinds & ALX_JOBKIND_PYTHON) == 0 && lim->runtime == NULL &&
	    lim->npackages == 0) {
		runner_pyenv_free(&rn->py);	/* no Python in this session */
		alx_private_free(&priv);
		return ALX_OK;
	}
	runner_pyenv_key(lim, &rn->pyopts, key);
	if ((rn->py.active || rn->py.error[0] != '\0') &&
	    strcmp(key, rn->py.key) == 0) {
		alx_private_free(&priv);
		return ALX_OK;		/* what the session asks for is made */
	}
	log_info("python: the session asks for %s with %zu package(s)",
	    lim->runtime ? lim->runtime : "python3", lim->npackages);
	/* The image's python3, or a job image per allowlist. */
	if (rn->be->py == SANDBOX_PY_IMAGE)
		r = runner_docker_pyenv(&rn->py, lim, &rn->pyopts, cause);
	else
		r = runner_pyenv_prepare(&rn->py, lim, &rn->pyopts, cause);
	if (r == ALX_OK)
		log_info("python: %s (%s), %zu package(s)", rn->py.version,
		    rn->py.source, rn->py.npkgs);
	alx_private_free(&priv);
	return r;
}

/*
 * The session is over: one line, then stop as on SIGTERM (running jobs
 * end; nothing more can be posted) and exit 0, so that neither `airlox
 * runner serve` nor a service manager starts it again.
 */
void
runner_session_ended(struct runner *rn, const char *why)
{
	if (rn->stopping)
		return;
	log_warnx("runner: session %s ended (%s): stopping; nothing more will "
	    "run here", rn->cs.sidstr, why);
	rn->stopping = 1;
	rn->ended = 1;
}

/* The owner changed the manifest: the runtime follows its limits. */
static void
runner_python_changed(struct runner *rn)
{
	char	*cause = NULL;
	int	 r;

	if ((r = runner_python_sync(rn, &cause)) != ALX_OK)
		log_warnx("python: %s; the session's python jobs are refused",
		    cause ? cause : alx_errname(r));
	free(cause);
}

/*
 * An item the view passed over (its author had no right to post it: a job
 * an observer signed, one the owner cannot read, a cancel of another's
 * job): nothing is done for it, and its author is named.
 */
static void
runner_passed_over(const struct alx_view_event *ev)
{
	char	id[ALX_FP_STRLEN + 1], fp[ALX_FP_STRLEN + 1];

	alx_b64_encode(id, ev->item.id, ALX_ID_LEN);
	alx_b64_encode(fp, ev->item.author, ALX_FP_LEN);
	log_warnx("%s item %s from %s (%s, key %s) passed over: %s",
	    ev->item.kind, id, ev->member != NULL ? ev->member->cert.name : "?",
	    ev->member != NULL ? alx_role_name(ev->member->cert.role) : "?",
	    fp, alx_errname(ev->refused));
}

static int
runner_on_event(struct alxs_sess *cs, const struct alx_view_event *ev,
    void *arg)
{
	struct runner		*rn = arg;
	struct runner_slot	*sl;
	int			 approved;

	(void)cs;
	if (ev->type == ALX_EV_MANIFEST) {
		runner_python_changed(rn);
		approved = runner_is_approved(&rn->cs.view, &rn->me);
		if (approved != rn->approved)
			log_info("runner: %s", approved ? "approved by the "
			    "owner: taking jobs" : "not approved: taking no "
			    "new jobs");
		rn->approved = approved;
		return 0;
	}
	if (ev->type == ALX_EV_CLOSED) {
		runner_session_ended(rn, "closed by its owner");
		return 1;
	}
	if (ev->type == ALX_EV_REFUSED) {
		runner_passed_over(ev);
		return 0;
	}
	if (ev->type != ALX_EV_ITEM)
		return 0;
	if (strcmp(ev->item.kind, "job") == 0 && rn->approved)
		runner_on_job(rn, &ev->item, ev->member);
	else if (strcmp(ev->item.kind, "cancel") == 0 &&
	    ev->item.has_reply_to &&
	    (sl = runner_slot_by_job(rn, ev->item.reply_to)) != NULL &&
	    sl->state == SLOT_RUNNING) {
		log_info("job %s: cancelled by its sender", sl->job.job_id);
		sandbox_cancel(sl->job.sb);
	}
	return 0;
}

/*
 * Step every running job, waiting up to wait_ms in all for their output
 * or their end; 1 when at least one still runs.
 */
static int
runner_step(struct runner *rn, int wait_ms)
{
	int	i, busy = 0, running = 0;

	for (i = 0; i < rn->nslots; i++)
		running += rn->slots[i].used &&
		    rn->slots[i].state == SLOT_RUNNING;
	for (i = 0; i < rn->nslots; i++) {
		struct runner_slot *sl = &rn->slots[i];

		if (!sl->used)
			continue;
		busy = 1;
		if (sl->state == SLOT_DRAINING) {
			runner_drain(rn, sl);
			continue;
		}
		if (sandbox_step(sl->job.sb, wait_ms / running) == 1) {
			runner_ended(rn, sl);
			runner_drain(rn, sl);
			continue;
		}
		runner_post_output(rn, sl, 0);
	}
	/* Only results waiting for the relay: do not spin. */
	if (busy && running == 0)
		usleep((useconds_t)wait_ms * 1000 / 4);
	return busy;
}

int
runner_announce(struct runner *rn)
{
	struct alx_announce	 a;
	struct alxs_resp	 resp;
	char			 path[128];
	int			 r;

	rn->last_announce = mono_ms();
	memset(&a, 0, sizeof(a));
	memcpy(a.sid, rn->cs.inv.sid, ALX_SID_LEN);
	memcpy(a.runner, rn->me.fp, ALX_FP_LEN);
	snprintf(a.name, sizeof(a.name), "%s", rn->me.name);
	a.labels = rn->me.labels;
	a.nlabels = rn->me.nlabels;
	a.slots = rn->nslots;
	a.kinds = rn->me.kinds;
	snprintf(a.sandbox, sizeof(a.sandbox), "%s", rn->be->name);
	snprintf(a.version, sizeof(a.version), "%s", ALX_VERSION_STRING);
	a.network = rn->network;
	a.time = alxs_http_now(&rn->cs.http);
	r = alx_announce_sign(&a, &rn->cs.me.sk);
	a.labels = NULL;
	a.nlabels = 0;
	if (r != ALX_OK)
		return r;
	alxs_sess_path(&rn->cs, path, sizeof(path), "/runners");
	r = alxs_http_request(&rn->cs.http, "POST", path, a.obj.raw,
	    a.obj.raw_len,
	    NULL, 1, 4096, &resp);
	alxs_http_resp_free(&resp);
	alx_announce_free(&a);
	return r;
}

int
runner_run(struct runner *rn)
{
	int64_t	stop_at = 0, last_gc = 0;
	int	busy = 0, r, i;

	runner_recover(rn);
	/* Catch up with the log: jobs posted while the runner was away. */
	rn->replaying = 1;
	if ((r = alxs_sess_replay(&rn->cs, runner_on_event, rn)) != 0 && r != 1)
		log_warnx("runner: reading the session's log: %s",
		    alx_errname(r));
	rn->replaying = 0;
	rn->approved = runner_is_approved(&rn->cs.view, &rn->me);
	if (!rn->approved)
		log_info("runner: waiting for the owner to approve key %s",
		    rn->cs.view.me_fps);
	for (;;) {
		if (runner_stop && !rn->stopping) {
			rn->stopping = 1;
			stop_at = mono_ms() + (int64_t)rn->grace_s * 1000;
			log_info("runner: stopping; running jobs have %d s",
			    rn->grace_s);
		}
		busy = runner_step(rn, STEP_WAIT_MS);
		runner_retry_deferred(rn);
		/* Stay online in the relay's eyes (job ls, runner_busy). */
		if (!rn->stopping && mono_ms() - rn->last_announce >=
		    RUNNER_ANNOUNCE_S * 1000 && runner_announce(rn) != ALX_OK)
			log_debug("runner: announcement not taken; again "
			    "later");
		if (rn->stopping) {
			if (!busy)
				break;
			if (mono_ms() >= stop_at)
				for (i = 0; i < rn->nslots; i++)
					if (rn->slots[i].used &&
					    rn->slots[i].state == SLOT_RUNNING)
						sandbox_cancel(rn->slots[i].job.sb);
			if (mono_ms() >= stop_at + DRAIN_GIVE_UP_MS)
				runner_give_up(rn);
			usleep(100 * 1000);
			continue;
		}
		/* While jobs run, look at the log between their steps. */
		r = alxs_sess_poll(&rn->cs, busy ? 0 : POLL_IDLE_S,
		    runner_on_event, rn);
		if (r == ALX_ERR_SESSION_EXPIRED || r == ALX_ERR_NOT_FOUND) {
			runner_session_ended(rn, r == ALX_ERR_NOT_FOUND ?
			    "the relay no longer has it" : "it expired or was "
			    "closed");
			continue;
		}
		if (r != 0 && r != 1) {
			log_warnx("runner: the relay: %s; retrying",
			    alx_errname(r));
			sleep(2);
		}
		runner_seen_prune(rn->seen, alxs_http_now(&rn->cs.http));
		/* tree: collect idle workspaces, and over the budget */
		if (mono_ms() - last_gc >= RUNNER_TREE_GC_S * 1000) {
			last_gc = mono_ms();
			runner_tree_gc(rn->workroot, rn->statedir,
			    RUNNER_TREE_IDLE_S, RUNNER_TREE_BUDGET);
		}
	}
	return 0;
}

/*
 * The boundary proven before any job: run the verify probes in a sandbox
 * exactly as a job's, and post the report, signed, so the owner sees it
 * before approving this runner (airlox machine add reads it).
 */
int
runner_post_verify(struct runner *rn)
{
	struct alx_private	 priv;
	struct alxs_item_post	 p;
	struct alx_jw		 w;
	FILE			*devnull;
	char			*report = NULL, *meta = NULL, *cause = NULL;
	size_t			 len;
	int			 fails, mode = ALX_NET_NONE, r;

	memset(&priv, 0, sizeof(priv));
	if (alx_view_private(&rn->cs.view, &priv) == ALX_OK &&
	    priv.has_limits)
		mode = priv.limits.net_mode;
	if ((devnull = fopen("/dev/null", "we")) == NULL)
		return ALX_ERR_IO;
	fails = runner_verify(rn->be, rn->statedir, rn->workroot,
	    mode == ALX_NET_FULL && !rn->network ? ALX_NET_NONE : mode,
	    priv.limits.net_allow, priv.limits.net_nallow, devnull, &report);
	fclose(devnull);
	alx_private_free(&priv);
	if (fails < 0 || report == NULL) {
		/* No boundary proven is a FAIL the owner must see, not silence. */
		log_warnx("verify: the probes did not run (%s)",
		    alx_errname(fails < 0 ? fails : ALX_ERR_IO));
		free(report);
		report = NULL;
		if (asprintf(&report, "{\"version\":1,\"sandbox\":\"%s\","
		    "\"pass\":0,\"fail\":1,\"skip\":0,\"probes\":[{\"name\":"
		    "\"verify\",\"result\":\"FAIL\",\"reason\":\"the probes "
		    "cannot run in this sandbox (%s)\"}]}", rn->be->name,
		    alx_errname(fails < 0 ? fails : ALX_ERR_IO)) == -1)
			return ALX_ERR_NOMEM;
		fails = 1;
	}
	log_info("verify: %d probe(s) failed; report posted to the session",
	    fails);
	alx_jw_init(&w, ALX_META_MAX);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "v", ALX_PROTO_VERSION);
	alx_jw_key(&w, "verify");
	alx_jw_raw(&w, report, strlen(report));
	alx_jw_obj_end(&w);
	r = alx_jw_finish(&w, &meta, &len);
	alx_jw_free(&w);
	free(report);
	if (r != ALX_OK)
		return r;
	memset(&p, 0, sizeof(p));
	p.kind = "report";
	p.meta = meta;
	p.metalen = len;
	p.fd = -1;
	if ((r = alxs_item_post(&rn->cs, &p, &cause)) != ALX_OK)
		log_warnx("verify: the report was not posted (%s)",
		    cause ? cause : alx_errname(r));
	free(cause);
	free(meta);
	return r;
}
