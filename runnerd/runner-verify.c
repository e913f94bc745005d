/*
 * runner-verify.c: `airlox-runnerd verify`: prove the boundary of a job
 * from inside one (the rules of docs/sandbox.md).
 *
 * The sandbox is started as a job's is (the same backend, spec, limits,
 * environment allow list, host uid, and in mode `allow` the egress proxy
 * with the given list), running airlox-probe from its workspace. Before,
 * the runner plants what must not be seen: a canary file in its state dir
 * and in its home, a canary variable in its environment, a listener on
 * its own 127.0.0.1. It hands the probe what must be seen exactly: the
 * mount points and /dev names the sandbox says it makes on this host,
 * and the baseline: what the kernel itself answers to the calls whose
 * answer depends on its features, measured by the same probe (-B) run
 * outside any sandbox as a `process` job, so that no probe fails for a
 * refusal the kernel gives everyone (no 32-bit syscall entry, say).
 * Every expected probe must report; one that does not (the probe died,
 * the sandbox did not start) is a FAIL. The report names no host path.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "sandbox.h"
#include "runner-docker.h"
#include "runner-egress.h"

#define VERIFY_MAX_PROBES	40
#define VERIFY_REASON_MAX	240
#define VERIFY_DENIED_NAME	"airlox-verify-denied.invalid"
#define VERIFY_MAX_BASE		4

struct verify_probe {
	char	name[33];
	char	result[5];
	char	reason[VERIFY_REASON_MAX];
};

struct verify_ctx {
	char			 dir[PATH_MAX];		/* verify-XXXXXX */
	char			 work[PATH_MAX];
	char			 out[PATH_MAX];
	char			 canary_state[PATH_MAX];
	char			 canary_home[PATH_MAX];
	char			 canary_var[64];
	int			 listen_fd;
	int			 host_port;
	struct verify_probe	 probes[VERIFY_MAX_PROBES];
	size_t			 nprobes;
	char			 enforced[1024];
	const struct sandbox_backend *be;
	char			 base[VERIFY_MAX_BASE][80]; /* name=outcome */
	size_t			 nbase;
};

/* The probes each mode must report (sandbox-probe.c). */
static const char *const verify_common[] = {
	"fds", "env_canary", "net_only_lo", "net_no_route", "direct_ip",
	"direct_domain", "dns", "host_loopback", "proxy_bypass",
	"write_outside", "landlock", "canary_files", "mountinfo", "dev_nodes",
	"capabilities", "no_new_privs", "seccomp", "userns", "syscall32",
	"io_uring", "nonroot", "tiocsti", NULL
};
static const char *const verify_container[] = { "root_ro", NULL };
static const char *const verify_allow[] = {
	"proxy_env", "proxy_allowed", "proxy_denied", "proxy_ip_literal",
	"proxy_metadata", "proxy_sni", NULL
};
static const char *const verify_none[] = { "proxy_absent", NULL };
static const char *const verify_env_default[] = {
	"LANG", "LC_ALL", "LC_CTYPE", "TZ", NULL
};

static const char *
verify_mode_name(int net_mode)
{
	return net_mode == ALX_NET_ALLOW ? "allow" : net_mode == ALX_NET_FULL ?
	    "full" : "none";
}

static void
verify_add(struct verify_ctx *v, const char *result, const char *name,
    const char *reason)
{
	struct verify_probe	*p;
	size_t			 i;

	for (i = 0; i < v->nprobes; i++)
		if (strcmp(v->probes[i].name, name) == 0)
			return;		/* first report wins */
	if (v->nprobes >= VERIFY_MAX_PROBES)
		return;
	p = &v->probes[v->nprobes++];
	snprintf(p->name, sizeof p->name, "%s", name);
	snprintf(p->result, sizeof p->result, "%s", result);
	snprintf(p->reason, sizeof p->reason, "%s", reason);
}

