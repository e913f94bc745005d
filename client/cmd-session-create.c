/*
 * cmd-session-create.c: "airlox session create": make a session's keys and
 * manifest, store the manifest on the relay, print one invite link per
 * role and the limits the session has.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "airlox.h"
#include "client.h"
#include "client-job.h"
#include "util/units.h"

/* Defaults, and the host-runner profile (flags given override both). */
#define SC_TTL			(24 * 3600)
#define SC_ITEM_MAX		(25 * 1024 * 1024)
#define SC_SESSION_MAX		(512LL * 1024 * 1024)
#define SC_TIMEOUT		600
#define SC_MEMORY		1024
#define HR_TIMEOUT		1800
#define HR_MEMORY		4096
#define HR_ITEM_MAX		ALX_ITEM_MAX_SIZE
#define HR_SESSION_MAX		(1024LL * 1024 * 1024)

static const char *sc_type_names[] = {
	"text", "markdown", "python", "zip", "image", "binary", NULL
};

static const struct cmd_opt cmd_session_create_opts[] = {
	{ "mode", "chat|execute", 0, "chat: messages and files; execute: "
	    "also jobs for runners (default: chat)" },
	{ "ttl", "DURATION", 0, "lifetime like 90m, 24h, 7d, or never "
	    "(default: 24h; host-runner: never)" },
	{ "types", "LIST", 0, "file types allowed, of text,markdown,python,"
	    "zip,image,binary (default: all)" },
	{ "kinds", "LIST", 0, "job kinds allowed, of shell,python (default: "
	    "both)" },
	{ "package", "SPEC", OPT_MULTI, "a Python package jobs may use, like "
	    "'numpy>=1.26,<3' (default: none)" },
	{ "runtime", "NAME", 0, "the Python jobs run with, like python3.11; "
	    "a runner that cannot provide it refuses to join (default: "
	    "python3, the runner's)" },
	{ "timeout", "DURATION", 0, "longest job, up to 30d (default: 10m; "
	    "host-runner: 30m)" },
	{ "memory", "MB", 0, "job memory (default: 1024; host-runner: 4096)" },
	{ "allow", "DOMAIN", OPT_MULTI, "jobs may reach DOMAIN (or .DOMAIN "
	    "and its subdomains) through the runner's egress proxy "
	    "(default: no network)" },
	{ "network", NULL, 0, "jobs may use the network (default: no "
	    "network)" },
	{ "item-max", "SIZE", 0, "largest item, like 25M (default: 25M; "
	    "host-runner: 100M, the most the protocol allows)" },
	{ "session-max", "SIZE", 0, "most bytes in the session (default: "
	    "512M; host-runner: 1G)" },
	{ "profile", "host-runner", 0, "a set of defaults for a machine's "
	    "session: execute mode, no expiry, 30-minute jobs, 4096 MB, "
	    "largest items, runner approval (default: none)" },
	{ "creation-token", "TOKEN", 0, "the token of a relay that lets only "
	    "its holders create sessions (default: $AIRLOX_CREATION_TOKEN)" },
	{ NULL, NULL, 0, NULL }
};

/* Split a comma list into strdup'd strings. */
static int
sc_split(const char *s, char ***out, size_t *n)
{
	char	*copy, *p, *tok, **v = NULL, **nv;

	*out = NULL;
	*n = 0;
	if ((copy = strdup(s)) == NULL)
		return ALX_ERR_NOMEM;
	for (p = copy; (tok = strsep(&p, ",")) != NULL;) {
		if (*tok == '\0')
			continue;
		if ((nv = reallocarray(v, *n + 1, sizeof(*v))) == NULL ||
		    (nv[*n] = strdup(tok)) == NULL) {
			free(nv != NULL ? nv : v);
			free(copy);
			return ALX_ERR_NOMEM;
		}
		v = nv;
		(*n)++;
	}
	free(copy);
	*out = v;
	return 0;
}

