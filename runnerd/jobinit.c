/*
 * jobinit.c: airlox-shim, the init of a job's sandbox.
 *
 *	airlox-shim [--docker [--report FILE] [--egress-socket PATH]]
 *	    [--egress PORT] -- command ...
 *
 * Started by the runner as pid 1 of the job's pid namespace, without
 * capabilities, with no_new_privs, fds 0-2 for the job and fd 3 for its
 * report. It forks the job into its own session, where Landlock and then
 * seccomp are applied before the command is executed with the environment
 * the shim was given. pid 1 then reaps every zombie, forwards SIGTERM,
 * SIGINT, SIGHUP and SIGQUIT to the job's process group, and when the job
 * ends writes "exit N" or "signal N" to fd 3 and exits; its death makes
 * the kernel kill everything left in the namespace.
 *
 * With --docker (the docker sandbox, where the shim is the container's
 * entrypoint as pid 1, started by the container runtime without capabilities
 * and with no_new_privs), there is no report fd: --report FILE (in the
 * job's control folder, which the job's Landlock rules keep it from
 * writing) is opened as fd 3, or /dev/null without it; before its report
 * the shim adds "peak N", the container's memory peak from its cgroup.
 * With --egress-socket PATH, fd 4 is a connection to that Unix socket
 * (the runner's end, which relays what is sent on it to the proxy).
 *
 * With --egress (network mode `allow`), fd 4 is the job's socket to the
 * runner's egress proxy: before the job starts, pid 1 listens on
 * 127.0.0.1:PORT and forks a forwarder (under the same seccomp filter)
 * that hands every accepted connection to the proxy. The job inherits
 * neither fd.
 *
 * Built static and without sanitizers, so it runs in any root file system
 * and under the filter it installs. It prints only to the job's stderr.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

#define SHIM_REPORT_FD	3
#define SHIM_EGRESS_FD	4

#ifdef SANDBOX_TEST_WEAKEN
static unsigned	shim_weaken;	/* test builds only: --weaken */
#else
#define shim_weaken	0U	/* the shipped shim: nothing can be off */
#endif
#define W_RW		0x002
#define W_SECCOMP	0x020
#define W_FDS		0x040
#define W_LANDLOCK	0x200

static int	shim_docker;	/* --docker: the container's init */

static void __attribute__((noreturn))
shim_fail(const char *what, const char *detail)
{
	dprintf(SHIM_REPORT_FD, "error %s: %s\n", what, detail);
	dprintf(STDERR_FILENO, "airlox-shim: %s: %s\n", what, detail);
	_exit(125);
}

/* The job: its own session, Landlock, seccomp last, then exec. */
static void __attribute__((noreturn))
shim_job(char **argv, const sigset_t *oldmask)
{
	char	err[256];
	int	abi, sig;

	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	if (sigprocmask(SIG_SETMASK, oldmask, NULL) != 0)
		shim_fail("sigprocmask", strerror(errno));
	if (setsid() == -1)
		shim_fail("setsid", strerror(errno));
	if (!(shim_weaken & (W_LANDLOCK | W_RW)) &&
	    shim_landlock(&abi, err, sizeof err) < 0)
		shim_fail("landlock", err);
	if (!(shim_weaken & W_SECCOMP) && shim_seccomp(err, sizeof err) != 0)
		shim_fail("seccomp", err);
	if (shim_weaken & W_FDS)
		fcntl(SHIM_REPORT_FD, F_SETFD, 0);
	execvp(argv[0], argv);
	dprintf(STDERR_FILENO, "airlox-shim: %s: %s\n", argv[0],
	    strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/*
 * docker: the container's memory peak, read from inside before the cgroup
 * goes with the container (v2 memory.peak, else v1 max_usage_in_bytes).
 */
static void
shim_docker_peak(void)
{
	static const char *const files[] = {
		"/sys/fs/cgroup/memory.peak",
		"/sys/fs/cgroup/memory/memory.max_usage_in_bytes", NULL
	};
	unsigned long long	v;
	FILE			*fp;
	int			 i, n;

	for (i = 0; files[i] != NULL; i++) {
		if ((fp = fopen(files[i], "re")) == NULL)
			continue;
		n = fscanf(fp, "%llu", &v);
		fclose(fp);
		if (n == 1) {
			dprintf(SHIM_REPORT_FD, "peak %llu\n", v);
			return;
		}
	}
}

static void __attribute__((noreturn))
shim_report(int status)
{
	if (shim_docker)
		shim_docker_peak();
	if (WIFSIGNALED(status)) {
		dprintf(SHIM_REPORT_FD, "signal %d\n", WTERMSIG(status));
		_exit(128 + WTERMSIG(status));
	}
	dprintf(SHIM_REPORT_FD, "exit %d\n", WEXITSTATUS(status));
	_exit(WEXITSTATUS(status));
}

/*
 * The egress forwarder: listen first (the job cannot take the port), then
 * a child with nothing but the listener and the proxy's socket.
 */
static void
shim_egress_start(unsigned port)
{
	char	err[256];
	pid_t	pid;
	int	lfd, nul, sig;

	if ((lfd = shim_egress_listen(port, NULL)) < 0)
		shim_fail("egress listen", strerror(-lfd));
	if ((pid = fork()) == -1)
		shim_fail("fork", strerror(errno));
	if (pid == 0) {
		for (sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		if ((nul = open("/dev/null", O_RDWR | O_CLOEXEC)) != -1) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
		}
		close(SHIM_REPORT_FD);
		setsid();
		if (!(shim_weaken & W_SECCOMP) &&
		    shim_seccomp(err, sizeof err) != 0)
			_exit(125);
		shim_egress_forward(lfd, SHIM_EGRESS_FD);
		_exit(0);
	}
	close(lfd);
	close(SHIM_EGRESS_FD);
}

/*
 * docker: the proxy's socket cannot be passed into a container; the
 * runner listens on a socket in the job's control folder, and the
 * connection made here is fd 4, as in the local sandbox.
 */
static void
shim_egress_connect(const char *path)
{
	struct sockaddr_un	sun;
	int			s;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path)
		shim_fail("egress socket", "path too long");
	memcpy(sun.sun_path, path, strlen(path));
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(s, (struct sockaddr *)&sun, sizeof sun) == -1)
		shim_fail("egress socket", strerror(errno));
	if (s != SHIM_EGRESS_FD && (dup2(s, SHIM_EGRESS_FD) == -1 ||
	    close(s) == -1))
		shim_fail("egress socket", strerror(errno));
}

