/*
 * client-session.c: the relay client library (session/alxs.h) with the
 * command line's settings, and its failures printed.
 *
 * The library prints nothing: it returns an error and leaves its cause in
 * alxs_error(); here the client turns that into its message and exit
 * status (client-out.c), and prints the library's notices as warnings.
 * The key store is the cache directory (client-dirs.c).
 */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "util/log.h"
#include "client.h"

/* The name of a new participant when --name is not given: the user's. */
static const char *
client_default_name(void)
{
	static char	 name[ALX_DISPLAY_MAX + 1];
	const char	*u = getenv("USER");
	struct passwd	*pw;

	if ((u == NULL || *u == '\0') && (pw = getpwuid(geteuid())) != NULL)
		u = pw->pw_name;
	snprintf(name, sizeof(name), "%s", u != NULL && *u != '\0' ? u :
	    "participant");
	if (!alx_display_valid(name))
		snprintf(name, sizeof(name), "participant");
	return name;
}

static void
client_notice(const char *msg, void *arg)
{
	(void)arg;
	out_warn("%s", msg);
}

static void
client_debug(const char *msg, void *arg)
{
	(void)arg;
	log_debug("%s", msg);
}

void
client_conf(const struct client_ctx *ctx, struct alxs_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->relay = ctx->relay;
	conf->invite = ctx->invite;
	conf->ca_file = ctx->ca_file;
	conf->insecure_host = ctx->insecure_host;
	conf->stall_s = ctx->stall_s;
	conf->name = ctx->name;
	conf->default_name = client_default_name();
	conf->description = ctx->description;
	conf->kind = ctx->kind;
	conf->key_secret = ctx->key_secret;
	conf->notice = client_notice;
	conf->debug = client_debug;
	conf->stop = &exec_interrupted;
}

int
client_fail(int err)
{
	const struct alxs_error	*e = alxs_error();

	if (e->err != err)
		return out_fail(err, "%s", alx_errname(err));
	switch (e->class) {
	case ALXS_UNVERIFIED:
		return out_fail_code(EXIT_VERIFY, err, "%s", e->cause);
	case ALXS_BAD_SETTING:
		return out_usage("%s", e->cause);
	case ALXS_TIMED_OUT:
		return out_fail_code(EXIT_TIMEOUT, err, "%s", e->cause);
	default:
		return out_fail(err, "%s", e->cause);
	}
}

int
csess_open(struct alxs_sess *cs, struct client_ctx *ctx, int flags)
{
	struct alxs_conf	 conf;
	int			 r;

	client_conf(ctx, &conf);
	conf.store_dir = client_store();
	r = alxs_open(cs, &conf, flags);
	cs->arg = ctx;
	return r != 0 ? client_fail(r) : 0;
}

int
csess_fail(struct alxs_sess *cs, int err, const char *what)
{
	return client_fail(alxs_read_fail(cs, err, what));
}

/* Post p and report it; returns the exit code. */
int
item_send(struct alxs_sess *cs, struct alxs_item_post *p)
{
	struct alx_jw	 jw;
	char		*cause = NULL, id[ALX_FP_STRLEN + 1];
	int		 r;

	r = alxs_item_post(cs, p, &cause);
	if (r == ALX_ERR_WRONG_ROLE)
		return out_fail(r, "%s invite cannot send %s items",
		    alxs_a_role(cs->inv.role), p->kind);
	if (r != 0 && cs->bad_event) {
		free(cause);
		return csess_fail(cs, r, "");
	}
	if (r != 0) {
		r = out_fail(r, "%s", cause ? cause : r == ALX_ERR_REVOKED ?
		    "this participant was revoked" : "the item was not sent");
		free(cause);
		return r;
	}
	alx_b64_encode(id, p->id, ALX_ID_LEN);
	if (out_json()) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "event", "sent");
		alx_jw_kstr(&jw, "id", id);
		alx_jw_kstr(&jw, "kind", p->kind);
		alx_jw_kint(&jw, "size", p->size);
		alx_jw_kint(&jw, "cursor", p->cursor);
		out_obj_end(&jw);
	} else
		printf("sent %s %s\n", p->kind, id);
	return EXIT_OK;
}

