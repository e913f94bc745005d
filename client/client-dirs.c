/*
 * client-dirs.c: the client's folders, as XDG names them: the cache
 * directory $XDG_CACHE_HOME/airlox (else ~/.cache/airlox), which is the
 * relay client library's key store, and the others under $var (else
 * ~/sub). Made 0700 with the folders on the way.
 */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"

int
cache_xdg_dir(char *out, size_t len, const char *var, const char *sub)
{
	const char	*x = getenv(var);
	const char	*home = getenv("HOME");
	char		 parent[900];
	struct passwd	*pw;
	int		 r;

	if (x != NULL && x[0] == '/')
		snprintf(parent, sizeof(parent), "%s", x);
	else {
		if (home == NULL || home[0] != '/') {
			if ((pw = getpwuid(geteuid())) == NULL)
				return ALX_ERR_IO;
			home = pw->pw_dir;
		}
		if ((size_t)snprintf(parent, sizeof(parent), "%s/%s",
		    home, sub) >= sizeof(parent))
			return ALX_ERR_TOO_LARGE;
	}
	if ((r = alxs_cache_mkdirs(parent)) != 0)
		return r;
	if ((size_t)snprintf(out, len, "%s/airlox", parent) >= len)
		return ALX_ERR_TOO_LARGE;
	return alxs_cache_mkdir(out);
}

int
cache_dir(char *out, size_t len)
{
	return cache_xdg_dir(out, len, "XDG_CACHE_HOME", ".cache");
}

const char *
client_store(void)
{
	static char	store[1024];

	/* Unusable (NULL), the store says so when it is first needed. */
	if (store[0] == '\0' && cache_dir(store, sizeof(store)) != 0)
		store[0] = '\0';
	return store[0] != '\0' ? store : NULL;
}
