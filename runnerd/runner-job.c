/*
 * runner-job.c: one admitted job, from its folders to its signed result's
 * meta: prepare the work folder and $AIRLOX_OUT, start the sandbox with the
 * session's limits, collect the outcome, redact paths, and build the
 * result meta (protocol.md section 8.3).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "runnerd.h"
#include "sandbox.h"
#include "runner-egress.h"
#include "runner-python.h"


static int
runner_mkdir(const char *path)
{
	if (mkdir(path, 0700) == -1 && errno != EEXIST)
		return ALX_ERR_IO;
	return ALX_OK;
}

void
runner_job_cleanup(struct runner_job *rj)
{
	if (rj->sb != NULL)
		sandbox_free(rj->sb);
	if (rj->jobdir[0] != '\0')
		sandbox_rmtree(AT_FDCWD, rj->jobdir);
	alx_jobmeta_free(&rj->meta);
	alx_wipe(rj->kitem, sizeof(rj->kitem));
	memset(rj, 0, sizeof(*rj));
}

int
runner_job_prepare(struct runner_job *rj, const char *work_root)
{
	char	idtxt[ALX_B64_ENCLEN(ALX_ID_LEN) + 1];
	int	r;

	alx_b64_encode(idtxt, rj->id, ALX_ID_LEN);
	/* base64url ids are safe file names (no '/', no leading '.'). */
	if ((size_t)snprintf(rj->jobdir, sizeof(rj->jobdir), "%s/job-%s",
	    work_root, idtxt) >= sizeof(rj->jobdir))
		return ALX_ERR_BAD_PATH;
	if ((size_t)snprintf(rj->workdir, sizeof(rj->workdir), "%s/work",
	    rj->jobdir) >= sizeof(rj->workdir) ||
	    (size_t)snprintf(rj->outdir, sizeof(rj->outdir), "%s/out",
	    rj->jobdir) >= sizeof(rj->outdir))
		return ALX_ERR_BAD_PATH;
	memcpy(rj->job_id, idtxt, sizeof(rj->job_id));
	/* 0711: a process-sandbox job reaches $AIRLOX_OUT as its own uid. */
	if (mkdir(rj->jobdir, 0711) == -1) {
		rj->jobdir[0] = '\0';	/* not ours: never remove it */
		return ALX_ERR_IO;
	}
	if ((r = runner_mkdir(rj->workdir)) != ALX_OK ||
	    (r = runner_mkdir(rj->outdir)) != ALX_OK)
		return r;
	return ALX_OK;
}

/*
 * The argv the job runs. A command line (cmd) goes to /bin/sh -c; an argv
 * is executed as it was given, word for word, as docker exec does. A tree
 * job starts in its cwd: a small /bin/sh -c script changes there and then
 * execs the job's words ("$@"), which passes them on unchanged. *argvp is
 * a malloc'd array of pointers into rj->meta (or constants).
 */
static int
runner_job_argv(struct runner_job *rj, const char ***argvp)
{
	const char	**argv;
	const char	 *cwd = rj->meta.cwd;
	size_t		  n = 0, i, words;
	int		  in_cwd = cwd != NULL && cwd[0] != '\0';

	*argvp = NULL;
	words = rj->meta.argv != NULL ? rj->meta.argc : 1;
	if ((argv = calloc(words + 6, sizeof(*argv))) == NULL)
		return ALX_ERR_NOMEM;
	if (rj->meta.kind == ALX_JOBKIND_PYTHON) {
		/* The session's runtime, else the sandbox's python3. */
		argv[n++] = rj->py != NULL && rj->py->active &&
		    rj->py->python[0] != '\0' ? rj->py->python : "python3";
		argv[n++] = rj->meta.file;
	} else if (rj->meta.argv == NULL) {
		argv[n++] = "/bin/sh";
		argv[n++] = "-c";
		if (in_cwd) {
			argv[n++] = "cd -- \"$0\" && exec /bin/sh -c \"$1\"";
			argv[n++] = cwd;
		}
		argv[n++] = rj->meta.cmd;
	} else {
		if (in_cwd) {
			argv[n++] = "/bin/sh";
			argv[n++] = "-c";
			argv[n++] = "cd -- \"$0\" && exec \"$@\"";
			argv[n++] = cwd;
		}
		for (i = 0; i < rj->meta.argc; i++)
			argv[n++] = rj->meta.argv[i];
	}
	argv[n] = NULL;
	*argvp = argv;
	return ALX_OK;
}

