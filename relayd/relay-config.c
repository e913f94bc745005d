/*
 * relay-config.c: the one option table of airlox-relayd.
 *
 * Each entry names a long flag, its AIRLOX_* environment variable, its
 * default, its help text and the parser that checks it. The table drives
 * option parsing, --help, and (through --help) the man page consistency
 * test. Precedence: default, then environment, then command line.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "util/log.h"
#include "util/units.h"
#include "relayd.h"

struct relay_config relay_cfg;

struct relay_opt;
typedef int relay_opt_parse_fn(const struct relay_opt *, const char *,
    char **);

struct relay_opt {
	const char		*name;		/* long flag without -- */
	const char		*env;		/* NULL: no variable */
	const char		*def;		/* NULL: unset */
	const char		*arg;		/* NULL: a switch */
	const char		*help;
	relay_opt_parse_fn	*parse;
	size_t			 off;		/* into struct relay_config */
	uint64_t		 min, max;	/* numbers */
};

#define OFF(f)	offsetof(struct relay_config, f)
#define KB	((uint64_t)1024)
#define MB	(KB * 1024)
#define GB	(MB * 1024)
#define DAY	((uint64_t)86400)

static relay_opt_parse_fn opt_str, opt_bool, opt_size, opt_dur, opt_count,
    opt_listen, opt_proxy, opt_name, opt_level;

