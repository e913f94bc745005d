/*
 * relayd.c: airlox-relayd, the relay daemon. main() is the checklist:
 * options, logging, storage, HTTP and TLS, listen, tell the service
 * manager, loop, drain, tear down in order.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <signal.h>
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

struct relay relay;

static struct event	*relay_sig_term, *relay_sig_int, *relay_sig_hup;
static struct event	*relay_drain_ev;
static double		 relay_drain_deadline;
static char		*relay_tmpdir;

/* libevent's own messages go through log.c. */
static void
relay_evlog(int severity, const char *msg)
{
	switch (severity) {
	case EVENT_LOG_DEBUG:
		log_debug("libevent: %s", msg);
		break;
	case EVENT_LOG_MSG:
		log_info("libevent: %s", msg);
		break;
	default:
		log_warnx("libevent: %s", msg);
	}
}

static void
relay_evfatal(int err)
{
	fatalx("libevent: fatal error %d", err);
}

/* --ephemeral: a private directory, removed at exit. */
static void
relay_ephemeral_make(void)
{
	const char	*tmp = getenv("TMPDIR");
	char		 path[4096];

	snprintf(path, sizeof(path), "%s/airlox-relayd.XXXXXX",
	    tmp != NULL && *tmp == '/' ? tmp : "/tmp");
	if (mkdtemp(path) == NULL)
		fatal("ephemeral: mkdtemp %s", path);
	if ((relay_tmpdir = strdup(path)) == NULL)
		fatal("strdup");
	free(relay_cfg.data_dir);
	if ((relay_cfg.data_dir = strdup(path)) == NULL)
		fatal("strdup");
	log_info("ephemeral: data in %s, removed at exit", path);
}

static void
relay_ephemeral_remove(void)
{
	static const char	*files[] = { "data.mdb", "lock.mdb",
				    ".ready-probe", "airlox-relayd.store" };
	char			 path[4096];
	size_t			 i;

	if (relay_tmpdir == NULL)
		return;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", relay_tmpdir, files[i]);
		if (unlink(path) == -1 && errno != ENOENT)
			log_warn("ephemeral: unlink %s", path);
	}
	if (rmdir(relay_tmpdir) == -1)
		log_warn("ephemeral: rmdir %s", relay_tmpdir);
	free(relay_tmpdir);
	relay_tmpdir = NULL;
}

/* While stopping: exit the loop once every write has committed. */
static void
relay_drain_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct timeval	flush = { 0, 200 * 1000 };

	if ((relay_verify_pending() == 0 &&
	    relay_store_pending(relay.store) == 0) ||
	    mono_sec() > relay_drain_deadline) {
		if (relay_store_pending(relay.store) != 0 ||
		    relay_verify_pending() != 0)
			log_warnx("shutdown: grace period over with %u writes "
			    "and %u checks pending",
			    relay_store_pending(relay.store),
			    relay_verify_pending());
		event_del(relay_drain_ev);
		/* A moment to flush the last replies. */
		event_base_loopexit(relay.base, &flush);
	}
}

void
relay_shutdown(void)
{
	struct timeval	tv = { 0, 20 * 1000 };

	if (relay.stopping)
		return;
	relay.stopping = 1;
	log_info("shutdown: stop accepting, end streams, drain writes");
	relay_notify_stopping();
	relay_listen_stop();
	relay_sse_shutdown();
	relay_poll_shutdown();
	relay_drain_deadline = mono_sec() +
	    (double)relay_cfg.shutdown_grace;
	relay_drain_ev = event_new(relay.base, -1, EV_PERSIST, relay_drain_cb,
	    NULL);
	if (relay_drain_ev == NULL || event_add(relay_drain_ev, &tv) == -1)
		event_base_loopexit(relay.base, NULL);
}

static void
relay_signal_cb(evutil_socket_t sig, short ev, void *arg)
{
	switch (sig) {
	case SIGHUP:
		log_info("SIGHUP: reloading the TLS certificate");
		relay_tls_reload();
		break;
	default:
		relay_shutdown();
	}
}

static void
relay_signals(void)
{
	signal(SIGPIPE, SIG_IGN);
	relay_sig_term = evsignal_new(relay.base, SIGTERM, relay_signal_cb,
	    NULL);
	relay_sig_int = evsignal_new(relay.base, SIGINT, relay_signal_cb, NULL);
	relay_sig_hup = evsignal_new(relay.base, SIGHUP, relay_signal_cb, NULL);
	if (relay_sig_term == NULL || relay_sig_int == NULL ||
	    relay_sig_hup == NULL || evsignal_add(relay_sig_term, NULL) ||
	    evsignal_add(relay_sig_int, NULL) || evsignal_add(relay_sig_hup,
	    NULL))
		fatalx("cannot install signal handlers");
}

static void
relay_signals_free(void)
{
	event_free(relay_sig_term);
	event_free(relay_sig_int);
	event_free(relay_sig_hup);
	if (relay_drain_ev != NULL)
		event_free(relay_drain_ev);
}

