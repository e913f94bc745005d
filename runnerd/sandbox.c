/*
 * sandbox.c: the part of running a job that every backend shares: the
 * clean environment, output capture with caps, the wall-clock timeout,
 * cancellation with a grace period, the disk quota, and the outcome.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "util/mono.h"
#include "sandbox-priv.h"

#define SANDBOX_ENV_MAX		64
#define SANDBOX_ENV_VALMAX	4096
#define SANDBOX_CHECK_MS	200
#define SANDBOX_DRAIN_MS	500

/*
 * Known credentials: never passed to a job, even when the allow list
 * names them. Shell patterns, matched against the whole name.
 */
static const char *const sandbox_env_deny[] = {
	"AWS_*", "AZURE_*", "ARM_CLIENT_SECRET", "GOOGLE_APPLICATION_CREDENTIALS",
	"GOOGLE_API_KEY", "GCLOUD_*", "CLOUDSDK_*", "DIGITALOCEAN_*",
	"GH_TOKEN", "GITHUB_*", "GH_ENTERPRISE_TOKEN", "GITLAB_*", "CI_JOB_TOKEN",
	"BITBUCKET_*", "NPM_TOKEN", "NPM_CONFIG__AUTH*", "NODE_AUTH_TOKEN",
	"PYPI_*", "TWINE_*", "CARGO_REGISTRY_TOKEN", "GEM_HOST_API_KEY",
	"DOCKER_AUTH_CONFIG", "DOCKER_PASSWORD", "HF_TOKEN",
	"HUGGING_FACE_HUB_TOKEN", "OPENAI_*", "ANTHROPIC_*",
	"CLAUDE_CODE_OAUTH_TOKEN", "OPENROUTER_*", "MISTRAL_API_KEY",
	"GROQ_API_KEY", "GEMINI_API_KEY", "COHERE_API_KEY", "SSH_AUTH_SOCK",
	"SSH_AGENT_PID", "GPG_AGENT_INFO", "VAULT_TOKEN", "VAULT_ADDR",
	"KUBECONFIG", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR",
	"AIRLOX_*", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT",
	"*_TOKEN", "*_SECRET", "*_SECRET_*", "*_PASSWORD", "*_PASSWD",
	"*_API_KEY", "*_ACCESS_KEY*", "*_PRIVATE_KEY", "*CREDENTIAL*",
	NULL
};

#ifdef SANDBOX_TEST_WEAKEN
unsigned	 sandbox_test_weaken;
const char	*sandbox_test_weaken_dir;
#endif

void
sandbox_enf_add(char *buf, size_t len, const char *fmt, ...)
{
	va_list	ap;
	size_t	used = strlen(buf);

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	used = strlen(buf);
	if (used + 1 < len) {
		buf[used] = '\n';
		buf[used + 1] = '\0';
	}
}

/* In a child about to exec: report why it failed and exit. */
void
sandbox_childfail(int fd, const char *what, int err)
{
	char	msg[256];
	int	n;

	n = snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
	if (n > 0 && fd >= 0)
		(void)!write(fd, msg, (size_t)n < sizeof msg ? (size_t)n :
		    sizeof msg - 1);
	_exit(127);
}

const struct sandbox_backend *const sandbox_backends[] = {
	&sandbox_linux_backend,
	&sandbox_process_backend,
	&sandbox_docker_backend,
	NULL
};

const struct sandbox_backend *
sandbox_find(const char *name)
{
	size_t	i;

	if (name == NULL)
		return NULL;
	for (i = 0; sandbox_backends[i] != NULL; i++)
		if (strcmp(sandbox_backends[i]->name, name) == 0)
			return sandbox_backends[i];
	return NULL;
}

void
sandbox_limits_default(struct sandbox_limits *l)
{
	l->wall_ms = 10 * 60 * 1000;
	l->mem_bytes = 512ULL << 20;
	l->pids = 256;
	l->fsize_bytes = 256ULL << 20;
	l->nofile = 256;
	l->disk_bytes = 1ULL << 30;
	l->disk_inodes = 100000;
	l->tmp_bytes = 64ULL << 20;
	l->out_cap = 1 << 20;
	l->grace_ms = 2000;
}

void
sandbox_limits_fill(struct sandbox_limits *l)
{
	struct sandbox_limits	d;

	sandbox_limits_default(&d);
#define FILL(f) do { if (l->f == 0) l->f = d.f; } while (0)
	FILL(wall_ms); FILL(mem_bytes); FILL(pids); FILL(fsize_bytes);
	FILL(nofile); FILL(disk_bytes); FILL(disk_inodes); FILL(tmp_bytes);
	FILL(out_cap); FILL(grace_ms);
#undef FILL
}

