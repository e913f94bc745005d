/*
 * testmap.c: the test resolver of the egress proxy's test programs
 * (proxy-test, verify-test): a hosts map NAME=ADDR given on the command
 * line. Never linked into a shipped program.
 */
#include "config.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "runner-egress.h"
#include "testmap.h"

#define MAP_MAX	32

static struct {
	char			 name[256];
	struct sockaddr_storage	 ss;
	int			 vouched;
	int			 has_port;
} map[MAP_MAX];
static size_t	nmap;

static int
map_parse_addr(const char *v, struct sockaddr_storage *ss, int *has_port)
{
	struct sockaddr_in	*s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*s6 = (struct sockaddr_in6 *)ss;
	char			 buf[128], *p;

	memset(ss, 0, sizeof *ss);
	snprintf(buf, sizeof buf, "%s", v);
	*has_port = 0;
	if (buf[0] == '[') {
		if ((p = strstr(buf, "]:")) == NULL)
			return -1;
		*p = '\0';
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((unsigned short)atoi(p + 2));
		*has_port = 1;
		return inet_pton(AF_INET6, buf + 1, &s6->sin6_addr) == 1 ? 0 : -1;
	}
	if (inet_pton(AF_INET6, buf, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		return 0;
	}
	if ((p = strchr(buf, ':')) != NULL) {
		*p = '\0';
		s4->sin_port = htons((unsigned short)atoi(p + 1));
		*has_port = 1;
	}
	s4->sin_family = AF_INET;
	return inet_pton(AF_INET, buf, &s4->sin_addr) == 1 ? 0 : -1;
}

int
testmap_load(const char *spec)
{
	char	*copy = strdup(spec), *tok, *save = NULL, *eq, *p;

	for (p = copy; (tok = strtok_r(p, ",", &save)) != NULL; p = NULL) {
		if (nmap >= MAP_MAX || (eq = strchr(tok, '=')) == NULL)
			return -1;
		*eq++ = '\0';
		snprintf(map[nmap].name, sizeof map[nmap].name, "%s", tok);
		if (*eq == '+') {
			map[nmap].vouched = 1;
			eq++;
		}
		if (map_parse_addr(eq, &map[nmap].ss, &map[nmap].has_port) != 0)
			return -1;
		nmap++;
	}
	free(copy);
	return 0;
}

/* The test's resolver: its map, checked unless vouched for. */
int
testmap_resolve(const char *host, uint16_t port, struct sockaddr_storage *out,
    size_t max, size_t *n)
{
	size_t	i, seen = 0;

	*n = 0;
	for (i = 0; i < nmap && *n < max; i++) {
		if (strcmp(map[i].name, host) != 0)
			continue;
		seen++;
		if (!map[i].vouched &&
		    !runner_egress_addr_public((struct sockaddr *)&map[i].ss))
			continue;
		out[*n] = map[i].ss;
		if (!map[i].has_port) {
			if (out[*n].ss_family == AF_INET)
				((struct sockaddr_in *)&out[*n])->sin_port =
				    htons(port);
			else
				((struct sockaddr_in6 *)&out[*n])->sin6_port =
				    htons(port);
		}
		(*n)++;
	}
	if (*n == 0)
		return seen > 0 ? ALX_ERR_NOT_ALLOWED : ALX_ERR_NOT_FOUND;
	return 0;
}

