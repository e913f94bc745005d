/*
 * runner-conf.c: the runner's configuration file (/etc/airlox/runner.conf
 * or --config), parsed, never sourced.
 *
 * Lines are blank, a comment (# first), or [export ]KEY=VALUE where VALUE
 * is bare, 'single'- or "double"-quoted. Nothing is expanded: a $, a
 * backtick, ; | & < > or a backslash in a value is an error, as is a key
 * that is no setting's (the table in common/util/runopt.c) or a value its
 * setting's kind refuses (runner_conf_check(), which the command line and
 * the environment are checked with too). Every error names the line. runner_conf_env_list() reads the --env-allow
 * list (the option and ENV_ALLOW alike). Pure functions of their input,
 * fuzzed by tests/fuzz/fuzz-conf.c.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runopt.h"
#include "runnerd.h"
#include "units.h"

#define CONF_MAX_BYTES	(64 * 1024)
#define CONF_MAX_LINE	1024
#define CONF_MAX_VALUE	512

static int
conf_check_name(const char *v)
{
	return alx_name_valid(v);
}

static int
conf_check_labels(const char *v)
{
	char	 buf[CONF_MAX_VALUE + 1], *p, *tok, *save = NULL;
	int	 n = 0;

	if (v[0] == '\0' || v[0] == ',' || v[strlen(v) - 1] == ',' ||
	    strstr(v, ",,") != NULL)
		return 0;
	snprintf(buf, sizeof(buf), "%s", v);
	for (p = buf; (tok = strtok_r(p, ",", &save)) != NULL; p = NULL) {
		if (!alx_name_valid(tok) || ++n > ALX_MAX_LABELS)
			return 0;
	}
	return n > 0;
}

/* A count (units.h) from lo to hi. */
static int
conf_check_uint(const char *v, long long lo, long long hi)
{
	uint64_t	n;

	return units_count(v, &n) == 0 && n >= (uint64_t)lo &&
	    n <= (uint64_t)hi;
}

static int
conf_check_sandbox(const char *v)
{
	return runopt_sandbox_find(v) != NULL;
}

static int
conf_check_bool(const char *v)
{
	return strcmp(v, "on") == 0 || strcmp(v, "off") == 0;
}

