/*
 * runner-python.c: the Python runtime of a session's jobs.
 *
 * At join, and whenever the owner changes the limits, the runner makes
 * what the session's runtime and package allowlist ask for:
 *
 *	--python PATH	the operator's interpreter as is, refused when an
 *			allowlisted package is missing there or has a version
 *			its pin does not allow;
 *	a venv		made with the machine's pythonX.Y and pip, in
 *			STATE_DIR/cache/venv-KEY (KEY: a hash of the runtime,
 *			the sorted allowlist and the package source), built in
 *			a temporary folder and renamed into place, so a
 *			half-made venv is never used; reused while it exists.
 *
 * pip and the interpreter run with a clean environment, outside every
 * workspace, under a time limit; what they print is read by us, never
 * shown to a job. Also here: the result env members and the admission of
 * a job's requirements (the PEP 440 subset is in runner-pep440.c).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "airlox/jobmeta.h"
#include "log.h"
#include "runnerd.h"
#include "runner-python.h"


/* Where the machine's interpreters are looked for (not the caller's PATH). */
static const char *const py_bin_dirs[] = { "/usr/local/bin", "/usr/bin",
    "/bin", NULL };

/*
 * The runtime, its packages, the env.
 */
void
runner_pyenv_free(struct runner_pyenv *pe)
{
	size_t	i;

	for (i = 0; i < pe->npkgs; i++) {
		free(pe->pkgs[i].name);
		free(pe->pkgs[i].version);
	}
	free(pe->pkgs);
	memset(pe, 0, sizeof(*pe));
}

void
runner_pyenv_json(const struct runner_pyenv *pe, struct alx_jw *w)
{
	size_t	i;

	if (pe == NULL || !pe->active)
		return;
	alx_jw_kstr(w, "python", pe->version);
	alx_jw_key(w, "packages");
	alx_jw_obj_begin(w);
	for (i = 0; i < pe->npkgs; i++) {
		alx_jw_key(w, pe->pkgs[i].name);
		if (pe->pkgs[i].version != NULL)
			alx_jw_str(w, pe->pkgs[i].version);
		else
			alx_jw_null(w);
	}
	alx_jw_obj_end(w);
	alx_jw_kstr(w, "python_source", pe->source);
}

int
runner_pyenv_admit(const struct alx_job_limits *lim,
    const struct alx_jobmeta *jm, const char **what)
{
	char		 want[160], have[160], name[160];
	const char	*spec;
	size_t		 i, k;

	*what = NULL;
	for (i = 0; i < jm->nreqs; i++) {
		*what = jm->reqs[i];
		if (runner_pyname_norm(jm->reqs[i], want, sizeof(want)) !=
		    ALX_OK)
			return ALX_ERR_NOT_ALLOWED;
		for (k = 0; lim != NULL && k < lim->npackages; k++)
			if (runner_pyreq_split(lim->packages[k], name,
			    sizeof(name), &spec) == ALX_OK &&
			    runner_pyname_norm(name, have, sizeof(have)) ==
			    ALX_OK && strcmp(want, have) == 0)
				break;
		if (lim == NULL || k == lim->npackages)
			return ALX_ERR_NOT_ALLOWED;
	}
	*what = NULL;
	return ALX_OK;
}

int
runner_pyenv_pip_args(const struct alx_job_limits *lim,
    const char *index_url, const char *find_links, const char ***argvp,
    size_t *argcp)
{
	const char	**v;
	size_t		  n = 0, i;

	*argvp = NULL;
	*argcp = 0;
	if ((v = calloc(lim->npackages + 12, sizeof(*v))) == NULL)
		return ALX_ERR_NOMEM;
	v[n++] = "install";
	v[n++] = "--no-input";
	v[n++] = "--disable-pip-version-check";
	v[n++] = "--no-cache-dir";
	/* Wheels only: no package's build script runs on this machine. */
	v[n++] = "--only-binary=:all:";
	if (find_links != NULL) {
		v[n++] = "--no-index";
		v[n++] = "--find-links";
		v[n++] = find_links;
	} else if (index_url != NULL) {
		v[n++] = "--index-url";
		v[n++] = index_url;
	}
	v[n++] = "--";
	for (i = 0; i < lim->npackages; i++)
		v[n++] = lim->packages[i];
	v[n] = NULL;
	*argvp = v;
	*argcp = n;
	return ALX_OK;
}

