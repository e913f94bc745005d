/*
 * client.h: the airlox command line client, private header.
 *
 * One command per client/cmd-*.c, each exporting one struct cmd_entry; the
 * table in client.c lists them. `airlox --help`, `airlox CMD --help`,
 * `airlox help --json` (read by the consistency test) and man/airlox.1 all
 * follow that table. The other files are the client's subsystems, each
 * listed below under its file name.
 */
#ifndef CLIENT_H
#define CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "airlox.h"
#include "airlox/view.h"
#include "alxs.h"

struct client_ctx;

/* An option of a command (or a global or participant option). */
struct cmd_opt {
	const char	*name;		/* "mode" for --mode */
	const char	*arg;		/* metavariable; NULL: a flag */
	int		 flags;
#define OPT_MULTI	0x1		/* may be given more than once */
	const char	*help;		/* one line, stating the default */
};

/* A command: one table entry, exported by its cmd-*.c. */
struct cmd_entry {
	const char		*name;	/* "session create" */
	const char		*args;	/* positional usage, "" for none */
	int			 min_args;
	int			 max_args;	/* -1: any number */
	const struct cmd_opt	*opts;	/* terminated by a NULL name */
	int			 flags;
#define CMD_INVITE	0x1	/* acts on a session: needs an invite */
#define CMD_PARTICIPANT	0x2	/* joins as a participant: --name ... */
#define CMD_RELAY	0x4	/* talks to a relay named by --relay */
	int			(*exec)(struct client_ctx *);
	const char		*help;	/* one line */
};

/* Parsed command line. */
#define ARGS_MAX_SET	128
struct cmd_args {
	const struct cmd_entry	*cmd;
	struct {
		const struct cmd_opt	*opt;
		const char		*val;	/* "" for flags */
	}			 set[ARGS_MAX_SET];
	size_t			 nset;
	char			**pos;
	int			 npos;
};

struct client_ctx {
	struct cmd_args	 args;
	int		 json;
	int		 verbose;
	const char	*relay;		/* --relay or AIRLOX_RELAY */
	const char	*invite;	/* --invite or AIRLOX_INVITE */
	const char	*ca_file;	/* --ca-file or AIRLOX_CA_FILE */
	const char	*insecure_host;	/* --insecure-http-host */
	int64_t		 stall_s;	/* --stall-timeout; 0: the default */
	const char	*name;		/* --name or AIRLOX_NAME */
	const char	*description;	/* --description, AIRLOX_DESCRIPTION */
	int		 kind;		/* ALX_PKIND_* */
	const char	*key_secret;	/* AIRLOX_KEY: the participant key */
};

/* client.c */
extern const struct cmd_entry	*cmd_table[];
extern const struct cmd_opt	 client_global_opts[];
extern const struct cmd_opt	 client_participant_opts[];
const char	*args_get(const struct cmd_args *, const char *);
int		 args_has(const struct cmd_args *, const char *);
/* The i-th value of a repeatable option, NULL after the last. */
const char	*args_nth(const struct cmd_args *, const char *, size_t);
int		 args_duration(const struct cmd_args *, const char *,
		    int64_t def, int64_t *out);
int		 args_int(const struct cmd_args *, const char *, int64_t def,
		    int64_t min, int64_t max, int64_t *out);

/* cmd-help.c */
void	 help_print_usage(FILE *);
void	 help_print_command(FILE *, const struct cmd_entry *);

/* client-out.c */
enum client_exit {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_ACCESS = 3,
	EXIT_GONE = 4,
	EXIT_NET = 5,
	EXIT_VERIFY = 6,
	EXIT_TIMEOUT = 7,
	EXIT_CODE = 8,
	EXIT_INTERRUPTED = 130
};
struct exit_code {
	int		 code;
	const char	*name;
	const char	*help;
};
extern const struct exit_code	exit_codes[];
void	 out_init(int json);
int	 out_json(void);
int	 out_exit_for(int err);
/* Human text on stdout (suppressed with --json). */
void	 out_text(const char *, ...) __attribute__((format(printf, 1, 2)));
/* A JSON object: begin, add members through the writer, end prints it. */
void	 out_obj_begin(struct alx_jw *);
int	 out_obj_end(struct alx_jw *);
/* Warnings and notes for people on stderr. */
void	 out_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
/*
 * Report a failure: a message on stderr, with --json also
 * {"error","message"} on stdout. Returns the exit code for err.
 */
