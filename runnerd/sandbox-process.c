/*
 * sandbox-process.c: the `process` backend, for trusted code on systems
 * without namespaces: a plain process in its own process group, in the
 * workspace, with the same clean environment, rlimits, timeout and kill
 * rules. As root it runs as the job's unprivileged uid and uses the
 * cgroup limits; it never isolates files or network, and says so.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
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

static unsigned	process_seq;

static void
process_describe(const struct sandbox_limits *l, struct sandbox_cgroup *cg,
    int as_root, char *buf, size_t len)
{
	sandbox_enf_add(buf, len, "sandbox: process: UNSANDBOXED, isolation "
	    "NOT enforced (no namespaces: the job sees the host's files and "
	    "network)");
	sandbox_enf_add(buf, len, "uid: %s", as_root ?
	    "unprivileged host uid from the runner's range" :
	    "the runner's own uid");
	sandbox_enf_add(buf, len, "wall clock: %lld ms, process group killed%s",
	    (long long)l->wall_ms, cg->version != 0 ? " (and the cgroup)" :
	    "; setsid daemons can escape");
	sandbox_cgroup_describe(cg, l, buf, len);
	sandbox_enf_add(buf, len, "disk: workspace+out %llu MiB, %llu files, "
	    "measured every 200 ms; RLIMIT_FSIZE %llu MiB",
	    (unsigned long long)(l->disk_bytes >> 20),
	    (unsigned long long)l->disk_inodes,
	    (unsigned long long)(l->fsize_bytes >> 20));
	sandbox_enf_add(buf, len, "open files: RLIMIT_NOFILE %u; core dumps "
	    "off", l->nofile);
}

static int
process_enforced(const struct sandbox_limits *l, char *buf, size_t len)
{
	struct sandbox_cgroup	cg;
	char			name[64];

	snprintf(name, sizeof name, "airlox-probe-%ld", (long)getpid());
	sandbox_cgroup_create(&cg, name, l);
	process_describe(l, &cg, geteuid() == 0, buf, len);
	sandbox_cgroup_destroy(&cg);
	return 0;
}

static void __attribute__((noreturn))
process_child(struct sandbox_job *job, int outfd, int errfd, int sync,
    int errw)
{
	struct rlimit	rl;
	char		b;
	int		nul, r;

	if (setpgid(0, 0) != 0)
		sandbox_childfail(errw, "setpgid", errno);
	if (read(sync, &b, 1) != 1)
		_exit(127);
	if (chdir(job->workspace) != 0)
		sandbox_childfail(errw, "chdir workspace", errno);
	if ((nul = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1 ||
	    dup2(nul, 0) == -1 || dup2(outfd, 1) == -1 || dup2(errfd, 2) == -1)
		sandbox_childfail(errw, "fds", errno);
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
		sandbox_childfail(errw, "close_range", errno);
	if ((r = sandbox_set_rlimits(&job->lim, job->as_root)) != 0)
		sandbox_childfail(errw, "rlimits", -r);
	if (!job->cg.mem) {
		rl.rlim_cur = rl.rlim_max = job->lim.mem_bytes;
		if (setrlimit(RLIMIT_AS, &rl) != 0)
			sandbox_childfail(errw, "RLIMIT_AS", errno);
	}
	if (job->as_root && (setgroups(0, NULL) != 0 ||
	    setresgid(job->gid, job->gid, job->gid) != 0 ||
	    setresuid(job->uid, job->uid, job->uid) != 0))
		sandbox_childfail(errw, "drop to the job's uid", errno);
	/* After the uid change, which would clear it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
		sandbox_childfail(errw, "pdeathsig", errno);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		sandbox_childfail(errw, "no_new_privs", errno);
	execvpe(job->argv[0], job->argv, job->envp);
	/*
	 * The job's own command could not run: that is its outcome (exit 127
	 * when not found, 126 otherwise, as a shell says), not the sandbox's.
	 */
	r = errno;
	if (strchr(job->argv[0], '/') == NULL)	/* a search of $PATH */
		r = ENOENT;
	dprintf(STDERR_FILENO, "%s: %s\n", job->argv[0], r == ENOENT &&
	    strchr(job->argv[0], '/') == NULL ? "command not found" :
	    strerror(r));
	_exit(r == ENOENT || r == ENOTDIR ? 127 : 126);
}

static int
process_start(struct sandbox_job *job, int outfd, int errfd, char **cause)
{
	char	name[128], msg[300];
	int	sync[2], errp[2], r = 0;
	ssize_t	n;

	snprintf(name, sizeof name, "airlox-%s-%ld-p%u", job->job_id,
	    (long)getpid(), process_seq++);
	sandbox_cgroup_create(&job->cg, name, &job->lim);
	process_describe(&job->lim, &job->cg, job->as_root, job->enforced,
	    sizeof job->enforced);
	if (job->as_root && (sandbox_workspace_own(job->workspace, job->uid,
	    job->gid) != 0 || sandbox_workspace_own(job->outdir, job->uid,
	    job->gid) != 0))
		return ALX_ERR_IO;
	if (pipe2(sync, O_CLOEXEC) != 0)
		return ALX_ERR_IO;
	if (pipe2(errp, O_CLOEXEC) != 0) {
		close(sync[0]);
		close(sync[1]);
		return ALX_ERR_IO;
	}
	if ((job->pid = fork()) == 0) {
		close(sync[1]);
		close(errp[0]);
		process_child(job, outfd, errfd, sync[0], errp[1]);
	}
	close(sync[0]);
	close(errp[1]);
	if (job->pid > 0) {
		(void)setpgid(job->pid, job->pid);
		job->pidfd = (int)syscall(SYS_pidfd_open, job->pid, 0);
		if (job->cg.version != 0)
			r = sandbox_cgroup_attach(&job->cg, job->pid);
		if (r == 0 && write(sync[1], "g", 1) != 1)
			r = ALX_ERR_IO;
	} else
		r = ALX_ERR_IO;
	close(sync[1]);
	if (r == 0 && (n = read(errp[0], msg, sizeof msg - 1)) > 0) {
		msg[n] = '\0';
		if (cause != NULL && asprintf(cause, "process start: %s",
		    msg) < 0)
			*cause = NULL;
		r = ALX_ERR_IO;
	}
	close(errp[0]);
	if (r != 0 && job->pid > 0) {
		kill(-job->pid, SIGKILL);
		kill(job->pid, SIGKILL);
		while (waitpid(job->pid, NULL, 0) == -1 && errno == EINTR)
			;
		job->reaped = 1;
		sandbox_cgroup_destroy(&job->cg);
	}
	return r;
}

static void
process_kill(struct sandbox_job *job, int sig)
{
	if (job->pid <= 0)
		return;
	kill(-job->pid, sig);
	if (!job->reaped)
		kill(job->pid, sig);
	if (sig == SIGKILL)
		sandbox_cgroup_killall(&job->cg);
}

const struct sandbox_backend sandbox_process_backend = {
	"process",
	0,
	SANDBOX_PY_HOST,
	"jobs run as plain processes with rlimits only; use it for trusted "
	    "code",
	NULL,
	NULL,
	NULL,			/* no boundary to prove */
	NULL,
	process_enforced,
	process_start,
	process_kill,
	sandbox_cgroup_job_oom,
	sandbox_cgroup_job_finish,
};
