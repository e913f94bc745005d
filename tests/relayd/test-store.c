/*
 * test-store.c: relay-store.c against a real LMDB environment in a
 * temporary directory: put/get, items after a cursor, the writer thread's
 * group commit, deleting a session leaves none of its keys (checked with a
 * cursor walk here and with mdb_dump by the caller), a full map gives
 * ALX_ERR_NO_SPACE (the relay's 507) without breaking the store, and the
 * writer keeps written zeros ahead of LMDB's last page (and, when the file
 * cannot grow, refuses what does not fit in them with ALX_ERR_NO_SPACE,
 * losing nothing); a store of format 1 is converted, and a changed record
 * is a storage error, as is a miss for a whole record that a damaged key
 * hides from LMDB's search.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <lmdb.h>

#include "airlox.h"
#include "util/log.h"
#include "util/mono.h"
#include "tap.h"
#include "../../relayd/relay-store.h"

static char	tmpdir[] = "/tmp/alx-store-XXXXXX";

static void
rmtree(const char *dir)
{
	char	path[512];

	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/lock.mdb", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/airlox-relayd.store", dir);
	unlink(path);
	rmdir(dir);
}

struct collect {
	uint64_t	cursors[64];
	char		vals[64][32];
	int		n;
};

static int
collect_cb(uint64_t cursor, const uint8_t *v, size_t len, void *arg)
{
	struct collect	*c = arg;

	if (c->n >= 64 || len >= 32)
		return ALX_ERR_TOO_LARGE;
	c->cursors[c->n] = cursor;
	memcpy(c->vals[c->n], v, len);
	c->vals[c->n][len] = '\0';
	c->n++;
	return 0;
}

static int
append_item(struct relay_store *st, const uint8_t *sid, const char *id,
    const char *val, uint64_t *cursor)
{
	struct relay_wop	*op;
	uint8_t			 key[RELAY_SID_LEN + 32];
	size_t			 idlen = strlen(id);
	int			 rc;

	memcpy(key, sid, RELAY_SID_LEN);
	memcpy(key + RELAY_SID_LEN, id, idlen);
	op = relay_wop_new(NULL, NULL);
	relay_wop_add(op, RELAY_W_APPEND_ITEM, RELAY_DB_ITEMS, key,
	    RELAY_SID_LEN + idlen, val, strlen(val));
	rc = relay_store_apply(st, op);
	*cursor = op->cursor;
	relay_wop_free(op);
	return rc;
}

/* Async completions: count them and stop the loop after `want`. */
struct async_state {
	struct event_base	*base;
	int			 done, want, errors;
	int			*nospace;	/* NULL: no_space is an error */
	uint64_t		 last_cursor;
};

static void
async_done(struct relay_wop *op, void *arg)
{
	struct async_state	*as = arg;

	if (op->result == ALX_ERR_NO_SPACE && as->nospace != NULL)
		(*as->nospace)++;
	else if (op->result != 0)
		as->errors++;
	else {
		if (op->cursor != as->last_cursor + 1)
			as->errors++;	/* cursors must be dense and in order */
		as->last_cursor = op->cursor;
	}
	relay_wop_free(op);
	if (++as->done == as->want)
		event_base_loopbreak(as->base);
}

