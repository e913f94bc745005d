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
 *   never live across a socket write;
 * - damaged storage (relay-store-guard.c, relay-store-check.c): every
 *   value carries a tag checked before it is used, every call into LMDB
 *   runs under a guard that turns its SIGBUS, SIGSEGV or assertion into
 *   ALX_ERR_STORAGE (500 storage_error), the file is checked at open;
 *   damage to LMDB's own pages (a fault, a page LMDB calls corrupted)
 *   turns writes off until an operator checked the database, while reads
 *   go on: a write through a damaged tree or free list could spread the
 *   damage to records that are intact. A record whose tag fails is only
 *   that record's error.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

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
#include "relay-store-int.h"

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

const char *relay_db_names[RELAY_DB_COUNT] = {
	"meta", "expiry", "sessions", "items", "itemidx", "chunks",
	"participants", "receipts", "jobs"
};

static struct log_rl	relay_store_rl = LOG_RL_INIT(10, 60);

static void	relay_store_admit(struct relay_store *, struct relay_wopq *);
static void	relay_store_promises(struct relay_store *,
		    struct relay_wopq *);

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
	case ENOSPC:
	case EDQUOT:
	case EFBIG:
		return ALX_ERR_NO_SPACE;
	case MDB_NOTFOUND:
		return ALX_ERR_NOT_FOUND;
	case MDB_KEYEXIST:
		return ALX_ERR_REPLAYED;
	case ENOMEM:
		return ALX_ERR_NOMEM;
	case MDB_BAD_VALSIZE:
		return ALX_ERR_TOO_LARGE;
	case MDB_CORRUPTED:
	case MDB_PAGE_NOTFOUND:
	case MDB_PAGE_FULL:		/* LMDB's "internal error": a bad page */
	case MDB_CURSOR_FULL:		/* a tree deeper than any it writes */
	case MDB_BAD_TXN:		/* after one of these in the same txn */
	case MDB_PANIC:
	case MDB_INVALID:
	case MDB_VERSION_MISMATCH:
	case MDB_INCOMPATIBLE:
		return ALX_ERR_STORAGE;
	default:
		return ALX_ERR_IO;
	}
}

static int
relay_store_bad_sid(struct relay_store *st, const uint8_t *sid)
{
	unsigned	i;

	for (i = 0; i < st->nbad; i++)
		if (memcmp(st->bad[i], sid, RELAY_SID_LEN) == 0)
			return 1;
	return 0;
}

/*
 * LMDB's own pages are damaged (see the top of this file): where a
 * session's records were being read or written, that session's writes
 * are refused from now on; elsewhere (sid NULL), or past RELAY_BAD_MAX
 * sessions, every write is. Reads go on.
 */
void
relay_store_damage(struct relay_store *st, const uint8_t *sid,
    const char *why)
{
	char	name[ALX_B64_ENCLEN(RELAY_SID_LEN) + 1];
	int	whole = sid == NULL;

	pthread_mutex_lock(&st->mtx);
	if (st->damaged || (sid != NULL && relay_store_bad_sid(st, sid))) {
		pthread_mutex_unlock(&st->mtx);
		return;
	}
	if (sid != NULL && st->nbad < RELAY_BAD_MAX)
		memcpy(st->bad[st->nbad++], sid, RELAY_SID_LEN);
	else {
		whole = 1;
		snprintf(st->damage_why, sizeof(st->damage_why), "%s", why);
		st->damaged = 1;
	}
	pthread_mutex_unlock(&st->mtx);
	if (whole)
		log_warnx("store: the database in %s is damaged: %s; writes "
		    "are refused from now on, reads go on; stop the relay and "
		    "run airlox-relayd --check (docs/deploy.md)", st->dir, why);
	else {
		alx_b64_encode(name, sid, RELAY_SID_LEN);
		log_warnx("store: session %s is damaged: %s; its writes are "
		    "refused from now on; run airlox-relayd --check "
		    "(docs/deploy.md)", name, why);
	}
}

/* Damage found in database db: its misses are no longer proof. */
void
relay_store_damage_db(struct relay_store *st, int db)
{
	if (db < 0 || db >= RELAY_DB_COUNT)
		return;
	pthread_mutex_lock(&st->mtx);
	st->baddb |= 1u << db;
	pthread_mutex_unlock(&st->mtx);
}

static int
relay_store_db_damaged(struct relay_store *st, int db)
{
	int	bad;

	pthread_mutex_lock(&st->mtx);
	bad = (st->baddb & (1u << db)) != 0;
	pthread_mutex_unlock(&st->mtx);
	return bad;
}

/* An LMDB or errno code to ALX_ERR_*, noting damage to LMDB's pages. */
int
relay_store_rc(struct relay_store *st, const uint8_t *sid, int rc)
{
	int	err = relay_store_err(rc);

	if (err == ALX_ERR_STORAGE && rc != 0)
		relay_store_damage(st, sid, mdb_strerror(rc));
	return err;
}

/* A guarded call ended by a fault. */
static int
relay_store_faulted(struct relay_store *st, struct relay_guard *g,
    const uint8_t *sid)
{
	relay_store_damage(st, sid, relay_guard_what(g->fault));
	return ALX_ERR_STORAGE;
}

/* A value read: its tag checked, or the record reported as damaged. */
static int
relay_store_checked(struct relay_store *st, int db, const MDB_val *k,
    MDB_val *v)
{
	char	sid[ALX_B64_ENCLEN(RELAY_SID_LEN) + 1];
	size_t	off = db == RELAY_DB_EXPIRY ? 8 : 0;

	if (relay_store_untag(k, v) == 0)
		return 0;
	/* Its page may be damaged beyond it: no write may go there. */
	relay_store_damage(st, NULL, "a record does not match its tag");
	relay_store_damage_db(st, db);
	if (log_rl_allow(&relay_store_rl)) {
		if (db >= RELAY_DB_FIRST_SESSION || db == RELAY_DB_EXPIRY) {
			if (k->mv_size >= off + RELAY_SID_LEN)
				alx_b64_encode(sid, (uint8_t *)k->mv_data + off,
				    RELAY_SID_LEN);
			else
				snprintf(sid, sizeof(sid), "?");
			log_warnx("store: a damaged record in %s (session %s): "
			    "its tag does not match", relay_db_names[db], sid);
		} else
			log_warnx("store: a damaged record in %s: its tag does "
			    "not match", relay_db_names[db]);
	}
	return ALX_ERR_STORAGE;
}

