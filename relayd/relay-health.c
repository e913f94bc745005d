/*
 * relay-health.c: GET /v1/health, /v1/health/live, /v1/health/ready.
 *
 * /v1/health and /live answer 200 while the loop serves. /ready also checks
 * that the data directory is writable (a file is created and removed),
 * that free space is above the watermark, that the store is neither
 * damaged nor refusing writes for want of room, and answers 503 otherwise,
 * so a Kubernetes readiness probe takes a full relay out of rotation while
 * the liveness probe leaves it running (reads still work there).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/http.h>

#include "airlox.h"
#include "util/log.h"
#include "relayd.h"

/* The store: "ok", "damaged" (writes refused) or "unusable", and why. */
static void
relay_health_storage(struct alx_jw *jw)
{
	const char	*why = NULL;
	unsigned	 nbad = 0;
	int		 d = relay_store_damaged(relay.store, &why, &nbad);

	alx_jw_kstr(jw, "storage", d == 2 ? "unusable" : d == 1 ? "damaged" :
	    "ok");
	if (d != 0 && why != NULL)
		alx_jw_kstr(jw, "storage_damage", why);
	if (nbad > 0)
		alx_jw_kint(jw, "damaged_sessions", (int64_t)nbad);
}

static void
relay_health_reply(struct relay_req *r, const char *status)
{
	struct alx_jw	 jw;
	char		*out = NULL;
	size_t		 len = 0;

	alx_jw_init(&jw, 4096);
	alx_jw_obj_begin(&jw);
	alx_jw_kstr(&jw, "status", status);
	alx_jw_kstr(&jw, "version", ALX_VERSION_STRING);
	alx_jw_kint(&jw, "time", (int64_t)time(NULL));
	alx_jw_kint(&jw, "uptime", (int64_t)(time(NULL) - relay.started));
	relay_health_storage(&jw);
	alx_jw_kint(&jw, "connections", (int64_t)relay_conn_count());
	alx_jw_kint(&jw, "streams", (int64_t)relay_sse_count());
	alx_jw_kint(&jw, "parked", (int64_t)relay_poll_count());
	alx_jw_obj_end(&jw);
	if (alx_jw_finish(&jw, &out, &len) != 0) {
		alx_jw_free(&jw);
		relay_http_error(r->req, 500, ALX_ERR_NOMEM, NULL);
		return;
	}
	alx_jw_free(&jw);
	relay_http_json(r->req, 200, out, len);
	free(out);
}

static void
relay_health_get(struct relay_req *r)
{
	if (relay.stopping) {
		relay_http_error(r->req, 503, ALX_ERR_NOT_READY,
		    "the relay is shutting down");
		return;
	}
	relay_health_reply(r, "ok");
}

static void
relay_health_live(struct relay_req *r)
{
	relay_health_reply(r, "live");
}

static void
relay_health_ready(struct relay_req *r)
{
	char	*why = NULL;

	if (relay.stopping) {
		relay_http_error(r->req, 503, ALX_ERR_NOT_READY,
		    "the relay is shutting down");
		return;
	}
	if (relay_store_damaged(relay.store, NULL, NULL) != 0) {
		relay_http_error(r->req, 503, ALX_ERR_NOT_READY, "the relay's "
		    "storage is damaged: reads only (airlox-relayd --check)");
		return;
	}
	if (relay_disk_check(&why) != 0) {
		relay_http_error(r->req, 503, ALX_ERR_NOT_READY, why);
		free(why);
		return;
	}
	if (relay_store_full(relay.store)) {
		relay_http_error(r->req, 503, ALX_ERR_NOT_READY, "the disk is "
		    "full: writes that do not fit get 507");
		return;
	}
	relay_health_reply(r, "ready");
}

static const struct relay_route relay_health_routes[] = {
	{ EVHTTP_REQ_GET | EVHTTP_REQ_HEAD, "/v1/health", relay_health_get,
	  RELAY_ROUTE_NO_RATELIMIT },
	{ EVHTTP_REQ_GET | EVHTTP_REQ_HEAD, "/v1/health/live",
	  relay_health_live, RELAY_ROUTE_NO_RATELIMIT },
	{ EVHTTP_REQ_GET | EVHTTP_REQ_HEAD, "/v1/health/ready",
	  relay_health_ready, RELAY_ROUTE_NO_RATELIMIT },
};

void
relay_health_init(void)
{
	relay_http_add_routes(relay_health_routes,
	    sizeof(relay_health_routes) / sizeof(relay_health_routes[0]));
}
