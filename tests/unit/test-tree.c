/*
 * test-tree.c: working trees: the tree id, entry name checks, the tree
 * description, and the runner's archive applier against crafted archives
 * with each escape (checked on the host: nothing is written outside the
 * workspace).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "tap.h"
#include "runnerd.h"
#include "runner-tree.h"

/* One crafted archive member: type f (file), x (exec), l (symlink),
 * h (hard link), c (char device), p (fifo), d (directory). */
struct member {
	char		 type;
	const char	*path;
	const char	*data;		/* content, or the link's target */
};

#define TPATH	1024	/* our temporary paths: room to add names */
static char	tmp[TPATH / 2], work[TPATH], state[TPATH], outside[TPATH];

static int
craft(const struct member *m, size_t n)
{
	struct archive		*a;
	struct archive_entry	*ae;
	char			 tmpl[PATH_MAX];
	size_t			 i;
	int			 fd;

	snprintf(tmpl, sizeof(tmpl), "%s/ar-XXXXXX", tmp);
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
			archive_entry_set_size(ae, (la_int64_t)strlen(m[i].data));
			break;
		case 'l':
			archive_entry_set_filetype(ae, AE_IFLNK);
			archive_entry_set_symlink(ae, m[i].data);
			break;
		case 'h':
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_hardlink(ae, m[i].data);
			break;
		case 'c':
			archive_entry_set_filetype(ae, AE_IFCHR);
			archive_entry_set_rdevmajor(ae, 1);
			archive_entry_set_rdevminor(ae, 3);
			break;
		case 'p':
			archive_entry_set_filetype(ae, AE_IFIFO);
			break;
		case 'd':
			archive_entry_set_filetype(ae, AE_IFDIR);
			break;
		}
		archive_write_header(a, ae);
		if (m[i].type == 'f' || m[i].type == 'x')
			archive_write_data(a, m[i].data, strlen(m[i].data));
		archive_entry_free(ae);
	}
	archive_write_close(a);
	archive_write_free(a);
	return fd;
}

/* The tree id of a whole tree given as members (files and links). */
static void
tree_id_of(const struct member *m, size_t n, uint8_t id[ALX_HASH_LEN])
{
	struct alx_tree_entry	e[32];
	size_t			i;

	for (i = 0; i < n; i++) {
		e[i].path = (char *)m[i].path;
		e[i].mode = m[i].type == 'l' ? ALX_TREE_LINK :
		    m[i].type == 'x' ? ALX_TREE_EXEC : ALX_TREE_FILE;
		alx_sha256(e[i].hash, m[i].data, strlen(m[i].data));
		e[i].size = (int64_t)strlen(m[i].data);
	}
	alx_tree_sort(e, n);
	alx_tree_id(id, e, n);
}

static char *
desc(const uint8_t id[ALX_HASH_LEN], const uint8_t *base, const char *del)
{
	struct alx_tree_desc	d;
	char			*json = NULL, *dl[1];
	size_t			 len;

	memset(&d, 0, sizeof(d));
	memcpy(d.id, id, ALX_HASH_LEN);
	if (base != NULL) {
		d.has_base = 1;
		memcpy(d.base, base, ALX_HASH_LEN);
	}
	if (del != NULL) {
		dl[0] = (char *)del;
		d.deleted = dl;
		d.ndeleted = 1;
	}
	d.cwd = (char *)"";
	alx_tree_desc_encode(&d, &json, &len);
	return json;
}

static int
dir_empty(const char *path)
{
	DIR		*d;
	struct dirent	*de;
	int		 n = 0;

	if ((d = opendir(path)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n == 0;
}

static char *
slurp(const char *dir, const char *name)
{
	static char	buf[4096];
	char		path[PATH_MAX];
	ssize_t		n;
	int		fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW)) == -1)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static int
exists(const char *dir, const char *name)
{
	char		path[PATH_MAX];
	struct stat	st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &st) == 0;
}

