/*
 * client-tree.c: the working tree "airlox run --tree" sends. In a git
 * checkout, the files git would show (tracked, with their changes on disk,
 * and untracked ones not ignored), Git LFS files as their pointers;
 * elsewhere the current directory's files. Minus --tree-exclude patterns
 * and .airloxignore; files named like credentials are refused unless
 * --tree-allow names them. Only what changed since the tree the runner
 * confirmed goes into the archive (protocol.md section 8.4).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"
#include "client-tree.h"
#include "client-archive.h"

#define CTREE_GIT_OUT_MAX	(256 * 1024 * 1024)
#define CTREE_MAX_FILES		200000
#define CTREE_STATE_MAGIC	"airlox-ctree 1"

/*
 * Files named like credentials, refused unless --tree-allow names them: keys
 * and certificates, token files of package managers, git, GitHub's gh and
 * the cloud CLIs, shell and REPL histories, and everything under .ssh,
 * .gnupg and the cloud CLIs' folders ("name/": a folder of that name).
 */
static const char *const ctree_secret[] = {
	".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*",
	"id_ecdsa*", "id_dsa*", ".netrc", ".npmrc", ".pypirc",
	"credentials.json", "*.p12", "*.pfx", ".git-credentials",
	"git/credentials", "**/git/credentials", "gh/hosts.yml",
	"**/gh/hosts.yml", ".docker/config.json", ".htpasswd", "*.keystore",
	"*.jks", ".pgpass", "*_history", ".history", ".zhistory",
	".ssh/", ".gnupg/", ".aws/", ".azure/", "gcloud/", ".kube/", ".oci/",
	"credentials.tfrc.json", NULL
};

struct ctree_file {
	struct alx_tree_entry	 e;
	uint64_t		 ino;
	int64_t			 mtime_ns;
	int			 lfs;		/* send the index blob */
	uint8_t			*blob;		/* LFS pointer */
	size_t			 bloblen;
	int			 send;
};

struct ctree_list {
	struct ctree_file	*f;
	size_t			 n, cap;
};

static void
ctree_list_free(struct ctree_list *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		free(l->f[i].e.path);
		free(l->f[i].blob);
	}
	free(l->f);
	memset(l, 0, sizeof(*l));
}

static struct ctree_file *
ctree_list_add(struct ctree_list *l, const char *path)
{
	struct ctree_file	*nf;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		if ((nf = realloc(l->f, l->cap * sizeof(*nf))) == NULL)
			return NULL;
		l->f = nf;
	}
	memset(&l->f[l->n], 0, sizeof(*nf));
	if ((l->f[l->n].e.path = strdup(path)) == NULL)
		return NULL;
	return &l->f[l->n++];
}

static int
ctree_file_cmp(const void *a, const void *b)
{
	const struct ctree_file	*x = a, *y = b;

	return strcmp(x->e.path, y->e.path);
}

static struct ctree_file *
ctree_find(struct ctree_list *l, const char *path)
{
	struct ctree_file	key;

	key.e.path = (char *)path;
	return l->n == 0 ? NULL : bsearch(&key, l->f, l->n, sizeof(key),
	    ctree_file_cmp);
}

/*
 * Run git (or another program) in dir with a clean environment; its
 * stdout into out, stdin from in_fd (-1: /dev/null). 0 when it exited 0.
 */
static int
ctree_run(const char *dir, char *const argv[], int in_fd, struct alx_buf *out)
{
	const char	*path = getenv("PATH"), *home = getenv("HOME");
	char		 envpath[1024], envhome[1024];
	char		*envp[] = { envpath, envhome, "LC_ALL=C",
			    "GIT_CONFIG_NOSYSTEM=1", NULL };
	char		 buf[65536];
	ssize_t		 n;
	pid_t		 pid;
	int		 p[2], st, r = 0, nul;

	snprintf(envpath, sizeof(envpath), "PATH=%s",
	    path != NULL ? path : "/usr/local/bin:/usr/bin:/bin");
	snprintf(envhome, sizeof(envhome), "HOME=%s", home != NULL ? home : "/");
	if (pipe2(p, O_CLOEXEC) == -1)
		return ALX_ERR_IO;
	if ((pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		return ALX_ERR_IO;
	}
	if (pid == 0) {
		nul = open("/dev/null", O_RDWR);
		dup2(in_fd != -1 ? in_fd : nul, 0);
		dup2(p[1], 1);
		dup2(nul, 2);
		if (chdir(dir) == -1)
			_exit(127);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], buf, sizeof(buf))) > 0 || (n == -1 &&
	    errno == EINTR))
		if (n > 0 && r == 0 && alx_buf_add(out, buf, (size_t)n) != 0)
			r = ALX_ERR_TOO_LARGE;
	close(p[0]);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (r == 0 && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
		r = ALX_ERR_IO;
	return r;
}

/* git with args, found through $PATH by env(1). */
static int
ctree_git(const char *dir, const char *const args[], int in_fd,
    struct alx_buf *out)
{
	char	*argv[16];
	size_t	 i;

