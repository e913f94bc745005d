/*
 * fuzz-tree.c: libFuzzer target for the runner's tree applier
 * (runnerd/runner-tree.c): the archive walk (libarchive), the entry
 * checks, the merge and the writes into a workspace. The archive is
 * written by a sender.
 *
 * The first byte's bits: 0x01 the rest is a tar archive as it is; else it
 * describes one, built here with libarchive (member kind, name, link
 * target or content size, repeated), so mutations reach the applier
 * rather than tar's checksums. 0x02 applies it fresh. A '@' at the start
 * of a name or target stands for a folder outside the workspace.
 *
 * Each input is applied to a real workspace under a scratch folder, and
 * the scratch folder walked after: nothing may exist outside the
 * workspace and the state dir, the "outside" folder stays empty, and a
 * refusal of an entry names an entry.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "log.h"
#include "runnerd.h"
#include "runner-tree.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(x)	do { if (!(x)) abort(); } while (0)
#define FT_MEMBERS	16
#define FT_ARCHIVE_MAX	(1 << 20)

static char			 top[PATH_MAX / 4], work[PATH_MAX / 2];
static char			 state[PATH_MAX / 2], outside[PATH_MAX / 2];
static char			 wsname[80];
static struct runner_tree	*tree;
static int			 memfd = -1;
static char			*json;

static int
ft_rm1(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	remove(path);
	return 0;
}

/* At exit: the scratch folder goes (libFuzzer exits with exit()). */
static void
ft_cleanup(void)
{
	runner_tree_close(tree);
	nftw(top, ft_rm1, 16, FTW_DEPTH | FTW_PHYS);
}

static void
ft_init(void)
{
	struct alx_tree_desc	d;
	uint8_t			sid[ALX_SID_LEN], sender[ALX_FP_LEN];
	size_t			len;
	const char		*tmp = getenv("TMPDIR");

	log_init("fuzz-tree", LOG_LEVEL_WARN);
	/* Records are fsync'd: on tmpfs that costs nothing. */
	if (access("/dev/shm", W_OK) == 0)
		tmp = "/dev/shm";
	snprintf(top, sizeof top, "%s/fuzz-tree-XXXXXX", tmp ? tmp : "/tmp");
	CHECK(mkdtemp(top) != NULL);
	atexit(ft_cleanup);
	snprintf(work, sizeof work, "%s/work", top);
	snprintf(state, sizeof state, "%s/state", top);
	snprintf(outside, sizeof outside, "%s/outside", top);
	CHECK(mkdir(work, 0711) == 0 && mkdir(state, 0700) == 0 &&
	    mkdir(outside, 0700) == 0);
	memset(sid, 7, sizeof sid);
	memset(sender, 7, sizeof sender);	/* a participant key's fp */
	CHECK(runner_tree_open(&tree, work, state, sid, sender) == ALX_OK);
	snprintf(wsname, sizeof wsname, "%s", strrchr(runner_tree_dir(tree),
	    '/') + 1);
	CHECK((memfd = memfd_create("fuzz-tree", MFD_CLOEXEC)) != -1);
	memset(&d, 0, sizeof d);
	d.cwd = (char *)"";
	CHECK(alx_tree_desc_encode(&d, &json, &len) == ALX_OK);
}

/* A name or target from the input: '@' first is the outside folder. */
static void
ft_text(const uint8_t **p, const uint8_t *end, char *out, size_t max)
{
	size_t	n, o = 0;

	out[0] = '\0';
	if (*p >= end)
		return;
	n = **p % 64;
	(*p)++;
	if (n > (size_t)(end - *p))
		n = (size_t)(end - *p);
	if (n > 0 && **p == '@') {
		o = (size_t)snprintf(out, max, "%s/", outside);
		(*p)++;
		n--;
	}
	if (o + n >= max)
		n = max - o - 1;
	memcpy(out + o, *p, n);
	out[o + n] = '\0';
	*p += n;
}

