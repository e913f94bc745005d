/*
 * fuzz-relay-path.c: libFuzzer target for the relay's reading of a
 * request's path and query (relayd/relay-path.c), written by anyone who
 * can reach the relay.
 *
 * The input is a request target ("/path?query"), parsed as evhttp parses
 * it. Invariants, any broken one aborts:
 * - a decoded path starts with '/', holds no NUL and is bounded;
 * - matched against each route pattern: a match puts each ':' segment in
 *   a non-empty parameter without '/', and the pattern with its
 *   parameters put back is the path itself; no match leaves none;
 * - a number read is digits only, bounded, and prints back the same;
 * - the query form of the signature: the one "auth" parameter, last,
 *   with the URI before it a prefix of the URI.
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/http.h>

#include "relayd.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(x)	do { if (!(x)) abort(); } while (0)

/* The relay's route patterns (relayd/relay-api-*.c, relay-health.c). */
static const char *const patterns[] = {
	"/v1/codes", "/v1/codes/:", "/v1/codes/:/fail", "/v1/codes/:/msgs",
	"/v1/health", "/v1/health/live", "/v1/health/ready", "/v1/sessions",
	"/v1/sessions/:", "/v1/sessions/:/items", "/v1/sessions/:/items/:",
	"/v1/sessions/:/items/:/chunks/:", "/v1/sessions/:/jobs",
	"/v1/sessions/:/jobs/:", "/v1/sessions/:/jobs/:/claim",
	"/v1/sessions/:/log", "/v1/sessions/:/manifest",
	"/v1/sessions/:/participants", "/v1/sessions/:/receipts/:",
	"/v1/sessions/:/runners", "/v1/sessions/:/stream", NULL
};

/* A ':' segment of a pattern (a parameter), at p after a '/'. */
static int
is_param(const char *p)
{
	return p[0] == ':' && (p[1] == '/' || p[1] == '\0');
}

static void
check_match(const char *pat, const char *path)
{
	char		*params[RELAY_MAX_PARAMS], *back;
	const char	*p;
	size_t		 o = 0, want = 0, cap;
	int		 n = 0, k = 0;

	for (p = pat; *p != '\0'; p++)
		want += (p == pat || p[-1] == '/') && is_param(p);
	if (!relay_path_match(pat, path, params, &n)) {
		CHECK(n == 0);
		return;
	}
	CHECK((size_t)n == want);
	cap = strlen(pat) + strlen(path) + 1;
	CHECK((back = malloc(cap)) != NULL);
	back[0] = '\0';
	for (p = pat; *p != '\0'; p++) {
		if ((p == pat || p[-1] == '/') && is_param(p)) {
			CHECK(params[k][0] != '\0' &&
			    strchr(params[k], '/') == NULL);
			o += (size_t)snprintf(back + o, cap - o, "%s",
			    params[k++]);
		} else if (o + 1 < cap) {
			back[o++] = *p;
			back[o] = '\0';
		}
	}
	CHECK(strcmp(back, path) == 0);
	free(back);
	for (k = 0; k < n; k++) {
		uint64_t	v;
		char		num[32];

		if (relay_path_uint(params[k], 999999, &v) == 0) {
			CHECK(v <= 999999);
			snprintf(num, sizeof num, "%" PRIu64, v);
			CHECK(strcmp(num, params[k]) == 0);
		}
	}
	relay_path_params_free(params, &n);
	CHECK(n == 0);
}

static void
check_query(const char *uri, const char *query)
{
	static const char *const names[] = {
		"after", "limit", "wait", "last_event_id", "side", "auth", NULL
	};
	char		*v, *signed_uri, *auth, num[32];
	uint64_t	 n;
	size_t		 i;
	int		 r;

	for (i = 0; names[i] != NULL; i++) {
		if ((v = relay_query_get(query, names[i])) == NULL)
			continue;
		if (relay_path_uint(v, INT64_MAX, &n) == 0) {
			snprintf(num, sizeof num, "%" PRIu64, n);
			CHECK(strcmp(num, v) == 0 && n <= INT64_MAX);
		}
		free(v);
	}
	r = relay_query_auth(uri, &signed_uri, &auth);
	if (r != 0) {
		CHECK(signed_uri == NULL && auth == NULL);
		return;
	}
	i = strlen(signed_uri);
	CHECK(strncmp(uri, signed_uri, i) == 0);
	CHECK(uri[i] == '?' || uri[i] == '&');
	CHECK(strncmp(uri + i + 1, "auth=", 5) == 0);
	CHECK(strchr(uri + i + 1, '&') == NULL);
	free(signed_uri);
	free(auth);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct evhttp_uri	*u;
	const char		*query;
	char			*uri, *path = NULL;
	size_t			 i;

	if (size > 4 * RELAY_MAX_PATH)
		return 0;
	if ((uri = malloc(size + 1)) == NULL)
		return 0;
	memcpy(uri, data, size);
	uri[size] = '\0';
	if ((u = evhttp_uri_parse_with_flags(uri, 0)) != NULL) {
		query = evhttp_uri_get_query(u);
		if (relay_path_decode(evhttp_uri_get_path(u), &path) == 0) {
			CHECK(path[0] == '/' && strlen(path) <= RELAY_MAX_PATH);
			for (i = 0; patterns[i] != NULL; i++)
				check_match(patterns[i], path);
			free(path);
		}
		check_query(uri, query);
		evhttp_uri_free(u);
	}
	/* Any path as a pattern too: the matcher reads both. */
	check_match(uri, uri);
	free(uri);
	return 0;
}
