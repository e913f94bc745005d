/*
 * relay-store-check.c: the store's file, checked at open and on demand.
 *
 * At open (relay_store_open()): before LMDB sees the file, a directory
 * that held a database (the marker DIR/airlox-relayd.store) with its
 * data.mdb missing or empty is lost, not new: LMDB would start an empty
 * database over it. Both meta pages must be LMDB's; when one is damaged
 * (LMDB then refuses the file whole) it is rewritten from the other, the
 * state of one transaction earlier, whose pages LMDB keeps. After LMDB
 * opened it: the file must hold every page its meta page names that is
 * not on the free list (else it was truncated), and the edges of every
 * tree and the free list are read under a guard. Records written before
 * tags existed (format 1) are copied once into a new database with tags.
 * What this finds is damage (relay-store.c): the relay serves what it
 * can, and says so.
 *
 * airlox-relayd --check reads every record of every database under
 * guards, checks every tag, and reports by session; --salvage DIR copies
 * every session found whole into a new database in DIR
 * (docs/deploy.md, "Checking and recovering storage").
 *
 * The meta page check knows LMDB's file format, data version 1 (every
 * 0.9 release): a page header (page number, 8 bytes; pad, flags, 2 each;
 * 4 more) then the meta (magic 0xBEEFC0DE, version, address, map size,
 * two database records of 48 bytes, the last page, the transaction id).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "util/log.h"
#include "relay-store-int.h"

#define RELAY_MARKER		"airlox-relayd.store"
#define RELAY_FORMAT		"2"	/* values end with a tag */
#define RELAY_COPY_BATCH	512	/* records per transaction */

#define LMDB_P_META		0x08
#define LMDB_MAGIC		0xBEEFC0DEu
#define LMDB_DATA_VERSION	1
#define LMDB_OFF_FLAGS		10	/* in the page */
#define LMDB_OFF_MAGIC		16
#define LMDB_OFF_VERSION	20
#define LMDB_OFF_PSIZE		40	/* mm_dbs[0].md_pad */
#define LMDB_OFF_TXNID		144

static void	relay_store_cause(char **, const char *, ...)
		    __attribute__((format(printf, 2, 3)));

static void
relay_store_cause(char **why, const char *fmt, ...)
{
	va_list	ap;

	if (why == NULL)
		return;
	free(*why);
	va_start(ap, fmt);
	if (vasprintf(why, fmt, ap) == -1)
		*why = NULL;
	va_end(ap);
}

static uint32_t
relay_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t
relay_le64(const uint8_t *p)
{
	return (uint64_t)relay_le32(p) | (uint64_t)relay_le32(p + 4) << 32;
}

/* Is this page an LMDB meta page of data version 1? */
static int
relay_meta_ok(const uint8_t *pg, size_t len)
{
	return len >= 4096 &&
	    ((pg[LMDB_OFF_FLAGS] | pg[LMDB_OFF_FLAGS + 1] << 8) &
	    LMDB_P_META) != 0 && relay_le32(pg + LMDB_OFF_MAGIC) ==
	    LMDB_MAGIC && relay_le32(pg + LMDB_OFF_VERSION) ==
	    LMDB_DATA_VERSION;
}

