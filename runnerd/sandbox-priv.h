/*
 * sandbox-priv.h: what the sandbox backends share (not for the daemon).
 */
#ifndef ALX_SANDBOX_PRIV_H
#define ALX_SANDBOX_PRIV_H

#include <limits.h>

#include "sandbox.h"

#ifndef SANDBOX_SHIM_PATH
#define SANDBOX_SHIM_PATH	"/usr/local/libexec/airlox/airlox-shim"
#endif

/* A job's cgroups: v2 (one dir) or v1 (memory and pids hierarchies). */
struct sandbox_cgroup {
	int		 version;	/* 0: none, 1, 2 */
	int		 mem;		/* memory limit applied */
	int		 pids;		/* pids limit applied */
	char		 v2[PATH_MAX];
	char		 v1mem[PATH_MAX];
	char		 v1pids[PATH_MAX];
	char		 why[160];	/* why no memory limit */
	char		 why_pids[160];	/* why no pids limit */
};

struct sandbox_job {
	const struct sandbox_backend	*be;
	char			**argv;
	char			**envp;
	char			 *workspace;
	char			 *outdir;
	char			 *job_id;
	char			 *shim;
	int			  py_fd;	/* local: the venv's detached
						 * mount (spec->py_dir), or -1 */
	char			 *indir;	/* the inputs, or NULL */
	int			  in_fd;	/* local: their detached
						 * mount, or -1 */
	struct sandbox_limits	  lim;
	uid_t			  uid;		/* host uid of the job */
	gid_t			  gid;
	int			  as_root;
	sandbox_output_cb	  cb;
	void			 *cb_arg;
	enum sandbox_net	  net;
	int			  egress_fd;	/* PROXY: our copy, else -1 */

	pid_t			  pid;		/* init / group leader */
	int			  pidfd;
	int			  pipes[2];	/* stdout, stderr read ends */
	int			  report;	/* shim report pipe, or -1 */
	char			  repbuf[256];
	size_t			  replen;

	int64_t			  t0;		/* ms, CLOCK_MONOTONIC */
	int64_t			  t_end;
	int64_t			  deadline;
	int64_t			  kill_at;	/* SIGKILL time after TERM */
	int64_t			  next_check;
	int			  reason;	/* -1 or how it ends: ALX_JOB_* */
	int			  reaped;
	int			  finished;	/* be->finish done */
	int			  wstatus;
	int64_t			  rusage_maxrss; /* bytes */

	char			 *buf[2];
	size_t			  len[2];
	int			  trunc[2];

	struct sandbox_cgroup	  cg;
	char			  enforced[1024];
	void			 *be_priv;	/* the backend's own (docker:
						 * its container), freed by
						 * its finish() */
};

/* sandbox.c */
void	 sandbox_enf_add(char *, size_t, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
int	 sandbox_set_rlimits(const struct sandbox_limits *, int procs_cap);
void	 sandbox_childfail(int fd, const char *what, int err);

/* sandbox-cgroup.c */
int	 sandbox_cgroup_create(struct sandbox_cgroup *, const char *name,
	    const struct sandbox_limits *);
int	 sandbox_cgroup_attach(struct sandbox_cgroup *, pid_t);
int	 sandbox_cgroup_oom(struct sandbox_cgroup *);
int	 sandbox_cgroup_peak(struct sandbox_cgroup *, uint64_t *);
void	 sandbox_cgroup_killall(struct sandbox_cgroup *);
void	 sandbox_cgroup_destroy(struct sandbox_cgroup *);
void	 sandbox_cgroup_describe(struct sandbox_cgroup *,
	    const struct sandbox_limits *, char *, size_t);
int	 sandbox_cgroup_probe(const struct sandbox_limits *, char *, size_t);
/* Backend steps of the backends whose jobs run in a cgroup of ours. */
int	 sandbox_cgroup_job_oom(struct sandbox_job *);
void	 sandbox_cgroup_job_finish(struct sandbox_job *,
	    struct sandbox_result *);

/* sandbox-disk.c */
int	 sandbox_disk_over(const char *const dirs[], uint64_t max_bytes,
	    uint64_t max_inodes);
int	 sandbox_workspace_own(const char *, uid_t, gid_t);

/* sandbox-linux-mount.c */
struct sandbox_mount_ctx {
	int		 workfd;	/* O_PATH of the workspace */
	int		 outfd;		/* O_PATH of the out dir */
	uint64_t	 tmp_bytes;
	uid_t		 uid;		/* inside */
	gid_t		 gid;
	int		 net_host;	/* copy /etc/resolv.conf */
	int		 py_fd;		/* sandbox_mount_py_open() of the
					 * venv, attached at SANDBOX_PY_DIR;
					 * -1 for none */
	int		 in_fd;		/* the same of the inputs, at
					 * SANDBOX_IN_DIR; -1 for none */
#ifdef SANDBOX_TEST_WEAKEN
	const char	*weaken_dir;	/* test builds: a host dir bound in */
#endif
};
int	 sandbox_mount_root(const struct sandbox_mount_ctx *, const char **what);
int	 sandbox_mount_py_open(const char *dir);
int	 sandbox_net_lo_up(void);

#endif /* ALX_SANDBOX_PRIV_H */
