/*
 * runopt.h: the one table of airlox-runnerd's settings, shared by the
 * runner and by the client commands that start it.
 *
 * Each row is one setting: its flag, its key in runner.conf, its
 * environment variable, its argument, its default, its help, the kind of
 * value it takes (which says how it is checked and stored; a number's
 * range is in the row), the field of struct runner_cfg it sets, and which
 * `airlox runner` commands take it. The runner parses its command line,
 * its configuration file and its environment from it and prints --help
 * from it (runnerd/runner-config.c, runnerd/runner-conf.c); the client
 * builds the options of `airlox runner join|serve|verify|install-service`
 * from it, hence their --help, airlox(1)'s check and the shell completion
 * (tests/packaging/man-help.sh checks both against the man pages).
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

/* The runner's settings, as the table fills them. */
struct runner_cfg {
	char	*invite;
	char	*invite_file;
	char	*code;
	char	*relay;
	char	*name;
	char	*labels;
	char	*description;
	char	*sandbox;
	char	*image;			/* --sandbox docker */
	char	*work_root;
	char	*state_dir;
	char	*config;
	char	*ca_file;
	char	*insecure_host;
	char	*env_allow;		/* A,B: more names passed to jobs */
	char	*python;		/* --python PATH */
	char	*package_index;		/* --package-index URL */
	char	*find_links;		/* --find-links DIR */
	int	 concurrency;
	int	 grace_s;
	int	 workspace;
	int	 network;
	int	 allow_weaker;
	int	 force;
	int	 log_level;		/* LOG_LEVEL_*: the index in "warn,
					 * info, debug" */
	int	 help;
	int	 version;
	int	 verify;		/* not an option: `verify` */
	char	**verify_allow;		/* verify --allow DOMAIN... */
	size_t	 verify_nallow;
};

/* What a setting takes: how it is checked, and stored in its field. */
enum runopt_kind {
	RUNOPT_SWITCH,		/* int; no argument; on or off in the file */
	RUNOPT_STRING,		/* char *: any text */
	RUNOPT_NAME,		/* char *: [a-z0-9][a-z0-9._-]* */
	RUNOPT_LABELS,		/* char *: names, comma-separated */
	RUNOPT_TEXT,		/* char *: a short display text */
	RUNOPT_COUNT,		/* int: a number from min to max */
	RUNOPT_SANDBOX,		/* char *: a name of runopt_sandboxes */
	RUNOPT_IMAGE,		/* char *: a Docker image reference */
	RUNOPT_PATH,		/* char *: a path, absolute in the file */
	RUNOPT_URL,		/* char *: an http or https URL */
	RUNOPT_ENVNAMES,	/* char *: variable names, comma-separated */
	RUNOPT_LEVEL,		/* int: warn, info or debug */
	RUNOPT_DOMAIN		/* verify_allow: a domain name, repeatable */
};

struct runopt {
	const char	*name;		/* long flag without -- */
	const char	*conf;		/* KEY in runner.conf; NULL: none */
	const char	*env;		/* environment variable; NULL: none */
	const char	*arg;		/* metavariable; NULL: a switch */
	const char	*def;		/* the default, as the value; or NULL */
	const char	*help;		/* one line, without the default */
	enum runopt_kind kind;
	long long	 min, max;	/* RUNOPT_COUNT */
	size_t		 off;		/* into struct runner_cfg */
	int		 flags;
/* `airlox runner join` and `serve` take it and pass it on. */
#define RUNOPT_JOIN	0x01
/* `airlox runner install-service` takes it... */
#define RUNOPT_INSTALL	0x02
/* ... and writes it into the service's command line. */
#define RUNOPT_UNIT	0x04
/* `airlox runner verify` takes it and passes it on. */
#define RUNOPT_VERIFY	0x08
/* Read before the others (the configuration file, --help, --version). */
#define RUNOPT_FIRST	0x10
};

/* NULL-terminated (a NULL name). */
extern const struct runopt	runopt_table[];

/* The configuration file read when --config names none, if it exists. */
#ifndef ALX_SYSCONFDIR
#define ALX_SYSCONFDIR		"/etc"
#endif
#define RUNNER_CONF_DEFAULT	ALX_SYSCONFDIR "/airlox/runner.conf"

/* A row by its flag or its runner.conf key; NULL when there is none. */
const struct runopt *runopt_find(const char *name);
const struct runopt *runopt_find_conf(const char *key);

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
