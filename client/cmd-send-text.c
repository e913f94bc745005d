/*
 * cmd-send-text.c: "airlox send text TEXT": post a text message ("-" reads
 * it from standard input).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"

#define ST_TEXT_MAX	(60 * 1024)

static const struct cmd_opt cmd_send_text_opts[] = {
	{ "to", "NAME|FP", OPT_MULTI, "address the message to a participant "
	    "(default: to everyone)" },
	{ "reply-to", "ITEM", 0, "the item this answers (default: none)" },
	{ NULL, NULL, 0, NULL }
};

static int
st_read_stdin(struct alx_buf *b)
{
	char	tmp[4096];
	ssize_t	n;

	while ((n = read(STDIN_FILENO, tmp, sizeof(tmp))) > 0)
		if (alx_buf_add(b, tmp, (size_t)n) != 0)
			return ALX_ERR_TOO_LARGE;
	return n < 0 ? ALX_ERR_IO : 0;
}

static int
cmd_send_text_exec(struct client_ctx *ctx)
{
	struct alxs_sess	 cs;
	struct alxs_item_post p;
	struct alx_buf	 text;
	struct alx_jw	 jw;
	char		*meta = NULL;
	size_t		 metalen;
	int		 r;

	alx_buf_init(&text, ST_TEXT_MAX);
	if (strcmp(ctx->args.pos[0], "-") == 0)
		r = st_read_stdin(&text);
	else
		r = alx_buf_addstr(&text, ctx->args.pos[0]);
	if (r != 0) {
		char	max[64];

		alx_buf_free(&text);
		alxs_size(max, sizeof(max), ST_TEXT_MAX);
		return out_fail(r, "the text is longer than %s; send it as a "
		    "file", max);
	}
	if (alx_utf8_valid(text.data, text.len) != 0) {
		alx_buf_free(&text);
		return out_fail(ALX_ERR_BAD_UTF8, "the text is not UTF-8");
	}
	memset(&p, 0, sizeof(p));
	p.kind = "text";
	p.fd = -1;
	alx_jw_init(&jw, ALX_META_MAX);
	alx_jw_obj_begin(&jw);
	alx_jw_kint(&jw, "v", 1);
	alx_jw_key(&jw, "text");
	alx_jw_strn(&jw, (const char *)text.data, text.len);
	alx_jw_obj_end(&jw);
	r = alx_jw_finish(&jw, &meta, &metalen);
	alx_jw_free(&jw);
	alx_buf_free(&text);
	if (r != 0)
		return out_fail(r, "cannot encode the message");
	p.meta = meta;
	p.metalen = metalen;
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) == 0 &&
	    (r = item_targets(&cs, &p)) == 0)
		r = item_send(&cs, &p);
	alxs_sess_close(&cs);
	free(p.to);
	alx_wipe(meta, metalen);
	free(meta);
	return r;
}

const struct cmd_entry cmd_send_text_entry = {
	"send text", "TEXT", 1, 1, cmd_send_text_opts,
	CMD_INVITE | CMD_PARTICIPANT, cmd_send_text_exec,
	"post a text message (TEXT, or - to read it from standard input)"
};
