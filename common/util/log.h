/*
 * log.h: the one logging module of the airlox programs (not of libairlox,
 * which never prints).
 *
 * Messages go to stderr. When stderr is connected to the journal
 * (JOURNAL_STREAM matches it) or ALX_LOG_PREFIX=1, each line starts with
 * sd-daemon's "<N>" priority prefix; otherwise with a UTC time and a level.
 * Messages start with the subsystem or function. Never log a key, an invite,
 * plaintext or ciphertext: log fingerprints and ids.
 */
#ifndef ALX_LOG_H
#define ALX_LOG_H

#include <stdarg.h>
#include <time.h>

#define LOG_LEVEL_WARN	0
#define LOG_LEVEL_INFO	1
#define LOG_LEVEL_DEBUG	2

void	log_init(const char *progname, int level);
void	log_setlevel(int level);
int	log_getlevel(void);

void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

/*
 * Rate limit for messages a remote peer can trigger: at most `burst`
 * messages per `interval` seconds; log_rl_allow() returns 1 when the caller
 * may log, and counts what it suppressed (reported on the next allowed one).
 */
struct log_rl {
	time_t		 window;
	unsigned	 count;
	unsigned	 suppressed;
	unsigned	 burst;
	unsigned	 interval;
};
#define LOG_RL_INIT(burst, interval) { 0, 0, 0, (burst), (interval) }
int	log_rl_allow(struct log_rl *);

#endif /* ALX_LOG_H */
