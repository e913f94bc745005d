/*
 * alxs_store.c: the key store, a folder the program names (the settings'
 * store_dir: the client's $XDG_CACHE_HOME/airlox, the runner's state
 * directory), mode 0700, files 0600.
 *
 * It holds one participant key per session and invite:
 * sessions/<sid>/<role>-<tag>.json, where tag names the invite's seed
 * without revealing it (a hash). The file keeps the participant's signing
 * and key agreement secrets, its display name and kind, the cursor of its
 * join and where listen --once resumes. Keys never leave this file.
 * sessions/<sid>/manifest keeps the newest manifest version (and its hash
 * and epoch) verified for the session on this machine, so that a relay
 * cannot later serve an older chain (libairlox alx_view_seen).
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "alxs.h"

#define CACHE_FILE_MAX	(64 * 1024)

int
alxs_cache_mkdir(const char *path)
{
	struct stat	st;

	if (mkdir(path, 0700) != 0 && errno != EEXIST)
		return ALX_ERR_IO;
	if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid())
		return ALX_ERR_IO;
	if ((st.st_mode & 077) != 0 && chmod(path, 0700) != 0)
		return ALX_ERR_IO;
	return 0;
}

/*
 * The folders of path that do not exist yet, each made 0700 (the XDG base
 * directory spec: a missing base directory is created with that mode).
 * Folders that exist are left as they are.
 */
int
alxs_cache_mkdirs(const char *path)
{
	char	tmp[900], *p;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s", path) >= sizeof(tmp))
		return ALX_ERR_TOO_LARGE;
	for (p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
			return ALX_ERR_IO;
		*p = '/';
	}
	if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
		return ALX_ERR_IO;
	return 0;
}

/*
 * Write a 0600 file atomically: a temporary file, then rename(2) over the
 * old one; with CACHE_W_NEW, link(2) instead, which fails (ALX_ERR_EXISTS)
 * when the name is taken: a file that is never replaced.
 */
#define CACHE_W_SYNC	0x1
#define CACHE_W_NEW	0x2
static int
cache_write(const char *path, const void *data, size_t len, int how)
{
	char	tmp[1100];
	int	fd, r = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path,
	    (long)getpid()) >= sizeof(tmp))
		return ALX_ERR_TOO_LARGE;
	unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0600)) == -1)
		return ALX_ERR_IO;
	if (write(fd, data, len) != (ssize_t)len ||
	    ((how & CACHE_W_SYNC) && fsync(fd) != 0))
		r = ALX_ERR_IO;
	if (close(fd) != 0)
		r = ALX_ERR_IO;
	if (r == 0 && (how & CACHE_W_NEW)) {
		if (link(tmp, path) != 0)
			r = errno == EEXIST ? ALX_ERR_EXISTS : ALX_ERR_IO;
		unlink(tmp);
	} else if (r == 0 && rename(tmp, path) != 0)
		r = ALX_ERR_IO;
	if (r != 0)
		unlink(tmp);
	return r;
}

int
alxs_cache_write_new(const char *path, const void *data, size_t len)
{
	return cache_write(path, data, len, CACHE_W_SYNC | CACHE_W_NEW);
}

int
alxs_cache_write_file(const char *path, const void *data, size_t len)
{
	return cache_write(path, data, len, CACHE_W_SYNC);
}

int
alxs_cache_read_file(const char *path, struct alx_buf *b)
{
	char	tmp[4096];
	ssize_t	n;
	int	fd, r = 0;

	alx_buf_init(b, CACHE_FILE_MAX);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return errno == ENOENT ? ALX_ERR_NOT_FOUND : ALX_ERR_IO;
	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		if ((r = alx_buf_add(b, tmp, (size_t)n)) != 0)
			break;
	if (n < 0)
		r = ALX_ERR_IO;
	alx_wipe(tmp, sizeof(tmp));
	close(fd);
	return r;
}

