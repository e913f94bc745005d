/*
 * relay-api-jobs.c: runners and job dispatch (protocol.md section 13).
 *
 * Records (the job's own fields come from its item, opened by libairlox):
 *   JOBS          sid id        -> be64 not_after, author fp, is_label,
 *                                  target name (64 bytes, NUL padded)
 *   JOBS          sid id 'C'    -> runner fp, be64 time: the claim
 *   JOBS          sid id 'D'    -> be64 time: a result arrived (one only)
 *   JOBS          sid id 'W'    -> the fps the job's key is wrapped to
 *   PARTICIPANTS  sid 'R' fp    -> be64 last seen, announce object
 * First claim wins: the claim is a put_new on "sid id C", and the single
 * writer thread applies writes in order, so of two claims in flight the
 * second finds the key and gets 409 already_claimed.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/http.h>

#include "airlox.h"
#include "util/log.h"
#include "relayd.h"

#define RELAY_ONLINE_S		90	/* announced this recently: online */
#define RELAY_JOBREC_LEN	(8 + ALX_FP_LEN + 1 + 64)
#define RELAY_MAX_RUNNERS	256
#define RELAY_MAX_JOBS		1024

struct relay_runner {
	uint8_t			 fp[ALX_FP_LEN];
	struct alx_announce	 a;
	uint64_t		 seen;
	int			 busy;
};

struct relay_job {
	uint8_t		 id[ALX_ID_LEN];
	uint64_t	 not_after;
	uint8_t		 author[ALX_FP_LEN];
	int		 is_label;
	char		 name[64];
	int		 claimed;
	uint8_t		 runner[ALX_FP_LEN];
	int		 done;
};

struct relay_jobs {
	struct relay_session	*s;
	struct relay_runner	*runners;
	size_t			 nrunners;
	struct relay_job	*jobs;
	size_t			 njobs;
};

static void
relay_jobs_free(struct relay_jobs *j)
{
	size_t	i;

	for (i = 0; i < j->nrunners; i++)
		alx_announce_free(&j->runners[i].a);
	free(j->runners);
	free(j->jobs);
}

static int
relay_runner_cb(const uint8_t *key, size_t klen, const uint8_t *val,
    size_t vlen, void *arg)
{
	struct relay_jobs	*j = arg;
	struct relay_runner	*r;

	if (klen != RELAY_SID_LEN + 1 + ALX_FP_LEN || key[RELAY_SID_LEN] != 'R'
	    || vlen <= 8 || j->nrunners >= RELAY_MAX_RUNNERS)
		return 0;
	r = &j->runners[j->nrunners];
	memset(r, 0, sizeof(*r));
	memcpy(r->fp, key + RELAY_SID_LEN + 1, ALX_FP_LEN);
	r->seen = relay_get_be64(val);
	/* Stored after libairlox verified it; opened again all the same. */
	{
		struct relay_member *m = relay_member_find(j->s, r->fp);

		if (m == NULL || alx_announce_open(&r->a, (const char *)val + 8,
		    vlen - 8, j->s->sid, m->cert.pk) != 0)
			return 0;
	}
	j->nrunners++;
	return 0;
}

static struct relay_job *
relay_job_find(struct relay_jobs *j, const uint8_t *id)
{
	size_t	i;

	for (i = 0; i < j->njobs; i++)
		if (memcmp(j->jobs[i].id, id, ALX_ID_LEN) == 0)
			return &j->jobs[i];
	return NULL;
}

