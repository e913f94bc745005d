/*
 * sandbox.h: how airlox-runnerd runs one job, whatever the backend.
 *
 * OpenSSH-style backends: one file each, behind a small table of functions
 * (struct sandbox_backend). The common part (sandbox.c) builds the job's
 * clean environment, captures stdout and stderr through pipes with caps,
 * enforces the wall-clock timeout, the disk quota and cancellation, and
 * collects the outcome. A backend only starts the process tree, kills it,
 * checks its kernel-side limits (the OOM killer) and cleans up.
 *
 *	local	 Linux namespaces + pivot_root + cgroup + Landlock + seccomp,
 *		 with our own static init (airlox-shim) as pid 1 of the job.
 *	process	 a plain process group with rlimits, for trusted code on
 *		 systems without namespaces; its enforced text says so.
 *	docker	 a fresh container per job through the Docker Engine API,
 *		 airlox-shim as its init (sandbox-docker.c).
 *
 * Use:
 *	be = sandbox_find(name);
 *	sandbox_start(be, &spec, &job, &cause);	  (cause: malloc'd text)
 *	while ((r = sandbox_step(job, 100)) == 0)   (or sandbox_wait())
 *		... maybe sandbox_cancel(job) ...
 *	sandbox_result(job, &res);  ...  sandbox_result_free(&res);
 *	sandbox_free(job);
 *
 * Library-style: functions return 0 or a negative ALX_ERR_* code; nothing
 * here prints or exits. No switch that weakens the sandbox exists here.
 */
#ifndef ALX_SANDBOX_H
#define ALX_SANDBOX_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

/* Fixed paths inside the local sandbox (also the job's environment). */
#define SANDBOX_WORK_DIR	"/work"
#define SANDBOX_OUT_DIR		"/out"
#define SANDBOX_IN_DIR		"/in"	/* the job's inputs, read-only */

/*
 * The job's network (docs/sandbox.md, rule R1):
 *	NONE	a network namespace with loopback only (the default);
 *	PROXY	the same, plus airlox-shim listening on 127.0.0.1:
 *		SANDBOX_EGRESS_PORT and handing each connection to the
 *		runner's egress proxy over egress_fd; HTTP_PROXY, HTTPS_PROXY
 *		and ALL_PROXY (and lower case) point there, NO_PROXY empty;
 *	HOST	no network namespace: the host's network (mode `full`, only
 *		with the runner's --network), /etc/resolv.conf copied in.
 * The process backend never isolates the network (its enforced text
 * says so); it sets no proxy.
 */
enum sandbox_net {
	SANDBOX_NET_NONE = 0,
	SANDBOX_NET_PROXY,
	SANDBOX_NET_HOST
};
#define SANDBOX_EGRESS_PORT	3128
#define SANDBOX_EGRESS_FD	4	/* in airlox-shim */

/* Limits of one job; 0 means "the default" (see sandbox_limits_default). */
struct sandbox_limits {
	int64_t		 wall_ms;	/* wall-clock timeout */
	uint64_t	 mem_bytes;	/* memory (cgroup; swap included) */
	uint32_t	 pids;		/* tasks in the job (cgroup pids) */
	uint64_t	 fsize_bytes;	/* RLIMIT_FSIZE */
	uint32_t	 nofile;	/* RLIMIT_NOFILE */
	uint64_t	 disk_bytes;	/* workspace + out dir quota */
	uint64_t	 disk_inodes;	/* files in workspace + out dir */
	uint64_t	 tmp_bytes;	/* size of the /tmp and /dev/shm tmpfs */
	size_t		 out_cap;	/* bytes kept of stdout, and of stderr */
	int64_t		 grace_ms;	/* SIGTERM -> SIGKILL on cancel */
};

/* Called with output as it arrives (progress streaming); may be NULL. */
typedef void (*sandbox_output_cb)(void *arg, int fd, const char *, size_t);

