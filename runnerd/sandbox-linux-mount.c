/*
 * sandbox-linux-mount.c: the job's file system, built in its own mount
 * namespace by the sandbox's first process (pid 1 of the new pid
 * namespace, privileged only inside its new user namespace).
 *
 * Propagation private first; a small tmpfs becomes the new root; into
 * it go read-only binds of /usr (and the host's /bin, /lib* links or
 * dirs), a generated /etc with a few copied files, the workspace at /work
 * and the out dir at /out (read-write, from fds opened before), the
 * session's Python venv read-only at SANDBOX_PY_DIR when it has one, /tmp
 * and /dev/shm as size-limited tmpfs, a /dev with six host nodes bound in,
 * and a fresh /proc. pivot_root(".", ".") then detaches the old root, and the
 * root tmpfs is made read-only. Nothing else of the host is reachable.
 *
 * Runs between clone() and exec() in a child: no allocation, stack
 * buffers only.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>

#include <net/if.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "sandbox-priv.h"
#include "runner-python.h"

#define STAGE	"/tmp"		/* where the new root is assembled */

static const char *const mount_dev_nodes[] = {
	"null", "zero", "full", "random", "urandom", "tty", NULL
};

/* Host links or dirs at / that point into /usr on merged-/usr systems. */
static const char *const mount_root_links[] = {
	"bin", "sbin", "lib", "lib32", "lib64", "libx32", NULL
};

/* Read-only system dirs of /etc that jobs' tools need, when present. */
static const char *const mount_etc_dirs[] = {
	"alternatives", "python3", "python3.11", "python3.12", "python3.13",
	"ssl/certs", NULL
};

/* Copied (small) host files of /etc. */
static const char *const mount_etc_files[] = {
	"ld.so.cache", "ssl/openssl.cnf", NULL
};

/* Flags a user namespace may not clear on a bind from the host. */
static unsigned long
mount_locked_flags(const char *path)
{
	struct statvfs	sv;
	unsigned long	fl = 0;

	if (statvfs(path, &sv) != 0)
		return 0;
	if (sv.f_flag & ST_NOSUID)
		fl |= MS_NOSUID;
	if (sv.f_flag & ST_NODEV)
		fl |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)
		fl |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)
		fl |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)
		fl |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)
		fl |= MS_RELATIME;
	if (sv.f_flag & ST_RDONLY)
		fl |= MS_RDONLY;
	return fl;
}

static int
mount_bind(const char *src, const char *dst, unsigned long flags, int rec)
{
	if (mount(src, dst, NULL, MS_BIND | (rec ? MS_REC : 0), NULL) != 0)
		return -errno;
	flags |= mount_locked_flags(dst);
	if (mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | flags, NULL) != 0)
		return -errno;
	return 0;
}

static int
mount_tmpfs(const char *dst, unsigned long flags, const char *mode,
    uint64_t bytes)
{
	char	opt[96];

	snprintf(opt, sizeof opt, "mode=%s,size=%llu", mode,
	    (unsigned long long)bytes);
	if (mount("tmpfs", dst, "tmpfs", flags, opt) != 0)
		return -errno;
	return 0;
}

static int
mount_write(const char *path, const char *text, mode_t mode)
{
	int	fd;
	size_t	len = strlen(text);

	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    mode)) == -1)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

/* Copy a small regular host file (at most 4 MiB). */
static int
mount_copy(const char *src, const char *dst)
{
	char		buf[65536];
	struct stat	st;
	ssize_t		n;
	off_t		total = 0;
	int		in, out, r = 0;

	if ((in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > (4 << 20)) {
		close(in);
		return 0;
	}
	if ((out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644)) == -1) {
		close(in);
		return -errno;
	}
	while ((n = read(in, buf, sizeof buf)) > 0 && total < (4 << 20)) {
		if (write(out, buf, (size_t)n) != n) {
			r = -EIO;
			break;
		}
		total += n;
	}
	close(in);
	close(out);
	return r;
}

