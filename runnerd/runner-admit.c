/*
 * runner-admit.c: what a runner checks before anything runs. The view has
 * already verified the job's signature, its author's certificate and
 * revocation, the role's right to post jobs and the author's chain; here
 * the runner decides whether the job is for it, and refuses (never
 * silently) a job it will not run: expired, replayed, over the session's
 * limits, asking for a Python package outside the session's allowlist,
 * or one it cannot open.
 *
 * Job ids are remembered until their not-after time, in the state dir, so
 * a replay is caught across restarts.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runnerd.h"
#include "runner-python.h"

#define RUNNER_SEEN_MAX	100000

struct runner_seen_ent {
	uint8_t	id[ALX_ID_LEN];
	int64_t	not_after;
};

struct runner_seen {
	char			 path[PATH_MAX];
	struct runner_seen_ent	*ents;
	size_t			 n;
};

static int
runner_seen_load(struct runner_seen *s)
{
	FILE	*fp;
	char	 line[128], idtxt[64];
	long long na;
	struct runner_seen_ent *ne;

	if ((fp = fopen(s->path, "re")) == NULL)
		return errno == ENOENT ? ALX_OK : ALX_ERR_IO;
	while (fgets(line, sizeof(line), fp) != NULL && s->n < RUNNER_SEEN_MAX) {
		if (sscanf(line, "%63s %lld", idtxt, &na) != 2)
			continue;
		ne = realloc(s->ents, (s->n + 1) * sizeof(*ne));
		if (ne == NULL) {
			fclose(fp);
			return ALX_ERR_NOMEM;
		}
		s->ents = ne;
		if (alx_b64_decode_exact(ne[s->n].id, ALX_ID_LEN, idtxt,
		    strlen(idtxt)) != ALX_OK)
			continue;
		ne[s->n].not_after = na;
		s->n++;
	}
	fclose(fp);
	return ALX_OK;
}

int
runner_seen_open(struct runner_seen **sp, const char *statedir)
{
	struct runner_seen	*s;
	int			 r;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return ALX_ERR_NOMEM;
	if ((size_t)snprintf(s->path, sizeof(s->path), "%s/seen-jobs",
	    statedir) >= sizeof(s->path)) {
		free(s);
		return ALX_ERR_INVALID;
	}
	if ((r = runner_seen_load(s)) != ALX_OK) {
		runner_seen_free(s);
		return r;
	}
	*sp = s;
	return ALX_OK;
}

void
runner_seen_free(struct runner_seen *s)
{
	if (s == NULL)
		return;
	free(s->ents);
	free(s);
}

int
runner_seen_has(const struct runner_seen *s, const uint8_t id[ALX_ID_LEN])
{
	size_t	i;

	for (i = 0; i < s->n; i++)
		if (memcmp(s->ents[i].id, id, ALX_ID_LEN) == 0)
			return 1;
	return 0;
}

int
runner_seen_add(struct runner_seen *s, const uint8_t id[ALX_ID_LEN],
    int64_t not_after)
{
	struct runner_seen_ent	*ne;
	char			 idtxt[ALX_B64_ENCLEN(ALX_ID_LEN) + 1];
	FILE			*fp;

	if (runner_seen_has(s, id))
		return ALX_OK;
	if (s->n >= RUNNER_SEEN_MAX)
		return ALX_ERR_TOO_LARGE;
	if ((ne = realloc(s->ents, (s->n + 1) * sizeof(*ne))) == NULL)
		return ALX_ERR_NOMEM;
	s->ents = ne;
	memcpy(ne[s->n].id, id, ALX_ID_LEN);
	ne[s->n].not_after = not_after;
	s->n++;
	/* Durable before the job runs: a restart must not run it again. */
	alx_b64_encode(idtxt, id, ALX_ID_LEN);
	if ((fp = fopen(s->path, "ae")) == NULL)
		return ALX_ERR_IO;
	fprintf(fp, "%s %lld\n", idtxt, (long long)not_after);
	if (fflush(fp) != 0 || fsync(fileno(fp)) != 0) {
		fclose(fp);
		return ALX_ERR_IO;
	}
	fclose(fp);
	return ALX_OK;
}

void
runner_seen_prune(struct runner_seen *s, int64_t now)
{
	char	 tmp[PATH_MAX + 8], idtxt[ALX_B64_ENCLEN(ALX_ID_LEN) + 1];
	size_t	 i, k = 0;
	FILE	*fp;

	for (i = 0; i < s->n; i++)
		if (s->ents[i].not_after >= now)
			s->ents[k++] = s->ents[i];
	if (k == s->n)
		return;
	s->n = k;
	snprintf(tmp, sizeof(tmp), "%s.tmp", s->path);
	if ((fp = fopen(tmp, "we")) == NULL)
		return;
	for (i = 0; i < s->n; i++) {
		alx_b64_encode(idtxt, s->ents[i].id, ALX_ID_LEN);
		fprintf(fp, "%s %lld\n", idtxt, (long long)s->ents[i].not_after);
	}
	if (fflush(fp) == 0 && fsync(fileno(fp)) == 0)
		rename(tmp, s->path);
	fclose(fp);
}

int
runner_is_approved(const struct alx_view *v, const struct runner_ident *me)
{
	return alx_manifest_runner_approved(alx_view_manifest(v), me->fp);
}

