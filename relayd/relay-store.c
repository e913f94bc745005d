/*
 * relay-store.c: LMDB storage with a group-committing writer thread.
 *
 * LMDB traps and how they are handled here:
 * - no MDB_WRITEMAP: a full disk then fails a write()/fsync() at commit
 *   with an error instead of a SIGBUS on a mapped page;
 * - the map size is set large up front (the file grows only as used);
 * - MDB_MAP_FULL, MDB_TXN_FULL, ENOSPC and EDQUOT become ALX_ERR_NO_SPACE,
 *   which the HTTP layer answers with 507; the process never aborts;
 * - stale reader slots of crashed processes are cleared by
 *   mdb_reader_check() at open;
 * - fsync happens on the writer thread once per batch, never on the loop;
 * - the data file is extended with written zeros ahead of LMDB's last page
 *   (relay_store_prepare()), so a commit's fdatasync flushes data pages
 *   and not file-system metadata as well;
 * - read transactions are opened and closed inside one function call and
 *   never live across a socket write.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <lmdb.h>

#include "airlox.h"
#include "util/log.h"
#include "relay-store.h"

/*
 * Group commit: the writer takes whatever is queued when it wakes, up to
 * this many operations or bytes, and commits them with one fsync. While
 * it commits, the loop queues more, so the batches grow with the load.
 */
#define RELAY_BATCH_MAX		1024
#define RELAY_BATCH_BYTES	(32 * 1024 * 1024)
/*
 * The loop may announce writes that are on their way (items whose
 * signatures are being checked): the writer then waits for them, at most
 * this long, so that one fsync covers them too.
 */
#define RELAY_GATHER_NSEC	(1000 * 1000)
/*
 * Zeros written ahead of LMDB's last page (see relay_store_prepare()):
 * RELAY_PREP_AHEAD of them, topped up between commits once LMDB used
 * RELAY_PREP_STEP of them, by what it used plus at most another step.
 */
#define RELAY_PREP_AHEAD	((off_t)16 * 1024 * 1024)
#define RELAY_PREP_STEP		((off_t)1024 * 1024)

static const char *relay_db_names[RELAY_DB_COUNT] = {
	"meta", "expiry", "sessions", "items", "itemidx", "chunks",
	"participants", "receipts", "jobs"
};

TAILQ_HEAD(relay_wopq, relay_wop);

struct relay_store {
	MDB_env			*env;
	MDB_dbi			 dbi[RELAY_DB_COUNT];

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
	int			 prep_off;	/* extension failed: stop */
	int			 stop;
	int			 wake[2];	/* pipe: writer wakes the loop */
	struct event		*wake_ev;
};

void
relay_be64(uint8_t out[8], uint64_t v)
{
	int	i;

	for (i = 7; i >= 0; i--) {
		out[i] = v & 0xff;
		v >>= 8;
	}
}

uint64_t
relay_get_be64(const uint8_t in[8])
{
	uint64_t	v = 0;
	int		i;

	for (i = 0; i < 8; i++)
		v = (v << 8) | in[i];
	return v;
}

/* LMDB and errno codes to ALX_ERR_*. */
static int
relay_store_err(int rc)
{
	switch (rc) {
	case 0:
		return 0;
	case MDB_MAP_FULL:
	case MDB_TXN_FULL:
	case MDB_PAGE_FULL:
	case ENOSPC:
	case EDQUOT:
		return ALX_ERR_NO_SPACE;
	case MDB_NOTFOUND:
		return ALX_ERR_NOT_FOUND;
	case MDB_KEYEXIST:
		return ALX_ERR_REPLAYED;
	case ENOMEM:
		return ALX_ERR_NOMEM;
	case MDB_BAD_VALSIZE:
		return ALX_ERR_TOO_LARGE;
	default:
		return ALX_ERR_IO;
	}
}

