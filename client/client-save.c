/*
 * client-save.c: airlox run --save DIR and airlox result --save DIR: the
 * files a job wrote to $AIRLOX_OUT, from its verified result, into DIR.
 *
 * The result lists the files (names and sizes, signed by the runner); its
 * payload is the one file, or a ZIP of them all. Every chunk of the
 * payload is checked against the signed envelope as it comes (one in
 * memory at a time) into a temporary file in DIR; a ZIP is then read with
 * libarchive. Only what the signed list names is written: an entry of
 * another name, or not a regular file, or of another size, is refused.
 * Names are relative paths below DIR (alx_relpath_valid); each folder on
 * the way is opened without following a symbolic link, so a link in DIR
 * cannot lead a file out of it, and a name is never written over: a file
 * that exists already keeps its place and the new one gets NAME.1, .2 ...
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"
#include "client-archive.h"
#include "client-job.h"

struct save {
	int			 dirfd;
	const char		*dir;
	const struct alx_resultmeta *rm;
	int			*done;		/* per listed file: saved */
	int			 refused;
	int			 saved;
	struct alx_jw		*jw;		/* --json: the saved files */
};

/* The folder a listed name lives in, made below DIR: its fd, or -1. */
static int
save_open_parent(struct save *sv, const char *name, const char **base)
{
	char	 buf[ALX_JOB_PATH_MAX + 1], *p, *s;
	int	 fd, nfd;

	snprintf(buf, sizeof(buf), "%s", name);
	if ((fd = dup(sv->dirfd)) == -1)
		return -1;
	for (s = buf; (p = strchr(s, '/')) != NULL; s = p + 1) {
		*p = '\0';
		if (mkdirat(fd, s, 0755) == -1 && errno != EEXIST) {
			close(fd);
			return -1;
		}
		/* A link or a file in the way: never through it. */
		nfd = openat(fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		close(fd);
		if ((fd = nfd) == -1)
			return -1;
	}
	*base = name + (s - buf);
	return fd;
}

/* Give the finished temporary file a name that does not exist yet. */
static int
save_link(int pfd, const char *tmp, const char *base, char *got, size_t len)
{
	int	i;

	for (i = 0; i < 1000; i++) {
		if (i == 0)
			snprintf(got, len, "%s", base);
		else
			snprintf(got, len, "%s.%d", base, i);
		if (linkat(pfd, tmp, pfd, got, 0) == 0)
			return 0;
		if (errno != EEXIST)
			return ALX_ERR_IO;
	}
	return ALX_ERR_EXISTS;
}

static int
save_write(int fd, const void *p, size_t len)
{
	return alxs_item_chunk_to_fd(&fd, p, len, 0);
}

static void
save_report(struct save *sv, const char *name, const char *path)
{
	if (sv->jw != NULL) {
		alx_jw_obj_begin(sv->jw);
		alx_jw_kstr(sv->jw, "name", name);
		alx_jw_kstr(sv->jw, "path", path);
		alx_jw_obj_end(sv->jw);
		return;
	}
	fprintf(stderr, "saved ");
	out_safe(stderr, path, strlen(path));
	fputc('\n', stderr);
}

/*
 * Write one listed file: data comes from fill(arg, fd), which writes it
 * to fd and returns 0. Refusals are said and counted; 0 or an I/O error.
 */
static int
save_file(struct save *sv, const char *name,
    int (*fill)(void *, int), void *arg)
{
	const char	*base;
	char		 tmp[64], got[ALX_JOB_PATH_MAX + 16], path[8192];
	int		 pfd, fd, r;

	if (!alx_relpath_valid(name) ||
	    (pfd = save_open_parent(sv, name, &base)) == -1) {
		out_warn("--save: %s refused: its folder is not a folder below "
		    "%s (a link, or a file, is in the way)", name, sv->dir);
		sv->refused++;
		return 0;
	}
	snprintf(tmp, sizeof(tmp), ".airlox-save-%ld.partial", (long)getpid());
	if ((fd = openat(pfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1) {
		close(pfd);
		return ALX_ERR_IO;
	}
	r = fill(arg, fd);
	if (r == 0 && fsync(fd) != 0)
		r = ALX_ERR_IO;
	if (close(fd) != 0 && r == 0)
		r = ALX_ERR_IO;
	if (r == 0 && (r = save_link(pfd, tmp, base, got, sizeof(got))) == 0) {
		snprintf(path, sizeof(path), "%s/%.*s%s", sv->dir,
		    (int)(base - name), name, got);
		save_report(sv, name, path);
		sv->saved++;
	}
	unlinkat(pfd, tmp, 0);
	close(pfd);
	return r;
}

/* The listed file of this name, or -1. */
static int
save_listed(const struct save *sv, const char *name)
{
	size_t	i;

	for (i = 0; i < sv->rm->nfiles; i++)
		if (strcmp(sv->rm->files[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* One file: the payload itself. */
static int
save_copy(void *arg, int out)
{
	int	in = *(int *)arg;
	char	buf[65536];
	ssize_t	n;

	if (lseek(in, 0, SEEK_SET) != 0)
		return ALX_ERR_IO;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (save_write(out, buf, (size_t)n) != 0)
			return ALX_ERR_IO;
	return n == 0 ? 0 : ALX_ERR_IO;
}

struct save_entry {
	const struct car	*car;
	struct archive		*a;
	int64_t			 want;
};

/* One ZIP entry, no more bytes than the list says. */
static int
save_entry_data(void *arg, int out)
{
	struct save_entry	*e = arg;
	char			 buf[65536];
	int64_t			 got = 0;
	la_ssize_t		 n;

	while ((n = e->car->read_data(e->a, buf, sizeof(buf))) > 0) {
		if ((got += n) > e->want)
			return ALX_ERR_TOO_LARGE;
		if (save_write(out, buf, (size_t)n) != 0)
			return ALX_ERR_IO;
	}
	if (n < 0)
		return ALX_ERR_IO;
	return got == e->want ? 0 : ALX_ERR_TRUNCATED;
}

static int
save_zip(struct save *sv, int fd)
{
	const struct car	*car;
	struct archive_entry	*ent;
	struct save_entry	 e;
	const char		*why, *name;
	int			 i, r = 0, hr;

	if (car_load(&car, &why) != 0) {
		out_warn("--save: %s", why);
		return ALX_ERR_NOT_FOUND;
	}
	if (lseek(fd, 0, SEEK_SET) != 0 || (e.a = car->read_new()) == NULL)
		return ALX_ERR_IO;
	e.car = car;
	if (car->read_support_format_zip(e.a) != ARCHIVE_OK ||
	    car->read_open_fd(e.a, fd, 65536) != ARCHIVE_OK) {
		car->read_free(e.a);
		return ALX_ERR_IO;
	}
	while (r == 0 && (hr = car->read_next_header(e.a, &ent)) ==
	    ARCHIVE_OK) {
		name = car->entry_pathname(ent);
		/* Only a regular file the signed list names, once. */
		i = name != NULL ? save_listed(sv, name) : -1;
		if (i < 0 || sv->done[i] || car->entry_filetype(ent) !=
		    AE_IFREG || car->entry_size(ent) != sv->rm->files[i].size) {
			out_warn("--save: %s in the job's ZIP refused: %s",
			    name == NULL ? "an entry" : name, i < 0 ?
			    "the result does not list it" : sv->done[i] ?
			    "a second time" :
			    "not a regular file of the listed size");
			if (i >= 0 && !sv->done[i])
				sv->done[i] = -1;	/* seen, refused */
			sv->refused++;
			continue;
		}
		e.want = sv->rm->files[i].size;
		if ((r = save_file(sv, name, save_entry_data, &e)) == 0)
			sv->done[i] = 1;
		else if (r == ALX_ERR_TOO_LARGE || r == ALX_ERR_TRUNCATED) {
			out_warn("--save: %s refused: not the size the result "
			    "says", name);
			sv->refused++;
			r = 0;
		}
	}
	if (r == 0 && hr != ARCHIVE_EOF && hr != ARCHIVE_OK) {
		out_warn("--save: the job's ZIP is damaged: %s",
		    car->error_string(e.a) ? car->error_string(e.a) : "?");
		r = ALX_ERR_IO;
	}
	car->read_free(e.a);
	return r;
}

int
job_save(struct alxs_sess *cs, const struct job_outcome *o, const char *dir,
    int *refused)
{
	struct alx_item		 it;
	struct save		 sv;
	int			 pfd;
	struct alx_jw		 jw;
	char			 tmp[64];
	size_t			 i;
	int64_t			 size;
	int			 r;

	*refused = 0;
	if (o->rm.nfiles == 0)
		return 0;
	memset(&sv, 0, sizeof(sv));
	sv.dir = dir;
	sv.rm = &o->rm;
	if (o->result_raw == NULL || (sv.done = calloc(o->rm.nfiles,
	    sizeof(int))) == NULL)
		return ALX_ERR_NOMEM;
	if ((sv.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		out_warn("--save %s: %s", dir, strerror(errno));
		free(sv.done);
		return ALX_ERR_IO;
	}
	if ((r = alx_item_open(&it, o->result_raw, o->result_len,
	    cs->inv.sid, o->result_pk)) != 0)
		goto out;
	/* The payload, checked chunk by chunk, into DIR (0600 while there). */
	snprintf(tmp, sizeof(tmp), ".airlox-%ld.payload", (long)getpid());
	if ((pfd = openat(sv.dirfd, tmp, O_RDWR | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1) {
		r = ALX_ERR_IO;
		alx_item_free(&it);
		goto out;
	}
	unlinkat(sv.dirfd, tmp, 0);	/* nothing left behind */
	size = it.size;
	r = size > 0 ? alxs_item_read_chunks(cs, &it, alxs_item_chunk_to_fd,
	    &pfd) :
	    ALX_ERR_NOT_FOUND;
	alx_item_free(&it);
	if (r == ALX_ERR_NOT_FOUND)
		out_warn("--save: the result lists files but carries none "
		    "(they did not fit in the session)");
	if (out_json()) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "event", "saved");
		alx_jw_kstr(&jw, "job", o->out.idtxt);
		alx_jw_key(&jw, "files");
		alx_jw_arr_begin(&jw);
		sv.jw = &jw;
	}
	if (r == 0 && o->rm.nfiles == 1 && size == o->rm.files[0].size)
		r = save_file(&sv, o->rm.files[0].name, save_copy, &pfd);
	else if (r == 0)
		r = save_zip(&sv, pfd);
	close(pfd);
	for (i = 0; r == 0 && i < o->rm.nfiles; i++)
		if (o->rm.nfiles > 1 && !sv.done[i]) {
			out_warn("--save: %s is listed but not in the job's "
			    "ZIP", o->rm.files[i].name);
			sv.refused++;
		}
	if (sv.jw != NULL) {
		alx_jw_arr_end(&jw);
		alx_jw_kint(&jw, "refused", sv.refused);
		out_obj_end(&jw);
	}
out:
	close(sv.dirfd);
	free(sv.done);
	*refused = sv.refused;
	return r;
}
