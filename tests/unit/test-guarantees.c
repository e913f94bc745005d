/*
 * test-guarantees.c: one group of tests per guarantee of the protocol
 * (1 to 13: what the protocol must guarantee), each trying to
 * break it with libairlox directly: the relay's view is scanned for
 * secrets, signed bytes are flipped, items dropped, replayed and moved,
 * keys tried by everyone who should not hold them.
 */
#include <sys/resource.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "airlox.h"
#include "tap.h"
#include "unit/gcm-collide.h"

#define MARK_TEXT	"MARKER-plaintext-of-a-message"
#define MARK_FILE	"MARKER-secret-file-name.txt"
#define MARK_CMD	"MARKER-command --token"
#define MARK_PAYLOAD	"MARKER-payload-bytes"

struct party {
	struct alx_signkey	sk;
	struct alx_kxkey	kx;
	struct alx_cert		cert;
	char			fps[ALX_FP_STRLEN + 1];
	int			role;
};

/* One session: the owner's secrets, manifest v1 and v2, participants. */
enum { P_OWN, P_SND, P_SND2, P_OBS, P_RUN, P_RUN2, P_N };

struct world {
	struct alx_session_secrets	sec;
	struct alx_manifest		m1, m2;
	struct alx_signkey		owner;
	struct party			p[P_N];
	struct alx_private		priv;
};

/* The bytes a relay holds, to scan. */
struct relay_view {
	struct alx_buf	b;
};

static void
view_add(struct relay_view *v, const void *p, size_t n)
{
	if (alx_buf_add(&v->b, p, n) != ALX_OK || alx_buf_addc(&v->b, 0) !=
	    ALX_OK)
		abort();
}

/* A signed object as stored, and its body as the relay may decode it. */
static void
view_add_obj(struct relay_view *v, const struct alx_signed *s)
{
	view_add(v, s->raw, s->raw_len);
	view_add(v, s->body, s->body_len);
}

static int
view_has(const struct relay_view *v, const void *needle, size_t n)
{
	size_t	i;

	if (n == 0 || v->b.len < n)
		return 0;
	for (i = 0; i + n <= v->b.len; i++)
		if (memcmp(v->b.data + i, needle, n) == 0)
			return 1;
	return 0;
}

/* Absent as raw bytes, as hex and as base64url. */
static int
view_has_secret(const struct relay_view *v, const uint8_t *k, size_t n)
{
	static const char	 digits[] = "0123456789abcdef";
	char			 hex[129], *b64;
	size_t			 i;
	int			 found;

	for (i = 0; i < n && i < 64; i++) {
		hex[2 * i] = digits[k[i] >> 4];
		hex[2 * i + 1] = digits[k[i] & 15];
	}
	hex[2 * i] = '\0';
	if ((b64 = alx_b64_encode_alloc(k, n)) == NULL)
		abort();
	found = view_has(v, k, n) || view_has(v, hex, strlen(hex)) ||
	    view_has(v, b64, strlen(b64));
	free(b64);
	return found;
}

static struct alx_private
test_private(void)
{
	struct alx_private	p;

	memset(&p, 0, sizeof(p));
	p.has_limits = 1;
	p.limits.kinds = ALX_JOBKIND_SHELL | ALX_JOBKIND_PYTHON;
	p.limits.timeout_s = 600;
	p.limits.memory_mb = 1024;
	p.limits.net_mode = ALX_NET_NONE;
	p.limits.return_out = 1;
	return p;
}

static int
party_make(struct party *p, const struct alx_manifest *m, int role,
    const uint8_t seed[ALX_SEED_LEN], const char *name)
{
	struct alx_signkey	rk;
	int			r;

	memset(p, 0, sizeof(*p));
	p->role = role;
	if (alx_sign_keygen(&p->sk) != ALX_OK ||
	    alx_kx_keygen(&p->kx) != ALX_OK)
		return ALX_ERR_CRYPTO;
	if ((r = alx_seed_keys(seed, &rk, NULL)) != ALX_OK)
		return r;
	memcpy(p->cert.sid, m->sid, ALX_SID_LEN);
	p->cert.role = role;
	p->cert.n = role == ALX_ROLE_OWNER ? 0 : m->roles[role].n;
	memcpy(p->cert.pk, p->sk.pk, ALX_SIGN_PK_LEN);
	memcpy(p->cert.kx, p->kx.pk, ALX_KX_PK_LEN);
	snprintf(p->cert.name, sizeof(p->cert.name), "%s", name);
	p->cert.kind = role == ALX_ROLE_RUNNER ? ALX_PKIND_RUNNER :
	    ALX_PKIND_AGENT;
	p->cert.time = 1700000000;
	r = alx_cert_sign(&p->cert, &rk);
	alx_sign_wipe(&rk);
	alx_fingerprint_str(p->fps, p->sk.pk, ALX_SIGN_PK_LEN);
	return r;
}

static void
party_free(struct party *p)
{
	alx_cert_free(&p->cert);
	alx_sign_wipe(&p->sk);
	alx_kx_wipe(&p->kx);
}

static int
world_make(struct world *w)
{
	static const char *const names[P_N] = {
		"owner", "build-agent", "review-agent", "lead", "gpu-box",
		"other-box"
	};
	static const int roles[P_N] = {
		ALX_ROLE_OWNER, ALX_ROLE_SENDER, ALX_ROLE_SENDER,
		ALX_ROLE_OBSERVER, ALX_ROLE_RUNNER, ALX_ROLE_RUNNER
	};
	static const char *const labels[] = { "gpu" };
	struct alx_session_params	sp;
	int				i, r;

	memset(w, 0, sizeof(*w));
	w->priv = test_private();
	memset(&sp, 0, sizeof(sp));
	sp.mode = ALX_MODE_EXECUTE;
	sp.now = 1700000000;
	sp.item_max = ALX_ITEM_MAX_SIZE;
	sp.session_max = 1024 * 1024 * 1024;
	sp.approve = 1;
	if ((r = alx_session_create(&w->m1, &w->sec, &sp, &w->priv)) != ALX_OK)
		return r;
	alx_seed_keys(w->sec.seed[ALX_ROLE_OWNER], &w->owner, NULL);
	for (i = 0; i < P_N; i++)
		if ((r = party_make(&w->p[i], &w->m1, roles[i],
		    w->sec.seed[roles[i]], names[i])) != ALX_OK)
			return r;
	if ((r = alx_manifest_next(&w->m2, &w->m1)) != ALX_OK ||
	    (r = alx_manifest_approve(&w->m2, w->p[P_RUN].cert.fp, "gpu-box",
	    labels, 1)) != ALX_OK)
		return r;
	return alx_manifest_finish(&w->m2, &w->owner, w->sec.epoch_key,
	    &w->priv);
}

static void
world_free(struct world *w)
{
	int	i;

	for (i = 0; i < P_N; i++)
		party_free(&w->p[i]);
	alx_manifest_free(&w->m1);
	alx_manifest_free(&w->m2);
	alx_sign_wipe(&w->owner);
	alx_session_secrets_wipe(&w->sec);
}

static void
item_init(struct alx_item *it, const struct alx_manifest *m,
    const struct party *author, const char *kind, int64_t seq,
    const uint8_t *prev)
{
	memset(it, 0, sizeof(*it));
	memcpy(it->sid, m->sid, ALX_SID_LEN);
	alx_random(it->id, ALX_ID_LEN);
	snprintf(it->kind, sizeof(it->kind), "%s", kind);
	alx_fingerprint(it->author, author->sk.pk, ALX_SIGN_PK_LEN);
	it->seq = seq;
	if (prev != NULL) {
		it->has_prev = 1;
		memcpy(it->prev, prev, ALX_HASH_LEN);
	}
	it->time = 1700000100 + seq;
	it->mv = m->ver;
	it->epoch = m->epoch;
}

/* A member-readable text item, sealed and signed. */
static int
make_text(struct alx_item *it, const struct world *w, int author, int64_t seq,
    const uint8_t *prev, const char *meta)
{
	uint8_t	k[ALX_KEY_LEN];
	int	r;

	item_init(it, &w->m2, &w->p[author], "text", seq, prev);
	alx_item_key_epoch(w->sec.epoch_key, it->id, k);
	if ((r = alx_item_seal_meta(it, k, meta, strlen(meta))) == ALX_OK)
		r = alx_item_sign(it, &w->p[author].sk);
	alx_wipe(k, sizeof(k));
	return r;
}

/* A job by the sender for the approved runner; kitem receives its key. */
static int
make_job(struct alx_item *it, const struct world *w, int64_t seq,
    const uint8_t *prev, uint8_t kitem[ALX_KEY_LEN])
{
	const struct party	*s = &w->p[P_SND], *run = &w->p[P_RUN];
	uint8_t			 ctx[64];
	size_t			 n;
	char			 meta[256];

	item_init(it, &w->m2, s, "job", seq, prev);
	it->has_job = 1;
	snprintf(it->job.name, sizeof(it->job.name), "gpu-box");
	it->job.not_after = 1700003600;
	if ((it->job.wraps = calloc(3, sizeof(struct alx_wrap))) == NULL)
		return ALX_ERR_NOMEM;
	alx_random(kitem, ALX_KEY_LEN);
	n = alx_wrap_ctx_job(ctx, it->sid, it->id);
	if (alx_wrap_seal(&it->job.wraps[0], "owner", w->m2.owner_kx, ctx, n,
	    kitem) != ALX_OK ||
	    alx_wrap_seal(&it->job.wraps[1], s->fps, s->kx.pk, ctx, n,
	    kitem) != ALX_OK ||
	    alx_wrap_seal(&it->job.wraps[2], run->fps, run->kx.pk, ctx, n,
	    kitem) != ALX_OK)
		return ALX_ERR_CRYPTO;
	it->job.nwraps = 3;
	snprintf(meta, sizeof(meta), "{\"v\":1,\"kind\":\"shell\",\"cmd\":"
	    "\"%s\"}", MARK_CMD);
	if (alx_item_seal_meta(it, kitem, meta, strlen(meta)) != ALX_OK)
		return ALX_ERR_CRYPTO;
	return alx_item_sign(it, &s->sk);
}

/* Re-sign an item's body after an edit, as `who`. */
static char *
resign(const struct alx_item *it, const char *from, const char *to,
    const struct alx_signkey *who)
{
	struct alx_signed	 s;
	const char		*body = (const char *)it->obj.body, *p;
	char			*nb, *raw;
	size_t			 a, b, c;

	if ((p = strstr(body, from)) == NULL)
		abort();
	a = (size_t)(p - body);
	b = strlen(to);
	c = strlen(p + strlen(from));
	if ((nb = malloc(a + b + c + 1)) == NULL)
		abort();
	memcpy(nb, body, a);
	memcpy(nb + a, to, b);
	memcpy(nb + a + b, p + strlen(from), c + 1);
	if (alx_signed_seal(&s, "item", nb, strlen(nb), who) != ALX_OK)
		abort();
	raw = strdup(s.raw);
	alx_signed_free(&s);
	free(nb);
	return raw;
}

/*
 * 1. The relay never sees content, keys or file names.
 */

/* Every member of the object `tok` is one of `allowed`. */
static int
members_only(const uint8_t *body, size_t len, const char *const *allowed)
{
	struct alx_json	*j;
	char		*key;
	int		 i, n, k, v, ok_ = 1;
	size_t		 a;

	if (alx_json_parse(&j, (const char *)body, len, NULL) != ALX_OK)
		return 0;
	n = alx_json_obj_len(j, 0);
	for (i = 0; i < n && ok_; i++) {
		alx_json_obj_at(j, 0, i, &k, &v);
		alx_json_str(j, k, &key, NULL);
		ok_ = 0;
		for (a = 0; allowed[a] != NULL; a++)
			if (strcmp(allowed[a], key) == 0)
				ok_ = 1;
		if (!ok_)
			tap_diag("clear-text member not in the list: %s", key);
		free(key);
	}
	alx_json_free(j);
	return ok_;
}

