/*
 * runner-loop.h: the running daemon's state (runner-loop.c, runnerd.c).
 * Separate from runnerd.h because it needs the client's session API.
 */
#ifndef ALX_RUNNER_LOOP_H
#define ALX_RUNNER_LOOP_H

#include <signal.h>

#include "client.h"
#include "runnerd.h"

struct runner_slot {
	int			 used;
	struct runner_job	 job;
	struct alx_buf		 pout;		/* output not yet posted */
	struct alx_buf		 perr;
	int			 progress_cut;
	int64_t			 last_progress;	/* ms */
	int64_t			 pseq;
	int			 return_out;
	int64_t			 item_max;
	char			 author_name[ALX_DISPLAY_MAX + 1];
	struct runner_tree	*tree;		/* tree: its sender's workspace */
};

struct runner {
	struct client_ctx		 ctx;
	struct csession			 cs;
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
	int				 replaying;	/* catching up */
	char				 statedir[PATH_MAX];
	char				 workroot[PATH_MAX];
};

extern volatile sig_atomic_t	runner_stop;

int	runner_announce(struct runner *);
int	runner_run(struct runner *);
int	runner_post_verify(struct runner *);

#endif /* ALX_RUNNER_LOOP_H */
