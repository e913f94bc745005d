/*
 * mkvectors.c: write the conformance vectors of tests/vectors/ (and seeds
 * for the fuzz targets).
 *
 *	mkvectors --write DIR [--corpus DIR]
 *
 * Every input is made from a fixed label, run through the builders of
 * tests/unit/test-vectors.c (the same ones the check runs, compiled into
 * this program), and written with what the builder produced. A case whose
 * result is not the one intended (a positive case that fails, a negative
 * one that fails with another error) stops the generator. With --corpus,
 * every valid object, and the chunk and meta ciphertexts, are also written
 * as seeds into DIR/fuzz-NAME/.
 */
#define ALX_MKVECTORS
#include "unit/test-vectors.c"
#include "unit/gcm-collide.h"


struct gen {
	FILE		*f;
	const char	*dir;
	const char	*corpus;	/* --corpus: also write fuzz seeds */
	const char	*structure;
	int		 ncases;
	int		 nseeds;
	struct alx_jw	 in;
	char		 name[256];
};

/* Reproducible bytes named by a label. */
static void
fx(const char *label, uint8_t *out, size_t n)
{
	alx_hkdf_sha256(out, n, label, strlen(label), NULL, 0,
	    "airlox/vectors", 14);
}

static void __attribute__((noreturn))
gen_fail(const struct gen *g, const char *what)
{
	fprintf(stderr, "mkvectors: %s: %s: %s\n", g->structure, g->name,
	    what);
	exit(1);
}

static void
gen_open(struct gen *g, const char *file, const char *structure,
    const char *desc)
{
	struct alx_jw	 w;
	char		 path[4096], *q;
	size_t		 ql;

	snprintf(path, sizeof(path), "%s/%s", g->dir, file);
	if ((g->f = fopen(path, "w")) == NULL) {
		perror(path);
		exit(1);
	}
	g->structure = structure;
	g->ncases = 0;
	alx_jw_init(&w, 65536);
	alx_jw_str(&w, desc);
	if (alx_jw_finish(&w, &q, &ql) != ALX_OK)
		gen_fail(g, "description");
	alx_jw_free(&w);
	fprintf(g->f, "{\n\"description\": %s,\n\"structure\": \"%s\",\n"
	    "\"protocol_version\": %d,\n\"cases\": [\n", q, structure,
	    ALX_PROTOCOL);
	free(q);
}

static void
gen_close(struct gen *g)
{
	fprintf(g->f, "\n]\n}\n");
	if (fclose(g->f) != 0)
		gen_fail(g, "write");
	g->f = NULL;
}

static void
gen_case(struct gen *g, const char *name, const char *op)
{
	snprintf(g->name, sizeof(g->name), "%s", name);
	alx_jw_init(&g->in, VEC_TEXT_MAX);
	alx_jw_obj_begin(&g->in);
	alx_jw_kstr(&g->in, "op", op);
}

static void
gi_hex(struct gen *g, const char *k, const uint8_t *p, size_t n)
{
	char	*s = hex_alloc(p, n);

	alx_jw_kstr(&g->in, k, s);
	free(s);
}

static void
gi_str(struct gen *g, const char *k, const char *s)
{
	alx_jw_kstr(&g->in, k, s);
}

static void
gi_int(struct gen *g, const char *k, int64_t v)
{
	alx_jw_kint(&g->in, k, v);
}

/* A hex string element of an array being written. */
static void
gi_hex_elem(struct gen *g, const uint8_t *p, size_t n)
{
	char	*s = hex_alloc(p, n);

	alx_jw_str(&g->in, s);
	free(s);
}

/* An array member of texts. */
static void
gi_texts(struct gen *g, const char *k, const char *const *v, size_t n)
{
	size_t	i;

	alx_jw_key(&g->in, k);
	alx_jw_arr_begin(&g->in);
	for (i = 0; i < n; i++)
		alx_jw_str(&g->in, v[i]);
	alx_jw_arr_end(&g->in);
}

/* A fuzz seed, named by its content so that names stay stable. */
static void
gen_seed(struct gen *g, const char *target, const char *prefix,
    const char *data, size_t len)
{
	struct alx_sha256_ctx	 ctx;
	uint8_t			 h[ALX_HASH_LEN];
	char			 path[4096], *name;
	FILE			*f;

	if (g->corpus == NULL)
		return;
	alx_sha256_init(&ctx);
	alx_sha256_update(&ctx, prefix, strlen(prefix));
	alx_sha256_update(&ctx, data, len);
	alx_sha256_final(&ctx, h);
	name = hex_alloc(h, 8);
	mkdir(g->corpus, 0755);
	snprintf(path, sizeof(path), "%s/%s", g->corpus, target);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/vec-%s", g->corpus, target, name);
	free(name);
	if ((f = fopen(path, "wb")) == NULL)
		gen_fail(g, path);
	fputs(prefix, f);
	fwrite(data, 1, len, f);
	fclose(f);
	g->nseeds++;
}

/* Seeds for the fuzz targets from a case's outputs. */
static void
gen_seeds(struct gen *g, const struct outs *o)
{
	const char	*obj = out_get(o, "object");
	const char	*body = out_get(o, "body");
	const char	*target = NULL;

	if (strcmp(g->structure, "manifest") == 0)
		target = "fuzz-manifest";
	else if (strcmp(g->structure, "cert") == 0)
		target = "fuzz-cert";
	else if (strcmp(g->structure, "item") == 0 ||
	    strcmp(g->structure, "job") == 0)
		target = "fuzz-item";
	if (obj != NULL)
		gen_seed(g, "fuzz-signed", "", obj, strlen(obj));
	if (target != NULL && obj != NULL)
		gen_seed(g, target, "", obj, strlen(obj));
	if (target != NULL && body != NULL)
		gen_seed(g, target, "S", body, strlen(body));
}

/*
 * Finish the inputs, run the builder, check the result is `want` (NULL:
 * success) and write the case. The outputs go to *keep when asked.
 */
static void
gen_end(struct gen *g, const char *want, struct outs *keep)
{
	struct alx_json	*j = NULL;
	struct alx_jw	 w;
	struct outs	 o;
	char		*in, *line;
	size_t		 inlen, len, i;
	int		 r;

	alx_jw_obj_end(&g->in);
	if (alx_jw_finish(&g->in, &in, &inlen) != ALX_OK)
		gen_fail(g, "inputs");
	alx_jw_free(&g->in);
	if (alx_json_parse(&j, in, inlen, NULL) != ALX_OK)
		gen_fail(g, "inputs parse");
	r = vec_run(j, 0, g->structure, &o);
	alx_json_free(j);
	if (want == NULL && r != 0)
		gen_fail(g, vec_errname(r));
	if (want != NULL && r != alx_errcode(want)) {
		fprintf(stderr, "mkvectors: got %s\n", r ? vec_errname(r) :
		    "success");
		gen_fail(g, want);
	}
	alx_jw_init(&w, 2 * VEC_TEXT_MAX);
	alx_jw_obj_begin(&w);
	alx_jw_kstr(&w, "name", g->name);
	alx_jw_key(&w, "inputs");
	alx_jw_raw(&w, in, inlen);
	if (want != NULL)
		alx_jw_kstr(&w, "error", want);
	else {
		alx_jw_key(&w, "expected");
		alx_jw_obj_begin(&w);
		for (i = 0; i < o.n; i++)
			alx_jw_kstr(&w, o.key[i], o.val[i]);
		alx_jw_obj_end(&w);
		gen_seeds(g, &o);
	}
	alx_jw_obj_end(&w);
	if (alx_jw_finish(&w, &line, &len) != ALX_OK)
		gen_fail(g, "case");
	alx_jw_free(&w);
	fprintf(g->f, "%s%s", g->ncases++ ? ",\n" : "", line);
	free(line);
	free(in);
	if (keep != NULL)
		*keep = o;
	else
		outs_free(&o);
}

/* Copy of a kept output (the generator's outputs outlive their case). */
static char *
kept(const struct outs *o, const char *key)
{
	const char	*v = out_get(o, key);
	char		*s;

	if (v == NULL || (s = strdup(v)) == NULL)
		abort();
	return s;
}

static void
unhex(const char *s, uint8_t *out, size_t n)
{
	uint8_t	*p;
	size_t	 len;

	if (hex_decode(s, &p, &len) != 0 || len != n)
		abort();
	memcpy(out, p, n);
	free(p);
}

/* Replace the first `from` in s by `to` (new string). */
static char *
edit(const char *s, const char *from, const char *to)
{
	const char	*p = strstr(s, from);
	char		*r;
	size_t		 a, b, c;

	if (p == NULL)
		abort();
	a = (size_t)(p - s);
	b = strlen(to);
	c = strlen(p + strlen(from));
	if ((r = malloc(a + b + c + 1)) == NULL)
		abort();
	memcpy(r, s, a);
	memcpy(r + a, to, b);
	memcpy(r + a + b, p + strlen(from), c + 1);
	return r;
}

/* Flip one bit of the character at s[i] within the base64url alphabet. */
static char *
flip_b64_char(const char *s, size_t i)
{
	char	*r = strdup(s);

	if (r == NULL)
		abort();
	r[i] = r[i] == 'A' ? 'B' : 'A';
	return r;
}

/* The fixed world the vectors live in. */
enum { P_OWNER, P_S1, P_S2, P_OBS, P_R1, P_R2, P_X, P_COUNT };
static const char *const p_names[P_COUNT] = {
	"owner", "build-agent", "review-agent", "lead", "gpu-box",
	"other-box", "late"
};
static const int p_roles[P_COUNT] = {
	ALX_ROLE_OWNER, ALX_ROLE_SENDER, ALX_ROLE_SENDER, ALX_ROLE_OBSERVER,
	ALX_ROLE_RUNNER, ALX_ROLE_RUNNER, ALX_ROLE_SENDER
};

struct world {
	uint8_t	 seed[ALX_ROLE_COUNT][32];	/* owner, roles */
	uint8_t	 new_sender_seed[32];
	uint8_t	 owner_sign_seed[32];
	uint8_t	 nonce[16], ekey0[32], ekey1[32];
	uint8_t	 pseed[P_COUNT][32], pkxs[P_COUNT][32];
	uint8_t	 ppk[P_COUNT][32], pkx[P_COUNT][32], pfp[P_COUNT][16];
	char	 pfps[P_COUNT][ALX_FP_STRLEN + 1];
	char	*priv;
	char	*v1, *v2, *v1_body, *v2_body;
	char	*small;				/* v1 with item_max 1 MiB */
	uint8_t	 sid[16], other_sid[16], small_sid[16];
	char	*items[3];			/* text, text, file */
	uint8_t	 item_ids[3][16];
	uint8_t	 item_hash[3][32];
};