static void
g1_relay_blind(struct world *w)
{
	static const char *const item_fields[] = { "v", "sid", "id", "kind",
	    "author", "seq", "prev", "time", "mv", "epoch", "to", "reply_to",
	    "meta", "kc", "size", "chunks", "job", NULL };
	static const char *const manifest_fields[] = { "v", "ver", "sid",
	    "prev", "nonce", "mode", "created", "expires", "item_max",
	    "session_max", "owner", "roles", "keep", "approve", "approved",
	    "revoked", "epoch", "ekc", "wraps", "private", NULL };
	static const char *const cert_fields[] = { "v", "sid", "role", "n",
	    "pk", "kx", "name", "kind", "time", NULL };
	struct relay_view	 v;
	struct alx_item		 t, f, job;
	uint8_t			 k[ALX_KEY_LEN], kj[ALX_KEY_LEN];
	uint8_t			*pt, *ct;
	char			 meta[256];
	size_t			 size = 3000, i;
	int			 p;

	tap_diag("guarantee 1: the relay never sees content, keys or file "
	    "names");
	alx_buf_init(&v.b, 0);
	view_add_obj(&v, &w->m1.obj);
	view_add_obj(&v, &w->m2.obj);
	for (p = 0; p < P_N; p++)
		view_add_obj(&v, &w->p[p].cert.obj);
	snprintf(meta, sizeof(meta), "{\"v\":1,\"text\":\"%s\"}", MARK_TEXT);
	is_int(make_text(&t, w, P_SND, 1, NULL, meta), ALX_OK, "text item");
	view_add_obj(&v, &t.obj);
	/* A file: its name in the meta, its bytes in one chunk. */
	item_init(&f, &w->m2, &w->p[P_SND], "file", 2, t.hash);
	alx_item_key_epoch(w->sec.epoch_key, f.id, k);
	snprintf(meta, sizeof(meta), "{\"v\":1,\"name\":\"%s\"}", MARK_FILE);
	alx_item_seal_meta(&f, k, meta, strlen(meta));
	pt = malloc(size);
	ct = malloc(size + ALX_TAG_LEN);
	for (i = 0; i < size; i++)
		pt[i] = (uint8_t)MARK_PAYLOAD[i % strlen(MARK_PAYLOAD)];
	f.size = (int64_t)size;
	f.nchunks = 1;
	f.chunks = calloc(1, ALX_HASH_LEN);
	alx_chunk_seal(&f, k, 0, pt, size, ct);
	alx_sha256(f.chunks[0], ct, size + ALX_TAG_LEN);
	is_int(alx_item_sign(&f, &w->p[P_SND].sk), ALX_OK, "file item");
	view_add_obj(&v, &f.obj);
	view_add(&v, ct, size + ALX_TAG_LEN);
	is_int(make_job(&job, w, 3, f.hash, kj), ALX_OK, "job item");
	view_add_obj(&v, &job.obj);

	ok(!view_has(&v, MARK_TEXT, strlen(MARK_TEXT)), "no message text");
	ok(!view_has(&v, MARK_FILE, strlen(MARK_FILE)), "no file name");
	ok(!view_has(&v, MARK_CMD, strlen(MARK_CMD)), "no job command");
	ok(!view_has(&v, MARK_PAYLOAD, strlen(MARK_PAYLOAD)),
	    "no payload bytes");
	ok(!view_has_secret(&v, w->sec.epoch_key, ALX_KEY_LEN),
	    "no epoch key");
	ok(!view_has_secret(&v, k, ALX_KEY_LEN), "no item key");
	ok(!view_has_secret(&v, kj, ALX_KEY_LEN), "no job key");
	for (p = 0; p < ALX_ROLE_COUNT; p++)
		ok(!view_has_secret(&v, w->sec.seed[p], ALX_SEED_LEN),
		    "no %s seed", alx_role_name(p));
	ok(!view_has_secret(&v, w->owner.sk, 32), "no owner signing seed");
	for (p = 0; p < P_N; p++) {
		ok(!view_has_secret(&v, w->p[p].sk.sk, 32) &&
		    !view_has_secret(&v, w->p[p].kx.sk, 32),
		    "no secret key of %s", w->p[p].cert.name);
	}
	/* And the sealed private part: job limits are not in clear. */
	ok(!view_has(&v, "timeout_s", 9) && !view_has(&v, "job_limits", 10),
	    "no job limits in clear");
	/* The clear-text members are exactly the listed ones (DESIGN.md). */
	ok(members_only(t.obj.body, t.obj.body_len, item_fields) &&
	    members_only(f.obj.body, f.obj.body_len, item_fields) &&
	    members_only(job.obj.body, job.obj.body_len, item_fields),
	    "item envelopes carry only routing members");
	ok(members_only(w->m2.obj.body, w->m2.obj.body_len, manifest_fields),
	    "manifest carries only its public members");
	ok(members_only(w->p[P_SND].cert.obj.body,
	    w->p[P_SND].cert.obj.body_len, cert_fields),
	    "certificate carries only its members");
	alx_item_free(&t);
	alx_item_free(&f);
	alx_item_free(&job);
	free(pt);
	free(ct);
	alx_buf_free(&v.b);
}

/*
 * 2. The session is anchored.
 */
static void
g2_anchor(struct world *w)
{
	struct alx_session_params	 sp;
	struct alx_session_secrets	 sec2;
	struct alx_manifest		 other, other2, got;
	struct alx_signkey		 ok2;
	struct alx_private		 priv = test_private();

	tap_diag("guarantee 2: the session is anchored to its first manifest");
	memset(&sp, 0, sizeof(sp));
	sp.mode = ALX_MODE_EXECUTE;
	sp.now = 1700000000;
	sp.item_max = 1024;
	sp.session_max = 4096;
	is_int(alx_session_create(&other, &sec2, &sp, &priv), ALX_OK,
	    "another owner's session");
	is_int(alx_manifest_open(&got, other.obj.raw, other.obj.raw_len,
	    w->m1.sid, NULL), ALX_ERR_WRONG_SESSION,
	    "another owner's manifest is refused for the anchored sid");
	/* The same owner key, another v1 (another nonce): refused too. */
	alx_manifest_free(&other);
	alx_manifest_copy(&other, &w->m1);
	alx_random(other.nonce, sizeof(other.nonce));
	is_int(alx_manifest_sign(&other, &w->owner), ALX_OK,
	    "a second v1 by the same owner");
	is_int(alx_manifest_open(&got, other.obj.raw, other.obj.raw_len,
	    w->m1.sid, NULL), ALX_ERR_WRONG_SESSION,
	    "a second v1 by the same owner is refused");
	/* Another owner's update on top of our v1. */
	alx_seed_keys(sec2.seed[ALX_ROLE_OWNER], &ok2, NULL);
	alx_manifest_next(&other2, &w->m1);
	memcpy(other2.owner_pk, ok2.pk, ALX_SIGN_PK_LEN);
	is_int(alx_manifest_finish(&other2, &ok2, w->sec.epoch_key, &priv),
	    ALX_OK, "an update signed by another owner key");
	is_int(alx_manifest_open(&got, other2.obj.raw, other2.obj.raw_len,
	    w->m1.sid, &w->m1), ALX_ERR_UNKNOWN_KEY,
	    "an update by another key is refused");
	is_int(alx_manifest_open(&got, w->m2.obj.raw, w->m2.obj.raw_len,
	    w->m1.sid, &w->m1), ALX_OK, "the owner's own update opens");
	alx_manifest_free(&got);
	alx_manifest_free(&other);
	alx_manifest_free(&other2);
	alx_sign_wipe(&ok2);
	alx_session_secrets_wipe(&sec2);
}

/*
 * 3. Roles by certificate; the permission matrix.
 */
static void
g3_roles(struct world *w)
{
	/* docs/protocol.md section 10, written out again here. */
	static const struct {
		const char	*kind;
		int		 may[ALX_ROLE_COUNT];
		int		 member_readable;
	} matrix[] = {
		{ "text",	{ 1, 1, 0, 0 }, 1 },
		{ "file",	{ 1, 1, 0, 0 }, 1 },
		{ "job",	{ 1, 1, 0, 0 }, 0 },
		{ "cancel",	{ 1, 1, 0, 0 }, 1 },
		{ "input",	{ 1, 1, 0, 0 }, 0 },
		{ "result",	{ 0, 0, 0, 1 }, 0 },
		{ "progress",	{ 0, 0, 0, 1 }, 0 },
		{ "report",	{ 0, 0, 0, 1 }, 1 },
	};
	struct alx_cert	 c;
	struct party	 fake;
	size_t		 k;
	int		 r, s, bad = 0;

	tap_diag("guarantee 3: roles by certificate, the permission matrix");
	for (k = 0; k < sizeof(matrix) / sizeof(matrix[0]); k++) {
		for (r = 0; r < ALX_ROLE_COUNT; r++) {
			int want = matrix[k].may[r] ? ALX_OK :
			    ALX_ERR_WRONG_ROLE;
			is_int(alx_role_may_post(r, matrix[k].kind), want,
			    "%s may%s post %s", alx_role_name(r),
			    matrix[k].may[r] ? "" : " not", matrix[k].kind);
		}
		is_int(alx_kind_member_readable(matrix[k].kind),
		    matrix[k].member_readable, "%s is%s member-readable",
		    matrix[k].kind, matrix[k].member_readable ? "" : " not");
		/* The replies to a job are for its readers (guarantee 13). */
		is_int(alx_kind_job_reply(matrix[k].kind),
		    matrix[k].may[ALX_ROLE_RUNNER], "%s replying to a job is%s "
		    "sealed to the job's readers", matrix[k].kind,
		    matrix[k].may[ALX_ROLE_RUNNER] ? "" : " not");
	}
	for (r = 0; r < ALX_ROLE_COUNT; r++)
		is_int(alx_role_may_post(r, "claim-everything"),
		    ALX_ERR_NOT_ALLOWED, "%s: unknown kind not allowed",
		    alx_role_name(r));
	is_int(alx_role_may_post(ALX_ROLE_COUNT, "text"), ALX_ERR_WRONG_ROLE,
	    "unknown role");
	is_int(alx_role_may_post(-1, "text"), ALX_ERR_WRONG_ROLE,
	    "negative role");
	/* Every role claimed with every other role's key: wrong_role. */
	for (r = 0; r < ALX_ROLE_COUNT; r++) {
		for (s = 0; s < ALX_ROLE_COUNT; s++) {
			if (r == s)
				continue;
			party_make(&fake, &w->m1, r, w->sec.seed[s], "mallory");
			if (alx_cert_open(&c, fake.cert.obj.raw,
			    fake.cert.obj.raw_len, &w->m1) !=
			    ALX_ERR_WRONG_ROLE)
				bad++;
			party_free(&fake);
		}
	}
	is_int(bad, 0, "a role claimed with another role's key: wrong_role "
	    "(all 12 pairs)");
	for (r = 0; r < P_N; r++) {
		is_int(alx_cert_open(&c, w->p[r].cert.obj.raw,
		    w->p[r].cert.obj.raw_len, &w->m1), ALX_OK,
		    "%s certificate opens", w->p[r].cert.name);
		ok(c.role == w->p[r].role && strcmp(c.name,
		    w->p[r].cert.name) == 0, "bound to its role and name");
		alx_cert_free(&c);
	}
	/* Bound to the session. */
	party_make(&fake, &w->m1, ALX_ROLE_SENDER, w->sec.seed[ALX_ROLE_SENDER],
	    "elsewhere");
	alx_cert_free(&fake.cert);
	{
		struct alx_signkey rk;

		memcpy(fake.cert.sid, w->m1.sid, ALX_SID_LEN);
		fake.cert.sid[0] ^= 1;
		fake.cert.role = ALX_ROLE_SENDER;
		fake.cert.n = 1;
		memcpy(fake.cert.pk, fake.sk.pk, 32);
		memcpy(fake.cert.kx, fake.kx.pk, 32);
		snprintf(fake.cert.name, sizeof(fake.cert.name), "elsewhere");
		alx_seed_keys(w->sec.seed[ALX_ROLE_SENDER], &rk, NULL);
		alx_cert_sign(&fake.cert, &rk);
		alx_sign_wipe(&rk);
	}
	is_int(alx_cert_open(&c, fake.cert.obj.raw, fake.cert.obj.raw_len,
	    &w->m1), ALX_ERR_WRONG_SESSION,
	    "a certificate for another session: wrong_session");
	party_free(&fake);
}

/*
 * 4. A job is readable only by the owner, its author and the approved
 * runners it targets.
 */
static void
g4_job_readers(struct world *w)
{
	struct alx_item		 job, got, t;
	struct alx_kxkey	 okx, role_kx[ALX_ROLE_COUNT];
	uint8_t			 kj[ALX_KEY_LEN], k[ALX_KEY_LEN];
	uint8_t			 e[ALX_KEY_LEN];
	char			*meta;
	size_t			 i, len;
	int			 p, r, opened;

	tap_diag("guarantee 4: only the owner, the author and the targeted "
	    "approved runners read a job");
	is_int(make_job(&job, w, 1, NULL, kj), ALX_OK, "job sealed");
	is_int(alx_item_open(&got, job.obj.raw, job.obj.raw_len, w->m2.sid,
	    w->p[P_SND].sk.pk), ALX_OK, "job opens");
	alx_seed_keys(w->sec.seed[ALX_ROLE_OWNER], NULL, &okx);
	for (r = 0; r < ALX_ROLE_COUNT; r++)
		alx_seed_keys(w->sec.seed[r], NULL, &role_kx[r]);
	is_int(alx_item_job_key(&got, "owner", &okx, k), ALX_OK,
	    "owner reads the job key");
	ok(memcmp(k, kj, ALX_KEY_LEN) == 0, "owner's key is the job key");
	is_int(alx_item_job_key(&got, w->p[P_SND].fps, &w->p[P_SND].kx, k),
	    ALX_OK, "author reads the job key");
	is_int(alx_item_job_key(&got, w->p[P_RUN].fps, &w->p[P_RUN].kx, k),
	    ALX_OK, "targeted approved runner reads the job key");
	is_int(alx_item_open_meta(&got, k, &meta, &len), ALX_OK,
	    "and the command");
	free(meta);
	/* Everyone else: by their own name, and on every wrap there is. */
	{
		const struct {
			const char		*who;
			const char		*to;
			const struct alx_kxkey	*kx;
		} others[] = {
			{ "observer", w->p[P_OBS].fps, &w->p[P_OBS].kx },
			{ "unapproved runner", w->p[P_RUN2].fps,
			    &w->p[P_RUN2].kx },
			{ "runner invite", "runner",
			    &role_kx[ALX_ROLE_RUNNER] },
			{ "observer invite", "observer",
			    &role_kx[ALX_ROLE_OBSERVER] },
			{ "other sender", w->p[P_SND2].fps, &w->p[P_SND2].kx },
		};
		for (p = 0; p < (int)(sizeof(others) / sizeof(others[0]));
		    p++) {
			is_int(alx_item_job_key(&got, others[p].to,
			    others[p].kx, k), ALX_ERR_NOT_RECIPIENT,
			    "%s gets no wrap", others[p].who);
			opened = 0;
			for (i = 0; i < got.job.nwraps; i++)
				if (alx_item_job_key(&got, got.job.wraps[i].to,
				    others[p].kx, k) == ALX_OK)
					opened++;
			is_int(opened, 0, "%s opens none of the wraps",
			    others[p].who);
		}
	}
	/* The epoch key (every member has it) does not open a job. */
	alx_item_key_epoch(w->sec.epoch_key, got.id, e);
	is_int(alx_item_open_meta(&got, e, &meta, &len), ALX_ERR_KEY_COMMIT,
	    "the epoch key does not open a job's meta");
	/* Messages are readable by every member through its role's wrap. */
	is_int(make_text(&t, w, P_SND, 2, job.hash,
	    "{\"v\":1,\"text\":\"hi\"}"), ALX_OK, "a message");
	for (r = ALX_ROLE_SENDER; r < ALX_ROLE_COUNT; r++) {
		is_int(alx_manifest_epoch_key(&w->m2, alx_role_name(r),
		    &role_kx[r], e), ALX_OK, "%s opens the epoch key",
		    alx_role_name(r));
		alx_item_key_epoch(e, t.id, k);
		is_int(alx_item_open_meta(&t, k, &meta, &len), ALX_OK,
		    "%s reads the message", alx_role_name(r));
		free(meta);
	}
	for (r = 0; r < ALX_ROLE_COUNT; r++)
		alx_kx_wipe(&role_kx[r]);
	alx_kx_wipe(&okx);
	alx_item_free(&t);
	alx_item_free(&got);
	alx_item_free(&job);
}

