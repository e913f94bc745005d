/*
 * runopt.h: what airlox-runnerd and the client commands that start it
 * (`airlox runner ...`, `airlox machine add`) both need to know of the
 * runner's settings, in one place.
 *
 * The sandboxes: the names --sandbox takes, in the order --help lists
 * them (the first is the default), each with what the client must know to
 * write a runner's command line. The runner's backend table
 * (runnerd/sandbox.c) has the same names in the same order
 * (tests/runnerd/test-conf checks).
 */
#ifndef ALX_RUNOPT_H
#define ALX_RUNOPT_H

#include <stddef.h>

struct runopt_sandbox {
	const char	*name;
	int		 flags;
/* Jobs run in an image: --image IMAGE is needed, and means this sandbox. */
#define RUNOPT_SB_IMAGE		0x1
/* Needs no Linux namespaces: the one a macOS launchd agent can run. */
#define RUNOPT_SB_PORTABLE	0x2
};

/* NULL-terminated; [0] is the default. */
extern const struct runopt_sandbox	runopt_sandboxes[];
/* The names as an option's metavariable: "local|process|docker". */
extern const char			runopt_sandbox_arg[];

/* A sandbox by name; NULL for another name. */
const struct runopt_sandbox *runopt_sandbox_find(const char *name);
/* The first sandbox with these flags; NULL when none has them. */
const struct runopt_sandbox *runopt_sandbox_with(int flags);
/* The names joined by sep into buf (truncated to fit). */
void		 runopt_sandbox_names(const char *sep, char *buf, size_t len);

#endif /* ALX_RUNOPT_H */
