/*
 * airlox/view.h: a participant's verified view of one session.
 *
 * The client and the runner feed the session's event log (protocol.md
 * section 12) into a view, in cursor order. The view checks everything
 * before it accepts an event: the manifest chain against the invite's
 * session id, every certificate against the manifest, every item's
 * signature, its author's certificate and revocation, the role's right to
 * post its kind, the author's sequence and hash chain, and that the item
 * acts on the current manifest version. Nothing is shown or acted on that
 * the view refused. A view does no I/O.
 *
 * Two kinds of refusal: an event that breaks the log itself (a signature
 * that does not verify, an unknown signer, a broken chain, another
 * manifest version) stops the view there, since the relay served it; an
 * item that is signed and chained as it should be, but that its author
 * had no right to post (the rules of alx_item_check_rules(): a kind its
 * role may not post, a cancel of another's job, a result from a runner the
 * job was not wrapped to), is passed over as an ALX_EV_REFUSED event that
 * names its author, and the view goes on. A participant can therefore
 * stop no other member's reader.
 */
#ifndef AIRLOX_VIEW_H
#define AIRLOX_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "airlox/crypto.h"
#include "airlox/proto.h"

struct alx_view_member {
	struct alx_cert		 cert;
	int64_t			 last_seq;	/* 0 before its first item */
	uint8_t			 last_hash[ALX_HASH_LEN];
	int64_t			 joined;	/* cursor of the join event */
	int			 has_ann;	/* a runner's latest announcement */
	struct alx_announce	 ann;		/* (its name, labels, slots) */
};

/* An item this participant posted that the log has not shown yet. */
struct alx_view_own {
	int64_t	seq;
	uint8_t	hash[ALX_HASH_LEN];
};
#define ALX_VIEW_OWN_MAX	256

struct alx_view_epoch {
	int64_t	epoch;
	uint8_t	key[ALX_KEY_LEN];
};

/*
 * The newest manifest a reader verified for a session, kept by the caller
 * between runs (the client's cache, the runner's state dir, 0600). A relay
 * may withhold what is newer (nobody can tell), but once a reader has
 * verified version ver it refuses a chain that stops before it or holds
 * another version ver (a rollback or a fork), and never seals under an
 * older manifest or epoch: content sealed under an epoch the owner has
 * since replaced would open for the members it removed.
 */
struct alx_view_seen {
	int64_t	ver;			/* 0: nothing seen yet */
	uint8_t	hash[ALX_HASH_LEN];
	int64_t	epoch;
};

/*
 * A job the view has seen: results must bind its hash, and only the
 * runners it is wrapped to answer it. The wraps of its key addressed to
 * this participant (to "owner" for an owner's view, to its own fp) and the
 * key's commitment are kept, so that the replies to the job (sealed to its
 * readers) open.
 */
struct alx_view_job {
	uint8_t		  id[ALX_ID_LEN];
	uint8_t		  hash[ALX_HASH_LEN];
	uint8_t		  author[ALX_FP_LEN];
	uint8_t		  kc[ALX_HASH_LEN];
	struct alx_wrap	  wraps[2];
	size_t		  nwraps;
	int		  is_label;
	int64_t		  not_after;	/* no claim after this time */
	uint8_t		(*runners)[ALX_FP_LEN];	/* fingerprints it is wrapped to */
	size_t		  nrunners;
	int		  has_result;
};

struct alx_view {
	uint8_t			 sid[ALX_SID_LEN];
	int			 role;		/* from the invite */
	struct alx_signkey	 role_sk;	/* role (or owner) key */
	struct alx_kxkey	 role_kx;
	int			 has_me;
	struct alx_signkey	 me_sk;		/* this participant's keys */
	struct alx_kxkey	 me_kx;
	uint8_t			 me_fp[ALX_FP_LEN];
	char			 me_fps[ALX_FP_STRLEN + 1];

	struct alx_manifest	*mans;		/* the chain, mans[n-1] latest */
	size_t			 nmans;
	struct alx_view_member	*members;
	size_t			 nmembers;
	struct alx_view_epoch	*epochs;
	size_t			 nepochs;
	struct alx_view_job	*jobs;
	size_t			 njobs;
	struct alx_view_own	 own[ALX_VIEW_OWN_MAX];
	size_t			 nown;
	int64_t			 cursor;	/* last event applied */
	int			 closed;
	struct alx_view_seen	 seen;		/* newest verified, ever */
	int			 forked;	/* held another seen version */
};

enum alx_view_evtype {
	ALX_EV_MANIFEST = 1,
	ALX_EV_JOIN,
	ALX_EV_ITEM,
	ALX_EV_COMPLETE,
	ALX_EV_ANNOUNCE,
	ALX_EV_CLOSED,
	ALX_EV_REFUSED		/* an item passed over: see `refused` */
};

struct alx_view_event {
	int64_t				 cursor;
	int				 type;
	struct alx_item			 item;		/* ITEM and REFUSED */
	const struct alx_view_member	*member;	/* JOIN; ITEM's author */
	int				 refused;	/* REFUSED: why */
	uint8_t				 id[ALX_ID_LEN];	/* COMPLETE */
	struct alx_announce		 announce;	/* ANNOUNCE */
};
void	alx_view_event_free(struct alx_view_event *);