/*
 * 5. Integrity and order.
 */

/* Flip every bit of buf in turn; count how many times check() passes. */
static int
flips_pass(uint8_t *buf, size_t len, size_t step,
    int (*check)(void *), void *arg)
{
	size_t	i;
	int	b, passed = 0;

	for (i = 0; i < len; i += step) {
		for (b = 0; b < 8; b++) {
			buf[i] ^= (uint8_t)(1 << b);
			if (check(arg) == ALX_OK)
				passed++;
			buf[i] ^= (uint8_t)(1 << b);
		}
	}
	return passed;
}

struct g5_ctx {
	struct alx_item	*it;
	uint8_t		*k;
	uint8_t		*ct;
	size_t		 ctlen;
	uint8_t		*pt;
	struct alx_wrap	*wrap;
	const struct alx_kxkey *kx;
	char		*raw;
	size_t		 rawlen;
	const uint8_t	*pk;
};

static int
g5_meta(void *a)
{
	struct g5_ctx	*c = a;
	char		*m;
	size_t		 n;
	int		 r;

	if ((r = alx_item_open_meta(c->it, c->k, &m, &n)) == ALX_OK)
		free(m);
	return r;
}

static int
g5_chunk_hash(void *a)
{
	struct g5_ctx	*c = a;

	return alx_chunk_open(c->it, c->k, 0, c->ct, c->ctlen, c->pt);
}

/* The author re-hashes the flipped chunk: the tag must still catch it. */
static int
g5_chunk_tag(void *a)
{
	struct g5_ctx	*c = a;

	alx_sha256(c->it->chunks[0], c->ct, c->ctlen);
	return alx_chunk_open(c->it, c->k, 0, c->ct, c->ctlen, c->pt);
}

static int
g5_wrap(void *a)
{
	struct g5_ctx	*c = a;
	uint8_t		 ctx[64], k[ALX_KEY_LEN];
	size_t		 n = alx_wrap_ctx_job(ctx, c->it->sid, c->it->id);

	return alx_wrap_open(c->wrap, c->kx, ctx, n, k);
}

static int
g5_object(void *a)
{
	struct g5_ctx	*c = a;
	struct alx_item	 got;
	int		 r;

	if ((r = alx_item_open(&got, c->raw, c->rawlen, c->it->sid,
	    c->pk)) == ALX_OK)
		alx_item_free(&got);
	return r;
}

static void
g5_flips(struct world *w)
{
	struct g5_ctx	 c;
	struct alx_item	 f, job;
	uint8_t		 k[ALX_KEY_LEN], kj[ALX_KEY_LEN], *pt, *ct;
	size_t		 size = 700, i;

	item_init(&f, &w->m2, &w->p[P_SND], "file", 1, NULL);
	alx_item_key_epoch(w->sec.epoch_key, f.id, k);
	alx_item_seal_meta(&f, k, "{\"v\":1,\"name\":\"a.txt\"}", 22);
	pt = malloc(size);
	ct = malloc(size + ALX_TAG_LEN);
	for (i = 0; i < size; i++)
		pt[i] = (uint8_t)i;
	f.size = (int64_t)size;
	f.nchunks = 1;
	f.chunks = calloc(1, ALX_HASH_LEN);
	alx_chunk_seal(&f, k, 0, pt, size, ct);
	alx_sha256(f.chunks[0], ct, size + ALX_TAG_LEN);
	alx_item_sign(&f, &w->p[P_SND].sk);
	memset(&c, 0, sizeof(c));
	c.it = &f;
	c.k = k;
	c.ct = ct;
	c.ctlen = size + ALX_TAG_LEN;
	c.pt = pt;
	is_int(g5_meta(&c), ALX_OK, "meta opens before any flip");
	is_int(flips_pass(f.meta_ct, f.meta_len, 1, g5_meta, &c), 0,
	    "every bit flip of the sealed meta is detected");
	is_int(g5_chunk_hash(&c), ALX_OK, "chunk opens before any flip");
	is_int(flips_pass(ct, c.ctlen, 1, g5_chunk_hash, &c), 0,
	    "every bit flip of a chunk is caught by the signed hash");
	is_int(flips_pass(ct, c.ctlen, 1, g5_chunk_tag, &c), 0,
	    "and by the tag when the envelope lists the flipped bytes");
	alx_sha256(f.chunks[0], ct, c.ctlen);
	c.raw = f.obj.raw;
	c.rawlen = f.obj.raw_len;
	c.pk = w->p[P_SND].sk.pk;
	is_int(g5_object(&c), ALX_OK, "envelope opens before any flip");
	is_int(flips_pass((uint8_t *)c.raw, c.rawlen, 1, g5_object, &c), 0,
	    "every bit flip of the signed envelope is detected");
	is_int(make_job(&job, w, 2, f.hash, kj), ALX_OK, "a job");
	c.it = &job;
	c.wrap = &job.job.wraps[2];
	c.kx = &w->p[P_RUN].kx;
	is_int(g5_wrap(&c), ALX_OK, "the runner's wrap opens");
	is_int(flips_pass(c.wrap->ct, sizeof(c.wrap->ct), 1, g5_wrap, &c), 0,
	    "every bit flip of a wrap's ciphertext is detected");
	is_int(flips_pass(c.wrap->epk, sizeof(c.wrap->epk), 1, g5_wrap, &c),
	    0, "every bit flip of a wrap's ephemeral key is detected");
	alx_item_free(&job);
	alx_item_free(&f);
	free(pt);
	free(ct);
}

static void
g5_order(struct world *w)
{
	struct alx_item	 it[4], got;
	uint8_t		 k[ALX_KEY_LEN], sid[ALX_SID_LEN];
	char		*raw, *m;
	size_t		 n;
	int		 i;

	for (i = 0; i < 4; i++)
		make_text(&it[i], w, P_SND, i + 1, i > 0 ? it[i - 1].hash :
		    NULL, "{\"v\":1,\"text\":\"x\"}");
	for (i = 0; i < 4; i++)
		is_int(alx_item_check_chain(&it[i], i, i > 0 ?
		    it[i - 1].hash : NULL), ALX_OK, "item %d in order", i + 1);
	is_int(alx_item_check_chain(&it[2], 1, it[0].hash), ALX_ERR_ORDER,
	    "item 2 dropped from the middle: bad_order");
	is_int(alx_item_check_chain(&it[1], 2, it[1].hash), ALX_ERR_REPLAYED,
	    "item 2 replayed: replayed");
	is_int(alx_item_check_chain(&it[0], 3, it[2].hash), ALX_ERR_REPLAYED,
	    "item 1 replayed late: replayed");
	is_int(alx_item_check_chain(&it[1], 0, NULL), ALX_ERR_ORDER,
	    "item 2 before item 1 (reordered): bad_order");
	is_int(alx_item_check_chain(&it[3], 2, it[1].hash), ALX_ERR_ORDER,
	    "item 4 after item 2 (reordered): bad_order");
	/* Moved to another session. */
	memcpy(sid, w->m2.sid, ALX_SID_LEN);
	sid[3] ^= 0x20;
	is_int(alx_item_open(&got, it[0].obj.raw, it[0].obj.raw_len, sid,
	    w->p[P_SND].sk.pk), ALX_ERR_WRONG_SESSION,
	    "moved to another session: wrong_session");
	/* Moved to another author: the body names the first one. */
	raw = resign(&it[0], "\"seq\":1", "\"seq\":1", &w->p[P_SND2].sk);
	is_int(alx_item_open(&got, raw, strlen(raw), w->m2.sid,
	    w->p[P_SND2].sk.pk), ALX_ERR_UNKNOWN_KEY,
	    "re-signed by another author: unknown_key");
	free(raw);
	/* The author itself changes the kind: the meta no longer opens. */
	raw = resign(&it[0], "\"kind\":\"text\"", "\"kind\":\"file\"",
	    &w->p[P_SND].sk);
	is_int(alx_item_open(&got, raw, strlen(raw), w->m2.sid,
	    w->p[P_SND].sk.pk), ALX_OK, "kind changed by its author opens");
	alx_item_key_epoch(w->sec.epoch_key, got.id, k);
	is_int(alx_item_open_meta(&got, k, &m, &n), ALX_ERR_DECRYPT,
	    "but its meta is bound to the kind: bad_ciphertext");
	alx_item_free(&got);
	free(raw);
	/* The meta of one item moved into another's envelope. */
	free(it[3].meta_ct);
	it[3].meta_ct = malloc(it[2].meta_len);
	memcpy(it[3].meta_ct, it[2].meta_ct, it[2].meta_len);
	it[3].meta_len = it[2].meta_len;
	alx_item_key_epoch(w->sec.epoch_key, it[3].id, k);
	is_int(alx_item_open_meta(&it[3], k, &m, &n), ALX_ERR_DECRYPT,
	    "a meta moved to another item: bad_ciphertext");
	alx_item_key_epoch(w->sec.epoch_key, it[2].id, k);
	is_int(alx_item_open_meta(&it[3], k, &m, &n), ALX_ERR_KEY_COMMIT,
	    "even with the key it was sealed under (the envelope commits to "
	    "its own): bad_key_commitment");
	for (i = 0; i < 4; i++)
		alx_item_free(&it[i]);
}

static void
g5_integrity(struct world *w)
{
	tap_diag("guarantee 5: integrity and order");
	g5_flips(w);
	g5_order(w);
}

/*
 * 6. Replays: request signatures, job deadlines, results bound to jobs.
 */
static void
g6_requests(struct world *w)
{
	struct alx_reqauth	 ra;
	const uint8_t		*pk = w->p[P_SND].sk.pk;
	uint8_t			 h[ALX_HASH_LEN], h2[ALX_HASH_LEN];
	char			 hdr[ALX_REQ_HDR_MAX];
	const char		*body = "{\"v\":1}";
	int64_t			 t = 1767225600;

	alx_sha256(h, body, strlen(body));
	alx_sha256(h2, "{\"v\":2}", 7);
	is_int(alx_req_sign(hdr, &w->p[P_SND].sk, "relay.example", "POST",
	    "/v1/sessions/x/items", body, strlen(body), t), ALX_OK,
	    "request signed");
	is_int(alx_req_parse(&ra, hdr), ALX_OK, "header parses");
	is_int(alx_req_verify(&ra, pk, "relay.example", "POST",
	    "/v1/sessions/x/items", h, t), ALX_OK, "request verifies");
	is_int(alx_req_verify(&ra, pk, "Relay.Example", "POST",
	    "/v1/sessions/x/items", h, t), ALX_OK, "host case is folded");
	is_int(alx_req_verify(&ra, pk, "other.example", "POST",
	    "/v1/sessions/x/items", h, t), ALX_ERR_BAD_SIGNATURE,
	    "another host: bad_signature");
	is_int(alx_req_verify(&ra, pk, "relay.example:8443", "POST",
	    "/v1/sessions/x/items", h, t), ALX_ERR_BAD_SIGNATURE,
	    "another port: bad_signature");
	is_int(alx_req_verify(&ra, pk, "relay.example", "PUT",
	    "/v1/sessions/x/items", h, t), ALX_ERR_BAD_SIGNATURE,
	    "another method: bad_signature");
	is_int(alx_req_verify(&ra, pk, "relay.example", "POST",
	    "/v1/sessions/y/items", h, t), ALX_ERR_BAD_SIGNATURE,
	    "another path: bad_signature");
	is_int(alx_req_verify(&ra, pk, "relay.example", "POST",
	    "/v1/sessions/x/items?a=1", h, t), ALX_ERR_BAD_SIGNATURE,
	    "another query: bad_signature");
	is_int(alx_req_verify(&ra, pk, "relay.example", "POST",
	    "/v1/sessions/x/items", h2, t), ALX_ERR_BAD_SIGNATURE,
	    "another body: bad_signature");
	ra.time++;
	is_int(alx_req_verify(&ra, pk, "relay.example", "POST",
	    "/v1/sessions/x/items", h, t), ALX_ERR_BAD_SIGNATURE,
	    "another time: bad_signature");
	ra.time--;
	is_int(alx_req_verify(&ra, w->p[P_SND2].sk.pk, "relay.example",
	    "POST", "/v1/sessions/x/items", h, t), ALX_ERR_UNKNOWN_KEY,
	    "another participant's key: unknown_key");
	is_int(alx_req_verify(&ra, pk, "relay.example", "POST",
	    "/v1/sessions/x/items", h, t + ALX_CLOCK_SKEW), ALX_OK,
	    "server clock 300 s ahead: accepted");
	is_int(alx_req_verify(&ra, pk, "relay.example", "POST",
	    "/v1/sessions/x/items", h, t - ALX_CLOCK_SKEW), ALX_OK,
	    "server clock 300 s behind: accepted");
	is_int(alx_req_verify(&ra, pk, "relay.example", "POST",
	    "/v1/sessions/x/items", h, t + ALX_CLOCK_SKEW + 1),
	    ALX_ERR_CLOCK_SKEW, "server clock 301 s ahead: clock_skew");
	is_int(alx_req_verify(&ra, pk, "relay.example", "POST",
	    "/v1/sessions/x/items", h, t - ALX_CLOCK_SKEW - 1),
	    ALX_ERR_CLOCK_SKEW, "server clock 301 s behind: clock_skew");
}

