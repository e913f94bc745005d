/*
 * runnerd.h: the runner daemon's own modules (the sandbox has sandbox.h).
 */
#ifndef ALX_RUNNERD_H
#define ALX_RUNNERD_H

#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>

#include "airlox.h"
#include "runopt.h"

/* runner-redact.c */
struct redact_rule {
	const char	*from;		/* a host path, or NULL to skip */
	const char	*to;		/* "$WORK", "$AIRLOX_OUT", "~" ... */
};
char	*runner_redact(const char *, size_t, const struct redact_rule *,
	    size_t, size_t *outlen);
/* The same over a stream given in pieces (a job's output). */
struct redact_stream {
	const struct redact_rule *rules;	/* outlive the stream */
	size_t			  n;
	size_t			  maxfrom;	/* the longest rule */
	char			 *carry;	/* not decided yet */
	size_t			  ncarry;
	int			  prev;		/* the byte before, or -1 */
	uint8_t			  first[256];	/* bytes a rule starts with */
	struct alx_buf		  work;
};
int	runner_redact_stream_init(struct redact_stream *,
	    const struct redact_rule *, size_t n);
/* Append to out what can be decided; final: everything left. */
int	runner_redact_stream(struct redact_stream *, const char *in,
	    size_t len, int final, struct alx_buf *out);
void	runner_redact_stream_free(struct redact_stream *);
struct runner_pyenv;
/* Rules (at most max) for the Python runtime's folders: "$RUNTIME". */
size_t	runner_redact_runtime(const struct runner_pyenv *,
	    struct redact_rule *, size_t max);

/* runner-audit.c */
struct runner_audit {
	FILE	*fp;
};
int	runner_audit_open(struct runner_audit *, const char *statedir);
void	runner_audit_close(struct runner_audit *);
/* One line per job decision: who, what, when, outcome; never content. */
void	runner_audit(struct runner_audit *, const uint8_t job[ALX_ID_LEN],
	    const uint8_t author[ALX_FP_LEN], const char *author_name,
	    const char *what, const char *outcome, const char *detail);

/* runner-admit.c */
struct runner_ident {
	const char	 *name;
	uint8_t		  fp[ALX_FP_LEN];
	unsigned	  kinds;	/* ALX_JOBKIND_* this runner runs */
	char		**labels;	/* its own, used when approval is off */
	size_t		  nlabels;
};
/* May this runner take jobs in the current manifest? */
int	runner_is_approved(const struct alx_view *, const struct runner_ident *);
enum runner_verdict {
	RUNNER_RUN = 0,		/* admitted */
	RUNNER_IGNORE,		/* not for this runner: say nothing */
	RUNNER_REFUSE		/* answer with a signed refusal */
};
struct runner_seen;		/* job ids remembered until not_after */
int	runner_seen_open(struct runner_seen **, const char *statedir);
int	runner_seen_has(const struct runner_seen *, const uint8_t id[ALX_ID_LEN]);
int	runner_seen_add(struct runner_seen *, const uint8_t id[ALX_ID_LEN],
	    int64_t not_after);
void	runner_seen_prune(struct runner_seen *, int64_t now);
void	runner_seen_free(struct runner_seen *);
/*
 * Decide about a job item the view accepted: for this runner at all, and
 * if so admitted or refused (reason: a refusal reason, an ALX_ERR_* code
 * alx_refusal_name() names; detail, when not NULL, receives a line for the
 * refusal's text, or ""). On RUNNER_RUN the key and the decoded meta are
 * returned; on RUNNER_REFUSE the key (a refusal is sealed to the job's
 * readers with it). RUNNER_IGNORE with a reason: a job for this runner
 * that was not sealed to it (not_recipient): worth a log line, but no
 * answer is possible.
 */
int	runner_admit(const struct alx_view *, const struct runner_ident *,
	    const struct runner_seen *, const struct alx_item *job,
	    const struct alx_view_member *author, int64_t now,
	    uint8_t kitem[ALX_KEY_LEN], struct alx_jobmeta *meta,
	    int *reason, char *detail, size_t detaillen);

