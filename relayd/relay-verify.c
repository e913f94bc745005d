/*
 * relay-verify.c: a small pool of threads for the CPU-heavy part of a
 * request (signature checks and decoding), off the event loop.
 *
 * Threading model (see also docs/DESIGN.md, "Threads"):
 * - The loop thread owns every relay structure (sessions, members,
 *   connections, streams). It prepares a job from what it knows (a copy
 *   of the body, the session id), queues it, and later runs the job's
 *   completion, which looks the session and the author up and goes on
 *   exactly as if the checks had run inline.
 * - A worker runs the job's work function, which may only touch the job
 *   itself and libairlox (thread safe after alx_crypto_init()).
 * - Completions run on the loop in the order the jobs were queued, even when
 *   a later job finishes first: the items of one author then reach the
 *   chain check in the order they arrived, as with inline checking.
 * - The queue is bounded by count (--verify-queue) and by bytes
 *   (--queue-limit); a full queue refuses the job, and the caller answers
 *   503 with Retry-After.
 * Workers wake the loop through a pipe (as the store's writer does), so
 * libevent needs no locking of its own.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "airlox.h"
#include "util/log.h"
#include "relayd.h"

#define RELAY_VERIFY_MAX_THREADS	16

TAILQ_HEAD(relay_vjobq, relay_vjob);

static struct {
	pthread_t		 threads[RELAY_VERIFY_MAX_THREADS];
	unsigned		 nthreads;
	pthread_mutex_t		 mtx;
	pthread_cond_t		 cond;
	struct relay_vjobq	 order;		/* all jobs, as queued */
	struct relay_vjobq	 todo;		/* not yet taken by a worker */
	unsigned		 njobs;		/* in order */
	size_t			 bytes;		/* their cost */
	int			 stop;
	int			 wake[2];
	struct event		*wake_ev;
} relay_vp = { .wake = { -1, -1 } };

static void *
relay_verify_worker(void *arg)
{
	struct relay_vjob	*j;
	char			 c = 0;

	(void)arg;
	pthread_mutex_lock(&relay_vp.mtx);
	for (;;) {
		while (TAILQ_EMPTY(&relay_vp.todo) && !relay_vp.stop)
			pthread_cond_wait(&relay_vp.cond, &relay_vp.mtx);
		if ((j = TAILQ_FIRST(&relay_vp.todo)) == NULL)
			break;			/* stopping, nothing left */
		TAILQ_REMOVE(&relay_vp.todo, j, todo_entry);
		pthread_mutex_unlock(&relay_vp.mtx);

		j->result = j->work(j);

		pthread_mutex_lock(&relay_vp.mtx);
		j->finished = 1;
		/* Only the job at the head can complete: wake for it. */
		if (TAILQ_FIRST(&relay_vp.order) == j &&
		    write(relay_vp.wake[1], &c, 1) == -1 && errno != EAGAIN)
			log_warn("verify: wake");
	}
	pthread_mutex_unlock(&relay_vp.mtx);
	return NULL;
}

/* On the loop: complete finished jobs from the head of the order. */
static void
relay_verify_wakecb(evutil_socket_t fd, short ev, void *arg)
{
	struct relay_vjobq	 done;
	struct relay_vjob	*j;
	char			 buf[64];

	(void)ev;
	(void)arg;
	while (fd != -1 && read(fd, buf, sizeof(buf)) > 0)
		;
	TAILQ_INIT(&done);
	pthread_mutex_lock(&relay_vp.mtx);
	while ((j = TAILQ_FIRST(&relay_vp.order)) != NULL && j->finished) {
		TAILQ_REMOVE(&relay_vp.order, j, order_entry);
		relay_vp.njobs--;
		relay_vp.bytes -= j->cost;
		TAILQ_INSERT_TAIL(&done, j, order_entry);
	}
	pthread_mutex_unlock(&relay_vp.mtx);
	while ((j = TAILQ_FIRST(&done)) != NULL) {
		TAILQ_REMOVE(&done, j, order_entry);
		j->done(j);
	}
}

