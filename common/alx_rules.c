/*
 * alx_rules.c: what an item may do beyond its signature, its author's
 * chain and the manifest version it acts on (protocol.md sections 6, 8 and
 * 10): the permission matrix, who a job's key is wrapped to, who may
 * answer a job (result, progress, report) and who may cancel it, and which
 * runner a job's target names.
 *
 * The relay checks these before it stores an item, and every reader
 * checks them again with what its own view of the log knows; the relay
 * alone also knows which runner claimed a label job.
 */
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"

int
alx_manifest_runner_approved(const struct alx_manifest *m,
    const uint8_t fp[ALX_FP_LEN])
{
	/* Without approval, every runner of the session counts as approved. */
	return m != NULL && (!m->approve ||
	    alx_manifest_find_approved(m, fp) != NULL);
}

static int
alx_rules_has_label(char *const *labels, size_t n, const char *name)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcmp(labels[i], name) == 0)
			return 1;
	return 0;
}

int
alx_runner_serves(const struct alx_manifest *m, const uint8_t fp[ALX_FP_LEN],
    const struct alx_announce *ann, int is_label, const char *name)
{
	const struct alx_approved	*a;

	if (m == NULL || alx_manifest_is_revoked(m, fp))
		return 0;
	if (m->approve) {
		/* The owner's word: the name and labels of its approval. */
		if ((a = alx_manifest_find_approved(m, fp)) == NULL)
			return 0;
		if (!is_label)
			return strcmp(a->name, name) == 0;
		return alx_rules_has_label(a->labels, a->nlabels, name);
	}
	/* No approval: the runner's own signed announcement, if any. */
	if (ann == NULL || !alx_ct_eq(ann->runner, fp, ALX_FP_LEN))
		return 0;
	if (!is_label)
		return strcmp(ann->name, name) == 0;
	return alx_rules_has_label(ann->labels, ann->nlabels, name);
}

int
alx_job_check_wraps(const struct alx_item *it)
{
	uint8_t	fp[ALX_FP_LEN];
	size_t	i, k, owner = 0;

	if (!it->has_job)
		return ALX_ERR_INVALID;
	for (i = 0; i < it->job.nwraps; i++) {
		const char *to = it->job.wraps[i].to;

		for (k = 0; k < i; k++)
			if (strcmp(it->job.wraps[k].to, to) == 0)
				return ALX_ERR_INVALID;
		if (strcmp(to, "owner") == 0) {
			owner++;
			continue;
		}
		/* A role's wrap would hand the job to every holder of its link. */
		if (alx_b64_decode_exact(fp, sizeof(fp), to, strlen(to)) !=
		    ALX_OK)
			return ALX_ERR_NOT_ALLOWED;
	}
	/* The owner reads every job of its session. */
	return owner == 1 ? ALX_OK : ALX_ERR_NOT_RECIPIENT;
}

int
alx_job_wrap_fps(const struct alx_item *it, uint8_t (**out)[ALX_FP_LEN],
    size_t *np)
{
	uint8_t	(*fps)[ALX_FP_LEN];
	size_t	 i, n = 0;

	*out = NULL;
	*np = 0;
	if (!it->has_job)
		return ALX_ERR_INVALID;
	if (it->job.nwraps == 0)
		return ALX_OK;
	if ((fps = calloc(it->job.nwraps, ALX_FP_LEN)) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < it->job.nwraps; i++) {
		const char *to = it->job.wraps[i].to;

		if (alx_b64_decode_exact(fps[n], ALX_FP_LEN, to,
		    strlen(to)) == ALX_OK)
			n++;
	}
	if (n == 0) {
		free(fps);
		return ALX_OK;
	}
	*out = fps;
	*np = n;
	return ALX_OK;
}

int
alx_item_answers_job(const struct alx_item *it)
{
	if (strcmp(it->kind, "result") == 0 ||
	    strcmp(it->kind, "progress") == 0 ||
	    strcmp(it->kind, "cancel") == 0)
		return 1;
	/* A runner's report about one job (its denied egress attempts). */
	return strcmp(it->kind, "report") == 0 && it->has_reply_to;
}

static int
alx_rules_is_recipient(const struct alx_jobref *job,
    const uint8_t fp[ALX_FP_LEN])
{
	size_t	i;

	for (i = 0; i < job->nrunners; i++)
		if (alx_ct_eq(job->runners[i], fp, ALX_FP_LEN))
			return 1;
	return 0;
}

/* A result, progress or report: only from a runner the job went to. */
static int
alx_rules_check_runner(const struct alx_cert *author,
    const struct alx_item *it, const struct alx_jobref *job)
{
	if (!alx_rules_is_recipient(job, author->fp))
		return ALX_ERR_NOT_RECIPIENT;
	/* Of a job's recipients, the relay let one claim it. */
	if (job->claims_known) {
		if (job->claimed && !alx_ct_eq(job->claimed_by, author->fp,
		    ALX_FP_LEN))
			return ALX_ERR_CLAIMED;
		if (!job->claimed && job->is_label)
			return ALX_ERR_NOT_RECIPIENT;
	}
	if (strcmp(it->kind, "result") == 0 && job->has_result)
		return ALX_ERR_EXISTS;
	return ALX_OK;
}

int
alx_item_check_rules(const struct alx_manifest *m,
    const struct alx_cert *author, const struct alx_item *it,
    const struct alx_jobref *job)
{
	int	r;

	if ((r = alx_role_may_post(author->role, it->kind)) != ALX_OK)
		return r;
	if (it->has_job)
		return alx_job_check_wraps(it);
	if (!alx_item_answers_job(it))
		return ALX_OK;
	if (author->role == ALX_ROLE_RUNNER &&
	    !alx_manifest_runner_approved(m, author->fp))
		return ALX_ERR_NOT_ALLOWED;
	if (!it->has_reply_to)
		return ALX_ERR_MISSING;
	if (job == NULL)
		return ALX_ERR_NOT_FOUND;
	if (strcmp(it->kind, "cancel") == 0) {
		/* Only a job's author or the owner may cancel it. */
		if (author->role != ALX_ROLE_OWNER &&
		    !alx_ct_eq(job->author, author->fp, ALX_FP_LEN))
			return ALX_ERR_WRONG_ROLE;
		return ALX_OK;
	}
	return alx_rules_check_runner(author, it, job);
}