int
sandbox_enforced(const struct sandbox_backend *be,
    const struct sandbox_limits *lim, char *buf, size_t len)
{
	struct sandbox_limits	 l = *lim;
	const char		*p;
	int			 n = 0;

	if (len == 0)
		return ALX_ERR_INVALID;
	buf[0] = '\0';
	sandbox_limits_fill(&l);
	if (be->enforced(&l, buf, len) != 0)
		return ALX_ERR_INVALID;
	for (p = buf; (p = strstr(p, "NOT enforced")) != NULL; p++)
		n++;
	return n;
}

int
sandbox_env_allow_denied(const char *const *allow, char *buf, size_t len)
{
	size_t	i, used = 0;
	int	n = 0, w;

	if (len > 0)
		buf[0] = '\0';
	for (i = 0; allow != NULL && allow[i] != NULL; i++) {
		if (!sandbox_env_denied(allow[i]))
			continue;
		n++;
		if (len == 0 || used >= len)
			continue;
		w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
		    allow[i]);
		if (w < 0 || (size_t)w >= len - used) {
			buf[used] = '\0';
			used = len;
		} else
			used += (size_t)w;
	}
	return n;
}

int
sandbox_env_denied(const char *name)
{
	size_t	i;

	for (i = 0; sandbox_env_deny[i] != NULL; i++)
		if (fnmatch(sandbox_env_deny[i], name, 0) == 0)
			return 1;
	return 0;
}

static int
sandbox_env_name_ok(const char *n)
{
	size_t	i;

	if (n[0] == '\0' || strlen(n) > 64 || (n[0] >= '0' && n[0] <= '9'))
		return 0;
	for (i = 0; n[i] != '\0'; i++)
		if (!(n[i] == '_' || (n[i] >= 'A' && n[i] <= 'Z') ||
		    (n[i] >= 'a' && n[i] <= 'z') || (n[i] >= '0' && n[i] <= '9')))
			return 0;
	return 1;
}

static int
sandbox_env_push(char **env, size_t *n, const char *name, const char *val)
{
	size_t	i, nl = strlen(name);

	for (i = 0; i < *n; i++)
		if (strncmp(env[i], name, nl) == 0 && env[i][nl] == '=')
			return 0;		/* first one wins */
	if (*n + 1 >= SANDBOX_ENV_MAX || strlen(val) > SANDBOX_ENV_VALMAX)
		return ALX_ERR_TOO_LARGE;
	if (asprintf(&env[*n], "%s=%s", name, val) < 0)
		return ALX_ERR_NOMEM;
	(*n)++;
	env[*n] = NULL;
	return 0;
}

/* Mode PROXY: every proxy variable at the forwarder, NO_PROXY empty. */
static int
sandbox_env_proxy(char **env, size_t *n)
{
	static const char *const names[] = {
		"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy",
		"https_proxy", "all_proxy", NULL
	};
	char	url[64];
	size_t	i;
	int	r = 0;

	snprintf(url, sizeof url, "http://127.0.0.1:%d", SANDBOX_EGRESS_PORT);
	for (i = 0; names[i] != NULL; i++)
		r |= sandbox_env_push(env, n, names[i], url);
	r |= sandbox_env_push(env, n, "NO_PROXY", "");
	r |= sandbox_env_push(env, n, "no_proxy", "");
	return r;
}