static void
relay_say(FILE *report, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
relay_say(FILE *report, const char *fmt, ...)
{
	va_list	ap;

	if (report == NULL)
		return;
	va_start(ap, fmt);
	vfprintf(report, fmt, ap);
	va_end(ap);
	fputc('\n', report);
}

/*
 * The meta pages of fd: 0 when both hold; with `repair` one damaged page
 * is rewritten from the other (0); 1 when one is damaged and not
 * repaired; -1 when neither holds.
 */
static int
relay_store_metas(int fd, off_t size, int repair, char **why, FILE *report)
{
	uint8_t		*pg[2];
	size_t		 psize = (size_t)sysconf(_SC_PAGESIZE), n;
	int		 ok[2], bad, good, rc = -1;
	uint64_t	 txn;

	if ((pg[0] = malloc(65536)) == NULL || (pg[1] = malloc(65536)) ==
	    NULL) {
		free(pg[0]);
		relay_store_cause(why, "out of memory");
		return -1;
	}
	n = pread(fd, pg[0], 65536, 0) >= 4096 ? 4096 : 0;
	ok[0] = n > 0 && relay_meta_ok(pg[0], n);
	if (ok[0] && relay_le32(pg[0] + LMDB_OFF_PSIZE) >= 4096 &&
	    relay_le32(pg[0] + LMDB_OFF_PSIZE) <= 32768)
		psize = relay_le32(pg[0] + LMDB_OFF_PSIZE);
	ok[1] = (off_t)(2 * psize) <= size &&
	    pread(fd, pg[1], psize, (off_t)psize) == (ssize_t)psize &&
	    relay_meta_ok(pg[1], psize);
	if (ok[0] && ok[1]) {
		rc = 0;
		goto out;
	}
	if (!ok[0] && !ok[1]) {
		relay_store_cause(why, "neither meta page of data.mdb is LMDB's: "
		    "the file is damaged, or not a relay database");
		goto out;
	}
	good = ok[0] ? 0 : 1;
	bad = 1 - good;
	txn = relay_le64(pg[good] + LMDB_OFF_TXNID);
	if (!repair) {
		relay_say(report, "damaged: meta page %d of data.mdb; the "
		    "relay rewrites it from meta page %d (transaction %llu) "
		    "when it starts", bad, good, (unsigned long long)txn);
		rc = 1;
		goto out;
	}
	/* The other one, as this one: its page number in front. */
	memcpy(pg[bad], pg[good], psize);
	memset(pg[bad], 0, 8);
	pg[bad][0] = (uint8_t)bad;
	if (pwrite(fd, pg[bad], psize, (off_t)(bad * psize)) !=
	    (ssize_t)psize || fsync(fd) == -1) {
		relay_store_cause(why, "meta page %d of data.mdb is damaged and "
		    "cannot be rewritten: %s", bad, strerror(errno));
		goto out;
	}
	log_warnx("store: meta page %d of data.mdb was damaged; rewritten "
	    "from meta page %d: the database is as of transaction %llu, and "
	    "writes of a later one may be lost", bad, good,
	    (unsigned long long)txn);
	rc = 0;
out:
	free(pg[0]);
	free(pg[1]);
	return rc;
}

/*
 * Before LMDB opens dir: 0 to go on, -1 when the store cannot be used
 * (*why), 1 (check only) when a meta page is damaged.
 */
int
relay_store_precheck(const char *dir, int repair, char **why, FILE *report)
{
	char		path[PATH_MAX];
	struct stat	sb;
	int		fd, marked, rc;

	snprintf(path, sizeof(path), "%s/%s", dir, RELAY_MARKER);
	marked = access(path, F_OK) == 0;
	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	if (stat(path, &sb) == -1) {
		if (errno == ENOENT && !marked)
			return 0;		/* a new store */
		relay_store_cause(why, "%s is missing, but %s held a relay "
		    "database (%s): it was lost", path, dir, RELAY_MARKER);
		return -1;
	}
	if (sb.st_size == 0) {
		relay_store_cause(why, "%s is empty: its database was lost (an "
		    "empty one is not started over it)", path);
		return -1;
	}
	if ((fd = open(path, repair ? O_RDWR : O_RDONLY)) == -1) {
		relay_store_cause(why, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = relay_store_metas(fd, sb.st_size, repair, why, report);
	close(fd);
	return rc;
}

/* The marker: this directory holds a relay database (written once). */
int
relay_store_mark(const char *dir)
{
	char	path[PATH_MAX];
	int	fd, dfd;

	snprintf(path, sizeof(path), "%s/%s", dir, RELAY_MARKER);
	if (access(path, F_OK) == 0)
		return 0;
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1)
		return errno == EEXIST ? 0 : -1;
	if (write(fd, "airlox-relayd database, format " RELAY_FORMAT "\n",
	    sizeof("airlox-relayd database, format " RELAY_FORMAT "\n") -
	    1) == -1 || fsync(fd) == -1) {
		close(fd);
		return -1;
	}
	close(fd);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

/* Any record in the databases of sessions and of expiry? */
static int
relay_store_has_records(struct relay_store *st, MDB_txn *txn)
{
	MDB_stat	ms;
	int		db;

	for (db = RELAY_DB_EXPIRY; db < RELAY_DB_COUNT; db++)
		if (st->have_dbi[db] && mdb_stat(txn, st->dbi[db], &ms) == 0 &&
		    ms.ms_entries > 0)
			return 1;
	return 0;
}

/*
 * In the write transaction that opened the databases: the records'
 * format. A new store is stamped with it; a store of format 1 (no tags)
 * is refused here with MDB_INCOMPATIBLE, and copied by the caller.
 */
int
relay_store_format(struct relay_store *st, MDB_txn *txn, char **why)
{
	static const char	 key[] = "format";
	MDB_val			 k, v;
	int			 rc;

	k.mv_data = (void *)key;
	k.mv_size = sizeof(key) - 1;
	rc = mdb_get(txn, st->dbi[RELAY_DB_META], &k, &v);
	if (rc == MDB_NOTFOUND) {
		if (relay_store_has_records(st, txn))
			return MDB_INCOMPATIBLE;
		return relay_store_put_tagged(txn, st->dbi[RELAY_DB_META], &k,
		    RELAY_FORMAT, 1, 0);
	}
	if (rc != 0)
		return rc;
	if (relay_store_untag(&k, &v) != 0) {
		relay_store_cause(why, "its format record is damaged");
		return MDB_CORRUPTED;
	}
	if (v.mv_size != 1 || memcmp(v.mv_data, RELAY_FORMAT, 1) != 0) {
		relay_store_cause(why, "its format (%.*s) is not this relay's (%s)",
		    (int)(v.mv_size < 8 ? v.mv_size : 8), (char *)v.mv_data,
		    RELAY_FORMAT);
		return MDB_VERSION_MISMATCH;
	}
	return 0;
}

/* One session's name for a report. */
static const char *
relay_sid_name(const uint8_t *sid, char *buf)
{
	alx_b64_encode(buf, sid, RELAY_SID_LEN);
	return buf;
}

/* The session a record belongs to (NULL: none, as meta's). */
static const uint8_t *
relay_record_sid(int db, const MDB_val *k)
{
	if (db >= RELAY_DB_FIRST_SESSION && k->mv_size >= RELAY_SID_LEN)
		return k->mv_data;
	if (db == RELAY_DB_EXPIRY && k->mv_size >= 8 + RELAY_SID_LEN)
		return (uint8_t *)k->mv_data + 8;
	return NULL;
}

/*
 * The walk of --check, --salvage and the format 1 copy: every record of
 * every database under guards. Sessions with a damaged record, or met by
 * a fault, are collected (bad); a fault also skips to the next session.
 */
struct relay_sidset {
	uint8_t		(*sid)[RELAY_SID_LEN];
	size_t		  n, cap;
	int		  full;			/* could not grow */
};

static int
relay_sidset_has(const struct relay_sidset *s, const uint8_t *sid)
{
	size_t	i;

	for (i = 0; i < s->n; i++)
		if (memcmp(s->sid[i], sid, RELAY_SID_LEN) == 0)
			return 1;
	return 0;
}

static void
relay_sidset_add(struct relay_sidset *s, const uint8_t *sid)
{
	void	*p;

	if (relay_sidset_has(s, sid))
		return;
	if (s->n == s->cap) {
		if ((p = reallocarray(s->sid, s->cap ? s->cap * 2 : 64,
		    RELAY_SID_LEN)) == NULL) {
			s->full = 1;
			return;
		}
		s->sid = p;
		s->cap = s->cap ? s->cap * 2 : 64;
	}
	memcpy(s->sid[s->n++], sid, RELAY_SID_LEN);
}

struct relay_walkall;
static int	relay_check_sessions(struct relay_walkall *);
static int	relay_copy_open(struct relay_walkall *, const char *, off_t);
static int	relay_copy_close(struct relay_walkall *);

struct relay_walkall {
	struct relay_store	*st;
	int			 tagged;	/* values carry tags */
	FILE			*report;
	struct relay_sidset	 bad;		/* damaged sessions */
	struct relay_sidset	 seen;		/* sessions with records */
	struct relay_sidset	 listed;	/* with a session record */
	uint64_t		 records, damaged;
	uint64_t		 misplaced;	/* out of order or lost */
	unsigned		 baddb;		/* 1 << db: damage met */
	int			 structure;	/* faults met */
	int			 meta_bad;	/* meta or expiry records */
	/* Copying to this environment (all, or session by session). */
	MDB_env			*dst;
	MDB_dbi			 ddbi[RELAY_DB_COUNT];
	MDB_txn			*dtxn;
	unsigned		 inbatch;
	int			 copy_all;	/* the walk copies (format 1) */
	uint64_t		 copied;
};

/* Copy one record to the destination, tagged (a batch per txn). */
static int
relay_copy_record(struct relay_walkall *w, int db, const MDB_val *k,
    const MDB_val *v)
{
	MDB_val	kk = *k;
	int	rc;

	if (w->dtxn == NULL && (rc = mdb_txn_begin(w->dst, NULL, 0,
	    &w->dtxn)) != 0)
		return rc;
	if ((rc = relay_store_put_tagged(w->dtxn, w->ddbi[db], &kk,
	    v->mv_data, v->mv_size, 0)) != 0)
		return rc;
	w->copied++;
	if (++w->inbatch >= RELAY_COPY_BATCH) {
		w->inbatch = 0;
		rc = mdb_txn_commit(w->dtxn);
		w->dtxn = NULL;
		return rc;
	}
	return 0;
}

/*
 * A record met walking db in order must sort after the one before it, and
 * a search for its key must lead to it: a key damaged in a leaf, or one
 * in a branch page above it, breaks one or the other. Such a record may
 * be whole (salvage copies it when its tag holds), but LMDB's searches
 * in db can no longer be trusted to find what is there.
 */
static void
relay_walk_place(struct relay_walkall *w, MDB_txn *txn, int db,
    const MDB_val *prev, const MDB_val *k, const MDB_val *v)
{
	MDB_dbi		 dbi = w->st->dbi[db];
	MDB_val		 kk = *k, vv;
	const char	*what = NULL;

	if (prev->mv_size > 0 && mdb_cmp(txn, dbi, prev, k) >= 0)
		what = "is out of order (a damaged key)";
	else if (mdb_get(txn, dbi, &kk, &vv) != 0 ||
	    vv.mv_data != v->mv_data)
		what = "cannot be found by its key (a damaged page above it)";
	if (what == NULL)
		return;
	if (w->misplaced++ == 0 || !(w->baddb & (1u << db)))
		relay_say(w->report, "damaged: a record in %s %s",
		    relay_db_names[db], what);
	w->baddb |= 1u << db;
}

/*
 * One database from `from` (a key; NULL: the start) on, in one read
 * transaction; stops at a fault. Returns 0 when done, 1 after a fault
 * (*resume: the session to go on after), or an LMDB code.
 */
static int
relay_walk_db(struct relay_walkall *w, struct relay_guard *g, int db,
    const uint8_t *from, size_t fromlen, uint8_t resume[RELAY_SID_LEN],
    int *have_resume)
{
	struct relay_store	*st = w->st;
	char			 name[ALX_B64_ENCLEN(RELAY_SID_LEN) + 1];
	const uint8_t		*sid;
	MDB_val			 k, v, prev;
	int			 rc, op = from != NULL ? MDB_SET_RANGE :
				    MDB_FIRST;

	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &g->txn)) != 0)
		return rc;
	if ((rc = mdb_cursor_open(g->txn, st->dbi[db], &g->cursor)) != 0)
		goto out;
	k.mv_data = (void *)from;
	k.mv_size = fromlen;
	prev.mv_size = 0;
	while ((rc = mdb_cursor_get(g->cursor, &k, &v, op)) == 0) {
		op = MDB_NEXT;
		sid = relay_record_sid(db, &k);
		if (sid != NULL) {
			memcpy(resume, sid, RELAY_SID_LEN);
			*have_resume = 1;
			relay_sidset_add(&w->seen, sid);
		}
		w->records++;
		relay_walk_place(w, g->txn, db, &prev, &k, &v);
		prev = k;
		if (w->tagged && relay_store_untag(&k, &v) != 0) {
			w->damaged++;
			w->baddb |= 1u << db;
			if (sid != NULL && !relay_sidset_has(&w->bad, sid)) {
				relay_say(w->report, "damaged: session %s: a "
				    "record in %s does not match its tag",
				    relay_sid_name(sid, name),
				    relay_db_names[db]);
				relay_sidset_add(&w->bad, sid);
			} else if (sid == NULL) {
				relay_say(w->report, "damaged: a record in %s "
				    "does not match its tag",
				    relay_db_names[db]);
				w->meta_bad = 1;
			}
			continue;
		}
		if (w->copy_all && db != RELAY_DB_META &&
		    (rc = relay_copy_record(w, db, &k, &v)) != 0)
			break;
	}
out:
	relay_guard_done(g);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

struct relay_walk_db_arg {
	struct relay_walkall	*w;
	int			 db;
	const uint8_t		*from;
	size_t			 fromlen;
	uint8_t			*resume;
	int			*have;
};

static int
relay_walk_db_fn(struct relay_guard *g, void *arg)
{
	struct relay_walk_db_arg	*a = arg;

	return relay_walk_db(a->w, g, a->db, a->from, a->fromlen, a->resume,
	    a->have);
}

/*
 * The next place to resume a walk after a fault at `at`: `at` plus one
 * in byte `level` (15: the next session; lower: a coarser jump, tried
 * when a walk from there met the fault again at once), the bytes after
 * it zero. 0, or -1 past the last session.
 */
static int
relay_walk_next(uint8_t at[RELAY_SID_LEN], int level)
{
	int	i;

	memset(at + level + 1, 0, (size_t)(RELAY_SID_LEN - 1 - level));
	for (i = level; i >= 0 && ++at[i] == 0; i--)
		;
	return i < 0 ? -1 : 0;
}

/*
 * Every database, every record. A fault ends a walk; the session it was
 * in is damaged, and the walk goes on after it; a walk that faults again
 * at once jumps further, coarser each time (sixteen jumps at most before
 * a database is given up, RELAY_WALK_FAULTS_MAX faults in all).
 */
#define RELAY_WALK_FAULTS_MAX	4096

static int
relay_walk_all(struct relay_walkall *w)
{
	struct relay_store	*st = w->st;
	struct relay_walk_db_arg a;
	struct relay_guard	 g;
	char			 name[ALX_B64_ENCLEN(RELAY_SID_LEN) + 1];
	uint8_t			 resume[RELAY_SID_LEN], from[RELAY_SID_LEN];
	int			 db, rc, have, level, progressed, faults;

	for (db = 0; db < RELAY_DB_COUNT; db++) {
		if (!st->have_dbi[db])
			continue;
		have = 0;
		faults = 0;
		level = RELAY_SID_LEN - 1;
		a.from = NULL;
		a.fromlen = 0;
		for (;;) {
			a.w = w;
			a.db = db;
			a.resume = resume;
			a.have = &progressed;
			progressed = 0;
			if ((rc = relay_guarded(&g, relay_walk_db_fn, &a)) ==
			    RELAY_FAULTED)
				rc = -1;
			if (rc != -1 && rc != MDB_CORRUPTED &&
			    rc != MDB_PAGE_NOTFOUND)
				break;
			w->structure++;
			w->baddb |= 1u << db;
			/*
			 * Going on only ever goes forward: a damaged key can
			 * name a session before the place the walk resumed
			 * from, and resuming there would meet the fault again.
			 */
			if (progressed && a.from != NULL &&
			    memcmp(resume, from, RELAY_SID_LEN) <= 0) {
				memcpy(resume, from, RELAY_SID_LEN);
				progressed = 0;
			}
			if (++faults > RELAY_WALK_FAULTS_MAX) {
				relay_say(w->report, "damaged: the pages of %s: "
				    "the walk gave up after %d faults",
				    relay_db_names[db], RELAY_WALK_FAULTS_MAX);
				break;
			}
			if (progressed) {
				have = 1;
				level = RELAY_SID_LEN - 1;
				relay_say(w->report, "damaged: session %s: the "
				    "pages of %s (%s)", relay_sid_name(resume,
				    name), relay_db_names[db], rc == -1 ?
				    relay_guard_what(g.fault) :
				    mdb_strerror(rc));
				relay_sidset_add(&w->bad, resume);
			} else if (have && level > 0)
				level--;
			else {
				relay_say(w->report, "damaged: the pages of %s "
				    "(%s)", relay_db_names[db], rc == -1 ?
				    relay_guard_what(g.fault) :
				    mdb_strerror(rc));
				if (db < RELAY_DB_FIRST_SESSION)
					w->meta_bad = 1;
				break;
			}
			/* Keys of expiry start with a time: no going on. */
			if (db == RELAY_DB_EXPIRY ||
			    relay_walk_next(resume, level) != 0)
				break;
			memcpy(from, resume, RELAY_SID_LEN);
			a.from = from;
			a.fromlen = RELAY_SID_LEN;
		}
		if (rc != 0 && rc != -1 && rc != MDB_CORRUPTED &&
		    rc != MDB_PAGE_NOTFOUND)
			return rc;
	}
	return 0;
}

/*
 * After LMDB opened the store: the file holds every page in use (else it
 * was truncated), and the free list and the edges of every tree read.
 * 0, or -1 with *why.
 */
struct relay_probe {
	uint64_t	file_pages;
	uint64_t	last_pg;
	uint64_t	missing;	/* in use, past the end */
};

static int
relay_store_probe1(struct relay_store *st, struct relay_guard *g,
    struct relay_probe *p)
{
	MDB_val		 k, v;
	const uint8_t	*ids;
	uint64_t	 n, i, pg, free_past = 0;
	int		 rc, db;

	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &g->txn)) != 0)
		return rc;
	/* The free list: its pages past the end of the file are fine. */
	if ((rc = mdb_cursor_open(g->txn, 0, &g->cursor)) != 0)
		goto out;
	while ((rc = mdb_cursor_get(g->cursor, &k, &v, MDB_NEXT)) == 0) {
		ids = v.mv_data;
		if (v.mv_size < 8)
			continue;
		n = relay_le64(ids);
		for (i = 1; i <= n && (i + 1) * 8 <= v.mv_size; i++) {
			pg = relay_le64(ids + i * 8);
			if (pg >= p->file_pages && pg <= p->last_pg)
				free_past++;
		}
	}
	if (rc != MDB_NOTFOUND)
		goto out;
	mdb_cursor_close(g->cursor);
	g->cursor = NULL;
	if (p->last_pg + 1 > p->file_pages &&
	    p->last_pg + 1 - p->file_pages > free_past)
		p->missing = p->last_pg + 1 - p->file_pages - free_past;
	/* The first and last records of each database. */
	for (db = 0, rc = 0; db < RELAY_DB_COUNT && rc == 0; db++) {
		if (!st->have_dbi[db])
			continue;
		if ((rc = mdb_cursor_open(g->txn, st->dbi[db],
		    &g->cursor)) != 0)
			break;
		rc = mdb_cursor_get(g->cursor, &k, &v, MDB_FIRST);
		if (rc == 0)
			rc = mdb_cursor_get(g->cursor, &k, &v, MDB_LAST);
		if (rc == MDB_NOTFOUND)
			rc = 0;
		mdb_cursor_close(g->cursor);
		g->cursor = NULL;
	}