/* Overwrite a file in place with other bytes, then restore its mtime. */
static int
tamper(const char *dir, const char *name)
{
	char		path[PATH_MAX], buf[256];
	struct stat	st;
	struct timespec	ts[2];
	ssize_t		n;
	int		fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (lstat(path, &st) == -1 || (fd = open(path, O_RDWR)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf));
	if (n <= 0) {
		close(fd);
		return 0;
	}
	buf[0] ^= 0x20;
	if (pwrite(fd, buf, (size_t)n, 0) != n) {
		close(fd);
		return 0;
	}
	close(fd);
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	return utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW) == 0;
}

static void
test_names(void)
{
	const char	*coll1[] = { "README", "src/a.c", "readme" };
	const char	*coll2[] = { "Docs/a", "docs/b" };
	const char	*coll3[] = { "a", "a/b" };
	const char	*fine[] = { "a/x", "a/y", "b" };
	const char	*which;
	char		 longp[ALX_TREE_PATH_MAX + 2];

	ok(alx_tree_path_valid("a/b.c"), "a relative path is valid");
	ok(!alx_tree_path_valid("/etc/passwd"), "an absolute path is not");
	ok(!alx_tree_path_valid("../x"), "a leading .. is not");
	ok(!alx_tree_path_valid("a/../../x"), "an inner .. is not");
	ok(!alx_tree_path_valid("a//b") && !alx_tree_path_valid("a/") &&
	    !alx_tree_path_valid("") && !alx_tree_path_valid("./a"),
	    "empty and . components are not");
	ok(!alx_tree_path_valid(".git/config") &&
	    !alx_tree_path_valid("sub/.GIT/hooks/x"), ".git is not");
	ok(!alx_tree_path_valid("a\\b") && !alx_tree_path_valid("a\nb"),
	    "backslash and control characters are not");
	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	ok(!alx_tree_path_valid(longp), "an over-long path is not");
	ok(alx_tree_link_valid("a/l", "../b"), "a link to a sibling is inside");
	ok(alx_tree_link_valid("a/b/l", "../../c"), "a link to the top's child");
	ok(!alx_tree_link_valid("l", "../x"), "a link above the top is out");
	ok(!alx_tree_link_valid("a/l", "../../c"), "a deeper escape is out");
	ok(!alx_tree_link_valid("l", "/etc"), "an absolute target is out");
	ok(!alx_tree_link_valid("l", "x/../../y"), "an escape after a dip");
	is_int(alx_tree_paths_check((char *const *)coll1, 3, &which),
	    ALX_ERR_BAD_PATH, "README and readme collide");
	is_str(which, "readme", "the colliding path is named");
	is_int(alx_tree_paths_check((char *const *)coll2, 2, &which),
	    ALX_ERR_BAD_PATH, "Docs/ and docs/ collide as directories");
	is_int(alx_tree_paths_check((char *const *)coll3, 2, &which),
	    ALX_ERR_BAD_PATH, "a file cannot also be a directory");
	is_int(alx_tree_paths_check((char *const *)fine, 3, &which), ALX_OK,
	    "distinct paths in a shared directory are fine");
}

static void
test_id(void)
{
	struct alx_tree_entry	e[2];
	struct alx_sha256_ctx	c;
	uint8_t			id[ALX_HASH_LEN], id2[ALX_HASH_LEN];
	uint8_t			want[ALX_HASH_LEN];

	memset(e, 0, sizeof(e));
	e[0].path = (char *)"b/x";
	e[0].mode = ALX_TREE_EXEC;
	alx_sha256(e[0].hash, "run", 3);
	e[1].path = (char *)"a";
	e[1].mode = ALX_TREE_FILE;
	alx_sha256(e[1].hash, "hello", 5);
	is_int(alx_tree_id(id, e, 2), ALX_ERR_INVALID,
	    "an unsorted list has no id");
	alx_tree_sort(e, 2);
	is_str(e[0].path, "a", "sorted by path");
	is_int(alx_tree_id(id, e, 2), ALX_OK, "a sorted list has an id");
	/* The format of protocol.md 8.4, written out independently. */
	alx_sha256_init(&c);
	alx_sha256_update(&c, "airlox/v1/tree\0", 15);
	alx_sha256_update(&c, "a\0" "0644\0", 7);
	alx_sha256_update(&c, e[0].hash, 32);
	alx_sha256_update(&c, "b/x\0" "0755\0", 9);
	alx_sha256_update(&c, e[1].hash, 32);
	alx_sha256_final(&c, want);
	is_mem(id, want, ALX_HASH_LEN, "the id is the documented hash");
	e[1].mode = ALX_TREE_FILE;
	alx_tree_id(id2, e, 2);
	ok(memcmp(id, id2, ALX_HASH_LEN) != 0, "the mode is part of the id");
	e[1].mode = ALX_TREE_EXEC;
	e[1].hash[0] ^= 1;
	alx_tree_id(id2, e, 2);
	ok(memcmp(id, id2, ALX_HASH_LEN) != 0, "the content is part of the id");
}

