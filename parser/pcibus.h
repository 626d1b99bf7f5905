/* PCI bus ids as the tools around a GPU job print them: the kernel's Xid
 * lines ("0000:07:00"), lspci and nvidia-smi ("0000:07:00.0", "07:00.0"),
 * NCCL's busId ("7000", the hex digits of the full form), nccl-tests'
 * device table ("[0000:07:00]", older "[0x07]", the bus alone). One
 * normal form, so that lines of different tools meet on a GPU. */
#ifndef NCCLOG_PCIBUS_H
#define NCCLOG_PCIBUS_H

#include "../util/str.h"

/* A part that the text did not give is -1 (and matches any). */
typedef struct pcibus {
	int domain, bus, dev, fn;
} pcibus;

/* Parses one of the forms above (surrounding brackets and blanks are
 * skipped). Returns false, *out untouched, when s is none of them. */
bool pcibus_parse(slice s, pcibus *out);
/* True when a and b can name the same device: bus equal, and domain and
 * device equal where both know them. */
bool pcibus_same(const pcibus *a, const pcibus *b);
/* Appends the kernel's form "0000:07:00" (or "07" for a bus alone). */
void pcibus_format(const pcibus *b, strbuf *out);

#endif