out:
	relay_guard_done(g);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

struct relay_probe_arg {
	struct relay_store	*st;
	struct relay_probe	*p;
};

static int
relay_store_probe_fn(struct relay_guard *g, void *arg)
{
	struct relay_probe_arg	*a = arg;

	return relay_store_probe1(a->st, g, a->p);
}

int
relay_store_probe(struct relay_store *st, char **why)
{
	struct relay_probe_arg	 pa;
	struct relay_guard	 g;
	struct relay_probe	 p;
	MDB_envinfo		 info;
	MDB_stat		 ms;
	mdb_filehandle_t	 fd;
	struct stat		 sb;
	int			 rc;

	if (mdb_env_info(st->env, &info) != 0 ||
	    mdb_env_stat(st->env, &ms) != 0 || mdb_env_get_fd(st->env, &fd) !=
	    0 || fstat(fd, &sb) == -1) {
		relay_store_cause(why, "its size cannot be read");
		return -1;
	}
	memset(&p, 0, sizeof(p));
	p.file_pages = (uint64_t)sb.st_size / ms.ms_psize;
	p.last_pg = info.me_last_pgno;
	pa.st = st;
	pa.p = &p;
	if ((rc = relay_guarded(&g, relay_store_probe_fn, &pa)) ==
	    RELAY_FAULTED)
		rc = -1;
	if (p.missing > 0) {
		relay_store_cause(why, "data.mdb is %llu bytes, but its database "
		    "uses pages up to byte %llu: it was truncated",
		    (unsigned long long)sb.st_size,
		    (unsigned long long)((p.last_pg + 1) * ms.ms_psize));
		return -1;
	}
	if (rc == -1) {
		relay_store_cause(why, "reading its free list and the edges of "
		    "its trees met %s", relay_guard_what(g.fault));
		return -1;
	}
	if (rc != 0) {
		relay_store_cause(why, "reading its free list and the edges of "
		    "its trees: %s", mdb_strerror(rc));
		return -1;
	}
	return 0;
}

