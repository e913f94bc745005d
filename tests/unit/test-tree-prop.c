/*
 * test-tree-prop.c: a property of the runner's tree applier
 * (runnerd/runner-tree.c): for random archives of names, links, modes and
 * sizes, applied fresh, over what was there, or as deltas, and with
 * symlinks a job planted in the workspace between runs, nothing is ever
 * created outside the workspace (a walk of the whole parent folder after
 * each run), a refused archive changes nothing, and every refusal of an
 * entry names it.
 *
 * Seeded and bounded: TREE_PROP_SEED and TREE_PROP_RUNS change the seed
 * (default 1) and the count (default 400); a failure prints both.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "tap.h"
#include "runnerd.h"
#include "runner-tree.h"

#define MEMBERS_MAX	12
#define NAME_MAX_LEN	300

struct member {
	char	 type;		/* f x l h d c p */
	char	 path[NAME_MAX_LEN];
	char	 target[NAME_MAX_LEN];
	size_t	 size;
};

static char	top[PATH_MAX / 2], work[PATH_MAX], state[PATH_MAX];
static char	outside[PATH_MAX];
static uint64_t	rng;
static int	tame;		/* this run: names from the valid part only */

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n == 0 ? 0 : (uint32_t)(rng % n);
}

/* One name: components of a pool, sometimes absolute or climbing. */
static void
gen_name(char *out, size_t len)
{
	static const char *const pool[] = {
		"a", "b", "A", "src", "src", "lib", "x y", "\xc3\xa9", "L",
		"Makefile", "makefile", "link",
		/* not valid: */ "..", ".", ".git", "", "d\\e", "tab\tname",
	};
	const size_t	nvalid = 12;
	size_t		n = 1 + rnd(3), i, o = 0;
	int		w;

	out[0] = '\0';
	if (!tame && rnd(12) == 0)
		o = (size_t)snprintf(out, len, "%s/", outside);
	for (i = 0; i < n && o < len; i++) {
		w = snprintf(out + o, len - o, "%s%s", i ? "/" : "",
		    pool[rnd(tame ? nvalid : sizeof pool / sizeof pool[0])]);
		o += w > 0 ? (size_t)w : 0;
	}
	if (!tame && rnd(30) == 0 && o + 200 < len) {
		memset(out + o, 'n', 200);	/* a long component */
		out[o + 200] = '\0';
	}
}

/* A link target: .., ., names, another member, or an absolute path. */
static void
gen_target(char *out, size_t len, const struct member *m, size_t n)
{
	static const char *const pool[] = { "..", "..", ".", "a", "src", "L" };
	size_t	k = 1 + rnd(4), i, o = 0;
	int	w;

	out[0] = '\0';
	if (!tame && rnd(8) == 0)
		o = (size_t)snprintf(out, len, "%s", outside);
	for (i = 0; i < k && o < len; i++) {
		w = snprintf(out + o, len - o, "%s%s", i || o ? "/" : "",
		    n > 0 && rnd(3) == 0 ? m[rnd((uint32_t)n)].path :
		    pool[rnd(sizeof pool / sizeof pool[0])]);
		o += w > 0 ? (size_t)w : 0;
	}
}

static size_t
gen_members(struct member *m)
{
	static const char	types[] = "fffffffxxlllll" "dhcp";
	size_t			n = 1 + rnd(MEMBERS_MAX), i;

	tame = rnd(2);
	for (i = 0; i < n; i++) {
		m[i].type = types[rnd(sizeof types - (tame ? 5 : 1))];
		/* Names repeat on purpose: duplicates, file vs directory. */
		if (i > 0 && rnd(5) == 0)
			memcpy(m[i].path, m[rnd((uint32_t)i)].path,
			    sizeof m[i].path);
		else
			gen_name(m[i].path, sizeof m[i].path);
		gen_target(m[i].target, sizeof m[i].target, m, i);
		m[i].size = rnd(4) == 0 ? rnd(70000) : rnd(300);
	}
	return n;
}

