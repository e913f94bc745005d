/*
 * test-job.c: job vocabulary, job limit checks, network allow lists and
 * the manifest's private part (protocol.md sections 8.1 and 16).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox/b64.h"
#include "airlox/err.h"
#include "airlox/proto.h"
#include "tap.h"

static void
test_vocabulary(void)
{
	static const char *names[] = { "completed", "timeout", "killed_oom",
	    "cancelled", "refused", "interrupted", "lost" };
	static const char *reasons[] = { "not_signed", "not_allowed",
	    "runner_busy", "expired", "replayed", "revoked", "not_recipient",
	    "unsupported_version" };
	unsigned	k;
	size_t		i;
	int		st, bad = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (alx_job_status_name((int)i) == NULL ||
		    strcmp(alx_job_status_name((int)i), names[i]) != 0 ||
		    alx_job_status_parse(names[i], &st) != 0 || st != (int)i)
			bad++;
	}
	is_int(bad, 0, "every status name round-trips");
	ok(alx_job_status_name(-1) == NULL &&
	    alx_job_status_name(ALX_JOB_STATUS_COUNT) == NULL,
	    "no name out of range");
	is_int(alx_job_status_parse("Completed", &st), ALX_ERR_INVALID,
	    "status names are case-sensitive");
	is_int(alx_job_status_parse("", &st), ALX_ERR_INVALID, "empty status");
	is_int(alx_job_status_parse("done", &st), ALX_ERR_INVALID,
	    "relay job state is not a status");

	for (i = 0, bad = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (alx_refusal_valid(reasons[i]) != 0)
			bad++;
	is_int(bad, 0, "every refusal reason is valid");
	is_int(alx_refusal_valid("bad_signature"), ALX_ERR_INVALID,
	    "an error name that is not a reason");
	is_int(alx_refusal_valid("NOT_ALLOWED"), ALX_ERR_INVALID,
	    "reasons are lower case");
	is_int(alx_refusal_valid(NULL), ALX_ERR_INVALID, "NULL reason");

	ok(alx_job_kind_parse("shell", &k) == 0 && k == ALX_JOBKIND_SHELL &&
	    alx_job_kind_parse("python", &k) == 0 && k == ALX_JOBKIND_PYTHON,
	    "kinds parse");
	is_int(alx_job_kind_parse("node", &k), ALX_ERR_NOT_ALLOWED,
	    "unknown kind");
	ok(alx_job_kind_name(ALX_JOBKIND_SHELL | ALX_JOBKIND_PYTHON) == NULL &&
	    alx_job_kind_name(0) == NULL, "a kind name is for one kind only");
	is_str(alx_job_kind_name(ALX_JOBKIND_PYTHON), "python", "kind name");
}

static void
test_limits_check(void)
{
	struct alx_job_limits	s;

	memset(&s, 0, sizeof(s));
	s.kinds = ALX_JOBKIND_PYTHON;
	s.timeout_s = 120;
	s.memory_mb = 2048;
	s.net_mode = ALX_NET_ALLOW;

	is_int(alx_job_limits_check(&s, ALX_JOBKIND_PYTHON, 120, 2048,
	    ALX_NET_ALLOW), 0, "at the session's limits");
	is_int(alx_job_limits_check(&s, ALX_JOBKIND_PYTHON, 0, 0,
	    ALX_NET_NONE), 0, "nothing asked");
	is_int(alx_job_limits_check(&s, ALX_JOBKIND_SHELL, 10, 10,
	    ALX_NET_NONE), ALX_ERR_NOT_ALLOWED, "kind not allowed");
	is_int(alx_job_limits_check(&s, ALX_JOBKIND_SHELL | ALX_JOBKIND_PYTHON,
	    10, 10, ALX_NET_NONE), ALX_ERR_NOT_ALLOWED, "two kinds at once");
	is_int(alx_job_limits_check(&s, 0x8, 10, 10, ALX_NET_NONE),
	    ALX_ERR_NOT_ALLOWED, "unknown kind bit");
	is_int(alx_job_limits_check(&s, ALX_JOBKIND_PYTHON, 121, 10,
	    ALX_NET_NONE), ALX_ERR_NOT_ALLOWED, "timeout above the session's");
	is_int(alx_job_limits_check(&s, ALX_JOBKIND_PYTHON, 10, 2049,
	    ALX_NET_NONE), ALX_ERR_NOT_ALLOWED, "memory above the session's");
	is_int(alx_job_limits_check(&s, ALX_JOBKIND_PYTHON, 10, 10,
	    ALX_NET_FULL), ALX_ERR_NOT_ALLOWED, "network wider than allow");
	is_int(alx_job_limits_check(&s, ALX_JOBKIND_PYTHON, 10, 10, 7),
	    ALX_ERR_NOT_ALLOWED, "unknown network mode");
	is_int(alx_job_limits_check(&s, ALX_JOBKIND_PYTHON, 10, 10, -1),
	    ALX_ERR_NOT_ALLOWED, "negative network mode");
	is_int(alx_job_limits_check(&s, ALX_JOBKIND_PYTHON, -1, 10,
	    ALX_NET_NONE), ALX_ERR_INVALID, "negative timeout");
	is_int(alx_job_limits_check(&s, ALX_JOBKIND_PYTHON, 10, -5,
	    ALX_NET_NONE), ALX_ERR_INVALID, "negative memory");
	is_int(alx_job_limits_check(NULL, ALX_JOBKIND_PYTHON, 10, 10,
	    ALX_NET_NONE), ALX_ERR_INVALID, "no session limits");
	s.net_mode = ALX_NET_NONE;
	is_int(alx_job_limits_check(&s, ALX_JOBKIND_PYTHON, 10, 10,
	    ALX_NET_ALLOW), ALX_ERR_NOT_ALLOWED,
	    "allow when the session has none");
	s.net_mode = ALX_NET_FULL;
	s.kinds |= ALX_JOBKIND_SHELL;
	is_int(alx_job_limits_check(&s, ALX_JOBKIND_SHELL, 10, 10,
	    ALX_NET_FULL), 0, "full within full, shell allowed");
}

static void
test_domains(void)
{
	static const struct {
		const char	*d;
		int		 good;
	} t[] = {
		{ "pypi.org", 1 },
		{ ".pythonhosted.org", 1 },
		{ "files.pythonhosted.org", 1 },
		{ "a.b", 1 },
		{ "xn--bcher-kva.example", 1 },
		{ "1password.com", 1 },
		{ "a-b.example", 1 },
		{ "example.co.uk", 1 },
		{ "host.example.c0m", 1 },
		{ "123.example", 1 },
		{ NULL, 0 },		/* placeholder: 63-char label (built) */
		{ NULL, 0 },		/* placeholder: 253 chars (built) */
		{ "", 0 },
		{ ".", 0 },
		{ "..example.com", 0 },
		{ "localhost", 0 },
		{ ".com", 0 },
		{ "example.com.", 0 },
		{ "example..com", 0 },
		{ "Example.com", 0 },
		{ "EXAMPLE.COM", 0 },
		{ "*.example.com", 0 },
		{ "example.com:443", 0 },
		{ "example.com/path", 0 },
		{ "https://example.com", 0 },
		{ "192.168.1.1", 0 },
		{ "10.0.0.1", 0 },
		{ "example.123", 0 },
		{ "[::1]", 0 },
		{ "-example.com", 0 },
		{ "example-.com", 0 },
		{ "ex_ample.com", 0 },
		{ "exa mple.com", 0 },
		{ " example.com", 0 },
		{ "example.com ", 0 },
		{ "user@example.com", 0 },
		{ "r\xc3\xa9sum\xc3\xa9.example", 0 },
		{ ".-a.example", 0 },
		{ NULL, 0 },		/* placeholder: 64-char label */
		{ NULL, 0 },		/* placeholder: 254 chars */
	};
	char	l63[128], l64[128], d253[300], d254[300], dot254[304];
	size_t	i, n = sizeof(t) / sizeof(t[0]);
	int	bad = 0, r;

	memset(l63, 'a', 63);
	strcpy(l63 + 63, ".example");
	memset(l64, 'a', 64);
	strcpy(l64 + 64, ".example");
	/* 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 */
	snprintf(d253, sizeof(d253), "%.63s.%.63s.%.63s.%.61s", l63, l63, l63,
	    l63);
	snprintf(d254, sizeof(d254), "%.63s.%.63s.%.63s.%.62s", l63, l63, l63,
	    l63);
	snprintf(dot254, sizeof(dot254), ".%s", d253);
	ok(strlen(d253) == 253 && strlen(d254) == 254, "long names built");
	is_int(alx_domain_valid(l63), 0, "63-character label");
	is_int(alx_domain_valid(d253), 0, "253 characters");
	is_int(alx_domain_valid(dot254), 0, "253 characters after the dot");
	is_int(alx_domain_valid(l64), ALX_ERR_BAD_DOMAIN, "64-character label");
	is_int(alx_domain_valid(d254), ALX_ERR_BAD_DOMAIN, "254 characters");
	is_int(alx_domain_valid(NULL), ALX_ERR_BAD_DOMAIN, "NULL");
	for (i = 0; i < n; i++) {
		if (t[i].d == NULL)
			continue;
		r = alx_domain_valid(t[i].d);
		if (t[i].good)
			is_int(r, 0, "domain good: \"%s\"", t[i].d);
		else
			is_int(r, ALX_ERR_BAD_DOMAIN, "domain bad: \"%s\"",
			    t[i].d);
		if ((r == 0) != t[i].good)
			bad++;
	}
	is_int(bad, 0, "domain table");
}