/*
 * LMDB's catalogue (its unnamed database: a record per named one) of a
 * store that has any must name each of the relay's databases and nothing
 * else: every store was made with all of them. A name changed on disk
 * would otherwise let the relay create an empty database in its place
 * and answer every session "not found". MDB_CORRUPTED with *why when not.
 */
int
relay_store_catalogue(MDB_txn *txn, char **why)
{
	MDB_cursor	*c;
	MDB_dbi		 main;
	MDB_val		 k, v;
	unsigned	 seen = 0, n = 0;
	int		 rc, i;

	if ((rc = mdb_dbi_open(txn, NULL, 0, &main)) != 0 ||
	    (rc = mdb_cursor_open(txn, main, &c)) != 0)
		return rc;
	while ((rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) == 0) {
		n++;
		for (i = 0; i < RELAY_DB_COUNT; i++)
			if (k.mv_size == strlen(relay_db_names[i]) &&
			    memcmp(k.mv_data, relay_db_names[i],
			    k.mv_size) == 0)
				break;
		if (i == RELAY_DB_COUNT) {
			relay_store_cause(why, "its catalogue of databases "
			    "holds a name that is none of them (a damaged "
			    "name)");
			rc = MDB_CORRUPTED;
			break;
		}
		seen |= 1u << i;
	}
	mdb_cursor_close(c);
	if (rc != MDB_NOTFOUND)
		return rc;
	for (i = 0; n > 0 && i < RELAY_DB_COUNT; i++)
		if ((seen & (1u << i)) == 0) {
			relay_store_cause(why, "its catalogue of databases "
			    "lacks %s", relay_db_names[i]);
			return MDB_CORRUPTED;
		}
	return 0;
}

