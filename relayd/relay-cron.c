/*
 * relay-cron.c: the one periodic timer (redis's serverCron, in small).
 *
 * Every tick: the watchdog ping when due, and after a burst of request
 * bodies, once they are gone, their memory back to the system. Spread over
 * ticks: the disk watermark check, the expiry sweep (sessions past their
 * lifetime are deleted through the writer thread), and once a minute
 * freeing idle per-address records and the count of refused requests.
 *
 * Expiry (sessions, transfer codes) reads relay_expiry_now(). Builds for
 * the test suite only (-DRELAY_TEST, tests/relayd/airlox-relayd-test) add
 * a hidden POST /v1/test/clock that moves this clock forward and can hold
 * the sweep, so a test can see a 10-minute expiry and the window between
 * a session's end and its deletion; the product binary has neither. The
 * signed-request freshness check keeps the real clock.
 *
 * The request-rate buckets read relay_rate_now(), the monotonic clock. In
 * test builds POST /v1/test/clock?rate=hold stops that clock (rate=run
 * starts it again), so a test sees the rate limit after exactly the burst
 * it allows however slowly a loaded machine runs its requests.
 */
#include "config.h"

#include <sys/statvfs.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/http.h>

#include "airlox.h"
#include "util/mono.h"
#include "util/log.h"
#include "relayd.h"

#define RELAY_CRON_MS		250
#define RELAY_DISK_EVERY	4	/* ticks: once a second */
#define RELAY_SWEEP_EVERY	20	/* ticks: every 5 seconds */
#define RELAY_GC_EVERY		240	/* ticks: every minute */
#define RELAY_SWEEP_BATCH	64

static struct event	*relay_cron_ev;
static uint64_t		 relay_ticks;
static double		 relay_wd_last;
static int		 relay_disk_low;
static relay_expire_fn	*relay_expire_hook;	/* the sessions' sweep */
#ifdef RELAY_TEST
static int64_t		 relay_test_skew;	/* seconds added */
static int		 relay_test_nosweep;
static int		 relay_test_lax;	/* skip the item rules */
static int		 relay_test_hide_progress;	/* lose its chunks */
static double		 relay_test_rate_at = -1; /* rate clock held here */
#endif

static int
relay_cron_sweep_held(void)
{
#ifdef RELAY_TEST
	return relay_test_nosweep;
#else
	return 0;
#endif
}

/* The clock of expiry decisions (the real one outside test builds). */
uint64_t
relay_expiry_now(void)
{
#ifdef RELAY_TEST
	return (uint64_t)((int64_t)time(NULL) + relay_test_skew);
#else
	return (uint64_t)time(NULL);
#endif
}

/* The clock of the request-rate buckets (monotonic, in seconds). */
double
relay_rate_now(void)
{
#ifdef RELAY_TEST
	if (relay_test_rate_at >= 0)
		return relay_test_rate_at;
#endif
	return mono_sec();
}

int
relay_disk_ok(void)
{
	return !relay_disk_low;
}

