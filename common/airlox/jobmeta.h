/*
 * airlox/jobmeta.h: the sealed meta of jobs, results and progress items
 * (protocol.md section 8). These are read only after the item's signature,
 * chain and AEAD tag verified; they are still checked strictly, since a
 * participant may be hostile.
 */
#ifndef AIRLOX_JOBMETA_H
#define AIRLOX_JOBMETA_H

#include <stddef.h>
#include <stdint.h>

#include "airlox/crypto.h"
#include "airlox/proto.h"

#define ALX_JOB_CMD_MAX		(32 * 1024)	/* cmd; argv's words in all */
#define ALX_JOB_ARGV_MAX	1024		/* words of argv */
#define ALX_JOB_PATH_MAX	1024
#define ALX_JOB_MAX_INPUTS	64
#define ALX_JOB_MAX_REQS	64
#define ALX_RESULT_TEXT_MAX	(24 * 1024)	/* stdout / stderr kept in meta */
#define ALX_RESULT_MAX_FILES	256
#define ALX_REASON_MAX		31

/*
 * A file sent with the job (airlox run --input), as an item of kind input
 * posted before it and sealed with a key from the job's (alx_item_key_input):
 * the runner places it, read-only, at $AIRLOX_IN/name.
 */
struct alx_job_input {
	uint8_t	 id[ALX_ID_LEN];
	char	*name;		/* a file name: no '/', not . or .. */
	int64_t	 size;
};

struct alx_jobmeta {
	unsigned	  kind;		/* one ALX_JOBKIND_* bit */
	char		 *cmd;		/* shell: a line for /bin/sh -c */
	char		**argv;		/* shell: or the words, run as given */
	size_t		  argc;
	char		 *file;		/* python: the payload's file name */
	char		 *cwd;		/* relative to the workspace, "" root */
	struct alx_job_input *inputs;
	size_t		  ninputs;
	int		  fresh;
	int64_t		  timeout_s;	/* 0: the session's */
	int64_t		  memory_mb;	/* 0: the session's */
	int		  net_mode;
	char		**reqs;		/* package names */
	size_t		  nreqs;
	char		 *tree;		/* raw JSON of the tree description */
};
void	alx_jobmeta_free(struct alx_jobmeta *);
int	alx_jobmeta_encode(const struct alx_jobmeta *, char **json, size_t *);
int	alx_jobmeta_decode(struct alx_jobmeta *, const char *json, size_t);
/* A relative path that stays inside its root: no "..", no leading '/'. */
int	alx_relpath_valid(const char *);
/* An input's name: a valid relative path of one component. */
int	alx_input_name_valid(const char *);

struct alx_result_file {
	char	*name;
	int64_t	 size;
};

/*
 * A job's whole output (section 8.3). It travels in the job's progress
 * items, each carrying the next stretch of stdout and of stderr as its
 * payload; the result binds them: how many progress items, the hash of the
 * last, and for each stream its size, SHA-256 and the bytes the job wrote
 * that did not come back (dropped, because of `cut`: a limit's error name,
 * such as too_large).
 */
enum { ALX_OUT_STDOUT = 0, ALX_OUT_STDERR, ALX_OUT_STREAMS };
struct alx_result_stream {
	int64_t	 size;
	uint8_t	 sha256[ALX_HASH_LEN];
	int64_t	 dropped;
};
struct alx_result_output {
	int			 has;		/* the member is there */
	int64_t			 progress;	/* progress items, 1..n */
	uint8_t			 last[ALX_HASH_LEN];	/* hash() of the last */
	struct alx_result_stream s[ALX_OUT_STREAMS];
	char			 cut[ALX_REASON_MAX + 1]; /* "" or why */
};
struct alx_resultmeta {
	uint8_t			 job[ALX_ID_LEN];
	uint8_t			 job_hash[ALX_HASH_LEN];
	int			 status;	/* ALX_JOB_* */
	char			 reason[ALX_REASON_MAX + 1];	/* refused */
	int			 has_exit;
	int64_t			 exit_code;
	int64_t			 signal;
	char			*out;	/* the runner's words, not the */
	char			*err;	/* job's output (output): "" or text */
	int			 out_truncated;
	int			 err_truncated;
	struct alx_result_output output;
	int64_t			 duration_ms;
	int64_t			 peak_memory;	/* bytes; -1 unknown */
	struct alx_result_file	*files;
	size_t			 nfiles;
	char			*env;		/* raw JSON object */
	int64_t			 denied;
};
void	alx_resultmeta_free(struct alx_resultmeta *);
int	alx_resultmeta_encode(const struct alx_resultmeta *, char **json,
	    size_t *);
int	alx_resultmeta_decode(struct alx_resultmeta *, const char *json,
	    size_t);
/* The result binds this job: id and hash of its signed object. */
int	alx_resultmeta_check_job(const struct alx_resultmeta *,
	    const uint8_t id[ALX_ID_LEN], const uint8_t hash[ALX_HASH_LEN]);

/*
 * A progress item: the next stretch of the job's output, its payload: size
 * (out) bytes of stdout, then size (err) bytes of stderr. seq counts a
 * job's progress items from 1.
 */
struct alx_progressmeta {
	uint8_t	 job[ALX_ID_LEN];
	int64_t	 seq;
	int64_t	 size[ALX_OUT_STREAMS];
};
void	alx_progressmeta_free(struct alx_progressmeta *);
int	alx_progressmeta_encode(const struct alx_progressmeta *, char **json,
	    size_t *);
int	alx_progressmeta_decode(struct alx_progressmeta *, const char *json,
	    size_t);

/*
 * Text for a JSON string from arbitrary bytes (a job's output): each byte
 * that does not start a valid UTF-8 sequence, and NUL, becomes U+FFFD.
 */
char	*alx_utf8_sanitize(const char *, size_t, size_t *outlen);

#endif /* AIRLOX_JOBMETA_H */
