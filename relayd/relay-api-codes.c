/*
 * relay-api-codes.c: the relay's side of transfer codes (protocol.md
 * section 14): a nameplate per code, a mailbox of PAKE messages between
 * the code's creator (side "b") and its claimant (side "a"), the creator's
 * signed failure reports, and expiry after 10 minutes.
 *
 * The relay only forwards CPace messages, which by design let nobody test
 * a guess offline; it holds nothing that a code could unlock (the invite
 * travels sealed under the PAKE's key, which the relay never learns).
 * Three failure reports cancel a code; ten failures from one client
 * address (IPv6 by /64) within an hour block that address's guesses. A
 * guesser can burn a code: the user then makes a new one.
 *
 * Codes live in memory only: a restart cancels them, which costs the user
 * a new code and leaks nothing.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/http.h>

#include "airlox.h"
#include "util/mono.h"
#include "util/log.h"
#include "relayd.h"

#define RELAY_CODE_TTL		600	/* seconds */
#define RELAY_CODE_MAX		4096	/* open codes */
#define RELAY_CODE_MSGS		8	/* per side */
#define RELAY_CODE_MSG_MAX	4096	/* bytes of data */
#define RELAY_CODE_FAILS	3	/* reports that cancel a code */
#define RELAY_ADDR_FAILS	10	/* per address per hour */

struct relay_code_msg {
	int64_t	 seq;
	char	*data;
	size_t	 len;
};

struct relay_code {
	int64_t			 nameplate;
	uint8_t			 sid[RELAY_SID_LEN];
	int			 role;
	uint8_t			 creator_pk[ALX_SIGN_PK_LEN];
	uint64_t		 expires;
	int			 failures;
	int			 has_claimant;
	struct relay_addr	 claimant;
	struct relay_code_msg	 msgs[2][RELAY_CODE_MSGS];	/* a, b */
	int			 nmsgs[2];
	struct relay_code	*next;
};

static struct relay_code	*relay_codes;
static unsigned			 relay_ncodes;

/* The key parked long-polls of a code wait on. */
static void
relay_code_key(uint8_t key[RELAY_SID_LEN], int64_t nameplate)
{
	memset(key, 0xff, RELAY_SID_LEN);
	memcpy(key, "code", 4);
	relay_be64(key + 8, (uint64_t)nameplate);
}

static struct relay_code *
relay_code_find(int64_t nameplate)
{
	struct relay_code	*c;

	for (c = relay_codes; c != NULL; c = c->next)
		if (c->nameplate == nameplate)
			return c;
	return NULL;
}

static void
relay_code_free(struct relay_code *c)
{
	int	side, i;

	for (side = 0; side < 2; side++)
		for (i = 0; i < c->nmsgs[side]; i++)
			free(c->msgs[side][i].data);
	alx_wipe(c, sizeof(*c));
	free(c);
}

static void
relay_code_remove(struct relay_code *c)
{
	struct relay_code	**pp;
	uint8_t			  key[RELAY_SID_LEN];

	for (pp = &relay_codes; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			relay_ncodes--;
			break;
		}
	}
	relay_code_key(key, c->nameplate);
	relay_code_free(c);
	relay_poll_wake(key);	/* parked readers learn it is gone */
}

/* The code named in the path; 404 unknown, 410 expired. */
static int
relay_code_param(struct relay_req *r, struct relay_code **cp)
{
	uint64_t	n;

	*cp = NULL;
	if (r->nparams < 1 || relay_path_uint(r->params[0], 999999, &n) != 0 ||
	    n == 0 || (*cp = relay_code_find((int64_t)n)) == NULL)
		return ALX_ERR_NOT_FOUND;
	if ((*cp)->expires <= relay_expiry_now()) {
		relay_code_remove(*cp);
		*cp = NULL;
		return ALX_ERR_EXPIRED;
	}
	return 0;
}

/* Failures from one address (IPv6 /64) within the hour. */
static int
relay_code_blocked(const struct relay_addr *a)
{
	struct relay_peer	*p;

	if ((p = relay_peer_get(a, 0)) == NULL)
		return 0;
	if (time(NULL) - p->fail_start >= 3600)
		return 0;
	return p->fails >= RELAY_ADDR_FAILS;
}

static void
relay_code_count_fail(const struct relay_addr *a)
{
	struct relay_peer	*p;
	time_t			 now = time(NULL);

	if ((p = relay_peer_get(a, 1)) == NULL)
		return;
	if (now - p->fail_start >= 3600) {
		p->fail_start = now;
		p->fails = 0;
	}
	p->fails++;
	p->last = mono_sec();
}

