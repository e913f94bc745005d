/*
 * test-python.c: the runner's Python pieces that need no interpreter: the
 * PEP 440 subset, PEP 503 names, the allowlist admission, pip's
 * arguments, the probe parser, the pin check and the env members.
 */
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "airlox/jobmeta.h"
#include "runner-python.h"
#include "tap.h"

static const struct {
	const char	*version;
	const char	*spec;
	int		 want;
} match_vec[] = {
	{ "0.1.0", "==0.1.0", 1 },
	{ "0.1", "==0.1.0", 1 },		/* zero padding */
	{ "0.2.1", "==0.1.0", 0 },
	{ "0.2.1", "!=0.1.0", 1 },
	{ "0.1.0", "!=0.1", 0 },
	{ "1.26.4", ">=1.26,<3", 1 },
	{ "3.0", ">=1.26,<3", 0 },
	{ "1.25.9", ">=1.26,<3", 0 },
	{ "2.0", ">2", 0 },
	{ "2.0.1", ">2", 1 },
	{ "2.0", "<=2", 1 },
	{ "1.10", ">1.9", 1 },			/* numbers, not text */
	{ "1.4.5", "~=1.4.2", 1 },
	{ "1.5.0", "~=1.4.2", 0 },
	{ "1.4.1", "~=1.4.2", 0 },
	{ "2.9", "~=2.2", 1 },
	{ "3.0", "~=2.2", 0 },
	{ "1.1.7", "==1.1.*", 1 },
	{ "1.1", "==1.1.*", 1 },
	{ "1.2.0", "==1.1.*", 0 },
	{ "1.2.0", "!=1.1.*", 1 },
	{ "1.1.3", "!=1.1.*", 0 },
	{ "1.0rc1", "<1.0", 1 },		/* pre-release before final */
	{ "1.0a1", "<1.0b1", 1 },
	{ "1.0.dev1", "<1.0a1", 1 },
	{ "1.0.post1", ">1.0", 1 },
	{ "1.0-1", "==1.0.post1", 1 },
	{ "1.0", "", 1 },
	{ "1.0", "~=1", -1 },			/* ~= needs two numbers */
	{ "1.0", "===1.0", -1 },
	{ "1.0", ">=1.0,,<2", -1 },
	{ "1.0", "==1.*.0", -1 },
	{ "1.0", ">=x", -1 },
	{ "1!1.0", ">=1", -1 },			/* epochs: refused */
	{ "1.0+local", "==1.0", -1 },		/* local versions: refused */
	{ "banana", ">=1", -1 },
	{ "1.0", "<=1.0,>=2.0", 0 },
};

static void
test_pep440(void)
{
	size_t	i;
	int	cmp = 9;

	for (i = 0; i < sizeof(match_vec) / sizeof(match_vec[0]); i++) {
		int r = runner_pep440_match(match_vec[i].version,
		    match_vec[i].spec);

		if (match_vec[i].want < 0)
			ok(r < 0, "%s %s: cannot be read", match_vec[i].version,
			    match_vec[i].spec);
		else
			is_int(r, match_vec[i].want, "%s %s", match_vec[i].version,
			    match_vec[i].spec);
	}
	ok(runner_pep440_cmp("1.2", "1.2.0", &cmp) == ALX_OK && cmp == 0,
	    "1.2 equals 1.2.0");
	ok(runner_pep440_cmp("1.9", "1.10", &cmp) == ALX_OK && cmp < 0,
	    "1.9 before 1.10");
	ok(runner_pep440_cmp("2.0.post1", "2.0", &cmp) == ALX_OK && cmp > 0,
	    "a post-release after its release");
	ok(runner_pep440_cmp("1.0", "x", &cmp) == ALX_ERR_INVALID,
	    "a non-version is refused");
	ok(runner_pep440_match("99999999999999999999", ">1") < 0,
	    "an over-long number is refused");
}

