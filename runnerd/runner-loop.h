/*
 * runner-loop.h: the running daemon's state (runner-loop.c, runnerd.c).
 * Separate from runnerd.h because it needs the relay client library
 * (session/alxs.h).
 */
#ifndef ALX_RUNNER_LOOP_H
#define ALX_RUNNER_LOOP_H

#include <signal.h>

#include "alxs.h"
#include "runnerd.h"
#include "runner-python.h"

/*
 * A slot runs one job (RUNNING), then, once the job ended, posts what is
 * left of its output and its result (DRAINING): a relay that is away
 * holds the slot until it is back, as the relay counts the slot taken
 * until the result.
 */
enum runner_slot_state {
	SLOT_RUNNING = 0,
	SLOT_DRAINING
};
struct runner_slot {
	int			 used;
	int			 state;
	struct runner_job	 job;
	struct runner_output	 output;	/* its stdout and stderr */
	struct runner_piece	 pc;		/* the piece being posted */
	struct alxs_item_sealed	 piece;		/* its progress item */
	int			 has_piece;
	int64_t			 last_progress;	/* ms */
	int64_t			 next_try;	/* ms: after a failed post */
	int			 waiting;	/* said the relay is away */
	int			 return_out;
	int64_t			 item_max;
	char			 author_name[ALX_DISPLAY_MAX + 1];
	struct runner_tree	*tree;		/* tree: its sender's workspace */
	/* DRAINING: the result, but for its output's binding. */
	struct alx_resultmeta	 rm;
	struct runner_out	 files;
	uint64_t		 denied;
	int			 status;	/* ALX_JOB_*, for the audit */
};

/*
 * A job to decide later: a label job seen while every slot was taken (it
 * waits at the relay for any free runner of the label, and this one
 * claims it when a slot frees, unless another runner did first), or a job
 * met while catching up on the log after a start (admitted only against
 * the current manifest: its author may have been revoked since). Our own
 * copy of the signed object, verified when it arrived, opened again with
 * its author's key then.
 */
struct runner_deferred {
	char			*raw;
	size_t			 len;
	uint8_t			 author[ALX_FP_LEN];
	int64_t			 not_after;
};
#define RUNNER_DEFER_MAX	256	/* oldest dropped past this */
#define RUNNER_ANNOUNCE_S	30	/* the relay counts a runner online
					 * for 90 s after its announcement */

struct runner {
	struct alxs_conf		 conf;		/* the relay client's */
	struct alxs_sess			 cs;
	struct runner_ident		 me;
	struct runner_seen		*seen;
	struct runner_audit		 audit;
	const struct sandbox_backend	*be;
	struct runner_egress		*egress;
	int				 network;	/* --network */
	const char			**env_allow;	/* NULL-ended */
	const char			*shim;
	struct runner_slot		*slots;
	int				 nslots;
	int				 grace_s;
	int				 approved;
	int				 stopping;
	int				 ended;		/* the session is over */
	int				 replaying;	/* catching up */
	char				 statedir[PATH_MAX];
	char				 storedir[PATH_MAX];	/* its keys */
	char				 workroot[PATH_MAX];
	/* The session's Python: made by runner_python_sync(), or
	 * filled by the docker backend; in every result's env. */
	struct runner_pyenv		 py;
	struct runner_pyopts		 pyopts;
	char				 cachedir[PATH_MAX];
	struct runner_deferred		 defer[RUNNER_DEFER_MAX];
	size_t				 ndefer;
	int64_t				 last_announce;	/* ms */
};

extern volatile sig_atomic_t	runner_stop;

int	runner_announce(struct runner *);
int	runner_run(struct runner *);
/* Log the limits the session's jobs run with, as the sandbox enforces them. */
void	runner_log_limits(struct runner *);
void	runner_defer_free(struct runner *);
int	runner_post_verify(struct runner *);
/* The session ended (closed, expired, gone): say why once, and stop. */
void	runner_session_ended(struct runner *, const char *why);
/*
 * Make the Python runtime the session's current limits ask for, when they
 * changed (local and process sandboxes). ALX_OK, or prepare's error with
 * *cause (malloc'd); on an error the session's python jobs are refused.
 */
int	runner_python_sync(struct runner *, char **cause);

#endif /* ALX_RUNNER_LOOP_H */