	argv[0] = "/usr/bin/env";
	argv[1] = "git";
	for (i = 0; args[i] != NULL && i < 13; i++)
		argv[i + 2] = (char *)args[i];
	argv[i + 2] = NULL;
	alx_buf_init(out, CTREE_GIT_OUT_MAX);
	return ctree_run(dir, argv, in_fd, out);
}

/* The checkout's top, or NULL outside a git repository. */
static char *
ctree_git_top(const char *dir)
{
	static const char *const args[] = { "rev-parse", "--show-toplevel",
	    NULL };
	struct alx_buf	 out;
	char		*top = NULL;

	if (ctree_git(dir, args, -1, &out) == 0 && out.len > 1) {
		if (out.data[out.len - 1] == '\n')
			out.len--;
		top = strndup((const char *)out.data, out.len);
	}
	alx_buf_free(&out);
	return top;
}

/*
 * gitignore-like matching: a pattern without '/' matches any component
 * (so a directory excludes what is under it); one with '/' matches from
 * the top (a leading '/' is dropped); a trailing '/' matches directories
 * only.
 */
int
ctree_pattern_match(const char *pattern, const char *path)
{
	char		 pat[ALX_TREE_PATH_MAX + 1], pre[ALX_TREE_PATH_MAX + 1];
	const char	*comp, *s;
	size_t		 len, plen = strlen(path);
	int		 dironly = 0, anchored, flags;

	if ((len = strlen(pattern)) == 0 || len > ALX_TREE_PATH_MAX ||
	    plen > ALX_TREE_PATH_MAX)
		return 0;
	memcpy(pat, pattern, len + 1);
	if (pat[len - 1] == '/') {
		dironly = 1;
		pat[--len] = '\0';
	}
	anchored = strchr(pat, '/') != NULL;
	s = pat[0] == '/' ? pat + 1 : pat;
	flags = strstr(s, "**") != NULL ? 0 : FNM_PATHNAME;
	for (comp = path;; ) {
		const char *end = strchr(comp, '/');
		int is_dir = end != NULL;

		if (end == NULL)
			end = path + plen;
		if (!dironly || is_dir) {
			if (anchored) {
				memcpy(pre, path, (size_t)(end - path));
				pre[end - path] = '\0';
				if (fnmatch(s, pre, flags) == 0)
					return 1;
			} else {
				memcpy(pre, comp, (size_t)(end - comp));
				pre[end - comp] = '\0';
				if (fnmatch(s, pre, 0) == 0)
					return 1;
			}
		}
		if (!is_dir)
			return 0;
		comp = end + 1;
	}
}

/* .airloxignore at the top: one pattern a line, '#' comments, '!' negates. */
static int
ctree_ignore_load(const char *top, char ***pats, size_t *np)
{
	char	 path[PATH_MAX], *line = NULL, **nv;
	size_t	 cap = 0;
	ssize_t	 len;
	FILE	*fp;

	*pats = NULL;
	*np = 0;
	snprintf(path, sizeof(path), "%s/.airloxignore", top);
	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	while ((len = getline(&line, &cap, fp)) > 0 && *np < 10000) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
		    line[len - 1] == ' '))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		if ((nv = realloc(*pats, (*np + 1) * sizeof(*nv))) == NULL)
			break;
		*pats = nv;
		if (((*pats)[*np] = strdup(line)) == NULL)
			break;
		(*np)++;
	}
	free(line);
	fclose(fp);
	return 0;
}

static int
ctree_excluded(const struct ctree_opts *o, char *const *ign, size_t nign,
    const char *path)
{
	size_t	i;
	int	ex = 0;

	for (i = 0; i < o->nexclude; i++)
		if (ctree_pattern_match(o->exclude[i], path))
			return 1;
	/* Last matching line wins, as in .gitignore. */
	for (i = 0; i < nign; i++) {
		if (ign[i][0] == '!') {
			if (ctree_pattern_match(ign[i] + 1, path))
				ex = 0;
		} else if (ctree_pattern_match(ign[i], path))
			ex = 1;
	}
	return ex;
}

static int
ctree_is_secret(const struct ctree_opts *o, const char *path)
{
	size_t	i;

	for (i = 0; i < o->nallow; i++)
		if (ctree_pattern_match(o->allow[i], path) ||
		    fnmatch(o->allow[i], path, 0) == 0)
			return 0;
	for (i = 0; ctree_secret[i] != NULL; i++)
		if (ctree_pattern_match(ctree_secret[i], path))
			return 1;
	return 0;
}

/* NUL-separated names into the list (sorted, unique). */
static int
ctree_add_names(struct ctree_list *l, const struct alx_buf *b)
{
	const char	*s = (const char *)b->data, *end = s + b->len, *z;

	while (s < end) {
		if ((z = memchr(s, '\0', (size_t)(end - s))) == NULL)
			break;
		if (z > s && ctree_list_add(l, s) == NULL)
			return ALX_ERR_NOMEM;
		s = z + 1;
	}
	return 0;
}

