/*
 * runner-tree.h: workspaces kept per sender, and the trees jobs sync into
 * them (runner-tree.c; protocol.md section 8.4, DESIGN.md "Workspaces").
 */
#ifndef ALX_RUNNER_TREE_H
#define ALX_RUNNER_TREE_H

#include <stdint.h>

#include "airlox.h"

struct runner_tree;		/* one open, locked workspace */

struct runner_tree_limits {
	int64_t	max_files;	/* entries in one archive */
	int64_t	max_bytes;	/* content bytes in one archive */
};
#define RUNNER_TREE_MAX_FILES	200000
#define RUNNER_TREE_MAX_BYTES	(8LL << 30)
#define RUNNER_TREE_GC_S	300		/* how often the loop collects */
#define RUNNER_TREE_IDLE_S	(7 * 86400)	/* unused this long: collected */
#define RUNNER_TREE_BUDGET	(20ULL << 30)	/* all workspaces, bytes */

/*
 * Open (create) the workspace of a sender, identified by the session and
 * the sender's participant key (its fingerprint), under work_root, with
 * its record in statedir/trees. ALX_ERR_RUNNER_BUSY: a job uses it now.
 */
int	 runner_tree_open(struct runner_tree **, const char *work_root,
	    const char *statedir, const uint8_t sid[ALX_SID_LEN],
	    const uint8_t sender[ALX_FP_LEN]);
struct runner_job;
/*
 * For a job with a tree (or fresh): open its sender's workspace, make it
 * the job's work folder, and sync the archive at path archive (NULL: none)
 * into it. On error *reason is the refusal's reason (ALX_ERR_BAD_PATH,
 * TOO_LARGE, TREE_MISMATCH, RUNNER_BUSY or NOT_ALLOWED).
 */
int	 runner_tree_job(struct runner_tree **, struct runner_job *,
	    const char *work_root, const char *statedir,
	    const uint8_t sid[ALX_SID_LEN], const uint8_t sender[ALX_FP_LEN],
	    const char *archive, const struct runner_tree_limits *,
	    int *reason);
/* The workspace's host path: the job's work folder. */
const char *runner_tree_dir(const struct runner_tree *);
/*
 * Sync the job's tree into the workspace: tree_json is the job meta's
 * "tree" (NULL: no tree), archive_fd its payload (a tar archive), fresh
 * empties the workspace first. Errors a refusal names: ALX_ERR_BAD_PATH
 * (an entry that could escape or collide), ALX_ERR_TOO_LARGE (over the
 * limits), ALX_ERR_TREE_MISMATCH (the delta's base is not what the
 * workspace holds). Nothing is written for an archive that fails its
 * checks. *cause names the entry (may be NULL).
 */
int	 runner_tree_apply(struct runner_tree *, const char *tree_json,
	    int fresh, int archive_fd, const struct runner_tree_limits *,
	    char **cause);
/*
 * After the job: the result env's "tree" member, {"id":B64}, when the
 * workspace still holds the synced tree unchanged; NULL otherwise (the
 * record is dropped, so the sender's next run sends the full tree).
 */
char	*runner_tree_report(struct runner_tree *);
void	 runner_tree_close(struct runner_tree *);
/*
 * Remove workspaces unused for max_idle_s, then the least recently used
 * until all fit in budget bytes (0: no budget); in-use ones are skipped.
 * Returns the number removed.
 */
int	 runner_tree_gc(const char *work_root, const char *statedir,
	    int64_t max_idle_s, uint64_t budget);

#endif /* ALX_RUNNER_TREE_H */