/* runner-config.c: the table is common/util/runopt.c */
int	runner_cfg_parse(struct runner_cfg *, int argc, char **argv,
	    char **cause);
void	runner_cfg_free(struct runner_cfg *);
void	runner_usage(FILE *);

/* runner-state.c */
/* The state dir: created 0700, refused when others can write to it. */
int	runner_state_open(const char *dir, char **cause);
/* Refuse a work root of /, a home, a parent of either, or in statedir. */
int	runner_work_root_check(const char *root, const char *statedir,
	    char **cause);
/* The default state dir of runner name (NULL: the base, for verify). */
int	runner_state_default(char *out, size_t len, const char *name);
/* runner-statedir.c */
/* One runner per state dir: the lock; the first's pid in the refusal. */
int	runner_state_lock(const char *dir, int *fd, char **cause);
/* A session is over: remove its state (all but the lock and cache/). */
int	runner_state_drop(const char *dir, int *nkept);
/* snprintf for paths: ALX_ERR_TOO_LARGE (and "") when it does not fit. */
int	runner_pathf(char *, size_t, const char *, ...)
	    __attribute__((format(printf, 3, 4)));

/* runner-out.c */
struct runner_out {
	struct alx_result_file	*files;
	size_t			 n;
	int64_t			 total;
	int			 fd;		/* the payload, -1 for none */
	int64_t			 size;
	int			 zipped;
};
int	runner_out_collect(struct runner_out *, const char *outdir,
	    const char *zippath, int64_t max);
void	runner_out_free(struct runner_out *);

/* runner-output.c */
#define RUNNER_OUTPUT_RULES	12
struct runner_output {
	int			 open;
	int			 ended;		/* the job's pipes closed */
	int			 closed;	/* the relay takes no more */
	int			 fd[ALX_OUT_STREAMS];	/* spools */
	int			 piece_fd;
	int64_t			 cap;		/* bytes spooled at most */
	int64_t			 last_add;	/* ms: output last came */
	int64_t			 written[ALX_OUT_STREAMS];
	int64_t			 posted[ALX_OUT_STREAMS];
	int64_t			 dropped[ALX_OUT_STREAMS];
	struct alx_sha256_ctx	 sha[ALX_OUT_STREAMS];	/* posted bytes */
	int64_t			 seq;		/* progress items posted */
	uint8_t			 last[ALX_HASH_LEN];
	char			 cut[ALX_REASON_MAX + 1];
	struct redact_rule	 rules[RUNNER_OUTPUT_RULES];
	size_t			 nrules;
	struct redact_stream	 red[ALX_OUT_STREAMS];
	struct alx_buf		 scratch;	/* redacted, to the spool */
};
/* One progress item's worth: its meta, and its payload in fd. */
struct runner_piece {
	struct alx_progressmeta	 pm;
	int			 fd;
	int64_t			 size;
	struct alx_sha256_ctx	 sha[ALX_OUT_STREAMS];	/* if posted */
};
void	runner_output_init(struct runner_output *);
/* Spools in jobdir; at most cap bytes; rules are copied. */
int	runner_output_open(struct runner_output *, const char *jobdir,
	    int64_t cap, const struct redact_rule *, size_t nrules);
void	runner_output_free(struct runner_output *);
/* The sandbox's output callback's work: stream 1 or 2. */
void	runner_output_add(struct runner_output *, int stream, const char *,
	    size_t, int64_t now_ms);
/*
 * Nothing came for a moment: a line still open (no newline yet, held back
 * for the redaction) is let out as it stands.
 */
void	runner_output_idle(struct runner_output *, int64_t now_ms);
/* The job's pipes are closed: the redaction's last bytes. */
void	runner_output_end(struct runner_output *);
/* Bytes spooled and not yet posted. */
int64_t	runner_output_pending(const struct runner_output *);
/* The next piece (at most max bytes); ALX_ERR_NOT_FOUND: nothing to post. */
int	runner_output_piece(struct runner_output *,
	    const uint8_t job[ALX_ID_LEN], int64_t max, struct runner_piece *);