static void
test_basic(struct relay_store *st)
{
	uint8_t		 sid1[RELAY_SID_LEN], sid2[RELAY_SID_LEN], sk[64];
	struct relay_wop *op;
	struct alx_buf	 b;
	struct collect	 c;
	uint64_t	 cur, count;
	int		 i, rc;
	char		 id[16], val[16];

	memset(sid1, 0x11, sizeof(sid1));
	memset(sid2, 0x22, sizeof(sid2));
	alx_buf_init(&b, 1024);

	op = relay_wop_new(NULL, NULL);
	relay_wop_add(op, RELAY_W_PUT_NEW, RELAY_DB_SESSIONS, sid1,
	    RELAY_SID_LEN, "session-one", 11);
	is_int(relay_store_apply(st, op), 0, "put a session");
	relay_wop_free(op);
	op = relay_wop_new(NULL, NULL);
	relay_wop_add(op, RELAY_W_PUT_NEW, RELAY_DB_SESSIONS, sid1,
	    RELAY_SID_LEN, "again", 5);
	is_int(relay_store_apply(st, op), ALX_ERR_REPLAYED,
	    "put_new on an existing key is refused");
	relay_wop_free(op);
	is_int(relay_store_get(st, RELAY_DB_SESSIONS, sid1, RELAY_SID_LEN, &b),
	    0, "get the session");
	ok(b.len == 11 && memcmp(b.data, "session-one", 11) == 0,
	    "the session record is byte for byte what was put");
	is_int(relay_store_get(st, RELAY_DB_SESSIONS, sid2, RELAY_SID_LEN, &b),
	    ALX_ERR_NOT_FOUND, "an unknown session is not_found");

	for (i = 0; i < 10; i++) {
		snprintf(id, sizeof(id), "item%d", i);
		snprintf(val, sizeof(val), "v%d", i);
		rc = append_item(st, i % 2 ? sid2 : sid1, id, val, &cur);
		if (rc != 0 || cur != (uint64_t)(i / 2 + 1))
			break;
	}
	is_int(i, 10, "ten items appended, cursors dense per session");
	is_int(append_item(st, sid1, "item0", "dup", &cur), ALX_ERR_REPLAYED,
	    "an item id cannot be posted twice");

	memset(&c, 0, sizeof(c));
	rc = relay_store_items_after(st, sid1, 2, 64, collect_cb, &c);
	is_int(rc, 3, "three items of session 1 after cursor 2");
	ok(c.n == 3 && c.cursors[0] == 3 && c.cursors[2] == 5 &&
	    strcmp(c.vals[0], "v4") == 0 && strcmp(c.vals[2], "v8") == 0,
	    "items after a cursor come oldest first with their values");
	memset(&c, 0, sizeof(c));
	is_int(relay_store_items_after(st, sid1, 5, 64, collect_cb, &c), 0,
	    "nothing after the last cursor");
	memset(&c, 0, sizeof(c));
	is_int(relay_store_items_after(st, sid2, 0, 2, collect_cb, &c), 2,
	    "the max count bounds a listing");
	is_int(relay_store_last_cursor(st, sid2, &cur), 0, "last cursor");
	is_int(cur, 5, "last cursor of session 2 is 5");

	/* Keys in the other per-session databases, and an expiry entry. */
	memcpy(sk, sid1, RELAY_SID_LEN);
	memcpy(sk + RELAY_SID_LEN, "participant", 11);
	op = relay_wop_new(NULL, NULL);
	relay_wop_add(op, RELAY_W_PUT, RELAY_DB_PARTICIPANTS, sk,
	    RELAY_SID_LEN + 11, "p", 1);
	relay_wop_add(op, RELAY_W_PUT, RELAY_DB_CHUNKS, sk,
	    RELAY_SID_LEN + 11, "c", 1);
	relay_wop_add(op, RELAY_W_PUT, RELAY_DB_RECEIPTS, sk,
	    RELAY_SID_LEN + 11, "r", 1);
	relay_wop_add(op, RELAY_W_PUT, RELAY_DB_JOBS, sk,
	    RELAY_SID_LEN + 11, "j", 1);
	is_int(relay_store_apply(st, op), 0, "keys in five databases");
	relay_wop_free(op);

	is_int(relay_store_count_session(st, sid1, &count), 0, "count keys");
	is_int(count, 1 + 5 + 5 + 4, "session 1 has 15 keys");

	op = relay_wop_new(NULL, NULL);
	relay_wop_add(op, RELAY_W_DEL_SESSION, RELAY_DB_SESSIONS, sid1,
	    RELAY_SID_LEN, NULL, 0);
	is_int(relay_store_apply(st, op), 0, "delete session 1");
	relay_wop_free(op);
	is_int(relay_store_count_session(st, sid1, &count), 0, "count again");
	is_int(count, 0, "no key of the deleted session is left");
	is_int(relay_store_count_session(st, sid2, &count), 0,
	    "count session 2");
	is_int(count, 10, "the other session is untouched (5 items, 5 ids)");
	alx_buf_free(&b);
}

struct record_state {
	struct event_base	*base;
	int			 n;
	int			 results[3];
	uint64_t		 cursors[3];
};

static void
record_done(struct relay_wop *op, void *arg)
{
	struct record_state	*rs = arg;

	rs->results[rs->n] = op->result;
	rs->cursors[rs->n] = op->cursor;
	relay_wop_free(op);
	if (++rs->n == 3)
		event_base_loopbreak(rs->base);
}

static void
test_async(struct relay_store *st)
{
	struct record_state	 rs;
	struct async_state	 as;
	struct relay_wop	*op;
	uint8_t			 key[RELAY_SID_LEN + 16];
	int			 i, n = 300;

	memset(&as, 0, sizeof(as));
	as.base = event_base_new();
	as.want = n;
	is_int(relay_store_start(st, as.base), 0, "writer thread starts");
	memset(key, 0x33, RELAY_SID_LEN);
	for (i = 0; i < n; i++) {
		snprintf((char *)key + RELAY_SID_LEN, 16, "a%05d", i);
		op = relay_wop_new(async_done, &as);
		relay_wop_add(op, RELAY_W_APPEND_ITEM, RELAY_DB_ITEMS, key,
		    RELAY_SID_LEN + 6, "x", 1);
		if (relay_store_submit(st, op) != 0)
			break;
	}
	is_int(i, n, "300 writes queued");
	event_base_dispatch(as.base);
	is_int(as.done, n, "every queued write completed on the loop");
	is_int(as.errors, 0, "every write committed, cursors in order");
	is_int(relay_store_pending(st), 0, "nothing left in flight");

	/* Queued together (usually one batch): a duplicate between two. */
	memset(&rs, 0, sizeof(rs));
	rs.base = as.base;
	for (i = 0; i < 3; i++) {
		snprintf((char *)key + RELAY_SID_LEN, 16, "%s",
		    i == 1 ? "a00007" : i == 0 ? "b00001" : "b00002");
		op = relay_wop_new(record_done, &rs);
		relay_wop_add(op, RELAY_W_APPEND_ITEM, RELAY_DB_ITEMS, key,
		    RELAY_SID_LEN + 6, "y", 1);
		relay_store_submit(st, op);
	}
	event_base_dispatch(as.base);
	ok(rs.n == 3 && rs.results[0] == 0 &&
	    rs.results[1] == ALX_ERR_REPLAYED && rs.results[2] == 0,
	    "a failing write does not fail its batch neighbours");
	ok(rs.cursors[0] == 301 && rs.cursors[2] == 302,
	    "and its neighbours get consecutive cursors");
	relay_store_drain(st);
	event_base_free(as.base);
}