static void
code_event(const char *event, const char *code, int64_t expires,
    int failures)
{
	struct alx_jw	jw;

	if (!out_json())
		return;
	out_obj_begin(&jw);
	alx_jw_kstr(&jw, "event", event);
	if (code != NULL)
		alx_jw_kstr(&jw, "code", code);
	if (expires > 0)
		alx_jw_kint(&jw, "expires", expires);
	alx_jw_kint(&jw, "failures", failures);
	out_obj_end(&jw);
}

/*
 * "CODE", then the command for the other machine: in how, %s stands for
 * the code and %r for this relay's URL (the other machine may know no
 * relay, or another one).
 */
static void
code_print_how(const struct alxs_sess *cs, const char *code, const char *how)
{
	const char	*p;

	if (out_json())
		return;
	printf("%s\n\nOn the other machine: ", code);
	for (p = how; *p != '\0'; p++) {
		if (p[0] == '%' && p[1] == 's') {
			fputs(code, stdout);
			p++;
		} else if (p[0] == '%' && p[1] == 'r') {
			fputs(cs->http.base, stdout);
			p++;
		} else
			putchar(*p);
	}
	putchar('\n');
}

/* The library's news of a code: printed, and with --json as events. */
struct code_show {
	struct alxs_sess	*cs;
	const char	*how;
};

static void
code_show(int event, const char *code, int64_t deadline, int fails,
    void *arg)
{
	struct code_show	*sh = arg;

	if (event == ALXS_CODE_WRONG) {
		out_warn("a wrong code was tried (%d of %d)", fails,
		    ALXS_CODE_MAX_FAILS);
		return;
	}
	code_event("code", code, deadline, 0);
	code_print_how(sh->cs, code, sh->how != NULL ? sh->how :
	    "airlox receive --relay %r %s");
	out_text("(one use, expires in %lld minutes; waiting...)\n",
	    (long long)((deadline - (int64_t)time(NULL) + 59) / 60));
	fflush(stdout);
}

int
code_create(struct alxs_sess *cs, int role, const char *invite, int64_t ttl,
    const char *how)
{
	struct code_show	sh = { cs, how };
	int			r, fails;

	r = alxs_code_create(cs, role, invite, ttl, code_show, &sh, &fails);
	if (r == 0) {
		code_event("used", NULL, 0, fails);
		out_text("the code was used: the %s invite was handed over\n",
		    alx_role_name(role));
		return EXIT_OK;
	}
	if (r == ALX_ERR_TOO_MANY_FAILS)
		code_event("cancelled", NULL, 0, fails);
	else if (r == ALX_ERR_EXPIRED)
		code_event("expired", NULL, 0, fails);
	return client_fail(r);
}

int
code_receive_fail(int r, int gone, int64_t answer_s)
{
	if (gone)
		return out_fail(ALX_ERR_EXPIRED, "the code's creator did not "
		    "answer within %llds: airlox session code is no longer "
		    "running there (stopped, or its machine is offline); ask "
		    "for a new code", (long long)answer_s);
	if (r == ALX_ERR_BAD_CODE)
		return out_fail(r, "not a transfer code (like 7-guitar-orbit)");
	if (r == ALX_ERR_PAKE)
		return out_fail(r, "wrong code (or it was tampered with); the "
		    "creator counted the attempt");
	if (r == ALX_ERR_NOT_FOUND || r == ALX_ERR_EXPIRED ||
	    r == ALX_ERR_SESSION_EXPIRED)
		return out_fail(r, "no such code on this relay: it was used, "
		    "cancelled or has expired");
	/* What alxs_code_receive() said of the relay's URL, first. */
	if (alxs_error()->err == r && alxs_error()->cause[0] != '\0')
		out_warn("%s", alxs_error()->cause);
	return out_fail(r, "the transfer failed");
}
