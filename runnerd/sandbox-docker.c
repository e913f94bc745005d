/*
 * sandbox-docker.c: the `docker` backend: each job in a fresh container
 * of the runner's image, made through the Docker Engine API
 * (runner-docker.c), never through the docker command.
 *
 * The container: network none, read-only root, every capability dropped,
 * no-new-privileges, our own seccomp profile (below), the slot's host
 * uid:gid, pids, memory and swap limits, size-limited tmpfs /tmp and
 * /dev/shm, the workspace at /work and the out dir at /out, and the
 * static airlox-shim bind-mounted read-only as its init (pid 1), which
 * adds Landlock and its own seccomp filter to the job as in the local
 * sandbox. Labels org.airlox.runner and org.airlox.job name it, so a
 * restarted runner removes what a killed one left.
 *
 * For the common code (sandbox.c) the job's process is a small attacher
 * child: it attaches to the container's output before the container
 * starts, demultiplexes it into the job's pipes, waits for the container
 * and exits with its exit code. kill() is POST /kill; oom() reads the
 * container's memory cgroup (v1 or v2, found from its pid) and samples
 * the peak there, since the cgroup goes with the container; finish() asks
 * the daemon whether the kernel OOM-killed a task, then removes the
 * container.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "sandbox-priv.h"
#include "runner-docker.h"
#include "fdpass.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE	(1U << 1)
#endif

/* A job's container (sandbox_job.be_priv). */
struct docker_ctr {
	char			 id[RUNNER_DOCKER_ID_MAX + 1];
	char			 mem[PATH_MAX];	/* its memory cgroup dir */
	char			 ctl[PATH_MAX];	/* its control folder, or "" */
	int			 egress_lfd;	/* PROXY: listening in ctl, or -1 */
	int			 cgv;		/* 0 unknown, 1, 2 */
	uint64_t		 peak;
	int			 peak_known;
};

/*
 * The runner's settings for the backend (one image and one label per
 * runner, set at start by sandbox_docker_setup(); the backend table
 * carries no handle) and its API connection, opened on first use.
 */
static struct {
	char			 image[256];
	char			 label[160];
	struct runner_docker	*d;
} docker_cfg;

/*
 * The seccomp profile: default allow, and a deny list: only the native
 * ABI (no i386, no x32: libseccomp rejects x32 numbers on an x86_64-only
 * filter), and what a job never needs and what widens the kernel's attack
 * surface. The shim's own filter (sandbox-linux-seccomp.c) is applied on
 * top inside, so both must allow a call.
 */
static const char *const docker_sc_deny[] = {
	"mount", "umount2", "pivot_root", "chroot", "ptrace",
	"process_vm_readv", "process_vm_writev", "bpf", "perf_event_open",
	"keyctl", "add_key", "request_key", "kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register", "setns",
	"open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
	"mount_setattr", "open_by_handle_at", "name_to_handle_at", "swapon",
	"swapoff", "reboot", "acct", "quotactl", "quotactl_fd", "vhangup",
	"syslog", "fanotify_init", "lookup_dcookie", "nfsservctl", "iopl",
	"ioperm", "uselib", "personality", "settimeofday", "clock_settime",
	"clock_adjtime", "adjtimex", "sethostname", "setdomainname",
	"unshare",
	NULL
};
/* clone() with any of these flags: a new namespace. */
static const unsigned long docker_ns_flags[] = {
	0x00020000UL,	/* CLONE_NEWNS */
	0x02000000UL,	/* CLONE_NEWCGROUP */
	0x04000000UL,	/* CLONE_NEWUTS */
	0x08000000UL,	/* CLONE_NEWIPC */
	0x10000000UL,	/* CLONE_NEWUSER */
	0x20000000UL,	/* CLONE_NEWPID */
	0x40000000UL,	/* CLONE_NEWNET */
	0x00000080UL,	/* CLONE_NEWTIME */
};

#if defined(__x86_64__)
#define DOCKER_SC_ARCH	"SCMP_ARCH_X86_64"
#elif defined(__aarch64__)
#define DOCKER_SC_ARCH	"SCMP_ARCH_AARCH64"
#else
#error "the docker sandbox supports x86_64 and aarch64 only"
#endif

