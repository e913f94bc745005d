/*
 * cmd-help.c: "airlox help [COMMAND]", and the usage texts of --help. All
 * read the command table; `airlox help --json` prints the table itself
 * (commands, options, exit codes) for the consistency test.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "airlox.h"
#include "client.h"

static const struct cmd_opt cmd_help_opts[] = {
	{ NULL, NULL, 0, NULL }
};

static void
help_opts(FILE *f, const char *title, const struct cmd_opt *o)
{
	char	lhs[64];
	size_t	len;

	if (o == NULL || o->name == NULL)
		return;
	fprintf(f, "\n%s:\n", title);
	for (; o->name != NULL; o++) {
		snprintf(lhs, sizeof(lhs), "--%s%s%s", o->name,
		    o->arg ? " " : "", o->arg ? o->arg : "");
		len = strlen(o->help);
		/* "(default: none)" becomes "(default: none; repeatable)". */
		if (!(o->flags & OPT_MULTI))
			fprintf(f, "  %-28s %s\n", lhs, o->help);
		else if (len > 0 && o->help[len - 1] == ')')
			fprintf(f, "  %-28s %.*s; repeatable)\n", lhs,
			    (int)len - 1, o->help);
		else
			fprintf(f, "  %-28s %s (repeatable)\n", lhs, o->help);
	}
}

static void
help_synopsis(FILE *f, const struct cmd_entry *c)
{
	const struct cmd_opt	*o;

	fprintf(f, "airlox %s", c->name);
	for (o = c->opts; o != NULL && o->name != NULL; o++)
		fprintf(f, " [--%s%s%s]", o->name, o->arg ? " " : "",
		    o->arg ? o->arg : "");
	if (c->args[0] != '\0')
		fprintf(f, " %s", c->args);
	fprintf(f, "\n");
}

void
help_print_usage(FILE *f)
{
	const struct cmd_entry	*const *c;
	const struct exit_code	*e;
	int			 width = 0;

	for (c = cmd_table; *c != NULL; c++)
		if ((int)strlen((*c)->name) > width)
			width = (int)strlen((*c)->name);
	fprintf(f, "usage: airlox [--json] [--invite LINK] [--relay URL] "
	    "COMMAND [ARGS]\n\nCommands:\n");
	for (c = cmd_table; *c != NULL; c++)
		fprintf(f, "  %-*s  %s\n", width, (*c)->name, (*c)->help);
	help_opts(f, "Options of every command", client_global_opts);
	help_opts(f, "Options of commands that act as a participant",
	    client_participant_opts);
	fprintf(f, "\nExit status:\n");
	for (e = exit_codes; e->name != NULL; e++)
		fprintf(f, "  %3d %s: %s\n", e->code, e->name, e->help);
	fprintf(f, "\nairlox COMMAND --help shows a command's options; "
	    "see airlox(1).\n");
}

void
help_print_command(FILE *f, const struct cmd_entry *c)
{
	fprintf(f, "usage: ");
	help_synopsis(f, c);
	fprintf(f, "\n%s\n", c->help);
	help_opts(f, "Options", c->opts);
	if (c->flags & CMD_PARTICIPANT)
		help_opts(f, "Participant options", client_participant_opts);
	help_opts(f, "Options of every command", client_global_opts);
}

static void
help_json_opts(struct alx_jw *jw, const char *key, const struct cmd_opt *o)
{
	alx_jw_key(jw, key);
	alx_jw_arr_begin(jw);
	for (; o != NULL && o->name != NULL; o++) {
		alx_jw_obj_begin(jw);
		alx_jw_kstr(jw, "name", o->name);
		if (o->arg != NULL)
			alx_jw_kstr(jw, "arg", o->arg);
		alx_jw_kbool(jw, "multi", (o->flags & OPT_MULTI) != 0);
		alx_jw_kstr(jw, "help", o->help);
		alx_jw_obj_end(jw);
	}
	alx_jw_arr_end(jw);
}

static int
help_json(void)
{
	const struct cmd_entry	*const *c;
	const struct exit_code	*e;
	struct alx_jw		 jw;

	out_obj_begin(&jw);
	alx_jw_kstr(&jw, "version", ALX_VERSION_STRING);
	alx_jw_key(&jw, "commands");
	alx_jw_arr_begin(&jw);
	for (c = cmd_table; *c != NULL; c++) {
		alx_jw_obj_begin(&jw);
		alx_jw_kstr(&jw, "name", (*c)->name);
		alx_jw_kstr(&jw, "args", (*c)->args);
		alx_jw_kstr(&jw, "help", (*c)->help);
		alx_jw_kbool(&jw, "participant",
		    ((*c)->flags & CMD_PARTICIPANT) != 0);
		help_json_opts(&jw, "options", (*c)->opts);
		alx_jw_obj_end(&jw);
	}
	alx_jw_arr_end(&jw);
	help_json_opts(&jw, "global_options", client_global_opts);
	help_json_opts(&jw, "participant_options", client_participant_opts);
	alx_jw_key(&jw, "exit_codes");
	alx_jw_arr_begin(&jw);
	for (e = exit_codes; e->name != NULL; e++) {
		alx_jw_obj_begin(&jw);
		alx_jw_kint(&jw, "code", e->code);
		alx_jw_kstr(&jw, "name", e->name);
		alx_jw_kstr(&jw, "help", e->help);
		alx_jw_obj_end(&jw);
	}
	alx_jw_arr_end(&jw);
	return out_obj_end(&jw) == 0 ? EXIT_OK : EXIT_FAIL;
}

static int
cmd_help_exec(struct client_ctx *ctx)
{
	const struct cmd_entry	*const *c;
	char			 name[128];

	if (ctx->json)
		return help_json();
	if (ctx->args.npos == 0) {
		help_print_usage(stdout);
		return EXIT_OK;
	}
	snprintf(name, sizeof(name), "%s%s%s", ctx->args.pos[0],
	    ctx->args.npos > 1 ? " " : "",
	    ctx->args.npos > 1 ? ctx->args.pos[1] : "");
	for (c = cmd_table; *c != NULL; c++)
		if (strcmp((*c)->name, name) == 0 ||
		    strcmp((*c)->name, ctx->args.pos[0]) == 0) {
			help_print_command(stdout, *c);
			return EXIT_OK;
		}
	return out_usage("no command %s", name);
}

const struct cmd_entry cmd_help_entry = {
	"help", "[COMMAND]", 0, 2, cmd_help_opts, 0, cmd_help_exec,
	"show the commands, or one command's options (--json: the whole "
	"table)"
};
