/*
 * tree-tool.c: the client's tree builder (client/client-tree.c) on its own,
 * for tests/client/tree.sh: build the tree of the current directory as
 * "airlox run --tree" would, copy the archive to OUT and print the tree
 * description; with --confirm ENV, then keep the state as a result whose
 * env is ENV would.
 *
 *	tree-tool [--exclude P]... [--allow P]... [--fresh] [--folder]
 *	    [--sid S --target T [--confirm ENV]] OUT
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "client-tree.h"

int
main(int argc, char **argv)
{
	struct ctree_opts	 o;
	struct ctree		 t;
	const char		*ex[16], *al[16], *confirm = NULL;
	char			*cause = NULL, buf[65536];
	ssize_t			 n;
	int			 i, out, r;

	memset(&o, 0, sizeof(o));
	o.exclude = ex;
	o.allow = al;
	for (i = 1; i < argc - 1; i++) {
		if (strcmp(argv[i], "--exclude") == 0 && o.nexclude < 16)
			ex[o.nexclude++] = argv[++i];
		else if (strcmp(argv[i], "--allow") == 0 && o.nallow < 16)
			al[o.nallow++] = argv[++i];
		else if (strcmp(argv[i], "--fresh") == 0)
			o.fresh = 1;
		else if (strcmp(argv[i], "--folder") == 0)
			o.any_folder = 1;
		else if (strcmp(argv[i], "--sid") == 0)
			o.sid = argv[++i];
		else if (strcmp(argv[i], "--target") == 0)
			o.target = argv[++i];
		else if (strcmp(argv[i], "--confirm") == 0)
			confirm = argv[++i];
		else
			break;
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: tree-tool [options] OUT\n");
		return 2;
	}
	if ((r = ctree_build(&t, &o, &cause)) != 0) {
		fprintf(stderr, "tree-tool: %s: %s\n", alx_errname(r),
		    cause != NULL ? cause : "");
		free(cause);
		return 3;
	}
	if ((out = open(argv[i], O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
		return 1;
	lseek(t.fd, 0, SEEK_SET);
	while ((n = read(t.fd, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return 1;
	close(out);
	printf("%s\n", t.desc);
	printf("cwd=%s files=%lld sent=%lld size=%lld deleted=%zu delta=%d "
	    "git=%d skipped=%zu\n", t.cwd, (long long)t.nfiles,
	    (long long)t.nsent, (long long)t.size, t.ndeleted, t.delta, t.git,
	    t.nskipped);
	if (confirm != NULL && ctree_confirm(&o, &t, confirm) != 0)
		return 1;
	ctree_free(&t);
	return 0;
}
