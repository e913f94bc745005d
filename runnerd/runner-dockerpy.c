/*
 * runner-dockerpy.c: the Python runtime of a docker runner.
 *
 * Without a package allowlist, jobs use the image's python3 as it is. With
 * one, the runner builds a job image once per allowlist: a container of
 * its image (as root inside, capabilities dropped, no-new-privileges)
 * makes a venv at SANDBOX_PY_DIR and pip-installs the pins there, wheels
 * only, from the same sources as the local venv (--find-links DIR mounted
 * read-only with network none, or --package-index URL with the host's
 * network); the container is committed as airlox-job:<hash of the image
 * and the allowlist key> and reused while it exists. Every job then runs
 * in that image. The versions come from the image's interpreter itself
 * (importlib.metadata), and the pins are checked as for --python.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "runnerd.h"
#include "runner-docker.h"
#include "runner-python.h"

#define DOCKERPY_WHEELS		"/.airlox-wheels"
#define DOCKERPY_OUT_MAX	(64 * 1024)

/* Make the venv and run pip in it with argv[1:]. */
static const char dockerpy_build_script[] =
    "import subprocess, sys, venv\n"
    "venv.create('" SANDBOX_PY_DIR "', with_pip=True)\n"
    "sys.exit(subprocess.call(['" SANDBOX_PY_DIR "/bin/python3', '-m', "
    "'pip'] + sys.argv[1:]))\n";

static void
dockerpy_tag(const char *base, const char *key, char *tag, size_t len)
{
	static const char	hex[] = "0123456789abcdef";
	struct alx_sha256_ctx	c;
	uint8_t			h[ALX_HASH_LEN];
	char			x[17];
	size_t			i;

	alx_sha256_init(&c);
	alx_sha256_update(&c, "airlox-job-image 1", 19);
	alx_sha256_update(&c, base, strlen(base) + 1);
	alx_sha256_update(&c, key, strlen(key) + 1);
	alx_sha256_final(&c, h);
	for (i = 0; i < 8; i++) {
		x[2 * i] = hex[h[i] >> 4];
		x[2 * i + 1] = hex[h[i] & 15];
	}
	x[16] = '\0';
	snprintf(tag, len, "airlox-job:%s", x);
}

static int
dockerpy_build(struct runner_docker *d, const char *base, const char *tag,
    const struct alx_job_limits *lim, const struct runner_pyopts *o,
    char **cause)
{
	struct runner_docker_runopts	  ro;
	const char			**pip = NULL, **cmd = NULL;
	char				 *out = NULL, line[300];
	size_t				  n, i;
	int				  r, code;

	/* The local venv's sources: --find-links, else the index (or pip's). */
	if ((r = runner_pyenv_pip_args(lim, o->index_url, o->find_links !=
	    NULL ? DOCKERPY_WHEELS : NULL, &pip, &n)) != ALX_OK)
		return r;
	if ((cmd = calloc(n + 4, sizeof(*cmd))) == NULL) {
		free(pip);
		return ALX_ERR_NOMEM;
	}
	cmd[0] = "python3";
	cmd[1] = "-c";
	cmd[2] = dockerpy_build_script;
	for (i = 0; i < n; i++)
		cmd[3 + i] = pip[i];
	memset(&ro, 0, sizeof(ro));
	ro.label = sandbox_docker_label();
	ro.user = "0:0";
	ro.rw = 1;
	ro.net_host = o->find_links == NULL;
	ro.bind_src = o->find_links;
	ro.bind_dst = o->find_links != NULL ? DOCKERPY_WHEELS : NULL;
	ro.commit = tag;
	ro.stderr_too = 1;
	ro.timeout_ms = (long)(o->timeout_s > 0 ? o->timeout_s : 900) * 1000;
	r = runner_docker_run(d, base, cmd, &ro, DOCKERPY_OUT_MAX, &code, &out,
	    cause);
	free(cmd);
	free(pip);
	if (r == ALX_OK && code != 0) {
		runner_py_last_line(out, line, sizeof(line));
		if (asprintf(cause, "building the job image for the allowlist "
		    "in %s: pip: %s", base, line) == -1)
			*cause = NULL;
		r = ALX_ERR_IO;
	}
	free(out);
	return r;
}

/* The interpreter's version and each allowlisted package's, in image. */
static int
dockerpy_probe(struct runner_docker *d, const char *image, const char *py,
    struct runner_pyenv *pe, const struct alx_job_limits *lim, char **cause)
{
	struct runner_docker_runopts	  ro;
	const char			**cmd;
	char				  name[160], *out = NULL, line[300];
	const char			 *spec;
	size_t				  i;
	int				  r, code;