/*
 * The interpreter's version and prefix, then each named package's version.
 * importlib.metadata only when a package is named: it needs modules that
 * a minimal Python (Debian's python3-minimal) lacks, such as shutil.
 */
const char runner_pyenv_probe_script[] =
    "import sys\n"
    "print('python %d.%d.%d' % tuple(sys.version_info[:3]))\n"
    "print('prefix ' + sys.prefix)\n"
    "sys.stdout.flush()\n"
    "if len(sys.argv) > 1:\n"
    "    from importlib import metadata\n"
    "for n in sys.argv[1:]:\n"
    "    try:\n"
    "        v = metadata.version(n)\n"
    "    except Exception:\n"
    "        v = '-'\n"
    "    print('pkg %s %s' % (n, v))\n";

/* A version as a tool printed it: [A-Za-z0-9.+!_-], 1..31 bytes. */
static int
py_token_ok(const char *s, size_t max)
{
	size_t	i;

	for (i = 0; s[i] != '\0'; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '+' ||
		    c == '!' || c == '_' || c == '-'))
			return 0;
	}
	return i > 0 && i <= max;
}

static int
py_pkg_add(struct runner_pyenv *pe, const char *name, const char *version)
{
	struct runner_pypkg	*np;

	if (pe->npkgs >= 256)
		return ALX_ERR_TOO_LARGE;
	np = reallocarray(pe->pkgs, pe->npkgs + 1, sizeof(*np));
	if (np == NULL)
		return ALX_ERR_NOMEM;
	pe->pkgs = np;
	np = &pe->pkgs[pe->npkgs];
	np->version = NULL;
	if ((np->name = strdup(name)) == NULL || (strcmp(version, "-") != 0 &&
	    (np->version = strdup(version)) == NULL)) {
		free(np->name);
		return ALX_ERR_NOMEM;
	}
	pe->npkgs++;
	return ALX_OK;
}

int
runner_pyenv_parse(struct runner_pyenv *pe, const char *out, size_t len)
{
	char	 line[PATH_MAX + 16], *sp, *sp2;
	size_t	 i = 0, l;
	int	 r;

	pe->version[0] = '\0';
	while (i < len) {
		for (l = 0; i + l < len && out[i + l] != '\n'; l++)
			;
		if (l >= sizeof(line))
			return ALX_ERR_TOO_LARGE;
		memcpy(line, out + i, l);
		line[l] = '\0';
		i += l + 1;
		if (strncmp(line, "python ", 7) == 0) {
			if (!py_token_ok(line + 7, sizeof(pe->version) - 1))
				return ALX_ERR_INVALID;
			snprintf(pe->version, sizeof(pe->version), "%.31s",
			    line + 7);
		} else if (strncmp(line, "prefix ", 7) == 0) {
			if (line[7] != '/' || runner_pathf(pe->prefix,
			    sizeof(pe->prefix), "%s", line + 7) != ALX_OK)
				return ALX_ERR_INVALID;
		} else if (strncmp(line, "pkg ", 4) == 0) {
			if ((sp = strchr(line + 4, ' ')) == NULL)
				return ALX_ERR_INVALID;
			*sp++ = '\0';
			if ((sp2 = strchr(sp, ' ')) != NULL)
				*sp2 = '\0';
			if (!py_token_ok(line + 4, 127) || !py_token_ok(sp, 63))
				return ALX_ERR_INVALID;
			if ((r = py_pkg_add(pe, line + 4, sp)) != ALX_OK)
				return r;
		}
	}
	return pe->version[0] != '\0' ? ALX_OK : ALX_ERR_INVALID;
}

static const struct runner_pypkg *
py_pkg_find(const struct runner_pyenv *pe, const char *name)
{
	char	a[160], b[160];
	size_t	i;

	if (runner_pyname_norm(name, a, sizeof(a)) != ALX_OK)
		return NULL;
	for (i = 0; i < pe->npkgs; i++)
		if (runner_pyname_norm(pe->pkgs[i].name, b, sizeof(b)) ==
		    ALX_OK && strcmp(a, b) == 0)
			return &pe->pkgs[i];
	return NULL;
}

