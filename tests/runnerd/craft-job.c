/*
 * craft-job.c: post jobs a well-behaved client would not make, to prove
 * that the runner refuses them itself (built with libairlox and the
 * relay client library, session/alxs.h; a test tool, never installed).
 *
 *	craft-job expired RUNNER	a job whose not-after time has passed
 *	craft-job limits RUNNER		asks for more time than the session allows
 *	craft-job kind RUNNER		a python job in a shell-only session
 *	craft-job replay RUNNER		the same job id posted twice
 *	craft-job plain RUNNER		a well-formed job ("echo ran"), for an
 *					invite whose role may not post jobs
 *					(a hostile relay stores it anyway)
 *	craft-job lines RUNNER		a well-formed job whose meta has line
 *					breaks between its tokens, with a
 *					record-like object on a line of its own
 *	craft-job argv-both RUNNER	a shell job with both a command line
 *					and an argv (which one would run?)
 *	craft-job argv-emptyargv RUNNER	a shell job whose argv has no words
 *	craft-job noowner RUNNER	a job wrapped to its runners and its
 *					author, not to the owner
 *	craft-job join -		join the session (as CRAFT_NAME) only
 *	craft-job cancel JOB		a cancel of JOB (by whoever this is)
 *	craft-job result JOB		a runner's result for JOB, bound to its
 *					hash, saying all tests passed
 *	craft-job refuse JOB		a runner's refusal of JOB as a runner
 *					from before argv jobs sends it (it
 *					cannot decode one): not_allowed, no
 *					words of its own
 *	craft-job badmeta -		a text message, validly signed, whose
 *					meta is sealed under a key no member has
 *	craft-job files JOB FILE LIST	a runner's result for JOB whose
 *					payload is FILE and whose files are
 *					LIST (JSON), names as a lying runner
 *					may give them
 *
 * The invite comes from AIRLOX_INVITE, the relay from the invite, the
 * display name from CRAFT_NAME ("crafter"). Prints the id of the item
 * posted (the replayed one for "replay") and what the relay said.
 */
#include "config.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "alxs.h"

static void __attribute__((noreturn))
die(const char *what, int r)
{
	fprintf(stderr, "craft-job: %s: %s\n", what, alx_errname(r));
	exit(1);
}

/* POST a signed item; note it in our chain when the relay took it. */
static int
craft_send(struct alxs_sess *cs, struct alx_item *it)
{
	struct alxs_resp	 resp;
	char			 path[128];
	int			 r;

	if ((r = alx_item_sign(it, &cs->me.sk)) != 0)
		die("sign", r);
	alxs_sess_path(cs, path, sizeof(path), "/items");
	r = alxs_http_request(&cs->http, "POST", path, it->obj.raw,
	    it->obj.raw_len,
	    NULL, 1, 4096, &resp);
	alxs_http_resp_free(&resp);
	if (r == 0)
		alx_view_note_own(&cs->view, it);
	return r;
}

/*
 * A member-readable item of `kind` answering `reply_to` (or NULL); its
 * meta sealed under the item's key, or (badkey) under a random key while
 * the envelope commits to the right one: every reader finds the key it
 * derives is the one committed to, and the meta does not open under it.
 */
static int
craft_item(struct alxs_sess *cs, const char *kind, const uint8_t *reply_to,
    const char *meta, int badkey, uint8_t out_id[ALX_ID_LEN])
{
	struct alx_item	 it;
	uint8_t		 k[ALX_KEY_LEN];
	int		 r;

	if ((r = alx_view_item_begin(&cs->view, &it, kind,
	    alxs_http_now(&cs->http))) != 0)
		die("item", r);
	if (reply_to != NULL) {
		it.has_reply_to = 1;
		memcpy(it.reply_to, reply_to, ALX_ID_LEN);
	}
	/* A runner the job was not sealed to has no key to answer it with. */
	if ((r = alx_view_item_key(&cs->view, &it, k)) == ALX_ERR_NOT_RECIPIENT)
		alx_random(k, sizeof(k));
	else if (r != 0)
		die("key", r);
	if (badkey) {
		uint8_t	bad[ALX_KEY_LEN];

		alx_random(bad, sizeof(bad));
		if ((r = alx_item_seal_meta(&it, bad, meta, strlen(meta))) !=
		    0 || (r = alx_item_commit(k, it.kc)) != 0)
			die("seal", r);
	} else if ((r = alx_item_seal_meta(&it, k, meta, strlen(meta))) != 0)
		die("seal", r);
	r = craft_send(cs, &it);
	memcpy(out_id, it.id, ALX_ID_LEN);
	alx_item_free(&it);
	return r;
}

