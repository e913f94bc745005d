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
/* A size for people: "25 MiB", "1 GiB", "1.5 MiB (1572865 bytes)". */
void	 out_size(char *, size_t, int64_t);
/* A role with its article, for messages: "an observer", "a sender". */
const char *out_a_role(int role);
/*
 * Words as a POSIX shell reads them back: bare when safe, else in single
 * quotes, or as $'...' (bash, zsh, ksh) when a word holds a control
 * character, which is then escaped. Appended to b, separated by spaces.
 */
int	 out_argv_quote(struct alx_buf *b, char *const *argv, size_t n);

/* alxs_http.c */
struct http_conn {
	void			*curl;		/* CURL * */
	char			 base[320];	/* scheme://host[:port] */
	char			 authority[300];/* lower(host[:port]) */
	const struct alx_signkey *key;		/* signs requests when set */
	int64_t			 skew;		/* server clock - ours */
	const char		*ca_file;
	const char		*extra_header;	/* "Name: value" or NULL */
	int			 max_tries;
	long			 stall_s;	/* silence that ends a request */
};
struct http_resp {
	long		 status;
	struct alx_buf	 body;
	int		 err;		/* mapped error, 0 for 2xx */
	char		*message;	/* server's message, or NULL */
};
int	 http_check_url(const char *url, const char *insecure_host,
	    char **cause);
int	 http_open(struct http_conn *, const char *base,
	    const struct client_ctx *, char **cause);
void	 http_close(struct http_conn *);
void	 http_resp_free(struct http_resp *);
/*
 * One request with retries on transient failures; path includes the query.
 * sign: add the Authorization header (hc->key). Returns 0 for 2xx (204
 * included, resp->status tells), else the error (also in resp->err).
 */
int	 http_request(struct http_conn *, const char *method, const char *path,
	    const void *body, size_t len, const char *ctype, int sign,
	    size_t maxresp, struct http_resp *);
int	 http_auth_header(struct http_conn *, const char *method,
	    const char *path, const void *body, size_t len, char *out,
	    size_t outlen);
int64_t	 http_now(const struct http_conn *);
/* Common settings (TLS, CA, protocols, timeouts) on a curl handle. */
void	 http_tls_setup(struct http_conn *, void *curl);
int	 http_curl_err(int curlcode);
/*
 * A request on curl handle c ended with curl code cc before any HTTP reply
 * (or stalled stall_s seconds in one): remember what went wrong, in words
 * that name the host and the next step, for out_fail(), and return the
 * error code. The words are kept until the next request starts.
 */
int	 http_net_failed(struct http_conn *, void *curl, int cc,
	    long stall_s, const char *detail);
