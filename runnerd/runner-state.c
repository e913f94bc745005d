/*
 * runner-state.c: the runner's state dir (key, invite, audit log, pending
 * results), kept outside every workspace, and the guard that keeps a work
 * root away from homes, the root and the state dir.
 *
 * A state dir belongs to one session (the one its invite names) and is
 * used by one runner process at a time (its lock). The default is one per
 * runner name, so machines on one host never share one:
 *	root	/var/lib/airlox-runner/NAME
 *	user	$XDG_STATE_HOME/airlox-runner/NAME (~/.local/state/...)
 * The lock and what goes with an ended session: runner-statedir.c.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runnerd.h"

int
runner_state_default(char *out, size_t len, const char *name)
{
	const char	*x = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	struct passwd	*pw;
	char		 base[PATH_MAX];

	if (geteuid() == 0)
		snprintf(base, sizeof(base), "/var/lib/airlox-runner");
	else if (x != NULL && x[0] == '/') {
		if ((size_t)snprintf(base, sizeof(base), "%s/airlox-runner",
		    x) >= sizeof(base))
			return ALX_ERR_TOO_LARGE;
	} else {
		if (home == NULL || home[0] != '/') {
			if ((pw = getpwuid(geteuid())) == NULL)
				return ALX_ERR_IO;
			home = pw->pw_dir;
		}
		if ((size_t)snprintf(base, sizeof(base),
		    "%s/.local/state/airlox-runner", home) >= sizeof(base))
			return ALX_ERR_TOO_LARGE;
	}
	if (name == NULL)
		return (size_t)snprintf(out, len, "%s", base) < len ? ALX_OK :
		    ALX_ERR_TOO_LARGE;
	return (size_t)snprintf(out, len, "%s/%s", base, name) < len ?
	    ALX_OK : ALX_ERR_TOO_LARGE;
}

/* mkdir -p with mode 0700 for the last component. */
static int
runner_mkdirs(const char *dir)
{
	char	 tmp[PATH_MAX], *p;

	if (strlen(dir) >= sizeof(tmp))
		return ALX_ERR_TOO_LARGE;
	strcpy(tmp, dir);
	for (p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) == -1 && errno != EEXIST)
			return ALX_ERR_IO;
		*p = '/';
	}
	if (mkdir(tmp, 0700) == -1 && errno != EEXIST)
		return ALX_ERR_IO;
	return ALX_OK;
}

int
runner_state_open(const char *dir, char **cause)
{
	struct stat	st;

	*cause = NULL;
	if (dir[0] != '/') {
		if (asprintf(cause, "state dir %s: not an absolute path",
		    dir) == -1)
			*cause = NULL;
		return ALX_ERR_BAD_PATH;
	}
	if (runner_mkdirs(dir) != ALX_OK || lstat(dir, &st) == -1) {
		if (asprintf(cause, "state dir %s: %s", dir,
		    strerror(errno)) == -1)
			*cause = NULL;
		return ALX_ERR_IO;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		if (asprintf(cause, "state dir %s: not a directory owned by "
		    "this user", dir) == -1)
			*cause = NULL;
		return ALX_ERR_BAD_PATH;
	}
	/* Nobody else may read the key or the invite. */
	if ((st.st_mode & 077) != 0 && chmod(dir, 0700) == -1) {
		if (asprintf(cause, "state dir %s: cannot make it 0700", dir) ==
		    -1)
			*cause = NULL;
		return ALX_ERR_IO;
	}
	return ALX_OK;
}

/* 1 when a is b or a parent of b (both canonical absolute paths). */
static int
runner_path_covers(const char *a, const char *b)
{
	size_t	n = strlen(a);

	if (strcmp(a, "/") == 0)
		return 1;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

int
runner_work_root_check(const char *root, const char *statedir, char **cause)
{
	char		 rroot[PATH_MAX], rstate[PATH_MAX], rhome[PATH_MAX];
	const char	*home = getenv("HOME");
	struct passwd	*pw;

	*cause = NULL;
	if (realpath(root, rroot) == NULL) {
		if (asprintf(cause, "work root %s: %s", root,
		    strerror(errno)) == -1)
			*cause = NULL;
		return ALX_ERR_BAD_PATH;
	}
	if (strcmp(rroot, "/") == 0)
		goto refuse;
	if (realpath(statedir, rstate) != NULL &&
	    (runner_path_covers(rroot, rstate) ||
	    runner_path_covers(rstate, rroot)))
		goto refuse;
	if (home != NULL && realpath(home, rhome) != NULL &&
	    runner_path_covers(rroot, rhome) && strcmp(rhome, "/") != 0)
		goto refuse;
	/* Every user's home, and their parents (/home itself). */
	setpwent();
	while ((pw = getpwent()) != NULL) {
		if (pw->pw_dir == NULL || strcmp(pw->pw_dir, "/") == 0 ||
		    realpath(pw->pw_dir, rhome) == NULL)
			continue;
		if (runner_path_covers(rroot, rhome)) {
			endpwent();
			goto refuse;
		}
	}
	endpwent();
	return ALX_OK;
refuse:
	if (asprintf(cause, "work root %s is /, a home directory, a parent "
	    "of one, or inside or above the state dir: refused (--force "
	    "overrides, deliberately)", rroot) == -1)
		*cause = NULL;
	return ALX_ERR_BAD_PATH;
}

int
runner_pathf(char *out, size_t len, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(out, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		out[0] = '\0';
		return ALX_ERR_TOO_LARGE;
	}
	return ALX_OK;
}