static void
world_init(struct world *w)
{
	struct alx_private	p;
	struct alx_signkey	sk;
	struct alx_kxkey	kx;
	char			label[64];
	size_t			len;
	int			i;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < ALX_ROLE_COUNT; i++) {
		snprintf(label, sizeof(label), "%s seed", alx_role_name(i));
		fx(label, w->seed[i], 32);
	}
	fx("sender seed 2", w->new_sender_seed, 32);
	alx_seed_keys(w->seed[ALX_ROLE_OWNER], &sk, NULL);
	alx_sign_seed(&sk, w->owner_sign_seed);
	alx_sign_wipe(&sk);
	fx("manifest nonce", w->nonce, 16);
	fx("epoch key 0", w->ekey0, 32);
	fx("epoch key 1", w->ekey1, 32);
	fx("another session", w->other_sid, 16);
	fx("item 0", w->item_ids[0], 16);
	fx("item 1", w->item_ids[1], 16);
	fx("item 2", w->item_ids[2], 16);
	for (i = 0; i < P_COUNT; i++) {
		snprintf(label, sizeof(label), "participant %s", p_names[i]);
		fx(label, w->pseed[i], 32);
		snprintf(label, sizeof(label), "participant %s kx", p_names[i]);
		fx(label, w->pkxs[i], 32);
		alx_sign_from_seed(&sk, w->pseed[i]);
		alx_kx_from_secret(&kx, w->pkxs[i]);
		memcpy(w->ppk[i], sk.pk, 32);
		memcpy(w->pkx[i], kx.pk, 32);
		alx_fingerprint(w->pfp[i], sk.pk, 32);
		alx_fingerprint_str(w->pfps[i], sk.pk, 32);
	}
	memset(&p, 0, sizeof(p));
	p.has_limits = 1;
	p.limits.kinds = ALX_JOBKIND_SHELL | ALX_JOBKIND_PYTHON;
	p.limits.timeout_s = 600;
	p.limits.memory_mb = 1024;
	p.limits.net_mode = ALX_NET_NONE;
	p.limits.return_out = 1;
	if (alx_private_encode(&p, &w->priv, &len) != ALX_OK)
		abort();
}

/* Sign arbitrary body bytes as `type` with an Ed25519 seed. */
static char *
craft(const char *type, const uint8_t seed[32], const char *body)
{
	struct alx_signkey	sk;
	struct alx_signed	s;
	char			*r;

	alx_sign_from_seed(&sk, seed);
	if (alx_signed_seal(&s, type, body, strlen(body), &sk) != ALX_OK)
		abort();
	r = strdup(s.raw);
	alx_signed_free(&s);
	alx_sign_wipe(&sk);
	return r;
}

static void
gi_manifests(struct gen *g, const char *a, const char *b, const char *c)
{
	alx_jw_key(&g->in, "manifests");
	alx_jw_arr_begin(&g->in);
	alx_jw_str(&g->in, a);
	if (b != NULL)
		alx_jw_str(&g->in, b);
	if (c != NULL)
		alx_jw_str(&g->in, c);
	alx_jw_arr_end(&g->in);
}

static void
gi_eph(struct gen *g, const char *prefix, int runner)
{
	uint8_t	esk[32];
	char	label[64];
	int	i;

	alx_jw_key(&g->in, "eph");
	alx_jw_obj_begin(&g->in);
	for (i = 0; i < ALX_ROLE_COUNT; i++) {
		if (i == ALX_ROLE_RUNNER && !runner)
			continue;
		snprintf(label, sizeof(label), "%s eph %s", prefix,
		    alx_role_name(i));
		fx(label, esk, 32);
		gi_hex(g, alx_role_name(i), esk, 32);
	}
	alx_jw_obj_end(&g->in);
}

static void
gen_keys(struct gen *g, const struct world *w)
{
	uint8_t	seed[32];
	int	i;

	gen_open(g, "keys.json", "seed-keys", "Keys derived from an owner or "
	    "role seed (docs/protocol.md section 2): sign_seed = HKDF-SHA-256("
	    "seed, salt empty, info \"airlox/v1/sign\", 32) is the RFC 8032 "
	    "Ed25519 seed of sign_pk; kx_secret = HKDF(seed, \"\", "
	    "\"airlox/v1/kx\", 32) is the X25519 secret of kx_pk; fp is the "
	    "base64url fingerprint of sign_pk. Op participant: a participant's "
	    "keys from a secret it keeps (32 to 1024 bytes of text; shorter is "
	    "bad_request): seed = HKDF-SHA-256(secret, salt sid || role name, "
	    "info \"airlox/v1/participant\", 32), then sign_pk and kx_pk from "
	    "seed as for op derive.");
	for (i = 0; i < ALX_ROLE_COUNT; i++) {
		gen_case(g, alx_role_name(i), "derive");
		gi_hex(g, "seed", w->seed[i], 32);
		gen_end(g, NULL, NULL);
	}
	memset(seed, 0, sizeof(seed));
	gen_case(g, "all-zero seed", "derive");
	gi_hex(g, "seed", seed, 32);
	gen_end(g, NULL, NULL);
	for (i = 0; i < 32; i++)
		seed[i] = (uint8_t)i;
	gen_case(g, "seed 00..1f", "derive");
	gi_hex(g, "seed", seed, 32);
	gen_end(g, NULL, NULL);
	/* A participant key kept as a secret (AIRLOX_KEY). */
	for (i = 0; i < 16; i++)
		seed[i] = (uint8_t)(0xa0 + i);
	gen_case(g, "participant key from a secret, sender", "participant");
	gi_str(g, "secret", "correct horse battery staple, kept 32+");
	gi_hex(g, "sid", seed, 16);
	gi_str(g, "role", "sender");
	gen_end(g, NULL, NULL);
	gen_case(g, "the same secret as owner: another key", "participant");
	gi_str(g, "secret", "correct horse battery staple, kept 32+");
	gi_hex(g, "sid", seed, 16);
	gi_str(g, "role", "owner");
	gen_end(g, NULL, NULL);
	seed[15] ^= 1;
	gen_case(g, "the same secret in another session: another key",
	    "participant");
	gi_str(g, "secret", "correct horse battery staple, kept 32+");
	gi_hex(g, "sid", seed, 16);
	gi_str(g, "role", "sender");
	gen_end(g, NULL, NULL);
	gen_case(g, "a secret of 31 characters is refused", "participant");
	gi_str(g, "secret", "0123456789012345678901234567890");
	gi_hex(g, "sid", seed, 16);
	gi_str(g, "role", "sender");
	gen_end(g, "bad_request", NULL);
	gen_close(g);
}

static void
gen_fingerprint(struct gen *g, const struct world *w)
{
	uint8_t	pk[32];
	int	i;

	gen_open(g, "fingerprint.json", "fingerprint", "Key fingerprints "
	    "(section 1): fp_hex = the first 16 bytes of SHA-256(hash_input), "
	    "hash_input = \"airlox-fp\" || 0x00 || pk; fp is its unpadded "
	    "base64url text (22 characters).");
	for (i = 0; i < P_COUNT; i++) {
		gen_case(g, p_names[i], "derive");
		gi_hex(g, "pk", w->ppk[i], 32);
		gen_end(g, NULL, NULL);
	}
	memset(pk, 0xff, sizeof(pk));
	gen_case(g, "ff bytes", "derive");
	gi_hex(g, "pk", pk, 32);
	gen_end(g, NULL, NULL);
	gen_close(g);
}

static void
gen_b64_case(struct gen *g, const char *name, const char *text,
    const char *want)
{
	gen_case(g, name, "decode");
	gi_str(g, "text", text);
	gen_end(g, want, NULL);
}

static void
gen_base64(struct gen *g)
{
	gen_open(g, "base64.json", "base64", "Strict base64url (section 1): "
	    "RFC 4648 section 5 alphabet, no padding, no whitespace, unused "
	    "trailing bits zero. text decodes to bytes (hex), and encoding "
	    "bytes gives text back; anything else is bad_base64.");
	gen_b64_case(g, "empty", "", NULL);
	gen_b64_case(g, "one byte", "_w", NULL);
	gen_b64_case(g, "two bytes", "-_8", NULL);
	gen_b64_case(g, "three bytes", "AQID", NULL);
	gen_b64_case(g, "16 bytes (an id)", "EBESExQVFhcYGRobHB0eHw", NULL);
	gen_b64_case(g, "padding", "_w==", "bad_base64");
	gen_b64_case(g, "one pad character", "-_8=", "bad_base64");
	gen_b64_case(g, "standard alphabet +", "+_8", "bad_base64");
	gen_b64_case(g, "standard alphabet /", "-/8", "bad_base64");
	gen_b64_case(g, "non-zero trailing bits (1 byte)", "_x", "bad_base64");
	gen_b64_case(g, "non-zero trailing bits (2 bytes)", "-_9",
	    "bad_base64");
	gen_b64_case(g, "length 1 mod 4", "AQIDB", "bad_base64");
	gen_b64_case(g, "whitespace", "AQ ID", "bad_base64");
	gen_b64_case(g, "newline", "AQID\n", "bad_base64");
	gen_close(g);
}

static void
gen_private(struct gen *g, const struct world *w)
{
	char	*s;

	gen_open(g, "private.json", "private", "The manifest's private part "
	    "(section 8.1), the JSON sealed in \"private\": text is decoded "
	    "and encoded again as libairlox writes it (encoded). Unknown "
	    "members of job_limits are refused (not_allowed): a runner cannot "
	    "enforce what it does not understand.");
	gen_case(g, "limits as written", "decode");
	gi_str(g, "text", w->priv);
	gen_end(g, NULL, NULL);
	gen_case(g, "network allow list", "decode");
	gi_str(g, "text", "{\"v\":1,\"types\":[],\"job_limits\":{\"kinds\":"
	    "[\"shell\"],\"timeout_s\":60,\"memory_mb\":256,\"network\":"
	    "{\"mode\":\"allow\",\"allow\":[\"pypi.org\","
	    "\".pythonhosted.org\"]},"
	    "\"return_out\":false}}");
	gen_end(g, NULL, NULL);
	s = edit(w->priv, "\"timeout_s\"", "\"gpu\":1,\"timeout_s\"");
	gen_case(g, "unknown job_limits member", "decode");
	gi_str(g, "text", s);
	gen_end(g, "not_allowed", NULL);
	free(s);
	gen_close(g);
}

static void
gi_manifest_v1(struct gen *g, const struct world *w, int execute,
    int64_t item_max)
{
	gi_hex(g, "owner_seed", w->seed[ALX_ROLE_OWNER], 32);
	gi_hex(g, "sender_seed", w->seed[ALX_ROLE_SENDER], 32);
	gi_hex(g, "observer_seed", w->seed[ALX_ROLE_OBSERVER], 32);
	if (execute)
		gi_hex(g, "runner_seed", w->seed[ALX_ROLE_RUNNER], 32);
	gi_hex(g, "nonce", w->nonce, 16);
	gi_str(g, "mode", execute ? "execute" : "chat");
	gi_int(g, "created", 1767225600);
	gi_int(g, "expires", execute ? 0 : 1767312000);
	gi_int(g, "item_max", item_max);
	gi_int(g, "session_max", 100 * 1024 * 1024);
	alx_jw_kbool(&g->in, "approve", execute);
	gi_hex(g, "epoch_key", w->ekey0, 32);
	gi_eph(g, "v1", execute);
	gi_str(g, "private", w->priv);
}