struct relay_catalogue_arg {
	struct relay_store	*st;
	char			**why;
};

static int
relay_store_catalogue_fn(struct relay_guard *g, void *arg)
{
	struct relay_catalogue_arg	*a = arg;
	int				 rc;

	if ((rc = mdb_txn_begin(a->st->env, NULL, MDB_RDONLY, &g->txn)) != 0)
		return rc;
	rc = relay_store_catalogue(g->txn, a->why);
	mdb_txn_abort(g->txn);
	g->txn = NULL;
	return rc;
}

static int
relay_store_dbis_rdonly(struct relay_store *st, struct relay_guard *g)
{
	int	rc, i;

	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &g->txn)) != 0)
		return rc;
	for (i = 0; i < RELAY_DB_COUNT; i++)
		if (mdb_dbi_open(g->txn, relay_db_names[i], 0,
		    &st->dbi[i]) == 0)
			st->have_dbi[i] = 1;
	/* Committed, not aborted: the handles outlive the transaction. */
	rc = mdb_txn_commit(g->txn);
	g->txn = NULL;
	return rc;
}

static int
relay_store_dbis_rdonly_fn(struct relay_guard *g, void *arg)
{
	return relay_store_dbis_rdonly(arg, g);
}

/* A read-only store for --check and --salvage (NULL: cannot be opened). */
static struct relay_store *
relay_store_open_rdonly(const char *dir, FILE *report, int *rc)
{
	struct relay_store	*st;
	struct relay_guard	 g;
	char			 path[PATH_MAX];

	if ((st = calloc(1, sizeof(*st))) == NULL) {
		*rc = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&st->mtx, NULL);
	st->dir = (char *)dir;
	if ((*rc = mdb_env_create(&st->env)) != 0 ||
	    (*rc = mdb_env_set_maxdbs(st->env, RELAY_DB_COUNT + 2)) != 0 ||
	    (*rc = mdb_env_open(st->env, dir, MDB_RDONLY | MDB_NOTLS,
	    0600)) != 0) {
		relay_say(report, "cannot open the database in %s: %s", dir,
		    mdb_strerror(*rc));
		if (st->env != NULL)
			mdb_env_close(st->env);
		free(st);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	relay_guard_init(st->env, path);
	if ((*rc = relay_guarded(&g, relay_store_dbis_rdonly_fn, st)) ==
	    RELAY_FAULTED)
		*rc = -1;
	if (*rc != 0) {
		relay_say(report, "damaged: the databases in %s cannot be "
		    "opened (%s)", dir, *rc == -1 ? relay_guard_what(g.fault) :
		    mdb_strerror(*rc));
		mdb_env_close(st->env);
		free(st);
		return NULL;
	}
	return st;
}

static int
relay_store_tagged1(struct relay_store *st, struct relay_guard *g)
{
	static const char	 key[] = "format";
	MDB_val			 k, v;
	int			 tagged;

	if (mdb_txn_begin(st->env, NULL, MDB_RDONLY, &g->txn) != 0)
		return 1;
	k.mv_data = (void *)key;
	k.mv_size = sizeof(key) - 1;
	tagged = mdb_get(g->txn, st->dbi[RELAY_DB_META], &k, &v) == 0 ||
	    !relay_store_has_records(st, g->txn);
	mdb_txn_abort(g->txn);
	g->txn = NULL;
	return tagged;
}

static int
relay_store_tagged_fn(struct relay_guard *g, void *arg)
{
	return relay_store_tagged1(arg, g);
}

/* Do the records carry tags (format 2, or no records)? */
static int
relay_store_tagged(struct relay_store *st)
{
	struct relay_guard	g;
	int			tagged = 1;

	if (st->have_dbi[RELAY_DB_META] && (tagged = relay_guarded(&g,
	    relay_store_tagged_fn, st)) == RELAY_FAULTED)
		tagged = 1;
	return tagged;
}

/*
 * The free list, which every commit rewrites: each record a count of
 * page numbers and that many, each below the last page in use. LMDB
 * trusts it; a damaged one sends a commit's copies astray.
 */
static int
relay_store_freelist1(struct relay_store *st, struct relay_guard *g)
{
	MDB_envinfo	 ei;
	MDB_val		 k, v;
	size_t		 n, i;
	const size_t	*pg;
	int		 rc, bad = 0;

	if (mdb_env_info(st->env, &ei) != 0 ||
	    (rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &g->txn)) != 0)
		return 1;
	if (mdb_cursor_open(g->txn, 0, &g->cursor) != 0) {
		relay_guard_done(g);
		return 1;
	}
	while (!bad && (rc = mdb_cursor_get(g->cursor, &k, &v,
	    MDB_NEXT)) == 0) {
		pg = v.mv_data;
		if (v.mv_size < sizeof(size_t) || v.mv_size % sizeof(size_t) ||
		    (n = pg[0]) != v.mv_size / sizeof(size_t) - 1) {
			bad = 1;
			break;
		}
		for (i = 1; i <= n; i++)
			if (pg[i] < 2 || pg[i] > ei.me_last_pgno)
				bad = 1;
	}
	relay_guard_done(g);
	return bad || (rc != 0 && rc != MDB_NOTFOUND);
}