static const struct relay_opt relay_opts[] = {
	/* Network. */
	{ "listen", "AIRLOX_LISTEN", "[::]:8080", "ADDR:PORT",
	  "address to listen on; repeat for more (IPv6 in brackets; the "
	  "default is dual-stack, 0.0.0.0:8080 without IPv6; port 0 picks one)",
	  opt_listen, 0, 0, 0 },
	{ "port-file", "AIRLOX_PORT_FILE", NULL, "FILE",
	  "write the bound ADDR:PORT lines to FILE once listening",
	  opt_str, OFF(port_file), 0, 0 },
	{ "cert", "AIRLOX_CERT", NULL, "FILE",
	  "TLS certificate chain (PEM); reloaded on SIGHUP",
	  opt_str, OFF(cert), 0, 0 },
	{ "key", "AIRLOX_KEY", NULL, "FILE",
	  "TLS private key (PEM); reloaded on SIGHUP",
	  opt_str, OFF(key), 0, 0 },
	{ "plain-http", "AIRLOX_PLAIN_HTTP", "no", NULL,
	  "serve plain HTTP, for use behind a TLS proxy or ingress",
	  opt_bool, OFF(plain_http), 0, 0 },
	{ "trust-proxy", "AIRLOX_TRUST_PROXY", NULL, "ADDR[/BITS]",
	  "take the client address from X-Forwarded-For on connections "
	  "from this proxy address or CIDR range only; repeat for more",
	  opt_proxy, 0, 0, 0 },
	{ "public-name", "AIRLOX_PUBLIC_NAME", NULL, "HOST[:PORT]",
	  "a name clients reach the relay by (the host of its invite links); "
	  "a request signed for any other host is bad_signature; repeat for "
	  "more (unset: the address a request came to, the names of the TLS "
	  "certificate, and the host a --trust-proxy proxy forwards)",
	  opt_name, 0, 0, 0 },
	/* Storage. */
	{ "data", "AIRLOX_DATA", "/var/lib/airlox-relayd", "DIR",
	  "directory of the LMDB database, the only one written",
	  opt_str, OFF(data_dir), 0, 0 },
	{ "ephemeral", "AIRLOX_EPHEMERAL", "no", NULL,
	  "keep nothing: data in a private temporary directory removed at exit",
	  opt_bool, OFF(ephemeral), 0, 0 },
	{ "map-size", "AIRLOX_MAP_SIZE", "16G", "SIZE",
	  "LMDB map size, the most the database may grow to",
	  opt_size, OFF(map_size), 1 * MB, (uint64_t)1 << 46 },
	{ "disk-watermark", "AIRLOX_DISK_WATERMARK", "256M", "SIZE",
	  "free space below which writes get 507 and readiness fails",
	  opt_size, OFF(disk_watermark), 0, (uint64_t)1 << 60 },
	/* Sessions. */
	{ "session-lifetime", "AIRLOX_SESSION_LIFETIME", "24h", "DURATION",
	  "session lifetime when the manifest asks for none",
	  opt_dur, OFF(session_lifetime), 60, 3650 * DAY },
	{ "max-session-lifetime", "AIRLOX_MAX_SESSION_LIFETIME", "30d",
	  "DURATION", "longest session lifetime accepted",
	  opt_dur, OFF(max_session_lifetime), 60, 3650 * DAY },
	{ "allow-no-expiry", "AIRLOX_ALLOW_NO_EXPIRY", "yes", NULL,
	  "accept sessions that never expire, a machine's (=no: give them "
	  "--session-lifetime)",
	  opt_bool, OFF(allow_no_expiry), 0, 0 },
	{ "max-item-size", "AIRLOX_MAX_ITEM_SIZE", "100M", "SIZE",
	  "largest item, all chunks together (at most 100M)",
	  opt_size, OFF(max_item_size), 1 * KB, 100 * MB },
	{ "max-session-size", "AIRLOX_MAX_SESSION_SIZE", "1G", "SIZE",
	  "most bytes stored per session",
	  opt_size, OFF(max_session_size), 1 * KB, (uint64_t)1 << 50 },
	{ "retention-age", "AIRLOX_RETENTION_AGE", "7d", "DURATION",
	  "items older than this are dropped from long sessions",
	  opt_dur, OFF(retention_age), 60, 3650 * DAY },
	{ "retention-count", "AIRLOX_RETENTION_COUNT", "10000", "N",
	  "items kept per session; older ones are dropped",
	  opt_count, OFF(retention_count), 1, 100000000 },
	{ "max-transfer", "AIRLOX_MAX_TRANSFER", "10G", "SIZE",
	  "bytes received and served per session, both ways: items posted, "
	  "and items and chunks read (beyond it: 403 not_allowed)",
	  opt_size, OFF(max_transfer), 1 * KB, (uint64_t)1 << 50 },
	{ "max-sessions", "AIRLOX_MAX_SESSIONS", "10000", "N",
	  "sessions stored at once",
	  opt_count, OFF(max_sessions), 1, 100000000 },
	{ "sessions-per-hour", "AIRLOX_SESSIONS_PER_HOUR", "30", "N",
	  "sessions one client address may create per hour",
	  opt_count, OFF(sessions_per_hour), 1, 1000000 },
	{ "max-participants", "AIRLOX_MAX_PARTICIPANTS", "64", "N",
	  "participants per session",
	  opt_count, OFF(max_participants), 1, 100000 },
	{ "creation-token", "AIRLOX_CREATION_TOKEN", NULL, "TOKEN",
	  "require this bearer token to create sessions",
	  opt_str, OFF(creation_token), 0, 0 },
	{ "owner-keys", "AIRLOX_OWNER_KEYS", NULL, "FILE",
	  "only owners whose keys FILE lists (one per line; a user's is "
	  "shown by airlox identity) may create sessions",
	  opt_str, OFF(owner_keys), 0, 0 },
	/* Connections and requests. */
	{ "max-connections", "AIRLOX_MAX_CONNECTIONS", "4096", "N",
	  "open connections in total",
	  opt_count, OFF(max_connections), 1, 1000000 },
	{ "max-connections-per-address", "AIRLOX_MAX_CONNECTIONS_PER_ADDRESS",
	  "64", "N", "open connections per client address (IPv6 by /64)",
	  opt_count, OFF(max_connections_per_addr), 1, 1000000 },
	{ "rate-limit", "AIRLOX_RATE_LIMIT", "50", "N",
	  "requests per second per client address (bursts of twice that); "
	  "beyond it, 429 with Retry-After",
	  opt_count, OFF(rate_limit), 1, 1000000 },
	{ "max-header-size", "AIRLOX_MAX_HEADER_SIZE", "16K", "SIZE",
	  "request line and headers together",
	  opt_size, OFF(max_header_size), 1 * KB, 1 * MB },
	{ "max-body-size", "AIRLOX_MAX_BODY_SIZE", "2M", "SIZE",
	  "request body (one chunk of an item per request)",
	  opt_size, OFF(max_body_size), 1 * KB, 64 * MB },
	{ "body-memory", "AIRLOX_BODY_MEMORY", "128M", "SIZE",
	  "request bodies held at once, all connections together (one "
	  "address at most a quarter); beyond it, 503 with Retry-After",
	  opt_size, OFF(body_memory), 1 * MB, 64 * GB },
	{ "header-timeout", "AIRLOX_HEADER_TIMEOUT", "20s", "DURATION",
	  "longest time a request's line and headers may take to arrive; "
	  "beyond it, 408 and the connection is closed",
	  opt_dur, OFF(header_timeout), 1, 3600 },
	{ "timeout", "AIRLOX_TIMEOUT", "30s", "DURATION",
	  "idle time after which a connection is closed",
	  opt_dur, OFF(timeout), 1, 3600 },
	{ "heartbeat", "AIRLOX_HEARTBEAT", "15s", "DURATION",
	  "interval of event stream heartbeats",
	  opt_dur, OFF(heartbeat), 1, 3600 },
	{ "max-wait", "AIRLOX_MAX_WAIT", "30s", "DURATION",
	  "longest long-poll wait before 204",
	  opt_dur, OFF(max_wait), 1, 3600 },
	{ "stream-buffer", "AIRLOX_STREAM_BUFFER", "1M", "SIZE",
	  "output queued per event stream before a slow reader is dropped",
	  opt_size, OFF(sse_max_pending), 4 * KB, 256 * MB },
	{ "shutdown-grace", "AIRLOX_SHUTDOWN_GRACE", "10s", "DURATION",
	  "longest wait for pending writes and replies at SIGTERM",
	  opt_dur, OFF(shutdown_grace), 0, 3600 },
	{ "verify-threads", "AIRLOX_VERIFY_THREADS", "2", "N",
	  "threads that check the signatures of posted items off the event "
	  "loop",
	  opt_count, OFF(verify_threads), 1, 16 },
	{ "verify-queue", "AIRLOX_VERIFY_QUEUE", "1024", "N",
	  "posted items waiting for those threads; beyond it, 503 with "
	  "Retry-After",
	  opt_count, OFF(verify_queue), 1, 1000000 },
	{ "queue-limit", "AIRLOX_QUEUE_LIMIT", "64M", "SIZE",
	  "bytes waiting for verification, and bytes of writes waiting for "
	  "their commit (each); beyond it, 503 with Retry-After",
	  opt_size, OFF(queue_limit), 1 * MB, 16 * GB },
	/* Program. */
	{ "check", NULL, NULL, NULL,
	  "check the database in --data and exit: 0 whole, 1 damaged, "
	  "2 unusable",
	  opt_bool, OFF(check), 0, 0 },
	{ "salvage", NULL, NULL, "DIR",
	  "copy the sessions of the database in --data that are whole into "
	  "a new database in DIR, and exit: 0 all, 1 damaged ones left out, "
	  "2 none",
	  opt_str, OFF(salvage), 0, 0 },
	{ "log-level", "AIRLOX_LOG_LEVEL", "info", "LEVEL",
	  "warn, info or debug",
	  opt_level, OFF(log_level), 0, 0 },
	{ "help", NULL, NULL, NULL, "print this help and exit",
	  NULL, 0, 0, 0 },
	{ "version", NULL, NULL, NULL, "print the version and exit",
	  NULL, 0, 0, 0 },
};
#define NOPTS	(sizeof(relay_opts) / sizeof(relay_opts[0]))