/* v2: approve R1, revoke S1, rotate the sender role keeping S2, epoch 1. */
static void
gi_manifest_v2(struct gen *g, const struct world *w)
{
	static const char *const labels[] = { "gpu", "linux" };
	uint8_t	esk[32];

	gi_manifests(g, w->v1, NULL, NULL);
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "owner_signing_seed", w->owner_sign_seed, 32);
	alx_jw_key(&g->in, "approve");
	alx_jw_obj_begin(&g->in);
	gi_hex(g, "fp", w->pfp[P_R1], 16);
	gi_str(g, "name", "gpu-box");
	gi_texts(g, "labels", labels, 2);
	alx_jw_obj_end(&g->in);
	alx_jw_key(&g->in, "revoke");
	alx_jw_arr_begin(&g->in);
	gi_hex_elem(g, w->pfp[P_S1], 16);
	alx_jw_arr_end(&g->in);
	alx_jw_key(&g->in, "rotate");
	alx_jw_obj_begin(&g->in);
	gi_str(g, "role", "sender");
	gi_hex(g, "seed", w->new_sender_seed, 32);
	alx_jw_key(&g->in, "keep");
	alx_jw_arr_begin(&g->in);
	alx_jw_obj_begin(&g->in);
	gi_hex(g, "fp", w->pfp[P_S2], 16);
	gi_hex(g, "kx", w->pkx[P_S2], 32);
	fx("v2 eph kept review-agent", esk, 32);
	gi_hex(g, "eph", esk, 32);
	alx_jw_obj_end(&g->in);
	alx_jw_arr_end(&g->in);
	alx_jw_obj_end(&g->in);
	alx_jw_kbool(&g->in, "new_epoch", 1);
	gi_hex(g, "epoch_key", w->ekey1, 32);
	gi_eph(g, "v2", 1);
	gi_str(g, "private", w->priv);
	/* For the self-check: the roles whose seeds open the new wraps. */
	gi_hex(g, "owner_seed", w->seed[ALX_ROLE_OWNER], 32);
	gi_hex(g, "sender_seed", w->new_sender_seed, 32);
	gi_hex(g, "observer_seed", w->seed[ALX_ROLE_OBSERVER], 32);
	gi_hex(g, "runner_seed", w->seed[ALX_ROLE_RUNNER], 32);
}

static void
gen_epoch_case(struct gen *g, const struct world *w, const char *name,
    int v2, const char *to, const uint8_t *role_seed, const uint8_t *kxs,
    const char *want)
{
	gen_case(g, name, "epoch_key");
	gi_manifests(g, w->v1, v2 ? w->v2 : NULL, NULL);
	gi_hex(g, "sid", w->sid, 16);
	gi_str(g, "to", to);
	if (role_seed != NULL)
		gi_hex(g, "role_seed", role_seed, 32);
	else
		gi_hex(g, "kx_secret", kxs, 32);
	gen_end(g, want, NULL);
}

static void
gen_open_case(struct gen *g, const char *name, const uint8_t *sid,
    const char *a, const char *b, const char *c, const char *want)
{
	gen_case(g, name, "open");
	gi_manifests(g, a, b, c);
	gi_hex(g, "sid", sid, 16);
	gen_end(g, want, NULL);
}

/* The ekc member of a manifest body, as it is written. */
static char *
ekc_member(const uint8_t ekey[32])
{
	uint8_t	ekc[32];
	char	b64[ALX_B64_ENCLEN(32) + 1], m[96];

	alx_epoch_commit(ekey, ekc);
	alx_b64_encode(b64, ekc, 32);
	snprintf(m, sizeof(m), "\"ekc\":\"%s\"", b64);
	return strdup(m);
}

/*
 * v2 whose ekc commits to another key than the one its wraps hold (the
 * epoch-0 key): every recipient refuses the key it unwraps, and the
 * private part, with bad_key_commitment.
 */
static void
gen_manifest_ekc(struct gen *g, const struct world *w)
{
	char	*good, *bad, *t, *s;

	good = ekc_member(w->ekey1);
	bad = ekc_member(w->ekey0);
	t = edit(w->v2_body, good, bad);
	s = craft("manifest", w->owner_sign_seed, t);
	gen_open_case(g, "v2 whose ekc commits to another key (it opens: "
	    "only a key holder can tell)", w->sid, w->v1, s, NULL, NULL);
	gen_case(g, "v2 whose ekc commits to another key: the observer's "
	    "wrap", "epoch_key");
	gi_manifests(g, w->v1, s, NULL);
	gi_hex(g, "sid", w->sid, 16);
	gi_str(g, "to", "observer");
	gi_hex(g, "role_seed", w->seed[ALX_ROLE_OBSERVER], 32);
	gen_end(g, "bad_key_commitment", NULL);
	gen_case(g, "v2 whose ekc commits to another key: the private part",
	    "private");
	gi_manifests(g, w->v1, s, NULL);
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "epoch_key", w->ekey1, 32);
	gen_end(g, "bad_key_commitment", NULL);
	free(s);
	free(t);
	free(good);
	free(bad);
}

static void
gen_manifest(struct gen *g, struct world *w)
{
	struct outs	 o;
	struct world	 w2;
	char		*s, *t;
	size_t		 i;

	gen_open(g, "manifest.json", "manifest", "Manifests (section 4). op "
	    "create: version 1 from the owner and role seeds (keys as in "
	    "keys.json), the epoch-0 key wrapped to owner and each role with "
	    "the ephemeral X25519 secrets in eph (wrap.json), private sealed "
	    "(private.json); expected body, object, sid, hash. op update: the "
	    "next version on top of the chain in manifests (v1 first): "
	    "approve a runner, revoke participants, rotate a role (keep lists "
	    "the role's participants that carry on, with their kx keys), and "
	    "with new_epoch a new epoch key wrapped to owner, roles and kept "
	    "members in that order; ekc = HKDF-SHA-256(epoch key, \"\", "
	    "\"airlox/v1/epoch-commit\", 32) commits to the epoch key. op "
	    "open: open the chain for the anchor sid; op epoch_key: open the "
	    "current epoch key for `to` with a role seed or a participant's "
	    "kx secret, and check it against ekc; op private: open the "
	    "private part (its key checked against ekc first). Objects, sids "
	    "and fingerprints are reused by the other files.");
	gen_case(g, "v1, execute mode", "create");
	gi_manifest_v1(g, w, 1, 10 * 1024 * 1024);
	gen_end(g, NULL, &o);
	w->v1 = kept(&o, "object");
	w->v1_body = kept(&o, "body");
	unhex(out_get(&o, "sid_hex"), w->sid, 16);
	outs_free(&o);
	gen_case(g, "v1, chat mode", "create");
	gi_manifest_v1(g, w, 0, 10 * 1024 * 1024);
	gen_end(g, NULL, NULL);
	gen_case(g, "v1, item_max 1 MiB", "create");
	gi_manifest_v1(g, w, 1, 1024 * 1024);
	gen_end(g, NULL, &o);
	w->small = kept(&o, "object");
	unhex(out_get(&o, "sid_hex"), w->small_sid, 16);
	outs_free(&o);
	gen_case(g, "v2: approve, revoke, rotate sender, epoch 1", "update");
	gi_manifest_v2(g, w);
	gen_end(g, NULL, &o);
	w->v2 = kept(&o, "object");
	w->v2_body = kept(&o, "body");
	outs_free(&o);

	gen_open_case(g, "open v1", w->sid, w->v1, NULL, NULL, NULL);
	gen_open_case(g, "open v1 then v2", w->sid, w->v1, w->v2, NULL, NULL);
	for (i = ALX_ROLE_OWNER; i < ALX_ROLE_COUNT; i++)
		gen_epoch_case(g, w, alx_role_name((int)i), 0,
		    alx_role_name((int)i), w->seed[i], NULL, NULL);
	gen_epoch_case(g, w, "v2: new sender seed", 1, "sender",
	    w->new_sender_seed, NULL, NULL);
	gen_epoch_case(g, w, "v2: kept member", 1, w->pfps[P_S2], NULL,
	    w->pkxs[P_S2], NULL);
	gen_epoch_case(g, w, "v2: observer", 1, "observer",
	    w->seed[ALX_ROLE_OBSERVER], NULL, NULL);
	gen_case(g, "private part of v2", "private");
	gi_manifests(g, w->v1, w->v2, NULL);
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "epoch_key", w->ekey1, 32);
	gen_end(g, NULL, NULL);

	/* Negative. */
	gen_open_case(g, "another session id (anchor)", w->other_sid, w->v1,
	    NULL, NULL, "wrong_session");
	memcpy(&w2, w, sizeof(w2));
	fx("another owner seed", w2.seed[ALX_ROLE_OWNER], 32);
	gen_case(g, "another owner's v1", "create");
	gi_manifest_v1(g, &w2, 1, 10 * 1024 * 1024);
	gen_end(g, NULL, &o);
	gen_open_case(g, "another owner's v1 for this session id", w->sid,
	    out_get(&o, "object"), NULL, NULL, "wrong_session");
	outs_free(&o);
	gen_open_case(g, "v2 without v1", w->sid, w->v2, NULL, NULL,
	    "bad_order");
	gen_open_case(g, "v2 replayed as v3", w->sid, w->v1, w->v2, w->v2,
	    "bad_order");
	s = craft("manifest", w->pseed[P_X], w->v2_body);
	gen_open_case(g, "v2 signed by another key", w->sid, w->v1, s, NULL,
	    "unknown_key");
	free(s);
	t = edit(w->v2_body, "{\"v\":2,", "{\"v\":3,");
	s = craft("manifest", w->owner_sign_seed, t);
	gen_open_case(g, "v2 body of unknown version", w->sid, w->v1, s, NULL,
	    "unsupported_version");
	free(s);
	free(t);
	t = edit(w->v2_body, "{\"v\":2,", "{\"v\":1,");
	s = craft("manifest", w->owner_sign_seed, t);
	gen_open_case(g, "v2 body of protocol 1 (no key commitment)", w->sid,
	    w->v1, s, NULL, "unsupported_version");
	free(s);
	free(t);
	gen_manifest_ekc(g, w);
	t = edit(w->v2_body, "\"ver\":2", "\"ver\":3");
	s = craft("manifest", w->owner_sign_seed, t);
	gen_open_case(g, "version skips", w->sid, w->v1, s, NULL,
	    "bad_order");
	free(s);
	free(t);
	t = edit(w->v2_body, "\"epoch\":1", "\"epoch\":1,\"epoch\":1");
	s = craft("manifest", w->owner_sign_seed, t);
	gen_open_case(g, "duplicate key in the body", w->sid, w->v1, s, NULL,
	    "duplicate_key");
	free(s);
	free(t);
	t = edit(w->v2_body, "\"epoch\":1", "\"epoch\":1,\"future\":{\"x\":1}");
	s = craft("manifest", w->owner_sign_seed, t);
	gen_open_case(g, "unknown body member is ignored", w->sid, w->v1, s,
	    NULL, NULL);
	free(s);
	free(t);
	s = strstr(w->v2_body, "\"private\":\"");
	if (s == NULL)
		abort();
	t = flip_b64_char(w->v2_body, (size_t)(s - w->v2_body) + 20);
	s = craft("manifest", w->owner_sign_seed, t);
	gen_case(g, "flipped bit in the private part", "private");
	gi_manifests(g, w->v1, s, NULL);
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "epoch_key", w->ekey1, 32);
	gen_end(g, "bad_ciphertext", NULL);
	free(s);
	free(t);
	gen_epoch_case(g, w, "v2: old sender seed after rotation", 1,
	    "sender", w->seed[ALX_ROLE_SENDER], NULL, "bad_ciphertext");
	gen_epoch_case(g, w, "v2: revoked member has no wrap", 1,
	    w->pfps[P_S1], NULL, w->pkxs[P_S1], "not_recipient");
	gen_epoch_case(g, w, "observer key on the sender's wrap", 0, "sender",
	    w->seed[ALX_ROLE_OBSERVER], NULL, "bad_ciphertext");
	gen_close(g);
}