static int
relay_store_freelist_fn(struct relay_guard *g, void *arg)
{
	return relay_store_freelist1(arg, g);
}

/*
 * At open: the free list, and every record of every database read under
 * guards and checked against its tag, as --check does. 0 when all is
 * whole, else -1 with *why: the page of a damaged record may be damaged
 * beyond it, and a write into that page (whichever session it is for)
 * or a commit over a damaged free list would go astray where no guard
 * catches it, so the caller refuses every write.
 */
int
relay_store_walk_check(struct relay_store *st, char **why)
{
	struct relay_walkall	w;
	struct relay_guard	g;
	int			rc, free_bad, db;

	free_bad = relay_guarded(&g, relay_store_freelist_fn, st) != 0;
	memset(&w, 0, sizeof(w));
	w.st = st;
	w.tagged = relay_store_tagged(st);
	rc = relay_walk_all(&w);
	free(w.bad.sid);
	free(w.seen.sid);
	free(w.listed.sid);
	/* A walk that stopped early leaves every database in doubt. */
	if (rc != 0)
		w.baddb = ~0u;
	for (db = 0; db < RELAY_DB_COUNT; db++)
		if (w.baddb & (1u << db))
			relay_store_damage_db(st, db);
	if (rc == 0 && w.damaged == 0 && w.structure == 0 && !w.meta_bad &&
	    w.misplaced == 0 && !free_bad)
		return 0;
	relay_store_cause(why, "%s%llu damaged records, %llu records out of "
	    "place, %d damaged pages met reading every record%s", free_bad ?
	    "the free list is damaged; " : "", (unsigned long long)w.damaged,
	    (unsigned long long)w.misplaced, w.structure,
	    rc != 0 ? " (the walk stopped)" : "");
	return -1;
}

/*
 * airlox-relayd --check: 0 whole, 1 damaged, 2 unusable; a line for each
 * thing found, then one line of totals.
 */
int
relay_store_check(const char *dir, FILE *report)
{
	struct relay_walkall		 w;
	struct relay_catalogue_arg	 ca;
	struct relay_guard		 g;
	struct relay_store		*st;
	char				*why = NULL;
	int				 rc, pre;

	if ((pre = relay_store_precheck(dir, 0, &why, report)) < 0) {
		relay_say(report, "unusable: %s", why != NULL ? why : "?");
		free(why);
		return 2;
	}
	if (pre > 0)
		return 1;	/* a meta page: LMDB will not open it as is */
	if ((st = relay_store_open_rdonly(dir, report, &rc)) == NULL)
		return 2;
	if (relay_store_probe(st, &why) != 0) {
		relay_say(report, "damaged: %s", why);
		free(why);
		why = NULL;
		pre = 1;
	}
	ca.st = st;
	ca.why = &why;
	if (relay_guarded(&g, relay_store_catalogue_fn, &ca) != 0) {
		relay_say(report, "damaged: %s", why != NULL ? why :
		    "its catalogue of databases cannot be read");
		free(why);
		why = NULL;
		pre = 1;
	}
	memset(&w, 0, sizeof(w));
	w.st = st;
	w.report = report;
	w.tagged = relay_store_tagged(st);
	if (!w.tagged)
		relay_say(report, "note: records of format 1 (no tags): only "
		    "LMDB's pages are checked; the relay converts the "
		    "database when it starts");
	if ((rc = relay_walk_all(&w)) == 0)
		rc = relay_check_sessions(&w);
	relay_say(report, "checked %llu records of %zu sessions: %llu "
	    "damaged records, %llu records out of place, %zu damaged "
	    "sessions, %s", (unsigned long long)w.records, w.seen.n,
	    (unsigned long long)w.damaged, (unsigned long long)w.misplaced,
	    w.bad.n,
	    w.structure > 0 || pre ? "damaged pages" : "pages whole");
	if (rc != 0)
		relay_say(report, "the walk stopped: %s", mdb_strerror(rc));
	mdb_env_close(st->env);
	free(st);
	free(w.bad.sid);
	free(w.seen.sid);
	free(w.listed.sid);
	if (rc != 0)
		return 2;
	return w.damaged > 0 || w.structure > 0 || w.bad.n > 0 ||
	    w.misplaced > 0 || w.meta_bad || pre ? 1 : 0;
}

