/*
 * sandbox-linux.c: the `local` backend: Linux namespaces, a new root,
 * cgroup limits, and our static airlox-shim as pid 1 of the job.
 *
 * Order of steps (docs/sandbox.md has the why of each):
 *  runner	create the job's cgroup; open the workspace, out dir and
 *		shim as O_PATH fds; fork a launcher.
 *  launcher	drop supplementary groups (as root), then clone() the
 *		sandbox with new user, mount, pid, net, ipc and uts
 *		namespaces, CLONE_PARENT so the runner is its parent; send
 *		its pid to the runner and exit.
 *  runner	write setgroups "deny", then gid_map and uid_map (job uid
 *		1000 inside = an unprivileged host uid: one from the
 *		runner's range as root, the runner's own uid otherwise);
 *		put the sandbox in the job's cgroup; release it.
 *  sandbox	(pid 1 of the new pid ns) PR_SET_PDEATHSIG; new cgroup
 *		namespace; hostname; loopback up; the new root
 *		(sandbox-linux-mount.c); rlimits; fds 0-3 set up and every
 *		other fd closed at exec; capabilities dropped (bounding and
 *		ambient sets too), uid/gid 1000; no_new_privs; exec the shim.
 *  shim	(airlox-shim, still pid 1) forks the job; the job gets
 *		Landlock, then seccomp, then execs the command. pid 1 reaps,
 *		forwards SIGTERM/SIGINT, and reports the job's end.
 * Killing pid 1 kills the whole namespace: the timeout's SIGKILL.
 */
#include "config.h"

#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <linux/capability.h>
#include <linux/securebits.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "sandbox-priv.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH		0x1000
#endif

#define LINUX_NS_FLAGS	(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | \
	CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)

/* What the sandbox child needs, prepared before clone(). */
struct linux_child {
	struct sandbox_job		*job;
	struct sandbox_mount_ctx	 mctx;
	int				 shimfd;
	int				 sync;		/* read: maps done */
	int				 syncw;		/* its write end */
	int				 errw;		/* write: failure */
	int				 outfd, errfd, repw;
	int				 egressfd;	/* or -1 */
	char				**argv;		/* shim + job argv */
	int				 mem_rlimit;
	int				 nproc_rlimit;
};

static unsigned	linux_seq;

static int
linux_landlock_abi(void)
{
	long	v = syscall(444, NULL, 0, 1UL);	/* landlock_create_ruleset */

	return v < 0 ? 0 : (int)v;
}

static int
linux_userns_ok(void)
{
	pid_t	pid;
	int	st;

	pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL,
	    NULL, 0);
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return 0;
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	return 1;
}

static void
linux_describe(const struct sandbox_limits *l, struct sandbox_cgroup *cg,
    uid_t uid, int as_root, enum sandbox_net net, char *buf, size_t len)
{
	int	abi = linux_landlock_abi();

	sandbox_enf_add(buf, len, "sandbox: local (namespaces user mount pid "
	    "net ipc uts cgroup; pivot_root; capabilities none; no_new_privs; "
	    "seccomp; landlock %s)", abi > 0 ? "on" : "NOT enforced");
	if (abi > 0)
		sandbox_enf_add(buf, len, "landlock: ABI %d", abi);
	sandbox_enf_add(buf, len, "uid: %s", as_root ?
	    "unprivileged host uid from the runner's range" :
	    "the runner's own uid (user namespace)");
	switch (net) {
	case SANDBOX_NET_PROXY:
		sandbox_enf_add(buf, len, "network: allow list through the "
		    "runner's egress proxy (loopback only, no route; "
		    "127.0.0.1:%d)", SANDBOX_EGRESS_PORT);
		break;
	case SANDBOX_NET_HOST:
		sandbox_enf_add(buf, len, "network: full (the host's network, "
		    "runner started with --network)");
		break;
	default:
		sandbox_enf_add(buf, len, "network: none (loopback only)");
	}
	sandbox_enf_add(buf, len, "wall clock: %lld ms, whole tree killed",
	    (long long)l->wall_ms);
	sandbox_cgroup_describe(cg, l, buf, len);
	if (!cg->pids && as_root)
		sandbox_enf_add(buf, len, "pids: RLIMIT_NPROC %u for the job's "
		    "uid", l->pids);
	sandbox_enf_add(buf, len, "disk: workspace+out %llu MiB, %llu files, "
	    "measured every 200 ms; RLIMIT_FSIZE %llu MiB",
	    (unsigned long long)(l->disk_bytes >> 20),
	    (unsigned long long)l->disk_inodes,
	    (unsigned long long)(l->fsize_bytes >> 20));
	sandbox_enf_add(buf, len, "tmp: /tmp and /dev/shm tmpfs %llu MiB each",
	    (unsigned long long)(l->tmp_bytes >> 20));
	sandbox_enf_add(buf, len, "open files: RLIMIT_NOFILE %u; core dumps "
	    "off", l->nofile);
	(void)uid;
}