static int
sc_private(struct client_ctx *ctx, int execute, int hr, struct alx_private *p)
{
	const struct cmd_args	*a = &ctx->args;
	const char		*v;
	char			**kinds = NULL;
	size_t			 i, j, nk = 0;
	unsigned		 k;

	memset(p, 0, sizeof(*p));
	if ((v = args_get(a, "types")) != NULL) {
		if (sc_split(v, &p->types, &p->ntypes) != 0)
			return EXIT_FAIL;
		for (i = 0; i < p->ntypes; i++) {
			for (j = 0; sc_type_names[j] != NULL; j++)
				if (strcmp(sc_type_names[j], p->types[i]) == 0)
					break;
			if (sc_type_names[j] == NULL)
				return out_usage("--types: unknown type %s",
				    p->types[i]);
		}
	}
	if (!execute)
		return 0;
	p->has_limits = 1;
	p->limits.kinds = ALX_JOBKIND_SHELL | ALX_JOBKIND_PYTHON;
	if ((v = args_get(a, "kinds")) != NULL) {
		p->limits.kinds = 0;
		if (sc_split(v, &kinds, &nk) != 0)
			return EXIT_FAIL;
		for (i = 0; i < nk; i++) {
			if (alx_job_kind_parse(kinds[i], &k) != 0) {
				free(kinds[i]);
				return out_usage("--kinds: shell or python");
			}
			p->limits.kinds |= k;
			free(kinds[i]);
		}
		free(kinds);
		if (p->limits.kinds == 0)
			return out_usage("--kinds: shell or python");
	}
	if (args_duration(a, "timeout", hr ? HR_TIMEOUT : SC_TIMEOUT,
	    &p->limits.timeout_s) != 0)
		return EXIT_USAGE;
	if (p->limits.timeout_s < 1 || p->limits.timeout_s > ALX_JOB_TIMEOUT_MAX)
		return out_usage("--timeout: a job's time limit is from 1s to "
		    "30d: %s", args_get(a, "timeout"));
	if (args_int(a, "memory", hr ? HR_MEMORY : SC_MEMORY, 1,
	    ALX_JOB_MEMORY_MAX, &p->limits.memory_mb) != 0)
		return EXIT_USAGE;
	p->limits.net_mode = args_has(a, "network") ? ALX_NET_FULL :
	    ALX_NET_NONE;
	/* --allow DOMAIN: egress through the runner's proxy, to these only. */
	for (i = 0; (v = args_nth(a, "allow", i)) != NULL; i++) {
		char **na;

		if (alx_domain_valid(v) != 0)
			return out_usage("--allow %s: a lowercase domain name, "
			    "optionally with a leading dot (no IP, port, path "
			    "or wildcard)", v);
		if (args_has(a, "network"))
			return out_usage("--allow and --network exclude each "
			    "other");
		na = reallocarray(p->limits.net_allow, i + 1, sizeof(char *));
		if (na == NULL || (na[i] = strdup(v)) == NULL)
			return EXIT_FAIL;
		p->limits.net_allow = na;
		p->limits.net_nallow = i + 1;
		p->limits.net_mode = ALX_NET_ALLOW;
	}
	if (p->limits.net_nallow > 0) {
		size_t kept;

		alx_domain_list_normalize(p->limits.net_allow,
		    p->limits.net_nallow, &kept);
		while (p->limits.net_nallow > kept)
			free(p->limits.net_allow[--p->limits.net_nallow]);
	}
	p->limits.return_out = 1;
	if ((v = args_get(a, "runtime")) != NULL) {
		if (strncmp(v, "python3", 7) != 0 || (v[7] != '\0' &&
		    (v[7] != '.' || v[8] == '\0' || strspn(v + 8,
		    "0123456789") != strlen(v + 8) || strlen(v) > 32)))
			return out_usage("--runtime %s: python3 or python3.N, "
			    "like python3.11", v);
		if ((p->limits.runtime = strdup(v)) == NULL)
			return EXIT_FAIL;
	}
	for (i = 0; (v = args_nth(a, "package", i)) != NULL; i++) {
		char **np = reallocarray(p->limits.packages, i + 1,
		    sizeof(char *));
		if (np == NULL)
			return EXIT_FAIL;
		p->limits.packages = np;
		if ((np[i] = strdup(v)) == NULL)
			return EXIT_FAIL;
		p->limits.npackages = i + 1;
	}
	return 0;
}

