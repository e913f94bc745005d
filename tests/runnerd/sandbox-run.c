/*
 * sandbox-run.c: test entry point of the sandbox (not installed). Runs a
 * command in a backend with given limits and prints the outcome as JSON.
 *
 *	sandbox-run [-E] [-b local|process] -w workspace -o outdir
 *	    [-j id] [-s shim] [-t wall_ms] [-m mem] [-p pids] [-f fsize]
 *	    [-n nofile] [-d disk] [-i inodes] [-T tmp] [-c outcap]
 *	    [-C cancel_ms] [-W file] [-e NAME]... [-N none|allow|full [-A a,b]
 *	    [-H MAP] [-P] -S statedir] -- command [arg ...]
 *	sandbox-run -R runs [-X] ... -- command [arg ...]
 *
 * -N allow starts the egress proxy as the runner does, with proxy-test
 * (beside this program) in its serve mode and the test hosts MAP (see
 * proxy-test.c), registers the job with the domains of -A (-P: plain
 * HTTP too) and gives the sandbox its socket; "denied N" is printed on
 * stderr at the end.
 *
 * -R N (bench/sandbox-vs-bwrap.sh) runs the job N times one after the
 * other, as the runner does (fork, no exec of a program of ours per job),
 * checks each exits 0, and prints "median MS mean MS min MS" of the time
 * from sandbox_start() to sandbox_free(); with -X it times posix_spawn()
 * and wait of the command itself instead (bwrap, bare true), so both are
 * measured by the same loop.
 *
 * -C cancels the job cancel_ms after its start; with -W, cancel_ms after
 * the job made the file named (in its workspace), so a test cancels a job
 * that is ready for it however slowly the machine started it.
 *
 * -E prints what the machine enforces for these limits and exits. There
 * is no option that weakens the sandbox: the test drives the same code
 * the daemon does.
 */
#include "config.h"

#include <sys/wait.h>

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "util/mono.h"
#include "sandbox.h"
#include "runner-egress.h"

/* Microseconds on the programs' monotonic clock, for -R's timings. */
#define NOW_US()	((int64_t)(mono_sec() * 1e6))