/* The relay took the piece, as the item whose hash() is given. */
void	runner_output_posted(struct runner_output *, struct runner_piece *,
	    const uint8_t hash[ALX_HASH_LEN]);
/* The relay takes no more of it (why: a limit's name): the rest drops. */
void	runner_output_refused(struct runner_output *, const char *why);
/* The result's binding of what was posted. */
void	runner_output_result(struct runner_output *,
	    struct alx_result_output *);

/* runner-conf.c */
/*
 * 1 when v is a value of the setting's kind; in_file: from the
 * configuration file, where a path must be absolute.
 */
int	runner_conf_check(const struct runopt *, const char *v, int in_file);
/* What the setting's kind takes ("a number from 1 to 64"), for a message. */
void	runner_conf_what(const struct runopt *, int in_file, char *buf,
	    size_t len);
/* LOG_LEVEL_* of "warn", "info" or "debug"; -1 for another word. */
int	runner_conf_level(const char *);
typedef int (*runner_conf_set)(void *arg, const char *key, const char *val);
int	runner_conf_parse(const char *path, runner_conf_set, void *arg,
	    char **cause);
int	runner_conf_parse_buf(const char *buf, size_t len, const char *file,
	    runner_conf_set, void *arg, char **cause);
/*
 * The names of an --env-allow list ("A,B"): each 1..RUNNER_ENV_NAME_MAX of
 * A-Z, 0-9 and _, not a digit first; at most RUNNER_ENV_EXTRA_MAX. With
 * names, a NULL-terminated malloc'd array (runner_conf_env_free); *cause
 * says which name is wrong.
 */
#define RUNNER_ENV_NAME_MAX	128
#define RUNNER_ENV_EXTRA_MAX	60	/* besides the four defaults */
int	runner_conf_env_list(const char *list, char ***names, size_t *n,
	    char **cause);
void	runner_conf_env_free(char **names);

/* runner-job.c */
struct sandbox_job;
struct sandbox_backend;
struct sandbox_limits;
struct sandbox_result;
struct runner_pyenv;
struct runner_job {
	uint8_t			 id[ALX_ID_LEN];
	uint8_t			 hash[ALX_HASH_LEN];	/* of the job object */
	uint8_t			 author[ALX_FP_LEN];
	uint8_t			 kitem[ALX_KEY_LEN];
	struct alx_jobmeta	 meta;
	char			 jobdir[PATH_MAX];
	char			 workdir[PATH_MAX];
	char			 outdir[PATH_MAX];
	char			 indir[PATH_MAX];	/* "" or its inputs */
	char			 job_id[ALX_B64_ENCLEN(ALX_ID_LEN) + 1];
	struct sandbox_job	*sb;
	const struct runner_pyenv *py;	/* the session's Python, or NULL */
	void			(*output_cb)(void *, int, const char *,
				    size_t);
	void			*output_arg;
};
int	runner_job_prepare(struct runner_job *, const char *work_root);
struct runner_egress;
struct runner_net {
	struct runner_egress	 *egress;
	int			  mode;		/* ALX_NET_* of the session */
	char *const		 *allow;	/* its allow list */
	size_t			  nallow;
	int			  runner_network; /* started with --network */
	const char *const	 *env_allow;	/* names passed from the runner */
};
int	runner_job_start(struct runner_job *, const struct sandbox_backend *,
	    const struct sandbox_limits *, const char *shim, int slot,
	    const struct runner_net *, char **cause);
int	runner_job_result(struct runner_job *, const struct sandbox_result *,
	    const char *env_json, struct alx_resultmeta *);
int	runner_refusal(const struct alx_item *job, int reason,
	    struct alx_resultmeta *);
void	runner_job_cleanup(struct runner_job *);
/* The redaction rules for a job's text and output (at most max). */
size_t	runner_job_rules(const struct runner_job *, struct redact_rule *,
	    size_t max);

#endif /* ALX_RUNNERD_H */
