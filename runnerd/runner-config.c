/*
 * runner-config.c: airlox-runnerd's settings from the one table
 * (common/util/runopt.c, shared with the client's `runner` commands): the
 * command line, --help, the environment, and the configuration file
 * (runner-conf.c) by key. Precedence: the table's defaults, then the
 * config file, then the environment, then the command line; a variable is
 * not read when the command line gives its setting. Every value, from
 * wherever, is checked by its kind (runner_conf_check()).
 */
#include "config.h"

#include <sys/stat.h>

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "runopt.h"
#include "runnerd.h"

#define RUNNER_LONGOPTS	64

void
runner_usage(FILE *fp)
{
	const struct runopt	*o;
	char			 left[64];

	fprintf(fp, "usage: airlox-runnerd [options]\n"
	    "       airlox-runnerd verify [options]\n\n"
	    "Runs jobs of one airlox execute session on this machine.\n\n");
	for (o = runopt_table; o->name != NULL; o++) {
		snprintf(left, sizeof(left), "--%s%s%s", o->name,
		    o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(fp, "  %-28s %s", left, o->help);
		if (o->def != NULL)
			fprintf(fp, " (default: %s)", o->def);
		if (o->env != NULL)
			fprintf(fp, " [%s]", o->env);
		fprintf(fp, "\n");
	}
}

static int
runner_cfg_domain(struct runner_cfg *c, const char *val)
{
	char	**nl;

	if (c->verify_nallow >= 64)
		return ALX_ERR_TOO_LARGE;
	nl = reallocarray(c->verify_allow, c->verify_nallow + 1, sizeof(*nl));
	if (nl == NULL)
		return ALX_ERR_NOMEM;
	c->verify_allow = nl;
	if ((nl[c->verify_nallow] = strdup(val)) == NULL)
		return ALX_ERR_NOMEM;
	c->verify_nallow++;
	return ALX_OK;
}

/*
 * Set one setting from its row: check the value by its kind, then store
 * it in the row's field. from names the source in a message, before the
 * value ("--name ", "AIRLOX_NAME="); in_file: the configuration file's
 * rules.
 */
static int
runner_cfg_set(struct runner_cfg *c, const struct runopt *o, const char *val,
    const char *from, int in_file, char **cause)
{
	char	*field = (char *)c + o->off, what[96], *err = NULL;
	int	 r;

	if (o->kind == RUNOPT_SWITCH && !in_file) {
		/* On the command line a switch takes no value. */
		*(int *)field = 1;
		return ALX_OK;
	}
	if (!runner_conf_check(o, val, in_file)) {
		if (o->kind == RUNOPT_ENVNAMES) {
			runner_conf_env_list(val, NULL, NULL, &err);
			snprintf(what, sizeof(what), "%s", err != NULL ? err :
			    "not a list of names");
			free(err);
			if (asprintf(cause, "%.*s: %s", (int)strlen(from) - 1,
			    from, what) == -1)
				*cause = NULL;
			return ALX_ERR_INVALID;
		}
		runner_conf_what(o, in_file, what, sizeof(what));
		if (asprintf(cause, "%s%s: expected %s", from, val, what) == -1)
			*cause = NULL;
		return o->kind == RUNOPT_DOMAIN ? ALX_ERR_BAD_DOMAIN :
		    ALX_ERR_INVALID;
	}
	switch (o->kind) {
	case RUNOPT_SWITCH:
		*(int *)field = strcmp(val, "on") == 0;
		return ALX_OK;
	case RUNOPT_COUNT:
		*(int *)field = (int)strtol(val, NULL, 10);
		return ALX_OK;
	case RUNOPT_LEVEL:
		*(int *)field = runner_conf_level(val);
		return ALX_OK;
	case RUNOPT_DOMAIN:
		if ((r = runner_cfg_domain(c, val)) == ALX_ERR_TOO_LARGE &&
		    asprintf(cause, "%s%s: at most 64 of them", from,
		    val) == -1)
			*cause = NULL;
		return r;
	default:
		free(*(char **)field);
		*(char **)field = strdup(val);
		return *(char **)field != NULL ? ALX_OK : ALX_ERR_NOMEM;
	}
}

/* The config file's keys map onto settings by the table. */
static int
runner_conf_cb(void *arg, const char *key, const char *val)
{
	const struct runopt	*o;
	char			*cause = NULL;
	int			 r;

	if ((o = runopt_find_conf(key)) == NULL)
		return ALX_OK;	/* the file's parser knows every key */
	r = runner_cfg_set(arg, o, val, key, 1, &cause);
	free(cause);
	return r;
}

/* Every default in one place: the table's. */
static int
runner_cfg_defaults(struct runner_cfg *c, char **cause)
{
	const struct runopt	*o;
	int			 r;

	memset(c, 0, sizeof(*c));
	for (o = runopt_table; o->name != NULL; o++)
		if (o->def != NULL && (r = runner_cfg_set(c, o, o->def,
		    "default ", 0, cause)) != ALX_OK)
			return r;
	return ALX_OK;
}

int
runner_cfg_parse(struct runner_cfg *c, int argc, char **argv, char **cause)
{
	struct option		 lo[RUNNER_LONGOPTS + 1];
	const struct runopt	*o;
	const char		*conf, *v;
	struct stat		 st;
	char			 given[RUNNER_LONGOPTS], from[64];
	size_t			 i, n;
	int			 ch, idx, r;

	*cause = NULL;
	if ((r = runner_cfg_defaults(c, cause)) != ALX_OK)
		return r;
	memset(lo, 0, sizeof(lo));
	memset(given, 0, sizeof(given));
	for (n = 0; runopt_table[n].name != NULL && n < RUNNER_LONGOPTS; n++) {
		lo[n].name = runopt_table[n].name;
		lo[n].has_arg = runopt_table[n].arg ? required_argument :
		    no_argument;
	}
	/*
	 * First pass: --config, --help and --version, and which settings
	 * the command line gives (their variables are then not read).
	 */
	conf = NULL;
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "", lo, &idx)) != -1) {
		if (ch != 0)
			continue;
		o = &runopt_table[idx];
		given[idx] = 1;
		if (!(o->flags & RUNOPT_FIRST))
			continue;
		if (o->off == offsetof(struct runner_cfg, config))
			conf = optarg;
		else if ((r = runner_cfg_set(c, o, optarg, "--", 0,
		    cause)) != ALX_OK)
			return r;
	}
	if (conf == NULL && stat(RUNNER_CONF_DEFAULT, &st) == 0)
		conf = RUNNER_CONF_DEFAULT;
	if (conf != NULL && (r = runner_conf_parse(conf, runner_conf_cb, c,
	    cause)) != ALX_OK)
		return r;
	for (i = 0; i < n; i++) {
		o = &runopt_table[i];
		if (o->env == NULL || given[i] ||
		    (v = getenv(o->env)) == NULL || *v == '\0')
			continue;
		snprintf(from, sizeof(from), "%s=", o->env);
		if ((r = runner_cfg_set(c, o, v, from, 0, cause)) != ALX_OK)
			return r;
	}
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "", lo, &idx)) != -1) {
		if (ch != 0) {
			if (asprintf(cause, "unknown or incomplete option: %s",
			    argv[optind - 1]) == -1)
				*cause = NULL;
			return ALX_ERR_INVALID;
		}
		o = &runopt_table[idx];
		snprintf(from, sizeof(from), "--%s ", o->name);
		if ((r = runner_cfg_set(c, o, optarg, from, 0, cause)) !=
		    ALX_OK)
			return r;
	}
	if (optind < argc) {
		if (asprintf(cause, "unexpected argument: %s",
		    argv[optind]) == -1)
			*cause = NULL;
		return ALX_ERR_INVALID;
	}
	return ALX_OK;
}

void
runner_cfg_free(struct runner_cfg *c)
{
	free(c->invite);
	free(c->invite_file);
	free(c->code);
	free(c->relay);
	free(c->name);
	free(c->labels);
	free(c->description);
	free(c->sandbox);
	free(c->image);
	free(c->work_root);
	free(c->state_dir);
	free(c->config);
	free(c->ca_file);
	free(c->insecure_host);
	free(c->env_allow);
	free(c->python);
	free(c->package_index);
	free(c->find_links);
	while (c->verify_nallow > 0)
		free(c->verify_allow[--c->verify_nallow]);
	free(c->verify_allow);
	memset(c, 0, sizeof(*c));
}