/* The session an operation writes to (its first key's), or NULL. */
static const uint8_t *
relay_wop_sid(const struct relay_wop *op)
{
	const struct relay_wstep	*s = &op->steps[0];

	if (op->nsteps == 0)
		return NULL;
	if (s->db >= RELAY_DB_FIRST_SESSION && s->keylen >= RELAY_SID_LEN)
		return s->key;
	if (s->db == RELAY_DB_EXPIRY && s->keylen >= 8 + RELAY_SID_LEN)
		return s->key + 8;
	return NULL;
}

/* 0 when op may be written: the store and its session are not damaged. */
static int
relay_store_writable(struct relay_store *st, const struct relay_wop *op)
{
	const uint8_t	*sid = op != NULL ? relay_wop_sid(op) : NULL;
	int		 rc = 0;

	if (st->env == NULL)
		return ALX_ERR_STORAGE;
	pthread_mutex_lock(&st->mtx);
	if (st->damaged || (sid != NULL && relay_store_bad_sid(st, sid)))
		rc = ALX_ERR_STORAGE;
	pthread_mutex_unlock(&st->mtx);
	return rc;
}

/* 2: unusable, 1: damaged (writes refused), 0: whole; *nbad sessions. */
int
relay_store_damaged(struct relay_store *st, const char **why,
    unsigned *nbad)
{
	int	d;

	pthread_mutex_lock(&st->mtx);
	d = st->env == NULL ? 2 : st->damaged;
	if (why != NULL)
		*why = st->damage_why;
	if (nbad != NULL)
		*nbad = st->nbad;
	pthread_mutex_unlock(&st->mtx);
	return d;
}

/*
 * The databases, in a write transaction (created when missing), and the
 * records' format; or, for a damaged store, in a read transaction.
 */
static int
relay_store_dbis(struct relay_store *st, struct relay_guard *g, int rdonly,
    char **why)
{
	int	rc, i;

	if ((rc = mdb_txn_begin(st->env, NULL, rdonly ? MDB_RDONLY : 0,
	    &g->txn)) != 0)
		return rc;
	/* Never a new, empty database in place of one whose name was lost. */
	if (!rdonly && (rc = relay_store_catalogue(g->txn, why)) != 0)
		goto fail;
	for (i = 0; i < RELAY_DB_COUNT; i++) {
		rc = mdb_dbi_open(g->txn, relay_db_names[i], rdonly ? 0 :
		    MDB_CREATE, &st->dbi[i]);
		if (rc == MDB_NOTFOUND && rdonly)
			continue;
		if (rc != 0)
			goto fail;
		st->have_dbi[i] = 1;
	}
	if (!rdonly && (rc = relay_store_format(st, g->txn, why)) != 0)
		goto fail;
	/* Committed, read-only too: the handles outlive the transaction. */
	rc = mdb_txn_commit(g->txn);
	g->txn = NULL;
	return rc;
fail:
	mdb_txn_abort(g->txn);
	g->txn = NULL;
	return rc;
}

struct relay_dbis_arg {
	struct relay_store	*st;
	int			 rdonly;
	char			**why;
};

static int
relay_store_dbis_fn(struct relay_guard *g, void *arg)
{
	struct relay_dbis_arg	*a = arg;

	return relay_store_dbis(a->st, g, a->rdonly, a->why);
}

/* The databases under a guard: an LMDB code (MDB_CORRUPTED on a fault). */
static int
relay_store_dbis_guarded(struct relay_store *st, int rdonly, char **why)
{
	struct relay_dbis_arg	a = { st, rdonly, why };
	struct relay_guard	g;
	int			rc;

	rc = relay_guarded(&g, relay_store_dbis_fn, &a);
	if (rc == RELAY_FAULTED) {
		if (why != NULL && *why == NULL && asprintf(why, "opening its "
		    "databases met %s", relay_guard_what(g.fault)) == -1)
			*why = NULL;
		return MDB_CORRUPTED;
	}
	return rc;
}

/*
 * Open the store in dir. Damage found on the way (relay-store-check.c)
 * does not fail the open: the store is returned damaged (reads only) or,
 * when nothing of it can be read, unusable (every call answers
 * ALX_ERR_STORAGE), and the relay serves what it can; relay_store_damaged()
 * says which. Errors of the system (permissions, memory) fail it.
 */