static void
g6_jobs(struct world *w)
{
	struct alx_item	 job, got, res;
	uint8_t		 kj[ALX_KEY_LEN], k[ALX_KEY_LEN];
	char		*raw, meta[256], *m, *b64;
	size_t		 n;

	is_int(make_job(&job, w, 1, NULL, kj), ALX_OK, "a job");
	is_int(alx_item_open(&got, job.obj.raw, job.obj.raw_len, w->m2.sid,
	    w->p[P_SND].sk.pk), ALX_OK, "job opens");
	is_int(got.job.not_after, 1700003600, "not_after is carried");
	ok(!got.job.is_label && strcmp(got.job.name, "gpu-box") == 0,
	    "the target is carried");
	alx_item_free(&got);
	raw = resign(&job, "\"not_after\":1700003600", "\"not_after\":"
	    "1800003600", &w->p[P_OBS].sk);
	is_int(alx_item_open(&got, raw, strlen(raw), w->m2.sid,
	    w->p[P_SND].sk.pk), ALX_ERR_UNKNOWN_KEY,
	    "a relay cannot extend not_after (signed)");
	free(raw);
	raw = resign(&job, "\"runner\":\"gpu-box\"", "\"runner\":\"other-box\"",
	    &w->p[P_SND].sk);
	is_int(alx_item_open(&got, raw, strlen(raw), w->m2.sid,
	    w->p[P_SND].sk.pk), ALX_OK, "a job re-targeted by its author");
	ok(memcmp(got.hash, job.hash, ALX_HASH_LEN) != 0,
	    "is another job: its hash differs");
	alx_item_free(&got);
	free(raw);
	/* A result binds the job's hash in its sealed meta. */
	item_init(&res, &w->m2, &w->p[P_RUN], "result", 1, NULL);
	res.has_reply_to = 1;
	memcpy(res.reply_to, job.id, ALX_ID_LEN);
	b64 = alx_b64_encode_alloc(job.hash, ALX_HASH_LEN);
	snprintf(meta, sizeof(meta), "{\"v\":1,\"job_hash\":\"%s\","
	    "\"status\":\"completed\",\"exit_code\":0}", b64);
	alx_item_key_epoch(w->sec.epoch_key, res.id, k);
	alx_item_seal_meta(&res, k, meta, strlen(meta));
	is_int(alx_item_sign(&res, &w->p[P_RUN].sk), ALX_OK, "a result");
	is_int(alx_item_open_meta(&res, k, &m, &n), ALX_OK, "result meta");
	ok(strstr(m, b64) != NULL, "the result names the job's hash");
	free(m);
	free(b64);
	alx_item_free(&res);
	is_int(alx_item_check_expiry(&job, 1700003600), ALX_OK,
	    "a job at its not_after is still valid");
	is_int(alx_item_check_expiry(&job, 1700003601), ALX_ERR_EXPIRED,
	    "a job one second past not_after: expired");
	alx_item_free(&job);
}

static void
g6_replays(struct world *w)
{
	tap_diag("guarantee 6: replays (requests, job deadlines, results)");
	g6_requests(w);
	g6_jobs(w);
}

/*
 * 7. Revocation and rotation.
 */
static void
g7_revocation(struct world *w)
{
	struct alx_manifest	 m3, m3o, m4, m4o;
	struct alx_member	 mem[3];
	struct alx_kxkey	 old_kx, new_kx;
	struct alx_cert		 c;
	struct party		 late;
	uint8_t			 newseed[ALX_SEED_LEN], ek[ALX_KEY_LEN];
	uint8_t			 k[ALX_KEY_LEN];
	int			 i;

	tap_diag("guarantee 7: revocation, un-approval, rotation, new epochs");
	for (i = 0; i < 3; i++) {
		int p = i == 0 ? P_SND : i == 1 ? P_SND2 : P_OBS;
		mem[i].role = w->p[p].role;
		memcpy(mem[i].fp, w->p[p].cert.fp, ALX_FP_LEN);
		memcpy(mem[i].kx, w->p[p].kx.pk, ALX_KX_PK_LEN);
	}
	/* v3: revoke the sender, rotate its role, new epoch. */
	alx_manifest_next(&m3, &w->m2);
	is_int(alx_manifest_revoke(&m3, w->p[P_SND].cert.fp), ALX_OK,
	    "revoke build-agent");
	is_int(alx_manifest_rotate_role(&m3, ALX_ROLE_SENDER, newseed, mem, 3),
	    ALX_OK, "rotate the sender role");
	is_int(alx_manifest_new_epoch(&m3, ek, &w->priv, mem, 3), ALX_OK,
	    "new epoch");
	is_int(alx_manifest_finish(&m3, &w->owner, ek, &w->priv), ALX_OK,
	    "v3 signed");
	is_int(alx_manifest_open(&m3o, m3.obj.raw, m3.obj.raw_len, w->m1.sid,
	    &w->m2), ALX_OK, "v3 opens on top of v2");
	is_int(alx_cert_valid(&w->p[P_SND].cert, &m3o), ALX_ERR_REVOKED,
	    "the revoked participant's certificate: revoked");
	is_int(alx_cert_valid(&w->p[P_SND2].cert, &m3o), ALX_OK,
	    "a kept sender carries on");
	is_int(alx_cert_valid(&w->p[P_OBS].cert, &m3o), ALX_OK,
	    "other roles carry on");
	party_make(&late, &w->m1, ALX_ROLE_SENDER, w->sec.seed[ALX_ROLE_SENDER],
	    "late");
	is_int(alx_cert_open(&c, late.cert.obj.raw, late.cert.obj.raw_len,
	    &m3o), ALX_ERR_REVOKED, "the old sender invite is refused");
	party_free(&late);
	party_make(&late, &m3o, ALX_ROLE_SENDER, newseed, "new");
	is_int(alx_cert_open(&c, late.cert.obj.raw, late.cert.obj.raw_len,
	    &m3o), ALX_OK, "the new sender invite works");
	alx_cert_free(&c);
	party_free(&late);
	/* The new epoch: the revoked cannot read it. */
	is_int(alx_manifest_epoch_key(&m3o, w->p[P_SND].fps, &w->p[P_SND].kx,
	    k), ALX_ERR_NOT_RECIPIENT, "no wrap for the revoked participant");
	alx_seed_keys(w->sec.seed[ALX_ROLE_SENDER], NULL, &old_kx);
	ok(alx_manifest_epoch_key(&m3o, "sender", &old_kx, k) != ALX_OK,
	    "the old sender seed cannot open the new epoch");
	for (i = 0; i < (int)m3o.nwraps; i++)
		if (alx_manifest_epoch_key(&m3o, m3o.wraps[i].to,
		    &w->p[P_SND].kx, k) == ALX_OK ||
		    alx_manifest_epoch_key(&m3o, m3o.wraps[i].to, &old_kx,
		    k) == ALX_OK)
			break;
	is_int(i, (int)m3o.nwraps, "no wrap of the new epoch opens with "
	    "anything the revoked participant holds");
	is_int(alx_manifest_epoch_key(&m3o, w->p[P_SND2].fps,
	    &w->p[P_SND2].kx, k), ALX_OK,
	    "the kept sender reads the new epoch");
	ok(memcmp(k, ek, ALX_KEY_LEN) == 0, "with its own wrap");
	alx_seed_keys(newseed, NULL, &new_kx);
	is_int(alx_manifest_epoch_key(&m3o, "sender", &new_kx, k), ALX_OK,
	    "the new sender invite reads the new epoch");
	alx_kx_wipe(&old_kx);
	alx_kx_wipe(&new_kx);
	/* v4: un-approve the runner. */
	ok(alx_manifest_find_approved(&m3o, w->p[P_RUN].cert.fp) != NULL,
	    "the runner is approved in v3");
	alx_manifest_next(&m4, &m3o);
	is_int(alx_manifest_unapprove(&m4, w->p[P_RUN].cert.fp), ALX_OK,
	    "un-approve the runner");
	is_int(alx_manifest_finish(&m4, &w->owner, ek, &w->priv), ALX_OK,
	    "v4 signed");
	is_int(alx_manifest_open(&m4o, m4.obj.raw, m4.obj.raw_len, w->m1.sid,
	    &m3o), ALX_OK, "v4 opens");
	ok(alx_manifest_find_approved(&m4o, w->p[P_RUN].cert.fp) == NULL,
	    "the runner is no longer approved");
	alx_manifest_free(&m4o);
	is_int(alx_manifest_open(&m4o, m4.obj.raw, m4.obj.raw_len, w->m1.sid,
	    &w->m2), ALX_ERR_ORDER, "v4 cannot skip v3");
	/*
	 * Revoking an observer the way that holds: the revoked one still
	 * holds the observer invite, so its role is rotated too.
	 */
	alx_manifest_free(&m4);
	alx_manifest_next(&m4, &w->m2);
	mem[0].role = ALX_ROLE_OBSERVER;
	memcpy(mem[0].fp, w->p[P_OBS].cert.fp, ALX_FP_LEN);
	memcpy(mem[0].kx, w->p[P_OBS].kx.pk, ALX_KX_PK_LEN);
	is_int(alx_manifest_revoke_member(&m4, &mem[0], mem, 3, &w->priv,
	    newseed, ek), ALX_OK, "revoke the observer with its role");
	is_int(alx_manifest_finish(&m4, &w->owner, ek, &w->priv), ALX_OK,
	    "signed");
	alx_seed_keys(w->sec.seed[ALX_ROLE_OBSERVER], NULL, &old_kx);
	for (i = 0; i < (int)m4.nwraps; i++)
		if (alx_manifest_epoch_key(&m4, m4.wraps[i].to, &old_kx,
		    k) == ALX_OK || alx_manifest_epoch_key(&m4,
		    m4.wraps[i].to, &w->p[P_OBS].kx, k) == ALX_OK)
			break;
	is_int(i, (int)m4.nwraps, "the revoked observer opens no wrap of the "
	    "new epoch, with the invite or its own key");
	is_int(alx_cert_valid(&w->p[P_OBS].cert, &m4), ALX_ERR_REVOKED,
	    "and its certificate is revoked");
	alx_seed_keys(newseed, NULL, &new_kx);
	is_int(alx_manifest_epoch_key(&m4, "observer", &new_kx, k), ALX_OK,
	    "the new observer invite reads the new epoch");
	alx_kx_wipe(&new_kx);
	is_int(alx_manifest_revoke_member(&m4, &(struct alx_member){ .role =
	    ALX_ROLE_OWNER }, mem, 3, &w->priv, newseed, ek),
	    ALX_ERR_WRONG_ROLE, "the owner cannot be revoked");
	alx_kx_wipe(&old_kx);
	alx_manifest_free(&m4);
	alx_manifest_free(&m4o);
	alx_manifest_free(&m3);
	alx_manifest_free(&m3o);
}

/*
 * 8. Large items: 100 MiB with bounded memory.
 */

static long
max_rss_kb(void)
{
	struct rusage	ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void
fill(uint8_t *p, size_t len, uint64_t off)
{
	size_t	i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)((off + i) * 7 + 3);
}

