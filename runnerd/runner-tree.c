/*
 * runner-tree.c: one workspace per sender (per participant key: two keys
 * never share one, whatever names they give themselves), and the trees
 * jobs sync into
 * it. A tree archive is checked whole before anything is written: every
 * entry is a regular file or a symlink that stays inside, with a valid
 * relative path, no case-folding collision, within the limits. It is then
 * written relative to the workspace's directory fd, one component at a
 * time with O_NOFOLLOW, so a symlink a previous job planted is replaced,
 * never followed. The tree the workspace holds is recorded in the state
 * dir (outside the workspace): a delta applies only onto that exact tree.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "runnerd.h"
#include "runner-tree.h"

#define TREE_KEY_LEN	32	/* hex characters of a workspace key */
#define TREE_REC_MAGIC	"airlox-tree 1"
#define TREE_TMP	".airlox-tmp"

struct tree_rec {
	struct alx_tree_entry	e;
	uint64_t		ino;
	int64_t			mtime_ns;
	int64_t			ctime_ns;	/* a job cannot set it back */
};

struct runner_tree {
	char		 key[TREE_KEY_LEN + 1];
	char		 dir[PATH_MAX];
	char		 rec[PATH_MAX];
	int		 lockfd;
	int		 known;		/* id and recs describe the workspace */
	uint8_t		 id[ALX_HASH_LEN];
	struct tree_rec	*recs;
	size_t		 nrecs;
};

static void
tree_recs_free(struct tree_rec *r, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(r[i].e.path);
	free(r);
}

static int
tree_rec_cmp(const void *a, const void *b)
{
	const struct tree_rec	*x = a, *y = b;

	return strcmp(x->e.path, y->e.path);
}

static struct tree_rec *
tree_rec_find(struct tree_rec *r, size_t n, const char *path)
{
	struct tree_rec	key;

	key.e.path = (char *)path;
	return n == 0 ? NULL : bsearch(&key, r, n, sizeof(*r), tree_rec_cmp);
}

/* The record file: a magic line with the id, then one line per entry. */
static int
tree_rec_load(struct runner_tree *t)
{
	FILE	*fp;
	char	*line = NULL, idtxt[64], hash[64], mode[8], *p;
	size_t	 cap = 0, n = 0, alloc = 0;
	ssize_t	 len;
	int	 r = ALX_OK;
	struct tree_rec	*nr, rec;
	long long	 size, mt, ct;
	unsigned long long ino;
	int		 off, known;

	t->known = 0;
	if ((fp = fopen(t->rec, "re")) == NULL)
		return errno == ENOENT ? ALX_OK : ALX_ERR_IO;
	if ((len = getline(&line, &cap, fp)) <= 0 ||
	    sscanf(line, TREE_REC_MAGIC " %63s", idtxt) != 1)
		goto out;
	/* "-": the entries the workspace had, its tree unknown now. */
	known = strcmp(idtxt, "-") != 0;
	if (known && alx_b64_decode_exact(t->id, ALX_HASH_LEN, idtxt,
	    strlen(idtxt)) != ALX_OK)
		goto out;
	while ((len = getline(&line, &cap, fp)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		memset(&rec, 0, sizeof(rec));
		if (sscanf(line, "%7s %63s %lld %llu %lld %lld %n", mode, hash,
		    &size, &ino, &mt, &ct, &off) != 6 ||
		    alx_tree_mode_parse(mode, &rec.e.mode) != ALX_OK ||
		    alx_b64_decode_exact(rec.e.hash, ALX_HASH_LEN, hash,
		    strlen(hash)) != ALX_OK || !alx_tree_path_valid(line + off))
			goto bad;
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 256;
			if ((nr = realloc(t->recs, alloc * sizeof(*nr))) == NULL) {
				r = ALX_ERR_NOMEM;
				goto bad;
			}
			t->recs = nr;
		}
		if ((p = strdup(line + off)) == NULL) {
			r = ALX_ERR_NOMEM;
			goto bad;
		}
		rec.e.path = p;
		rec.e.size = size;
		rec.ino = ino;
		rec.mtime_ns = mt;
		rec.ctime_ns = ct;
		t->recs[n++] = rec;
		t->nrecs = n;
	}
	qsort(t->recs, t->nrecs, sizeof(*t->recs), tree_rec_cmp);
	t->known = known;
	goto out;
bad:
	tree_recs_free(t->recs, t->nrecs);
	t->recs = NULL;
	t->nrecs = 0;
out:
	free(line);
	fclose(fp);
	return r;
}