/* Options before "--"; returns the index of the command. */
static int
shim_options(int argc, char **argv, unsigned *egress, int *docker,
    const char **report, const char **egsock)
{
	int	i;

	*egress = 0;
	*docker = 0;
	*report = NULL;
	*egsock = NULL;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return i + 1 < argc ? i + 1 : -1;
		if (strcmp(argv[i], "--docker") == 0)
			*docker = 1;
		else if (strcmp(argv[i], "--report") == 0 && i + 1 < argc)
			*report = argv[++i];
		else if (strcmp(argv[i], "--egress-socket") == 0 &&
		    i + 1 < argc)
			*egsock = argv[++i];
		else if (strcmp(argv[i], "--egress") == 0 && i + 1 < argc)
			*egress = (unsigned)strtoul(argv[++i], NULL, 10);
#ifdef SANDBOX_TEST_WEAKEN
		else if (strcmp(argv[i], "--weaken") == 0 && i + 1 < argc)
			shim_weaken = (unsigned)strtoul(argv[++i], NULL, 10);
#endif
		else
			return -1;
	}
	return -1;
}

int
main(int argc, char **argv)
{
	sigset_t	set, old;
	siginfo_t	si;
	pid_t		job, p;
	const char	*report, *egsock;
	unsigned	egress;
	int		status, cmd, docker, nul;

	if ((cmd = shim_options(argc, argv, &egress, &docker, &report,
	    &egsock)) >= 0 &&
	    docker && fcntl(SHIM_REPORT_FD, F_GETFD) == -1) {
		/* docker: the report goes to a file, or nowhere. */
		shim_docker = 1;
		if ((nul = open(report != NULL ? report : "/dev/null",
		    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600)) == -1 ||
		    (nul != SHIM_REPORT_FD && (dup2(nul, SHIM_REPORT_FD) == -1 ||
		    close(nul) == -1))) {
			dprintf(STDERR_FILENO, "airlox-shim: report: %s\n",
			    strerror(errno));
			return 125;
		}
	}
	/* docker adds HOSTNAME; the job gets the environment it was given. */
	if (docker)
		unsetenv("HOSTNAME");
	if (cmd >= 0 && docker && egsock != NULL)
		shim_egress_connect(egsock);
	if (cmd < 0 ||
	    (egress != 0 && (egress > 65535 || fcntl(SHIM_EGRESS_FD, F_GETFD) ==
	    -1))) {
		dprintf(STDERR_FILENO, "usage: airlox-shim [--docker [--report "
		    "FILE] [--egress-socket PATH]] [--egress PORT] -- command "
		    "[arg ...]\n");
		return 125;
	}
	if (fcntl(SHIM_REPORT_FD, F_SETFD, FD_CLOEXEC) == -1)
		shim_fail("report fd", strerror(errno));
	/* Nobody inside may open our fds or read our memory. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		shim_fail("dumpable", strerror(errno));
	if (getpid() != 1 && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
		shim_fail("subreaper", strerror(errno));
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	if (sigprocmask(SIG_BLOCK, &set, &old) != 0)
		shim_fail("sigprocmask", strerror(errno));
	if (egress != 0)
		shim_egress_start(egress);
	if ((job = fork()) == -1)
		shim_fail("fork", strerror(errno));
	if (job == 0)
		shim_job(argv + cmd, &old);
	for (;;) {
		if (sigwaitinfo(&set, &si) == -1)
			continue;
		if (si.si_signo != SIGCHLD) {
			if (kill(-job, si.si_signo) == -1)
				kill(job, si.si_signo);	/* before setsid */
			continue;
		}
		while ((p = waitpid(-1, &status, WNOHANG)) > 0)
			if (p == job)
				shim_report(status);
	}
}
