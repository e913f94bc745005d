/*
 * testmap.h: a hosts map for the egress proxy's tests (testmap.c).
 * MAP is name=addr[,name=addr...]; addr is IPv4[:port], [IPv6]:port or
 * IPv6; a leading '+' vouches for the address ("public for this test"),
 * any other address still goes through runner_egress_addr_public().
 */
#ifndef ALX_TESTMAP_H
#define ALX_TESTMAP_H

#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>

int	testmap_load(const char *map);
int	testmap_resolve(const char *host, uint16_t port,
	    struct sockaddr_storage *out, size_t max, size_t *n);

#endif /* ALX_TESTMAP_H */