static int
tree_rec_save(struct runner_tree *t)
{
	char	tmp[PATH_MAX], idtxt[ALX_B64_ENCLEN(ALX_HASH_LEN) + 1];
	char	hash[ALX_B64_ENCLEN(ALX_HASH_LEN) + 1];
	FILE	*fp;
	size_t	 i;
	int	 fd;

	if (runner_pathf(tmp, sizeof(tmp), "%s.tmp", t->rec) != ALX_OK)
		return ALX_ERR_BAD_PATH;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0600)) == -1)
		return ALX_ERR_IO;
	if ((fp = fdopen(fd, "w")) == NULL) {
		close(fd);
		return ALX_ERR_IO;
	}
	if (t->known)
		alx_b64_encode(idtxt, t->id, ALX_HASH_LEN);
	fprintf(fp, TREE_REC_MAGIC " %s\n", t->known ? idtxt : "-");
	for (i = 0; i < t->nrecs; i++) {
		alx_b64_encode(hash, t->recs[i].e.hash, ALX_HASH_LEN);
		fprintf(fp, "%s %s %lld %llu %lld %lld %s\n",
		    alx_tree_mode_name(t->recs[i].e.mode), hash,
		    (long long)t->recs[i].e.size,
		    (unsigned long long)t->recs[i].ino,
		    (long long)t->recs[i].mtime_ns,
		    (long long)t->recs[i].ctime_ns, t->recs[i].e.path);
	}
	if (fflush(fp) != 0 || fsync(fileno(fp)) != 0) {
		fclose(fp);
		unlink(tmp);
		return ALX_ERR_IO;
	}
	fclose(fp);
	if (rename(tmp, t->rec) == -1) {
		unlink(tmp);
		return ALX_ERR_IO;
	}
	return ALX_OK;
}

/*
 * The workspace key: H("airlox/v1/workspace-key" 0 sid fp), hex, fp the
 * sender's participant key fingerprint. A display name is self-chosen, so
 * it names no workspace.
 */
static void
tree_key(char out[TREE_KEY_LEN + 1], const uint8_t sid[ALX_SID_LEN],
    const uint8_t sender[ALX_FP_LEN])
{
	static const char	 dom[] = "airlox/v1/workspace-key";
	struct alx_sha256_ctx	 c;
	uint8_t			 h[ALX_HASH_LEN];
	int			 i;

	alx_sha256_init(&c);
	alx_sha256_update(&c, dom, sizeof(dom));
	alx_sha256_update(&c, sid, ALX_SID_LEN);
	alx_sha256_update(&c, sender, ALX_FP_LEN);
	alx_sha256_final(&c, h);
	for (i = 0; i < TREE_KEY_LEN / 2; i++)
		snprintf(out + 2 * i, 3, "%02x", h[i]);
}

int
runner_tree_open(struct runner_tree **tp, const char *work_root,
    const char *statedir, const uint8_t sid[ALX_SID_LEN],
    const uint8_t sender[ALX_FP_LEN])
{
	struct runner_tree	*t;
	char			 dir[PATH_MAX], lock[PATH_MAX];
	int			 r;

	*tp = NULL;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return ALX_ERR_NOMEM;
	t->lockfd = -1;
	tree_key(t->key, sid, sender);
	if ((r = runner_pathf(dir, sizeof(dir), "%s/trees", statedir)) !=
	    ALX_OK || (r = runner_pathf(t->rec, sizeof(t->rec), "%s/%s",
	    dir, t->key)) != ALX_OK || (r = runner_pathf(lock, sizeof(lock),
	    "%s/%s.lock", dir, t->key)) != ALX_OK ||
	    (r = runner_pathf(t->dir, sizeof(t->dir), "%s/ws-%s", work_root,
	    t->key)) != ALX_OK)
		goto fail;
	r = ALX_ERR_IO;
	if ((mkdir(dir, 0700) == -1 && errno != EEXIST) ||
	    (mkdir(t->dir, 0711) == -1 && errno != EEXIST))
		goto fail;
	if ((t->lockfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600)) == -1)
		goto fail;
	if (flock(t->lockfd, LOCK_EX | LOCK_NB) == -1) {
		r = errno == EWOULDBLOCK ? ALX_ERR_RUNNER_BUSY : ALX_ERR_IO;
		goto fail;
	}
	if ((r = tree_rec_load(t)) != ALX_OK)
		goto fail;
	futimens(t->lockfd, NULL);	/* last use, for the collector */
	*tp = t;
	return ALX_OK;
fail:
	runner_tree_close(t);
	return r;
}

const char *
runner_tree_dir(const struct runner_tree *t)
{
	return t->dir;
}

void
runner_tree_close(struct runner_tree *t)
{
	if (t == NULL)
		return;
	if (t->lockfd != -1)
		close(t->lockfd);
	tree_recs_free(t->recs, t->nrecs);
	free(t);
}

/* Remove name under parent, recursively, never following a symlink. */
static void
tree_rm(int parent, const char *name)
{
	DIR		*d;
	struct dirent	*de;
	int		 fd;

	if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
		return;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			tree_rm(dirfd(d), de->d_name);
	closedir(d);
	unlinkat(parent, name, AT_REMOVEDIR);
}