/* Absolute, no .. component, no control character. */
static int
conf_check_abspath(const char *v)
{
	size_t	i;

	if (v[0] != '/' || strstr(v, "/../") != NULL ||
	    (strlen(v) >= 3 && strcmp(v + strlen(v) - 3, "/..") == 0))
		return 0;
	for (i = 0; v[i] != '\0'; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return 0;
	return 1;
}

/* A path given where there is a working directory: any, but not empty. */
static int
conf_check_path(const char *v)
{
	size_t	i;

	for (i = 0; v[i] != '\0'; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return 0;
	return i > 0;
}

static int
conf_check_text(const char *v)
{
	return alx_display_valid(v);
}

static int
conf_check_level(const char *v)
{
	return runner_conf_level(v) >= 0;
}

static int
conf_check_envnames(const char *v)
{
	return runner_conf_env_list(v, NULL, NULL, NULL) == ALX_OK;
}

static int
conf_check_url(const char *v)
{
	size_t	i;

	if (strncmp(v, "https://", 8) != 0 && strncmp(v, "http://", 7) != 0)
		return 0;
	for (i = 0; v[i] != '\0'; i++)
		if ((unsigned char)v[i] <= 0x20 || v[i] == 0x7f || v[i] == '"' ||
		    v[i] == '\'')
			return 0;
	return 1;
}

static int
conf_check_image(const char *v)
{
	size_t	i;

	for (i = 0; v[i] != '\0'; i++) {
		char c = v[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '-' || c == '_' || c == '/' || c == ':' ||
		    c == '@'))
			return 0;
	}
	return i > 0 && i <= 255;
}

static int
conf_check_domain(const char *v)
{
	return alx_domain_valid(v) == ALX_OK;
}

static int
conf_check_any(const char *v)
{
	(void)v;
	return 1;
}

/* Each kind of value (runopt.h): its check, and what it takes. */
static const struct {
	int		(*check)(const char *);
	const char	*what;
} conf_kinds[] = {
	[RUNOPT_SWITCH] =	{ conf_check_bool, "on or off" },
	[RUNOPT_STRING] =	{ conf_check_any, "a text" },
	[RUNOPT_NAME] =		{ conf_check_name, "a runner name "
				    "([a-z0-9][a-z0-9._-]*)" },
	[RUNOPT_LABELS] =	{ conf_check_labels, "comma-separated labels" },
	[RUNOPT_TEXT] =		{ conf_check_text, "a short text" },
	[RUNOPT_COUNT] =	{ NULL, "a number" },
	[RUNOPT_SANDBOX] =	{ conf_check_sandbox, "a sandbox" },
	[RUNOPT_IMAGE] =	{ conf_check_image, "a Docker image name" },
	[RUNOPT_PATH] =		{ conf_check_path, "a path" },
	[RUNOPT_URL] =		{ conf_check_url, "an http(s) URL" },
	[RUNOPT_ENVNAMES] =	{ conf_check_envnames, "comma-separated "
				    "variable names" },
	[RUNOPT_LEVEL] =	{ conf_check_level, "warn, info or debug" },
	[RUNOPT_DOMAIN] =	{ conf_check_domain, "a domain name" },
};

int
runner_conf_level(const char *v)
{
	static const char *const levels[] = { "warn", "info", "debug" };
	int			 i;

	/* The index is the LOG_LEVEL_* value. */
	for (i = 0; v != NULL && i < 3; i++)
		if (strcmp(v, levels[i]) == 0)
			return i;
	return -1;
}

int
runner_conf_check(const struct runopt *o, const char *v, int in_file)
{
	if ((size_t)o->kind >= sizeof(conf_kinds) / sizeof(conf_kinds[0]) ||
	    v == NULL)
		return 0;
	if (o->kind == RUNOPT_COUNT)
		return conf_check_uint(v, o->min, o->max);
	if (o->kind == RUNOPT_PATH && in_file)
		return conf_check_abspath(v);
	return conf_kinds[o->kind].check(v);
}

void
runner_conf_what(const struct runopt *o, int in_file, char *buf, size_t len)
{
	char	names[64];

	if (o->kind == RUNOPT_COUNT)
		snprintf(buf, len, "a number from %lld to %lld", o->min,
		    o->max);
	else if (o->kind == RUNOPT_PATH && in_file)
		snprintf(buf, len, "an absolute path");
	else if (o->kind == RUNOPT_SANDBOX) {
		runopt_sandbox_names(", ", names, sizeof(names));
		snprintf(buf, len, "one of %s", names);
	} else if ((size_t)o->kind < sizeof(conf_kinds) /
	    sizeof(conf_kinds[0]))
		snprintf(buf, len, "%s", conf_kinds[o->kind].what);
	else
		snprintf(buf, len, "a value");
}

static int __attribute__((format(printf, 4, 5)))
conf_fail(char **cause, const char *file, int line, const char *fmt, ...)
{
	va_list	 ap;
	char	 msg[256];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (cause != NULL && asprintf(cause, "%s:%d: %s", file, line, msg) == -1)
		*cause = NULL;
	return ALX_ERR_INVALID;
}

/* Strip the quotes of a value in place; NULL when they are not balanced. */
static char *
conf_unquote(char *v)
{
	size_t	len = strlen(v);

	if (len == 0)
		return v;
	if (v[0] == '\'' || v[0] == '"') {
		if (len < 2 || v[len - 1] != v[0])
			return NULL;
		v[len - 1] = '\0';
		v++;
		if (strchr(v, v[-1]) != NULL)
			return NULL;
		return v;
	}
	/* A bare value: no quotes, no spaces. */
	if (strpbrk(v, "'\" \t") != NULL)
		return NULL;
	return v;
}

static int
conf_line(char *line, const char *file, int n, runner_conf_set set, void *arg,
    char **cause)
{
	const struct runopt	*k;
	char			*key, *eq, *val, *p, what[96];

	while (*line == ' ' || *line == '\t')
		line++;
	p = line + strlen(line);
	while (p > line && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\r'))
		*--p = '\0';
	if (*line == '\0' || *line == '#')
		return ALX_OK;
	if (strncmp(line, "export ", 7) == 0)
		line += 7;
	if ((eq = strchr(line, '=')) == NULL)
		return conf_fail(cause, file, n, "expected KEY=VALUE");
	*eq = '\0';
	key = line;
	val = eq + 1;
	for (p = key; *p != '\0'; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    *p == '_'))
			return conf_fail(cause, file, n, "bad key name");
	if ((k = runopt_find_conf(key)) == NULL)
		return conf_fail(cause, file, n, "unknown key %s", key);
	if ((p = strpbrk(val, "$`;|&<>\\")) != NULL)
		return conf_fail(cause, file, n,
		    "%s: '%c' is not allowed in a value (nothing is expanded)",
		    key, *p);
	if ((val = conf_unquote(val)) == NULL)
		return conf_fail(cause, file, n, "%s: bad quoting", key);
	for (p = val; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return conf_fail(cause, file, n,
			    "%s: control character in the value", key);
	if (strlen(val) > CONF_MAX_VALUE || !runner_conf_check(k, val, 1)) {
		runner_conf_what(k, 1, what, sizeof(what));
		return conf_fail(cause, file, n, "%s: expected %s", key, what);
	}
	return set(arg, k->conf, val);
}

int
runner_conf_parse_buf(const char *buf, size_t len, const char *file,
    runner_conf_set set, void *arg, char **cause)
{
	char	 line[CONF_MAX_LINE + 1];
	size_t	 i = 0, l;
	int	 n = 0, r;

	if (cause != NULL)
		*cause = NULL;
	if (len > CONF_MAX_BYTES)
		return conf_fail(cause, file, 0, "file too large");
	if (memchr(buf, '\0', len) != NULL)
		return conf_fail(cause, file, 0, "NUL byte in the file");
	if (alx_utf8_valid((const uint8_t *)buf, len) != ALX_OK)
		return conf_fail(cause, file, 0, "not valid UTF-8");
	while (i < len) {
		n++;
		for (l = 0; i + l < len && buf[i + l] != '\n'; l++)
			;
		if (l > CONF_MAX_LINE)
			return conf_fail(cause, file, n, "line too long");
		memcpy(line, buf + i, l);
		line[l] = '\0';
		i += l + 1;
		if ((r = conf_line(line, file, n, set, arg, cause)) != ALX_OK)
			return r;
	}
	return ALX_OK;
}

/* One name of an --env-allow list: A-Z, 0-9 and _, not a digit first. */
static int
conf_env_name(const char *p, size_t len)
{
	size_t	i;

	if (len == 0 || len > RUNNER_ENV_NAME_MAX || (p[0] >= '0' &&
	    p[0] <= '9'))
		return 0;
	for (i = 0; i < len; i++)
		if (!((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' &&
		    p[i] <= '9') || p[i] == '_'))
			return 0;
	return 1;
}

int
runner_conf_env_list(const char *list, char ***namesp, size_t *np,
    char **cause)
{
	const char	*p = list, *comma;
	char		**names = NULL;
	size_t		 n = 0, len;

	if (namesp != NULL)
		*namesp = NULL;
	if (np != NULL)
		*np = 0;
	if (cause != NULL)
		*cause = NULL;
	if (namesp != NULL && (names = calloc(RUNNER_ENV_EXTRA_MAX + 1,
	    sizeof(*names))) == NULL)
		return ALX_ERR_NOMEM;
	for (;;) {
		comma = strchr(p, ',');
		len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (!conf_env_name(p, len)) {
			if (cause != NULL && asprintf(cause, "'%.*s' is not a "
			    "variable name (A-Z, 0-9 and _, not a digit "
			    "first, 1 to %d characters)",
			    (int)(len > 64 ? 64 : len), p,
			    RUNNER_ENV_NAME_MAX) == -1)
				*cause = NULL;
			goto bad;
		}
		if (n >= RUNNER_ENV_EXTRA_MAX) {
			if (cause != NULL && asprintf(cause, "more than %d "
			    "names", RUNNER_ENV_EXTRA_MAX) == -1)
				*cause = NULL;
			goto bad;
		}
		if (names != NULL && (names[n] = strndup(p, len)) == NULL) {
			runner_conf_env_free(names);
			return ALX_ERR_NOMEM;
		}
		n++;
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	if (namesp != NULL)
		*namesp = names;
	if (np != NULL)
		*np = n;
	return ALX_OK;
bad:
	runner_conf_env_free(names);
	return ALX_ERR_INVALID;
}

void
runner_conf_env_free(char **names)
{
	size_t	i;

	for (i = 0; names != NULL && names[i] != NULL; i++)
		free(names[i]);
	free(names);
}

int
runner_conf_parse(const char *path, runner_conf_set set, void *arg,
    char **cause)
{
	struct stat	 st;
	char		*buf;
	ssize_t		 got;
	int		 fd, r;

	if (cause != NULL)
		*cause = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		if (cause != NULL && asprintf(cause, "%s: %s", path,
		    strerror(errno)) == -1)
			*cause = NULL;
		return ALX_ERR_IO;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > CONF_MAX_BYTES) {
		close(fd);
		return conf_fail(cause, path, 0,
		    "not a regular file of at most 64 KiB");
	}
	/* Writable by others: anyone could change what the runner does. */
	if ((st.st_mode & 0022) != 0) {
		close(fd);
		return conf_fail(cause, path, 0,
		    "writable by group or others (chmod go-w)");
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return ALX_ERR_NOMEM;
	}
	got = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (got != st.st_size) {
		free(buf);
		return conf_fail(cause, path, 0, "short read");
	}
	r = runner_conf_parse_buf(buf, (size_t)got, path, set, arg, cause);
	free(buf);
	return r;
}