static void
gen_sid(struct gen *g, const struct world *w)
{
	gen_open(g, "sid.json", "sid", "Session ids (section 4): sid = the "
	    "first 16 bytes of SHA-256(\"airlox/v1/sid\" || 0x00 || body of "
	    "manifest version 1), body being the exact bytes of the object's "
	    "base64url body member. The object must open for exactly this "
	    "anchor (manifest.json has the negative cases).");
	gen_case(g, "manifest v1 of manifest.json", "derive");
	gi_str(g, "object", w->v1);
	gen_end(g, NULL, NULL);
	gen_close(g);
}

static void
gen_signed_open(struct gen *g, const char *name, const char *obj,
    const char *type, const uint8_t key[32], const char *want)
{
	gen_case(g, name, "open");
	gi_str(g, "object", obj);
	gi_str(g, "type", type);
	gi_hex(g, "key", key, 32);
	gen_end(g, want, NULL);
}

static void
gen_signed(struct gen *g, const struct world *w)
{
	struct outs	 o;
	uint8_t		 key[32];
	char		*obj, *s, *t, *big;
	const char	*p;
	size_t		 i;

	gen_open(g, "signed.json", "signed", "Signed objects (section 3): "
	    "{\"v\":1,\"t\":TYPE,\"key\":B64(pk),\"body\":B64(body),\"sig\":"
	    "B64(sig)}, sig = Ed25519 by the key of seed (RFC 8032) over "
	    "message = \"airlox/v1/\" || TYPE || 0x00 || body; hash = SHA-256("
	    "\"airlox/v1/hash\" || 0x00 || TYPE || 0x00 || body). op seal: "
	    "expected key, message (hex), sig, object (exact text), hash. op "
	    "open: object checked for type with key trusted; expected body "
	    "(exact text) and hash, or the error.");
	gen_case(g, "cert body", "seal");
	gi_str(g, "type", "cert");
	gi_hex(g, "seed", w->pseed[P_S2], 32);
	gi_str(g, "body", "{\"v\":1,\"note\":\"any bytes: the body is not "
	    "parsed here\"}");
	gen_end(g, NULL, &o);
	obj = kept(&o, "object");
	unhex(out_get(&o, "key"), key, 32);
	outs_free(&o);
	gen_case(g, "item body with UTF-8", "seal");
	gi_str(g, "type", "item");
	gi_hex(g, "seed", w->pseed[P_S2], 32);
	gi_str(g, "body", "{\"v\":1,\"text\":\"gr\xc3\xbc\xc3\x9f "
	    "\xe2\x9c\x93\"}");
	gen_end(g, NULL, NULL);
	gen_signed_open(g, "open", obj, "cert", key, NULL);

	/* Negative. */
	p = strstr(obj, "\"sig\":\"");
	s = flip_b64_char(obj, (size_t)(p - obj) + 10);
	gen_signed_open(g, "flipped signature bit", s, "cert", key,
	    "bad_signature");
	free(s);
	s = edit(obj, "\"t\":\"cert\"", "\"t\":\"claim\"");
	gen_signed_open(g, "type changed (domain separation)", s, "claim",
	    key, "bad_signature");
	free(s);
	gen_signed_open(g, "another type expected", obj, "item", key,
	    "bad_request");
	gen_signed_open(g, "key not trusted", obj, "cert", w->ppk[P_S1],
	    "unknown_key");
	s = edit(obj, "{\"v\":1,", "{\"v\":2,");
	gen_signed_open(g, "unknown outer version", s, "cert", key,
	    "unsupported_version");
	free(s);
	s = edit(obj, "{\"v\":1,", "{\"v\":1,\"x\":0,");
	gen_signed_open(g, "extra outer member", s, "cert", key,
	    "bad_request");
	free(s);
	s = edit(obj, "{\"v\":1,", "{\"v\":1,\"v\":1,");
	gen_signed_open(g, "duplicate outer member", s, "cert", key,
	    "duplicate_key");
	free(s);
	s = edit(obj, "\"t\":\"cert\"", "\"t\":\"cert\",\"t\":\"cert\"");
	gen_signed_open(g, "duplicate t", s, "cert", key, "duplicate_key");
	free(s);
	s = edit(obj, "\",\"sig\"", "=\",\"sig\"");
	gen_signed_open(g, "padded base64 body", s, "cert", key,
	    "bad_base64");
	free(s);
	/* The body's base64 ends in unused bits: set one. */
	p = strstr(obj, "\",\"sig\"");
	s = strdup(obj);
	i = (size_t)(p - obj) - 1;
	s[i] = s[i] == 'A' ? 'B' : s[i] == 'Q' ? 'R' : s[i] == 'g' ? 'h' :
	    s[i] == 'w' ? 'x' : s[i];
	gen_signed_open(g, "non-zero trailing bits in body", s, "cert", key,
	    "bad_base64");
	free(s);
	p = strstr(obj, "\"key\":\"");
	s = strdup(obj);
	i = (size_t)(p - obj) + 7;
	s[i] = '+';
	gen_signed_open(g, "standard base64 '+' in key", s, "cert", key,
	    "bad_base64");
	free(s);
	s = edit(obj, "{\"v\":1,", "{ \"v\":1,");
	gen_signed_open(g, "whitespace is valid JSON", s, "cert", key, NULL);
	free(s);
	s = edit(obj, ",\"sig\":", ",\"sign\":");
	gen_signed_open(g, "unknown member instead of sig", s, "cert", key,
	    "bad_request");
	free(s);
	/* A cert body one byte over 4 KiB. */
	if ((big = malloc(ALX_SMALL_BODY_MAX + 64)) == NULL)
		abort();
	strcpy(big, "{\"v\":1,\"pad\":\"");
	i = ALX_SMALL_BODY_MAX + 1 - strlen(big) - 2;	/* 4097 bytes */
	t = big + strlen(big);
	memset(t, 'x', i);
	strcpy(t + i, "\"}");
	s = craft("item", w->pseed[P_S2], big);
	t = edit(s, "\"t\":\"item\"", "\"t\":\"cert\"");
	gen_signed_open(g, "cert body over 4 KiB", t, "cert", key,
	    "too_large");
	free(s);
	free(t);
	free(big);
	gen_signed_open(g, "truncated object", "{\"v\":1,\"t\":\"cert\"",
	    "cert", key, "bad_json");
	free(obj);
	gen_close(g);
}

static void
gi_cert(struct gen *g, const struct world *w, int who, int role, int64_t n,
    const uint8_t *signer, const uint8_t *sid)
{
	gi_hex(g, "sid", sid != NULL ? sid : w->sid, 16);
	gi_str(g, "role", alx_role_name(role));
	gi_int(g, "n", n);
	gi_hex(g, "participant_seed", w->pseed[who], 32);
	gi_hex(g, "participant_kx_secret", w->pkxs[who], 32);
	gi_str(g, "name", p_names[who]);
	gi_str(g, "kind", role == ALX_ROLE_RUNNER ? "runner" : "agent");
	gi_int(g, "time", 1767225700);
	gi_hex(g, "signer_role_seed", signer, 32);
}

/* Sign a certificate (a case) and return its object. */
static char *
gen_cert_sign(struct gen *g, const struct world *w, const char *name,
    int who, int role, int64_t n, const uint8_t *signer, const uint8_t *sid)
{
	struct outs	 o;
	char		*obj;

	gen_case(g, name, "sign");
	gi_cert(g, w, who, role, n, signer, sid);
	gen_end(g, NULL, &o);
	obj = kept(&o, "object");
	outs_free(&o);
	return obj;
}

static void
gen_cert_open(struct gen *g, const struct world *w, const char *name,
    const char *obj, int v2, const char *want)
{
	gen_case(g, name, "open");
	gi_str(g, "object", obj);
	gi_manifests(g, w->v1, v2 ? w->v2 : NULL, NULL);
	gi_hex(g, "sid", w->sid, 16);
	gen_end(g, want, NULL);
}

