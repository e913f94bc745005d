/*
 * alx_tree.c: the tree description of a job (protocol.md section 8.4), the
 * tree id, and entry name checks shared by the client (what it sends) and
 * the runner (what it accepts).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "alx_int.h"

#define TREE_DOMAIN	"airlox/v1/tree"

void
alx_tree_desc_free(struct alx_tree_desc *d)
{
	size_t	i;

	for (i = 0; i < d->ndeleted; i++)
		free(d->deleted[i]);
	free(d->deleted);
	free(d->cwd);
	memset(d, 0, sizeof(*d));
}

void
alx_tree_entries_free(struct alx_tree_entry *e, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(e[i].path);
	free(e);
}

int
alx_tree_path_valid(const char *p)
{
	const char	*s, *e;
	size_t		 len;

	if (p == NULL || (len = strlen(p)) == 0 || len > ALX_TREE_PATH_MAX ||
	    p[0] == '/')
		return 0;
	if (alx_utf8_valid((const uint8_t *)p, len) != ALX_OK)
		return 0;
	for (s = p; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f || *s == '\\')
			return 0;
	for (s = p; *s != '\0'; s = *e == '/' ? e + 1 : e) {
		if ((e = strchr(s, '/')) == NULL)
			e = s + strlen(s);
		if (e == s)
			return 0;	/* "a//b", "a/" */
		if ((e - s == 1 && s[0] == '.') ||
		    (e - s == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		if (e - s == 4 && (s[0] == '.') &&
		    (s[1] | 0x20) == 'g' && (s[2] | 0x20) == 'i' &&
		    (s[3] | 0x20) == 't')
			return 0;
		if (*e == '/' && e[1] == '\0')
			return 0;
	}
	return 1;
}

int
alx_tree_link_valid(const char *path, const char *target)
{
	const char	*s, *e;
	long		 depth = 0;
	size_t		 len;

	if (!alx_tree_path_valid(path) || target == NULL ||
	    (len = strlen(target)) == 0 || len > ALX_TREE_PATH_MAX ||
	    target[0] == '/' || memchr(target, '\\', len) != NULL)
		return 0;
	for (s = target; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20)
			return 0;
	/* The link's own directory depth. */
	for (s = path; (s = strchr(s, '/')) != NULL; s++)
		depth++;
	for (s = target; *s != '\0'; s = *e == '/' ? e + 1 : e) {
		if ((e = strchr(s, '/')) == NULL)
			e = s + strlen(s);
		if (e == s || (e - s == 1 && s[0] == '.'))
			continue;
		if (e - s == 2 && s[0] == '.' && s[1] == '.') {
			if (--depth < 0)
				return 0;
		} else
			depth++;
	}
	return 1;
}

char *
alx_tree_fold(const char *p)
{
	char	*f, *s;

	if ((f = strdup(p)) == NULL)
		return NULL;
	for (s = f; *s != '\0'; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
	return f;
}

/* One name the tree makes: a file (the path) or a directory (a prefix). */
struct tree_name {
	char		*folded;
	const char	*orig;		/* the entry's path */
	size_t		 len;		/* of the name within orig */
	int		 is_dir;
};

static int
tree_name_cmp(const void *a, const void *b)
{
	const struct tree_name	*x = a, *y = b;

	return strcmp(x->folded, y->folded);
}

static int
tree_names_add(struct tree_name **v, size_t *n, size_t *cap, const char *orig,
    size_t len, int is_dir)
{
	struct tree_name	*nv;
	char			*f;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if ((nv = realloc(*v, *cap * sizeof(**v))) == NULL)
			return ALX_ERR_NOMEM;
		*v = nv;
	}
	if ((f = alx_tree_fold(orig)) == NULL)
		return ALX_ERR_NOMEM;
	f[len] = '\0';
	(*v)[*n].folded = f;
	(*v)[*n].orig = orig;
	(*v)[*n].len = len;
	(*v)[*n].is_dir = is_dir;
	(*n)++;
	return ALX_OK;
}

int
alx_tree_paths_check(char *const *paths, size_t np, const char **which)
{
	struct tree_name	*v = NULL;
	size_t			 n = 0, cap = 0, i;
	const char		*s;
	int			 r = ALX_OK;

	*which = NULL;
	for (i = 0; i < np && r == ALX_OK; i++) {
		for (s = paths[i]; r == ALX_OK &&
		    (s = strchr(s, '/')) != NULL; s++)
			r = tree_names_add(&v, &n, &cap, paths[i],
			    (size_t)(s - paths[i]), 1);
		if (r == ALX_OK)
			r = tree_names_add(&v, &n, &cap, paths[i],
			    strlen(paths[i]), 0);
	}
	if (r == ALX_OK && n > 1) {
		qsort(v, n, sizeof(*v), tree_name_cmp);
		for (i = 1; i < n && r == ALX_OK; i++) {
			if (strcmp(v[i - 1].folded, v[i].folded) != 0)
				continue;
			/* The same name twice is fine only as a directory. */
			if (v[i - 1].is_dir && v[i].is_dir &&
			    v[i - 1].len == v[i].len &&
			    memcmp(v[i - 1].orig, v[i].orig, v[i].len) == 0)
				continue;
			*which = v[i].orig;
			r = ALX_ERR_BAD_PATH;
		}
	}
	for (i = 0; i < n; i++)
		free(v[i].folded);
	free(v);
	return r;
}