static int
relay_job_cb(const uint8_t *key, size_t klen, const uint8_t *val,
    size_t vlen, void *arg)
{
	struct relay_jobs	*j = arg;
	struct relay_job	*jb;
	const uint8_t		*id = key + RELAY_SID_LEN;

	if (klen == RELAY_SID_LEN + ALX_ID_LEN && vlen == RELAY_JOBREC_LEN) {
		if (j->njobs >= RELAY_MAX_JOBS)
			return 0;
		jb = &j->jobs[j->njobs++];
		memset(jb, 0, sizeof(*jb));
		memcpy(jb->id, id, ALX_ID_LEN);
		jb->not_after = relay_get_be64(val);
		memcpy(jb->author, val + 8, ALX_FP_LEN);
		jb->is_label = val[8 + ALX_FP_LEN];
		memcpy(jb->name, val + 8 + ALX_FP_LEN + 1, 63);
		return 0;
	}
	if (klen != RELAY_SID_LEN + ALX_ID_LEN + 1 ||
	    (jb = relay_job_find(j, id)) == NULL)
		return 0;
	if (key[klen - 1] == 'C' && vlen >= ALX_FP_LEN) {
		jb->claimed = 1;
		memcpy(jb->runner, val, ALX_FP_LEN);
	} else if (key[klen - 1] == 'D')
		jb->done = 1;
	return 0;
}

/* Runners and jobs of a session, with each runner's busy slots. */
static int
relay_jobs_load(struct relay_session *s, struct relay_jobs *j)
{
	uint8_t	rprefix[RELAY_SID_LEN + 1];
	size_t	i, k;
	int	rc;

	memset(j, 0, sizeof(*j));
	j->s = s;
	j->runners = calloc(RELAY_MAX_RUNNERS, sizeof(*j->runners));
	j->jobs = calloc(RELAY_MAX_JOBS, sizeof(*j->jobs));
	if (j->runners == NULL || j->jobs == NULL) {
		relay_jobs_free(j);
		return ALX_ERR_NOMEM;
	}
	memcpy(rprefix, s->sid, RELAY_SID_LEN);
	rprefix[RELAY_SID_LEN] = 'R';
	if ((rc = relay_store_scan(relay.store, RELAY_DB_PARTICIPANTS, rprefix,
	    sizeof(rprefix), relay_runner_cb, j)) < 0 ||
	    (rc = relay_store_scan(relay.store, RELAY_DB_JOBS, s->sid,
	    RELAY_SID_LEN, relay_job_cb, j)) < 0) {
		relay_jobs_free(j);
		return rc;
	}
	for (i = 0; i < j->njobs; i++)
		for (k = 0; k < j->nrunners; k++)
			if (j->jobs[i].claimed && !j->jobs[i].done &&
			    memcmp(j->jobs[i].runner, j->runners[k].fp,
			    ALX_FP_LEN) == 0)
				j->runners[k].busy++;
	return 0;
}

/* Does the runner serve this target (its approval, or its announcement)? */
static int
relay_runner_serves(const struct relay_session *s, const struct relay_runner *r,
    int is_label, const char *name)
{
	return alx_runner_serves(&s->man, r->fp, &r->a, is_label, name);
}

static int
relay_runner_online(const struct relay_runner *r)
{
	return r->seen + RELAY_ONLINE_S >= (uint64_t)time(NULL);
}

/* The job's readers, so that only they answer it (relay_jobs_ref()). */
static int
relay_jobs_put_wraps(struct relay_session *s, const struct alx_item *it,
    struct relay_wop *op)
{
	uint8_t	key[RELAY_SID_LEN + ALX_ID_LEN + 1], (*fps)[ALX_FP_LEN];
	size_t	n;
	int	rc;

	if ((rc = alx_job_wrap_fps(it, &fps, &n)) != 0)
		return rc;
	memcpy(key, s->sid, RELAY_SID_LEN);
	memcpy(key + RELAY_SID_LEN, it->id, ALX_ID_LEN);
	key[sizeof(key) - 1] = 'W';
	rc = relay_wop_add(op, RELAY_W_PUT_NEW, RELAY_DB_JOBS, key,
	    sizeof(key), n > 0 ? (const uint8_t *)fps : (const uint8_t *)"",
	    n * ALX_FP_LEN);
	free(fps);
	return rc;
}

struct relay_jobref_scan {
	struct alx_jobref	*ref;
	uint8_t			*fps;
	int			 found;
	int			 wraps;
};