static void
ctree_sort_unique(struct ctree_list *l)
{
	size_t	i, n = 0;

	if (l->n > 1)
		qsort(l->f, l->n, sizeof(*l->f), ctree_file_cmp);
	for (i = 0; i < l->n; i++) {
		if (n > 0 && strcmp(l->f[n - 1].e.path, l->f[i].e.path) == 0) {
			free(l->f[i].e.path);
			continue;
		}
		l->f[n++] = l->f[i];
	}
	l->n = n;
}

/* LFS: paths whose filter attribute is lfs go as their index blob. */
static int
ctree_git_lfs(const char *top, struct ctree_list *l)
{
	static const char *const attr[] = { "check-attr", "-z", "--stdin",
	    "filter", NULL };
	const char	*tmpdir = getenv("TMPDIR");
	char		 tmpl[PATH_MAX], spec[ALX_TREE_PATH_MAX + 2];
	const char	*cat[] = { "cat-file", "blob", spec, NULL };
	struct alx_buf	 out, blob;
	const char	*s, *end, *p, *v;
	struct ctree_file *f;
	size_t		 i;
	int		 fd, any = 0, r;

	for (i = 0; i < l->n; i++) {
		s = strrchr(l->f[i].e.path, '/');
		if (strcmp(s != NULL ? s + 1 : l->f[i].e.path,
		    ".gitattributes") == 0)
			any = 1;
	}
	if (!any)
		return 0;
	snprintf(tmpl, sizeof(tmpl), "%s/airlox-attr-XXXXXX",
	    tmpdir != NULL && tmpdir[0] == '/' ? tmpdir : "/tmp");
	if ((fd = mkstemp(tmpl)) == -1)
		return ALX_ERR_IO;
	unlink(tmpl);
	for (i = 0; i < l->n; i++)
		if (write(fd, l->f[i].e.path, strlen(l->f[i].e.path) + 1) < 0) {
			close(fd);
			return ALX_ERR_IO;
		}
	lseek(fd, 0, SEEK_SET);
	r = ctree_git(top, attr, fd, &out);
	close(fd);
	s = (const char *)out.data;
	end = s + out.len;
	/* path NUL attr NUL value NUL */
	while (r == 0 && s < end) {
		p = s;
		s += strnlen(s, (size_t)(end - s)) + 1;
		if (s >= end)
			break;
		s += strnlen(s, (size_t)(end - s)) + 1;
		if (s >= end)
			break;
		v = s;
		s += strnlen(s, (size_t)(end - s)) + 1;
		if (strcmp(v, "lfs") != 0 || (f = ctree_find(l, p)) == NULL)
			continue;
		snprintf(spec, sizeof(spec), ":%s", p);
		if (ctree_git(top, cat, -1, &blob) == 0 && blob.len < 4096) {
			f->lfs = 1;
			f->bloblen = blob.len;
			f->blob = alx_buf_steal(&blob, NULL);
		}
		alx_buf_free(&blob);
	}
	alx_buf_free(&out);
	return r;
}

static int
ctree_collect_git(const char *top, struct ctree_list *l)
{
	static const char *const args[] = { "ls-files", "-z", "--cached",
	    "--others", "--exclude-standard", NULL };
	struct alx_buf	out;
	int		r;

	if ((r = ctree_git(top, args, -1, &out)) == 0)
		r = ctree_add_names(l, &out);
	alx_buf_free(&out);
	if (r != 0)
		return r;
	ctree_sort_unique(l);
	return ctree_git_lfs(top, l);
}

/* Outside git: every file and symlink under dir (rel: its tree path). */
static int
ctree_collect_dir(const char *top, const char *rel, struct ctree_list *l,
    int depth)
{
	char		 path[PATH_MAX], sub[PATH_MAX];
	DIR		*d;
	struct dirent	*de;
	int		 r = 0;

	snprintf(path, sizeof(path), "%s%s%s", top, rel[0] ? "/" : "", rel);
	if (depth > 64 || (d = opendir(path)) == NULL)
		return 0;
	while (r == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, ".git") == 0)
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel,
		    rel[0] ? "/" : "", de->d_name) >= sizeof(sub))
			continue;
		if (de->d_type == DT_DIR)
			r = ctree_collect_dir(top, sub, l, depth + 1);
		else if (ctree_list_add(l, sub) == NULL)
			r = ALX_ERR_NOMEM;
		if (l->n > CTREE_MAX_FILES)
			r = ALX_ERR_TOO_LARGE;
	}
	closedir(d);
	return r;
}

static void
ctree_note_skip(struct ctree *t, const char *path)
{
	size_t	 have = t->skipped ? strlen(t->skipped) : 0;
	char	*n;

	t->nskipped++;
	if (have > 300 || (n = realloc(t->skipped, have + strlen(path) +
	    3)) == NULL)
		return;
	t->skipped = n;
	snprintf(n + have, strlen(path) + 3, "%s%s", have ? ", " : "", path);
}