/* Normalise a copy of in[]; compare the kept entries with want[]. */
static int
normalize_case(const char *const *in, size_t n, const char *const *want,
    size_t nwant)
{
	char	*list[16];
	size_t	 kept, i, k;
	int	 seen;

	for (i = 0; i < n; i++)
		list[i] = (char *)(uintptr_t)in[i];
	if (alx_domain_list_normalize(list, n, &kept) != 0 || kept != nwant)
		return 0;
	for (i = 0; i < nwant; i++)
		if (strcmp(list[i], want[i]) != 0)
			return 0;
	/* A permutation: every pointer as often as in the input. */
	for (i = 0; i < n; i++) {
		seen = 0;
		for (k = 0; k < n; k++)
			seen += (list[k] == in[i]) - (in[k] == in[i]);
		if (seen != 0)
			return 0;
	}
	return 1;
}

static void
test_normalize(void)
{
	const char	*a[] = { "pypi.org", ".pythonhosted.org",
	    "files.pythonhosted.org", "pythonhosted.org", "pypi.org",
	    ".a.pythonhosted.org", "a.b.pythonhosted.org" };
	const char	*aw[] = { "pypi.org", ".pythonhosted.org" };
	const char	*b[] = { ".x.example.org", ".example.org",
	    ".example.org" };
	const char	*bw[] = { ".example.org" };
	const char	*c[] = { "notpythonhosted.org", ".pythonhosted.org",
	    "pythonhosted.org.evil.example" };
	const char	*d[] = { "b.example", "a.example", "b.example" };
	const char	*dw[] = { "b.example", "a.example" };
	char		*bad[] = { (char *)(uintptr_t)"ok.example",
	    (char *)(uintptr_t)"BAD.example" };
	char		*list[1];
	size_t		 kept = 99;
	char		*l[2] = { (char *)(uintptr_t)"a.example",
	    (char *)(uintptr_t)".b.example" };

	ok(normalize_case(a, 7, aw, 2),
	    "duplicates and names under .pythonhosted.org dropped");
	ok(normalize_case(b, 3, bw, 1), "repeated .domain kept once");
	ok(normalize_case(c, 3, c, 3),
	    "a suffix that is not at a label boundary is not covered");
	ok(normalize_case(d, 3, dw, 2), "first-seen order kept");
	is_int(alx_domain_list_normalize(bad, 2, &kept), ALX_ERR_BAD_DOMAIN,
	    "an invalid entry refuses the list");
	ok(strcmp(bad[0], "ok.example") == 0 && kept == 0,
	    "list unchanged on failure");
	is_int(alx_domain_list_normalize(list, 0, &kept), 0, "empty list");
	is_int(alx_domain_list_normalize(list, ALX_NET_ALLOW_MAX + 1, &kept),
	    ALX_ERR_TOO_LARGE, "too many entries");

	is_int(alx_domain_allowed(l, 2, "a.example"), 0, "exact name allowed");
	is_int(alx_domain_allowed(l, 2, "x.a.example"), ALX_ERR_NOT_ALLOWED,
	    "a plain name does not cover its subdomains");
	is_int(alx_domain_allowed(l, 2, "b.example"), 0,
	    ".domain covers the domain itself");
	is_int(alx_domain_allowed(l, 2, "deep.x.b.example"), 0,
	    ".domain covers names under it");
	is_int(alx_domain_allowed(l, 2, "xb.example"), ALX_ERR_NOT_ALLOWED,
	    "not across a label boundary");
	is_int(alx_domain_allowed(l, 2, "example"), ALX_ERR_NOT_ALLOWED,
	    "parent not allowed");
}

