/*
 * runner-pyrun.c: how the runner runs the interpreter and pip:
 * argv[0] absolute, a clean environment (a fixed PATH, HOME the cache
 * folder, pip's configuration files off, no user site; the proxy variables
 * passed for --package-index), the cache folder as working folder (never a
 * workspace), stdin from /dev/null, its own process group, killed with
 * the group at the time limit; the tail of what it prints is kept for
 * the log and for a refusal's reason.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "util/mono.h"
#include "runner-python.h"

#define PY_OUT_MAX	(64 * 1024)	/* bytes kept of a tool's output */
#define PY_PATH		"/usr/local/bin:/usr/bin:/bin"

static void __attribute__((noreturn))
py_child(const char *const *argv, const char *cwd, int outfd)
{
	static const char *const pass[] = { "http_proxy", "https_proxy",
	    "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", NULL };
	char	*envp[32], home[PATH_MAX + 8], *v;
	size_t	 n = 0, i;
	int	 nul;

	setpgid(0, 0);
	umask(022);
	if (chdir(cwd) != 0 ||
	    (nul = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1 ||
	    dup2(nul, 0) == -1 || dup2(outfd, 1) == -1 || dup2(outfd, 2) == -1)
		_exit(126);
	syscall(SYS_close_range, 3U, ~0U, 0U);
	snprintf(home, sizeof(home), "HOME=%s", cwd);
	envp[n++] = (char *)"PATH=" PY_PATH;
	envp[n++] = home;
	envp[n++] = (char *)"LANG=C.UTF-8";
	envp[n++] = (char *)"PIP_CONFIG_FILE=/dev/null";
	envp[n++] = (char *)"PIP_NO_INPUT=1";
	envp[n++] = (char *)"PYTHONNOUSERSITE=1";
	envp[n++] = (char *)"PYTHONDONTWRITEBYTECODE=1";
	for (i = 0; pass[i] != NULL; i++) {
		char	*e;

		if ((v = getenv(pass[i])) == NULL || asprintf(&e, "%s=%s",
		    pass[i], v) == -1)
			continue;
		envp[n++] = e;
	}
	envp[n] = NULL;
	execve(argv[0], (char *const *)argv, envp);
	dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Keep the last PY_OUT_MAX bytes of what the tool prints (n < PY_OUT_MAX). */
static void
py_keep(char *buf, size_t *len, const char *in, size_t n)
{
	if (*len + n > PY_OUT_MAX) {
		memmove(buf, buf + (*len + n - PY_OUT_MAX), PY_OUT_MAX - n);
		*len = PY_OUT_MAX - n;
	}
	memcpy(buf + *len, in, n);
	*len += n;
}

/*
 * Run argv (argv[0] absolute) in cwd for at most timeout_s: ALX_OK when it
 * exited 0, ALX_ERR_IO otherwise (*out: its output, NUL-terminated, always
 * set on return unless NOMEM; *timed_out when it was killed for time).
 */
int
runner_py_run(const char *const *argv, const char *cwd, int timeout_s, char **out,
    int *timed_out)
{
	struct pollfd	 pfd;
	char		 rd[8192], *buf;
	size_t		 len = 0;
	ssize_t		 n;
	int64_t		 deadline = mono_ms() + (int64_t)timeout_s * 1000;
	int		 p[2], status = 0, left;
	pid_t		 pid;

	*out = NULL;
	*timed_out = 0;
	if ((buf = malloc(PY_OUT_MAX + 1)) == NULL)
		return ALX_ERR_NOMEM;
	if (pipe2(p, O_CLOEXEC) == -1) {
		free(buf);
		return ALX_ERR_IO;
	}
	if ((pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		free(buf);
		return ALX_ERR_IO;
	}
	if (pid == 0)
		py_child(argv, cwd, p[1]);
	close(p[1]);
	setpgid(pid, pid);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		left = (int)(deadline - mono_ms());
		if (left <= 0) {
			*timed_out = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			break;
		}
		if (poll(&pfd, 1, left) == -1 && errno != EINTR)
			break;
		if ((pfd.revents & (POLLIN | POLLHUP | POLLERR)) == 0)
			continue;
		if ((n = read(p[0], rd, sizeof(rd))) == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		py_keep(buf, &len, rd, (size_t)n);
	}
	close(p[0]);
	/* What it left in its group goes with it. */
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	buf[len] = '\0';
	*out = buf;
	if (*timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return ALX_ERR_IO;
	return ALX_OK;
}

/* The last line of a tool's output that says something, for a reason. */
void
runner_py_last_line(const char *out, char *line, size_t len)
{
	const char	*end = out + strlen(out), *s, *e, *best = NULL;
	size_t		 n, bestn = 0;

	/* pip's error lines start "ERROR:"; else the last non-empty one. */
	for (e = end; e > out; e = s) {
		for (s = e; s > out && s[-1] != '\n'; s--)
			;
		n = (size_t)(e - s);
		while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' ||
		    s[n - 1] == ' '))
			n--;
		if (n > 0 && best == NULL) {
			best = s;
			bestn = n;
		}
		if (n > 6 && strncmp(s, "ERROR:", 6) == 0) {
			best = s;
			bestn = n;
			break;
		}
		if (s > out)
			s--;
	}
	if (best == NULL) {
		snprintf(line, len, "(no output)");
		return;
	}
	snprintf(line, len, "%.*s", (int)bestn, best);
}