/*
 * n writes of len bytes through the writer thread; the errors (with
 * nospace, the writes refused for want of disk space are counted there,
 * not as errors).
 */
static int
async_writes(struct relay_store *st, int n, size_t len, int *nospace)
{
	struct async_state	 as;
	struct relay_wop	*op;
	uint8_t			 key[RELAY_SID_LEN + 16], *val;
	int			 i;

	memset(&as, 0, sizeof(as));
	as.nospace = nospace;
	as.base = event_base_new();
	as.want = n;
	val = calloc(1, len);
	if (as.base == NULL || val == NULL || relay_store_start(st,
	    as.base) != 0)
		return -1;
	memset(key, 0x55, RELAY_SID_LEN);
	for (i = 0; i < n; i++) {
		snprintf((char *)key + RELAY_SID_LEN, 16, "p%05d", i);
		op = relay_wop_new(async_done, &as);
		relay_wop_add(op, RELAY_W_APPEND_ITEM, RELAY_DB_ITEMS, key,
		    RELAY_SID_LEN + 6, val, len);
		if (relay_store_submit(st, op) != 0)
			return -1;
	}
	event_base_dispatch(as.base);
	relay_store_drain(st);
	event_base_free(as.base);
	free(val);
	return as.done == n ? as.errors : -1;
}

static off_t
file_size(const char *dir, off_t *allocated)
{
	struct stat	sb;
	char		path[512];

	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	if (stat(path, &sb) == -1)
		return -1;
	if (allocated != NULL)
		*allocated = (off_t)sb.st_blocks * 512;
	return sb.st_size;
}

/* One write at a time (each its own batch), the file size seen after each. */
struct seq_state {
	struct relay_store	*st;
	struct event_base	*base;
	const char		*dir;
	uint8_t			*val;
	size_t			 len;
	int			 i, n, errors;
	off_t			 last, max_step;
};

static int
seq_submit(struct seq_state *ss);

static void
seq_done(struct relay_wop *op, void *arg)
{
	struct seq_state	*ss = arg;
	off_t			 size;

	if (op->result != 0)
		ss->errors++;
	relay_wop_free(op);
	if ((size = file_size(ss->dir, NULL)) - ss->last > ss->max_step)
		ss->max_step = size - ss->last;
	ss->last = size;
	if (++ss->i == ss->n || seq_submit(ss) != 0)
		event_base_loopbreak(ss->base);
}

static int
seq_submit(struct seq_state *ss)
{
	struct relay_wop	*op;
	uint8_t			 key[RELAY_SID_LEN + 16];

	memset(key, 0x66, RELAY_SID_LEN);
	snprintf((char *)key + RELAY_SID_LEN, 16, "q%05d", ss->i);
	if ((op = relay_wop_new(seq_done, ss)) == NULL ||
	    relay_wop_add(op, RELAY_W_APPEND_ITEM, RELAY_DB_ITEMS, key,
	    RELAY_SID_LEN + 6, ss->val, ss->len) != 0)
		return -1;
	return relay_store_submit(ss->st, op);
}

/*
 * Once the first 16 MiB are there, the zeros are topped up a step (1 MiB)
 * at a time as LMDB uses them: 60 writes of 256 KB one after another use
 * 15 MiB, and the file never grows by more than a few MiB from one write
 * to the next (writing the lead back in one go, 12 MiB or more, paused
 * every writer for tens of milliseconds); a small write after them adds
 * no zeros.
 */
static void
test_prepare_steps(void)
{
	char			 dir[] = "/tmp/alx-store-step-XXXXXX";
	struct seq_state	 ss;
	char			*cause = NULL;
	off_t			 before;

	memset(&ss, 0, sizeof(ss));
	if (mkdtemp(dir) == NULL || relay_store_open(&ss.st, dir,
	    256 * 1024 * 1024, &cause) != 0 ||
	    (ss.base = event_base_new()) == NULL ||
	    (ss.val = calloc(1, 256 * 1024)) == NULL ||
	    relay_store_start(ss.st, ss.base) != 0) {
		ok(0, "open a store for the top-up test");
		return;
	}
	/*
	 * A size seen in a write's callback may catch the top-up after that
	 * write half done; the one after it has finished before the next
	 * write commits. So: two small writes, then the first top-up is whole.
	 */
	ss.dir = dir;
	ss.len = 1000;
	ss.n = 2;
	if (seq_submit(&ss) == 0)
		event_base_dispatch(ss.base);
	before = ss.last;
	ok(before >= 16 * 1024 * 1024, "the first write: 16 MiB of zeros "
	    "ahead (%lld bytes)", (long long)before);
	ss.max_step = 0;
	ss.len = 256 * 1024;
	ss.n = 62;
	if (seq_submit(&ss) == 0)
		event_base_dispatch(ss.base);
	is_int(ss.i, 62, "60 writes of 256 KB, one after another");
	is_int(ss.errors, 0, "all committed");
	ok(ss.last - before >= 14 * 1024 * 1024,
	    "the zeros were topped up as they were used (%lld more bytes)",
	    (long long)(ss.last - before));
	ok(ss.max_step <= 4 * 1024 * 1024, "never more than a few MiB at "
	    "once (at most %lld bytes between two writes)",
	    (long long)ss.max_step);
	ss.len = 1000;
	ss.n = 63;
	if (seq_submit(&ss) == 0)
		event_base_dispatch(ss.base);
	before = ss.last;		/* the last top-up is whole now */
	ss.n = 64;
	if (seq_submit(&ss) == 0)
		event_base_dispatch(ss.base);
	is_int((long long)(ss.last - before), 0,
	    "small writes after a top-up add no zeros");
	relay_store_drain(ss.st);
	relay_store_close(ss.st);
	event_base_free(ss.base);
	free(ss.val);
	rmtree(dir);
}