int
relay_store_open(struct relay_store **out, const char *dir, uint64_t mapsize,
    char **cause)
{
	struct relay_store	*st;
	MDB_txn			*txn = NULL;
	int			 rc, dead = 0, i;

	*out = NULL;
	if ((st = calloc(1, sizeof(*st))) == NULL)
		return ALX_ERR_NOMEM;
	TAILQ_INIT(&st->queue);
	TAILQ_INIT(&st->done);
	st->wake[0] = st->wake[1] = -1;
	pthread_mutex_init(&st->mtx, NULL);
	pthread_cond_init(&st->cond, NULL);

	if ((rc = mdb_env_create(&st->env)) != 0)
		goto fail;
	if ((rc = mdb_env_set_maxdbs(st->env, RELAY_DB_COUNT + 2)) != 0 ||
	    (rc = mdb_env_set_mapsize(st->env, (size_t)mapsize)) != 0)
		goto fail;
	/* MDB_NOTLS: read transactions are not tied to a thread's slot. */
	if ((rc = mdb_env_open(st->env, dir, MDB_NOTLS, 0600)) != 0)
		goto fail;
	if ((rc = mdb_reader_check(st->env, &dead)) != 0)
		goto fail;
	if (dead > 0)
		log_info("store: cleared %d stale reader slots", dead);
	if ((rc = mdb_txn_begin(st->env, NULL, 0, &txn)) != 0)
		goto fail;
	for (i = 0; i < RELAY_DB_COUNT; i++) {
		rc = mdb_dbi_open(txn, relay_db_names[i], MDB_CREATE,
		    &st->dbi[i]);
		if (rc != 0) {
			mdb_txn_abort(txn);
			goto fail;
		}
	}
	if ((rc = mdb_txn_commit(txn)) != 0)
		goto fail;
	st->mapsize = (off_t)mapsize;
	*out = st;
	return 0;
fail:
	if (cause != NULL && asprintf(cause, "LMDB in %s: %s", dir,
	    mdb_strerror(rc)) == -1)
		*cause = NULL;
	if (st->env != NULL)
		mdb_env_close(st->env);
	pthread_mutex_destroy(&st->mtx);
	pthread_cond_destroy(&st->cond);
	free(st);
	return relay_store_err(rc);
}

struct relay_wop *
relay_wop_new(relay_wop_done_fn *done, void *arg)
{
	struct relay_wop	*op;

	if ((op = calloc(1, sizeof(*op))) == NULL)
		return NULL;
	op->done = done;
	op->arg = arg;
	return op;
}

/*
 * A step whose value the operation takes over (malloc'd by the caller,
 * freed with the operation, or here on failure): a built value needs no
 * second copy.
 */
int
relay_wop_add_take(struct relay_wop *op, int kind, int db, const void *key,
    size_t keylen, uint8_t *val, size_t vallen)
{
	struct relay_wstep	*s;

	if (op->nsteps >= RELAY_WOP_MAX_STEPS || db < 0 ||
	    db >= RELAY_DB_COUNT || keylen == 0 || keylen > 511) {
		free(val);
		return ALX_ERR_INVALID;
	}
	s = &op->steps[op->nsteps];
	memset(s, 0, sizeof(*s));
	if ((s->key = malloc(keylen)) == NULL) {
		free(val);
		return ALX_ERR_NOMEM;
	}
	memcpy(s->key, key, keylen);
	s->keylen = keylen;
	s->val = vallen > 0 ? val : NULL;
	if (vallen == 0)
		free(val);
	s->vallen = vallen;
	s->kind = kind;
	s->db = db;
	op->nsteps++;
	return 0;
}

int
relay_wop_add(struct relay_wop *op, int kind, int db, const void *key,
    size_t keylen, const void *val, size_t vallen)
{
	uint8_t	*copy = NULL;

	if (vallen > 0) {
		if ((copy = malloc(vallen)) == NULL)
			return ALX_ERR_NOMEM;
		memcpy(copy, val, vallen);
	}
	return relay_wop_add_take(op, kind, db, key, keylen, copy, vallen);
}

void
relay_wop_free(struct relay_wop *op)
{
	int	i;

	if (op == NULL)
		return;
	for (i = 0; i < op->nsteps; i++) {
		free(op->steps[i].key);
		free(op->steps[i].val);
	}
	free(op);
}