struct sandbox_spec {
	const char *const	*argv;		/* argv[0]: absolute or in PATH */
	const char		*workspace;	/* host dir, becomes /work */
	const char		*outdir;	/* host dir, becomes /out */
	const char		*job_id;	/* AIRLOX_JOB: alx_job_id_valid() */
	/*
	 * Names copied from the runner's environment when set (LANG, TZ,
	 * LC_* ...). A name on the credentials deny list is never passed.
	 */
	const char *const	*env_allow;
	struct sandbox_limits	 limits;
	/*
	 * local: the static airlox-shim binary (pid 1 of the job). NULL: the
	 * installed one (SANDBOX_SHIM_PATH).
	 */
	const char		*shim_path;
	/*
	 * local, as root: the host uid/gid the job runs as (from the range
	 * the runner owns, one per slot); 0 picks SANDBOX_UID_BASE. Ignored
	 * when not root (the runner's own uid is mapped).
	 */
	uid_t			 host_uid;
	gid_t			 host_gid;
	sandbox_output_cb	 output_cb;
	void			*output_arg;
	enum sandbox_net	 net;
	int			 egress_fd;	/* PROXY: the job's socket
						 * (runner_egress_job); the
						 * sandbox keeps a copy */
	/*
	 * local: a host dir (the session's Python venv) bound read-only,
	 * nosuid, nodev at SANDBOX_PY_DIR; NULL or "" for none. The other
	 * backends ignore it (process: the job uses the venv's own path).
	 */
	const char		*py_dir;
	/*
	 * The files sent with the job (airlox run --input): a host dir the
	 * job reads at $AIRLOX_IN, SANDBOX_IN_DIR where paths are fixed
	 * (bound read-only, nosuid, nodev); NULL for none.
	 */
	const char		*indir;
};

#define SANDBOX_UID_BASE	((uid_t)2000000000u)
#define SANDBOX_UID_SLOTS	64	/* BASE + slot; --concurrency max */
#define SANDBOX_JOB_UID		1000	/* the job's uid and gid inside */

/*
 * How a job ended is the protocol's status (libairlox's ALX_JOB_*,
 * alx_job_status_name()): completed (it ended by itself), timeout,
 * killed_oom, killed_disk (workspace quota), cancelled; interrupted is the
 * runner's (a restart), never the sandbox's.
 */
struct sandbox_result {
	int			 status;	/* ALX_JOB_* */
	int			 exited;	/* 1: exit_code valid */
	int			 exit_code;
	int			 signo;		/* killing signal, else 0 */
	int64_t			 duration_ms;
	uint64_t		 peak_mem;	/* bytes */
	int			 peak_mem_known;
	char			*out;		/* stdout, NUL-terminated */
	size_t			 out_len;
	int			 out_truncated;
	char			*err;		/* stderr, NUL-terminated */
	size_t			 err_len;
	int			 err_truncated;
	/* How each limit was enforced: no host path, one line per item. */
	char			 enforced[1024];
};

struct sandbox_job;

/*
 * Where a session's Python runtime comes from with a backend: HOST, a venv
 * the runner makes on the host, which the job uses at its own path; BIND,
 * the same venv bound read-only, nosuid, nodev at SANDBOX_PY_DIR; IMAGE,
 * the job image's own python3, or a job image built once per package
 * allowlist (runner_docker_pyenv()).
 */
enum sandbox_py {
	SANDBOX_PY_HOST = 0,
	SANDBOX_PY_BIND,
	SANDBOX_PY_IMAGE
};

/*
 * One backend: OpenSSH's pattern, a few functions per file. Everything
 * that differs between backends is a field or a function here; no code
 * outside a backend's own files asks which backend is in use (the name is
 * for messages, reports and --sandbox only).
 */
struct sandbox_backend {
	const char	*name;		/* --sandbox NAME */
	int		 flags;
/* The job has a network namespace of its own: none, or the egress proxy. */
#define SANDBOX_NETNS		0x1
/* The job sees its workspace at /work and its out dir at /out. */
#define SANDBOX_FIXED_PATHS	0x2
/* A container runtime's layout: a read-only root, the runtime's mounts. */
#define SANDBOX_CONTAINER	0x4
	enum sandbox_py	 py;
	/* Said once at start when the runner uses this backend; or NULL. */
	const char	*warning;
	/*
	 * At start, before the state dir: check what the backend needs
	 * (image: --image, may be NULL); *cause says what is missing. NULL:
	 * nothing to check.
	 */
	int		(*setup)(const char *image, char **cause);
	/*
	 * Once joined: jobs are labelled with label (this runner's key);
	 * python: the session allows Python jobs. What it did is told to
	 * say(arg, line) as it goes. NULL: nothing to do.
	 */
	int		(*join)(const char *label, int python,
			    void (*say)(void *, const char *), void *arg,
			    char **cause);
	/*
	 * verify: the mount points (net_host: the job has the host's
	 * network) and the /dev names a job sees, sorted, one space apart.
	 * NULL: the backend has no boundary to prove.
	 */
	int		(*mounts)(int net_host, char *buf, size_t len);
	int		(*devs)(char *buf, size_t len);
	/* Text of what would be enforced for these limits, without a job. */
	int		(*enforced)(const struct sandbox_limits *, char *,
			    size_t);
	/* Start the tree; fds 1 and 2 of the job are the given pipes. */
	int		(*start)(struct sandbox_job *, int outfd, int errfd,
			    char **cause);
	/* Kill: sig SIGTERM (graceful, to the job) or SIGKILL (all). */
	void		(*kill)(struct sandbox_job *, int sig);
	/* Periodic: 1 when the kernel OOM-killed a task of the job. */
	int		(*oom)(struct sandbox_job *);
	/* After the tree is gone: peak memory, then remove cgroups. */
	void		(*finish)(struct sandbox_job *, struct sandbox_result *);
};