/*
 * Is the job addressed to this runner: by the name or a label the owner
 * approved it with (its own, as it announces them, when the session needs
 * no approval)? The rule senders wrap by (alx_runner_serves()).
 */
static int
runner_admit_target(const struct alx_view *v, const struct runner_ident *me,
    const struct alx_item *job)
{
	struct alx_announce	a;

	memset(&a, 0, sizeof(a));
	memcpy(a.runner, me->fp, ALX_FP_LEN);
	snprintf(a.name, sizeof(a.name), "%s", me->name);
	a.labels = me->labels;
	a.nlabels = me->nlabels;
	return alx_runner_serves(alx_view_manifest(v), me->fp, &a,
	    job->job.is_label, job->job.name);
}

int
runner_admit(const struct alx_view *v, const struct runner_ident *me,
    const struct runner_seen *seen, const struct alx_item *job,
    const struct alx_view_member *author, int64_t now,
    uint8_t kitem[ALX_KEY_LEN], struct alx_jobmeta *meta, int *reason,
    char *detail, size_t detaillen)
{
	struct alx_private	 priv;
	const char		*what = NULL;
	char			*mj = NULL;
	size_t			 mlen;
	int			 r;

	memset(meta, 0, sizeof(*meta));
	*reason = ALX_OK;
	if (detail != NULL && detaillen > 0)
		detail[0] = '\0';
	if (!job->has_job || !runner_admit_target(v, me, job))
		return RUNNER_IGNORE;
	/* An unapproved runner takes nothing (and could not open it). */
	if (!runner_is_approved(v, me))
		return RUNNER_IGNORE;
	/*
	 * The job's key first: every answer to the job, a refusal too, is
	 * sealed to the job's readers with a key made from it. A runner the
	 * job was not sealed to can neither read it nor answer it; the
	 * caller logs it (reason and detail set) and posts nothing, so a
	 * runner that holds the label cannot block another's result.
	 */
	if ((r = alx_view_item_key(v, job, kitem)) != ALX_OK) {
		*reason = ALX_ERR_NOT_RECIPIENT;
		if (detail != NULL && detaillen > 0)
			snprintf(detail, detaillen, "%s",
			    r == ALX_ERR_KEY_COMMIT ? "its wrap for this runner "
			    "holds another key than the job commits to" :
			    "it was not sealed to this runner");
		return RUNNER_IGNORE;
	}
	if (author->cert.role != ALX_ROLE_OWNER &&
	    author->cert.role != ALX_ROLE_SENDER) {
		*reason = ALX_ERR_NOT_SIGNED;
		return RUNNER_REFUSE;
	}
	/*
	 * Still valid in the current manifest: a key revoked (or a role
	 * rotated) after it posted the job signs nothing any more.
	 */
	if (alx_cert_valid(&author->cert, alx_view_manifest(v)) != ALX_OK) {
		*reason = ALX_ERR_REVOKED;
		if (detail != NULL && detaillen > 0)
			snprintf(detail, detaillen, "its author's key was "
			    "revoked after the job was posted");
		return RUNNER_REFUSE;
	}
	if (runner_seen_has(seen, job->id)) {
		*reason = ALX_ERR_REPLAYED;
		return RUNNER_REFUSE;
	}
	if (alx_item_check_expiry(job, now) != ALX_OK) {
		*reason = ALX_ERR_EXPIRED;
		return RUNNER_REFUSE;
	}
	if ((r = alx_item_open_meta(job, kitem, &mj, &mlen)) != ALX_OK ||
	    (r = alx_jobmeta_decode(meta, mj, mlen)) != ALX_OK) {
		free(mj);
		*reason = r == ALX_ERR_VERSION ? ALX_ERR_VERSION :
		    ALX_ERR_NOT_ALLOWED;
		if (detail != NULL && detaillen > 0)
			snprintf(detail, detaillen, "this runner cannot read "
			    "the job's description (%s)", alx_errname(r));
		return RUNNER_REFUSE;
	}
	free(mj);
	/* The owner-signed limits: kinds, timeout, memory, network. */
	if ((r = alx_view_private(v, &priv)) != ALX_OK || !priv.has_limits) {
		if (r == ALX_OK)
			alx_private_free(&priv);
		alx_jobmeta_free(meta);
		*reason = ALX_ERR_NOT_ALLOWED;
		return RUNNER_REFUSE;
	}
	r = alx_job_limits_check(&priv.limits, meta->kind, meta->timeout_s,
	    meta->memory_mb, meta->net_mode);
	/* Requirements: names of the owner's allowlist only (PEP 503). */
	if (r == ALX_OK && runner_pyenv_admit(&priv.limits, meta, &what) !=
	    ALX_OK) {
		r = ALX_ERR_NOT_ALLOWED;
		if (detail != NULL && detaillen > 0)
			snprintf(detail, detaillen, "the package %.*s is not in "
			    "the session's allowlist", 128, what ? what : "?");
	}
	alx_private_free(&priv);
	if (r != ALX_OK || (meta->kind & me->kinds) == 0) {
		alx_jobmeta_free(meta);
		*reason = ALX_ERR_NOT_ALLOWED;
		return RUNNER_REFUSE;
	}
	return RUNNER_RUN;
}