static void
test_desc(void)
{
	struct alx_tree_desc	d;
	uint8_t			id[ALX_HASH_LEN], base[ALX_HASH_LEN];
	char			*json;
	const char		*bad = "{\"v\":1,\"id\":\"AAAAAAAAAAAAAAAAAAAAAAAA"
	    "AAAAAAAAAAAAAAAAAAA\",\"files\":0,\"bytes\":0,\"deleted\":"
	    "[\"../x\"],\"cwd\":\"\"}";

	memset(id, 7, sizeof(id));
	memset(base, 9, sizeof(base));
	json = desc(id, base, "old/file.c");
	ok(json != NULL, "a description encodes");
	is_int(alx_tree_desc_decode(&d, json, strlen(json)), ALX_OK,
	    "and decodes");
	ok(d.has_base && memcmp(d.base, base, 32) == 0 &&
	    memcmp(d.id, id, 32) == 0, "id and base round-trip");
	ok(d.ndeleted == 1 && strcmp(d.deleted[0], "old/file.c") == 0,
	    "deleted round-trips");
	alx_tree_desc_free(&d);
	free(json);
	is_int(alx_tree_desc_decode(&d, bad, strlen(bad)), ALX_ERR_BAD_PATH,
	    "a deleted path with .. is bad_path");
}

/* Apply members; fresh; the result code. */
static int
apply(struct runner_tree *t, const struct member *m, size_t n,
    const char *json, int fresh, const struct runner_tree_limits *lim)
{
	char	*cause = NULL;
	int	 fd = craft(m, n), r;

	r = runner_tree_apply(t, json, fresh, fd, lim, &cause);
	if (cause != NULL)
		tap_diag("cause: %s", cause);
	free(cause);
	close(fd);
	return r;
}