int
relay_store_open(struct relay_store **out, const char *dir, uint64_t mapsize,
    char **cause)
{
	struct relay_store	*st;
	char			 path[4096], *why = NULL;
	int			 rc, dead = 0, converted = 0;

	*out = NULL;
	if ((st = calloc(1, sizeof(*st))) == NULL ||
	    (st->dir = strdup(dir)) == NULL) {
		free(st);
		return ALX_ERR_NOMEM;
	}
	TAILQ_INIT(&st->queue);
	TAILQ_INIT(&st->done);
	st->wake[0] = st->wake[1] = -1;
	st->mapsize = (off_t)mapsize;
	pthread_mutex_init(&st->mtx, NULL);
	pthread_cond_init(&st->cond, NULL);
	*out = st;

again:
	/* The file before LMDB: lost, emptied, its meta pages. */
	if (relay_store_precheck(dir, 1, &why, NULL) != 0) {
		relay_store_damage(st, NULL, why != NULL ? why : "unusable");
		free(why);
		return 0;
	}
	if ((rc = mdb_env_create(&st->env)) != 0)
		goto fail;
	if ((rc = mdb_env_set_maxdbs(st->env, RELAY_DB_COUNT + 2)) != 0 ||
	    (rc = mdb_env_set_mapsize(st->env, (size_t)mapsize)) != 0)
		goto fail;
	/* MDB_NOTLS: read transactions are not tied to a thread's slot. */
	if ((rc = mdb_env_open(st->env, dir, MDB_NOTLS, 0600)) != 0) {
		if (relay_store_err(rc) != ALX_ERR_STORAGE)
			goto fail;
		mdb_env_close(st->env);
		st->env = NULL;
		relay_store_damage(st, NULL, "LMDB cannot open data.mdb");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	relay_guard_init(st->env, path);
	if ((rc = mdb_reader_check(st->env, &dead)) != 0)
		goto fail;
	if (dead > 0)
		log_info("store: cleared %d stale reader slots", dead);
	rc = relay_store_dbis_guarded(st, 0, &why);
	if (rc == MDB_INCOMPATIBLE && !converted) {
		/* Format 1: copied once with tags, then opened again. */
		rc = relay_store_dbis_guarded(st, 1, NULL);
		if (rc == 0 && (rc = relay_store_convert(st)) == 0) {
			mdb_env_close(st->env);
			st->env = NULL;
			memset(st->have_dbi, 0, sizeof(st->have_dbi));
			converted = 1;
			goto again;
		}
		log_warnx("store: the conversion failed: %s", mdb_strerror(rc));
		rc = MDB_INCOMPATIBLE;
	}
	if (rc != 0 && relay_store_err(rc) == ALX_ERR_STORAGE) {
		/* Damaged: what can be read, is; no miss is proof. */
		st->baddb = ~0u;
		relay_store_damage(st, NULL, why != NULL ? why :
		    "its databases cannot be opened for writing");
		free(why);
		rc = relay_store_dbis_guarded(st, 1, NULL);
		if (rc != 0) {
			mdb_env_close(st->env);
			st->env = NULL;
		}
		return 0;
	}
	if (rc != 0)
		goto fail;
	/*
	 * Truncation, a walk along the edges of every tree, then every
	 * record and the free list read and checked (as --check does): a
	 * write could meet any damaged page, so damage refuses every write.
	 */
	if (relay_store_probe(st, &why) != 0)
		st->baddb = ~0u;	/* pages missing: no miss is proof */
	if (st->baddb != 0 || relay_store_walk_check(st, &why) != 0) {
		relay_store_damage(st, NULL, why != NULL ? why : "damaged");
		free(why);
	} else if (relay_store_mark(dir) != 0)
		log_warn("store: cannot write the marker in %s", dir);
	return 0;
fail:
	if (cause != NULL && asprintf(cause, "LMDB in %s: %s", dir,
	    mdb_strerror(rc)) == -1)
		*cause = NULL;
	*out = NULL;
	if (st->env != NULL)
		mdb_env_close(st->env);
	pthread_mutex_destroy(&st->mtx);
	pthread_cond_destroy(&st->cond);
	free(st->dir);
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

/*
 * Next cursor of a session: one past the largest stored. That record's
 * tag must hold: a damaged key would give the next item a taken cursor.
 */
static int
relay_store_next_cursor(struct relay_store *st, MDB_txn *txn, MDB_dbi dbi,
    const uint8_t *sid, uint64_t *next, MDB_cursor **home)
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
	/* A read transaction's cursor is the guard's to close on a fault. */
	if (home != NULL)
		*home = c;
	k.mv_data = probe;
	k.mv_size = sizeof(probe);
	rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
	if (rc == 0)
		rc = mdb_cursor_get(c, &k, &v, MDB_PREV);
	else if (rc == MDB_NOTFOUND)
		rc = mdb_cursor_get(c, &k, &v, MDB_LAST);
	if (rc == 0 && k.mv_size == sizeof(probe) &&
	    memcmp(k.mv_data, sid, RELAY_SID_LEN) == 0) {
		if (relay_store_checked(st, RELAY_DB_ITEMS, &k, &v) != 0)
			rc = MDB_CORRUPTED;
		else
			*next = relay_get_be64((uint8_t *)k.mv_data +
			    RELAY_SID_LEN) + 1;
	}
	mdb_cursor_close(c);
	if (home != NULL)
		*home = NULL;
	return rc == MDB_NOTFOUND ? 0 : rc;
}

static int
relay_store_append(struct relay_store *st, MDB_txn *txn,
    struct relay_wop *op, struct relay_wstep *s)
{
	MDB_val		 k;
	uint8_t		 ikey[RELAY_SID_LEN + 8], be[8];
	uint64_t	 cursor;
	int		 rc;

	if (s->keylen < RELAY_SID_LEN)
		return EINVAL;
	if ((rc = relay_store_next_cursor(st, txn, st->dbi[RELAY_DB_ITEMS],
	    s->key, &cursor, NULL)) != 0)
		return rc;
	relay_be64(be, cursor);
	k.mv_data = s->key;
	k.mv_size = s->keylen;
	/* A key longer than the sid names the entry in the id index. */
	if (s->keylen > RELAY_SID_LEN && (rc = relay_store_put_tagged(txn,
	    st->dbi[RELAY_DB_ITEMIDX], &k, be, sizeof(be),
	    MDB_NOOVERWRITE)) != 0)
		return rc;
	memcpy(ikey, s->key, RELAY_SID_LEN);
	memcpy(ikey + RELAY_SID_LEN, be, 8);
	k.mv_data = ikey;
	k.mv_size = sizeof(ikey);
	if ((rc = relay_store_put_tagged(txn, st->dbi[RELAY_DB_ITEMS], &k,
	    s->val, s->vallen, 0)) != 0)
		return rc;
	op->cursor = cursor;
	return 0;
}

/* Apply every step of an operation in `txn`; an LMDB or errno code. */
static int
relay_store_steps(struct relay_store *st, MDB_txn *txn, struct relay_wop *op)
{
	struct relay_wstep	*s;
	MDB_val			 k;
	int			 i, rc = 0, db;

	for (i = 0; i < op->nsteps && rc == 0; i++) {
		s = &op->steps[i];
		k.mv_data = s->key;
		k.mv_size = s->keylen;
		switch (s->kind) {
		case RELAY_W_PUT:
			rc = relay_store_put_tagged(txn, st->dbi[s->db], &k,
			    s->val, s->vallen, 0);
			break;
		case RELAY_W_PUT_NEW:
			rc = relay_store_put_tagged(txn, st->dbi[s->db], &k,
			    s->val, s->vallen, MDB_NOOVERWRITE);
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

/* One operation in its own transaction; an LMDB or errno code. */
static int
relay_store_apply1(struct relay_store *st, struct relay_guard *g,
    struct relay_wop *op)
{
	int	rc;

	if ((rc = mdb_txn_begin(st->env, NULL, 0, &g->txn)) != 0)
		return rc;
	if ((rc = relay_store_steps(st, g->txn, op)) != 0) {
		mdb_txn_abort(g->txn);
		g->txn = NULL;
		return rc;
	}
	rc = mdb_txn_commit(g->txn);
	g->txn = NULL;
	return rc;
}

struct relay_apply_arg {
	struct relay_store	*st;
	struct relay_wop	*op;
};

static int
relay_store_apply_fn(struct relay_guard *g, void *arg)
{
	struct relay_apply_arg	*a = arg;

	return relay_store_apply1(a->st, g, a->op);
}

int
relay_store_apply(struct relay_store *st, struct relay_wop *op)
{
	struct relay_apply_arg	a = { st, op };
	struct relay_guard	g;
	int			rc;

	if ((op->result = relay_store_writable(st, op)) != 0)
		return op->result;
	if ((rc = relay_guarded(&g, relay_store_apply_fn, &a)) ==
	    RELAY_FAULTED)
		return op->result = relay_store_faulted(st, &g,
		    relay_wop_sid(op));
	return op->result = relay_store_rc(st, relay_wop_sid(op), rc);
}

/* Is the file system of the store nearly full (a short write's cause)? */
static int
relay_store_full_now(struct relay_store *st)
{
	struct statvfs	sv;

	if (statvfs(st->dir, &sv) == -1)
		return 0;
	return (uint64_t)sv.f_bavail * sv.f_frsize < (uint64_t)64 * 1024 * 1024;
}

/*
 * One batch: each op in a nested transaction, one commit for all; `txn`
 * is the guard's. 0, or an LMDB code that failed the whole batch.
 */
static int
relay_store_batch1(struct relay_store *st, struct relay_guard *g,
    struct relay_wopq *batch)
{
	struct relay_wop	*op;
	MDB_txn			*child;
	int			 rc;

	if ((rc = mdb_txn_begin(st->env, NULL, 0, &g->txn)) != 0)
		return rc;
	TAILQ_FOREACH(op, batch, entry) {
		if (op->result != 0 ||
		    (op->result = relay_store_writable(st, op)) != 0)
			continue;
		if ((rc = mdb_txn_begin(st->env, g->txn, 0, &child)) != 0) {
			op->result = relay_store_rc(st, NULL, rc);
			continue;
		}
		if ((rc = relay_store_steps(st, child, op)) != 0) {
			mdb_txn_abort(child);
			op->result = relay_store_rc(st, relay_wop_sid(op), rc);
			continue;
		}
		rc = mdb_txn_commit(child);
		op->result = relay_store_rc(st, relay_wop_sid(op), rc);
	}
	rc = mdb_txn_commit(g->txn);
	g->txn = NULL;
	if (rc != 0)
		log_warnx("store: commit: %s", mdb_strerror(rc));
	return rc;
}

/*
 * The batch, under a guard. A fault abandons the whole transaction; then
 * each operation is applied again on its own, so that only those that
 * meet the damage fail (and mark their session damaged).
 */
struct relay_batch_arg {
	struct relay_store	*st;
	struct relay_wopq	*batch;
};

static int
relay_store_batch_fn(struct relay_guard *g, void *arg)
{
	struct relay_batch_arg	*a = arg;

	return relay_store_batch1(a->st, g, a->batch);
}

static void
relay_store_batch(struct relay_store *st, struct relay_wopq *batch)
{
	struct relay_batch_arg	 a;
	struct relay_guard	 g;
	struct relay_wop	*op;
	int			 rc;

	if (st->env == NULL) {
		TAILQ_FOREACH(op, batch, entry)
			op->result = ALX_ERR_STORAGE;
		return;
	}
	TAILQ_FOREACH(op, batch, entry)
		op->result = 0;
	relay_store_admit(st, batch);
	a.st = st;
	a.batch = batch;
	if ((rc = relay_guarded(&g, relay_store_batch_fn, &a)) ==
	    RELAY_FAULTED) {
		log_warnx("store: a batch of writes met damaged pages (%s); "
		    "its writes are applied one by one",
		    relay_guard_what(g.fault));
		TAILQ_FOREACH(op, batch, entry)
			if (op->result != ALX_ERR_NO_SPACE)
				relay_store_apply(st, op);
		relay_store_promises(st, batch);
		return;
	}
	if (rc != 0) {
		/* A short write of a full disk is EIO to LMDB. */
		rc = rc == EIO && relay_store_full_now(st) ? ALX_ERR_NO_SPACE :
		    relay_store_rc(st, NULL, rc);
		TAILQ_FOREACH(op, batch, entry)
			if (op->result == 0)
				op->result = rc;
		return;
	}
	relay_store_promises(st, batch);
}

/*
 * Disk space. LMDB writes a commit's new pages at the end of its file;
 * when the disk fills in the middle of that, the write comes up short and
 * LMDB says EIO, and a commit of an item whose chunks were promised a
 * place (its post answered 201) could come after one that took that
 * place. So the writer makes room before it writes: the data file holds
 * written zeros past LMDB's last page (relay_store_extend()), and a batch
 * goes only as far as they reach:
 *
 * - each operation is given a bound on the pages it may add (its values,
 *   rounded up to pages, and a share of the tree pages a commit copies);
 * - an item post also promises its chunks their room (op->promise), kept
 *   for them until they are written or the session goes;
 * - a chunk write uses its item's promise; anything else must leave every
 *   promise and RELAY_DEL_RESERVE (for deleting sessions, which frees
 *   space but copies a few pages to do it) untouched;
 * - what does not fit is answered ALX_ERR_NO_SPACE (507) before a byte of
 *   it is written, whatever --disk-watermark says.
 *
 * The zeros also spare each commit's fdatasync the file system's metadata
 * (a commit then overwrites blocks already written, docs/performance.md):
 * between commits the writer keeps RELAY_PREP_AHEAD of them, topped up a
 * step (1 MiB) at a time as LMDB uses them, so that no commit waits for a
 * 16 MiB write and its flush, and most commits write no zeros at all.
 * Zeros, not fallocate(): an allocated but unwritten range still changes
 * metadata on its first write. LMDB never reads past its last page, so it
 * never sees them. When the disk is full they stay, as the room promised;
 * the writer tries again at most once a second, and writes go on as soon
 * as there is space.
 */
#define RELAY_DEL_RESERVE	((off_t)1024 * 1024)
#define RELAY_TREE_PAGES	16	/* copied per session and batch */

static off_t
relay_page_size(void)
{
	long	ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (off_t)ps : 4096;
}

/* Pages a value of len bytes takes: its own when it does not fit in half
 * a page (LMDB's overflow pages), else its share of a leaf. */
static off_t
relay_value_bytes(size_t keylen, size_t len)
{
	off_t	ps = relay_page_size(), n = (off_t)(keylen + len +
		    RELAY_TAG_LEN + 16);

	if (n > ps / 2)
		return (n + ps - 1) / ps * ps;
	return n * 2;			/* leaves are half full at worst */
}

uint64_t
relay_store_chunk_need(size_t len)
{
	off_t	ps = relay_page_size();

	return (uint64_t)(relay_value_bytes(RELAY_SID_LEN + 20, len) +
	    RELAY_TREE_PAGES * ps);
}

int
relay_store_full(struct relay_store *st)
{
	return __atomic_load_n(&st->full, __ATOMIC_RELAXED);
}

/* Does the operation only delete? (It may use RELAY_DEL_RESERVE.) */
static int
relay_wop_deletes(const struct relay_wop *op)
{
	int	i;

	for (i = 0; i < op->nsteps; i++)
		if (op->steps[i].kind != RELAY_W_DEL &&
		    op->steps[i].kind != RELAY_W_DEL_PREFIX &&
		    op->steps[i].kind != RELAY_W_DEL_SESSION)
			return 0;
	return 1;
}

/* The bound on the bytes an operation's values add. */
static off_t
relay_wop_need(const struct relay_wop *op)
{
	const struct relay_wstep	*s;
	off_t				 n = 0;
	int				 i;

	for (i = 0; i < op->nsteps; i++) {
		s = &op->steps[i];
		if (s->kind == RELAY_W_PUT || s->kind == RELAY_W_PUT_NEW)
			n += relay_value_bytes(s->keylen, s->vallen);
		else if (s->kind == RELAY_W_APPEND_ITEM)
			n += relay_value_bytes(RELAY_SID_LEN + 8, s->vallen) +
			    relay_value_bytes(s->keylen, 8);
	}
	return n;
}

static struct relay_promise *
relay_promise_find(struct relay_store *st, const uint8_t *sid, int create)
{
	struct relay_promise	*p;
	size_t			 i, cap;

	for (i = 0; i < st->npromises; i++)
		if (memcmp(st->promises[i].sid, sid, RELAY_SID_LEN) == 0)
			return &st->promises[i];
	if (!create)
		return NULL;
	if (st->npromises == st->cappromises) {
		cap = st->cappromises ? st->cappromises * 2 : 16;
		if ((p = reallocarray(st->promises, cap, sizeof(*p))) == NULL)
			return NULL;
		st->promises = p;
		st->cappromises = cap;
	}
	p = &st->promises[st->npromises++];
	memcpy(p->sid, sid, RELAY_SID_LEN);
	p->bytes = 0;
	return p;
}

static void
relay_promise_drop(struct relay_store *st, struct relay_promise *p)
{
	st->promised -= p->bytes < st->promised ? p->bytes : st->promised;
	*p = st->promises[--st->npromises];
}

/* What a chunk write may take from its session's promise. */
static uint64_t
relay_promise_share(struct relay_store *st, const struct relay_wop *op)
{
	struct relay_promise	*p;
	const uint8_t		*sid = relay_wop_sid(op);
	uint64_t		 want = (uint64_t)-op->promise;

	if (op->promise >= 0 || sid == NULL ||
	    (p = relay_promise_find(st, sid, 0)) == NULL)
		return 0;
	return want < p->bytes ? want : p->bytes;
}

/*
 * Written zeros past LMDB's last page, up to `want` bytes past it (at
 * most the map size). What could not be written (a full disk, a quota, a
 * file size limit) stays short; the zeros written stay. Returns the room
 * there is past the last page.
 */
static off_t
relay_store_extend(struct relay_store *st, off_t want)
{
	static const uint8_t	 zero[64 * 1024];
	MDB_envinfo		 info;
	MDB_stat		 ms;
	struct stat		 sb;
	mdb_filehandle_t	 fd;
	off_t			 used, target, off;
	ssize_t			 w;
	size_t			 n;

	if (st->env == NULL || mdb_env_info(st->env, &info) != 0 ||
	    mdb_env_stat(st->env, &ms) != 0 || mdb_env_get_fd(st->env, &fd) !=
	    0)
		return 0;
	used = ((off_t)info.me_last_pgno + 1) * (off_t)ms.ms_psize;
	if (st->prepared == 0) {
		if (fstat(fd, &sb) == -1)
			return 0;
		st->prepared = sb.st_size;
	}
	if (st->prepared < used)
		st->prepared = used;
	target = used + want;
	if (target > st->mapsize)
		target = st->mapsize;
	if (st->prepared >= target)
		return st->prepared - used;
	/* After a failure, once a second at most. */
	if (st->prep_failed != 0 && time(NULL) == st->prep_failed)
		return st->prepared - used;
	for (off = st->prepared; off < target; off += w) {
		n = sizeof(zero);
		if ((off_t)n > target - off)
			n = (size_t)(target - off);
		if ((w = pwrite(fd, zero, n, off)) <= 0) {
			if (st->prep_failed == 0)
				log_info("store: cannot extend the data file "
				    "(%s): writes go on within the room there "
				    "is, then get 507", strerror(errno));
			st->prep_failed = time(NULL);
			st->prepared = off;
			return st->prepared - used;
		}
	}
	if (st->prep_failed != 0)
		log_info("store: the data file grows again");
	st->prep_failed = 0;
	st->prepared = target;
	return st->prepared - used;
}

/*
 * Between commits: RELAY_PREP_AHEAD of zeros past LMDB's last page plus
 * the room promised, topped up once LMDB used a step of them.
 */
static void
relay_store_prepare(struct relay_store *st)
{
	MDB_envinfo	info;
	MDB_stat	ms;
	off_t		used, want;

	if (st->env == NULL || relay_store_writable(st, NULL) != 0 ||
	    mdb_env_info(st->env, &info) != 0 || mdb_env_stat(st->env, &ms) !=
	    0)
		return;
	used = ((off_t)info.me_last_pgno + 1) * (off_t)ms.ms_psize;
	want = RELAY_PREP_AHEAD + RELAY_DEL_RESERVE + (off_t)st->promised;
	if (st->prep_used != 0 && st->prepared - used >= want - RELAY_PREP_STEP)
		return;			/* less than a step used */
	if (st->prep_used != 0 && want > st->prepared - used + (used -
	    st->prep_used) + 2 * RELAY_PREP_STEP)
		want = st->prepared - used + (used - st->prep_used) +
		    2 * RELAY_PREP_STEP;
	st->prep_used = used;
	relay_store_extend(st, want);
}

/*
 * Before a batch: what fits in the room there is (made first), in order;
 * what does not is refused with ALX_ERR_NO_SPACE before it is written.
 */
static void
relay_store_admit(struct relay_store *st, struct relay_wopq *batch)
{
	struct relay_wop	*op;
	struct relay_sidset_small {
		uint8_t		 sid[16][RELAY_SID_LEN];
		unsigned	 n;
	}			 seen;
	const uint8_t		*sid;
	off_t			 ps = relay_page_size(), need = 0, room;
	off_t			 reserved, n, share, tree;
	unsigned		 i, groups = 0;
	int			 refused = 0;

	if (st->env == NULL)
		return;
	seen.n = 0;
	TAILQ_FOREACH(op, batch, entry) {
		if (op->result != 0 || relay_wop_deletes(op))
			continue;
		need += relay_wop_need(op) + (op->promise > 0 ? op->promise :
		    0);
		/* Tree pages: a share per session the batch writes to. */
		sid = relay_wop_sid(op);
		for (i = 0; sid != NULL && i < seen.n; i++)
			if (memcmp(seen.sid[i], sid, RELAY_SID_LEN) == 0)
				break;
		if (sid == NULL || i == seen.n) {
			groups++;
			if (sid != NULL && seen.n < 16)
				memcpy(seen.sid[seen.n++], sid, RELAY_SID_LEN);
		}
	}
	tree = (8 + RELAY_TREE_PAGES * (off_t)groups) * ps;
	reserved = RELAY_DEL_RESERVE + (off_t)st->promised;
	room = relay_store_extend(st, reserved + need + tree + RELAY_PREP_STEP);
	room -= tree;
	TAILQ_FOREACH(op, batch, entry) {
		if (op->result != 0 || relay_wop_deletes(op))
			continue;
		n = relay_wop_need(op) + (op->promise > 0 ? op->promise : 0);
		share = (off_t)relay_promise_share(st, op);
		if (n <= room - reserved + share) {
			room -= n;
			reserved -= share;
			continue;
		}
		op->result = ALX_ERR_NO_SPACE;
		refused = 1;
	}
	__atomic_store_n(&st->full, refused, __ATOMIC_RELAXED);
}

/* After the commit: promises made, used, and given back with a session. */
static void
relay_store_promises(struct relay_store *st, struct relay_wopq *batch)
{
	struct relay_wop	*op;
	struct relay_promise	*p;
	const uint8_t		*sid;
	uint64_t		 share;
	int			 i;

	TAILQ_FOREACH(op, batch, entry) {
		if (op->result != 0 || (sid = relay_wop_sid(op)) == NULL)
			continue;
		for (i = 0; i < op->nsteps; i++)
			if (op->steps[i].kind == RELAY_W_DEL_SESSION &&
			    (p = relay_promise_find(st, op->steps[i].key,
			    0)) != NULL)
				relay_promise_drop(st, p);
		if (op->promise > 0 &&
		    (p = relay_promise_find(st, sid, 1)) != NULL) {
			p->bytes += (uint64_t)op->promise;
			st->promised += (uint64_t)op->promise;
		} else if (op->promise < 0 && (share = relay_promise_share(st,
		    op)) > 0) {
			p = relay_promise_find(st, sid, 0);
			p->bytes -= share;
			st->promised -= share;
			if (p->bytes == 0)
				relay_promise_drop(st, p);
		}
	}
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
	int	rc;

	if (!st->started)
		return ALX_ERR_NOT_READY;
	if ((rc = relay_store_writable(st, op)) != 0)
		return rc;
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
	if (st->env != NULL)
		mdb_env_close(st->env);
	pthread_mutex_destroy(&st->mtx);
	pthread_cond_destroy(&st->cond);
	free(st->promises);
	free(st->dir);
	free(st);
}

/* The sid of a key of db, or NULL (for the damage it may meet). */
static const uint8_t *
relay_key_sid(int db, const void *key, size_t keylen)
{
	if (db >= RELAY_DB_FIRST_SESSION && keylen >= RELAY_SID_LEN)
		return key;
	return NULL;
}

/*
 * Around the place of a key not found, the records on either side must
 * sort after and before it and each other, and carry their tags. A key
 * changed in a leaf (the record asked for, now under another key, or
 * another record's key that sent the search astray) or in a branch page
 * (the search sent to the wrong page) breaks one or the other: the miss
 * is then damage, not an absent record.
 */
#define RELAY_NEAR_SIDE	2

static int
relay_store_misplaced(struct relay_store *st, int db)
{
	if (log_rl_allow(&relay_store_rl))
		log_warnx("store: a damaged page in %s: its records are out "
		    "of order", relay_db_names[db]);
	relay_store_damage(st, NULL, "records out of order");
	relay_store_damage_db(st, db);
	return ALX_ERR_STORAGE;
}

static int
relay_store_around1(struct relay_store *st, struct relay_guard *g, int db,
    const MDB_val *want, int forward)
{
	MDB_val	k = *want, v, last = *want;
	int	rc, i, c;

	/* A cursor of its own: LMDB's SET_RANGE starts from a cursor's page. */
	if (mdb_cursor_open(g->txn, st->dbi[db], &g->cursor) != 0)
		return ALX_ERR_STORAGE;
	rc = mdb_cursor_get(g->cursor, &k, &v, MDB_SET_RANGE);
	if (rc == 0 && mdb_cmp(g->txn, st->dbi[db], &k, want) == 0)
		rc = relay_store_misplaced(st, db);	/* there, yet missed */
	else if (!forward)
		rc = mdb_cursor_get(g->cursor, &k, &v, rc == MDB_NOTFOUND ?
		    MDB_LAST : MDB_PREV);
	for (i = 0; rc == 0 && i < RELAY_NEAR_SIDE; i++) {
		c = mdb_cmp(g->txn, st->dbi[db], &k, &last);
		if (forward ? c <= 0 : c >= 0) {
			rc = relay_store_misplaced(st, db);
			break;
		}
		if (relay_store_checked(st, db, &k, &v) != 0) {
			rc = ALX_ERR_STORAGE;
			break;
		}
		last = k;
		rc = mdb_cursor_get(g->cursor, &k, &v, forward ? MDB_NEXT :
		    MDB_PREV);
	}
	mdb_cursor_close(g->cursor);
	g->cursor = NULL;
	if (rc == ALX_ERR_STORAGE)
		return rc;
	return rc == 0 || rc == MDB_NOTFOUND ? 0 : relay_store_rc(st, NULL, rc);
}

/*
 * A key not found: not found, unless its database is known to be damaged
 * (at open, every record was read and looked up by its key), the records
 * around its place say otherwise (relay_store_around1()), or a record of
 * the same session (of the same item, for chunks; RELAY_NEAR_MAX at most)
 * is damaged, out of order, or the very key asked for.
 */
#define RELAY_NEAR_MAX	20000

static int
relay_store_missing(struct relay_store *st, struct relay_guard *g, int db,
    const void *key, size_t keylen)
{
	MDB_val		 k, v, want, last;
	size_t		 plen = db == RELAY_DB_CHUNKS ? RELAY_SID_LEN +
			    ALX_ID_LEN : RELAY_SID_LEN;
	unsigned	 n = 0;
	int		 rc, op = MDB_SET_RANGE;

	if (relay_store_db_damaged(st, db))
		return ALX_ERR_STORAGE;
	want.mv_data = (void *)key;
	want.mv_size = keylen;
	if ((rc = relay_store_around1(st, g, db, &want, 1)) != 0 ||
	    (rc = relay_store_around1(st, g, db, &want, 0)) != 0)
		return rc;
	if (db < RELAY_DB_FIRST_SESSION || keylen < plen ||
	    mdb_cursor_open(g->txn, st->dbi[db], &g->cursor) != 0)
		return ALX_ERR_NOT_FOUND;
	k.mv_data = (void *)key;
	k.mv_size = plen;
	last = k;
	rc = ALX_ERR_NOT_FOUND;
	while (n++ < RELAY_NEAR_MAX && mdb_cursor_get(g->cursor, &k, &v,
	    op) == 0) {
		op = MDB_NEXT;
		if (mdb_cmp(g->txn, st->dbi[db], &k, &last) <= 0) {
			rc = relay_store_misplaced(st, db);
			break;
		}
		if (relay_store_checked(st, db, &k, &v) != 0 ||
		    mdb_cmp(g->txn, st->dbi[db], &k, &want) == 0) {
			rc = ALX_ERR_STORAGE;
			break;
		}
		if (k.mv_size < plen || memcmp(k.mv_data, key, plen) != 0)
			break;
		last = k;
	}
	mdb_cursor_close(g->cursor);
	g->cursor = NULL;
	return rc;
}

static int
relay_store_get1(struct relay_store *st, struct relay_guard *g, int db,
    const void *key, size_t keylen, struct alx_buf *out)
{
	MDB_val	k, v;
	int	rc;

	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &g->txn)) != 0)
		return relay_store_rc(st, NULL, rc);
	k.mv_data = (void *)key;
	k.mv_size = keylen;
	if ((rc = mdb_get(g->txn, st->dbi[db], &k, &v)) == MDB_NOTFOUND)
		rc = relay_store_missing(st, g, db, key, keylen);
	else if (rc != 0)
		rc = relay_store_rc(st, relay_key_sid(db, key, keylen), rc);
	else if ((rc = relay_store_checked(st, db, &k, &v)) == 0) {
		alx_buf_reset(out);
		rc = alx_buf_add(out, v.mv_data, v.mv_size);
	}
	mdb_txn_abort(g->txn);
	g->txn = NULL;
	return rc;
}

struct relay_get_arg {
	struct relay_store	*st;
	int			 db;
	const void		*key;
	size_t			 keylen;
	struct alx_buf		*out;
};

static int
relay_store_get_fn(struct relay_guard *g, void *arg)
{
	struct relay_get_arg	*a = arg;

	return relay_store_get1(a->st, g, a->db, a->key, a->keylen, a->out);
}

int
relay_store_get(struct relay_store *st, int db, const void *key,
    size_t keylen, struct alx_buf *out)
{
	struct relay_get_arg	a = { st, db, key, keylen, out };
	struct relay_guard	g;
	int			rc;

	if (db < 0 || db >= RELAY_DB_COUNT)
		return ALX_ERR_INVALID;
	if (st->env == NULL)
		return ALX_ERR_STORAGE;
	if (!st->have_dbi[db])
		return relay_store_db_damaged(st, db) ? ALX_ERR_STORAGE :
		    ALX_ERR_NOT_FOUND;
	if ((rc = relay_guarded(&g, relay_store_get_fn, &a)) == RELAY_FAULTED)
		rc = relay_store_faulted(st, &g, relay_key_sid(db, key,
		    keylen));
	/* Whatever found it (a tag, the order, a fault): misses there lie. */
	if (rc == ALX_ERR_STORAGE)
		relay_store_damage_db(st, db);
	return rc;
}

/*
 * A walk over the records of db from `start` (MDB_SET_RANGE; NULL: from
 * the first) while their keys start with `prefix`: each record checked,
 * then given to fn; fn returns 0 to go on, > 0 to stop, < 0 for an error.
 * Returns the records given, or an ALX_ERR_* code.
 */
typedef int relay_walk_fn(const MDB_val *, const MDB_val *, void *);

struct relay_walk {
	int		 db;
	const void	*start;
	size_t		 startlen;
	const void	*prefix;
	size_t		 plen;
	unsigned	 max;
	int		 check;		/* check each value's tag */
	relay_walk_fn	*fn;
	void		*arg;
};

static int
relay_store_walk1(struct relay_store *st, struct relay_guard *g,
    const struct relay_walk *w)
{
	MDB_val		 k, v;
	unsigned	 n = 0;
	int		 rc, err = 0, op = w->start != NULL ? MDB_SET_RANGE :
			    MDB_FIRST;

	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &g->txn)) != 0)
		return relay_store_rc(st, NULL, rc);
	if ((rc = mdb_cursor_open(g->txn, st->dbi[w->db], &g->cursor)) != 0)
		goto out;
	k.mv_data = (void *)w->start;
	k.mv_size = w->startlen;
	while (n < w->max && (rc = mdb_cursor_get(g->cursor, &k, &v,
	    op)) == 0) {
		op = MDB_NEXT;
		if (w->plen > 0 && (k.mv_size < w->plen ||
		    memcmp(k.mv_data, w->prefix, w->plen) != 0))
			break;
		if (w->check && (err = relay_store_checked(st, w->db, &k,
		    &v)) != 0)
			break;
		if ((err = w->fn(&k, &v, w->arg)) != 0)
			break;
		n++;
	}
