/*
 * test-view.c: a participant's view accepts the log of an honest relay and
 * catches a relay that drops, reorders, replays, forges or moves events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "tap.h"

#define MAXEV	64

struct log {
	char	*ev[MAXEV];
	size_t	 n;
};

static void
log_add(struct log *l, const char *type, const char *data)
{
	size_t	len = strlen(data) + 64;

	l->ev[l->n] = malloc(len);
	snprintf(l->ev[l->n], len, "{\"cursor\":%zu,\"type\":\"%s\",\"data\":%s}",
	    l->n + 1, type, data);
	l->n++;
}

static void
log_free(struct log *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		free(l->ev[i]);
	l->n = 0;
}

struct who {
	struct alx_invite	inv;
	struct alx_view		v;
	struct alx_cert		cert;
};

static void
who_init(struct who *w, const struct alx_manifest *m,
    const struct alx_session_secrets *sec, int role, const char *name)
{
	struct alx_signkey	sk;
	struct alx_kxkey	kx;

	memset(w, 0, sizeof(*w));
	w->inv.https = 1;
	strcpy(w->inv.host, "relay.example");
	memcpy(w->inv.sid, m->sid, ALX_SID_LEN);
	w->inv.role = role;
	memcpy(w->inv.seed, sec->seed[role], ALX_SEED_LEN);
	alx_view_init(&w->v, &w->inv);
	alx_sign_keygen(&sk);
	alx_kx_keygen(&kx);
	alx_view_set_me(&w->v, &sk, &kx);
	alx_view_add_manifest(&w->v, m->obj.raw, m->obj.raw_len);
	alx_view_make_cert(&w->v, name, role == ALX_ROLE_RUNNER ?
	    ALX_PKIND_RUNNER : ALX_PKIND_AGENT, 1700000000, &w->cert);
	alx_sign_wipe(&sk);
	alx_kx_wipe(&kx);
}

/* Author a text item through w's view; returns its signed object text. */
static char *
post_text(struct who *w, const char *text, const uint8_t *reply_to)
{
	struct alx_item	 it;
	uint8_t		 k[ALX_KEY_LEN];
	char		 meta[256], *raw;

	if (alx_view_item_begin(&w->v, &it, reply_to ? "cancel" : "text",
	    1700000200) != ALX_OK)
		return NULL;
	if (reply_to != NULL) {
		it.has_reply_to = 1;
		memcpy(it.reply_to, reply_to, ALX_ID_LEN);
	}
	snprintf(meta, sizeof(meta), "{\"text\":\"%s\"}", text);
	alx_view_item_key(&w->v, &it, k);
	alx_item_seal_meta(&it, k, meta, strlen(meta));
	if (alx_item_sign(&it, &w->v.me_sk) != ALX_OK)
		return NULL;
	alx_view_note_own(&w->v, &it);
	raw = strdup(it.obj.raw);
	alx_item_free(&it);
	return raw;
}

/* Items passed over by the last replay(): how many, and the last reason. */
static int	npassed, passed_why;

/* Apply every event of the log; the error of the first refusal, or 0. */
static int
replay(struct alx_view *v, struct log *l, size_t from, size_t *failed_at)
{
	struct alx_view_event	ev;
	size_t			i;
	int			r;

	npassed = passed_why = 0;
	for (i = from; i < l->n; i++) {
		r = alx_view_apply(v, l->ev[i], strlen(l->ev[i]), &ev);
		if (r == ALX_OK && ev.type == ALX_EV_REFUSED) {
			npassed++;
			passed_why = ev.refused;
		}
		alx_view_event_free(&ev);
		if (r != ALX_OK) {
			if (failed_at != NULL)
				*failed_at = i;
			return r;
		}
	}
	return ALX_OK;
}

static void
fresh_view(struct alx_view *v, const struct who *w)
{
	struct alx_signkey	sk;
	struct alx_kxkey	kx;

	alx_view_init(v, &w->inv);
	alx_sign_keygen(&sk);
	alx_kx_keygen(&kx);
	alx_view_set_me(v, &sk, &kx);
}

