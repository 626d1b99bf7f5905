#!/usr/bin/env python3
"""Crafted hostile logs: each kind floods one input-keyed collection of the
job model with distinct keys, to show that memory and time stay bounded.

usage: crafted.py KIND SIZE_MB [-o FILE]     (stdout without -o)
       crafted.py --list

The output is deterministic (a fixed seed). Kinds:
"""
import argparse
import random
import re
import sys

# Pairs of 6-byte blocks that take FNV-1a (64-bit, the unkeyed hash string
# tables once used) from one state to the same state in its low 32 bits,
# found by a birthday search. Its low bits depend on the low bits alone, so
# any choice of one block per pair gives a name whose hash agrees there with
# every other: 2**18 names for one probe sequence of a table indexed by them.
FNV_PAIRS = (
    (b"6o48vd", b"xsjg4m"),
    (b"ywvn8m", b"i1y5q6"),
    (b"2eo1od", b"delowm"),
    (b"vd8uw3", b"4v4e11"),
    (b"zpl61o", b"m6c2ie"),
    (b"ordlci", b"87pfs3"),
    (b"kv2z2u", b"m4ik9l"),
    (b"ky75y8", b"g7wcnu"),
    (b"35nrmx", b"tfw4j6"),
    (b"xzu7fq", b"wf78rq"),
    (b"2n0o3q", b"4juciv"),
    (b"tyxxp0", b"pcn9fs"),
    (b"oxvkua", b"pkwyur"),
    (b"l2ww0t", b"dfubbu"),
    (b"1aeu82", b"gpozke"),
    (b"jsqjfm", b"588vhf"),
    (b"2up0tt", b"cwnh83"),
    (b"9zo8c1", b"gnlk4d"),
)


def prefix(host, pid, dev=0):
    return f"{host}:{pid}:{pid} [{dev}] NCCL INFO "


def hosts(rng):
    """distinct host names, one process each (report_hosts, count_hosts)"""
    i = 0
    while True:
        yield prefix(f"gpu-{i:07d}", 1000 + i % 50000) + "Bootstrap : Using eth0:10.0.0.1<0>"
        i += 1


def pids(rng):
    """distinct processes on one host"""
    i = 0
    while True:
        yield prefix("node-a", 10 + i) + "cudaDriverVersion 12030"
        i += 1


def commids(rng):
    """distinct communicators with a large nranks (rank maps)"""
    i = 0
    while True:
        yield (prefix("node-a", 7) + f"comm 0x5{i:x} rank 0 nranks 65535 cudaDev 0 busId 1000 "
               f"commId 0x{i:016x} - Init START")
        i += 1


def ranks(rng):
    """one communicator, ranks in descending order (sorted insertion)"""
    r = 16777215
    while True:
        yield prefix("node-a", 7) + f"comm 0x55 rank {r} nranks 16777216 cudaDev 0 commId 0xabc - Init START"
        r -= 1


def tags(rng):
    """launcher rank tags ([rankN]:) of many processes in one file (which process a line is of)"""
    i = 0
    while True:
        if i < 8192:
            yield prefix(f"gpu-{i:07d}", 1000 + i) + "cudaDriverVersion 12030"
        else:
            yield f"[rank{i}]: RuntimeError: NCCL communicator was aborted on rank {i}."
        i += 1


def watchdog(rng):
    """distinct watchdog ranks of one process"""
    i = 0
    while True:
        yield (f"[rank0]:[E501 12:00:00.000000 4242 ProcessGroupNCCL.cpp:607] [Rank {i}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, "
               f"NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.")
        i += 1


def settings(rng):
    """environment settings of many processes, each with a value of its own (the report of them)"""
    i = 0
    while True:
        p = i % 8192
        yield prefix(f"gpu-{p:07d}", 1000 + p) + f"NCCL_V{i // 8192 % 16} set by environment to val{i}."
        i += 1


def job(rng):
    """a job of 16384 ranks on as many hosts, each host unlike the others (a row and a rank each)"""
    n = 16384
    ranks = list(range(n))
    rng.shuffle(ranks)
    i = 0
    while True:
        p, k = i % n, i // n
        r = ranks[p]
        pre = prefix(f"gpu-{p:07d}", 1000 + p)
        if k == 0:
            yield pre + f"Bootstrap : Using e{p}:10.0.{p >> 8 & 255}.{p & 255}<0>"
        elif k == 1:
            yield pre + f"comm 0x55 rank {r} nranks {n} cudaDev 0 busId 1000 commId 0xabc - Init START"
        elif k == 2:
            yield f"gpu-{p:07d}:{1000 + p}:{1000 + p} [0] misc/socket.cc:1 NCCL WARN Net : Connection closed by remote peer"
        elif k == 3:
            yield pre + f"NET/Socket : Using [0]e{p}:10.1.{p >> 8 & 255}.{p & 255}<0> [1]f{p}:10.2.{p >> 8 & 255}.{p & 255}<0>"
        elif k == 4:
            yield pre + f"NCCL version 2.{p % 30}.3+cuda12.{p % 9}"
        else:
            yield pre + f"Channel {k % 32:02d}/0 : {r}[0] -> {(r + 1) % n}[0] via NET/Socket/0"
        i += 1