/* The job's environment: fixed names first, then the allow list. */
static int
sandbox_env_build(struct sandbox_job *job, const struct sandbox_spec *spec,
    int fixed)
{
	char		**env;
	const char	 *v;
	size_t		  n = 0, i;
	int		  r = 0;

	if ((env = calloc(SANDBOX_ENV_MAX + 1, sizeof *env)) == NULL)
		return ALX_ERR_NOMEM;
	job->envp = env;
	r |= sandbox_env_push(env, &n, "PATH",
	    "/usr/local/bin:/usr/bin:/bin");
	r |= sandbox_env_push(env, &n, "HOME",
	    fixed ? SANDBOX_WORK_DIR : job->workspace);
	r |= sandbox_env_push(env, &n, "AIRLOX_OUT",
	    fixed ? SANDBOX_OUT_DIR : job->outdir);
	if (job->indir != NULL)
		r |= sandbox_env_push(env, &n, "AIRLOX_IN",
		    fixed ? SANDBOX_IN_DIR : job->indir);
	r |= sandbox_env_push(env, &n, "AIRLOX_JOB", job->job_id);
	r |= sandbox_env_push(env, &n, "TMPDIR", "/tmp");
	if (fixed && job->net == SANDBOX_NET_PROXY)
		r |= sandbox_env_proxy(env, &n);
#ifdef SANDBOX_TEST_WEAKEN
	if (sandbox_test_weaken & SANDBOX_WEAKEN_ENV) {
		extern char **environ;

		for (i = 0; r == 0 && environ[i] != NULL && n + 2 <
		    SANDBOX_ENV_MAX; i++)
			if ((env[n] = strdup(environ[i])) != NULL)
				env[++n] = NULL;
	}
#endif
	for (i = 0; r == 0 && spec->env_allow != NULL &&
	    spec->env_allow[i] != NULL; i++) {
		if (!sandbox_env_name_ok(spec->env_allow[i]) ||
		    sandbox_env_denied(spec->env_allow[i]))
			continue;
		if ((v = getenv(spec->env_allow[i])) != NULL &&
		    strchr(v, '\n') == NULL)
			r = sandbox_env_push(env, &n, spec->env_allow[i], v);
	}
	if (r == 0)
		r = sandbox_env_push(env, &n, "LANG", "C.UTF-8");
	return r < 0 ? r : 0;
}

static void
sandbox_strv_free(char **v)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

static int
sandbox_job_init(struct sandbox_job *job, const struct sandbox_backend *be,
    const struct sandbox_spec *spec)
{
	size_t	n, i;

	job->be = be;
	job->pid = -1;
	job->pidfd = job->pipes[0] = job->pipes[1] = job->report = -1;
	job->egress_fd = -1;
	job->py_fd = -1;
	job->in_fd = -1;
	job->reason = -1;
	job->lim = spec->limits;
	sandbox_limits_fill(&job->lim);
	job->cb = spec->output_cb;
	job->cb_arg = spec->output_arg;
	job->net = spec->net;
	job->egress_fd = -1;
	if (job->net == SANDBOX_NET_PROXY && (be->flags & SANDBOX_NETNS)) {
		struct stat	st;

		if (fstat(spec->egress_fd, &st) != 0 || !S_ISSOCK(st.st_mode))
			return ALX_ERR_INVALID;
		if ((job->egress_fd = fcntl(spec->egress_fd, F_DUPFD_CLOEXEC,
		    3)) == -1)
			return ALX_ERR_IO;
	} else if (job->net == SANDBOX_NET_PROXY)
		job->net = SANDBOX_NET_NONE;	/* no namespace: nothing to proxy */
	for (n = 0; spec->argv[n] != NULL; n++)
		if (n > 4096)
			return ALX_ERR_TOO_LARGE;
	if ((job->argv = calloc(n + 1, sizeof *job->argv)) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < n; i++)
		if ((job->argv[i] = strdup(spec->argv[i])) == NULL)
			return ALX_ERR_NOMEM;
	if ((job->workspace = realpath(spec->workspace, NULL)) == NULL ||
	    (job->outdir = realpath(spec->outdir, NULL)) == NULL)
		return ALX_ERR_BAD_PATH;
	if ((job->job_id = strdup(spec->job_id)) == NULL ||
	    (job->shim = strdup(spec->shim_path != NULL ? spec->shim_path :
	    SANDBOX_SHIM_PATH)) == NULL)
		return ALX_ERR_NOMEM;
	/* The Python runtime, read-only at SANDBOX_PY_DIR. */
	if (spec->py_dir != NULL && spec->py_dir[0] != '\0' &&
	    be->py == SANDBOX_PY_BIND &&
	    (job->py_fd = sandbox_mount_py_open(spec->py_dir)) < 0) {
		job->py_fd = -1;
		return ALX_ERR_BAD_PATH;
	}
	/* The inputs, read-only at SANDBOX_IN_DIR (or where they are). */
	if (spec->indir != NULL && ((job->indir = realpath(spec->indir,
	    NULL)) == NULL || (be->py == SANDBOX_PY_BIND &&
	    (job->in_fd = sandbox_mount_py_open(job->indir)) < 0))) {
		job->in_fd = -1;
		return ALX_ERR_BAD_PATH;
	}
	job->as_root = geteuid() == 0;
	job->uid = spec->host_uid != 0 ? spec->host_uid : SANDBOX_UID_BASE;
	job->gid = spec->host_gid != 0 ? spec->host_gid : (gid_t)job->uid;
	if (!job->as_root) {
		job->uid = geteuid();
		job->gid = getegid();
	}
	return sandbox_env_build(job, spec,
	    (be->flags & SANDBOX_FIXED_PATHS) != 0);
}