static void
docker_sc_rule(struct alx_jw *w, const char *name, int err, int argi,
    unsigned long mask)
{
	alx_jw_obj_begin(w);
	alx_jw_key(w, "names");
	alx_jw_arr_begin(w);
	alx_jw_str(w, name);
	alx_jw_arr_end(w);
	alx_jw_kstr(w, "action", "SCMP_ACT_ERRNO");
	alx_jw_kint(w, "errnoRet", err);
	if (argi >= 0) {
		alx_jw_key(w, "args");
		alx_jw_arr_begin(w);
		alx_jw_obj_begin(w);
		alx_jw_kint(w, "index", argi);
		alx_jw_kint(w, "value", (int64_t)mask);
		alx_jw_kint(w, "valueTwo", (int64_t)mask);
		alx_jw_kstr(w, "op", "SCMP_CMP_MASKED_EQ");
		alx_jw_obj_end(w);
		alx_jw_arr_end(w);
	}
	alx_jw_obj_end(w);
}

int
sandbox_docker_seccomp_json(char **json)
{
	struct alx_jw	w;
	size_t		i, len;
	int		r;

	alx_jw_init(&w, 64 * 1024);
	alx_jw_obj_begin(&w);
	alx_jw_kstr(&w, "defaultAction", "SCMP_ACT_ALLOW");
	alx_jw_key(&w, "architectures");
	alx_jw_arr_begin(&w);
	alx_jw_str(&w, DOCKER_SC_ARCH);
	alx_jw_arr_end(&w);
	alx_jw_key(&w, "syscalls");
	alx_jw_arr_begin(&w);
	alx_jw_obj_begin(&w);
	alx_jw_key(&w, "names");
	alx_jw_arr_begin(&w);
	for (i = 0; docker_sc_deny[i] != NULL; i++)
		alx_jw_str(&w, docker_sc_deny[i]);
	alx_jw_arr_end(&w);
	alx_jw_kstr(&w, "action", "SCMP_ACT_ERRNO");
	alx_jw_kint(&w, "errnoRet", EPERM);
	alx_jw_obj_end(&w);
	/* clone3's flags are in memory: ENOSYS, libc falls back to clone. */
	docker_sc_rule(&w, "clone3", ENOSYS, -1, 0);
	for (i = 0; i < sizeof docker_ns_flags / sizeof docker_ns_flags[0]; i++)
		docker_sc_rule(&w, "clone", EPERM, 0, docker_ns_flags[i]);
	docker_sc_rule(&w, "ioctl", EPERM, 1, 0x5412);	/* TIOCSTI */
	docker_sc_rule(&w, "ioctl", EPERM, 1, 0x541C);	/* TIOCLINUX */
	alx_jw_arr_end(&w);
	alx_jw_obj_end(&w);
	r = alx_jw_finish(&w, json, &len);
	alx_jw_free(&w);
	return r;
}

int
sandbox_docker_setup(const char *image, const char *label)
{
	if (image == NULL || label == NULL ||
	    strlen(image) >= sizeof docker_cfg.image ||
	    strlen(label) >= sizeof docker_cfg.label)
		return ALX_ERR_INVALID;
	if (image != docker_cfg.image)
		snprintf(docker_cfg.image, sizeof docker_cfg.image, "%s", image);
	if (label != docker_cfg.label)
		snprintf(docker_cfg.label, sizeof docker_cfg.label, "%s", label);
	return 0;
}

const char *
runner_docker_image(void)
{
	return docker_cfg.image;
}

const char *
sandbox_docker_label(void)
{
	return docker_cfg.label;
}

static int
docker_client(struct runner_docker **dp)
{
	int	r;

	if (docker_cfg.d == NULL &&
	    (r = runner_docker_open(&docker_cfg.d, NULL)) != 0)
		return r;
	*dp = docker_cfg.d;
	return 0;
}

int
sandbox_docker_cleanup(struct runner_docker *d, size_t *removed)
{
	char	**ids;
	size_t	  n, i;
	int	  r;

	*removed = 0;
	if (docker_cfg.label[0] == '\0')
		return ALX_ERR_INVALID;
	if ((r = runner_docker_list(d, RUNNER_DOCKER_LABEL_RUNNER,
	    docker_cfg.label, &ids, &n)) != 0)
		return r;
	for (i = 0; i < n; i++)
		if (runner_docker_remove(d, ids[i]) == 0)
			(*removed)++;
	runner_docker_ids_free(ids, n);
	return 0;
}

