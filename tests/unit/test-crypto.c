/*
 * test-crypto.c: airlox/crypto.h against published vectors (RFC 8032,
 * RFC 7748, RFC 5869, RFC 4231, FIPS 180-2, the GCM specification) and
 * against the attacks it must refuse.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/crypto.h"
#include "tap.h"

/* Decode hex into out (at most max bytes); returns the length or exits. */
static size_t
hex(uint8_t *out, size_t max, const char *s)
{
	size_t		 n, i;
	unsigned int	 v;

	n = strlen(s);
	if (n % 2 != 0 || n / 2 > max) {
		printf("Bail out! bad hex vector \"%s\"\n", s);
		exit(1);
	}
	for (i = 0; i < n / 2; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1) {
			printf("Bail out! bad hex vector \"%s\"\n", s);
			exit(1);
		}
		out[i] = (uint8_t)v;
	}
	return n / 2;
}

static int
all_zero(const void *p, size_t n)
{
	const uint8_t	*b = p;
	size_t		 i;
	uint8_t		 acc = 0;

	for (i = 0; i < n; i++)
		acc |= b[i];
	return acc == 0;
}

/* RFC 8032 section 7.1. */
static const struct {
	const char	*name, *seed, *pk, *msg, *sig;
} ed_vec[] = {
	{ "TEST 1",
	  "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
	  "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
	  "",
	  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
	  "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b" },
	{ "TEST 2",
	  "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
	  "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
	  "72",
	  "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
	  "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00" },
	{ "TEST 3",
	  "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
	  "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
	  "af82",
	  "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
	  "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a" },
	{ "TEST SHA(abc)",
	  "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
	  "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
	  "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
	  "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
	  "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b589"
	  "09351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704" },
};