/* Hash a file's content. */
static int
ctree_hash_file(const char *path, uint8_t out[ALX_HASH_LEN], int64_t *size)
{
	struct alx_sha256_ctx	c;
	char			buf[65536];
	ssize_t			n;
	int64_t			total = 0;
	int			fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return ALX_ERR_IO;
	alx_sha256_init(&c);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		alx_sha256_update(&c, buf, (size_t)n);
		total += n;
	}
	close(fd);
	if (n < 0)
		return ALX_ERR_IO;
	alx_sha256_final(&c, out);
	*size = total;
	return 0;
}

/*
 * Each listed path: its kind, mode and hash (reused from the confirmed
 * state when size, inode and mtime match). Paths that cannot go are
 * dropped with a note; a missing one (deleted in the work tree) silently.
 */
static int
ctree_stat_all(struct ctree *t, const char *top, struct ctree_list *l,
    struct ctree_list *prev)
{
	char			 path[PATH_MAX], target[ALX_TREE_PATH_MAX + 1];
	struct ctree_file	*f, *p;
	struct stat		 st;
	ssize_t			 n;
	size_t			 i, keep = 0;

	for (i = 0; i < l->n; i++) {
		f = &l->f[i];
		snprintf(path, sizeof(path), "%s/%s", top, f->e.path);
		if (lstat(path, &st) == -1 || S_ISDIR(st.st_mode))
			goto drop_quiet;
		if (!alx_tree_path_valid(f->e.path))
			goto drop;
		f->ino = st.st_ino;
		f->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
		    st.st_mtim.tv_nsec;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(path, target, sizeof(target) - 1);
			if (n <= 0)
				goto drop;
			target[n] = '\0';
			if (!alx_tree_link_valid(f->e.path, target))
				goto drop;
			f->e.mode = ALX_TREE_LINK;
			f->e.size = n;
			alx_sha256(f->e.hash, target, (size_t)n);
		} else if (S_ISREG(st.st_mode)) {
			f->e.mode = (st.st_mode & 0100) ? ALX_TREE_EXEC :
			    ALX_TREE_FILE;
			if (f->lfs) {
				f->e.size = (int64_t)f->bloblen;
				alx_sha256(f->e.hash, f->blob, f->bloblen);
			} else if ((p = ctree_find(prev, f->e.path)) != NULL &&
			    p->ino == f->ino && p->mtime_ns == f->mtime_ns &&
			    p->e.size == st.st_size && p->e.mode == f->e.mode) {
				memcpy(f->e.hash, p->e.hash, ALX_HASH_LEN);
				f->e.size = p->e.size;
			} else if (ctree_hash_file(path, f->e.hash,
			    &f->e.size) != 0)
				goto drop;
		} else
			goto drop;
		l->f[keep++] = *f;
		continue;
drop:
		ctree_note_skip(t, f->e.path);
drop_quiet:
		free(f->e.path);
		free(f->blob);
	}
	l->n = keep;
	return 0;
}

/* The cache file of a (session, target) and its pending twin. */
static int
ctree_state_path(const struct ctree_opts *o, char *out, size_t len,
    const char *suffix)
{
	char	dir[PATH_MAX], tgt[ALX_NAME_MAX + 8], *s;
	int	r;

	if (o->sid == NULL || o->target == NULL ||
	    strchr(o->sid, '/') != NULL || o->sid[0] == '.')
		return ALX_ERR_INVALID;
	snprintf(tgt, sizeof(tgt), "%s", o->target);
	for (s = tgt; *s != '\0'; s++)
		if (*s == '/')
			*s = '+';
	if ((r = cache_dir(dir, sizeof(dir))) != 0)
		return r;
	if ((size_t)snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir),
	    "/trees") >= sizeof(dir) || alxs_cache_mkdir(dir) != 0)
		return ALX_ERR_IO;
	if ((size_t)snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir),
	    "/%s", o->sid) >= sizeof(dir) || alxs_cache_mkdir(dir) != 0)
		return ALX_ERR_IO;
	if ((size_t)snprintf(out, len, "%s/%s%s", dir, tgt, suffix) >= len)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

static int
ctree_state_load(const char *path, uint8_t id[ALX_HASH_LEN],
    struct ctree_list *l)
{
	FILE			*fp;
	char			*line = NULL, idtxt[64], hash[64], mode[8];
	size_t			 cap = 0;
	ssize_t			 len;
	long long		 size, mt;
	unsigned long long	 ino;
	struct ctree_file	*f;
	int			 off, r = ALX_ERR_INVALID;