/*
 * verify: what a docker job sees: the mount points apart from the kernel's
 * file systems and what the runtime masks under /proc and /sys (airlox-probe
 * -k leaves those out), and the names in /dev.
 */
int
sandbox_docker_mounts(int net_host, char *buf, size_t len)
{
	/* Docker adds /etc/hosts and /etc/resolv.conf only with a network. */
	if ((size_t)snprintf(buf, len, "/ %s %s /dev /dev/shm /etc/hostname%s "
	    "/out /tmp /work", RUNNER_DOCKER_CTL, RUNNER_DOCKER_SHIM, net_host ?
	    " /etc/hosts /etc/resolv.conf" : "") >= len)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

int
sandbox_docker_devs(char *buf, size_t len)
{
	static const char	text[] = "fd full mqueue null ptmx pts random "
	    "shm stderr stdin stdout tty urandom zero";

	if (len <= sizeof text - 1)
		return ALX_ERR_TOO_LARGE;
	snprintf(buf, len, "%s", text);
	return 0;
}

static void
docker_describe(const struct sandbox_limits *l, const char *image,
    enum sandbox_net net, int as_root, char *buf, size_t len)
{
	sandbox_enf_add(buf, len, "sandbox: docker (image %s; read-only root; "
	    "capabilities none; no-new-privileges; seccomp profile of airlox "
	    "(native ABI only, no io_uring) plus the shim's filter and "
	    "Landlock)", image[0] != '\0' ? image : "unset");
	sandbox_enf_add(buf, len, "uid: %s", as_root ?
	    "unprivileged host uid from the runner's range" :
	    "the runner's own uid");
	if (net == SANDBOX_NET_PROXY)
		sandbox_enf_add(buf, len, "network: allow list through the "
		    "runner's egress proxy (loopback only, no route; "
		    "127.0.0.1:%d)", SANDBOX_EGRESS_PORT);
	else
		sandbox_enf_add(buf, len, "network: %s", net ==
		    SANDBOX_NET_HOST ? "full (the host's network, runner "
		    "started with --network)" : "none (loopback only)");
	sandbox_enf_add(buf, len, "wall clock: %lld ms, container killed and "
	    "removed", (long long)l->wall_ms);
	sandbox_enf_add(buf, len, "memory: %llu MiB, swap none (container "
	    "cgroup)", (unsigned long long)(l->mem_bytes >> 20));
	sandbox_enf_add(buf, len, "pids: %u (container cgroup)", l->pids);
	sandbox_enf_add(buf, len, "disk: workspace+out %llu MiB, %llu files, "
	    "measured every 200 ms; RLIMIT_FSIZE %llu MiB",
	    (unsigned long long)(l->disk_bytes >> 20),
	    (unsigned long long)l->disk_inodes,
	    (unsigned long long)(l->fsize_bytes >> 20));
	sandbox_enf_add(buf, len, "tmp: /tmp and /dev/shm tmpfs %llu MiB each",
	    (unsigned long long)(l->tmp_bytes >> 20));
	sandbox_enf_add(buf, len, "open files: RLIMIT_NOFILE %u; core dumps "
	    "off", l->nofile);
}

static int
docker_enforced(const struct sandbox_limits *l, char *buf, size_t len)
{
	docker_describe(l, docker_cfg.image, SANDBOX_NET_NONE,
	    geteuid() == 0, buf, len);
	return 0;
}

static struct docker_ctr *
docker_ctr_find(struct sandbox_job *job)
{
	return job->be_priv;
}

static void
docker_ctr_drop(struct sandbox_job *job, struct docker_ctr *ctr)
{
	job->be_priv = NULL;
	free(ctr);
}

static void
docker_mount(struct alx_jw *w, const char *src, const char *dst, int ro)
{
	alx_jw_obj_begin(w);
	alx_jw_kstr(w, "Type", "bind");
	alx_jw_kstr(w, "Source", src);
	alx_jw_kstr(w, "Target", dst);
	alx_jw_kbool(w, "ReadOnly", ro);
	alx_jw_obj_end(w);
}

static void
docker_ulimit(struct alx_jw *w, const char *name, uint64_t v)
{
	alx_jw_obj_begin(w);
	alx_jw_kstr(w, "Name", name);
	alx_jw_kint(w, "Soft", (int64_t)v);
	alx_jw_kint(w, "Hard", (int64_t)v);
	alx_jw_obj_end(w);
}

static void
docker_body_host(struct alx_jw *w, struct sandbox_job *job,
    const char *ctl, const char *secopt)
{
	char	tmp[160];

	alx_jw_key(w, "HostConfig");
	alx_jw_obj_begin(w);
	alx_jw_kstr(w, "NetworkMode", job->net == SANDBOX_NET_HOST ? "host" :
	    "none");
	alx_jw_kbool(w, "ReadonlyRootfs", 1);
	alx_jw_key(w, "CapDrop");
	alx_jw_arr_begin(w);
	alx_jw_str(w, "ALL");
	alx_jw_arr_end(w);
	alx_jw_key(w, "SecurityOpt");
	alx_jw_arr_begin(w);
	alx_jw_str(w, "no-new-privileges");
	alx_jw_str(w, secopt);
	alx_jw_arr_end(w);
	alx_jw_kint(w, "PidsLimit", job->lim.pids);
	alx_jw_kint(w, "Memory", (int64_t)job->lim.mem_bytes);
	alx_jw_kint(w, "MemorySwap", (int64_t)job->lim.mem_bytes);
	alx_jw_kstr(w, "IpcMode", "private");
	alx_jw_key(w, "Tmpfs");
	alx_jw_obj_begin(w);
	snprintf(tmp, sizeof tmp, "rw,nosuid,nodev,size=%llu,mode=1777",
	    (unsigned long long)job->lim.tmp_bytes);
	alx_jw_kstr(w, "/tmp", tmp);
	snprintf(tmp, sizeof tmp, "rw,nosuid,nodev,noexec,size=%llu,"
	    "mode=1777", (unsigned long long)job->lim.tmp_bytes);
	alx_jw_kstr(w, "/dev/shm", tmp);
	alx_jw_obj_end(w);
	alx_jw_key(w, "Mounts");
	alx_jw_arr_begin(w);
	docker_mount(w, job->workspace, SANDBOX_WORK_DIR, 0);
	docker_mount(w, job->outdir, SANDBOX_OUT_DIR, 0);
	if (job->indir != NULL)
		docker_mount(w, job->indir, SANDBOX_IN_DIR, 1);
	docker_mount(w, job->shim, RUNNER_DOCKER_SHIM, 1);
	docker_mount(w, ctl, RUNNER_DOCKER_CTL, 0);
	alx_jw_arr_end(w);
	alx_jw_key(w, "Ulimits");
	alx_jw_arr_begin(w);
	docker_ulimit(w, "nofile", job->lim.nofile);
	docker_ulimit(w, "fsize", job->lim.fsize_bytes);
	docker_ulimit(w, "core", 0);
	alx_jw_arr_end(w);
	alx_jw_key(w, "LogConfig");
	alx_jw_obj_begin(w);
	alx_jw_kstr(w, "Type", "none");
	alx_jw_obj_end(w);
	alx_jw_obj_end(w);
}

/* The create body. */
static int
docker_body(struct sandbox_job *job, const char *ctl, const char *secopt,
    char **body)
{
	struct alx_jw	 w;
	char		 user[64];
	size_t		 i, len;
	int		 r;

	alx_jw_init(&w, 512 * 1024);
	alx_jw_obj_begin(&w);
	alx_jw_kstr(&w, "Image", docker_cfg.image);
	alx_jw_kstr(&w, "Hostname", "airlox");
	alx_jw_key(&w, "Entrypoint");
	alx_jw_arr_begin(&w);
	alx_jw_str(&w, RUNNER_DOCKER_SHIM);
	alx_jw_str(&w, "--docker");
	alx_jw_str(&w, "--report");
	alx_jw_str(&w, RUNNER_DOCKER_CTL "/report");
	if (job->net == SANDBOX_NET_PROXY) {
		alx_jw_str(&w, "--egress-socket");
		alx_jw_str(&w, RUNNER_DOCKER_CTL "/egress.sock");
		snprintf(user, sizeof user, "%d", SANDBOX_EGRESS_PORT);
		alx_jw_str(&w, "--egress");
		alx_jw_str(&w, user);
	}
	alx_jw_str(&w, "--");
	alx_jw_arr_end(&w);
	alx_jw_key(&w, "Cmd");
	alx_jw_arr_begin(&w);
	for (i = 0; job->argv[i] != NULL; i++)
		alx_jw_str(&w, job->argv[i]);
	alx_jw_arr_end(&w);
	alx_jw_key(&w, "Env");
	alx_jw_arr_begin(&w);
	for (i = 0; job->envp[i] != NULL; i++)
		alx_jw_str(&w, job->envp[i]);
	alx_jw_arr_end(&w);
	snprintf(user, sizeof user, "%u:%u", (unsigned)job->uid,
	    (unsigned)job->gid);
	alx_jw_kstr(&w, "User", user);
	alx_jw_kstr(&w, "WorkingDir", SANDBOX_WORK_DIR);
	alx_jw_kbool(&w, "AttachStdout", 1);
	alx_jw_kbool(&w, "AttachStderr", 1);
	alx_jw_kbool(&w, "AttachStdin", 0);
	alx_jw_kbool(&w, "Tty", 0);
	alx_jw_kbool(&w, "NetworkDisabled", job->net != SANDBOX_NET_HOST);
	alx_jw_key(&w, "Labels");
	alx_jw_obj_begin(&w);
	alx_jw_kstr(&w, RUNNER_DOCKER_LABEL_RUNNER, docker_cfg.label);
	alx_jw_kstr(&w, RUNNER_DOCKER_LABEL_JOB, job->job_id);
	alx_jw_obj_end(&w);
	docker_body_host(&w, job, ctl, secopt);
	alx_jw_obj_end(&w);
	r = alx_jw_finish(&w, body, &len);
	alx_jw_free(&w);
	return r;
}

/* The memory cgroup of a host pid: v1 memory hierarchy, else v2. */
static void
docker_cgroup(struct docker_ctr *ctr, long pid)
{
	char	 path[64], line[PATH_MAX], *c1, *c2, *ctl;
	char	 v2[PATH_MAX] = "";
	FILE	*fp;

	snprintf(path, sizeof path, "/proc/%ld/cgroup", pid);
	if ((fp = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof line, fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((c1 = strchr(line, ':')) == NULL ||
		    (c2 = strchr(c1 + 1, ':')) == NULL || strstr(c2, "..") !=
		    NULL)
			continue;
		*c2++ = '\0';
		ctl = c1 + 1;
		if (*ctl == '\0')
			snprintf(v2, sizeof v2, "%s", c2);
		else if (strcmp(ctl, "memory") == 0 || strncmp(ctl, "memory,",
		    7) == 0 || strstr(ctl, ",memory") != NULL) {
			if ((size_t)snprintf(ctr->mem, sizeof ctr->mem,
			    "/sys/fs/cgroup/memory%s", c2) < sizeof ctr->mem)
				ctr->cgv = 1;
		}
	}
	fclose(fp);
	if (ctr->cgv == 0 && v2[0] != '\0' && (size_t)snprintf(ctr->mem,
	    sizeof ctr->mem, "/sys/fs/cgroup%s", v2) < sizeof ctr->mem)
		ctr->cgv = 2;
}

static int
docker_read_u64(const char *dir, const char *file, const char *key,
    uint64_t *v)
{
	char	 path[PATH_MAX + 64], line[256], k[64];
	unsigned long long n;
	FILE	*fp;
	int	 r = ALX_ERR_NOT_FOUND;

	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >=
	    sizeof path || (fp = fopen(path, "re")) == NULL)
		return ALX_ERR_NOT_FOUND;
	while (r != 0 && fgets(line, sizeof line, fp) != NULL) {
		if (key == NULL && sscanf(line, "%llu", &n) == 1)
			r = 0;
		else if (key != NULL && sscanf(line, "%63s %llu", k, &n) == 2 &&
		    strcmp(k, key) == 0)
			r = 0;
	}
	fclose(fp);
	if (r == 0)
		*v = n;
	return r;
}

/* Sample the peak (the cgroup goes with the container); 1 on an OOM kill. */
static int
docker_cg_sample(struct docker_ctr *ctr)
{
	uint64_t	v = 0;
	int		oom = 0;

	if (ctr->cgv == 1) {
		if (docker_read_u64(ctr->mem, "memory.max_usage_in_bytes", NULL,
		    &v) == 0 && (!ctr->peak_known || v > ctr->peak)) {
			ctr->peak = v;
			ctr->peak_known = 1;
		}
		if (docker_read_u64(ctr->mem, "memory.oom_control", "oom_kill",
		    &v) == 0 && v > 0)
			oom = 1;
	} else if (ctr->cgv == 2) {
		if ((docker_read_u64(ctr->mem, "memory.peak", NULL, &v) == 0 ||
		    docker_read_u64(ctr->mem, "memory.current", NULL, &v) == 0) &&
		    (!ctr->peak_known || v > ctr->peak)) {
			ctr->peak = v;
			ctr->peak_known = 1;
		}
		if (docker_read_u64(ctr->mem, "memory.events", "oom_kill",
		    &v) == 0 && v > 0)
			oom = 1;
	}
	return oom;
}

static void
docker_ready(void *arg)
{
	int	fd = *(int *)arg;

	(void)!write(fd, "a", 1);
	close(fd);
	*(int *)arg = -1;
}

/* One fd passed over a Unix socket (SCM_RIGHTS): 1 byte + the fd. */
static int
docker_fd_recv(int s)
{
	char	byte;
	ssize_t	n;
	int	fd;

	if ((n = fd_recv(s, &byte, 1, 0, &fd)) == -1 && errno == EMSGSIZE)
		return -1;			/* not ours: skipped */
	if (n <= 0)
		return -2;			/* gone: the relay ends */
	return fd;
}

/*
 * Egress (mode allow): the shim inside connects once to the socket in the
 * control folder and sends every accepted TCP connection over it; each is
 * passed on, unread, to the proxy's socket of this job. Only the first
 * connection is taken: the job cannot reach the folder (Landlock).
 */
static void __attribute__((noreturn))
docker_egress_relay(int lfd, int egfd)
{
	int	c, fd, r;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	while ((c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) == -1 &&
	    errno == EINTR)
		;
	close(lfd);
	if (c == -1)
		_exit(1);
	while ((fd = docker_fd_recv(c)) != -2) {
		if (fd < 0)
			continue;
		if ((r = fd_pass(egfd, fd, "c", 1)) != 0 && r != -EINTR &&
		    r != -EAGAIN)
			_exit(0);		/* the proxy is gone */
		close(fd);
	}
	_exit(0);
}

/*
 * The attacher: fds 3, 4 the job's stdout and stderr, 5 the "attached"
 * pipe, and in mode allow 6, 7 the egress listener and the proxy's
 * socket (for the relay child). Exits with the container's exit code
 * (125: the daemon failed).
 */
static void __attribute__((noreturn))
docker_attacher(const char *id, int outfd, int errfd, int readyfd, int lfd,
    int egfd)
{
	struct runner_docker	*d;
	int			 fds[5], i, n = 3, code = 125, r;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	fds[0] = outfd;
	fds[1] = errfd;
	fds[2] = readyfd;
	if (lfd != -1 && egfd != -1) {
		fds[3] = lfd;
		fds[4] = egfd;
		n = 5;
	}
	for (i = 0; i < n; i++)
		if ((fds[i] = fcntl(fds[i], F_DUPFD, 100)) == -1)
			_exit(125);
	for (i = 0; i < n; i++)
		if (dup2(fds[i], 3 + i) == -1)
			_exit(125);
	syscall(SYS_close_range, 3U + (unsigned)n, ~0U, 0U);
	if (n == 5) {
		if ((r = fork()) == 0) {
			close(3);
			close(4);
			close(5);
			docker_egress_relay(6, 7);
		}
		close(6);
		close(7);
		if (r == -1)
			_exit(125);
	}
	readyfd = 5;
	if (runner_docker_open(&d, NULL) != 0)
		_exit(125);
	r = runner_docker_attach(d, id, 3, 4, docker_ready, &readyfd);
	close(3);
	close(4);
	if (r == 0 && runner_docker_wait(d, id, 0, &code) != 0)
		code = 125;
	_exit(code < 0 || code > 255 ? 125 : code);
}

static int
docker_wait_ready(int fd)
{
	struct pollfd	pfd;
	char		b;

	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 30000) != 1 || read(fd, &b, 1) != 1)
		return ALX_ERR_IO;
	return 0;
}

