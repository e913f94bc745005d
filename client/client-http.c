/*
 * client-http.c: requests to the relay through libcurl.
 *
 * TLS verification stays on (a private CA through --ca-file or
 * AIRLOX_CA_FILE); libcurl honours the usual proxy variables (https_proxy,
 * http_proxy, all_proxy, no_proxy). Plain http:// is allowed for loopback
 * hosts and for the one host named by --insecure-http-host. Requests that
 * need it carry the signature of protocol.md section 9. Transient failures
 * (connection refused or reset, 502, 503, 504, 429 with Retry-After) are
 * retried with backoff; JSON error bodies map to the stable error codes.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "airlox.h"
#include "util/log.h"
#include "client.h"
#include "client-reply.h"

#define HTTP_TRIES		5
#define HTTP_RETRY_CAP_MS	8000

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
http_check_url(const char *url, const char *insecure_host, char **cause)
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
http_open(struct http_conn *hc, const char *base, const struct client_ctx *ctx,
    char **cause)
{
	char	*scheme, *host, *port;
	size_t	 i, n;
	int	 r;

	memset(hc, 0, sizeof(*hc));
	if ((r = http_check_url(base, ctx->insecure_host, cause)) != 0)
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
	hc->ca_file = ctx->ca_file;
	hc->max_tries = HTTP_TRIES;
	if ((hc->curl = curl_easy_init()) == NULL)
		return ALX_ERR_NOMEM;
	return 0;
}

void
http_close(struct http_conn *hc)
{
	if (hc->curl != NULL)
		curl_easy_cleanup(hc->curl);
	hc->curl = NULL;
}

void
http_resp_free(struct http_resp *resp)
{
	alx_buf_free(&resp->body);
	free(resp->message);
	resp->message = NULL;
}

int64_t
http_now(const struct http_conn *hc)
{
	return (int64_t)time(NULL) + hc->skew;
}

int
http_auth_header(struct http_conn *hc, const char *method, const char *path,
    const void *body, size_t len, char *out, size_t outlen)
{
	char	hdr[ALX_REQ_HDR_MAX];
	int	r;

	if (hc->key == NULL)
		return ALX_ERR_INVALID;
	r = alx_req_sign(hdr, hc->key, hc->authority, method, path,
	    body != NULL ? body : "", len, http_now(hc));
	if (r != 0)
		return r;
	if ((size_t)snprintf(out, outlen, "Authorization: %s", hdr) >= outlen)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

/* Stop a transfer when listen was asked to stop (SIGINT, SIGTERM). */
static int
http_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut,
    curl_off_t un)
{
	(void)arg;
	(void)dt;
	(void)dn;
	(void)ut;
	(void)un;
	return exec_interrupted != 0;
}

/* Common handle settings: TLS, protocols, no redirects, timeouts. */
void
http_tls_setup(struct http_conn *hc, void *handle)
{
	CURL	*c = handle;

	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, http_progress);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (hc->ca_file != NULL)
		curl_easy_setopt(c, CURLOPT_CAINFO, hc->ca_file);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
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
http_curl_err(int cc)
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

static int
http_transient_curl(int cc)
{
	return cc == CURLE_COULDNT_CONNECT || cc == CURLE_RECV_ERROR ||
	    cc == CURLE_SEND_ERROR || cc == CURLE_GOT_NOTHING ||
	    cc == CURLE_PARTIAL_FILE;
}

/* Map an error reply to its code; keep its message; note server_time. */
static int
http_error_body(struct http_conn *hc, struct http_resp *resp)
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
http_once(struct http_conn *hc, const char *method, const char *path,
    const void *body, size_t len, const char *ctype, int sign,
    struct http_resp *resp, struct http_io *io, int *cc)
{
	struct curl_slist	*h = NULL;
	CURL			*c = hc->curl;
	char			 url[2048], auth[ALX_REQ_HDR_MAX + 32];
	char			 ct[128];
	int			 r;

	curl_easy_reset(c);
	http_tls_setup(hc, c);
	if ((size_t)snprintf(url, sizeof(url), "%s%s", hc->base, path) >=
	    sizeof(url))
		return ALX_ERR_TOO_LARGE;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
	if (sign) {
		if ((r = http_auth_header(hc, method, path, body, len, auth,
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
	if (io->overflow)
		return ALX_ERR_TOO_LARGE;
	if (*cc != CURLE_OK) {
		log_debug("http: %s %s: %s", method, path,
		    curl_easy_strerror(*cc));
		if (*cc == CURLE_PEER_FAILED_VERIFICATION ||
		    *cc == CURLE_SSL_CACERT_BADFILE)
			out_warn("TLS: the certificate of %s does not verify "
			    "(%s); for a private CA use --ca-file or "
			    "AIRLOX_CA_FILE", hc->authority,
			    curl_easy_strerror(*cc));
		return http_curl_err(*cc);
	}
	log_debug("http: %s %s: %ld", method, path, resp->status);
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
http_request(struct http_conn *hc, const char *method, const char *path,
    const void *body, size_t len, const char *ctype, int sign,
    size_t maxresp, struct http_resp *resp)
{
	struct http_io	 io;
	int		 attempt, r, cc, skewed = 0;

	memset(resp, 0, sizeof(*resp));
	alx_buf_init(&resp->body, maxresp);
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
			log_debug("http: clock skew of %lld s, signing again",
			    (long long)hc->skew);
			continue;
		}
		if (attempt + 1 >= hc->max_tries)
			return r;
		if (cc != CURLE_OK ? !http_transient_curl(cc) :
		    !(resp->status == 502 || resp->status == 503 ||
		    resp->status == 504 || resp->status == 429))
			return r;
		log_debug("http: %s %s: retrying (%s)", method, path,
		    alx_errname(r));
		http_backoff(attempt, io.retry_after);
	}
}