static int
relay_jobs_ref_cb(const uint8_t *key, size_t klen, const uint8_t *val,
    size_t vlen, void *arg)
{
	struct relay_jobref_scan	*sc = arg;
	struct alx_jobref		*ref = sc->ref;

	if (klen == RELAY_SID_LEN + ALX_ID_LEN && vlen == RELAY_JOBREC_LEN) {
		sc->found = 1;
		memcpy(ref->author, val + 8, ALX_FP_LEN);
		ref->is_label = val[8 + ALX_FP_LEN];
		return 0;
	}
	if (klen != RELAY_SID_LEN + ALX_ID_LEN + 1)
		return 0;
	switch (key[klen - 1]) {
	case 'C':
		if (vlen >= ALX_FP_LEN) {
			ref->claimed = 1;
			memcpy(ref->claimed_by, val, ALX_FP_LEN);
		}
		break;
	case 'D':
		ref->has_result = 1;
		break;
	case 'W':
		if (vlen % ALX_FP_LEN != 0 || vlen > ALX_MAX_WRAPS * ALX_FP_LEN ||
		    (vlen > 0 && (sc->fps = malloc(vlen)) == NULL))
			return 0;
		if (vlen > 0)
			memcpy(sc->fps, val, vlen);
		ref->nrunners = vlen / ALX_FP_LEN;
		sc->wraps = 1;
		break;
	}
	return 0;
}

int
relay_jobs_ref(struct relay_session *s, const uint8_t id[ALX_ID_LEN],
    struct alx_jobref *ref, uint8_t **fps, int *wraps_known)
{
	struct relay_jobref_scan	sc;
	uint8_t				prefix[RELAY_SID_LEN + ALX_ID_LEN];
	int				rc;

	memset(ref, 0, sizeof(*ref));
	memset(&sc, 0, sizeof(sc));
	sc.ref = ref;
	*fps = NULL;
	memcpy(prefix, s->sid, RELAY_SID_LEN);
	memcpy(prefix + RELAY_SID_LEN, id, ALX_ID_LEN);
	if ((rc = relay_store_scan(relay.store, RELAY_DB_JOBS, prefix,
	    sizeof(prefix), relay_jobs_ref_cb, &sc)) < 0) {
		free(sc.fps);
		return rc;
	}
	if (!sc.found) {
		free(sc.fps);
		return ALX_ERR_NOT_FOUND;
	}
	ref->claims_known = 1;
	ref->runners = (const uint8_t (*)[ALX_FP_LEN])sc.fps;
	*fps = sc.fps;
	*wraps_known = sc.wraps;
	return 0;
}

/*
 * A job item being posted: a named runner that is approved, online and
 * has every slot taken refuses it at once (runner_busy). Adds the job
 * record to op.
 */
int
relay_jobs_on_post(struct relay_session *s, const struct alx_item *it,
    struct relay_wop *op)
{
	struct relay_jobs		 j;
	uint8_t				 key[RELAY_SID_LEN + ALX_ID_LEN];
	uint8_t				 rec[RELAY_JOBREC_LEN];
	size_t				 i;
	int				 rc, busy = 0;

	if (!it->job.is_label) {
		if ((rc = relay_jobs_load(s, &j)) != 0)
			return rc;
		for (i = 0; i < j.nrunners; i++) {
			if (relay_runner_online(&j.runners[i]) &&
			    relay_runner_serves(s, &j.runners[i], 0,
			    it->job.name) &&
			    j.runners[i].busy >= j.runners[i].a.slots)
				busy = 1;
		}
		relay_jobs_free(&j);
		if (busy)
			return ALX_ERR_RUNNER_BUSY;
	}
	memset(rec, 0, sizeof(rec));
	relay_be64(rec, (uint64_t)it->job.not_after);
	memcpy(rec + 8, it->author, ALX_FP_LEN);
	rec[8 + ALX_FP_LEN] = (uint8_t)it->job.is_label;
	memcpy(rec + 8 + ALX_FP_LEN + 1, it->job.name,
	    strnlen(it->job.name, 63));
	memcpy(key, s->sid, RELAY_SID_LEN);
	memcpy(key + RELAY_SID_LEN, it->id, ALX_ID_LEN);
	if ((rc = relay_wop_add(op, RELAY_W_PUT_NEW, RELAY_DB_JOBS, key,
	    sizeof(key), rec, sizeof(rec))) != 0)
		return rc;
	return relay_jobs_put_wraps(s, it, op);
}