/*
 * The private part.
 */

static void
private_fill(struct alx_private *p, char **types, char **allow, size_t nallow,
    char **pkgs)
{
	memset(p, 0, sizeof(*p));
	p->types = types;
	p->ntypes = 2;
	p->has_limits = 1;
	p->limits.kinds = ALX_JOBKIND_SHELL | ALX_JOBKIND_PYTHON;
	p->limits.timeout_s = 1800;
	p->limits.memory_mb = 4096;
	p->limits.net_mode = ALX_NET_ALLOW;
	p->limits.net_allow = allow;
	p->limits.net_nallow = nallow;
	p->limits.return_out = 1;
	p->limits.runtime = (char *)(uintptr_t)"python3.11";
	p->limits.packages = pkgs;
	p->limits.npackages = 2;
}

static void
test_private_round_trip(void)
{
	char	*types[] = { (char *)(uintptr_t)"text/markdown",
	    (char *)(uintptr_t)"application/zip" };
	char	*allow[] = { (char *)(uintptr_t)"pypi.org",
	    (char *)(uintptr_t)"files.pythonhosted.org",
	    (char *)(uintptr_t)".pythonhosted.org",
	    (char *)(uintptr_t)"pypi.org" };
	char	*pkgs[] = { (char *)(uintptr_t)"numpy>=1.26,<3",
	    (char *)(uintptr_t)"pandas" };
	const char *want = "{\"v\":1,\"types\":[\"text/markdown\","
	    "\"application/zip\"],\"job_limits\":{\"kinds\":[\"shell\","
	    "\"python\"],\"timeout_s\":1800,\"memory_mb\":4096,\"network\":"
	    "{\"mode\":\"allow\",\"allow\":[\"pypi.org\","
	    "\".pythonhosted.org\"]},"
	    "\"return_out\":true,\"runtime\":\"python3.11\",\"packages\":"
	    "[\"numpy>=1.26,<3\",\"pandas\"]}}";
	struct alx_private	 p, q;
	char			*json = NULL, *again = NULL;
	size_t			 len = 0, len2;

	private_fill(&p, types, allow, 4, pkgs);
	is_int(alx_private_encode(&p, &json, &len), 0, "encode");
	is_str(json, want, "encoded bytes (allow list written normalised)");
	ok(strcmp(allow[1], "files.pythonhosted.org") == 0,
	    "the caller's list is not reordered");
	is_int(alx_private_decode(&q, json, len), 0, "decode");
	ok(q.ntypes == 2 && strcmp(q.types[1], "application/zip") == 0 &&
	    q.has_limits && q.limits.kinds == p.limits.kinds &&
	    q.limits.timeout_s == 1800 && q.limits.memory_mb == 4096 &&
	    q.limits.net_mode == ALX_NET_ALLOW && q.limits.net_nallow == 2 &&
	    strcmp(q.limits.net_allow[1], ".pythonhosted.org") == 0 &&
	    q.limits.return_out == 1 &&
	    strcmp(q.limits.runtime, "python3.11") == 0 &&
	    q.limits.npackages == 2 &&
	    strcmp(q.limits.packages[0], "numpy>=1.26,<3") == 0,
	    "decoded fields");
	is_int(alx_private_encode(&q, &again, &len2), 0, "re-encode");
	is_str(again, json, "decode then encode is stable");
	alx_private_free(&q);
	ok(q.types == NULL && q.limits.net_allow == NULL, "free clears");
	free(json);
	free(again);

	memset(&p, 0, sizeof(p));
	is_int(alx_private_encode(&p, &json, &len), 0, "chat-mode private");
	is_str(json, "{\"v\":1,\"types\":[]}", "no job_limits");
	is_int(alx_private_decode(&q, json, len), 0, "decodes");
	ok(!q.has_limits && q.ntypes == 0, "no limits");
	alx_private_free(&q);
	free(json);

	private_fill(&p, types, allow, 4, pkgs);
	p.limits.net_mode = ALX_NET_NONE;
	is_int(alx_private_encode(&p, &json, &len), ALX_ERR_INVALID,
	    "encode refuses an allow list with mode none");
	p.limits.net_nallow = 0;
	p.limits.kinds = 0x4;
	is_int(alx_private_encode(&p, &json, &len), ALX_ERR_NOT_ALLOWED,
	    "encode refuses an unknown kind");
	p.limits.kinds = ALX_JOBKIND_SHELL;
	p.limits.timeout_s = 0;
	is_int(alx_private_encode(&p, &json, &len), ALX_ERR_RANGE,
	    "encode refuses timeout 0");
	p.limits.timeout_s = 10;
	p.limits.runtime = (char *)(uintptr_t)"Python 3";
	is_int(alx_private_encode(&p, &json, &len), ALX_ERR_INVALID,
	    "encode refuses a bad runtime");
	p.limits.runtime = NULL;
	p.limits.net_mode = ALX_NET_FULL;
	is_int(alx_private_encode(&p, &json, &len), 0, "full network");
	ok(json != NULL && strstr(json, "\"network\":{\"mode\":\"full\"}") &&
	    strstr(json, "runtime") == NULL, "full network and no runtime");
	free(json);
}