/* A new database in dst for a copy, stamped with the format. */
static int
relay_copy_open(struct relay_walkall *w, const char *dst, off_t mapsize)
{
	MDB_txn	*txn;
	MDB_val	 k;
	int	 rc, i;

	if (mkdir(dst, 0700) == -1 && errno != EEXIST)
		return errno;
	if ((rc = mdb_env_create(&w->dst)) != 0)
		return rc;
	if ((rc = mdb_env_set_maxdbs(w->dst, RELAY_DB_COUNT + 2)) != 0 ||
	    (rc = mdb_env_set_mapsize(w->dst, mapsize > 0 ? (size_t)mapsize :
	    (size_t)1 << 34)) != 0 ||
	    (rc = mdb_env_open(w->dst, dst, MDB_NOTLS, 0600)) != 0 ||
	    (rc = mdb_txn_begin(w->dst, NULL, 0, &txn)) != 0)
		return rc;
	for (i = 0; i < RELAY_DB_COUNT && rc == 0; i++)
		rc = mdb_dbi_open(txn, relay_db_names[i], MDB_CREATE,
		    &w->ddbi[i]);
	k.mv_data = (void *)"format";
	k.mv_size = 6;
	if (rc == 0)
		rc = relay_store_put_tagged(txn, w->ddbi[RELAY_DB_META], &k,
		    RELAY_FORMAT, 1, 0);
	if (rc != 0) {
		mdb_txn_abort(txn);
		return rc;
	}
	return mdb_txn_commit(txn);
}

/* The last batch of a copy committed, and the copy on disk. */
static int
relay_copy_close(struct relay_walkall *w)
{
	int	rc = 0;

	if (w->dtxn != NULL) {
		rc = mdb_txn_commit(w->dtxn);
		w->dtxn = NULL;
	}
	if (rc == 0)
		rc = mdb_env_sync(w->dst, 1);
	return rc;
}

/*
 * One session, database by database, on its own: every record of it read
 * and checked under a guard. A fault, or a record whose tag fails, and it
 * is not whole. With a destination, its records are copied too (and its
 * expiry entry made again from its record: the expiry index is keyed by
 * time, so its damage cannot be tied to a session).
 */
struct relay_one {
	struct relay_walkall	*w;
	const uint8_t		*sid;
	int			 db;
	int			 copy;
	int			 bad;
};

static int
relay_one_db(struct relay_guard *g, void *arg)
{
	struct relay_one	*o = arg;
	struct relay_store	*st = o->w->st;
	MDB_val			 k, v, ek;
	uint8_t			 ekey[8 + RELAY_SID_LEN];
	int			 rc, op = MDB_SET_RANGE;

	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &g->txn)) != 0)
		return rc;
	if ((rc = mdb_cursor_open(g->txn, st->dbi[o->db], &g->cursor)) != 0)
		goto out;
	k.mv_data = (void *)o->sid;
	k.mv_size = RELAY_SID_LEN;
	while ((rc = mdb_cursor_get(g->cursor, &k, &v, op)) == 0) {
		op = MDB_NEXT;
		if (k.mv_size < RELAY_SID_LEN ||
		    memcmp(k.mv_data, o->sid, RELAY_SID_LEN) != 0)
			break;
		if (o->w->tagged && relay_store_untag(&k, &v) != 0) {
			o->bad = 1;
			break;
		}
		if (!o->copy)
			continue;
		if ((rc = relay_copy_record(o->w, o->db, &k, &v)) != 0)
			break;
		/* The session's record: its expiry entry, again. */
		if (o->db == RELAY_DB_SESSIONS && k.mv_size == RELAY_SID_LEN &&
		    v.mv_size >= 16 && relay_get_be64((uint8_t *)v.mv_data +
		    8) != 0) {
			memcpy(ekey, (uint8_t *)v.mv_data + 8, 8);
			memcpy(ekey + 8, o->sid, RELAY_SID_LEN);
			ek.mv_data = ekey;
			ek.mv_size = sizeof(ekey);
			v.mv_data = (void *)"";
			v.mv_size = 0;
			if ((rc = relay_copy_record(o->w, RELAY_DB_EXPIRY, &ek,
			    &v)) != 0)
				break;
		}
	}
out:
	relay_guard_done(g);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/* 1 when the session is whole (and copied, with copy); 0, or an error. */
static int
relay_one_session(struct relay_walkall *w, const uint8_t *sid, int copy)
{
	struct relay_one	o;
	struct relay_guard	g;
	int			db, rc;

	memset(&o, 0, sizeof(o));
	o.w = w;
	o.sid = sid;
	o.copy = copy;
	for (db = RELAY_DB_FIRST_SESSION; db < RELAY_DB_COUNT; db++) {
		if (!w->st->have_dbi[db])
			continue;
		o.db = db;
		rc = relay_guarded(&g, relay_one_db, &o);
		if (rc == RELAY_FAULTED || rc == MDB_CORRUPTED ||
		    rc == MDB_PAGE_NOTFOUND || o.bad)
			return 0;
		if (rc != 0)
			return rc;
	}
	return 1;
}

/* The sessions the database names (its session records that hold). */
static int
relay_list_db(struct relay_guard *g, void *arg)
{
	struct relay_walkall	*w = arg;
	struct relay_store	*st = w->st;
	MDB_val			 k, v;
	int			 rc, op = MDB_FIRST;

	if ((rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &g->txn)) != 0)
		return rc;
	if ((rc = mdb_cursor_open(g->txn, st->dbi[RELAY_DB_SESSIONS],
	    &g->cursor)) != 0)
		goto out;
	while ((rc = mdb_cursor_get(g->cursor, &k, &v, op)) == 0) {
		op = MDB_NEXT;
		if (k.mv_size == RELAY_SID_LEN && (!w->tagged ||
		    relay_store_untag(&k, &v) == 0))
			relay_sidset_add(&w->listed, k.mv_data);
	}