static struct relay_config *cfgp = &relay_cfg;
#define FIELD(o, type)	((type *)((char *)cfgp + (o)->off))

void
relay_setcause(char **cause, const char *fmt, ...)
{
	va_list	ap;

	if (cause == NULL)
		return;
	va_start(ap, fmt);
	if (vasprintf(cause, fmt, ap) == -1)
		*cause = NULL;
	va_end(ap);
}

static int
opt_str(const struct relay_opt *o, const char *v, char **cause)
{
	char	**p = FIELD(o, char *);

	free(*p);
	if ((*p = strdup(v)) == NULL)
		return -1;
	return 0;
}

static int
opt_bool(const struct relay_opt *o, const char *v, char **cause)
{
	int	*p = FIELD(o, int);

	if (strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 ||
	    strcmp(v, "true") == 0 || strcmp(v, "on") == 0)
		*p = 1;
	else if (strcmp(v, "0") == 0 || strcmp(v, "no") == 0 ||
	    strcmp(v, "false") == 0 || strcmp(v, "off") == 0)
		*p = 0;
	else {
		relay_setcause(cause, "--%s: not yes or no: %s", o->name, v);
		return -1;
	}
	return 0;
}

static int
opt_number(const struct relay_opt *o, const char *v, char **cause,
    int (*parse)(const char *, uint64_t *), const char *what)
{
	uint64_t	n;

	if (parse(v, &n) != 0) {
		relay_setcause(cause, "--%s: not a %s: %s", o->name, what, v);
		return -1;
	}
	if (n < o->min || n > o->max) {
		relay_setcause(cause, "--%s: %s is out of range (%llu to %llu)",
		    o->name, v, (unsigned long long)o->min,
		    (unsigned long long)o->max);
		return -1;
	}
	*FIELD(o, uint64_t) = n;
	return 0;
}