static int
sc_params(struct client_ctx *ctx, struct alx_session_params *sp, int *hr)
{
	const struct cmd_args	*a = &ctx->args;
	const char		*v;
	int64_t			 ttl;
	uint64_t		 size;

	memset(sp, 0, sizeof(*sp));
	*hr = 0;
	if ((v = args_get(a, "profile")) != NULL) {
		if (strcmp(v, "host-runner") != 0)
			return out_usage("--profile: host-runner");
		*hr = 1;
	}
	sp->mode = *hr ? ALX_MODE_EXECUTE : ALX_MODE_CHAT;
	if ((v = args_get(a, "mode")) != NULL) {
		if (strcmp(v, "chat") == 0)
			sp->mode = ALX_MODE_CHAT;
		else if (strcmp(v, "execute") == 0)
			sp->mode = ALX_MODE_EXECUTE;
		else
			return out_usage("--mode: chat or execute");
	}
	if (args_duration(a, "ttl", *hr ? 0 : SC_TTL, &ttl) != 0)
		return EXIT_USAGE;
	sp->now = (int64_t)time(NULL);
	sp->expires = ttl > 0 ? sp->now + ttl : 0;
	sp->item_max = *hr ? HR_ITEM_MAX : SC_ITEM_MAX;
	sp->session_max = *hr ? HR_SESSION_MAX : SC_SESSION_MAX;
	if ((v = args_get(a, "item-max")) != NULL) {
		if (units_size(v, &size) != 0 || size < 1 ||
		    size > ALX_ITEM_MAX_SIZE)
			return out_usage("--item-max: a size up to 100M");
		sp->item_max = (int64_t)size;
	}
	if ((v = args_get(a, "session-max")) != NULL) {
		if (units_size(v, &size) != 0 || size > ALX_JSON_INT_MAX ||
		    (int64_t)size < sp->item_max)
			return out_usage("--session-max: a size at least "
			    "--item-max");
		sp->session_max = (int64_t)size;
	}
	sp->approve = sp->mode == ALX_MODE_EXECUTE;
	return 0;
}

static void
sc_print_limits_json(struct alx_jw *jw, const struct alx_manifest *m,
    const struct alx_private *p)
{
	unsigned	k;
	size_t		i;

	alx_jw_key(jw, "limits");
	alx_jw_obj_begin(jw);
	alx_jw_kint(jw, "expires", m->expires);
	alx_jw_kint(jw, "item_max", m->item_max);
	alx_jw_kint(jw, "session_max", m->session_max);
	alx_jw_key(jw, "types");
	alx_jw_arr_begin(jw);
	for (i = 0; i < p->ntypes; i++)
		alx_jw_str(jw, p->types[i]);
	alx_jw_arr_end(jw);
	if (p->has_limits) {
		alx_jw_kbool(jw, "runner_approval", m->approve);
		alx_jw_key(jw, "jobs");
		alx_jw_obj_begin(jw);
		alx_jw_key(jw, "kinds");
		alx_jw_arr_begin(jw);
		for (k = ALX_JOBKIND_SHELL; k <= ALX_JOBKIND_PYTHON; k <<= 1)
			if (p->limits.kinds & k)
				alx_jw_str(jw, alx_job_kind_name(k));
		alx_jw_arr_end(jw);
		alx_jw_kint(jw, "timeout_s", p->limits.timeout_s);
		alx_jw_kint(jw, "memory_mb", p->limits.memory_mb);
		alx_jw_kstr(jw, "network", p->limits.net_mode == ALX_NET_FULL ?
		    "full" : p->limits.net_mode == ALX_NET_ALLOW ? "allow" :
		    "none");
		if (p->limits.net_mode == ALX_NET_ALLOW) {
			alx_jw_key(jw, "allow");
			alx_jw_arr_begin(jw);
			for (i = 0; i < p->limits.net_nallow; i++)
				alx_jw_str(jw, p->limits.net_allow[i]);
			alx_jw_arr_end(jw);
		}
		if (p->limits.runtime != NULL)
			alx_jw_kstr(jw, "runtime", p->limits.runtime);
		alx_jw_key(jw, "packages");
		alx_jw_arr_begin(jw);
		for (i = 0; i < p->limits.npackages; i++)
			alx_jw_str(jw, p->limits.packages[i]);
		alx_jw_arr_end(jw);
		alx_jw_obj_end(jw);
	}
	alx_jw_obj_end(jw);
}

