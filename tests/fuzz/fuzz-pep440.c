/*
 * fuzz-pep440.c: libFuzzer target for the runner's PEP 440 subset and
 * PEP 503 names (runnerd/runner-pep440.c), which read the package pins a
 * session's owner wrote and the versions pip reports from the index.
 *
 * The input is two strings split at the first NUL, a and b. Invariants,
 * any broken one aborts:
 * - comparing is a total order on what parses: cmp(a, a) == 0, cmp(a, b)
 *   == -cmp(b, a), and both parse or neither comparison succeeds;
 * - a clause agrees with the comparison: a matches "==b" exactly when
 *   cmp(a, b) == 0, ">=b" when >= 0, "<b" when < 0, and so on;
 * - matching gives 1, 0 or ALX_ERR_INVALID, for any spec;
 * - a requirement splits into a name and the rest, and a normalised name
 *   normalises to itself.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "runner-python.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(x)	do { if (!(x)) abort(); } while (0)

static int
sign(int c)
{
	return c < 0 ? -1 : c > 0;
}

static void
clauses(const char *a, const char *b, int cmp)
{
	static const struct {
		const char	*op;
		int		 lt, eq, gt;
	} ops[] = {
		{ "==", 0, 1, 0 }, { "!=", 1, 0, 1 }, { "<", 1, 0, 0 },
		{ "<=", 1, 1, 0 }, { ">", 0, 0, 1 }, { ">=", 0, 1, 1 },
	};
	char	spec[300];
	size_t	i;
	int	m, want;

	if (strlen(b) > 200 || strchr(b, ',') != NULL || strchr(b, '*'))
		return;
	for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		snprintf(spec, sizeof spec, "%s%s", ops[i].op, b);
		m = runner_pep440_match(a, spec);
		want = cmp < 0 ? ops[i].lt : cmp == 0 ? ops[i].eq : ops[i].gt;
		CHECK(m == want);
	}
}

static void
names(const char *s)
{
	char		 n1[256], n2[256], name[128];
	const char	*spec;

	if (runner_pyname_norm(s, n1, sizeof n1) == ALX_OK) {
		CHECK(runner_pyname_norm(n1, n2, sizeof n2) == ALX_OK);
		CHECK(strcmp(n1, n2) == 0);
		CHECK(strpbrk(n1, "_.ABCDEFGHIJKLMNOPQRSTUVWXYZ") == NULL);
	}
	if (runner_pyreq_split(s, name, sizeof name, &spec) == ALX_OK) {
		CHECK(name[0] != '\0' && strlen(name) < sizeof name);
		CHECK(strncmp(s, name, strlen(name)) == 0 &&
		    spec == s + strlen(name));
		CHECK(*spec == '\0' || strchr("<>=!~", *spec) != NULL);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*buf, *a, *b;
	int	 c1, c2, r1, r2, m;

	if (size > 4096)
		return 0;
	if ((buf = malloc(size + 2)) == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = buf[size + 1] = '\0';
	a = buf;
	b = buf + strlen(buf) + 1;
	if (b > buf + size)
		b = buf + size + 1;

	r1 = runner_pep440_cmp(a, b, &c1);
	r2 = runner_pep440_cmp(b, a, &c2);
	CHECK(r1 == r2);
	if (r1 == ALX_OK) {
		CHECK(sign(c1) == -sign(c2));
		CHECK(runner_pep440_cmp(a, a, &c2) == ALX_OK && c2 == 0);
		clauses(a, b, sign(c1));
	} else
		CHECK(r1 == ALX_ERR_INVALID);
	m = runner_pep440_match(a, b);
	CHECK(m == 0 || m == 1 || m == ALX_ERR_INVALID);
	names(a);
	names(b);
	free(buf);
	return 0;
}