/* The archive, in an unlinked temporary file. */
static int
craft(const struct member *m, size_t n)
{
	struct archive		*a;
	struct archive_entry	*ae;
	char			 tmpl[PATH_MAX], buf[4096];
	size_t			 i, left, k;
	int			 fd;

	snprintf(tmpl, sizeof tmpl, "%s/ar-XXXXXX", top);
	if ((fd = mkstemp(tmpl)) == -1)
		return -1;
	unlink(tmpl);
	a = archive_write_new();
	archive_write_set_format_pax_restricted(a);
	archive_write_open_fd(a, fd);
	for (i = 0; i < n; i++) {
		ae = archive_entry_new();
		archive_entry_set_pathname(ae, m[i].path);
		archive_entry_set_perm(ae, m[i].type == 'x' ? 0755 : 0644);
		switch (m[i].type) {
		case 'f':
		case 'x':
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_size(ae, (la_int64_t)m[i].size);
			break;
		case 'l':
			archive_entry_set_filetype(ae, AE_IFLNK);
			archive_entry_set_symlink(ae, m[i].target);
			break;
		case 'h':
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_hardlink(ae, m[i].target);
			break;
		case 'd':
			archive_entry_set_filetype(ae, AE_IFDIR);
			break;
		case 'c':
			archive_entry_set_filetype(ae, AE_IFCHR);
			archive_entry_set_rdevmajor(ae, 1);
			archive_entry_set_rdevminor(ae, 3);
			break;
		default:
			archive_entry_set_filetype(ae, AE_IFIFO);
		}
		archive_write_header(a, ae);
		if (m[i].type == 'f' || m[i].type == 'x')
			for (left = m[i].size; left > 0; left -= k) {
				k = left < sizeof buf ? left : sizeof buf;
				memset(buf, (int)('0' + i), k);
				archive_write_data(a, buf, k);
			}
		archive_entry_free(ae);
	}
	archive_write_close(a);
	archive_write_free(a);
	return fd;
}

/*
 * Every path under dir (relative to top, "type path size" lines, sorted
 * by the walk's order) appended to out; NOFOLLOW throughout.
 */
static void
walk(int dfd, const char *rel, char **out, size_t *len)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		 path[PATH_MAX], *line;
	int		 fd;

	if ((fd = dup(dfd)) == -1 || (d = fdopendir(fd)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s%s%s", rel, rel[0] ? "/" : "",
		    de->d_name);
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (asprintf(&line, "%c %s %lld\n", S_ISDIR(st.st_mode) ? 'd' :
		    S_ISLNK(st.st_mode) ? 'l' : S_ISREG(st.st_mode) ? 'f' :
		    '?', path, S_ISREG(st.st_mode) ? (long long)st.st_size :
		    0LL) == -1)
			abort();
		*out = realloc(*out, *len + strlen(line) + 1);
		memcpy(*out + *len, line, strlen(line) + 1);
		*len += strlen(line);
		free(line);
		if (S_ISDIR(st.st_mode) && (fd = openat(dirfd(d), de->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) != -1) {
			walk(fd, path, out, len);
			close(fd);
		}
	}
	closedir(d);
}

static char *
listing(const char *dir)
{
	char	*out = calloc(1, 1);
	size_t	 len = 0;
	int	 fd;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) != -1) {
		walk(fd, "", &out, &len);
		close(fd);
	}
	return out;
}

/* Every path of the parent lies in the workspace, the state dir, or is
 * one of the three folders and the scratch archives' directory itself. */
