/*
 * sandbox-disk.c: the workspace quota, by measurement.
 *
 * A persistent workspace cannot live on a size-limited tmpfs or loop
 * image, and project quotas are rarely set up, so the runner measures:
 * every check walks the workspace and the out dir (no symlinks followed,
 * no other file system entered) summing allocated blocks and counting
 * entries, and the job is ended when either is over its limit.
 * RLIMIT_FSIZE bounds a single file between two checks.
 *
 * Also the hand-over of a workspace to the job's uid (as root): what the
 * runner put there (inputs) becomes the job's, nothing else.
 */
#include "config.h"

#include <sys/stat.h>

#include <ftw.h>
#include <unistd.h>
#include <stdint.h>
#include <stddef.h>

#include "airlox.h"
#include "sandbox-priv.h"

/* nftw() has no user argument: the walk state (single-threaded). */
static uint64_t	disk_bytes, disk_inodes, disk_max_bytes, disk_max_inodes;

static int
sandbox_disk_visit(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	if (type != FTW_NS)
		disk_bytes += (uint64_t)st->st_blocks * 512;
	disk_inodes++;
	if (disk_bytes > disk_max_bytes || disk_inodes > disk_max_inodes)
		return 1;			/* over: stop the walk */
	return 0;
}

/* 1 when the dirs together use more than allowed, else 0. */
int
sandbox_disk_over(const char *const dirs[], uint64_t max_bytes,
    uint64_t max_inodes)
{
	size_t	i;

	disk_bytes = disk_inodes = 0;
	disk_max_bytes = max_bytes;
	disk_max_inodes = max_inodes;
	for (i = 0; dirs[i] != NULL; i++)
		if (nftw(dirs[i], sandbox_disk_visit, 16,
		    FTW_PHYS | FTW_MOUNT) == 1)
			return 1;
	return 0;
}

static uid_t	own_uid, own_from;
static gid_t	own_gid;
static int	own_err;

static int
sandbox_own_visit(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	/*
	 * Only entries of the runner's uid or of a job uid (an earlier job of
	 * this workspace ran in another slot: the sender's workspace is locked
	 * while a job uses it, so none of those is running), and no file with
	 * other links: a hard link planted by an earlier job must not hand a
	 * host file over.
	 */
	if (type == FTW_NS || (st->st_uid != own_from &&
	    !(st->st_uid >= SANDBOX_UID_BASE &&
	    st->st_uid < SANDBOX_UID_BASE + SANDBOX_UID_SLOTS)) ||
	    st->st_uid == own_uid ||
	    (!S_ISDIR(st->st_mode) && st->st_nlink != 1))
		return 0;
	if (lchown(path, own_uid, own_gid) != 0)
		own_err = ALX_ERR_IO;
	return 0;
}

/*
 * Give the runner's files in dir, and those of earlier jobs in other slots,
 * to uid:gid; no symlink is followed.
 */
int
sandbox_workspace_own(const char *dir, uid_t uid, gid_t gid)
{
	own_uid = uid;
	own_gid = gid;
	own_from = geteuid();
	own_err = 0;
	if (nftw(dir, sandbox_own_visit, 16, FTW_PHYS | FTW_MOUNT) != 0)
		return ALX_ERR_IO;
	return own_err;
}