static int
opt_size(const struct relay_opt *o, const char *v, char **cause)
{
	return opt_number(o, v, cause, units_size,
	    "size (N, NK, NM, NG, NT)");
}

static int
opt_dur(const struct relay_opt *o, const char *v, char **cause)
{
	return opt_number(o, v, cause, units_duration,
	    "duration (Ns, Nm, Nh, Nd)");
}

static int
opt_count(const struct relay_opt *o, const char *v, char **cause)
{
	return opt_number(o, v, cause, units_count, "number");
}

static int
opt_level(const struct relay_opt *o, const char *v, char **cause)
{
	int	*p = FIELD(o, int);

	if (strcmp(v, "warn") == 0)
		*p = LOG_LEVEL_WARN;
	else if (strcmp(v, "info") == 0)
		*p = LOG_LEVEL_INFO;
	else if (strcmp(v, "debug") == 0)
		*p = LOG_LEVEL_DEBUG;
	else {
		relay_setcause(cause, "--%s: not warn, info or debug: %s", o->name,
		    v);
		return -1;
	}
	return 0;
}

/*
 * A repeatable option: from the command line each use adds one; the
 * variable and the default hold a comma or space separated list. Adds
 * each entry of v to list (n entries, at most max); what names them.
 */
static int
opt_list_add(const struct relay_opt *o, const char *v, char **list, int *n,
    int max, const char *what, char **cause)
{
	char	*copy, *tok, *save = NULL;

	if ((copy = strdup(v)) == NULL)
		return -1;
	for (tok = strtok_r(copy, ", ", &save); tok != NULL;
	    tok = strtok_r(NULL, ", ", &save)) {
		if (*n >= max) {
			relay_setcause(cause, "--%s: more than %d %s",
			    o->name, max, what);
			free(copy);
			return -1;
		}
		if ((list[(*n)++] = strdup(tok)) == NULL) {
			free(copy);
			return -1;
		}
	}
	free(copy);
	return 0;
}

static void
opt_list_clear(char **list, int *n)
{
	while (*n > 0)
		free(list[--(*n)]);
}

/* --listen ADDR:PORT. */
static int
opt_listen(const struct relay_opt *o, const char *v, char **cause)
{
	return opt_list_add(o, v, cfgp->listen, &cfgp->nlisten,
	    RELAY_MAX_LISTEN, "addresses", cause);
}

static void
relay_listen_clear(void)
{
	opt_list_clear(cfgp->listen, &cfgp->nlisten);
}

/* --trust-proxy ADDR[/BITS]: checked by relay_config_check(). */
static int
opt_proxy(const struct relay_opt *o, const char *v, char **cause)
{
	return opt_list_add(o, v, cfgp->trust_proxy, &cfgp->ntrust_proxy,
	    RELAY_MAX_PROXIES, "ranges", cause);
}

static void
relay_proxy_clear(void)
{
	opt_list_clear(cfgp->trust_proxy, &cfgp->ntrust_proxy);
}

/* --public-name HOST[:PORT]: checked by relay_config_check(). */
static int
opt_name(const struct relay_opt *o, const char *v, char **cause)
{
	return opt_list_add(o, v, cfgp->public_name, &cfgp->npublic_name,
	    RELAY_MAX_NAMES, "names", cause);
}

static void
relay_name_clear(void)
{
	opt_list_clear(cfgp->public_name, &cfgp->npublic_name);
}