static int
verify_name_ok(const char *s)
{
	size_t	i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' &&
		    s[i] <= '9') || s[i] == '_') || i >= 32)
			return 0;
	return i > 0;
}

/* An outcome word of the baseline: letters, digits, '_'. */
static int
verify_word_ok(const char *s)
{
	size_t	i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' &&
		    s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '_') || i >= 32)
			return 0;
	return i > 0;
}

/* Lines "RESULT name reason" of the probe's output; others ignored. */
static void
verify_parse(struct verify_ctx *v, const char *text)
{
	char		 line[512], result[8], name[64];
	const char	*p = text, *nl;
	size_t		 len;
	int		 off;

	while (*p != '\0') {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len < sizeof line) {
			memcpy(line, p, len);
			line[len] = '\0';
			if (sscanf(line, "%7s %63s %n", result, name, &off) ==
			    2 && (strcmp(result, "PASS") == 0 ||
			    strcmp(result, "FAIL") == 0 ||
			    strcmp(result, "SKIP") == 0) && verify_name_ok(name))
				verify_add(v, result, name, line + off);
		}
		p += len + (nl != NULL);
	}
}

static int
verify_write_file(const char *path, const char *text, mode_t mode)
{
	int	fd;
	ssize_t	n;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    mode);
	if (fd == -1)
		return ALX_ERR_IO;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : ALX_ERR_IO;
}

static int
verify_copy(const char *src, const char *dst)
{
	char	buf[65536];
	ssize_t	n;
	int	in, out, r = 0;

	if ((in = open(src, O_RDONLY | O_CLOEXEC)) == -1)
		return ALX_ERR_NOT_FOUND;
	if ((out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755)) ==
	    -1) {
		close(in);
		return ALX_ERR_IO;
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n) {
			r = ALX_ERR_IO;
			break;
		}
	if (n < 0)
		r = ALX_ERR_IO;
	close(in);
	if (close(out) != 0)
		r = ALX_ERR_IO;
	return r;
}

/* What must not be seen: canaries, a host listener; and the folders. */
static int
verify_plant(struct verify_ctx *v, const char *statedir, const char *workroot)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof sin;
	const char		*home = getenv("HOME");
	char			 val[64];

	v->listen_fd = -1;
	if ((size_t)snprintf(v->dir, sizeof v->dir, "%s/verify-XXXXXX",
	    workroot) >= sizeof v->dir || mkdtemp(v->dir) == NULL) {
		v->dir[0] = '\0';
		return ALX_ERR_IO;
	}
	chmod(v->dir, 0711);
	if ((size_t)snprintf(v->work, sizeof v->work, "%s/work", v->dir) >=
	    sizeof v->work || (size_t)snprintf(v->out, sizeof v->out, "%s/out",
	    v->dir) >= sizeof v->out ||
	    mkdir(v->work, 0700) != 0 || mkdir(v->out, 0700) != 0)
		return ALX_ERR_IO;
	snprintf(val, sizeof val, "canary-%ld", (long)getpid());
	if ((size_t)snprintf(v->canary_state, sizeof v->canary_state,
	    "%s/verify-canary-%ld", statedir, (long)getpid()) >=
	    sizeof v->canary_state ||
	    verify_write_file(v->canary_state, val, 0600) != 0) {
		v->canary_state[0] = '\0';
		return ALX_ERR_IO;
	}
	if (home != NULL && home[0] == '/' && strcmp(home, "/") != 0 &&
	    (size_t)snprintf(v->canary_home, sizeof v->canary_home,
	    "%s/.airlox-verify-canary-%ld", home, (long)getpid()) <
	    sizeof v->canary_home &&
	    verify_write_file(v->canary_home, val, 0600) != 0)
		v->canary_home[0] = '\0';
	snprintf(v->canary_var, sizeof v->canary_var, "VERIFY_CANARY_%ld",
	    (long)getpid());
	setenv(v->canary_var, val, 1);
	if ((v->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) ==
	    -1)
		return ALX_ERR_IO;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(v->listen_fd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
	    listen(v->listen_fd, 4) != 0 ||
	    getsockname(v->listen_fd, (struct sockaddr *)&sin, &len) != 0)
		return ALX_ERR_IO;
	v->host_port = ntohs(sin.sin_port);
	return 0;
}