/* The bytes an operation holds until its callback ran. */
static size_t
relay_wop_cost(const struct relay_wop *op)
{
	size_t	n = sizeof(*op);
	int	i;

	for (i = 0; i < op->nsteps; i++)
		n += op->steps[i].keylen + op->steps[i].vallen;
	return n;
}

/* Delete every key starting with `prefix` in one database. */
static int
relay_store_del_prefix(MDB_txn *txn, MDB_dbi dbi, const uint8_t *prefix,
    size_t plen)
{
	MDB_cursor	*c;
	MDB_val		 k, v;
	int		 rc;

	if ((rc = mdb_cursor_open(txn, dbi, &c)) != 0)
		return rc;
	for (;;) {
		k.mv_data = (void *)prefix;
		k.mv_size = plen;
		rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
		if (rc == MDB_NOTFOUND) {
			rc = 0;
			break;
		}
		if (rc != 0)
			break;
		if (k.mv_size < plen || memcmp(k.mv_data, prefix, plen) != 0)
			break;
		if ((rc = mdb_cursor_del(c, 0)) != 0)
			break;
	}
	mdb_cursor_close(c);
	return rc;
}

/* Next cursor of a session: one past the largest stored. */
static int
relay_store_next_cursor(MDB_txn *txn, MDB_dbi dbi, const uint8_t *sid,
    uint64_t *next)
{
	MDB_cursor	*c;
	MDB_val		 k, v;
	uint8_t		 probe[RELAY_SID_LEN + 8];
	int		 rc;

	memcpy(probe, sid, RELAY_SID_LEN);
	memset(probe + RELAY_SID_LEN, 0xff, 8);
	*next = 1;
	if ((rc = mdb_cursor_open(txn, dbi, &c)) != 0)
		return rc;
	k.mv_data = probe;
	k.mv_size = sizeof(probe);
	rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
	if (rc == 0)
		rc = mdb_cursor_get(c, &k, &v, MDB_PREV);
	else if (rc == MDB_NOTFOUND)
		rc = mdb_cursor_get(c, &k, &v, MDB_LAST);
	if (rc == 0 && k.mv_size == sizeof(probe) &&
	    memcmp(k.mv_data, sid, RELAY_SID_LEN) == 0)
		*next = relay_get_be64((uint8_t *)k.mv_data + RELAY_SID_LEN) +
		    1;
	mdb_cursor_close(c);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

static int
relay_store_append(struct relay_store *st, MDB_txn *txn,
    struct relay_wop *op, struct relay_wstep *s)
{
	MDB_val		 k, v;
	uint8_t		 ikey[RELAY_SID_LEN + 8], be[8];
	uint64_t	 cursor;
	int		 rc;

	if (s->keylen < RELAY_SID_LEN)
		return EINVAL;
	if ((rc = relay_store_next_cursor(txn, st->dbi[RELAY_DB_ITEMS],
	    s->key, &cursor)) != 0)
		return rc;
	relay_be64(be, cursor);
	k.mv_data = s->key;
	k.mv_size = s->keylen;
	v.mv_data = be;
	v.mv_size = sizeof(be);
	/* A key longer than the sid names the entry in the id index. */
	if (s->keylen > RELAY_SID_LEN && (rc = mdb_put(txn,
	    st->dbi[RELAY_DB_ITEMIDX], &k, &v, MDB_NOOVERWRITE)) != 0)
		return rc;
	memcpy(ikey, s->key, RELAY_SID_LEN);
	memcpy(ikey + RELAY_SID_LEN, be, 8);
	k.mv_data = ikey;
	k.mv_size = sizeof(ikey);
	v.mv_data = s->val;
	v.mv_size = s->vallen;
	if ((rc = mdb_put(txn, st->dbi[RELAY_DB_ITEMS], &k, &v, 0)) != 0)
		return rc;
	op->cursor = cursor;
	return 0;
}

/* Apply every step of an operation in `txn`; an LMDB or errno code. */
static int
relay_store_steps(struct relay_store *st, MDB_txn *txn, struct relay_wop *op)
{
	struct relay_wstep	*s;
	MDB_val			 k, v;
	int			 i, rc = 0, db;

	for (i = 0; i < op->nsteps && rc == 0; i++) {
		s = &op->steps[i];
		k.mv_data = s->key;
		k.mv_size = s->keylen;
		v.mv_data = s->val;
		v.mv_size = s->vallen;
		switch (s->kind) {
		case RELAY_W_PUT:
			rc = mdb_put(txn, st->dbi[s->db], &k, &v, 0);
			break;
		case RELAY_W_PUT_NEW:
			rc = mdb_put(txn, st->dbi[s->db], &k, &v,
			    MDB_NOOVERWRITE);
			break;
		case RELAY_W_DEL:
			rc = mdb_del(txn, st->dbi[s->db], &k, NULL);
			if (rc == MDB_NOTFOUND)
				rc = 0;
			break;
		case RELAY_W_APPEND_ITEM:
			rc = relay_store_append(st, txn, op, s);
			break;
		case RELAY_W_DEL_PREFIX:
			rc = relay_store_del_prefix(txn, st->dbi[s->db], s->key,
			    s->keylen);
			break;
		case RELAY_W_DEL_SESSION:
			if (s->keylen != RELAY_SID_LEN)
				return EINVAL;
			for (db = RELAY_DB_FIRST_SESSION; db < RELAY_DB_COUNT &&
			    rc == 0; db++)
				rc = relay_store_del_prefix(txn, st->dbi[db],
				    s->key, s->keylen);
			break;
		default:
			rc = EINVAL;
		}
	}
	return rc;
}

int
relay_store_apply(struct relay_store *st, struct relay_wop *op)
{
	MDB_txn	*txn;
	int	 rc;

	if ((rc = mdb_txn_begin(st->env, NULL, 0, &txn)) != 0)
		return op->result = relay_store_err(rc);
	if ((rc = relay_store_steps(st, txn, op)) != 0) {
		mdb_txn_abort(txn);
		return op->result = relay_store_err(rc);
	}
	rc = mdb_txn_commit(txn);
	return op->result = relay_store_err(rc);
}

/* One batch: each op in a nested transaction, one commit for all. */
static void
relay_store_batch(struct relay_store *st, struct relay_wopq *batch)
{
	struct relay_wop	*op;
	MDB_txn			*txn, *child;
	int			 rc;

	if ((rc = mdb_txn_begin(st->env, NULL, 0, &txn)) != 0) {
		TAILQ_FOREACH(op, batch, entry)
			op->result = relay_store_err(rc);
		return;
	}
	TAILQ_FOREACH(op, batch, entry) {
		if ((rc = mdb_txn_begin(st->env, txn, 0, &child)) != 0) {
			op->result = relay_store_err(rc);
			continue;
		}
		if ((rc = relay_store_steps(st, child, op)) != 0) {
			mdb_txn_abort(child);
			op->result = relay_store_err(rc);
			continue;
		}
		rc = mdb_txn_commit(child);
		op->result = relay_store_err(rc);
	}
	if ((rc = mdb_txn_commit(txn)) != 0) {
		log_warnx("store: commit: %s", mdb_strerror(rc));
		TAILQ_FOREACH(op, batch, entry)
			if (op->result == 0)
				op->result = relay_store_err(rc);
	}
}

/*
 * On the writer thread, between commits: keep written zeros some way past
 * LMDB's last page. LMDB appends pages at the end of its data file; each
 * commit's fdatasync would then also commit the file's new size and blocks
 * to the file system's journal, which here costs about a fifth of every
 * commit (docs/performance.md). Overwriting blocks that are already
 * written needs no metadata. Zeros, not fallocate(): an allocated but
 * unwritten range still changes metadata on its first write. LMDB never
 * reads past its last page, so it never sees them. The first call writes
 * the whole lead; later ones wait until LMDB used a step (1 MiB) of it,
 * then replace what it used, adding at most one more step: no commit waits
 * for a 16 MiB write and its flush (9 to 20 ms, then 8 to 11 ms here,
 * which paused every publisher of every session), and most commits write
 * no zeros at all. A full disk or quota cuts the zeros added back off and
 * stops this for the life of the process (LMDB then grows the file itself,
 * as without it).
 */
static void
relay_store_prepare(struct relay_store *st)
{
	static const uint8_t	 zero[64 * 1024];
	MDB_envinfo		 info;
	MDB_stat		 ms;
	struct stat		 sb;
	mdb_filehandle_t	 fd;
	off_t			 used, target, step, off, start;
	size_t			 n;

	if (st->prep_off || mdb_env_info(st->env, &info) != 0 ||
	    mdb_env_stat(st->env, &ms) != 0 || mdb_env_get_fd(st->env, &fd) != 0)
		return;
	used = ((off_t)info.me_last_pgno + 1) * (off_t)ms.ms_psize;
	if (st->prepared == 0) {
		if (fstat(fd, &sb) == -1)
			return;
		st->prepared = sb.st_size;
	}
	if (st->prepared < used)
		st->prepared = used;
	target = used + RELAY_PREP_AHEAD;
	if (target > st->mapsize)
		target = st->mapsize;
	if (st->prep_used != 0) {		/* not the first call */
		if (st->prepared - used >= RELAY_PREP_AHEAD - RELAY_PREP_STEP)
			return;			/* less than a step used */
		step = st->prepared + (used - st->prep_used) + RELAY_PREP_STEP;
		if (target > step)
			target = step;
	}
	st->prep_used = used;
	if (st->prepared >= target)
		return;
	start = st->prepared;
	for (off = start; off < target; off += (off_t)n) {
		n = sizeof(zero);
		if ((off_t)n > target - off)
			n = (size_t)(target - off);
		if (pwrite(fd, zero, n, off) != (ssize_t)n) {
			log_info("store: cannot extend the data file ahead of "
			    "use (%s); LMDB grows it as needed",
			    strerror(errno));
			if (ftruncate(fd, start) == -1)
				log_warn("store: truncate");
			st->prep_off = 1;
			return;
		}
	}
	st->prepared = target;
}

/*
 * With the lock held and something queued: while writes announced by the
 * loop are still on their way, wait for them a little (the batch is not
 * full, we are not stopping, the deadline has not passed).
 */
static void
relay_store_gather(struct relay_store *st)
{
	struct timespec	deadline;

	if (st->expect == 0)
		return;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_nsec += RELAY_GATHER_NSEC;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	st->gathering = 1;
	while (st->expect > 0 && !st->stop && st->nqueue < RELAY_BATCH_MAX &&
	    st->queued < RELAY_BATCH_BYTES)
		if (pthread_cond_timedwait(&st->cond, &st->mtx,
		    &deadline) == ETIMEDOUT)
			break;
	st->gathering = 0;
}

/* The loop: a write is on its way (+1), or arrived or was dropped (-1). */
void
relay_store_expect(struct relay_store *st, int delta)
{
	pthread_mutex_lock(&st->mtx);
	if (delta > 0)
		st->expect++;
	else if (st->expect > 0)
		st->expect--;
	/* A gathering writer needs to know only when nothing is expected. */
	if (st->gathering && st->expect == 0)
		pthread_cond_signal(&st->cond);
	pthread_mutex_unlock(&st->mtx);
}

static void *
relay_store_writer(void *arg)
{
	struct relay_store	*st = arg;
	struct relay_wopq	 batch;
	struct relay_wop	*op;
	unsigned		 n;
	size_t			 bytes;
	char			 c = 0;

	for (;;) {
		pthread_mutex_lock(&st->mtx);
		while (TAILQ_EMPTY(&st->queue) && !st->stop)
			pthread_cond_wait(&st->cond, &st->mtx);
		if (TAILQ_EMPTY(&st->queue) && st->stop) {
			pthread_mutex_unlock(&st->mtx);
			break;
		}
		relay_store_gather(st);
		TAILQ_INIT(&batch);
		bytes = 0;
		for (n = 0; n < RELAY_BATCH_MAX && bytes < RELAY_BATCH_BYTES &&
		    (op = TAILQ_FIRST(&st->queue)) != NULL; n++) {
			TAILQ_REMOVE(&st->queue, op, entry);
			TAILQ_INSERT_TAIL(&batch, op, entry);
			bytes += relay_wop_cost(op);
			st->nqueue--;
		}
		pthread_mutex_unlock(&st->mtx);

		relay_store_batch(st, &batch);

		pthread_mutex_lock(&st->mtx);
		TAILQ_CONCAT(&st->done, &batch, entry);
		pthread_mutex_unlock(&st->mtx);
		/* A full pipe already holds a wake-up: EAGAIN is fine. */
		if (write(st->wake[1], &c, 1) == -1 && errno != EAGAIN)
			log_warn("store: wake");
		relay_store_prepare(st);
	}
	return NULL;
}

/* On the loop: run the callbacks of committed operations. */
static void
relay_store_wakecb(evutil_socket_t fd, short ev, void *arg)
{
	struct relay_store	*st = arg;
	struct relay_wopq	 done;
	struct relay_wop	*op;
	char			 buf[256];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	TAILQ_INIT(&done);
	pthread_mutex_lock(&st->mtx);
	TAILQ_FOREACH(op, &st->done, entry)
		st->queued -= relay_wop_cost(op);
	TAILQ_CONCAT(&done, &st->done, entry);
	pthread_mutex_unlock(&st->mtx);
	while ((op = TAILQ_FIRST(&done)) != NULL) {
		TAILQ_REMOVE(&done, op, entry);
		st->inflight--;
		if (op->done != NULL)
			op->done(op, op->arg);
		else
			relay_wop_free(op);
	}
}

int
relay_store_start(struct relay_store *st, struct event_base *base)
{
	int	i;

	if (pipe(st->wake) == -1)
		return ALX_ERR_IO;
	for (i = 0; i < 2; i++) {
		fcntl(st->wake[i], F_SETFL,
		    fcntl(st->wake[i], F_GETFL) | O_NONBLOCK);
		fcntl(st->wake[i], F_SETFD, FD_CLOEXEC);
	}
	st->wake_ev = event_new(base, st->wake[0], EV_READ | EV_PERSIST,
	    relay_store_wakecb, st);
	if (st->wake_ev == NULL || event_add(st->wake_ev, NULL) == -1)
		return ALX_ERR_NOMEM;
	if (pthread_create(&st->thread, NULL, relay_store_writer, st) != 0)
		return ALX_ERR_IO;
	pthread_setname_np(st->thread, "alx-store");	/* for top -H, ps -L */
	st->started = 1;
	return 0;
}

int
relay_store_submit(struct relay_store *st, struct relay_wop *op)
{
	if (!st->started)
		return ALX_ERR_NOT_READY;
	pthread_mutex_lock(&st->mtx);
	if (st->stop) {
		pthread_mutex_unlock(&st->mtx);
		return ALX_ERR_NOT_READY;
	}
	TAILQ_INSERT_TAIL(&st->queue, op, entry);
	st->nqueue++;
	st->inflight++;
	st->queued += relay_wop_cost(op);
	/* Wake an idle writer; a gathering one when its batch is full. */
	if (!st->gathering || st->expect == 0 ||
	    st->nqueue >= RELAY_BATCH_MAX || st->queued >= RELAY_BATCH_BYTES)
		pthread_cond_signal(&st->cond);
	pthread_mutex_unlock(&st->mtx);
	return 0;
}

unsigned
relay_store_pending(struct relay_store *st)
{
	return st->inflight;
}

void
relay_store_set_limit(struct relay_store *st, size_t bytes)
{
	st->limit = bytes;
}

/*
 * Back-pressure: ALX_ERR_NOT_READY when `more` bytes would take the
 * queue of writes over its limit (a queue with nothing in it takes any
 * one write, so a single large one is never refused for good).
 */
int
relay_store_room(struct relay_store *st, size_t more)
{
	if (st->limit == 0 || st->inflight == 0 ||
	    st->queued + more + sizeof(struct relay_wop) <= st->limit)
		return 0;
	return ALX_ERR_NOT_READY;
}

void
relay_store_drain(struct relay_store *st)
{
	if (!st->started)
		return;
	pthread_mutex_lock(&st->mtx);
	st->stop = 1;
	pthread_cond_signal(&st->cond);
	pthread_mutex_unlock(&st->mtx);
	pthread_join(st->thread, NULL);
	st->started = 0;
	/* The thread committed everything; run the last callbacks. */
	relay_store_wakecb(st->wake[0], EV_READ, st);
}

void
relay_store_close(struct relay_store *st)
{
	if (st == NULL)
		return;
	relay_store_drain(st);
	if (st->wake_ev != NULL)
		event_free(st->wake_ev);
	if (st->wake[0] != -1) {
		close(st->wake[0]);
		close(st->wake[1]);
	}
	mdb_env_close(st->env);
	pthread_mutex_destroy(&st->mtx);
	pthread_cond_destroy(&st->cond);
	free(st);
}

int
relay_store_get(struct relay_store *st, int db, const void *key,
    size_t keylen, struct alx_buf *out)
{
	MDB_txn	*txn;
	MDB_val	 k, v;
	int	 rc;

	if (db < 0 || db >= RELAY_DB_COUNT)
		return ALX_ERR_INVALID;
	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &txn)) != 0)
		return relay_store_err(rc);
	k.mv_data = (void *)key;
	k.mv_size = keylen;
	if ((rc = mdb_get(txn, st->dbi[db], &k, &v)) == 0) {
		alx_buf_reset(out);
		rc = alx_buf_add(out, v.mv_data, v.mv_size);
		mdb_txn_abort(txn);
		return rc;
	}
	mdb_txn_abort(txn);
	return relay_store_err(rc);
}

