/*
 * alxs_http.c: requests to the relay through libcurl.
 *
 * TLS verification stays on (a private CA through --ca-file or
 * AIRLOX_CA_FILE); libcurl honours the usual proxy variables (https_proxy,
 * http_proxy, all_proxy, no_proxy). Plain http:// is allowed for loopback
 * hosts and for the one host named by --insecure-http-host. Requests that
 * need it carry the signature of protocol.md section 9. Transient failures
 * (connection refused or reset, 502, 503, 504, 429 with Retry-After) are
 * retried with backoff; JSON error bodies map to the stable error codes.
 *
 * No request waits on a silent relay for long: connecting gives up after
 * --stall-timeout (30 s), and so does a reply that sends under 100 bytes
 * a second for that long (a long-poll's own wait= is added to it); a
 * request takes 120 s at most. A request that gets no HTTP reply leaves
 * its cause in words (alxs_http_net_failed()), which the program prints instead
 * of the caller's message: "the relay refused ..." would be wrong, since
 * the relay never saw it.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "airlox.h"
#include "alxs.h"
#include "alxs_reply.h"

#define HTTP_TRIES		5
#define HTTP_RETRY_CAP_MS	8000
#define HTTP_STALL_S		30	/* default --stall-timeout */
#define HTTP_STALL_BYTES	100	/* slower than this per second: stalled */
#define HTTP_TOTAL_S		120	/* the longest one request may take */

/* Why the last request got no HTTP reply: see alxs_http_net_failed(). */
static char	http_neterr[768];
static int	http_neterr_code;

struct http_io {
	struct alx_buf	*buf;
	int		 overflow;
	int64_t		 retry_after;
};

static int
http_is_loopback(const char *host)
{
	if (strcasecmp(host, "localhost") == 0 || strcmp(host, "[::1]") == 0 ||
	    strcmp(host, "::1") == 0)
		return 1;
	return strncmp(host, "127.", 4) == 0 &&
	    strspn(host, "0123456789.") == strlen(host);
}

/* Split url into scheme, host and port with libcurl's parser. */
static int
http_url_parts(const char *url, char **scheme, char **host, char **port)
{
	CURLU	*u;
	int	 r = ALX_ERR_INVALID;

	*scheme = *host = *port = NULL;
	if ((u = curl_url()) == NULL)
		return ALX_ERR_NOMEM;
	if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, host, 0) == CURLUE_OK) {
		if (curl_url_get(u, CURLUPART_PORT, port, 0) != CURLUE_OK)
			*port = NULL;
		r = 0;
	}
	curl_url_cleanup(u);
	return r;
}

int
alxs_http_check_url(const char *url, const char *insecure_host, char **cause)
{
	char	*scheme, *host, *port;
	int	 r;

	*cause = NULL;
	if (http_url_parts(url, &scheme, &host, &port) != 0) {
		*cause = strdup("not a URL");
		return ALX_ERR_INVALID;
	}
	r = 0;
	if (strcasecmp(scheme, "https") == 0)
		;
	else if (strcasecmp(scheme, "http") == 0) {
		if (!http_is_loopback(host) && (insecure_host == NULL ||
		    strcasecmp(insecure_host, host) != 0)) {
			if (asprintf(cause, "plain http:// to %s is refused "
			    "(use https, or --insecure-http-host %s)", host,
			    host) < 0)
				*cause = NULL;
			r = ALX_ERR_NOT_ALLOWED;
		}
	} else {
		*cause = strdup("only https:// and http:// are supported");
		r = ALX_ERR_INVALID;
	}
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	return r;
}

int
alxs_http_open(struct alxs_http *hc, const char *base,
    const struct alxs_conf *conf, char **cause)
{
	char	*scheme, *host, *port;
	size_t	 i, n;
	int	 r;

	memset(hc, 0, sizeof(*hc));
	if ((r = alxs_http_check_url(base, conf->insecure_host, cause)) != 0)
		return r;
	if (http_url_parts(base, &scheme, &host, &port) != 0)
		return ALX_ERR_INVALID;
	n = (size_t)snprintf(hc->authority, sizeof(hc->authority), "%s%s%s",
	    host, port ? ":" : "", port ? port : "");
	for (i = 0; hc->authority[i] != '\0'; i++)
		hc->authority[i] = (char)tolower((unsigned char)
		    hc->authority[i]);
	r = 0;
	if (n >= sizeof(hc->authority) || (size_t)snprintf(hc->base,
	    sizeof(hc->base), "%s://%s", scheme, hc->authority) >=
	    sizeof(hc->base))
		r = ALX_ERR_TOO_LARGE;
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	if (r != 0)
		return r;
	hc->ca_file = conf->ca_file;
	hc->max_tries = HTTP_TRIES;
	hc->stall_s = conf->stall_s > 0 ? (long)conf->stall_s : HTTP_STALL_S;
	hc->notice = conf->notice;
	hc->debug = conf->debug;
	hc->notice_arg = conf->notice_arg;
	hc->stop = conf->stop;
	if ((hc->curl = curl_easy_init()) == NULL)
		return ALX_ERR_NOMEM;
	return 0;
}

