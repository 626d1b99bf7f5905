#include "ipaddr.h"

#include <arpa/inet.h>
#include <string.h>

bool ipaddr_parse(slice s, ipaddr *out)
{
	char tmp[64];
	size_t n = 0;
	while (n < s.n && s.p[n] != '%' && s.p[n] != '<')
		n++;
	if (n == 0 || n >= sizeof tmp)
		return false;
	memcpy(tmp, s.p, n);
	tmp[n] = '\0';
	*out = (ipaddr){ 0 };
	if (inet_pton(AF_INET, tmp, out->b) == 1) {
		out->family = 4;
		return true;
	}
	if (inet_pton(AF_INET6, tmp, out->b) == 1) {
		static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
		if (memcmp(out->b, mapped, 12) == 0) {
			memmove(out->b, out->b + 12, 4);
			memset(out->b + 4, 0, 12);
			out->family = 4;
		} else {
			out->family = 6;
		}
		return true;
	}
	return false;
}

enum ip_kind ipaddr_kind(const ipaddr *a)
{
	const unsigned char *b = a->b;
	if (a->family == 4) {
		if (b[0] == 127)
			return IP_LOOPBACK;
		if (b[0] == 169 && b[1] == 254)
			return IP_LINK_LOCAL;
		if (b[0] == 10 || (b[0] == 172 && (b[1] & 0xf0) == 16) || (b[0] == 192 && b[1] == 168))
			return IP_PRIVATE;
		return IP_GLOBAL;
	}
	if (a->family == 6) {
		static const unsigned char lo[16] = { [15] = 1 };
		if (memcmp(b, lo, 16) == 0)
			return IP_LOOPBACK;
		if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
			return IP_LINK_LOCAL;
		if ((b[0] & 0xfe) == 0xfc)
			return IP_PRIVATE;
		return IP_GLOBAL;
	}
	return IP_UNKNOWN;
}

bool ipaddr_same_net(const ipaddr *a, const ipaddr *b, int bits)
{
	if (a->family != b->family || !a->family)
		return false;
	int full = bits / 8, rest = bits % 8;
	if (memcmp(a->b, b->b, (size_t)full) != 0)
		return false;
	if (!rest)
		return true;
	unsigned char mask = (unsigned char)(0xff << (8 - rest));
	return (a->b[full] & mask) == (b->b[full] & mask);
}

void ipaddr_net_str(const ipaddr *a, int bits, strbuf *b)
{
	char t[64];
	ipaddr n = *a;
	int len = a->family == 4 ? 4 : 16;
	for (int i = 0; i < len; i++) {
		int keep = bits - i * 8;
		if (keep <= 0)
			n.b[i] = 0;
		else if (keep < 8)
			n.b[i] &= (unsigned char)(0xff << (8 - keep));
	}
	if (!a->family)
		return;
	inet_ntop(a->family == 4 ? AF_INET : AF_INET6, n.b, t, sizeof t);
	sb_printf(b, "%s/%d", t, bits);
}
