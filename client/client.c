/*
 * client.c: airlox, the command line client. main() parses the global
 * options, finds the command in the table, parses its options and runs it.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "airlox.h"
#include "util/log.h"
#include "util/units.h"
#include "client.h"
#include "client-job.h"

/* The commands, in the order of `airlox --help` and airlox(1). */
const struct cmd_entry *cmd_table[] = {
	&cmd_session_create_entry,
	&cmd_session_show_entry,
	&cmd_session_code_entry,
	&cmd_session_close_entry,
	&cmd_session_revoke_entry,
	&cmd_session_rotate_entry,
	&cmd_session_approve_entry,
	&cmd_receive_entry,
	&cmd_send_text_entry,
	&cmd_send_file_entry,
	&cmd_read_entry,
	&cmd_watch_entry,
	&cmd_listen_entry,
	&cmd_delivery_entry,
	&cmd_machine_add_entry,
	&cmd_machine_ls_entry,
	&cmd_machine_approve_entry,
	&cmd_machine_invite_entry,
	&cmd_machine_rm_entry,
	&cmd_machine_denied_entry,
	&cmd_run_entry,
	&cmd_result_entry,
	&cmd_job_ls_entry,
	&cmd_job_logs_entry,
	&cmd_job_cancel_entry,
	&cmd_runner_join_entry,
	&cmd_runner_serve_entry,
	&cmd_runner_install_entry,
	&cmd_runner_verify_entry,
	&cmd_identity_entry,
	&cmd_help_entry,
	NULL
};

/* Options every command accepts. */
const struct cmd_opt client_global_opts[] = {
	{ "json", NULL, 0, "print JSON, one object per line (default: text "
	    "for people)" },
	{ "relay", "URL", 0, "relay to create sessions on (default: "
	    "$AIRLOX_RELAY)" },
	{ "invite", "LINK", 0, "the session's invite link (default: "
	    "$AIRLOX_INVITE; other local users can see it in ps)" },
	{ "ca-file", "FILE", 0, "trust this CA bundle for the relay's TLS "
	    "certificate (default: $AIRLOX_CA_FILE, else the system's)" },
	{ "insecure-http-host", "HOST", 0, "allow plain http:// to HOST "
	    "(default: only loopback hosts)" },
	{ "stall-timeout", "DURATION", 0, "give up on a relay that does not "
	    "answer a connection, or sends under 100 bytes a second, for this "
	    "long (default: 30s; an event stream allows one and a half times "
	    "as long)" },
	{ "verbose", NULL, 0, "log requests and retries on stderr (default: "
	    "off)" },
	{ "help", NULL, 0, "show the usage of the command and exit" },
	{ "version", NULL, 0, "print the version and exit" },
	{ NULL, NULL, 0, NULL }
};

/* Options of the commands that act as a participant. */
const struct cmd_opt client_participant_opts[] = {
	{ "name", "NAME", 0, "display name when joining (default: "
	    "$AIRLOX_NAME, else the user name); self-chosen, never a proof" },
	{ "description", "TEXT", 0, "what this participant does, passed to "
	    "programs started by listen (default: $AIRLOX_DESCRIPTION)" },
	{ "kind", "agent|person", 0, "kind of participant (default: person "
	    "on a terminal, else agent)" },
	{ NULL, NULL, 0, NULL }
};

static const struct cmd_opt *
opt_find(const struct cmd_opt *opts, const char *name, size_t len)
{
	for (; opts != NULL && opts->name != NULL; opts++)
		if (strlen(opts->name) == len &&
		    strncmp(opts->name, name, len) == 0)
			return opts;
	return NULL;
}

static const struct cmd_opt *
args_lookup(const struct cmd_entry *cmd, const char *name, size_t len)
{
	const struct cmd_opt	*o;

	if (cmd != NULL && (o = opt_find(cmd->opts, name, len)) != NULL)
		return o;
	/* Before the command is known, participant options are taken. */
	if ((cmd == NULL || (cmd->flags & CMD_PARTICIPANT)) &&
	    (o = opt_find(client_participant_opts, name, len)) != NULL)
		return o;
	return opt_find(client_global_opts, name, len);
}

const char *
args_get(const struct cmd_args *a, const char *name)
{
	const char	*v = NULL;
	size_t		 i;

	for (i = 0; i < a->nset; i++)
		if (strcmp(a->set[i].opt->name, name) == 0)
			v = a->set[i].val;
	return v;
}

int
args_has(const struct cmd_args *a, const char *name)
{
	return args_get(a, name) != NULL;
}

const char *
args_nth(const struct cmd_args *a, const char *name, size_t n)
{
	size_t	i;

	for (i = 0; i < a->nset; i++)
		if (strcmp(a->set[i].opt->name, name) == 0 && n-- == 0)
			return a->set[i].val;
	return NULL;
}

