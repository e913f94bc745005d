/*
 * runner-out.c: the files a job left in $AIRLOX_OUT, gathered for its
 * result: regular files only (a symlink the job made is never followed,
 * since the runner may be root and the link may point at a host file),
 * bounded in count, depth and size; one file goes as it is, several as a
 * ZIP made with libarchive.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "runnerd.h"

#define OUT_MAX_DEPTH	8

void
runner_out_free(struct runner_out *o)
{
	size_t	i;

	for (i = 0; i < o->n; i++)
		free(o->files[i].name);
	free(o->files);
	if (o->fd != -1)
		close(o->fd);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

static int
runner_out_add(struct runner_out *o, const char *name, int64_t size)
{
	struct alx_result_file	*nf;

	if (o->n >= ALX_RESULT_MAX_FILES)
		return ALX_ERR_TOO_LARGE;
	if ((nf = realloc(o->files, (o->n + 1) * sizeof(*nf))) == NULL)
		return ALX_ERR_NOMEM;
	o->files = nf;
	if ((nf[o->n].name = strdup(name)) == NULL)
		return ALX_ERR_NOMEM;
	nf[o->n].size = size;
	o->n++;
	o->total += size;
	return ALX_OK;
}

static int
runner_out_walk(struct runner_out *o, int dfd, const char *prefix,
    int depth, int64_t max)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		 name[PATH_MAX];
	int		 fd, r = ALX_OK;

	if (depth > OUT_MAX_DEPTH)
		return ALX_ERR_TOO_LARGE;
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return ALX_ERR_IO;
	}
	while (r == ALX_OK && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(name, sizeof(name), "%s%s%s", prefix,
		    prefix[0] ? "/" : "", de->d_name) >= sizeof(name) ||
		    !alx_relpath_valid(name))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (S_ISDIR(st.st_mode)) {
			fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			if (fd != -1)
				r = runner_out_walk(o, fd, name, depth + 1, max);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;	/* symlinks, devices, fifos: never */
		if (o->total + st.st_size > max)
			r = ALX_ERR_TOO_LARGE;
		else
			r = runner_out_add(o, name, st.st_size);
	}
	closedir(d);
	return r;
}

/* Open a listed file under dir without following any symlink. */
static int
runner_out_open(const char *dir, const char *name)
{
	char	 buf[PATH_MAX], *p, *s;
	int	 fd, nfd;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	snprintf(buf, sizeof(buf), "%s", name);
	for (s = buf; (p = strchr(s, '/')) != NULL; s = p + 1) {
		*p = '\0';
		nfd = openat(fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		close(fd);
		if ((fd = nfd) == -1)
			return -1;
	}
	nfd = openat(fd, s, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(fd);
	return nfd;
}

static int
runner_out_zip(struct runner_out *o, const char *outdir, const char *zippath)
{
	struct archive		*a;
	struct archive_entry	*e;
	char			 buf[65536];
	ssize_t			 got;
	size_t			 i;
	int			 fd, r = ALX_OK;

	if ((a = archive_write_new()) == NULL)
		return ALX_ERR_NOMEM;
	if (archive_write_set_format_zip(a) != ARCHIVE_OK ||
	    archive_write_open_filename(a, zippath) != ARCHIVE_OK) {
		archive_write_free(a);
		return ALX_ERR_IO;
	}
	for (i = 0; i < o->n && r == ALX_OK; i++) {
		if ((fd = runner_out_open(outdir, o->files[i].name)) == -1) {
			r = ALX_ERR_IO;
			break;
		}
		e = archive_entry_new();
		archive_entry_set_pathname(e, o->files[i].name);
		archive_entry_set_size(e, o->files[i].size);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		if (archive_write_header(a, e) != ARCHIVE_OK)
			r = ALX_ERR_IO;
		while (r == ALX_OK && (got = read(fd, buf, sizeof(buf))) > 0)
			if (archive_write_data(a, buf, (size_t)got) != got)
				r = ALX_ERR_IO;
		archive_entry_free(e);
		close(fd);
	}
	if (archive_write_close(a) != ARCHIVE_OK)
		r = ALX_ERR_IO;
	archive_write_free(a);
	return r;
}

int
runner_out_collect(struct runner_out *o, const char *outdir,
    const char *zippath, int64_t max)
{
	struct stat	st;
	int		fd, r;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if ((fd = open(outdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return ALX_ERR_IO;
	if ((r = runner_out_walk(o, fd, "", 0, max)) != ALX_OK)
		return r;
	if (o->n == 0)
		return ALX_OK;
	if (o->n == 1) {
		o->fd = runner_out_open(outdir, o->files[0].name);
	} else {
		if ((r = runner_out_zip(o, outdir, zippath)) != ALX_OK)
			return r;
		o->fd = open(zippath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		o->zipped = 1;
	}
	if (o->fd == -1 || fstat(o->fd, &st) == -1)
		return ALX_ERR_IO;
	o->size = st.st_size;
	return ALX_OK;
}
