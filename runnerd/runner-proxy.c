/*
 * runner-proxy.c: the egress proxy of network mode `allow`, as a process
 * (airlox-egress) and as seen from the runner.
 *
 * The runner starts the proxy with a clean environment, its control
 * socket as fd 3 and no other fd, before it loads its keys: the proxy
 * never holds a key, an invite or a job's content. For each job the
 * runner sends the job's id, flags and domain list with one end of a
 * fresh socketpair; the other end goes into the sandbox, where airlox-shim
 * accepts TCP connections on 127.0.0.1 and passes each one here
 * (SCM_RIGHTS). Every connection is served by its own child process
 * (runner-proxy-http.c), at most EGRESS_CONNS_MAX at once per job.
 * As root it runs as its own unprivileged uid (runner_egress_drop()).
 * Refusals go to statedir/egress/denied.log, one JSON line each, at most
 * EGRESS_DENIED_LOG_MAX lines per job (the rest are counted, and the
 * count written when the job ends); the file rotates to denied.log.1.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "runner-egress.h"
#include "runner-proxy.h"
#include "fdpass.h"
#include "sandbox.h"

#define EGRESS_CTL_FD		3
#define EGRESS_MSG_MAX		(72 * 1024)
#define EGRESS_REPLY_MS		3000
#define EGRESS_LINE_MAX		2048

struct runner_egress {
	pid_t	pid;
	int	ctl;
};

struct egress_kid {
	pid_t	pid;
	int	job;
};

struct egress_srv {
	int			 ctl;
	int			 dirfd;
	int			 sigfd;
	struct egress_job	 jobs[EGRESS_JOBS_MAX];
	struct egress_kid	*kids;
	size_t			 nkids;
	size_t			 capkids;
	time_t			 last_rotate;
};

/*
 * denied.log
 */

static void
egress_clean_text(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f ||
		    *s == '"' || *s == '\\')
			*s = '?';
}

static void
egress_log_line(int dirfd, const char *job, const struct egress_denial *d,
    uint64_t silent)
{
	struct alx_jw	 w;
	struct tm	 tm;
	time_t		 now = time(NULL);
	char		 ts[32], host[256], *text = NULL;
	size_t		 len;
	int		 fd;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
	alx_jw_init(&w, EGRESS_LINE_MAX);
	alx_jw_obj_begin(&w);
	alx_jw_kstr(&w, "time", ts);
	alx_jw_kstr(&w, "job", job);
	if (d != NULL) {
		snprintf(host, sizeof host, "%s", d->host);
		egress_clean_text(host);
		alx_jw_kstr(&w, "host", host);
		alx_jw_kint(&w, "port", d->port);
		alx_jw_kstr(&w, "method", d->method);
		alx_jw_kstr(&w, "reason", d->reason);
		if (d->sni[0] != '\0') {
			snprintf(host, sizeof host, "%s", d->sni);
			egress_clean_text(host);
			alx_jw_kstr(&w, "sni", host);
		}
	} else
		alx_jw_kint(&w, "not_logged", (int64_t)silent);
	alx_jw_obj_end(&w);
	if (alx_jw_finish(&w, &text, &len) == 0 && len < EGRESS_LINE_MAX - 1) {
		text[len++] = '\n';
		fd = openat(dirfd, "denied.log", O_WRONLY | O_APPEND | O_CREAT |
		    O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd != -1) {
			(void)!write(fd, text, len);	/* one append */
			close(fd);
		}
	}
	free(text);
	alx_jw_free(&w);
}

