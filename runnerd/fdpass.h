/*
 * fdpass.h: hand a file descriptor to another process over a Unix socket
 * (SCM_RIGHTS), with a message. Used by the job's init (airlox-shim: each
 * accepted egress connection), the docker backend's relay of them, and the
 * runner's registration of a job with the egress proxy. No libairlox: the
 * static shim links it.
 */
#ifndef ALX_FDPASS_H
#define ALX_FDPASS_H

#include <sys/types.h>

#include <stddef.h>

/* Send msg (len >= 1 bytes) with fd: 0, or -errno (-EMSGSIZE if cut). */
int	fd_pass(int sock, int fd, const void *msg, size_t len);
/*
 * Receive one message of at most len bytes and at most one fd (close-on-
 * exec; more fds are closed): its length, 0 at end of file, or -1 with
 * errno (a message or its fds cut short is refused, EMSGSIZE). *fd is -1
 * when none came. flags go to recvmsg (MSG_DONTWAIT, for one).
 */
ssize_t	fd_recv(int sock, void *buf, size_t len, int flags, int *fd);

#endif /* ALX_FDPASS_H */
