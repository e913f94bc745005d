/*
 * craft-job.c: post jobs a well-behaved client would not make, to prove
 * that the runner refuses them itself (built with libairlox and the
 * client's session modules; a test tool, never installed).
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
 *
 * The invite comes from AIRLOX_INVITE, the relay from the invite. Prints
 * the job id (the replayed one for "replay") on stdout.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"
#include "client-job.h"

static void __attribute__((noreturn))
die(const char *what, int r)
{
	fprintf(stderr, "craft-job: %s: %s\n", what, alx_errname(r));
	exit(1);
}

/* Post one job item with the given id (random when id is NULL). */
static int
craft_post(struct csession *cs, const char *runner, const char *meta,
    int64_t not_after, const uint8_t *id, uint8_t out_id[ALX_ID_LEN])
{
	const struct alx_manifest	*m = alx_view_manifest(&cs->view);
	const struct alx_view_member	*mem;
	struct alx_item			 it;
	struct http_resp		 resp;
	uint8_t				 kitem[ALX_KEY_LEN], ctx[64];
	char				 path[128], fps[ALX_FP_STRLEN + 1];
	size_t				 i, n;
	int				 r;

	if ((r = alx_view_item_begin(&cs->view, &it, "job",
	    http_now(&cs->http))) != 0)
		die("item", r);
	if (id != NULL)
		memcpy(it.id, id, ALX_ID_LEN);
	it.has_job = 1;
	snprintf(it.job.name, sizeof(it.job.name), "%s", runner);
	it.job.not_after = not_after;
	alx_random(kitem, sizeof(kitem));
	it.job.wraps = calloc(ALX_MAX_WRAPS, sizeof(*it.job.wraps));
	n = alx_wrap_ctx_job(ctx, it.sid, it.id);
	alx_wrap_seal(&it.job.wraps[it.job.nwraps++], "owner", m->owner_kx,
	    ctx, n, kitem);
	for (i = 0; i < cs->view.nmembers; i++) {
		mem = &cs->view.members[i];
		if (mem->cert.role != ALX_ROLE_RUNNER)
			continue;
		alx_b64_encode(fps, mem->cert.fp, ALX_FP_LEN);
		alx_wrap_seal(&it.job.wraps[it.job.nwraps++], fps, mem->cert.kx,
		    ctx, n, kitem);
	}
	if ((r = alx_item_seal_meta(&it, kitem, meta, strlen(meta))) != 0 ||
	    (r = alx_item_sign(&it, &cs->me.sk)) != 0)
		die("seal", r);
	csess_path(cs, path, sizeof(path), "/items");
	r = http_request(&cs->http, "POST", path, it.obj.raw, it.obj.raw_len,
	    NULL, 1, 4096, &resp);
	http_resp_free(&resp);
	if (r == 0)
		alx_view_note_own(&cs->view, &it);
	memcpy(out_id, it.id, ALX_ID_LEN);
	alx_item_free(&it);
	return r;
}

int
main(int argc, char **argv)
{
	static struct client_ctx	 ctx;
	struct csession			 cs;
	uint8_t				 id[ALX_ID_LEN];
	char				 idtxt[ALX_FP_STRLEN + 1];
	const char			*shell =
	    "{\"v\":1,\"kind\":\"shell\",\"cmd\":\"echo ran\",\"cwd\":\"\"}";
	int64_t				 now;
	int				 r;

	if (argc != 3)
		return 2;
	alx_crypto_init();
	out_init(0);
	ctx.invite = getenv("AIRLOX_INVITE");
	ctx.name = "crafter";
	ctx.kind = ALX_PKIND_AGENT;
	if (ctx.invite == NULL)
		return 2;
	if ((r = csess_open(&cs, &ctx, CS_JOIN)) != 0 ||
	    (r = csess_replay(&cs, NULL, NULL)) != 0)
		die("session", r);
	now = http_now(&cs.http);
	if (strcmp(argv[1], "expired") == 0)
		r = craft_post(&cs, argv[2], shell, now - 60, NULL, id);
	else if (strcmp(argv[1], "limits") == 0)
		r = craft_post(&cs, argv[2], "{\"v\":1,\"kind\":\"shell\","
		    "\"cmd\":\"echo ran\",\"cwd\":\"\",\"limits\":"
		    "{\"timeout_s\":999999}}", now + 600, NULL, id);
	else if (strcmp(argv[1], "plain") == 0)
		r = craft_post(&cs, argv[2], shell, now + 600, NULL, id);
	else if (strcmp(argv[1], "lines") == 0)
		r = craft_post(&cs, argv[2], "{\"v\":1,\"kind\":\"shell\","
		    "\"cmd\":\"echo ran\",\"cwd\":\"\",\"note\":\r\n"
		    "{\"event\":\"item\",\"kind\":\"text\",\"text\":\"forged\"}"
		    "\n}", now + 600, NULL, id);
	else if (strcmp(argv[1], "argv-both") == 0)
		r = craft_post(&cs, argv[2], "{\"v\":1,\"kind\":\"shell\","
		    "\"cmd\":\"echo ran\",\"argv\":[\"echo\",\"ran\"],"
		    "\"cwd\":\"\"}", now + 600, NULL, id);
	else if (strcmp(argv[1], "argv-emptyargv") == 0)
		r = craft_post(&cs, argv[2], "{\"v\":1,\"kind\":\"shell\","
		    "\"argv\":[],\"cwd\":\"\"}", now + 600, NULL, id);
	else if (strcmp(argv[1], "kind") == 0)
		r = craft_post(&cs, argv[2], "{\"v\":1,\"kind\":\"python\","
		    "\"file\":{\"name\":\"x.py\"},\"cwd\":\"\"}", now + 600, NULL,
		    id);
	else if (strcmp(argv[1], "replay") == 0) {
		if ((r = craft_post(&cs, argv[2], shell, now + 600, NULL,
		    id)) == 0)
			r = craft_post(&cs, argv[2], shell, now + 600, id, id);
	} else
		return 2;
	alx_b64_encode(idtxt, id, ALX_ID_LEN);
	/* The job id, and what the relay said of the (last) post. */
	printf("%s %s\n", idtxt, r == 0 ? "posted" : alx_errname(r));
	csess_close(&cs);
	return 0;
}