static void
gen_cert(struct gen *g, const struct world *w)
{
	uint8_t	 role_sign[32];
	char	*c[P_COUNT], *s, *t, *body;
	int	 i;

	gen_open(g, "cert.json", "cert", "Certificates (section 5): a "
	    "participant's Ed25519 key (from participant_seed) and X25519 key "
	    "(from participant_kx_secret) certified by the Ed25519 key that "
	    "signer_role_seed derives (keys.json), signed object type cert. op "
	    "sign: expected body, object, fp. op open: checked against the "
	    "manifest chain of manifest.json (v1, or v1 then v2 where the "
	    "sender S1 build-agent is revoked and the sender role rotated, "
	    "keeping review-agent).");
	for (i = 0; i < P_COUNT; i++) {
		int role = p_roles[i];
		c[i] = gen_cert_sign(g, w, p_names[i], i, role,
		    role == ALX_ROLE_OWNER ? 0 : 1, w->seed[role], NULL);
	}
	for (i = 0; i < P_COUNT; i++)
		gen_cert_open(g, w, p_names[i], c[i], 0, NULL);
	gen_cert_open(g, w, "kept across the rotation", c[P_S2], 1, NULL);
	gen_cert_open(g, w, "observer in v2", c[P_OBS], 1, NULL);
	s = gen_cert_sign(g, w, "late, by the new sender key", P_X,
	    ALX_ROLE_SENDER, 2, w->new_sender_seed, NULL);
	gen_cert_open(g, w, "new sender key in v2", s, 1, NULL);
	gen_cert_open(g, w, "new sender key in v1", s, 0, "wrong_role");
	free(s);

	/* Negative. */
	gen_cert_open(g, w, "revoked", c[P_S1], 1, "revoked");
	gen_cert_open(g, w, "old sender key after rotation, not kept",
	    c[P_X], 1, "revoked");
	s = gen_cert_sign(g, w, "sender claimed with the observer key", P_X,
	    ALX_ROLE_SENDER, 1, w->seed[ALX_ROLE_OBSERVER], NULL);
	gen_cert_open(g, w, "wrong role", s, 0, "wrong_role");
	free(s);
	s = gen_cert_sign(g, w, "owner claimed with the sender key", P_X,
	    ALX_ROLE_OWNER, 0, w->seed[ALX_ROLE_SENDER], NULL);
	gen_cert_open(g, w, "owner claimed by a sender", s, 0, "wrong_role");
	free(s);
	s = gen_cert_sign(g, w, "runner claimed with generation 0", P_R2,
	    ALX_ROLE_RUNNER, 0, w->seed[ALX_ROLE_RUNNER], NULL);
	gen_cert_open(g, w, "generation 0", s, 0, "wrong_role");
	free(s);
	s = gen_cert_sign(g, w, "another session", P_S2, ALX_ROLE_SENDER, 1,
	    w->seed[ALX_ROLE_SENDER], w->other_sid);
	gen_cert_open(g, w, "moved to another session", s, 0,
	    "wrong_session");
	free(s);
	/* Bodies crafted around a valid signature by the sender role key. */
	{
		struct alx_signkey	sk;

		alx_seed_keys(w->seed[ALX_ROLE_SENDER], &sk, NULL);
		alx_sign_seed(&sk, role_sign);
		alx_sign_wipe(&sk);
	}
	s = strstr(c[P_S2], "\"body\":\"") + 8;
	t = strndup(s, strcspn(s, "\""));
	body = malloc(strlen(t) + 1);
	{
		size_t bl;
		alx_b64_decode((uint8_t *)body, strlen(t), &bl, t, strlen(t));
		body[bl] = '\0';
	}
	free(t);
	t = edit(body, "\"name\":", "\"name\":\"x\",\"name\":");
	s = craft("cert", role_sign, t);
	gen_cert_open(g, w, "duplicate key in the body", s, 0,
	    "duplicate_key");
	free(s);
	free(t);
	t = edit(body, "{\"v\":1,", "{\"v\":2,");
	s = craft("cert", role_sign, t);
	gen_cert_open(g, w, "unknown body version", s, 0,
	    "unsupported_version");
	free(s);
	free(t);
	t = edit(body, "\"kind\":", "\"avatar\":\"cat.png\",\"kind\":");
	s = craft("cert", role_sign, t);
	gen_cert_open(g, w, "unknown body member is ignored", s, 0, NULL);
	free(s);
	free(t);
	t = edit(body, "\"role\":\"sender\"", "\"role\":\"admin\"");
	s = craft("cert", role_sign, t);
	gen_cert_open(g, w, "unknown role", s, 0, "wrong_role");
	free(s);
	free(t);
	free(body);
	for (i = 0; i < P_COUNT; i++)
		free(c[i]);
	gen_close(g);
}

/* A base64url text's last character with one unused bit set. */
static char
b64_dirty(char c)
{
	return c == 'A' ? 'B' : c == 'Q' ? 'R' : c == 'g' ? 'h' :
	    c == 'w' ? 'x' : c;
}

static void
gi_content(struct gen *g, const struct world *w, const uint8_t *sid,
    const uint8_t *id, int author, const char *kind, const uint8_t k[32])
{
	gi_hex(g, "sid", sid, 16);
	gi_hex(g, "id", id, 16);
	gi_hex(g, "author", w->pfp[author], 16);
	gi_str(g, "kind", kind);
	gi_hex(g, "item_key", k, 32);
}

/* kc of an item key (section 6). */
static void
kc_of(const uint8_t k[32], uint8_t kc[32])
{
	if (alx_item_commit(k, kc) != ALX_OK)
		abort();
}

static void
gen_meta_open(struct gen *g, const struct world *w, const char *name,
    const uint8_t *sid, const uint8_t *id, int author, const char *kind,
    const uint8_t *k, const uint8_t *kc, const uint8_t *ct, size_t ctlen,
    const char *want)
{
	gen_case(g, name, "open");
	gi_content(g, w, sid, id, author, kind, k);
	gi_hex(g, "kc", kc, 32);
	gi_hex(g, "ct", ct, ctlen);
	gen_end(g, want, NULL);
}

/* A seed of fuzz-chunk: its header, then the ciphertext. */
static void
gen_chunk_seed(struct gen *g, uint32_t size, int kind, const uint8_t *sid,
    const uint8_t *id, const uint8_t *author, const uint8_t *k,
    const uint8_t *ct, size_t len)
{
	uint8_t	*b;
	size_t	 n = 4 + 1 + 1 + 16 + 16 + 16 + 32;

	if ((b = malloc(n + len)) == NULL)
		abort();
	b[0] = (uint8_t)(size >> 24);
	b[1] = (uint8_t)(size >> 16);
	b[2] = (uint8_t)(size >> 8);
	b[3] = (uint8_t)size;
	b[4] = 0;
	b[5] = (uint8_t)kind;	/* 0 text, 1 file */
	memcpy(b + 6, sid, 16);
	memcpy(b + 22, id, 16);
	memcpy(b + 38, author, 16);
	memcpy(b + 54, k, 32);
	memcpy(b + n, ct, len);
	gen_seed(g, "fuzz-chunk", "", (const char *)b, n + len);
	free(b);
}

static void
gen_meta(struct gen *g, const struct world *w)
{
	struct outs	 o;
	uint8_t		 id[16], k[32], k2[32], kc[32], kc2[32], *ct;
	size_t		 len;

	gen_open(g, "meta.json", "meta", "Sealed meta (section 6): kc = "
	    "HKDF-SHA-256(item_key, salt empty, \"airlox/v1/commit\", 32) is "
	    "the commitment the item envelope signs; k_meta = HKDF-SHA-256("
	    "item_key, salt empty, \"airlox/v1/meta\", 32); aad = "
	    "\"airlox/v1/meta\" || 0x00 || sid || id || author (fp, 16 bytes) "
	    "|| kind || 0x00; ct = AES-256-GCM(k_meta, nonce 12 zero bytes, "
	    "aad, meta) with the 16-byte tag appended. op open: with the "
	    "envelope's kc, check item_key against kc (bad_key_commitment), "
	    "then open; gives meta or the error.");
	fx("meta item id", id, 16);
	fx("meta item key", k, 32);
	fx("another item key", k2, 32);
	kc_of(k, kc);
	kc_of(k2, kc2);
	gen_case(g, "text message", "seal");
	gi_content(g, w, w->sid, id, P_S2, "text", k);
	gi_str(g, "meta", "{\"v\":1,\"text\":\"hello, world\"}");
	gen_end(g, NULL, &o);
	hex_decode(out_get(&o, "ct"), &ct, &len);
	outs_free(&o);
	gen_chunk_seed(g, 0, 0, w->sid, id, w->pfp[P_S2], k, ct, len);
	gen_case(g, "file name and type", "seal");
	gi_content(g, w, w->sid, id, P_S2, "file", k);
	gi_str(g, "meta", "{\"v\":1,\"name\":\"report.pdf\",\"type\":"
	    "\"application/pdf\"}");
	gen_end(g, NULL, NULL);
	gen_meta_open(g, w, "open", w->sid, id, P_S2, "text", k, kc, ct, len,
	    NULL);
	ct[3] ^= 0x01;
	gen_meta_open(g, w, "flipped ciphertext bit", w->sid, id, P_S2,
	    "text", k, kc, ct, len, "bad_ciphertext");
	ct[3] ^= 0x01;
	ct[len - 1] ^= 0x80;
	gen_meta_open(g, w, "flipped tag bit", w->sid, id, P_S2, "text", k,
	    kc, ct, len, "bad_ciphertext");
	ct[len - 1] ^= 0x80;
	gen_meta_open(g, w, "a key the envelope does not commit to", w->sid,
	    id, P_S2, "text", k2, kc, ct, len, "bad_key_commitment");
	gen_meta_open(g, w, "wrong key, with its own commitment", w->sid, id,
	    P_S2, "text", k2, kc2, ct, len, "bad_ciphertext");
	gen_meta_open(g, w, "moved to another kind", w->sid, id, P_S2, "file",
	    k, kc, ct, len, "bad_ciphertext");
	gen_meta_open(g, w, "moved to another session", w->other_sid, id,
	    P_S2, "text", k, kc, ct, len, "bad_ciphertext");
	gen_meta_open(g, w, "moved to another author", w->sid, id, P_S1,
	    "text", k, kc, ct, len, "bad_ciphertext");
	gen_meta_open(g, w, "moved to another item", w->sid, w->sid, P_S2,
	    "text", k, kc, ct, len, "bad_ciphertext");
	gen_meta_open(g, w, "shorter than a tag", w->sid, id, P_S2, "text", k,
	    kc, ct, ALX_TAG_LEN - 1, "truncated");
	free(ct);
	gen_close(g);
}

static void
gen_wrap_open(struct gen *g, const char *name, const uint8_t *rsk,
    const uint8_t *epk, const uint8_t *ct, const uint8_t *ctx, size_t cl,
    const char *want)
{
	gen_case(g, name, "open");
	gi_hex(g, "recipient_kx_secret", rsk, 32);
	gi_hex(g, "epk", epk, 32);
	gi_hex(g, "ct", ct, 48);
	gi_hex(g, "ctx", ctx, cl);
	gen_end(g, want, NULL);
}

static void
gen_wrap(struct gen *g, const struct world *w)
{
	struct alx_kxkey	 okx;
	struct outs		 o;
	uint8_t			 ctx[64], jctx[64], esk[32], key[32];
	uint8_t			 epk[32];
	uint8_t			 ct[48], zero[32], id[16];
	size_t			 cl, jl;

	gen_open(g, "wrap.json", "wrap", "Key wraps (section 4): shared = "
	    "X25519(eph_secret, recipient_pk); wrap_key = HKDF-SHA-256(shared, "
	    "salt epk || recipient_pk, info \"airlox/v1/wrap\" || 0x00 || ctx, "
	    "32); ct = AES-256-GCM(wrap_key, 12 zero bytes, aad ctx, key). ctx "
	    "is \"manifest\" || 0x00 || sid_or_zero || be64(epoch) for epoch "
	    "keys and \"job\" || 0x00 || sid || item id for job keys. json is "
	    "the wrap as it appears in a \"wraps\" array. op open gives key or "
	    "the error.");
	alx_seed_keys(w->seed[ALX_ROLE_OWNER], NULL, &okx);
	cl = alx_wrap_ctx_manifest(ctx, NULL, 0);
	fx("wrap eph 1", esk, 32);
	gen_case(g, "epoch 0 key to the owner", "seal");
	gi_hex(g, "recipient_kx_secret", okx.sk, 32);
	gi_hex(g, "eph_secret", esk, 32);
	gi_hex(g, "ctx", ctx, cl);
	gi_hex(g, "key", w->ekey0, 32);
	gi_str(g, "to", "owner");
	gen_end(g, NULL, &o);
	unhex(out_get(&o, "epk"), epk, 32);
	unhex(out_get(&o, "ct"), ct, 48);
	outs_free(&o);
	fx("wrap job id", id, 16);
	jl = alx_wrap_ctx_job(jctx, w->sid, id);
	fx("wrap eph 2", esk, 32);
	fx("wrap job key", key, 32);
	gen_case(g, "job key to a runner", "seal");
	gi_hex(g, "recipient_kx_secret", w->pkxs[P_R1], 32);
	gi_hex(g, "eph_secret", esk, 32);
	gi_hex(g, "ctx", jctx, jl);
	gi_hex(g, "key", key, 32);
	gi_str(g, "to", w->pfps[P_R1]);
	gen_end(g, NULL, NULL);
	gen_wrap_open(g, "open", okx.sk, epk, ct, ctx, cl, NULL);
	ct[0] ^= 0x01;
	gen_wrap_open(g, "flipped ciphertext bit", okx.sk, epk, ct, ctx, cl,
	    "bad_ciphertext");
	ct[0] ^= 0x01;
	ct[47] ^= 0x01;
	gen_wrap_open(g, "flipped tag bit", okx.sk, epk, ct, ctx, cl,
	    "bad_ciphertext");
	ct[47] ^= 0x01;
	gen_wrap_open(g, "another recipient", w->pkxs[P_R1], epk, ct, ctx,
	    cl, "bad_ciphertext");
	ctx[cl - 1] ^= 1;
	gen_wrap_open(g, "another epoch (context)", okx.sk, epk, ct, ctx, cl,
	    "bad_ciphertext");
	ctx[cl - 1] ^= 1;
	gen_wrap_open(g, "moved to a job (context)", okx.sk, epk, ct, jctx, jl,
	    "bad_ciphertext");
	epk[5] ^= 0x10;
	gen_wrap_open(g, "flipped ephemeral key bit", okx.sk, epk, ct, ctx, cl,
	    "bad_ciphertext");
	memset(zero, 0, sizeof(zero));
	gen_wrap_open(g, "small-order ephemeral key", okx.sk, zero, ct, ctx,
	    cl, "crypto_failure");
	alx_kx_wipe(&okx);
	gen_close(g);
}

