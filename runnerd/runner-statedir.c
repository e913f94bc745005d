/*
 * runner-statedir.c: a state dir belongs to one runner process (its lock,
 * holding the pid) and to one session. What a session leaves there
 * (invite, key, audit log, replay list, pending and running records,
 * trees, the egress proxy's log) goes with the session:
 * runner_state_drop() removes all but the lock and cache/ (virtual
 * environments, keyed by their allowlist, reusable).
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runnerd.h"
#include "sandbox.h"

int
runner_state_lock(const char *dir, int *fdp, char **cause)
{
	char	path[PATH_MAX], pid[32];
	ssize_t	n;
	int	fd;

	*fdp = -1;
	*cause = NULL;
	if (runner_pathf(path, sizeof(path), "%s/lock", dir) != ALX_OK ||
	    (fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600)) == -1) {
		if (asprintf(cause, "state dir %s: cannot open its lock: %s",
		    dir, strerror(errno)) == -1)
			*cause = NULL;
		return ALX_ERR_IO;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		if (asprintf(cause, "state dir %s is in use by airlox-runnerd "
		    "pid %s: one runner per state dir; give this one its own "
		    "--state-dir (or another --name)", dir, pid[0] != '\0' ?
		    pid : "(unknown)") == -1)
			*cause = NULL;
		close(fd);
		return ALX_ERR_EXISTS;
	}
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, strlen(pid), 0) < 0) {
		close(fd);
		return ALX_ERR_IO;
	}
	*fdp = fd;
	return ALX_OK;
}

int
runner_state_drop(const char *dir, int *nkept)
{
	char		 path[PATH_MAX];
	DIR		*d;
	struct dirent	*de;

	*nkept = 0;
	if (runner_pathf(path, sizeof(path), "%s/pending", dir) == ALX_OK &&
	    (d = opendir(path)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (de->d_name[0] != '.')
				(*nkept)++;
		closedir(d);
	}
	if ((d = opendir(dir)) == NULL)
		return ALX_ERR_IO;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, "lock") == 0 ||
		    strcmp(de->d_name, "cache") == 0)
			continue;
		sandbox_rmtree(dirfd(d), de->d_name);
	}
	closedir(d);
	return ALX_OK;
}