static int
docker_cause_set(char **cause, const char *text)
{
	if (cause != NULL && *cause == NULL && (*cause = strdup(text)) == NULL)
		return ALX_ERR_NOMEM;
	return 0;
}

/*
 * The job's control folder beside its out dir (never inside the
 * workspace), the container's /.airlox-ctl: the shim's report file. Only
 * the shim writes there; the job's Landlock rules do not allow it.
 */
static int
docker_ctl_make(struct sandbox_job *job, struct docker_ctr *ctr)
{
	const char	*slash = strrchr(job->outdir, '/');

	if (slash == NULL || slash == job->outdir ||
	    (size_t)snprintf(ctr->ctl, sizeof ctr->ctl, "%.*s/.docker-ctl",
	    (int)(slash - job->outdir), job->outdir) >= sizeof ctr->ctl) {
		ctr->ctl[0] = '\0';
		return ALX_ERR_BAD_PATH;
	}
	if (mkdir(ctr->ctl, 0700) != 0) {
		ctr->ctl[0] = '\0';
		return ALX_ERR_IO;
	}
	if (job->as_root && chown(ctr->ctl, job->uid, job->gid) != 0)
		return ALX_ERR_IO;
	return 0;
}

/* The shim's report: "peak N" (the cgroup's), then "exit N"/"signal N". */
static void
docker_ctl_read(struct sandbox_job *job, struct docker_ctr *ctr)
{
	char			 path[PATH_MAX + 16], buf[256], *line, *save;
	unsigned long long	 v;
	ssize_t			 n;
	int			 fd;

	if (ctr->ctl[0] == '\0' || (size_t)snprintf(path, sizeof path,
	    "%s/report", ctr->ctl) >= sizeof path ||
	    (fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "peak %llu", &v) == 1) {
			if (!ctr->peak_known || v > ctr->peak)
				ctr->peak = v;
			ctr->peak_known = 1;
		} else if (strncmp(line, "exit ", 5) == 0 ||
		    strncmp(line, "signal ", 7) == 0 ||
		    strncmp(line, "error ", 6) == 0) {
			job->replen = (size_t)snprintf(job->repbuf,
			    sizeof job->repbuf, "%s", line);
			if (job->replen >= sizeof job->repbuf)
				job->replen = sizeof job->repbuf - 1;
		}
	}
}

