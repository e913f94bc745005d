/*
 * client-exec.c: running a program for listen --exec and --agent.
 *
 * The program gets its own process group, so that a timeout (--run-timeout)
 * or Ctrl-C reaches everything it started: SIGTERM to the group, SIGKILL
 * after a grace period. Its standard input is /dev/null.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "util/mono.h"
#include "util/log.h"
#include "client.h"

#define EXEC_GRACE_MS	2000
#define EXEC_TICK_MS	20

volatile int	exec_interrupted;

static void
exec_on_signal(int sig)
{
	exec_interrupted = sig;
}

void
exec_signals(void)
{
	struct sigaction	sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = exec_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void
exec_child(char *const *argv, char *const *env)
{
	int	fd;

	setpgid(0, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if ((fd = open("/dev/null", O_RDONLY)) != -1) {
		dup2(fd, STDIN_FILENO);
		if (fd != STDIN_FILENO)
			close(fd);
	}
	for (; env != NULL && *env != NULL; env++)
		putenv(*env);
	execvp(argv[0], argv);
	fprintf(stderr, "airlox: cannot run %s: %s\n", argv[0],
	    strerror(errno));
	_exit(127);
}

/* Stop the group: TERM, then KILL after the grace period; reap pid. */
static void
exec_stop(pid_t pid, int *wstatus)
{
	int64_t	end;

	kill(-pid, SIGTERM);
	end = mono_ms() + EXEC_GRACE_MS;
	while (mono_ms() < end) {
		if (waitpid(pid, wstatus, WNOHANG) == pid) {
			kill(-pid, SIGKILL);
			return;
		}
		usleep(EXEC_TICK_MS * 1000);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, wstatus, 0);
}

int
exec_run(char *const *argv, char *const *env, int64_t timeout_s, int *status)
{
	pid_t	pid;
	int64_t	end;
	int	ws = 0, r = 0;

	*status = -1;
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) == -1)
		return ALX_ERR_IO;
	if (pid == 0)
		exec_child(argv, env);
	setpgid(pid, pid);
	end = timeout_s > 0 ? mono_ms() + timeout_s * 1000 : 0;
	for (;;) {
		if (waitpid(pid, &ws, WNOHANG) == pid)
			break;
		if (exec_interrupted) {
			exec_stop(pid, &ws);
			r = ALX_ERR_IO;
			break;
		}
		if (end != 0 && mono_ms() >= end) {
			log_debug("exec: %s ran over %lld s: stopping its "
			    "process group", argv[0], (long long)timeout_s);
			exec_stop(pid, &ws);
			r = ALX_ERR_EXPIRED;
			break;
		}
		usleep(EXEC_TICK_MS * 1000);
	}
	if (WIFEXITED(ws))
		*status = WEXITSTATUS(ws);
	else if (WIFSIGNALED(ws))
		*status = 128 + WTERMSIG(ws);
	return r;
}