out:
	relay_guard_done(g);
	if (err < 0)
		return err;		/* a damaged record, or fn's error */
	if (rc != 0 && rc != MDB_NOTFOUND)
		return relay_store_rc(st, relay_key_sid(w->db, w->prefix,
		    w->plen), rc);
	return (int)n;
}

struct relay_walk_arg {
	struct relay_store		*st;
	const struct relay_walk		*w;
};

static int
relay_store_walk_fn(struct relay_guard *g, void *arg)
{
	struct relay_walk_arg	*a = arg;

	return relay_store_walk1(a->st, g, a->w);
}

static int
relay_store_walk(struct relay_store *st, const struct relay_walk *w)
{
	struct relay_walk_arg	a = { st, w };
	struct relay_guard	g;
	int			rc;

	if (w->db < 0 || w->db >= RELAY_DB_COUNT)
		return ALX_ERR_INVALID;
	if (st->env == NULL)
		return ALX_ERR_STORAGE;
	if (!st->have_dbi[w->db])
		return relay_store_db_damaged(st, w->db) ? ALX_ERR_STORAGE : 0;
	if ((rc = relay_guarded(&g, relay_store_walk_fn, &a)) ==
	    RELAY_FAULTED)
		rc = relay_store_faulted(st, &g, relay_key_sid(w->db,
		    w->prefix, w->plen));
	return rc;
}