static void
relay_open_store(void)
{
	const char	*why;
	char		*cause = NULL;

	if (relay_cfg.ephemeral)
		relay_ephemeral_make();
	else if (mkdir(relay_cfg.data_dir, 0700) == -1 && errno != EEXIST)
		fatal("data directory %s", relay_cfg.data_dir);
	if (relay_store_open(&relay.store, relay_cfg.data_dir,
	    relay_cfg.map_size, &cause) != 0) {
		relay_ephemeral_remove();
		fatalx("store: %s", cause ? cause : "cannot open");
	}
	/* Damage does not stop the relay: it serves what it can (logged). */
	if (relay_store_damaged(relay.store, &why, NULL) != 0)
		relay_notify_status("serving reads only: storage damaged: %s",
		    why);
	if (relay_store_start(relay.store, relay.base) != 0)
		fatalx("store: cannot start the writer thread");
	relay_store_set_limit(relay.store, (size_t)relay_cfg.queue_limit);
	if (relay_verify_start(relay.base,
	    (unsigned)relay_cfg.verify_threads) != 0)
		fatalx("verify: cannot start the worker threads");
}

int
main(int argc, char **argv)
{
	char	*cause = NULL;
	int	 rc;

	/* 1. Options: defaults, then AIRLOX_* variables, then flags. */
	log_init("airlox-relayd", LOG_LEVEL_INFO);
	rc = relay_config_load(&relay_cfg, argc, argv, &cause);
	if (rc != 0) {
		if (rc < 0)
			log_warnx("%s", cause ? cause : "bad options");
		free(cause);
		relay_config_free(&relay_cfg);
		return rc == 1 ? 0 : 2;
	}
	log_setlevel(relay_cfg.log_level);
	if (alx_crypto_init() != 0)
		fatalx("crypto library initialisation failed");
	if (relay_cfg.check || relay_cfg.salvage != NULL) {
		/* An operator's check or rescue of the store, then exit. */
		rc = relay_cfg.check ? relay_store_check(relay_cfg.data_dir,
		    stdout) : relay_store_salvage(relay_cfg.data_dir,
		    relay_cfg.salvage, stdout);
		relay_config_free(&relay_cfg);
		return rc;
	}

	/* 2. The event loop, with libevent's messages in our log. */
	event_set_log_callback(relay_evlog);
	event_set_fatal_callback(relay_evfatal);
	if ((relay.base = event_base_new()) == NULL ||
	    event_base_priority_init(relay.base, RELAY_PRIO_COUNT) == -1)
		fatalx("event_base_new failed");
	relay.started = time(NULL);
	relay_signals();

	/* 3. Storage: LMDB and its writer thread; the verify workers. */
	relay_open_store();

	/* 4. HTTP, TLS, the endpoints. */
	if (relay_tls_init(&cause) != 0 || relay_host_init(&cause) != 0)
		fatalx("%s", cause);
	if (relay_cfg.plain_http)
		log_warnx("serving plain HTTP (--plain-http): only behind a "
		    "TLS proxy or ingress");
	relay_conn_init(relay.base);
	if (relay_http_init(relay.base, &relay.http, &cause) != 0)
		fatalx("%s", cause);
	relay_health_init();
	if (relay_api_session_init(&cause) != 0)
		fatalx("%s", cause);
	relay_api_items_init();
	relay_api_jobs_init();
	relay_api_codes_init();
	relay_api_log_init();
#ifdef RELAY_TEST
	relay_test_init();
#endif
	relay_sse_init(relay.base);
	relay_poll_init(relay.base);

	/* 5. Listen, then tell the service manager. */
	if (relay_listen_start(relay.http, &cause) != 0) {
		relay_store_close(relay.store);
		relay_ephemeral_remove();
		fatalx("%s", cause ? cause : "cannot listen");
	}
	relay_notify_init();
	relay_cron_start(relay.base);
	relay_notify_ready();
	log_info("airlox-relayd %s ready, data in %s", ALX_VERSION_STRING,
	    relay_cfg.data_dir);

	/* 6. Serve until SIGTERM has drained everything. */
	event_base_dispatch(relay.base);

	/* 7. Tear down in order: connections, writes, storage, the rest. */
	relay_cron_stop();
	relay_verify_stop();	/* their completions may still queue writes */
	relay_sse_free();
	relay_poll_free();
	relay_gate_shutdown();
	evhttp_free(relay.http);
	relay_conn_free_all();
	relay_store_close(relay.store);
	relay_session_free_all();
	relay_codes_free();
	relay_api_session_free();
	relay_ephemeral_remove();
	relay_tls_free();
	relay_peer_free_all();
	relay_signals_free();
	event_base_free(relay.base);
	relay_config_free(&relay_cfg);
	log_info("shutdown: done");
	return 0;
}