#define LIM(x)	"{\"v\":1,\"types\":[],\"job_limits\":{" x "}}"
#define NET_OK	"\"kinds\":[\"python\"],\"timeout_s\":60,\"memory_mb\":512,"

static void
test_private_decode(void)
{
	static const struct {
		const char	*json;
		int		 want;
		const char	*what;
	} t[] = {
		{ LIM(NET_OK "\"network\":{\"mode\":\"none\"}"), 0,
		    "minimal job_limits" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"none\"},\"gpu\":true"),
		    ALX_ERR_NOT_ALLOWED, "unknown job_limits member" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"none\",\"proxy\":\"x\"}"),
		    ALX_ERR_NOT_ALLOWED, "unknown network member" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"vpn\"}"),
		    ALX_ERR_NOT_ALLOWED, "unknown network mode" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"None\"}"),
		    ALX_ERR_NOT_ALLOWED, "network mode case" },
		{ LIM(NET_OK "\"network\":false"), ALX_ERR_TYPE,
		    "network as a bool" },
		{ LIM(NET_OK "\"network\":{}"), ALX_ERR_MISSING,
		    "network without mode" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"none\",\"allow\":[]}"),
		    ALX_ERR_INVALID, "allow list with mode none" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"full\",\"allow\":[]}"),
		    ALX_ERR_INVALID, "allow list with mode full" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"allow\"}"),
		    ALX_ERR_MISSING, "mode allow without a list" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"allow\",\"allow\":[]}"),
		    0, "mode allow with an empty list" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"allow\",\"allow\":"
		    "[\"*.pypi.org\"]}"), ALX_ERR_BAD_DOMAIN, "wildcard" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"allow\",\"allow\":"
		    "[\"10.0.0.1\"]}"), ALX_ERR_BAD_DOMAIN, "IP literal" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"allow\",\"allow\":"
		    "[\"pypi.org\\u0000.evil\"]}"), ALX_ERR_INVALID,
		    "escaped NUL in a domain" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"allow\",\"allow\":"
		    "[1]}"), ALX_ERR_TYPE, "number in allow list" },
		{ LIM("\"kinds\":[\"node\"],\"timeout_s\":60,\"memory_mb\":512,"
		    "\"network\":{\"mode\":\"none\"}"), ALX_ERR_NOT_ALLOWED,
		    "unknown kind" },
		{ LIM("\"kinds\":[],\"timeout_s\":60,\"memory_mb\":512,"
		    "\"network\":{\"mode\":\"none\"}"), ALX_ERR_INVALID,
		    "no kinds" },
		{ LIM("\"kinds\":[\"shell\",\"shell\"],\"timeout_s\":60,"
		    "\"memory_mb\":512,\"network\":{\"mode\":\"none\"}"),
		    ALX_ERR_INVALID, "kind listed twice" },
		{ LIM("\"timeout_s\":60,\"memory_mb\":512,"
		    "\"network\":{\"mode\":\"none\"}"), ALX_ERR_MISSING,
		    "kinds missing" },
		{ LIM("\"kinds\":[\"shell\"],\"timeout_s\":0,\"memory_mb\":512,"
		    "\"network\":{\"mode\":\"none\"}"), ALX_ERR_RANGE,
		    "timeout 0" },
		{ LIM("\"kinds\":[\"shell\"],\"timeout_s\":2592001,"
		    "\"memory_mb\":512,\"network\":{\"mode\":\"none\"}"),
		    ALX_ERR_RANGE, "timeout above the maximum" },
		{ LIM("\"kinds\":[\"shell\"],\"timeout_s\":60,"
		    "\"memory_mb\":1048577,\"network\":{\"mode\":\"none\"}"),
		    ALX_ERR_RANGE, "memory above the maximum" },
		{ LIM("\"kinds\":[\"shell\"],\"timeout_s\":60.5,"
		    "\"memory_mb\":1,\"network\":{\"mode\":\"none\"}"),
		    ALX_ERR_TYPE, "fractional timeout" },
		{ LIM("\"kinds\":[\"shell\"],\"timeout_s\":\"60\","
		    "\"memory_mb\":1,\"network\":{\"mode\":\"none\"}"),
		    ALX_ERR_TYPE, "timeout as a string" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"none\"},\"runtime\":"
		    "\"Python3\""), ALX_ERR_INVALID, "bad runtime" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"none\"},\"packages\":"
		    "[\"numpy; os_name=='nt'\"]"), ALX_ERR_INVALID,
		    "environment marker in a package" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"none\"},\"packages\":"
		    "[\"pkg @ https://evil.example/x.whl\"]"), ALX_ERR_INVALID,
		    "URL requirement" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"none\"},\"packages\":"
		    "[\"numpy[extra]\"]"), ALX_ERR_INVALID, "extras" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"none\"},\"packages\":"
		    "[\"cugrid==0.1.0\",\"a-b_c.d~=1.2\"]"), 0,
		    "pinned packages" },
		{ LIM(NET_OK "\"network\":{\"mode\":\"none\"},"
		    "\"return_out\":1"),
		    ALX_ERR_TYPE, "return_out as a number" },
		{ "{\"v\":2,\"types\":[]}", ALX_ERR_VERSION, "version 2" },
		{ "{\"types\":[]}", ALX_ERR_MISSING, "no version" },
		{ "{\"v\":1}", ALX_ERR_MISSING, "no types" },
		{ "{\"v\":1,\"types\":[\"a b\"]}", ALX_ERR_INVALID,
		    "type with a space" },
		{ "{\"v\":1,\"types\":[],\"future\":{\"x\":1}}", 0,
		    "unknown top-level member ignored" },
		{ "{\"v\":1,\"types\":[],\"job_limits\":null}", ALX_ERR_TYPE,
		    "job_limits null" },
		{ "[1]", ALX_ERR_TYPE, "not an object" },
		{ "{\"v\":1,\"types\":[],\"types\":[]}", ALX_ERR_DUP_KEY,
		    "duplicate key" },
		{ "{\"v\":1,\"types\":[]", ALX_ERR_BAD_JSON, "truncated" },
	};
	struct alx_private	q;
	size_t			i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int r = alx_private_decode(&q, t[i].json, strlen(t[i].json));

		if (!tap_ok(r == t[i].want, "private: %s", t[i].what))
			tap_diag("got %s, want %s", alx_errname(r),
			    alx_errname(t[i].want));
		if (r != 0)
			ok(q.types == NULL && q.limits.net_allow == NULL &&
			    q.limits.packages == NULL && !q.has_limits,
			    "private: nothing left after failure");
		alx_private_free(&q);
	}
	{
		static const char *j = LIM(NET_OK "\"network\":{\"mode\":"
		    "\"allow\",\"allow\":[\"files.pythonhosted.org\","
		    "\".pythonhosted.org\",\"pypi.org\",\"pypi.org\"]}");

		is_int(alx_private_decode(&q, j, strlen(j)), 0,
		    "decode normalises the allow list");
		ok(q.limits.net_nallow == 2 &&
		    strcmp(q.limits.net_allow[0], ".pythonhosted.org") == 0 &&
		    strcmp(q.limits.net_allow[1], "pypi.org") == 0,
		    "covered entry and duplicate dropped");
		alx_private_free(&q);
	}
	is_int(alx_private_decode(&q, "{}", ALX_META_MAX + 1),
	    ALX_ERR_TOO_LARGE, "over-long private part");
}