struct relay_items_arg {
	relay_item_cb	*cb;
	void		*arg;
};

static int
relay_items_fn(const MDB_val *k, const MDB_val *v, void *arg)
{
	struct relay_items_arg	*a = arg;

	if (k->mv_size != RELAY_SID_LEN + 8)
		return 1;
	return a->cb(relay_get_be64((uint8_t *)k->mv_data + RELAY_SID_LEN),
	    v->mv_data, v->mv_size, a->arg);
}

int
relay_store_items_after(struct relay_store *st,
    const uint8_t sid[RELAY_SID_LEN], uint64_t after, unsigned max,
    relay_item_cb *cb, void *arg)
{
	struct relay_items_arg	a = { cb, arg };
	struct relay_walk	w;
	uint8_t			probe[RELAY_SID_LEN + 8];

	if (after == UINT64_MAX)
		return 0;
	memcpy(probe, sid, RELAY_SID_LEN);
	relay_be64(probe + RELAY_SID_LEN, after + 1);
	memset(&w, 0, sizeof(w));
	w.db = RELAY_DB_ITEMS;
	w.start = probe;
	w.startlen = sizeof(probe);
	w.prefix = sid;
	w.plen = RELAY_SID_LEN;
	w.max = max;
	w.check = 1;
	w.fn = relay_items_fn;
	w.arg = &a;
	return relay_store_walk(st, &w);
}