int
relay_store_items_after(struct relay_store *st,
    const uint8_t sid[RELAY_SID_LEN], uint64_t after, unsigned max,
    relay_item_cb *cb, void *arg)
{
	MDB_txn		*txn;
	MDB_cursor	*c;
	MDB_val		 k, v;
	uint8_t		 probe[RELAY_SID_LEN + 8];
	unsigned	 n = 0;
	int		 rc, op = MDB_SET_RANGE;

	if (after == UINT64_MAX)
		return 0;
	memcpy(probe, sid, RELAY_SID_LEN);
	relay_be64(probe + RELAY_SID_LEN, after + 1);
	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &txn)) != 0)
		return relay_store_err(rc);
	if ((rc = mdb_cursor_open(txn, st->dbi[RELAY_DB_ITEMS], &c)) != 0) {
		mdb_txn_abort(txn);
		return relay_store_err(rc);
	}
	k.mv_data = probe;
	k.mv_size = sizeof(probe);
	while (n < max && (rc = mdb_cursor_get(c, &k, &v, op)) == 0) {
		op = MDB_NEXT;
		if (k.mv_size != sizeof(probe) ||
		    memcmp(k.mv_data, sid, RELAY_SID_LEN) != 0)
			break;
		rc = cb(relay_get_be64((uint8_t *)k.mv_data + RELAY_SID_LEN),
		    v.mv_data, v.mv_size, arg);
		if (rc != 0)
			break;
		n++;
	}
	mdb_cursor_close(c);
	mdb_txn_abort(txn);
	if (rc == MDB_NOTFOUND || rc == 0)
		return (int)n;
	return rc < 0 ? rc : relay_store_err(rc);
}