void
alxs_http_close(struct alxs_http *hc)
{
	if (hc->curl != NULL)
		curl_easy_cleanup(hc->curl);
	hc->curl = NULL;
}

void
alxs_http_resp_free(struct alxs_resp *resp)
{
	alx_buf_free(&resp->body);
	free(resp->message);
	resp->message = NULL;
}

int64_t
alxs_http_now(const struct alxs_http *hc)
{
	return (int64_t)time(NULL) + hc->skew;
}

int
alxs_http_auth_header(struct alxs_http *hc, const char *method,
    const char *path,
    const void *body, size_t len, char *out, size_t outlen)
{
	char	hdr[ALX_REQ_HDR_MAX];
	int	r;

	if (hc->key == NULL)
		return ALX_ERR_INVALID;
	r = alx_req_sign(hdr, hc->key, hc->authority, method, path,
	    body != NULL ? body : "", len, alxs_http_now(hc));
	if (r != 0)
		return r;
	if ((size_t)snprintf(out, outlen, "Authorization: %s", hdr) >= outlen)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

/* Stop a transfer when the program was asked to stop (SIGINT, SIGTERM). */
static int
http_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut,
    curl_off_t un)
{
	const struct alxs_http	*hc = arg;

	(void)dt;
	(void)dn;
	(void)ut;
	(void)un;
	return hc->stop != NULL && *hc->stop != 0;
}

/* Common handle settings: TLS, protocols, no redirects, timeouts. */
void
alxs_http_tls_setup(struct alxs_http *hc, void *handle)
{
	CURL	*c = handle;

	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, http_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, hc);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (hc->ca_file != NULL)
		curl_easy_setopt(c, CURLOPT_CAINFO, hc->ca_file);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, hc->stall_s);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, (long)HTTP_STALL_BYTES);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, hc->stall_s);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "airlox/" ALX_VERSION_STRING);
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
}

static size_t
http_write_cb(char *p, size_t size, size_t n, void *arg)
{
	struct http_io	*io = arg;

	if (alx_buf_add(io->buf, p, size * n) != 0) {
		io->overflow = 1;
		return 0;
	}
	return size * n;
}

static size_t
http_header_cb(char *p, size_t size, size_t n, void *arg)
{
	struct http_io	*io = arg;
	size_t		 len = size * n;
	int		 ra;

	if ((ra = reply_retry_after(p, len)) > 0)
		io->retry_after = ra;
	return len;
}

int
alxs_http_curl_err(int cc)
{
	switch (cc) {
	case CURLE_OK:
		return 0;
	case CURLE_OUT_OF_MEMORY:
		return ALX_ERR_NOMEM;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CACERT_BADFILE:
		return ALX_ERR_BAD_SIGNATURE;
	case CURLE_OPERATION_TIMEDOUT:
		return ALX_ERR_IO;
	default:
		return ALX_ERR_IO;
	}
}

void
alxs_http_where(const struct alxs_http *hc, char *out, size_t len)
{
	char	*scheme, *host, *port;

	if (http_url_parts(hc->base, &scheme, &host, &port) != 0) {
		snprintf(out, len, "%s", hc->authority);
		return;
	}
	snprintf(out, len, "%s:%s", host, port != NULL ? port :
	    strcasecmp(scheme, "https") == 0 ? "443" : "80");
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
}

