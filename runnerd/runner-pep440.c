/*
 * runner-pep440.c: the part of PEP 440 (versions and specifiers) and PEP
 * 503 (names) the runner needs to check a session's package pins
 * (docs/python.md says what is left out): release numbers compared as
 * numbers, dev/a/b/rc/post suffixes ordered, the comparison clauses, ~=
 * and ==X.* prefixes. Anything it cannot read is an error, never a match.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "airlox.h"
#include "runner-python.h"

#define PY_REL_MAX	16		/* release components */
#define PY_NUM_MAX	18		/* digits in one component */

/*
 * PEP 440, the subset.
 */
enum py_phase {
	PY_DEV = 0,
	PY_ALPHA,
	PY_BETA,
	PY_RC,
	PY_FINAL,
	PY_POST
};

struct py_ver {
	long long	rel[PY_REL_MAX];
	size_t		nrel;
	int		phase;
	long long	pn;
	int		star;		/* "X.Y.*" */
};

static int
py_num(const char **pp, long long *out)
{
	const char	*p = *pp;
	long long	 n = 0;
	size_t		 k = 0;

	while (*p >= '0' && *p <= '9') {
		if (++k > PY_NUM_MAX)
			return ALX_ERR_INVALID;
		n = n * 10 + (*p++ - '0');
	}
	if (k == 0)
		return ALX_ERR_INVALID;
	*out = n;
	*pp = p;
	return ALX_OK;
}

/* The suffix after the release: a1, .b2, rc1, .post1, -1, .dev0. */
static int
py_suffix(const char *p, struct py_ver *v)
{
	static const struct {
		const char	*word;
		int		 phase;
	} words[] = {
		{ "alpha", PY_ALPHA }, { "beta", PY_BETA }, { "post", PY_POST },
		{ "dev", PY_DEV }, { "rc", PY_RC }, { "a", PY_ALPHA },
		{ "b", PY_BETA }, { "c", PY_RC },
	};
	size_t	i, wl;

	v->phase = PY_FINAL;
	v->pn = 0;
	if (*p == '\0')
		return ALX_OK;
	if (*p == '-' && p[1] >= '0' && p[1] <= '9') {	/* 1.0-1: post */
		p++;
		v->phase = PY_POST;
		return py_num(&p, &v->pn) == ALX_OK && *p == '\0' ? ALX_OK :
		    ALX_ERR_INVALID;
	}
	if (*p == '.' || *p == '-' || *p == '_')
		p++;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		wl = strlen(words[i].word);
		if (strncasecmp(p, words[i].word, wl) == 0)
			break;
	}
	if (i == sizeof(words) / sizeof(words[0]))
		return ALX_ERR_INVALID;
	v->phase = words[i].phase;
	p += wl;
	if (*p == '.' || *p == '-' || *p == '_')
		p++;
	if (*p == '\0')
		return ALX_OK;
	return py_num(&p, &v->pn) == ALX_OK && *p == '\0' ? ALX_OK :
	    ALX_ERR_INVALID;
}

static int
py_ver_parse(const char *s, struct py_ver *v, int allow_star)
{
	const char	*p = s;

	memset(v, 0, sizeof(*v));
	if (*p == 'v' || *p == 'V')
		p++;
	for (;;) {
		if (v->nrel >= PY_REL_MAX || py_num(&p, &v->rel[v->nrel]) !=
		    ALX_OK)
			return ALX_ERR_INVALID;
		v->nrel++;
		if (p[0] != '.' || p[1] < '0' || p[1] > '9')
			break;
		p++;
	}
	if (allow_star && strcmp(p, ".*") == 0) {
		v->star = 1;
		v->phase = PY_FINAL;
		return ALX_OK;
	}
	return py_suffix(p, v);
}

