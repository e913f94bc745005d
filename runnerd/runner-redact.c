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
		if (rules[i].from == NULL ||
		    (flen = strlen(rules[i].from)) == 0)
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
 * A stream (a job's output as it comes, in pieces): the same replacements
 * as runner_redact() over the whole text. A position is decided when the
 * longest rule and the byte after it are in view, or when a line ends
 * after it (no rule holds a CR or LF, so no match crosses one); what is
 * not yet decided waits in the carry for the next piece (at most the
 * longest rule's length), and the last piece decides the rest.
 */
int
runner_redact_stream_init(struct redact_stream *rs,
    const struct redact_rule *rules, size_t n)
{
	size_t	i, len;

	memset(rs, 0, sizeof(*rs));
	rs->rules = rules;
	rs->n = n;
	rs->prev = -1;
	for (i = 0; i < n; i++) {
		if (rules[i].from == NULL || (len = strlen(rules[i].from)) == 0)
			continue;
		if (len > rs->maxfrom)
			rs->maxfrom = len;
		rs->first[(uint8_t)rules[i].from[0]] = 1;
	}
	if ((rs->carry = malloc(rs->maxfrom + 1)) == NULL)
		return ALX_ERR_NOMEM;
	alx_buf_init(&rs->work, 0);
	return ALX_OK;
}

void
runner_redact_stream_free(struct redact_stream *rs)
{
	free(rs->carry);
	alx_buf_free(&rs->work);
	memset(rs, 0, sizeof(*rs));
}

int
runner_redact_stream(struct redact_stream *rs, const char *in, size_t len,
    int final, struct alx_buf *out)
{
	const struct redact_rule	*r;
	char				*text;
	size_t				 total, i = 0, flen, lines, run;
	size_t				 decided;
	int				 err = 0;

	/* One buffer for the stream's life: no allocation per piece. */
	alx_buf_reset(&rs->work);
	if (alx_buf_add(&rs->work, rs->carry, rs->ncarry) != 0 ||
	    (len > 0 && alx_buf_add(&rs->work, in, len) != 0))
		return ALX_ERR_NOMEM;
	text = (char *)rs->work.data;
	total = rs->work.len;
	/* Positions before `decided` are: a line ends after them, or the
	 * longest rule and the byte after it are in view. */
	for (lines = total; lines > 0; lines--)
		if (text[lines - 1] == '\n' || text[lines - 1] == '\r')
			break;
	decided = total > rs->maxfrom ? total - rs->maxfrom : 0;
	if (lines > decided)
		decided = lines;
	if (final)
		decided = total;
	while (i < decided) {
		/* A run of bytes no rule starts with goes out at once. */
		for (run = i; run < decided && !rs->first[(uint8_t)text[run]];
		    run++)
			;
		if (run > i) {
			err |= alx_buf_add(out, text + i, run - i);
			rs->prev = (unsigned char)text[run - 1];
			i = run;
			continue;
		}
		/* Only where a path can start, not inside another path. */
		if ((rs->prev == -1 || (redact_boundary((char)rs->prev) &&
		    rs->prev != '/')) &&
		    (r = redact_match(text + i, total - i, rs->rules,
		    rs->n)) != NULL) {
			flen = strlen(r->from);
			err |= alx_buf_addstr(out, r->to);
			rs->prev = (unsigned char)r->from[flen - 1];
			i += flen;
			continue;
		}
		err |= alx_buf_addc(out, (uint8_t)text[i]);
		rs->prev = (unsigned char)text[i++];
	}
	rs->ncarry = total - i;
	memcpy(rs->carry, text + i, rs->ncarry);
	return err != 0 ? ALX_ERR_NOMEM : ALX_OK;
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