int
runner_pyenv_check(const struct runner_pyenv *pe,
    const struct alx_job_limits *lim, const char *who, char **cause)
{
	const struct runner_pypkg	*p;
	char				 name[160];
	const char			*spec;
	size_t				 i;
	int				 r;

	*cause = NULL;
	for (i = 0; i < lim->npackages; i++) {
		if (runner_pyreq_split(lim->packages[i], name, sizeof(name),
		    &spec) != ALX_OK)
			return ALX_ERR_INVALID;
		p = py_pkg_find(pe, name);
		if (p == NULL || p->version == NULL) {
			if (asprintf(cause, "%s has no %s, but the session %s "
			    "%s", who, name, *spec ? "pins" : "allows",
			    lim->packages[i]) == -1)
				*cause = NULL;
			return ALX_ERR_NOT_ALLOWED;
		}
		if ((r = runner_pep440_match(p->version, spec)) == 1)
			continue;
		if (asprintf(cause, "%s has %s %s, but the session pins %s%s",
		    who, name, p->version, lim->packages[i], r < 0 ?
		    " (a version or pin this runner cannot compare)" : "") == -1)
			*cause = NULL;
		return ALX_ERR_NOT_ALLOWED;
	}
	return ALX_OK;
}

static void
py_pkgs_clear(struct runner_pyenv *pe)
{
	while (pe->npkgs > 0) {
		pe->npkgs--;
		free(pe->pkgs[pe->npkgs].name);
		free(pe->pkgs[pe->npkgs].version);
	}
}

/* Run the probe with `python`: fills pe's version, prefix and pkgs. */
static int
py_probe(struct runner_pyenv *pe, const struct alx_job_limits *lim,
    const char *python, const char *cwd, int timeout_s, char **cause)
{
	const char	**argv;
	char		 *out = NULL, name[160], last[256];
	const char	 *spec;
	size_t		  i, n = 0;
	int		  r = ALX_OK, to;

	*cause = NULL;
	if ((argv = calloc(lim->npackages + 5, sizeof(*argv))) == NULL)
		return ALX_ERR_NOMEM;
	argv[n++] = python;
	argv[n++] = "-I";
	argv[n++] = "-c";
	argv[n++] = runner_pyenv_probe_script;
	/* The names alone, without their specifiers. */
	for (i = 0; i < lim->npackages && r == ALX_OK; i++) {
		if (runner_pyreq_split(lim->packages[i], name, sizeof(name),
		    &spec) != ALX_OK)
			r = ALX_ERR_INVALID;
		else if ((argv[n] = strdup(name)) == NULL)
			r = ALX_ERR_NOMEM;
		else
			n++;
	}
	argv[n] = NULL;
	if (r == ALX_OK)
		r = runner_py_run(argv, cwd, timeout_s, &out, &to);
	if (r == ALX_OK) {
		py_pkgs_clear(pe);
		r = runner_pyenv_parse(pe, out, strlen(out));
		runner_py_last_line(out, last, sizeof(last));
		if (r != ALX_OK && asprintf(cause, "%s did not say its version "
		    "(%s): %s", python, alx_errname(r), last) == -1)
			*cause = NULL;
	} else if (r == ALX_ERR_IO) {
		runner_py_last_line(out != NULL ? out : "", last, sizeof(last));
		if (asprintf(cause, "%s did not run%s: %s", python,
		    to ? " in time" : "", last) == -1)
			*cause = NULL;
	}
	for (i = 4; i < n; i++)
		free((char *)argv[i]);
	free(argv);
	free(out);
	return r;
}

/* "3.11.2" -> "python3.11". */
static void
py_runtime_name(const char *version, char *out, size_t len)
{
	const char	*d1, *d2;

	d1 = strchr(version, '.');
	d2 = d1 != NULL ? strchr(d1 + 1, '.') : NULL;
	snprintf(out, len, "python%.*s", d2 != NULL ? (int)(d2 - version) :
	    (int)strlen(version), version);
}

