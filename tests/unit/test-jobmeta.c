/* test-jobmeta.c: job, result and progress meta; relative paths; UTF-8. */
#include <stdlib.h>
#include <string.h>

#include "airlox.h"
#include "tap.h"

static int
decode_job(const char *s)
{
	struct alx_jobmeta	jm;
	int			r;

	r = alx_jobmeta_decode(&jm, s, strlen(s));
	if (r == ALX_OK)
		alx_jobmeta_free(&jm);
	return r;
}

int
main(void)
{
	struct alx_jobmeta	 jm, got;
	struct alx_resultmeta	 rm, rgot;
	struct alx_progressmeta	 pm, pgot;
	uint8_t			 id[ALX_ID_LEN], hash[ALX_HASH_LEN];
	char			*json, *s;
	size_t			 len;
	static const char *bad_paths[] = {
		"/etc/passwd", "..", "../x", "a/../../b", "a//b", "./a", "a/.",
		"a\\b", "a\nb", NULL
	};
	static const char *good_paths[] = {
		"a", "a/b", "src/x.py", ".hidden", "a..b", "...", NULL
	};
	int			 i;

	memset(&jm, 0, sizeof(jm));
	jm.kind = ALX_JOBKIND_SHELL;
	jm.cmd = strdup("make -j2 check");
	jm.cwd = strdup("sub/dir");
	jm.timeout_s = 60;
	jm.memory_mb = 512;
	jm.reqs = calloc(1, sizeof(char *));
	jm.reqs[0] = strdup("numpy");
	jm.nreqs = 1;
	is_int(alx_jobmeta_encode(&jm, &json, &len), ALX_OK, "job meta encodes");
	is_int(alx_jobmeta_decode(&got, json, len), ALX_OK, "job meta decodes");
	ok(got.kind == ALX_JOBKIND_SHELL && strcmp(got.cmd, jm.cmd) == 0 &&
	    strcmp(got.cwd, "sub/dir") == 0 && got.timeout_s == 60 &&
	    got.memory_mb == 512 && got.nreqs == 1 &&
	    strcmp(got.reqs[0], "numpy") == 0, "job meta round trip");
	alx_jobmeta_free(&got);
	free(json);
	alx_jobmeta_free(&jm);

	/* argv: the words as given, and no command line beside them. */
	memset(&jm, 0, sizeof(jm));
	jm.kind = ALX_JOBKIND_SHELL;
	jm.argc = 4;
	jm.argv = calloc(4, sizeof(char *));
	jm.argv[0] = strdup("printf");
	jm.argv[1] = strdup("[%s]\n");
	jm.argv[2] = strdup("");
	jm.argv[3] = strdup("c;echo \"X\"\n'y'");
	jm.cwd = strdup("");
	is_int(alx_jobmeta_encode(&jm, &json, &len), ALX_OK, "argv job encodes");
	ok(strstr(json, "\"cmd\"") == NULL, "an argv job carries no command "
	    "line (a runner that knows only cmd refuses it, never runs a shell)");
	is_int(alx_jobmeta_decode(&got, json, len), ALX_OK, "argv job decodes");
	ok(got.cmd == NULL && got.argc == 4 && strcmp(got.argv[0], "printf") == 0 &&
	    strcmp(got.argv[1], "[%s]\n") == 0 && got.argv[2][0] == '\0' &&
	    strcmp(got.argv[3], jm.argv[3]) == 0, "argv round trip, word for word");
	alx_jobmeta_free(&got);
	free(json);
	alx_jobmeta_free(&jm);
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"cmd\":\"x\",\"argv\":[\"x\"],\"cwd\":\"\"}"),
	    ALX_ERR_INVALID, "cmd and argv together refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"argv\":[],\"cwd\":\"\"}"),
	    ALX_ERR_MISSING, "an empty argv refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"argv\":[\"\",\"x\"],\"cwd\":\"\"}"),
	    ALX_ERR_INVALID, "an empty program name refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"argv\":[\"a\\u0000b\"],\"cwd\":\"\"}"),
	    ALX_ERR_INVALID, "a NUL in a word refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"argv\":[\"a\",1],\"cwd\":\"\"}"),
	    ALX_ERR_TYPE, "a word that is not a string refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"argv\":\"ls -l\",\"cwd\":\"\"}"),
	    ALX_ERR_TYPE, "argv as one string refused");

	/* Files sent with the job: names of one component, each once. */
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"cmd\":\"x\",\"cwd\":\"\",\"inputs\":[{\"id\":\"AAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"big.bin\",\"size\":3}]}"),
	    ALX_OK, "an input decodes");
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"cmd\":\"x\",\"cwd\":\"\",\"inputs\":[{\"id\":\"AAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"a/b\",\"size\":3}]}"),
	    ALX_ERR_BAD_PATH, "an input name with a folder refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"cmd\":\"x\",\"cwd\":\"\",\"inputs\":[{\"id\":\"AAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"..\",\"size\":3}]}"),
	    ALX_ERR_BAD_PATH, "an input named .. refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"cmd\":\"x\",\"cwd\":\"\",\"inputs\":[{\"id\":\"AAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"a\",\"size\":3},{\"id\":\"BAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"a\",\"size\":1}]}"),
	    ALX_ERR_EXISTS, "two inputs of one name refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"cmd\":\"x\",\"cwd\":\"\",\"inputs\":[\"AAAAAAAAAAAAAAAAAAAAAA\"]}"),
	    ALX_ERR_TYPE, "an input that is only an id refused");

	for (i = 0; bad_paths[i] != NULL; i++)
		ok(!alx_relpath_valid(bad_paths[i]),
		    "bad path %d refused", i);
	for (i = 0; good_paths[i] != NULL; i++)
		ok(alx_relpath_valid(good_paths[i]), "path accepted: \"%s\"",
		    good_paths[i]);
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"cmd\":\"x\",\"cwd\":\"../up\"}"),
	    ALX_ERR_BAD_PATH, "cwd escaping the workspace refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"python\",\"file\":{\"name\":\"a/b.py\"},\"cwd\":\"\"}"),
	    ALX_ERR_BAD_PATH, "python file name with a slash refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"perl\",\"cmd\":\"x\",\"cwd\":\"\"}"),
	    ALX_ERR_NOT_ALLOWED, "unknown job kind refused");
	is_int(decode_job("{\"v\":2,\"kind\":\"shell\",\"cmd\":\"x\",\"cwd\":\"\"}"),
	    ALX_ERR_VERSION, "unknown version refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"cwd\":\"\"}"),
	    ALX_ERR_MISSING, "shell job without cmd refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"cmd\":\"x\",\"cwd\":\"\",\"limits\":{\"network\":\"wide\"}}"),
	    ALX_ERR_NOT_ALLOWED, "unknown network mode refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"cmd\":\"x\",\"cwd\":\"\",\"requirements\":[\"numpy>=1\"]}"),
	    ALX_ERR_BAD_NAME, "versions in job requirements refused");
	is_int(decode_job("{\"v\":1,\"kind\":\"shell\",\"cmd\":\"x\",\"cwd\":\"\",\"future\":1}"),
	    ALX_OK, "unknown member ignored");

	memset(&rm, 0, sizeof(rm));
	alx_random(id, sizeof(id));
	alx_random(hash, sizeof(hash));
	memcpy(rm.job, id, sizeof(id));
	memcpy(rm.job_hash, hash, sizeof(hash));
	rm.status = ALX_JOB_COMPLETED;
	rm.has_exit = 1;
	rm.exit_code = 3;
	rm.out = strdup("hello\n");
	rm.err = strdup("");
	rm.duration_ms = 1234;
	rm.peak_memory = 5 << 20;
	rm.env = strdup("{\"sandbox\":\"local\"}");
	is_int(alx_resultmeta_encode(&rm, &json, &len), ALX_OK, "result encodes");
	is_int(alx_resultmeta_decode(&rgot, json, len), ALX_OK, "result decodes");
	ok(rgot.status == ALX_JOB_COMPLETED && rgot.has_exit &&
	    rgot.exit_code == 3 && strcmp(rgot.out, "hello\n") == 0 &&
	    rgot.peak_memory == (5 << 20) &&
	    strcmp(rgot.env, "{\"sandbox\":\"local\"}") == 0, "result round trip");
	is_int(alx_resultmeta_check_job(&rgot, id, hash), ALX_OK,
	    "result binds its job");
	hash[0] ^= 1;
	is_int(alx_resultmeta_check_job(&rgot, id, hash), ALX_ERR_BAD_HASH,
	    "result for another version of the job: bad_hash");
	alx_resultmeta_free(&rgot);
	free(json);
	alx_resultmeta_free(&rm);
	/* The whole output, bound by the result. */
	memset(&rm, 0, sizeof(rm));
	memcpy(rm.job, id, sizeof(id));
	memcpy(rm.job_hash, hash, sizeof(hash));
	rm.status = ALX_JOB_COMPLETED;
	rm.output.has = 1;
	rm.output.progress = 3;
	memset(rm.output.last, 7, sizeof(rm.output.last));
	rm.output.s[0].size = 300000;
	rm.output.s[0].dropped = 5;
	memset(rm.output.s[0].sha256, 1, ALX_HASH_LEN);
	memset(rm.output.s[1].sha256, 2, ALX_HASH_LEN);
	snprintf(rm.output.cut, sizeof(rm.output.cut), "item_max");
	is_int(alx_resultmeta_encode(&rm, &json, &len), ALX_OK,
	    "a result with its output encodes");
	is_int(alx_resultmeta_decode(&rgot, json, len), ALX_OK,
	    "and decodes");
	ok(rgot.output.has && rgot.output.progress == 3 &&
	    memcmp(rgot.output.last, rm.output.last, ALX_HASH_LEN) == 0 &&
	    rgot.output.s[0].size == 300000 && rgot.output.s[0].dropped == 5 &&
	    rgot.output.s[1].size == 0 &&
	    memcmp(rgot.output.s[1].sha256, rm.output.s[1].sha256,
	    ALX_HASH_LEN) == 0 && strcmp(rgot.output.cut, "item_max") == 0,
	    "output round trip: progress count, last hash, sizes, hashes, cut");
	alx_resultmeta_free(&rgot);
	free(json);
	alx_resultmeta_free(&rm);
	s = "{\"v\":1,\"job\":\"AAAAAAAAAAAAAAAAAAAAAA\",\"job_hash\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\",\"status\":\"completed\",\"stdout\":\"\",\"stderr\":\"\",\"stdout_truncated\":false,\"stderr_truncated\":false,\"output\":{\"progress\":1,\"stdout\":{\"size\":0,\"sha256\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\",\"dropped\":0},\"stderr\":{\"size\":0,\"sha256\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\",\"dropped\":0}},\"duration_ms\":0,\"peak_memory\":-1}";
	is_int(alx_resultmeta_decode(&rgot, s, strlen(s)), ALX_ERR_MISSING,
	    "progress items without the last one's hash: refused");
	s = "{\"v\":1,\"job\":\"AAAAAAAAAAAAAAAAAAAAAA\",\"job_hash\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\",\"status\":\"completed\",\"stdout\":\"\",\"stderr\":\"\",\"stdout_truncated\":false,\"stderr_truncated\":false,\"output\":{\"progress\":0,\"stdout\":{\"size\":-1,\"sha256\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\",\"dropped\":0},\"stderr\":{\"size\":0,\"sha256\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\",\"dropped\":0}},\"duration_ms\":0,\"peak_memory\":-1}";
	is_int(alx_resultmeta_decode(&rgot, s, strlen(s)), ALX_ERR_RANGE,
	    "a negative size: refused");
	s = "{\"v\":1,\"job\":\"AAAAAAAAAAAAAAAAAAAAAA\",\"job_hash\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\",\"status\":\"lost\",\"stdout\":\"\",\"stderr\":\"\",\"stdout_truncated\":false,\"stderr_truncated\":false,\"duration_ms\":0,\"peak_memory\":-1}";
	is_int(alx_resultmeta_decode(&rgot, s, strlen(s)), ALX_ERR_INVALID,
	    "a runner cannot report 'lost'");

	memset(&pm, 0, sizeof(pm));
	memcpy(pm.job, id, sizeof(id));
	pm.seq = 4;
	pm.size[ALX_OUT_STDOUT] = 1000;
	pm.size[ALX_OUT_STDERR] = 24;
	is_int(alx_progressmeta_encode(&pm, &json, &len), ALX_OK,
	    "progress encodes");
	is_int(alx_progressmeta_decode(&pgot, json, len), ALX_OK,
	    "progress decodes");
	ok(pgot.seq == 4 && pgot.size[ALX_OUT_STDOUT] == 1000 &&
	    pgot.size[ALX_OUT_STDERR] == 24 &&
	    memcmp(pgot.job, id, sizeof(id)) == 0, "progress round trip");
	alx_progressmeta_free(&pgot);
	alx_progressmeta_free(&pm);
	free(json);

	s = alx_utf8_sanitize("ok\xff\xc3\xa9\xe2\x82\0x", 9, &len);
	is_str(s, "ok\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx",
	    "bad bytes and NUL become U+FFFD, good UTF-8 stays");
	free(s);
	return tap_done();
}
