/*
 * alx_job.c: the job vocabulary (statuses, refusal reasons, kinds), job
 * limit checks, network allow lists, and the manifest's private part
 * (docs/protocol.md sections 8.1 and 16).
 *
 * The private part is decoded strictly: a runner refuses a session whose
 * job_limits it cannot enforce, so an unknown member of job_limits or of
 * its network object, an unknown kind or network mode is
 * ALX_ERR_NOT_ALLOWED. Unknown members outside job_limits are ignored
 * (section 15).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/json.h"
#include "airlox/proto.h"
#include "alx_int.h"

#define JOB_TYPES_MAX		64	/* entries of "types" */
#define JOB_TYPE_STRMAX		127
#define JOB_PACKAGES_MAX	256
#define JOB_PACKAGE_STRMAX	128
#define JOB_RUNTIME_STRMAX	32
#define JOB_LABEL_MAX		63

static const char *job_status_names[ALX_JOB_STATUS_COUNT] = {
	"completed", "timeout", "killed_oom", "cancelled", "refused",
	"interrupted", "lost", "killed_disk"
};

int
alx_job_id_valid(const char *id)
{
	size_t	i;

	if (id == NULL || id[0] == '\0' || id[0] == '.')
		return 0;
	for (i = 0; id[i] != '\0'; i++)
		if (i >= ALX_JOB_ID_MAX || !(id[i] == '_' || id[i] == '-' ||
		    id[i] == '.' || (id[i] >= 'A' && id[i] <= 'Z') ||
		    (id[i] >= 'a' && id[i] <= 'z') ||
		    (id[i] >= '0' && id[i] <= '9')))
			return 0;
	return 1;
}

const char *
alx_job_status_name(int status)
{
	if (status < 0 || status >= ALX_JOB_STATUS_COUNT)
		return NULL;
	return job_status_names[status];
}

int
alx_job_status_parse(const char *s, int *status)
{
	int	i;

	if (s == NULL || status == NULL)
		return ALX_ERR_INVALID;
	for (i = 0; i < ALX_JOB_STATUS_COUNT; i++)
		if (strcmp(s, job_status_names[i]) == 0) {
			*status = i;
			return 0;
		}
	return ALX_ERR_INVALID;
}

/* Refusal reasons: the stable names of these error codes, and no other. */
static const int job_refusals[] = {
	ALX_ERR_NOT_SIGNED, ALX_ERR_NOT_ALLOWED, ALX_ERR_RUNNER_BUSY,
	ALX_ERR_EXPIRED, ALX_ERR_REPLAYED, ALX_ERR_REVOKED,
	ALX_ERR_NOT_RECIPIENT, ALX_ERR_VERSION,
	ALX_ERR_BAD_PATH, ALX_ERR_TREE_MISMATCH, ALX_ERR_TOO_LARGE
};

const char *
alx_refusal_name(int err)
{
	size_t	i;

	for (i = 0; i < sizeof(job_refusals) / sizeof(job_refusals[0]); i++)
		if (job_refusals[i] == err)
			return alx_errname(err);
	return NULL;
}

int
alx_refusal_valid(const char *s)
{
	size_t	i;

	if (s == NULL)
		return ALX_ERR_INVALID;
	for (i = 0; i < sizeof(job_refusals) / sizeof(job_refusals[0]); i++)
		if (strcmp(s, alx_errname(job_refusals[i])) == 0)
			return 0;
	return ALX_ERR_INVALID;
}

const char *
alx_job_kind_name(unsigned kind)
{
	switch (kind) {
	case ALX_JOBKIND_SHELL:
		return "shell";
	case ALX_JOBKIND_PYTHON:
		return "python";
	}
	return NULL;
}

int
alx_job_kind_parse(const char *s, unsigned *kind)
{
	if (s == NULL || kind == NULL)
		return ALX_ERR_INVALID;
	if (strcmp(s, "shell") == 0)
		*kind = ALX_JOBKIND_SHELL;
	else if (strcmp(s, "python") == 0)
		*kind = ALX_JOBKIND_PYTHON;
	else
		return ALX_ERR_NOT_ALLOWED;
	return 0;
}

