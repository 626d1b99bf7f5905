#!/usr/bin/env python3
"""Writes the logs of a big job with one stuck rank, for the viewer's tests.

usage: gen-job.py OUTDIR [--ranks N] [--gpus G] [--stuck R]

NRANKS ranks on NRANKS/G hosts (srun -l, one file per node, NCCL 2.26.5 with
NCCL_DEBUG_TIMESTAMP_LEVELS=ALL so INFO lines carry [date time]). All ranks
complete init and train; at 10:09 rank STUCK stops logging (a GPU hang), the
others block in the next all_reduce and their watchdogs fire at 10:19.
"""
import os
import sys


def hms(t):
    return "%02d:%02d:%02d" % (10 + t // 3600, t // 60 % 60, t % 60)


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    out = args[0]
    opts = dict(zip(args[1::2], args[2::2]))
    nranks = int(opts.get("--ranks", 512))
    gpus = int(opts.get("--gpus", 8))
    stuck = int(opts.get("--stuck", 301))
    os.makedirs(out, exist_ok=True)
    nhosts = (nranks + gpus - 1) // gpus
    comm_id = "0x5d2e61a0c4b7f019"
    for h in range(nhosts):
        host = "node-%03d" % h
        ip = "10.8.%d.%d" % (h // 250, h % 250 + 1)
        lines = []
        for local in range(gpus):
            r = h * gpus + local
            if r >= nranks:
                break
            pid = 41000 + r
            tid = pid + 70
            comm = "0x55%010x" % (0x3a1f0000 + r * 0x1d0)
            busid = ["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"][local % 8]

            def nccl(t, msg, tidv=tid, lvl="INFO"):
                lines.append((t, r, "%d: [2025-06-03 %s] %s:%d:%d [%d] NCCL %s %s" % (r, hms(t), host, pid, tidv, local, lvl, msg)))

            t = 131
            nccl(t, "Bootstrap: Using eth0:%s<0>" % ip, pid)
            nccl(t, "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.", pid)
            nccl(t, "cudaDriverVersion 12080", pid)
            nccl(t, "NCCL version 2.26.5+cuda12.8", pid)
            nccl(t + 1, "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB eth0:%s<0>" % ip)
            nccl(t + 1, "Using network IB")
            nccl(t + 1, "comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init START"
                 % (comm, r, nranks, local, local, busid, comm_id))
            nccl(t + 2, "Setting affinity for GPU %d to ffff,ffffffff" % local)
            nccl(t + 2, "comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0"
                 % (comm, r, nranks, nhosts, gpus, local))
            nccl(t + 3, "Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d" % ((r + 1) % nranks, r, (r - 1) % nranks,
                                                                            (r + 1) % nranks, r, (r - 1) % nranks))
            nxt, prv = (r + 1) % nranks, (r - 1) % nranks
            via = "P2P/CUMEM/read" if nxt // gpus == h else "NET/IB/0/GDRDMA"
            nccl(t + 4, "Channel 00/0 : %d[%d] -> %d[%d] via %s" % (r, local, nxt, nxt % gpus, via))
            via = "P2P/CUMEM/read" if prv // gpus == h else "NET/IB/1/GDRDMA"
            nccl(t + 4, "Channel 01/0 : %d[%d] -> %d[%d] [receive] via %s" % (prv, prv % gpus, r, local, via))
            nccl(t + 5, "Connected all rings")
            nccl(t + 5, "Connected all trees")
            nccl(t + 6, "comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE"
                 % (comm, r, nranks, local, local, busid, comm_id))
            # training: a line a minute, the stuck rank's last one at 10:09
            for step in range(1, 8):
                ts = 180 + step * 60
                lines.append((ts, r, "%d: [2025-06-03 %s,%03d][train][INFO] rank %d step %d loss %.4f"
                              % (r, hms(ts), r % 1000, r, step * 100, 6.0 / step)))
            if r == stuck:
                continue
            # the others spin in the all_reduce it never joined: busy GPUs, no progress
            for k in range(10):
                ts = 180 + 7 * 60 + 60 * (k + 1)
                lines.append((ts, r, "%d: [2025-06-03 %s,%03d][monitor][INFO] rank %d gpu_util=100%% mem=61.2GiB"
                              % (r, hms(ts), r % 1000, r)))
            tw = 180 + 7 * 60 + 600 + 4
            lines.append((tw, r, "%d: [rank%d]:[E0603 %s.268480898 ProcessGroupNCCL.cpp:632] [Rank %d] Watchdog caught "
                          "collective operation timeout: WorkNCCL(SeqNum=4512, OpType=ALLREDUCE, NumelIn=1259621, "
                          "NumelOut=1259621, Timeout(ms)=600000) ran for 600023 milliseconds before timing out."
                          % (r, r, hms(tw), r)))
            lines.append((tw, r, "%d: [rank%d]:[E0603 %s.349083584 ProcessGroupNCCL.cpp:2271] [PG ID 0 PG GUID 0(default_pg) "
                          "Rank %d]  failure detected by watchdog at work sequence id: 4512 PG status: last enqueued "
                          "work: 4512, last completed work: 4511" % (r, r, hms(tw), r)))
        lines.sort(key=lambda x: (x[0], x[1]))
        with open(os.path.join(out, "%s.log" % host), "w") as f:
            for _, _, text in lines:
                f.write(text + "\n")


if __name__ == "__main__":
    main()