int	 out_fail(int err, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* The same with an exit code other than the error's. */
int	 out_fail_code(int code, int err, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
int	 out_usage(const char *, ...) __attribute__((format(printf, 1, 2)));
/*
 * Text safe for a terminal: control characters shown as '?'; with an
 * indent, printed after each newline (the lines of a message).
 */
void	 out_safe(FILE *, const char *, size_t);
/* Bytes as they are (not for a terminal), noting the last for the next
 * line (out_line_start). */
void	 out_raw(FILE *, const void *, size_t);
/*
 * Start a line on f (stdout or stderr): a newline when what out_safe()
 * last wrote where f goes (both streams, when they go to one place) did
 * not end with one. Footers use it after a job's output.
 */
void	 out_line_start(FILE *);
void	 out_safe_indent(FILE *, const char *, size_t, const char *);
void	 out_time(char *, size_t, int64_t);
/*
 * Words as a POSIX shell reads them back: bare when safe, else in single
 * quotes, or as $'...' (bash, zsh, ksh) when a word holds a control
 * character, which is then escaped. Appended to b, separated by spaces.
 */
int	 out_argv_quote(struct alx_buf *b, char *const *argv, size_t n);

/* client-dirs.c */
/* The airlox folder under $var, else ~/sub (XDG): made 0700. */
int	 cache_xdg_dir(char *, size_t, const char *var, const char *sub);
/* $XDG_CACHE_HOME/airlox (~/.cache/airlox): the key store, and more. */
int	 cache_dir(char *, size_t);
/* That folder, made once, for the relay client library; NULL when it
 * cannot be. */
const char *client_store(void);

/* client-session.c: the relay client library (session/alxs.h) as the
 * commands use it, its failures printed. */
/* The settings from the command line and the environment (but the key
 * store, client_store()). */
void	 client_conf(const struct client_ctx *, struct alxs_conf *);
/* Print the failure alxs_error() explains (or err's name); the exit code. */
int	 client_fail(int err);
/* alxs_open() with the command's settings; cs->arg is ctx. The exit
 * code, the failure printed. */
int	 csess_open(struct alxs_sess *, struct client_ctx *, int flags);
/* alxs_read_fail(), printed; the exit code. */
int	 csess_fail(struct alxs_sess *, int err, const char *what);
/* Post p and report it; returns the exit code. */
int	 item_send(struct alxs_sess *, struct alxs_item_post *);
/*
 * A transfer code for invite, printed with how (the command to run on the
 * other machine, %s for the code and %r for the relay's URL; NULL: airlox
 * receive with --relay); the exit code.
 */
int	 code_create(struct alxs_sess *, int role, const char *invite,
	    int64_t wait_s, const char *how);
/* Say why alxs_code_receive() failed; returns the exit status. */
int	 code_receive_fail(int r, int gone, int64_t answer_s);

/* client-show.c */
/*
 * Print an item (human or JSON); save its file into dir when not NULL. An
 * item whose meta or file does not open (bad_ciphertext) is passed over
 * with a warning naming its author, and 0 returned.
 */
int	 item_show(struct alxs_sess *, const struct alx_view_event *,
	    const char *savedir, const char *event);
/* Warn (and with --json print) that an item was passed over, and why. */
void	 item_passed_over(struct alxs_sess *, const struct alx_view_event *,
	    int why, const char *what);
/* The same for an item the view refused (ALX_EV_REFUSED). */
void	 item_refused(struct alxs_sess *, const struct alx_view_event *);

/* client-target.c */
int	 item_targets(struct alxs_sess *, struct alxs_item_post *);

/* client-identity.c: the user's lasting owner key (airlox identity) */
int	 identity_path(char *, size_t);
/* 0, ALX_ERR_NOT_FOUND (none made yet), ALX_ERR_FORBIDDEN (not 0600). */
int	 identity_load(struct alx_signkey *);
/* Make and keep a new one; ALX_ERR_EXISTS when there is one already. */
int	 identity_create(struct alx_signkey *);

/* client-concern.c */
struct concern_opts {
	int		 from_set;
	int		 from_owner;
	int		 from_fp_set;
	uint8_t		 from_fp[ALX_FP_LEN];
	char		 from_name[ALX_DISPLAY_MAX + 1];
	int64_t		 max_hops;
};
/* 1 when the item concerns this participant (client-concern.c). */
int	 concern_item(const struct alxs_sess *, const struct concern_opts *,
	    const struct alx_view_event *);
int	 concern_from(struct alxs_sess *, const char *, struct concern_opts *,
	    char **cause);

/* client-exec.c */
/* Run argv in its own process group with env (NAME=value, NULL-ended)
 * added; kill the group after timeout_s. *status: exit status, or 128 +
 * signal; returns ALX_ERR_EXPIRED on a timeout. */
int	 exec_run(char *const *argv, char *const *env, int64_t timeout_s,
	    int *status);
/* Set by SIGINT/SIGTERM while exec_run waits or listen polls. */
extern volatile int	exec_interrupted;
void	 exec_signals(void);

/* The commands. */
extern const struct cmd_entry	cmd_session_create_entry;
extern const struct cmd_entry	cmd_session_show_entry;
extern const struct cmd_entry	cmd_session_close_entry;
extern const struct cmd_entry	cmd_session_revoke_entry;
extern const struct cmd_entry	cmd_session_rotate_entry;
extern const struct cmd_entry	cmd_session_code_entry;
extern const struct cmd_entry	cmd_receive_entry;
extern const struct cmd_entry	cmd_send_text_entry;
extern const struct cmd_entry	cmd_send_file_entry;
extern const struct cmd_entry	cmd_read_entry;
extern const struct cmd_entry	cmd_watch_entry;
extern const struct cmd_entry	cmd_listen_entry;
extern const struct cmd_entry	cmd_delivery_entry;
extern const struct cmd_entry	cmd_session_approve_entry;
extern const struct cmd_entry	cmd_run_entry;
extern const struct cmd_entry	cmd_machine_add_entry;
extern const struct cmd_entry	cmd_machine_ls_entry;
extern const struct cmd_entry	cmd_machine_approve_entry;
extern const struct cmd_entry	cmd_machine_invite_entry;
extern const struct cmd_entry	cmd_machine_rm_entry;
extern const struct cmd_entry	cmd_machine_denied_entry;
extern const struct cmd_entry	cmd_runner_join_entry;
extern const struct cmd_entry	cmd_runner_serve_entry;
extern const struct cmd_entry	cmd_runner_verify_entry;
extern const struct cmd_entry	cmd_runner_install_entry;
/*
 * cmd-runner.c: the runner commands' options are airlox-runnerd's own,
 * from its table (common/util/runopt.c): cmd_runner_opts() copies the
 * rows with a RUNOPT_* flag into out (with extra after them, NULL-
 * terminated), with the runner's help and default. Called once at start:
 * cmd_runner_init() and cmd_runner_install_init() fill their commands'.
 */
struct runopt;
size_t	cmd_runner_opts(int flag, const struct cmd_opt *extra,
	    struct cmd_opt *out, size_t max);
void	cmd_runner_init(void);
void	cmd_runner_install_init(void);
extern const struct cmd_entry	cmd_result_entry;
extern const struct cmd_entry	cmd_job_ls_entry;
extern const struct cmd_entry	cmd_job_logs_entry;
extern const struct cmd_entry	cmd_job_cancel_entry;
extern const struct cmd_entry	cmd_help_entry;
extern const struct cmd_entry	cmd_identity_entry;

#endif /* CLIENT_H */