int
alx_job_limits_check(const struct alx_job_limits *s, unsigned kind,
    int64_t timeout_s, int64_t memory_mb, int net_mode)
{
	if (s == NULL || timeout_s < 0 || memory_mb < 0)
		return ALX_ERR_INVALID;
	if (alx_job_kind_name(kind) == NULL || (s->kinds & kind) == 0)
		return ALX_ERR_NOT_ALLOWED;
	if (timeout_s > s->timeout_s || memory_mb > s->memory_mb)
		return ALX_ERR_NOT_ALLOWED;
	if (net_mode < ALX_NET_NONE || net_mode > ALX_NET_FULL ||
	    net_mode > s->net_mode)
		return ALX_ERR_NOT_ALLOWED;
	return 0;
}

/*
 * Network allow lists.
 */

int
alx_domain_valid(const char *d)
{
	size_t	i, len, label = 0, labels = 0, last = 0;
	int	numeric = 1;

	if (d == NULL)
		return ALX_ERR_BAD_DOMAIN;
	if (d[0] == '.')
		d++;
	len = strnlen(d, ALX_DOMAIN_MAX + 1);
	if (len == 0 || len > ALX_DOMAIN_MAX)
		return ALX_ERR_BAD_DOMAIN;
	for (i = 0; i <= len; i++) {
		if (i == len || d[i] == '.') {
			if (label == 0 || label > JOB_LABEL_MAX ||
			    d[i - label] == '-' || d[i - 1] == '-')
				return ALX_ERR_BAD_DOMAIN;
			last = i - label;
			labels++;
			label = 0;
			continue;
		}
		if (!((d[i] >= 'a' && d[i] <= 'z') ||
		    (d[i] >= '0' && d[i] <= '9') || d[i] == '-'))
			return ALX_ERR_BAD_DOMAIN;
		label++;
	}
	for (i = last; i < len; i++)
		if (d[i] < '0' || d[i] > '9')
			numeric = 0;
	if (labels < 2 || numeric)
		return ALX_ERR_BAD_DOMAIN;
	return 0;
}

/* Does the valid entry `wide` (".d") cover the name `name` (sans dot)? */
static int
domain_covers(const char *wide, const char *name)
{
	size_t	wl, nl;

	if (wide[0] != '.')
		return 0;
	wl = strlen(wide);
	nl = strlen(name);
	if (nl == wl - 1 && strcmp(name, wide + 1) == 0)
		return 1;
	return nl > wl && strcmp(name + nl - wl, wide) == 0;
}

static const char *
domain_base(const char *d)
{
	return d[0] == '.' ? d + 1 : d;
}

/* Is list[i] dropped: repeats an earlier entry, or a broader one covers it? */
static int
domain_dropped(char *const *list, size_t n, size_t i)
{
	size_t	j;

	for (j = 0; j < n; j++) {
		if (j == i)
			continue;
		if (strcmp(list[j], list[i]) == 0) {
			if (j < i)
				return 1;
			continue;
		}
		if (domain_covers(list[j], domain_base(list[i])))
			return 1;
	}
	return 0;
}

int
alx_domain_list_normalize(char **list, size_t n, size_t *kept)
{
	char	**tmp;
	size_t	  i, k, d;
	int	  r;

	if (kept == NULL || (list == NULL && n != 0))
		return ALX_ERR_INVALID;
	*kept = 0;
	if (n > ALX_NET_ALLOW_MAX)
		return ALX_ERR_TOO_LARGE;
	for (i = 0; i < n; i++)
		if ((r = alx_domain_valid(list[i])) != 0)
			return r;
	if (n == 0)
		return 0;
	if ((tmp = calloc(n, sizeof(*tmp))) == NULL)
		return ALX_ERR_NOMEM;
	k = 0;
	for (i = 0; i < n; i++)
		if (!domain_dropped(list, n, i))
			tmp[k++] = list[i];
	d = k;
	for (i = 0; i < n; i++)
		if (domain_dropped(list, n, i))
			tmp[d++] = list[i];
	memcpy(list, tmp, n * sizeof(*tmp));
	free(tmp);
	*kept = k;
	return 0;
}