static const char *
stray(const char *all, const char *wsname)
{
	static char	 bad[NAME_MAX_LEN * 2];
	const char	*l, *nl, *p;
	char		 prefix[128];
	size_t		 plen;

	snprintf(prefix, sizeof prefix, "work/%s", wsname);
	plen = strlen(prefix);
	for (l = all; *l != '\0'; l = nl + 1) {
		nl = strchr(l, '\n');
		p = l + 2;
		if (strncmp(p, "state", 5) == 0 && (p[5] == ' ' || p[5] == '/'))
			continue;
		if (strncmp(p, prefix, plen) == 0 && (p[plen] == ' ' ||
		    p[plen] == '/'))
			continue;
		if (strncmp(p, "work ", 5) == 0 || strncmp(p, "outside ", 8) == 0)
			continue;
		snprintf(bad, sizeof bad, "%.*s", (int)(nl - l), l);
		return bad;
	}
	return NULL;
}

static int
dir_is_empty(void)
{
	char	*l = listing(outside);
	int	 empty = l[0] == '\0';

	free(l);
	return empty;
}

static int
rm1(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	remove(path);
	return 0;
}

/* Between runs, a job plants symlinks (to outside, to .., absolute). */
static void
plant(const char *ws)
{
	static const char *const names[] = { "a", "src", "lib", "L", "b/c" };
	char	path[PATH_MAX + 16], d[PATH_MAX + 4];
	size_t	i, k = rnd(4);

	for (i = 0; i < k; i++) {
		snprintf(path, sizeof path, "%s/%s", ws,
		    names[rnd(sizeof names / sizeof names[0])]);
		if (strchr(path + strlen(ws) + 1, '/') != NULL) {
			snprintf(d, sizeof d, "%s/b", ws);
			mkdir(d, 0755);
		}
		if (rnd(2) == 0 && access(path, F_OK) != 0)
			(void)!symlink(rnd(2) ? outside : "../..", path);
		else if (rnd(3) == 0)
			mkdir(path, 0755);
	}
}

/*
 * The cause of a refused entry names one of the archive's paths, quoted,
 * its first 100 bytes (control bytes, quotes, backslashes shown as '?').
 */
static int
names_entry(const char *cause, const struct member *m, size_t n)
{
	const char	*p;
	char		 name[104];
	size_t		 i, k;

	if (cause == NULL)
		return 0;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof name, "\"%.100s", m[i].path);
		for (k = 1; name[k] != '\0'; k++)
			if ((unsigned char)name[k] < 0x20 || name[k] == 0x7f ||
			    name[k] == '"' || name[k] == '\\')
				name[k] = '?';
		/* libarchive writes a directory's name with a '/' after. */
		if ((p = strstr(cause, name)) != NULL && (strlen(m[i].path) >
		    100 || p[strlen(name)] == '"' || (m[i].type == 'd' &&
		    p[strlen(name)] == '/')))
			return 1;
	}
	return 0;
}

static char *
desc_json(const uint8_t *base, char **deleted, size_t ndeleted)
{
	struct alx_tree_desc	d;
	char			*json = NULL;
	size_t			 len;

	memset(&d, 0, sizeof d);
	memset(d.id, 0x5a, ALX_HASH_LEN);
	if (base != NULL) {
		d.has_base = 1;
		memcpy(d.base, base, ALX_HASH_LEN);
	}
	d.deleted = deleted;
	d.ndeleted = ndeleted;
	d.cwd = (char *)"";
	if (alx_tree_desc_encode(&d, &json, &len) != ALX_OK)
		abort();
	return json;
}