int
alxs_http_net_failed(struct alxs_http *hc, void *handle, int cc, long stall_s,
    const char *detail)
{
	CURL		*c = handle;
	char		 where[320], host[320], why[256], *m = http_neterr, *p;
	const char	*d;
	size_t		 n = sizeof(http_neterr);
	curl_off_t	 connect_us = 0, got = 0, total_us = 0;
	long		 os_errno = 0, hdr = 0;

	d = detail != NULL && *detail != '\0' ? detail :
	    curl_easy_strerror((CURLcode)cc);
	alxs_http_where(hc, where, sizeof(where));
	snprintf(host, sizeof(host), "%s", where);
	if ((p = strrchr(host, ':')) != NULL)
		*p = '\0';
	curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &os_errno);
	curl_easy_getinfo(c, CURLINFO_CONNECT_TIME_T, &connect_us);
	curl_easy_getinfo(c, CURLINFO_TOTAL_TIME_T, &total_us);
	curl_easy_getinfo(c, CURLINFO_SIZE_DOWNLOAD_T, &got);
	curl_easy_getinfo(c, CURLINFO_HEADER_SIZE, &hdr);
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_HOST:
		snprintf(m, n, "cannot find the relay's host %s (%s): check "
		    "the relay URL or invite", host, d);
		break;
	case CURLE_COULDNT_RESOLVE_PROXY:
		snprintf(m, n, "cannot find the proxy's host (%s): check "
		    "https_proxy and all_proxy", d);
		break;
	case CURLE_COULDNT_CONNECT:
		/* "connection refused", as strerror says it, in lower case */
		snprintf(why, sizeof(why), "%s", os_errno != 0 ?
		    strerror((int)os_errno) : d);
		why[0] = (char)tolower((unsigned char)why[0]);
		snprintf(m, n, "cannot connect to %s: %s; is the relay "
		    "running there?", where, why);
		break;
	case CURLE_OPERATION_TIMEDOUT:
		if (connect_us == 0)
			snprintf(m, n, "cannot connect to %s: no answer for "
			    "%ld s", where, stall_s);
		else if (total_us >= (curl_off_t)HTTP_TOTAL_S * 1000000)
			snprintf(m, n, "the relay at %s took over %d s to "
			    "answer", where, HTTP_TOTAL_S);
		else if (got == 0 && hdr == 0)
			snprintf(m, n, "no answer from %s for %ld s", where,
			    stall_s);
		else
			snprintf(m, n, "the relay at %s stalled: almost "
			    "nothing came for %ld s", where, stall_s);
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
		snprintf(m, n, "the TLS certificate of %s does not verify "
		    "(%s); for a private CA use --ca-file or AIRLOX_CA_FILE",
		    where, d);
		break;
	case CURLE_SSL_CONNECT_ERROR:
		snprintf(m, n, "the TLS handshake with %s failed (%s); for a "
		    "private CA use --ca-file or AIRLOX_CA_FILE", where, d);
		break;
	case CURLE_GOT_NOTHING:
		snprintf(m, n, "%s closed the connection without an answer",
		    where);
		break;
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_PARTIAL_FILE:
		snprintf(m, n, "the connection to %s broke (%s)", where, d);
		break;
	default:
		snprintf(m, n, "the request to %s failed (%s)", where, d);
		break;
	}
	return http_neterr_code = alxs_http_curl_err(cc);
}

int
alxs_http_net_note(int err, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(http_neterr, sizeof(http_neterr), fmt, ap);
	va_end(ap);
	return http_neterr_code = err;
}

const char *
alxs_http_net_cause(int err)
{
	return http_neterr[0] != '\0' && err == http_neterr_code ?
	    http_neterr : NULL;
}

void
alxs_http_net_clear(void)
{
	http_neterr[0] = '\0';
	http_neterr_code = 0;
}

/* The seconds a long-poll (wait=S in the query) may be held silent. */
static long
http_path_wait(const char *path)
{
	const char	*q = strchr(path, '?'), *w;

	if (q == NULL)
		return 0;
	for (w = q; (w = strstr(w + 1, "wait=")) != NULL;)
		if (w[-1] == '?' || w[-1] == '&')
			return strtol(w + 5, NULL, 10);
	return 0;
}

static int
http_transient_curl(int cc)
{
	return cc == CURLE_COULDNT_CONNECT || cc == CURLE_RECV_ERROR ||
	    cc == CURLE_SEND_ERROR || cc == CURLE_GOT_NOTHING ||
	    cc == CURLE_PARTIAL_FILE;
}

/* Map an error reply to its code; keep its message; note server_time. */
static int
http_error_body(struct alxs_http *hc, struct alxs_resp *resp)
{
	int64_t	st;
	int	err, has_time;

	free(resp->message);
	err = reply_error(resp->status, resp->body.data, resp->body.len,
	    &resp->message, &st, &has_time);
	if (has_time)
		hc->skew = st - (int64_t)time(NULL);
	return err;
}

