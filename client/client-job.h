/*
 * client-job.h: jobs from the sender's side (client-job.c) and the
 * commands built on them.
 */
#ifndef CLIENT_JOB_H
#define CLIENT_JOB_H

#include "client.h"

/* Reserved exit codes of "airlox run" (airlox(1)); --json tells them apart
 * from a job's own exit code exactly. */
#define RUN_EXIT_REFUSED	120
#define RUN_EXIT_CANCELLED	121
#define RUN_EXIT_LOST		122
#define RUN_EXIT_KILLED		123	/* killed_oom, killed_disk */
#define RUN_EXIT_TIMEOUT	124
#define RUN_EXIT_ERROR		125

struct job_target {
	int	 is_label;
	char	 name[ALX_NAME_MAX + 1];
	int64_t	 wait_s;	/* not_after = now + wait_s */
};
struct job_posted {
	uint8_t	 id[ALX_ID_LEN];
	uint8_t	 hash[ALX_HASH_LEN];
	int64_t	 not_after;
	char	*message;	/* the relay's refusal, if any */
};
/* client-jobout.c: a job's output from its progress items. */
struct jobout {
	char			 idtxt[ALX_FP_STRLEN + 1];
	int			 print;		/* as it comes */
	int			 json;		/* as --json "output" events */
	int			 tty[ALX_OUT_STREAMS];
	int			 has_runner;
	uint8_t			 runner[ALX_FP_LEN];	/* its runner's fp */
	int			 warned_other;
	int64_t			 nprog;		/* progress items taken */
	uint8_t			 last[ALX_HASH_LEN];
	int64_t			 size[ALX_OUT_STREAMS];
	struct alx_sha256_ctx	 sha[ALX_OUT_STREAMS];
	uint8_t			 held[ALX_OUT_STREAMS][4];	/* a cut char */
	size_t			 nheld[ALX_OUT_STREAMS];
	struct alx_buf		 keep[ALX_OUT_STREAMS];	/* --json's result */
	int			 cut_keep[ALX_OUT_STREAMS];
	char			*pend_raw;	/* a progress item to retry */
	size_t			 pend_len;
	uint8_t			 pend_pk[ALX_SIGN_PK_LEN];
	int64_t			 pend_done;	/* its bytes taken already */
	int			 pend_tries;
};
void	jobout_init(struct jobout *, const char *idtxt, int print, int json);
void	jobout_free(struct jobout *);
/* A progress item replying to the job: its output, after every check. */
int	jobout_progress(struct jobout *, struct alxs_sess *,
	    const struct alx_view_event *);
/* A progress item whose chunks a passing error kept back: again. */
int	jobout_pending(const struct jobout *);
int	jobout_retry(struct jobout *, struct alxs_sess *);
/* The relay is away or busy, or the item is still coming: try again. */
int	jobout_transient(int err);
/* Everything held back is printed. */
void	jobout_flush(struct jobout *);
/* The result binds what came (0), or ALX_ERR_BAD_HASH. */
int	jobout_check(struct jobout *, const struct alx_resultmeta *,
	    const uint8_t author[ALX_FP_LEN]);

struct job_outcome {
	struct alx_resultmeta	rm;
	uint8_t			result_id[ALX_ID_LEN];
	char			runner[ALX_DISPLAY_MAX + 1];
	struct jobout		out;		/* what came of its output */
	int			unclaimed;	/* expired: no runner took it */
	char			*result_raw;	/* the result item (--save) */
	size_t			result_len;
	uint8_t			result_pk[ALX_SIGN_PK_LEN];	/* its signer */
};

/* Seal, wrap, sign and post a job; ALX_ERR_NOT_FOUND: no runner to wrap to. */
int	job_post(struct alxs_sess *, const struct job_target *,
    const char *meta,
	    size_t metalen, int fd, int64_t size, const uint8_t *kjob,
	    struct job_posted *);
/*
 * Follow the job's progress (its output printed as it comes when print) to
 * its verified result, which must bind the output that came; hash NULL:
 * the job's hash as the session's log has it. The outcome's jobout is
 * the caller's to free (job_outcome_free).
 */
int	job_wait(struct alxs_sess *, const uint8_t id[ALX_ID_LEN],
	    const uint8_t hash[ALX_HASH_LEN], int64_t timeout_s, int print,
	    struct job_outcome *);
void	job_outcome_free(struct job_outcome *);
/*
 * client-save.c: save the files of a verified result in dir (run --save,
 * result --save); *refused counts files not written (hostile names,
 * entries the result does not list). 0, or an error.
 */
int	job_save(struct alxs_sess *, const struct job_outcome *,
    const char *dir,
	    int *refused);
/*
 * The verified result: its output's start (the runner's own words), the
 * footer, what was dropped, the env line, and (unless saving) the files.
 */
void	run_print_result(const struct job_outcome *, const char *idtxt,
	    int saving);
/* The exit status for a result: the job's, or a reserved code. */
int	run_exit_code(const struct alx_resultmeta *);
/* --save DIR: check it first; then save, returning code or a failure's. */
int	run_save_dir(const char *dir);
int	run_save(struct alxs_sess *, const struct job_outcome *,
    const char *dir,
	    int code);

/* cmd-session-approve.c */
int	session_approve(struct alxs_sess *, const struct alx_view_member *,
	    const char *name, const char *const *labels, size_t nlabels,
	    int remove, int64_t *ver);
/* cmd-session-create.c */
int	session_create_quiet(struct client_ctx *, char *invites[ALX_ROLE_COUNT]);

/* client-machine.c */
int	machine_dir(char *, size_t, const char *name);
int	machine_write(const char *name, const char *file, const char *text);
int	machine_read(const char *name, const char *file, char **text);
int	machine_exists(const char *name);
int	machine_list(char ***names, size_t *n);
void	machine_list_free(char **, size_t);
int	machine_remove(const char *name);
void	machine_resolve_invite(struct client_ctx *);
int	machine_unknown(const char *on);

/* client-verify.c: a runner's verify report, read before approving it */
#define VERIFY_REPORT_WAIT	120	/* s, for a runner that just joined */
struct verify_report {
	uint8_t	 fp[ALX_FP_LEN];	/* the runner's key */
	int64_t	 pass, fail, skip;
	char	 fails[2048];		/* "name: reason\n" per FAIL */
};
struct verify_reports {
	struct verify_report	*v;
	size_t			 n;
};
/* A alxs_sess_cb: keeps the latest verify report of each runner key. */
int	verify_reports_event(struct alxs_sess *, const struct alx_view_event *,
	    void *reports);
const struct verify_report *verify_reports_find(const struct verify_reports *,
	    const uint8_t *fp);
const struct verify_report *verify_report_await(struct alxs_sess *,
	    struct verify_reports *, const uint8_t *fp, int wait_s);
int	verify_report_gate(struct client_ctx *, const char *name,
	    const struct verify_report *);
void	verify_reports_free(struct verify_reports *);

#endif /* CLIENT_JOB_H */