static int
linux_enforced(const struct sandbox_limits *l, char *buf, size_t len)
{
	struct sandbox_cgroup	cg;
	char			name[64];
	int			as_root = geteuid() == 0;

	if (!linux_userns_ok()) {
		sandbox_enf_add(buf, len, "sandbox: local NOT enforced: user "
		    "namespaces are not available (kernel.unprivileged_userns"
		    "_clone, user.max_user_namespaces or an LSM forbids them)");
		return 0;
	}
	snprintf(name, sizeof name, "airlox-probe-%ld", (long)getpid());
	sandbox_cgroup_create(&cg, name, l);
	linux_describe(l, &cg, 0, as_root, SANDBOX_NET_NONE, buf, len);
	sandbox_cgroup_destroy(&cg);
	return 0;
}

static int
linux_write_file(pid_t pid, const char *file, const char *text)
{
	char	path[64];
	int	fd, r = 0;
	size_t	len = strlen(text);

	snprintf(path, sizeof path, "/proc/%ld/%s", (long)pid, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		r = -errno;
	close(fd);
	return r;
}

static int
linux_maps(pid_t pid, uid_t uid, gid_t gid)
{
	char	map[64];
	int	r;

	if ((r = linux_write_file(pid, "setgroups", "deny")) != 0)
		return r;
	snprintf(map, sizeof map, "%u %u 1\n", SANDBOX_JOB_UID, (unsigned)gid);
	if ((r = linux_write_file(pid, "gid_map", map)) != 0)
		return r;
	snprintf(map, sizeof map, "%u %u 1\n", SANDBOX_JOB_UID, (unsigned)uid);
	return linux_write_file(pid, "uid_map", map);
}

/*
 * Become the job's uid at once (files the setup creates must be owned by
 * a mapped uid), keeping the namespace's capabilities for the setup.
 */
static int
linux_become_job(void)
{
	if (prctl(PR_SET_SECUREBITS, SECBIT_NO_SETUID_FIXUP, 0, 0, 0) == -1 ||
	    setresgid(SANDBOX_JOB_UID, SANDBOX_JOB_UID, SANDBOX_JOB_UID) ||
	    setresuid(SANDBOX_JOB_UID, SANDBOX_JOB_UID, SANDBOX_JOB_UID))
		return -errno;
	return 0;
}

/* All capabilities gone: bounding, ambient, then the three sets. */
static int
linux_drop_caps(void)
{
	struct __user_cap_header_struct	hdr;
	struct __user_cap_data_struct	data[2];
	int				cap;

	for (cap = 0; cap < 64; cap++) {
#ifdef SANDBOX_TEST_WEAKEN
		if (sandbox_test_weaken & SANDBOX_WEAKEN_CAPS)
			break;
#endif
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == -1 &&
		    errno != EINVAL)
			return -errno;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1)
		return -errno;
	/* uid 0 means nothing to exec() from now on, locked. */
	if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
	    SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
	    SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
	    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED, 0, 0, 0) == -1)
		return -errno;
	memset(&hdr, 0, sizeof hdr);
	memset(data, 0, sizeof data);
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capset, &hdr, data) != 0)
		return -errno;
	return 0;
}

