/*
 * shim.h: the pieces of airlox-shim, the job's init (static, no
 * sanitizers: it runs under the seccomp filter it installs).
 */
#ifndef ALX_SHIM_H
#define ALX_SHIM_H

#include <stddef.h>

/* sandbox-linux-landlock.c: 0 applied, 1 not supported, <0 -errno. */
int	shim_landlock(int *abi, char *err, size_t len);
/* sandbox-linux-seccomp.c: 0 loaded, <0 -errno. */
int	shim_seccomp(char *err, size_t len);
/* sandbox-egress-fwd.c: listening fd or -errno; the forwarding loop. */
int	shim_egress_listen(unsigned port, unsigned *bound);
int	shim_egress_forward(int lfd, int sock);

#endif /* ALX_SHIM_H */