static void
egress_rotate(struct egress_srv *srv)
{
	struct stat	st;
	time_t		now = time(NULL);

	if (now == srv->last_rotate)
		return;
	srv->last_rotate = now;
	if (fstatat(srv->dirfd, "denied.log", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_size > EGRESS_LOG_ROTATE)
		renameat(srv->dirfd, "denied.log", srv->dirfd, "denied.log.1");
}

/*
 * The proxy process.
 */

static int
egress_find(struct egress_srv *srv, const char *id)
{
	int	i;

	for (i = 0; i < EGRESS_JOBS_MAX; i++)
		if (srv->jobs[i].used && strcmp(srv->jobs[i].id, id) == 0)
			return i;
	return -1;
}

static void
egress_job_free(struct egress_job *job)
{
	size_t	i;

	for (i = 0; i < job->nallow; i++)
		free(job->allow[i]);
	free(job->allow);
	if (job->sock != -1)
		close(job->sock);
	memset(job, 0, sizeof *job);
	job->sock = -1;
}

/* "add ID FLAGS\nname\nname..." with the job's socket attached. */
static int
egress_add(struct egress_srv *srv, char *msg, int fd)
{
	struct egress_job	*job = NULL;
	char			*line, *save = NULL, id[EGRESS_JOBID_MAX];
	int			 flags, i;

	if (fd == -1 || sscanf(msg, "add %79s %d", id, &flags) != 2 ||
	    !alx_job_id_valid(id) || egress_find(srv, id) != -1)
		return ALX_ERR_INVALID;
	for (i = 0; i < EGRESS_JOBS_MAX && job == NULL; i++)
		if (!srv->jobs[i].used)
			job = &srv->jobs[i];
	if (job == NULL)
		return ALX_ERR_TOO_LARGE;
	memset(job, 0, sizeof *job);
	job->sock = -1;
	snprintf(job->id, sizeof job->id, "%s", id);
	job->flags = flags & EGRESS_HTTP;
	strtok_r(msg, "\n", &save);
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		if (job->nallow >= ALX_NET_ALLOW_MAX ||
		    alx_domain_valid(line) != 0)
			goto bad;
		job->allow = reallocarray(job->allow, job->nallow + 1,
		    sizeof *job->allow);
		if (job->allow == NULL ||
		    (job->allow[job->nallow] = strdup(line)) == NULL)
			goto bad;
		job->nallow++;
	}
	job->sock = fd;
	job->used = 1;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return 0;
bad:
	egress_job_free(job);
	return ALX_ERR_INVALID;
}

static void
egress_reap(struct egress_srv *srv, int block_job)
{
	struct egress_job	*job;
	size_t			 i;
	int			 st;
	pid_t			 p;

	for (i = 0; i < srv->nkids; ) {
		p = waitpid(srv->kids[i].pid, &st,
		    srv->kids[i].job == block_job ? 0 : WNOHANG);
		if (p == 0 || (p == -1 && errno == EINTR)) {
			i++;
			continue;
		}
		job = &srv->jobs[srv->kids[i].job];
		if (p > 0 && job->used) {
			if (job->nconns > 0)
				job->nconns--;
			if (WIFEXITED(st) && WEXITSTATUS(st) ==
			    EGRESS_EXIT_DENIED)
				job->logged++;
			else if (WIFEXITED(st) && WEXITSTATUS(st) ==
			    EGRESS_EXIT_SILENT)
				job->silent++;
		}
		srv->kids[i] = srv->kids[--srv->nkids];
	}
}

/* "end ID": stop its connections, write its summary, reply the count. */
static void
egress_end(struct egress_srv *srv, const char *msg)
{
	char	id[EGRESS_JOBID_MAX], reply[128];
	size_t	i;
	int	j;

	if (sscanf(msg, "end %79s", id) != 1 || (j = egress_find(srv, id)) ==
	    -1) {
		(void)!send(srv->ctl, "end -1", 6, MSG_NOSIGNAL);
		return;
	}
	for (i = 0; i < srv->nkids; i++)
		if (srv->kids[i].job == j)
			kill(srv->kids[i].pid, SIGKILL);
	egress_reap(srv, j);
	if (srv->jobs[j].silent > 0)
		egress_log_line(srv->dirfd, id, NULL, srv->jobs[j].silent);
	snprintf(reply, sizeof reply, "end %llu", (unsigned long long)
	    (srv->jobs[j].logged + srv->jobs[j].silent));
	egress_job_free(&srv->jobs[j]);
	(void)!send(srv->ctl, reply, strlen(reply), MSG_NOSIGNAL);
}

/* Receive one message, NUL-terminated, and at most one fd (fd_recv). */
static ssize_t
egress_recv(int s, char *buf, size_t len, int *fd)
{
	ssize_t	n;

	if ((n = fd_recv(s, buf, len - 1, MSG_DONTWAIT, fd)) >= 0)
		buf[n] = '\0';
	return n;
}

/* A TCP socket of the job's own network namespace, nothing else. */
static int
egress_fd_is_tcp(int fd)
{
	struct stat	st;
	int		v;
	socklen_t	len = sizeof v;

	if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len) != 0 ||
	    v != SOCK_STREAM)
		return 0;
	len = sizeof v;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len) != 0 ||
	    (v != AF_INET && v != AF_INET6))
		return 0;
	return 1;
}

