/*
 * cmd-send-file.c: "airlox send file PATH": post a file. Its type (text,
 * markdown, python, zip, image, binary) comes from its content and name;
 * the session may limit the types allowed.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"

static const struct cmd_opt cmd_send_file_opts[] = {
	{ "to", "NAME|FP", OPT_MULTI, "address the file to a participant "
	    "(default: to everyone)" },
	{ "reply-to", "ITEM", 0, "the item this answers (default: none)" },
	{ NULL, NULL, 0, NULL }
};

/* 0 when the session allows files of this type. */
static int
sf_type_allowed(struct alxs_sess *cs, const char *type)
{
	struct alx_private	p;
	size_t			i;
	int			ok;

	if (alx_view_private(&cs->view, &p) != 0)
		return 0;	/* the relay checks nothing here; runners do */
	ok = p.ntypes == 0;
	for (i = 0; i < p.ntypes; i++)
		if (strcmp(p.types[i], type) == 0)
			ok = 1;
	alx_private_free(&p);
	return ok ? 0 : ALX_ERR_NOT_ALLOWED;
}

static int
sf_meta(const char *path, int fd, char **meta, size_t *len, const char **type)
{
	struct alx_jw	 jw;
	uint8_t		 head[4096];
	const char	*mime;
	char		*copy, *base;
	ssize_t		 n;
	int		 r;

	if ((n = pread(fd, head, sizeof(head), 0)) < 0)
		return ALX_ERR_IO;
	*type = alxs_item_file_type(path, head, (size_t)n, &mime);
	if ((copy = strdup(path)) == NULL)
		return ALX_ERR_NOMEM;
	base = basename(copy);
	alx_jw_init(&jw, ALX_META_MAX);
	alx_jw_obj_begin(&jw);
	alx_jw_kint(&jw, "v", 1);
	alx_jw_kstr(&jw, "name", base);
	alx_jw_kstr(&jw, "type", *type);
	alx_jw_kstr(&jw, "mime", mime);
	alx_jw_obj_end(&jw);
	free(copy);
	r = alx_jw_finish(&jw, meta, len);
	alx_jw_free(&jw);
	return r;
}

static int
cmd_send_file_exec(struct client_ctx *ctx)
{
	const char	*path = ctx->args.pos[0], *type;
	struct alxs_sess	 cs;
	struct alxs_item_post p;
	struct stat	 st;
	char		*meta = NULL;
	size_t		 metalen;
	int		 fd, r;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return out_fail(ALX_ERR_IO, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return out_fail(ALX_ERR_IO, "%s: not a regular file", path);
	}
	if ((r = sf_meta(path, fd, &meta, &metalen, &type)) != 0) {
		close(fd);
		return out_fail(r, "%s: cannot read it", path);
	}
	memset(&p, 0, sizeof(p));
	p.kind = "file";
	p.fd = fd;
	p.size = (int64_t)st.st_size;
	p.meta = meta;
	p.metalen = metalen;
	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) == 0 &&
	    (r = item_targets(&cs, &p)) == 0) {
		if (sf_type_allowed(&cs, type) != 0)
			r = out_fail(ALX_ERR_NOT_ALLOWED, "this session does "
			    "not allow %s files", type);
		else
			r = item_send(&cs, &p);
	}
	alxs_sess_close(&cs);
	close(fd);
	free(p.to);
	free(meta);
	return r;
}

const struct cmd_entry cmd_send_file_entry = {
	"send file", "PATH", 1, 1, cmd_send_file_opts,
	CMD_INVITE | CMD_PARTICIPANT, cmd_send_file_exec,
	"post a file; its type comes from its content and name"
};