static int
cmp_i64(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* One timed run of -R: our sandbox, or (-X) the command spawned bare. */
static int64_t
bench_once(const struct sandbox_backend *be, const struct sandbox_spec *spec,
    int spawn_only)
{
	extern char		**environ;
	struct sandbox_result	  res;
	struct sandbox_job	 *job;
	char			 *cause = NULL;
	int64_t			  t0 = NOW_US();
	pid_t			  pid;
	int			  st, r;

	if (spawn_only) {
		if (posix_spawnp(&pid, spec->argv[0], NULL, NULL,
		    (char *const *)spec->argv, environ) != 0 ||
		    waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			return -1;
		return NOW_US() - t0;
	}
	if (sandbox_start(be, spec, &job, &cause) != 0) {
		free(cause);
		return -1;
	}
	while ((r = sandbox_step(job, 50)) == 0)
		;
	if (r < 0 || sandbox_result(job, &res) != 0) {
		sandbox_free(job);
		return -1;
	}
	r = res.status == ALX_JOB_COMPLETED && res.exited &&
	    res.exit_code == 0;
	sandbox_result_free(&res);
	sandbox_free(job);
	return r ? NOW_US() - t0 : -1;
}

/* -R N: time N runs, print "median MS mean MS min MS". */
static int
bench_runs(const struct sandbox_backend *be, const struct sandbox_spec *spec,
    int n, int spawn_only)
{
	int64_t	*t, sum = 0;
	int	 i;

	if (n < 1 || (t = calloc((size_t)n, sizeof(*t))) == NULL)
		return 2;
	for (i = 0; i < n; i++) {
		if ((t[i] = bench_once(be, spec, spawn_only)) < 0) {
			fprintf(stderr, "sandbox-run: run %d failed\n", i);
			free(t);
			return 1;
		}
		sum += t[i];
	}
	qsort(t, (size_t)n, sizeof(*t), cmp_i64);
	printf("median %.3f mean %.3f min %.3f\n", t[n / 2] / 1000.0,
	    sum / 1000.0 / n, t[0] / 1000.0);
	free(t);
	return 0;
}

static uint64_t
num(const char *s)
{
	char			*end;
	unsigned long long	 v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0') {
		fprintf(stderr, "sandbox-run: bad number: %s\n", s);
		exit(2);
	}
	return v;
}

/* Job output is bytes: text when it is UTF-8, else base64url. */
static void
put_output(struct alx_jw *w, const char *key, const char *s, size_t len)
{
	char	k[32];

	if (alx_utf8_valid((const uint8_t *)s, len) == 0) {
		alx_jw_key(w, key);
		alx_jw_strn(w, s, len);
	} else {
		snprintf(k, sizeof k, "%s_b64", key);
		alx_jw_kb64(w, k, (const uint8_t *)s, len);
	}
}

static int
print_result(const struct sandbox_result *res, int rc)
{
	struct alx_jw	 w;
	char		*text;
	size_t		 len;
	int		 r;

	alx_jw_init(&w, 16 << 20);
	alx_jw_obj_begin(&w);
	alx_jw_kstr(&w, "status", alx_job_status_name(res->status));
	alx_jw_kstr(&w, "error", alx_errname(rc));
	alx_jw_kbool(&w, "exited", res->exited);
	alx_jw_kint(&w, "exit_code", res->exit_code);
	alx_jw_kint(&w, "signal", res->signo);
	alx_jw_kint(&w, "duration_ms", res->duration_ms);
	alx_jw_key(&w, "peak_mem");
	if (res->peak_mem_known)
		alx_jw_int(&w, (int64_t)res->peak_mem);
	else
		alx_jw_null(&w);
	put_output(&w, "stdout", res->out, res->out_len);
	alx_jw_kbool(&w, "stdout_truncated", res->out_truncated);
	put_output(&w, "stderr", res->err, res->err_len);
	alx_jw_kbool(&w, "stderr_truncated", res->err_truncated);
	alx_jw_kstr(&w, "enforced", res->enforced);
	alx_jw_obj_end(&w);
	if ((r = alx_jw_finish(&w, &text, &len)) != 0) {
		fprintf(stderr, "sandbox-run: json: %s\n", alx_errname(r));
		alx_jw_free(&w);
		return 1;
	}
	printf("%s\n", text);
	free(text);
	alx_jw_free(&w);
	return 0;
}

int
main(int argc, char **argv)
{
	const struct sandbox_backend	*be;
	struct sandbox_spec		 spec;
	struct sandbox_result		 res;
	struct sandbox_job		*job;
	const char			*allow[32], *bname = "local";
	char				*cause = NULL, text[1024];
	const char			*netmode = "none", *map = NULL;
	const char			*statedir = NULL;
	const char			*ecmd[5];
	char				*alist = NULL, *dom[64], self[4096], *tok;
	struct runner_egress		*eg = NULL;
	size_t				 ndom = 0;
	uint64_t			 denied = 0;
	int				 eflags = 0, enet;
	ssize_t				 sl;
	int64_t				 cancel_ms = 0, t0;
	const char			*waitfile = NULL;
	char				 wpath[4096];
	size_t				 nallow = 0;
	int				 c, r, enforced_only = 0;
	int				 runs = 0, spawn_only = 0;

	memset(&spec, 0, sizeof spec);
	spec.job_id = "test";
	spec.egress_fd = -1;
	while ((c = getopt(argc, argv, "Eb:w:o:j:s:t:m:p:f:n:d:i:T:c:C:W:e:N:A:H:PS:R:X")) !=
	    -1) {
		switch (c) {
		case 'E': enforced_only = 1; break;
		case 'b': bname = optarg; break;
		case 'w': spec.workspace = optarg; break;
		case 'o': spec.outdir = optarg; break;
		case 'j': spec.job_id = optarg; break;
		case 's': spec.shim_path = optarg; break;
		case 't': spec.limits.wall_ms = (int64_t)num(optarg); break;
		case 'm': spec.limits.mem_bytes = num(optarg); break;
		case 'p': spec.limits.pids = (uint32_t)num(optarg); break;
		case 'f': spec.limits.fsize_bytes = num(optarg); break;
		case 'n': spec.limits.nofile = (uint32_t)num(optarg); break;
		case 'd': spec.limits.disk_bytes = num(optarg); break;
		case 'i': spec.limits.disk_inodes = num(optarg); break;
		case 'T': spec.limits.tmp_bytes = num(optarg); break;
		case 'c': spec.limits.out_cap = (size_t)num(optarg); break;
		case 'C': cancel_ms = (int64_t)num(optarg); break;
		case 'W': waitfile = optarg; break;
		case 'N': netmode = optarg; break;
		case 'A': alist = optarg; break;
		case 'H': map = optarg; break;
		case 'P': eflags |= EGRESS_HTTP; break;
		case 'S': statedir = optarg; break;
		case 'R': runs = (int)num(optarg); break;
		case 'X': spawn_only = 1; break;
		case 'e':
			if (nallow + 1 >= sizeof allow / sizeof allow[0])
				return 2;
			allow[nallow++] = optarg;
			break;
		default:
			return 2;
		}
	}
	allow[nallow] = NULL;
	spec.env_allow = allow;
	if ((be = sandbox_find(bname)) == NULL) {
		fprintf(stderr, "sandbox-run: unknown backend %s\n", bname);
		return 2;
	}
	if (enforced_only) {
		r = sandbox_enforced(be, &spec.limits, text, sizeof text);
		printf("%s", text);
		return r == 0 ? 0 : 1;
	}
	if (optind >= argc || spec.workspace == NULL || spec.outdir == NULL)
		return 2;
	spec.argv = (const char *const *)(argv + optind);
	if (runs > 0)
		return bench_runs(be, &spec, runs, spawn_only);
	if (strcmp(netmode, "allow") == 0) {
		if ((sl = readlink("/proc/self/exe", self, sizeof self - 20)) <= 0)
			return 1;
		self[sl] = '\0';
		snprintf(strrchr(self, '/'), 20, "/proxy-test");
		ecmd[0] = self;
		ecmd[1] = "serve";
		ecmd[2] = "-H";
		ecmd[3] = map != NULL ? map : "none.invalid=192.0.2.1";
		ecmd[4] = NULL;
		for (tok = alist != NULL ? strtok(alist, ",") : NULL; tok != NULL &&
		    ndom < 64; tok = strtok(NULL, ","))
			dom[ndom++] = tok;
		if (statedir == NULL ||
		    runner_egress_start(&eg, ecmd, statedir, &cause) != 0) {
			fprintf(stderr, "sandbox-run: egress: %s\n",
			    cause != NULL ? cause : "no -S");
			return 1;
		}
	}
	/* As the runner does; "full" as a runner started with --network. */
	if ((r = runner_egress_net(eg, spec.job_id, strcmp(netmode, "allow") ==
	    0 ? ALX_NET_ALLOW : strcmp(netmode, "full") == 0 ? ALX_NET_FULL :
	    ALX_NET_NONE, 1, dom, ndom, eflags, &enet, &spec.egress_fd)) != 0) {
		fprintf(stderr, "sandbox-run: network: %s\n", alx_errname(r));
		return 1;
	}
	spec.net = (enum sandbox_net)enet;
	if ((r = sandbox_start(be, &spec, &job, &cause)) != 0) {
		fprintf(stderr, "sandbox-run: start: %s: %s\n", alx_errname(r),
		    cause != NULL ? cause : "");
		free(cause);
		return 1;
	}
	t0 = mono_ms();
	while ((r = sandbox_step(job, 50)) == 0) {
		if (waitfile != NULL) {
			snprintf(wpath, sizeof wpath, "%s/%s", spec.workspace,
			    waitfile);
			if (access(wpath, F_OK) != 0)
				continue;
			waitfile = NULL;
			t0 = mono_ms();
		}
		if (cancel_ms > 0 && mono_ms() - t0 >= cancel_ms)
			sandbox_cancel(job);
	}
	if (r > 0)
		r = sandbox_result(job, &res);
	else
		memset(&res, 0, sizeof res);
	c = print_result(&res, r);
	sandbox_result_free(&res);
	sandbox_free(job);
	if (spec.egress_fd != -1)
		close(spec.egress_fd);
	if (eg != NULL) {
		runner_egress_job_end(eg, spec.job_id, &denied);
		fprintf(stderr, "denied %llu\n", (unsigned long long)denied);
		runner_egress_stop(eg);
	}
	return c;
}
