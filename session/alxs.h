/*
 * alxs.h: the relay client library (session/), the one header of
 * libalxsession.
 *
 * What every program that takes part in a session needs beside libairlox:
 * HTTP to a relay with its retry rules and event stream (alxs_http.c,
 * alxs_sse.c, alxs_reply.c), a verified session (alxs_session.c), items and
 * their chunks (alxs_item.c), transfer codes (alxs_code.c) and the key
 * store (alxs_store.c). The airlox client, airlox-runnerd and the test
 * tools link it.
 *
 * It never prints and never exits. Functions return 0 or an ALX_ERR_*
 * code; a function that fails for a reason people should read leaves the
 * reason in words in alxs_error(), for the program to print or log. Its
 * settings come in struct alxs_conf, never from the environment.
 */
#ifndef ALXS_H
#define ALXS_H

#include <stddef.h>
#include <stdint.h>

#include "airlox.h"
#include "airlox/view.h"

/* A notice for people (a retry, a setting ignored), not a failure. */
typedef void (*alxs_notice_cb)(const char *msg, void *arg);

/* The settings; the strings are the caller's and must outlive the use. */
struct alxs_conf {
	const char	*relay;		/* the relay's URL (transfer codes) */
	const char	*invite;	/* the session's invite link */
	const char	*ca_file;	/* CA bundle for TLS; NULL: system */
	const char	*insecure_host;	/* plain http:// allowed to it */
	int64_t		 stall_s;	/* silence that ends a request; 0:
					   the default */
	const char	*name;		/* the display name when joining */
	const char	*default_name;	/* the name when name is NULL (a
					   new key only); NULL: participant */
	const char	*description;	/* runners: what this machine is */
	int		 kind;		/* ALX_PKIND_* */
	const char	*key_secret;	/* the participant key from a secret
					   (AIRLOX_KEY), NULL: the store's */
	const char	*store_dir;	/* the key store's folder (0700) */
	alxs_notice_cb	 notice;	/* NULL: notices are dropped */
	alxs_notice_cb	 debug;		/* what it does, for a debug log */
	void		*notice_arg;	/* for both */
	volatile int	*stop;		/* set (by a signal handler): stop
					   a transfer, an event stream */
};