static int
relay_store_last_cursor1(struct relay_store *st, struct relay_guard *g,
    const uint8_t *sid, uint64_t *out)
{
	int	rc;

	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &g->txn)) != 0)
		return relay_store_rc(st, NULL, rc);
	rc = relay_store_next_cursor(st, g->txn, st->dbi[RELAY_DB_ITEMS], sid,
	    out, &g->cursor);
	mdb_txn_abort(g->txn);
	g->txn = NULL;
	return relay_store_rc(st, sid, rc);
}

struct relay_last_arg {
	struct relay_store	*st;
	const uint8_t		*sid;
	uint64_t		*out;
};

static int
relay_store_last_fn(struct relay_guard *g, void *arg)
{
	struct relay_last_arg	*a = arg;

	return relay_store_last_cursor1(a->st, g, a->sid, a->out);
}

int
relay_store_last_cursor(struct relay_store *st,
    const uint8_t sid[RELAY_SID_LEN], uint64_t *out)
{
	struct relay_last_arg	a = { st, sid, out };
	struct relay_guard	g;
	int			rc;

	*out = 0;
	if (st->env == NULL || !st->have_dbi[RELAY_DB_ITEMS])
		return ALX_ERR_STORAGE;
	if ((rc = relay_guarded(&g, relay_store_last_fn, &a)) ==
	    RELAY_FAULTED)
		rc = relay_store_faulted(st, &g, sid);
	if (rc == 0)
		(*out)--;
	return rc;
}