def commranks(rng):
    """ranks of many communicators on many processes (rank maps, per-rank rows)"""
    i = 0
    while True:
        p, c = i % 8192, i % 2048
        yield (prefix(f"gpu-{p:07d}", 1000 + p) + f"comm 0x{c:x} rank {i // 2048} nranks 1048576 cudaDev 0 "
               f"busId 1000 commId 0x{c:016x} - Init START")
        i += 1


def versions(rng):
    """distinct processes, each on a NCCL version of its own (version checks)"""
    i = 0
    while True:
        yield prefix(f"node-{i % 97}", 10 + i) + f"NCCL version 2.{i // 1000}.{i % 1000}+cuda12.{i % 10}"
        i += 1


def links(rng):
    """distinct host pairs: channel lines between ranks of many hosts"""
    i = 0
    while True:
        h = i // 16
        yield prefix(f"h{h}", 100 + h) + (f"comm 0x{h:x} rank {h} nranks 16777216 cudaDev 0 commId 0x77 - Init START"
                                          if i % 16 == 0 else
                                          f"Channel {i % 16:02d}/0 : {h}[0] -> {(h * 7919 + i) % (h + 1)}[0] via NET/Socket/0")
        i += 1


def collectives(rng):
    """watchdog reports of many processes, each of a collective of its own (grouping by collective)"""
    i = 0
    while True:
        p = i % 4096
        yield (f"[rank{p}]:[E501 12:00:00.000000 {1000 + p} ProcessGroupNCCL.cpp:607] [Rank {i // 4096}] Watchdog "
               f"caught collective operation timeout: WorkNCCL(SeqNum={i}, OpType=ALLREDUCE, NumelIn=1, "
               f"NumelOut=1, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.")
        i += 1


def env(rng):
    """distinct environment variables of one process"""
    i = 0
    while True:
        yield prefix("node-a", 7) + f"NCCL_X{i:X} set by environment to 1."
        i += 1


def collide(rng):
    """interface names whose unkeyed FNV-1a hashes share their low 32 bits"""
    n = 0
    while True:
        names = []
        for _ in range(16):
            names.append(b"".join(p[(n >> k) & 1] for k, p in enumerate(FNV_PAIRS)).decode())
            n += 1
        yield prefix("node-a", 7) + "NET/Socket : Using " + " ".join(
            f"[{k}]{nm}:10.0.0.1<0>" for k, nm in enumerate(names))


def ifaces(rng):
    """distinct random interface names (a flood of interned strings)"""
    while True:
        names = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(10)) for _ in range(16)]
        yield prefix("node-a", 7) + "NET/Socket : Using " + " ".join(
            f"[{k}]{nm}:10.0.0.1<0>" for k, nm in enumerate(names))


def intern(rng):
    """distinct interned strings of every field: versions, nets, bus ids"""
    i = 0
    while True:
        k = i % 3
        if k == 0:
            yield prefix("node-a", 7) + f"NCCL version 2.{i}.1+cuda12.{i}"
        elif k == 1:
            yield prefix("node-a", 7) + f"Using network Plugin{i:x}"
        else:
            yield prefix("node-a", 7) + f"Bootstrap : Using e{i:x}:10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}<0>"
        i += 1


def findings(rng):
    """distinct findings: CUDA errors with distinct texts (a fold key each)"""
    i = 0
    while True:
        word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(12))
        yield f"node-a:7:7 [0] misc/utils.cc:1 NCCL WARN Cuda failure 'failure {word} {i:x}'"
        i += 1


def warns(rng):
    """distinct WARN texts that no rule knows (the catch-all)"""
    while True:
        words = " ".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6)) for _ in range(4))
        yield f"node-a:7:7 [0] misc/x.cc:1 NCCL WARN {words}"


def evidence(rng, size):
    """one finding noted by many processes, the newest first"""
    # the processes first, then a WARN of each from the last to the first
    n = size // 2 // len(prefix("node-a", 100000) + "cudaDriverVersion 12030\n")
    for k in range(n):
        yield prefix("node-a", 10 + k) + "cudaDriverVersion 12030"
    for k in reversed(range(n)):
        yield f"node-a:{10 + k}:{10 + k} [0] misc/socket.cc:1 NCCL WARN Net : Connection closed by remote peer"