static void
verify_unplant(struct verify_ctx *v)
{
	if (v->canary_state[0] != '\0')
		unlink(v->canary_state);
	if (v->canary_home[0] != '\0')
		unlink(v->canary_home);
	if (v->canary_var[0] != '\0')
		unsetenv(v->canary_var);
	if (v->listen_fd != -1)
		close(v->listen_fd);
	if (v->dir[0] != '\0')
		sandbox_rmtree(AT_FDCWD, v->dir);
}

/* The first exact name of the list (a ".d" entry gives d). */
static const char *
verify_allowed_name(char *const *allow, size_t nallow)
{
	size_t	i;

	for (i = 0; i < nallow; i++)
		if (allow[i][0] != '.')
			return allow[i];
	return nallow > 0 ? allow[0] + 1 : NULL;
}

/* The probe's argv: expectations and canaries. */
static int
verify_argv(struct verify_ctx *v, const char **argv, size_t max,
    const char *kernel_sim, int net_mode, const char *allowed,
    const char *const *env_allow, char *mounts, size_t mlen, char *devs,
    size_t dlen, char *envs, size_t elen, char *port, char *cst, char *chome)
{
	static const char *const fixed[] = {
		"PATH", "HOME", "AIRLOX_OUT", "AIRLOX_JOB", "TMPDIR", "LANG",
		"PWD", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy",
		"https_proxy", "all_proxy", "NO_PROXY", "no_proxy", NULL
	};
	size_t	n = 0, i, used = 0;
	int	w;

	if (v->be->mounts(net_mode == ALX_NET_FULL, mounts, mlen) != 0 ||
	    v->be->devs(devs, dlen) != 0)
		return ALX_ERR_TOO_LARGE;
	envs[0] = '\0';
	for (i = 0; fixed[i] != NULL; i++) {
		w = snprintf(envs + used, elen - used, "%s%s", used ? " " : "",
		    fixed[i]);
		used += w > 0 ? (size_t)w : 0;
	}
	for (i = 0; env_allow[i] != NULL && used < elen; i++)
		if (!sandbox_env_denied(env_allow[i])) {
			w = snprintf(envs + used, elen - used, " %s",
			    env_allow[i]);
			used += w > 0 ? (size_t)w : 0;
		}
	if (used >= elen)
		return ALX_ERR_TOO_LARGE;
	snprintf(port, 16, "%d", v->host_port);
	snprintf(cst, PATH_MAX + 8, "state:%s", v->canary_state);
	argv[n++] = "/work/airlox-probe";
	argv[n++] = "-m";
	argv[n++] = verify_mode_name(net_mode);
	argv[n++] = "-p";
	argv[n++] = port;
	argv[n++] = "-M";
	argv[n++] = mounts;
	argv[n++] = "-D";
	argv[n++] = devs;
	argv[n++] = "-v";
	argv[n++] = v->canary_var;
	argv[n++] = "-e";
	argv[n++] = envs;
	argv[n++] = "-d";
	argv[n++] = VERIFY_DENIED_NAME;
	argv[n++] = "-c";
	argv[n++] = cst;
	if (v->canary_home[0] != '\0') {
		snprintf(chome, PATH_MAX + 8, "home:%s", v->canary_home);
		argv[n++] = "-c";
		argv[n++] = chome;
	}
	if (allowed != NULL) {
		argv[n++] = "-a";
		argv[n++] = allowed;
	}
	if (v->be->flags & SANDBOX_CONTAINER)
		argv[n++] = "-k";
	for (i = 0; i < v->nbase; i++) {
		argv[n++] = "-b";
		argv[n++] = v->base[i];
	}
	if (kernel_sim != NULL) {
		argv[n++] = "-T";
		argv[n++] = kernel_sim;
	}
	argv[n] = NULL;
	return n < max ? 0 : ALX_ERR_TOO_LARGE;
}

