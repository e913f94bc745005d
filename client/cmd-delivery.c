/*
 * cmd-delivery.c: "airlox delivery [ITEM...]": who has fetched each of this
 * participant's items (the relay's receipts; only an item's author may ask).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"

static const struct cmd_opt cmd_delivery_opts[] = {
	{ NULL, NULL, 0, NULL }
};

struct dl_receipt {
	uint8_t	fp[ALX_FP_LEN];
	int64_t	time;
};

static int
dl_fetch(struct alxs_sess *cs, const uint8_t id[ALX_ID_LEN],
    struct dl_receipt **out, size_t *n)
{
	struct alx_json_limits	 lim = { 1024 * 1024, 8, 65536 };
	struct alxs_resp	 resp;
	struct alx_json		*j = NULL;
	char			 path[160], ids[ALX_FP_STRLEN + 1];
	int			 arr, i, k, r;

	*out = NULL;
	*n = 0;
	alx_b64_encode(ids, id, ALX_ID_LEN);
	alxs_sess_path(cs, path, sizeof(path), "/receipts/%s", ids);
	if ((r = alxs_http_request(&cs->http, "GET", path, NULL, 0, NULL, 1,
	    lim.max_bytes, &resp)) != 0)
		goto out;
	if ((r = alx_json_parse(&j, (const char *)resp.body.data,
	    resp.body.len, &lim)) != 0)
		goto out;
	if ((arr = alx_json_obj_get(j, 0, "receipts")) < 0 ||
	    (k = alx_json_arr_len(j, arr)) < 0) {
		r = ALX_ERR_MISSING;
		goto out;
	}
	if (k > 0 && (*out = calloc(k, sizeof(**out))) == NULL) {
		r = ALX_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < k; i++) {
		int e = alx_json_arr_at(j, arr, i);
		if ((r = alx_json_get_b64(j, e, "fp", (*out)[*n].fp,
		    ALX_FP_LEN)) != 0 || (r = alx_json_get_int(j, e, "time",
		    &(*out)[*n].time, 0, ALX_JSON_INT_MAX)) != 0)
			goto out;
		(*n)++;
	}
out:
	alx_json_free(j);
	alxs_http_resp_free(&resp);
	return r;
}

static void
dl_print(struct alxs_sess *cs, const struct alxs_sess_item *ci,
    const struct dl_receipt *rc, size_t n)
{
	struct alx_jw	 jw;
	char		 id[ALX_FP_STRLEN + 1], when[32];
	const char	*name;
	size_t		 i;

	alx_b64_encode(id, ci->id, ALX_ID_LEN);
	if (out_json()) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "event", "delivery");
		alx_jw_kstr(&jw, "id", id);
		alx_jw_kstr(&jw, "kind", ci->kind);
		alx_jw_key(&jw, "fetched_by");
		alx_jw_arr_begin(&jw);
		for (i = 0; i < n; i++) {
			alx_jw_obj_begin(&jw);
			alx_jw_kb64(&jw, "fp", rc[i].fp, ALX_FP_LEN);
			alx_jw_kstr(&jw, "name", alxs_sess_member_name(cs,
			    rc[i].fp));
			alx_jw_kint(&jw, "time", rc[i].time);
			alx_jw_obj_end(&jw);
		}
		alx_jw_arr_end(&jw);
		out_obj_end(&jw);
		return;
	}
	printf("%s %s: %s\n", ci->kind, id, n == 0 ? "not fetched yet" :
	    "fetched by");
	for (i = 0; i < n; i++) {
		out_time(when, sizeof(when), rc[i].time);
		name = alxs_sess_member_name(cs, rc[i].fp);
		printf("  ");
		out_safe(stdout, name, strlen(name));
		printf(" at %s\n", when);
	}
}

static int
dl_wanted(const struct client_ctx *ctx, const struct alxs_sess_item *ci)
{
	char	id[ALX_FP_STRLEN + 1];
	int	i;

	if (ctx->args.npos == 0)
		return 1;
	alx_b64_encode(id, ci->id, ALX_ID_LEN);
	for (i = 0; i < ctx->args.npos; i++)
		if (strcmp(ctx->args.pos[i], id) == 0)
			return 1;
	return 0;
}

static int
cmd_delivery_exec(struct client_ctx *ctx)
{
	struct alxs_sess		 cs;
	struct dl_receipt	*rc;
	size_t			 i, n;
	int			 r;

	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0 ||
	    (r = alxs_sess_replay(&cs, NULL, NULL)) != 0) {
		if (r < 0)
			r = csess_fail(&cs, r, "cannot read the session's log");
		alxs_sess_close(&cs);
		return r;
	}
	for (i = 0; i < cs.nitems && r == 0; i++) {
		if (memcmp(cs.items[i].author, cs.view.me_fp,
		    ALX_FP_LEN) != 0 || !dl_wanted(ctx, &cs.items[i]))
			continue;
		if ((r = dl_fetch(&cs, cs.items[i].id, &rc, &n)) != 0) {
			r = out_fail(r, "cannot fetch receipts");
			break;
		}
		dl_print(&cs, &cs.items[i], rc, n);
		free(rc);
	}
	alxs_sess_close(&cs);
	return r;
}

const struct cmd_entry cmd_delivery_entry = {
	"delivery", "[ITEM...]", 0, -1, cmd_delivery_opts,
	CMD_INVITE | CMD_PARTICIPANT, cmd_delivery_exec,
	"show who has fetched each of your items"
};