struct relay_expired_arg {
	uint64_t	 now;
	relay_sid_cb	*cb;
	void		*arg;
};

static int
relay_expired_fn(const MDB_val *k, const MDB_val *v, void *arg)
{
	struct relay_expired_arg	*a = arg;
	MDB_val				 vv = *v;
	uint64_t			 when;

	/* A damaged entry is passed over: it could name another session. */
	if (k->mv_size != 8 + RELAY_SID_LEN || relay_store_untag(k, &vv) != 0)
		return 0;
	when = relay_get_be64(k->mv_data);
	if (when > a->now)
		return 1;
	return a->cb((uint8_t *)k->mv_data + 8, when, a->arg);
}

int
relay_store_expired(struct relay_store *st, uint64_t now, unsigned max,
    relay_sid_cb *cb, void *arg)
{
	struct relay_expired_arg	a = { now, cb, arg };
	struct relay_walk		w;

	memset(&w, 0, sizeof(w));
	w.db = RELAY_DB_EXPIRY;
	w.max = max;
	w.fn = relay_expired_fn;
	w.arg = &a;
	return relay_store_walk(st, &w);
}

static int
relay_count_fn(const MDB_val *k, const MDB_val *v, void *arg)
{
	(void)k;
	(void)v;
	(*(uint64_t *)arg)++;
	return 0;
}