/*
 * The writer extends the data file with written zeros (allocated blocks,
 * not a hole) ahead of LMDB's last page; what was committed survives a
 * reopen. With the file size limited (as a full disk would), writes go
 * on within the room the zeros made, and the others are refused before
 * anything of them is written.
 */
static void
test_prepare(void)
{
	char			 dir[] = "/tmp/alx-store-prep-XXXXXX";
	struct relay_store	*st;
	struct rlimit		 rl;
	char			*cause = NULL;
	off_t			 size, alloc = 0;
	uint64_t		 cur = 0;
	uint8_t			 sid[RELAY_SID_LEN];
	pid_t			 pid;
	int			 status, rc;

	if (mkdtemp(dir) == NULL ||
	    relay_store_open(&st, dir, 256 * 1024 * 1024, &cause) != 0) {
		ok(0, "open a store for the extension test");
		return;
	}
	is_int(async_writes(st, 20, 1000, NULL), 0,
	    "20 writes through the writer");
	size = file_size(dir, &alloc);
	ok(size >= 16 * 1024 * 1024 && alloc >= 16 * 1024 * 1024,
	    "the data file holds 16 MiB of written zeros ahead "
	    "(%lld bytes, %lld allocated)", (long long)size, (long long)alloc);
	relay_store_close(st);
	memset(sid, 0x55, sizeof(sid));
	ok(relay_store_open(&st, dir, 256 * 1024 * 1024, &cause) == 0 &&
	    relay_store_last_cursor(st, sid, &cur) == 0 && cur == 20,
	    "reopened past the zeros: the 20 writes are there");
	relay_store_close(st);
	rmtree(dir);

	/*
	 * A file that cannot grow (as a full disk): in a child, whose limit
	 * is its own. The zeros stop at the limit and stay; every write
	 * either commits or is refused with no_space before it is written,
	 * and what committed is all there when reopened.
	 */
	if (mkdtemp(strcpy(dir, "/tmp/alx-store-prep-XXXXXX")) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	if ((pid = fork()) == 0) {
		int	nospace = 0, errors;

		signal(SIGXFSZ, SIG_IGN);
		rl.rlim_cur = rl.rlim_max = 2 * 1024 * 1024;
		if (setrlimit(RLIMIT_FSIZE, &rl) == -1 ||
		    relay_store_open(&st, dir, 256 * 1024 * 1024, &cause) != 0)
			_exit(2);
		errors = async_writes(st, 300, 4000, &nospace);
		relay_store_close(st);
		if (errors != 0)
			_exit(3);
		if (file_size(dir, NULL) > 2 * 1024 * 1024)
			_exit(4);
		/* The count in the exit status: 300 - nospace / 2 fits. */
		_exit(nospace / 2);
	}
	status = -1;
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		status = WEXITSTATUS(status);
	ok(status > 4 && status < 140, "a file that cannot grow 16 MiB: "
	    "writes commit within the room there is, the others get "
	    "no_space (about %d of 300 refused)", status * 2);
	memset(sid, 0x55, sizeof(sid));
	cur = 0;
	rc = relay_store_open(&st, dir, 256 * 1024 * 1024, &cause) == 0 &&
	    relay_store_last_cursor(st, sid, &cur) == 0;
	ok(rc && cur >= 300 - (uint64_t)status * 2 - 1 &&
	    cur <= 300 - (uint64_t)status * 2, "and the %llu committed are "
	    "there when reopened", (unsigned long long)cur);
	relay_store_close(st);
	rmtree(dir);
}

/*
 * Back-pressure and group commit: the write queue refuses what would take
 * it over its byte limit until completions have run on the loop (a write
 * alone is always taken), and a write announced but never queued delays
 * the commit of others only briefly.
 */
static void
test_queue(void)
{
	char			 dir[] = "/tmp/alx-store-queue-XXXXXX";
	struct relay_store	*st;
	struct relay_wop	*op;
	struct record_state	 rs;
	uint8_t			 key[RELAY_SID_LEN + 8], *val;
	char			*cause = NULL;
	double			 t0;
	struct timeval		 give_up = { 60, 0 };

	if (mkdtemp(dir) == NULL || (val = calloc(1, 40 * 1024)) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	is_int(relay_store_open(&st, dir, 64 * 1024 * 1024, &cause), 0,
	    "open a store for the queue tests");
	memset(&rs, 0, sizeof(rs));
	rs.base = event_base_new();
	is_int(relay_store_start(st, rs.base), 0, "and start its writer");
	relay_store_set_limit(st, 64 * 1024);
	is_int(relay_store_room(st, 100 * 1024), 0,
	    "an empty queue takes a write larger than the limit");
	memset(key, 0x55, RELAY_SID_LEN);
	relay_be64(key + RELAY_SID_LEN, 1);
	op = relay_wop_new(record_done, &rs);
	relay_wop_add(op, RELAY_W_PUT, RELAY_DB_CHUNKS, key, sizeof(key), val,
	    40 * 1024);
	is_int(relay_store_submit(st, op), 0, "a 40 KiB write queued");
	is_int(relay_store_room(st, 40 * 1024), ALX_ERR_NOT_READY,
	    "a second one would pass the 64 KiB limit: refused");
	is_int(relay_store_room(st, 1024), 0, "a small one still fits");
	rs.n = 2;		/* record_done stops the loop at 3 */
	event_base_dispatch(rs.base);
	is_int(rs.results[2], 0, "the write committed");
	is_int(relay_store_room(st, 40 * 1024), 0,
	    "after its completion ran, there is room again");

	/* Announced, never queued: the writer waits at most a moment. */
	relay_store_expect(st, 1);
	rs.n = 2;
	relay_be64(key + RELAY_SID_LEN, 2);
	op = relay_wop_new(record_done, &rs);
	relay_wop_add(op, RELAY_W_PUT, RELAY_DB_CHUNKS, key, sizeof(key), "z",
	    1);
	/*
	 * Commits at all: a writer waiting for the announced write would
	 * keep the loop running until the 60 s below (a liveness bound, not
	 * a speed one: that is bench/'s).
	 */
	t0 = mono_sec();
	relay_store_submit(st, op);
	event_base_loopexit(rs.base, &give_up);
	event_base_dispatch(rs.base);
	ok(rs.n == 3 && rs.results[2] == 0,
	    "a write behind an announced one that never comes commits "
	    "(in %.1f ms)", (mono_sec() - t0) * 1000);
	relay_store_expect(st, -1);
	relay_store_close(st);
	event_base_free(rs.base);
	free(val);
	rmtree(dir);
}

static void
test_map_full(void)
{
	char			 dir[] = "/tmp/alx-store-full-XXXXXX";
	struct relay_store	*st;
	struct relay_wop	*op;
	struct alx_buf		 b;
	uint8_t			 key[RELAY_SID_LEN + 8], *big;
	char			*cause = NULL;
	int			 i, rc = 0;

	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	is_int(relay_store_open(&st, dir, 1024 * 1024, &cause), 0,
	    "open a store with a 1 MiB map");
	big = calloc(1, 64 * 1024);
	memset(key, 0x44, RELAY_SID_LEN);
	for (i = 0; i < 64; i++) {
		relay_be64(key + RELAY_SID_LEN, (uint64_t)i);
		op = relay_wop_new(NULL, NULL);
		relay_wop_add(op, RELAY_W_PUT, RELAY_DB_CHUNKS, key,
		    sizeof(key), big, 64 * 1024);
		rc = relay_store_apply(st, op);
		relay_wop_free(op);
		if (rc != 0)
			break;
	}
	ok(i > 0 && i < 64, "the map fills after %d writes of 64 KiB", i);
	is_int(rc, ALX_ERR_NO_SPACE, "a full map is ALX_ERR_NO_SPACE");
	is_str(alx_errname(rc), "insufficient_storage",
	    "named insufficient_storage (HTTP 507)");
	alx_buf_init(&b, 128 * 1024);
	relay_be64(key + RELAY_SID_LEN, 0);
	is_int(relay_store_get(st, RELAY_DB_CHUNKS, key, sizeof(key), &b), 0,
	    "reads still work when the map is full");
	alx_buf_free(&b);
	relay_be64(key + RELAY_SID_LEN, 0);
	op = relay_wop_new(NULL, NULL);
	relay_wop_add(op, RELAY_W_DEL, RELAY_DB_CHUNKS, key, sizeof(key),
	    NULL, 0);
	is_int(relay_store_apply(st, op), 0,
	    "deleting still works when the map is full");
	relay_wop_free(op);
	free(big);
	relay_store_close(st);
	rmtree(dir);
}

/*
 * A store written before records carried tags (format 1: values as they
 * are) is copied once into one with tags when it is opened, and reads the
 * same; a record whose bytes changed in the file is then a storage error
 * of that record alone (writes go on), never its bytes.
 */
static void
test_format1(void)
{
	char			 dir[] = "/tmp/alx-store-fmt1-XXXXXX";
	char			 path[512];
	static const char	*names[] = { "meta", "expiry", "sessions",
				    "items", "itemidx", "chunks",
				    "participants", "receipts", "jobs" };
	struct relay_store	*st;
	struct alx_buf		 b;
	MDB_env			*env;
	MDB_txn			*txn;
	MDB_dbi			 dbi;
	MDB_val			 k, v;
	uint8_t			 key[RELAY_SID_LEN + 8], *file = NULL;
	char			*cause = NULL, val[64];
	const char		*why;
	unsigned		 nbad = 9;
	FILE			*f;
	long			 len, i;
	size_t			 n;
	int			 rc, d;

	if (mkdtemp(dir) == NULL || mdb_env_create(&env) != 0 ||
	    mdb_env_set_maxdbs(env, 16) != 0 ||
	    mdb_env_open(env, dir, 0, 0600) != 0 ||
	    mdb_txn_begin(env, NULL, 0, &txn) != 0) {
		ok(0, "a format 1 store");
		return;
	}
	rc = 0;
	for (i = 0; i < 9 && rc == 0; i++)
		rc = mdb_dbi_open(txn, names[i], MDB_CREATE, &dbi);
	memset(key, 0x77, RELAY_SID_LEN);
	for (i = 1; i <= 50 && rc == 0; i++) {
		relay_be64(key + RELAY_SID_LEN, (uint64_t)i);
		snprintf(val, sizeof(val), "record-%03ld-of-format-one", i);
		k.mv_data = key;
		k.mv_size = sizeof(key);
		v.mv_data = val;
		v.mv_size = strlen(val);
		rc = mdb_put(txn, dbi, &k, &v, 0);	/* dbi: "jobs" */
	}
	ok(rc == 0 && mdb_txn_commit(txn) == 0, "a store of format 1: 50 "
	    "records without tags");
	mdb_env_close(env);

	ok(relay_store_open(&st, dir, 64 * 1024 * 1024, &cause) == 0 &&
	    relay_store_damaged(st, NULL, NULL) == 0, "it opens (converted)");
	alx_buf_init(&b, 64);
	relay_be64(key + RELAY_SID_LEN, 17);
	is_int(relay_store_get(st, RELAY_DB_JOBS, key, sizeof(key), &b), 0,
	    "a record reads");
	is_int(b.len == strlen("record-017-of-format-one") &&
	    memcmp(b.data, "record-017-of-format-one", b.len) == 0, 1,
	    "the same bytes as before");
	relay_store_close(st);
	snprintf(path, sizeof(path), "%s/.convert", dir);
	ok(access(path, F_OK) == -1, "no copy left beside it");

	/* One byte of that record changed in the file. */
	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	if ((f = fopen(path, "r+b")) == NULL || fseek(f, 0, SEEK_END) != 0 ||
	    (len = ftell(f)) <= 0 || (file = malloc((size_t)len)) == NULL ||
	    fseek(f, 0, SEEK_SET) != 0 ||
	    fread(file, 1, (size_t)len, f) != (size_t)len) {
		ok(0, "read the data file");
		if (f != NULL)
			fclose(f);
		free(file);
		alx_buf_free(&b);
		return;
	}
	n = strlen("record-017");
	for (i = 0; i + (long)n <= len; i++)
		if (memcmp(file + i, "record-017", n) == 0)
			break;
	ok(i + (long)n <= len, "the record is in the file");
	if (i + (long)n <= len) {
		fseek(f, i + 7, SEEK_SET);
		fputc('9', f);
	}
	fclose(f);
	free(file);
	ok(relay_store_open(&st, dir, 64 * 1024 * 1024, &cause) == 0,
	    "reopened");
	is_int(relay_store_get(st, RELAY_DB_JOBS, key, sizeof(key), &b),
	    ALX_ERR_STORAGE, "the changed record: a storage error, not bytes");
	relay_be64(key + RELAY_SID_LEN, 18);
	is_int(relay_store_get(st, RELAY_DB_JOBS, key, sizeof(key), &b), 0,
	    "its neighbour reads");
	d = relay_store_damaged(st, &why, &nbad);
	ok(d == 1, "a record's damage, found at open, turns writes off (its "
	    "page may be damaged beyond it)");
	relay_store_close(st);
	alx_buf_free(&b);
	snprintf(path, sizeof(path), "%s/airlox-relayd.store", dir);
	unlink(path);
	rmtree(dir);
}

/*
 * A record LMDB's search can no longer reach: one key in the middle of a
 * leaf changed so that it sorts first. A search for the leaf's first key
 * compares it first, goes right and misses a record that is there, whole.
 * That miss is a storage error, never "not found": while the store is
 * open (read from the records around the miss) and after a reopen (the
 * walk at open finds the record out of order, and then no miss in that
 * database is proof); --check reports it. Other databases still answer
 * "not found".
 */
#define UNREACH_N	40
#define UNREACH_MID	((UNREACH_N - 1) / 2)

static void
unreach_key(uint8_t key[RELAY_SID_LEN + ALX_ID_LEN], int sidbyte, int i)
{
	memset(key, sidbyte, RELAY_SID_LEN);
	memset(key + RELAY_SID_LEN, 0x5a, ALX_ID_LEN - 1);
	key[RELAY_SID_LEN + ALX_ID_LEN - 1] = (uint8_t)i;
}

/*
 * dir's data.mdb, read whole for a test to damage: its bytes (free them)
 * and *fd open for writing, or NULL.
 */
static uint8_t *
data_file(const char *dir, int *fd, off_t *size)
{
	char		 path[512];
	uint8_t		*file = NULL;
	struct stat	 sb;

	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	if ((*fd = open(path, O_RDWR)) == -1 || fstat(*fd, &sb) != 0 ||
	    (file = malloc((size_t)sb.st_size)) == NULL ||
	    pread(*fd, file, (size_t)sb.st_size, 0) != sb.st_size) {
		if (*fd != -1)
			close(*fd);
		free(file);
		return NULL;
	}
	*size = sb.st_size;
	return file;
}

static int
unreach_damage(const char *dir)
{
	uint8_t		 key[RELAY_SID_LEN + ALX_ID_LEN], *file;
	off_t		 i, size;
	int		 fd, n = 0;

	if ((file = data_file(dir, &fd, &size)) == NULL)
		return 0;
	unreach_key(key, 0x40, UNREACH_MID);
	/* Every copy: an older version of the page may hold it too. */
	for (i = 0; i + (off_t)sizeof(key) <= size; i++)
		if (memcmp(file + i, key, sizeof(key)) == 0 &&
		    pwrite(fd, "", 1, i) == 1)
			n++;
	close(fd);
	free(file);
	return n;
}

static void
test_unreachable(void)
{
	char			 dir[] = "/tmp/alx-store-unreach-XXXXXX";
	char			 line[256], *cause = NULL;
	struct relay_store	*st;
	struct relay_wop	*op = NULL;
	struct alx_buf		 b;
	uint8_t			 key[RELAY_SID_LEN + ALX_ID_LEN], val[8];
	uint8_t			 jkey[RELAY_SID_LEN + 8];
	const char		*why;
	unsigned		 nbad;
	FILE			*report;
	int			 i, rc, said = 0;

	if (mkdtemp(dir) == NULL ||
	    relay_store_open(&st, dir, 64 * 1024 * 1024, &cause) != 0) {
		ok(0, "a store for the unreachable record");
		return;
	}
	for (i = 0, rc = 0; i < UNREACH_N && rc == 0; i++) {
		if (i % RELAY_WOP_MAX_STEPS == 0)
			op = relay_wop_new(NULL, NULL);
		unreach_key(key, 0x40, i);
		memset(val, i, sizeof(val));
		relay_wop_add(op, RELAY_W_PUT, RELAY_DB_ITEMIDX, key,
		    sizeof(key), val, sizeof(val));
		if (i % RELAY_WOP_MAX_STEPS == RELAY_WOP_MAX_STEPS - 1 ||
		    i == UNREACH_N - 1) {
			rc = relay_store_apply(st, op);
			relay_wop_free(op);
		}
	}
	is_int(rc, 0, "%d records in one leaf", UNREACH_N);
	alx_buf_init(&b, 64);
	unreach_key(key, 0x40, 0);
	is_int(relay_store_get(st, RELAY_DB_ITEMIDX, key, sizeof(key), &b), 0,
	    "the first record reads");
	ok(unreach_damage(dir) > 0, "the middle record's key changed to sort "
	    "first");

	is_int(relay_store_get(st, RELAY_DB_ITEMIDX, key, sizeof(key), &b),
	    ALX_ERR_STORAGE, "the first record, there but out of the search's "
	    "reach: a storage error, not \"not found\"");
	memset(jkey, 0x40, sizeof(jkey));
	is_int(relay_store_get(st, RELAY_DB_JOBS, jkey, sizeof(jkey), &b),
	    ALX_ERR_NOT_FOUND, "a miss in an undamaged database: not found");
	relay_store_close(st);

	report = tmpfile();
	is_int(relay_store_check(dir, report), 1, "--check: damaged (1)");
	if (report != NULL) {
		rewind(report);
		while (fgets(line, sizeof(line), report) != NULL)
			if (strstr(line, "damaged: a record in itemidx") != NULL)
				said = 1;
		fclose(report);
	}
	ok(said, "--check names the database with records out of place");

	is_int(relay_store_open(&st, dir, 64 * 1024 * 1024, &cause), 0,
	    "reopened");
	is_int(relay_store_damaged(st, &why, &nbad), 1,
	    "the walk at open finds it: writes are off");
	unreach_key(key, 0x40, UNREACH_N - 5);
	rc = relay_store_get(st, RELAY_DB_ITEMIDX, key, sizeof(key), &b);
	ok(rc == 0 && b.len == sizeof(val) && b.data[0] == UNREACH_N - 5,
	    "a whole record the search reaches still reads");
	unreach_key(key, 0x70, 3);
	is_int(relay_store_get(st, RELAY_DB_ITEMIDX, key, sizeof(key), &b),
	    ALX_ERR_STORAGE, "any miss in that database, its neighbours "
	    "whole: a storage error (it cannot prove an absence)");
	is_int(relay_store_get(st, RELAY_DB_JOBS, jkey, sizeof(jkey), &b),
	    ALX_ERR_NOT_FOUND, "a miss in another database: still not found");
	relay_store_close(st);
	alx_buf_free(&b);
	rmtree(dir);
}

/*
 * The walk at open and --check go on past a fault from the session after
 * the one it met, and must only ever go forward. Chunk records keyed by
 * sessions 0x30, A, D, E and F; A's and E's value sizes changed to 32 MiB
 * (reading them runs past the end of the file: a fault), and E's key
 * changed to name session A. Resuming after A's fault lands on D, then
 * meets "A" again: a walk that resumed there would fault and resume for
 * ever.
 */
#define WF_KEYLEN	(RELAY_SID_LEN + ALX_ID_LEN + 4)

static void
wf_key(uint8_t key[WF_KEYLEN], int sidbyte, int index)
{
	memset(key, sidbyte, RELAY_SID_LEN);
	memset(key + RELAY_SID_LEN, 0x5a, ALX_ID_LEN);
	memset(key + RELAY_SID_LEN + ALX_ID_LEN, 0, 3);
	key[WF_KEYLEN - 1] = (uint8_t)index;
}

/*
 * Each copy of key in a leaf node (8 bytes of header before the key: the
 * value's size, low and high 16 bits, flags, the key's size): the size's
 * high half set to 0x0200 (32 MiB: past the end of the file, inside the
 * 64 MiB map), its session to sidbyte.
 */
static int
wf_damage(const char *dir, const uint8_t key[WF_KEYLEN], int sidbyte)
{
	uint8_t		*file, hi[2] = { 0x00, 0x02 };
	off_t		 i, size;
	int		 fd, n = 0;

	if ((file = data_file(dir, &fd, &size)) == NULL)
		return 0;
	for (i = 8; i + WF_KEYLEN <= size; i++) {
		if (memcmp(file + i, key, WF_KEYLEN) != 0 ||
		    file[i - 2] != WF_KEYLEN || file[i - 1] != 0)
			continue;
		memset(file + i, sidbyte, RELAY_SID_LEN);
		if (pwrite(fd, hi, 2, i - 6) == 2 && pwrite(fd, file + i,
		    RELAY_SID_LEN, i) == RELAY_SID_LEN)
			n++;
	}
	close(fd);
	free(file);
	return n;
}

static void
test_walk_forward(void)
{
	char			 dir[] = "/tmp/alx-store-walk-XXXXXX";
	char			*cause = NULL;
	static const int	 sids[] = { 0x30, 0x41, 0x44, 0x45, 0x46 };
	struct relay_store	*st;
	struct relay_wop	*op;
	uint8_t			 key[WF_KEYLEN], val[100];
	const char		*why;
	unsigned		 nbad, i;
	FILE			*devnull;
	pid_t			 pid;
	int			 status, rc;

	if (mkdtemp(dir) == NULL ||
	    relay_store_open(&st, dir, 64 * 1024 * 1024, &cause) != 0) {
		ok(0, "a store for the walk");
		return;
	}
	memset(val, 0x77, sizeof(val));
	op = relay_wop_new(NULL, NULL);
	for (i = 0; i < sizeof(sids) / sizeof(sids[0]); i++) {
		wf_key(key, sids[i], sids[i] == 0x45 ? 5 : 1);
		relay_wop_add(op, RELAY_W_PUT, RELAY_DB_CHUNKS, key,
		    sizeof(key), val, sizeof(val));
	}
	is_int(relay_store_apply(st, op), 0, "five chunks of five sessions");
	relay_wop_free(op);
	relay_store_close(st);

	wf_key(key, 0x41, 1);
	rc = wf_damage(dir, key, 0x41);
	wf_key(key, 0x45, 5);
	ok(rc > 0 && wf_damage(dir, key, 0x41) > 0, "A's and E's values made "
	    "to run past the end of the file, E's key changed to name A");

	/* In a child, so that a walk going round for ever is caught. */
	if ((pid = fork()) == 0) {
		alarm(60);
		devnull = fopen("/dev/null", "w");
		if (relay_store_check(dir, devnull) != 1)
			_exit(3);
		if (relay_store_open(&st, dir, 64 * 1024 * 1024, &cause) != 0)
			_exit(4);
		rc = relay_store_damaged(st, &why, &nbad);
		relay_store_close(st);
		_exit(rc == 1 ? 0 : 5);
	}
	status = -1;
	if (pid > 0)
		waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "--check and the "
	    "walk at open end (not in a loop: status %d, 0x%x), say damaged, "
	    "and the relay opens with writes off", WIFEXITED(status) ?
	    WEXITSTATUS(status) : -1, (unsigned)status);
	rmtree(dir);
}

int
main(int argc, char **argv)
{
	struct relay_store	*st;
	char			*cause = NULL;

	log_init("test-store", LOG_LEVEL_WARN);
	if (mkdtemp(tmpdir) == NULL)
		tap_skip_all("mkdtemp failed");
	if (relay_store_open(&st, tmpdir, 64 * 1024 * 1024, &cause) != 0) {
		printf("# %s\n", cause ? cause : "open failed");
		ok(0, "open the store");
		return tap_done();
	}
	ok(1, "open the store");
	test_basic(st);
	test_async(st);
	relay_store_close(st);
	/* Reopen: what was committed is there. */
	is_int(relay_store_open(&st, tmpdir, 64 * 1024 * 1024, &cause), 0,
	    "reopen the store");
	{
		uint64_t	cur = 0;
		uint8_t		sid[RELAY_SID_LEN];

		memset(sid, 0x33, sizeof(sid));
		relay_store_last_cursor(st, sid, &cur);
		is_int(cur, 302, "all 302 group-committed items survive a reopen");
	}
	relay_store_close(st);
	test_format1();
	test_unreachable();
	test_walk_forward();
	if (argc > 1 && strcmp(argv[1], "-k") == 0)
		printf("# kept %s\n", tmpdir);
	else
		rmtree(tmpdir);
	test_map_full();
	test_queue();
	test_prepare();
	test_prepare_steps();
	return tap_done();
}