int
relay_store_last_cursor(struct relay_store *st,
    const uint8_t sid[RELAY_SID_LEN], uint64_t *out)
{
	MDB_txn	*txn;
	int	 rc;

	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &txn)) != 0)
		return relay_store_err(rc);
	rc = relay_store_next_cursor(txn, st->dbi[RELAY_DB_ITEMS], sid, out);
	mdb_txn_abort(txn);
	(*out)--;
	return relay_store_err(rc);
}

int
relay_store_expired(struct relay_store *st, uint64_t now, unsigned max,
    relay_sid_cb *cb, void *arg)
{
	MDB_txn		*txn;
	MDB_cursor	*c;
	MDB_val		 k, v;
	unsigned	 n = 0;
	uint64_t	 when;
	int		 rc, op = MDB_FIRST;

	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &txn)) != 0)
		return relay_store_err(rc);
	if ((rc = mdb_cursor_open(txn, st->dbi[RELAY_DB_EXPIRY], &c)) != 0) {
		mdb_txn_abort(txn);
		return relay_store_err(rc);
	}
	while (n < max && (rc = mdb_cursor_get(c, &k, &v, op)) == 0) {
		op = MDB_NEXT;
		if (k.mv_size != 8 + RELAY_SID_LEN)
			continue;
		when = relay_get_be64(k.mv_data);
		if (when > now)
			break;
		if ((rc = cb((uint8_t *)k.mv_data + 8, when, arg)) != 0)
			break;
		n++;
	}
	mdb_cursor_close(c);
	mdb_txn_abort(txn);
	if (rc == MDB_NOTFOUND || rc == 0)
		return (int)n;
	return rc < 0 ? rc : relay_store_err(rc);
}