/* Mode allow: the socket the shim connects to, owned by the job's uid. */
static int
docker_egress_listen(struct sandbox_job *job, struct docker_ctr *ctr)
{
	struct sockaddr_un	sun;
	int			s;

	if (job->egress_fd == -1)
		return ALX_ERR_INVALID;
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if ((size_t)snprintf(sun.sun_path, sizeof sun.sun_path,
	    "%s/egress.sock", ctr->ctl) >= sizeof sun.sun_path)
		return ALX_ERR_BAD_PATH;
	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return ALX_ERR_IO;
	if (bind(s, (struct sockaddr *)&sun, sizeof sun) != 0 ||
	    chmod(sun.sun_path, 0600) != 0 || (job->as_root &&
	    chown(sun.sun_path, job->uid, job->gid) != 0) || listen(s, 1) != 0) {
		close(s);
		return ALX_ERR_IO;
	}
	ctr->egress_lfd = s;
	return 0;
}

/* Create the container and fork its attacher; then start it. */
static int
docker_launch(struct sandbox_job *job, struct docker_ctr *ctr, int outfd,
    int errfd, char **cause)
{
	struct runner_docker		*d;
	struct runner_docker_state	 st;
	char				*sc = NULL, *secopt = NULL, *body = NULL;
	int				 rp[2], r;

	if ((r = docker_client(&d)) != 0)
		return r;
	if ((r = sandbox_docker_seccomp_json(&sc)) != 0)
		return r;
	if (asprintf(&secopt, "seccomp=%s", sc) == -1) {
		free(sc);
		return ALX_ERR_NOMEM;
	}
	free(sc);
	r = docker_body(job, ctr->ctl, secopt, &body);
	free(secopt);
	if (r != 0)
		return r;
	r = runner_docker_create(d, body, ctr->id, cause);
	free(body);
	if (r != 0)
		return r;
	if (pipe2(rp, O_CLOEXEC) != 0)
		return ALX_ERR_IO;
	if ((job->pid = fork()) == 0) {
		close(rp[0]);
		docker_attacher(ctr->id, outfd, errfd, rp[1], ctr->egress_lfd,
		    job->egress_fd);
	}
	close(rp[1]);
	if (ctr->egress_lfd != -1) {
		close(ctr->egress_lfd);		/* the relay has it */
		ctr->egress_lfd = -1;
	}
	if (job->pid < 0) {
		close(rp[0]);
		return ALX_ERR_IO;
	}
	job->pidfd = (int)syscall(SYS_pidfd_open, job->pid, 0);
	r = docker_wait_ready(rp[0]);
	close(rp[0]);
	if (r != 0)
		return docker_cause_set(cause, "docker attach did not answer") ?
		    ALX_ERR_NOMEM : r;
	if ((r = runner_docker_start(d, ctr->id, cause)) != 0)
		return r;
	if (runner_docker_inspect(d, ctr->id, &st) == 0 && st.pid > 0) {
		docker_cgroup(ctr, st.pid);
		docker_cg_sample(ctr);
	}
	return 0;
}