static void
test_names(void)
{
	char		 out[64], name[64];
	const char	*spec = NULL;

	ok(runner_pyname_norm("Cu_Grid.x--y", out, sizeof(out)) == ALX_OK,
	    "normalise");
	is_str(out, "cu-grid-x-y", "PEP 503: lower case, runs to one '-'");
	ok(runner_pyname_norm("", out, sizeof(out)) != ALX_OK,
	    "an empty name is refused");
	ok(runner_pyname_norm("abcdef", out, 4) == ALX_ERR_TOO_LARGE,
	    "a name longer than the buffer is refused");
	ok(runner_pyreq_split("numpy>=1.26,<3", name, sizeof(name), &spec) ==
	    ALX_OK, "split a requirement");
	is_str(name, "numpy", "its name");
	is_str(spec, ">=1.26,<3", "its specifier");
	ok(runner_pyreq_split("cugrid", name, sizeof(name), &spec) == ALX_OK &&
	    *spec == '\0', "a name alone has an empty specifier");
	ok(runner_pyreq_split("==1", name, sizeof(name), &spec) != ALX_OK,
	    "a specifier without a name is refused");
}

static void
test_admit(void)
{
	char			*pk[] = { "Cu_Grid==0.1.0", "numpy>=1.26,<3" };
	char			*r1[] = { "cu-grid", "NumPy" };
	char			*r2[] = { "numpy", "requests" };
	struct alx_job_limits	 lim;
	struct alx_jobmeta	 jm;
	const char		*what = NULL;

	memset(&lim, 0, sizeof(lim));
	memset(&jm, 0, sizeof(jm));
	lim.packages = pk;
	lim.npackages = 2;
	jm.reqs = r1;
	jm.nreqs = 2;
	is_int(runner_pyenv_admit(&lim, &jm, &what), ALX_OK,
	    "requirements in the allowlist (normalised) are admitted");
	jm.reqs = r2;
	is_int(runner_pyenv_admit(&lim, &jm, &what), ALX_ERR_NOT_ALLOWED,
	    "a requirement outside the allowlist is not_allowed");
	is_str(what, "requests", "the refusal names it");
	lim.npackages = 0;
	jm.nreqs = 1;
	is_int(runner_pyenv_admit(&lim, &jm, &what), ALX_ERR_NOT_ALLOWED,
	    "an empty allowlist admits no requirement");
	jm.nreqs = 0;
	is_int(runner_pyenv_admit(&lim, &jm, &what), ALX_OK,
	    "no requirements: admitted");
}

static void
test_pip_args(void)
{
	char			*pk[] = { "cugrid==0.1.0" };
	struct alx_job_limits	 lim;
	const char		**v;
	size_t			  n, i;
	char			  all[512];

	memset(&lim, 0, sizeof(lim));
	lim.packages = pk;
	lim.npackages = 1;
	ok(runner_pyenv_pip_args(&lim, NULL, "/srv/wheels", &v, &n) == ALX_OK,
	    "pip arguments with --find-links");
	all[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s",
		    i ? " " : "", v[i]);
	is_str(all, "install --no-input --disable-pip-version-check "
	    "--no-cache-dir --only-binary=:all: --no-index --find-links "
	    "/srv/wheels -- cugrid==0.1.0",
	    "install wheels from the folder only");
	ok(v[n] == NULL, "NULL-ended");
	free(v);
	ok(runner_pyenv_pip_args(&lim, "https://pi.example/simple", NULL, &v,
	    &n) == ALX_OK && n == 9 && strcmp(v[5], "--index-url") == 0 &&
	    strcmp(v[6], "https://pi.example/simple") == 0,
	    "pip arguments with --package-index");
	free(v);
}