/*
 * The store's folder: made when missing (with the folders on the way),
 * and refused unless it is a folder of this user's; made 0700 if it was
 * not.
 */
static int
cache_dir(const char *store, char *out, size_t len)
{
	int	r;

	if (store == NULL || store[0] == '\0')
		return ALX_ERR_IO;
	if ((r = alxs_cache_mkdirs(store)) != 0 ||
	    (r = alxs_cache_mkdir(store)) != 0)
		return r;
	if ((size_t)snprintf(out, len, "%s", store) >= len)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

static int
cache_path(const char *store, char *out, size_t len,
    const struct alx_invite *inv)
{
	struct alx_sha256_ctx	 h;
	uint8_t			 d[ALX_HASH_LEN];
	char			 dir[900], sid[ALX_FP_STRLEN + 1], tag[20];
	size_t			 n;
	int			 r;

	if ((r = cache_dir(store, dir, sizeof(dir))) != 0)
		return r;
	n = strlen(dir);
	if (n + 10 >= sizeof(dir))
		return ALX_ERR_TOO_LARGE;
	memcpy(dir + n, "/sessions", 10);
	if ((r = alxs_cache_mkdir(dir)) != 0)
		return r;
	alx_b64_encode(sid, inv->sid, ALX_SID_LEN);
	alx_sha256_init(&h);
	alx_sha256_update(&h, "airlox-client-cache", 20);
	alx_sha256_update(&h, inv->seed, ALX_SEED_LEN);
	alx_sha256_final(&h, d);
	alx_b64_encode(tag, d, 12);
	if ((size_t)snprintf(out, len, "%s/%s", dir, sid) >= len)
		return ALX_ERR_TOO_LARGE;
	if ((r = alxs_cache_mkdir(out)) != 0)
		return r;
	if ((size_t)snprintf(out, len, "%s/%s/%s-%s.json", dir, sid,
	    alx_role_name(inv->role), tag) >= len)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

static int
cache_parse(struct alxs_cache_entry *e, const char *text, size_t len)
{
	struct alx_json	*j = NULL;
	uint8_t		 seed[ALX_SIGN_SEED_LEN], kxs[ALX_KX_SK_LEN];
	char		*name = NULL, *kind = NULL;
	int		 r;

	if ((r = alx_json_parse(&j, text, len, NULL)) != 0)
		return r;
	if ((r = alx_json_get_b64(j, 0, "sign", seed, sizeof(seed))) != 0 ||
	    (r = alx_json_get_b64(j, 0, "kx", kxs, sizeof(kxs))) != 0 ||
	    (r = alx_json_get_str(j, 0, "name", &name, ALX_DISPLAY_MAX)) != 0 ||
	    (r = alx_json_get_str(j, 0, "kind", &kind, 16)) != 0 ||
	    (r = alx_json_get_int(j, 0, "joined", &e->joined, 0,
	    ALX_JSON_INT_MAX)) != 0 ||
	    (r = alx_json_get_int(j, 0, "listen", &e->listen, 0,
	    ALX_JSON_INT_MAX)) != 0)
		goto out;
	if ((r = alx_sign_from_seed(&e->sk, seed)) != 0 ||
	    (r = alx_kx_from_secret(&e->kx, kxs)) != 0)
		goto out;
	/* The own chain is optional: the relay's word replaces it. */
	if (alx_json_get_int(j, 0, "seq", &e->seq, 0, ALX_JSON_INT_MAX) == 0 &&
	    (e->seq == 0 || alx_json_get_b64(j, 0, "hash", e->hash,
	    ALX_HASH_LEN) == 0))
		e->has_chain = 1;
	else
		e->seq = 0;
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->kind = strcmp(kind, "person") == 0 ? ALX_PKIND_PERSON :
	    ALX_PKIND_AGENT;
out:
	alx_wipe(seed, sizeof(seed));
	alx_wipe(kxs, sizeof(kxs));
	free(name);
	free(kind);
	alx_json_free(j);
	return r;
}

static int
cache_save_sync(const struct alxs_cache_entry *e, int sync)
{
	struct alx_jw	 jw;
	uint8_t		 seed[ALX_SIGN_SEED_LEN];
	char		*s;
	size_t		 len;
	int		 r;

	alx_sign_seed(&e->sk, seed);
	alx_jw_init(&jw, CACHE_FILE_MAX);
	alx_jw_obj_begin(&jw);
	alx_jw_kint(&jw, "v", 1);
	alx_jw_kb64(&jw, "sign", seed, sizeof(seed));
	alx_jw_kb64(&jw, "kx", e->kx.sk, sizeof(e->kx.sk));
	alx_jw_kstr(&jw, "name", e->name);
	alx_jw_kstr(&jw, "kind", alx_pkind_name(e->kind));
	alx_jw_kint(&jw, "joined", e->joined);
	alx_jw_kint(&jw, "listen", e->listen);
	if (e->has_chain) {
		alx_jw_kint(&jw, "seq", e->seq);
		if (e->seq > 0)
			alx_jw_kb64(&jw, "hash", e->hash, ALX_HASH_LEN);
	}
	alx_jw_obj_end(&jw);
	alx_wipe(seed, sizeof(seed));
	if ((r = alx_jw_finish(&jw, &s, &len)) != 0) {
		alx_jw_free(&jw);
		return r;
	}
	alx_jw_free(&jw);
	r = cache_write(e->path, s, len, sync ? CACHE_W_SYNC : 0);
	alx_wipe(s, len);
	free(s);
	return r;
}

int
alxs_cache_save(const struct alxs_cache_entry *e)
{
	return cache_save_sync(e, 1);
}

/* The same without waiting for the disk: for state the relay can restore
 * (the own chain, the listen cursor). */
int
alxs_cache_note(const struct alxs_cache_entry *e)
{
	return cache_save_sync(e, 0);
}

int
alxs_cache_load(const char *store, struct alxs_cache_entry *e,
    const struct alx_invite *inv, const char *name, int kind, int *created)
{
	struct alx_buf	b;
	int		r;

	memset(e, 0, sizeof(*e));
	*created = 0;
	if ((r = cache_path(store, e->path, sizeof(e->path), inv)) != 0)
		return r;
	r = alxs_cache_read_file(e->path, &b);
	if (r == 0) {
		r = cache_parse(e, (const char *)b.data, b.len);
		alx_buf_free(&b);
		return r;
	}
	alx_buf_free(&b);
	if (r != ALX_ERR_NOT_FOUND)
		return r;
	if ((r = alx_sign_keygen(&e->sk)) != 0 ||
	    (r = alx_kx_keygen(&e->kx)) != 0)
		return r;
	snprintf(e->name, sizeof(e->name), "%s", name != NULL &&
	    alx_display_valid(name) ? name : "participant");
	e->kind = kind;
	*created = 1;
	return alxs_cache_save(e);
}

void
alxs_cache_wipe(struct alxs_cache_entry *e)
{
	alx_sign_wipe(&e->sk);
	alx_kx_wipe(&e->kx);
	alx_wipe(e, sizeof(*e));
}

/* sessions/<sid>/NAME, the folders made on the way. */
static int
cache_session_path(const char *store, char *out, size_t len,
    const uint8_t sid[ALX_SID_LEN], const char *name)
{
	char	dir[900], sids[ALX_FP_STRLEN + 1];
	int	r;

	if ((r = cache_dir(store, dir, sizeof(dir))) != 0)
		return r;
	alx_b64_encode(sids, sid, ALX_SID_LEN);
	if ((size_t)snprintf(out, len, "%s/sessions", dir) >= len ||
	    (r = alxs_cache_mkdir(out)) != 0)
		return r != 0 ? r : ALX_ERR_TOO_LARGE;
	if ((size_t)snprintf(out, len, "%s/sessions/%s", dir, sids) >= len ||
	    (r = alxs_cache_mkdir(out)) != 0)
		return r != 0 ? r : ALX_ERR_TOO_LARGE;
	if ((size_t)snprintf(out, len, "%s/sessions/%s/%s", dir, sids,
	    name) >= len)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

/* sessions/<sid>/invite-<role>: the invites this machine made. */
static int
cache_invite_path(const char *store, char *out, size_t len,
    const uint8_t sid[ALX_SID_LEN], int role)
{
	char	name[32];

	snprintf(name, sizeof(name), "invite-%s", alx_role_name(role));
	return cache_session_path(store, out, len, sid, name);
}

int
alxs_cache_invite_store(const char *store, const uint8_t sid[ALX_SID_LEN],
    int role,
    const char *link)
{
	char	path[1024];
	int	r;

	if ((r = cache_invite_path(store, path, sizeof(path), sid, role)) != 0)
		return r;
	return alxs_cache_write_file(path, link, strlen(link));
}

int
alxs_cache_invite_load(const char *store, const uint8_t sid[ALX_SID_LEN],
    int role,
    char **link)
{
	struct alx_buf	b;
	char		path[1024];
	int		r;

	*link = NULL;
	if ((r = cache_invite_path(store, path, sizeof(path), sid, role)) != 0)
		return r;
	if ((r = alxs_cache_read_file(path, &b)) == 0)
		*link = (char *)alx_buf_steal(&b, NULL);
	alx_buf_free(&b);
	return r;
}

/* Replace a stored invite only when this machine keeps that session's. */
int
alxs_cache_invite_update(const char *store, const uint8_t sid[ALX_SID_LEN],
    int role, const char *link)
{
	char	*old = NULL;

	if (alxs_cache_invite_load(store, sid, ALX_ROLE_OWNER, &old) != 0)
		return 0;
	alx_wipe_str(old);
	return alxs_cache_invite_store(store, sid, role, link);
}

static int
cache_seen_read(const char *path, struct alx_view_seen *seen)
{
	struct alx_buf	b;
	int		r;

	memset(seen, 0, sizeof(*seen));
	if ((r = alxs_cache_read_file(path, &b)) == 0)
		r = alx_view_seen_decode(seen, (const char *)b.data, b.len);
	alx_buf_free(&b);
	return r == ALX_ERR_NOT_FOUND ? 0 : r;
}

int
alxs_cache_seen_load(const char *store, const uint8_t sid[ALX_SID_LEN],
    struct alx_view_seen *seen)
{
	char	path[1024];
	int	r;

	memset(seen, 0, sizeof(*seen));
	if ((r = cache_session_path(store, path, sizeof(path), sid,
	    "manifest")) != 0)
		return r;
	return cache_seen_read(path, seen);
}

int
alxs_cache_seen_save(const char *store, const uint8_t sid[ALX_SID_LEN],
    const struct alx_view_seen *seen)
{
	struct alx_view_seen	 kept;
	char			 path[1024], lock[1040], *json = NULL;
	size_t			 len;
	int			 fd, r;

	if (seen->ver == 0)
		return 0;
	if ((r = cache_session_path(store, path, sizeof(path), sid,
	    "manifest")) != 0)
		return r;
	/* Two commands of this machine at once: the newer one stays. */
	snprintf(lock, sizeof(lock), "%s.lock", path);
	if ((fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600)) == -1)
		return ALX_ERR_IO;
	if (flock(fd, LOCK_EX) != 0) {
		close(fd);
		return ALX_ERR_IO;
	}
	if ((r = cache_seen_read(path, &kept)) == 0 && kept.ver < seen->ver &&
	    (r = alx_view_seen_encode(seen, &json, &len)) == 0)
		r = alxs_cache_write_file(path, json, len);
	free(json);
	close(fd);
	return r;
}
