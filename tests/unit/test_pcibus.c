/* PCI bus ids: every form the tools around a job print, and which of them
 * name the same GPU. */
#include "../../parser/pcibus.h"
#include "check.h"

static void form(checks *c, const char *s, int domain, int bus, int dev, int fn)
{
	pcibus b = { 9, 9, 9, 9 };
	bool ok = pcibus_parse(slice_from(s), &b);
	CHECK(c, ok, "%s: not parsed", s);
	CHECK(c, b.domain == domain && b.bus == bus && b.dev == dev && b.fn == fn, "%s: got %d:%d:%d.%d", s, b.domain,
	      b.bus, b.dev, b.fn);
}

static bool same(const char *a, const char *b)
{
	pcibus x, y;
	return pcibus_parse(slice_from(a), &x) && pcibus_parse(slice_from(b), &y) && pcibus_same(&x, &y);
}

int main(void)
{
	checks c = { 0 };
	form(&c, "0000:07:00.0", 0, 7, 0, 0);      /* lspci -D, nvidia-smi */
	form(&c, "07:00.0", 0, 7, 0, 0);           /* lspci */
	form(&c, "0000:07:00", 0, 7, 0, -1);       /* the kernel's Xid line */
	form(&c, "PCI:0000:3b:00", 0, 0x3b, 0, -1);
	form(&c, "[0000:cb:00]", 0, 0xcb, 0, -1);  /* nccl-tests 2.17+ */
	form(&c, "[0x1b]", -1, 0x1b, -1, -1);      /* nccl-tests before 2.17: the bus */
	form(&c, "7000", 0, 7, 0, 0);              /* NCCL's busId */
	form(&c, "3b000", 0, 0x3b, 0, 0);
	form(&c, "107000", 1, 7, 0, 0);            /* domain 1: "0001:07:00.0" */
	form(&c, "00000000:AF:00.0", 0, 0xaf, 0, 0); /* nvidia-smi's eight-digit domain */
	const char *bad[] = { "", "zz", "0x", "12", "07:", ":00", "0000:07:00:00:00", "0000:07:00.0x", "0000:123:00",
			      "de0de041:4", "100000000:07:00.0", "80000000:07:00.0", "hello:world", "[", "0x123456789abcdef0123" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		pcibus b;
		CHECK(&c, !pcibus_parse(slice_from(bad[i]), &b), "'%s' parsed", bad[i]);
	}
	CHECK(&c, same("0000:07:00", "7000"), "Xid and busId");
	CHECK(&c, same("[0000:07:00]", "0000:07:00.0"), "nccl-tests and lspci");
	CHECK(&c, same("[0x07]", "7000"), "the bus alone matches");
	CHECK(&c, !same("0000:07:00", "8000"), "another bus");
	CHECK(&c, !same("0000:07:00", "107000"), "another domain");
	CHECK(&c, !same("0000:07:01", "7000"), "another device");
	pcibus b;
	strbuf s = { 0 };
	pcibus_parse(slice_from("3b000"), &b);
	pcibus_format(&b, &s);
	CHECK(&c, strcmp(s.p, "0000:3b:00") == 0, "formatted %s", s.p);
	sb_free(&s);
	return check_done(&c, "pcibus");
}