static void
test_escapes(struct runner_tree *t, const char *ws,
    const struct runner_tree_limits *lim)
{
	char		 abs[PATH_MAX], *j;
	uint8_t		 any[ALX_HASH_LEN];
	struct member	 m[3];
	struct runner_tree_limits small = { 2, 9 }, few = { 2, 1000 };
	const struct {
		const char	*what;
		struct member	 m[2];
		size_t		 n;
		int		 want;
	} cases[] = {
		{ "an absolute path", { { 'f', abs, "x" } }, 1, ALX_ERR_BAD_PATH },
		{ "../x", { { 'f', "../pwn", "x" } }, 1, ALX_ERR_BAD_PATH },
		{ "a/../../x", { { 'f', "a/../../pwn", "x" } }, 1,
		  ALX_ERR_BAD_PATH },
		{ "a symlink to /etc, then a file through it",
		  { { 'l', "etc", "/etc" }, { 'f', "etc/pwn", "x" } }, 2,
		  ALX_ERR_BAD_PATH },
		{ "a symlink climbing out", { { 'l', "up", "../../.." } }, 1,
		  ALX_ERR_BAD_PATH },
		{ "a device node", { { 'c', "null", "" } }, 1, ALX_ERR_BAD_PATH },
		{ "a fifo", { { 'p', "fifo", "" } }, 1, ALX_ERR_BAD_PATH },
		{ "a hard link", { { 'f', "a", "x" }, { 'h', "b", "/etc/passwd" } },
		  2, ALX_ERR_BAD_PATH },
		{ "a case collision", { { 'f', "Makefile", "x" },
		  { 'f', "makefile", "y" } }, 2, ALX_ERR_BAD_PATH },
		{ "a .git path", { { 'f', ".git/hooks/pre-commit", "x" } }, 1,
		  ALX_ERR_BAD_PATH },
		{ "a file, then a link of the same name",
		  { { 'f', "a", "x" }, { 'l', "a", "b" } }, 2, ALX_ERR_BAD_PATH },
		{ "a link, then a file of the same name",
		  { { 'l', "a", "b" }, { 'f', "a", "x" } }, 2, ALX_ERR_BAD_PATH },
	};
	size_t	i;

	snprintf(abs, sizeof(abs), "%s/pwn", outside);
	memset(any, 1, sizeof(any));
	j = desc(any, NULL, NULL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		is_int(apply(t, cases[i].m, cases[i].n, j, 0, lim),
		    cases[i].want, "refused: %s", cases[i].what);
		ok(dir_empty(outside) && !exists(ws, "pwn") &&
		    !exists(ws, "a") && !exists(ws, "Makefile") &&
		    !exists(ws, "etc"), "nothing written for %s",
		    cases[i].what);
	}
	m[0] = (struct member){ 'f', "one", "12345" };
	m[1] = (struct member){ 'f', "two", "12345" };
	m[2] = (struct member){ 'f', "three", "1" };
	is_int(apply(t, m, 3, j, 0, &few), ALX_ERR_TOO_LARGE,
	    "refused: more entries than the limit");
	is_int(apply(t, m, 2, j, 0, &small), ALX_ERR_TOO_LARGE,
	    "refused: more bytes than the limit");
	ok(!exists(ws, "one"), "nothing written over the limits");
	free(j);
}

/*
 * A name outside ASCII, as a sender in a UTF-8 locale writes it (a pax
 * header in UTF-8), read by a runner in the C locale, where libarchive
 * warns that it cannot show the name: the warning is not a refusal.
 */
static void
test_utf8(struct runner_tree *t, const char *ws,
    const struct runner_tree_limits *lim)
{
	struct member	 m[] = { { 'f', "caf\xc3\xa9.txt", "utf-8\n" },
			    { 'f', "z", "after it\n" } };
	uint8_t		 id[ALX_HASH_LEN];
	char		*j, *cause = NULL;
	int		 fd, r;

	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL) {
		printf("ok %d - a UTF-8 name from a UTF-8 sender # SKIP no "
		    "C.UTF-8 locale\n", ++tap_n);
		return;
	}
	fd = craft(m, 2);
	setlocale(LC_CTYPE, "C");
	tree_id_of(m, 2, id);
	j = desc(id, NULL, NULL);
	r = runner_tree_apply(t, j, 1, fd, lim, &cause);
	is_int(r, ALX_OK, "a UTF-8 name from a UTF-8 sender applies (%s)",
	    cause != NULL ? cause : "no cause");
	is_str(slurp(ws, "caf\xc3\xa9.txt"), "utf-8\n", "its file is written");
	is_str(slurp(ws, "z"), "after it\n", "and the entry after it");
	free(cause);
	free(j);
	close(fd);
}

