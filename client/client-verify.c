/*
 * client-verify.c: a runner's verify report as its owner reads it before
 * approving the runner (machine add, machine approve, session approve).
 *
 * The report is the latest signed "report" item with a "verify" member
 * that the runner's own key posted (runner_post_verify in runnerd): its
 * counts and each FAIL with its reason. verify_report_gate() shows it and
 * refuses a FAIL, or no report at all, unless --accept-weaker was given.
 * Reports are kept by key, never by member pointer (the view's member
 * array grows as others join).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "airlox.h"
#include "client.h"
#include "client-job.h"

static struct verify_report *
verify_report_slot(struct verify_reports *vr, const uint8_t *fp)
{
	struct verify_report	*n;
	size_t			 i;

	for (i = 0; i < vr->n; i++)
		if (memcmp(vr->v[i].fp, fp, ALX_FP_LEN) == 0)
			return &vr->v[i];
	if ((n = reallocarray(vr->v, vr->n + 1, sizeof(*n))) == NULL)
		return NULL;
	vr->v = n;
	memset(&n[vr->n], 0, sizeof(*n));
	memcpy(n[vr->n].fp, fp, ALX_FP_LEN);
	return &n[vr->n++];
}

/* Append "name: reason" to the FAIL lines (cut, never overflowing). */
static void
verify_report_add_fail(struct verify_report *rep, const char *name,
    const char *reason)
{
	size_t	used = strlen(rep->fails);

	if (used + strlen(name) + 4 >= sizeof(rep->fails))
		return;
	snprintf(rep->fails + used, sizeof(rep->fails) - used, "%s: %s\n",
	    name, reason != NULL ? reason : "");
}

/* The probes of a report: the FAILs and their reasons. */
static void
verify_report_probes(struct alx_json *j, int v, struct verify_report *rep)
{
	char	*name = NULL, *res = NULL, *why = NULL;
	int	 probes, i, n, t;

	rep->fails[0] = '\0';
	probes = alx_json_obj_get(j, v, "probes");
	n = alx_json_arr_len(j, probes);
	for (i = 0; i < n; i++) {
		t = alx_json_arr_at(j, probes, i);
		if (alx_json_get_str(j, t, "name", &name, 64) == 0 &&
		    alx_json_get_str(j, t, "result", &res, 8) == 0 &&
		    strcmp(res, "FAIL") == 0) {
			(void)alx_json_get_str(j, t, "reason", &why, 512);
			verify_report_add_fail(rep, name, why);
		}
		free(name);
		free(res);
		free(why);
		name = res = why = NULL;
	}
}

int
verify_reports_event(struct alxs_sess *cs, const struct alx_view_event *ev,
    void *arg)
{
	struct verify_reports	*vr = arg;
	struct verify_report	 got, *slot;
	struct alx_json		*j = NULL;
	char			*meta = NULL;
	size_t			 len;
	int			 v;

	if (ev->type != ALX_EV_ITEM || ev->member == NULL ||
	    ev->member->cert.role != ALX_ROLE_RUNNER ||
	    strcmp(ev->item.kind, "report") != 0 ||
	    alxs_item_meta(cs, &ev->item, &meta, &len) != 0)
		return 0;
	memset(&got, 0, sizeof(got));
	if (alx_json_parse(&j, meta, len, NULL) == 0 &&
	    (v = alx_json_obj_get(j, 0, "verify")) >= 0 &&
	    alx_json_get_int(j, v, "pass", &got.pass, 0, 10000) == 0 &&
	    alx_json_get_int(j, v, "fail", &got.fail, 0, 10000) == 0 &&
	    alx_json_get_int(j, v, "skip", &got.skip, 0, 10000) == 0 &&
	    (slot = verify_report_slot(vr, ev->member->cert.fp)) != NULL) {
		verify_report_probes(j, v, &got);
		memcpy(got.fp, slot->fp, ALX_FP_LEN);
		*slot = got;		/* the latest report wins */
	}
	alx_json_free(j);
	free(meta);
	return 0;
}

const struct verify_report *
verify_reports_find(const struct verify_reports *vr, const uint8_t *fp)
{
	size_t	i;

	for (i = 0; i < vr->n; i++)
		if (memcmp(vr->v[i].fp, fp, ALX_FP_LEN) == 0)
			return &vr->v[i];
	return NULL;
}

void
verify_reports_free(struct verify_reports *vr)
{
	free(vr->v);
	vr->v = NULL;
	vr->n = 0;
}

struct verify_await {
	struct verify_reports	*vr;
	const uint8_t		*fp;
};

static int
verify_await_event(struct alxs_sess *cs, const struct alx_view_event *ev,
    void *arg)
{
	struct verify_await	*a = arg;

	verify_reports_event(cs, ev, a->vr);
	return verify_reports_find(a->vr, a->fp) != NULL ? 1 : 0;
}

/*
 * The report of the runner key fp: kept already, or read from the log as
 * it comes, for at most wait_s seconds (a runner posts it right after it
 * joins, once its probes ran). NULL when none came.
 */
const struct verify_report *
verify_report_await(struct alxs_sess *cs, struct verify_reports *vr,
    const uint8_t *fp, int wait_s)
{
	struct verify_await	 a = { vr, fp };
	time_t			 end = time(NULL) + wait_s;
	int			 r;

	while (verify_reports_find(vr, fp) == NULL && time(NULL) < end) {
		r = alxs_sess_poll(cs, 10, verify_await_event, &a);
		if (r != 0 && r != 1)
			break;
	}
	return verify_reports_find(vr, fp);
}

/*
 * Show the report of runner name (text mode) and decide: 0 to approve, or
 * the exit status of a refusal (printed): a FAIL, or no report, without
 * --accept-weaker.
 */
int
verify_report_gate(struct client_ctx *ctx, const char *name,
    const struct verify_report *rep)
{
	const char	*p, *nl;
	int		 weaker = args_has(&ctx->args, "accept-weaker");

	if (rep == NULL) {
		if (weaker) {
			out_text("runner %s posted no verify report; approved "
			    "anyway (--accept-weaker)\n", name);
			return 0;
		}
		return out_fail(ALX_ERR_NOT_ALLOWED, "the runner %s posted no "
		    "verify report; approve it anyway with --accept-weaker",
		    name);
	}
	out_text("verify report of runner %s: %lld passed, %lld failed, %lld "
	    "skipped\n", name, (long long)rep->pass, (long long)rep->fail,
	    (long long)rep->skip);
	for (p = rep->fails; !out_json() && *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		fputs("  FAIL ", stdout);
		out_safe(stdout, p, (size_t)(nl - p));
		fputc('\n', stdout);
	}
	fflush(stdout);
	if (rep->fail > 0 && !weaker)
		return out_fail(ALX_ERR_NOT_ALLOWED, "the runner's verify "
		    "report has %lld FAIL(s); not approved. Next: fix what "
		    "each FAIL names on the machine (airlox-runnerd verify "
		    "there runs the probes again; docs/sandbox.md says what "
		    "each checks) and start the runner again, or approve it "
		    "as it is with --accept-weaker", (long long)rep->fail);
	return 0;
}