/*
 * A result for job id, signed by this (runner) participant: completed, or
 * (refuse) refused as not_allowed.
 */
static int
craft_result(struct alxs_sess *cs, const uint8_t id[ALX_ID_LEN], int refuse,
    uint8_t out_id[ALX_ID_LEN])
{
	const struct alx_view_job	*vj;
	struct alx_resultmeta		 rm;
	char				*meta = NULL;
	size_t				 len;
	int				 r;

	if ((vj = alx_view_job(&cs->view, id)) == NULL)
		die("no such job in the log", ALX_ERR_NOT_FOUND);
	memset(&rm, 0, sizeof(rm));
	memcpy(rm.job, id, ALX_ID_LEN);
	memcpy(rm.job_hash, vj->hash, ALX_HASH_LEN);
	rm.status = ALX_JOB_COMPLETED;
	rm.has_exit = 1;
	rm.out = "all 312 tests passed\n";
	rm.err = "";
	rm.peak_memory = -1;
	if (refuse) {
		rm.status = ALX_JOB_REFUSED;
		rm.has_exit = 0;
		rm.out = "";
		snprintf(rm.reason, sizeof(rm.reason), "%s",
		    alx_errname(ALX_ERR_NOT_ALLOWED));
	}
	if ((r = alx_resultmeta_encode(&rm, &meta, &len)) != 0)
		die("result", r);
	r = craft_item(cs, "result", id, meta, 0, out_id);
	free(meta);
	return r;
}

