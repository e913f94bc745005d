/*
 * sandbox-linux-landlock.c: Landlock rules of the job, best effort by ABI.
 *
 * Debian 12's headers predate the kernels we run on, so the syscalls,
 * structs and access bits up to ABI 7 are defined here. The ruleset
 * handles every file-system right the kernel knows (masked by its ABI) and,
 * from ABI 6, scopes abstract unix sockets and signals to the job's domain.
 * Rules, on the fixed layout of the sandbox:
 *	read+exec	/usr /etc (and the /bin, /lib* links into /usr)
 *	read		/proc, directory listing of /
 *	read+write	/dev/null zero full random urandom tty
 *	everything	/work /out /tmp /dev/shm
 * Writes anywhere else, and reads of anything not listed, are denied.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

#define LL_SYS_CREATE_RULESET	444
#define LL_SYS_ADD_RULE		445
#define LL_SYS_RESTRICT_SELF	446
#define LL_CREATE_RULESET_VERSION	(1U << 0)
#define LL_RULE_PATH_BENEATH	1

#define LL_FS_EXECUTE		(1ULL << 0)
#define LL_FS_WRITE_FILE	(1ULL << 1)
#define LL_FS_READ_FILE		(1ULL << 2)
#define LL_FS_READ_DIR		(1ULL << 3)
#define LL_FS_REMOVE_DIR	(1ULL << 4)
#define LL_FS_REMOVE_FILE	(1ULL << 5)
#define LL_FS_MAKE_CHAR		(1ULL << 6)
#define LL_FS_MAKE_DIR		(1ULL << 7)
#define LL_FS_MAKE_REG		(1ULL << 8)
#define LL_FS_MAKE_SOCK		(1ULL << 9)
#define LL_FS_MAKE_FIFO		(1ULL << 10)
#define LL_FS_MAKE_BLOCK	(1ULL << 11)
#define LL_FS_MAKE_SYM		(1ULL << 12)
#define LL_FS_REFER		(1ULL << 13)	/* ABI 2 */
#define LL_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#define LL_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */
#define LL_SCOPE_ABSTRACT_UNIX	(1ULL << 0)	/* ABI 6 */
#define LL_SCOPE_SIGNAL		(1ULL << 1)	/* ABI 6 */

struct ll_ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;	/* ABI 4 */
	uint64_t	scoped;			/* ABI 6 */
};

struct ll_path_beneath {
	uint64_t	allowed_access;
	int32_t		parent_fd;
} __attribute__((packed));

#define LL_READ		(LL_FS_READ_FILE | LL_FS_READ_DIR)
#define LL_RX		(LL_READ | LL_FS_EXECUTE)
#define LL_DEV		(LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_TRUNCATE | \
			 LL_FS_IOCTL_DEV)
#define LL_ALL_V1	((1ULL << 13) - 1)
#define LL_ALL		(LL_ALL_V1 | LL_FS_REFER | LL_FS_TRUNCATE | \
			 LL_FS_IOCTL_DEV)

static const struct {
	const char	*path;
	uint64_t	 access;
} ll_rules[] = {
	{ "/",		 LL_FS_READ_DIR },
	{ "/usr",	 LL_RX },
	{ "/etc",	 LL_RX },
	{ "/opt/airlox/python", LL_RX },	/* SANDBOX_PY_DIR, when bound */
	{ "/in",	 LL_READ },		/* SANDBOX_IN_DIR, when bound */
	{ "/proc",	 LL_READ },
	{ "/dev/null",	 LL_DEV },
	{ "/dev/zero",	 LL_DEV },
	{ "/dev/full",	 LL_DEV },
	{ "/dev/random", LL_DEV },
	{ "/dev/urandom", LL_DEV },
	{ "/dev/tty",	 LL_DEV },
	{ "/work",	 LL_ALL },
	{ "/out",	 LL_ALL },
	{ "/tmp",	 LL_ALL },
	{ "/dev/shm",	 LL_ALL & ~LL_FS_EXECUTE },
};

/* Every right the kernel's ABI knows. */
static uint64_t
ll_fs_mask(int abi)
{
	uint64_t	m = LL_ALL_V1;

	if (abi >= 2)
		m |= LL_FS_REFER;
	if (abi >= 3)
		m |= LL_FS_TRUNCATE;
	if (abi >= 5)
		m |= LL_FS_IOCTL_DEV;
	return m;
}

static int
ll_add(int rs, const char *path, uint64_t access, uint64_t mask)
{
	struct ll_path_beneath	pb;
	int			fd, r = 0;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 : -errno;
	memset(&pb, 0, sizeof pb);
	pb.allowed_access = access & mask;
	pb.parent_fd = fd;
	/* Non-directories take only file rights. */
	if (strncmp(path, "/dev/", 5) == 0 && strcmp(path, "/dev/shm") != 0)
		pb.allowed_access &= LL_DEV | LL_FS_EXECUTE;
	if (syscall(LL_SYS_ADD_RULE, rs, LL_RULE_PATH_BENEATH, &pb, 0) != 0)
		r = -errno;
	close(fd);
	return r;
}

int
shim_landlock(int *abip, char *err, size_t len)
{
	struct ll_ruleset_attr	attr;
	size_t			i, asize;
	uint64_t		mask;
	int			abi, rs, r;

	abi = (int)syscall(LL_SYS_CREATE_RULESET, NULL, 0,
	    LL_CREATE_RULESET_VERSION);
	*abip = abi < 0 ? 0 : abi;
	if (abi <= 0)
		return 1;
	mask = ll_fs_mask(abi);
	memset(&attr, 0, sizeof attr);
	attr.handled_access_fs = mask;
	asize = sizeof attr.handled_access_fs + sizeof attr.handled_access_net;
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
		asize = sizeof attr;
	}
	if ((rs = (int)syscall(LL_SYS_CREATE_RULESET, &attr, asize, 0)) < 0) {
		snprintf(err, len, "landlock ruleset: %s", strerror(errno));
		return -errno;
	}
	for (i = 0; i < sizeof ll_rules / sizeof ll_rules[0]; i++)
		if ((r = ll_add(rs, ll_rules[i].path, ll_rules[i].access,
		    mask)) != 0) {
			snprintf(err, len, "landlock rule %s: %s",
			    ll_rules[i].path, strerror(-r));
			close(rs);
			return r;
		}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(LL_SYS_RESTRICT_SELF, rs, 0) != 0) {
		r = -errno;
		snprintf(err, len, "landlock restrict: %s", strerror(errno));
		close(rs);
		return r;
	}
	close(rs);
	return 0;
}