static void
g8_large(struct world *w)
{
	struct alx_sha256_ctx	 hin, hout;
	struct alx_item		 it, got;
	uint8_t			 k[ALX_KEY_LEN], *pt, *ct, *out;
	uint8_t			 d1[ALX_HASH_LEN], d2[ALX_HASH_LEN];
	size_t			 i, n, bad = 0, untouched = 0;
	long			 before, after;
	char			*raw;

	tap_diag("guarantee 8: a 100 MiB item is sealed and opened chunk by "
	    "chunk with bounded memory");
	pt = malloc(ALX_CHUNK_SIZE);
	ct = malloc(ALX_CHUNK_CT_MAX);
	out = malloc(ALX_CHUNK_SIZE);
	memset(pt, 1, ALX_CHUNK_SIZE);
	memset(ct, 1, ALX_CHUNK_CT_MAX);
	memset(out, 1, ALX_CHUNK_SIZE);
	before = max_rss_kb();
	item_init(&it, &w->m2, &w->p[P_SND], "file", 1, NULL);
	alx_item_key_epoch(w->sec.epoch_key, it.id, k);
	alx_item_seal_meta(&it, k, "{\"v\":1,\"name\":\"big.bin\"}", 24);
	it.size = ALX_ITEM_MAX_SIZE;
	n = alx_chunk_count(it.size);
	it.nchunks = n;
	it.chunks = calloc(n, ALX_HASH_LEN);
	alx_sha256_init(&hin);
	for (i = 0; i < n; i++) {
		fill(pt, ALX_CHUNK_SIZE, (uint64_t)i * ALX_CHUNK_SIZE);
		alx_sha256_update(&hin, pt, ALX_CHUNK_SIZE);
		if (alx_chunk_seal(&it, k, i, pt, ALX_CHUNK_SIZE, ct) != ALX_OK)
			bad++;
		alx_sha256(it.chunks[i], ct, ALX_CHUNK_CT_MAX);
	}
	alx_sha256_final(&hin, d1);
	is_int(bad, 0, "100 chunks sealed");
	is_int(alx_item_sign(&it, &w->p[P_SND].sk), ALX_OK,
	    "the envelope lists 100 chunk hashes");
	is_int(alx_item_open(&got, it.obj.raw, it.obj.raw_len, w->m2.sid,
	    w->p[P_SND].sk.pk), ALX_OK, "the envelope opens");
	/* The reader: one chunk in memory at a time. */
	alx_sha256_init(&hout);
	for (i = 0; i < n; i++) {
		fill(pt, ALX_CHUNK_SIZE, (uint64_t)i * ALX_CHUNK_SIZE);
		alx_chunk_seal(&it, k, i, pt, ALX_CHUNK_SIZE, ct);
		memset(out, 0, ALX_CHUNK_SIZE);
		if (alx_chunk_open(&got, k, i, ct, ALX_CHUNK_CT_MAX, out) !=
		    ALX_OK)
			bad++;
		alx_sha256_update(&hout, out, ALX_CHUNK_SIZE);
	}
	alx_sha256_final(&hout, d2);
	after = max_rss_kb();
	is_int(bad, 0, "100 chunks opened one at a time");
	ok(memcmp(d1, d2, ALX_HASH_LEN) == 0, "the 100 MiB read back equal");
	ok(after - before < 16 * 1024, "max RSS grew by %ld KiB (< 16 MiB) "
	    "while 100 MiB went through", after - before);
	/* A flipped chunk whose hash was listed: no plaintext released. */
	ct[100] ^= 1;
	alx_sha256(got.chunks[5], ct, ALX_CHUNK_CT_MAX);
	memset(out, 0xa5, ALX_CHUNK_SIZE);
	is_int(alx_chunk_open(&got, k, 5, ct, ALX_CHUNK_CT_MAX, out),
	    ALX_ERR_DECRYPT, "a chunk that fails its tag: bad_ciphertext");
	for (i = 0; i < ALX_CHUNK_SIZE; i++)
		if (out[i] == 0xa5 || out[i] == 0)
			untouched++;
	is_int(untouched, ALX_CHUNK_SIZE, "and no byte of it was released "
	    "(the output is left or zeroed)");
	alx_item_free(&got);
	/* The envelope cut to 99 chunks by someone else: refused. */
	raw = resign(&it, "\"size\":104857600", "\"size\":103809024",
	    &w->p[P_OBS].sk);
	is_int(alx_item_open(&got, raw, strlen(raw), w->m2.sid,
	    w->p[P_SND].sk.pk), ALX_ERR_UNKNOWN_KEY,
	    "a relay cannot re-sign a shorter envelope");
	free(raw);
	raw = resign(&it, "\"size\":104857600", "\"size\":103809024",
	    &w->p[P_SND].sk);
	is_int(alx_item_open(&got, raw, strlen(raw), w->m2.sid,
	    w->p[P_SND].sk.pk), ALX_ERR_TRUNCATED,
	    "a size of 99 chunks listing 100: truncated");
	free(raw);
	/* The final chunk missing: chunk 98 is not final, so it cannot end
	 * a 99-chunk item even if its author lists it so. */
	{
		struct alx_item cut = it;

		cut.obj.raw = NULL;
		cut.size = 99 * (int64_t)ALX_CHUNK_SIZE;
		cut.nchunks = 99;
		fill(pt, ALX_CHUNK_SIZE, (uint64_t)98 * ALX_CHUNK_SIZE);
		alx_chunk_seal(&it, k, 98, pt, ALX_CHUNK_SIZE, ct);
		is_int(alx_chunk_open(&cut, k, 98, ct, ALX_CHUNK_CT_MAX, out),
		    ALX_ERR_DECRYPT, "a non-final chunk as the last one: "
		    "bad_ciphertext");
		is_int(alx_chunk_open(&it, k, 100, ct, ALX_CHUNK_CT_MAX, out),
		    ALX_ERR_NOT_FOUND, "a chunk past the list: not_found");
		is_int(alx_chunk_open(&it, k, 99, ct, ALX_CHUNK_CT_MAX - 1,
		    out), ALX_ERR_TRUNCATED, "a short final chunk: truncated");
	}
	alx_item_free(&it);
	free(pt);
	free(ct);
	free(out);
}

/* The session's bounds: item_max, and the manifest an item acts on. */
static void
g8_limits(struct world *w)
{
	struct alx_manifest	 small;
	struct alx_item		 it;
	uint8_t			 k[ALX_KEY_LEN], *pt, *ct;
	size_t			 size = 2000;

	item_init(&it, &w->m2, &w->p[P_SND], "file", 1, NULL);
	alx_item_key_epoch(w->sec.epoch_key, it.id, k);
	alx_item_seal_meta(&it, k, "{\"v\":1}", 7);
	pt = calloc(1, size);
	ct = malloc(size + ALX_TAG_LEN);
	it.size = (int64_t)size;
	it.nchunks = 1;
	it.chunks = calloc(1, ALX_HASH_LEN);
	alx_chunk_seal(&it, k, 0, pt, size, ct);
	alx_sha256(it.chunks[0], ct, size + ALX_TAG_LEN);
	alx_item_sign(&it, &w->p[P_SND].sk);
	is_int(alx_item_check_manifest(&it, &w->m2), ALX_OK,
	    "an item within item_max");
	alx_manifest_copy(&small, &w->m2);
	small.item_max = (int64_t)size - 1;
	is_int(alx_item_check_manifest(&it, &small), ALX_ERR_TOO_LARGE,
	    "one byte over item_max: too_large");
	is_int(alx_item_check_manifest(&it, &w->m1), ALX_ERR_STALE_MANIFEST,
	    "an item for v2 read against v1: stale_manifest");
	alx_manifest_free(&small);
	alx_item_free(&it);
	free(pt);
	free(ct);
}

/*
 * 9. Transfer codes: CPace.
 */

struct cpace_run {
	uint8_t	ya[ALX_CPACE_MSG_MAX], yb[ALX_CPACE_MSG_MAX];
	size_t	la, lb;
	uint8_t	isk_a[ALX_CPACE_ISK_LEN], isk_b[ALX_CPACE_ISK_LEN];
	int	ra, rb;
};

#define CP_CI	"airlox/v1/code\0relay.example"
#define CP_ADA	"airlox/v1/claimant"
#define CP_ADB	"airlox/v1/creator"

/* One run: the claimant with code_a, the creator with code_b. */
static void
cpace_run(struct cpace_run *x, const char *code_a, const char *code_b,
    const char *sid_a, const char *sid_b)
{
	struct alx_cpace	a, b;

	memset(x, 0, sizeof(*x));
	x->la = sizeof(x->ya);
	x->lb = sizeof(x->yb);
	alx_cpace_start(&a, ALX_CPACE_INITIATOR, (const uint8_t *)code_a,
	    strlen(code_a), (const uint8_t *)CP_CI, sizeof(CP_CI) - 1,
	    (const uint8_t *)sid_a, strlen(sid_a), (const uint8_t *)CP_ADA,
	    strlen(CP_ADA), x->ya, &x->la);
	alx_cpace_start(&b, ALX_CPACE_RESPONDER, (const uint8_t *)code_b,
	    strlen(code_b), (const uint8_t *)CP_CI, sizeof(CP_CI) - 1,
	    (const uint8_t *)sid_b, strlen(sid_b), (const uint8_t *)CP_ADB,
	    strlen(CP_ADB), x->yb, &x->lb);
	x->ra = alx_cpace_finish(&a, x->yb, x->lb, x->isk_a);
	x->rb = alx_cpace_finish(&b, x->ya, x->la, x->isk_b);
	alx_cpace_wipe(&a);
	alx_cpace_wipe(&b);
}

/* Confirmation as each side runs it: 0 when both tags check. */
static int
cpace_confirm(const struct cpace_run *x)
{
	uint8_t	ta[32], ea[32], tb[32], eb[32], ka[32], kb[32];
	int	r;

	alx_cpace_confirm(x->isk_a, ALX_CPACE_INITIATOR, ta, ea, ka);
	alx_cpace_confirm(x->isk_b, ALX_CPACE_RESPONDER, tb, eb, kb);
	if ((r = alx_cpace_check_tag(eb, ta, sizeof(ta))) == ALX_OK)
		r = alx_cpace_check_tag(ea, tb, sizeof(tb));
	return r;
}

static void
g9_cpace(void)
{
	static const char *const guesses[] = { "7-guitar-orbit",
	    "7-guitar-orbits", "7-orbit-guitar", "8-guitar-orbit" };
	struct cpace_run	 x, y;
	struct alx_cpace	 att;
	const uint8_t		*pt, *ad;
	uint8_t			 isk[ALX_CPACE_ISK_LEN];
	uint8_t			 msg[ALX_CPACE_MSG_MAX];
	uint8_t			 t[32], e[32], key[32];
	uint8_t			 tb[32], eb[32], kb[32];
	size_t			 adlen, ml, i;
	int			 valid, match;

	tap_diag("guarantee 9: transfer codes by CPace, no offline guessing");
	cpace_run(&x, "7-guitar-orbit", "7-guitar-orbit", "sid-1", "sid-1");
	ok(x.ra == ALX_OK && x.rb == ALX_OK, "a run with the right code");
	ok(memcmp(x.isk_a, x.isk_b, sizeof(x.isk_a)) == 0, "equal ISKs");
	is_int(cpace_confirm(&x), ALX_OK, "confirmation passes");
	cpace_run(&y, "7-guitar-orbit", "7-guitar-orbix", "sid-1", "sid-1");
	ok(memcmp(y.isk_a, y.isk_b, sizeof(y.isk_a)) != 0,
	    "a wrong code gives another ISK");
	is_int(cpace_confirm(&y), ALX_ERR_PAKE, "confirmation fails: "
	    "pake_failed");
	cpace_run(&y, "7-guitar-orbit", "7-guitar-orbit", "sid-1", "sid-2");
	is_int(cpace_confirm(&y), ALX_ERR_PAKE, "another session: fails");
	/* The roles are bound: two claimants do not agree. */
	{
		struct alx_cpace	a, b;
		uint8_t			ma[ALX_CPACE_MSG_MAX];
		uint8_t			mb[ALX_CPACE_MSG_MAX];
		uint8_t			ia[64], ib[64];
		size_t			na = sizeof(ma), nb = sizeof(mb);

		alx_cpace_start(&a, ALX_CPACE_INITIATOR, (const uint8_t *)
		    "7-guitar-orbit", 14, (const uint8_t *)CP_CI,
		    sizeof(CP_CI) - 1, (const uint8_t *)"s", 1,
		    (const uint8_t *)CP_ADA, strlen(CP_ADA), ma, &na);
		alx_cpace_start(&b, ALX_CPACE_INITIATOR, (const uint8_t *)
		    "7-guitar-orbit", 14, (const uint8_t *)CP_CI,
		    sizeof(CP_CI) - 1, (const uint8_t *)"s", 1,
		    (const uint8_t *)CP_ADA, strlen(CP_ADA), mb, &nb);
		alx_cpace_finish(&a, mb, nb, ia);
		alx_cpace_finish(&b, ma, na, ib);
		ok(memcmp(ia, ib, sizeof(ia)) != 0,
		    "two parties in the same role do not agree");
		alx_cpace_wipe(&a);
		alx_cpace_wipe(&b);
	}
	/*
	 * Offline: an attacker holding the transcript of a successful run
	 * (Ya, Yb and the creator's tag) and a list of candidate codes.
	 * The messages are valid points whatever the code, so they exclude
	 * no candidate; and recomputing a candidate's ISK needs a secret
	 * scalar the transcript does not hold: running CPace again with any
	 * candidate, the right one included, against Yb matches the
	 * creator's tag for none.
	 */
	valid = alx_cpace_msg_parse(x.ya, x.la, &pt, &ad, &adlen) == ALX_OK &&
	    crypto_core_ristretto255_is_valid_point(pt) &&
	    alx_cpace_msg_parse(x.yb, x.lb, &pt, &ad, &adlen) == ALX_OK &&
	    crypto_core_ristretto255_is_valid_point(pt);
	ok(valid, "Ya and Yb are valid ristretto255 points");
	alx_cpace_confirm(x.isk_b, ALX_CPACE_RESPONDER, tb, eb, kb);
	match = 0;
	for (i = 0; i < sizeof(guesses) / sizeof(guesses[0]); i++) {
		ml = sizeof(msg);
		alx_cpace_start(&att, ALX_CPACE_INITIATOR,
		    (const uint8_t *)guesses[i], strlen(guesses[i]),
		    (const uint8_t *)CP_CI, sizeof(CP_CI) - 1,
		    (const uint8_t *)"sid-1", 5, (const uint8_t *)CP_ADA,
		    strlen(CP_ADA), msg, &ml);
		if (alx_cpace_finish(&att, x.yb, x.lb, isk) == ALX_OK) {
			alx_cpace_confirm(isk, ALX_CPACE_INITIATOR, t, e, key);
			if (alx_cpace_check_tag(e, tb, sizeof(tb)) == ALX_OK ||
			    memcmp(isk, x.isk_b, sizeof(isk)) == 0)
				match++;
		}
		alx_cpace_wipe(&att);
	}
	is_int(match, 0, "no candidate code (the right one included) can be "
	    "tested against a recorded transcript");
	/* The messages of runs with other codes look alike: valid points. */
	valid = 1;
	for (i = 0; i < sizeof(guesses) / sizeof(guesses[0]); i++) {
		cpace_run(&y, guesses[i], guesses[i], "sid-1", "sid-1");
		if (alx_cpace_msg_parse(y.ya, y.la, &pt, &ad, &adlen) !=
		    ALX_OK || !crypto_core_ristretto255_is_valid_point(pt) ||
		    y.la != x.la || y.lb != x.lb)
			valid = 0;
	}
	ok(valid, "messages for every code are valid points of the same "
	    "length");
	/* A malformed peer message is refused. */
	{
		struct alx_cpace	a;
		uint8_t			m[ALX_CPACE_MSG_MAX], bad[40];
		size_t			n = sizeof(m);

		alx_cpace_start(&a, ALX_CPACE_INITIATOR,
		    (const uint8_t *)"1-a-b", 5, NULL, 0, NULL, 0, NULL, 0, m,
		    &n);
		memset(bad, 0, sizeof(bad));
		bad[0] = 32;
		is_int(alx_cpace_finish(&a, bad, 34, isk), ALX_ERR_PAKE,
		    "the identity point as peer message: pake_failed");
		alx_cpace_wipe(&a);
	}
}

/*
 * 10. Versioned and extensible.
 */