int
args_duration(const struct cmd_args *a, const char *name, int64_t def,
    int64_t *out)
{
	const char	*v = args_get(a, name);
	uint64_t	 secs;

	*out = def;
	if (v == NULL)
		return 0;
	/* The client's "none" is 0: never and 0 alike. */
	if (units_duration(v, &secs) != 0 || (secs != UNITS_NEVER &&
	    secs > (uint64_t)ALX_JSON_INT_MAX))
		return out_usage("--%s: not a duration (like 90s, 30m, 24h, "
		    "7d, or never): %s", name, v);
	*out = secs == UNITS_NEVER ? 0 : (int64_t)secs;
	return 0;
}

int
args_int(const struct cmd_args *a, const char *name, int64_t def,
    int64_t min, int64_t max, int64_t *out)
{
	const char	*v = args_get(a, name);
	uint64_t	 n;

	*out = def;
	if (v == NULL)
		return 0;
	if (units_count(v, &n) != 0 || n < (uint64_t)min || n > (uint64_t)max)
		return out_usage("--%s: not a number from %lld to %lld: %s",
		    name, (long long)min, (long long)max, v);
	*out = (int64_t)n;
	return 0;
}

/* Find the command named by the first one or two words. */
static const struct cmd_entry *
client_find(int argc, char **argv, int *used)
{
	const struct cmd_entry	*const *c;
	char			 two[128];

	if (argc >= 2) {
		snprintf(two, sizeof(two), "%s %s", argv[0], argv[1]);
		for (c = cmd_table; *c != NULL; c++)
			if (strcmp((*c)->name, two) == 0) {
				*used = 2;
				return *c;
			}
	}
	if (argc >= 1)
		for (c = cmd_table; *c != NULL; c++)
			if (strcmp((*c)->name, argv[0]) == 0) {
				*used = 1;
				return *c;
			}
	return NULL;
}

/* Parse options and positionals of argv (after the command words). */
static int
client_parse(struct cmd_args *a, int argc, char **argv, int allow_pos)
{
	const struct cmd_opt	*o;
	const char		*arg, *eq, *val;
	int			 i, dashdash = 0;

	for (i = 0; i < argc; i++) {
		arg = argv[i];
		/* Ids and fingerprints may start with '-': only -h, -v and
		 * --long are options. */
		if (dashdash || arg[0] != '-' || arg[1] == '\0' ||
		    (arg[1] != '-' && strcmp(arg, "-h") != 0 &&
		    strcmp(arg, "-v") != 0)) {
			if (!allow_pos)
				return i;
			a->pos[a->npos++] = argv[i];
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			dashdash = 1;
			continue;
		}
		if (strcmp(arg, "-h") == 0)
			arg = "--help";
		else if (strcmp(arg, "-v") == 0)
			arg = "--verbose";
		arg += 2;
		eq = strchr(arg, '=');
		o = args_lookup(a->cmd, arg, eq ? (size_t)(eq - arg) :
		    strlen(arg));
		if (o == NULL)
			return (out_usage("unknown option --%.*s%s%s",
			    eq ? (int)(eq - arg) : (int)strlen(arg), arg,
			    a->cmd ? " for " : "",
			    a->cmd ? a->cmd->name : ""), -1);
		if (o->arg == NULL) {
			if (eq != NULL)
				return (out_usage("--%s takes no value",
				    o->name), -1);
			val = "";
		} else if (eq != NULL)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			return (out_usage("--%s needs a value (%s)", o->name,
			    o->arg), -1);
		if (!(o->flags & OPT_MULTI) && args_get(a, o->name) != NULL &&
		    o->arg != NULL && strcmp(args_get(a, o->name), val) != 0)
			return (out_usage("--%s given twice", o->name), -1);
		if (a->nset >= ARGS_MAX_SET)
			return (out_usage("too many options"), -1);
		a->set[a->nset].opt = o;
		a->set[a->nset].val = val;
		a->nset++;
	}
	return argc;
}