static void __attribute__((noreturn))
egress_kid_main(struct egress_srv *srv, int j, int fd, int log_ok)
{
	struct egress_denial	d;
	sigset_t		set;
	int			i, r;

	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	close(srv->ctl);
	close(srv->sigfd);
	for (i = 0; i < EGRESS_JOBS_MAX; i++)
		if (srv->jobs[i].used && srv->jobs[i].sock != -1)
			close(srv->jobs[i].sock);
	memset(&d, 0, sizeof d);
	r = egress_serve_conn(&srv->jobs[j], fd, &d);
	if (r == EGRESS_EXIT_DENIED && log_ok)
		egress_log_line(srv->dirfd, srv->jobs[j].id, &d, 0);
	else if (r == EGRESS_EXIT_DENIED)
		r = EGRESS_EXIT_SILENT;
	close(fd);
	_exit(r);
}

static void
egress_accept(struct egress_srv *srv, int j, int fd)
{
	struct egress_job	*job = &srv->jobs[j];
	struct egress_denial	 d;
	int			 log_ok;
	pid_t			 pid;

	log_ok = job->logged + job->nconns < EGRESS_DENIED_LOG_MAX;
	if (job->nconns >= EGRESS_CONNS_MAX) {
		static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
		    "Connection: close\r\nContent-Length: 0\r\n\r\n";

		(void)!write(fd, busy, sizeof busy - 1);
		close(fd);
		memset(&d, 0, sizeof d);
		snprintf(d.reason, sizeof d.reason, "too_many_connections");
		if (log_ok) {
			egress_log_line(srv->dirfd, job->id, &d, 0);
			job->logged++;
		} else
			job->silent++;
		return;
	}
	if (srv->nkids == srv->capkids) {
		size_t		 cap = srv->capkids ? srv->capkids * 2 : 64;
		struct egress_kid *k = reallocarray(srv->kids, cap, sizeof *k);

		if (k == NULL) {
			close(fd);
			return;
		}
		srv->kids = k;
		srv->capkids = cap;
	}
	if ((pid = fork()) == -1) {
		close(fd);
		return;
	}
	if (pid == 0)
		egress_kid_main(srv, j, fd, log_ok);
	close(fd);
	srv->kids[srv->nkids].pid = pid;
	srv->kids[srv->nkids++].job = j;
	job->nconns++;
}

static void
egress_job_input(struct egress_srv *srv, int j)
{
	char	buf[8];
	ssize_t	n;
	int	fd, rounds;

	for (rounds = 0; rounds < 64; rounds++) {
		n = egress_recv(srv->jobs[j].sock, buf, sizeof buf, &fd);
		if (n == 0 && fd == -1) {		/* the sandbox is gone */
			close(srv->jobs[j].sock);
			srv->jobs[j].sock = -1;
			return;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return;
			continue;
		}
		if (fd == -1)
			continue;
		if (!egress_fd_is_tcp(fd)) {
			close(fd);
			continue;
		}
		egress_accept(srv, j, fd);
	}
}

/* A message of the runner; 1 when the runner has gone. */
static int
egress_ctl_input(struct egress_srv *srv)
{
	char	*msg;
	ssize_t	 n;
	int	 fd, r;

	if ((msg = malloc(EGRESS_MSG_MAX)) == NULL)
		return 0;
	n = egress_recv(srv->ctl, msg, EGRESS_MSG_MAX, &fd);
	if (n == 0 && fd == -1) {
		free(msg);
		return 1;
	}
	if (n < 0) {
		free(msg);
		return errno == EAGAIN || errno == EINTR ? 0 : 1;
	}
	if (strncmp(msg, "add ", 4) == 0) {
		r = egress_add(srv, msg, fd);
		if (r != 0 && fd != -1)
			close(fd);
		(void)!send(srv->ctl, r == 0 ? "ok" : "err", r == 0 ? 2 : 3,
		    MSG_NOSIGNAL);
	} else {
		if (fd != -1)
			close(fd);
		if (strncmp(msg, "end ", 4) == 0)
			egress_end(srv, msg);
	}
	free(msg);
	return 0;
}