static int
py_rel_cmp(const struct py_ver *a, const struct py_ver *b)
{
	size_t		i, n = a->nrel > b->nrel ? a->nrel : b->nrel;
	long long	x, y;

	for (i = 0; i < n; i++) {
		x = i < a->nrel ? a->rel[i] : 0;
		y = i < b->nrel ? b->rel[i] : 0;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static int
py_ver_cmp(const struct py_ver *a, const struct py_ver *b)
{
	int	c;

	if ((c = py_rel_cmp(a, b)) != 0)
		return c;
	if (a->phase != b->phase)
		return a->phase < b->phase ? -1 : 1;
	if (a->pn != b->pn)
		return a->pn < b->pn ? -1 : 1;
	return 0;
}

/* The first n release numbers of v equal those of p (v padded with 0). */
static int
py_prefix_eq(const struct py_ver *v, const struct py_ver *p, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if ((i < v->nrel ? v->rel[i] : 0) != p->rel[i])
			return 0;
	return 1;
}

int
runner_pep440_cmp(const char *a, const char *b, int *cmp)
{
	struct py_ver	va, vb;

	if (py_ver_parse(a, &va, 0) != ALX_OK ||
	    py_ver_parse(b, &vb, 0) != ALX_OK)
		return ALX_ERR_INVALID;
	*cmp = py_ver_cmp(&va, &vb);
	return ALX_OK;
}

/* One clause: 1 match, 0 not, ALX_ERR_INVALID. */
static int
py_clause(const struct py_ver *v, const char *c)
{
	static const char *const ops[] = { "~=", "==", "!=", "<=", ">=", "<",
	    ">", NULL };
	struct py_ver	s;
	size_t		i, ol;
	int		cmp;

	for (i = 0; ops[i] != NULL; i++)
		if (strncmp(c, ops[i], strlen(ops[i])) == 0)
			break;
	if (ops[i] == NULL || c[strlen(ops[i])] == '=')	/* "===" */
		return ALX_ERR_INVALID;
	ol = strlen(ops[i]);
	if (py_ver_parse(c + ol, &s, i == 1 || i == 2) != ALX_OK)
		return ALX_ERR_INVALID;
	if (s.star)
		return py_prefix_eq(v, &s, s.nrel) == (i == 1);
	cmp = py_ver_cmp(v, &s);
	switch (i) {
	case 0:		/* ~=X.Y: >= X.Y and == X.* */
		if (s.nrel < 2)
			return ALX_ERR_INVALID;
		return cmp >= 0 && py_prefix_eq(v, &s, s.nrel - 1);
	case 1:
		return cmp == 0;
	case 2:
		return cmp != 0;
	case 3:
		return cmp <= 0;
	case 4:
		return cmp >= 0;
	case 5:
		return cmp < 0;
	default:
		return cmp > 0;
	}
}

int
runner_pep440_match(const char *version, const char *spec)
{
	struct py_ver	 v;
	char		 buf[256], *p, *tok, *save = NULL;
	int		 r, all = 1;

	if (py_ver_parse(version, &v, 0) != ALX_OK)
		return ALX_ERR_INVALID;
	if (spec == NULL || *spec == '\0')
		return 1;
	if (strlen(spec) >= sizeof(buf) || spec[strlen(spec) - 1] == ',' ||
	    spec[0] == ',' || strstr(spec, ",,") != NULL)
		return ALX_ERR_INVALID;
	snprintf(buf, sizeof(buf), "%s", spec);
	/* Every clause is read, so a bad one is an error wherever it is. */
	for (p = buf; (tok = strtok_r(p, ",", &save)) != NULL; p = NULL) {
		if ((r = py_clause(&v, tok)) < 0)
			return r;
		all = all && r;
	}
	return all;
}

int
runner_pyreq_split(const char *req, char *name, size_t len,
    const char **spec)
{
	size_t	n;

	n = strcspn(req, "<>=!~");
	if (n == 0 || n >= len)
		return ALX_ERR_INVALID;
	memcpy(name, req, n);
	name[n] = '\0';
	*spec = req + n;
	return ALX_OK;
}

int
runner_pyname_norm(const char *in, char *out, size_t len)
{
	size_t	o = 0;
	int	sep = 0;

	if (len == 0)
		return ALX_ERR_INVALID;
	for (; *in != '\0'; in++) {
		if (*in == '-' || *in == '_' || *in == '.') {
			sep = 1;
			continue;
		}
		if (o + (sep ? 2 : 1) >= len)
			return ALX_ERR_TOO_LARGE;
		if (sep && o > 0)
			out[o++] = '-';
		sep = 0;
		out[o++] = (*in >= 'A' && *in <= 'Z') ? *in - 'A' + 'a' : *in;
	}
	out[o] = '\0';
	return o > 0 ? ALX_OK : ALX_ERR_INVALID;
}
