/*
 * runopt.c: the runner's settings that the runner and the client share
 * (runopt.h). Data and pure functions only: no output, no I/O.
 */
#include <stdio.h>
#include <string.h>

#include "runopt.h"

const struct runopt_sandbox runopt_sandboxes[] = {
	{ "local", 0 },			/* namespaces, Landlock, seccomp */
	{ "process", RUNOPT_SB_PORTABLE },	/* rlimits only */
	{ "docker", RUNOPT_SB_IMAGE },		/* a container per job */
	{ NULL, 0 }
};

const char runopt_sandbox_arg[] = "local|process|docker";

const struct runopt_sandbox *
runopt_sandbox_find(const char *name)
{
	const struct runopt_sandbox	*s;

	if (name == NULL)
		return NULL;
	for (s = runopt_sandboxes; s->name != NULL; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

const struct runopt_sandbox *
runopt_sandbox_with(int flags)
{
	const struct runopt_sandbox	*s;

	for (s = runopt_sandboxes; s->name != NULL; s++)
		if ((s->flags & flags) == flags)
			return s;
	return NULL;
}

void
runopt_sandbox_names(const char *sep, char *buf, size_t len)
{
	const struct runopt_sandbox	*s;
	size_t				 used = 0;
	int				 w;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (s = runopt_sandboxes; s->name != NULL && used < len; s++) {
		w = snprintf(buf + used, len - used, "%s%s",
		    s == runopt_sandboxes ? "" : sep, s->name);
		if (w < 0)
			return;
		used += (size_t)w;
	}
}
