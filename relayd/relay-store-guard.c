/*
 * relay-store-guard.c: damaged storage is an error, not a crash or a
 * client's fault.
 *
 * Record tags: every value the store writes ends with RELAY_TAG_LEN bytes
 * of SHA-256 over the key's length, the key and the value; every value it
 * reads is checked against its tag before anyone parses it. A flipped
 * byte in a record is then ALX_ERR_STORAGE (500 storage_error), never a
 * malformed request blamed on a client (400 bad_json), and a record moved
 * under another key (a damaged page pointer) does not check either.
 *
 * Guards: LMDB reads its file through a shared mapping. A page past the
 * end of a truncated file raises SIGBUS; a page whose pointers are damaged
 * sends LMDB's code astray (SIGSEGV) or into one of its assertions, which
 * abort(). Each call into LMDB runs under a guard (relay_guarded()): a
 * SIGBUS or SIGSEGV whose address lies in the database's mapping or that
 * LMDB's own code raised (a pointer it computed from a damaged page), or
 * an assertion, jumps back to the guard, which closes the cursor and aborts
 * the transaction of that call and returns ALX_ERR_STORAGE. A fault with
 * no guard, or outside the mapping (a bug of ours), keeps its default
 * action. Aborting is safe after such a jump: a read transaction only
 * gives its reader slot back, and a write transaction is abandoned whole
 * (the writer then applies its operations one by one, relay-store.c).
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/ucontext.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "util/log.h"
#include "relay-store-int.h"

static __thread struct relay_guard	*relay_guard_top;
static uintptr_t			 relay_map_lo, relay_map_hi;
static uintptr_t			 relay_lmdb_lo, relay_lmdb_hi;
static int				 relay_guard_installed;

void
relay_store_tag(uint8_t tag[RELAY_TAG_LEN], const void *key, size_t klen,
    const void *val, size_t vlen)
{
	struct alx_sha256_ctx	ctx;
	uint8_t			h[ALX_HASH_LEN], kl[2];

	kl[0] = (uint8_t)(klen >> 8);
	kl[1] = (uint8_t)klen;
	alx_sha256_init(&ctx);
	alx_sha256_update(&ctx, kl, sizeof(kl));
	alx_sha256_update(&ctx, key, klen);
	alx_sha256_update(&ctx, val, vlen);
	alx_sha256_final(&ctx, h);
	memcpy(tag, h, RELAY_TAG_LEN);
}

/*
 * A key or value LMDB points to in the mapping ends in it: a size from a
 * damaged page could reach past it, where a fault is not the guard's.
 * (Values of a write's own pages are in memory, not in the mapping.)
 */
static int
relay_map_spans(const void *p, size_t len)
{
	uintptr_t	a = (uintptr_t)p;

	if (relay_map_hi == 0 || a < relay_map_lo || a >= relay_map_hi)
		return 1;
	return len <= relay_map_hi - a;
}

/* A value as read: checked against its tag and shortened by it. */
int
relay_store_untag(const MDB_val *key, MDB_val *val)
{
	uint8_t	tag[RELAY_TAG_LEN];
	size_t	n;

	if (val->mv_size < RELAY_TAG_LEN ||
	    !relay_map_spans(key->mv_data, key->mv_size) ||
	    !relay_map_spans(val->mv_data, val->mv_size))
		return ALX_ERR_STORAGE;
	n = val->mv_size - RELAY_TAG_LEN;
	relay_store_tag(tag, key->mv_data, key->mv_size, val->mv_data, n);
	if (memcmp(tag, (uint8_t *)val->mv_data + n, RELAY_TAG_LEN) != 0)
		return ALX_ERR_STORAGE;
	val->mv_size = n;
	return 0;
}

/* mdb_put() of a value and its tag, written in place (MDB_RESERVE). */
int
relay_store_put_tagged(MDB_txn *txn, MDB_dbi dbi, MDB_val *key,
    const void *val, size_t len, unsigned flags)
{
	MDB_val	v;
	int	rc;

	v.mv_size = len + RELAY_TAG_LEN;
	v.mv_data = NULL;
	if ((rc = mdb_put(txn, dbi, key, &v, flags | MDB_RESERVE)) != 0)
		return rc;
	if (len > 0)
		memcpy(v.mv_data, val, len);
	relay_store_tag((uint8_t *)v.mv_data + len, key->mv_data, key->mv_size,
	    val, len);
	return 0;
}

/*
 * Was the faulting instruction LMDB's own? A damaged page can also give
 * LMDB a pointer outside the mapping (an offset or a size read from it):
 * still the database's damage, not a bug of ours.
 */
