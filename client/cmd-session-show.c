/*
 * cmd-session-show.c: "airlox session show": the verified manifest, roles,
 * limits and participants with their key fingerprints.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "client.h"

static const struct cmd_opt cmd_session_show_opts[] = {
	{ NULL, NULL, 0, NULL }
};

static void
show_private_json(struct alx_jw *jw, const struct alx_private *p)
{
	unsigned	k;
	size_t		i;

	alx_jw_key(jw, "types");
	alx_jw_arr_begin(jw);
	for (i = 0; i < p->ntypes; i++)
		alx_jw_str(jw, p->types[i]);
	alx_jw_arr_end(jw);
	if (!p->has_limits)
		return;
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
	alx_jw_kstr(jw, "network", p->limits.net_mode == ALX_NET_FULL ? "full" :
	    p->limits.net_mode == ALX_NET_ALLOW ? "allow" : "none");
	if (p->limits.runtime != NULL)
		alx_jw_kstr(jw, "runtime", p->limits.runtime);
	alx_jw_key(jw, "packages");
	alx_jw_arr_begin(jw);
	for (i = 0; i < p->limits.npackages; i++)
		alx_jw_str(jw, p->limits.packages[i]);
	alx_jw_arr_end(jw);
	alx_jw_obj_end(jw);
}

/*
 * When the session ends: the manifest's expiry, or the relay's when that
 * is sooner (a relay sets its own lifetime on a session that asked for
 * none, or for more than it keeps).
 */
static int64_t
show_expires(const struct alxs_sess *cs, const struct alx_manifest *m)
{
	if (cs->relay_expires > 0 && (m->expires == 0 ||
	    cs->relay_expires < m->expires))
		return cs->relay_expires;
	return m->expires;
}

static int
show_json(struct alxs_sess *cs, const struct alx_manifest *m,
    const struct alx_private *p, int havep)
{
	const struct alx_view_member	*mb;
	struct alx_jw			 jw;
	uint8_t				 fp[ALX_FP_LEN];
	size_t				 i, j;
	int				 role;

	out_obj_begin(&jw);
	alx_jw_kstr(&jw, "sid", cs->sidstr);
	alx_jw_kstr(&jw, "relay", cs->http.base);
	alx_jw_kstr(&jw, "mode", alx_mode_name(m->mode));
	alx_jw_kint(&jw, "version", m->ver);
	alx_jw_kint(&jw, "created", m->created);
	alx_jw_kint(&jw, "expires", show_expires(cs, m));
	alx_jw_kint(&jw, "manifest_expires", m->expires);
	alx_jw_kint(&jw, "epoch", m->epoch);
	alx_jw_kint(&jw, "item_max", m->item_max);
	alx_jw_kint(&jw, "session_max", m->session_max);
	alx_jw_kbool(&jw, "runner_approval", m->approve);
	alx_jw_kbool(&jw, "closed", cs->view.closed);
	alx_jw_kstr(&jw, "me", cs->view.me_fps);
	alx_jw_kstr(&jw, "my_role", alx_role_name(cs->inv.role));
	alx_jw_key(&jw, "roles");
	alx_jw_obj_begin(&jw);
	for (role = ALX_ROLE_SENDER; role < ALX_ROLE_COUNT; role++) {
		if (!m->roles[role].present)
			continue;
		alx_fingerprint(fp, m->roles[role].pk, ALX_SIGN_PK_LEN);
		alx_jw_key(&jw, alx_role_name(role));
		alx_jw_obj_begin(&jw);
		alx_jw_kb64(&jw, "fp", fp, ALX_FP_LEN);
		alx_jw_kint(&jw, "generation", m->roles[role].n);
		alx_jw_obj_end(&jw);
	}
	alx_jw_obj_end(&jw);
	alx_jw_key(&jw, "participants");
	alx_jw_arr_begin(&jw);
	for (i = 0; i < cs->view.nmembers; i++) {
		mb = &cs->view.members[i];
		alx_jw_obj_begin(&jw);
		alx_jw_kb64(&jw, "fp", mb->cert.fp, ALX_FP_LEN);
		alx_jw_kstr(&jw, "name", mb->cert.name);
		alx_jw_kstr(&jw, "kind", alx_pkind_name(mb->cert.kind));
		alx_jw_kstr(&jw, "role", alx_role_name(mb->cert.role));
		alx_jw_kbool(&jw, "revoked", alx_cert_valid(&mb->cert, m) != 0);
		alx_jw_kbool(&jw, "me", memcmp(mb->cert.fp, cs->view.me_fp,
		    ALX_FP_LEN) == 0);
		alx_jw_kint(&jw, "items", mb->last_seq);
		alx_jw_obj_end(&jw);
	}
	alx_jw_arr_end(&jw);
	alx_jw_key(&jw, "approved");
	alx_jw_arr_begin(&jw);
	for (i = 0; i < m->napproved; i++) {
		alx_jw_obj_begin(&jw);
		alx_jw_kb64(&jw, "fp", m->approved[i].fp, ALX_FP_LEN);
		alx_jw_kstr(&jw, "name", m->approved[i].name);
		alx_jw_key(&jw, "labels");
		alx_jw_arr_begin(&jw);
		for (j = 0; j < m->approved[i].nlabels; j++)
			alx_jw_str(&jw, m->approved[i].labels[j]);
		alx_jw_arr_end(&jw);
		alx_jw_obj_end(&jw);
	}
	alx_jw_arr_end(&jw);
	if (havep)
		show_private_json(&jw, p);
	return out_obj_end(&jw) == 0 ? EXIT_OK : EXIT_FAIL;
}