extern const struct sandbox_backend sandbox_linux_backend;
extern const struct sandbox_backend sandbox_process_backend;
/* docker: its settings and API client are in runner-docker.h. */
extern const struct sandbox_backend sandbox_docker_backend;

/*
 * The backends, in the order --help lists them, the default first;
 * NULL-terminated.
 */
extern const struct sandbox_backend *const sandbox_backends[];
/*
 * A backend by its name; NULL for another name. The names, in this order,
 * are also those of common/util/runopt.c, which the client reads.
 */
const struct sandbox_backend *sandbox_find(const char *name);
void		 sandbox_limits_default(struct sandbox_limits *);
/* Fill zero fields of a limits struct with the defaults. */
void		 sandbox_limits_fill(struct sandbox_limits *);
/*
 * What this machine enforces for these limits with this backend, as
 * text for a result's env; returns the number of limits NOT enforced
 * (0: all enforced), so a runner can refuse or warn.
 */
int		 sandbox_enforced(const struct sandbox_backend *,
		    const struct sandbox_limits *, char *, size_t);
/* 1 when a variable name is on the known-credentials deny list. */
int		 sandbox_env_denied(const char *name);
/*
 * Rule R3 at start: the names of an operator's allow list that are on the
 * deny list (never passed), comma-separated into buf; returns how many.
 */
int		 sandbox_env_allow_denied(const char *const *allow, char *buf,
		    size_t len);
/*
 * local: the mount points the sandbox makes on this host, and the names
 * in its /dev, each sorted and separated by one space (what verify
 * compares /proc/self/mountinfo and /dev with; the backend's mounts and
 * devs).
 */
int		 sandbox_linux_mounts(char *buf, size_t len);
int		 sandbox_linux_devs(char *buf, size_t len);

#ifdef SANDBOX_TEST_WEAKEN
/*
 * Test builds only (-DSANDBOX_TEST_WEAKEN, tests/runnerd/verify-weak):
 * switch one protection off to show that the probe guarding it fails.
 * Never compiled into the shipped programs.
 */
#define SANDBOX_WEAKEN_NETNS	0x001	/* no network namespace */
#define SANDBOX_WEAKEN_RW	0x002	/* root and /dev writable, no Landlock */
#define SANDBOX_WEAKEN_MOUNTS	0x004	/* an extra bind: sandbox_test_weaken_dir */
#define SANDBOX_WEAKEN_DEVS	0x008	/* an extra node in /dev */
#define SANDBOX_WEAKEN_CAPS	0x010	/* bounding set kept */
#define SANDBOX_WEAKEN_SECCOMP	0x020	/* no seccomp, no no_new_privs */
#define SANDBOX_WEAKEN_FDS	0x040	/* fd 3 leaks into the job */
#define SANDBOX_WEAKEN_ENV	0x080	/* the runner's whole environment */
#define SANDBOX_WEAKEN_PROXY	0x100	/* the proxy allows any name/address */
#define SANDBOX_WEAKEN_LANDLOCK	0x200	/* no Landlock */
extern unsigned		 sandbox_test_weaken;
extern const char	*sandbox_test_weaken_dir;
#endif

int		 sandbox_start(const struct sandbox_backend *,
		    const struct sandbox_spec *, struct sandbox_job **,
		    char **cause);
/* Run the job for up to timeout_ms: 1 when finished, 0 still running. */
int		 sandbox_step(struct sandbox_job *, int timeout_ms);
/* Ask the job to stop: SIGTERM to the tree, SIGKILL after grace_ms. */
void		 sandbox_cancel(struct sandbox_job *);
/* Step until finished and fill res (owned by the caller). */
int		 sandbox_wait(struct sandbox_job *, struct sandbox_result *);
/* After sandbox_step() returned 1: move the outcome to res. */
int		 sandbox_result(struct sandbox_job *, struct sandbox_result *);
void		 sandbox_result_free(struct sandbox_result *);
/* Kills what is left (SIGKILL) and releases everything. */
void		 sandbox_free(struct sandbox_job *);
/* File descriptors to watch in an event loop (pipes, pidfd); -1 unused. */
int		 sandbox_fds(struct sandbox_job *, int fds[4]);

/* Remove a tree the runner made; never follows a symlink out of it. */
void		 sandbox_rmtree(int parentfd, const char *name);

#endif /* ALX_SANDBOX_H */