static void
test_hash(void)
{
	struct alx_sha256_ctx	 ctx;
	uint8_t			 want[64], got[64], one[32];
	const char		*abc = "abc";
	const char		*m448 = "abcdbcdecdefdefgefghfghighijhijk"
				    "ijkljklmklmnlmnomnopnopq";
	size_t			 i;

	hex(want, 32, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	alx_sha256(got, abc, 3);
	is_mem(got, want, 32, "SHA-256(\"abc\")");
	hex(want, 32, "e3b0c44298fc1c149afbf4c8996fb924"
	    "27ae41e4649b934ca495991b7852b855");
	alx_sha256(got, NULL, 0);
	is_mem(got, want, 32, "SHA-256 of the empty string");
	hex(want, 64, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
	    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
	alx_sha512(got, abc, 3);
	is_mem(got, want, 64, "SHA-512(\"abc\")");

	/* Streaming equals one-shot at every split point. */
	alx_sha256(one, m448, strlen(m448));
	hex(want, 32, "248d6a61d20638b8e5c026930c3e6039"
	    "a33ce45964ff2167f6ecedd419db06c1");
	is_mem(one, want, 32, "SHA-256 of the 448-bit FIPS message");
	for (i = 0; i <= strlen(m448); i++) {
		alx_sha256_init(&ctx);
		alx_sha256_update(&ctx, m448, i);
		alx_sha256_update(&ctx, NULL, 0);
		alx_sha256_update(&ctx, m448 + i, strlen(m448) - i);
		alx_sha256_final(&ctx, got);
		if (memcmp(got, one, 32) != 0)
			break;
	}
	ok(i == strlen(m448) + 1, "streaming SHA-256 at every split point");
	ok(all_zero(&ctx, sizeof(ctx)), "sha256_final wipes the context");
}

/*
 * SHA-256 comes from OpenSSL (with the CPU's SHA extensions where there
 * are any); it must agree with an independent implementation, libsodium's,
 * at every length around the 64-byte block and its padding, and over 1 MiB
 * fed in uneven pieces.
 */
static void
test_hash_differential(void)
{
	struct alx_sha256_ctx	 ctx;
	uint8_t			*buf, a[32], b[32];
	size_t			 len, off, step, bad = 0;
	const size_t		 big = 1024 * 1024;

	if ((buf = malloc(big)) == NULL) {
		ok(0, "malloc");
		return;
	}
	randombytes_buf(buf, big);
	for (len = 0; len <= 1100; len++) {
		alx_sha256(a, buf, len);
		crypto_hash_sha256(b, buf, len);
		if (memcmp(a, b, 32) != 0)
			bad++;
	}
	ok(bad == 0, "SHA-256 agrees with libsodium at every length 0-1100");
	alx_sha256_init(&ctx);
	for (off = 0, step = 1; off < big; off += step, step = step * 7 % 9973)
		alx_sha256_update(&ctx, buf + off,
		    step < big - off ? step : big - off);
	alx_sha256_final(&ctx, a);
	crypto_hash_sha256(b, buf, big);
	ok(memcmp(a, b, 32) == 0,
	    "streaming SHA-256 of 1 MiB in uneven pieces agrees with libsodium");
	free(buf);
}

static void
test_hmac(void)
{
	uint8_t	key[20], want[32], got[32];

	/* RFC 4231 test cases 1 and 2. */
	memset(key, 0x0b, sizeof(key));
	hex(want, 32, "b0344c61d8db38535ca8afceaf0bf12b"
	    "881dc200c9833da726e9376c2e32cff7");
	alx_hmac_sha256(got, key, 20, "Hi There", 8);
	is_mem(got, want, 32, "HMAC-SHA-256 RFC 4231 case 1");
	hex(want, 32, "5bdcc146bf60754e6a042426089575c7"
	    "5a003f089d2739839dec58b964ec3843");
	alx_hmac_sha256(got, "Jefe", 4, "what do ya want for nothing?", 28);
	is_mem(got, want, 32, "HMAC-SHA-256 RFC 4231 case 2");
}

static void
test_hkdf(void)
{
	uint8_t	ikm[80], salt[80], info[80], want[82], got[82];
	uint8_t	big[255 * 32 + 1];
	size_t	i, n;

	/* RFC 5869 test case 1. */
	memset(ikm, 0x0b, 22);
	hex(salt, sizeof(salt), "000102030405060708090a0b0c");
	hex(info, sizeof(info), "f0f1f2f3f4f5f6f7f8f9");
	n = hex(want, sizeof(want), "3cb25f25faacd57a90434f64d0362f2a"
	    "2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
	is_int(alx_hkdf_sha256(got, n, ikm, 22, salt, 13, info, 10), 0,
	    "HKDF case 1 succeeds");
	is_mem(got, want, n, "HKDF RFC 5869 case 1");

	/* Test case 2: long inputs, 82 bytes of output. */
	for (i = 0; i < 80; i++) {
		ikm[i] = (uint8_t)i;
		salt[i] = (uint8_t)(0x60 + i);
		info[i] = (uint8_t)(0xb0 + i);
	}
	n = hex(want, sizeof(want), "b11e398dc80327a1c8e7f78c596a4934"
	    "4f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09"
	    "da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f"
	    "1d87");
	is_int(alx_hkdf_sha256(got, n, ikm, 80, salt, 80, info, 80), 0,
	    "HKDF case 2 succeeds");
	is_mem(got, want, n, "HKDF RFC 5869 case 2");

	/* Test case 3: no salt, no info. */
	memset(ikm, 0x0b, 22);
	n = hex(want, sizeof(want), "8da4e775a563c18f715f802a063c5a31"
	    "b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8");
	is_int(alx_hkdf_sha256(got, n, ikm, 22, NULL, 0, NULL, 0), 0,
	    "HKDF case 3 succeeds");
	is_mem(got, want, n, "HKDF RFC 5869 case 3");

	is_int(alx_hkdf_sha256(big, 255 * 32, ikm, 22, NULL, 0, NULL, 0), 0,
	    "HKDF gives 255 * 32 bytes");
	ok(memcmp(big, want, n) == 0, "a longer output extends a shorter one");
	is_int(alx_hkdf_sha256(big, 255 * 32 + 1, ikm, 22, NULL, 0, NULL, 0),
	    ALX_ERR_INVALID, "HKDF refuses more than 255 * 32 bytes");
	is_int(alx_hkdf_sha256(big, 32, NULL, 5, NULL, 0, NULL, 0),
	    ALX_ERR_INVALID, "HKDF refuses NULL input with a length");
}

static void
test_ed25519_vectors(void)
{
	struct alx_signkey	 k;
	uint8_t			 seed[32], pk[32], msg[64], sig[64], got[64];
	uint8_t			 seed2[32];
	size_t			 i, mlen;

	for (i = 0; i < sizeof(ed_vec) / sizeof(ed_vec[0]); i++) {
		hex(seed, sizeof(seed), ed_vec[i].seed);
		hex(pk, sizeof(pk), ed_vec[i].pk);
		mlen = hex(msg, sizeof(msg), ed_vec[i].msg);
		hex(sig, sizeof(sig), ed_vec[i].sig);

		is_int(alx_sign_from_seed(&k, seed), 0, "%s: key from seed",
		    ed_vec[i].name);
		is_mem(k.pk, pk, 32, "%s: public key", ed_vec[i].name);
		alx_sign_seed(&k, seed2);
		is_mem(seed2, seed, 32, "%s: seed round trip", ed_vec[i].name);
		is_int(alx_sign(got, msg, mlen, &k), 0, "%s: sign",
		    ed_vec[i].name);
		is_mem(got, sig, 64, "%s: signature", ed_vec[i].name);
		is_int(alx_verify(sig, msg, mlen, pk), 0, "%s: verify",
		    ed_vec[i].name);
		alx_sign_wipe(&k);
		ok(all_zero(&k, sizeof(k)), "%s: sign_wipe clears the key",
		    ed_vec[i].name);
	}
}

/* s += L (the group order), little-endian, as a malleable forger would. */
static void
add_order(uint8_t s[32])
{
	static const uint8_t L[32] = {
		0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58,
		0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
	};
	unsigned int	c = 0;
	size_t		i;

	for (i = 0; i < 32; i++) {
		c += s[i] + L[i];
		s[i] = (uint8_t)c;
		c >>= 8;
	}
}

static void
test_ed25519_reject(void)
{
	struct alx_signkey	 k, k2;
	uint8_t			 sig[64], bad[64], pk[32];
	/* Identity R and S = 0: "verifies" under the identity key. */
	uint8_t			 idsig[64] = { 1 };
	const char		*msg = "attack at dawn";
	size_t			 len = strlen(msg);

	is_int(alx_sign_keygen(&k), 0, "sign_keygen");
	is_int(alx_sign_keygen(&k2), 0, "sign_keygen again");
	ok(memcmp(k.pk, k2.pk, 32) != 0, "two keys differ");
	is_int(alx_sign(sig, msg, len, &k), 0, "sign");
	is_int(alx_verify(sig, msg, len, k.pk), 0, "verify own signature");
	is_int(alx_verify(sig, msg, len, k2.pk), ALX_ERR_BAD_SIGNATURE,
	    "another key does not verify");

	memcpy(bad, sig, 64);
	bad[10] ^= 0x01;
	is_int(alx_verify(bad, msg, len, k.pk), ALX_ERR_BAD_SIGNATURE,
	    "flipped bit in R rejected");
	memcpy(bad, sig, 64);
	bad[40] ^= 0x80;
	is_int(alx_verify(bad, msg, len, k.pk), ALX_ERR_BAD_SIGNATURE,
	    "flipped bit in S rejected");
	is_int(alx_verify(sig, "attack at dusk", len, k.pk),
	    ALX_ERR_BAD_SIGNATURE, "changed message rejected");
	is_int(alx_verify(sig, msg, len - 1, k.pk), ALX_ERR_BAD_SIGNATURE,
	    "truncated message rejected");

	memcpy(bad, sig, 64);
	add_order(bad + 32);
	is_int(alx_verify(bad, msg, len, k.pk), ALX_ERR_BAD_SIGNATURE,
	    "non-canonical S (S + L) rejected");

	memset(pk, 0, 32);
	is_int(alx_verify(sig, msg, len, pk), ALX_ERR_BAD_SIGNATURE,
	    "all-zero public key rejected");
	memset(pk, 0, 32);
	pk[0] = 1;
	is_int(alx_verify(idsig, msg, len, pk), ALX_ERR_BAD_SIGNATURE,
	    "identity public key with identity signature rejected");
	memset(pk, 0xff, 32);
	pk[0] = 0xee;
	pk[31] = 0x7f;
	is_int(alx_verify(idsig, msg, len, pk), ALX_ERR_BAD_SIGNATURE,
	    "non-canonical encoding of the identity (p + 1) rejected");
	memset(pk, 0xff, 32);
	is_int(alx_verify(sig, msg, len, pk), ALX_ERR_BAD_SIGNATURE,
	    "non-canonical public key (all ones) rejected");

	/*
	 * Keys that passed the point check are remembered per thread in a
	 * table whose set is chosen by their first bytes: a bad key landing
	 * in a set full of remembered good ones (and after one of them was
	 * replaced) is still checked and refused, and the good ones go on
	 * verifying.
	 */
	{
		struct alx_signkey	kk[6];
		uint8_t			ks[6][64];
		int			i, n = 0, good = 0;

		for (i = 0; i < 20000 && n < 6; i++)
			if (alx_sign_keygen(&kk[n]) == 0 &&
			    kk[n].pk[0] % 64 == 1)
				n++;
		ok(n == 6, "six keys in the identity key's memo set");
		for (i = 0; i < n; i++) {
			alx_sign(ks[i], msg, len, &kk[i]);
			good += alx_verify(ks[i], msg, len, kk[i].pk) == 0;
		}
		is_int(good, n, "each verifies (remembered; the set overflows)");
		memset(pk, 0, 32);
		pk[0] = 1;
		is_int(alx_verify(idsig, msg, len, pk), ALX_ERR_BAD_SIGNATURE,
		    "the identity key in a full set of remembered keys: refused");
		for (i = good = 0; i < n; i++)
			good += alx_verify(ks[i], msg, len, kk[i].pk) == 0;
		is_int(good, n, "the good keys still verify");
		is_int(alx_verify(ks[0], msg, len, kk[1].pk),
		    ALX_ERR_BAD_SIGNATURE,
		    "one remembered key does not verify another's signature");
		alx_wipe(kk, sizeof(kk));
	}

	/* A key whose two halves disagree is refused. */
	memcpy(&k2.pk, k.pk, 32);
	is_int(alx_sign(sig, msg, len, &k2), ALX_ERR_INVALID,
	    "sign refuses a key with a mismatched public half");
	is_int(alx_verify(sig, NULL, 3, k.pk), ALX_ERR_INVALID,
	    "verify refuses NULL message with a length");
	alx_sign_wipe(&k);
	alx_sign_wipe(&k2);
}

static void
test_sign_parts(void)
{
	struct alx_signkey	 k;
	uint8_t			 sig[64], sig2[64];
	uint8_t			 p1[5] = { 'h', 'e', 'a', 'd', 0 };
	uint8_t			 p2[4] = { 0xde, 0xad, 0xbe, 0xef };
	uint8_t			 cat[64];
	size_t			 n;

	is_int(alx_sign_keygen(&k), 0, "sign_keygen");
	is_int(alx_sign_parts(sig, "airlox-test", p1, 5, p2, 4, &k), 0,
	    "sign_parts");
	n = 0;
	memcpy(cat, "airlox-test", 11);
	n += 11;
	cat[n++] = 0;
	memcpy(cat + n, p1, 5);
	n += 5;
	memcpy(cat + n, p2, 4);
	n += 4;
	is_int(alx_verify(sig, cat, n, k.pk), 0,
	    "sign_parts is plain Ed25519 over domain || 0 || p1 || p2");
	is_int(alx_sign(sig2, cat, n, &k), 0, "sign the concatenation");
	is_mem(sig, sig2, 64, "the same signature as sign over the concatenation");
	is_int(alx_verify_parts(sig, "airlox-test", p1, 5, p2, 4, k.pk), 0,
	    "verify_parts");
	is_int(alx_verify_parts(sig, "airlox-tesT", p1, 5, p2, 4, k.pk),
	    ALX_ERR_BAD_SIGNATURE, "another domain rejected");
	is_int(alx_verify_parts(sig, "airlox-test", p1, 5, p2, 3, k.pk),
	    ALX_ERR_BAD_SIGNATURE, "shorter part 2 rejected");
	p2[3] ^= 1;
	is_int(alx_verify_parts(sig, "airlox-test", p1, 5, p2, 4, k.pk),
	    ALX_ERR_BAD_SIGNATURE, "flipped bit in part 2 rejected");

	is_int(alx_sign_parts(sig, "d", p1, 5, NULL, 0, &k), 0,
	    "sign_parts without part 2");
	is_int(alx_verify_parts(sig, "d", p1, 5, NULL, 0, k.pk), 0,
	    "verify_parts without part 2");
	cat[0] = 'd';
	cat[1] = 0;
	memcpy(cat + 2, p1, 5);
	is_int(alx_verify(sig, cat, 7, k.pk), 0,
	    "without part 2 it signs domain || 0 || p1");
	is_int(alx_verify_parts(sig, "d", p1, 5, p1, 0, k.pk), 0,
	    "empty part 2 equals no part 2");
	is_int(alx_sign_parts(sig, "", p1, 5, NULL, 0, &k), ALX_ERR_INVALID,
	    "empty domain refused");
	is_int(alx_sign_parts(sig, NULL, p1, 5, NULL, 0, &k), ALX_ERR_INVALID,
	    "NULL domain refused");
	is_int(alx_verify_parts(sig, "d", NULL, 5, NULL, 0, k.pk),
	    ALX_ERR_INVALID, "NULL part with a length refused");
	alx_sign_wipe(&k);
}

static void
test_x25519(void)
{
	struct alx_kxkey	 a, b;
	uint8_t			 sk[32], want[32], k1[32], k2[32], pk[32];

	/* RFC 7748 section 6.1. */
	hex(sk, 32, "77076d0a7318a57d3c16c17251b26645"
	    "df4c2f87ebc0992ab177fba51db92c2a");
	is_int(alx_kx_from_secret(&a, sk), 0, "Alice's key");
	hex(want, 32, "8520f0098930a754748b7ddcb43ef75a"
	    "0dbf3a0d26381af4eba4a98eaa9b4e6a");
	is_mem(a.pk, want, 32, "Alice's public key");
	hex(sk, 32, "5dab087e624a8a4b79e17f8b83800ee6"
	    "6f3bb1292618b6fd1c2f8b27ff88e0eb");
	is_int(alx_kx_from_secret(&b, sk), 0, "Bob's key");
	hex(want, 32, "de9edb7d7b7dc1b4d35b61c2ece43537"
	    "3f8343c85b78674dadfc7e146f882b4f");
	is_mem(b.pk, want, 32, "Bob's public key");
	hex(want, 32, "4a5d9d5ba4ce2de1728e3bf480350f25"
	    "e07e21c947d19e3376f09b3c1e161742");
	is_int(alx_kx(k1, a.sk, b.pk), 0, "Alice computes K");
	is_mem(k1, want, 32, "Alice's K matches RFC 7748");
	is_int(alx_kx(k2, b.sk, a.pk), 0, "Bob computes K");
	is_mem(k2, want, 32, "Bob's K matches RFC 7748");

	/* Small-order public keys give an all-zero secret: refused. */
	memset(pk, 0, 32);
	memset(k1, 0xaa, 32);
	is_int(alx_kx(k1, a.sk, pk), ALX_ERR_CRYPTO, "u = 0 refused");
	ok(all_zero(k1, 32), "no shared secret left after u = 0");
	pk[0] = 1;
	memset(k1, 0xaa, 32);
	is_int(alx_kx(k1, a.sk, pk), ALX_ERR_CRYPTO, "u = 1 refused");
	ok(all_zero(k1, 32), "no shared secret left after u = 1");
	/* u = p - 1, one of the small-order encodings. */
	memset(pk, 0xff, 32);
	pk[0] = 0xec;
	pk[31] = 0x7f;
	is_int(alx_kx(k1, a.sk, pk), ALX_ERR_CRYPTO, "u = p - 1 refused");

	alx_kx_wipe(&a);
	ok(all_zero(&a, sizeof(a)), "kx_wipe clears the key");
	is_int(alx_kx_keygen(&a), 0, "kx_keygen");
	ok(!all_zero(a.sk, 32) && memcmp(a.pk, b.pk, 32) != 0,
	    "a fresh key");
	is_int(alx_kx(k1, a.sk, b.pk), 0, "fresh key agrees with Bob (1)");
	is_int(alx_kx(k2, b.sk, a.pk), 0, "fresh key agrees with Bob (2)");
	is_mem(k1, k2, 32, "both sides derive the same secret");
	alx_kx_wipe(&a);
	alx_kx_wipe(&b);
}

/* McGrew & Viega, "The Galois/Counter Mode of Operation", cases 13-16. */
static const struct {
	const char	*name, *key, *iv, *pt, *aad, *ct, *tag;
} gcm_vec[] = {
	{ "GCM case 13",
	  "0000000000000000000000000000000000000000000000000000000000000000",
	  "000000000000000000000000", "", "", "",
	  "530f8afbc74536b9a963b4f1c4cb738b" },
	{ "GCM case 14",
	  "0000000000000000000000000000000000000000000000000000000000000000",
	  "000000000000000000000000",
	  "00000000000000000000000000000000", "",
	  "cea7403d4d606b6e074ec5d3baf39d18",
	  "d0d1c8a799996bf0265b98b5d48ab919" },
	{ "GCM case 15",
	  "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
	  "cafebabefacedbaddecaf888",
	  "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	  "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
	  "",
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
	  "b094dac5d93471bdec1a502270e3cc6c" },
	{ "GCM case 16",
	  "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
	  "cafebabefacedbaddecaf888",
	  "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	  "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
	  "feedfacedeadbeeffeedfacedeadbeefabaddad2",
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
	  "76fc6ece0f4e1768cddf8853bb2d551b" },
};

static void
test_gcm_vectors(void)
{
	uint8_t	key[32], iv[12], pt[64], aad[20], want[80], ct[80], got[64];
	size_t	i, ptlen, aadlen;

	for (i = 0; i < sizeof(gcm_vec) / sizeof(gcm_vec[0]); i++) {
		hex(key, sizeof(key), gcm_vec[i].key);
		hex(iv, sizeof(iv), gcm_vec[i].iv);
		ptlen = hex(pt, sizeof(pt), gcm_vec[i].pt);
		aadlen = hex(aad, sizeof(aad), gcm_vec[i].aad);
		hex(want, sizeof(want), gcm_vec[i].ct);
		hex(want + ptlen, 16, gcm_vec[i].tag);

		is_int(alx_aead_seal(ct, key, iv, aadlen ? aad : NULL, aadlen,
		    ptlen ? pt : NULL, ptlen), 0, "%s: seal", gcm_vec[i].name);
		is_mem(ct, want, ptlen + 16, "%s: ciphertext and tag",
		    gcm_vec[i].name);
		memset(got, 0xaa, sizeof(got));
		is_int(alx_aead_open(got, key, iv, aadlen ? aad : NULL,
		    aadlen, ct, ptlen + 16), 0, "%s: open", gcm_vec[i].name);
		is_mem(got, pt, ptlen, "%s: plaintext", gcm_vec[i].name);
	}
}

/* Open with one thing changed: must fail and leave out all zero. */
static void
aead_bad(const char *what, const uint8_t *key, const uint8_t *nonce,
    const uint8_t *aad, size_t aadlen, const uint8_t *ct, size_t ctlen)
{
	uint8_t	out[256];

	memset(out, 0xaa, sizeof(out));
	is_int(alx_aead_open(out, key, nonce, aad, aadlen, ct, ctlen),
	    ALX_ERR_DECRYPT, "%s: open fails", what);
	ok(ctlen < 16 || all_zero(out, ctlen - 16),
	    "%s: output buffer zeroed", what);
}

static void
test_aead_reject(void)
{
	uint8_t		 key[32], nonce[12], aad[13], pt[100], ct[116];
	uint8_t		 k2[32], n2[12], a2[13], c2[116], out[100];
	const size_t	 ctlen = sizeof(ct);

	alx_random(key, sizeof(key));
	alx_random(nonce, sizeof(nonce));
	memcpy(aad, "header-bytes!", sizeof(aad));
	memset(pt, 'p', sizeof(pt));
	is_int(alx_aead_seal(ct, key, nonce, aad, sizeof(aad), pt,
	    sizeof(pt)), 0, "seal 100 bytes");
	is_int(alx_aead_open(out, key, nonce, aad, sizeof(aad), ct, ctlen), 0,
	    "open 100 bytes");
	is_mem(out, pt, sizeof(pt), "round trip");

	memcpy(c2, ct, ctlen);
	c2[50] ^= 0x04;
	aead_bad("flipped ciphertext bit", key, nonce, aad, sizeof(aad), c2,
	    ctlen);
	memcpy(c2, ct, ctlen);
	c2[ctlen - 1] ^= 0x80;
	aead_bad("flipped tag bit", key, nonce, aad, sizeof(aad), c2, ctlen);
	memcpy(a2, aad, sizeof(aad));
	a2[0] ^= 0x01;
	aead_bad("flipped aad bit", key, nonce, a2, sizeof(aad), ct, ctlen);
	aead_bad("aad missing", key, nonce, NULL, 0, ct, ctlen);
	memcpy(n2, nonce, sizeof(nonce));
	n2[11] ^= 0x10;
	aead_bad("flipped nonce bit", key, n2, aad, sizeof(aad), ct, ctlen);
	memcpy(k2, key, sizeof(key));
	k2[31] ^= 0x01;
	aead_bad("flipped key bit", k2, nonce, aad, sizeof(aad), ct, ctlen);
	aead_bad("truncated by one byte", key, nonce, aad, sizeof(aad), ct,
	    ctlen - 1);
	aead_bad("shorter than a tag", key, nonce, aad, sizeof(aad), ct, 15);
	aead_bad("empty", key, nonce, aad, sizeof(aad), ct, 0);

	/* Empty plaintext, no aad. */
	is_int(alx_aead_seal(c2, key, nonce, NULL, 0, NULL, 0), 0,
	    "seal empty plaintext");
	is_int(alx_aead_open(out, key, nonce, NULL, 0, c2, 16), 0,
	    "open empty plaintext");
	c2[0] ^= 1;
	is_int(alx_aead_open(out, key, nonce, NULL, 0, c2, 16),
	    ALX_ERR_DECRYPT, "empty plaintext, bad tag refused");

	/* In place. */
	memcpy(c2, pt, sizeof(pt));
	is_int(alx_aead_seal(c2, key, nonce, aad, sizeof(aad), c2,
	    sizeof(pt)), 0, "seal in place");
	is_mem(c2, ct, ctlen, "in-place seal gives the same bytes");
	is_int(alx_aead_open(c2, key, nonce, aad, sizeof(aad), c2, ctlen), 0,
	    "open in place");
	is_mem(c2, pt, sizeof(pt), "in-place round trip");

	is_int(alx_aead_seal(c2, key, nonce, NULL, 5, pt, 1), ALX_ERR_INVALID,
	    "seal refuses NULL aad with a length");
	is_int(alx_aead_open(out, key, nonce, aad, sizeof(aad), NULL, 20),
	    ALX_ERR_INVALID, "open refuses NULL ciphertext");
}

static void
test_misc(void)
{
	uint8_t		 a[32], b[32], pk[32], fp[16], fp2[16], h[32];
	uint8_t		 dec[16];
	char		 s[ALX_FP_STRLEN + 1], s2[ALX_FP_STRLEN + 1];
	struct alx_sha256_ctx ctx;
	size_t		 i;

	is_int(alx_crypto_init(), 0, "crypto_init again is fine");
	memset(a, 0x5a, sizeof(a));
	memcpy(b, a, sizeof(b));
	ok(alx_ct_eq(a, b, 32) == 1, "ct_eq: equal");
	b[31] ^= 1;
	ok(alx_ct_eq(a, b, 32) == 0, "ct_eq: last byte differs");
	b[31] ^= 1;
	b[0] ^= 0x80;
	ok(alx_ct_eq(a, b, 32) == 0, "ct_eq: first byte differs");
	ok(alx_ct_eq(a, b, 0) == 1, "ct_eq: empty ranges are equal");

	alx_wipe(a, sizeof(a));
	ok(all_zero(a, sizeof(a)), "wipe zeroes");
	is_int(alx_random(a, sizeof(a)), 0, "random");
	is_int(alx_random(b, sizeof(b)), 0, "random again");
	ok(!all_zero(a, 32) && memcmp(a, b, 32) != 0, "random bytes differ");

	/* Fingerprints: deterministic, domain separated, per key. */
	for (i = 0; i < 32; i++)
		pk[i] = (uint8_t)(i * 7);
	alx_fingerprint(fp, pk, 32);
	alx_fingerprint(fp2, pk, 32);
	is_mem(fp, fp2, 16, "fingerprint is deterministic");
	alx_sha256(h, pk, 32);
	ok(memcmp(fp, h, 16) != 0, "fingerprint is not a plain SHA-256 prefix");
	alx_sha256_init(&ctx);
	alx_sha256_update(&ctx, "airlox-fp", 9);
	alx_sha256_update(&ctx, "", 1);
	alx_sha256_update(&ctx, pk, 32);
	alx_sha256_final(&ctx, h);
	is_mem(fp, h, 16, "fingerprint is SHA-256(\"airlox-fp\" 0 pk)[0..16]");
	pk[31] ^= 1;
	alx_fingerprint(fp2, pk, 32);
	ok(memcmp(fp, fp2, 16) != 0, "another key, another fingerprint");
	pk[31] ^= 1;

	memset(s, '#', sizeof(s));
	alx_fingerprint_str(s, pk, 32);
	is_int(strlen(s), ALX_FP_STRLEN, "fingerprint text is 22 characters");
	ok(strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789-_") == ALX_FP_STRLEN, "fingerprint text is base64url");
	is_int(alx_b64_decode_exact(dec, 16, s, strlen(s)), 0,
	    "fingerprint text decodes");
	is_mem(dec, fp, 16, "fingerprint text encodes the fingerprint");
	alx_fingerprint_str(s2, pk, 32);
	is_str(s, s2, "fingerprint text is deterministic");
}

int
main(void)
{
	if (alx_crypto_init() != 0) {
		printf("Bail out! alx_crypto_init failed\n");
		return 1;
	}
	test_hash();
	test_hash_differential();
	test_hmac();
	test_hkdf();
	test_ed25519_vectors();
	test_ed25519_reject();
	test_sign_parts();
	test_x25519();
	test_gcm_vectors();
	test_aead_reject();
	test_misc();
	return tap_done();
}