int
relay_verify_start(struct event_base *base, unsigned nthreads)
{
	unsigned	i;

	TAILQ_INIT(&relay_vp.order);
	TAILQ_INIT(&relay_vp.todo);
	pthread_mutex_init(&relay_vp.mtx, NULL);
	pthread_cond_init(&relay_vp.cond, NULL);
	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > RELAY_VERIFY_MAX_THREADS)
		nthreads = RELAY_VERIFY_MAX_THREADS;
	if (pipe(relay_vp.wake) == -1)
		return ALX_ERR_IO;
	for (i = 0; i < 2; i++) {
		fcntl(relay_vp.wake[i], F_SETFL,
		    fcntl(relay_vp.wake[i], F_GETFL) | O_NONBLOCK);
		fcntl(relay_vp.wake[i], F_SETFD, FD_CLOEXEC);
	}
	relay_vp.wake_ev = event_new(base, relay_vp.wake[0],
	    EV_READ | EV_PERSIST, relay_verify_wakecb, NULL);
	if (relay_vp.wake_ev == NULL || event_add(relay_vp.wake_ev, NULL) == -1)
		return ALX_ERR_NOMEM;
	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&relay_vp.threads[i], NULL,
		    relay_verify_worker, NULL) != 0)
			break;
		pthread_setname_np(relay_vp.threads[i], "alx-verify");
		relay_vp.nthreads++;
	}
	return relay_vp.nthreads > 0 ? 0 : ALX_ERR_IO;
}

/* Queue a job; ALX_ERR_NOT_READY when the queue is full or stopping. */
int
relay_verify_submit(struct relay_vjob *j)
{
	int	rc = 0;

	j->finished = 0;
	j->result = 0;
	pthread_mutex_lock(&relay_vp.mtx);
	if (relay_vp.nthreads == 0 || relay_vp.stop ||
	    relay_vp.njobs >= relay_cfg.verify_queue ||
	    (relay_vp.njobs > 0 &&
	    relay_vp.bytes + j->cost > relay_cfg.queue_limit))
		rc = ALX_ERR_NOT_READY;
	else {
		TAILQ_INSERT_TAIL(&relay_vp.order, j, order_entry);
		TAILQ_INSERT_TAIL(&relay_vp.todo, j, todo_entry);
		relay_vp.njobs++;
		relay_vp.bytes += j->cost;
		pthread_cond_signal(&relay_vp.cond);
	}
	pthread_mutex_unlock(&relay_vp.mtx);
	return rc;
}

unsigned
relay_verify_pending(void)
{
	unsigned	n;

	if (relay_vp.nthreads == 0)
		return 0;
	pthread_mutex_lock(&relay_vp.mtx);
	n = relay_vp.njobs;
	pthread_mutex_unlock(&relay_vp.mtx);
	return n;
}

/* Finish every queued job, run its completion, and end the workers. */
void
relay_verify_stop(void)
{
	unsigned	i;

	if (relay_vp.nthreads == 0)
		return;
	pthread_mutex_lock(&relay_vp.mtx);
	relay_vp.stop = 1;
	pthread_cond_broadcast(&relay_vp.cond);
	pthread_mutex_unlock(&relay_vp.mtx);
	for (i = 0; i < relay_vp.nthreads; i++)
		pthread_join(relay_vp.threads[i], NULL);
	relay_vp.nthreads = 0;
	relay_verify_wakecb(-1, 0, NULL);
	if (relay_vp.wake_ev != NULL)
		event_free(relay_vp.wake_ev);
	relay_vp.wake_ev = NULL;
	for (i = 0; i < 2; i++) {
		if (relay_vp.wake[i] != -1)
			close(relay_vp.wake[i]);
		relay_vp.wake[i] = -1;
	}
	pthread_mutex_destroy(&relay_vp.mtx);
	pthread_cond_destroy(&relay_vp.cond);
}