static void
gen_chunk_open(struct gen *g, const struct world *w, const char *name,
    const uint8_t *id, const uint8_t *k, int64_t size, uint8_t (*h)[32],
    size_t nh, int64_t index)
{
	uint8_t	kc[32];
	size_t	i;

	gen_case(g, name, "open");
	gi_content(g, w, w->sid, id, P_S2, "file", k);
	kc_of(k, kc);
	gi_hex(g, "kc", kc, 32);
	gi_int(g, "size", size);
	alx_jw_key(&g->in, "chunks");
	alx_jw_arr_begin(&g->in);
	for (i = 0; i < nh; i++)
		gi_hex_elem(g, h[i], 32);
	alx_jw_arr_end(&g->in);
	gi_int(g, "index", index);
}

/* The two-key chunk: see chunk.json's description. */
static void
gen_chunk_two_keys(struct gen *g, const struct world *w)
{
	struct alx_item	 it;
	uint8_t		 ka[32], kb[32], kca[32], kcb[32], nonce[12];
	uint8_t		 aad[160], ct[64 + ALX_TAG_LEN], h[1][32], id[16];
	size_t		 al;
	int		 i;
	const uint8_t	*keys[2];
	const char	*names[2] = { "two-key chunk, plain GCM under key a",
			    "two-key chunk, plain GCM under key b" };

	memset(&it, 0, sizeof(it));
	fx("two-key file id", id, 16);
	fx("two-key item key a", ka, 32);
	fx("two-key item key b", kb, 32);
	memcpy(it.sid, w->sid, 16);
	memcpy(it.id, id, 16);
	memcpy(it.author, w->pfp[P_S2], 16);
	strcpy(it.kind, "file");
	alx_hkdf_sha256(kca, 32, ka, 32, NULL, 0, "airlox/v1/chunk", 15);
	alx_hkdf_sha256(kcb, 32, kb, 32, NULL, 0, "airlox/v1/chunk", 15);
	memset(nonce, 0, sizeof(nonce));
	al = content_aad(aad, "airlox/v1/chunk", &it);
	alx_be64(aad + al, 0);
	al += 8;
	aad[al++] = 1;
	rule_fill(ct, 64, 0);
	if (gcm_collide(kca, kcb, nonce, aad, al, ct, 64, ct + 64) != 0)
		gen_fail(g, "no two-key ciphertext");
	alx_sha256(h[0], ct, sizeof(ct));
	keys[0] = ka;
	keys[1] = kb;
	for (i = 0; i < 2; i++) {
		gen_case(g, names[i], "gcm");
		gi_content(g, w, w->sid, id, P_S2, "file", keys[i]);
		gi_int(g, "chunk_count", 1);
		gi_int(g, "index", 0);
		gi_hex(g, "ct", ct, sizeof(ct));
		gen_end(g, NULL, NULL);
	}
	gen_chunk_open(g, w, "two-key chunk, the key the envelope commits to",
	    id, ka, 64, h, 1, 0);
	gi_hex(g, "ct", ct, sizeof(ct));
	gen_end(g, NULL, NULL);
	kc_of(ka, kca);
	gen_case(g, "two-key chunk, the other key", "open");
	gi_content(g, w, w->sid, id, P_S2, "file", kb);
	gi_hex(g, "kc", kca, 32);
	gi_int(g, "size", 64);
	alx_jw_key(&g->in, "chunks");
	alx_jw_arr_begin(&g->in);
	gi_hex_elem(g, h[0], 32);
	alx_jw_arr_end(&g->in);
	gi_int(g, "index", 0);
	gi_hex(g, "ct", ct, sizeof(ct));
	gen_end(g, "bad_key_commitment", NULL);
}

static void
gen_chunk(struct gen *g, struct world *w)
{
	struct outs	 o;
	uint8_t		 k[32], h[3][32], hs[3][32], small[100], id2[16];
	uint8_t		 sh[1][32], *ct, *ct2;
	size_t		 len, len2, i;
	char		 key[32];
	int64_t		 size = 2 * ALX_CHUNK_SIZE + ALX_CHUNK_SIZE / 2;

	gen_open(g, "chunk.json", "chunk", "Chunked payloads (section 6), "
	    "chunk size C = 1048576. k_chunk = HKDF-SHA-256(item_key, \"\", "
	    "\"airlox/v1/chunk\", 32); chunk i of n: nonce[i] = be32(0) || "
	    "be64(i), aad[i] = \"airlox/v1/chunk\" || 0x00 || sid || id || "
	    "author || kind || 0x00 || be64(i) || final (0x01 for i = n-1), "
	    "ct = AES-256-GCM(k_chunk, nonce[i], aad[i], plaintext bytes "
	    "[i*C, min(size, (i+1)*C))) with the tag. The payload is given "
	    "as hex (payload) or by size with the rule byte j = (j*7+3) mod "
	    "256; large chunks are given by length, SHA-256, first 64 bytes "
	    "and tag, small ones (<= 4096 bytes) whole (ct[i]). op open: the "
	    "envelope's size and chunk hashes (hex), a chunk index and its "
	    "ciphertext (ct, or ct_of_chunk j: chunk j of the rule payload "
	    "sealed for this item, or for one of ct_item_size or "
	    "ct_item_id) and kc, the envelope's commitment to the item key "
	    "(meta.json); item_key is checked against kc first "
	    "(bad_key_commitment); expected the SHA-256 of the plaintext, or "
	    "the error. The two-key chunk is one AES-GCM ciphertext made to "
	    "authenticate under two item keys (GHASH is linear in a "
	    "ciphertext block, so one block can be solved for): op gcm opens "
	    "it with plain AES-256-GCM under k_chunk of either key, to two "
	    "different plaintexts (pt_sha256, pt_head16), given chunk_count, "
	    "index and ct; op open with the envelope's kc lets only the "
	    "committed key open it.");
	alx_item_key_epoch(w->ekey0, w->item_ids[2], k);
	gen_case(g, "2.5 MiB file, 3 chunks", "seal");
	gi_content(g, w, w->sid, w->item_ids[2], P_S2, "file", k);
	gi_int(g, "size", size);
	gi_str(g, "rule", VEC_RULE);
	gen_end(g, NULL, &o);
	for (i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "ct_sha256[%zu]", i);
		unhex(out_get(&o, key), h[i], 32);
	}
	outs_free(&o);
	gen_case(g, "exactly one chunk of C bytes", "seal");
	gi_content(g, w, w->sid, w->item_ids[2], P_S2, "file", k);
	gi_int(g, "size", ALX_CHUNK_SIZE);
	gi_str(g, "rule", VEC_RULE);
	gen_end(g, NULL, NULL);
	rule_fill(small, sizeof(small), 0);
	gen_case(g, "100 bytes", "seal");
	gi_content(g, w, w->sid, w->item_ids[2], P_S2, "file", k);
	gi_hex(g, "payload", small, sizeof(small));
	gen_end(g, NULL, &o);
	hex_decode(out_get(&o, "ct[0]"), &ct, &len);
	unhex(out_get(&o, "ct_sha256[0]"), sh[0], 32);
	outs_free(&o);
	gen_chunk_seed(g, 100, 1, w->sid, w->item_ids[2], w->pfp[P_S2], k, ct,
	    len);
	fx("another file id", id2, 16);
	gen_case(g, "100 bytes, another item", "seal");
	gi_content(g, w, w->sid, id2, P_S2, "file", k);
	gi_hex(g, "payload", small, sizeof(small));
	gen_end(g, NULL, &o);
	hex_decode(out_get(&o, "ct[0]"), &ct2, &len2);
	outs_free(&o);

	gen_chunk_open(g, w, "open the last of 3", w->item_ids[2], k, size, h,
	    3, 2);
	gi_int(g, "ct_of_chunk", 2);
	gen_end(g, NULL, NULL);
	gen_chunk_open(g, w, "open 100 bytes", w->item_ids[2], k, 100, sh, 1,
	    0);
	gi_hex(g, "ct", ct, len);
	gen_end(g, NULL, NULL);

	/* Negative. */
	gen_chunk_open(g, w, "chunk 0 offered as chunk 1 (reordered)",
	    w->item_ids[2], k, size, h, 3, 1);
	gi_int(g, "ct_of_chunk", 0);
	gen_end(g, "bad_hash", NULL);
	memcpy(hs[0], h[1], 32);
	memcpy(hs[1], h[0], 32);
	memcpy(hs[2], h[2], 32);
	gen_chunk_open(g, w, "envelope lists chunks 0 and 1 swapped",
	    w->item_ids[2], k, size, hs, 3, 1);
	gi_int(g, "ct_of_chunk", 0);
	gen_end(g, "bad_ciphertext", NULL);
	gen_chunk_open(g, w, "truncated chunk list (size of 3, 2 listed)",
	    w->item_ids[2], k, size, h, 2, 1);
	gi_int(g, "ct_of_chunk", 1);
	gen_end(g, "not_found", NULL);
	gen_chunk_open(g, w, "non-final chunk offered as the final one "
	    "(payload cut after chunk 0)", w->item_ids[2], k, ALX_CHUNK_SIZE,
	    h, 1, 0);
	gi_int(g, "ct_of_chunk", 0);
	gi_int(g, "ct_item_size", size);
	gen_end(g, "bad_ciphertext", NULL);
	gen_chunk_open(g, w, "index past the last chunk", w->item_ids[2], k,
	    size, h, 3, 3);
	gi_int(g, "ct_of_chunk", 2);
	gen_end(g, "not_found", NULL);
	ct[10] ^= 0x04;
	gen_chunk_open(g, w, "flipped ciphertext bit", w->item_ids[2], k, 100,
	    sh, 1, 0);
	gi_hex(g, "ct", ct, len);
	gen_end(g, "bad_hash", NULL);
	alx_sha256(hs[0], ct, len);
	gen_chunk_open(g, w, "flipped ciphertext bit, envelope hash of the "
	    "flipped bytes", w->item_ids[2], k, 100, hs, 1, 0);
	gi_hex(g, "ct", ct, len);
	gen_end(g, "bad_ciphertext", NULL);
	ct[10] ^= 0x04;
	gen_chunk_open(g, w, "truncated ciphertext", w->item_ids[2], k, 100,
	    sh, 1, 0);
	gi_hex(g, "ct", ct, len - 1);
	gen_end(g, "truncated", NULL);
	alx_sha256(hs[0], ct2, len2);
	gen_chunk_open(g, w, "chunk moved from another item",
	    w->item_ids[2], k, 100, hs, 1, 0);
	gi_hex(g, "ct", ct2, len2);
	gen_end(g, "bad_ciphertext", NULL);
	free(ct);
	free(ct2);
	gen_chunk_two_keys(g, w);
	gen_close(g);
}