	if ((fp = fopen(path, "re")) == NULL)
		return ALX_ERR_NOT_FOUND;
	if (getline(&line, &cap, fp) <= 0 ||
	    sscanf(line, CTREE_STATE_MAGIC " %63s", idtxt) != 1 ||
	    alx_b64_decode_exact(id, ALX_HASH_LEN, idtxt, strlen(idtxt)) != 0)
		goto out;
	while ((len = getline(&line, &cap, fp)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (sscanf(line, "%7s %63s %lld %llu %lld %n", mode, hash,
		    &size, &ino, &mt, &off) != 5 ||
		    !alx_tree_path_valid(line + off) ||
		    (f = ctree_list_add(l, line + off)) == NULL ||
		    alx_tree_mode_parse(mode, &f->e.mode) != 0 ||
		    alx_b64_decode_exact(f->e.hash, ALX_HASH_LEN, hash,
		    strlen(hash)) != 0)
			goto out;
		f->e.size = size;
		f->ino = ino;
		f->mtime_ns = mt;
	}
	ctree_sort_unique(l);
	r = 0;
out:
	free(line);
	fclose(fp);
	if (r != 0)
		ctree_list_free(l);
	return r;
}

static int
ctree_state_save(const char *path, const uint8_t id[ALX_HASH_LEN],
    const struct ctree_list *l)
{
	char	tmp[PATH_MAX + 8], txt[ALX_B64_ENCLEN(ALX_HASH_LEN) + 1];
	FILE	*fp;
	size_t	 i;
	int	 fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1)
		return ALX_ERR_IO;
	if ((fp = fdopen(fd, "w")) == NULL) {
		close(fd);
		return ALX_ERR_IO;
	}
	alx_b64_encode(txt, id, ALX_HASH_LEN);
	fprintf(fp, CTREE_STATE_MAGIC " %s\n", txt);
	for (i = 0; i < l->n; i++) {
		alx_b64_encode(txt, l->f[i].e.hash, ALX_HASH_LEN);
		fprintf(fp, "%s %s %lld %llu %lld %s\n",
		    alx_tree_mode_name(l->f[i].e.mode), txt,
		    (long long)l->f[i].e.size, (unsigned long long)l->f[i].ino,
		    (long long)l->f[i].mtime_ns, l->f[i].e.path);
	}
	if (fclose(fp) != 0 || rename(tmp, path) == -1) {
		unlink(tmp);
		return ALX_ERR_IO;
	}
	return 0;
}

/* Write one entry into the archive. */
static int
ctree_archive_entry(const struct car *ar, struct archive *a, const char *top,
    const struct ctree_file *f)
{
	struct archive_entry	*ae;
	char			 path[PATH_MAX], buf[65536];
	char			 target[ALX_TREE_PATH_MAX + 1];
	ssize_t			 n;
	int64_t			 left = f->e.size;
	int			 fd = -1, r = ALX_ERR_IO;

	snprintf(path, sizeof(path), "%s/%s", top, f->e.path);
	if ((ae = ar->entry_new()) == NULL)
		return ALX_ERR_NOMEM;
	ar->entry_set_pathname(ae, f->e.path);
	ar->entry_set_mtime(ae, 0, 0);
	if (f->e.mode == ALX_TREE_LINK) {
		if ((n = readlink(path, target, sizeof(target) - 1)) <= 0)
			goto out;
		target[n] = '\0';
		ar->entry_set_filetype(ae, AE_IFLNK);
		ar->entry_set_perm(ae, 0777);
		ar->entry_set_symlink(ae, target);
		ar->entry_set_size(ae, 0);
		r = ar->write_header(a, ae) == ARCHIVE_OK ? 0 : ALX_ERR_IO;
		goto out;
	}
	ar->entry_set_filetype(ae, AE_IFREG);
	ar->entry_set_perm(ae, f->e.mode == ALX_TREE_EXEC ? 0755 : 0644);
	ar->entry_set_size(ae, f->e.size);
	if (ar->write_header(a, ae) != ARCHIVE_OK)
		goto out;
	if (f->lfs) {
		r = ar->write_data(a, f->blob, f->bloblen) ==
		    (la_ssize_t)f->bloblen ? 0 : ALX_ERR_IO;
		goto out;
	}
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		goto out;
	/* Exactly the size announced: a file that grew is cut, one that shrank
	 * padded; the runner's tree id check then catches the change. */
	while (left > 0 && (n = read(fd, buf, (size_t)(left < (int64_t)
	    sizeof(buf) ? left : (int64_t)sizeof(buf)))) > 0) {
		if (ar->write_data(a, buf, (size_t)n) != n)
			goto out;
		left -= n;
	}
	memset(buf, 0, sizeof(buf));
	while (left > 0) {
		n = left < (int64_t)sizeof(buf) ? left : (int64_t)sizeof(buf);
		if (ar->write_data(a, buf, (size_t)n) != n)
			goto out;
		left -= n;
	}
	r = 0;
out:
	if (fd != -1)
		close(fd);
	ar->entry_free(ae);
	return r;
}