int
relay_store_count_session(struct relay_store *st,
    const uint8_t sid[RELAY_SID_LEN], uint64_t *count)
{
	struct relay_walk	w;
	int			rc, db;

	*count = 0;
	memset(&w, 0, sizeof(w));
	w.start = w.prefix = sid;
	w.startlen = w.plen = RELAY_SID_LEN;
	w.max = UINT32_MAX;
	w.fn = relay_count_fn;
	w.arg = count;
	for (db = RELAY_DB_FIRST_SESSION; db < RELAY_DB_COUNT; db++) {
		w.db = db;
		if ((rc = relay_store_walk(st, &w)) < 0)
			return rc;
	}
	return 0;
}

struct relay_scan_arg {
	relay_scan_cb	*cb;
	void		*arg;
};

static int
relay_scan_fn(const MDB_val *k, const MDB_val *v, void *arg)
{
	struct relay_scan_arg	*a = arg;

	if (a->cb == NULL)
		return 0;
	return a->cb(k->mv_data, k->mv_size, v->mv_data, v->mv_size, a->arg);
}

int
relay_store_scan(struct relay_store *st, int db, const void *prefix,
    size_t plen, relay_scan_cb *cb, void *arg)
{
	struct relay_scan_arg	a = { cb, arg };
	struct relay_walk	w;

	memset(&w, 0, sizeof(w));
	w.db = db;
	w.start = plen > 0 ? prefix : NULL;
	w.startlen = plen;
	w.prefix = prefix;
	w.plen = plen;
	w.max = UINT32_MAX;
	w.check = cb != NULL;
	w.fn = relay_scan_fn;
	w.arg = &a;
	return relay_store_walk(st, &w);
}