int
main(void)
{
	struct alx_session_params	 sp;
	struct alx_session_secrets	 sec;
	struct alx_private		 priv;
	struct alx_manifest		 m, m2;
	struct who			 own, snd, obs;
	struct log			 l = { { 0 }, 0 }, bad = { { 0 }, 0 };
	struct alx_view			 v;
	struct alx_view_event		 ev;
	struct alx_signkey		 owner;
	char				*t1, *t2, *t3, *tmp;
	size_t				 at, i;
	int				 r;

	alx_crypto_init();
	memset(&priv, 0, sizeof(priv));
	memset(&sp, 0, sizeof(sp));
	sp.mode = ALX_MODE_CHAT;
	sp.now = 1700000000;
	sp.item_max = 1 << 20;
	sp.session_max = 1 << 24;
	is_int(alx_session_create(&m, &sec, &sp, &priv), ALX_OK, "session");
	who_init(&own, &m, &sec, ALX_ROLE_OWNER, "owner");
	who_init(&snd, &m, &sec, ALX_ROLE_SENDER, "coder");
	who_init(&obs, &m, &sec, ALX_ROLE_OBSERVER, "lead");

	/* The honest log: manifest, three joins, three texts. */
	log_add(&l, "manifest", m.obj.raw);
	log_add(&l, "join", own.cert.obj.raw);
	log_add(&l, "join", snd.cert.obj.raw);
	log_add(&l, "join", obs.cert.obj.raw);
	/* Authors learn their own joins from the log first. */
	for (i = 1; i < 4; i++) {
		alx_view_apply(&snd.v, l.ev[i], strlen(l.ev[i]), &ev);
		alx_view_event_free(&ev);
		alx_view_apply(&own.v, l.ev[i], strlen(l.ev[i]), &ev);
		alx_view_event_free(&ev);
	}
	t1 = post_text(&snd, "one", NULL);
	t2 = post_text(&snd, "two", NULL);
	t3 = post_text(&own, "from the owner", NULL);
	ok(t1 && t2 && t3, "three items authored");
	log_add(&l, "item", t1);
	log_add(&l, "item", t2);
	log_add(&l, "item", t3);

	fresh_view(&v, &obs);
	is_int(replay(&v, &l, 0, NULL), ALX_OK, "observer accepts the honest log");
	is_int(v.nmembers, 3, "three members");
	{
		const struct alx_view_member *mem;
		is_int(alx_view_members_by_name(&v, "coder", &mem), 1,
		    "member by name");
		ok(mem != NULL && mem->last_seq == 2, "coder's chain at 2");
	}
	alx_view_free(&v);

	/* The author sees its own noted items come back once. */
	is_int(replay(&snd.v, &l, 4, NULL), ALX_OK,
	    "author accepts its own items from the log");

	/* A dropped item: t2 without t1. */
	for (i = 0; i < 4; i++)
		log_add(&bad, i == 0 ? "manifest" : "join",
		    i == 0 ? m.obj.raw : (i == 1 ? own.cert.obj.raw :
		    i == 2 ? snd.cert.obj.raw : obs.cert.obj.raw));
	log_add(&bad, "item", t2);
	fresh_view(&v, &obs);
	is_int(replay(&v, &bad, 0, &at), ALX_ERR_ORDER,
	    "dropped item: bad_order");
	alx_view_free(&v);

	/* A replayed item: t1 twice. */
	log_free(&bad);
	for (i = 0; i < 4; i++)
		log_add(&bad, "x", "{}");
	for (i = 0; i < 4; i++) {
		free(bad.ev[i]);
		bad.ev[i] = strdup(l.ev[i]);
	}
	log_add(&bad, "item", t1);
	log_add(&bad, "item", t1);
	fresh_view(&v, &obs);
	is_int(replay(&v, &bad, 0, &at), ALX_ERR_REPLAYED,
	    "replayed item: replayed");
	is_int(at, 5, "caught at the replay");
	alx_view_free(&v);

	/* Reordered: t2 before t1. */
	bad.n = 4;
	free(bad.ev[4]);
	free(bad.ev[5]);
	log_add(&bad, "item", t2);
	log_add(&bad, "item", t1);
	fresh_view(&v, &obs);
	is_int(replay(&v, &bad, 0, NULL), ALX_ERR_ORDER, "reordered: bad_order");
	alx_view_free(&v);

	/* An event cursor going backwards. */
	fresh_view(&v, &obs);
	replay(&v, &l, 0, NULL);
	is_int(alx_view_apply(&v, l.ev[2], strlen(l.ev[2]), &ev),
	    ALX_ERR_REPLAYED, "old cursor: replayed");
	alx_view_event_free(&ev);
	alx_view_free(&v);

	/* A flipped bit in a stored item. */
	tmp = strdup(t1);
	tmp[strlen(tmp) / 2] ^= 1;
	log_free(&bad);
	for (i = 0; i < 4; i++)
		log_add(&bad, "x", "{}");
	for (i = 0; i < 4; i++) {
		free(bad.ev[i]);
		bad.ev[i] = strdup(l.ev[i]);
	}
	log_add(&bad, "item", tmp);
	fresh_view(&v, &obs);
	r = replay(&v, &bad, 0, NULL);
	ok(r != ALX_OK, "flipped bit in an item is refused (%s)",
	    alx_errname(r));
	alx_view_free(&v);
	free(tmp);

	/*
	 * An observer's item: the relay should have refused it; so do we,
	 * but its author signed it in its chain, so the reader passes over
	 * it and reads on (the observer's next item too, in its chain).
	 */
	{
		char *o, *o2;
		alx_view_apply(&obs.v, l.ev[1], strlen(l.ev[1]), &ev);
		alx_view_event_free(&ev);
		alx_view_apply(&obs.v, l.ev[2], strlen(l.ev[2]), &ev);
		alx_view_event_free(&ev);
		alx_view_apply(&obs.v, l.ev[3], strlen(l.ev[3]), &ev);
		alx_view_event_free(&ev);
		o = post_text(&obs, "sneaky", NULL);
		o2 = post_text(&obs, "sneaky again", NULL);
		bad.n = 4;
		free(bad.ev[4]);
		log_add(&bad, "item", o);
		log_add(&bad, "item", t1);
		log_add(&bad, "item", o2);
		log_add(&bad, "item", t2);
		fresh_view(&v, &snd);
		is_int(replay(&v, &bad, 0, NULL), ALX_OK,
		    "observer's texts do not stop the reader");
		is_int(npassed, 2, "both are passed over");
		is_int(passed_why, ALX_ERR_WRONG_ROLE, "as wrong_role");
		is_int(v.cursor, (int64_t)bad.n, "the reader read to the end");
		{
			const struct alx_view_member *mem;
			alx_view_members_by_name(&v, "coder", &mem);
			ok(mem != NULL && mem->last_seq == 2,
			    "the sender's items after them are accepted");
		}
		alx_view_free(&v);
		/* The second without the first: the relay dropped one. */
		while (bad.n > 4)
			free(bad.ev[--bad.n]);
		log_add(&bad, "item", o2);
		fresh_view(&v, &snd);
		is_int(replay(&v, &bad, 0, NULL), ALX_ERR_ORDER,
		    "an item out of its author's chain still stops the reader");
		alx_view_free(&v);
		free(bad.ev[--bad.n]);
		free(o);
		free(o2);
	}

	/* Revocation: after v2 revokes the sender, its items are refused. */
	{
		char	*late, *stale;
		size_t	 base;

		replay(&own.v, &l, 4, NULL);
		late = post_text(&snd, "late", NULL);
		stale = post_text(&own, "stale", NULL);
		ok(late != NULL && stale != NULL, "items acting on v1 authored");
		alx_seed_keys(sec.seed[ALX_ROLE_OWNER], &owner, NULL);
		alx_manifest_next(&m2, &m);
		alx_manifest_revoke(&m2, snd.cert.fp);
		alx_manifest_finish(&m2, &owner, sec.epoch_key, &priv);
		log_add(&l, "manifest", m2.obj.raw);
		base = l.n;
		fresh_view(&v, &obs);
		is_int(replay(&v, &l, 0, NULL), ALX_OK,
		    "v2 accepted after the items");
		log_add(&l, "item", late);
		is_int(replay(&v, &l, base, NULL), ALX_ERR_REVOKED,
		    "revoked sender's item after v2: revoked");
		free(l.ev[--l.n]);
		log_add(&l, "item", stale);
		is_int(replay(&v, &l, base, NULL), ALX_ERR_STALE_MANIFEST,
		    "owner item acting on v1 shown after v2: stale_manifest");
		free(l.ev[--l.n]);
		alx_view_free(&v);
		free(late);
		free(stale);
	}

	/*
	 * Rollback: a reader that verified v2 refuses a chain that stops at
	 * v1, or another v2 (a fork), and seals nothing under v1.
	 */
	{
		struct alx_view_seen	 seen, back;
		struct alx_manifest	 fork;
		struct alx_item		 it;
		char			*json;
		size_t			 len;

		fresh_view(&v, &snd);
		is_int(v.seen.ver, 0, "a new view has seen nothing");
		alx_view_add_manifest(&v, m.obj.raw, m.obj.raw_len);
		alx_view_add_manifest(&v, m2.obj.raw, m2.obj.raw_len);
		ok(v.seen.ver == 2 && memcmp(v.seen.hash, m2.hash,
		    ALX_HASH_LEN) == 0 && v.seen.epoch == m2.epoch,
		    "after v2 the view has seen v2 (version, hash, epoch)");
		seen = v.seen;
		alx_view_free(&v);
		is_int(alx_view_seen_encode(&seen, &json, &len), ALX_OK,
		    "seen state encodes");
		is_int(alx_view_seen_decode(&back, json, len), ALX_OK,
		    "and decodes");
		ok(memcmp(&back, &seen, sizeof(seen)) == 0, "to the same");
		free(json);
		tmp = "{\"v\":2,\"ver\":1}";
		is_int(alx_view_seen_decode(&back, tmp, strlen(tmp)),
		    ALX_ERR_RANGE, "an unknown seen version is refused");
		ok(alx_view_seen_decode(&back, "{\"v\":1}", 7) != ALX_OK &&
		    back.ver == 0, "an incomplete one leaves nothing");

		/* Served v1 only. */
		fresh_view(&v, &snd);
		alx_view_set_seen(&v, &seen);
		is_int(alx_view_add_manifest(&v, m.obj.raw, m.obj.raw_len),
		    ALX_OK, "v1 alone verifies");
		is_int(alx_view_check_current(&v), ALX_ERR_ROLLBACK,
		    "but stops before the v2 seen: manifest_rollback");
		is_int(alx_view_item_begin(&v, &it, "text", 1700000300),
		    ALX_ERR_ROLLBACK, "and nothing is sealed under v1");
		is_int(alx_view_add_manifest(&v, m2.obj.raw, m2.obj.raw_len),
		    ALX_OK, "served v2 after all");
		is_int(alx_view_check_current(&v), ALX_OK, "the chain is current");
		is_int(alx_view_item_begin(&v, &it, "text", 1700000300),
		    ALX_OK, "and an item can be made");
		ok(it.mv == 2 && it.epoch == m2.epoch, "acting on v2");
		alx_item_free(&it);
		alx_view_free(&v);

		/* Another v2, signed by the owner too: a fork. */
		alx_manifest_next(&fork, &m);
		alx_manifest_revoke(&fork, obs.cert.fp);
		alx_manifest_finish(&fork, &owner, sec.epoch_key, &priv);
		fresh_view(&v, &snd);
		alx_view_set_seen(&v, &seen);
		alx_view_add_manifest(&v, m.obj.raw, m.obj.raw_len);
		is_int(alx_view_add_manifest(&v, fork.obj.raw,
		    fork.obj.raw_len), ALX_ERR_ROLLBACK,
		    "another v2 than the one seen: manifest_rollback");
		is_int(v.nmans, 1, "and it is not taken");
		alx_view_free(&v);

		/* The seen state given after the view took the other v2. */
		fresh_view(&v, &snd);
		alx_view_add_manifest(&v, m.obj.raw, m.obj.raw_len);
		alx_view_add_manifest(&v, fork.obj.raw, fork.obj.raw_len);
		alx_view_set_seen(&v, &seen);
		is_int(alx_view_check_current(&v), ALX_ERR_ROLLBACK,
		    "a fork already taken is caught by the check");
		alx_view_free(&v);

		/* The log cut before v2: every event verifies, the end not. */
		fresh_view(&v, &obs);
		alx_view_set_seen(&v, &seen);
		l.n -= 1;		/* the v2 event withheld */
		is_int(replay(&v, &l, 0, NULL), ALX_OK,
		    "the log without v2: every event verifies");
		is_int(alx_view_check_current(&v), ALX_ERR_ROLLBACK,
		    "but it ends before v2: manifest_rollback");
		l.n += 1;
		alx_view_free(&v);
		alx_manifest_free(&fork);
	}

	alx_sign_wipe(&owner);
	free(t1);
	free(t2);
	free(t3);
	log_free(&l);
	log_free(&bad);
	alx_cert_free(&own.cert);
	alx_cert_free(&snd.cert);
	alx_cert_free(&obs.cert);
	alx_view_free(&own.v);
	alx_view_free(&snd.v);
	alx_view_free(&obs.v);
	alx_manifest_free(&m);
	alx_manifest_free(&m2);
	alx_session_secrets_wipe(&sec);
	return tap_done();
}