static void
g10_versions(struct world *w)
{
	static const char	 lim_unknown[] = "{\"v\":1,\"types\":[],"
	    "\"job_limits\":{\"kinds\":[\"shell\"],\"timeout_s\":60,"
	    "\"memory_mb\":64,\"network\":{\"mode\":\"none\"},"
	    "\"return_out\":true,\"gpus\":1}}";
	static const char	 lim_allow[] = "{\"v\":1,\"types\":[],"
	    "\"job_limits\":{\"kinds\":[\"shell\"],\"timeout_s\":60,"
	    "\"memory_mb\":64,\"network\":{\"mode\":\"allow\",\"allow\":"
	    "[\"pypi.org\"]},\"return_out\":true}}";
	struct alx_private	 p;
	struct alx_item		 t, got;
	struct alx_cert		 c;
	struct alx_signed	 s;
	char			*raw, *body;

	tap_diag("guarantee 10: versions and unknown members");
	make_text(&t, w, P_SND, 1, NULL, "{\"v\":1,\"text\":\"v\"}");
	raw = resign(&t, "{\"v\":2,", "{\"v\":3,", &w->p[P_SND].sk);
	is_int(alx_item_open(&got, raw, strlen(raw), w->m2.sid,
	    w->p[P_SND].sk.pk), ALX_ERR_VERSION,
	    "an item body of version 3: unsupported_version");
	free(raw);
	/* A protocol-1 item (no key commitment) is not read as one. */
	raw = resign(&t, "{\"v\":2,", "{\"v\":1,", &w->p[P_SND].sk);
	is_int(alx_item_open(&got, raw, strlen(raw), w->m2.sid,
	    w->p[P_SND].sk.pk), ALX_ERR_VERSION,
	    "an item body of version 1: unsupported_version");
	free(raw);
	raw = resign(&t, "\"seq\":1", "\"seq\":1,\"later\":[1,{\"x\":null}]",
	    &w->p[P_SND].sk);
	is_int(alx_item_open(&got, raw, strlen(raw), w->m2.sid,
	    w->p[P_SND].sk.pk), ALX_OK, "unknown item members are ignored");
	alx_item_free(&got);
	free(raw);
	raw = strdup(t.obj.raw);
	raw[5] = '2';		/* {"v":1,... */
	is_int(alx_signed_parse(&s, raw, strlen(raw)), ALX_ERR_VERSION,
	    "a signed object of version 2: unsupported_version");
	free(raw);
	body = strdup((const char *)w->p[P_OBS].cert.obj.body);
	{
		struct alx_signkey	rk;
		char			*nb;
		size_t			 n = strlen(body);

		nb = malloc(n + 32);
		snprintf(nb, n + 32, "{\"v\":1,\"motto\":\"hi\",%s", body + 7);
		alx_seed_keys(w->sec.seed[ALX_ROLE_OBSERVER], &rk, NULL);
		alx_signed_seal(&s, "cert", nb, strlen(nb), &rk);
		is_int(alx_cert_open(&c, s.raw, s.raw_len, &w->m1), ALX_OK,
		    "unknown certificate members are ignored");
		alx_cert_free(&c);
		alx_signed_free(&s);
		nb[5] = '3';
		alx_signed_seal(&s, "cert", nb, strlen(nb), &rk);
		is_int(alx_cert_open(&c, s.raw, s.raw_len, &w->m1),
		    ALX_ERR_VERSION, "a certificate of version 3: "
		    "unsupported_version");
		alx_signed_free(&s);
		alx_sign_wipe(&rk);
		free(nb);
	}
	free(body);
	is_int(alx_private_decode(&p, lim_unknown, strlen(lim_unknown)),
	    ALX_ERR_NOT_ALLOWED,
	    "an unknown job_limits member is refused: not_allowed");
	is_int(alx_private_decode(&p, lim_allow, strlen(lim_allow)), ALX_OK,
	    "network is an object that grows: allow with a list");
	ok(p.limits.net_mode == ALX_NET_ALLOW && p.limits.net_nallow == 1,
	    "the allow list is read");
	alx_private_free(&p);
	alx_item_free(&t);
}

/*
 * 11. One vocabulary.
 */
static void
g11_vocabulary(void)
{
	static const char *const statuses[] = { "completed", "timeout",
	    "killed_oom", "cancelled", "refused", "interrupted", "lost" };
	static const char *const reasons[] = { "not_signed", "not_allowed",
	    "runner_busy", "expired", "replayed", "revoked", "not_recipient",
	    "unsupported_version", "bad_path", "too_large", "tree_mismatch" };
	const char	*name, *msg, *c;
	int		 i, k, st, bad = 0, bad0 = 0, n = 0;

	tap_diag("guarantee 11: statuses and errors are defined once");
	for (i = 0; i < ALX_JOB_STATUS_COUNT; i++) {
		name = alx_job_status_name(i);
		ok(name != NULL && alx_job_status_parse(name, &st) == ALX_OK &&
		    st == i, "status %d (%s) round-trips", i,
		    name != NULL ? name : "(none)");
	}
	/* The statuses protocol.md lists are among them, in that order. */
	for (i = 0; i < (int)(sizeof(statuses) / sizeof(statuses[0])); i++)
		ok(alx_job_status_parse(statuses[i], &st) == ALX_OK && st == i,
		    "%s is status %d", statuses[i], i);
	ok(alx_job_status_name(ALX_JOB_STATUS_COUNT) == NULL &&
	    alx_job_status_parse("done", &st) != ALX_OK,
	    "an unknown status is refused");
	for (i = 0; i < (int)(sizeof(reasons) / sizeof(reasons[0])); i++)
		ok(alx_refusal_valid(reasons[i]) == ALX_OK &&
		    alx_errcode(reasons[i]) != 0, "refusal reason %s is an "
		    "error name", reasons[i]);
	ok(alx_refusal_valid("because") != ALX_OK, "an unknown reason is "
	    "refused");
	/* The runner refuses by code; the one table names it. */
	for (i = 0; i < (int)(sizeof(reasons) / sizeof(reasons[0])); i++)
		ok(alx_refusal_name(alx_errcode(reasons[i])) != NULL &&
		    strcmp(alx_refusal_name(alx_errcode(reasons[i])),
		    reasons[i]) == 0, "code %d is refusal reason %s",
		    alx_errcode(reasons[i]), reasons[i]);
	ok(alx_refusal_name(ALX_ERR_BAD_SIGNATURE) == NULL &&
	    alx_refusal_name(ALX_OK) == NULL,
	    "a code that is no refusal reason has no name as one");
	/* Every error code has one stable snake_case name and a message. */
	for (i = -1; i >= -200; i--) {
		name = alx_errname(i);
		if (strcmp(name, "unknown_error") == 0)
			break;
		n++;
		msg = alx_strerror(i);
		for (c = name; *c != '\0'; c++)
			if (!((*c >= 'a' && *c <= 'z') ||
			    (*c >= '0' && *c <= '9') || *c == '_'))
				bad++;
		if (alx_errcode(name) != i || msg == NULL || *msg == '\0')
			bad++;
		for (k = -1; k > i; k--)
			if (strcmp(alx_errname(k), name) == 0)
				bad++;
		if (bad > 0 && bad0 == 0)
			tap_diag("first bad error name: %d %s", i, name);
		bad0 = bad;
	}
	ok(n >= 44, "%d error codes, numbered without gaps", n);
	is_int(bad, 0, "each has a unique snake_case name that maps back, and "
	    "a message");
	is_str(alx_errname(0), "ok", "0 is ok");
	is_int(alx_errcode("no_such_error"), 0, "an unknown name maps to 0");
}

/*
 * 12. One item, one key. AES-GCM does not commit to its key: a sender
 * could give two recipients two keys that open one ciphertext to two
 * different plaintexts. The signed envelope commits to the item key (and
 * the manifest to the epoch key), and every function that opens content
 * checks the key against it first.
 */
static void
g12_two_keys_job(struct world *w)
{
	const struct party	*s = &w->p[P_SND], *run = &w->p[P_RUN];
	struct alx_item		 job, got;
	struct alx_kxkey	 okx;
	uint8_t			 k1[ALX_KEY_LEN], k2[ALX_KEY_LEN], k[ALX_KEY_LEN];
	uint8_t			 ctx[64];
	size_t			 n;

	/* The owner's wrap holds k1 (the sealed key), the runner's k2. */
	item_init(&job, &w->m2, s, "job", 1, NULL);
	job.has_job = 1;
	snprintf(job.job.name, sizeof(job.job.name), "gpu-box");
	job.job.not_after = 1700003600;
	job.job.wraps = calloc(2, sizeof(struct alx_wrap));
	alx_random(k1, sizeof(k1));
	alx_random(k2, sizeof(k2));
	n = alx_wrap_ctx_job(ctx, job.sid, job.id);
	alx_wrap_seal(&job.job.wraps[0], "owner", w->m2.owner_kx, ctx, n, k1);
	alx_wrap_seal(&job.job.wraps[1], run->fps, run->kx.pk, ctx, n, k2);
	job.job.nwraps = 2;
	alx_item_seal_meta(&job, k1, "{\"v\":1,\"kind\":\"shell\","
	    "\"cmd\":\"true\"}", 37);
	is_int(alx_item_sign(&job, &s->sk), ALX_OK, "a job whose runner wrap "
	    "holds another key than the owner's");
	is_int(alx_item_open(&got, job.obj.raw, job.obj.raw_len, w->m2.sid,
	    s->sk.pk), ALX_OK, "its envelope verifies (the relay stores it)");
	alx_seed_keys(w->sec.seed[ALX_ROLE_OWNER], NULL, &okx);
	is_int(alx_item_job_key(&got, "owner", &okx, k), ALX_OK,
	    "the owner opens the key the envelope commits to");
	is_int(alx_item_job_key(&got, run->fps, &run->kx, k),
	    ALX_ERR_KEY_COMMIT, "the runner's other key: bad_key_commitment");
	is_int(alx_item_check_key(&got, k2), ALX_ERR_KEY_COMMIT,
	    "and that key is never taken for the job's");
	alx_kx_wipe(&okx);
	alx_item_free(&got);
	alx_item_free(&job);
}

/* A chunk that authenticates under two item keys (gcm-collide.h). */
static void
g12_two_keys_chunk(struct world *w)
{
	struct alx_item	 f, got;
	uint8_t		 k1[ALX_KEY_LEN], k2[ALX_KEY_LEN], c1[32], c2[32];
	uint8_t		 nonce[ALX_NONCE_LEN], aad[160], ct[64 + ALX_TAG_LEN];
	uint8_t		 p1[64], p2[64];
	char		*m;
	size_t		 al, n;

	item_init(&f, &w->m2, &w->p[P_SND], "file", 1, NULL);
	f.size = 64;
	f.nchunks = 1;
	f.chunks = calloc(1, ALX_HASH_LEN);
	alx_random(k1, sizeof(k1));
	alx_random(k2, sizeof(k2));
	alx_item_seal_meta(&f, k1, "{\"v\":1,\"name\":\"a.bin\"}", 22);
	alx_hkdf_sha256(c1, 32, k1, 32, NULL, 0, "airlox/v1/chunk", 15);
	alx_hkdf_sha256(c2, 32, k2, 32, NULL, 0, "airlox/v1/chunk", 15);
	memset(nonce, 0, sizeof(nonce));
	al = strlen("airlox/v1/chunk") + 1;
	memcpy(aad, "airlox/v1/chunk", al);
	memcpy(aad + al, f.sid, ALX_SID_LEN);
	al += ALX_SID_LEN;
	memcpy(aad + al, f.id, ALX_ID_LEN);
	al += ALX_ID_LEN;
	memcpy(aad + al, f.author, ALX_FP_LEN);
	al += ALX_FP_LEN;
	memcpy(aad + al, "file", 5);
	al += 5;
	memset(aad + al, 0, 8);		/* be64(0) */
	al += 8;
	aad[al++] = 1;			/* final */
	memset(ct, 0x5a, sizeof(ct));
	if (gcm_collide(c1, c2, nonce, aad, al, ct, 64, ct + 64) != 0)
		abort();
	alx_sha256(f.chunks[0], ct, sizeof(ct));
	is_int(alx_item_sign(&f, &w->p[P_SND].sk), ALX_OK,
	    "a file whose one chunk was made for two keys");
	is_int(alx_aead_open(p1, c1, nonce, aad, al, ct, sizeof(ct)), ALX_OK,
	    "plain AES-GCM: it authenticates under the first key");
	is_int(alx_aead_open(p2, c2, nonce, aad, al, ct, sizeof(ct)), ALX_OK,
	    "and under the second");
	ok(memcmp(p1, p2, sizeof(p1)) != 0, "to two different plaintexts");
	is_int(alx_item_open(&got, f.obj.raw, f.obj.raw_len, w->m2.sid,
	    w->p[P_SND].sk.pk), ALX_OK, "its envelope verifies");
	is_int(alx_chunk_open(&got, k1, 0, ct, sizeof(ct), p1), ALX_OK,
	    "the committed key opens the chunk");
	is_int(alx_chunk_open(&got, k2, 0, ct, sizeof(ct), p2),
	    ALX_ERR_KEY_COMMIT, "the other key: bad_key_commitment");
	is_int(alx_item_open_meta(&got, k2, &m, &n), ALX_ERR_KEY_COMMIT,
	    "nor does it open the meta");
	is_int(alx_chunk_seal(&got, k2, 0, p2, sizeof(p2), ct),
	    ALX_ERR_KEY_COMMIT, "nor seal a chunk of the item");
	alx_item_free(&got);
	alx_item_free(&f);
}

static void
g12_epoch_commitment(struct world *w)
{
	struct alx_manifest	 m;
	struct alx_private	 p;
	struct alx_kxkey	 kx;
	uint8_t			 k[ALX_KEY_LEN];

	alx_seed_keys(w->sec.seed[ALX_ROLE_OBSERVER], NULL, &kx);
	is_int(alx_manifest_epoch_key(&w->m2, "observer", &kx, k), ALX_OK,
	    "the observer's wrap opens the committed epoch key");
	if (alx_manifest_copy(&m, &w->m2) != ALX_OK)
		abort();
	m.ekc[7] ^= 0x01;	/* a commitment to another key */
	is_int(alx_manifest_epoch_key(&m, "observer", &kx, k),
	    ALX_ERR_KEY_COMMIT, "a wrap of another key than ekc commits to: "
	    "bad_key_commitment");
	is_int(alx_manifest_open_private(&m, w->sec.epoch_key, &p),
	    ALX_ERR_KEY_COMMIT, "and the private part is not opened with it");
	alx_manifest_free(&m);
	alx_kx_wipe(&kx);
}