/* The runtime names this machine has: "python3.11 and python3.12". */
static void
py_machine_has(char *out, size_t len)
{
	char		 names[8][64];
	size_t		 n = 0, i, k;
	DIR		*d;
	struct dirent	*de;
	const char	*p;

	for (i = 0; py_bin_dirs[i] != NULL; i++) {
		if ((d = opendir(py_bin_dirs[i])) == NULL)
			continue;
		while ((de = readdir(d)) != NULL && n < 8) {
			if (strncmp(de->d_name, "python3.", 8) != 0)
				continue;
			for (p = de->d_name + 8; *p >= '0' && *p <= '9'; p++)
				;
			if (*p != '\0' || p == de->d_name + 8)
				continue;
			for (k = 0; k < n; k++)
				if (strcmp(names[k], de->d_name) == 0)
					break;
			if (k == n)
				snprintf(names[n++], sizeof(names[0]), "%.63s",
				    de->d_name);
		}
		closedir(d);
	}
	if (n == 0) {
		snprintf(out, len, "no python3");
		return;
	}
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		size_t	used = strlen(out);

		snprintf(out + used, len - used, "%s%s", i == 0 ? "" :
		    i + 1 == n ? " and " : ", ", names[i]);
	}
}

/* The machine's interpreter for a runtime name ("python3.11", "python3"). */
static int
py_find_runtime(const char *runtime, char *path, size_t len, char **cause)
{
	const char	*p;
	char		 has[256];
	size_t		 i;

	*cause = NULL;
	p = runtime + 7;
	if (strncmp(runtime, "python3", 7) == 0 && *p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
		if (p == runtime + 8)
			p = "x";
	}
	if (strncmp(runtime, "python3", 7) == 0 && *p == '\0') {
		for (i = 0; py_bin_dirs[i] != NULL; i++) {
			if ((size_t)snprintf(path, len, "%s/%s", py_bin_dirs[i],
			    runtime) < len && access(path, X_OK) == 0)
				return ALX_OK;
		}
	}
	py_machine_has(has, sizeof(has));
	if (asprintf(cause, "the session needs %s; this machine has %s "
	    "(install %s or pass --python)", runtime, has, runtime) == -1)
		*cause = NULL;
	return ALX_ERR_NOT_FOUND;
}

static int
py_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if (flag == FTW_DP)
		return rmdir(path) == 0 || errno == ENOENT ? 0 : -1;
	return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* Remove a folder the runner made (never following a symlink out). */