static int
relay_guard_in_lmdb(void *uctx)
{
	uintptr_t	pc = 0;

#if defined(__x86_64__) && defined(REG_RIP)
	pc = (uintptr_t)((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	pc = (uintptr_t)((ucontext_t *)uctx)->uc_mcontext.pc;
#else
	(void)uctx;
#endif
	return relay_lmdb_hi != 0 && pc >= relay_lmdb_lo && pc < relay_lmdb_hi;
}

static void
relay_guard_signal(int sig, siginfo_t *si, void *uctx)
{
	struct relay_guard	*g = relay_guard_top;
	uintptr_t		 a = (uintptr_t)si->si_addr;

	if (g != NULL && (relay_map_hi == 0 ||
	    (a >= relay_map_lo && a < relay_map_hi) ||
	    relay_guard_in_lmdb(uctx))) {
		g->fault = sig;
		siglongjmp(g->jb, 1);
	}
	/* Not a read of the database: the default action, on return. */
	signal(sig, SIG_DFL);
}

static void
relay_guard_assert(MDB_env *env, const char *msg)
{
	struct relay_guard	*g = relay_guard_top;

	(void)env;
	if (g != NULL) {
		g->fault = -1;
		siglongjmp(g->jb, 1);
	}
	log_warnx("store: LMDB: %s", msg);	/* LMDB aborts next */
}

/*
 * Where the database file is mapped, from /proc/self/maps: faults there
 * are the database's. Without /proc every fault under a guard is taken
 * as one (the guards cover little else than LMDB's own code).
 */
static void
relay_guard_map(const char *datafile)
{
	FILE		*f;
	char		 line[PATH_MAX + 256], path[PATH_MAX], perms[5];
	unsigned long	 lo, hi;
	struct stat	 sb;
	unsigned long	 ino;

	relay_map_lo = relay_map_hi = 0;
	relay_lmdb_lo = relay_lmdb_hi = 0;
	if (stat(datafile, &sb) == -1 || (f = fopen("/proc/self/maps",
	    "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %4s %*s %*s %lu %4095s", &lo, &hi,
		    perms, &ino, path) < 4)
			continue;
		if (strstr(path, "/liblmdb.so") != NULL &&
		    strchr(perms, 'x') != NULL) {
			if (relay_lmdb_hi == 0 || lo < relay_lmdb_lo)
				relay_lmdb_lo = lo;
			if (hi > relay_lmdb_hi)
				relay_lmdb_hi = hi;
			continue;
		}
		if (ino != (unsigned long)sb.st_ino ||
		    strstr(path, "data.mdb") == NULL)
			continue;
		if (relay_map_hi == 0 || lo < relay_map_lo)
			relay_map_lo = lo;
		if (hi > relay_map_hi)
			relay_map_hi = hi;
	}
	fclose(f);
}

/* Once the environment is open: the handlers, the assertion hook. */
void
relay_guard_init(MDB_env *env, const char *datafile)
{
	struct sigaction	sa;

	mdb_env_set_assert(env, relay_guard_assert);
	relay_guard_map(datafile);
	if (relay_guard_installed)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = relay_guard_signal;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL) == -1 ||
	    sigaction(SIGSEGV, &sa, NULL) == -1)
		log_warn("store: cannot catch faults of damaged storage");
	relay_guard_installed = 1;
}

int
relay_guarded(struct relay_guard *g, relay_guarded_fn *fn, void *arg)
{
	int	rc;

	g->txn = NULL;
	g->cursor = NULL;
	g->fault = 0;
	if (sigsetjmp(g->jb, 1) != 0) {
		/* Back from a fault: let go of what the call held. */
		relay_guard_top = g->prev;
		relay_guard_done(g);
		return RELAY_FAULTED;
	}
	g->prev = relay_guard_top;
	relay_guard_top = g;
	rc = fn(g, arg);
	relay_guard_top = g->prev;
	return rc;
}

/* The call's cursor closed and its (read) transaction aborted, if any. */
void
relay_guard_done(struct relay_guard *g)
{
	if (g->cursor != NULL)
		mdb_cursor_close(g->cursor);
	if (g->txn != NULL)
		mdb_txn_abort(g->txn);
	g->cursor = NULL;
	g->txn = NULL;
}

const char *
relay_guard_what(int fault)
{
	switch (fault) {
	case SIGBUS:
		return "a page past the end of the file (SIGBUS)";
	case SIGSEGV:
		return "a damaged page (SIGSEGV)";
	case -1:
		return "a damaged page (an LMDB assertion)";
	default:
		return "a fault";
	}
}