/* 0 when the data directory is writable and above the watermark. */
int
relay_disk_check(char **why)
{
	struct statvfs	 sv;
	char		 path[4096];
	uint64_t	 avail;
	int		 fd;

	if (statvfs(relay_cfg.data_dir, &sv) == -1) {
		relay_setcause(why, "data directory: %s", strerror(errno));
		return -1;
	}
	avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	if (avail < relay_cfg.disk_watermark) {
		relay_disk_low = 1;
		relay_setcause(why, "free space %.1f MiB is below the "
		    "watermark of %.1f MiB (--disk-watermark)",
		    (double)avail / 1048576.0,
		    (double)relay_cfg.disk_watermark / 1048576.0);
		return -1;
	}
	relay_disk_low = 0;
	if (why == NULL)
		return 0;
	snprintf(path, sizeof(path), "%s/.ready-probe", relay_cfg.data_dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1 || write(fd, "", 1) != 1) {
		relay_setcause(why, "data directory not writable: %s",
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	close(fd);
	unlink(path);
	return 0;
}

void
relay_cron_set_expire(relay_expire_fn *fn)
{
	relay_expire_hook = fn;
}

static void
relay_cron_tick(evutil_socket_t fd, short ev, void *arg)
{
	uint64_t	wd = relay_notify_watchdog_usec();
	double		now = mono_sec();
	int		was_low = relay_disk_low;

	relay_ticks++;
	if (wd != 0 && (now - relay_wd_last) * 1e6 >= (double)wd / 2) {
		relay_notify_watchdog();
		relay_wd_last = now;
	}
	if (relay_ticks % RELAY_DISK_EVERY == 0) {
		relay_disk_check(NULL);
		if (relay_disk_low != was_low) {
			log_warnx("cron: free space is %s the watermark",
			    relay_disk_low ? "below" : "back above");
			relay_notify_status("%s", relay_disk_low ?
			    "serving reads only: disk below watermark" :
			    "serving");
		}
	}
	if (relay_ticks % RELAY_SWEEP_EVERY == 0 &&
	    relay_expire_hook != NULL && !relay.stopping &&
	    !relay_cron_sweep_held())
		relay_expire_hook(relay_expiry_now(), RELAY_SWEEP_BATCH);
	if (relay_ticks % RELAY_GC_EVERY == 0) {
		relay_peer_gc();
		relay_http_refusal_summary();
	}
	relay_gate_trim(relay_verify_pending() == 0 &&
	    relay_store_pending(relay.store) == 0);
}

void
relay_cron_start(struct event_base *base)
{
	struct timeval	tv = { 0, RELAY_CRON_MS * 1000 };

	relay_cron_ev = event_new(base, -1, EV_PERSIST, relay_cron_tick, NULL);
	if (relay_cron_ev == NULL || event_add(relay_cron_ev, &tv) == -1)
		fatalx("cron: cannot add the timer");
	relay_disk_check(NULL);
	relay_notify_watchdog();
	relay_wd_last = mono_sec();
}

void
relay_cron_stop(void)
{
	if (relay_cron_ev != NULL)
		event_free(relay_cron_ev);
	relay_cron_ev = NULL;
}

#ifdef RELAY_TEST
/*
 * POST /v1/test/clock?advance=SECONDS[&sweep=on|off][&rate=hold|run]: test
 * builds only.
 */
static void
relay_test_clock(struct relay_req *r)
{
	struct alx_jw	 jw;
	char		*v;
	uint64_t	 n;

	if ((v = relay_http_query(r, "advance")) != NULL) {
		if (relay_path_uint(v, 10 * 365 * 86400ULL, &n) != 0) {
			free(v);
			relay_http_fail(r, ALX_ERR_INVALID, "advance");
			return;
		}
		relay_test_skew += (int64_t)n;
		free(v);
	}
	if ((v = relay_http_query(r, "sweep")) != NULL) {
		relay_test_nosweep = strcmp(v, "off") == 0;
		free(v);
	}
	if ((v = relay_http_query(r, "rate")) != NULL) {
		if (strcmp(v, "hold") != 0)
			relay_test_rate_at = -1;
		else if (relay_test_rate_at < 0)
			relay_test_rate_at = mono_sec();
		free(v);
	}
	alx_jw_init(&jw, 128);
	alx_jw_obj_begin(&jw);
	alx_jw_kint(&jw, "skew", relay_test_skew);
	alx_jw_kbool(&jw, "sweep", !relay_test_nosweep);
	alx_jw_kbool(&jw, "rate_held", relay_test_rate_at >= 0);
	alx_jw_obj_end(&jw);
	relay_http_jw(r->req, 200, &jw);
}

/*
 * POST /v1/test/lax?roles=on|off&hide=progress|off: test builds only. With
 * roles on, the relay stores items whatever their author may post (the
 * rules of alx_item_check_rules(): the permission matrix, a job's wraps,
 * who answers or cancels a job); with hide=progress it answers not_found
 * for every chunk of a progress item (a job's output, lost or withheld).
 * A hostile relay, for the tests that show participants refuse such items
 * themselves (tests/runnerd/hostile-relay.sh, tests/runnerd/participants.sh)
 * and that a job's output is checked against its signed result.
 */
static void
relay_test_lax_set(struct relay_req *r)
{
	struct alx_jw	 jw;
	char		*v;

	if ((v = relay_http_query(r, "roles")) != NULL) {
		relay_test_lax = strcmp(v, "on") == 0;
		free(v);
	}
	if ((v = relay_http_query(r, "hide")) != NULL) {
		relay_test_hide_progress = strcmp(v, "progress") == 0;
		free(v);
	}
	alx_jw_init(&jw, 64);
	alx_jw_obj_begin(&jw);
	alx_jw_kbool(&jw, "roles", relay_test_lax);
	alx_jw_kstr(&jw, "hide", relay_test_hide_progress ? "progress" :
	    "off");
	alx_jw_obj_end(&jw);
	relay_http_jw(r->req, 200, &jw);
}

int
relay_test_lax_roles(void)
{
	return relay_test_lax;
}

int
relay_test_hides(const char *kind)
{
	return relay_test_hide_progress && strcmp(kind, "progress") == 0;
}

static const struct relay_route relay_test_routes[] = {
	{ EVHTTP_REQ_POST, "/v1/test/clock", relay_test_clock,
	  RELAY_ROUTE_NO_RATELIMIT },
	{ EVHTTP_REQ_POST, "/v1/test/lax", relay_test_lax_set,
	  RELAY_ROUTE_NO_RATELIMIT },
};

void
relay_test_init(void)
{
	log_warnx("test build: POST /v1/test/clock moves the expiry clock "
	    "and holds the rate clock, POST /v1/test/lax turns the item rules "
	    "off or loses a job's output");
	relay_http_add_routes(relay_test_routes, 2);
}
#endif