static void
py_rmtree(const char *dir)
{
	nftw(dir, py_rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

void
runner_pyenv_key(const struct alx_job_limits *lim,
    const struct runner_pyopts *o, char out[33])
{
	static const char	 hex[] = "0123456789abcdef";
	struct alx_sha256_ctx	 c;
	uint8_t			 h[ALX_HASH_LEN];
	const char		**v;
	size_t			  i, k, n = lim->npackages;

	alx_sha256_init(&c);
	alx_sha256_update(&c, "airlox-venv 1", 14);
	alx_sha256_update(&c, lim->runtime ? lim->runtime : "python3",
	    strlen(lim->runtime ? lim->runtime : "python3") + 1);
	/* The allowlist sorted: the same set is the same venv. */
	if ((v = calloc(n + 1, sizeof(*v))) != NULL) {
		for (i = 0; i < n; i++) {
			for (k = i; k > 0 && strcmp(v[k - 1],
			    lim->packages[i]) > 0; k--)
				v[k] = v[k - 1];
			v[k] = lim->packages[i];
		}
		for (i = 0; i < n; i++)
			alx_sha256_update(&c, v[i], strlen(v[i]) + 1);
		free(v);
	}
	alx_sha256_update(&c, "\n", 1);
	if (o->python != NULL) {
		alx_sha256_update(&c, "python:", 7);
		alx_sha256_update(&c, o->python, strlen(o->python));
	} else if (o->find_links != NULL) {
		alx_sha256_update(&c, "find-links:", 11);
		alx_sha256_update(&c, o->find_links, strlen(o->find_links));
	} else if (o->index_url != NULL) {
		alx_sha256_update(&c, "index:", 6);
		alx_sha256_update(&c, o->index_url, strlen(o->index_url));
	} else
		alx_sha256_update(&c, "default", 7);
	alx_sha256_final(&c, h);
	for (i = 0; i < 16; i++) {
		out[2 * i] = hex[h[i] >> 4];
		out[2 * i + 1] = hex[h[i] & 15];
	}
	out[32] = '\0';
}

/* Name the allowlisted package pip's line is about, when it names one. */
static void
py_pip_reason(const struct alx_job_limits *lim, const char *out,
    char *why, size_t len)
{
	char		 last[320], name[160], low[320], nn[160];
	const char	*spec;
	size_t		 i, k;

	runner_py_last_line(out, last, sizeof(last));
	for (k = 0; last[k] != '\0' && k < sizeof(low) - 1; k++)
		low[k] = (last[k] >= 'A' && last[k] <= 'Z') ? last[k] - 'A' +
		    'a' : last[k];
	low[k] = '\0';
	for (i = 0; i < lim->npackages; i++) {
		if (runner_pyreq_split(lim->packages[i], name, sizeof(name),
		    &spec) != ALX_OK || runner_pyname_norm(name, nn,
		    sizeof(nn)) != ALX_OK)
			continue;
		if (strstr(low, nn) != NULL) {
			snprintf(why, len, "pip could not install %s: %s",
			    lim->packages[i], last);
			return;
		}
	}
	snprintf(why, len, "pip could not install the session's packages (%s"
	    "%s): %s", lim->npackages > 0 ? lim->packages[0] : "",
	    lim->npackages > 1 ? ", ..." : "", last);
}

/* Make the venv in tmp: python -m venv, then pip install. */
static int
py_venv_build(const char *python, const char *tmp,
    const struct alx_job_limits *lim, const struct runner_pyopts *o,
    char *why, size_t wlen)
{
	const char	*argv[8], **pip = NULL, **full = NULL;
	char		 vpy[PATH_MAX], *out = NULL, last[256];
	size_t		 n, i;
	int		 r, to;

	argv[0] = python;
	argv[1] = "-I";
	argv[2] = "-m";
	argv[3] = "venv";
	argv[4] = tmp;
	argv[5] = NULL;
	r = runner_py_run(argv, o->cache_dir, o->timeout_s, &out, &to);
	if (r != ALX_OK) {
		runner_py_last_line(out != NULL ? out : "", last, sizeof(last));
		snprintf(why, wlen, "%.150s -m venv failed%s: %.200s (Debian: "
		    "install python3-venv)", python, to ? " (time limit)" : "",
		    last);
		free(out);
		return r == ALX_ERR_NOMEM ? r : ALX_ERR_IO;
	}
	free(out);
	out = NULL;
	if (lim->npackages == 0)
		return ALX_OK;
	if ((r = runner_pyenv_pip_args(lim, o->index_url, o->find_links,
	    &pip, &n)) != ALX_OK)
		return r;
	if ((full = calloc(n + 5, sizeof(*full))) == NULL) {
		free(pip);
		return ALX_ERR_NOMEM;
	}
	if (runner_pathf(vpy, sizeof(vpy), "%s/bin/python3", tmp) != ALX_OK) {
		free(full);
		free(pip);
		return ALX_ERR_BAD_PATH;
	}
	full[0] = vpy;
	full[1] = "-I";
	full[2] = "-m";
	full[3] = "pip";
	for (i = 0; i < n; i++)
		full[4 + i] = pip[i];
	full[4 + n] = NULL;
	r = runner_py_run(full, o->cache_dir, o->timeout_s, &out, &to);
	if (r != ALX_OK) {
		if (to)
			snprintf(why, wlen, "pip did not finish within %d s "
			    "installing %s", o->timeout_s, lim->packages[0]);
		else
			py_pip_reason(lim, out != NULL ? out : "", why, wlen);
		r = r == ALX_ERR_NOMEM ? r : ALX_ERR_IO;
	}
	free(out);
	free(full);
	free(pip);
	return r;
}

static int
py_fail(struct runner_pyenv *pe, char **cause, int r)
{
	if ((*cause = strdup(pe->error)) == NULL)
		return ALX_ERR_NOMEM;
	return r;
}

/* Reuse venv-KEY when it answers and fits; 1 when it was reused. */
static int
py_venv_reuse(struct runner_pyenv *pe, const struct alx_job_limits *lim,
    const struct runner_pyopts *o, const char *dir)
{
	struct stat	 st;
	char		 vpy[PATH_MAX], *cause = NULL;
	int		 ok;

	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (runner_pathf(vpy, sizeof(vpy), "%s/bin/python3", dir) != ALX_OK)
		return 0;
	ok = py_probe(pe, lim, vpy, o->cache_dir, o->timeout_s, &cause) ==
	    ALX_OK && runner_pyenv_check(pe, lim, "the venv", &cause) ==
	    ALX_OK;
	if (!ok) {
		log_warnx("python: %s is unusable (%s); making it again", dir,
		    cause ? cause : "error");
		py_rmtree(dir);
	}
	free(cause);
	return ok;
}

/* Half-made venvs a crash left (older than any build may take). */
static void
py_venv_sweep(const struct runner_pyopts *o)
{
	char		 path[PATH_MAX];
	struct stat	 st;
	struct dirent	*de;
	DIR		*d;
	time_t		 old = time(NULL) - o->timeout_s - 60;

	if ((d = opendir(o->cache_dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "tmp-venv-", 9) != 0 ||
		    runner_pathf(path, sizeof(path), "%s/%s", o->cache_dir,
		    de->d_name) != ALX_OK || lstat(path, &st) != 0 ||
		    !S_ISDIR(st.st_mode) || st.st_mtime > old)
			continue;
		log_info("python: removing %s, left by an earlier run",
		    de->d_name);
		py_rmtree(path);
	}
	closedir(d);
}

static int
py_venv(struct runner_pyenv *pe, const struct alx_job_limits *lim,
    const struct runner_pyopts *o, const char *python, char **cause)
{
	char	 dir[PATH_MAX], tmp[PATH_MAX], vpy[PATH_MAX], *c2 = NULL;
	int	 r;

	if (mkdir(o->cache_dir, 0711) == -1 && errno != EEXIST) {
		snprintf(pe->error, sizeof(pe->error), "cannot make the cache "
		    "dir %s: %s", o->cache_dir, strerror(errno));
		return py_fail(pe, cause, ALX_ERR_IO);
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%s/venv-%s", o->cache_dir,
	    pe->key) >= sizeof(dir) || (size_t)snprintf(tmp, sizeof(tmp),
	    "%s/tmp-venv-XXXXXX", o->cache_dir) >= sizeof(tmp))
		return ALX_ERR_BAD_PATH;
	py_venv_sweep(o);
	if (py_venv_reuse(pe, lim, o, dir)) {
		log_info("python: reusing venv-%s (%s)", pe->key,
		    lim->runtime ? lim->runtime : "python3");
		return ALX_OK;
	}
	if (o->find_links == NULL && o->index_url == NULL &&
	    lim->npackages > 0)
		log_warnx("python: no --find-links or --package-index: pip "
		    "uses its default index (pypi.org)");
	log_info("python: making venv-%s with %s (%zu package(s))", pe->key,
	    python, lim->npackages);
	if (mkdtemp(tmp) == NULL) {
		snprintf(pe->error, sizeof(pe->error), "cannot make a folder "
		    "in %s: %s", o->cache_dir, strerror(errno));
		return py_fail(pe, cause, ALX_ERR_IO);
	}
	chmod(tmp, 0755);
	if ((r = py_venv_build(python, tmp, lim, o, pe->error,
	    sizeof(pe->error))) != ALX_OK) {
		py_rmtree(tmp);
		return py_fail(pe, cause, r);
	}
	runner_pathf(vpy, sizeof(vpy), "%s/bin/python3", tmp);
	if ((r = py_probe(pe, lim, vpy, o->cache_dir, o->timeout_s,
	    &c2)) != ALX_OK || (r = runner_pyenv_check(pe, lim,
	    "the new venv", &c2)) != ALX_OK) {
		snprintf(pe->error, sizeof(pe->error), "%.500s", c2 ? c2 :
		    alx_errname(r));
		free(c2);
		py_rmtree(tmp);
		return py_fail(pe, cause, r == ALX_ERR_NOT_ALLOWED ?
		    ALX_ERR_IO : r);
	}
	/* Whole, or not there: a half-made venv never has the name. */
	if (rename(tmp, dir) == -1) {
		py_rmtree(tmp);
		if (!py_venv_reuse(pe, lim, o, dir)) {
			snprintf(pe->error, sizeof(pe->error), "cannot move "
			    "the venv into place: %s", strerror(errno));
			return py_fail(pe, cause, ALX_ERR_IO);
		}
	}
	log_info("python: venv-%s ready", pe->key);
	return ALX_OK;
}

/* --python PATH: as is, when it fits the runtime and the pins. */
static int
py_given(struct runner_pyenv *pe, const struct alx_job_limits *lim,
    const struct runner_pyopts *o, char **cause)
{
	char	 rt[48];
	int	 r;

	if (o->python[0] != '/') {
		if (asprintf(cause, "--python %s: an absolute path", o->python)
		    == -1)
			*cause = NULL;
		return ALX_ERR_NOT_FOUND;
	}
	if ((r = py_probe(pe, lim, o->python, o->cache_dir, o->timeout_s,
	    cause)) != ALX_OK)
		return ALX_ERR_NOT_FOUND;
	py_runtime_name(pe->version, rt, sizeof(rt));
	if (lim->runtime != NULL && strcmp(lim->runtime, "python3") != 0 &&
	    strcmp(lim->runtime, rt) != 0) {
		if (asprintf(cause, "the session needs %s; --python is %s "
		    "(%s)", lim->runtime, rt, pe->version) == -1)
			*cause = NULL;
		return ALX_ERR_NOT_FOUND;
	}
	if ((r = runner_pyenv_check(pe, lim, "--python", cause)) != ALX_OK)
		return r;
	snprintf(pe->source, sizeof(pe->source), "--python");
	if (!o->mount || strncmp(pe->prefix, "/usr", 4) == 0) {
		/* /usr is in every local sandbox: the path as it is. */
		snprintf(pe->python, sizeof(pe->python), "%s", o->python);
		return ALX_OK;
	}
	snprintf(pe->host_dir, sizeof(pe->host_dir), "%s", pe->prefix);
	if (strncmp(o->python, pe->prefix, strlen(pe->prefix)) == 0 &&
	    o->python[strlen(pe->prefix)] == '/')
		snprintf(pe->python, sizeof(pe->python), SANDBOX_PY_DIR "%s",
		    o->python + strlen(pe->prefix));
	else
		snprintf(pe->python, sizeof(pe->python), SANDBOX_PY_DIR
		    "/bin/python3");
	return ALX_OK;
}

int
runner_pyenv_prepare(struct runner_pyenv *pe,
    const struct alx_job_limits *lim, const struct runner_pyopts *o,
    char **cause)
{
	const char	*runtime = lim->runtime ? lim->runtime : "python3";
	char		 python[PATH_MAX], key[33];
	int		 r;

	*cause = NULL;
	runner_pyenv_free(pe);
	runner_pyenv_key(lim, o, key);
	memcpy(pe->key, key, sizeof(pe->key));
	/* The tools run in the cache dir, never in a workspace. */
	if (mkdir(o->cache_dir, 0711) == -1 && errno != EEXIST) {
		snprintf(pe->error, sizeof(pe->error), "cannot make the cache "
		    "dir %.400s: %s", o->cache_dir, strerror(errno));
		return py_fail(pe, cause, ALX_ERR_IO);
	}
	if (o->python != NULL)
		r = py_given(pe, lim, o, cause);
	else if ((r = py_find_runtime(runtime, python, sizeof(python),
	    cause)) == ALX_OK && lim->npackages == 0) {
		/* No packages: the machine's interpreter, as it is. */
		if ((r = py_probe(pe, lim, python, o->cache_dir, o->timeout_s,
		    cause)) == ALX_OK) {
			snprintf(pe->source, sizeof(pe->source), "system");
			snprintf(pe->python, sizeof(pe->python), "%s", python);
		}
	} else if (r == ALX_OK && (r = py_venv(pe, lim, o, python,
	    cause)) == ALX_OK) {
		snprintf(pe->source, sizeof(pe->source), "venv");
		snprintf(pe->host_dir, sizeof(pe->host_dir), "%s/venv-%s",
		    o->cache_dir, pe->key);
		if (o->mount)
			snprintf(pe->python, sizeof(pe->python),
			    SANDBOX_PY_DIR "/bin/python3");
		else
			runner_pathf(pe->python, sizeof(pe->python),
			    "%s/bin/python3", pe->host_dir);
		/* The venv is the prefix (for redaction). */
		snprintf(pe->prefix, sizeof(pe->prefix), "%s", pe->host_dir);
	}
	if (r != ALX_OK) {
		if (pe->error[0] == '\0' && *cause != NULL)
			snprintf(pe->error, sizeof(pe->error), "%s", *cause);
		py_pkgs_clear(pe);
		pe->active = 0;
		return r;
	}
	pe->error[0] = '\0';
	pe->active = 1;
	return ALX_OK;
}