int
runner_egress_drop(const char *statedir, int *logdirfd)
{
	struct stat	st;
	char		logdir[PATH_MAX];
	int		fd;

	*logdirfd = -1;
	if ((size_t)snprintf(logdir, sizeof logdir, "%s/egress", statedir) >=
	    sizeof logdir)
		return ALX_ERR_TOO_LARGE;
	if (mkdir(logdir, 0700) != 0 && errno != EEXIST)
		return ALX_ERR_IO;
	if ((fd = open(logdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return ALX_ERR_BAD_PATH;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return ALX_ERR_IO;
	}
	*logdirfd = fd;
	if (geteuid() == 0) {
		if (fchown(fd, RUNNER_EGRESS_UID, RUNNER_EGRESS_UID) != 0 ||
		    setgroups(0, NULL) != 0 ||
		    setresgid(RUNNER_EGRESS_UID, RUNNER_EGRESS_UID,
		    RUNNER_EGRESS_UID) != 0 ||
		    setresuid(RUNNER_EGRESS_UID, RUNNER_EGRESS_UID,
		    RUNNER_EGRESS_UID) != 0)
			return ALX_ERR_IO;
		/* The uid change cleared it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 ||
		    getppid() == 1)
			return ALX_ERR_IO;
	} else if (st.st_uid != geteuid())
		return ALX_ERR_BAD_PATH;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return ALX_ERR_IO;
	return 0;
}

int
runner_egress_serve(int ctlfd, int logdirfd)
{
	struct egress_srv	*srv;
	struct pollfd		 pfd[EGRESS_JOBS_MAX + 2];
	int			 map[EGRESS_JOBS_MAX + 2];
	sigset_t		 set;
	nfds_t			 n;
	int			 i, done = 0;
	size_t			 k;

	if ((srv = calloc(1, sizeof *srv)) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < EGRESS_JOBS_MAX; i++)
		srv->jobs[i].sock = -1;
	srv->ctl = ctlfd;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	srv->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	srv->dirfd = logdirfd;
	if (srv->sigfd == -1 || srv->dirfd == -1) {
		free(srv);
		return ALX_ERR_IO;
	}
	(void)!send(ctlfd, "ready", 5, MSG_NOSIGNAL);
	while (!done) {
		n = 0;
		pfd[n].fd = srv->ctl;
		pfd[n].events = POLLIN;
		map[n++] = -1;
		pfd[n].fd = srv->sigfd;
		pfd[n].events = POLLIN;
		map[n++] = -2;
		for (i = 0; i < EGRESS_JOBS_MAX; i++)
			if (srv->jobs[i].used && srv->jobs[i].sock != -1) {
				pfd[n].fd = srv->jobs[i].sock;
				pfd[n].events = POLLIN;
				map[n++] = i;
			}
		if (poll(pfd, n, 1000) < 0 && errno != EINTR)
			break;
		for (k = 0; k < n; k++) {
			if (pfd[k].revents == 0)
				continue;
			if (map[k] == -1)
				done = egress_ctl_input(srv);
			else if (map[k] == -2) {
				struct signalfd_siginfo	si;

				while (read(srv->sigfd, &si, sizeof si) > 0)
					;
			} else if (srv->jobs[map[k]].used &&
			    srv->jobs[map[k]].sock != -1)
				egress_job_input(srv, map[k]);
		}
		egress_reap(srv, -1);
		egress_rotate(srv);
	}
	for (k = 0; k < srv->nkids; k++)
		kill(srv->kids[k].pid, SIGKILL);
	while (srv->nkids > 0)
		egress_reap(srv, srv->kids[0].job);
	for (i = 0; i < EGRESS_JOBS_MAX; i++)
		if (srv->jobs[i].used)
			egress_job_free(&srv->jobs[i]);
	free(srv->kids);
	close(srv->dirfd);
	close(srv->sigfd);
	free(srv);
	return 0;
}

/*
 * The runner's side.
 */

static int
egress_wait_reply(int ctl, char *buf, size_t len)
{
	struct pollfd	pfd;
	ssize_t		n;

	pfd.fd = ctl;
	pfd.events = POLLIN;
	for (;;) {
		n = poll(&pfd, 1, EGRESS_REPLY_MS);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return ALX_ERR_IO;
		break;
	}
	if ((n = recv(ctl, buf, len - 1, MSG_DONTWAIT)) <= 0)
		return ALX_ERR_IO;
	buf[n] = '\0';
	return 0;
}

static int
egress_default_path(char *path, size_t len)
{
	char	self[PATH_MAX];
	ssize_t	n;

	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((size_t)snprintf(path, len, "%s/airlox-egress",
		    dirname(self)) < len && access(path, X_OK) == 0)
			return 0;
	}
	if ((size_t)snprintf(path, len, "%s", RUNNER_EGRESS_PATH) >= len)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

static void __attribute__((noreturn))
egress_exec(const char *const *cmd, const char *path, const char *statedir,
    int ctl)
{
	char	*argv[32], *envp[] = { NULL };
	size_t	 n = 0;
	sigset_t set;

	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (dup2(ctl, EGRESS_CTL_FD) == -1)
		_exit(127);
	syscall(SYS_close_range, EGRESS_CTL_FD + 1, ~0U, 0);
	argv[n++] = (char *)path;
	if (cmd != NULL)
		for (cmd++; *cmd != NULL && n < 28; cmd++)
			argv[n++] = (char *)*cmd;
	argv[n++] = (char *)"-s";
	argv[n++] = (char *)statedir;
	argv[n] = NULL;
	execve(path, argv, envp);
	_exit(127);
}

int
runner_egress_start(struct runner_egress **egp, const char *const *cmd,
    const char *statedir, char **cause)
{
	struct runner_egress	*eg;
	char			 path[PATH_MAX], buf[16];
	int			 sv[2], r;

	*egp = NULL;
	if (cause != NULL)
		*cause = NULL;
	if (cmd != NULL && cmd[0] != NULL)
		snprintf(path, sizeof path, "%s", cmd[0]);
	else if ((r = egress_default_path(path, sizeof path)) != 0)
		return r;
	if ((eg = calloc(1, sizeof *eg)) == NULL)
		return ALX_ERR_NOMEM;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		free(eg);
		return ALX_ERR_IO;
	}
	if ((eg->pid = fork()) == -1) {
		close(sv[0]);
		close(sv[1]);
		free(eg);
		return ALX_ERR_IO;
	}
	if (eg->pid == 0)
		egress_exec(cmd, path, statedir, sv[1]);
	close(sv[1]);
	eg->ctl = sv[0];
	if (egress_wait_reply(eg->ctl, buf, sizeof buf) != 0 ||
	    strcmp(buf, "ready") != 0) {
		if (cause != NULL && asprintf(cause, "egress proxy %s did not "
		    "start", path) == -1)
			*cause = NULL;
		runner_egress_stop(eg);
		return ALX_ERR_IO;
	}
	*egp = eg;
	return 0;
}

void
runner_egress_stop(struct runner_egress *eg)
{
	int	i, st;

	if (eg == NULL)
		return;
	close(eg->ctl);
	for (i = 0; i < 50; i++) {
		if (waitpid(eg->pid, &st, WNOHANG) != 0)
			break;
		usleep(20000);
	}
	if (i == 50) {
		kill(eg->pid, SIGKILL);
		waitpid(eg->pid, &st, 0);
	}
	free(eg);
}

int
runner_egress_job(struct runner_egress *eg, const char *job_id,
    char *const *allow, size_t nallow, int flags, int *fd)
{
	struct alx_buf	 msg;
	char		 head[128], reply[16];
	size_t		 i;
	int		 sv[2], r;

	*fd = -1;
	if (eg == NULL || !alx_job_id_valid(job_id) || nallow > ALX_NET_ALLOW_MAX)
		return ALX_ERR_INVALID;
	for (i = 0; i < nallow; i++)
		if (alx_domain_valid(allow[i]) != 0)
			return ALX_ERR_BAD_DOMAIN;
	alx_buf_init(&msg, EGRESS_MSG_MAX - 1);
	snprintf(head, sizeof head, "add %s %d", job_id, flags & EGRESS_HTTP);
	r = alx_buf_add(&msg, head, strlen(head));
	for (i = 0; i < nallow && r == 0; i++) {
		r = alx_buf_add(&msg, "\n", 1);
		if (r == 0)
			r = alx_buf_add(&msg, allow[i], strlen(allow[i]));
	}
	if (r != 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
	    0, sv) != 0) {
		alx_buf_free(&msg);
		return ALX_ERR_IO;
	}
	r = fd_pass(eg->ctl, sv[0], msg.data, msg.len) == 0 ? 0 : ALX_ERR_IO;
	alx_buf_free(&msg);
	close(sv[0]);
	if (r == 0 && (egress_wait_reply(eg->ctl, reply, sizeof reply) != 0 ||
	    strcmp(reply, "ok") != 0))
		r = ALX_ERR_IO;
	if (r != 0) {
		close(sv[1]);
		return r;
	}
	*fd = sv[1];
	return 0;
}

int
runner_egress_net(struct runner_egress *eg, const char *job_id, int net_mode,
    int runner_network, char *const *allow, size_t nallow, int flags,
    int *net, int *fd)
{
	*net = SANDBOX_NET_NONE;
	*fd = -1;
	switch (net_mode) {
	case ALX_NET_NONE:
		return 0;
	case ALX_NET_FULL:
		if (!runner_network)
			return ALX_ERR_NOT_ALLOWED;
		*net = SANDBOX_NET_HOST;
		return 0;
	case ALX_NET_ALLOW:
		if (eg == NULL || nallow == 0)
			return ALX_ERR_NOT_ALLOWED;
		*net = SANDBOX_NET_PROXY;
		return runner_egress_job(eg, job_id, allow, nallow, flags, fd);
	}
	return ALX_ERR_INVALID;
}

int
runner_egress_job_end(struct runner_egress *eg, const char *job_id,
    uint64_t *denied)
{
	char		msg[128], reply[64];
	long long	n;

	*denied = 0;
	if (eg == NULL || !alx_job_id_valid(job_id))
		return ALX_ERR_INVALID;
	snprintf(msg, sizeof msg, "end %s", job_id);
	if (send(eg->ctl, msg, strlen(msg), MSG_NOSIGNAL) < 0 ||
	    egress_wait_reply(eg->ctl, reply, sizeof reply) != 0 ||
	    sscanf(reply, "end %lld", &n) != 1)
		return ALX_ERR_IO;
	if (n < 0)
		return ALX_ERR_NOT_FOUND;
	*denied = (uint64_t)n;
	return 0;
}

/*
 * Reading denied.log for the owner.
 */

static int
egress_read_file(FILE *fp, const char *job_id, char ***lines, size_t *nlines,
    uint64_t *count)
{
	struct alx_json_limits	 lim = { 0 };
	struct alx_json		*js;
	char			 buf[EGRESS_LINE_MAX + 2], *copy;
	char			**nl;
	int64_t			 silent;
	size_t			 len;

	lim.max_bytes = EGRESS_LINE_MAX;
	lim.max_tokens = 64;
	lim.max_depth = 2;
	while (fgets(buf, sizeof buf, fp) != NULL) {
		len = strlen(buf);
		if (len == 0 || buf[len - 1] != '\n')
			continue;		/* over-long or cut: skip */
		buf[--len] = '\0';
		if (alx_json_parse(&js, buf, len, &lim) != 0)
			continue;
		if (alx_json_obj_get(js, 0, "job") < 0 ||
		    !alx_json_str_eq(js, alx_json_obj_get(js, 0, "job"),
		    job_id)) {
			alx_json_free(js);
			continue;
		}
		if (alx_json_get_int(js, 0, "not_logged", &silent, 0,
		    ALX_JSON_INT_MAX) == 0) {
			if (silent > 0)
				*count += (uint64_t)silent;
			alx_json_free(js);
			continue;
		}
		alx_json_free(js);
		(*count)++;
		if (lines == NULL)
			continue;
		if ((copy = strdup(buf)) == NULL ||
		    (nl = reallocarray(*lines, *nlines + 1, sizeof *nl)) ==
		    NULL) {
			free(copy);
			return ALX_ERR_NOMEM;
		}
		*lines = nl;
		nl[(*nlines)++] = copy;
	}
	return 0;
}

int
runner_egress_denied(const char *statedir, const char *job_id,
    char ***lines, size_t *nlines, uint64_t *count)
{
	static const char *const names[] = {
		"egress/denied.log.1", "egress/denied.log"
	};
	char	path[PATH_MAX];
	FILE	*fp;
	size_t	i, dummy = 0;
	int	r = 0;

	*count = 0;
	if (lines != NULL)
		*lines = NULL;
	if (nlines == NULL)
		nlines = &dummy;
	*nlines = 0;
	if (!alx_job_id_valid(job_id))
		return ALX_ERR_INVALID;
	for (i = 0; i < 2 && r == 0; i++) {
		if ((size_t)snprintf(path, sizeof path, "%s/%s", statedir,
		    names[i]) >= sizeof path)
			return ALX_ERR_TOO_LARGE;
		if ((fp = fopen(path, "re")) == NULL)
			continue;
		r = egress_read_file(fp, job_id, lines, nlines, count);
		fclose(fp);
	}
	if (r != 0 && lines != NULL) {
		runner_egress_lines_free(*lines, *nlines);
		*lines = NULL;
		*nlines = 0;
	}
	return r;
}

void
runner_egress_lines_free(char **lines, size_t n)
{
	size_t	i;

	if (lines == NULL)
		return;
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}
