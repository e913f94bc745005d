/*
 * runner-python.h: the Python runtime a session's jobs get.
 *
 * A session's job_limits may name a runtime ("python3.11") and an
 * allowlist of packages with optional PEP 440 pins. At join (and when the
 * owner changes the limits) the runner makes a runtime that fits them:
 *
 *	venv		--sandbox local/process: a virtual environment per
 *			allowlist in the runner's cache (outside every
 *			workspace), made with the machine's python and pip from
 *			--package-index URL or --find-links DIR; mounted
 *			read-only into local-sandbox jobs at SANDBOX_PY_DIR.
 *	--python	the operator's interpreter as is; refused when a pinned
 *			package has another version there.
 *	docker:IMAGE	--sandbox docker: an image per allowlist (the runner's
 *			image plus the pinned packages), built once, reused.
 *
 * Every result's env carries the Python version, each allowlisted
 * package's installed version and the source above; never a path.
 */
#ifndef ALX_RUNNER_PYTHON_H
#define ALX_RUNNER_PYTHON_H

#include <limits.h>
#include <stddef.h>

struct alx_jw;
struct alx_job_limits;
struct alx_jobmeta;

/* Where a local-sandbox job sees the venv (read-only). */
#define SANDBOX_PY_DIR		"/opt/airlox/python"

struct runner_pypkg {
	char	*name;		/* as the allowlist names it */
	char	*version;	/* installed, as the interpreter reports it */
};

struct runner_pyenv {
	int			 active;	/* 0: no runtime prepared */
	char			 source[160];	/* "venv", "--python",
						 * "docker:IMAGE", or
						 * "system" (no packages:
						 * the machine's pythonX.Y) */
	char			 version[32];	/* "3.11.2" */
	char			 host_dir[PATH_MAX]; /* venv to mount, or "" */
	char			 python[PATH_MAX]; /* argv[0] of python jobs,
						 * as the job sees it */
	char			 image[256];	/* docker: the job image */
	struct runner_pypkg	*pkgs;
	size_t			 npkgs;
	char			 prefix[PATH_MAX]; /* sys.prefix on the host */
	char			 key[33];	/* runtime + allowlist + source */
	char			 error[512];	/* why python jobs are refused */
};

/* How this runner makes runtimes (its options). */
struct runner_pyopts {
	const char	*python;	/* --python PATH, or NULL */
	const char	*index_url;	/* --package-index URL, or NULL */
	const char	*find_links;	/* --find-links DIR, or NULL */
	const char	*cache_dir;	/* STATE_DIR/cache */
	int		 mount;		/* 1: jobs see the venv at SANDBOX_PY_DIR */
	int		 timeout_s;	/* pip and venv: at most this long */
};

/*
 * The PEP 440 subset the runner needs (docs/python.md): versions are
 * compared by their release numbers (1.2 == 1.2.0), then dev < aN < bN <
 * rcN < final < postN; an epoch and a local part (+x) are refused.
 * runner_pep440_cmp: ALX_OK with *cmp < 0, 0, > 0, or ALX_ERR_INVALID.
 * runner_pep440_match: 1 when version satisfies every comma-joined clause
 * of spec (==, !=, <, <=, >, >=, ~=, ==X.*, !=X.*; "" matches all), 0 when
 * not, ALX_ERR_INVALID for a version or clause it cannot read.
 */
int	runner_pep440_cmp(const char *a, const char *b, int *cmp);
int	runner_pep440_match(const char *version, const char *spec);
/* "cugrid==0.1.0" -> name "cugrid", *spec "==0.1.0" (a pointer into req). */
int	runner_pyreq_split(const char *req, char *name, size_t len,
	    const char **spec);
/* PEP 503 name: lower case, each run of - _ . one '-'. */
int	runner_pyname_norm(const char *, char *out, size_t len);

/*
 * pip's arguments after "python -m pip" for an allowlist: "install", the
 * package source, then the requirements. *argv is a malloc'd NULL-ended
 * vector of borrowed strings (free only the vector).
 */
int	runner_pyenv_pip_args(const struct alx_job_limits *,
	    const char *index_url, const char *find_links, const char ***argv,
	    size_t *argc);
/*
 * A script for "python -I -c SCRIPT NAME..." that prints the interpreter's
 * version, prefix and each named package's installed version; and the
 * parser of its output into pe (version, prefix, pkgs).
 */
extern const char runner_pyenv_probe_script[];
int	runner_pyenv_parse(struct runner_pyenv *, const char *out, size_t len);
/*
 * Each allowlisted package must be installed, at a version its pin allows:
 * ALX_OK, or ALX_ERR_NOT_ALLOWED with *cause like "WHO has cugrid 0.2.1,
 * but the session pins cugrid==0.1.0" (malloc'd).
 */
int	runner_pyenv_check(const struct runner_pyenv *,
	    const struct alx_job_limits *, const char *who, char **cause);
/*
 * Make the runtime the session's limits ask for (--python, or a venv in
 * the cache, reused when it exists). ALX_ERR_NOT_FOUND: the runtime is
 * missing here; ALX_ERR_NOT_ALLOWED: --python does not fit the pins (both
 * refuse the session at join); another error: the venv could not be made
 * (pe->error says why; python jobs are refused). *cause: malloc'd text.
 */
int	runner_pyenv_prepare(struct runner_pyenv *,
	    const struct alx_job_limits *, const struct runner_pyopts *,
	    char **cause);
/* The identity of what prepare would make (hex), to see limits change. */
void	runner_pyenv_key(const struct alx_job_limits *,
	    const struct runner_pyopts *, char out[33]);

/* runner-pyrun.c */
/*
 * Run argv (argv[0] absolute) in cwd for at most timeout_s: ALX_OK when it
 * exited 0, else ALX_ERR_IO; *out: the tail of its output (malloc'd,
 * NUL-terminated; set unless ALX_ERR_NOMEM), *timed_out when it was
 * killed for time.
 */
int	runner_py_run(const char *const *argv, const char *cwd, int timeout_s,
	    char **out, int *timed_out);
/* The line of a tool's output that says why: pip's last "ERROR:" line,
 * else its last non-empty one. */
void	runner_py_last_line(const char *out, char *line, size_t len);

void	runner_pyenv_free(struct runner_pyenv *);
/* Add "python", "packages" and "python_source" to a result's env. */
void	runner_pyenv_json(const struct runner_pyenv *, struct alx_jw *);
/*
 * A job's requirements must all be names in the allowlist: ALX_OK, or
 * ALX_ERR_NOT_ALLOWED with *what the first name that is not.
 */
int	runner_pyenv_admit(const struct alx_job_limits *,
	    const struct alx_jobmeta *, const char **what);

#endif /* ALX_RUNNER_PYTHON_H */