int
sandbox_start(const struct sandbox_backend *be,
    const struct sandbox_spec *spec, struct sandbox_job **jobp, char **cause)
{
	struct sandbox_job	*job;
	int			 out[2] = { -1, -1 }, err[2] = { -1, -1 };
	int			 r;

	*jobp = NULL;
	if (cause != NULL)
		*cause = NULL;
	if (be == NULL || spec == NULL || spec->argv == NULL ||
	    spec->argv[0] == NULL || spec->workspace == NULL ||
	    spec->outdir == NULL || !alx_job_id_valid(spec->job_id))
		return ALX_ERR_INVALID;
	if ((job = calloc(1, sizeof *job)) == NULL)
		return ALX_ERR_NOMEM;
	if ((r = sandbox_job_init(job, be, spec)) != 0) {
		sandbox_free(job);
		return r;
	}
	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(err, O_CLOEXEC) == -1) {
		r = ALX_ERR_IO;
		goto fail;
	}
	job->pipes[0] = out[0];
	job->pipes[1] = err[0];
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	job->t0 = mono_ms();
	job->deadline = job->t0 + job->lim.wall_ms;
	job->next_check = job->t0 + SANDBOX_CHECK_MS;
	r = be->start(job, out[1], err[1], cause);
	close(out[1]);
	close(err[1]);
	if (r != 0)
		goto fail_job;
	*jobp = job;
	return 0;
fail:
	if (out[1] != -1)
		close(out[1]);
	if (out[0] != -1 && job->pipes[0] == -1)
		close(out[0]);
fail_job:
	sandbox_free(job);
	return r;
}

static void
sandbox_read_pipe(struct sandbox_job *job, int i)
{
	char	buf[16384];
	ssize_t	n;
	size_t	keep, cap = job->lim.out_cap;
	int	rounds = 16;

	while (rounds-- > 0) {
		n = read(job->pipes[i], buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(job->pipes[i]);
			job->pipes[i] = -1;
			return;
		}
		if (job->cb != NULL)
			job->cb(job->cb_arg, i + 1, buf, (size_t)n);
		keep = job->len[i] < cap ? cap - job->len[i] : 0;
		if ((size_t)n > keep)
			job->trunc[i] = 1;
		else
			keep = (size_t)n;
		if (keep > 0) {
			if (job->buf[i] == NULL &&
			    (job->buf[i] = malloc(cap + 1)) == NULL) {
				job->trunc[i] = 1;
				continue;
			}
			memcpy(job->buf[i] + job->len[i], buf, keep);
			job->len[i] += keep;
		}
	}
}

static void
sandbox_read_report(struct sandbox_job *job)
{
	ssize_t	n;
	size_t	room = sizeof job->repbuf - 1 - job->replen;

	if (room == 0) {
		char	skip[64];

		n = read(job->report, skip, sizeof skip);
	} else
		n = read(job->report, job->repbuf + job->replen, room);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(job->report);
		job->report = -1;
		return;
	}
	if (room > 0)
		job->replen += (size_t)n;
	job->repbuf[job->replen] = '\0';
}

static void
sandbox_end(struct sandbox_job *job, int reason)
{
	if (job->reason == -1)
		job->reason = reason;
	job->be->kill(job, SIGKILL);
}

static void
sandbox_checks(struct sandbox_job *job, int64_t now)
{
	const char	*dirs[3];

	if (job->be->oom(job) == 1) {
		sandbox_end(job, ALX_JOB_KILLED_OOM);
		return;
	}
	dirs[0] = job->workspace;
	dirs[1] = job->outdir;
	dirs[2] = NULL;
	if (sandbox_disk_over(dirs, job->lim.disk_bytes,
	    job->lim.disk_inodes))
		sandbox_end(job, ALX_JOB_KILLED_DISK);
	job->next_check = now + SANDBOX_CHECK_MS;
}