/* Members from the input, written as a tar archive into the memfd. */
static size_t
ft_build(const uint8_t *p, const uint8_t *end, char names[][PATH_MAX / 2],
    size_t max)
{
	struct archive		*a;
	struct archive_entry	*ae;
	char			 target[PATH_MAX / 2], buf[512];
	size_t			 n = 0, size, k;
	unsigned		 kind;

	a = archive_write_new();
	archive_write_set_format_pax_restricted(a);
	CHECK(archive_write_open_fd(a, memfd) == ARCHIVE_OK);
	while (p < end && n < max) {
		kind = *p++ % 8;
		ft_text(&p, end, names[n], PATH_MAX / 2);
		ft_text(&p, end, target, sizeof target);
		size = p < end ? (size_t)*p++ * 37 : 0;
		ae = archive_entry_new();
		archive_entry_set_pathname(ae, names[n]);
		archive_entry_set_perm(ae, kind == 1 ? 0755 : 0644);
		switch (kind) {
		case 0:
		case 1:
		case 7:
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_size(ae, (la_int64_t)size);
			break;
		case 2:
		case 3:
			archive_entry_set_filetype(ae, AE_IFLNK);
			archive_entry_set_symlink(ae, target);
			break;
		case 4:
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_hardlink(ae, target);
			break;
		case 5:
			archive_entry_set_filetype(ae, AE_IFDIR);
			break;
		default:
			archive_entry_set_filetype(ae, AE_IFIFO);
		}
		archive_write_header(a, ae);
		if (archive_entry_filetype(ae) == AE_IFREG && kind != 4)
			for (; size > 0; size -= k) {
				k = size < sizeof buf ? size : sizeof buf;
				memset(buf, 'a' + (int)(n % 26), k);
				archive_write_data(a, buf, k);
			}
		archive_entry_free(ae);
		n++;
	}
	archive_write_close(a);
	archive_write_free(a);
	return n;
}

/* Every path under the scratch folder is allowed where it is. */
static void
ft_walk(int dfd, const char *rel)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		 path[PATH_MAX];
	int		 fd;

	CHECK((fd = dup(dfd)) != -1 && (d = fdopendir(fd)) != NULL);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s%s%s", rel, rel[0] ? "/" : "",
		    de->d_name);
		if (strcmp(rel, "") == 0)
			CHECK(strcmp(path, "work") == 0 ||
			    strcmp(path, "state") == 0 ||
			    strcmp(path, "outside") == 0);
		else if (strcmp(rel, "work") == 0)
			CHECK(strcmp(de->d_name, wsname) == 0);
		else if (strcmp(rel, "outside") == 0)
			CHECK(0);	/* nothing, ever */
		else
			continue;	/* inside the workspace or state */
		CHECK(fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    0);
		if (S_ISDIR(st.st_mode) && (fd = openat(dirfd(d), de->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) != -1) {
			ft_walk(fd, path);
			close(fd);
		}
	}
	closedir(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char			 names[FT_MEMBERS][PATH_MAX / 2];
	struct runner_tree_limits	 lim = { 64, 1 << 20 };
	char				*cause = NULL;
	size_t				 n = 0;
	int				 fd, r;

	if (size < 1 || size > FT_ARCHIVE_MAX)
		return 0;
	if (tree == NULL)
		ft_init();
	CHECK(ftruncate(memfd, 0) == 0 && lseek(memfd, 0, SEEK_SET) == 0);
	if (data[0] & 1)
		CHECK(write(memfd, data + 1, size - 1) == (ssize_t)(size - 1));
	else
		n = ft_build(data + 1, data + size, names, FT_MEMBERS);
	r = runner_tree_apply(tree, json, (data[0] & 2) != 0, memfd, &lim,
	    &cause);
	if ((fd = open(top, O_RDONLY | O_DIRECTORY)) != -1) {
		ft_walk(fd, "");
		close(fd);
	}
	/* A refused entry is named, quoted (over the limits: the tree's). */
	if ((r == ALX_ERR_BAD_PATH || r == ALX_ERR_TOO_LARGE) && n > 0)
		CHECK(cause != NULL && (strchr(cause, '"') != NULL ||
		    strcmp(cause, "the tree is over the limits: ") == 0));
	free(cause);
	return 0;
}
