/*
 * relay-path.c: a request's path and query, read: the path decoded and
 * matched against the route patterns, path parameters and query values
 * as numbers, query parameters by name, and the query-string form of the
 * Authorization header (?auth=, for EventSource). Pure functions of the
 * strings (libevent's URI decoding, no connection), used by relay-http.c
 * and the handlers, fuzzed by tests/fuzz/fuzz-relay-path.c. The requests
 * come from anyone who can reach the relay.
 */
#include "config.h"

#include <sys/queue.h>

#include <stdlib.h>
#include <string.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "airlox.h"
#include "relayd.h"

int
relay_path_decode(const char *raw, char **out)
{
	char	*path;
	size_t	 plen;

	*out = NULL;
	if (raw == NULL)
		return ALX_ERR_BAD_PATH;
	path = evhttp_uridecode(raw, 0, &plen);
	if (path == NULL || plen == 0 || plen > RELAY_MAX_PATH ||
	    strlen(path) != plen || path[0] != '/') {
		free(path);
		return ALX_ERR_BAD_PATH;
	}
	*out = path;
	return 0;
}

void
relay_path_params_free(char **params, int *n)
{
	while (*n > 0)
		free(params[--*n]);
}

int
relay_path_match(const char *pat, const char *path, char **params, int *n)
{
	const char	*ps, *pe;
	size_t		 len;

	relay_path_params_free(params, n);
	while (*pat != '\0' && *path != '\0') {
		if (*pat != '/' || *path != '/')
			goto no;
		pat++;
		path++;
		ps = path;
		pe = path + strcspn(path, "/");
		len = strcspn(pat, "/");
		if (len == 1 && *pat == ':') {
			if (pe == ps || *n >= RELAY_MAX_PARAMS)
				goto no;
			if ((params[*n] = strndup(ps, (size_t)(pe - ps))) ==
			    NULL)
				goto no;
			(*n)++;
		} else if ((size_t)(pe - ps) != len ||
		    strncmp(pat, ps, len) != 0)
			goto no;
		pat += len;
		path = pe;
	}
	if (*pat == '\0' && *path == '\0')
		return 1;
no:
	relay_path_params_free(params, n);
	return 0;
}

int
relay_path_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t	v = 0;
	size_t		i;

	if (s == NULL || s[0] == '\0' || (s[0] == '0' && s[1] != '\0'))
		return ALX_ERR_INVALID;
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 19)
			return ALX_ERR_INVALID;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > max)
		return ALX_ERR_INVALID;
	*out = v;
	return 0;
}

char *
relay_query_get(const char *query, const char *name)
{
	struct evkeyvalq	 q;
	const char		*v;
	char			*out = NULL;

	if (query == NULL)
		return NULL;
	TAILQ_INIT(&q);
	if (evhttp_parse_query_str(query, &q) != 0)
		return NULL;
	if ((v = evhttp_find_header(&q, name)) != NULL)
		out = strdup(v);
	evhttp_clear_headers(&q);
	return out;
}

int
relay_query_auth(const char *uri, char **signed_uri, char **auth)
{
	struct evkeyvalq	 q;
	struct evkeyval		*kv;
	const char		*query, *p, *last = NULL;
	int			 n = 0;

	*signed_uri = *auth = NULL;
	if (uri == NULL || (query = strchr(uri, '?')) == NULL)
		return ALX_ERR_NOT_SIGNED;
	TAILQ_INIT(&q);
	if (evhttp_parse_query_str(query + 1, &q) != 0)
		return ALX_ERR_INVALID;
	TAILQ_FOREACH(kv, &q, next)
		if (strcmp(kv->key, "auth") == 0) {
			n++;
			last = kv->value;
		}
	if (n == 0) {
		evhttp_clear_headers(&q);
		return ALX_ERR_NOT_SIGNED;
	}
	/* One auth, the last parameter, spelt as is: the rest is signed. */
	for (p = query; (p = strchr(p, '&')) != NULL && strchr(p + 1, '&');
	    p++)
		;
	if (p == NULL)
		p = query;
	if (n != 1 || strncmp(p + 1, "auth=", 5) != 0 ||
	    (*signed_uri = strndup(uri, (size_t)(p - uri))) == NULL ||
	    (*auth = strdup(last)) == NULL) {
		free(*signed_uri);
		*signed_uri = NULL;
		evhttp_clear_headers(&q);
		return ALX_ERR_INVALID;
	}
	evhttp_clear_headers(&q);
	return 0;
}