/* Every probe the mode expects; a missing one is a FAIL. */
static void
verify_complete(struct verify_ctx *v, int net_mode, const char *why)
{
	const char *const	*extra = net_mode == ALX_NET_ALLOW ?
				    verify_allow : net_mode == ALX_NET_NONE ?
				    verify_none : NULL;
	size_t			 i;

	for (i = 0; verify_common[i] != NULL; i++)
		verify_add(v, "FAIL", verify_common[i], why);
	for (i = 0; extra != NULL && extra[i] != NULL; i++)
		verify_add(v, "FAIL", extra[i], why);
	for (i = 0; (v->be->flags & SANDBOX_CONTAINER) &&
	    verify_container[i] != NULL; i++)
		verify_add(v, "FAIL", verify_container[i], why);
}

static int
verify_report(struct verify_ctx *v, const struct sandbox_backend *be,
    int net_mode, FILE *out, char **report_json)
{
	struct alx_jw	 w;
	size_t		 i, len;
	int		 fails = 0, passes = 0, skips = 0, r;

	for (i = 0; i < v->nprobes; i++) {
		if (out != NULL)
			fprintf(out, "%s %s: %s\n", v->probes[i].result,
			    v->probes[i].name, v->probes[i].reason);
		if (strcmp(v->probes[i].result, "FAIL") == 0)
			fails++;
		else if (strcmp(v->probes[i].result, "PASS") == 0)
			passes++;
		else
			skips++;
	}
	if (out != NULL) {
		fprintf(out, "verify: %d passed, %d failed, %d skipped "
		    "(sandbox %s, network %s)\n", passes, fails, skips,
		    be->name, verify_mode_name(net_mode));
		fflush(out);
	}
	if (report_json == NULL)
		return fails;
	*report_json = NULL;
	alx_jw_init(&w, 64 * 1024);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "version", 1);
	alx_jw_kstr(&w, "sandbox", be->name);
	alx_jw_kstr(&w, "network", verify_mode_name(net_mode));
	alx_jw_kstr(&w, "airlox", ALX_VERSION_STRING);
	alx_jw_kstr(&w, "enforced", v->enforced);
	alx_jw_kint(&w, "pass", passes);
	alx_jw_kint(&w, "fail", fails);
	alx_jw_kint(&w, "skip", skips);
	alx_jw_key(&w, "probes");
	alx_jw_arr_begin(&w);
	for (i = 0; i < v->nprobes; i++) {
		alx_jw_obj_begin(&w);
		alx_jw_kstr(&w, "name", v->probes[i].name);
		alx_jw_kstr(&w, "result", v->probes[i].result);
		alx_jw_kstr(&w, "reason", v->probes[i].reason);
		alx_jw_obj_end(&w);
	}
	alx_jw_arr_end(&w);
	alx_jw_obj_end(&w);
	r = alx_jw_finish(&w, report_json, &len);
	alx_jw_free(&w);
	return r != 0 ? r : fails;
}

/* A helper program: given, beside this program (a build tree), or none. */
static int
verify_beside(const char *given, const char *name, char *path, size_t len)
{
	char	self[PATH_MAX], *slash;
	ssize_t	n;

	if (given != NULL) {
		snprintf(path, len, "%s", given);
		return 1;
	}
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			if ((size_t)snprintf(path, len, "%s/%s", self, name) <
			    len && access(path, X_OK) == 0)
				return 1;
		}
	}
	return 0;
}

static void
verify_paths(const struct runner_verify_opts *o, char *probe, size_t plen,
    char *shim, size_t slen, const char **shimp)
{
	if (!verify_beside(o != NULL ? o->probe : NULL, "airlox-probe", probe,
	    plen))
		snprintf(probe, plen, "%s", RUNNER_PROBE_PATH);
	/* NULL: the sandbox's installed shim (SANDBOX_SHIM_PATH). */
	*shimp = verify_beside(o != NULL ? o->shim : NULL, "airlox-shim", shim,
	    slen) ? shim : NULL;
}