int
main(void)
{
	struct runner_tree_limits	 lim = { 10, 200000 };
	struct runner_tree		*t;
	struct member			 m[MEMBERS_MAX];
	uint8_t				 sid[ALX_SID_LEN], zero[ALX_HASH_LEN];
	const char			*base = getenv("TMPDIR"), *bad, *e;
	char				*json, *cause, *before, *after, *all;
	char				 ws[PATH_MAX], wsname[64], *del[1];
	unsigned long			 seed = 1, runs = 400, i;
	size_t				 n;
	int				 fd, r, fresh, refused = 0, applied = 0;
	int				 named = 1, unchanged = 1, clean = 1;

	if ((e = getenv("TREE_PROP_SEED")) != NULL)
		seed = strtoul(e, NULL, 10);
	if ((e = getenv("TREE_PROP_RUNS")) != NULL)
		runs = strtoul(e, NULL, 10);
	rng = 0x9e3779b97f4a7c15ULL ^ (seed * 0x100000001b3ULL);
	snprintf(top, sizeof top, "%s/test-tree-prop-XXXXXX",
	    base != NULL ? base : "/tmp");
	if (mkdtemp(top) == NULL)
		tap_skip_all("no temporary directory");
	snprintf(work, sizeof work, "%s/work", top);
	snprintf(state, sizeof state, "%s/state", top);
	snprintf(outside, sizeof outside, "%s/outside", top);
	if (mkdir(work, 0711) != 0 || mkdir(state, 0700) != 0 ||
	    mkdir(outside, 0700) != 0)
		tap_skip_all("cannot make the folders");
	memset(sid, 3, sizeof sid);
	memset(zero, 0, sizeof zero);
	/* The sender's key fingerprint: a fixed one will do. */
	if (runner_tree_open(&t, work, state, sid, zero) != ALX_OK)
		tap_skip_all("cannot open a workspace");
	snprintf(ws, sizeof ws, "%s", runner_tree_dir(t));
	snprintf(wsname, sizeof wsname, "%s", strrchr(ws, '/') + 1);
	tap_diag("seed %lu, %lu runs", seed, runs);

	for (i = 0; i < runs && clean && named && unchanged; i++) {
		n = gen_members(m);
		fresh = rnd(3) == 0;
		del[0] = m[0].path;
		/* A delta needs the tree it applies to: ours is never that
		 * one (the ids are made up), so deltas are refused whole. */
		json = rnd(5) == 0 ? desc_json(zero, alx_tree_path_valid(
		    del[0]) ? del : NULL, alx_tree_path_valid(del[0])) :
		    desc_json(NULL, NULL, 0);
		if (rnd(2) == 0)
			plant(ws);
		before = listing(ws);
		if ((fd = craft(m, n)) == -1)
			tap_skip_all("cannot write an archive");
		cause = NULL;
		r = runner_tree_apply(t, json, fresh, fd, &lim, &cause);
		close(fd);
		after = listing(ws);
		all = listing(top);
		if ((bad = stray(all, wsname)) != NULL || !dir_is_empty()) {
			clean = 0;
			tap_diag("run %lu: created outside the workspace: %s",
			    i, bad != NULL ? bad : "in outside/");
		}
		if (r == ALX_ERR_BAD_PATH || r == ALX_ERR_TOO_LARGE) {
			refused++;
			if (!names_entry(cause, m, n)) {
				named = 0;
				tap_diag("run %lu: refused (%s) without naming "
				    "the entry: %s", i, alx_errname(r),
				    cause != NULL ? cause : "no cause");
			}
			if (!fresh && strcmp(before, after) != 0) {
				unchanged = 0;
				tap_diag("run %lu: a refused archive changed the "
				    "workspace", i);
			}
		} else if (r == ALX_OK || r == ALX_ERR_TREE_MISMATCH)
			applied++;
		free(cause);
		free(json);
		free(before);
		free(after);
		free(all);
	}
	if (!clean || !named || !unchanged)
		tap_diag("reproduce: TREE_PROP_SEED=%lu TREE_PROP_RUNS=%lu (the "
		    "folders are kept in %s)", seed, i, top);
	ok(clean, "%lu random archives: nothing created outside the workspace",
	    i);
	ok(named, "every refusal of an entry names it (%d refused)", refused);
	ok(unchanged, "a refused archive leaves the workspace as it was");
	ok((unsigned long)applied > runs / 10 &&
	    (unsigned long)refused > runs / 10, "both kinds were tried "
	    "(%d applied, %d refused)", applied, refused);
	runner_tree_close(t);
	if (clean && named && unchanged)	/* else kept, to look at */
		nftw(top, rm1, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