static void
g12_key_commitment(struct world *w)
{
	tap_diag("guarantee 12: one item, one key (key commitment)");
	g12_two_keys_job(w);
	g12_two_keys_chunk(w);
	g12_epoch_commitment(w);
}

/*
 * 13. A job's progress and result (and a report replying to it, and their
 * output chunks) are readable by the job's readers only: the owner, its
 * author and the runners it was sealed to. Every participant's own view
 * is built from the same log; the observer, another sender, an unapproved
 * runner and the runner invite alone get no key, and the epoch key every
 * member holds opens nothing.
 */
#define MARK_OUTPUT	"MARKER-job-output-line"

/* A reply by the approved runner, sealed with a key from the job's. */
static int
make_reply(struct alx_item *it, const struct world *w, const char *kind,
    int64_t seq, const uint8_t *prev, const uint8_t job_id[ALX_ID_LEN],
    const uint8_t kj[ALX_KEY_LEN], const char *meta, const char *payload,
    uint8_t ct[ALX_CHUNK_CT_MAX])
{
	uint8_t	k[ALX_KEY_LEN];
	int	r;

	item_init(it, &w->m2, &w->p[P_RUN], kind, seq, prev);
	it->has_reply_to = 1;
	memcpy(it->reply_to, job_id, ALX_ID_LEN);
	alx_item_key_reply(kj, it->id, k);
	if ((r = alx_item_seal_meta(it, k, meta, strlen(meta))) != ALX_OK)
		goto out;
	if (payload != NULL) {
		it->size = (int64_t)strlen(payload);
		it->nchunks = 1;
		if ((it->chunks = calloc(1, ALX_HASH_LEN)) == NULL) {
			r = ALX_ERR_NOMEM;
			goto out;
		}
		if ((r = alx_chunk_seal(it, k, 0, (const uint8_t *)payload,
		    strlen(payload), ct)) != ALX_OK)
			goto out;
		alx_sha256(it->chunks[0], ct, strlen(payload) + ALX_TAG_LEN);
	}
	r = alx_item_sign(it, &w->p[P_RUN].sk);
out:
	alx_wipe(k, sizeof(k));
	return r;
}

/* How many of a job's wraps a kx key opens. */
static int
wraps_opened(const struct alx_item *job, const struct alx_kxkey *kx)
{
	uint8_t	ctx[64], k[ALX_KEY_LEN];
	size_t	i, cl = alx_wrap_ctx_job(ctx, job->sid, job->id);
	int	n = 0;

	for (i = 0; i < job->job.nwraps; i++)
		if (alx_wrap_open(&job->job.wraps[i], kx, ctx, cl, k) ==
		    ALX_OK)
			n++;
	alx_wipe(k, sizeof(k));
	return n;
}

/* Party i's own view of the session (its invite's role key, its keys). */
static void
view_of(struct alx_view *v, const struct world *w, int i,
    const struct alx_item *const *items, size_t nitems)
{
	struct alx_invite		 inv;
	struct alx_item			 got;
	const struct alx_view_member	*au;
	size_t				 k;
	int				 p, refused;

	memset(&inv, 0, sizeof(inv));
	inv.https = 1;
	snprintf(inv.host, sizeof(inv.host), "relay.example");
	memcpy(inv.sid, w->m1.sid, ALX_SID_LEN);
	inv.role = w->p[i].role;
	memcpy(inv.seed, w->sec.seed[w->p[i].role], ALX_SEED_LEN);
	if (alx_view_init(v, &inv) != ALX_OK)
		abort();
	alx_view_set_me(v, &w->p[i].sk, &w->p[i].kx);
	if (alx_view_add_manifest(v, w->m1.obj.raw, w->m1.obj.raw_len) !=
	    ALX_OK || alx_view_add_manifest(v, w->m2.obj.raw,
	    w->m2.obj.raw_len) != ALX_OK)
		abort();
	for (p = 0; p < P_N; p++)
		if (alx_view_add_cert(v, w->p[p].cert.obj.raw,
		    w->p[p].cert.obj.raw_len, p + 3, &au) != ALX_OK)
			abort();
	for (k = 0; k < nitems; k++) {
		if (alx_view_add_item(v, items[k]->obj.raw,
		    items[k]->obj.raw_len, &got, &au, &refused) != ALX_OK ||
		    refused != ALX_OK)
			abort();
		alx_item_free(&got);
	}
	alx_wipe(&inv, sizeof(inv));
}

static void
g13_reply_readers(struct world *w)
{
	static const struct {
		int		 who;
		int		 reads;
		const char	*what;
	} parties[] = {
		{ P_OWN, 1, "the owner" },
		{ P_SND, 1, "the job's author" },
		{ P_RUN, 1, "the runner it was sealed to" },
		{ P_SND2, 0, "another sender" },
		{ P_OBS, 0, "an observer" },
		{ P_RUN2, 0, "an unapproved runner (the runner invite)" },
	};
	struct alx_item		 job, prog, res;
	const struct alx_item	*items[3];
	struct alx_view		 v;
	struct alx_kxkey	 rkx;
	uint8_t			 kj[ALX_KEY_LEN], k[ALX_KEY_LEN], e[ALX_KEY_LEN];
	uint8_t			 ct[ALX_CHUNK_CT_MAX], pt[ALX_CHUNK_SIZE];
	char			 meta[512], *m;
	size_t			 i, n;
	int			 r;

	tap_diag("guarantee 13: a job's progress and result are for the job's "
	    "readers only");
	is_int(make_job(&job, w, 1, NULL, kj), ALX_OK, "a job for gpu-box");
	snprintf(meta, sizeof(meta), "{\"v\":1,\"job\":\"x\",\"seq\":1,"
	    "\"stdout\":\"%s\",\"stderr\":\"\"}", MARK_OUTPUT);
	is_int(make_reply(&prog, w, "progress", 1, NULL, job.id, kj, meta,
	    MARK_PAYLOAD, ct), ALX_OK, "its progress, with output chunks");
	snprintf(meta, sizeof(meta), "{\"v\":1,\"status\":\"completed\","
	    "\"stdout\":\"%s\",\"cmd\":\"%s\"}", MARK_OUTPUT, MARK_CMD);
	is_int(make_reply(&res, w, "result", 2, prog.hash, job.id, kj, meta,
	    NULL, NULL), ALX_OK, "its result");
	items[0] = &job;
	items[1] = &prog;
	items[2] = &res;
	for (i = 0; i < sizeof(parties) / sizeof(parties[0]); i++) {
		view_of(&v, w, parties[i].who, items, 3);
		r = alx_view_item_key(&v, &res, k);
		if (parties[i].reads) {
			is_int(r, ALX_OK, "%s derives the result's key",
			    parties[i].what);
			is_int(alx_item_open_meta(&res, k, &m, &n), ALX_OK,
			    "%s reads the result", parties[i].what);
			ok(strstr(m, MARK_OUTPUT) != NULL, "  and its output");
			free(m);
			is_int(alx_view_item_key(&v, &prog, k), ALX_OK,
			    "%s derives the progress key", parties[i].what);
			is_int(alx_chunk_open(&prog, k, 0, ct,
			    strlen(MARK_PAYLOAD) + ALX_TAG_LEN, pt), ALX_OK,
			    "%s opens the output chunk", parties[i].what);
		} else {
			is_int(r, ALX_ERR_NOT_RECIPIENT, "%s gets no key for "
			    "the result", parties[i].what);
			is_int(alx_view_item_key(&v, &prog, k),
			    ALX_ERR_NOT_RECIPIENT, "%s gets no key for the "
			    "progress", parties[i].what);
			/* Nor through any wrap of the job, nor the epoch key. */
			is_int(wraps_opened(&job, &w->p[parties[i].who].kx), 0,
			    "%s opens none of the job's wraps", parties[i].what);
		}
		alx_view_free(&v);
	}
	/* The runner invite alone (no participant key of its own). */
	alx_seed_keys(w->sec.seed[ALX_ROLE_RUNNER], NULL, &rkx);
	is_int(wraps_opened(&job, &rkx), 0,
	    "the runner invite's key opens none of the wraps");
	alx_kx_wipe(&rkx);
	/* Every member holds the epoch key: it opens no reply. */
	alx_item_key_epoch(w->sec.epoch_key, res.id, e);
	is_int(alx_item_open_meta(&res, e, &m, &n), ALX_ERR_KEY_COMMIT,
	    "the epoch key does not open the result");
	alx_item_key_epoch(w->sec.epoch_key, prog.id, e);
	is_int(alx_chunk_open(&prog, e, 0, ct, strlen(MARK_PAYLOAD) +
	    ALX_TAG_LEN, pt), ALX_ERR_KEY_COMMIT,
	    "nor the progress's output chunk");
	/* Another job's key does not open this job's replies. */
	alx_random(k, sizeof(k));
	alx_item_key_reply(k, res.id, e);
	is_int(alx_item_open_meta(&res, e, &m, &n), ALX_ERR_KEY_COMMIT,
	    "a key made from another job's key opens nothing");
	alx_wipe(kj, sizeof(kj));
	alx_item_free(&res);
	alx_item_free(&prog);
	alx_item_free(&job);
}

/*
 * 14. No participant can read or wreck another's work: an item a member
 * had no right to post (a cancel of another's job, a result from a runner
 * the job was not given to, a job the owner cannot read, a second result)
 * is passed over by every reader, which names its author and reads on; it
 * never stops the log. The relay checks the same rules
 * (alx_item_check_rules()) before it stores an item.
 */
struct g14 {
	struct world		*w;
	struct alx_view		 v;		/* the observer's */
	int64_t			 cursor;
	int64_t			 seq[P_N];
	uint8_t			 prev[P_N][ALX_HASH_LEN];
	int			 refused;	/* of the last event */
};

/* Apply one event; the view's answer (refused: ev.refused or 0). */
static int
g14_apply(struct g14 *g, const char *type, const char *data)
{
	struct alx_view_event	 ev;
	char			*e;
	size_t			 n = strlen(data) + 96;
	int			 r;

	if ((e = malloc(n)) == NULL)
		abort();
	snprintf(e, n, "{\"cursor\":%lld,\"type\":\"%s\",\"data\":%s}",
	    (long long)++g->cursor, type, data);
	r = alx_view_apply(&g->v, e, strlen(e), &ev);
	g->refused = r == ALX_OK && ev.type == ALX_EV_REFUSED ? ev.refused : 0;
	if (r == ALX_OK && ev.type != ALX_EV_REFUSED &&
	    ev.type != ALX_EV_ITEM && strcmp(type, "item") == 0)
		r = ALX_ERR_INVALID;
	alx_view_event_free(&ev);
	free(e);
	return r;
}

/* The next item of author `who`: the view's answer to it. */
static int
g14_post(struct g14 *g, int who, struct alx_item *it)
{
	int	r;

	if (alx_item_sign(it, &g->w->p[who].sk) != ALX_OK)
		abort();
	g->seq[who] = it->seq;
	memcpy(g->prev[who], it->hash, ALX_HASH_LEN);
	r = g14_apply(g, "item", it->obj.raw);
	alx_item_free(it);
	return r;
}

/* A member-readable item of `kind` by `who`, answering `reply_to`. */
static void
g14_item(struct g14 *g, struct alx_item *it, int who, const char *kind,
    const uint8_t *reply_to)
{
	uint8_t	k[ALX_KEY_LEN];

	item_init(it, &g->w->m2, &g->w->p[who], kind, g->seq[who] + 1,
	    g->seq[who] > 0 ? g->prev[who] : NULL);
	if (reply_to != NULL) {
		it->has_reply_to = 1;
		memcpy(it->reply_to, reply_to, ALX_ID_LEN);
	}
	alx_item_key_epoch(g->w->sec.epoch_key, it->id, k);
	alx_item_seal_meta(it, k, "{\"v\":1}", 7);
	alx_wipe(k, sizeof(k));
}

/* A job by `who` wrapped to the listed readers ("owner", parties). */
static void
g14_job(struct g14 *g, struct alx_item *it, int who, int owner,
    const int *to, size_t nto, const char *role_to, uint8_t id[ALX_ID_LEN])
{
	const struct world	*w = g->w;
	uint8_t			 k[ALX_KEY_LEN], ctx[64];
	size_t			 n, i;

	item_init(it, &w->m2, &w->p[who], "job", g->seq[who] + 1,
	    g->seq[who] > 0 ? g->prev[who] : NULL);
	it->has_job = 1;
	snprintf(it->job.name, sizeof(it->job.name), "gpu");
	it->job.is_label = 1;
	it->job.not_after = 1700003600;
	it->job.wraps = calloc(nto + 2, sizeof(struct alx_wrap));
	alx_random(k, sizeof(k));
	n = alx_wrap_ctx_job(ctx, it->sid, it->id);
	if (owner)
		alx_wrap_seal(&it->job.wraps[it->job.nwraps++], "owner",
		    w->m2.owner_kx, ctx, n, k);
	for (i = 0; i < nto; i++)
		alx_wrap_seal(&it->job.wraps[it->job.nwraps++],
		    w->p[to[i]].fps, w->p[to[i]].kx.pk, ctx, n, k);
	if (role_to != NULL)
		alx_wrap_seal(&it->job.wraps[it->job.nwraps++], role_to,
		    w->p[P_OBS].kx.pk, ctx, n, k);
	alx_item_seal_meta(it, k, "{\"v\":1,\"kind\":\"shell\",\"cmd\":\"x\"}",
	    34);
	alx_wipe(k, sizeof(k));
	memcpy(id, it->id, ALX_ID_LEN);
}