static int
docker_start(struct sandbox_job *job, int outfd, int errfd, char **cause)
{
	struct docker_ctr	*ctr;
	int			 r;

	if (docker_cfg.image[0] == '\0' || docker_cfg.label[0] == '\0')
		return docker_cause_set(cause, "docker sandbox: no image "
		    "(--image)") ? ALX_ERR_NOMEM : ALX_ERR_INVALID;
	if (job->as_root && (sandbox_workspace_own(job->workspace, job->uid,
	    job->gid) != 0 || sandbox_workspace_own(job->outdir, job->uid,
	    job->gid) != 0))
		return ALX_ERR_IO;
	if ((ctr = calloc(1, sizeof *ctr)) == NULL)
		return ALX_ERR_NOMEM;
	ctr->egress_lfd = -1;
	job->be_priv = ctr;
	docker_describe(&job->lim, docker_cfg.image, job->net, job->as_root,
	    job->enforced, sizeof job->enforced);
	if ((r = docker_ctl_make(job, ctr)) == 0 && job->net ==
	    SANDBOX_NET_PROXY)
		r = docker_egress_listen(job, ctr);
	if (r == 0)
		r = docker_launch(job, ctr, outfd, errfd, cause);
	if (ctr->egress_lfd != -1) {
		close(ctr->egress_lfd);
		ctr->egress_lfd = -1;
	}
	if (r != 0) {
		if (ctr->id[0] != '\0' && docker_cfg.d != NULL)
			runner_docker_remove(docker_cfg.d, ctr->id);
		ctr->id[0] = '\0';
		if (job->pid > 0) {
			kill(job->pid, SIGKILL);
			while (waitpid(job->pid, NULL, 0) == -1 &&
			    errno == EINTR)
				;
			job->reaped = 1;
		}
	}
	return r;
}