int
alx_domain_allowed(char *const *list, size_t n, const char *host)
{
	size_t	i;

	if (host == NULL || (list == NULL && n != 0))
		return ALX_ERR_INVALID;
	for (i = 0; i < n; i++) {
		if (list[i] == NULL)
			continue;
		if (strcmp(list[i], host) == 0 || domain_covers(list[i], host))
			return 0;
	}
	return ALX_ERR_NOT_ALLOWED;
}

/*
 * Strings of the private part.
 */

/* A content type: 1..127 bytes of visible ASCII. */
static int
job_type_valid(const char *s)
{
	size_t	i, len = strlen(s);

	if (len == 0 || len > JOB_TYPE_STRMAX)
		return 0;
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

/* A runtime name such as "python3.11": [a-z0-9][a-z0-9._-]{0,31}. */
static int
job_runtime_valid(const char *s)
{
	size_t	i, len = strlen(s);

	if (len == 0 || len > JOB_RUNTIME_STRMAX)
		return 0;
	for (i = 0; i < len; i++) {
		if ((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9'))
			continue;
		if (i > 0 && strchr("._-", s[i]) != NULL)
			continue;
		return 0;
	}
	return 1;
}

static int
job_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/*
 * A requirement: a package name ([A-Za-z0-9] then [A-Za-z0-9._-]) and an
 * optional version specifier starting with one of <>=!~ made of letters,
 * digits and . * + ! < > = ~ , only: "numpy", "numpy>=1.26,<3". No
 * spaces, extras, URLs or environment markers.
 */
static int
job_package_valid(const char *s)
{
	size_t	i, len = strlen(s);

	if (len == 0 || len > JOB_PACKAGE_STRMAX || !job_alnum(s[0]))
		return 0;
	for (i = 1; i < len && (job_alnum(s[i]) || strchr("._-", s[i]));
	    i++)
		;
	if (!job_alnum(s[i - 1]))
		return 0;
	if (i == len)
		return 1;
	if (strchr("<>=!~", s[i]) == NULL)
		return 0;
	for (; i < len; i++)
		if (!job_alnum(s[i]) && strchr(".*+!<>=~,", s[i]) == NULL)
			return 0;
	return 1;
}

static void
job_strlist_free(char **list, size_t n)
{
	size_t	i;

	if (list == NULL)
		return;
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

void
alx_private_free(struct alx_private *p)
{
	if (p == NULL)
		return;
	job_strlist_free(p->types, p->ntypes);
	job_strlist_free(p->limits.net_allow, p->limits.net_nallow);
	free(p->limits.runtime);
	job_strlist_free(p->limits.packages, p->limits.npackages);
	memset(p, 0, sizeof(*p));
}

/*
 * Checks shared by the encoder and the decoder.
 */

static int
job_strlist_check(char *const *list, size_t n, size_t max,
    int (*valid)(const char *))
{
	size_t	i;

	if (n > max)
		return ALX_ERR_TOO_LARGE;
	if (list == NULL && n != 0)
		return ALX_ERR_INVALID;
	for (i = 0; i < n; i++)
		if (list[i] == NULL || !valid(list[i]))
			return ALX_ERR_INVALID;
	return 0;
}

static int
job_limits_valid(const struct alx_job_limits *l)
{
	size_t	i;
	int	r;

	if (l->kinds == 0 ||
	    (l->kinds & ~(unsigned)(ALX_JOBKIND_SHELL | ALX_JOBKIND_PYTHON)))
		return ALX_ERR_NOT_ALLOWED;
	if (l->timeout_s < 1 || l->timeout_s > ALX_JOB_TIMEOUT_MAX ||
	    l->memory_mb < 1 || l->memory_mb > ALX_JOB_MEMORY_MAX)
		return ALX_ERR_RANGE;
	if (l->net_mode < ALX_NET_NONE || l->net_mode > ALX_NET_FULL)
		return ALX_ERR_NOT_ALLOWED;
	if (l->net_mode != ALX_NET_ALLOW && l->net_nallow != 0)
		return ALX_ERR_INVALID;
	if (l->net_nallow > ALX_NET_ALLOW_MAX)
		return ALX_ERR_TOO_LARGE;
	if (l->net_allow == NULL && l->net_nallow != 0)
		return ALX_ERR_INVALID;
	for (i = 0; i < l->net_nallow; i++)
		if ((r = alx_domain_valid(l->net_allow[i])) != 0)
			return r;
	if (l->runtime != NULL && !job_runtime_valid(l->runtime))
		return ALX_ERR_INVALID;
	return job_strlist_check(l->packages, l->npackages, JOB_PACKAGES_MAX,
	    job_package_valid);
}

/*
 * Encoding.
 */

static const char *net_mode_names[] = { "none", "allow", "full" };

static void
job_jw_strlist(struct alx_jw *w, const char *key, char *const *list,
    size_t n)
{
	size_t	i;

	alx_jw_key(w, key);
	alx_jw_arr_begin(w);
	for (i = 0; i < n; i++)
		alx_jw_str(w, list[i]);
	alx_jw_arr_end(w);
}

static int
job_jw_network(struct alx_jw *w, const struct alx_job_limits *l)
{
	char	**tmp = NULL;
	size_t	  kept = 0;
	int	  r;

	alx_jw_key(w, "network");
	alx_jw_obj_begin(w);
	alx_jw_kstr(w, "mode", net_mode_names[l->net_mode]);
	if (l->net_mode == ALX_NET_ALLOW) {
		/* Written normalised: a copy of the pointers is reordered. */
		if (l->net_nallow != 0) {
			if ((tmp = calloc(l->net_nallow, sizeof(*tmp))) == NULL)
				return ALX_ERR_NOMEM;
			memcpy(tmp, l->net_allow, l->net_nallow * sizeof(*tmp));
		}
		r = alx_domain_list_normalize(tmp, l->net_nallow, &kept);
		if (r == 0)
			job_jw_strlist(w, "allow", tmp, kept);
		free(tmp);
		if (r != 0)
			return r;
	}
	alx_jw_obj_end(w);
	return 0;
}

static int
job_jw_limits(struct alx_jw *w, const struct alx_job_limits *l)
{
	unsigned	k;
	int		r;

	alx_jw_key(w, "job_limits");
	alx_jw_obj_begin(w);
	alx_jw_key(w, "kinds");
	alx_jw_arr_begin(w);
	for (k = ALX_JOBKIND_SHELL; k <= ALX_JOBKIND_PYTHON; k <<= 1)
		if (l->kinds & k)
			alx_jw_str(w, alx_job_kind_name(k));
	alx_jw_arr_end(w);
	alx_jw_kint(w, "timeout_s", l->timeout_s);
	alx_jw_kint(w, "memory_mb", l->memory_mb);
	if ((r = job_jw_network(w, l)) != 0)
		return r;
	alx_jw_kbool(w, "return_out", l->return_out != 0);
	if (l->runtime != NULL)
		alx_jw_kstr(w, "runtime", l->runtime);
	if (l->npackages != 0)
		job_jw_strlist(w, "packages", l->packages, l->npackages);
	alx_jw_obj_end(w);
	return 0;
}

int
alx_private_encode(const struct alx_private *p, char **json, size_t *lenp)
{
	struct alx_jw	w;
	int		r;

	if (json != NULL)
		*json = NULL;
	if (lenp != NULL)
		*lenp = 0;
	if (p == NULL || json == NULL)
		return ALX_ERR_INVALID;
	if ((r = job_strlist_check(p->types, p->ntypes, JOB_TYPES_MAX,
	    job_type_valid)) != 0)
		return r;
	if (p->has_limits && (r = job_limits_valid(&p->limits)) != 0)
		return r;
	alx_jw_init(&w, ALX_META_MAX);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "v", ALX_PROTO_VERSION);
	job_jw_strlist(&w, "types", p->types, p->ntypes);
	if (p->has_limits && (r = job_jw_limits(&w, &p->limits)) != 0) {
		alx_jw_free(&w);
		return r;
	}
	alx_jw_obj_end(&w);
	return alx_jw_finish(&w, json, lenp);
}

/*
 * Decoding.
 */

/* Every member of object tok is one of names[]; else ALX_ERR_NOT_ALLOWED. */
static int
job_known_members(const struct alx_json *j, int tok, const char *const *names)
{
	size_t	m;
	int	i, n, k, found;

	if ((n = alx_json_obj_len(j, tok)) < 0)
		return ALX_ERR_TYPE;
	for (i = 0; i < n; i++) {
		if (alx_json_obj_at(j, tok, i, &k, NULL) != 0)
			return ALX_ERR_INVALID;
		found = 0;
		for (m = 0; names[m] != NULL; m++)
			if (alx_json_str_eq(j, k, names[m]))
				found = 1;
		if (!found)
			return ALX_ERR_NOT_ALLOWED;
	}
	return 0;
}

/*
 * A string list member: ALX_ERR_MISSING when absent, ALX_ERR_TYPE for
 * anything but an array of strings; an escaped NUL is refused.
 */
static int
job_get_strlist(const struct alx_json *j, int obj, const char *key,
    size_t max, size_t maxlen, char ***out, size_t *np)
{
	char	*s;
	int	 tok, i, n, r;

	*out = NULL;
	*np = 0;
	if ((tok = alx_json_obj_get(j, obj, key)) < 0)
		return ALX_ERR_MISSING;
	if ((n = alx_json_arr_len(j, tok)) < 0)
		return ALX_ERR_TYPE;
	if ((size_t)n > max)
		return ALX_ERR_TOO_LARGE;
	if (n == 0)
		return 0;
	if ((*out = calloc((size_t)n, sizeof(char *))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		if ((r = alx_json_str(j, alx_json_arr_at(j, tok, i), &s,
		    NULL)) != 0)
			return r;
		(*out)[(*np)++] = s;
		if (strlen(s) > maxlen)
			return ALX_ERR_TOO_LARGE;
	}
	return 0;
}

static int
job_decode_kinds(const struct alx_json *j, int obj, unsigned *kinds)
{
	unsigned	k;
	char		*s;
	int		tok, i, n, r;

	*kinds = 0;
	if ((tok = alx_json_obj_get(j, obj, "kinds")) < 0)
		return ALX_ERR_MISSING;
	if ((n = alx_json_arr_len(j, tok)) < 0)
		return ALX_ERR_TYPE;
	if (n == 0)
		return ALX_ERR_INVALID;
	if (n > 2)
		return ALX_ERR_TOO_LARGE;
	for (i = 0; i < n; i++) {
		if ((r = alx_json_str(j, alx_json_arr_at(j, tok, i), &s,
		    NULL)) != 0)
			return r;
		r = alx_job_kind_parse(s, &k);
		free(s);
		if (r != 0)
			return r;
		if (*kinds & k)
			return ALX_ERR_INVALID;	/* listed twice */
		*kinds |= k;
	}
	return 0;
}

static int
job_decode_network(const struct alx_json *j, int obj,
    struct alx_job_limits *l)
{
	static const char *const names[] = { "mode", "allow", NULL };
	size_t	i, kept;
	int	tok, r;

	if ((tok = alx_json_obj_get(j, obj, "network")) < 0)
		return ALX_ERR_MISSING;
	if (alx_json_type(j, tok) != ALX_JSON_OBJECT)
		return ALX_ERR_TYPE;
	if ((r = job_known_members(j, tok, names)) != 0)
		return r;
	if ((r = alx_json_obj_get(j, tok, "mode")) < 0)
		return ALX_ERR_MISSING;
	if (alx_json_type(j, r) != ALX_JSON_STRING)
		return ALX_ERR_TYPE;
	for (i = 0; i < 3; i++)
		if (alx_json_str_eq(j, r, net_mode_names[i]))
			break;
	if (i == 3)
		return ALX_ERR_NOT_ALLOWED;
	l->net_mode = (int)i;
	if (l->net_mode != ALX_NET_ALLOW)
		return alx_json_has(j, tok, "allow") ? ALX_ERR_INVALID : 0;
	if ((r = job_get_strlist(j, tok, "allow", ALX_NET_ALLOW_MAX,
	    ALX_DOMAIN_MAX + 1, &l->net_allow, &l->net_nallow)) != 0)
		return r;
	if ((r = alx_domain_list_normalize(l->net_allow, l->net_nallow,
	    &kept)) != 0)
		return r;
	for (i = kept; i < l->net_nallow; i++) {
		free(l->net_allow[i]);
		l->net_allow[i] = NULL;
	}
	l->net_nallow = kept;
	return 0;
}

static int
job_decode_limits(const struct alx_json *j, int tok, struct alx_job_limits *l)
{
	static const char *const names[] = { "kinds", "timeout_s",
	    "memory_mb", "network", "return_out", "runtime", "packages",
	    NULL };
	int	r;

	if (alx_json_type(j, tok) != ALX_JSON_OBJECT)
		return ALX_ERR_TYPE;
	if ((r = job_known_members(j, tok, names)) != 0 ||
	    (r = job_decode_kinds(j, tok, &l->kinds)) != 0 ||
	    (r = alx_json_get_int(j, tok, "timeout_s", &l->timeout_s, 1,
	    ALX_JOB_TIMEOUT_MAX)) != 0 ||
	    (r = alx_json_get_int(j, tok, "memory_mb", &l->memory_mb, 1,
	    ALX_JOB_MEMORY_MAX)) != 0 ||
	    (r = job_decode_network(j, tok, l)) != 0)
		return r;
	if (alx_json_has(j, tok, "return_out") &&
	    (r = alx_json_get_bool(j, tok, "return_out", &l->return_out)) != 0)
		return r;
	if (alx_json_has(j, tok, "runtime")) {
		if ((r = alx_json_get_str(j, tok, "runtime", &l->runtime,
		    JOB_RUNTIME_STRMAX)) != 0)
			return r;
		if (!job_runtime_valid(l->runtime))
			return ALX_ERR_INVALID;
	}
	if (alx_json_has(j, tok, "packages") &&
	    (r = job_get_strlist(j, tok, "packages", JOB_PACKAGES_MAX,
	    JOB_PACKAGE_STRMAX, &l->packages, &l->npackages)) != 0)
		return r;
	return job_strlist_check(l->packages, l->npackages, JOB_PACKAGES_MAX,
	    job_package_valid);
}

static int
job_decode_private(struct alx_private *p, const char *json, size_t len)
{
	struct alx_json	*j = NULL;
	int		 tok, r;

	if ((r = alx_body_begin(&j, (const uint8_t *)json, len,
	    ALX_META_MAX)) != 0)
		return r;
	if ((r = job_get_strlist(j, 0, "types", JOB_TYPES_MAX,
	    JOB_TYPE_STRMAX, &p->types, &p->ntypes)) != 0 ||
	    (r = job_strlist_check(p->types, p->ntypes, JOB_TYPES_MAX,
	    job_type_valid)) != 0)
		goto out;
	if ((tok = alx_json_obj_get(j, 0, "job_limits")) >= 0) {
		p->has_limits = 1;
		r = job_decode_limits(j, tok, &p->limits);
	}
out:
	alx_json_free(j);
	return r;
}

int
alx_private_decode(struct alx_private *p, const char *json, size_t len)
{
	int	r;

	if (p == NULL)
		return ALX_ERR_INVALID;
	memset(p, 0, sizeof(*p));
	if (json == NULL)
		return ALX_ERR_INVALID;
	if (len > ALX_META_MAX)
		return ALX_ERR_TOO_LARGE;
	if ((r = job_decode_private(p, json, len)) != 0)
		alx_private_free(p);
	return r;
}