/* Start from an invite: keeps the role key derived from its seed. */
int	alx_view_init(struct alx_view *, const struct alx_invite *);
void	alx_view_free(struct alx_view *);
/* The participant's own keys (the client's cache holds them). */
void	alx_view_set_me(struct alx_view *, const struct alx_signkey *,
	    const struct alx_kxkey *);
/* Make this participant's certificate with the invite's role key. */
int	alx_view_make_cert(struct alx_view *, const char *name, int kind,
	    int64_t now, struct alx_cert *out);

const struct alx_manifest *alx_view_manifest(const struct alx_view *);
/*
 * Add the next manifest version (the first one is checked against sid).
 * A version the view saw before (alx_view_set_seen) must be the same
 * manifest: another one is ALX_ERR_ROLLBACK (a fork). A newer one
 * becomes view->seen, for the caller to keep.
 */
int	alx_view_add_manifest(struct alx_view *, const char *json, size_t len);
/* What this reader verified before; kept when a view is made anew. */
void	alx_view_set_seen(struct alx_view *, const struct alx_view_seen *);
/*
 * Does the chain reach what this reader verified before? ALX_ERR_ROLLBACK
 * when the newest manifest is older than view->seen (a relay that served a
 * shorter chain). Call it when the chain is complete (the manifest list,
 * the end of a replay of the log), and before sealing anything.
 */
int	alx_view_check_current(const struct alx_view *);
/* The seen state as a small JSON object, and back (strict). */
int	alx_view_seen_encode(const struct alx_view_seen *, char **json,
	    size_t *len);
int	alx_view_seen_decode(struct alx_view_seen *, const char *json,
	    size_t len);
/* Add a certificate (a join); *out points into the view. */
int	alx_view_add_cert(struct alx_view *, const char *json, size_t len,
	    int64_t cursor, const struct alx_view_member **out);
/*
 * Verify an item (see the header comment). ALX_OK with *refused = 0: it
 * is accepted; ALX_OK with *refused set: it was passed over for that
 * reason (out and *author still describe it); an error: the log is broken
 * at this item.
 */
int	alx_view_add_item(struct alx_view *, const char *json, size_t len,
	    struct alx_item *out, const struct alx_view_member **author,
	    int *refused);
/*
 * Apply one event of the log ({"cursor","type","data"}). Events must come
 * in cursor order; an event at or before view->cursor is ALX_ERR_REPLAYED.
 * An item passed over is ALX_OK with ev->type ALX_EV_REFUSED.
 */
int	alx_view_apply(struct alx_view *, const char *json, size_t len,
	    struct alx_view_event *ev);

/*
 * The key that opens an item for this participant, or NOT_RECIPIENT: a
 * job's through its wraps; a reply to a job (alx_kind_job_reply) from that
 * job's key, for the job's readers only (NOT_FOUND when the view has not
 * seen the job); other kinds from the epoch key.
 */
int	alx_view_item_key(const struct alx_view *, const struct alx_item *,
	    uint8_t kitem[ALX_KEY_LEN]);
/*
 * The key of a job the view has seen (alx_view_job), through the wrap
 * addressed to this participant, checked against the job's commitment;
 * ALX_ERR_NOT_RECIPIENT for a job not sealed to it.
 */
int	alx_view_job_key(const struct alx_view *, const struct alx_view_job *,
	    uint8_t kjob[ALX_KEY_LEN]);
/* The epoch key for epoch e, when this participant has it. */
int	alx_view_epoch_key(const struct alx_view *, int64_t e,
	    uint8_t key[ALX_KEY_LEN]);
/* Open the current manifest's private part. */
int	alx_view_private(const struct alx_view *, struct alx_private *);

const struct alx_view_member *alx_view_member_by_fp(const struct alx_view *,
	    const uint8_t fp[ALX_FP_LEN]);
/* Members with this display name: returns the count, *out the first. */
size_t	alx_view_members_by_name(const struct alx_view *, const char *name,
	    const struct alx_view_member **out);
/* A job seen by the view, by id. */
const struct alx_view_job *alx_view_job(const struct alx_view *,
	    const uint8_t id[ALX_ID_LEN]);
/* 1 when fp is an approved runner (any runner when approval is off). */
int	alx_view_is_approved(const struct alx_view *,
	    const uint8_t fp[ALX_FP_LEN]);

/*
 * Authoring: fill it's sid, author, seq, prev, time, mv, epoch from the
 * view for the next item of this participant (the view tracks its own
 * chain as its items come back through the log; alx_view_note_own() records
 * an item posted before it was seen in the log). ALX_ERR_ROLLBACK when the
 * view is older than what it saw (alx_view_check_current).
 */
int	alx_view_item_begin(struct alx_view *, struct alx_item *it,
	    const char *kind, int64_t now);
void	alx_view_note_own(struct alx_view *, const struct alx_item *it);

#endif /* AIRLOX_VIEW_H */