static void
gi_item(struct gen *g, const struct world *w, int author, const uint8_t *id,
    const char *kind, int64_t seq, const uint8_t *prev, const char *meta)
{
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "id", id, 16);
	gi_str(g, "kind", kind);
	gi_hex(g, "author_seed", w->pseed[author], 32);
	gi_int(g, "seq", seq);
	if (prev != NULL)
		gi_hex(g, "prev", prev, 32);
	gi_int(g, "time", 1767225800 + seq);
	gi_int(g, "mv", 1);
	gi_int(g, "epoch", 0);
	gi_hex(g, "epoch_key", w->ekey0, 32);
	gi_str(g, "meta", meta);
}

static void
gen_item_open(struct gen *g, const struct world *w, const char *name,
    const char *obj, const uint8_t *sid, int author, int64_t last_seq,
    const uint8_t *last_hash, const char *want)
{
	gen_case(g, name, "open");
	gi_str(g, "object", obj);
	gi_hex(g, "sid", sid, 16);
	gi_hex(g, "author_pk", w->ppk[author], 32);
	if (last_seq >= 0)
		gi_int(g, "last_seq", last_seq);
	if (last_hash != NULL)
		gi_hex(g, "last_hash", last_hash, 32);
	gen_end(g, want, NULL);
}

/* The body of a signed object (new string). */
static char *
body_of(const char *obj)
{
	struct alx_signed	 s;
	char			*b;

	if (alx_signed_parse(&s, obj, strlen(obj)) != ALX_OK)
		abort();
	b = strdup((const char *)s.body);
	alx_signed_free(&s);
	return b;
}

static void
gen_item_crafted(struct gen *g, const struct world *w, const char *name,
    const char *body, const char *from, const char *to, const char *want)
{
	char	*t, *s;

	t = edit(body, from, to);
	s = craft("item", w->pseed[P_S2], t);
	gen_item_open(g, w, name, s, w->sid, P_S2, -1, NULL, want);
	free(s);
	free(t);
}

static void
gen_item_check(struct gen *g, const struct world *w, const char *name,
    const char *obj, const char *m1, const char *m2, const uint8_t *msid,
    const char *want)
{
	gen_case(g, name, "check_manifest");
	gi_str(g, "object", obj);
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "author_pk", w->ppk[P_S2], 32);
	gi_manifests(g, m1, m2, NULL);
	gi_hex(g, "manifest_sid", msid, 16);
	gen_end(g, want, NULL);
}

static void
gen_item(struct gen *g, struct world *w)
{
	struct outs	 o;
	uint8_t		 k0[32], k1[32];
	char		*b0, *b2, *p, *q, *t, *s;
	int		 i;

	gen_open(g, "item.json", "item", "Item envelopes (section 7) by "
	    "review-agent (participant_seed of cert.json) in the session of "
	    "manifest.json. op seal: the item key is HKDF-SHA-256(epoch_key, "
	    "salt id, \"airlox/v1/item\", 32) (or item_key as given); meta "
	    "sealed as in meta.json, kc its commitment (meta.json), payload "
	    "chunks as in chunk.json (their SHA-256 in chunks); the body (v 2) "
	    "as libairlox writes it, signed as "
	    "in signed.json with type item; hash names the item in chains. "
	    "op open: the object for sid with author_pk trusted; with "
	    "last_seq (and last_hash) the reader's view of this author's "
	    "chain is checked too. op meta: open the meta with item_key "
	    "(checked against the envelope's kc first). op "
	    "check_manifest: the opened item against the manifest chain it "
	    "acts on (manifests, anchored by manifest_sid): its mv and epoch "
	    "must be the manifest's, its size within item_max.");
	gen_case(g, "text, first of its author", "seal");
	gi_item(g, w, P_S2, w->item_ids[0], "text", 1, NULL,
	    "{\"v\":1,\"text\":\"hello, world\"}");
	gen_end(g, NULL, &o);
	w->items[0] = kept(&o, "object");
	unhex(out_get(&o, "hash"), w->item_hash[0], 32);
	unhex(out_get(&o, "item_key"), k0, 32);
	outs_free(&o);
	gen_case(g, "text, second: prev, to, reply_to", "seal");
	gi_item(g, w, P_S2, w->item_ids[1], "text", 2, w->item_hash[0],
	    "{\"v\":1,\"text\":\"second\"}");
	alx_jw_key(&g->in, "to");
	alx_jw_arr_begin(&g->in);
	gi_hex_elem(g, w->pfp[P_OBS], 16);
	alx_jw_arr_end(&g->in);
	gi_hex(g, "reply_to", w->item_ids[0], 16);
	gen_end(g, NULL, &o);
	w->items[1] = kept(&o, "object");
	unhex(out_get(&o, "hash"), w->item_hash[1], 32);
	unhex(out_get(&o, "item_key"), k1, 32);
	outs_free(&o);
	gen_case(g, "file of 2.5 MiB in 3 chunks", "seal");
	gi_item(g, w, P_S2, w->item_ids[2], "file", 3, w->item_hash[1],
	    "{\"v\":1,\"name\":\"data.bin\",\"type\":"
	    "\"application/octet-stream\"}");
	gi_int(g, "size", 2 * ALX_CHUNK_SIZE + ALX_CHUNK_SIZE / 2);
	gi_str(g, "rule", VEC_RULE);
	gen_end(g, NULL, &o);
	w->items[2] = kept(&o, "object");
	unhex(out_get(&o, "hash"), w->item_hash[2], 32);
	outs_free(&o);
	for (i = 0; i < 3; i++)
		gen_item_open(g, w, i == 0 ? "open the first" : i == 1 ?
		    "open the second after the first" : "open the file after "
		    "the second", w->items[i], w->sid, P_S2, i,
		    i > 0 ? w->item_hash[i - 1] : NULL, NULL);
	gen_case(g, "meta of the second", "meta");
	gi_str(g, "object", w->items[1]);
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "author_pk", w->ppk[P_S2], 32);
	gi_hex(g, "item_key", k1, 32);
	gen_end(g, NULL, NULL);
	gen_case(g, "meta of the second with the first's key", "meta");
	gi_str(g, "object", w->items[1]);
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "author_pk", w->ppk[P_S2], 32);
	gi_hex(g, "item_key", k0, 32);
	gen_end(g, "bad_key_commitment", NULL);

	gen_item_check(g, w, "file within item_max of v1", w->items[2], w->v1,
	    NULL, w->sid, NULL);

	/* Negative. */
	gen_item_check(g, w, "size over item_max", w->items[2], w->small,
	    NULL, w->small_sid, "too_large");
	gen_item_check(g, w, "acts on an old manifest version", w->items[2],
	    w->v1, w->v2, w->sid, "stale_manifest");
	gen_item_open(g, w, "moved to another session", w->items[0],
	    w->other_sid, P_S2, -1, NULL, "wrong_session");
	gen_item_open(g, w, "another author's key", w->items[0], w->sid, P_S1,
	    -1, NULL, "unknown_key");
	gen_item_open(g, w, "replayed (seq repeated)", w->items[1], w->sid,
	    P_S2, 2, w->item_hash[1], "replayed");
	gen_item_open(g, w, "reordered (seq skips)", w->items[2], w->sid,
	    P_S2, 1, w->item_hash[0], "bad_order");
	gen_item_open(g, w, "prev is not the last item's hash", w->items[1],
	    w->sid, P_S2, 1, w->item_hash[2], "bad_order");
	gen_item_open(g, w, "first item seen with seq 2", w->items[1],
	    w->sid, P_S2, 0, NULL, "bad_order");
	b0 = body_of(w->items[0]);
	b2 = body_of(w->items[2]);
	/* Drop the last chunk hash from the list. */
	p = strstr(b2, "\"chunks\":[");
	q = strchr(p, ']');
	for (t = q; *t != ','; t--)
		;
	s = strndup(t, (size_t)(q - t));
	gen_item_crafted(g, w, "truncated chunk list (size of 3, 2 listed)",
	    b2, s, "", "truncated");
	free(s);
	gen_item_crafted(g, w, "size over the protocol's 100 MiB", b2,
	    "\"size\":2621440", "\"size\":104857601", "out_of_range");
	gen_item_crafted(g, w, "duplicate key in the body", b0,
	    "\"seq\":1", "\"seq\":1,\"seq\":1", "duplicate_key");
	gen_item_crafted(g, w, "unknown body version", b0, "{\"v\":2,",
	    "{\"v\":3,", "unsupported_version");
	gen_item_crafted(g, w, "body of protocol 1 (no key commitment)", b0,
	    "{\"v\":2,", "{\"v\":1,", "unsupported_version");
	p = strstr(b0, ",\"kc\":\"");
	q = strchr(p + 7, '"');
	s = strndup(p, (size_t)(q + 1 - p));
	gen_item_crafted(g, w, "no key commitment", b0, s, "",
	    "missing_field");
	free(s);
	gen_item_crafted(g, w, "unknown body member is ignored", b0,
	    "\"seq\":1", "\"seq\":1,\"priority\":\"high\"", NULL);
	gen_item_crafted(g, w, "author is not the signer's fingerprint", b0,
	    w->pfps[P_S2], w->pfps[P_S1], "unknown_key");
	s = strdup(w->pfps[P_S2]);
	s[ALX_FP_STRLEN - 1] = b64_dirty(s[ALX_FP_STRLEN - 1]);
	gen_item_crafted(g, w, "non-canonical base64 (trailing bits) in "
	    "author", b0, w->pfps[P_S2], s, "bad_base64");
	free(s);
	gen_item_crafted(g, w, "seq 1 with a prev", b0, "\"seq\":1",
	    "\"seq\":1,\"prev\":"
	    "\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"",
	    "bad_order");
	gen_item_crafted(g, w, "kind job without a job", b0,
	    "\"kind\":\"text\"", "\"kind\":\"job\"", "missing_field");
	free(b0);
	free(b2);
	gen_close(g);
}