int
runner_job_start(struct runner_job *rj, const struct sandbox_backend *be,
    const struct sandbox_limits *lim, const char *shim, int slot,
    const struct runner_net *net, char **cause)
{
	struct sandbox_spec	 spec;
	const char		**argv = NULL;
	int			 mode, fd = -1, r;

	memset(&spec, 0, sizeof(spec));
	if ((r = runner_job_argv(rj, &argv)) != ALX_OK)
		return r;
	spec.argv = argv;
	spec.workspace = rj->workdir;
	spec.outdir = rj->outdir;
	spec.job_id = rj->job_id;
	spec.env_allow = net->env_allow;
	spec.limits = *lim;
	spec.shim_path = shim;
	if (rj->py != NULL && rj->py->active && rj->py->host_dir[0] != '\0')
		spec.py_dir = rj->py->host_dir;
	if (rj->indir[0] != '\0')
		spec.indir = rj->indir;
	/* One host uid per slot: concurrent jobs cannot signal each other. */
	spec.host_uid = SANDBOX_UID_BASE + (uid_t)slot;
	spec.host_gid = SANDBOX_UID_BASE + (gid_t)slot;
	spec.output_cb = rj->output_cb;
	spec.output_arg = rj->output_arg;
	/* The network the session allows: none, the egress proxy, or full. */
	if ((r = runner_egress_net(net->egress, rj->job_id, net->mode,
	    net->runner_network, net->allow, net->nallow, 0, &mode,
	    &fd)) != ALX_OK) {
		free(argv);
		return r;
	}
	spec.net = mode;
	spec.egress_fd = fd;
	r = sandbox_start(be, &spec, &rj->sb, cause);	/* copies argv */
	if (fd != -1)
		close(fd);
	free(argv);
	return r;
}

size_t
runner_job_rules(const struct runner_job *rj, struct redact_rule *rules,
    size_t max)
{
	const char	*home = getenv("HOME");
	size_t		 n = 6;

	if (max < 6)
		return 0;
	rules[0].from = rj->workdir;	rules[0].to = "$WORK";
	rules[1].from = rj->outdir;	rules[1].to = "$AIRLOX_OUT";
	rules[2].from = rj->jobdir;	rules[2].to = "$JOB";
	rules[3].from = SANDBOX_WORK_DIR; rules[3].to = "$WORK";
	rules[4].from = SANDBOX_OUT_DIR; rules[4].to = "$AIRLOX_OUT";
	rules[5].from = home;		rules[5].to = "~";
	if (rj->indir[0] != '\0' && n < max) {
		rules[n].from = rj->indir;
		rules[n++].to = "$AIRLOX_IN";
	}
	/* The venv and the interpreter's folders. */
	n += runner_redact_runtime(rj->py, rules + n, max - n);
	return n;
}

int
runner_job_result(struct runner_job *rj, const struct sandbox_result *res,
    const char *env_json, struct alx_resultmeta *rm)
{
	memset(rm, 0, sizeof(*rm));
	memcpy(rm->job, rj->id, ALX_ID_LEN);
	memcpy(rm->job_hash, rj->hash, ALX_HASH_LEN);
	rm->status = res->status;
	rm->has_exit = res->exited;
	rm->exit_code = res->exited ? res->exit_code : 0;
	rm->signal = res->signo;
	/* The job's output is in its progress items (runner-output.c). */
	if ((rm->out = strdup("")) == NULL || (rm->err = strdup("")) == NULL) {
		alx_resultmeta_free(rm);
		return ALX_ERR_NOMEM;
	}
	rm->duration_ms = res->duration_ms;
	rm->peak_memory = res->peak_mem_known ? (int64_t)res->peak_mem : -1;
	if (env_json != NULL && (rm->env = strdup(env_json)) == NULL) {
		alx_resultmeta_free(rm);
		return ALX_ERR_NOMEM;
	}
	return ALX_OK;
}

int
runner_refusal(const struct alx_item *job, int reason,
    struct alx_resultmeta *rm)
{
	memset(rm, 0, sizeof(*rm));
	memcpy(rm->job, job->id, ALX_ID_LEN);
	memcpy(rm->job_hash, job->hash, ALX_HASH_LEN);
	rm->status = ALX_JOB_REFUSED;
	if (alx_refusal_name(reason) == NULL)
		return ALX_ERR_INVALID;
	snprintf(rm->reason, sizeof(rm->reason), "%s", alx_refusal_name(reason));
	rm->peak_memory = -1;
	if ((rm->out = strdup("")) == NULL || (rm->err = strdup("")) == NULL) {
		alx_resultmeta_free(rm);
		return ALX_ERR_NOMEM;
	}
	return ALX_OK;
}
