/*
 * fuzz-conf.c: libFuzzer target for the runner's configuration file and
 * its --env-allow list (runnerd/runner-conf.c): parsed, never sourced.
 *
 * The first byte's low bit picks what the rest is. A file: every setting
 * it hands over is a key of the allow list with a value of at most 512
 * bytes without a control byte or any of $ ` ; | & < > \ (nothing could be
 * expanded from it), and a refusal names the file and a line. A list:
 * every name read is 1..RUNNER_ENV_NAME_MAX of A-Z, 0-9 and _, not a
 * digit first, at most RUNNER_ENV_EXTRA_MAX of them, and they are the
 * list's own, in order.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runnerd.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(x)	do { if (!(x)) abort(); } while (0)

static const char *const keys[] = {
	"NAME", "LABELS", "DESCRIPTION", "CONCURRENCY", "SANDBOX", "IMAGE",
	"WORK_ROOT", "STATE_DIR", "WORKSPACE", "NETWORK",
	"ALLOW_WEAKER_SANDBOX", "ENV_ALLOW", "CA_FILE", "PYTHON",
	"PACKAGE_INDEX", "FIND_LINKS", "LOG_LEVEL", NULL
};

static int
on_set(void *arg, const char *key, const char *val)
{
	size_t	i;

	(void)arg;
	for (i = 0; keys[i] != NULL; i++)
		if (strcmp(keys[i], key) == 0)
			break;
	CHECK(keys[i] != NULL);
	CHECK(strlen(val) <= 512 && strpbrk(val, "$`;|&<>\\") == NULL);
	for (i = 0; val[i] != '\0'; i++)
		CHECK((unsigned char)val[i] >= 0x20 && val[i] != 0x7f);
	if (strcmp(key, "ENV_ALLOW") == 0)
		CHECK(runner_conf_env_list(val, NULL, NULL, NULL) == 0);
	return 0;
}

static void
fuzz_file(const char *buf, size_t len)
{
	char	*cause = NULL;
	int	 r;

	r = runner_conf_parse_buf(buf, len, "f", on_set, NULL, &cause);
	if (r == 0)
		CHECK(cause == NULL);
	else
		CHECK(r == ALX_ERR_INVALID && cause != NULL &&
		    strncmp(cause, "f:", 2) == 0);
	free(cause);
}

static void
fuzz_list(const char *list)
{
	char	**names = NULL, *cause = NULL;
	size_t	  n = 0, i, j, off = 0, len;
	int	  r;

	r = runner_conf_env_list(list, &names, &n, &cause);
	if (r != 0) {
		CHECK(r == ALX_ERR_INVALID && names == NULL && cause != NULL);
		free(cause);
		return;
	}
	CHECK(cause == NULL && n >= 1 && n <= RUNNER_ENV_EXTRA_MAX);
	for (i = 0; i < n; i++) {
		len = strlen(names[i]);
		CHECK(len >= 1 && len <= RUNNER_ENV_NAME_MAX);
		CHECK(names[i][0] < '0' || names[i][0] > '9');
		for (j = 0; j < len; j++)
			CHECK((names[i][j] >= 'A' && names[i][j] <= 'Z') ||
			    (names[i][j] >= '0' && names[i][j] <= '9') ||
			    names[i][j] == '_');
		CHECK(strncmp(list + off, names[i], len) == 0);
		off += len;
		CHECK(list[off] == (i + 1 < n ? ',' : '\0'));
		off++;
	}
	CHECK(names[n] == NULL);
	runner_conf_env_free(names);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*s;

	if (size < 1 || size > 80 * 1024)
		return 0;
	if ((data[0] & 1) == 0) {
		fuzz_file((const char *)data + 1, size - 1);
		return 0;
	}
	if ((s = malloc(size)) == NULL)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	fuzz_list(s);
	free(s);
	return 0;
}