/* An environment variable, with empty meaning unset. */
static const char *
client_getenv(const char *name)
{
	const char	*v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

static void
client_env(struct client_ctx *ctx)
{
	const struct cmd_args	*a = &ctx->args;
	const char		*k;

	ctx->json = args_has(a, "json");
	ctx->verbose = args_has(a, "verbose");
	ctx->relay = args_get(a, "relay");
	if (ctx->relay == NULL)
		ctx->relay = client_getenv("AIRLOX_RELAY");
	ctx->invite = args_get(a, "invite");
	if (ctx->invite != NULL)
		out_warn("--invite: other users of this machine can see the "
		    "invite in ps; prefer AIRLOX_INVITE");
	else
		ctx->invite = client_getenv("AIRLOX_INVITE");
	ctx->ca_file = args_get(a, "ca-file");
	if (ctx->ca_file == NULL)
		ctx->ca_file = client_getenv("AIRLOX_CA_FILE");
	ctx->insecure_host = args_get(a, "insecure-http-host");
	ctx->name = args_get(a, "name");
	if (ctx->name == NULL)
		ctx->name = client_getenv("AIRLOX_NAME");
	ctx->description = args_get(a, "description");
	if (ctx->description == NULL)
		ctx->description = client_getenv("AIRLOX_DESCRIPTION");
	/* A secret: the environment only, never a command line (ps). */
	ctx->key_secret = client_getenv("AIRLOX_KEY");
	k = args_get(a, "kind");
	ctx->kind = isatty(STDIN_FILENO) ? ALX_PKIND_PERSON : ALX_PKIND_AGENT;
	if (k != NULL)
		ctx->kind = strcmp(k, "person") == 0 ? ALX_PKIND_PERSON :
		    strcmp(k, "agent") == 0 ? ALX_PKIND_AGENT : -1;
}

static int
client_check(struct client_ctx *ctx)
{
	const struct cmd_entry	*cmd = ctx->args.cmd;

	if (ctx->args.npos < cmd->min_args ||
	    (cmd->max_args >= 0 && ctx->args.npos > cmd->max_args))
		return out_usage("usage: airlox %s%s%s", cmd->name,
		    cmd->args[0] != '\0' ? " " : "", cmd->args);
	if (ctx->kind < 0)
		return out_usage("--kind: agent or person");
	if (args_duration(&ctx->args, "stall-timeout", 0, &ctx->stall_s) != 0)
		return EXIT_USAGE;
	if (args_has(&ctx->args, "stall-timeout") &&
	    (ctx->stall_s < 1 || ctx->stall_s > 3600))
		return out_usage("--stall-timeout: from 1s to 1h");
	if (ctx->name != NULL && !alx_display_valid(ctx->name))
		return out_usage("--name: 1 to 64 characters without control "
		    "characters");
	/* "run --on NAME": the sender invite of a machine kept here. */
	if ((cmd->flags & CMD_INVITE) && ctx->invite == NULL)
		machine_resolve_invite(ctx);
	if ((cmd->flags & CMD_INVITE) && ctx->invite == NULL &&
	    args_get(&ctx->args, "on") != NULL)
		return machine_unknown(args_get(&ctx->args, "on"));
	if ((cmd->flags & CMD_INVITE) && ctx->invite == NULL)
		return out_fail(ALX_ERR_BAD_INVITE, "no invite: set "
		    "AIRLOX_INVITE (or use --invite LINK)");
	if ((cmd->flags & CMD_RELAY) && ctx->relay == NULL)
		return out_usage("no relay: set AIRLOX_RELAY or use --relay "
		    "URL");
	return 0;
}

int
main(int argc, char **argv)
{
	static struct client_ctx ctx;
	const struct cmd_entry	*cmd;
	int			 n, used = 0, r;

	setlocale(LC_CTYPE, "");
	signal(SIGPIPE, SIG_IGN);
	log_init("airlox", LOG_LEVEL_WARN);
	/* The runner commands take the runner's own options. */
	cmd_runner_init();
	cmd_runner_install_init();
	if (alx_crypto_init() != 0 || curl_global_init(CURL_GLOBAL_DEFAULT) !=
	    CURLE_OK) {
		fprintf(stderr, "airlox: cannot initialise crypto or curl\n");
		return EXIT_FAIL;
	}
	if ((ctx.args.pos = calloc(argc + 1, sizeof(char *))) == NULL)
		return EXIT_FAIL;
	argc--;
	argv++;
	/* Global options before the command. */
	n = client_parse(&ctx.args, argc, argv, 0);
	if (n < 0)
		return EXIT_USAGE;
	out_init(args_has(&ctx.args, "json"));
	if (args_has(&ctx.args, "version")) {
		printf("airlox %s\n", ALX_VERSION_STRING);
		return EXIT_OK;
	}
	cmd = client_find(argc - n, argv + n, &used);
	if (cmd == NULL) {
		if (n == argc || args_has(&ctx.args, "help")) {
			help_print_usage(n == argc &&
			    !args_has(&ctx.args, "help") ? stderr : stdout);
			return n == argc && !args_has(&ctx.args, "help") ?
			    EXIT_USAGE : EXIT_OK;
		}
		return out_usage("unknown command: %s (see airlox --help)",
		    argv[n]);
	}
	ctx.args.cmd = cmd;
	r = client_parse(&ctx.args, argc - n - used, argv + n + used, 1);
	if (r < 0)
		return EXIT_USAGE;
	out_init(args_has(&ctx.args, "json"));
	if (args_has(&ctx.args, "help")) {
		help_print_command(stdout, cmd);
		return EXIT_OK;
	}
	if (args_has(&ctx.args, "verbose"))
		log_setlevel(LOG_LEVEL_DEBUG);
	client_env(&ctx);
	if ((r = client_check(&ctx)) != 0)
		return r;
	r = cmd->exec(&ctx);
	fflush(stdout);
	curl_global_cleanup();
	free(ctx.args.pos);
	return r;
}