static int
ctree_archive(struct ctree *t, const char *top, const struct ctree_list *l)
{
	const struct car	*ar;
	struct archive		*a;
	const char		*tmpdir = getenv("TMPDIR");
	char			 tmpl[PATH_MAX];
	struct stat		 st;
	size_t			 i;
	int			 r = 0;

	if ((r = car_load(&ar, NULL)) != 0)
		return r;
	snprintf(tmpl, sizeof(tmpl), "%s/airlox-tree-XXXXXX",
	    tmpdir != NULL && tmpdir[0] == '/' ? tmpdir : "/tmp");
	if ((t->fd = mkstemp(tmpl)) == -1)
		return ALX_ERR_IO;
	unlink(tmpl);
	if ((a = ar->write_new()) == NULL)
		return ALX_ERR_NOMEM;
	if (ar->write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    ar->write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    ar->write_open_fd(a, t->fd) != ARCHIVE_OK) {
		ar->write_free(a);
		return ALX_ERR_IO;
	}
	for (i = 0; r == 0 && i < l->n; i++)
		if (l->f[i].send)
			r = ctree_archive_entry(ar, a, top, &l->f[i]);
	if (ar->write_close(a) != ARCHIVE_OK && r == 0)
		r = ALX_ERR_IO;
	ar->write_free(a);
	if (r == 0 && fstat(t->fd, &st) == 0)
		t->size = st.st_size;
	return r;
}

/* The refusal of credential-like files, naming each. */
static int
ctree_secrets(const struct ctree_opts *o, const struct ctree_list *l,
    char **cause)
{
	struct alx_buf	b;
	size_t		i, n = 0;

	alx_buf_init(&b, 16384);
	for (i = 0; i < l->n; i++) {
		if (!ctree_is_secret(o, l->f[i].e.path))
			continue;
		if (n++ < 50) {
			alx_buf_addstr(&b, n > 1 ? ", " : "");
			alx_buf_addstr(&b, l->f[i].e.path);
		}
	}
	if (n == 0) {
		alx_buf_free(&b);
		return 0;
	}
	alx_buf_addc(&b, '\0');
	if (asprintf(cause, "refusing to send %zu file%s named like "
	    "credentials: %s%s (allow with --tree-allow PATTERN, or leave "
	    "out with --tree-exclude PATTERN or .airloxignore)", n,
	    n > 1 ? "s" : "", (const char *)b.data, n > 50 ? ", ..." : "") ==
	    -1)
		*cause = NULL;
	alx_buf_free(&b);
	return ALX_ERR_NOT_ALLOWED;
}

/* The start directory within the tree. */
static char *
ctree_cwd(const char *top, const char *dir)
{
	char	*rtop, *rdir, *out = NULL;
	size_t	 n;

	rtop = realpath(top, NULL);
	rdir = realpath(dir, NULL);
	if (rtop != NULL && rdir != NULL) {
		n = strlen(rtop);
		if (strcmp(rtop, rdir) == 0)
			out = strdup("");
		else if (strncmp(rtop, rdir, n) == 0 && rdir[n] == '/' &&
		    alx_tree_path_valid(rdir + n + 1))
			out = strdup(rdir + n + 1);
		else
			out = strdup("");
	}
	free(rtop);
	free(rdir);
	return out;
}

/* Choose what to send against prev; fill the description. */
static int
ctree_delta(struct ctree *t, struct ctree_list *l, struct ctree_list *prev,
    const uint8_t previd[ALX_HASH_LEN], int use_prev,
    struct alx_tree_desc *d)
{
	struct ctree_file	*p;
	size_t			 i;
	char			**nd;

	memcpy(d->id, t->id, ALX_HASH_LEN);
	d->cwd = t->cwd;
	for (i = 0; i < l->n; i++) {
		p = use_prev ? ctree_find(prev, l->f[i].e.path) : NULL;
		l->f[i].send = p == NULL || p->e.mode != l->f[i].e.mode ||
		    memcmp(p->e.hash, l->f[i].e.hash, ALX_HASH_LEN) != 0;
		if (l->f[i].send) {
			t->nsent++;
			t->sent_bytes += l->f[i].e.size;
		}
	}
	if (!use_prev)
		return 0;
	d->has_base = 1;
	memcpy(d->base, previd, ALX_HASH_LEN);
	for (i = 0; i < prev->n; i++) {
		if (ctree_find(l, prev->f[i].e.path) != NULL)
			continue;
		if (d->ndeleted >= ALX_TREE_MAX_DELETED)
			return ALX_ERR_TOO_LARGE;
		if ((nd = realloc(d->deleted, (d->ndeleted + 1) *
		    sizeof(*nd))) == NULL)
			return ALX_ERR_NOMEM;
		d->deleted = nd;
		d->deleted[d->ndeleted++] = prev->f[i].e.path;
	}
	return 0;
}

static int
ctree_describe(struct ctree *t, struct ctree_list *l, struct ctree_list *prev,
    const uint8_t previd[ALX_HASH_LEN], int use_prev)
{
	struct alx_tree_desc	d;
	size_t			len;
	int			r;

	memset(&d, 0, sizeof(d));
	r = ctree_delta(t, l, prev, previd, use_prev, &d);
	if (r == 0) {
		d.files = t->nsent;
		d.bytes = t->sent_bytes;
		t->ndeleted = d.ndeleted;
		r = alx_tree_desc_encode(&d, &t->desc, &len);
	}
	free(d.deleted);	/* the strings belong to prev */
	if (r != 0 && use_prev) {
		/* Too many deletions for a delta: the full tree. */
		t->nsent = t->sent_bytes = 0;
		t->ndeleted = 0;
		return ctree_describe(t, l, prev, previd, 0);
	}
	t->delta = use_prev;
	return r;
}

