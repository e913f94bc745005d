/*
 * test-proto.c: the protocol structures working together: a session is
 * created, its manifest anchored and updated, participants certified,
 * items sealed, signed, chained, opened, and jobs wrapped to exactly their
 * readers.
 */
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "tap.h"

struct party {
	struct alx_signkey	sk;
	struct alx_kxkey	kx;
	struct alx_cert		cert;
	char			fps[ALX_FP_STRLEN + 1];
};

static struct alx_private
test_private(void)
{
	struct alx_private	 p;

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
make_party(struct party *p, const struct alx_manifest *m, int role,
    const uint8_t seed[ALX_SEED_LEN], const char *name)
{
	struct alx_signkey	rk;
	int			r;

	memset(p, 0, sizeof(*p));
	if (alx_sign_keygen(&p->sk) != ALX_OK || alx_kx_keygen(&p->kx) != ALX_OK)
		return ALX_ERR_CRYPTO;
	if ((r = alx_seed_keys(seed, &rk, NULL)) != ALX_OK)
		return r;
	memcpy(p->cert.sid, m->sid, ALX_SID_LEN);
	p->cert.role = role;
	p->cert.n = role == ALX_ROLE_OWNER ? 0 : m->roles[role].n;
	memcpy(p->cert.pk, p->sk.pk, ALX_SIGN_PK_LEN);
	memcpy(p->cert.kx, p->kx.pk, ALX_KX_PK_LEN);
	strcpy(p->cert.name, name);
	p->cert.kind = role == ALX_ROLE_RUNNER ? ALX_PKIND_RUNNER :
	    ALX_PKIND_AGENT;
	p->cert.time = 1700000000;
	r = alx_cert_sign(&p->cert, &rk);
	alx_sign_wipe(&rk);
	alx_fingerprint_str(p->fps, p->sk.pk, ALX_SIGN_PK_LEN);
	return r;
}

static void
item_init(struct alx_item *it, const struct alx_manifest *m,
    const struct party *author, const char *kind, int64_t seq,
    const uint8_t *prev)
{
	memset(it, 0, sizeof(*it));
	memcpy(it->sid, m->sid, ALX_SID_LEN);
	alx_random(it->id, ALX_ID_LEN);
	strcpy(it->kind, kind);
	alx_fingerprint(it->author, author->sk.pk, ALX_SIGN_PK_LEN);
	it->seq = seq;
	if (prev != NULL) {
		it->has_prev = 1;
		memcpy(it->prev, prev, ALX_HASH_LEN);
	}
	it->time = 1700000100;
	it->mv = m->ver;
	it->epoch = m->epoch;
}

/* Seal a payload of `size` pseudo-random bytes; chunk hashes into it. */
static uint8_t *
seal_payload(struct alx_item *it, const uint8_t kitem[ALX_KEY_LEN],
    size_t size, uint8_t **pt_out)
{
	uint8_t	*pt, *ct;
	size_t	 n, i, off = 0, ctoff = 0;

	pt = malloc(size);
	for (i = 0; i < size; i++)
		pt[i] = (uint8_t)(i * 7 + 3);
	n = alx_chunk_count((int64_t)size);
	it->size = (int64_t)size;
	it->nchunks = n;
	it->chunks = calloc(n, ALX_HASH_LEN);
	ct = malloc(size + n * ALX_TAG_LEN);
	for (i = 0; i < n; i++) {
		size_t len = size - off < ALX_CHUNK_SIZE ? size - off :
		    ALX_CHUNK_SIZE;
		if (alx_chunk_seal(it, kitem, i, pt + off, len, ct + ctoff) !=
		    ALX_OK)
			return NULL;
		alx_sha256(it->chunks[i], ct + ctoff, len + ALX_TAG_LEN);
		off += len;
		ctoff += len + ALX_TAG_LEN;
	}
	*pt_out = pt;
	return ct;
}

int
main(void)
{
	struct alx_session_params	 sp;
	struct alx_session_secrets	 sec;
	struct alx_private		 priv = test_private(), priv2;
	struct alx_manifest		 m, m1, m2, m3;
	struct alx_signkey		 owner, sender_role;
	struct alx_kxkey		 role_kx;
	struct party			 own, snd, obs, run, run2;
	struct alx_cert			 c;
	struct alx_item			 it, it2, got;
	uint8_t				 ekey[ALX_KEY_LEN], kitem[ALX_KEY_LEN];
	uint8_t				 k2[ALX_KEY_LEN], sid_bad[ALX_SID_LEN];
	uint8_t				 newseed[ALX_SEED_LEN], ekey2[ALX_KEY_LEN];
	uint8_t				*pt = NULL, *ct, *out;
	char				*meta;
	size_t				 metalen, size;
	struct alx_member		 members[4];
	int				 r;

	if (alx_crypto_init() != ALX_OK)
		tap_skip_all("libsodium failed to initialise");

	/* A session: the manifest anchors it. */
	memset(&sp, 0, sizeof(sp));
	sp.mode = ALX_MODE_EXECUTE;
	sp.now = 1700000000;
	sp.item_max = 10 * 1024 * 1024;
	sp.session_max = 100 * 1024 * 1024;
	sp.approve = 1;
	is_int(alx_session_create(&m, &sec, &sp, &priv), ALX_OK,
	    "session created");
	is_int(alx_manifest_open(&m1, m.obj.raw, m.obj.raw_len, m.sid, NULL),
	    ALX_OK, "manifest v1 opens against its session id");
	memcpy(sid_bad, m.sid, sizeof(sid_bad));
	sid_bad[0] ^= 1;
	is_int(alx_manifest_open(&m2, m.obj.raw, m.obj.raw_len, sid_bad, NULL),
	    ALX_ERR_WRONG_SESSION, "another session id is refused");
	ok(m1.roles[ALX_ROLE_RUNNER].present && m1.approve,
	    "execute session has a runner role and approval");

	/* Every role reads the epoch key through its own wrap. */
	alx_seed_keys(sec.seed[ALX_ROLE_SENDER], &sender_role, &role_kx);
	is_int(alx_manifest_epoch_key(&m1, "sender", &role_kx, ekey), ALX_OK,
	    "sender role opens the epoch key");
	ok(memcmp(ekey, sec.epoch_key, ALX_KEY_LEN) == 0, "epoch key matches");
	is_int(alx_manifest_epoch_key(&m1, "observer", &role_kx, ekey),
	    ALX_ERR_DECRYPT, "the sender key cannot open the observer's wrap");
	alx_kx_wipe(&role_kx);
	is_int(alx_manifest_open_private(&m1, sec.epoch_key, &priv2), ALX_OK,
	    "private part opens");
	ok(priv2.has_limits && priv2.limits.timeout_s == 600 &&
	    priv2.limits.memory_mb == 1024, "job limits round trip");
	alx_private_free(&priv2);

	/* Participants. */
	is_int(make_party(&own, &m1, ALX_ROLE_OWNER, sec.seed[ALX_ROLE_OWNER],
	    "owner"), ALX_OK, "owner participant");
	is_int(make_party(&snd, &m1, ALX_ROLE_SENDER, sec.seed[ALX_ROLE_SENDER],
	    "build-agent"), ALX_OK, "sender participant");
	is_int(make_party(&obs, &m1, ALX_ROLE_OBSERVER,
	    sec.seed[ALX_ROLE_OBSERVER], "lead"), ALX_OK, "observer participant");
	is_int(make_party(&run, &m1, ALX_ROLE_RUNNER, sec.seed[ALX_ROLE_RUNNER],
	    "gpu-box"), ALX_OK, "runner participant");
	is_int(make_party(&run2, &m1, ALX_ROLE_RUNNER, sec.seed[ALX_ROLE_RUNNER],
	    "other-box"), ALX_OK, "second runner participant");
	is_int(alx_cert_open(&c, snd.cert.obj.raw, snd.cert.obj.raw_len, &m1),
	    ALX_OK, "sender certificate verifies");
	ok(c.role == ALX_ROLE_SENDER && strcmp(c.name, "build-agent") == 0,
	    "certificate fields");
	alx_cert_free(&c);
	/* A certificate claiming sender but signed by the observer key. */
	{
		struct party	fake;
		make_party(&fake, &m1, ALX_ROLE_OBSERVER,
		    sec.seed[ALX_ROLE_OBSERVER], "mallory");
		alx_cert_free(&fake.cert);
		memcpy(fake.cert.sid, m1.sid, ALX_SID_LEN);
		fake.cert.role = ALX_ROLE_SENDER;
		fake.cert.n = 1;
		memcpy(fake.cert.pk, fake.sk.pk, 32);
		memcpy(fake.cert.kx, fake.kx.pk, 32);
		strcpy(fake.cert.name, "mallory");
		{
			struct alx_signkey ok_;
			alx_seed_keys(sec.seed[ALX_ROLE_OBSERVER], &ok_, NULL);
			alx_cert_sign(&fake.cert, &ok_);
			alx_sign_wipe(&ok_);
		}
		is_int(alx_cert_open(&c, fake.cert.obj.raw,
		    fake.cert.obj.raw_len, &m1), ALX_ERR_WRONG_ROLE,
		    "role claimed with another role's key: wrong_role");
		alx_cert_free(&fake.cert);
	}

	/* A file item of 2.5 MiB: meta and chunks. */
	item_init(&it, &m1, &snd, "file", 1, NULL);
	alx_item_key_epoch(sec.epoch_key, it.id, kitem);
	is_int(alx_item_seal_meta(&it, kitem, "{\"name\":\"report.md\"}", 20),
	    ALX_OK, "meta sealed");
	size = 2 * ALX_CHUNK_SIZE + ALX_CHUNK_SIZE / 2;
	ct = seal_payload(&it, kitem, size, &pt);
	ok(ct != NULL && it.nchunks == 3, "payload sealed in 3 chunks");
	is_int(alx_item_sign(&it, &snd.sk), ALX_OK, "item signed");
	is_int(alx_item_open(&got, it.obj.raw, it.obj.raw_len, m1.sid,
	    snd.sk.pk), ALX_OK, "item opens with the author's key");
	is_int(alx_item_check_chain(&got, 0, NULL), ALX_OK, "first in chain");
	is_int(alx_item_open_meta(&got, kitem, &meta, &metalen), ALX_OK,
	    "meta opens");
	is_str(meta, "{\"name\":\"report.md\"}", "meta text");
	free(meta);
	out = malloc(ALX_CHUNK_SIZE);
	is_int(alx_chunk_open(&got, kitem, 2, ct + 2 * (ALX_CHUNK_SIZE +
	    ALX_TAG_LEN), ALX_CHUNK_SIZE / 2 + ALX_TAG_LEN, out), ALX_OK,
	    "last chunk opens");
	ok(memcmp(out, pt + 2 * ALX_CHUNK_SIZE, ALX_CHUNK_SIZE / 2) == 0,
	    "last chunk plaintext");
	is_int(alx_chunk_open(&got, kitem, 1, ct, ALX_CHUNK_SIZE + ALX_TAG_LEN,
	    out), ALX_ERR_BAD_HASH, "chunk 0 offered as chunk 1: bad_hash");
	ct[5] ^= 0x40;
	is_int(alx_chunk_check(&got, 0, ct, ALX_CHUNK_SIZE + ALX_TAG_LEN),
	    ALX_ERR_BAD_HASH, "flipped chunk byte: bad_hash");
	ct[5] ^= 0x40;
	free(out);
	is_int(alx_item_open(&it2, it.obj.raw, it.obj.raw_len, m1.sid,
	    obs.sk.pk), ALX_ERR_UNKNOWN_KEY, "another key is not the author");
	is_int(alx_item_open(&it2, it.obj.raw, it.obj.raw_len, sid_bad,
	    snd.sk.pk), ALX_ERR_WRONG_SESSION, "another session refuses it");
	/* A relay's open: the key comes from the object, and is given back. */
	{
		struct alx_item	 cl;
		uint8_t		 k[ALX_SIGN_PK_LEN];
		char		 kb[64], ob[64];
		char		*raw = strdup(it.obj.raw), *p;

		is_int(alx_item_open_claimed(&cl, it.obj.raw, it.obj.raw_len,
		    m1.sid, k), ALX_OK, "claimed open: the author's item");
		ok(memcmp(k, snd.sk.pk, ALX_SIGN_PK_LEN) == 0 &&
		    memcmp(cl.author, got.author, ALX_FP_LEN) == 0 &&
		    memcmp(cl.hash, got.hash, ALX_HASH_LEN) == 0,
		    "claimed open: the signer's key, author and hash");
		alx_item_free(&cl);
		is_int(alx_item_open_claimed(&cl, it.obj.raw, it.obj.raw_len,
		    sid_bad, k), ALX_ERR_WRONG_SESSION,
		    "claimed open: another session refuses it");
		ok(k[0] == 0 && memcmp(k, k + 1, ALX_SIGN_PK_LEN - 1) == 0,
		    "claimed open: no key given back on failure");
		/* One signature character changed: the signature fails. */
		p = strstr(raw, "\"sig\":\"") + 7;
		*p = *p == 'A' ? 'B' : 'A';
		is_int(alx_item_open_claimed(&cl, raw, strlen(raw), m1.sid, k),
		    ALX_ERR_BAD_SIGNATURE, "claimed open: a changed signature");
		free(raw);
		/* Another participant's key put in the object: no match. */
		raw = strdup(it.obj.raw);
		alx_b64_encode(kb, snd.sk.pk, ALX_SIGN_PK_LEN);
		alx_b64_encode(ob, obs.sk.pk, ALX_SIGN_PK_LEN);
		p = strstr(raw, kb);
		ok(p != NULL, "the object names its key");
		if (p != NULL)
			memcpy(p, ob, strlen(ob));
		is_int(alx_item_open_claimed(&cl, raw, strlen(raw), m1.sid, k),
		    ALX_ERR_BAD_SIGNATURE,
		    "claimed open: another key put in the object");
		free(raw);
	}

	/* The chain: a second item must follow the first. */
	item_init(&it2, &m1, &snd, "text", 2, got.hash);
	alx_item_key_epoch(sec.epoch_key, it2.id, k2);
	alx_item_seal_meta(&it2, k2, "{\"text\":\"hi\"}", 13);
	is_int(alx_item_sign(&it2, &snd.sk), ALX_OK, "second item signed");
	is_int(alx_item_check_chain(&it2, 1, got.hash), ALX_OK,
	    "second item follows the first");
	is_int(alx_item_check_chain(&it2, 0, NULL), ALX_ERR_ORDER,
	    "second item without the first: bad_order");
	is_int(alx_item_check_chain(&it2, 2, it2.hash), ALX_ERR_REPLAYED,
	    "second item seen again: replayed");
	alx_item_free(&it2);
	alx_item_free(&got);
	alx_item_free(&it);
	free(ct);
	free(pt);

	/* v2: approve the runner. */
	alx_seed_keys(sec.seed[ALX_ROLE_OWNER], &owner, NULL);
	is_int(alx_manifest_next(&m2, &m1), ALX_OK, "next version");
	{
		const char *labels[] = { "gpu" };
		is_int(alx_manifest_approve(&m2, run.cert.fp, "gpu-box",
		    labels, 1), ALX_OK, "runner approved");
	}
	is_int(alx_manifest_finish(&m2, &owner, sec.epoch_key, &priv), ALX_OK,
	    "v2 signed");
	is_int(alx_manifest_open(&m3, m2.obj.raw, m2.obj.raw_len, m1.sid, &m1),
	    ALX_OK, "v2 opens on top of v1");
	ok(alx_manifest_find_approved(&m3, run.cert.fp) != NULL,
	    "runner is approved in v2");
	alx_manifest_free(&m3);
	is_int(alx_manifest_open(&m3, m2.obj.raw, m2.obj.raw_len, m1.sid, NULL),
	    ALX_ERR_ORDER, "v2 without v1 is out of order");

	/* A job wrapped to owner, author and the approved runner only. */
	item_init(&it, &m2, &snd, "job", 3, NULL);
	it.seq = 1;
	it.has_job = 1;
	strcpy(it.job.name, "gpu-box");
	it.job.not_after = 1700003600;
	it.job.wraps = calloc(3, sizeof(struct alx_wrap));
	alx_random(kitem, sizeof(kitem));
	{
		uint8_t	ctx[64];
		size_t	n = alx_wrap_ctx_job(ctx, it.sid, it.id);
		alx_wrap_seal(&it.job.wraps[0], "owner", m2.owner_kx, ctx, n,
		    kitem);
		alx_wrap_seal(&it.job.wraps[1], snd.fps, snd.kx.pk, ctx, n,
		    kitem);
		alx_wrap_seal(&it.job.wraps[2], run.fps, run.kx.pk, ctx, n,
		    kitem);
		it.job.nwraps = 3;
	}
	alx_item_seal_meta(&it, kitem, "{\"kind\":\"shell\",\"cmd\":\"true\"}",
	    29);
	is_int(alx_item_sign(&it, &snd.sk), ALX_OK, "job signed");
	is_int(alx_item_open(&got, it.obj.raw, it.obj.raw_len, m2.sid,
	    snd.sk.pk), ALX_OK, "job opens");
	ok(got.has_job && !got.job.is_label &&
	    strcmp(got.job.name, "gpu-box") == 0, "job target");
	is_int(alx_item_job_key(&got, run.fps, &run.kx, k2), ALX_OK,
	    "approved runner opens the job key");
	ok(memcmp(k2, kitem, ALX_KEY_LEN) == 0, "job key matches");
	is_int(alx_item_job_key(&got, run2.fps, &run2.kx, k2),
	    ALX_ERR_NOT_RECIPIENT, "unapproved runner gets no wrap");
	is_int(alx_item_job_key(&got, run.fps, &run2.kx, k2), ALX_ERR_DECRYPT,
	    "another runner's key cannot open the approved runner's wrap");
	{
		struct alx_kxkey rkx;
		alx_seed_keys(sec.seed[ALX_ROLE_RUNNER], NULL, &rkx);
		is_int(alx_item_job_key(&got, "runner", &rkx, k2),
		    ALX_ERR_NOT_RECIPIENT,
		    "the runner invite alone gets no wrap");
		alx_kx_wipe(&rkx);
	}
	alx_item_free(&got);
	alx_item_free(&it);

	/* v3: revoke the sender, rotate the sender role, new epoch. */
	members[0].role = ALX_ROLE_SENDER;
	memcpy(members[0].fp, snd.cert.fp, ALX_FP_LEN);
	memcpy(members[0].kx, snd.kx.pk, ALX_KX_PK_LEN);
	members[1].role = ALX_ROLE_OBSERVER;
	memcpy(members[1].fp, obs.cert.fp, ALX_FP_LEN);
	memcpy(members[1].kx, obs.kx.pk, ALX_KX_PK_LEN);
	alx_manifest_free(&m3);
	is_int(alx_manifest_next(&m3, &m2), ALX_OK, "v3");
	is_int(alx_manifest_revoke(&m3, snd.cert.fp), ALX_OK, "sender revoked");
	is_int(alx_manifest_rotate_role(&m3, ALX_ROLE_SENDER, newseed, members,
	    2), ALX_OK, "sender role rotated");
	is_int(alx_manifest_new_epoch(&m3, ekey2, &priv, members, 2), ALX_OK,
	    "new epoch");
	is_int(alx_manifest_finish(&m3, &owner, ekey2, &priv), ALX_OK,
	    "v3 signed");
	{
		struct alx_manifest m3o;
		struct alx_kxkey old_kx, new_kx;

		is_int(alx_manifest_open(&m3o, m3.obj.raw, m3.obj.raw_len,
		    m1.sid, &m2), ALX_OK, "v3 opens on top of v2");
		is_int(alx_cert_valid(&snd.cert, &m3o), ALX_ERR_REVOKED,
		    "revoked sender's certificate: revoked");
		is_int(alx_cert_valid(&obs.cert, &m3o), ALX_OK,
		    "observer carries on");
		alx_seed_keys(sec.seed[ALX_ROLE_SENDER], NULL, &old_kx);
		r = alx_manifest_epoch_key(&m3o, "sender", &old_kx, ekey);
		ok(r != ALX_OK, "the old sender invite cannot read epoch 1");
		alx_seed_keys(newseed, NULL, &new_kx);
		is_int(alx_manifest_epoch_key(&m3o, "sender", &new_kx, ekey),
		    ALX_OK, "the new sender invite reads epoch 1");
		ok(memcmp(ekey, ekey2, ALX_KEY_LEN) == 0, "epoch 1 key");
		alx_kx_wipe(&old_kx);
		alx_kx_wipe(&new_kx);
		/* A new certificate under the old sender key: refused. */
		{
			struct party late;
			make_party(&late, &m1, ALX_ROLE_SENDER,
			    sec.seed[ALX_ROLE_SENDER], "late");
			is_int(alx_cert_open(&c, late.cert.obj.raw,
			    late.cert.obj.raw_len, &m3o), ALX_ERR_REVOKED,
			    "old invite after rotation: revoked");
			alx_cert_free(&late.cert);
		}
		alx_manifest_free(&m3o);
	}

	alx_sign_wipe(&owner);
	alx_sign_wipe(&sender_role);
	alx_cert_free(&own.cert);
	alx_cert_free(&snd.cert);
	alx_cert_free(&obs.cert);
	alx_cert_free(&run.cert);
	alx_cert_free(&run2.cert);
	alx_manifest_free(&m);
	alx_manifest_free(&m1);
	alx_manifest_free(&m2);
	alx_manifest_free(&m3);
	alx_session_secrets_wipe(&sec);
	return tap_done();
}