/* alxs_err.c */
/* What a failure means for the caller, beside its ALX_ERR_* code. */
enum alxs_class {
	ALXS_FAILED = 0,	/* as its error code says */
	ALXS_UNVERIFIED,	/* the relay served what does not verify */
	ALXS_BAD_SETTING,	/* a setting is unusable (like a bad key) */
	ALXS_TIMED_OUT		/* waited as long as asked, in vain */
};
#define ALXS_CAUSE_MAX	1024
struct alxs_error {
	int	 err;			/* the ALX_ERR_* code it explains */
	int	 class;			/* enum alxs_class */
	char	 cause[ALXS_CAUSE_MAX];	/* in words, may quote the relay */
};
/* The last failure explained (err 0 when none since alxs_error_clear()). */
const struct alxs_error *alxs_error(void);
void	 alxs_error_clear(void);
/* Explain err (class ALXS_FAILED, or the one given) and return it. */
int	 alxs_fail(int err, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int	 alxs_fail_class(int class, int err, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
/* 1 for the errors of reaching the relay (retrying later may work). */
int	 alxs_err_net(int err);
/* 1 for the errors of data that does not verify (signature, hash, order). */
int	 alxs_err_verify(int err);
/* A role with its article, for messages: "an observer", "a sender". */
const char *alxs_a_role(int role);
/* A size for people: "25 MiB", "1 GiB", "1.5 MiB (1572865 bytes)". */
void	 alxs_size(char *, size_t, int64_t);
/* Hand a notice to the settings' callback, if any. */
void	 alxs_notice(alxs_notice_cb, void *arg, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
struct alxs_http;
/* The library's own trace, to the settings' debug callback, if any. */
void	 alxs_debug(const struct alxs_http *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

/* alxs_http.c */
struct alxs_http {
	void			*curl;		/* CURL * */
	char			 base[320];	/* scheme://host[:port] */
	char			 authority[300];/* lower(host[:port]) */
	const struct alx_signkey *key;		/* signs requests when set */
	int64_t			 skew;		/* server clock - ours */
	const char		*ca_file;
	const char		*extra_header;	/* "Name: value" or NULL */
	int			 max_tries;
	long			 stall_s;	/* silence ending a request */
	alxs_notice_cb		 notice;	/* from the settings */
	alxs_notice_cb		 debug;
	void			*notice_arg;
	volatile int		*stop;
};
struct alxs_resp {
	long		 status;
	struct alx_buf	 body;
	int		 err;		/* mapped error, 0 for 2xx */
	char		*message;	/* server's message, or NULL */
};
int	 alxs_http_check_url(const char *url, const char *insecure_host,
	    char **cause);
int	 alxs_http_open(struct alxs_http *, const char *base,
	    const struct alxs_conf *, char **cause);
void	 alxs_http_close(struct alxs_http *);
void	 alxs_http_resp_free(struct alxs_resp *);
/*
 * One request with retries on transient failures; path includes the query.
 * sign: add the Authorization header (hc->key). Returns 0 for 2xx (204
 * included, resp->status tells), else the error (also in resp->err).
 */
int	 alxs_http_request(struct alxs_http *, const char *method,
    const char *path,
	    const void *body, size_t len, const char *ctype, int sign,
	    size_t maxresp, struct alxs_resp *);
int	 alxs_http_auth_header(struct alxs_http *, const char *method,
	    const char *path, const void *body, size_t len, char *out,
	    size_t outlen);
int64_t	 alxs_http_now(const struct alxs_http *);
/* Common settings (TLS, CA, protocols, timeouts) on a curl handle. */
void	 alxs_http_tls_setup(struct alxs_http *, void *curl);
int	 alxs_http_curl_err(int curlcode);
/*
 * A request on curl handle c ended with curl code cc before any HTTP reply
 * (or stalled stall_s seconds in one): remember what went wrong, in words
 * that name the host and the next step, for the program's message, and
 * return the
 * error code. The words are kept until the next request starts.
 */
int	 alxs_http_net_failed(struct alxs_http *, void *curl, int cc,
	    long stall_s, const char *detail);
/* The same for a reply that made no sense (a broken event stream). */
int	 alxs_http_net_note(int err, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* "host:port" of the relay, the port filled in from the scheme. */
void	 alxs_http_where(const struct alxs_http *, char *, size_t);
/* Those words when err is the error they explain, else NULL. */
const char *alxs_http_net_cause(int err);
void	 alxs_http_net_clear(void);

/* alxs_sse.c */
/* Called per event; return 0 to go on, 1 to stop, negative on error. */
typedef int (*alxs_sse_cb)(const char *type, int64_t id, const char *data,
    size_t len, void *arg);
/*
 * Read the stream at path, resuming after *last_id (updated as events
 * arrive), until cb says stop, an error, or timeout_ms (0: none).
 */
int	 alxs_sse_run(struct alxs_http *, const char *path, int64_t *last_id,
	    int64_t timeout_ms, alxs_sse_cb, void *arg);

/* alxs_store.c */
struct alxs_cache_entry {
	char			 path[1024];	/* the entry's file */
	struct alx_signkey	 sk;
	struct alx_kxkey	 kx;
	char			 name[ALX_DISPLAY_MAX + 1];
	int			 kind;
	int64_t			 joined;	/* join cursor, 0: not joined */
	int64_t			 listen;	/* listen --once resume cursor */
	int			 has_chain;	/* own chain known: */
	int64_t			 seq;		/* last item's seq (0: none) */
	uint8_t			 hash[ALX_HASH_LEN];	/* and hash */
};
/*
 * Every function of the key store takes its folder (the settings'
 * store_dir): the library reads no environment to find it.
 */
int	 alxs_cache_load(const char *dir, struct alxs_cache_entry *,
	    const struct alx_invite *, const char *name, int kind,
	    int *created);
int	 alxs_cache_save(const struct alxs_cache_entry *);
int	 alxs_cache_note(const struct alxs_cache_entry *);
void	 alxs_cache_wipe(struct alxs_cache_entry *);
int	 alxs_cache_mkdir(const char *);
int	 alxs_cache_mkdirs(const char *);
int	 alxs_cache_write_file(const char *, const void *, size_t);
/* The same, for a file never replaced: ALX_ERR_EXISTS when it is there. */
int	 alxs_cache_write_new(const char *, const void *, size_t);
int	 alxs_cache_read_file(const char *, struct alx_buf *);
int	 alxs_cache_invite_store(const char *dir,
    const uint8_t sid[ALX_SID_LEN],
	    int role, const char *link);
int	 alxs_cache_invite_load(const char *dir, const uint8_t sid[ALX_SID_LEN],
	    int role, char **link);
int	 alxs_cache_invite_update(const char *dir,
    const uint8_t sid[ALX_SID_LEN],
	    int role, const char *link);
/* sessions/<sid>/manifest: the newest manifest verified on this machine. */
int	 alxs_cache_seen_load(const char *dir, const uint8_t sid[ALX_SID_LEN],
	    struct alx_view_seen *);
/* Keep seen unless what is kept is as new already. */
int	 alxs_cache_seen_save(const char *dir, const uint8_t sid[ALX_SID_LEN],
	    const struct alx_view_seen *);

/* alxs_session.c */
struct alxs_sess {
	struct alxs_conf	 conf;		/* a copy of the settings */
	void			*arg;		/* the program's; never read */
	int			 name_ignored;	/* joined before as another
						   name than conf.name */
	struct alx_invite	 inv;
	char			 sidstr[ALX_FP_STRLEN + 1];
	struct alxs_http	 http;
	struct alx_view		 view;
	int			 have_view;
	struct alxs_cache_entry	 me;
	int			 have_me;
	int64_t			 head;		/* newest cursor seen */
	int64_t			 relay_expires;	/* the relay's end for it:
						   0 never, -1 unknown */
	int			 bad_event;	/* the view refused an event */
	int			 passed_over;	/* items a reader passed over */
	int			 passed_why;	/* the last one's reason */
	int64_t			 chunk_wait;	/* s to wait for a chunk: 10 */
	struct alx_view_seen	 seen;		/* as kept in the cache */
	/* what the log said about items (for replies, hops, receipts) */
	struct alxs_sess_item	*items;
	size_t			 nitems;
	size_t			 itemcap;
};
struct alxs_sess_item {
	uint8_t	 id[ALX_ID_LEN];
	uint8_t	 author[ALX_FP_LEN];
	int	 has_reply;
	uint8_t	 reply_to[ALX_ID_LEN];
	int	 author_kind;		/* ALX_PKIND_* */
	int	 author_role;
	int	 complete;
	int64_t	 size;
	int64_t	 cursor;
	char	 kind[ALX_KIND_MAX + 1];
};
/* Called for every event applied to the view. */
typedef int (*alxs_sess_cb)(struct alxs_sess *, const struct alx_view_event *,
    void *);
#define ALXS_JOIN	0x1	/* join as a participant when not joined */
/*
 * Open the session of conf->invite: fetch and verify its manifests, and
 * with ALXS_JOIN load (or make) this participant's key and join. ALX_OK, or
 * the error with its cause (alxs_error()).
 */
int	 alxs_open(struct alxs_sess *, const struct alxs_conf *, int flags);
void	 alxs_sess_close(struct alxs_sess *);
int	 alxs_sess_join(struct alxs_sess *);
/* Apply the log after the view's cursor (long-poll up to wait_s). */
int	 alxs_sess_poll(struct alxs_sess *, int wait_s, alxs_sess_cb, void *);
/* Replay everything there is now. */
int	 alxs_sess_replay(struct alxs_sess *, alxs_sess_cb, void *);
/* GET /participants, parsed: *arr its array, *n entries (free *jp). */
int	 alxs_sess_participants(struct alxs_sess *, struct alx_json **jp,
    int *arr,
	    int *n);
/* An entry's certificate ({"cert":obj} or the bare certificate). */
int	 alxs_sess_participant_cert(const struct alx_json *, int entry);
/* Follow the stream (SSE) until cb returns 1 or timeout. */
int	 alxs_sess_stream(struct alxs_sess *, int64_t timeout_ms, alxs_sess_cb,
	    void *);
int	 alxs_sess_put_manifest(struct alxs_sess *, struct alx_manifest *);
/*
 * Explain a failure of reading the log (alxs_error()): when the view
 * refused an event, the relay served something that does not verify
 * (ALXS_UNVERIFIED); otherwise `what` failed. Returns err.
 */
int	 alxs_read_fail(struct alxs_sess *, int err, const char *what);
const struct alxs_sess_item *alxs_sess_item(const struct alxs_sess *,
	    const uint8_t id[ALX_ID_LEN]);
int	 alxs_sess_path(const struct alxs_sess *, char *, size_t, const char *,
	    ...) __attribute__((format(printf, 4, 5)));
int	 alxs_sess_is_owner(const struct alxs_sess *);
const char *alxs_sess_member_name(const struct alxs_sess *,
	    const uint8_t fp[ALX_FP_LEN]);
/* Resolve NAME, FINGERPRINT or "owner" to a member's fp. */
int	 alxs_sess_resolve(const struct alxs_sess *, const char *,
	    uint8_t fp[ALX_FP_LEN], char **cause);
int	 alxs_sess_members(const struct alxs_sess *, struct alx_member **,
	    size_t *);
int	 alxs_sess_invite(const struct alxs_sess *, int role,
	    const uint8_t seed[ALX_SEED_LEN], char **link);
int	 alxs_sess_rekey(struct alxs_sess *, const uint8_t *fp, int role,
	    uint8_t new_seed[ALX_SEED_LEN], int64_t *ver);
/* The owner's keys and current epoch key, from the owner invite. */
int	 alxs_sess_owner_update(struct alxs_sess *, struct alx_manifest *next,
	    struct alx_signkey *owner);

/* alxs_item.c */
struct alxs_item_post {
	const char	*kind;
	const char	*meta;
	size_t		 metalen;
	int		 fd;		/* payload, -1 for none */
	int64_t		 size;
	uint8_t		(*to)[ALX_FP_LEN];
	size_t		 nto;
	int		 has_reply;
	uint8_t		 reply_to[ALX_ID_LEN];
	/*
	 * A reply to a job (result, progress, report), or a file for a job
	 * (input): the job's key, which seals it to the job's readers
	 * (alx_item_key_reply, alx_item_key_input); NULL for an item every
	 * member reads (the epoch key).
	 */
	const uint8_t	*job_key;
	uint8_t		 id[ALX_ID_LEN];	/* out */
	uint8_t		 hash[ALX_HASH_LEN];	/* out: the item's hash() */
	int64_t		 cursor;		/* out */
};
int	 alxs_item_post(struct alxs_sess *, struct alxs_item_post *,
    char **cause);
/*
 * alxs_item_post in two steps, for a poster that retries: alxs_item_seal()
  * seals
 * and signs the item (its payload read from p->fd, which must stay open
 * and unchanged), alxs_item_put() posts it and may be called again after a
 * failure: it posts the envelope once (chained again if the author posted
 * meanwhile), then the chunks the relay does not hold yet.
 */
struct alxs_item_sealed {
	struct alx_item	 it;
	uint8_t		 kitem[ALX_KEY_LEN];
	int		 fd;
	int		 posted;	/* the relay holds the envelope */
	int64_t		 cursor;
};
int	 alxs_item_seal(struct alxs_sess *, const struct alxs_item_post *,
	    struct alxs_item_sealed *, char **cause);
int	 alxs_item_put(struct alxs_sess *, struct alxs_item_sealed *,
    char **cause);
void	 alxs_item_sealed_free(struct alxs_item_sealed *);
/*
 * The parts of alxs_item_post for other item kinds (jobs): seal every chunk of
 * fd to fill it->chunks (pt: ALX_CHUNK_SIZE bytes, ct: ALX_CHUNK_CT_MAX
 * bytes of scratch), upload them after the envelope, and note an item
 * posted by this participant as the last of its chain (kept in the cache
 * so the next post needs no lookup).
 */
int	 alxs_item_hash_chunks(struct alx_item *,
    const uint8_t kitem[ALX_KEY_LEN],
	    int fd, uint8_t *pt, uint8_t *ct);
int	 alxs_item_upload_chunks(struct alxs_sess *, const struct alx_item *,
	    const uint8_t kitem[ALX_KEY_LEN], int fd, uint8_t *pt, uint8_t *ct,
	    char **cause);
void	 alxs_item_note_chain(struct alxs_sess *, const struct alx_item *);
/* Open an item's meta for this participant (verified event item). */
int	 alxs_item_meta(struct alxs_sess *, const struct alx_item *,
    char **meta,
	    size_t *len);
/*
 * Fetch and open the payload into dir (never overwriting: a new name is
 * chosen), chunk by chunk, each authenticated before it is written.
 */
/*
 * Fetch an item's chunks in order (waiting for one still being uploaded,
 * up to chunk_wait), check each against the envelope and open it, and
 * hand its plaintext to cb (at payload offset off) before the next is
 * fetched: one chunk in memory at a time. cb returns 0 to go on.
 */
int	 alxs_item_read_chunks(struct alxs_sess *, const struct alx_item *,
	    int (*cb)(void *, const uint8_t *, size_t, int64_t), void *arg);
/* alxs_item_read_chunks' callback that writes all to the fd *arg points to. */
int	 alxs_item_chunk_to_fd(void *arg, const uint8_t *pt, size_t len,
	    int64_t off);
/* The same with the item's key given (an item the view cannot open). */
int	 alxs_item_read_chunks_key(struct alxs_sess *, const struct alx_item *,
	    const uint8_t kitem[ALX_KEY_LEN],
	    int (*cb)(void *, const uint8_t *, size_t, int64_t), void *arg);
int	 alxs_item_save(struct alxs_sess *, const struct alx_item *,
	    const char *dir, const char *name, char **saved, char **cause);
int	 alxs_item_wait_complete(struct alxs_sess *,
    const uint8_t id[ALX_ID_LEN],
	    int64_t timeout_ms);
const char *alxs_item_file_type(const char *path, const uint8_t *head,
	    size_t n, const char **mime);

/* alxs_code.c */
/* What the creator of a code goes through, for the program to say. */
enum alxs_code_event {
	ALXS_CODE_OPEN,		/* code: the code, until deadline */
	ALXS_CODE_WRONG		/* a wrong code was tried (fails so far) */
};
typedef void (*alxs_code_cb)(int event, const char *code, int64_t deadline,
    int fails, void *arg);
#define ALXS_CODE_MAX_FAILS	3
/*
 * Offer invite (of role) under a new code for ttl seconds at most, and
 * hand it to the first who gives the code. ALX_OK when it was handed
 * over; ALX_ERR_TOO_MANY_FAILS when wrong codes cancelled it (*fails),
 * ALX_ERR_EXPIRED when it expired unused, or another error; the cause in
 * alxs_error().
 */
int	 alxs_code_create(struct alxs_sess *, int role, const char *invite,
	    int64_t ttl, alxs_code_cb, void *arg, int *fails);
/* receive: how long to wait for each of the creator's answers, seconds */
#define ALXS_CODE_ANSWER_S	60
/*
 * The claimant's side, at conf->relay; *invite receives the invite link.
 * The creator has answer_s seconds to answer each message; *gone is set
 * when it did not.
 */
int	 alxs_code_receive(const struct alxs_conf *, const char *code,
	    int64_t answer_s, char **invite, int *gone);

#endif /* ALXS_H */
