/* SHA-256 against the FIPS 180-2 examples and the lengths where padding
 * takes a second block, and its base64 form as a CSP hash source. */
#include <stdlib.h>

#include "../../util/sha256.h"
#include "check.h"

static void hex(const uint8_t d[32], char out[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	static const struct {
		size_t n;
		char fill;      /* 0: the text itself */
		const char *text, *digest, *b64;
	} v[] = {
		{ 0, 0, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		  "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=" },
		{ 3, 0, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		  "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=" },
		{ 56, 0, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
		  "JI1qYdIGOLjlwCaTDD5gOaM85Flk/yFn9uzt1BnbBsE=" },
		{ 112, 0,
		  "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
		  "z1sWp3ivg4ADbOWeewSSNwskmxHo8HpRr6xFA3r+6dE=" },
		{ 55, 'x', NULL, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072",
		  "1eKFaDzU78AtAhpcYgFGlJWJAQBdb3HongmJ+sd+QHI=" },
		{ 63, 'x', NULL, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2",
		  "dSILRyGCeOZW8gE7uPDEVaJerwHobGSSTp1I2Jd21vI=" },
		{ 64, 'x', NULL, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c",
		  "fOEAlx9k5wAej+WlGXPs3+HO1Cvv5+6NX9YhlQa1OTw=" },
		{ 1000000, 'a', NULL, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
		  "zcduXJkU+5KBocfihNc+Z/GAmkiklyAOBG05zMcRLNA=" },
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		char *buf = malloc(v[i].n + 1);
		if (v[i].fill)
			memset(buf, v[i].fill, v[i].n);
		else
			memcpy(buf, v[i].text, v[i].n);
		uint8_t d[32];
		char h[65];
		sha256_digest(buf, v[i].n, d);
		hex(d, h);
		CHECK(c, strcmp(h, v[i].digest) == 0, "%zu bytes: %s", v[i].n, h);
		strbuf b = { 0 };
		sha256_base64(&b, buf, v[i].n);
		CHECK(c, b.p && strcmp(b.p, v[i].b64) == 0, "%zu bytes: base64 %s", v[i].n, b.p ? b.p : "");
		sb_free(&b);
		free(buf);
	}
	return check_done(c, "sha256");
}