static void
sandbox_reap(struct sandbox_job *job)
{
	struct rusage	ru;
	pid_t		p;

	if (job->reaped || job->pid <= 0)
		return;
	p = wait4(job->pid, &job->wstatus, WNOHANG, &ru);
	if (p != job->pid)
		return;
	job->reaped = 1;
	job->t_end = mono_ms();
	job->rusage_maxrss = (int64_t)ru.ru_maxrss * 1024;
	/* Whatever is left of the tree goes now (process backend). */
	job->be->kill(job, SIGKILL);
	if (job->reason == -1)
		sandbox_checks(job, job->t_end);
	if (job->pidfd != -1) {
		close(job->pidfd);
		job->pidfd = -1;
	}
}

int
sandbox_step(struct sandbox_job *job, int timeout_ms)
{
	struct pollfd	pfd[4];
	int64_t		now, wait, until;
	int		n = 0, i, idx[4];

	now = mono_ms();
	if (job->reaped) {
		if ((job->pipes[0] == -1 && job->pipes[1] == -1) ||
		    now >= job->t_end + SANDBOX_DRAIN_MS)
			return 1;
		until = job->t_end + SANDBOX_DRAIN_MS;
	} else {
		until = job->deadline < job->next_check ? job->deadline :
		    job->next_check;
		if (job->kill_at != 0 && job->kill_at < until)
			until = job->kill_at;
	}
	wait = until - now;
	if (wait > timeout_ms)
		wait = timeout_ms;
	if (job->pidfd == -1 && !job->reaped && wait > 50)
		wait = 50;
	if (wait < 0)
		wait = 0;
	for (i = 0; i < 2; i++)
		if (job->pipes[i] != -1) {
			idx[n] = i;
			pfd[n].fd = job->pipes[i];
			pfd[n++].events = POLLIN;
		}
	if (job->report != -1) {
		idx[n] = 2;
		pfd[n].fd = job->report;
		pfd[n++].events = POLLIN;
	}
	if (job->pidfd != -1) {
		idx[n] = 3;
		pfd[n].fd = job->pidfd;
		pfd[n++].events = POLLIN;
	}
	if (poll(pfd, (nfds_t)n, (int)wait) == -1 && errno != EINTR)
		return ALX_ERR_IO;
	for (i = 0; i < n; i++) {
		if (pfd[i].revents == 0)
			continue;
		if (idx[i] < 2)
			sandbox_read_pipe(job, idx[i]);
		else if (idx[i] == 2)
			sandbox_read_report(job);
	}
	if (job->report != -1 && job->reaped)
		sandbox_read_report(job);
	sandbox_reap(job);
	now = mono_ms();
	if (!job->reaped) {
		if (now >= job->deadline)
			sandbox_end(job, ALX_JOB_TIMEOUT);
		else if (job->kill_at != 0 && now >= job->kill_at)
			job->be->kill(job, SIGKILL);
		else if (now >= job->next_check)
			sandbox_checks(job, now);
	}
	if (job->reaped && ((job->pipes[0] == -1 && job->pipes[1] == -1) ||
	    now >= job->t_end + SANDBOX_DRAIN_MS))
		return 1;
	return 0;
}

void
sandbox_cancel(struct sandbox_job *job)
{
	if (job->reaped || job->kill_at != 0)
		return;
	if (job->reason == -1)
		job->reason = ALX_JOB_CANCELLED;
	job->be->kill(job, SIGTERM);
	job->kill_at = mono_ms() + job->lim.grace_ms;
}

int
sandbox_fds(struct sandbox_job *job, int fds[4])
{
	fds[0] = job->pipes[0];
	fds[1] = job->pipes[1];
	fds[2] = job->report;
	fds[3] = job->pidfd;
	return 0;
}

static char *
sandbox_take(struct sandbox_job *job, int i, size_t *lenp)
{
	char	*s = job->buf[i];

	if (s == NULL && (s = malloc(1)) == NULL)
		return NULL;
	s[job->len[i]] = '\0';
	*lenp = job->len[i];
	job->buf[i] = NULL;
	return s;
}

/* The shim reports "exit N", "signal N" or "error TEXT" on its pipe. */
static int
sandbox_outcome(struct sandbox_job *job, struct sandbox_result *res)
{
	int	v;

	if (job->replen > 0 && strncmp(job->repbuf, "error ", 6) == 0) {
		sandbox_enf_add(res->enforced, sizeof res->enforced,
		    "sandbox error: %.200s", job->repbuf + 6);
		res->exited = 1;
		res->exit_code = 125;
		return ALX_ERR_IO;
	}
	if (job->replen > 0 && sscanf(job->repbuf, "exit %d", &v) == 1) {
		res->exited = 1;
		res->exit_code = v;
	} else if (job->replen > 0 &&
	    sscanf(job->repbuf, "signal %d", &v) == 1)
		res->signo = v;
	else if (WIFEXITED(job->wstatus)) {
		res->exited = 1;
		res->exit_code = WEXITSTATUS(job->wstatus);
	} else if (WIFSIGNALED(job->wstatus))
		res->signo = WTERMSIG(job->wstatus);
	return 0;
}