/*
 * The limits; the expiry is the relay's when it keeps the session for less
 * than the manifest asked (relay_expires: -1 when the relay did not say).
 */
static void
sc_print_limits_text(const struct alx_manifest *m, const struct alx_private *p,
    int64_t relay_expires)
{
	char	when[32], item[64], total[64];
	int	cut;
	size_t	i;

	cut = relay_expires > 0 && (m->expires == 0 ||
	    relay_expires < m->expires);
	out_time(when, sizeof(when), cut ? relay_expires : m->expires);
	alxs_size(item, sizeof(item), m->item_max);
	alxs_size(total, sizeof(total), m->session_max);
	printf("\nLimits:\n  expires       %s%s\n  largest item  %s\n"
	    "  session total %s\n", when, !cut ? "" : m->expires == 0 ?
	    " (the relay's limit; asked for never)" : " (the relay's limit; "
	    "asked for longer)", item, total);
	printf("  file types    ");
	for (i = 0; i < p->ntypes; i++)
		printf("%s%s", i ? "," : "", p->types[i]);
	printf("%s\n", p->ntypes == 0 ? "all" : "");
	if (!p->has_limits)
		return;
	printf("  job kinds     %s%s%s\n  job timeout   %lld s\n"
	    "  job memory    %lld MB\n  job network   %s\n"
	    "  runner approval %s\n",
	    (p->limits.kinds & ALX_JOBKIND_SHELL) ? "shell" : "",
	    p->limits.kinds == (ALX_JOBKIND_SHELL | ALX_JOBKIND_PYTHON) ?
	    "," : "", (p->limits.kinds & ALX_JOBKIND_PYTHON) ? "python" : "",
	    (long long)p->limits.timeout_s, (long long)p->limits.memory_mb,
	    p->limits.net_mode == ALX_NET_FULL ? "full" :
	    p->limits.net_mode == ALX_NET_ALLOW ? "allow (egress proxy)" : "none",
	    m->approve ? "on" : "off");
	if (p->limits.runtime != NULL)
		printf("  runtime       %s\n", p->limits.runtime);
	for (i = 0; i < p->limits.npackages; i++)
		printf("  package       %s\n", p->limits.packages[i]);
}

static int
sc_print(struct client_ctx *ctx, struct alx_invite *inv,
    const struct alx_session_secrets *sec, const struct alx_manifest *m,
    const struct alx_private *p, int64_t relay_expires)
{
	struct alx_jw	 jw;
	char		*link, sid[ALX_FP_STRLEN + 1];
	int		 role, r;

	alx_b64_encode(sid, m->sid, ALX_SID_LEN);
	if (ctx->json) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "sid", sid);
		alx_jw_kstr(&jw, "mode", alx_mode_name(m->mode));
		alx_jw_kint(&jw, "created", m->created);
		alx_jw_key(&jw, "invites");
		alx_jw_obj_begin(&jw);
	} else
		printf("Session %s (%s) created.\n\nInvite links (secret: "
		    "anyone holding one joins with its role):\n", sid,
		    alx_mode_name(m->mode));
	for (role = 0; role < ALX_ROLE_COUNT; role++) {
		if (role != ALX_ROLE_OWNER && !m->roles[role].present)
			continue;
		inv->role = role;
		memcpy(inv->seed, sec->seed[role], ALX_SEED_LEN);
		if ((r = alx_invite_format(inv, &link)) != 0)
			return out_fail(r, "cannot format an invite");
		if (alxs_cache_invite_store(client_store(), m->sid, role,
		    link) != 0)
			out_warn("cannot keep the %s invite in the cache "
			    "directory (airlox session code needs it)",
			    alx_role_name(role));
		if (ctx->json)
			alx_jw_kstr(&jw, alx_role_name(role), link);
		else
			printf("  %-9s %s\n", alx_role_name(role), link);
		alx_wipe_str(link);
	}
	alx_invite_wipe(inv);
	if (ctx->json) {
		alx_jw_obj_end(&jw);
		sc_print_limits_json(&jw, m, p);
		if (relay_expires >= 0)
			alx_jw_kint(&jw, "relay_expires", relay_expires);
		r = out_obj_end(&jw);
		alx_wipe(&jw, sizeof(jw));
		return r == 0 ? EXIT_OK : EXIT_FAIL;
	}
	sc_print_limits_text(m, p, relay_expires);
	if (relay_expires < 0 && m->expires == 0)
		printf("  (a relay that does not allow sessions without expiry "
		    "applies its own lifetime)\n");
	return EXIT_OK;
}