static int
ctree_filter(struct ctree *t, const struct ctree_opts *o, const char *top,
    struct ctree_list *l, char **cause)
{
	char		**ign = NULL;
	size_t		  nign, i, keep = 0;

	ctree_ignore_load(top, &ign, &nign);
	for (i = 0; i < l->n; i++) {
		if (ctree_excluded(o, ign, nign, l->f[i].e.path)) {
			free(l->f[i].e.path);
			free(l->f[i].blob);
			continue;
		}
		l->f[keep++] = l->f[i];
	}
	l->n = keep;
	for (i = 0; i < nign; i++)
		free(ign[i]);
	free(ign);
	(void)t;
	return 0;
}

/* What is left to send: no credentials, no collisions. */
static int
ctree_check(const struct ctree_opts *o, struct ctree_list *l, char **cause)
{
	char		**paths;
	const char	 *which;
	size_t		  i;
	int		  r;

	if ((r = ctree_secrets(o, l, cause)) != 0)
		return r;
	if ((paths = calloc(l->n + 1, sizeof(*paths))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < l->n; i++)
		paths[i] = l->f[i].e.path;
	r = alx_tree_paths_check(paths, l->n, &which);
	if (r != 0 && asprintf(cause, "%s collides with another path after "
	    "case folding (or is both a file and a directory)", which) == -1)
		*cause = NULL;
	free(paths);
	return r;
}

/*
 * Where a tree may come from: inside one git repository that is not the
 * home folder. A folder outside any repository (the home folder, one that
 * holds several repositories) is refused unless --tree-folder says to send
 * it as it is.
 */
static int
ctree_where(const struct ctree_opts *o, const char *dir, const char *top,
    char **cause)
{
	const char	*h = getenv("HOME");
	char		*home = NULL, *here = NULL;
	int		 r = 0;

	if (o->any_folder)
		return 0;
	if (h != NULL && h[0] == '/')
		home = realpath(h, NULL);
	if (top != NULL && home != NULL && strcmp(top, home) == 0) {
		if (asprintf(cause, "the repository here is your home folder "
		    "(%s): --tree would send your home; run it from a "
		    "project's repository, or give --tree-folder to send it "
		    "anyway", home) == -1)
			*cause = NULL;
		r = ALX_ERR_NOT_ALLOWED;
	} else if (top == NULL) {
		here = realpath(dir, NULL);
		if (asprintf(cause, "%s%s is not inside a git repository: --tree "
		    "sends one repository's files; run it from inside one, or "
		    "give --tree-folder to send this folder as it is",
		    here != NULL ? here : dir, home != NULL && here != NULL &&
		    strcmp(here, home) == 0 ? " (your home folder)" : "") == -1)
			*cause = NULL;
		r = ALX_ERR_NOT_ALLOWED;
	}
	free(here);
	free(home);
	return r;
}

int
ctree_build(struct ctree *t, const struct ctree_opts *o, char **cause)
{
	struct ctree_list	 l, prev;
	struct alx_tree_entry	*ids = NULL;
	const char		*dir = o->dir != NULL ? o->dir : ".";
	char			 cpath[PATH_MAX], *top;
	uint8_t			 previd[ALX_HASH_LEN];
	size_t			 i;
	int			 r, have_prev = 0;

	memset(t, 0, sizeof(*t));
	memset(&l, 0, sizeof(l));
	memset(&prev, 0, sizeof(prev));
	t->fd = -1;
	*cause = NULL;
	top = ctree_git_top(dir);
	if ((r = ctree_where(o, dir, top, cause)) != 0) {
		free(top);
		return r;
	}
	if (top != NULL) {
		t->git = 1;
		r = ctree_collect_git(top, &l);
	} else {
		top = realpath(dir, NULL);
		r = top != NULL ? ctree_collect_dir(top, "", &l, 0) : ALX_ERR_IO;
		ctree_sort_unique(&l);
	}
	if (r != 0)
		goto out;
	if ((t->cwd = ctree_cwd(top, dir)) == NULL) {
		r = ALX_ERR_IO;
		goto out;
	}
	if ((r = ctree_filter(t, o, top, &l, cause)) != 0)
		goto out;
	if (ctree_state_path(o, cpath, sizeof(cpath), "") == 0 &&
	    ctree_state_load(cpath, previd, &prev) == 0)
		have_prev = 1;
	if ((r = ctree_stat_all(t, top, &l, &prev)) != 0 ||
	    (r = ctree_check(o, &l, cause)) != 0)
		goto out;
	if ((ids = calloc(l.n + 1, sizeof(*ids))) == NULL) {
		r = ALX_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < l.n; i++) {
		ids[i] = l.f[i].e;
		t->total += l.f[i].e.size;
	}
	t->nfiles = (int64_t)l.n;
	if ((r = alx_tree_id(t->id, ids, l.n)) != 0 ||
	    (r = ctree_describe(t, &l, &prev, previd, have_prev &&
	    !o->fresh)) != 0 || (r = ctree_archive(t, top, &l)) != 0)
		goto out;
	/* What the runner will hold, kept until it confirms it. */
	if (ctree_state_path(o, t->pending, sizeof(t->pending),
	    ".pending") != 0 || ctree_state_save(t->pending, t->id, &l) != 0)
		t->pending[0] = '\0';
out:
	free(ids);
	free(top);
	ctree_list_free(&l);
	ctree_list_free(&prev);
	if (r != 0) {
		ctree_free(t);
		t->fd = -1;
	}
	return r;
}

void
ctree_free(struct ctree *t)
{
	if (t->fd != -1)
		close(t->fd);
	free(t->desc);
	free(t->cwd);
	free(t->skipped);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

int
ctree_forget(const struct ctree_opts *o)
{
	char	path[PATH_MAX];

	if (ctree_state_path(o, path, sizeof(path), "") != 0)
		return ALX_ERR_IO;
	if (unlink(path) == -1 && errno != ENOENT)
		return ALX_ERR_IO;
	return 0;
}

/* The tree id a result's env confirms ("tree":{"id"}): 0, or an error. */
static int
ctree_env_id(const char *env_json, uint8_t id[ALX_HASH_LEN])
{
	struct alx_json	*j = NULL;
	int		 tok, r = ALX_ERR_NOT_FOUND;

	if (env_json != NULL &&
	    alx_json_parse(&j, env_json, strlen(env_json), NULL) == 0 &&
	    (tok = alx_json_obj_get(j, 0, "tree")) >= 0 &&
	    alx_json_get_b64(j, tok, "id", id, ALX_HASH_LEN) == 0)
		r = 0;
	alx_json_free(j);
	return r;
}

int
ctree_confirm(const struct ctree_opts *o, const struct ctree *t,
    const char *env_json)
{
	char		 path[PATH_MAX];
	uint8_t		 id[ALX_HASH_LEN];

	if (t->pending[0] == '\0' || ctree_env_id(env_json, id) != 0 ||
	    !alx_ct_eq(id, t->id, ALX_HASH_LEN)) {
		if (t->pending[0] != '\0')
			unlink(t->pending);
		return ctree_forget(o);
	}
	if (ctree_state_path(o, path, sizeof(path), "") != 0 ||
	    rename(t->pending, path) == -1)
		return ALX_ERR_IO;
	return 0;
}

/* The tree id in the first line of a kept state. */
static int
ctree_state_id(int dfd, const char *name, uint8_t id[ALX_HASH_LEN])
{
	FILE	*fp;
	char	 line[160], idtxt[64];
	int	 fd, r = ALX_ERR_INVALID;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return ALX_ERR_NOT_FOUND;
	if ((fp = fdopen(fd, "r")) == NULL) {
		close(fd);
		return ALX_ERR_IO;
	}
	if (fgets(line, sizeof(line), fp) != NULL &&
	    sscanf(line, CTREE_STATE_MAGIC " %63s", idtxt) == 1 &&
	    alx_b64_decode_exact(id, ALX_HASH_LEN, idtxt, strlen(idtxt)) == 0)
		r = 0;
	fclose(fp);
	return r;
}

int
ctree_confirm_pending(const char *sid, const char *env_json)
{
	struct dirent	*de;
	DIR		*d;
	char		 dir[PATH_MAX], *name;
	uint8_t		 want[ALX_HASH_LEN], id[ALX_HASH_LEN];
	size_t		 len;
	int		 r = ALX_ERR_NOT_FOUND;

	if (sid == NULL || strchr(sid, '/') != NULL || sid[0] == '.' ||
	    ctree_env_id(env_json, want) != 0)
		return ALX_ERR_NOT_FOUND;
	if (cache_dir(dir, sizeof(dir)) != 0 ||
	    (size_t)snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir),
	    "/trees/%s", sid) >= sizeof(dir) || (d = opendir(dir)) == NULL)
		return ALX_ERR_NOT_FOUND;
	while (r != 0 && (de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len <= 8 || strcmp(de->d_name + len - 8, ".pending") != 0 ||
		    ctree_state_id(dirfd(d), de->d_name, id) != 0 ||
		    !alx_ct_eq(id, want, ALX_HASH_LEN))
			continue;
		if ((name = strndup(de->d_name, len - 8)) == NULL) {
			r = ALX_ERR_NOMEM;
			break;
		}
		r = renameat(dirfd(d), de->d_name, dirfd(d), name) == 0 ? 0 :
		    ALX_ERR_IO;
		free(name);
	}
	closedir(d);
	return r;
}