/* Lines "BASE name outcome" of the probe's -B output, as "name=outcome". */
static void
verify_base_parse(struct verify_ctx *v, const char *text)
{
	char		 line[160], name[40], outcome[40];
	const char	*p = text, *nl;
	size_t		 len;

	while (*p != '\0' && v->nbase < VERIFY_MAX_BASE) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len < sizeof line) {
			memcpy(line, p, len);
			line[len] = '\0';
			if (sscanf(line, "BASE %39s %39s", name, outcome) == 2 &&
			    verify_name_ok(name) && verify_word_ok(outcome))
				snprintf(v->base[v->nbase++], sizeof v->base[0],
				    "%s=%s", name, outcome);
		}
		p += len + (nl != NULL);
	}
}

/*
 * The baseline: the probe with -B as a `process` job (no namespaces, no
 * filter; as root under the same unprivileged uid a job gets). When it
 * cannot run, the probes get no baseline and judge strictly.
 */
static void
verify_baseline(struct verify_ctx *v, const char *probe,
    const char *kernel_sim)
{
	struct sandbox_spec	 spec;
	struct sandbox_result	 res;
	struct sandbox_job	*job = NULL;
	const char		*argv[5];
	char			*cause = NULL;
	size_t			 n = 0;

	argv[n++] = probe;
	argv[n++] = "-B";
	if (kernel_sim != NULL) {
		argv[n++] = "-T";
		argv[n++] = kernel_sim;
	}
	argv[n] = NULL;
	memset(&spec, 0, sizeof spec);
	spec.egress_fd = -1;
	spec.argv = argv;
	spec.workspace = v->work;
	spec.outdir = v->out;
	spec.job_id = "verify-baseline";
	spec.env_allow = verify_env_default;
	sandbox_limits_default(&spec.limits);
	spec.limits.wall_ms = 60 * 1000;
	spec.host_uid = SANDBOX_UID_BASE;
	spec.host_gid = SANDBOX_UID_BASE;
	if (sandbox_start(&sandbox_process_backend, &spec, &job, &cause) == 0 &&
	    sandbox_wait(job, &res) == 0) {
		verify_base_parse(v, res.out);
		sandbox_result_free(&res);
	}
	sandbox_free(job);
	free(cause);
}

