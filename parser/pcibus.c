#include "pcibus.h"

#include <stdio.h>

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A run of 1 to max hex digits at s[*i]; -1 when none or too long. */
static long hexrun(slice s, size_t *i, size_t max)
{
	long v = 0;
	size_t st = *i;
	while (*i < s.n && hexval(s.p[*i]) >= 0 && *i - st < max + 1)
		v = v * 16 + hexval(s.p[(*i)++]);
	size_t n = *i - st;
	return n == 0 || n > max ? -1 : v;
}

bool pcibus_parse(slice s, pcibus *out)
{
	s = slice_trim(s);
	if (s.n >= 2 && s.p[0] == '[' && s.p[s.n - 1] == ']')
		s = slice_trim((slice){ s.p + 1, s.n - 2 });
	if (slice_starts(s, "PCI:") || slice_starts(s, "pci:"))
		s = (slice){ s.p + 4, s.n - 4 };
	if (!s.n || s.n > 24)
		return false;
	pcibus b = { -1, -1, -1, -1 };
	bool colon = false;
	for (size_t i = 0; i < s.n; i++)
		colon |= s.p[i] == ':';
	size_t i = 0;
	if (colon) {
		/* [domain:]bus:slot[.fn] */
		long part[3];
		int np = 0;
		for (;;) {
			long v = hexrun(s, &i, np == 0 ? 8 : 4);
			if (v < 0 || np == 3)
				return false;
			part[np++] = v;
			if (i < s.n && s.p[i] == ':') {
				i++;
				continue;
			}
			break;
		}
		if (np < 2)
			return false;
		if (i < s.n && s.p[i] == '.') {
			i++;
			long fn = hexrun(s, &i, 1);
			if (fn < 0)
				return false;
			b.fn = (int)fn;
		}
		if (i != s.n)
			return false;
		/* told before narrowing: 8 hex digits do not fit an int */
		long domain = np == 3 ? part[0] : 0, bus = part[np - 2], dev = part[np - 1];
		if (domain > 0x7fffffff || bus > 0xff || dev > 0xff)
			return false;
		b.domain = (int)domain;
		b.bus = (int)bus;
		b.dev = (int)dev;
	} else if (s.n > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X') && s.n <= 4) {
		/* nccl-tests before 2.17: "[0x%02x]", the bus number alone */
		i = 2;
		long v = hexrun(s, &i, 2);
		if (v < 0 || i != s.n)
			return false;
		b.bus = (int)v;
	} else {
		/* NCCL's busId: the hex digits of "dddd:bb:ss.f" as one number */
		if (s.n > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X'))
			i = 2;
		size_t st = i;
		unsigned long long v = 0;
		while (i < s.n && hexval(s.p[i]) >= 0 && i - st < 13)
			v = v * 16 + (unsigned long long)hexval(s.p[i++]);
		if (i != s.n || i == st || i - st < 4)
			return false;
		b.fn = (int)(v & 0xf);
		b.dev = (int)((v >> 4) & 0xff);
		b.bus = (int)((v >> 12) & 0xff);
		b.domain = (int)(v >> 20);
	}
	*out = b;
	return true;
}

bool pcibus_same(const pcibus *a, const pcibus *b)
{
	if (a->bus < 0 || b->bus < 0 || a->bus != b->bus)
		return false;
	if (a->domain >= 0 && b->domain >= 0 && a->domain != b->domain)
		return false;
	if (a->dev >= 0 && b->dev >= 0 && a->dev != b->dev)
		return false;
	return true;
}

void pcibus_format(const pcibus *b, strbuf *out)
{
	if (b->dev < 0) {
		sb_printf(out, "%02x", b->bus & 0xff);
		return;
	}
	sb_printf(out, "%04x:%02x:%02x", b->domain < 0 ? 0 : b->domain, b->bus & 0xff, b->dev & 0xff);
}
