/*
 * relay-store-int.h: what the files of the store share and nothing else
 * sees: relay-store.c (the writer thread and the API of relay-store.h),
 * relay-store-guard.c (record tags, faults caught while LMDB reads) and
 * relay-store-check.c (the checks at open, the meta page repair,
 * airlox-relayd --check).
 */
#ifndef RELAY_STORE_INT_H
#define RELAY_STORE_INT_H

#include <sys/types.h>
#include <sys/queue.h>

#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <lmdb.h>

#include "relay-store.h"

TAILQ_HEAD(relay_wopq, relay_wop);

struct relay_promise {
	uint8_t		sid[RELAY_SID_LEN];
	uint64_t	bytes;
};

struct relay_store {
	MDB_env			*env;		/* NULL: the store is unusable */
	MDB_dbi			 dbi[RELAY_DB_COUNT];
	int			 have_dbi[RELAY_DB_COUNT];
	char			*dir;

	/*
	 * Damage, set by either thread, read by both (under mtx): of the
	 * whole store (writes are refused), or of some sessions only (their
	 * writes are).
	 */
	int			 damaged;
	char			 damage_why[256];
#define RELAY_BAD_MAX	256
	uint8_t			 bad[RELAY_BAD_MAX][RELAY_SID_LEN];
	unsigned		 nbad;
	/*
	 * The databases (bit 1 << db) where damage was found: a key not
	 * found there may be a record LMDB's search can no longer reach,
	 * so a miss there is a storage error, never a 404.
	 */
	unsigned		 baddb;

	pthread_t		 thread;
	int			 started;
	pthread_mutex_t		 mtx;
	pthread_cond_t		 cond;
	struct relay_wopq	 queue;		/* loop -> writer */
	struct relay_wopq	 done;		/* writer -> loop */
	unsigned		 inflight;	/* submitted, callback not run */
	size_t			 queued;	/* their bytes */
	unsigned		 nqueue;	/* ops in queue */
	unsigned		 expect;	/* announced, not queued yet */
	int			 gathering;	/* the writer waits for them */
	size_t			 limit;		/* 0: none */
	off_t			 prepared;	/* data file bytes written */
	off_t			 prep_used;	/* LMDB's, at the last top-up */
	off_t			 mapsize;
	time_t			 prep_failed;	/* extension failed: when */
	int			 full;		/* a write refused for space */
	/* Disk space promised (writer thread only; see relay-store.c). */
	uint64_t		 promised;
	struct relay_promise	*promises;
	size_t			 npromises, cappromises;
	int			 stop;
	int			 wake[2];	/* pipe: writer wakes the loop */
	struct event		*wake_ev;
};

extern const char *relay_db_names[RELAY_DB_COUNT];

/* relay-store-guard.c: every stored value ends with a tag of key and value */
#define RELAY_TAG_LEN	8
void	 relay_store_tag(uint8_t tag[RELAY_TAG_LEN], const void *, size_t,
	    const void *, size_t);
int	 relay_store_untag(const MDB_val *key, MDB_val *val);
int	 relay_store_put_tagged(MDB_txn *, MDB_dbi, MDB_val *key,
	    const void *val, size_t len, unsigned flags);

/*
 * Faults while LMDB reads its map (a page past the end of a truncated
 * file: SIGBUS; a page whose pointers were damaged: SIGSEGV, or one of
 * LMDB's assertions) end the guarded call, not the process.
 */
struct relay_guard {
	sigjmp_buf		 jb;
	struct relay_guard	*prev;
	MDB_txn			*txn;		/* aborted on a fault */
	MDB_cursor		*cursor;	/* closed on a fault */
	int			 fault;		/* signal, or -1: assertion */
};
void	 relay_guard_init(MDB_env *, const char *datafile);
const char *relay_guard_what(int fault);
/*
 * fn(g, arg) under the guard g: its return, or RELAY_FAULTED after a
 * fault (g->fault says which; g->txn and g->cursor were let go).
 */
#define RELAY_FAULTED	INT_MIN
typedef int relay_guarded_fn(struct relay_guard *, void *);
int	 relay_guarded(struct relay_guard *, relay_guarded_fn *, void *);
void	 relay_guard_done(struct relay_guard *);

/* relay-store.c */
int	 relay_store_rc(struct relay_store *, const uint8_t *sid, int rc);
void	 relay_store_damage(struct relay_store *, const uint8_t *sid,
	    const char *why);
void	 relay_store_damage_db(struct relay_store *, int db);

/* relay-store-check.c */
int	 relay_store_precheck(const char *dir, int repair, char **why,
	    FILE *report);
int	 relay_store_probe(struct relay_store *, char **why);
int	 relay_store_walk_check(struct relay_store *, char **why);
int	 relay_store_catalogue(MDB_txn *, char **why);
int	 relay_store_mark(const char *dir);
int	 relay_store_format(struct relay_store *, MDB_txn *, char **why);
int	 relay_store_convert(struct relay_store *);

#endif /* RELAY_STORE_INT_H */