static void
docker_kill(struct sandbox_job *job, int sig)
{
	struct docker_ctr	*ctr = docker_ctr_find(job);

	if (ctr == NULL || ctr->id[0] == '\0' || job->reaped ||
	    docker_cfg.d == NULL)
		return;
	runner_docker_kill(docker_cfg.d, ctr->id, sig);
}

static int
docker_oom(struct sandbox_job *job)
{
	struct docker_ctr	*ctr = docker_ctr_find(job);

	if (ctr == NULL || job->reaped)
		return 0;
	return docker_cg_sample(ctr);
}

static void
docker_finish(struct sandbox_job *job, struct sandbox_result *res)
{
	struct docker_ctr		*ctr = docker_ctr_find(job);
	struct runner_docker_state	 st;

	if (ctr == NULL)
		return;
	if (ctr->id[0] != '\0' && docker_cfg.d != NULL) {
		if (runner_docker_inspect(docker_cfg.d, ctr->id, &st) == 0 &&
		    st.oom_killed && job->reason == -1)
			job->reason = ALX_JOB_KILLED_OOM;
		runner_docker_remove(docker_cfg.d, ctr->id);
	}
	docker_ctl_read(job, ctr);
	if (ctr->ctl[0] != '\0')
		sandbox_rmtree(AT_FDCWD, ctr->ctl);
	if (job->reason == ALX_JOB_KILLED_OOM)
		res->status = ALX_JOB_KILLED_OOM;
	if (ctr->peak_known) {
		res->peak_mem = ctr->peak;
		res->peak_mem_known = 1;
	}
	docker_ctr_drop(job, ctr);
}

const struct sandbox_backend sandbox_docker_backend = {
	"docker",
	SANDBOX_NETNS | SANDBOX_FIXED_PATHS | SANDBOX_CONTAINER,
	SANDBOX_PY_IMAGE,
	NULL,
	runner_docker_check,
	runner_docker_join,
	sandbox_docker_mounts,
	sandbox_docker_devs,
	docker_enforced,
	docker_start,
	docker_kill,
	docker_oom,
	docker_finish,
};