/* The same for a reply that made no sense (a broken event stream). */
int	 http_net_note(int err, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* "host:port" of the relay, the port filled in from the scheme. */
void	 http_where(const struct http_conn *, char *, size_t);
/* Those words when err is the error they explain, else NULL. */
const char *http_net_cause(int err);
void	 http_net_clear(void);

/* alxs_sse.c */
/* Called per event; return 0 to go on, 1 to stop, negative on error. */
typedef int (*sse_cb)(const char *type, int64_t id, const char *data,
    size_t len, void *arg);
/*
 * Read the stream at path, resuming after *last_id (updated as events
 * arrive), until cb says stop, an error, or timeout_ms (0: none).
 */
int	 sse_run(struct http_conn *, const char *path, int64_t *last_id,
	    int64_t timeout_ms, sse_cb, void *arg);

/* alxs_store.c */
struct cache_entry {
	char			 path[1024];	/* the entry's file */
	struct alx_signkey	 sk;
	struct alx_kxkey	 kx;
	char			 name[ALX_DISPLAY_MAX + 1];
	int			 kind;
	int64_t			 joined;	/* join cursor, 0: not joined */
	int64_t			 listen;	/* listen --once resume cursor */
	int			 has_chain;	/* own chain known: */
	int64_t			 seq;		/* last item's seq (0: none) */
	uint8_t			 hash[ALX_HASH_LEN];	/* and hash */
};
/* The airlox folder under $var, else ~/sub (XDG): made 0700. */
int	 cache_xdg_dir(char *, size_t, const char *var, const char *sub);
int	 cache_dir(char *, size_t);
int	 cache_load(struct cache_entry *, const struct alx_invite *,
	    const char *name, int kind, int *created);
int	 cache_save(const struct cache_entry *);
int	 cache_note(const struct cache_entry *);
void	 cache_wipe(struct cache_entry *);
int	 cache_mkdir(const char *);
int	 cache_mkdirs(const char *);
int	 cache_write_file(const char *, const void *, size_t);
/* The same, for a file never replaced: ALX_ERR_EXISTS when it is there. */
int	 cache_write_new(const char *, const void *, size_t);
int	 cache_read_file(const char *, struct alx_buf *);
int	 cache_invite_store(const uint8_t sid[ALX_SID_LEN], int role,
	    const char *link);
int	 cache_invite_load(const uint8_t sid[ALX_SID_LEN], int role,
	    char **link);
int	 cache_invite_update(const uint8_t sid[ALX_SID_LEN], int role,
	    const char *link);
/* sessions/<sid>/manifest: the newest manifest verified on this machine. */
int	 cache_seen_load(const uint8_t sid[ALX_SID_LEN],
	    struct alx_view_seen *);
/* Keep seen unless what is kept is as new already. */
int	 cache_seen_save(const uint8_t sid[ALX_SID_LEN],
	    const struct alx_view_seen *);

/* client-identity.c: the user's lasting owner key (airlox identity) */
int	 identity_path(char *, size_t);
/* 0, ALX_ERR_NOT_FOUND (none made yet), ALX_ERR_FORBIDDEN (not 0600). */
int	 identity_load(struct alx_signkey *);
/* Make and keep a new one; ALX_ERR_EXISTS when there is one already. */
int	 identity_create(struct alx_signkey *);

/* alxs_session.c */
struct csession {
	struct client_ctx	*ctx;
	struct alx_invite	 inv;
	char			 sidstr[ALX_FP_STRLEN + 1];
	struct http_conn	 http;
	struct alx_view		 view;
	int			 have_view;
	struct cache_entry	 me;
	int			 have_me;
	int64_t			 head;		/* newest cursor seen */
	int64_t			 relay_expires;	/* the relay's end for it:
						   0 never, -1 unknown */
	int			 bad_event;	/* the view refused an event */
	int			 passed_over;	/* items a reader passed over */
	int			 passed_why;	/* the last one's reason */
	int64_t			 chunk_wait;	/* s to wait for a chunk: 10 */
	struct alx_view_seen	 seen;		/* as kept in the cache */
	/* what the log said about items (for replies, hops, receipts) */
	struct csess_item	*items;
	size_t			 nitems;
	size_t			 itemcap;
};
struct csess_item {
	uint8_t	 id[ALX_ID_LEN];
	uint8_t	 author[ALX_FP_LEN];
	int	 has_reply;
	uint8_t	 reply_to[ALX_ID_LEN];
	int	 author_kind;		/* ALX_PKIND_* */
	int	 author_role;
	int	 complete;
	int64_t	 size;
	int64_t	 cursor;
	char	 kind[ALX_KIND_MAX + 1];
};
/* Called for every event applied to the view. */
typedef int (*csess_cb)(struct csession *, const struct alx_view_event *,
    void *);
#define CS_JOIN		0x1	/* join as a participant when not joined */
int	 csess_open(struct csession *, struct client_ctx *, int flags);
void	 csess_close(struct csession *);
int	 csess_join(struct csession *);
/* Apply the log after the view's cursor (long-poll up to wait_s). */
int	 csess_poll(struct csession *, int wait_s, csess_cb, void *);
/* Replay everything there is now. */
int	 csess_replay(struct csession *, csess_cb, void *);
/* GET /participants, parsed: *arr its array, *n entries (free *jp). */
int	 csess_participants(struct csession *, struct alx_json **jp, int *arr,
	    int *n);
/* An entry's certificate ({"cert":obj} or the bare certificate). */
int	 csess_participant_cert(const struct alx_json *, int entry);
/* Follow the stream (SSE) until cb returns 1 or timeout. */
int	 csess_stream(struct csession *, int64_t timeout_ms, csess_cb,
	    void *);
int	 csess_put_manifest(struct csession *, struct alx_manifest *);
/*
 * Report a failure of reading the log: when the view refused an event,
 * the relay served something that does not verify (exit status 6);
 * otherwise `what` failed. Returns the exit code.
 */
int	 csess_fail(struct csession *, int err, const char *what);
const struct csess_item *csess_item(const struct csession *,
	    const uint8_t id[ALX_ID_LEN]);
int	 csess_path(const struct csession *, char *, size_t, const char *,
	    ...) __attribute__((format(printf, 4, 5)));
int	 csess_is_owner(const struct csession *);
const char *csess_member_name(const struct csession *,
	    const uint8_t fp[ALX_FP_LEN]);
/* Resolve NAME, FINGERPRINT or "owner" to a member's fp. */
int	 csess_resolve(const struct csession *, const char *,
	    uint8_t fp[ALX_FP_LEN], char **cause);
int	 csess_members(const struct csession *, struct alx_member **,
	    size_t *);
int	 csess_invite(const struct csession *, int role,
	    const uint8_t seed[ALX_SEED_LEN], char **link);
int	 csess_rekey(struct csession *, const uint8_t *fp, int role,
	    uint8_t new_seed[ALX_SEED_LEN], int64_t *ver);
/* The owner's keys and current epoch key, from the owner invite. */
int	 csess_owner_update(struct csession *, struct alx_manifest *next,
	    struct alx_signkey *owner);

/* alxs_item.c */
struct item_post {
	const char	*kind;
	const char	*meta;
	size_t		 metalen;
	int		 fd;		/* payload, -1 for none */
	int64_t		 size;
	uint8_t		(*to)[ALX_FP_LEN];
	size_t		 nto;
	int		 has_reply;
	uint8_t		 reply_to[ALX_ID_LEN];
	/*
	 * A reply to a job (result, progress, report), or a file for a job
	 * (input): the job's key, which seals it to the job's readers
	 * (alx_item_key_reply, alx_item_key_input); NULL for an item every
	 * member reads (the epoch key).
	 */
	const uint8_t	*job_key;
	uint8_t		 id[ALX_ID_LEN];	/* out */
	uint8_t		 hash[ALX_HASH_LEN];	/* out: the item's hash() */
	int64_t		 cursor;		/* out */
};
int	 item_post(struct csession *, struct item_post *, char **cause);
/*
 * item_post in two steps, for a poster that retries: item_seal() seals
 * and signs the item (its payload read from p->fd, which must stay open
 * and unchanged), item_put() posts it and may be called again after a
 * failure: it posts the envelope once (chained again if the author posted
 * meanwhile), then the chunks the relay does not hold yet.
 */
struct item_sealed {
	struct alx_item	 it;
	uint8_t		 kitem[ALX_KEY_LEN];
	int		 fd;
	int		 posted;	/* the relay holds the envelope */
	int64_t		 cursor;
};
int	 item_seal(struct csession *, const struct item_post *,
	    struct item_sealed *, char **cause);
int	 item_put(struct csession *, struct item_sealed *, char **cause);
void	 item_sealed_free(struct item_sealed *);
/*
 * The parts of item_post for other item kinds (jobs): seal every chunk of
 * fd to fill it->chunks (pt: ALX_CHUNK_SIZE bytes, ct: ALX_CHUNK_CT_MAX
 * bytes of scratch), upload them after the envelope, and note an item
 * posted by this participant as the last of its chain (kept in the cache
 * so the next post needs no lookup).
 */
int	 item_hash_chunks(struct alx_item *, const uint8_t kitem[ALX_KEY_LEN],
	    int fd, uint8_t *pt, uint8_t *ct);
int	 item_upload_chunks(struct csession *, const struct alx_item *,
	    const uint8_t kitem[ALX_KEY_LEN], int fd, uint8_t *pt, uint8_t *ct,
	    char **cause);
void	 item_note_chain(struct csession *, const struct alx_item *);
/* Open an item's meta for this participant (verified event item). */
int	 item_meta(struct csession *, const struct alx_item *, char **meta,
	    size_t *len);
/*
 * Fetch and open the payload into dir (never overwriting: a new name is
 * chosen), chunk by chunk, each authenticated before it is written.
 */
/*
 * Fetch an item's chunks in order (waiting for one still being uploaded,
 * up to chunk_wait), check each against the envelope and open it, and
 * hand its plaintext to cb (at payload offset off) before the next is
 * fetched: one chunk in memory at a time. cb returns 0 to go on.
 */
int	 item_read_chunks(struct csession *, const struct alx_item *,
	    int (*cb)(void *, const uint8_t *, size_t, int64_t), void *arg);
/* item_read_chunks' callback that writes all to the fd *arg points to. */
int	 item_chunk_to_fd(void *arg, const uint8_t *pt, size_t len,
	    int64_t off);
/* The same with the item's key given (an item the view cannot open). */
int	 item_read_chunks_key(struct csession *, const struct alx_item *,
	    const uint8_t kitem[ALX_KEY_LEN],
	    int (*cb)(void *, const uint8_t *, size_t, int64_t), void *arg);
int	 item_save(struct csession *, const struct alx_item *,
	    const char *dir, const char *name, char **saved, char **cause);
/*
 * Print an item (human or JSON); save its file into dir when not NULL. An
 * item whose meta or file does not open (bad_ciphertext) is passed over
 * with a warning naming its author, and 0 returned.
 */
int	 item_show(struct csession *, const struct alx_view_event *,
	    const char *savedir, const char *event);
/* Warn (and with --json print) that an item was passed over, and why. */
void	 item_passed_over(struct csession *, const struct alx_view_event *,
	    int why, const char *what);
/* The same for an item the view refused (ALX_EV_REFUSED). */
void	 item_refused(struct csession *, const struct alx_view_event *);
int	 item_wait_complete(struct csession *, const uint8_t id[ALX_ID_LEN],
	    int64_t timeout_ms);
int	 item_targets(struct csession *, struct item_post *);
int	 item_send(struct csession *, struct item_post *);
const char *item_file_type(const char *path, const uint8_t *head,
	    size_t n, const char **mime);

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
int	 concern_item(const struct csession *, const struct concern_opts *,
	    const struct alx_view_event *);
int	 concern_from(struct csession *, const char *, struct concern_opts *,
	    char **cause);

/* alxs_code.c */
/*
 * how: the command to run on the other machine, %s for the code and %r for
 * the relay's URL (NULL: airlox receive with --relay).
 */
int	 code_create(struct csession *, int role, const char *invite,
	    int64_t wait_s, const char *how);
#define CODE_ANSWER_S	60	/* receive: wait for each of the creator's */
int	 code_receive(struct client_ctx *, const char *code, int64_t answer_s,
	    char **invite, int *gone);
/* Say why code_receive() failed; returns the exit status. */
int	 code_receive_fail(int r, int gone, int64_t answer_s);

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
