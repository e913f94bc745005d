/*
 * airlox/tree.h: working trees sent with a job (protocol.md section 8.4):
 * the tree description carried in the job meta's "tree" member, the tree
 * id, and the checks every entry name passes on both sides.
 */
#ifndef AIRLOX_TREE_H
#define AIRLOX_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "airlox/crypto.h"

#define ALX_TREE_PATH_MAX	1024	/* bytes of one entry's path */
#define ALX_TREE_MAX_DELETED	1024	/* more: the sender sends a full tree */
#define ALX_TREE_DESC_MAX	(32 * 1024)	/* JSON bytes, within ALX_META_MAX */

enum alx_tree_mode {
	ALX_TREE_FILE = 1,	/* regular file, 0644 */
	ALX_TREE_EXEC,		/* regular file, 0755 */
	ALX_TREE_LINK		/* symbolic link inside the tree */
};

struct alx_tree_entry {
	char		*path;
	int		 mode;		/* enum alx_tree_mode */
	uint8_t		 hash[ALX_HASH_LEN];	/* content or link target */
	int64_t		 size;
};

struct alx_tree_desc {
	uint8_t		 id[ALX_HASH_LEN];	/* the tree after the job */
	int		 has_base;
	uint8_t		 base[ALX_HASH_LEN];	/* what the delta applies to */
	int64_t		 files;		/* entries in the archive */
	int64_t		 bytes;		/* their content bytes */
	char		**deleted;
	size_t		 ndeleted;
	char		*cwd;		/* "" the tree's top */
};
void	alx_tree_desc_free(struct alx_tree_desc *);
int	alx_tree_desc_encode(const struct alx_tree_desc *, char **json,
	    size_t *);
int	alx_tree_desc_decode(struct alx_tree_desc *, const char *json, size_t);

/*
 * An entry path: relative, '/'-separated, UTF-8, no empty, "." or ".."
 * component, no control character or backslash, at most
 * ALX_TREE_PATH_MAX bytes, and no component named ".git".
 */
int	alx_tree_path_valid(const char *);
/*
 * A symbolic link at path with this target stays inside the tree: the
 * target is relative and, resolved lexically from the link's directory,
 * never climbs above the top.
 */
int	alx_tree_link_valid(const char *path, const char *target);
/* The path folded for collision checks (ASCII case folding), allocated. */
char	*alx_tree_fold(const char *);
/*
 * Paths that would collide on a case-insensitive file system, or a path
 * that is both a file and a directory: ALX_ERR_BAD_PATH, with the first
 * offending path in *which (points into paths[]).
 */
int	alx_tree_paths_check(char *const *paths, size_t n, const char **which);

/* Sort entries by path (bytewise), as the tree id hashes them. */
void	alx_tree_sort(struct alx_tree_entry *, size_t);
/* The tree id over sorted entries; ALX_ERR_INVALID on an unsorted list. */
int	alx_tree_id(uint8_t out[ALX_HASH_LEN], const struct alx_tree_entry *,
	    size_t);
const char *alx_tree_mode_name(int mode);
int	alx_tree_mode_parse(const char *, int *mode);
void	alx_tree_entries_free(struct alx_tree_entry *, size_t);

#endif /* AIRLOX_TREE_H */