static void
test_apply(void)
{
	struct runner_tree		*t, *t2;
	struct runner_tree_limits	 lim = { 1000, 1 << 20 };
	uint8_t				 sid[ALX_SID_LEN], id1[32], id2[32];
	uint8_t				 bob[ALX_FP_LEN], carol[ALX_FP_LEN];
	uint8_t				 bogus[32];
	char				 ws[TPATH], p[PATH_MAX], p2[PATH_MAX];
	char				*j, *rep;
	char				 want[128], idtxt[64];
	struct member	full[] = {
		{ 'f', "README", "hello\n" },
		{ 'x', "bin/run.sh", "#!/bin/sh\necho run\n" },
		{ 'l', "bin/readme", "../README" },
		{ 'f', "src/gone.c", "int x;\n" },
	};
	struct member	after[] = {
		{ 'f', "README", "hello again\n" },
		{ 'x', "bin/run.sh", "#!/bin/sh\necho run\n" },
		{ 'l', "bin/readme", "../README" },
		{ 'f', "plant/x", "safe\n" },
	};
	struct member	delta[] = {
		{ 'f', "README", "hello again\n" },
		{ 'f', "plant/x", "safe\n" },
	};

	memset(sid, 3, sizeof(sid));
	memset(bob, 'b', sizeof(bob));		/* two participant keys' fps */
	memset(carol, 'c', sizeof(carol));
	is_int(runner_tree_open(&t, work, state, sid, bob), ALX_OK,
	    "a workspace opens");
	is_int(runner_tree_open(&t2, work, state, sid, bob),
	    ALX_ERR_RUNNER_BUSY, "a workspace in use is busy for a second job");
	snprintf(ws, sizeof(ws), "%s", runner_tree_dir(t));
	ok(strncmp(ws, work, strlen(work)) == 0, "the workspace is under the "
	    "work root");
	ok(runner_tree_report(t) == NULL, "a new workspace holds no tree");

	test_escapes(t, ws, &lim);
	test_utf8(t, ws, &lim);

	tree_id_of(full, 4, id1);
	j = desc(id1, NULL, NULL);
	is_int(apply(t, full, 4, j, 0, &lim), ALX_OK, "a full tree applies");
	free(j);
	is_str(slurp(ws, "README"), "hello\n", "its file is written");
	snprintf(p, sizeof(p), "%s/bin/run.sh", ws);
	ok(access(p, X_OK) == 0, "the executable bit is kept");
	is_str(slurp(ws, "bin/readme") ? "link" : "none", "none",
	    "the link is a link (not followed by an O_NOFOLLOW open)");
	rep = runner_tree_report(t);
	alx_b64_encode(idtxt, id1, 32);
	snprintf(want, sizeof(want), "{\"id\":\"%s\"}", idtxt);
	is_str(rep, want, "the report names the tree id");
	free(rep);

	/* A job's artifacts, and a symlink it plants to escape later. */
	snprintf(p, sizeof(p), "%s/build", ws);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/build/out.o", ws);
	close(open(p, O_WRONLY | O_CREAT, 0644));
	snprintf(p, sizeof(p), "%s/plant", ws);
	ok(symlink(outside, p) == 0, "a job plants a symlink to outside");

	tree_id_of(after, 4, id2);
	j = desc(id2, id1, "src/gone.c");
	is_int(apply(t, delta, 2, j, 0, &lim), ALX_OK, "a delta applies on its "
	    "base");
	free(j);
	ok(dir_empty(outside), "the planted symlink was replaced, not "
	    "followed");
	is_str(slurp(ws, "plant/x"), "safe\n", "the file went into the "
	    "workspace");
	is_str(slurp(ws, "README"), "hello again\n", "a changed file is "
	    "replaced");
	ok(!exists(ws, "src/gone.c"), "a deleted file is gone");
	ok(exists(ws, "build/out.o"), "a file the tree never sent survives");
	rep = runner_tree_report(t);
	alx_b64_encode(idtxt, id2, 32);
	snprintf(want, sizeof(want), "{\"id\":\"%s\"}", idtxt);
	is_str(rep, want, "the report names the new tree");
	free(rep);

	j = desc(id2, id1, NULL);
	is_int(apply(t, delta, 2, j, 0, &lim), ALX_ERR_TREE_MISMATCH,
	    "a delta on another base: tree_mismatch");
	free(j);

	/* A job swaps a tree file for a symlink out: the tree is unknown. */
	snprintf(p, sizeof(p), "%s/README", ws);
	unlink(p);
	snprintf(p2, sizeof(p2), "%s/target", outside);
	ok(symlink(p2, p) == 0, "a job replaces a tree file by a symlink");
	ok(runner_tree_report(t) == NULL, "a changed tree is not reported");
	j = desc(id2, id2, NULL);
	is_int(apply(t, delta, 0, j, 0, &lim), ALX_ERR_TREE_MISMATCH,
	    "a delta onto a changed tree: tree_mismatch");
	free(j);
	j = desc(id2, NULL, NULL);
	is_int(apply(t, after, 4, j, 0, &lim), ALX_OK, "the full tree again");
	free(j);
	ok(dir_empty(outside), "the symlink was replaced, not written through");
	is_str(slurp(ws, "README"), "hello again\n", "README is a file again");

	/* A job rewrites a file in place and sets its mtime back. */
	ok(tamper(ws, "bin/run.sh"), "a job rewrites a file, same size and "
	    "mtime");
	ok(runner_tree_report(t) == NULL, "the content change is still seen");
	j = desc(id2, NULL, NULL);
	is_int(apply(t, after, 4, j, 0, &lim), ALX_OK, "the full tree again");
	free(j);
	rep = runner_tree_report(t);
	ok(rep != NULL, "confirmed again");
	free(rep);
	/* A job swaps a directory for a link to its own copy. */
	snprintf(p, sizeof(p), "%s/bin", ws);
	snprintf(p2, sizeof(p2), "%s/.moved", ws);
	ok(rename(p, p2) == 0 && symlink(".moved", p) == 0,
	    "a job swaps bin/ for a link to a copy");
	ok(runner_tree_report(t) == NULL, "the swap is seen (no link is "
	    "followed)");
	j = desc(id2, NULL, NULL);
	is_int(apply(t, after, 4, j, 0, &lim), ALX_OK, "the full tree again");
	free(j);
	is_str(slurp(ws, "bin/run.sh"), "#!/bin/sh\necho run\n",
	    "bin/ is a directory with the tree's file again");

	memset(bogus, 5, sizeof(bogus));
	j = desc(bogus, NULL, NULL);
	is_int(apply(t, after, 4, j, 0, &lim), ALX_ERR_TREE_MISMATCH,
	    "archive and id disagree: tree_mismatch");
	free(j);
	ok(runner_tree_report(t) == NULL, "and no tree is confirmed");

	j = desc(id1, NULL, NULL);
	is_int(apply(t, full, 4, j, 1, &lim), ALX_OK, "--fresh applies");
	free(j);
	ok(!exists(ws, "build/out.o") && !exists(ws, "plant"),
	    "--fresh starts from an empty workspace");
	runner_tree_close(t);

	is_int(runner_tree_open(&t, work, state, sid, bob), ALX_OK,
	    "the same sender finds its workspace again");
	rep = runner_tree_report(t);
	alx_b64_encode(idtxt, id1, 32);
	snprintf(want, sizeof(want), "{\"id\":\"%s\"}", idtxt);
	is_str(rep, want, "with its tree, from the state dir");
	free(rep);
	runner_tree_close(t);
	is_int(runner_tree_open(&t2, work, state, sid, carol),
	    ALX_OK, "another sender");
	ok(strcmp(runner_tree_dir(t2), ws) != 0, "gets another workspace");
	ok(runner_tree_gc(work, state, 3600, 0) == 0, "nothing idle: kept");
	is_int(runner_tree_gc(work, state, 3600, 1), 1,
	    "over the budget: the unused workspace goes, the busy one stays");
	ok(!exists(ws, ".") && access(runner_tree_dir(t2), F_OK) == 0,
	    "the collected workspace is removed");
	runner_tree_close(t2);
	is_int(runner_tree_gc(work, state, -1, 0), 1, "idle: collected");
}

int
main(void)
{
	const char	*base = getenv("TMPDIR");

	snprintf(tmp, sizeof(tmp), "%s/test-tree-XXXXXX",
	    base != NULL ? base : "/tmp");
	if (mkdtemp(tmp) == NULL)
		tap_skip_all("no temporary directory");
	snprintf(work, sizeof(work), "%s/work", tmp);
	snprintf(state, sizeof(state), "%s/state", tmp);
	snprintf(outside, sizeof(outside), "%s/outside", tmp);
	mkdir(work, 0711);
	mkdir(state, 0700);
	mkdir(outside, 0700);
	test_names();
	test_id();
	test_desc();
	test_apply();
	ok(dir_empty(outside), "nothing was ever written outside");
	return tap_done();
}