/*
 * The relay's creation token: --creation-token, else AIRLOX_CREATION_TOKEN
 * (the relay's own name for it), else AIRLOX_CREATE_TOKEN, the name
 * earlier clients read, with a warning.
 */
static const char *
sc_token(struct client_ctx *ctx)
{
	const char	*t;

	if ((t = args_get(&ctx->args, "creation-token")) != NULL)
		return t;
	if ((t = getenv("AIRLOX_CREATION_TOKEN")) != NULL && *t != '\0')
		return t;
	if ((t = getenv("AIRLOX_CREATE_TOKEN")) != NULL && *t != '\0') {
		out_warn("AIRLOX_CREATE_TOKEN is deprecated: name it "
		    "AIRLOX_CREATION_TOKEN, as the relay does");
		return t;
	}
	return NULL;
}

/*
 * Post manifest v1. A relay that keeps sessions less long than asked
 * refuses with its maximum: then *max_lifetime is that (seconds) and
 * nothing is printed, for the caller to ask again; else -1.
 */
static int
sc_post(struct client_ctx *ctx, struct alx_invite *inv,
    const struct alx_manifest *m, int64_t *relay_expires,
    int64_t *max_lifetime)
{
	struct alxs_conf	 conf;
	struct alxs_http	 hc;
	struct alxs_resp	 resp;
	struct alx_signkey	 id;
	char			*cause = NULL, link[512];
	char			 sid[ALX_FP_STRLEN + 1], tokhdr[600];
	const char		*tok;
	struct alx_json		*j = NULL;
	int			 r, idr;

	client_conf(ctx, &conf);
	if ((r = alxs_http_open(&hc, ctx->relay, &conf, &cause)) != 0) {
		r = out_fail(r, "--relay %s: %s", ctx->relay, cause ? cause :
		    "unusable");
		free(cause);
		return r;
	}
	/* The invites name the relay as this client reaches it. */
	alx_b64_encode(sid, m->sid, ALX_SID_LEN);
	snprintf(link, sizeof(link), "%s/s/%s#1.owner.%s", hc.base, sid,
	    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
	if (alx_invite_parse(inv, link) != 0) {
		alxs_http_close(&hc);
		return out_fail(ALX_ERR_INVALID, "the relay URL %s cannot be "
		    "used in invite links", hc.base);
	}
	if ((tok = sc_token(ctx)) != NULL) {
		if ((size_t)snprintf(tokhdr, sizeof(tokhdr),
		    "Airlox-Create-Token: %s", tok) >= sizeof(tokhdr) ||
		    strpbrk(tok, "\r\n") != NULL) {
			alxs_http_close(&hc);
			return out_usage("--creation-token: not a token");
		}
		hc.extra_header = tokhdr;
	}
	/* Signed by the lasting identity, when the user made one. */
	if ((idr = identity_load(&id)) == 0)
		hc.key = &id;
	else if (idr == ALX_ERR_FORBIDDEN)
		out_warn("the identity file may be read by others: it is not "
		    "used (see airlox identity)");
	r = alxs_http_request(&hc, "POST", "/v1/sessions", m->obj.raw,
	    m->obj.raw_len, NULL, idr == 0, 4096, &resp);
	alx_sign_wipe(&id);
	/* The relay may set a lifetime of its own (when asked for none). */
	*relay_expires = -1;
	*max_lifetime = -1;
	if (resp.body.len > 0 && alx_json_parse(&j, (const char *)
	    resp.body.data, resp.body.len, NULL) == 0) {
		if (r == 0 && alx_json_get_int(j, 0, "expires", relay_expires,
		    0, ALX_JSON_INT_MAX) != 0)
			*relay_expires = -1;
		if (r == ALX_ERR_NOT_ALLOWED && alx_json_get_int(j, 0,
		    "max_lifetime", max_lifetime, 60, ALX_JSON_INT_MAX) != 0)
			*max_lifetime = -1;
	}
	alx_json_free(j);
	if (r != 0 && *max_lifetime >= 0)
		;	/* the caller asks for the maximum */
	else if (r == ALX_ERR_FORBIDDEN && resp.message != NULL &&
	    strstr(resp.message, "owner") != NULL)
		r = out_fail(r, "the relay creates sessions for the owners it "
		    "knows only, and %s: give the key airlox identity shows "
		    "to the relay's operator", idr == 0 ? "this user's "
		    "identity is not one of them" : "this user has no "
		    "identity yet (airlox identity makes one)");
	else if (r == ALX_ERR_FORBIDDEN && tok == NULL)
		r = out_fail(r, "the relay refused the session: %s; give it "
		    "with --creation-token TOKEN or AIRLOX_CREATION_TOKEN",
		    resp.message ? resp.message : "it needs a creation token");
	else if (r == ALX_ERR_FORBIDDEN && resp.message != NULL &&
	    strstr(resp.message, "creation token") != NULL)
		r = out_fail(r, "the relay refused the creation token given "
		    "(--creation-token or AIRLOX_CREATION_TOKEN): %s",
		    resp.message);
	else if (r == ALX_ERR_NOT_ALLOWED && resp.message != NULL &&
	    strstr(resp.message, "lifetime") != NULL)
		r = out_fail(r, "the relay refused the session: %s; ask for "
		    "less with --ttl", resp.message);
	else if (r != 0)
		r = out_fail(r, "the relay refused the session%s%s",
		    resp.message ? ": " : "", resp.message ? resp.message : "");
	alxs_http_resp_free(&resp);
	alxs_http_close(&hc);
	return r;
}

/* "2h", "30d", "90m", "45s": a lifetime as --ttl takes it. */
static void
sc_dur(char *buf, size_t len, int64_t s)
{
	if (s % 86400 == 0)
		snprintf(buf, len, "%lldd", (long long)(s / 86400));
	else if (s % 3600 == 0)
		snprintf(buf, len, "%lldh", (long long)(s / 3600));
	else if (s % 60 == 0)
		snprintf(buf, len, "%lldm", (long long)(s / 60));
	else
		snprintf(buf, len, "%llds", (long long)s);
}

/*
 * Make the session's keys and manifest and post it. A relay that keeps
 * sessions less long than the default lifetime gets a session of its
 * maximum, and the user is told; an explicit --ttl over it is refused,
 * naming the maximum.
 */
static int
sc_create_post(struct client_ctx *ctx, struct alx_session_params *sp,
    const struct alx_private *priv, struct alx_manifest *m,
    struct alx_session_secrets *sec, struct alx_invite *inv,
    int64_t *relay_expires)
{
	int64_t	maxl;
	char	dur[32], when[32];
	int	r;

	if ((r = alx_session_create(m, sec, sp, priv)) != 0)
		return out_fail(r, "cannot create the session's keys and "
		    "manifest");
	if ((r = sc_post(ctx, inv, m, relay_expires, &maxl)) == 0 || maxl < 0)
		return r;
	sc_dur(dur, sizeof(dur), maxl);
	if (args_get(&ctx->args, "ttl") != NULL)
		return out_fail(r, "the relay keeps a session at most %s: give "
		    "--ttl %s or less", dur, dur);
	alx_manifest_free(m);
	alx_session_secrets_wipe(sec);
	/* A minute less: the relay's clock may be ahead of ours. */
	sp->expires = sp->now + (maxl > 120 ? maxl - 60 : maxl);
	if ((r = alx_session_create(m, sec, sp, priv)) != 0)
		return out_fail(r, "cannot create the session's keys and "
		    "manifest");
	if ((r = sc_post(ctx, inv, m, relay_expires, &maxl)) != 0) {
		sc_dur(dur, sizeof(dur), maxl);
		return maxl < 0 ? r : out_fail(r, "the relay refused the "
		    "session's lifetime, though within its maximum of %s "
		    "(its clock may be far off ours)", dur);
	}
	out_time(when, sizeof(when), m->expires);
	out_warn("the relay keeps a session at most %s: this one expires %s",
	    dur, when);
	return 0;
}

static int
cmd_session_create_exec(struct client_ctx *ctx)
{
	struct alx_session_params	 sp;
	struct alx_session_secrets	 sec;
	struct alx_manifest		 m;
	struct alx_private		 priv;
	struct alx_invite		 inv;
	int64_t				 relay_expires = -1;
	int				 hr, r;

	if ((r = sc_params(ctx, &sp, &hr)) != 0)
		return r;
	if ((r = sc_private(ctx, sp.mode == ALX_MODE_EXECUTE, hr, &priv)) != 0) {
		alx_private_free(&priv);
		return r;
	}
	memset(&m, 0, sizeof(m));
	memset(&sec, 0, sizeof(sec));
	memset(&inv, 0, sizeof(inv));
	if ((r = sc_create_post(ctx, &sp, &priv, &m, &sec, &inv,
	    &relay_expires)) == 0)
		r = sc_print(ctx, &inv, &sec, &m, &priv, relay_expires);
	alx_invite_wipe(&inv);
	alx_session_secrets_wipe(&sec);
	alx_manifest_free(&m);
	alx_private_free(&priv);
	return r;
}

const struct cmd_entry cmd_session_create_entry = {
	"session create", "", 0, 0, cmd_session_create_opts, CMD_RELAY,
	cmd_session_create_exec,
	"create a session on the relay; print an invite link per role and "
	"the session's limits"
};

/*
 * Create a session as "session create" does, for "machine add": the
 * host-runner profile, no output; invites[role] receives each role's link
 * (NULL for roles the session lacks), kept in the cache as well.
 */
int
session_create_quiet(struct client_ctx *ctx, char *invites[ALX_ROLE_COUNT])
{
	struct alx_session_params	 sp;
	struct alx_session_secrets	 sec;
	struct alx_manifest		 m;
	struct alx_private		 priv;
	struct alx_invite		 inv;
	int64_t				 relay_expires = -1, maxl;
	char				 when[32];
	int				 hr, r, role;

	memset(invites, 0, ALX_ROLE_COUNT * sizeof(*invites));
	if ((r = sc_params(ctx, &sp, &hr)) != 0)
		return r;
	sp.mode = ALX_MODE_EXECUTE;
	sp.expires = 0;
	sp.item_max = HR_ITEM_MAX;
	sp.session_max = HR_SESSION_MAX;
	sp.approve = 1;
	if ((r = sc_private(ctx, 1, 1, &priv)) != 0) {
		alx_private_free(&priv);
		return r;
	}
	if ((r = alx_session_create(&m, &sec, &sp, &priv)) != 0) {
		alx_private_free(&priv);
		return out_fail(r, "cannot create the session's keys and "
		    "manifest");
	}
	if ((r = sc_post(ctx, &inv, &m, &relay_expires, &maxl)) != 0 &&
	    maxl >= 0) {
		sc_dur(when, sizeof(when), maxl);
		r = out_fail(r, "the relay refused a session without expiry: "
		    "it keeps a session at most %s (its operator can allow "
		    "machines: AIRLOX_ALLOW_NO_EXPIRY=yes)", when);
	}
	/* A relay that gives no session forever: the machine ends then. */
	if (r == 0 && relay_expires > 0) {
		out_time(when, sizeof(when), relay_expires);
		out_warn("this relay allows no session without expiry: it keeps "
		    "this machine's session until %s, and the machine stops "
		    "working then (its operator can allow it: "
		    "AIRLOX_ALLOW_NO_EXPIRY=yes)", when);
	}
	if (r == 0) {
		for (role = 0; role < ALX_ROLE_COUNT && r == 0; role++) {
			if (role != ALX_ROLE_OWNER && !m.roles[role].present)
				continue;
			inv.role = role;
			memcpy(inv.seed, sec.seed[role], ALX_SEED_LEN);
			if ((r = alx_invite_format(&inv, &invites[role])) != 0)
				r = out_fail(r, "cannot format an invite");
			else
				(void)alxs_cache_invite_store(client_store(),
				    m.sid,
				    role, invites[role]);
		}
	}
	alx_invite_wipe(&inv);
	alx_session_secrets_wipe(&sec);
	alx_manifest_free(&m);
	alx_private_free(&priv);
	return r;
}