static void
test_parse_check(void)
{
	static const char out[] = "python 3.11.2\nprefix /srv/venv\n"
	    "pkg cugrid 0.2.1\npkg numpy -\n";
	char			*pk[] = { "cugrid==0.1.0", "numpy" };
	char			*pk2[] = { "cugrid>=0.2" };
	struct alx_job_limits	 lim;
	struct runner_pyenv	 pe;
	struct alx_jw		 w;
	char			*cause = NULL, *json = NULL;
	size_t			 len;

	memset(&pe, 0, sizeof(pe));
	memset(&lim, 0, sizeof(lim));
	ok(runner_pyenv_parse(&pe, out, strlen(out)) == ALX_OK,
	    "parse the probe's output");
	is_str(pe.version, "3.11.2", "python version");
	is_str(pe.prefix, "/srv/venv", "prefix");
	ok(pe.npkgs == 2 && strcmp(pe.pkgs[0].version, "0.2.1") == 0 &&
	    pe.pkgs[1].version == NULL, "packages: installed and missing");
	lim.packages = pk;
	lim.npackages = 1;
	is_int(runner_pyenv_check(&pe, &lim, "--python", &cause),
	    ALX_ERR_NOT_ALLOWED, "another version than the pin is refused");
	is_str(cause, "--python has cugrid 0.2.1, but the session pins "
	    "cugrid==0.1.0", "the message names version and pin");
	free(cause);
	lim.packages = pk + 1;
	is_int(runner_pyenv_check(&pe, &lim, "--python", &cause),
	    ALX_ERR_NOT_ALLOWED, "a missing package is refused");
	is_str(cause, "--python has no numpy, but the session allows numpy",
	    "the message says it is missing");
	free(cause);
	lim.packages = pk2;
	is_int(runner_pyenv_check(&pe, &lim, "--python", &cause), ALX_OK,
	    "a version the pin allows passes");
	pe.active = 1;
	snprintf(pe.source, sizeof(pe.source), "venv");
	alx_jw_init(&w, 4096);
	alx_jw_obj_begin(&w);
	runner_pyenv_json(&pe, &w);
	alx_jw_obj_end(&w);
	ok(alx_jw_finish(&w, &json, &len) == ALX_OK, "env members");
	is_str(json, "{\"python\":\"3.11.2\",\"packages\":{\"cugrid\":\"0.2.1\","
	    "\"numpy\":null},\"python_source\":\"venv\"}",
	    "python, packages and python_source; no path");
	alx_jw_free(&w);
	free(json);
	runner_pyenv_free(&pe);
	ok(runner_pyenv_parse(&pe, "prefix /x\n", 10) != ALX_OK,
	    "output without a version is refused");
	runner_pyenv_free(&pe);
	ok(runner_pyenv_parse(&pe, "python 3.11\npkg a b\"c\n", 21) != ALX_OK,
	    "a version with a quote is refused");
	runner_pyenv_free(&pe);
}

static void
test_key(void)
{
	char			*a[] = { "x==1", "y" }, *b[] = { "y", "x==1" };
	struct alx_job_limits	 la, lb;
	struct runner_pyopts	 o;
	char			 ka[33], kb[33];

	memset(&la, 0, sizeof(la));
	memset(&o, 0, sizeof(o));
	la.packages = a;
	la.npackages = 2;
	lb = la;
	lb.packages = b;
	runner_pyenv_key(&la, &o, ka);
	runner_pyenv_key(&lb, &o, kb);
	is_str(ka, kb, "the allowlist's order does not change the venv");
	o.find_links = "/srv/wheels";
	runner_pyenv_key(&lb, &o, kb);
	ok(strcmp(ka, kb) != 0, "another package source is another venv");
	la.runtime = "python3.12";
	o.find_links = NULL;
	runner_pyenv_key(&la, &o, kb);
	ok(strcmp(ka, kb) != 0, "another runtime is another venv");
}

int
main(void)
{
	test_pep440();
	test_names();
	test_admit();
	test_pip_args();
	test_parse_check();
	test_key();
	return tap_done();
}