/* Empty a directory fd's contents. */
static void
tree_empty(int dfd)
{
	DIR		*d;
	struct dirent	*de;
	int		 fd;

	if ((fd = dup(dfd)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			tree_rm(dirfd(d), de->d_name);
	closedir(d);
}

/*
 * Open the directory that holds path, inside the workspace, one component
 * at a time with O_NOFOLLOW. With create, a missing directory is made and
 * anything else in the way (a file, a planted symlink) is replaced by one.
 * *base: the last component. -1 when it cannot be reached.
 */
static int
tree_walk(int root, const char *path, int create, char *buf, size_t buflen,
    const char **base)
{
	char	*s, *slash;
	int	 fd, nfd, tries;

	if (strlen(path) >= buflen)
		return -1;
	memcpy(buf, path, strlen(path) + 1);
	if ((fd = dup(root)) == -1)
		return -1;
	for (s = buf; (slash = strchr(s, '/')) != NULL; s = slash + 1) {
		*slash = '\0';
		for (tries = 0; tries < 2; tries++) {
			nfd = openat(fd, s, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			if (nfd != -1 || !create)
				break;
			if (errno == ENOTDIR || errno == ELOOP)
				unlinkat(fd, s, 0);
			else if (errno != ENOENT)
				break;
			if (mkdirat(fd, s, 0755) == -1 && errno != EEXIST)
				break;
		}
		close(fd);
		if (nfd == -1)
			return -1;
		fd = nfd;
	}
	*base = s;
	return fd;
}

/* Delete one tree path; then its parents while they are empty. */
static void
tree_delete(int root, const char *path)
{
	char		 buf[ALX_TREE_PATH_MAX + 1];
	const char	*base;
	char		*slash;
	int		 dfd;
	struct stat	 st;

	if ((dfd = tree_walk(root, path, 0, buf, sizeof(buf), &base)) == -1)
		return;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISDIR(st.st_mode))
		unlinkat(dfd, base, 0);
	close(dfd);
	memcpy(buf, path, strlen(path) + 1);
	while ((slash = strrchr(buf, '/')) != NULL) {
		*slash = '\0';
		if (unlinkat(root, buf, AT_REMOVEDIR) == -1)
			break;
	}
}

/* Read the archive's entries and check each; fill the new entries. */
struct tree_in {
	struct alx_tree_entry	*e;
	size_t			 n, cap;
};

static int
tree_in_add(struct tree_in *in, const char *path, int mode, int64_t size)
{
	struct alx_tree_entry	*ne;

	if (in->n == in->cap) {
		in->cap = in->cap ? in->cap * 2 : 256;
		if ((ne = realloc(in->e, in->cap * sizeof(*ne))) == NULL)
			return ALX_ERR_NOMEM;
		in->e = ne;
	}
	memset(&in->e[in->n], 0, sizeof(*ne));
	if ((in->e[in->n].path = strdup(path)) == NULL)
		return ALX_ERR_NOMEM;
	in->e[in->n].mode = mode;
	in->e[in->n].size = size;
	in->n++;
	return ALX_OK;
}

static struct archive *
tree_archive_open(int fd)
{
	struct archive	*a;

	if (lseek(fd, 0, SEEK_SET) == -1 || (a = archive_read_new()) == NULL)
		return NULL;
	if (archive_read_support_format_tar(a) != ARCHIVE_OK ||
	    archive_read_open_fd(a, fd, 64 * 1024) != ARCHIVE_OK) {
		archive_read_free(a);
		return NULL;
	}
	return a;
}

static int
tree_cause(char **cause, const char *what, const char *path)
{
	char	buf[160];

	snprintf(buf, sizeof(buf), "%s: %.100s", what, path ? path : "?");
	free(*cause);
	*cause = strdup(buf);
	return 0;
}

/*
 * A refused entry, named: `what "path"`, its first 100 bytes, with
 * control bytes, quotes and backslashes shown as '?' (the sender sees the
 * name it sent, even an empty or unreadable one).
 */
static void
tree_refuse(char **cause, const char *what, const char *path)
{
	char	name[104];
	size_t	i;

	if (path == NULL)
		snprintf(name, sizeof(name), "(no name)");
	else {
		snprintf(name, sizeof(name), "\"%.100s", path);
		for (i = 1; name[i] != '\0'; i++)
			if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f ||
			    name[i] == '"' || name[i] == '\\')
				name[i] = '?';
		if (strlen(path) <= 100)
			strcat(name, "\"");
	}
	free(*cause);
	if (asprintf(cause, "%s: %s", what, name) == -1)
		*cause = NULL;
}

/*
 * The next entry. A warning is not a refusal: libarchive warns when a
 * name it read (UTF-8 in a pax header, as every sender in a UTF-8 locale
 * writes it) cannot be shown in this process's locale, and the name's
 * bytes are still there, checked like any other.
 */
static int
tree_next(struct archive *a, struct archive_entry **ae)
{
	int	r = archive_read_next_header(a, ae);

	return r == ARCHIVE_WARN ? ARCHIVE_OK : r;
}

/* One entry's header: its mode, or a refusal. */
static int
tree_entry_check(struct archive_entry *ae, int *mode, char **cause)
{
	const char	*p = archive_entry_pathname(ae);
	const char	*target;

	if (p == NULL || !alx_tree_path_valid(p)) {
		tree_refuse(cause, "an absolute, '..' or invalid path", p);
		return ALX_ERR_BAD_PATH;
	}
	if (archive_entry_hardlink(ae) != NULL) {
		tree_refuse(cause, "a hard link", p);
		return ALX_ERR_BAD_PATH;
	}
	switch (archive_entry_filetype(ae)) {
	case AE_IFREG:
		*mode = (archive_entry_perm(ae) & 0111) ? ALX_TREE_EXEC :
		    ALX_TREE_FILE;
		break;
	case AE_IFLNK:
		target = archive_entry_symlink(ae);
		if (!alx_tree_link_valid(p, target)) {
			tree_refuse(cause, "a symlink pointing outside", p);
			return ALX_ERR_BAD_PATH;
		}
		*mode = ALX_TREE_LINK;
		break;
	default:
		tree_refuse(cause, "not a file or a symlink", p);
		return ALX_ERR_BAD_PATH;
	}
	if (archive_entry_size(ae) < 0) {
		tree_refuse(cause, "a negative size", p);
		return ALX_ERR_BAD_PATH;
	}
	return ALX_OK;
}

static int
tree_path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A path at most once: the writer takes each entry's content as it comes
 * and its kind from the merged tree, and a file and a link of one name
 * would not agree (the client never sends a path twice).
 */
static int
tree_in_unique(struct tree_in *in, char **cause)
{
	char	**p;
	size_t	  i;
	int	  r = ALX_OK;

	if (in->n < 2)
		return ALX_OK;
	if ((p = calloc(in->n, sizeof(*p))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < in->n; i++)
		p[i] = in->e[i].path;
	qsort(p, in->n, sizeof(*p), tree_path_cmp);
	for (i = 1; i < in->n && r == ALX_OK; i++)
		if (strcmp(p[i - 1], p[i]) == 0) {
			tree_refuse(cause, "a path sent twice", p[i]);
			r = ALX_ERR_BAD_PATH;
		}
	free(p);
	return r;
}

static int
tree_scan(int fd, const struct runner_tree_limits *lim, struct tree_in *in,
    char **cause)
{
	struct archive		*a;
	struct archive_entry	*ae;
	int64_t			 bytes = 0;
	int			 r = ALX_OK, ar, mode;

	if ((a = tree_archive_open(fd)) == NULL)
		return ALX_ERR_INVALID;
	while ((ar = tree_next(a, &ae)) == ARCHIVE_OK) {
		if ((r = tree_entry_check(ae, &mode, cause)) != ALX_OK)
			break;
		bytes += archive_entry_size(ae);
		if ((int64_t)in->n + 1 > lim->max_files || bytes >
		    lim->max_bytes) {
			tree_refuse(cause, "over the limits at",
			    archive_entry_pathname(ae));
			r = ALX_ERR_TOO_LARGE;
			break;
		}
		if ((r = tree_in_add(in, archive_entry_pathname(ae), mode,
		    archive_entry_size(ae))) != ALX_OK)
			break;
	}
	if (r == ALX_OK && ar != ARCHIVE_EOF) {
		tree_cause(cause, "not a tar archive",
		    archive_error_string(a));
		r = ALX_ERR_INVALID;
	}
	archive_read_free(a);
	if (r == ALX_OK)
		r = tree_in_unique(in, cause);
	return r;
}

/*
 * The tree after the job: the recorded one (delta) or nothing (full),
 * minus deleted, with the archive's entries replacing or adding.
 */
static int
tree_merge(const struct runner_tree *t, const struct alx_tree_desc *d,
    struct tree_in *in, struct tree_rec **outp, size_t *np)
{
	struct tree_rec	*out, *f;
	size_t		 n = 0, i, j;

	out = calloc(t->nrecs + in->n + 1, sizeof(*out));
	if (out == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; d->has_base && i < t->nrecs; i++) {
		for (j = 0; j < d->ndeleted; j++)
			if (strcmp(d->deleted[j], t->recs[i].e.path) == 0)
				break;
		if (j < d->ndeleted)
			continue;
		out[n] = t->recs[i];
		if ((out[n].e.path = strdup(t->recs[i].e.path)) == NULL)
			goto nomem;
		n++;
	}
	qsort(out, n, sizeof(*out), tree_rec_cmp);
	for (i = 0; i < in->n; i++) {
		if ((f = tree_rec_find(out, n, in->e[i].path)) != NULL) {
			f->e.mode = in->e[i].mode;
			f->e.size = in->e[i].size;
			continue;
		}
		out[n].e.path = strdup(in->e[i].path);
		out[n].e.mode = in->e[i].mode;
		out[n].e.size = in->e[i].size;
		if (out[n++].e.path == NULL)
			goto nomem;
		/* Keep sorted for the next lookup (archives come sorted). */
		if (n > 1 && strcmp(out[n - 2].e.path, out[n - 1].e.path) > 0)
			qsort(out, n, sizeof(*out), tree_rec_cmp);
	}
	*outp = out;
	*np = n;
	return ALX_OK;
nomem:
	tree_recs_free(out, n);
	return ALX_ERR_NOMEM;
}

/* Write one entry (content from the archive) into the workspace. */
static int
tree_write(int root, struct archive *a, struct archive_entry *ae,
    struct tree_rec *rec)
{
	struct alx_sha256_ctx	 c;
	char			 buf[ALX_TREE_PATH_MAX + 1], data[64 * 1024];
	const char		*base, *target;
	struct stat		 st;
	la_ssize_t		 n;
	int			 dfd, fd = -1, r = ALX_ERR_IO;

	if ((dfd = tree_walk(root, rec->e.path, 1, buf, sizeof(buf),
	    &base)) == -1)
		return ALX_ERR_IO;
	unlinkat(dfd, TREE_TMP, 0);
	/* What the scan checked: an entry is what its record says. */
	if ((rec->e.mode == ALX_TREE_LINK) !=
	    (archive_entry_filetype(ae) == AE_IFLNK))
		goto out;
	if (rec->e.mode == ALX_TREE_LINK) {
		if ((target = archive_entry_symlink(ae)) == NULL)
			goto out;
		alx_sha256(rec->e.hash, target, strlen(target));
		if (symlinkat(target, dfd, TREE_TMP) == -1)
			goto out;
	} else {
		fd = openat(dfd, TREE_TMP, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, rec->e.mode == ALX_TREE_EXEC ?
		    0755 : 0644);
		if (fd == -1)
			goto out;
		alx_sha256_init(&c);
		while ((n = archive_read_data(a, data, sizeof(data))) > 0) {
			alx_sha256_update(&c, data, (size_t)n);
			if (write(fd, data, (size_t)n) != n)
				goto out;
		}
		alx_sha256_final(&c, rec->e.hash);
		if (n < 0 || fchmod(fd, rec->e.mode == ALX_TREE_EXEC ?
		    0755 : 0644) == -1)
			goto out;
	}
	/* A directory a job left where the file goes is replaced. */
	if (renameat(dfd, TREE_TMP, dfd, base) == -1) {
		if (errno != EISDIR && errno != ENOTEMPTY && errno != EEXIST)
			goto out;
		tree_rm(dfd, base);
		if (renameat(dfd, TREE_TMP, dfd, base) == -1)
			goto out;
	}
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == -1)
		goto out;
	rec->ino = st.st_ino;
	rec->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
	    st.st_mtim.tv_nsec;
	rec->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 +
	    st.st_ctim.tv_nsec;
	r = ALX_OK;
out:
	if (fd != -1)
		close(fd);
	if (r != ALX_OK)
		unlinkat(dfd, TREE_TMP, 0);
	close(dfd);
	return r;
}

static int
tree_write_all(int root, int fd, struct tree_rec *recs, size_t n)
{
	struct archive		*a;
	struct archive_entry	*ae;
	struct tree_rec		*rec;
	int			 r = ALX_OK, ar;

	if ((a = tree_archive_open(fd)) == NULL)
		return ALX_ERR_IO;
	while (r == ALX_OK && (ar = tree_next(a, &ae)) == ARCHIVE_OK) {
		if ((rec = tree_rec_find(recs, n, archive_entry_pathname(ae))) ==
		    NULL)
			r = ALX_ERR_INVALID;
		else
			r = tree_write(root, a, ae, rec);
	}
	/* The scan read it whole: stopping early now is an error. */
	if (r == ALX_OK && ar != ARCHIVE_EOF)
		r = ALX_ERR_IO;
	archive_read_free(a);
	return r;
}

/* The content hash of an entry, read without following a link. */
static int
tree_rehash(int dfd, const char *base, const struct tree_rec *rec,
    uint8_t out[ALX_HASH_LEN])
{
	struct alx_sha256_ctx	c;
	char			buf[65536];
	ssize_t			n;
	int			fd;

	if (rec->e.mode == ALX_TREE_LINK) {
		if ((n = readlinkat(dfd, base, buf, sizeof(buf))) < 0)
			return ALX_ERR_IO;
		alx_sha256(out, buf, (size_t)n);
		return ALX_OK;
	}
	if ((fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return ALX_ERR_IO;
	alx_sha256_init(&c);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		alx_sha256_update(&c, buf, (size_t)n);
	close(fd);
	if (n < 0)
		return ALX_ERR_IO;
	alx_sha256_final(&c, out);
	return ALX_OK;
}

/* One entry as recorded? A changed ctime alone: compare the content. */
static int
tree_rec_clean(int dfd, const char *base, struct tree_rec *rec)
{
	struct stat	st;
	uint8_t		h[ALX_HASH_LEN];
	int64_t		ct;

	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    st.st_ino != rec->ino || (int64_t)st.st_mtim.tv_sec *
	    1000000000 + st.st_mtim.tv_nsec != rec->mtime_ns ||
	    (rec->e.mode == ALX_TREE_LINK) != !!S_ISLNK(st.st_mode) ||
	    (rec->e.mode != ALX_TREE_LINK && (!S_ISREG(st.st_mode) ||
	    st.st_size != rec->e.size ||
	    (rec->e.mode == ALX_TREE_EXEC) != !!(st.st_mode & 0100))))
		return 0;
	ct = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
	if (ct == rec->ctime_ns)
		return 1;
	/* Owner changes (the sandbox's) move the ctime; so could a job that
	 * set the mtime back after writing: the content decides. */
	if (tree_rehash(dfd, base, rec, h) != ALX_OK ||
	    memcmp(h, rec->e.hash, ALX_HASH_LEN) != 0)
		return 0;
	rec->ctime_ns = ct;
	return 1;
}

/*
 * Does the workspace still hold each recorded entry as written? Each is
 * reached one component at a time without following links (a job could
 * have swapped a directory for a link to a copy of it).
 */
static int
tree_clean(struct runner_tree *t, int root)
{
	char		 buf[ALX_TREE_PATH_MAX + 1], dir[ALX_TREE_PATH_MAX + 1];
	const char	*base, *slash;
	size_t		 i, dlen;
	int		 dfd = -1, clean = 1;

	dir[0] = '\0';
	for (i = 0; clean && i < t->nrecs; i++) {
		struct tree_rec *rec = &t->recs[i];

		slash = strrchr(rec->e.path, '/');
		dlen = slash != NULL ? (size_t)(slash - rec->e.path) : 0;
		if (dfd == -1 || strlen(dir) != dlen ||
		    strncmp(dir, rec->e.path, dlen) != 0) {
			if (dfd != -1)
				close(dfd);
			memcpy(dir, rec->e.path, dlen);
			dir[dlen] = '\0';
			dfd = tree_walk(root, rec->e.path, 0, buf, sizeof(buf),
			    &base);
			if (dfd == -1) {
				clean = 0;
				break;
			}
		}
		base = slash != NULL ? slash + 1 : rec->e.path;
		clean = tree_rec_clean(dfd, base, rec);
	}
	if (dfd != -1)
		close(dfd);
	return clean;
}

static int
tree_root(const struct runner_tree *t)
{
	return open(t->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Delete what the old tree had and the new one lacks. */
static void
tree_prune(struct runner_tree *t, int root, struct tree_rec *nw, size_t nn)
{
	size_t	i;

	for (i = 0; i < t->nrecs; i++)
		if (tree_rec_find(nw, nn, t->recs[i].e.path) == NULL)
			tree_delete(root, t->recs[i].e.path);
}

/* The checks before anything is written: base, entries, collisions. */
static int
tree_prepare(struct runner_tree *t, const struct alx_tree_desc *d, int root,
    int fd, const struct runner_tree_limits *lim, struct tree_in *in,
    struct tree_rec **nw, size_t *nn, char **cause)
{
	const char	*which;
	char		**paths;
	size_t		 i;
	int		 r;

	if (d->has_base && (!t->known || !alx_ct_eq(d->base, t->id,
	    ALX_HASH_LEN) || !tree_clean(t, root)))
		return ALX_ERR_TREE_MISMATCH;
	if (d->files > lim->max_files || d->bytes > lim->max_bytes) {
		tree_cause(cause, "the tree is over the limits", "");
		return ALX_ERR_TOO_LARGE;
	}
	if ((r = tree_scan(fd, lim, in, cause)) != ALX_OK ||
	    (r = tree_merge(t, d, in, nw, nn)) != ALX_OK)
		return r;
	if ((paths = calloc(*nn + 1, sizeof(*paths))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < *nn; i++)
		paths[i] = (*nw)[i].e.path;
	r = alx_tree_paths_check(paths, *nn, &which);
	if (r == ALX_ERR_BAD_PATH)
		tree_refuse(cause, "paths collide after case folding", which);
	free(paths);
	return r;
}

int
runner_tree_apply(struct runner_tree *t, const char *tree_json, int fresh,
    int fd, const struct runner_tree_limits *lim, char **cause)
{
	struct alx_tree_desc	 d;
	struct alx_tree_entry	*ids = NULL;
	struct tree_in		 in;
	struct tree_rec		*nw = NULL;
	uint8_t			 id[ALX_HASH_LEN];
	size_t			 nn = 0, i;
	int			 root, r;

	*cause = NULL;
	memset(&in, 0, sizeof(in));
	memset(&d, 0, sizeof(d));
	if ((root = tree_root(t)) == -1)
		return ALX_ERR_IO;
	if (fresh) {
		tree_empty(root);
		t->known = 0;
		tree_recs_free(t->recs, t->nrecs);
		t->recs = NULL;
		t->nrecs = 0;
		if ((r = tree_rec_save(t)) != ALX_OK)
			goto out;
	}
	r = ALX_OK;
	if (tree_json == NULL)
		goto out;
	if ((r = alx_tree_desc_decode(&d, tree_json, strlen(tree_json))) !=
	    ALX_OK) {
		if (r != ALX_ERR_NOMEM && r != ALX_ERR_TOO_LARGE)
			r = ALX_ERR_BAD_PATH;
		tree_cause(cause, "the tree description", alx_errname(r));
		goto out;
	}
	if ((r = tree_prepare(t, &d, root, fd, lim, &in, &nw, &nn,
	    cause)) != ALX_OK)
		goto out;
	/* From here the workspace changes: its record is unknown meanwhile. */
	t->known = 0;
	if ((r = tree_rec_save(t)) != ALX_OK ||
	    (r = tree_write_all(root, fd, nw, nn)) != ALX_OK)
		goto out;
	if (d.has_base)
		for (i = 0; i < d.ndeleted; i++)
			if (tree_rec_find(nw, nn, d.deleted[i]) == NULL)
				tree_delete(root, d.deleted[i]);
	tree_prune(t, root, nw, nn);
	if ((ids = calloc(nn + 1, sizeof(*ids))) == NULL) {
		r = ALX_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < nn; i++)
		ids[i] = nw[i].e;
	if ((r = alx_tree_id(id, ids, nn)) != ALX_OK)
		goto out;
	tree_recs_free(t->recs, t->nrecs);
	t->recs = nw;
	t->nrecs = nn;
	nw = NULL;
	if (!alx_ct_eq(id, d.id, ALX_HASH_LEN)) {
		/* Not the tree the sender has: its next run sends all. */
		r = ALX_ERR_TREE_MISMATCH;
		tree_rec_save(t);
		goto out;
	}
	memcpy(t->id, id, ALX_HASH_LEN);
	t->known = 1;
	r = tree_rec_save(t);
out:
	free(ids);
	if (nw != NULL)
		tree_recs_free(nw, nn);
	alx_tree_entries_free(in.e, in.n);
	alx_tree_desc_free(&d);
	close(root);
	return r;
}

char *
runner_tree_report(struct runner_tree *t)
{
	char	idtxt[ALX_B64_ENCLEN(ALX_HASH_LEN) + 1], *out;
	int	root, clean = 0;

	if (t->known && (root = tree_root(t)) != -1) {
		clean = tree_clean(t, root);
		close(root);
	}
	if (!clean) {
		if (t->known) {
			t->known = 0;
			tree_rec_save(t);
		}
		return NULL;
	}
	if (tree_rec_save(t) != ALX_OK)	/* the ctimes seen now */
		return NULL;
	alx_b64_encode(idtxt, t->id, ALX_HASH_LEN);
	if (asprintf(&out, "{\"id\":\"%s\"}", idtxt) == -1)
		return NULL;
	return out;
}

/* Bytes under a directory fd (not following symlinks). */
static uint64_t
tree_du(int parent, const char *name)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	uint64_t	 total = 0;
	int		 fd;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return (uint64_t)st.st_blocks * 512;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return 0;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			total += tree_du(dirfd(d), de->d_name);
	closedir(d);
	return total + (uint64_t)st.st_blocks * 512;
}

struct tree_gc_ws {
	char		key[TREE_KEY_LEN + 1];
	int64_t		used;		/* last use, seconds */
	uint64_t	bytes;
	int		lockfd;		/* held while we look at it */
};

/* Remove one workspace and its record (its lock is held). */
static void
tree_gc_remove(const char *work_root, const char *dir, struct tree_gc_ws *w)
{
	char	path[PATH_MAX];
	int	root;

	if ((root = open(work_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		if (runner_pathf(path, sizeof(path), "ws-%s", w->key) == ALX_OK)
			tree_rm(root, path);
		close(root);
	}
	if (runner_pathf(path, sizeof(path), "%s/%s", dir, w->key) == ALX_OK)
		unlink(path);
	if (runner_pathf(path, sizeof(path), "%s/%s.lock", dir, w->key) ==
	    ALX_OK)
		unlink(path);
	log_info("workspace %s: collected", w->key);
}

static int
tree_gc_cmp(const void *a, const void *b)
{
	const struct tree_gc_ws	*x = a, *y = b;

	return x->used < y->used ? -1 : x->used > y->used;
}

/* The unlocked workspaces with their last use and size. */
static int
tree_gc_list(const char *work_root, const char *dir, struct tree_gc_ws **wp,
    size_t *np)
{
	DIR			*d;
	struct dirent		*de;
	struct tree_gc_ws	*w = NULL, *nw;
	struct stat		 st;
	size_t			 n = 0, len;
	char			 path[PATH_MAX];
	int			 fd, root;

	*wp = NULL;
	*np = 0;
	if ((d = opendir(dir)) == NULL)
		return ALX_OK;
	root = open(work_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len != TREE_KEY_LEN + 5 ||
		    strcmp(de->d_name + TREE_KEY_LEN, ".lock") != 0 ||
		    runner_pathf(path, sizeof(path), "%s/%s", dir,
		    de->d_name) != ALX_OK)
			continue;
		if ((fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)) == -1)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == -1 || fstat(fd, &st) == -1 ||
		    (nw = realloc(w, (n + 1) * sizeof(*w))) == NULL) {
			close(fd);
			continue;
		}
		w = nw;
		memcpy(w[n].key, de->d_name, TREE_KEY_LEN);
		w[n].key[TREE_KEY_LEN] = '\0';
		w[n].used = st.st_mtim.tv_sec;
		w[n].lockfd = fd;
		snprintf(path, sizeof(path), "ws-%s", w[n].key);
		w[n].bytes = root != -1 ? tree_du(root, path) : 0;
		n++;
	}
	closedir(d);
	if (root != -1)
		close(root);
	if (n > 1)
		qsort(w, n, sizeof(*w), tree_gc_cmp);
	*wp = w;
	*np = n;
	return ALX_OK;
}

int
runner_tree_gc(const char *work_root, const char *statedir, int64_t max_idle_s,
    uint64_t budget)
{
	struct tree_gc_ws	*w;
	char			 dir[PATH_MAX];
	uint64_t		 total = 0;
	size_t			 n, i;
	int64_t			 now = (int64_t)time(NULL);
	int			 removed = 0;

	if (runner_pathf(dir, sizeof(dir), "%s/trees", statedir) != ALX_OK ||
	    tree_gc_list(work_root, dir, &w, &n) != ALX_OK)
		return 0;
	for (i = 0; i < n; i++)
		total += w[i].bytes;
	/* Oldest first: idle ones go, then the rest while over budget. */
	for (i = 0; i < n; i++) {
		if (now - w[i].used > max_idle_s ||
		    (budget > 0 && total > budget)) {
			tree_gc_remove(work_root, dir, &w[i]);
			total -= w[i].bytes;
			removed++;
		}
		close(w[i].lockfd);
	}
	free(w);
	return removed;
}

int
runner_tree_job(struct runner_tree **tp, struct runner_job *rj,
    const char *work_root, const char *statedir,
    const uint8_t sid[ALX_SID_LEN], const uint8_t sender[ALX_FP_LEN],
    const char *archive, const struct runner_tree_limits *lim,
    int *reason)
{
	char	*cause = NULL;
	int	 fd = -1, r;

	*reason = ALX_ERR_NOT_ALLOWED;
	if ((r = runner_tree_open(tp, work_root, statedir, sid,
	    sender)) != ALX_OK) {
		if (r == ALX_ERR_RUNNER_BUSY)
			*reason = r;
		return r;
	}
	if (runner_pathf(rj->workdir, sizeof(rj->workdir), "%s",
	    runner_tree_dir(*tp)) != ALX_OK)
		return ALX_ERR_BAD_PATH;
	if (archive != NULL && (fd = open(archive, O_RDONLY | O_CLOEXEC |
	    O_NOFOLLOW)) == -1)
		return ALX_ERR_IO;
	if (rj->meta.tree != NULL && fd == -1) {
		/* An empty tree: an empty archive. */
		r = ALX_ERR_INVALID;
	} else
		r = runner_tree_apply(*tp, rj->meta.tree, rj->meta.fresh, fd,
		    lim, &cause);
	if (fd != -1)
		close(fd);
	if (r != ALX_OK) {
		/* The cause names a path of the job: content, not logged. */
		log_info("job %s: tree refused: %s", rj->job_id,
		    alx_errname(r));
		if (r == ALX_ERR_BAD_PATH || r == ALX_ERR_TOO_LARGE ||
		    r == ALX_ERR_TREE_MISMATCH)
			*reason = r;
		else if (r == ALX_ERR_INVALID)
			*reason = ALX_ERR_BAD_PATH;
	}
	free(cause);
	return r;
}