	if ((cmd = calloc(lim->npackages + 5, sizeof(*cmd))) == NULL)
		return ALX_ERR_NOMEM;
	cmd[0] = py;
	cmd[1] = "-I";
	cmd[2] = "-c";
	cmd[3] = runner_pyenv_probe_script;
	for (i = 0; i < lim->npackages; i++) {
		if (runner_pyreq_split(lim->packages[i], name, sizeof(name),
		    &spec) != ALX_OK || (cmd[4 + i] = strdup(name)) == NULL) {
			while (i-- > 0)
				free((char *)cmd[4 + i]);
			free(cmd);
			return ALX_ERR_INVALID;
		}
	}
	memset(&ro, 0, sizeof(ro));
	ro.label = sandbox_docker_label();
	ro.stderr_too = 1;	/* a failure's last line is the reason */
	r = runner_docker_run(d, image, cmd, &ro, DOCKERPY_OUT_MAX, &code,
	    &out, cause);
	for (i = 0; i < lim->npackages; i++)
		free((char *)cmd[4 + i]);
	free(cmd);
	if (r == ALX_ERR_NOT_FOUND || (r == ALX_OK && code == 127)) {
		free(*cause);
		if (asprintf(cause, "the image %s has no python3: add it, e.g. "
		    "`apt-get install python3` in its Dockerfile", image) == -1)
			*cause = NULL;
		r = ALX_ERR_NOT_FOUND;
	} else if (r == ALX_OK && (code != 0 ||
	    runner_pyenv_parse(pe, out, strlen(out)) != ALX_OK ||
	    pe->version[0] == '\0')) {
		runner_py_last_line(out, line, sizeof(line));
		if (asprintf(cause, "python3 in the image %s did not say its "
		    "version (exit %d): %s", image, code, line) == -1)
			*cause = NULL;
		r = ALX_ERR_IO;
	}
	free(out);
	return r;
}

/* "python3.11" names major.minor; the image's must be that. */
static int
dockerpy_runtime_ok(const struct runner_pyenv *pe, const char *runtime)
{
	size_t	n;

	if (runtime == NULL || strncmp(runtime, "python", 6) != 0)
		return 1;
	n = strlen(runtime + 6);
	if (n == 0 || strcmp(runtime + 6, "3") == 0)
		return 1;
	return strncmp(pe->version, runtime + 6, n) == 0 &&
	    pe->version[n] == '.';
}

int
runner_docker_pyenv(struct runner_pyenv *pe, const struct alx_job_limits *lim,
    const struct runner_pyopts *o, char **cause)
{
	struct runner_docker	*d;
	char			 base[256], image[300], key[33], who[400];
	const char		*py = "python3";
	int			 r, exists = 0;

	*cause = NULL;
	runner_pyenv_free(pe);
	snprintf(base, sizeof(base), "%s", runner_docker_base());
	snprintf(image, sizeof(image), "%s", base);
	runner_pyenv_key(lim, o, key);
	if ((r = runner_docker_open(&d, cause)) != ALX_OK)
		return r;
	if (lim->npackages > 0) {
		dockerpy_tag(base, key, image, sizeof(image));
		py = SANDBOX_PY_DIR "/bin/python3";
		if ((r = runner_docker_image_exists(d, image, &exists)) ==
		    ALX_OK && !exists)
			r = dockerpy_build(d, base, image, lim, o, cause);
	}
	if (r == ALX_OK)
		r = dockerpy_probe(d, image, py, pe, lim, cause);
	runner_docker_close(d);
	snprintf(who, sizeof(who), "the image %s", image);
	if (r == ALX_OK && !dockerpy_runtime_ok(pe, lim->runtime)) {
		if (asprintf(cause, "%s has python %s, not %s", who,
		    pe->version, lim->runtime) == -1)
			*cause = NULL;
		r = ALX_ERR_NOT_FOUND;
	}
	if (r == ALX_OK)
		r = runner_pyenv_check(pe, lim, who, cause);
	if (r != ALX_OK) {
		runner_pyenv_free(pe);
		snprintf(pe->key, sizeof(pe->key), "%s", key);
		snprintf(pe->error, sizeof(pe->error), "%s", *cause != NULL ?
		    *cause : alx_errname(r));
		return r;
	}
	pe->active = 1;
	snprintf(pe->source, sizeof(pe->source), "docker:%.150s", image);
	snprintf(pe->python, sizeof(pe->python), "%s", py);
	snprintf(pe->image, sizeof(pe->image), "%.255s", image);
	snprintf(pe->key, sizeof(pe->key), "%s", key);
	pe->prefix[0] = '\0';		/* a path inside the image: not ours */
	/* Every job of the session runs in that image from now on. */
	return sandbox_docker_setup(image, sandbox_docker_label());
}
