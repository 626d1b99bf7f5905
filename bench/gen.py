#!/usr/bin/env python3
"""Generates realistic logs of a large NCCL job for benchmarks and scale tests.

Each rank writes NCCL init lines (bootstrap, NET/IB or NET/Socket, comm Init
START/COMPLETE, channels, Connected, Init COMPLETE) for each communicator, then
training noise (tqdm bars redrawn with carriage returns, Python logging, glog
lines) until its share of the requested size is written. Faults can be injected.

usage: gen.py OUT --ranks N [--hosts H] [--comms C] [--channels K]
              [--version 2.18.3|2.26.2|2.30.7] [--noise 0.0-1.0] [--size 200M]
              [--stream] [--fault wrong-iface|stuck-rank|watchdog|init-hang] [--seed S]
              [--reinit 0.0-1.0]
--reinit F: a share F of the lines after init are NCCL INFO lines of
communicators the job keeps creating (new process groups, splits), as an
NCCL_DEBUG=INFO log of such a job is: the init-heavy shape.
OUT is a directory (one file per rank) or, with --stream, one file with
srun-style "R: " prefixes and ranks interleaved.
"""
import argparse, os, random, sys


def parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(s[:-1]) * mult[s[-1].upper()]) if s[-1].upper() in mult else int(s)