out:
	relay_guard_done(g);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/*
 * The check of each session on its own, after the walk of everything:
 * damage the walk could not tie to a session (a fault before any record
 * of a database) is tied to those it hits now. Sessions with records but
 * no session record that holds are damaged too.
 */
static int
relay_check_sessions(struct relay_walkall *w)
{
	struct relay_guard	g;
	size_t			i;
	int			rc;

	if (!w->st->have_dbi[RELAY_DB_SESSIONS])
		return 0;
	if ((rc = relay_guarded(&g, relay_list_db, w)) == RELAY_FAULTED)
		w->structure++;
	else if (rc != 0)
		return rc;
	for (i = 0; i < w->listed.n; i++) {
		if (relay_sidset_has(&w->bad, w->listed.sid[i]))
			continue;
		if ((rc = relay_one_session(w, w->listed.sid[i], 0)) < 0 ||
		    rc > 1)
			return rc;
		if (rc == 0)
			relay_sidset_add(&w->bad, w->listed.sid[i]);
	}
	for (i = 0; i < w->seen.n; i++)
		if (!relay_sidset_has(&w->listed, w->seen.sid[i]))
			relay_sidset_add(&w->bad, w->seen.sid[i]);
	return 0;
}

/*
 * airlox-relayd --salvage DST: the sessions of the database in dir that
 * are whole, copied one by one into a new database in DST (which must
 * hold none). 0 when every session was copied, 1 when damaged ones were
 * left out, 2 when nothing could be copied.
 */
int
relay_store_salvage(const char *dir, const char *dst, FILE *report)
{
	struct relay_walkall	 w;
	struct relay_store	*st;
	char			 path[PATH_MAX], name[ALX_B64_ENCLEN(
				    RELAY_SID_LEN) + 1];
	char			*why = NULL;
	size_t			 i, copied = 0;
	int			 rc;

	snprintf(path, sizeof(path), "%s/data.mdb", dst);
	if (access(path, F_OK) == 0) {
		relay_say(report, "%s already holds a database", dst);
		return 2;
	}
	if (relay_store_precheck(dir, 0, &why, report) < 0) {
		relay_say(report, "unusable: %s", why != NULL ? why : "?");
		free(why);
		return 2;
	}
	if ((st = relay_store_open_rdonly(dir, report, &rc)) == NULL)
		return 2;
	memset(&w, 0, sizeof(w));
	w.st = st;
	w.tagged = relay_store_tagged(st);
	if ((rc = relay_walk_all(&w)) == 0)
		rc = relay_check_sessions(&w);
	if (rc == 0)
		rc = relay_copy_open(&w, dst, st->mapsize);
	for (i = 0; rc == 0 && i < w.listed.n; i++) {
		if (relay_sidset_has(&w.bad, w.listed.sid[i]))
			continue;
		if ((rc = relay_one_session(&w, w.listed.sid[i], 1)) == 1) {
			copied++;
			rc = 0;
		} else if (rc == 0) {
			relay_sidset_add(&w.bad, w.listed.sid[i]);
			relay_say(report, "damaged while copied: session %s",
			    relay_sid_name(w.listed.sid[i], name));
		}
	}
	if (rc == 0 && w.dst != NULL)
		rc = relay_copy_close(&w);
	if (rc == 0 && relay_store_mark(dst) != 0)
		rc = errno;
	for (i = 0; i < w.bad.n; i++)
		relay_say(report, "left out: session %s (damaged)",
		    relay_sid_name(w.bad.sid[i], name));
	relay_say(report, "copied %zu whole sessions (%llu records) into %s; "
	    "left out %zu damaged sessions%s%s", copied,
	    (unsigned long long)w.copied, dst, w.bad.n,
	    rc != 0 ? "; failed: " : "", rc != 0 ? mdb_strerror(rc) : "");
	if (w.dst != NULL)
		mdb_env_close(w.dst);
	mdb_env_close(st->env);
	free(st);
	free(w.bad.sid);
	free(w.seen.sid);
	free(w.listed.sid);
	if (rc != 0 || copied == 0)
		return 2;
	return w.bad.n > 0 ? 1 : 0;
}

/*
 * A store of format 1 (records without tags), at open: copied into a new
 * database with tags beside it, which then replaces it (a rename: until
 * then the old one stays as it was). 0, or an LMDB or errno code.
 */
int
relay_store_convert(struct relay_store *st)
{
	struct relay_walkall	 w;
	char		 tmp[PATH_MAX - 16], from[PATH_MAX], to[PATH_MAX];
	uint64_t	 copied = 0;
	int		 rc, dfd;

	snprintf(tmp, sizeof(tmp), "%s/.convert", st->dir);
	snprintf(from, sizeof(from), "%s/data.mdb", tmp);
	snprintf(to, sizeof(to), "%s/lock.mdb", tmp);
	unlink(from);
	unlink(to);
	log_info("store: converting the database in %s to format %s "
	    "(records with tags)", st->dir, RELAY_FORMAT);
	memset(&w, 0, sizeof(w));
	w.st = st;
	w.copy_all = 1;
	if ((rc = relay_copy_open(&w, tmp, st->mapsize)) == 0 &&
	    (rc = relay_walk_all(&w)) == 0)
		rc = relay_copy_close(&w);
	if (w.dtxn != NULL)
		mdb_txn_abort(w.dtxn);
	if (w.dst != NULL)
		mdb_env_close(w.dst);
	free(w.bad.sid);
	free(w.seen.sid);
	if (rc != 0)
		return rc;
	if (w.structure > 0 || w.bad.n > 0)
		return MDB_CORRUPTED;
	copied = w.copied;
	snprintf(to, sizeof(to), "%s/data.mdb", st->dir);
	if (rename(from, to) == -1)
		return errno;
	snprintf(from, sizeof(from), "%s/lock.mdb", tmp);
	unlink(from);
	rmdir(tmp);
	if ((dfd = open(st->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		fsync(dfd);
		close(dfd);
	}
	log_info("store: converted %llu records", (unsigned long long)copied);
	return 0;
}