int
relay_store_count_session(struct relay_store *st,
    const uint8_t sid[RELAY_SID_LEN], uint64_t *count)
{
	MDB_txn		*txn;
	MDB_cursor	*c;
	MDB_val		 k, v;
	int		 rc = 0, db, op;

	*count = 0;
	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &txn)) != 0)
		return relay_store_err(rc);
	for (db = RELAY_DB_FIRST_SESSION; db < RELAY_DB_COUNT; db++) {
		if ((rc = mdb_cursor_open(txn, st->dbi[db], &c)) != 0)
			break;
		k.mv_data = (void *)sid;
		k.mv_size = RELAY_SID_LEN;
		op = MDB_SET_RANGE;
		while ((rc = mdb_cursor_get(c, &k, &v, op)) == 0) {
			op = MDB_NEXT;
			if (k.mv_size < RELAY_SID_LEN ||
			    memcmp(k.mv_data, sid, RELAY_SID_LEN) != 0)
				break;
			(*count)++;
		}
		mdb_cursor_close(c);
		if (rc == MDB_NOTFOUND)
			rc = 0;
		if (rc != 0)
			break;
	}
	mdb_txn_abort(txn);
	return relay_store_err(rc);
}

int
relay_store_scan(struct relay_store *st, int db, const void *prefix,
    size_t plen, relay_scan_cb *cb, void *arg)
{
	MDB_txn		*txn;
	MDB_cursor	*c;
	MDB_val		 k, v;
	int		 rc, op = plen > 0 ? MDB_SET_RANGE : MDB_FIRST, n = 0;

	if (db < 0 || db >= RELAY_DB_COUNT)
		return ALX_ERR_INVALID;
	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &txn)) != 0)
		return relay_store_err(rc);
	if ((rc = mdb_cursor_open(txn, st->dbi[db], &c)) != 0) {
		mdb_txn_abort(txn);
		return relay_store_err(rc);
	}
	k.mv_data = (void *)prefix;
	k.mv_size = plen;
	while ((rc = mdb_cursor_get(c, &k, &v, op)) == 0) {
		op = MDB_NEXT;
		if (plen > 0 && (k.mv_size < plen ||
		    memcmp(k.mv_data, prefix, plen) != 0))
			break;
		if (cb != NULL && (rc = cb(k.mv_data, k.mv_size, v.mv_data,
		    v.mv_size, arg)) != 0)
			break;
		n++;
	}
	mdb_cursor_close(c);
	mdb_txn_abort(txn);
	if (rc == MDB_NOTFOUND || rc == 0)
		return n;
	return rc < 0 ? rc : relay_store_err(rc);
}