class Rank:
    def __init__(self, a, r):
        self.r = r
        self.host_i = r * a.hosts // a.ranks
        self.host = f"gpu-node-{self.host_i:04d}"
        self.local = r - self.host_i * (a.ranks // a.hosts)
        self.pid = 10000 + r * 7 + a.seed
        self.ip = f"10.{self.host_i // 250}.{self.host_i % 250}.{11 + a.seed % 7}"
        self.a = a
        self.t = 0.0

    def pfx(self, tid=None, ts=False):
        tid = self.pid if tid is None else tid
        s = f"{self.host}:{self.pid}:{tid} [{self.local % 8}] "
        if ts:
            s = "[2025-06-03 10:%02d:%02d] " % (int(self.t) // 60 % 60, int(self.t) % 60) + s
        return s

    def init_lines(self):
        a, L = self.a, []
        v = a.version
        boot = "Bootstrap: Using" if v >= (2, 24) else "Bootstrap : Using"
        iface, ip = ("eth0", self.ip)
        if a.fault == "wrong-iface" and self.host_i == a.hosts - 1:
            iface, ip = ("docker0", "172.17.0.1")
        L.append(f"{self.pfx()}NCCL INFO {boot} {iface}:{ip}<0>")
        L.append(f"{self.pfx()}NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.")
        L.append(f"{self.pfx()}NCCL INFO cudaDriverVersion 12040")
        L.append(f"{self.pfx()}NCCL INFO NCCL version {v[0]}.{v[1]}.{v[2]}+cuda12.4")
        tid = self.pid + 100
        L.append(f"{self.pfx(tid)}NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB {iface}:{ip}<0>")
        L.append(f"{self.pfx(tid)}NCCL INFO Using network IB")
        for c in range(a.comms):
            n = a.ranks if c == 0 else max(2, a.ranks // (2 ** c))
            if c > 0 and self.r >= n:
                continue
            comm = 0x55d1c0a30000 + self.r * 0x1000 + c
            cid = 0x1a2b3c4d5e6f0000 + c
            head = f"comm 0x{comm:x} rank {self.r} nranks {n} cudaDev {self.local % 8} nvmlDev {self.local % 8} busId {0x18000 + (self.local % 8) * 0x10000:x} commId 0x{cid:x}"
            L.append(f"{self.pfx(tid)}NCCL INFO {head} - Init START")
            if a.fault == "stuck-rank" and self.r == a.ranks // 3 and c == 0:
                return L, True
            L.append(f"{self.pfx(tid)}NCCL INFO comm 0x{comm:x} rank {self.r} nRanks {n} nNodes {a.hosts} localRanks {a.ranks // a.hosts} localRank {self.local} MNNVL 0")
            L.append(f"{self.pfx(tid)}NCCL INFO Trees [0] {(self.r + 1) % n}/-1/-1->{self.r}->{(self.r - 1) % n} [1] {(self.r + 1) % n}/-1/-1->{self.r}->{(self.r - 1) % n}")
            # init-hang: one rank stops in the topology phase, the others go on
            if a.fault == "init-hang" and self.r == a.ranks // 3 and c == 0:
                return L, True
            for ch in range(a.channels):
                nxt = (self.r + 1) % n
                via = "P2P/IPC/read" if (nxt // (a.ranks // a.hosts)) == self.host_i else f"NET/IB/{ch % 2}/GDRDMA"
                L.append(f"{self.pfx(tid)}NCCL INFO Channel {ch:02d}/0 : {self.r}[{self.local % 8}] -> {nxt}[{nxt % 8}] via {via}")
            L.append(f"{self.pfx(tid)}NCCL INFO Connected all rings")
            L.append(f"{self.pfx(tid)}NCCL INFO Connected all trees")
            L.append(f"{self.pfx(tid)}NCCL INFO {head} - Init COMPLETE")
        return L, False

    def reinit_line(self, i):
        """The i-th line of the communicators created after init, one after another."""
        a = self.a
        per = 6 + a.channels
        c, k = divmod(i, per)
        n = max(2, a.ranks >> (c % 4))
        comm = 0x7f3a00000000 + self.r * 0x100000 + c * 0x1000
        cid = 0x2b3c4d5e6f700000 + c
        tid = self.pid + 200 + c % 7
        head = f"comm 0x{comm:x} rank {self.r % n} nranks {n} cudaDev {self.local % 8} nvmlDev {self.local % 8} busId {0x18000 + (self.local % 8) * 0x10000:x} commId 0x{cid:x}"
        if k == 0:
            return f"{self.pfx(tid)}NCCL INFO {head} - Init START"
        if k == 1:
            return f"{self.pfx(tid)}NCCL INFO comm 0x{comm:x} rank {self.r % n} nRanks {n} nNodes {a.hosts} localRanks {a.ranks // a.hosts} localRank {self.local} MNNVL 0"
        if k == 2:
            return f"{self.pfx(tid)}NCCL INFO Trees [0] {(self.r + 1) % n}/-1/-1->{self.r % n}->{(self.r - 1) % n} [1] {(self.r + 1) % n}/-1/-1->{self.r % n}->{(self.r - 1) % n}"
        if k < 3 + a.channels:
            ch = k - 3
            nxt = (self.r + 1) % n
            return f"{self.pfx(tid)}NCCL INFO Channel {ch:02d}/0 : {self.r % n}[{self.local % 8}] -> {nxt}[{nxt % 8}] via P2P/IPC/read"
        if k == 3 + a.channels:
            return f"{self.pfx(tid)}NCCL INFO Connected all rings"
        if k == 4 + a.channels:
            return f"{self.pfx(tid)}NCCL INFO Connected all trees"
        return f"{self.pfx(tid)}NCCL INFO {head} - Init COMPLETE"

    def filler(self, rnd, i):
        if self.a.reinit and rnd.random() < self.a.reinit:
            self.ri = getattr(self, "ri", -1) + 1
            return self.reinit_line(self.ri)
        return self.noise(rnd, i)

    def noise(self, rnd, i):
        k = rnd.random()
        self.t += 0.05
        if k < 0.55:
            bar = "".join("\r" + f"Epoch {i // 1000}: {p:3d}%|{'#' * (p // 10):10s}| {p}/100 [00:{p % 60:02d}<00:10, {3.5 + p / 100:.2f}it/s, loss={2.5 - p / 100:.3f}]" for p in range(0, 100, 25))
            return bar
        if k < 0.8:
            return f"2025-06-03 10:{int(self.t) // 60 % 60:02d}:{int(self.t) % 60:02d},{int(self.t * 1000) % 1000:03d} INFO trainer.py:{200 + i % 50} -- step {i} loss {2.0 + rnd.random():.4f} lr 3.0e-4 grad_norm {rnd.random():.3f} tokens/s {rnd.randint(40000, 90000)}"
        if k < 0.95:
            return f"I0603 10:{int(self.t) // 60 % 60:02d}:{int(self.t) % 60:02d}.{rnd.randint(0, 999999):06d} {self.pid} torch/distributed/elastic/agent/server/api.py:{800 + i % 90}] worker group heartbeat ok, step {i}"
        return f"[rank{self.r}]:[W603 10:{int(self.t) // 60 % 60:02d}:{int(self.t) % 60:02d}.{rnd.randint(0, 999999):06d} ProcessGroupNCCL.cpp:4561] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives. (function operator())"

    def tail_lines(self, stuck):
        a = self.a
        if a.fault in ("watchdog", "init-hang") and not stuck:
            seq = 1 if a.fault == "init-hang" else 1200 if self.r != a.ranks // 2 else 1199
            return [f"[rank{self.r}]:[E603 10:40:00.123456789 ProcessGroupNCCL.cpp:632] [Rank {self.r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1259621, NumelOut=1259621, Timeout(ms)=600000) ran for 600081 milliseconds before timing out."]
        return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=16)
    ap.add_argument("--hosts", type=int, default=0)
    ap.add_argument("--comms", type=int, default=1)
    ap.add_argument("--channels", type=int, default=4)
    ap.add_argument("--version", default="2.21.5")
    ap.add_argument("--noise", type=float, default=0.9)
    ap.add_argument("--size", default="10M")
    ap.add_argument("--stream", action="store_true")
    ap.add_argument("--fault", choices=["wrong-iface", "stuck-rank", "watchdog", "init-hang"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reinit", type=float, default=0.0)
    a = ap.parse_args()
    a.hosts = a.hosts or max(1, a.ranks // 8)
    a.version = tuple(int(x) for x in a.version.split(".")[:3])
    size = parse_size(a.size)
    rnd = random.Random(a.seed)
    ranks = [Rank(a, r) for r in range(a.ranks)]
    per_rank = size // a.ranks
    if a.stream:
        out = open(a.out, "w", buffering=1 << 20)
        heads = []
        for rk in ranks:
            lines, stuck = rk.init_lines()
            heads.append((rk, lines, stuck))
        # init lines interleave round-robin, as processes start together
        for i in range(max(len(h[1]) for h in heads)):
            out.write("".join(f"{rk.r}: {ls[i]}\n" for rk, ls, _ in heads if i < len(ls)))
        written, i = out.tell(), 0
        while written < size:
            chunk = []
            for rk, _, stuck in heads:
                if not stuck or a.noise == 0:
                    chunk.append(f"{rk.r}: {rk.filler(rnd, i)}\n")
            s = "".join(chunk)
            out.write(s)
            written += len(s)
            i += 1
        for rk, _, stuck in heads:
            out.write("".join(f"{rk.r}: {l}\n" for l in rk.tail_lines(stuck)))
        out.close()
        return
    os.makedirs(a.out, exist_ok=True)
    for rk in ranks:
        lines, stuck = rk.init_lines()
        with open(os.path.join(a.out, f"rank{rk.r:05d}.log"), "w", buffering=1 << 20) as f:
            f.write("\n".join(lines) + "\n")
            if stuck:
                continue
            written, i, buf = f.tell(), 0, []
            while written < per_rank:
                line = rk.filler(rnd, i) + "\n"
                buf.append(line)
                written += len(line)
                i += 1
                if len(buf) >= 4096:
                    f.write("".join(buf))
                    buf = []
            f.write("".join(buf))
            f.write("".join(l + "\n" for l in rk.tail_lines(stuck)))


if __name__ == "__main__":
    main()