/*
 * Which runners a job's target names (the key is wrapped to them, they
 * claim it): with approval, the name and labels the owner approved; without,
 * the runner's own signed announcement, which the view keeps; never a
 * display name, which anyone picks.
 */
static void
g14_targets(struct world *w, struct g14 *g)
{
	static const char *const labels[] = { "cpu" };
	struct alx_session_params	 sp;
	struct alx_session_secrets	 sec;
	struct alx_manifest		 open;
	struct alx_announce		 a;
	const struct alx_view_member	*mem;
	const uint8_t			*run = w->p[P_RUN].cert.fp;
	const uint8_t			*run2 = w->p[P_RUN2].cert.fp;

	ok(alx_runner_serves(&w->m2, run, NULL, 1, "gpu") &&
	    alx_runner_serves(&w->m2, run, NULL, 0, "gpu-box"),
	    "approved: its approval's label and name");
	ok(!alx_runner_serves(&w->m2, run, NULL, 1, "cpu") &&
	    !alx_runner_serves(&w->m2, run, NULL, 0, "gpu"),
	    "approved: nothing else");
	/* The unapproved runner announces the label, under its display name. */
	memset(&a, 0, sizeof(a));
	memcpy(a.sid, w->m2.sid, ALX_SID_LEN);
	memcpy(a.runner, run2, ALX_FP_LEN);
	snprintf(a.name, sizeof(a.name), "box2");
	a.labels = (char **)labels;
	a.nlabels = 1;
	a.slots = 1;
	a.kinds = ALX_JOBKIND_SHELL;
	snprintf(a.sandbox, sizeof(a.sandbox), "local");
	snprintf(a.version, sizeof(a.version), "0.1.0");
	a.time = 1700000100;
	if (alx_announce_sign(&a, &w->p[P_RUN2].sk) != ALX_OK)
		abort();
	ok(!alx_runner_serves(&w->m2, run2, &a, 1, "cpu") &&
	    !alx_runner_serves(&w->m2, run2, &a, 0, "box2") &&
	    !alx_runner_serves(&w->m2, run2, &a, 0, "other-box"),
	    "with approval, an unapproved runner serves nothing it announces "
	    "or is called");
	is_int(g14_apply(g, "announce", a.obj.raw), ALX_OK,
	    "the view takes the runner's announcement");
	mem = alx_view_member_by_fp(&g->v, run2);
	ok(mem != NULL && mem->has_ann && strcmp(mem->ann.name, "box2") == 0 &&
	    mem->ann.nlabels == 1 && strcmp(mem->ann.labels[0], "cpu") == 0,
	    "and keeps its name and labels for the member");
	/* A session without approval. */
	memset(&sp, 0, sizeof(sp));
	sp.mode = ALX_MODE_EXECUTE;
	sp.now = 1700000000;
	sp.item_max = 1024;
	sp.session_max = 4096;
	sp.approve = 0;
	if (alx_session_create(&open, &sec, &sp, &w->priv) != ALX_OK)
		abort();
	ok(alx_manifest_runner_approved(&open, run2),
	    "without approval every runner counts as approved");
	ok(alx_runner_serves(&open, run2, &mem->ann, 1, "cpu") &&
	    alx_runner_serves(&open, run2, &mem->ann, 0, "box2"),
	    "without approval: the label and name it announced");
	ok(!alx_runner_serves(&open, run2, &mem->ann, 1, "gpu") &&
	    !alx_runner_serves(&open, run2, &mem->ann, 0, "other-box"),
	    "not another label, nor its display name");
	ok(!alx_runner_serves(&open, run2, NULL, 1, "cpu") &&
	    !alx_runner_serves(&open, run, &mem->ann, 1, "cpu"),
	    "a runner that announced nothing (or another's announcement) "
	    "serves nothing");
	a.labels = NULL;
	a.nlabels = 0;
	alx_announce_free(&a);
	alx_manifest_free(&open);
	alx_session_secrets_wipe(&sec);
}

static void
g14_participants(struct world *w)
{
	static const int	 snd_run[] = { P_SND, P_RUN };
	static const int	 snd_only[] = { P_SND };
	struct alx_invite	 inv;
	struct alx_signkey	 sk;
	struct alx_kxkey	 kx;
	struct alx_item		 it;
	struct alx_cert		 c;
	struct g14		 g;
	const struct alx_view_member *mem;
	uint8_t			 job[ALX_ID_LEN], job2[ALX_ID_LEN];
	uint8_t			 nojob[ALX_ID_LEN];
	int			 i, bad = 0;

	tap_diag("guarantee 14: no participant can stop another's reader");
	memset(&g, 0, sizeof(g));
	g.w = w;
	memset(&inv, 0, sizeof(inv));
	memcpy(inv.sid, w->m1.sid, ALX_SID_LEN);
	inv.role = ALX_ROLE_OBSERVER;
	memcpy(inv.seed, w->sec.seed[ALX_ROLE_OBSERVER], ALX_SEED_LEN);
	alx_view_init(&g.v, &inv);
	alx_sign_keygen(&sk);
	alx_kx_keygen(&kx);
	alx_view_set_me(&g.v, &sk, &kx);
	if (g14_apply(&g, "manifest", w->m1.obj.raw) != ALX_OK ||
	    g14_apply(&g, "manifest", w->m2.obj.raw) != ALX_OK)
		bad++;
	for (i = 0; i < P_N; i++)
		if (g14_apply(&g, "join", w->p[i].cert.obj.raw) != ALX_OK)
			bad++;
	is_int(bad, 0, "the observer's view holds the session and members");

	/* A sender's job for the label, wrapped to the owner, it, gpu-box. */
	g14_job(&g, &it, P_SND, 1, snd_run, 2, NULL, job);
	is_int(g14_post(&g, P_SND, &it), ALX_OK, "a sender's job");
	is_int(g.refused, 0, "is accepted");

	/* Cancels. */
	g14_item(&g, &it, P_SND2, "cancel", job);
	is_int(g14_post(&g, P_SND2, &it), ALX_OK,
	    "another sender's cancel of the job does not stop the reader");
	is_int(g.refused, ALX_ERR_WRONG_ROLE, "it is passed over: wrong_role");
	g14_item(&g, &it, P_SND2, "text", NULL);
	is_int(g14_post(&g, P_SND2, &it), ALX_OK,
	    "that sender's next item (its chain went on)");
	is_int(g.refused, 0, "is accepted");
	g14_item(&g, &it, P_SND, "cancel", job);
	g14_post(&g, P_SND, &it);
	is_int(g.refused, 0, "the job's author cancels it");
	g14_item(&g, &it, P_OWN, "cancel", job);
	g14_post(&g, P_OWN, &it);
	is_int(g.refused, 0, "the owner cancels it");
	alx_random(nojob, sizeof(nojob));
	g14_item(&g, &it, P_SND, "cancel", nojob);
	g14_post(&g, P_SND, &it);
	is_int(g.refused, ALX_ERR_NOT_FOUND, "a cancel of no job: not_found");
	g14_item(&g, &it, P_SND, "cancel", NULL);
	g14_post(&g, P_SND, &it);
	is_int(g.refused, ALX_ERR_MISSING, "a cancel of nothing: "
	    "missing_field");

	/* Answers: only from an approved runner the job was wrapped to. */
	g14_item(&g, &it, P_RUN2, "progress", job);
	is_int(g14_post(&g, P_RUN2, &it), ALX_OK,
	    "an unapproved runner's progress does not stop the reader");
	is_int(g.refused, ALX_ERR_NOT_ALLOWED, "it is passed over: "
	    "not_allowed");
	g14_item(&g, &it, P_RUN, "progress", nojob);
	g14_post(&g, P_RUN, &it);
	is_int(g.refused, ALX_ERR_NOT_FOUND,
	    "progress for no job: passed over (not_found)");
	g14_job(&g, &it, P_SND, 1, snd_only, 1, NULL, job2);
	g14_post(&g, P_SND, &it);
	is_int(g.refused, 0, "a job for the label wrapped to no runner yet "
	    "(its sender's view was older than the approval)");
	g14_item(&g, &it, P_RUN, "result", job2);
	is_int(g14_post(&g, P_RUN, &it), ALX_OK,
	    "an approved runner that could not open it signs a result");
	is_int(g.refused, ALX_ERR_NOT_RECIPIENT,
	    "the result does not count: not_recipient");
	g14_item(&g, &it, P_RUN, "report", job2);
	g14_post(&g, P_RUN, &it);
	is_int(g.refused, ALX_ERR_NOT_RECIPIENT, "nor a report about it");
	g14_item(&g, &it, P_RUN, "report", NULL);
	g14_post(&g, P_RUN, &it);
	is_int(g.refused, 0, "a report about no job (verify) is accepted");
	ok(alx_view_job(&g.v, job2) != NULL && !alx_view_job(&g.v,
	    job2)->has_result, "the job still waits for its result");
	g14_item(&g, &it, P_RUN, "progress", job);
	g14_post(&g, P_RUN, &it);
	is_int(g.refused, 0, "progress from the runner the job went to");
	g14_item(&g, &it, P_RUN, "result", job);
	g14_post(&g, P_RUN, &it);
	is_int(g.refused, 0, "its result");
	ok(alx_view_job(&g.v, job)->has_result, "is the job's result");
	g14_item(&g, &it, P_RUN, "result", job);
	g14_post(&g, P_RUN, &it);
	is_int(g.refused, ALX_ERR_EXISTS, "a second result: passed over "
	    "(exists)");

	/* Jobs the owner cannot read, or wrapped to a role. */
	g14_job(&g, &it, P_SND, 0, snd_run, 2, NULL, job2);
	g14_post(&g, P_SND, &it);
	is_int(g.refused, ALX_ERR_NOT_RECIPIENT,
	    "a job not wrapped to the owner: passed over (not_recipient)");
	ok(alx_view_job(&g.v, job2) == NULL, "and not taken as a job");
	g14_job(&g, &it, P_SND, 1, snd_run, 2, "observer", job2);
	g14_post(&g, P_SND, &it);
	is_int(g.refused, ALX_ERR_NOT_ALLOWED,
	    "a job wrapped to the observer role: passed over (not_allowed)");

	/* An observer's text (a relay that does not check roles). */
	g14_item(&g, &it, P_OBS, "text", NULL);
	g14_post(&g, P_OBS, &it);
	is_int(g.refused, ALX_ERR_WRONG_ROLE, "an observer's text: passed "
	    "over (wrong_role)");
	g14_item(&g, &it, P_SND, "no-such-kind", NULL);
	g14_post(&g, P_SND, &it);
	is_int(g.refused, ALX_ERR_NOT_ALLOWED,
	    "a kind this reader does not know: passed over");

	/* After all of them, the log still reads. */
	g14_item(&g, &it, P_SND2, "text", NULL);
	is_int(g14_post(&g, P_SND2, &it), ALX_OK, "the reader reads on");
	is_int(g.refused, 0, "and accepts what follows");
	is_int(g.v.cursor, g.cursor, "to the end of the log");
	mem = alx_view_member_by_fp(&g.v, w->p[P_SND2].cert.fp);
	ok(mem != NULL && mem->last_seq == g.seq[P_SND2],
	    "every author's chain went on through its passed-over items");
	/* What breaks the log itself still stops it: the relay's doing. */
	g14_item(&g, &it, P_SND, "text", NULL);
	it.seq++;
	is_int(g14_post(&g, P_SND, &it), ALX_ERR_ORDER,
	    "an item out of its author's chain stops the reader (bad_order)");

	/* The same rules, as the relay applies them with its records. */
	{
		struct alx_jobref	ref;
		struct alx_item		r;

		memset(&ref, 0, sizeof(ref));
		memcpy(ref.author, w->p[P_SND].cert.fp, ALX_FP_LEN);
		ref.is_label = 1;
		ref.runners = (const uint8_t (*)[ALX_FP_LEN])w->p[P_RUN].cert.fp;
		ref.nrunners = 1;
		ref.claims_known = 1;
		item_init(&r, &w->m2, &w->p[P_RUN], "result", 1, NULL);
		r.has_reply_to = 1;
		is_int(alx_item_check_rules(&w->m2, &w->p[P_RUN].cert, &r, &ref),
		    ALX_ERR_NOT_RECIPIENT, "relay: a label job's result before "
		    "any claim is refused");
		ref.claimed = 1;
		memcpy(ref.claimed_by, w->p[P_SND].cert.fp, ALX_FP_LEN);
		is_int(alx_item_check_rules(&w->m2, &w->p[P_RUN].cert, &r, &ref),
		    ALX_ERR_CLAIMED, "relay: from a recipient that did not "
		    "claim it: already_claimed");
		memcpy(ref.claimed_by, w->p[P_RUN].cert.fp, ALX_FP_LEN);
		is_int(alx_item_check_rules(&w->m2, &w->p[P_RUN].cert, &r, &ref),
		    ALX_OK, "relay: from the claimant: accepted");
		ref.has_result = 1;
		is_int(alx_item_check_rules(&w->m2, &w->p[P_RUN].cert, &r, &ref),
		    ALX_ERR_EXISTS, "relay: a second result: exists");
		alx_item_free(&r);
	}
	(void)c;
	g14_targets(w, &g);
	alx_sign_wipe(&sk);
	alx_kx_wipe(&kx);
	alx_view_free(&g.v);
}

int
main(void)
{
	struct world	w;

	if (alx_crypto_init() != ALX_OK)
		tap_skip_all("libsodium failed to initialise");
	if (world_make(&w) != ALX_OK) {
		ok(0, "a session to test with");
		return tap_done();
	}
	g1_relay_blind(&w);
	g2_anchor(&w);
	g3_roles(&w);
	g4_job_readers(&w);
	g5_integrity(&w);
	g6_replays(&w);
	g7_revocation(&w);
	g8_large(&w);
	g8_limits(&w);
	g9_cpace();
	g10_versions(&w);
	g11_vocabulary();
	g12_key_commitment(&w);
	g13_reply_readers(&w);
	g14_participants(&w);
	world_free(&w);
	return tap_done();
}