static int
mount_links(void)
{
	char		src[64], dst[64], target[PATH_MAX];
	struct stat	st;
	ssize_t		n;
	size_t		i;
	int		r;

	for (i = 0; mount_root_links[i] != NULL; i++) {
		snprintf(src, sizeof src, "/%s", mount_root_links[i]);
		snprintf(dst, sizeof dst, STAGE "/%s", mount_root_links[i]);
		if (lstat(src, &st) != 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(src, target, sizeof target - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			if (symlink(target, dst) != 0)
				return -errno;
		} else if (S_ISDIR(st.st_mode)) {
			if (mkdir(dst, 0755) != 0)
				return -errno;
			if ((r = mount_bind(src, dst, MS_RDONLY | MS_NOSUID |
			    MS_NODEV, 1)) != 0)
				return r;
		}
	}
	return 0;
}

static int
mount_etc(const struct sandbox_mount_ctx *ctx)
{
	char		src[96], dst[96], text[512], target[PATH_MAX];
	struct stat	st;
	ssize_t		n;
	size_t		i;
	int		r;

	if (mkdir(STAGE "/etc", 0755) != 0)
		return -errno;
	snprintf(text, sizeof text,
	    "root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
	    "job:x:%u:%u:airlox job:" SANDBOX_WORK_DIR ":/bin/sh\n"
	    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
	    (unsigned)ctx->uid, (unsigned)ctx->gid);
	if ((r = mount_write(STAGE "/etc/passwd", text, 0644)) != 0)
		return r;
	snprintf(text, sizeof text, "root:x:0:\njob:x:%u:\nnogroup:x:65534:\n",
	    (unsigned)ctx->gid);
	if (lstat("/etc/ssl", &st) == 0 && S_ISDIR(st.st_mode) &&
	    mkdir(STAGE "/etc/ssl", 0755) != 0)
		return -errno;
	/* Mode full: the host's resolver configuration (a copy). */
	if (ctx->net_host && (r = mount_copy("/etc/resolv.conf",
	    STAGE "/etc/resolv.conf")) != 0)
		return r;
	if ((r = mount_write(STAGE "/etc/group", text, 0644)) != 0 ||
	    (r = mount_write(STAGE "/etc/nsswitch.conf",
	    "passwd: files\ngroup: files\nshadow: files\nhosts: files\n"
	    "networks: files\nprotocols: files\nservices: files\n",
	    0644)) != 0 ||
	    (r = mount_write(STAGE "/etc/hosts",
	    "127.0.0.1\tlocalhost airlox\n::1\tlocalhost\n", 0644)) != 0 ||
	    (r = mount_write(STAGE "/etc/hostname", "airlox\n", 0644)) != 0)
		return r;
	for (i = 0; mount_etc_files[i] != NULL; i++) {
		snprintf(src, sizeof src, "/etc/%s", mount_etc_files[i]);
		snprintf(dst, sizeof dst, STAGE "/etc/%s", mount_etc_files[i]);
		if ((r = mount_copy(src, dst)) != 0)
			return r;
	}
	/* localtime: keep a link into /usr/share/zoneinfo, else copy. */
	n = readlink("/etc/localtime", target, sizeof target - 1);
	if (n > 0) {
		target[n] = '\0';
		if (strncmp(target, "/usr/share/zoneinfo/", 20) == 0 &&
		    strstr(target, "..") == NULL &&
		    symlink(target, STAGE "/etc/localtime") != 0)
			return -errno;
	} else if ((r = mount_copy("/etc/localtime",
	    STAGE "/etc/localtime")) != 0)
		return r;
	for (i = 0; mount_etc_dirs[i] != NULL; i++) {
		snprintf(src, sizeof src, "/etc/%s", mount_etc_dirs[i]);
		snprintf(dst, sizeof dst, STAGE "/etc/%s", mount_etc_dirs[i]);
		if (lstat(src, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		if (mkdir(dst, 0755) != 0)
			return -errno;
		if ((r = mount_bind(src, dst, MS_RDONLY | MS_NOSUID | MS_NODEV,
		    0)) != 0)
			return r;
	}
	return 0;
}

static int
mount_dev(const struct sandbox_mount_ctx *ctx)
{
	static const char *const links[][2] = {
		{ "fd", "/proc/self/fd" }, { "stdin", "/proc/self/fd/0" },
		{ "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
	};
	char	src[64], dst[64];
	size_t	i;
	int	fd, r;

	if (mkdir(STAGE "/dev", 0755) != 0)
		return -errno;
	if ((r = mount_tmpfs(STAGE "/dev", MS_NOSUID | MS_NOEXEC, "0755",
	    64 * 1024)) != 0)
		return r;
	for (i = 0; mount_dev_nodes[i] != NULL; i++) {
		snprintf(src, sizeof src, "/dev/%s", mount_dev_nodes[i]);
		snprintf(dst, sizeof dst, STAGE "/dev/%s", mount_dev_nodes[i]);
		if ((fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0666)) == -1)
			return -errno;
		close(fd);
		if ((r = mount_bind(src, dst, MS_NOSUID | MS_NOEXEC, 0)) != 0)
			return r;
	}
	for (i = 0; i < sizeof links / sizeof links[0]; i++) {
		snprintf(dst, sizeof dst, STAGE "/dev/%s", links[i][0]);
		if (symlink(links[i][1], dst) != 0)
			return -errno;
	}
	if (mkdir(STAGE "/dev/shm", 01777) != 0)
		return -errno;
	if ((r = mount_tmpfs(STAGE "/dev/shm", MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, "1777", ctx->tmp_bytes)) != 0)
		return r;
#ifdef SANDBOX_TEST_WEAKEN
	if (sandbox_test_weaken & SANDBOX_WEAKEN_DEVS) {
		if ((fd = open(STAGE "/dev/extra", O_WRONLY | O_CREAT |
		    O_CLOEXEC, 0666)) != -1)
			close(fd);
	}
	if (sandbox_test_weaken & SANDBOX_WEAKEN_RW)
		return 0;
#endif
	/* Read-only /dev itself (nodes stay writable: they are binds). */
	if (mount(NULL, STAGE "/dev", NULL, MS_REMOUNT | MS_RDONLY |
	    MS_NOSUID | MS_NOEXEC, "mode=0755,size=65536") != 0)
		return -errno;
	return 0;
}

static int
mount_fd_bind(int fd, const char *dst)
{
	char	src[64];

	snprintf(src, sizeof src, "/proc/self/fd/%d", fd);
	if (mkdir(dst, 0755) != 0)
		return -errno;
	return mount_bind(src, dst, MS_NOSUID | MS_NODEV, 0);
}

/*
 * The runner's side, before clone(): a detached copy of the venv's mount
 * (open_tree), made read-only, nosuid and nodev while the runner still
 * may; the job's side attaches it (move_mount). The job's uid never needs
 * to reach the venv through the state dir (0700), and cannot undo the
 * flags. Returns the fd, or -errno.
 */
int
sandbox_mount_py_open(const char *dir)
{
	struct mount_attr	attr;
	int			fd;

	fd = open_tree(AT_FDCWD, dir, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	    AT_SYMLINK_NOFOLLOW);
	if (fd == -1)
		return -errno;
	memset(&attr, 0, sizeof attr);
	attr.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV;
	if (mount_setattr(fd, "", AT_EMPTY_PATH, &attr, sizeof attr) != 0) {
		int	e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/*
 * A tree from sandbox_mount_py_open()'s fd (the venv at SANDBOX_PY_DIR,
 * the inputs at SANDBOX_IN_DIR), its folders made on the way.
 */
static int
mount_attach(int fd, const char *path)
{
	char	dst[PATH_MAX], *p;

	if (fd < 0)
		return 0;
	snprintf(dst, sizeof dst, "%s", path);
	for (p = dst + strlen(STAGE) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(dst, 0755) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(dst, 0755) != 0)
		return -errno;
	if (move_mount(fd, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH) != 0)
		return -errno;
	return 0;
}

#define STEP(name, expr) do {						\
	*what = (name);							\
	if ((r = (expr)) != 0)						\
		return r;						\
} while (0)

static int
mount_mkdir(const char *path)
{
	return mkdir(path, 0755) == 0 ? 0 : -errno;
}

static int
mount_sys(int (*fn)(void))
{
	return fn() == 0 ? 0 : -errno;
}

static int
mount_private(void)
{
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

static int
mount_pivot(void)
{
	if (chdir(STAGE) != 0 ||
	    syscall(SYS_pivot_root, ".", ".") != 0 ||
	    umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
		return -1;
	return 0;
}

static int
mount_root_ro(void)
{
#ifdef SANDBOX_TEST_WEAKEN
	if (sandbox_test_weaken & SANDBOX_WEAKEN_RW)
		return 0;
#endif
	return mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
	    MS_NOSUID | MS_NODEV, NULL);
}

#ifdef SANDBOX_TEST_WEAKEN
/* Test builds: bind a host dir at its own path (mkdir -p first). */
static int
mount_weaken_dir(const char *dir)
{
	char	path[PATH_MAX], *p;

	if (dir == NULL || dir[0] != '/' ||
	    (size_t)snprintf(path, sizeof path, STAGE "%s", dir) >= sizeof path)
		return 0;
	for (p = path + strlen(STAGE) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
	return mount_bind(dir, path, MS_RDONLY | MS_NOSUID | MS_NODEV, 0);
}
#endif

int
sandbox_mount_root(const struct sandbox_mount_ctx *ctx, const char **what)
{
	int	r;

	STEP("make / private", mount_sys(mount_private));
	STEP("root tmpfs", mount_tmpfs(STAGE, MS_NOSUID | MS_NODEV, "0755",
	    8 << 20));
	STEP("mkdir /usr", mount_mkdir(STAGE "/usr"));
	STEP("bind /usr", mount_bind("/usr", STAGE "/usr", MS_RDONLY |
	    MS_NOSUID | MS_NODEV, 1));
	STEP("links to /usr", mount_links());
	STEP("/etc", mount_etc(ctx));
	STEP("bind workspace", mount_fd_bind(ctx->workfd,
	    STAGE SANDBOX_WORK_DIR));
	STEP("bind out dir", mount_fd_bind(ctx->outfd, STAGE SANDBOX_OUT_DIR));
	STEP("attach " SANDBOX_PY_DIR, mount_attach(ctx->py_fd,
	    STAGE SANDBOX_PY_DIR));
	STEP("attach " SANDBOX_IN_DIR, mount_attach(ctx->in_fd,
	    STAGE SANDBOX_IN_DIR));
	STEP("mkdir /tmp", mount_mkdir(STAGE "/tmp"));
	STEP("/tmp tmpfs", mount_tmpfs(STAGE "/tmp", MS_NOSUID | MS_NODEV,
	    "1777", ctx->tmp_bytes));
	STEP("/dev", mount_dev(ctx));
#ifdef SANDBOX_TEST_WEAKEN
	STEP("weaken: extra bind", mount_weaken_dir(ctx->weaken_dir));
#endif
	STEP("mkdir /proc", mount_mkdir(STAGE "/proc"));
	*what = "mount /proc";
	if (mount("proc", STAGE "/proc", "proc", MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, NULL) != 0)
		return -errno;
	STEP("pivot_root", mount_sys(mount_pivot));
	STEP("read-only /", mount_sys(mount_root_ro));
	*what = "chdir " SANDBOX_WORK_DIR;
	if (chdir(SANDBOX_WORK_DIR) != 0)
		return -errno;
	return 0;
}

/* Append name to a space-separated list (sorted by the caller's order). */
static int
mount_list_add(char *buf, size_t len, const char *name)
{
	size_t	used = strlen(buf);
	int	n;

	n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", name);
	return n < 0 || (size_t)n >= len - used ? ALX_ERR_TOO_LARGE : 0;
}

static int
mount_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The mount points sandbox_mount_root() makes on this host, sorted. */
int
sandbox_linux_mounts(char *buf, size_t len)
{
	static char	 names[32][96];
	const char	*v[32];
	struct stat	 st;
	size_t		 n = 0, i;
	int		 r = 0;

	if (len == 0)
		return ALX_ERR_INVALID;
	buf[0] = '\0';
#define ADD(s) do { if (n < 32) { snprintf(names[n], sizeof names[n], \
	"%s", (s)); v[n] = names[n]; n++; } } while (0)
	ADD("/"); ADD("/usr"); ADD(SANDBOX_WORK_DIR); ADD(SANDBOX_OUT_DIR);
	ADD("/tmp"); ADD("/dev"); ADD("/dev/shm"); ADD("/proc");
	for (i = 0; mount_dev_nodes[i] != NULL; i++) {
		char	p[64];

		snprintf(p, sizeof p, "/dev/%s", mount_dev_nodes[i]);
		ADD(p);
	}
	for (i = 0; mount_root_links[i] != NULL; i++) {
		char	p[64];

		snprintf(p, sizeof p, "/%s", mount_root_links[i]);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			ADD(p);
	}
	for (i = 0; mount_etc_dirs[i] != NULL; i++) {
		char	p[96];

		snprintf(p, sizeof p, "/etc/%s", mount_etc_dirs[i]);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			ADD(p);
	}
#undef ADD
	qsort(v, n, sizeof v[0], mount_cmp);
	for (i = 0; i < n && r == 0; i++)
		r = mount_list_add(buf, len, v[i]);
	return r;
}

/* The names in the sandbox's /dev, sorted. */
int
sandbox_linux_devs(char *buf, size_t len)
{
	static const char *const extra[] = {
		"fd", "shm", "stderr", "stdin", "stdout", NULL
	};
	const char	*v[32];
	size_t		 n = 0, i;
	int		 r = 0;

	if (len == 0)
		return ALX_ERR_INVALID;
	buf[0] = '\0';
	for (i = 0; mount_dev_nodes[i] != NULL && n < 32; i++)
		v[n++] = mount_dev_nodes[i];
	for (i = 0; extra[i] != NULL && n < 32; i++)
		v[n++] = extra[i];
	qsort(v, n, sizeof v[0], mount_cmp);
	for (i = 0; i < n && r == 0; i++)
		r = mount_list_add(buf, len, v[i]);
	return r;
}

/* Bring up loopback in the new network namespace; nothing else exists. */
int
sandbox_net_lo_up(void)
{
	struct ifreq	ifr;
	int		s, r = 0;

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -errno;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == -1)
		r = -errno;
	else {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) == -1)
			r = -errno;
	}
	close(s);
	return r;
}