static void
gen_chain_case(struct gen *g, const struct world *w, const char *name,
    const char *a, const char *b, const char *c, const char *want)
{
	gen_case(g, name, "check");
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "author_pk", w->ppk[P_S2], 32);
	alx_jw_key(&g->in, "items");
	alx_jw_arr_begin(&g->in);
	alx_jw_str(&g->in, a);
	if (b != NULL)
		alx_jw_str(&g->in, b);
	if (c != NULL)
		alx_jw_str(&g->in, c);
	alx_jw_arr_end(&g->in);
	gen_end(g, want, NULL);
}

static void
gen_chain(struct gen *g, const struct world *w)
{
	struct outs	 o;
	char		*other;

	gen_open(g, "chain.json", "chain", "Per-author hash chains (section "
	    "7): items of one author (the objects of item.json), opened in "
	    "the order a reader receives them; each must have seq = the "
	    "previous seq + 1 and prev = the previous item's hash "
	    "(signed.json's hash). A relay that drops, reorders, replays or "
	    "moves items is caught: bad_order, replayed, unknown_key.");
	gen_chain_case(g, w, "three in order", w->items[0], w->items[1],
	    w->items[2], NULL);
	gen_chain_case(g, w, "middle one dropped", w->items[0], w->items[2],
	    NULL, "bad_order");
	gen_chain_case(g, w, "second replayed", w->items[0], w->items[1],
	    w->items[1], "replayed");
	gen_chain_case(g, w, "first two swapped", w->items[1], w->items[0],
	    NULL, "bad_order");
	gen_chain_case(g, w, "first one replayed after the third",
	    w->items[0], w->items[1], w->items[0], "replayed");
	/* An item of S1 slipped into S2's chain. */
	gen_case(g, "an item by another author", "seal");
	gi_item(g, w, P_S1, w->item_ids[2], "text", 2, w->item_hash[0],
	    "{\"v\":1,\"text\":\"not mine\"}");
	gen_end(g, NULL, &o);
	other = kept(&o, "object");
	outs_free(&o);
	gen_chain_case(g, w, "another author's item in the chain",
	    w->items[0], other, NULL, "unknown_key");
	free(other);
	gen_close(g);
}

static void
gi_job_wrap(struct gen *g, const char *to, const uint8_t *kx,
    const char *label, const uint8_t *key)
{
	uint8_t	esk[32];

	alx_jw_obj_begin(&g->in);
	gi_str(g, "to", to);
	gi_hex(g, "kx_pk", kx, 32);
	fx(label, esk, 32);
	gi_hex(g, "eph", esk, 32);
	if (key != NULL)
		gi_hex(g, "key", key, 32);
	alx_jw_obj_end(&g->in);
}

/* A job; with runner_key, the runner's wrap holds that key instead. */
static void
gi_job(struct gen *g, const struct world *w, const uint8_t *id,
    const uint8_t *k, int label, const uint8_t *okx,
    const uint8_t *runner_key)
{
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "id", id, 16);
	gi_str(g, "kind", "job");
	gi_hex(g, "author_seed", w->pseed[P_S2], 32);
	gi_int(g, "seq", 4);
	gi_hex(g, "prev", w->item_hash[2], 32);
	gi_int(g, "time", 1767225900);
	gi_int(g, "mv", 2);
	gi_int(g, "epoch", 1);
	gi_hex(g, "item_key", k, 32);
	gi_str(g, "meta", "{\"v\":1,\"kind\":\"shell\",\"cmd\":\"make test\","
	    "\"cwd\":\"\",\"inputs\":[],\"fresh\":false,\"limits\":"
	    "{\"timeout_s\":60}}");
	alx_jw_key(&g->in, "job");
	alx_jw_obj_begin(&g->in);
	gi_str(g, label ? "label" : "runner", label ? "gpu" : "gpu-box");
	gi_int(g, "not_after", 1767229500);
	alx_jw_key(&g->in, "wraps");
	alx_jw_arr_begin(&g->in);
	gi_job_wrap(g, "owner", okx, "job eph owner", NULL);
	gi_job_wrap(g, w->pfps[P_S2], w->pkx[P_S2], "job eph author", NULL);
	gi_job_wrap(g, w->pfps[P_R1], w->pkx[P_R1], "job eph runner",
	    runner_key);
	alx_jw_arr_end(&g->in);
	alx_jw_obj_end(&g->in);
}

static void
gen_job_key(struct gen *g, const struct world *w, const char *name,
    const char *obj, const char *to, const uint8_t *kxs, const char *want)
{
	gen_case(g, name, "job_key");
	gi_str(g, "object", obj);
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "author_pk", w->ppk[P_S2], 32);
	gi_str(g, "to", to);
	gi_hex(g, "kx_secret", kxs, 32);
	gen_end(g, want, NULL);
}

static void
gen_job_expiry(struct gen *g, const struct world *w, const char *name,
    const char *obj, int64_t now, const char *want)
{
	gen_case(g, name, "expiry");
	gi_str(g, "object", obj);
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "author_pk", w->ppk[P_S2], 32);
	gi_int(g, "now", now);
	gen_end(g, want, NULL);
}

static void
gen_job(struct gen *g, const struct world *w)
{
	struct alx_kxkey	 okx, rkx;
	struct outs		 o;
	uint8_t			 id[16], k[32], k2[32];
	char			*job;

	gen_open(g, "job.json", "job", "Jobs (section 8): an item of kind "
	    "job whose item_key is random (given here) and wrapped (wrap.json, "
	    "context \"job\" || 0x00 || sid || id) to the owner's kx key, the "
	    "author's and the approved runner's it targets, with the "
	    "ephemeral secrets given. Its hash (signed.json) is what a result "
	    "binds as job_hash. op job_key: open the wrap addressed to `to` "
	    "with kx_secret (the owner's is keys.json's kx_secret of the "
	    "owner seed); nobody else gets the key: not_recipient, or "
	    "bad_ciphertext with someone else's wrap; a wrap that holds "
	    "another key than the envelope's kc commits to is "
	    "bad_key_commitment. op expiry: the job "
	    "against the reader's clock now: expired past not_after.");
	alx_seed_keys(w->seed[ALX_ROLE_OWNER], NULL, &okx);
	alx_seed_keys(w->seed[ALX_ROLE_RUNNER], NULL, &rkx);
	fx("job id", id, 16);
	fx("job key", k, 32);
	gen_case(g, "shell job for a runner by name", "seal");
	gi_job(g, w, id, k, 0, okx.pk, NULL);
	gen_end(g, NULL, &o);
	job = kept(&o, "object");
	outs_free(&o);
	gen_case(g, "shell job for a label", "seal");
	gi_job(g, w, id, k, 1, okx.pk, NULL);
	gen_end(g, NULL, NULL);
	gen_case(g, "open", "open");
	gi_str(g, "object", job);
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "author_pk", w->ppk[P_S2], 32);
	gi_int(g, "last_seq", 3);
	gi_hex(g, "last_hash", w->item_hash[2], 32);
	gen_end(g, NULL, NULL);
	gen_job_key(g, w, "owner opens", job, "owner", okx.sk, NULL);
	gen_job_key(g, w, "author opens", job, w->pfps[P_S2], w->pkxs[P_S2],
	    NULL);
	gen_job_key(g, w, "targeted runner opens", job, w->pfps[P_R1],
	    w->pkxs[P_R1], NULL);
	gen_case(g, "targeted runner reads the command", "meta");
	gi_str(g, "object", job);
	gi_hex(g, "sid", w->sid, 16);
	gi_hex(g, "author_pk", w->ppk[P_S2], 32);
	gi_hex(g, "item_key", k, 32);
	gen_end(g, NULL, NULL);

	gen_job_expiry(g, w, "at its not_after", job, 1767229500, NULL);

	/* Negative. */
	gen_job_expiry(g, w, "one second past not_after", job, 1767229501,
	    "expired");
	gen_job_key(g, w, "another runner has no wrap", job, w->pfps[P_R2],
	    w->pkxs[P_R2], "not_recipient");
	gen_job_key(g, w, "another runner on the runner's wrap", job,
	    w->pfps[P_R1], w->pkxs[P_R2], "bad_ciphertext");
	gen_job_key(g, w, "runner invite alone", job, "runner", rkx.sk,
	    "not_recipient");
	gen_job_key(g, w, "observer", job, w->pfps[P_OBS], w->pkxs[P_OBS],
	    "not_recipient");
	gen_job_key(g, w, "revoked sender", job, w->pfps[P_S1], w->pkxs[P_S1],
	    "not_recipient");
	free(job);
	/* A sender that gives the runner another key than the owner. */
	fx("another job key", k2, 32);
	gen_case(g, "shell job whose runner wrap holds another key", "seal");
	gi_job(g, w, id, k, 0, okx.pk, k2);
	gen_end(g, NULL, &o);
	job = kept(&o, "object");
	outs_free(&o);
	gen_job_key(g, w, "two keys: the owner's wrap opens", job, "owner",
	    okx.sk, NULL);
	gen_job_key(g, w, "two keys: the runner's wrap is refused", job,
	    w->pfps[P_R1], w->pkxs[P_R1], "bad_key_commitment");
	free(job);
	alx_kx_wipe(&okx);
	alx_kx_wipe(&rkx);
	gen_close(g);
}

static int
gen_all(const char *dir, const char *corpus)
{
	struct world	w;
	struct gen	g;
	int		i;

	memset(&g, 0, sizeof(g));
	g.dir = dir;
	g.corpus = corpus;
	world_init(&w);
	gen_keys(&g, &w);
	gen_fingerprint(&g, &w);
	gen_base64(&g);
	gen_private(&g, &w);
	gen_manifest(&g, &w);
	gen_sid(&g, &w);
	gen_signed(&g, &w);
	gen_cert(&g, &w);
	gen_meta(&g, &w);
	gen_wrap(&g, &w);
	gen_chunk(&g, &w);
	gen_item(&g, &w);
	gen_chain(&g, &w);
	gen_job(&g, &w);
	free(w.priv);
	free(w.v1);
	free(w.v2);
	free(w.v1_body);
	free(w.v2_body);
	free(w.small);
	for (i = 0; i < 3; i++)
		free(w.items[i]);
	return 0;
}

int
main(int argc, char **argv)
{
	const char	*dir = NULL, *corpus = NULL;
	int		 i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--write") == 0)
			dir = argv[i + 1];
		else if (strcmp(argv[i], "--corpus") == 0)
			corpus = argv[i + 1];
		else
			break;
	}
	if (dir == NULL || i != argc) {
		fprintf(stderr, "usage: mkvectors --write DIR [--corpus DIR]\n");
		return 2;
	}
	if (alx_crypto_init() != ALX_OK) {
		fprintf(stderr, "mkvectors: libsodium failed to initialise\n");
		return 1;
	}
	return gen_all(dir, corpus);
}