/* A result for job id with a payload (FILE) and a file list (JSON). */
static int
craft_files(struct alxs_sess *cs, const uint8_t id[ALX_ID_LEN],
    const char *payload, const char *list, uint8_t out_id[ALX_ID_LEN])
{
	const struct alx_view_job	*vj;
	struct alxs_item_post		 p;
	struct stat			 st;
	uint8_t				 kjob[ALX_KEY_LEN];
	uint8_t				 to[1][ALX_FP_LEN];
	char				*meta = NULL, *cause = NULL;
	char				 job[ALX_B64_ENCLEN(ALX_ID_LEN) + 1];
	char				 hash[ALX_B64_ENCLEN(ALX_HASH_LEN) + 1];
	int				 fd, r;

	if ((vj = alx_view_job(&cs->view, id)) == NULL)
		die("no such job in the log", ALX_ERR_NOT_FOUND);
	if ((r = alx_view_job_key(&cs->view, vj, kjob)) != 0)
		die("job key", r);
	if ((fd = open(payload, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) != 0)
		die("payload", ALX_ERR_IO);
	alx_b64_encode(job, id, ALX_ID_LEN);
	alx_b64_encode(hash, vj->hash, ALX_HASH_LEN);
	if (asprintf(&meta, "{\"v\":1,\"job\":\"%s\",\"job_hash\":\"%s\","
	    "\"status\":\"completed\",\"exit_code\":0,\"stdout\":\"\","
	    "\"stderr\":\"\",\"stdout_truncated\":false,"
	    "\"stderr_truncated\":false,\"duration_ms\":1,"
	    "\"peak_memory\":-1,\"files\":%s,\"env\":{},\"denied\":0}",
	    job, hash, list) < 0)
		die("meta", ALX_ERR_NOMEM);
	memset(&p, 0, sizeof(p));
	memcpy(to[0], vj->author, ALX_FP_LEN);
	p.kind = "result";
	p.meta = meta;
	p.metalen = strlen(meta);
	p.fd = fd;
	p.size = st.st_size;
	p.to = to;
	p.nto = 1;
	p.has_reply = 1;
	memcpy(p.reply_to, id, ALX_ID_LEN);
	p.job_key = kjob;
	if ((r = alxs_item_post(cs, &p, &cause)) != 0 && cause != NULL)
		fprintf(stderr, "craft-job: %s\n", cause);
	memcpy(out_id, p.id, ALX_ID_LEN);
	free(cause);
	free(meta);
	close(fd);
	alx_wipe(kjob, sizeof(kjob));
	return r;
}

/*
 * Post one job item with the given id (random when id is NULL), wrapped
 * to the owner (unless noowner), its author and every runner.
 */
static int
craft_post(struct alxs_sess *cs, const char *runner, const char *meta,
    int64_t not_after, const uint8_t *id, uint8_t out_id[ALX_ID_LEN],
    int noowner)
{
	const struct alx_manifest	*m = alx_view_manifest(&cs->view);
	const struct alx_view_member	*mem;
	struct alx_item			 it;
	uint8_t				 kitem[ALX_KEY_LEN], ctx[64];
	char				 fps[ALX_FP_STRLEN + 1];
	size_t				 i, n;
	int				 r;

	if ((r = alx_view_item_begin(&cs->view, &it, "job",
	    alxs_http_now(&cs->http))) != 0)
		die("item", r);
	if (id != NULL)
		memcpy(it.id, id, ALX_ID_LEN);
	it.has_job = 1;
	snprintf(it.job.name, sizeof(it.job.name), "%s", runner);
	it.job.not_after = not_after;
	alx_random(kitem, sizeof(kitem));
	it.job.wraps = calloc(ALX_MAX_WRAPS, sizeof(*it.job.wraps));
	n = alx_wrap_ctx_job(ctx, it.sid, it.id);
	if (!noowner)
		alx_wrap_seal(&it.job.wraps[it.job.nwraps++], "owner",
		    m->owner_kx, ctx, n, kitem);
	for (i = 0; i < cs->view.nmembers; i++) {
		mem = &cs->view.members[i];
		if (mem->cert.role != ALX_ROLE_RUNNER &&
		    !alx_ct_eq(mem->cert.fp, cs->view.me_fp, ALX_FP_LEN))
			continue;
		alx_b64_encode(fps, mem->cert.fp, ALX_FP_LEN);
		alx_wrap_seal(&it.job.wraps[it.job.nwraps++], fps, mem->cert.kx,
		    ctx, n, kitem);
	}
	if ((r = alx_item_seal_meta(&it, kitem, meta, strlen(meta))) != 0)
		die("seal", r);
	r = craft_send(cs, &it);
	memcpy(out_id, it.id, ALX_ID_LEN);
	alx_item_free(&it);
	return r;
}

int
main(int argc, char **argv)
{
	struct alxs_conf		 conf;
	struct alxs_sess			 cs;
	char				 store[1024];
	const char			*x = getenv("XDG_CACHE_HOME");
	uint8_t				 id[ALX_ID_LEN], job[ALX_ID_LEN];
	char				 idtxt[ALX_FP_STRLEN + 1];
	const char			*shell =
	    "{\"v\":1,\"kind\":\"shell\",\"cmd\":\"echo ran\",\"cwd\":\"\"}";
	const char			*mode, *arg;
	int64_t				 now;
	int				 r;

	if (argc != 3 && !(argc == 5 && strcmp(argv[1], "files") == 0))
		return 2;
	mode = argv[1];
	arg = argv[2];
	alx_crypto_init();
	/* The client's key store, where the tests' airlox keeps its keys. */
	memset(&conf, 0, sizeof(conf));
	if (x != NULL && x[0] == '/')
		snprintf(store, sizeof(store), "%s/airlox", x);
	else
		snprintf(store, sizeof(store), "%s/.cache/airlox",
		    getenv("HOME") != NULL ? getenv("HOME") : "");
	conf.store_dir = store;
	conf.invite = getenv("AIRLOX_INVITE");
	conf.name = getenv("CRAFT_NAME") != NULL ? getenv("CRAFT_NAME") :
	    "crafter";
	conf.kind = ALX_PKIND_AGENT;
	if (conf.invite == NULL)
		return 2;
	if ((r = alxs_open(&cs, &conf, ALXS_JOIN)) != 0) {
		fprintf(stderr, "craft-job: %s\n", alxs_error()->cause);
		die("session", r);
	}
	if ((r = alxs_sess_replay(&cs, NULL, NULL)) != 0)
		die("session", r);
	if ((strcmp(mode, "cancel") == 0 || strcmp(mode, "result") == 0 ||
	    strcmp(mode, "refuse") == 0 || strcmp(mode, "files") == 0) &&
	    alx_b64_decode_exact(job, ALX_ID_LEN, arg, strlen(arg)) != 0)
		return 2;
	now = alxs_http_now(&cs.http);
	memset(id, 0, sizeof(id));
	if (strcmp(mode, "expired") == 0)
		r = craft_post(&cs, arg, shell, now - 60, NULL, id, 0);
	else if (strcmp(mode, "limits") == 0)
		r = craft_post(&cs, arg, "{\"v\":1,\"kind\":\"shell\","
		    "\"cmd\":\"echo ran\",\"cwd\":\"\",\"limits\":"
		    "{\"timeout_s\":999999}}", now + 600, NULL, id, 0);
	else if (strcmp(mode, "plain") == 0)
		r = craft_post(&cs, arg, shell, now + 600, NULL, id, 0);
	else if (strcmp(mode, "noowner") == 0)
		r = craft_post(&cs, arg, shell, now + 600, NULL, id, 1);
	else if (strcmp(mode, "lines") == 0)
		r = craft_post(&cs, arg, "{\"v\":1,\"kind\":\"shell\","
		    "\"cmd\":\"echo ran\",\"cwd\":\"\",\"note\":\r\n"
		    "{\"event\":\"item\",\"kind\":\"text\",\"text\":\"forged\"}"
		    "\n}", now + 600, NULL, id, 0);
	else if (strcmp(mode, "argv-both") == 0)
		r = craft_post(&cs, arg, "{\"v\":1,\"kind\":\"shell\","
		    "\"cmd\":\"echo ran\",\"argv\":[\"echo\",\"ran\"],"
		    "\"cwd\":\"\"}", now + 600, NULL, id, 0);
	else if (strcmp(mode, "argv-emptyargv") == 0)
		r = craft_post(&cs, arg, "{\"v\":1,\"kind\":\"shell\","
		    "\"argv\":[],\"cwd\":\"\"}", now + 600, NULL, id, 0);
	else if (strcmp(mode, "kind") == 0)
		r = craft_post(&cs, arg, "{\"v\":1,\"kind\":\"python\","
		    "\"file\":{\"name\":\"x.py\"},\"cwd\":\"\"}", now + 600, NULL,
		    id, 0);
	else if (strcmp(mode, "replay") == 0) {
		if ((r = craft_post(&cs, arg, shell, now + 600, NULL, id,
		    0)) == 0)
			r = craft_post(&cs, arg, shell, now + 600, id, id, 0);
	} else if (strcmp(mode, "join") == 0)
		r = 0;
	else if (strcmp(mode, "cancel") == 0)
		r = craft_item(&cs, "cancel", job, "{\"v\":1}", 0, id);
	else if (strcmp(mode, "result") == 0)
		r = craft_result(&cs, job, 0, id);
	else if (strcmp(mode, "refuse") == 0)
		r = craft_result(&cs, job, 1, id);
	else if (strcmp(mode, "files") == 0)
		r = craft_files(&cs, job, argv[3], argv[4], id);
	else if (strcmp(mode, "badmeta") == 0)
		r = craft_item(&cs, "text", NULL, "{\"v\":1,\"text\":\"sealed "
		    "under a key nobody has\"}", 1, id);
	else
		return 2;
	alx_b64_encode(idtxt, id, ALX_ID_LEN);
	/* The item's id, and what the relay said of the (last) post. */
	printf("%s %s\n", idtxt, r == 0 ? "posted" : alx_errname(r));
	alxs_sess_close(&cs);
	return 0;
}
