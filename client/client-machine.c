/*
 * client-machine.c: machines, the named execute sessions of "airlox
 * machine add", kept under $XDG_CACHE_HOME/airlox/machines/NAME/ (0700,
 * files 0600): the owner, sender and runner invites and a small settings
 * file. "airlox run --on NAME" finds the sender invite here.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"
#include "client-job.h"

int
machine_dir(char *out, size_t len, const char *name)
{
	char	base[900];
	int	r;

	if (name != NULL && !alx_name_valid(name))
		return ALX_ERR_BAD_NAME;
	if ((r = cache_dir(base, sizeof(base))) != 0)
		return r;
	if ((size_t)snprintf(out, len, "%s/machines", base) >= len)
		return ALX_ERR_TOO_LARGE;
	if ((r = alxs_cache_mkdir(out)) != 0 || name == NULL)
		return r;
	if ((size_t)snprintf(out, len, "%s/machines/%s", base, name) >= len)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

int
machine_write(const char *name, const char *file, const char *text)
{
	char	dir[1024], path[1100];
	int	r;

	if ((r = machine_dir(dir, sizeof(dir), name)) != 0 ||
	    (r = alxs_cache_mkdir(dir)) != 0)
		return r;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return alxs_cache_write_file(path, text, strlen(text));
}

int
machine_read(const char *name, const char *file, char **text)
{
	struct alx_buf	b;
	char		dir[1024], path[1100];
	int		r;

	*text = NULL;
	if ((r = machine_dir(dir, sizeof(dir), name)) != 0)
		return r;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((r = alxs_cache_read_file(path, &b)) == 0) {
		*text = (char *)alx_buf_steal(&b, NULL);
		(*text)[strcspn(*text, "\n")] = '\0';
	}
	alx_buf_free(&b);
	return r;
}

int
machine_exists(const char *name)
{
	char		dir[1024];
	struct stat	st;

	return machine_dir(dir, sizeof(dir), name) == 0 &&
	    stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

static int
machine_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the machines kept here, sorted; *n receives the count. */
int
machine_list(char ***names, size_t *n)
{
	char		 dir[1024];
	DIR		*d;
	struct dirent	*de;
	char		**nl;

	*names = NULL;
	*n = 0;
	if (machine_dir(dir, sizeof(dir), NULL) != 0 ||
	    (d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (!alx_name_valid(de->d_name))
			continue;
		if ((nl = reallocarray(*names, *n + 1, sizeof(*nl))) == NULL)
			break;
		*names = nl;
		if ((nl[*n] = strdup(de->d_name)) != NULL)
			(*n)++;
	}
	closedir(d);
	if (*n > 1)
		qsort(*names, *n, sizeof(**names), machine_cmp);
	return 0;
}

void
machine_list_free(char **names, size_t n)
{
	while (n > 0)
		free(names[--n]);
	free(names);
}

int
machine_remove(const char *name)
{
	static const char *files[] = { "owner", "sender", "runner", "settings",
	    NULL };
	char	dir[1024], path[1100];
	int	i, r;

	if ((r = machine_dir(dir, sizeof(dir), name)) != 0)
		return r;
	for (i = 0; files[i] != NULL; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	return rmdir(dir) == 0 || errno == ENOENT ? 0 : ALX_ERR_IO;
}

/*
 * "airlox run --on NAME" (and result, job) without an invite: the sender
 * invite of the machine NAME kept here.
 */
void
machine_resolve_invite(struct client_ctx *ctx)
{
	const char	*on = args_get(&ctx->args, "on");
	char		*link = NULL;

	char		**names;
	size_t		  n;

	if (ctx->invite != NULL || on == NULL)
		return;
	if (strncmp(on, "pool/", 5) != 0) {
		if (machine_read(on, "sender", &link) == 0)
			ctx->invite = link;	/* lives as long as the process */
		return;
	}
	/* A pool: the one machine kept here, if there is just one. */
	machine_list(&names, &n);
	if (n == 1 && machine_read(names[0], "sender", &link) == 0)
		ctx->invite = link;
	machine_list_free(names, n);
}

/*
 * "--on NAME" without an invite named no machine kept here: say so, with
 * the machines that are (a usage error, exit 2).
 */
int
machine_unknown(const char *on)
{
	struct alx_buf	  b;
	char		**names;
	size_t		  n, i;
	int		  r;

	machine_list(&names, &n);
	alx_buf_init(&b, 4096);
	for (i = 0; i < n; i++)
		alx_buf_printf(&b, "%s%s", i > 0 ? ", " : "", names[i]);
	if (strncmp(on, "pool/", 5) == 0 && n > 1)
		r = out_usage("--on %s: %zu machines are kept here (%s); set "
		    "AIRLOX_INVITE to the sender invite of the session to "
		    "use", on, n, b.data != NULL ? (char *)b.data : "");
	else if (n == 0)
		r = out_usage("no machine named %s: none is kept here (add "
		    "one with airlox machine add NAME, or set AIRLOX_INVITE)",
		    strncmp(on, "pool/", 5) == 0 ? "for a pool" : on);
	else
		r = out_usage("no machine named %s; the machines kept here: "
		    "%s (or set AIRLOX_INVITE)", on, b.data != NULL ?
		    (char *)b.data : "");
	alx_buf_free(&b);
	machine_list_free(names, n);
	return r;
}