static int64_t
relay_code_nameplate(void)
{
	uint32_t	v;
	int64_t		n, range = relay_ncodes < 500 ? 999 : 999999;
	int		i;

	for (i = 0; i < 1000; i++) {
		alx_random(&v, sizeof(v));
		n = 1 + (int64_t)(v % (uint32_t)range);
		if (relay_code_find(n) == NULL)
			return n;
	}
	return -1;
}

/*
 * POST /v1/codes: the owner opens a code for a session. The object's sid
 * is read (by libairlox's strict JSON reader, bounded) only to pick the
 * session whose owner key must have signed it; alx_notice_open() then
 * checks the signature and that the sid is that one.
 */
static void
relay_code_open(struct relay_req *r)
{
	struct relay_session	*s;
	struct relay_member	*m;
	struct relay_code	*c = NULL;
	struct alx_signed	 so;
	struct alx_json		*j = NULL;
	struct alx_notice	 n;
	struct alx_jw		 jw;
	const uint8_t		*body;
	uint8_t			 sid[RELAY_SID_LEN];
	size_t			 len;
	int			 rc;

	body = relay_body(r, &len);
	if (len > ALX_SMALL_BODY_MAX + 1024) {
		relay_http_fail(r, ALX_ERR_TOO_LARGE, NULL);
		return;
	}
	if ((rc = alx_signed_parse(&so, (const char *)body, len)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	rc = alx_json_parse(&j, (const char *)so.body, so.body_len, NULL);
	if (rc == 0)
		rc = alx_json_get_b64(j, 0, "sid", sid, RELAY_SID_LEN);
	alx_json_free(j);
	alx_signed_free(&so);
	if (rc != 0 || (rc = relay_session_get(sid, &s)) != 0 ||
	    (rc = relay_auth(r, s, NULL, &m)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	if (m->cert.role != ALX_ROLE_OWNER) {
		relay_http_fail(r, ALX_ERR_WRONG_ROLE, "only the owner opens codes");
		return;
	}
	if ((rc = alx_notice_open(&n, (const char *)body, len, "code-open",
	    sid, m->cert.pk)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	if (relay_ncodes >= RELAY_CODE_MAX || (c = calloc(1, sizeof(*c))) ==
	    NULL || (c->nameplate = relay_code_nameplate()) < 0) {
		free(c);
		alx_notice_free(&n);
		evhttp_add_header(evhttp_request_get_output_headers(r->req),
		    "Retry-After", "60");
		relay_http_fail(r, ALX_ERR_RATE_LIMITED, "too many open codes");
		return;
	}
	memcpy(c->sid, sid, RELAY_SID_LEN);
	c->role = n.role;
	memcpy(c->creator_pk, m->cert.pk, ALX_SIGN_PK_LEN);
	c->expires = relay_expiry_now() + RELAY_CODE_TTL;
	alx_notice_free(&n);
	c->next = relay_codes;
	relay_codes = c;
	relay_ncodes++;
	alx_jw_init(&jw, 256);
	alx_jw_obj_begin(&jw);
	alx_jw_kint(&jw, "nameplate", c->nameplate);
	alx_jw_kint(&jw, "expires", (int64_t)c->expires);
	alx_jw_obj_end(&jw);
	relay_http_jw(r->req, 201, &jw);
}

static void
relay_code_get(struct relay_req *r)
{
	struct relay_code	*c;
	struct alx_jw		 jw;
	const char		*host;
	int			 rc;

	if ((rc = relay_code_param(r, &c)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	host = relay_http_header(r, "Host");
	alx_jw_init(&jw, 1024);
	alx_jw_obj_begin(&jw);
	alx_jw_kb64(&jw, "sid", c->sid, RELAY_SID_LEN);
	alx_jw_kstr(&jw, "role", alx_role_name(c->role));
	alx_jw_kstr(&jw, "host", host != NULL ? host : "");
	alx_jw_kint(&jw, "expires", (int64_t)c->expires);
	alx_jw_obj_end(&jw);
	relay_http_jw(r->req, 200, &jw);
}

/* POST /v1/codes/{n}/msgs: {"side","seq","data"}, read by libairlox. */
static void
relay_code_post(struct relay_req *r)
{
	struct relay_code	*c;
	struct relay_code_msg	*msg;
	struct alx_json		*j = NULL;
	const uint8_t		*body;
	char			*side = NULL, *data = NULL;
	int64_t			 seq;
	uint8_t			 key[RELAY_SID_LEN];
	size_t			 len;
	int			 rc, sd;

	if ((rc = relay_code_param(r, &c)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	body = relay_body(r, &len);
	if ((rc = alx_json_parse(&j, (const char *)body, len, NULL)) != 0 ||
	    (rc = alx_json_get_str(j, 0, "side", &side, 1)) != 0 ||
	    (rc = alx_json_get_int(j, 0, "seq", &seq, 1,
	    RELAY_CODE_MSGS)) != 0 ||
	    (rc = alx_json_get_str(j, 0, "data", &data,
	    RELAY_CODE_MSG_MAX)) != 0)
		goto fail;
	if (strcmp(side, "a") != 0 && strcmp(side, "b") != 0) {
		rc = ALX_ERR_INVALID;
		goto fail;
	}
	sd = side[0] == 'b';
	/* The creator's side is signed; the claimant's is not, but counted. */
	if (sd == 1 && (rc = relay_auth(r, NULL, c->creator_pk, NULL)) != 0)
		goto fail;
	if (sd == 0) {
		if (relay_code_blocked(&r->client)) {
			rc = ALX_ERR_TOO_MANY_FAILS;
			goto fail;
		}
		c->claimant = r->client;
		c->has_claimant = 1;
	}
	if (seq != c->nmsgs[sd] + 1) {
		rc = seq <= c->nmsgs[sd] ? ALX_ERR_REPLAYED : ALX_ERR_ORDER;
		goto fail;
	}
	msg = &c->msgs[sd][c->nmsgs[sd]++];
	msg->seq = seq;
	msg->data = data;
	msg->len = strlen(data);
	data = NULL;
	alx_json_free(j);
	free(side);
	relay_code_key(key, c->nameplate);
	relay_poll_wake(key);
	relay_http_json(r->req, 201, "{}", 2);
	return;
fail:
	alx_json_free(j);
	free(side);
	free(data);
	relay_http_fail(r, rc, NULL);
}

struct relay_code_wait {
	int64_t	nameplate;
	int	side;
	int64_t	after;
};

/* {"msgs":[{"side","seq","data"}...]} of one side after a sequence. */
static int
relay_code_msgs_reply(struct evhttp_request *req, struct relay_code *c,
    int side, int64_t after, int send_empty)
{
	struct alx_jw	jw;
	int		i, n = 0;

	alx_jw_init(&jw, (size_t)RELAY_CODE_MSGS * (RELAY_CODE_MSG_MAX * 2 +
	    64));
	alx_jw_obj_begin(&jw);
	alx_jw_key(&jw, "msgs");
	alx_jw_arr_begin(&jw);
	for (i = 0; i < c->nmsgs[side]; i++) {
		if (c->msgs[side][i].seq <= after)
			continue;
		alx_jw_obj_begin(&jw);
		alx_jw_kstr(&jw, "side", side ? "b" : "a");
		alx_jw_kint(&jw, "seq", c->msgs[side][i].seq);
		alx_jw_kstr(&jw, "data", c->msgs[side][i].data);
		alx_jw_obj_end(&jw);
		n++;
	}
	alx_jw_arr_end(&jw);
	alx_jw_obj_end(&jw);
	if (n == 0 && !send_empty) {
		alx_jw_free(&jw);
		return 0;
	}
	relay_http_jw(req, 200, &jw);
	return 1;
}

static void
relay_code_woken(struct relay_poll *p, int how, void *arg)
{
	struct relay_code_wait	*w = arg;
	struct relay_code	*c;

	if (how == 0) {
		if ((c = relay_code_find(w->nameplate)) == NULL)
			relay_http_error(p->req, 410, ALX_ERR_EXPIRED,
			    "the code was cancelled or used");
		else
			relay_code_msgs_reply(p->req, c, w->side, w->after, 1);
	} else if (how == 1)
		evhttp_send_reply(p->req, 204, "No Content", NULL);
	free(w);
}

static void
relay_code_read(struct relay_req *r)
{
	struct relay_code	*c;
	struct relay_code_wait	*w;
	char			*side, *v;
	int64_t			 after = 0, wait = 0;
	uint64_t		 num = 0;
	uint8_t			 key[RELAY_SID_LEN];
	int			 rc, sd;

	if ((rc = relay_code_param(r, &c)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	side = relay_http_query(r, "side");
	if (side == NULL || (strcmp(side, "a") != 0 &&
	    strcmp(side, "b") != 0)) {
		free(side);
		relay_http_fail(r, ALX_ERR_INVALID, "side is a or b");
		return;
	}
	sd = side[0] == 'b';
	free(side);
	if ((v = relay_http_query(r, "after")) != NULL) {
		rc = relay_path_uint(v, INT64_MAX, &num);
		after = (int64_t)num;
		free(v);
	}
	if (rc == 0 && (v = relay_http_query(r, "wait")) != NULL) {
		rc = relay_path_uint(v, 3600, &num);
		wait = (int64_t)num;
		free(v);
	}
	if (rc != 0) {
		relay_http_fail(r, ALX_ERR_INVALID, "bad after or wait");
		return;
	}
	if (relay_code_msgs_reply(r->req, c, sd, after, wait == 0))
		return;
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		relay_http_fail(r, ALX_ERR_NOMEM, NULL);
		return;
	}
	w->nameplate = c->nameplate;
	w->side = sd;
	w->after = after;
	relay_code_key(key, c->nameplate);
	if ((rc = relay_poll_park(r, key, (uint64_t)wait, relay_code_woken,
	    w)) != 0) {
		free(w);
		relay_http_fail(r, rc, NULL);
	}
}

/* POST /v1/codes/{n}/fail: the creator's signed failure report. */
static void
relay_code_fail(struct relay_req *r)
{
	struct relay_code	*c;
	struct alx_notice	 n;
	struct alx_jw		 jw;
	const uint8_t		*body;
	size_t			 len;
	int			 rc, failures, cancelled = 0;

	if ((rc = relay_code_param(r, &c)) != 0 ||
	    (rc = relay_auth(r, NULL, c->creator_pk, NULL)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	body = relay_body(r, &len);
	if ((rc = alx_notice_open(&n, (const char *)body, len, "code-fail",
	    c->sid, c->creator_pk)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	rc = n.nameplate == c->nameplate ? 0 : ALX_ERR_INVALID;
	alx_notice_free(&n);
	if (rc != 0) {
		relay_http_fail(r, rc, "the report names another code");
		return;
	}
	failures = ++c->failures;
	if (c->has_claimant)
		relay_code_count_fail(&c->claimant);
	if (failures >= RELAY_CODE_FAILS) {
		log_info("codes: code %lld cancelled after %d failures",
		    (long long)c->nameplate, failures);
		relay_code_remove(c);
		cancelled = 1;
	}
	alx_jw_init(&jw, 128);
	alx_jw_obj_begin(&jw);
	alx_jw_kint(&jw, "failures", failures);
	alx_jw_kbool(&jw, "cancelled", cancelled);
	alx_jw_obj_end(&jw);
	relay_http_jw(r->req, 200, &jw);
}

static void
relay_code_delete(struct relay_req *r)
{
	struct relay_code	*c;
	int			 rc;

	if ((rc = relay_code_param(r, &c)) != 0 ||
	    (rc = relay_auth(r, NULL, c->creator_pk, NULL)) != 0) {
		relay_http_fail(r, rc, NULL);
		return;
	}
	relay_code_remove(c);
	relay_http_json(r->req, 200, "{\"deleted\":true}", 16);
}

/* From the cron: codes past their 10 minutes go. */
void
relay_codes_sweep(uint64_t now)
{
	struct relay_code	*c, *next;

	for (c = relay_codes; c != NULL; c = next) {
		next = c->next;
		if (c->expires <= now)
			relay_code_remove(c);
	}
}

void
relay_codes_free(void)
{
	struct relay_code	*c;

	while ((c = relay_codes) != NULL) {
		relay_codes = c->next;
		relay_code_free(c);
	}
	relay_ncodes = 0;
}

static const struct relay_route relay_code_routes[] = {
	{ EVHTTP_REQ_POST, "/v1/codes", relay_code_open, 0 },
	{ EVHTTP_REQ_GET, "/v1/codes/:", relay_code_get, 0 },
	{ EVHTTP_REQ_DELETE, "/v1/codes/:", relay_code_delete, 0 },
	{ EVHTTP_REQ_POST, "/v1/codes/:/msgs", relay_code_post, 0 },
	{ EVHTTP_REQ_GET, "/v1/codes/:/msgs", relay_code_read, 0 },
	{ EVHTTP_REQ_POST, "/v1/codes/:/fail", relay_code_fail, 0 },
};

void
relay_api_codes_init(void)
{
	relay_http_add_routes(relay_code_routes,
	    sizeof(relay_code_routes) / sizeof(relay_code_routes[0]));
}