static int
show_text(struct alxs_sess *cs, const struct alx_manifest *m,
    const struct alx_private *p, int havep)
{
	const struct alx_view_member	*mb;
	char				 t1[32], t2[32], fps[ALX_FP_STRLEN + 1];
	char				 item[64], total[64];
	uint8_t				 fp[ALX_FP_LEN];
	size_t				 i;
	int				 role;

	out_time(t1, sizeof(t1), m->created);
	out_time(t2, sizeof(t2), show_expires(cs, m));
	alxs_size(item, sizeof(item), m->item_max);
	alxs_size(total, sizeof(total), m->session_max);
	printf("session   %s on %s%s\nmode      %s\nmanifest  version %lld, "
	    "epoch %lld\ncreated   %s\nexpires   %s%s\nlimits    items up to "
	    "%s, %s in all\n", cs->sidstr, cs->http.base,
	    cs->view.closed ? " (closed)" : "", alx_mode_name(m->mode),
	    (long long)m->ver, (long long)m->epoch, t1, t2,
	    show_expires(cs, m) != m->expires ? " (the relay's limit; the "
	    "manifest asked for a longer life)" : "", item, total);
	if (havep && p->ntypes > 0) {
		printf("types    ");
		for (i = 0; i < p->ntypes; i++)
			printf(" %s", p->types[i]);
		printf("\n");
	}
	if (havep && p->has_limits)
		printf("jobs      %s%s%s, %lld s, %lld MB, network %s%s\n",
		    (p->limits.kinds & ALX_JOBKIND_SHELL) ? "shell" : "",
		    p->limits.kinds == 3 ? "," : "",
		    (p->limits.kinds & ALX_JOBKIND_PYTHON) ? "python" : "",
		    (long long)p->limits.timeout_s,
		    (long long)p->limits.memory_mb,
		    p->limits.net_mode == ALX_NET_FULL ? "full" :
	    p->limits.net_mode == ALX_NET_ALLOW ? "allow (egress proxy)" : "none",
		    m->approve ? ", runners need approval" : "");
	if (havep && p->has_limits && (p->limits.runtime != NULL ||
	    p->limits.npackages > 0)) {
		printf("python    %s", p->limits.runtime != NULL ?
		    p->limits.runtime : "python3 (the runner's)");
		for (i = 0; i < p->limits.npackages; i++)
			printf("%s%s", i == 0 ? "; packages " : ", ",
			    p->limits.packages[i]);
		printf("\n");
	}
	printf("\nroles:\n");
	for (role = ALX_ROLE_SENDER; role < ALX_ROLE_COUNT; role++) {
		if (!m->roles[role].present)
			continue;
		alx_fingerprint(fp, m->roles[role].pk, ALX_SIGN_PK_LEN);
		alx_b64_encode(fps, fp, ALX_FP_LEN);
		printf("  %-9s key %s, generation %lld\n", alx_role_name(role),
		    fps, (long long)m->roles[role].n);
	}
	printf("\nparticipants (names are chosen by each participant):\n");
	for (i = 0; i < cs->view.nmembers; i++) {
		mb = &cs->view.members[i];
		alx_b64_encode(fps, mb->cert.fp, ALX_FP_LEN);
		printf("  %s  %-8s %-6s ", fps, alx_role_name(mb->cert.role),
		    alx_pkind_name(mb->cert.kind));
		out_safe(stdout, mb->cert.name, strlen(mb->cert.name));
		printf("%s%s%s\n", alx_manifest_find_approved(m,
		    mb->cert.fp) ? " (approved)" : "",
		    alx_cert_valid(&mb->cert, m) != 0 ? " (revoked)" : "",
		    memcmp(mb->cert.fp, cs->view.me_fp, ALX_FP_LEN) == 0 ?
		    " (you)" : "");
	}
	return EXIT_OK;
}

static int
cmd_session_show_exec(struct client_ctx *ctx)
{
	struct alxs_sess		 cs;
	struct alx_private	 p;
	const struct alx_manifest *m;
	int			 r, havep;

	if ((r = csess_open(&cs, ctx, ALXS_JOIN)) != 0) {
		alxs_sess_close(&cs);
		return r;
	}
	if ((r = alxs_sess_replay(&cs, NULL, NULL)) != 0) {
		r = csess_fail(&cs, r, "cannot read the session's log");
		alxs_sess_close(&cs);
		return r;
	}
	m = alx_view_manifest(&cs.view);
	havep = alx_view_private(&cs.view, &p) == 0;
	r = ctx->json ? show_json(&cs, m, &p, havep) :
	    show_text(&cs, m, &p, havep);
	if (havep)
		alx_private_free(&p);
	alxs_sess_close(&cs);
	return r;
}

const struct cmd_entry cmd_session_show_entry = {
	"session show", "", 0, 0, cmd_session_show_opts,
	CMD_INVITE | CMD_PARTICIPANT, cmd_session_show_exec,
	"show the session: manifest, roles, limits, participants and their "
	"key fingerprints"
};
