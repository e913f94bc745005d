/*
 * fdpass.h: hand a file descriptor to another process over a Unix socket
 * (SCM_RIGHTS), with a message. Used by the job's init (airlox-shim: each
 * accepted egress connection), the docker backend's relay of them, and the
 * runner's registration of a job with the egress proxy. No libairlox: the
 * static shim links it.
 */
#ifndef ALX_FDPASS_H
#define ALX_FDPASS_H

#include <stddef.h>

/* Send msg (len >= 1 bytes) with fd: 0, or -errno (-EMSGSIZE if cut). */
int	fd_pass(int sock, int fd, const void *msg, size_t len);

#endif /* ALX_FDPASS_H */