/* One rule for a job's id, for the sandbox and the egress proxy alike. */
static void
test_job_id(void)
{
	static const char *const good[] = {
		"verify", "verify-baseline", "Ab_9-x.y", "a", NULL
	};
	static const char *const bad[] = {
		"", ".hidden", "a/b", "a b", "a\nb", "$x", "..", "a\xc3\xa9",
		NULL
	};
	char	id[ALX_JOB_ID_MAX + 2];
	size_t	i;

	for (i = 0; good[i] != NULL; i++)
		ok(alx_job_id_valid(good[i]), "job id '%s' taken", good[i]);
	for (i = 0; bad[i] != NULL; i++)
		ok(!alx_job_id_valid(bad[i]), "job id %zu refused", i);
	ok(!alx_job_id_valid(NULL), "no job id refused");
	memset(id, 'a', ALX_JOB_ID_MAX);
	id[ALX_JOB_ID_MAX] = '\0';
	ok(alx_job_id_valid(id), "%d characters taken", ALX_JOB_ID_MAX);
	id[ALX_JOB_ID_MAX] = 'a';
	id[ALX_JOB_ID_MAX + 1] = '\0';
	ok(!alx_job_id_valid(id), "%d characters refused",
	    ALX_JOB_ID_MAX + 1);
	/* An item id in base64url, what a runner names a job by. */
	ok(ALX_B64_ENCLEN(ALX_ID_LEN) <= ALX_JOB_ID_MAX,
	    "an item id fits a job id");
}

int
main(void)
{
	test_job_id();
	test_vocabulary();
	test_limits_check();
	test_domains();
	test_normalize();
	test_private_round_trip();
	test_private_decode();
	return tap_done();
}