/* A result item: its job is done and the runner's slot free again. */
int
relay_jobs_on_result(struct relay_session *s, const struct alx_item *it,
    struct relay_wop *op)
{
	uint8_t	key[RELAY_SID_LEN + ALX_ID_LEN + 1], t[8];

	if (!it->has_reply_to)
		return 0;
	memcpy(key, s->sid, RELAY_SID_LEN);
	memcpy(key + RELAY_SID_LEN, it->reply_to, ALX_ID_LEN);
	key[sizeof(key) - 1] = 'D';
	relay_be64(t, (uint64_t)time(NULL));
	/* One result per job: a second one in flight fails here (exists). */
	return relay_wop_add(op,
#ifdef RELAY_TEST
	    relay_test_lax_roles() ? RELAY_W_PUT :	/* a hostile relay */
#endif
	    RELAY_W_PUT_NEW, RELAY_DB_JOBS, key, sizeof(key), t, sizeof(t));
}

static void
relay_announce(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct relay_wop	*op;
	struct alx_announce	 a;
	const uint8_t		*body;
	uint8_t			 key[RELAY_SID_LEN + 1 + ALX_FP_LEN], *val;
	size_t			 len;
	int			 rc;

	if ((rc = relay_session_request(r, &s, &m)) != 0 ||
	    (rc = relay_write_allowed()) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	if (m->cert.role != ALX_ROLE_RUNNER) {
		relay_http_fail(r, ALX_ERR_WRONG_ROLE, "only runners announce");
		return;
	}
	body = relay_body(r, &len);
	if ((rc = alx_announce_open(&a, (const char *)body, len, s->sid,
	    m->cert.pk)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	if (memcmp(a.runner, m->fp, ALX_FP_LEN) != 0) {
		alx_announce_free(&a);
		relay_http_fail(r, ALX_ERR_WRONG_ROLE,
		    "the announcement names another runner");
		return;
	}
	alx_announce_free(&a);
	memcpy(key, s->sid, RELAY_SID_LEN);
	key[RELAY_SID_LEN] = 'R';
	memcpy(key + RELAY_SID_LEN + 1, m->fp, ALX_FP_LEN);
	if ((val = malloc(8 + len)) == NULL ||
	    (op = relay_wop_new(NULL, NULL)) == NULL) {
		free(val);
		relay_http_fail(r, ALX_ERR_NOMEM, NULL);
		return;
	}
	relay_be64(val, (uint64_t)time(NULL));
	memcpy(val + 8, body, len);
	rc = relay_wop_add(op, RELAY_W_PUT, RELAY_DB_PARTICIPANTS, key,
	    sizeof(key), val, 8 + len);
	free(val);
	if (rc != 0 || relay_event_add(op, s->sid, NULL, "announce", body,
	    len) != 0) {
		relay_wop_free(op);
		relay_http_fail(r, ALX_ERR_NOMEM, NULL);
		return;
	}
	if ((rc = relay_submit(r, s, op, 200, 0)) != 0)
		relay_http_fail(r, rc, NULL);
}

static void
relay_runners(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct relay_jobs	 j;
	struct alx_jw		 jw;
	size_t			 i;
	int			 rc;

	if ((rc = relay_session_request(r, &s, &m)) != 0 ||
	    (rc = relay_jobs_load(s, &j)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	alx_jw_init(&jw, (size_t)4 * 1024 * 1024);
	alx_jw_obj_begin(&jw);
	alx_jw_key(&jw, "runners");
	alx_jw_arr_begin(&jw);
	for (i = 0; i < j.nrunners; i++) {
		alx_jw_obj_begin(&jw);
		alx_jw_key(&jw, "announce");
		alx_jw_raw(&jw, j.runners[i].a.obj.raw,
		    j.runners[i].a.obj.raw_len);
		alx_jw_kbool(&jw, "online", relay_runner_online(&j.runners[i]));
		alx_jw_kint(&jw, "busy", j.runners[i].busy);
		alx_jw_kbool(&jw, "approved", alx_manifest_find_approved(
		    &s->man, j.runners[i].fp) != NULL);
		alx_jw_obj_end(&jw);
	}
	alx_jw_arr_end(&jw);
	alx_jw_obj_end(&jw);
	relay_jobs_free(&j);
	relay_http_jw(r->req, 200, &jw);
}

/* A job's state and, while waiting, why. */
static const char *
relay_job_state(struct relay_session *s, struct relay_jobs *j,
    const struct relay_job *jb, const char **why)
{
	size_t				 i;
	int				 serving = 0, free_slot = 0;

	*why = NULL;
	if (jb->done)
		return "done";
	if (jb->claimed)
		return "claimed";
	if ((uint64_t)time(NULL) > jb->not_after)
		return "expired";
	for (i = 0; i < j->nrunners; i++) {
		if (!relay_runner_online(&j->runners[i]) ||
		    !relay_runner_serves(s, &j->runners[i], jb->is_label,
		    jb->name))
			continue;
		serving = 1;
		if (j->runners[i].busy < j->runners[i].a.slots)
			free_slot = 1;
	}
	*why = !serving ? "no_runner" : !free_slot ? "all_busy" : "unclaimed";
	return "waiting";
}

static void
relay_jobs_get(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct relay_jobs	 j;
	struct alx_jw		 jw;
	const char		*state, *why;
	uint8_t			 id[ALX_ID_LEN];
	size_t			 i;
	int			 rc, one = r->nparams > 1;

	if ((rc = relay_session_request(r, &s, &m)) != 0 ||
	    (one && (rc = relay_id_param(r, 1, id)) != 0) ||
	    (rc = relay_jobs_load(s, &j)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	alx_jw_init(&jw, (size_t)4 * 1024 * 1024);
	alx_jw_obj_begin(&jw);
	alx_jw_key(&jw, "jobs");
	alx_jw_arr_begin(&jw);
	for (i = 0; i < j.njobs; i++) {
		/* The owner sees every job; others their own. */
		if (m->cert.role != ALX_ROLE_OWNER &&
		    memcmp(j.jobs[i].author, m->fp, ALX_FP_LEN) != 0)
			continue;
		if (one && memcmp(j.jobs[i].id, id, ALX_ID_LEN) != 0)
			continue;
		state = relay_job_state(s, &j, &j.jobs[i], &why);
		alx_jw_obj_begin(&jw);
		alx_jw_kb64(&jw, "id", j.jobs[i].id, ALX_ID_LEN);
		alx_jw_kstr(&jw, "state", state);
		if (why != NULL)
			alx_jw_kstr(&jw, "why", why);
		if (j.jobs[i].claimed)
			alx_jw_kb64(&jw, "claimed_by", j.jobs[i].runner,
			    ALX_FP_LEN);
		alx_jw_kint(&jw, "not_after", (int64_t)j.jobs[i].not_after);
		alx_jw_obj_end(&jw);
	}
	alx_jw_arr_end(&jw);
	alx_jw_obj_end(&jw);
	relay_jobs_free(&j);
	relay_http_jw(r->req, 200, &jw);
}

static void
relay_claim(struct relay_req *r)
{
	struct relay_session		*s;
	struct relay_member		*m;
	struct relay_jobs		 j;
	struct relay_job		*jb;
	struct relay_runner		*rn = NULL;
	struct alx_claim		 c;
	struct relay_wop		*op;
	const uint8_t			*body;
	uint8_t				 id[ALX_ID_LEN], val[ALX_FP_LEN + 8];
	uint8_t				 key[RELAY_SID_LEN + ALX_ID_LEN + 1];
	size_t				 len, i;
	int				 rc;

	if ((rc = relay_session_request(r, &s, &m)) != 0 ||
	    (rc = relay_write_allowed()) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	if ((rc = relay_id_param(r, 1, id)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	if (m->cert.role != ALX_ROLE_RUNNER ||
	    !alx_manifest_runner_approved(&s->man, m->fp)) {
		relay_http_fail(r, ALX_ERR_WRONG_ROLE,
		    "only approved runners claim jobs");
		return;
	}
	body = relay_body(r, &len);
	if ((rc = alx_claim_open(&c, (const char *)body, len, s->sid,
	    m->cert.pk)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	rc = memcmp(c.job, id, ALX_ID_LEN) != 0 ||
	    memcmp(c.runner, m->fp, ALX_FP_LEN) != 0 ? ALX_ERR_INVALID : 0;
	alx_claim_free(&c);
	if (rc != 0 || (rc = relay_jobs_load(s, &j)) != 0) {
		relay_http_fail(r, rc, "the claim names another job or runner");
		return;
	}
	for (i = 0; i < j.nrunners; i++)
		if (memcmp(j.runners[i].fp, m->fp, ALX_FP_LEN) == 0)
			rn = &j.runners[i];
	if ((jb = relay_job_find(&j, id)) == NULL)
		rc = ALX_ERR_NOT_FOUND;
	else if (jb->claimed)
		rc = ALX_ERR_CLAIMED;
	else if ((uint64_t)time(NULL) > jb->not_after)
		rc = ALX_ERR_EXPIRED;
	else if (!alx_runner_serves(&s->man, m->fp, rn != NULL ? &rn->a : NULL,
	    jb->is_label, jb->name))
		rc = ALX_ERR_WRONG_ROLE;
	else if (rn == NULL || rn->busy >= rn->a.slots)
		rc = ALX_ERR_RUNNER_BUSY;
	relay_jobs_free(&j);
	if (rc != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	memcpy(key, s->sid, RELAY_SID_LEN);
	memcpy(key + RELAY_SID_LEN, id, ALX_ID_LEN);
	key[sizeof(key) - 1] = 'C';
	memcpy(val, m->fp, ALX_FP_LEN);
	relay_be64(val + ALX_FP_LEN, (uint64_t)time(NULL));
	if ((op = relay_wop_new(NULL, NULL)) == NULL ||
	    relay_wop_add(op, RELAY_W_PUT_NEW, RELAY_DB_JOBS, key,
	    sizeof(key), val, sizeof(val)) != 0) {
		relay_wop_free(op);
		relay_http_fail(r, ALX_ERR_NOMEM, NULL);
		return;
	}
	/* A second claim in flight finds the key: already_claimed. */
	if ((rc = relay_submit(r, s, op, 200, RELAY_SUBMIT_CLAIM)) != 0)
		relay_http_fail(r, rc, NULL);
}

static const struct relay_route relay_jobs_routes[] = {
	{ EVHTTP_REQ_POST, "/v1/sessions/:/runners", relay_announce, 0 },
	{ EVHTTP_REQ_GET, "/v1/sessions/:/runners", relay_runners, 0 },
	{ EVHTTP_REQ_POST, "/v1/sessions/:/jobs/:/claim", relay_claim, 0 },
	{ EVHTTP_REQ_GET, "/v1/sessions/:/jobs", relay_jobs_get, 0 },
	{ EVHTTP_REQ_GET, "/v1/sessions/:/jobs/:", relay_jobs_get, 0 },
};

void
relay_api_jobs_init(void)
{
	relay_http_add_routes(relay_jobs_routes,
	    sizeof(relay_jobs_routes) / sizeof(relay_jobs_routes[0]));
}
