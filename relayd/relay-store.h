/*
 * relay-store.h: the relay's LMDB store (relay-store.c).
 *
 * Every key of every per-session database starts with the 16-byte session
 * id, so deleting a session is one prefix walk per database. Reads happen on
 * the event loop in short read transactions that end before any socket I/O;
 * writes are queued to one writer thread that applies a batch of operations
 * in one transaction (each operation in a nested transaction, so one failing
 * operation does not fail its neighbours), commits once, and wakes the loop,
 * which then runs each operation's completion callback.
 */
#ifndef RELAY_STORE_H
#define RELAY_STORE_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct event_base;
struct alx_buf;

#define RELAY_SID_LEN		16

enum relay_db {
	RELAY_DB_META,		/* counters and relay-wide state */
	RELAY_DB_EXPIRY,	/* be64 expiry || sid -> "" (not per session) */
	RELAY_DB_SESSIONS,	/* sid -> session record */
	RELAY_DB_ITEMS,		/* sid || be64 cursor -> item record */
	RELAY_DB_ITEMIDX,	/* sid || item id -> be64 cursor */
	RELAY_DB_CHUNKS,	/* sid || item id || be32 index -> chunk */
	RELAY_DB_PARTICIPANTS,	/* sid || key -> participant record */
	RELAY_DB_RECEIPTS,	/* sid || item id || reader -> receipt */
	RELAY_DB_JOBS,		/* sid || job id -> job record */
	RELAY_DB_COUNT
};
/* Databases whose keys all start with a session id. */
#define RELAY_DB_FIRST_SESSION	RELAY_DB_SESSIONS

enum relay_wstep_kind {
	RELAY_W_PUT,		/* insert or replace */
	RELAY_W_PUT_NEW,	/* insert; ALX_ERR_REPLAYED if present */
	RELAY_W_DEL,		/* delete; absent is fine */
	RELAY_W_APPEND_ITEM,	/* key: sid [|| item id]; next cursor */
	RELAY_W_DEL_SESSION,	/* key: sid; every key of the session */
	RELAY_W_DEL_PREFIX	/* every key starting with key in db */
};

struct relay_wstep {
	int		 kind;
	int		 db;
	uint8_t		*key;
	size_t		 keylen;
	uint8_t		*val;
	size_t		 vallen;
};

#define RELAY_WOP_MAX_STEPS	8

struct relay_wop;
typedef void relay_wop_done_fn(struct relay_wop *, void *);

struct relay_wop {
	struct relay_wstep	 steps[RELAY_WOP_MAX_STEPS];
	int			 nsteps;
	/*
	 * Disk space promised for later writes of the same session (an
	 * item's chunks: > 0, relay_store_chunk_need() each), or such a
	 * later write using its share of it (< 0). See relay-store.c.
	 */
	int64_t			 promise;
	uint64_t		 cursor;	/* out: APPEND_ITEM's cursor */
	int			 result;	/* out: 0 or ALX_ERR_* */
	relay_wop_done_fn	*done;
	void			*arg;
	TAILQ_ENTRY(relay_wop)	 entry;
};

struct relay_store;

int	 relay_store_open(struct relay_store **, const char *dir,
	    uint64_t mapsize, char **cause);
/* Start the writer thread; completions run on `base`. */
int	 relay_store_start(struct relay_store *, struct event_base *);
/* Wait for every queued write to commit and its callback to run. */
void	 relay_store_drain(struct relay_store *);
void	 relay_store_close(struct relay_store *);
/* 2: unusable, 1: damaged (writes refused), 0: whole or some sessions
 * damaged (*nbad: how many; their writes are refused); *why: the first. */
int	 relay_store_damaged(struct relay_store *, const char **why,
	    unsigned *nbad);
/* airlox-relayd --check and --salvage (relay-store-check.c). */
int	 relay_store_check(const char *dir, FILE *report);
int	 relay_store_salvage(const char *dir, const char *dst, FILE *report);
unsigned relay_store_pending(struct relay_store *);
/* Bytes of queued writes beyond which relay_store_room() refuses. */
void	 relay_store_set_limit(struct relay_store *, size_t);
int	 relay_store_room(struct relay_store *, size_t);
/* The disk space a later write of a value of len bytes may need. */
uint64_t relay_store_chunk_need(size_t len);
/* 1 when a write was refused for want of disk space lately. */
int	 relay_store_full(struct relay_store *);
/* Writes on their way (+1) or arrived or dropped (-1): group commit
 * waits briefly for announced writes. */
void	 relay_store_expect(struct relay_store *, int);

struct relay_wop *relay_wop_new(relay_wop_done_fn *, void *);
int	 relay_wop_add_take(struct relay_wop *, int kind, int db,
	    const void *key, size_t keylen, uint8_t *val, size_t vallen);
int	 relay_wop_add(struct relay_wop *, int kind, int db, const void *key,
	    size_t keylen, const void *val, size_t vallen);
void	 relay_wop_free(struct relay_wop *);

/* Queue an operation; its callback runs on the loop. */
int	 relay_store_submit(struct relay_store *, struct relay_wop *);
/* Apply an operation now on this thread, in its own transaction. */
int	 relay_store_apply(struct relay_store *, struct relay_wop *);

int	 relay_store_get(struct relay_store *, int db, const void *key,
	    size_t keylen, struct alx_buf *out);
/* Items of a session with cursor > after, oldest first; cb copies. */
typedef int relay_item_cb(uint64_t cursor, const uint8_t *, size_t, void *);
int	 relay_store_items_after(struct relay_store *,
	    const uint8_t sid[RELAY_SID_LEN], uint64_t after, unsigned max,
	    relay_item_cb *, void *);
int	 relay_store_last_cursor(struct relay_store *,
	    const uint8_t sid[RELAY_SID_LEN], uint64_t *);
/* Session ids whose expiry is <= now (at most max). */
typedef int relay_sid_cb(const uint8_t sid[RELAY_SID_LEN], uint64_t, void *);
int	 relay_store_expired(struct relay_store *, uint64_t now, unsigned max,
	    relay_sid_cb *, void *);
/* Number of keys of a session across all per-session databases. */
int	 relay_store_count_session(struct relay_store *,
	    const uint8_t sid[RELAY_SID_LEN], uint64_t *);

/* Every key starting with prefix (all: plen 0), in order; cb copies
 * (NULL: count only). Returns the number of keys seen. */
typedef int relay_scan_cb(const uint8_t *key, size_t keylen,
    const uint8_t *val, size_t vallen, void *);
int	 relay_store_scan(struct relay_store *, int db, const void *prefix,
	    size_t plen, relay_scan_cb *, void *);

void	 relay_be64(uint8_t out[8], uint64_t);
uint64_t relay_get_be64(const uint8_t in[8]);

#endif /* RELAY_STORE_H */