static int
http_once(struct alxs_http *hc, const char *method, const char *path,
    const void *body, size_t len, const char *ctype, int sign,
    struct alxs_resp *resp, struct http_io *io, int *cc)
{
	struct curl_slist	*h = NULL;
	CURL			*c = hc->curl;
	char			 url[2048], auth[ALX_REQ_HDR_MAX + 32];
	char			 ct[128], errbuf[CURL_ERROR_SIZE];
	long			 stall = hc->stall_s, wait;
	int			 r;

	errbuf[0] = '\0';
	curl_easy_reset(c);
	alxs_http_tls_setup(hc, c);
	if ((size_t)snprintf(url, sizeof(url), "%s%s", hc->base, path) >=
	    sizeof(url))
		return ALX_ERR_TOO_LARGE;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)HTTP_TOTAL_S);
	if ((wait = http_path_wait(path)) > 0 && wait < HTTP_TOTAL_S) {
		stall += wait;
		curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, stall);
	}
	if (sign) {
		if ((r = alxs_http_auth_header(hc, method, path, body, len,
		    auth,
		    sizeof(auth))) != 0)
			return r;
		h = curl_slist_append(h, auth);
	}
	if (body != NULL) {
		snprintf(ct, sizeof(ct), "Content-Type: %s",
		    ctype != NULL ? ctype : "application/json");
		h = curl_slist_append(h, ct);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)len);
	}
	if (hc->extra_header != NULL)
		h = curl_slist_append(h, hc->extra_header);
	h = curl_slist_append(h, "Expect:");
	h = curl_slist_append(h, "Accept: application/json");
	if (strcmp(method, "GET") != 0 && strcmp(method, "POST") != 0)
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	else if (strcmp(method, "POST") == 0 && body == NULL) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)0);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, http_write_cb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, io);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, http_header_cb);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, io);
	*cc = curl_easy_perform(c);
	curl_slist_free_all(h);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
	if (io->overflow) {
		char	where[320];

		alxs_http_where(hc, where, sizeof(where));
		return alxs_http_net_note(ALX_ERR_IO, "the relay at %s sent an "
		    "answer larger than %zu bytes", where, resp->body.max);
	}
	if (*cc != CURLE_OK) {
		r = alxs_http_net_failed(hc, c, *cc, stall, errbuf);
		alxs_debug(hc, "http: %s %s: %s", method, path,
		    alxs_http_net_cause(r));
		return r;
	}
	alxs_debug(hc, "http: %s %s: %ld", method, path, resp->status);
	if (resp->status >= 200 && resp->status < 300)
		return 0;
	return http_error_body(hc, resp);
}

static void
http_backoff(int attempt, int64_t retry_after)
{
	int64_t	ms;
	uint32_t j = 0;

	ms = 250LL << attempt;
	if (retry_after > 0)
		ms = retry_after * 1000;
	if (ms > HTTP_RETRY_CAP_MS)
		ms = HTTP_RETRY_CAP_MS;
	alx_random(&j, sizeof(j));
	ms += j % 100;
	usleep((useconds_t)ms * 1000);
}

int
alxs_http_request(struct alxs_http *hc, const char *method, const char *path,
    const void *body, size_t len, const char *ctype, int sign,
    size_t maxresp, struct alxs_resp *resp)
{
	struct http_io	 io;
	int		 attempt, r, cc, skewed = 0;

	memset(resp, 0, sizeof(*resp));
	alx_buf_init(&resp->body, maxresp);
	alxs_http_net_clear();
	for (attempt = 0;; attempt++) {
		alx_buf_reset(&resp->body);
		memset(&io, 0, sizeof(io));
		io.buf = &resp->body;
		resp->status = 0;
		cc = CURLE_OK;
		r = http_once(hc, method, path, body, len, ctype, sign, resp,
		    &io, &cc);
		resp->err = r;
		if (r == 0)
			return 0;
		if (r == ALX_ERR_CLOCK_SKEW && !skewed) {
			skewed = 1;
			alxs_debug(hc, "http: clock skew of %lld s, signing "
			    "again", (long long)hc->skew);
			continue;
		}
		if (attempt + 1 >= hc->max_tries)
			return r;
		if (cc != CURLE_OK ? !http_transient_curl(cc) :
		    !(resp->status == 502 || resp->status == 503 ||
		    resp->status == 504 || resp->status == 429))
			return r;
		alxs_debug(hc, "http: %s %s: retrying (%s)", method, path,
		    alx_errname(r));
		http_backoff(attempt, io.retry_after);
	}
}