void
relay_config_usage(FILE *f)
{
	const struct relay_opt	*o;
	char			 flag[80];
	size_t			 i;

	fprintf(f, "usage: airlox-relayd [option ...]\n\n"
	    "The airlox relay: stores and forwards signed, encrypted items "
	    "between\nthe participants of sessions. Options (each also an "
	    "environment variable):\n\n");
	for (i = 0; i < NOPTS; i++) {
		o = &relay_opts[i];
		snprintf(flag, sizeof(flag), "--%s%s%s", o->name,
		    o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-36s %s\n", flag, o->help);
		if (o->env != NULL)
			fprintf(f, "  %-36s   [%s; default: %s]\n", "", o->env,
			    o->def ? o->def : "unset");
	}
}

/* Apply one option by table index; 0 or -1 with *cause set. */
static int
relay_opt_apply(const struct relay_opt *o, const char *v, char **cause)
{
	if (o->parse(o, v, cause) != 0) {
		if (*cause == NULL)
			relay_setcause(cause, "--%s: out of memory", o->name);
		return -1;
	}
	return 0;
}

static int
relay_config_check(struct relay_config *c, char **cause)
{
	struct relay_cidr	r;
	char			host[256];
	uint16_t		port;
	int			i;

	if (c->check || c->salvage != NULL)
		return 0;		/* no serving: no listen options */
	if (c->plain_http && (c->cert != NULL || c->key != NULL)) {
		relay_setcause(cause, "--plain-http and --cert/--key exclude each "
		    "other");
		return -1;
	}
	if (!c->plain_http && (c->cert == NULL || c->key == NULL)) {
		relay_setcause(cause, "give --cert and --key for HTTPS, or "
		    "--plain-http to serve plain HTTP behind a TLS proxy");
		return -1;
	}
	if (c->session_lifetime > c->max_session_lifetime) {
		relay_setcause(cause, "--session-lifetime exceeds "
		    "--max-session-lifetime");
		return -1;
	}
	for (i = 0; i < c->ntrust_proxy; i++) {
		if (relay_cidr_parse(&r, c->trust_proxy[i]) != 0) {
			relay_setcause(cause, "--trust-proxy: not an IP address "
			    "or CIDR range: %s", c->trust_proxy[i]);
			return -1;
		}
	}
	for (i = 0; i < c->npublic_name; i++) {
		if (alx_authority_parse(c->public_name[i], host, sizeof(host),
		    &port) != 0) {
			relay_setcause(cause, "--public-name: not a host name, "
			    "IPv4 address or [IPv6] address with an optional "
			    ":port: %s", c->public_name[i]);
			return -1;
		}
	}
	return 0;
}

int
relay_config_load(struct relay_config *c, int argc, char **argv,
    char **cause)
{
	struct option		 lo[NOPTS + 1];
	const struct relay_opt	*o;
	const char		*v;
	size_t			 i;
	int			 ch, idx, cli_listen = 0, cli_proxy = 0;
	int			 cli_name = 0;

	*cause = NULL;
	cfgp = c;
	memset(c, 0, sizeof(*c));
	for (i = 0; i < NOPTS; i++) {
		o = &relay_opts[i];
		if (o->parse == NULL)
			continue;
		v = o->env != NULL ? getenv(o->env) : NULL;
		if (v == NULL || *v == '\0')
			v = o->def;
		if (v != NULL && relay_opt_apply(o, v, cause) != 0)
			return -1;
	}
	memset(lo, 0, sizeof(lo));
	for (i = 0; i < NOPTS; i++) {
		lo[i].name = relay_opts[i].name;
		lo[i].has_arg = relay_opts[i].arg ? required_argument :
		    (relay_opts[i].parse == opt_bool ? optional_argument :
		    no_argument);
	}
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", lo, &idx)) != -1) {
		if (ch == 'h') {
			relay_config_usage(stdout);
			return 1;
		}
		if (ch != 0) {
			relay_setcause(cause, "unknown option; see --help");
			return -1;
		}
		o = &relay_opts[idx];
		if (strcmp(o->name, "help") == 0) {
			relay_config_usage(stdout);
			return 1;
		}
		if (strcmp(o->name, "version") == 0) {
			printf("airlox-relayd %s\n", ALX_VERSION_STRING);
			return 1;
		}
		if (o->parse == opt_listen && !cli_listen) {
			relay_listen_clear();	/* replaces the default */
			cli_listen = 1;
		}
		if (o->parse == opt_proxy && !cli_proxy) {
			relay_proxy_clear();	/* replaces the variable */
			cli_proxy = 1;
		}
		if (o->parse == opt_name && !cli_name) {
			relay_name_clear();	/* replaces the variable */
			cli_name = 1;
		}
		v = optarg;
		if (o->parse == opt_bool && v == NULL)
			v = "yes";
		if (relay_opt_apply(o, v, cause) != 0)
			return -1;
	}
	if (optind < argc) {
		relay_setcause(cause, "unexpected argument: %s", argv[optind]);
		return -1;
	}
	c->listen_default = !cli_listen && (getenv("AIRLOX_LISTEN") == NULL ||
	    *getenv("AIRLOX_LISTEN") == '\0');
	return relay_config_check(c, cause);
}

void
relay_config_free(struct relay_config *c)
{
	const struct relay_opt	*o;
	size_t			 i;

	cfgp = c;
	relay_listen_clear();
	relay_proxy_clear();
	relay_name_clear();
	for (i = 0; i < NOPTS; i++) {
		o = &relay_opts[i];
		if (o->parse == opt_str) {
			free(*FIELD(o, char *));
			*FIELD(o, char *) = NULL;
		}
	}
}