int
sandbox_result(struct sandbox_job *job, struct sandbox_result *res)
{
	int	r;

	memset(res, 0, sizeof *res);
	if (!job->reaped)
		return ALX_ERR_INVALID;
	for (r = 0; r < 2; r++)
		if (job->pipes[r] != -1) {
			close(job->pipes[r]);
			job->pipes[r] = -1;
		}
	res->status = job->reason == -1 ? ALX_JOB_COMPLETED : job->reason;
	res->duration_ms = job->t_end - job->t0;
	if ((res->out = sandbox_take(job, 0, &res->out_len)) == NULL ||
	    (res->err = sandbox_take(job, 1, &res->err_len)) == NULL) {
		sandbox_result_free(res);
		return ALX_ERR_NOMEM;
	}
	res->out_truncated = job->trunc[0];
	res->err_truncated = job->trunc[1];
	snprintf(res->enforced, sizeof res->enforced, "%s", job->enforced);
	if (!job->finished) {
		job->finished = 1;
		job->be->finish(job, res);
	}
	if (!res->peak_mem_known && job->rusage_maxrss > 0) {
		res->peak_mem = (uint64_t)job->rusage_maxrss;
		res->peak_mem_known = 1;
	}
	return sandbox_outcome(job, res);
}

int
sandbox_wait(struct sandbox_job *job, struct sandbox_result *res)
{
	int	r;

	while ((r = sandbox_step(job, 1000)) == 0)
		;
	if (r < 0)
		return r;
	return sandbox_result(job, res);
}

void
sandbox_result_free(struct sandbox_result *res)
{
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
}

void
sandbox_free(struct sandbox_job *job)
{
	struct sandbox_result	res;
	int			i;

	if (job == NULL)
		return;
	if (job->pid > 0 && !job->reaped) {
		job->be->kill(job, SIGKILL);
		while (!job->reaped && waitpid(job->pid, &job->wstatus, 0) ==
		    -1 && errno == EINTR)
			;
		job->reaped = 1;
	}
	if (!job->finished) {
		job->finished = 1;
		memset(&res, 0, sizeof res);
		job->be->finish(job, &res);
	}
	for (i = 0; i < 2; i++) {
		if (job->pipes[i] != -1)
			close(job->pipes[i]);
		free(job->buf[i]);
	}
	if (job->report != -1)
		close(job->report);
	if (job->pidfd != -1)
		close(job->pidfd);
	if (job->egress_fd != -1)
		close(job->egress_fd);
	sandbox_strv_free(job->argv);
	sandbox_strv_free(job->envp);
	free(job->workspace);
	free(job->outdir);
	free(job->job_id);
	free(job->shim);
	if (job->py_fd >= 0)
		close(job->py_fd);
	if (job->in_fd >= 0)
		close(job->in_fd);
	free(job->indir);
	free(job);
}

/* rlimits of the job; procs_cap also sets RLIMIT_NPROC (unique uid). */
int
sandbox_set_rlimits(const struct sandbox_limits *l, int procs_cap)
{
	struct rlimit	rl;

	rl.rlim_cur = rl.rlim_max = l->fsize_bytes;
	if (setrlimit(RLIMIT_FSIZE, &rl) == -1)
		return -errno;
	rl.rlim_cur = rl.rlim_max = l->nofile;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		return -errno;
	rl.rlim_cur = rl.rlim_max = 0;
	if (setrlimit(RLIMIT_CORE, &rl) == -1)
		return -errno;
	if (procs_cap) {
		rl.rlim_cur = rl.rlim_max = l->pids;
		if (setrlimit(RLIMIT_NPROC, &rl) == -1)
			return -errno;
	}
	return 0;
}

/* Remove a tree we made; never follows symlinks out of it. */
void
sandbox_rmtree(int parent, const char *name)
{
	DIR		*d;
	struct dirent	*de;
	int		 fd;

	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1) {
		unlinkat(parent, name, 0);
		return;
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_type == DT_DIR)
			sandbox_rmtree(dirfd(d), de->d_name);
		else
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
	unlinkat(parent, name, AT_REMOVEDIR);
}