static int
tree_entry_cmp(const void *a, const void *b)
{
	const struct alx_tree_entry	*x = a, *y = b;

	return strcmp(x->path, y->path);
}

void
alx_tree_sort(struct alx_tree_entry *e, size_t n)
{
	if (n > 1)
		qsort(e, n, sizeof(*e), tree_entry_cmp);
}

const char *
alx_tree_mode_name(int mode)
{
	switch (mode) {
	case ALX_TREE_FILE:
		return "0644";
	case ALX_TREE_EXEC:
		return "0755";
	case ALX_TREE_LINK:
		return "link";
	}
	return NULL;
}

int
alx_tree_mode_parse(const char *s, int *mode)
{
	int	m;

	for (m = ALX_TREE_FILE; m <= ALX_TREE_LINK; m++)
		if (strcmp(s, alx_tree_mode_name(m)) == 0) {
			*mode = m;
			return ALX_OK;
		}
	return ALX_ERR_INVALID;
}

/*
 * SHA-256("airlox/v1/tree" 0x00 || for each entry in path order: path 0x00
 * mode 0x00 hash[32]). Paths hold no NUL, modes are fixed words and
 * hashes fixed-size, so the encoding is unambiguous.
 */
int
alx_tree_id(uint8_t out[ALX_HASH_LEN], const struct alx_tree_entry *e,
    size_t n)
{
	struct alx_sha256_ctx	 c;
	const char		*mode;
	size_t			 i;

	alx_sha256_init(&c);
	alx_sha256_update(&c, TREE_DOMAIN, sizeof(TREE_DOMAIN));
	for (i = 0; i < n; i++) {
		if ((i > 0 && strcmp(e[i - 1].path, e[i].path) >= 0) ||
		    (mode = alx_tree_mode_name(e[i].mode)) == NULL) {
			memset(out, 0, ALX_HASH_LEN);
			return ALX_ERR_INVALID;
		}
		alx_sha256_update(&c, e[i].path, strlen(e[i].path) + 1);
		alx_sha256_update(&c, mode, strlen(mode) + 1);
		alx_sha256_update(&c, e[i].hash, ALX_HASH_LEN);
	}
	alx_sha256_final(&c, out);
	return ALX_OK;
}

int
alx_tree_desc_encode(const struct alx_tree_desc *d, char **json, size_t *lenp)
{
	struct alx_jw	w;
	size_t		i;
	int		r;

	*json = NULL;
	alx_jw_init(&w, ALX_TREE_DESC_MAX);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "v", 1);
	alx_jw_kb64(&w, "id", d->id, ALX_HASH_LEN);
	if (d->has_base)
		alx_jw_kb64(&w, "base", d->base, ALX_HASH_LEN);
	alx_jw_kint(&w, "files", d->files);
	alx_jw_kint(&w, "bytes", d->bytes);
	alx_jw_key(&w, "deleted");
	alx_jw_arr_begin(&w);
	for (i = 0; i < d->ndeleted; i++)
		alx_jw_str(&w, d->deleted[i]);
	alx_jw_arr_end(&w);
	alx_jw_kstr(&w, "cwd", d->cwd != NULL ? d->cwd : "");
	alx_jw_obj_end(&w);
	r = alx_jw_finish(&w, json, lenp);
	alx_jw_free(&w);
	return r;
}

static int
tree_path_ok(const char *p)
{
	return alx_tree_path_valid(p);
}

int
alx_tree_desc_decode(struct alx_tree_desc *d, const char *json, size_t len)
{
	struct alx_json	*j;
	int		 t, r;

	memset(d, 0, sizeof(*d));
	if ((r = alx_body_begin(&j, (const uint8_t *)json, len,
	    ALX_TREE_DESC_MAX)) != ALX_OK)
		return r;
	if ((r = alx_json_get_b64(j, 0, "id", d->id, ALX_HASH_LEN)) != ALX_OK)
		goto out;
	if (alx_json_has(j, 0, "base")) {
		if ((r = alx_json_get_b64(j, 0, "base", d->base,
		    ALX_HASH_LEN)) != ALX_OK)
			goto out;
		d->has_base = 1;
	}
	if ((r = alx_json_get_int(j, 0, "files", &d->files, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "bytes", &d->bytes, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK)
		goto out;
	if ((t = alx_json_obj_get(j, 0, "deleted")) >= 0 &&
	    (r = alx_strlist_decode(j, t, ALX_TREE_MAX_DELETED,
	    ALX_TREE_PATH_MAX, tree_path_ok, &d->deleted,
	    &d->ndeleted)) != ALX_OK) {
		if (r == ALX_ERR_BAD_NAME)
			r = ALX_ERR_BAD_PATH;
		goto out;
	}
	if ((r = alx_json_get_str(j, 0, "cwd", &d->cwd,
	    ALX_TREE_PATH_MAX)) != ALX_OK)
		goto out;
	if (d->cwd[0] != '\0' && !alx_tree_path_valid(d->cwd))
		r = ALX_ERR_BAD_PATH;
out:
	alx_json_free(j);
	if (r != ALX_OK)
		alx_tree_desc_free(d);
	return r;
}