def rules(rng):
    """a user rule file (JSON) of distinct rules: give it with --rules"""
    i = 0
    while True:
        yield (f'{{"id": "site-r{i}", "gate": "marker{i:07d}", "pattern": "marker{i:07d} (?<x>\\\\w+)", '
               f'"finding": "site-r{i}", "title": "site rule {i}", "samples": ["marker{i:07d} a"]}}')
        i += 1


KINDS = {f.__name__: f for f in (hosts, pids, commids, ranks, tags, watchdog, collectives, env, settings, job, commranks, versions, links, collide, ifaces,
                                 intern, findings, warns, evidence, rules)}


# What each kind floods, for tests/bounds.py: the caps (MODEL_CAPS in
# model/model.h) of the collections its keys go into, each with a pattern
# whose groups, the empty ones left out, are one key; every match in a line
# is one occurrence of its key. A kind floods what its generator above says;
# what it touches on the way stays far below any cap at test sizes.
PROC = r"^([^:\s]+):(\d+):"
COMM_RANK = r"rank (\d+) nranks \d+ cudaDev \d+ .*?commId (0x[0-9a-f]+)"
IFACE = r"\](\w+):\d+\.\d+\.\d+\.\d+<"
FLOODS = {
    "hosts": [("CAP_PROCS", PROC)],
    "pids": [("CAP_PROCS", PROC)],
    "commids": [("CAP_COMMS", r"commId (0x[0-9a-f]+)")],
    "ranks": [("CAP_COMM_RANKS", COMM_RANK)],
    "tags": [("CAP_PROCS", PROC), ("CAP_PROCS", r"^\[rank(\d+)\]:")],
    "watchdog": [("CAP_WATCHDOG", r"\[Rank (\d+)\] Watchdog")],
    "collectives": [("CAP_WATCHDOG", r"^\[rank(\d+)\]:.*?\[Rank (\d+)\] Watchdog"), ("CAP_PROCS", r"^\[rank(\d+)\]:")],
    "env": [("CAP_ENV", PROC + r".* (NCCL_\w+) set by environment")],
    "settings": [("CAP_ENV", PROC + r".* (NCCL_\w+) set by environment"), ("CAP_PROCS", PROC)],
    "job": [("CAP_PROCS", PROC), ("CAP_COMM_RANKS", COMM_RANK)],
    "commranks": [("CAP_PROCS", PROC), ("CAP_COMMS", r"commId (0x[0-9a-f]+)"), ("CAP_COMM_RANKS", COMM_RANK)],
    "versions": [("CAP_PROCS", PROC)],
    "links": [("CAP_PROCS", PROC), ("CAP_COMM_RANKS", COMM_RANK)],
    "collide": [("CAP_STRINGS", IFACE)],
    "ifaces": [("CAP_STRINGS", IFACE)],
    "intern": [("CAP_STRINGS", r"NCCL version (\S+)|Using network (\S+)|Bootstrap : Using ([^:]+):([\d.]+)<")],
    "findings": [("CAP_FINDINGS", r"Cuda failure '(.*)'")],
    # the catch-all lists a number of texts one by one and folds the rest
    # into one finding that keeps their lines: nothing is dropped
    "warns": [],
    "evidence": [("CAP_PROCS", PROC)],
    "rules": [("CAP_RULES", r'"id": "([^"]+)"')],
}


def keys(kind, lines):
    """(cap, key) for every key occurrence of FLOODS[kind] in lines"""
    pats = [(cap, re.compile(pat)) for cap, pat in FLOODS[kind]]
    for ln in lines:
        for cap, rx in pats:
            for m in rx.finditer(ln):
                yield cap, tuple(g for g in m.groups() if g)


def write(kind, size, out):
    rng = random.Random(20240501)
    total = 0
    gen = KINDS[kind](rng, size) if kind == "evidence" else KINDS[kind](rng)
    if kind == "rules":
        out.write('{"rules": [\n')
        first = True
        for ln in gen:
            s = ("" if first else ",\n") + ln
            first = False
            out.write(s)
            total += len(s)
            if total >= size:
                break
        out.write("\n]}\n")
        return
    buf = []
    for ln in gen:
        buf.append(ln)
        total += len(ln) + 1
        if len(buf) >= 4096:
            out.write("\n".join(buf) + "\n")
            buf = []
        if total >= size:
            break
    if buf:
        out.write("\n".join(buf) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", nargs="?", choices=sorted(KINDS))
    ap.add_argument("size_mb", nargs="?", type=float)
    ap.add_argument("-o", "--output")
    ap.add_argument("--list", action="store_true", help="the kinds, one per line, with what each floods")
    a = ap.parse_args()
    if a.list:
        for k in KINDS:
            print(f"{k}\t{KINDS[k].__doc__}")
        return 0
    if not a.kind or a.size_mb is None:
        ap.error("KIND and SIZE_MB are needed")
    out = open(a.output, "w") if a.output else sys.stdout
    write(a.kind, int(a.size_mb * 1024 * 1024), out)
    if a.output:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
