/*
 * runner-redact.c: before a result is signed, the runner replaces the
 * job's folders in its text with stable names ($WORK, $AIRLOX_OUT, $JOB,
 * $RUNTIME, ~), so no file system path of the runner's machine leaves it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "runnerd.h"
#include "runner-python.h"

/* A path ends where a byte that can continue a file name does not follow. */
static int
redact_boundary(char c)
{
	return !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.');
}

/* The rule whose `from` matches at p (longest wins), or NULL. */
static const struct redact_rule *
redact_match(const char *p, size_t left, const struct redact_rule *rules,
    size_t n)
{
	const struct redact_rule	*best = NULL;
	size_t				 i, flen;

	for (i = 0; i < n; i++) {
		if (rules[i].from == NULL || (flen = strlen(rules[i].from)) == 0)
			continue;
		if (flen > left || memcmp(p, rules[i].from, flen) != 0)
			continue;
		if (flen < left && !redact_boundary(p[flen]) &&
		    rules[i].from[flen - 1] != '/')
			continue;
		if (best == NULL || flen > strlen(best->from))
			best = &rules[i];
	}
	return best;
}

char *
runner_redact(const char *text, size_t len, const struct redact_rule *rules,
    size_t n, size_t *outlen)
{
	const struct redact_rule	*r;
	char				*out, *o;
	size_t				 i = 0, cap, maxto = 0, k;

	for (k = 0; k < n; k++)
		if (rules[k].to != NULL && strlen(rules[k].to) > maxto)
			maxto = strlen(rules[k].to);
	/* Each replacement is at most maxto bytes for at least 1 byte in. */
	cap = len * (maxto > 1 ? maxto : 1) + 1;
	if ((out = malloc(cap)) == NULL)
		return NULL;
	o = out;
	while (i < len) {
		/* Only where a path can start, not inside another path. */
		if ((i == 0 || (redact_boundary(text[i - 1]) &&
		    text[i - 1] != '/')) &&
		    (r = redact_match(text + i, len - i, rules, n)) != NULL) {
			memcpy(o, r->to, strlen(r->to));
			o += strlen(r->to);
			i += strlen(r->from);
			continue;
		}
		*o++ = text[i++];
	}
	*o = '\0';
	if (outlen != NULL)
		*outlen = (size_t)(o - out);
	return out;
}

/*
 * The session's Python runtime: the venv (or --python's prefix) on the
 * host and SANDBOX_PY_DIR inside. A prefix of /usr or /usr/local is the
 * system's own and stays (it would hide every system path).
 */
size_t
runner_redact_runtime(const struct runner_pyenv *pe, struct redact_rule *r,
    size_t max)
{
	size_t	n = 0;

	if (pe == NULL || !pe->active)
		return 0;
	if (n < max && pe->host_dir[0] != '\0') {
		r[n].from = pe->host_dir;
		r[n++].to = "$RUNTIME";
	}
	if (n < max && pe->prefix[0] == '/' && strcmp(pe->prefix,
	    pe->host_dir) != 0 && strcmp(pe->prefix, "/usr") != 0 &&
	    strcmp(pe->prefix, "/usr/local") != 0) {
		r[n].from = pe->prefix;
		r[n++].to = "$RUNTIME";
	}
	if (n < max && pe->host_dir[0] != '\0') {
		r[n].from = SANDBOX_PY_DIR;
		r[n++].to = "$RUNTIME";
	}
	return n;
}