/* Run the probe in a sandbox started as a job's; fill v->probes. */
static int
verify_sandbox(struct verify_ctx *v, const struct runner_verify_opts *o,
    const struct sandbox_backend *be, const char *statedir, int net_mode,
    char *const *allow, size_t nallow)
{
	struct sandbox_spec	 spec;
	struct sandbox_result	 res;
	struct sandbox_job	*job = NULL;
	struct runner_egress	*eg = NULL;
	const char		*argv[40];
	const char		*sim = o != NULL ? o->kernel_sim : NULL;
	char			 mounts[2048], devs[256], envs[1024], port[16];
	char			 cst[PATH_MAX + 8], chome[PATH_MAX + 8];
	char			 probe[PATH_MAX], dst[PATH_MAX + 32];
	char			 shim[PATH_MAX];
	char			*cause = NULL, why[300];
	uint64_t		 denied;
	int			 r;

	memset(&spec, 0, sizeof spec);
	spec.egress_fd = -1;
	verify_paths(o, probe, sizeof probe, shim, sizeof shim,
	    &spec.shim_path);
	snprintf(dst, sizeof dst, "%s/airlox-probe", v->work);
	if ((r = verify_copy(probe, dst)) != 0) {
		snprintf(why, sizeof why, "airlox-probe not found");
		verify_complete(v, net_mode, why);
		return r;
	}
	verify_baseline(v, dst, sim);
	spec.env_allow = o != NULL && o->env_allow != NULL ? o->env_allow :
	    verify_env_default;
	if ((r = verify_argv(v, argv, 40, sim, net_mode,
	    net_mode == ALX_NET_ALLOW ? verify_allowed_name(allow, nallow) :
	    NULL, spec.env_allow,
	    mounts, sizeof mounts, devs, sizeof devs, envs, sizeof envs, port,
	    cst, chome)) != 0)
		return r;
	spec.argv = argv;
	spec.workspace = v->work;
	spec.outdir = v->out;
	spec.job_id = "verify";
	sandbox_limits_default(&spec.limits);
	spec.limits.wall_ms = 120 * 1000;
	spec.host_uid = SANDBOX_UID_BASE;
	spec.host_gid = SANDBOX_UID_BASE;
	if (net_mode == ALX_NET_FULL)
		spec.net = SANDBOX_NET_HOST;
	else if (net_mode == ALX_NET_ALLOW) {
		spec.net = SANDBOX_NET_PROXY;
		if ((r = runner_egress_start(&eg, o != NULL ? o->egress_cmd :
		    NULL, statedir, &cause)) != 0 ||
		    (r = runner_egress_job(eg, "verify", allow, nallow, 0,
		    &spec.egress_fd)) != 0) {
			snprintf(why, sizeof why, "the egress proxy did not "
			    "start");
			verify_complete(v, net_mode, why);
			free(cause);
			runner_egress_stop(eg);
			return r;
		}
	}
	r = sandbox_start(be, &spec, &job, &cause);
	if (spec.egress_fd != -1)
		close(spec.egress_fd);
	if (r == 0 && (r = sandbox_wait(job, &res)) == 0) {
		snprintf(v->enforced, sizeof v->enforced, "%s", res.enforced);
		verify_parse(v, res.out);
		snprintf(why, sizeof why, "no report from the probe (status %s, "
		    "exit %d, signal %d)", alx_job_status_name(res.status),
		    res.exit_code, res.signo);
		verify_complete(v, net_mode, why);
		sandbox_result_free(&res);
	} else {
		snprintf(why, sizeof why, "the sandbox did not start: %s",
		    cause != NULL ? cause : alx_errname(r));
		verify_complete(v, net_mode, why);
	}
	sandbox_free(job);
	free(cause);
	if (eg != NULL) {
		runner_egress_job_end(eg, "verify", &denied);
		runner_egress_stop(eg);
	}
	return 0;
}

int
runner_verify_run(const struct runner_verify_opts *o,
    const struct sandbox_backend *be, const char *statedir,
    const char *workroot, int net_mode, char *const *allow, size_t nallow,
    FILE *out, char **report_json)
{
	struct verify_ctx	*v;
	int			 r;

	if (report_json != NULL)
		*report_json = NULL;
	if (be == NULL || statedir == NULL || workroot == NULL ||
	    net_mode < ALX_NET_NONE || net_mode > ALX_NET_FULL ||
	    (net_mode == ALX_NET_ALLOW && nallow == 0))
		return ALX_ERR_INVALID;
	if (be->mounts == NULL || be->devs == NULL)
		return ALX_ERR_NOT_ALLOWED;	/* no boundary to prove */
	if ((v = calloc(1, sizeof *v)) == NULL)
		return ALX_ERR_NOMEM;
	v->be = be;
	if ((r = verify_plant(v, statedir, workroot)) != 0)
		verify_complete(v, net_mode, "verify could not set up its "
		    "canaries and folders");
	else
		verify_sandbox(v, o, be, statedir, net_mode, allow, nallow);
	verify_unplant(v);
	r = verify_report(v, be, net_mode, out, report_json);
	free(v);
	return r;
}

int
runner_verify(const struct sandbox_backend *be, const char *statedir,
    const char *workroot, int net_mode, char *const *allow, size_t nallow,
    FILE *out, char **report_json)
{
	return runner_verify_run(NULL, be, statedir, workroot, net_mode, allow,
	    nallow, out, report_json);
}
