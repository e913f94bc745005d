/*
 * client-tree.h: the working tree "airlox run --tree" sends (client-tree.c):
 * collect the checkout, refuse credentials, archive what changed since the
 * tree the runner confirmed, and keep what it confirms.
 */
#ifndef CLIENT_TREE_H
#define CLIENT_TREE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "airlox.h"

struct ctree_opts {
	const char	*const *exclude;	/* --tree-exclude patterns */
	size_t		 nexclude;
	const char	*const *allow;		/* --tree-allow patterns */
	size_t		 nallow;
	int		 fresh;		/* --fresh: send the full tree */
	int		 any_folder;	/* --tree-folder: outside a repository,
					 * or the home folder, too */
	const char	*sid;		/* the session (base64url): cache key */
	const char	*target;	/* the runner or pool/LABEL */
	const char	*dir;		/* where to start; NULL: "." */
};

struct ctree {
	int		 fd;		/* the archive (unlinked), or -1 */
	int64_t		 size;		/* its bytes: what is sent */
	char		*desc;		/* the job meta's "tree" (JSON) */
	char		*cwd;		/* the start directory in the tree */
	int		 git;		/* collected by git's rules */
	int		 delta;		/* against a confirmed tree */
	int64_t		 nfiles;	/* entries in the whole tree */
	int64_t		 total;		/* their bytes */
	int64_t		 nsent;		/* entries in the archive */
	int64_t		 sent_bytes;	/* their bytes */
	size_t		 ndeleted;
	size_t		 nskipped;	/* special files, links out */
	char		*skipped;	/* the first few, for a note */
	uint8_t		 id[ALX_HASH_LEN];
	char		 pending[PATH_MAX];	/* the state to confirm */
};

/*
 * Build the tree to send. Errors: ALX_ERR_NOT_ALLOWED with *cause naming
 * each credential-like file and --tree-allow; ALX_ERR_BAD_PATH for paths
 * that collide after case folding; others for I/O.
 */
int	ctree_build(struct ctree *, const struct ctree_opts *, char **cause);
void	ctree_free(struct ctree *);
/*
 * After a verified result: keep the tree when the result's env says the
 * runner holds exactly this tree ("tree":{"id"}), else forget the state
 * (the next run sends the full tree).
 */
int	ctree_confirm(const struct ctree_opts *, const struct ctree *,
	    const char *env_json);
int	ctree_forget(const struct ctree_opts *);
/*
 * airlox result: a tree posted with --no-wait is kept once a verified
 * result confirms it: the pending state of session sid whose tree id the
 * env names becomes the confirmed one. ALX_ERR_NOT_FOUND when none does.
 */
int	ctree_confirm_pending(const char *sid, const char *env_json);
/* Does fnmatch-style pattern (gitignore-like) match path? */
int	ctree_pattern_match(const char *pattern, const char *path);

#endif /* CLIENT_TREE_H */
