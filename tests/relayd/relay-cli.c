/*
 * relay-cli.c: a test client's signing half, on libairlox, for the relay's
 * integration tests. It keeps a session's secrets and its participants'
 * keys in a directory and writes request bodies and Authorization header
 * values; the tests send them with curl, a real outside HTTP client.
 *
 *	relay-cli create DIR [LIFETIME_S]	new session; prints the sid
 *	relay-cli cert DIR NAME ROLE		DIR/NAME.cert: a certificate
 *	relay-cli auth DIR NAME METHOD PATH BODYFILE HOST
 *						prints the Authorization value
 *	relay-cli item DIR NAME KIND [PAYLOAD]	DIR/item.json, DIR/item.id,
 *						DIR/chunk.N; advances NAME's seq
 *	relay-cli close DIR NAME		prints a close object
 *	relay-cli revoke DIR NAME		DIR/manifest.json: next version
 *						revoking NAME (and a new epoch)
 *	relay-cli approve DIR NAME RUNNER LABEL	next version approving NAME
 *	relay-cli announce DIR NAME RUNNER LABEL SLOTS
 *						prints an announce object
 *	relay-cli claim DIR NAME JOBID		prints a claim object
 *	relay-cli rotate DIR ROLE [KEEP...]	next version with a new key for
 *						ROLE (secrets updated), keeping
 *						the participants named
 *	relay-cli code-open DIR NAME ROLE	prints a code-open object
 *	relay-cli code-fail DIR NAME NAMEPLATE	prints a code-fail object
 *	relay-cli protocol1 DIR FILE SIGNER	prints FILE's signed object with
 *						its body made protocol 1 ("v":1,
 *						key commitment kept), re-signed
 *						by SIGNER (a participant, or
 *						"owner" for the owner key)
 * create takes MODE "execute" as a third argument (NO_APPROVE in the
 * environment: a session whose runners need no approval); item reads JOB_TARGET
 * ("runner:NAME" or "label:LABEL"), JOB_TTL and JOB_TO (the participants
 * besides the owner its key is wrapped to, by name, space-separated) for
 * kind job (JOB_NO_OWNER: not to the owner either), and REPLY_TO (an item
 * id) for any kind.
 * Exit status 0, or 1 with a message on stderr.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "airlox.h"

static const char	*dir;

static void __attribute__((noreturn))
die(const char *what, int rc)
{
	fprintf(stderr, "relay-cli: %s: %s\n", what, rc ? alx_errname(rc) :
	    strerror(errno));
	exit(1);
}

static void
path(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

static void
put(const char *name, const void *data, size_t len)
{
	char	 p[1024];
	FILE	*f;

	path(p, sizeof(p), name);
	if ((f = fopen(p, "wb")) == NULL || fwrite(data, 1, len, f) != len ||
	    fclose(f) != 0)
		die(p, 0);
}

/* The whole file, NUL-terminated; NULL when absent and !must. */
static uint8_t *
get(const char *name, size_t *lenp, int must)
{
	char	 p[1024];
	FILE	*f;
	uint8_t	*buf;
	long	 n;

	path(p, sizeof(p), name);
	if ((f = fopen(p, "rb")) == NULL) {
		if (must)
			die(p, 0);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	if ((buf = malloc((size_t)n + 1)) == NULL ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n)
		die(p, 0);
	fclose(f);
	buf[n] = '\0';
	if (lenp != NULL)
		*lenp = (size_t)n;
	return buf;
}

static void
load_secrets(struct alx_session_secrets *sec)
{
	size_t	 len;
	uint8_t	*b = get("secrets", &len, 1);

	if (len != sizeof(*sec))
		die("secrets", ALX_ERR_INVALID);
	memcpy(sec, b, sizeof(*sec));
	free(b);
}

static void
load_manifest(struct alx_manifest *m)
{
	size_t		 len;
	uint8_t		*sid = get("sid.bin", &len, 1), *chain;
	struct alx_manifest prev;
	char		 name[64];
	int		 rc, v;

	memset(&prev, 0, sizeof(prev));
	for (v = 1;; v++) {
		snprintf(name, sizeof(name), "manifest.%d.json", v);
		if ((chain = get(name, &len, 0)) == NULL)
			break;
		if ((rc = alx_manifest_open(m, (char *)chain, len, sid,
		    v == 1 ? NULL : &prev)) != 0)
			die(name, rc);
		if (v > 1)
			alx_manifest_free(&prev);
		prev = *m;
		free(chain);
	}
	if (v == 1)
		die("manifest.1.json", ALX_ERR_NOT_FOUND);
	free(sid);
}

static void
participant(const char *name, struct alx_signkey *sk, struct alx_kxkey *kx)
{
	char	 file[256];
	uint8_t	*seed, fresh[ALX_SEED_LEN];
	size_t	 len;
	int	 rc;

	snprintf(file, sizeof(file), "%s.seed", name);
	if ((seed = get(file, &len, 0)) == NULL) {
		alx_random(fresh, sizeof(fresh));
		put(file, fresh, sizeof(fresh));
		seed = get(file, &len, 1);
	}
	if ((rc = alx_seed_keys(seed, sk, kx)) != 0)
		die("participant key", rc);
	free(seed);
}

static int
cmd_create(int argc, char **argv)
{
	struct alx_manifest		m;
	struct alx_session_secrets	sec;
	struct alx_session_params	p;
	struct alx_private		priv;
	char				sid[ALX_B64_ENCLEN(ALX_SID_LEN) + 1];
	int				rc;

	memset(&p, 0, sizeof(p));
	memset(&priv, 0, sizeof(priv));
	p.mode = argc > 1 && strcmp(argv[1], "execute") == 0 ?
	    ALX_MODE_EXECUTE : ALX_MODE_CHAT;
	/* NO_APPROVE: every runner counts as approved (a binding may do so). */
	p.approve = p.mode == ALX_MODE_EXECUTE && getenv("NO_APPROVE") == NULL;
	p.now = (int64_t)time(NULL);
	p.expires = argc > 0 ? (strtoll(argv[0], NULL, 10) == 0 ? 0 :
	    p.now + strtoll(argv[0], NULL, 10)) : p.now + 3600;
	p.item_max = 100 * 1024 * 1024;
	p.session_max = 1024LL * 1024 * 1024;
	if ((rc = alx_session_create(&m, &sec, &p, &priv)) != 0)
		die("session create", rc);
	put("secrets", &sec, sizeof(sec));
	put("manifest.1.json", m.obj.raw, m.obj.raw_len);
	put("manifest.json", m.obj.raw, m.obj.raw_len);
	put("sid.bin", m.sid, ALX_SID_LEN);
	alx_b64_encode(sid, m.sid, ALX_SID_LEN);
	put("sid", sid, strlen(sid));
	printf("%s\n", sid);
	alx_manifest_free(&m);
	return 0;
}

static int
cmd_cert(int argc, char **argv)
{
	struct alx_session_secrets	sec;
	struct alx_manifest		m;
	struct alx_signkey		rk, sk;
	struct alx_kxkey		rkx, kx;
	struct alx_cert			c;
	char				file[256];
	int				rc, role;

	if (argc < 2 || alx_role_parse(argv[1], &role) != 0)
		die("usage: cert DIR NAME ROLE", ALX_ERR_INVALID);
	load_secrets(&sec);
	load_manifest(&m);
	participant(argv[0], &sk, &kx);
	if ((rc = alx_seed_keys(sec.seed[role], &rk, &rkx)) != 0)
		die("role key", rc);
	memset(&c, 0, sizeof(c));
	memcpy(c.sid, m.sid, ALX_SID_LEN);
	c.role = role;
	c.n = role == ALX_ROLE_OWNER ? 0 : m.roles[role].n;
	memcpy(c.pk, sk.pk, ALX_SIGN_PK_LEN);
	memcpy(c.kx, kx.pk, ALX_KX_PK_LEN);
	snprintf(c.name, sizeof(c.name), "%s", argv[0]);
	c.kind = ALX_PKIND_AGENT;
	c.time = (int64_t)time(NULL);
	if ((rc = alx_cert_sign(&c, &rk)) != 0)
		die("cert sign", rc);
	snprintf(file, sizeof(file), "%s.cert", argv[0]);
	put(file, c.obj.raw, c.obj.raw_len);
	snprintf(file, sizeof(file), "%s.role", argv[0]);
	put(file, argv[1], strlen(argv[1]));
	alx_cert_free(&c);
	alx_manifest_free(&m);
	return 0;
}

static int
cmd_auth(int argc, char **argv)
{
	struct alx_signkey	sk;
	struct alx_kxkey	kx;
	char			hdr[ALX_REQ_HDR_MAX];
	uint8_t			*body = NULL;
	size_t			 len = 0;
	FILE			*f;
	long			 skew = 0;
	int			 rc;

	if (argc < 5)
		die("usage: auth DIR NAME METHOD PATH BODYFILE HOST", 0);
	participant(argv[0], &sk, &kx);
	if (strcmp(argv[3], "-") != 0) {
		if ((f = fopen(argv[3], "rb")) == NULL)
			die(argv[3], 0);
		fseek(f, 0, SEEK_END);
		len = (size_t)ftell(f);
		fseek(f, 0, SEEK_SET);
		body = malloc(len + 1);
		if (body == NULL || fread(body, 1, len, f) != len)
			die(argv[3], 0);
		fclose(f);
	}
	if (getenv("SKEW") != NULL)
		skew = strtol(getenv("SKEW"), NULL, 10);
	if ((rc = alx_req_sign(hdr, &sk, argv[4], argv[1], argv[2],
	    body != NULL ? body : (uint8_t *)"", len,
	    (int64_t)time(NULL) + skew)) != 0)
		die("request sign", rc);
	printf("%s\n", hdr);
	free(body);
	return 0;
}

/* Wrap a job's key to each participant named in list (space-separated). */
static void
job_wrap_to(struct alx_item *it, const char *list, const uint8_t *ctx,
    size_t ctxlen, const uint8_t kitem[ALX_KEY_LEN])
{
	struct alx_signkey	 sk;
	struct alx_kxkey	 kx;
	uint8_t			 fp[ALX_FP_LEN];
	char			*copy, *name, *save = NULL, fps[ALX_FP_STRLEN + 1];
	int			 rc;

	if (list == NULL || (copy = strdup(list)) == NULL)
		return;
	for (name = strtok_r(copy, " ", &save); name != NULL &&
	    it->job.nwraps < ALX_MAX_WRAPS; name = strtok_r(NULL, " ", &save)) {
		participant(name, &sk, &kx);
		alx_fingerprint(fp, sk.pk, ALX_SIGN_PK_LEN);
		alx_b64_encode(fps, fp, ALX_FP_LEN);
		if ((rc = alx_wrap_seal(&it->job.wraps[it->job.nwraps++], fps,
		    kx.pk, ctx, ctxlen, kitem)) != 0)
			die("job wrap", rc);
	}
	free(copy);
}

static int
cmd_item(int argc, char **argv)
{
	struct alx_session_secrets	sec;
	struct alx_manifest		m;
	struct alx_signkey		sk;
	struct alx_kxkey		kx;
	struct alx_item			it;
	uint8_t				kitem[ALX_KEY_LEN], *pl = NULL, *ct;
	uint8_t				*st;
	char				file[256], meta[256];
	char				idb[ALX_B64_ENCLEN(ALX_ID_LEN) + 1];
	size_t				plen = 0, i, n, clen, len;
	int				rc;

	if (argc < 2)
		die("usage: item DIR NAME KIND [PAYLOAD]", 0);
	load_secrets(&sec);
	load_manifest(&m);
	participant(argv[0], &sk, &kx);
	memset(&it, 0, sizeof(it));
	memcpy(it.sid, m.sid, ALX_SID_LEN);
	alx_random(it.id, ALX_ID_LEN);
	snprintf(it.kind, sizeof(it.kind), "%s", argv[1]);
	alx_fingerprint(it.author, sk.pk, ALX_SIGN_PK_LEN);
	snprintf(file, sizeof(file), "%s.seq", argv[0]);
	st = get(file, &len, 0);
	it.seq = st != NULL ? strtoll((char *)st, NULL, 10) + 1 : 1;
	free(st);
	snprintf(file, sizeof(file), "%s.prev", argv[0]);
	if ((st = get(file, &len, 0)) != NULL && len == ALX_HASH_LEN) {
		it.has_prev = 1;
		memcpy(it.prev, st, ALX_HASH_LEN);
	}
	free(st);
	it.time = (int64_t)time(NULL);
	it.mv = m.ver;
	it.epoch = 0;
	if (argc > 2) {
		snprintf(file, sizeof(file), "%s", argv[2]);
		FILE *f = fopen(file, "rb");
		if (f == NULL)
			die(file, 0);
		fseek(f, 0, SEEK_END);
		plen = (size_t)ftell(f);
		fseek(f, 0, SEEK_SET);
		if ((pl = malloc(plen + 1)) == NULL ||
		    fread(pl, 1, plen, f) != plen)
			die(file, 0);
		fclose(f);
	}
	it.size = (int64_t)plen;
	n = alx_chunk_count(it.size);
	it.nchunks = n;
	if (n > 0 && (it.chunks = calloc(n, ALX_HASH_LEN)) == NULL)
		die("calloc", 0);
	if (getenv("REPLY_TO") != NULL) {
		it.has_reply_to = 1;
		if ((rc = alx_b64_decode_exact(it.reply_to, ALX_ID_LEN,
		    getenv("REPLY_TO"), strlen(getenv("REPLY_TO")))) != 0)
			die("REPLY_TO", rc);
	}
	if (strcmp(it.kind, "job") == 0) {
		const char	*t = getenv("JOB_TARGET");
		uint8_t		 ctx[64];
		size_t		 ctxlen;

		if (t == NULL || (strncmp(t, "runner:", 7) != 0 &&
		    strncmp(t, "label:", 6) != 0))
			die("JOB_TARGET runner:NAME or label:LABEL", 0);
		it.has_job = 1;
		it.job.is_label = t[0] == 'l';
		snprintf(it.job.name, sizeof(it.job.name), "%s",
		    strchr(t, ':') + 1);
		it.job.not_after = it.time + (getenv("JOB_TTL") != NULL ?
		    strtoll(getenv("JOB_TTL"), NULL, 10) : 600);
		alx_random(kitem, sizeof(kitem));
		if ((it.job.wraps = calloc(ALX_MAX_WRAPS,
		    sizeof(*it.job.wraps))) == NULL)
			die("calloc", 0);
		ctxlen = alx_wrap_ctx_job(ctx, it.sid, it.id);
		/* JOB_NO_OWNER: a job the owner could not read (refused). */
		if (getenv("JOB_NO_OWNER") == NULL &&
		    (rc = alx_wrap_seal(&it.job.wraps[it.job.nwraps++], "owner",
		    m.owner_kx, ctx, ctxlen, kitem)) != 0)
			die("job wrap", rc);
		job_wrap_to(&it, getenv("JOB_TO"), ctx, ctxlen, kitem);
	} else if ((rc = alx_item_key_epoch(sec.epoch_key, it.id,
	    kitem)) != 0)
		die("item key", rc);
	snprintf(meta, sizeof(meta), "{\"v\":1,\"text\":\"test %lld\"}",
	    (long long)it.seq);
	if ((rc = alx_item_seal_meta(&it, kitem, meta, strlen(meta))) != 0)
		die("seal meta", rc);
	for (i = 0; i < n; i++) {
		clen = i + 1 < n ? ALX_CHUNK_SIZE : plen - i * ALX_CHUNK_SIZE;
		if ((ct = malloc(clen + ALX_TAG_LEN)) == NULL)
			die("malloc", 0);
		if ((rc = alx_chunk_seal(&it, kitem, i, pl + i * ALX_CHUNK_SIZE,
		    clen, ct)) != 0)
			die("chunk seal", rc);
		alx_sha256(it.chunks[i], ct, clen + ALX_TAG_LEN);
		snprintf(file, sizeof(file), "chunk.%zu", i);
		put(file, ct, clen + ALX_TAG_LEN);
		free(ct);
	}
	if ((rc = alx_item_sign(&it, &sk)) != 0)
		die("item sign", rc);
	put("item.json", it.obj.raw, it.obj.raw_len);
	alx_b64_encode(idb, it.id, ALX_ID_LEN);
	put("item.id", idb, strlen(idb));
	snprintf(file, sizeof(file), "%s.seq", argv[0]);
	snprintf(meta, sizeof(meta), "%lld", (long long)it.seq);
	put(file, meta, strlen(meta));
	snprintf(file, sizeof(file), "%s.prev", argv[0]);
	put(file, it.hash, ALX_HASH_LEN);
	alx_item_free(&it);
	alx_manifest_free(&m);
	free(pl);
	return 0;
}

static int
cmd_notice(const char *type, int argc, char **argv)
{
	struct alx_manifest	m;
	struct alx_signkey	sk;
	struct alx_kxkey	kx;
	struct alx_notice	n;
	int			rc;

	if (argc < 1)
		die("usage: close|code-open|code-fail DIR NAME [ARG]", 0);
	load_manifest(&m);
	participant(argv[0], &sk, &kx);
	memset(&n, 0, sizeof(n));
	snprintf(n.type, sizeof(n.type), "%s", type);
	if (strcmp(type, "code-open") == 0 && (argc < 2 ||
	    alx_role_parse(argv[1], &n.role) != 0))
		die("code-open needs a role", ALX_ERR_INVALID);
	if (strcmp(type, "code-fail") == 0)
		n.nameplate = argc > 1 ? strtoll(argv[1], NULL, 10) : 0;
	memcpy(n.sid, m.sid, ALX_SID_LEN);
	n.time = (int64_t)time(NULL);
	if ((rc = alx_notice_sign(&n, &sk)) != 0)
		die("notice sign", rc);
	printf("%s", n.obj.raw);
	alx_notice_free(&n);
	alx_manifest_free(&m);
	return 0;
}

static int
cmd_revoke(int argc, char **argv)
{
	struct alx_session_secrets	sec;
	struct alx_manifest		m, next;
	struct alx_signkey		owner, sk;
	struct alx_kxkey		okx, kx;
	struct alx_private		priv;
	uint8_t				fp[ALX_FP_LEN], ekey[ALX_KEY_LEN];
	char				name[64];
	int				rc;

	if (argc < 1)
		die("usage: revoke DIR NAME", 0);
	load_secrets(&sec);
	load_manifest(&m);
	participant(argv[0], &sk, &kx);
	alx_fingerprint(fp, sk.pk, ALX_SIGN_PK_LEN);
	memset(&priv, 0, sizeof(priv));
	if ((rc = alx_seed_keys(sec.seed[ALX_ROLE_OWNER], &owner, &okx)) != 0 ||
	    (rc = alx_manifest_next(&next, &m)) != 0 ||
	    (rc = alx_manifest_revoke(&next, fp)) != 0 ||
	    (rc = alx_manifest_new_epoch(&next, ekey, &priv, NULL, 0)) != 0 ||
	    (rc = alx_manifest_finish(&next, &owner, ekey, &priv)) != 0)
		die("revoke", rc);
	snprintf(name, sizeof(name), "manifest.%lld.json",
	    (long long)next.ver);
	put(name, next.obj.raw, next.obj.raw_len);
	put("manifest.json", next.obj.raw, next.obj.raw_len);
	alx_manifest_free(&next);
	alx_manifest_free(&m);
	return 0;
}

static int
cmd_rotate(int argc, char **argv)
{
	struct alx_session_secrets	sec;
	struct alx_manifest		m, next;
	struct alx_signkey		owner, sk;
	struct alx_kxkey		okx, kx;
	struct alx_private		priv;
	struct alx_member		keep[16];
	uint8_t				ekey[ALX_KEY_LEN], *rs;
	char				name[64], file[256];
	size_t				len;
	int				rc, role, i, nkeep = 0;

	if (argc < 1 || alx_role_parse(argv[0], &role) != 0)
		die("usage: rotate DIR ROLE [KEEP...]", ALX_ERR_INVALID);
	load_secrets(&sec);
	load_manifest(&m);
	for (i = 1; i < argc && nkeep < 16; i++, nkeep++) {
		participant(argv[i], &sk, &kx);
		alx_fingerprint(keep[nkeep].fp, sk.pk, ALX_SIGN_PK_LEN);
		memcpy(keep[nkeep].kx, kx.pk, ALX_KX_PK_LEN);
		snprintf(file, sizeof(file), "%s.role", argv[i]);
		rs = get(file, &len, 1);
		if (alx_role_parse((char *)rs, &keep[nkeep].role) != 0)
			die(file, ALX_ERR_INVALID);
		free(rs);
	}
	memset(&priv, 0, sizeof(priv));
	if ((rc = alx_seed_keys(sec.seed[ALX_ROLE_OWNER], &owner, &okx)) != 0 ||
	    (rc = alx_manifest_next(&next, &m)) != 0 ||
	    (rc = alx_manifest_rotate_role(&next, role, sec.seed[role], keep,
	    (size_t)nkeep)) != 0 ||
	    (rc = alx_manifest_new_epoch(&next, ekey, &priv, keep,
	    (size_t)nkeep)) != 0 ||
	    (rc = alx_manifest_finish(&next, &owner, ekey, &priv)) != 0)
		die("rotate", rc);
	memcpy(sec.epoch_key, ekey, sizeof(ekey));
	put("secrets", &sec, sizeof(sec));
	snprintf(name, sizeof(name), "manifest.%lld.json",
	    (long long)next.ver);
	put(name, next.obj.raw, next.obj.raw_len);
	put("manifest.json", next.obj.raw, next.obj.raw_len);
	alx_manifest_free(&next);
	alx_manifest_free(&m);
	return 0;
}

static int
cmd_approve(int argc, char **argv)
{
	struct alx_session_secrets	sec;
	struct alx_manifest		m, next;
	struct alx_signkey		owner, sk;
	struct alx_kxkey		okx, kx;
	struct alx_private		priv;
	const char			*labels[1];
	uint8_t				fp[ALX_FP_LEN], ekey[ALX_KEY_LEN];
	char				name[64];
	int				rc;

	if (argc < 3)
		die("usage: approve DIR NAME RUNNER LABEL", 0);
	load_secrets(&sec);
	load_manifest(&m);
	participant(argv[0], &sk, &kx);
	alx_fingerprint(fp, sk.pk, ALX_SIGN_PK_LEN);
	labels[0] = argv[2];
	memset(&priv, 0, sizeof(priv));
	memcpy(ekey, sec.epoch_key, sizeof(ekey));
	if ((rc = alx_seed_keys(sec.seed[ALX_ROLE_OWNER], &owner, &okx)) != 0 ||
	    (rc = alx_manifest_next(&next, &m)) != 0 ||
	    (rc = alx_manifest_approve(&next, fp, argv[1], labels, 1)) != 0 ||
	    (rc = alx_manifest_finish(&next, &owner, ekey, &priv)) != 0)
		die("approve", rc);
	snprintf(name, sizeof(name), "manifest.%lld.json",
	    (long long)next.ver);
	put(name, next.obj.raw, next.obj.raw_len);
	put("manifest.json", next.obj.raw, next.obj.raw_len);
	alx_manifest_free(&next);
	alx_manifest_free(&m);
	return 0;
}

static int
cmd_announce(int argc, char **argv)
{
	struct alx_manifest	m;
	struct alx_signkey	sk;
	struct alx_kxkey	kx;
	struct alx_announce	a;
	char			*labels[1];
	int			rc;

	if (argc < 4)
		die("usage: announce DIR NAME RUNNER LABEL SLOTS", 0);
	load_manifest(&m);
	participant(argv[0], &sk, &kx);
	memset(&a, 0, sizeof(a));
	memcpy(a.sid, m.sid, ALX_SID_LEN);
	alx_fingerprint(a.runner, sk.pk, ALX_SIGN_PK_LEN);
	snprintf(a.name, sizeof(a.name), "%s", argv[1]);
	labels[0] = argv[2];
	a.labels = labels;
	a.nlabels = 1;
	a.slots = strtoll(argv[3], NULL, 10);
	a.kinds = ALX_JOBKIND_SHELL;
	snprintf(a.sandbox, sizeof(a.sandbox), "process");
	snprintf(a.version, sizeof(a.version), "0.1.0");
	a.time = (int64_t)time(NULL);
	if ((rc = alx_announce_sign(&a, &sk)) != 0)
		die("announce sign", rc);
	printf("%s", a.obj.raw);
	a.labels = NULL;
	a.nlabels = 0;
	alx_announce_free(&a);
	alx_manifest_free(&m);
	return 0;
}

static int
cmd_claim(int argc, char **argv)
{
	struct alx_manifest	m;
	struct alx_signkey	sk;
	struct alx_kxkey	kx;
	struct alx_claim	c;
	int			rc;

	if (argc < 2)
		die("usage: claim DIR NAME JOBID", 0);
	load_manifest(&m);
	participant(argv[0], &sk, &kx);
	memset(&c, 0, sizeof(c));
	memcpy(c.sid, m.sid, ALX_SID_LEN);
	if ((rc = alx_b64_decode_exact(c.job, ALX_ID_LEN, argv[1],
	    strlen(argv[1]))) != 0)
		die("job id", rc);
	alx_fingerprint(c.runner, sk.pk, ALX_SIGN_PK_LEN);
	c.time = (int64_t)time(NULL);
	if ((rc = alx_claim_sign(&c, &sk)) != 0)
		die("claim sign", rc);
	printf("%s", c.obj.raw);
	alx_claim_free(&c);
	alx_manifest_free(&m);
	return 0;
}

/* A protocol-1 peer's object: body v 2 made 1, signature made again. */
static int
cmd_protocol1(int argc, char **argv)
{
	struct alx_session_secrets	 sec;
	struct alx_signkey		 sk;
	struct alx_kxkey		 kx;
	struct alx_signed		 s, out;
	uint8_t				*raw;
	char				*body;
	size_t				 len;
	int				 rc;

	if (argc < 2)
		die("usage: protocol1 DIR FILE SIGNER", ALX_ERR_INVALID);
	raw = get(argv[0], &len, 1);
	if ((rc = alx_signed_parse(&s, (char *)raw, len)) != 0)
		die(argv[0], rc);
	body = (char *)s.body;
	if (strncmp(body, "{\"v\":2,", 7) != 0)
		die("not a protocol-2 body", ALX_ERR_VERSION);
	body[5] = '1';
	if (strcmp(argv[1], "owner") == 0) {
		load_secrets(&sec);
		rc = alx_seed_keys(sec.seed[ALX_ROLE_OWNER], &sk, NULL);
	} else {
		participant(argv[1], &sk, &kx);
		rc = 0;
	}
	if (rc != 0 || (rc = alx_signed_seal(&out, s.type, s.body,
	    s.body_len, &sk)) != 0)
		die("sign", rc);
	printf("%s", out.raw);
	alx_signed_free(&out);
	alx_signed_free(&s);
	free(raw);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: relay-cli CMD DIR ...\n");
		return 1;
	}
	if (alx_crypto_init() != 0)
		die("crypto init", ALX_ERR_CRYPTO);
	dir = argv[2];
	if (strcmp(argv[1], "create") == 0)
		return cmd_create(argc - 3, argv + 3);
	if (strcmp(argv[1], "cert") == 0)
		return cmd_cert(argc - 3, argv + 3);
	if (strcmp(argv[1], "auth") == 0)
		return cmd_auth(argc - 3, argv + 3);
	if (strcmp(argv[1], "item") == 0)
		return cmd_item(argc - 3, argv + 3);
	if (strcmp(argv[1], "close") == 0 ||
	    strcmp(argv[1], "code-open") == 0 ||
	    strcmp(argv[1], "code-fail") == 0)
		return cmd_notice(argv[1], argc - 3, argv + 3);
	if (strcmp(argv[1], "revoke") == 0)
		return cmd_revoke(argc - 3, argv + 3);
	if (strcmp(argv[1], "rotate") == 0)
		return cmd_rotate(argc - 3, argv + 3);
	if (strcmp(argv[1], "approve") == 0)
		return cmd_approve(argc - 3, argv + 3);
	if (strcmp(argv[1], "announce") == 0)
		return cmd_announce(argc - 3, argv + 3);
	if (strcmp(argv[1], "claim") == 0)
		return cmd_claim(argc - 3, argv + 3);
	if (strcmp(argv[1], "protocol1") == 0)
		return cmd_protocol1(argc - 3, argv + 3);
	fprintf(stderr, "relay-cli: unknown command %s\n", argv[1]);
	return 1;
}