/* Fds 0-3 of the shim; everything else closes at exec. */
static int
linux_fds(struct linux_child *c)
{
	int	o, e, rp, nul, eg = -1;

	if ((o = fcntl(c->outfd, F_DUPFD_CLOEXEC, 10)) == -1 ||
	    (e = fcntl(c->errfd, F_DUPFD_CLOEXEC, 10)) == -1 ||
	    (rp = fcntl(c->repw, F_DUPFD_CLOEXEC, 10)) == -1 ||
	    (c->egressfd != -1 &&
	    (eg = fcntl(c->egressfd, F_DUPFD_CLOEXEC, 10)) == -1) ||
	    (nul = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		return -errno;
	if (dup2(nul, 0) == -1 || dup2(o, 1) == -1 || dup2(e, 2) == -1 ||
	    dup2(rp, 3) == -1 ||
	    (eg != -1 && dup2(eg, SANDBOX_EGRESS_FD) == -1))
		return -errno;
	if (syscall(SYS_close_range, eg != -1 ? SANDBOX_EGRESS_FD + 1U : 4U,
	    ~0U, CLOSE_RANGE_CLOEXEC) != 0)
		return -errno;
	return 0;
}

/*
 * A bind source must be a mount of our own namespace: open the workspace
 * and out dir again from inside it (still with the runner's file access),
 * and check they are the very directories the runner opened.
 */
static int
linux_reopen1(int *fdp, const char *path)
{
	struct stat	a, b;
	int		fd;

	if ((fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -errno;
	if (fstat(fd, &a) != 0 || fstat(*fdp, &b) != 0 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(fd);
		return -ESTALE;
	}
	close(*fdp);
	*fdp = fd;
	return 0;
}

static int
linux_reopen(struct linux_child *c)
{
	int	r;

	if ((r = linux_reopen1(&c->mctx.workfd, c->job->workspace)) != 0)
		return r;
	return linux_reopen1(&c->mctx.outfd, c->job->outdir);
}

/* A new network namespace unless the job has the host's (mode full). */
static unsigned long
linux_ns_flags(const struct sandbox_job *job)
{
	unsigned long	fl = LINUX_NS_FLAGS;

	if (job->net == SANDBOX_NET_HOST)
		fl &= ~(unsigned long)CLONE_NEWNET;
#ifdef SANDBOX_TEST_WEAKEN
	if (sandbox_test_weaken & SANDBOX_WEAKEN_NETNS)
		fl &= ~(unsigned long)CLONE_NEWNET;
#endif
	return fl;
}

static void __attribute__((noreturn))
linux_child(struct linux_child *c)
{
	const char	*what = "";
	char		 b;
	struct rlimit	 rl;
	int		 r;

	close(c->syncw);
	if (read(c->sync, &b, 1) != 1)
		_exit(127);			/* the runner is gone */
	if ((r = linux_reopen(c)) != 0)
		sandbox_childfail(c->errw, "open workspace or out dir", -r);
	if ((r = linux_become_job()) != 0)
		sandbox_childfail(c->errw, "uid/gid 1000", -r);
	/* After the uid change, which would clear it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
		sandbox_childfail(c->errw, "pdeathsig", errno);
	if (unshare(CLONE_NEWCGROUP) != 0)
		sandbox_childfail(c->errw, "cgroup namespace", errno);
	if (sethostname("airlox", 6) != 0 || setdomainname("airlox", 6) != 0)
		sandbox_childfail(c->errw, "hostname", errno);
	if ((linux_ns_flags(c->job) & CLONE_NEWNET) &&
	    (r = sandbox_net_lo_up()) != 0)
		sandbox_childfail(c->errw, "loopback", -r);
	if ((r = sandbox_mount_root(&c->mctx, &what)) != 0)
		sandbox_childfail(c->errw, what, -r);
	if ((r = linux_fds(c)) != 0)
		sandbox_childfail(c->errw, "fds", -r);
	if ((r = sandbox_set_rlimits(&c->job->lim, c->nproc_rlimit)) != 0)
		sandbox_childfail(c->errw, "rlimits", -r);
	if (c->mem_rlimit) {
		rl.rlim_cur = rl.rlim_max = c->job->lim.mem_bytes;
		if (setrlimit(RLIMIT_AS, &rl) != 0)
			sandbox_childfail(c->errw, "RLIMIT_AS", errno);
	}
	if ((r = linux_drop_caps()) != 0)
		sandbox_childfail(c->errw, "drop capabilities", -r);
#ifdef SANDBOX_TEST_WEAKEN
	if (!(sandbox_test_weaken & SANDBOX_WEAKEN_SECCOMP))
#endif
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		sandbox_childfail(c->errw, "no_new_privs", errno);
	syscall(SYS_execveat, c->shimfd, "", c->argv, c->job->envp,
	    AT_EMPTY_PATH);
	sandbox_childfail(c->errw, "exec airlox-shim", errno);
	_exit(127);
}

/*
 * The launcher: a plain fork that sheds supplementary groups (root) and
 * clones the sandbox as a child of the runner (CLONE_PARENT).
 */
static void __attribute__((noreturn))
linux_launcher(struct linux_child *c, int pidw)
{
	pid_t	pid;

	if (geteuid() == 0 && setgroups(0, NULL) != 0)
		sandbox_childfail(c->errw, "setgroups", errno);
	pid = (pid_t)syscall(SYS_clone, linux_ns_flags(c->job) | CLONE_PARENT,
	    NULL, NULL, NULL, 0);
	if (pid == 0)
		linux_child(c);
	if (pid < 0)
		sandbox_childfail(c->errw, "clone namespaces", errno);
	if (write(pidw, &pid, sizeof pid) != sizeof pid)
		_exit(127);
	_exit(0);
}

static int
linux_open_paths(struct sandbox_job *job, struct linux_child *c)
{
	c->mctx.workfd = open(job->workspace, O_PATH | O_DIRECTORY |
	    O_CLOEXEC | O_NOFOLLOW);
	c->mctx.outfd = open(job->outdir, O_PATH | O_DIRECTORY | O_CLOEXEC |
	    O_NOFOLLOW);
	c->shimfd = open(job->shim, O_PATH | O_CLOEXEC);
	if (c->mctx.workfd == -1 || c->mctx.outfd == -1 || c->shimfd == -1)
		return ALX_ERR_BAD_PATH;
	return 0;
}

static void
linux_close_child(struct linux_child *c)
{
	int	*fds[] = { &c->mctx.workfd, &c->mctx.outfd, &c->shimfd };
	size_t	 i;

	for (i = 0; i < sizeof fds / sizeof fds[0]; i++)
		if (*fds[i] != -1) {
			close(*fds[i]);
			*fds[i] = -1;
		}
	free(c->argv);
	c->argv = NULL;
}

/* Read the sandbox's failure text, if any, until exec closes the pipe. */
static int
linux_await_exec(int errr, char **cause)
{
	char	msg[300];
	ssize_t	n;
	size_t	len = 0;

	while (len < sizeof msg - 1) {
		n = read(errr, msg + len, sizeof msg - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (len == 0)
		return 0;
	msg[len] = '\0';
	if (cause != NULL && asprintf(cause, "sandbox setup: %s", msg) < 0)
		*cause = NULL;
	return ALX_ERR_IO;
}

/* Fork the launcher and learn the sandbox's pid from it. */
static int
linux_spawn(struct sandbox_job *job, struct linux_child *c)
{
	int	pp[2], st;
	pid_t	launcher, pid = -1;
	ssize_t	n;

	if (pipe2(pp, O_CLOEXEC) != 0)
		return ALX_ERR_IO;
	if ((launcher = fork()) == -1) {
		close(pp[0]);
		close(pp[1]);
		return ALX_ERR_IO;
	}
	if (launcher == 0) {
		close(pp[0]);
		linux_launcher(c, pp[1]);
	}
	close(pp[1]);
	while ((n = read(pp[0], &pid, sizeof pid)) == -1 && errno == EINTR)
		;
	close(pp[0]);
	while (waitpid(launcher, &st, 0) == -1 && errno == EINTR)
		;
	if (n != sizeof pid || pid <= 0)
		return ALX_ERR_IO;
	job->pid = pid;
	job->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return 0;
}

/* airlox-shim [--egress PORT] -- command [arg ...] */
static void
linux_shim_argv(struct sandbox_job *job, struct linux_child *c, size_t n)
{
	static char	port[16];
	size_t		i, k = 0;

	c->argv[k++] = (char *)"airlox-shim";
	if (job->net == SANDBOX_NET_PROXY) {
		snprintf(port, sizeof port, "%d", SANDBOX_EGRESS_PORT);
		c->argv[k++] = (char *)"--egress";
		c->argv[k++] = port;
	}
#ifdef SANDBOX_TEST_WEAKEN
	{
		static char	w[16];

		snprintf(w, sizeof w, "%u", sandbox_test_weaken);
		c->argv[k++] = (char *)"--weaken";
		c->argv[k++] = w;
	}
#endif
	c->argv[k++] = (char *)"--";
	for (i = 0; i < n; i++)
		c->argv[k++] = job->argv[i];
}

static int
linux_start(struct sandbox_job *job, int outfd, int errfd, char **cause)
{
	struct linux_child	c;
	char			name[128];
	int			sync[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int			rep[2] = { -1, -1 }, r;
	size_t			n, i;

	memset(&c, 0, sizeof c);
	c.mctx.workfd = c.mctx.outfd = c.shimfd = -1;
	c.job = job;
	snprintf(name, sizeof name, "airlox-%s-%ld-%u", job->job_id,
	    (long)getpid(), linux_seq++);
	sandbox_cgroup_create(&job->cg, name, &job->lim);
	linux_describe(&job->lim, &job->cg, job->uid, job->as_root, job->net,
	    job->enforced, sizeof job->enforced);
	c.mem_rlimit = !job->cg.mem;
	c.nproc_rlimit = job->as_root;
	c.mctx.tmp_bytes = job->lim.tmp_bytes;
	c.mctx.uid = SANDBOX_JOB_UID;
	c.mctx.gid = SANDBOX_JOB_UID;
	c.mctx.net_host = job->net == SANDBOX_NET_HOST;
	c.mctx.py_fd = job->py_fd;
	c.mctx.in_fd = job->in_fd;
	c.egressfd = job->egress_fd;
#ifdef SANDBOX_TEST_WEAKEN
	if (sandbox_test_weaken & SANDBOX_WEAKEN_MOUNTS)
		c.mctx.weaken_dir = sandbox_test_weaken_dir;
#endif
	if (job->as_root && (sandbox_workspace_own(job->workspace, job->uid,
	    job->gid) != 0 || sandbox_workspace_own(job->outdir, job->uid,
	    job->gid) != 0)) {
		r = ALX_ERR_IO;
		goto out;
	}
	if ((r = linux_open_paths(job, &c)) != 0)
		goto out;
	for (n = 0; job->argv[n] != NULL; n++)
		;
	if ((c.argv = calloc(n + 8, sizeof *c.argv)) == NULL) {
		r = ALX_ERR_NOMEM;
		goto out;
	}
	linux_shim_argv(job, &c, n);
	if (pipe2(sync, O_CLOEXEC) || pipe2(errp, O_CLOEXEC) ||
	    pipe2(rep, O_CLOEXEC)) {
		r = ALX_ERR_IO;
		goto out;
	}
	c.sync = sync[0];
	c.syncw = sync[1];
	c.errw = errp[1];
	c.outfd = outfd;
	c.errfd = errfd;
	c.repw = rep[1];
	r = linux_spawn(job, &c);
	close(errp[1]);
	errp[1] = -1;
	if (r != 0) {
		if (linux_await_exec(errp[0], cause) == 0 && cause != NULL)
			*cause = strdup("sandbox setup: launcher failed");
		goto out;
	}
	close(rep[1]);
	rep[1] = -1;
	job->report = rep[0];
	rep[0] = -1;
	if ((r = linux_maps(job->pid, job->uid, job->gid)) != 0 ||
	    (job->cg.version != 0 &&
	    (r = sandbox_cgroup_attach(&job->cg, job->pid)) != 0)) {
		if (cause != NULL)
			*cause = strdup("sandbox setup: id maps or cgroup");
		r = ALX_ERR_IO;
		goto out;
	}
	if (write(sync[1], "g", 1) != 1) {
		r = ALX_ERR_IO;
		goto out;
	}
	r = linux_await_exec(errp[0], cause);
out:
	linux_close_child(&c);
	for (i = 0; i < 2; i++) {
		if (sync[i] != -1)
			close(sync[i]);
		if (errp[i] != -1)
			close(errp[i]);
		if (rep[i] != -1)
			close(rep[i]);
	}
	if (r != 0 && job->pid > 0) {
		kill(job->pid, SIGKILL);
		while (waitpid(job->pid, NULL, 0) == -1 && errno == EINTR)
			;
		job->reaped = 1;
	}
	if (r != 0)
		sandbox_cgroup_destroy(&job->cg);
	return r;
}

static void
linux_kill(struct sandbox_job *job, int sig)
{
	if (job->pid <= 0)
		return;
	if (job->pidfd != -1)
		syscall(SYS_pidfd_send_signal, job->pidfd, sig, NULL, 0);
	else if (!job->reaped)
		kill(job->pid, sig);
	if (sig == SIGKILL)
		sandbox_cgroup_killall(&job->cg);
}

static int
linux_mounts(int net_host, char *buf, size_t len)
{
	(void)net_host;		/* the same mounts either way */
	return sandbox_linux_mounts(buf, len);
}

const struct sandbox_backend sandbox_linux_backend = {
	"local",
	SANDBOX_NETNS | SANDBOX_FIXED_PATHS,
	SANDBOX_PY_BIND,
	NULL,
	NULL,
	NULL,
	linux_mounts,
	sandbox_linux_devs,
	linux_enforced,
	linux_start,
	linux_kill,
	sandbox_cgroup_job_oom,
	sandbox_cgroup_job_finish,
};
