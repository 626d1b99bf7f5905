#!/usr/bin/env python3
"""Writes PyTorch Flight Recorder (FR) dumps of a simulated job, one file per
rank, in the schema each FR version writes, and hostile pickles for tests.

usage: gen_fr.py OUT --ranks N [--entries E] [--version 2.3..2.10]
                 [--format torch|pickle2|pickle4|pickle5|json|torchcomms]
                 [--scenario healthy|missing|absent|mismatch|dtype|optype|p2p]
                 [--rank R] [--seq S] [--tp T] [--p2p] [--timing]
                 [--prefix nccl_trace_rank_] [--logs DIR [--hosts H]] [--seed S]
       gen_fr.py --hostile OUT       hostile pickles and their MANIFEST.tsv
       gen_fr.py --suite OUT         every case the unit tests read

The job: N ranks in default_pg (name "0"); with --tp T also tensor-parallel
groups ("tp", T consecutive ranks) and data-parallel groups ("dp", stride T).
Each training step issues, per rank: two tp all_reduce, a dp
_reduce_scatter_base and _all_gather_base, with --p2p a send/recv between
rank pairs (2k -> 2k+1), and one default_pg all_reduce. Step k's default_pg
all_reduce has collective_seq_id k + 1 (a barrier is seq 1). The job hangs at
default_pg collective --seq S:

  healthy   nothing hangs: every rank completed everything
  missing   rank R never calls collective S; the others wait in it
  absent    as missing, and rank R's dump is not written (it crashed)
  mismatch  rank R calls collective S with other input/output sizes
  dtype     rank R calls collective S with another dtype
  optype    rank R calls all_gather where the others call all_reduce
  p2p       rank R (even) sends to R+1, which never posts the recv and goes
            on to collective S; R never gets there

Each rank keeps its last E entries (the FR ring buffer). Deterministic:
--seed only moves timestamps and sizes.

Field lists per FR version, as PyTorch writes them:
  2.3  torch/csrc/distributed/c10d/NCCLUtils.hpp (NCCLTraceBuffer::dump,
       getCollectiveTrace): version, pg_config, pg_status, entries, and per
       entry frames, record_id, pg_id, process_group, collective_seq_id,
       p2p_seq_id, op_id, profiling_name, time_created_ns, duration_ms (with
       timing only), input_sizes, input_dtypes, output_sizes, output_dtypes,
       state, time_discovered_started_ns, time_discovered_completed_ns,
       retired, timeout_ms, is_p2p.
  2.4  torch/csrc/distributed/c10d/FlightRecorder.hpp: the same keys; from
       here all_to_all sizes are recorded (fr_trace's utils.error_analysis).
  2.5, 2.6  no key of their own in the sources read: written as 2.4.
  2.7  FlightRecorder.hpp / FlightRecorder.cpp: top-level nccl_version; FR
       entries for non-p2p coalesced collectives (fr_trace builder.py).
  2.8, 2.9  nccl_version as in 2.7 (test_fr_analysis.py uses 2.8; the XCCL
       test of 2.9 reads xccl_version, its backend's spelling of it).
  2.10 FlightRecorder.hpp / FlightRecorderDetail.hpp and torchcomms'
       hooks/fr/FlightRecorder.cpp: comm_lib_version replaces nccl_version;
       entries gain thread_id and thread_name.
The pickled dump is the IValue dict of dump()/dump_dict() written by the
TorchScript pickler (torch/csrc/jit/serialization/pickler.cpp: protocol 2,
strings memoized by value, shared frame dicts by reference); --format torch
writes those exact opcodes, pickle2/4/5 are Python's pickle of the same data.
The JSON form is dump_json() (nlohmann::json: sorted keys, pg_status values
as strings, no frames, 0 for a time not yet discovered); torchcomms writes
ranks as "[0,1]" and records no p2p.
"""
import argparse, importlib.util, json, os, pickle, random, struct, sys

VERSIONS = ["2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9", "2.10"]
TORCH_FRAMES = [("all_reduce", "torch/distributed/distributed_c10d.py", 2501),
                ("wrapper", "torch/distributed/c10d_logger.py", 83)]


def vtuple(v):
    return tuple(int(x) for x in v.split("."))


# ---- the simulated job ----

class Job:
    def __init__(self, a):
        self.a = a
        self.n = a.ranks
        self.pgs = [("0", "default_pg", list(range(self.n)))]
        self.tp_of, self.dp_of = {}, {}
        t = a.tp if a.tp and a.tp > 1 and self.n % a.tp == 0 else 0
        if t:
            for g in range(self.n // t):
                self.pgs.append((str(len(self.pgs)), "tp", list(range(g * t, g * t + t))))
                for r in range(g * t, g * t + t):
                    self.tp_of[r] = len(self.pgs) - 1
            for g in range(t):
                self.pgs.append((str(len(self.pgs)), "dp", list(range(g, self.n, t))))
                for r in range(g, self.n, t):
                    self.dp_of[r] = len(self.pgs) - 1
        self.t = t

    def pgs_of(self, r):
        """The PGs rank r is in, in creation order: its local pg_id is the index."""
        out = [0]
        if self.t:
            out += [self.tp_of[r], self.dp_of[r]]
        return out


# call site -> (torch API, the user function that called it, its line)
SITES = {
    "barrier": ("barrier", "setup", 96),
    "tp_all_reduce": ("all_reduce", "attention_forward", 142),
    "tp_all_reduce_out": ("all_reduce", "mlp_forward", 171),
    "reduce_scatter": ("reduce_scatter_tensor", "reduce_grads", 208),
    "all_gather": ("all_gather_into_tensor", "gather_params", 221),
    "send": ("send", "pipeline_send", 250),
    "recv": ("recv", "pipeline_recv", 257),
    "loss_all_reduce": ("all_reduce", "train_step", 288),
    "loss_all_gather": ("all_gather", "train_step", 291),
}


def frames_for(site, cache):
    """The stack of a call site, innermost first, as torch::symbolize gives
    it; each distinct frame is one shared dict, as in the dump's all_frames."""
    if site not in cache:
        api, fn, line = SITES[site]
        stack = [(api, TORCH_FRAMES[0][1], TORCH_FRAMES[0][2] + 40 * list(SITES).index(site)),
                 TORCH_FRAMES[1], (fn, "/workspace/train.py", line),
                 ("main", "/workspace/train.py", 311), ("<module>", "/workspace/train.py", 330)]
        fs = []
        for name, fname, ln in stack:
            key = (name, fname, ln)
            if key not in cache:
                cache[key] = {"name": name, "filename": fname, "line": ln}
            fs.append(cache[key])
        cache[site] = fs
    return cache[site]


def schedule(job, r):
    """Rank r's records up to where it stops: a list of op dicts (no schema yet)."""
    a = job.a
    rnd = random.Random(a.seed * 1000003 + r)
    pgs = job.pgs_of(r)
    seq = {p: 0 for p in pgs}
    p2pseq = {p: 0 for p in pgs}
    opid = {p: 0 for p in pgs}
    recs = []
    hidden = 4096 if a.scenario != "healthy" else 0
    dim = 1024 + 64 * (a.seed % 4)

    def coll(pg, name, insz, outsz, dtype="Float", site=None):
        seq[pg] += 1
        opid[pg] += 1
        recs.append(dict(pg=pg, local=pgs.index(pg), name=name, p2p=False, seq=seq[pg], p2pseq=p2pseq[pg],
                         opid=opid[pg], ins=insz, outs=outsz, dt=[dtype] if insz else [],
                         odt=[dtype] if outsz else [], site=site or name))

    def p2p(pg, name, peer, sz):
        p2pseq[pg] += 1
        opid[pg] += 1
        members = job.pgs[pg][2]
        me, other = members.index(r), members.index(peer)
        title = f"send {me}->{other}" if name == "send" else f"recv {me}<-{other}"
        recs.append(dict(pg=pg, local=pgs.index(pg), name=title, p2p=True, seq=seq[pg], p2pseq=p2pseq[pg],
                         opid=opid[pg], ins=[sz], outs=[sz], dt=["BFloat16"], odt=["BFloat16"], site=name))

    stuck_step = a.seq - 1
    coll(0, "barrier" if vtuple(a.version) < (2, 6) else "all_reduce_barrier", [[1]], [[1]], "Float", "barrier")
    step = 0
    while True:
        step += 1
        last = step == stuck_step
        if job.t:
            tp, dp = job.tp_of[r], job.dp_of[r]
            coll(tp, "all_reduce", [[8, dim, 512]], [[8, dim, 512]], "BFloat16", "tp_all_reduce")
            coll(tp, "all_reduce", [[8, dim, 512]], [[8, dim, 512]], "BFloat16", "tp_all_reduce_out")
            nd = len(job.pgs[dp][2])
            coll(dp, "_reduce_scatter_base", [[hidden * nd + 256 * nd]], [[hidden + 256]], "Float", "reduce_scatter")
            coll(dp, "_all_gather_base", [[hidden + 256]], [[hidden * nd + 256 * nd]], "BFloat16", "all_gather")
        if a.p2p or a.scenario == "p2p":
            peer = r ^ 1
            if peer < job.n:
                sz = [2, dim]
                if r % 2 == 0:
                    p2p(0, "send", peer, sz)
                elif not (last and a.scenario == "p2p" and r == a.rank + 1):
                    p2p(0, "recv", peer, sz)
        if last and r == a.rank and a.scenario in ("missing", "absent", "p2p"):
            break
        sz = [[dim, dim]]
        if last and r == a.rank and a.scenario == "mismatch":
            coll(0, "all_reduce", [[dim, dim - 1]], [[dim, dim - 1]], "Float", "loss_all_reduce")
        elif last and r == a.rank and a.scenario == "dtype":
            coll(0, "all_reduce", sz, sz, "BFloat16", "loss_all_reduce")
        elif last and r == a.rank and a.scenario == "optype":
            coll(0, "all_gather", [[dim, dim]], [[dim * job.n, dim]], "Float", "loss_all_gather")
        else:
            coll(0, "all_reduce", sz, sz, "Float", "loss_all_reduce")
        if last:
            if a.scenario != "healthy":
                # asynchronous work queued behind the hung collective
                if job.t and rnd.random() < 0.5:
                    coll(job.tp_of[r], "all_reduce", [[8, dim, 512]], [[8, dim, 512]], "BFloat16", "tp_all_reduce")
            break
    return recs


def states(job, r, recs):
    """Marks each record completed, started or scheduled, as the hang leaves them."""
    a = job.a
    if a.scenario == "healthy":
        return ["completed"] * len(recs)
    # the first record of each PG at or after the hung point is where the rank waits
    out = ["completed"] * len(recs)
    stuck = None
    for i, rec in enumerate(recs):
        if rec["pg"] == 0 and not rec["p2p"] and rec["seq"] == a.seq:
            stuck = i
            break
    if a.scenario == "p2p" and r == a.rank:
        # its send to R+1 never completes; nothing after it runs
        for i in range(len(recs) - 1, -1, -1):
            if recs[i]["p2p"]:
                stuck = i
                break
    if stuck is None:
        return out
    for i in range(stuck, len(recs)):
        out[i] = ("started" if a.timing else "scheduled") if i == stuck else "scheduled"
    return out


# ---- the dump dicts ----

def entry(a, job, r, rec, state, t0, cache):
    v = vtuple(a.version)
    name, desc, _ = job.pgs[rec["pg"]]
    backend = "nccl"
    prof = f"{backend}:{rec['name']}"
    created = t0 + rec["idx"] * 17_000_000 + (r * 37) % 1000
    e = {}
    if a.format not in ("json", "torchcomms"):
        e["frames"] = frames_for(rec["site"], cache)
    e["record_id"] = rec["idx"]
    e["pg_id"] = rec["local"]
    e["process_group"] = (name, desc)
    if v >= (2, 10):
        e["thread_name"] = "pt_main_thread"
        e["thread_id"] = str(140245987654321 + r)
    e["collective_seq_id"] = rec["seq"]
    e["p2p_seq_id"] = 0 if a.format == "torchcomms" else rec["p2pseq"]
    e["op_id"] = rec["opid"]
    e["profiling_name"] = prof
    e["time_created_ns"] = created
    if a.timing and state == "completed":
        e["duration_ms"] = 0.25 + (rec["idx"] % 7) / 8.0
    e["input_sizes"] = [list(s) for s in rec["ins"]]
    e["input_dtypes"] = list(rec["dt"])
    e["output_sizes"] = [list(s) for s in rec["outs"]]
    e["output_dtypes"] = list(rec["odt"])
    e["state"] = state
    started = created + 1_000_000 if state in ("started", "completed") and (a.timing or state == "completed") else None
    done = created + 2_000_000 if state == "completed" else None
    e["time_discovered_started_ns"] = started
    e["time_discovered_completed_ns"] = done
    e["retired"] = state == "completed"
    e["timeout_ms"] = 600000
    e["is_p2p"] = False if a.format == "torchcomms" else rec["p2p"]
    return e


def ranks_str(ranks, compact):
    return "[" + ("," if compact else ", ").join(str(x) for x in ranks) + "]"


def dump_for(a, job, r, cache):
    v = vtuple(a.version)
    recs = schedule(job, r)
    for i, rec in enumerate(recs):
        rec["idx"] = i
    st = states(job, r, recs)
    keep = range(max(0, len(recs) - a.entries), len(recs))
    t0 = 1_717_400_000_000_000_000 + a.seed * 1_000_000_000
    entries = [entry(a, job, r, recs[i], st[i], t0, cache) for i in keep]
    compact = a.format == "torchcomms"
    pg_config = {}
    for p in job.pgs_of(r):
        name, desc, members = job.pgs[p]
        pg_config[name] = {"name": name, "desc": desc, "ranks": ranks_str(members, compact)}
    pg_status = {}
    for local, p in enumerate(job.pgs_of(r)):
        enq = max([x["seq"] for x in recs if x["pg"] == p and not x["p2p"]] or [-1])
        comp = max([x["seq"] for x, s in zip(recs, st) if x["pg"] == p and not x["p2p"] and s == "completed"] or [-1])
        sta = max([x["seq"] for x, s in zip(recs, st) if x["pg"] == p and not x["p2p"] and s != "scheduled"] or [-1])
        if not a.timing:
            sta = -1  # lastStartedSeq moves only with timing enabled
        pg_status[str(local)] = {"last_enqueued_collective": enq, "last_started_collective": sta,
                                 "last_completed_collective": comp}
    d = {"version": a.version, "pg_config": pg_config}
    if (2, 7) <= v < (2, 10):
        d["nccl_version"] = "2.21.5"
    if v >= (2, 10):
        d["comm_lib_version"] = "2.27.3"
    d["pg_status"] = pg_status
    d["entries"] = entries
    return d


# ---- writers ----

class TorchPickler:
    """The opcodes of torch::jit::Pickler (pickler.cpp) for the IValues of a dump."""

    def __init__(self):
        self.out = bytearray()
        self.memo_id = 0
        self.strings = {}
        self.objs = {}

    def put(self):
        i = self.memo_id
        self.out += b"q" + bytes([i]) if i <= 0xFF else b"r" + struct.pack("<I", i)
        self.memo_id += 1
        return i

    def get(self, i):
        self.out += b"h" + bytes([i]) if i <= 0xFF else b"j" + struct.pack("<I", i)

    def value(self, v, shared=()):
        if id(v) in shared:
            if id(v) in self.objs:
                return self.get(self.objs[id(v)])
        if v is None:
            self.out += b"N"
        elif v is True or v is False:
            self.out += b"\x88" if v else b"\x89"
        elif isinstance(v, int):
            if 0 <= v <= 0xFF:
                self.out += b"K" + bytes([v])
            elif 0 <= v <= 0xFFFF:
                self.out += b"M" + struct.pack("<H", v)
            elif -2**31 <= v < 2**31:
                self.out += b"J" + struct.pack("<i", v)
            else:
                self.out += b"\x8a\x08" + struct.pack("<q", v)
        elif isinstance(v, float):
            self.out += b"G" + struct.pack(">d", v)
        elif isinstance(v, str):
            if v in self.strings:
                return self.get(self.strings[v])
            b = v.encode()
            self.out += b"X" + struct.pack("<I", len(b)) + b
            self.strings[v] = self.put()
        elif isinstance(v, tuple):
            for x in v:
                self.value(x, shared)
            self.out += {0: b")", 1: b"\x85", 2: b"\x86", 3: b"\x87"}.get(len(v), b"")
            if len(v) > 3:
                raise ValueError("long tuples are pushed with MARK")
        elif isinstance(v, list):
            self.out += b"]("
            for x in v:
                self.value(x, shared)
            self.out += b"e"
        elif isinstance(v, dict):
            self.out += b"}("
            for k, x in v.items():
                self.value(k, shared)
                self.value(x, shared)
            self.out += b"u"
        else:
            raise TypeError(type(v))
        if id(v) in shared and not isinstance(v, str):
            self.objs[id(v)] = self.put()

    def dumps(self, v, shared):
        self.out += b"\x80\x02"
        self.value(v, shared)
        self.out += b"."
        return bytes(self.out)


def to_json(d, compact_ranks):
    j = dict(d)
    j["pg_status"] = {k: {kk: str(vv) for kk, vv in s.items()} for k, s in d["pg_status"].items()}
    ents = []
    for e in d["entries"]:
        e = {k: v for k, v in e.items() if k != "frames"}
        e["process_group"] = list(e["process_group"])
        for k in ("time_discovered_started_ns", "time_discovered_completed_ns"):
            e[k] = e[k] or 0
        ents.append(e)
    if ents:
        j["entries"] = ents
    else:
        j.pop("entries", None)
    return json.dumps(j, sort_keys=True, separators=(",", ":")).encode()


def encode(a, d, cache):
    if a.format in ("json", "torchcomms"):
        return to_json(d, a.format == "torchcomms")
    if a.format == "torch":
        shared = {id(f) for k, f in cache.items() if isinstance(k, tuple)}
        return TorchPickler().dumps(d, shared)
    return pickle.dumps(d, protocol=int(a.format[-1]))


# ---- logs from bench/gen.py ----

def write_logs(a, job, outdir):
    spec = importlib.util.spec_from_file_location(
        "gen", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "gen.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    ga = argparse.Namespace(ranks=a.ranks, hosts=a.hosts or max(1, a.ranks // 8), comms=1, channels=2,
                            version=(2, 21, 5), noise=0.5, fault=None, seed=a.seed)
    rnd = random.Random(a.seed)
    os.makedirs(outdir, exist_ok=True)
    for r in range(a.ranks):
        rk = gen.Rank(ga, r)
        lines, _ = rk.init_lines()
        for i in range(20):
            lines.append(rk.noise(rnd, i))
        if a.scenario != "healthy":
            culprit = r == a.rank
            pfx = f"[rank{r}]:[E603 10:40:0{r % 10}.123456789 ProcessGroupNCCL.cpp"
            if culprit and a.scenario == "absent":
                lines += [f"[rank{r}]: Traceback (most recent call last):",
                          f"[rank{r}]:   File \"/workspace/train.py\", line 311, in main",
                          f"[rank{r}]:     batch = next(loader)",
                          f"[rank{r}]: RuntimeError: DataLoader worker (pid {4000 + r}) is killed by signal: Killed."]
            elif not culprit or a.scenario in ("mismatch", "dtype", "optype"):
                op = "ALLGATHER" if culprit and a.scenario == "optype" else "ALLREDUCE"
                numel = 1 << 20
                lines += [f"{pfx}:632] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={a.seq}, "
                          f"OpType={op}, NumelIn={numel}, NumelOut={numel}, Timeout(ms)=600000) ran for 600081 "
                          f"milliseconds before timing out.",
                          f"{pfx}:2271] [PG ID 0 PG GUID 0(default_pg) Rank {r}]  failure detected by watchdog at "
                          f"work sequence id: {a.seq} PG status: last enqueued work: {a.seq}, last completed work: "
                          f"{a.seq - 1}",
                          f"[rank{r}]:[I603 10:40:01.000000000 ProcessGroupNCCL.cpp:1355] [PG ID 0 PG GUID "
                          f"0(default_pg) Rank {r}] ProcessGroupNCCL dumping nccl trace to /tmp/{a.prefix}{r}"]
        with open(os.path.join(outdir, f"rank{r:05d}.log"), "w") as f:
            f.write("\n".join(lines) + "\n")


# ---- hostile pickles ----

def hostile(out):
    """Pickles that must be refused, with the status and offset expected."""
    os.makedirs(out, exist_ok=True)
    good = pickle.dumps({"version": "2.10", "pg_config": {}, "pg_status": {},
                         "entries": [{"record_id": i, "profiling_name": "nccl:all_reduce"} for i in range(40)]},
                        protocol=2)
    cases = []

    def add(name, data, status, off):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        cases.append((name, status, off))

    pre = b"\x80\x02}q\x00(X\x07\x00\x00\x00versionq\x01X\x04\x00\x00\x002.10q\x02X\x07\x00\x00\x00entriesq\x03"
    n = len(pre)
    add("global-reduce.pkl", b"\x80\x02cos\nsystem\nq\x00X\x04\x00\x00\x00trueq\x01\x85q\x02Rq\x03.",
        "PK_E_FORBIDDEN", 2)
    add("global-in-dump.pkl", pre + b"cbuiltins\nprint\n)R.", "PK_E_FORBIDDEN", n)
    add("reduce.pkl", pre + b")R.", "PK_E_FORBIDDEN", n + 1)
    add("stack-global.pkl", b"\x80\x04\x8c\x08builtins\x8c\x04eval\x93.", "PK_E_FORBIDDEN", 18)
    add("build.pkl", pre + b"}}b.", "PK_E_FORBIDDEN", n + 2)
    add("inst.pkl", pre + b"(ibuiltins\nobject\n.", "PK_E_FORBIDDEN", n + 1)
    add("obj.pkl", pre + b"()o.", "PK_E_FORBIDDEN", n + 2)
    add("newobj.pkl", pre + b"})\x81.", "PK_E_FORBIDDEN", n + 2)
    add("newobj-ex.pkl", pre + b"})}\x92.", "PK_E_FORBIDDEN", n + 3)
    add("ext1.pkl", pre + b"\x82\x01.", "PK_E_FORBIDDEN", n)
    add("ext4.pkl", pre + b"\x84\x01\x00\x00\x00.", "PK_E_FORBIDDEN", n)
    add("persid.pkl", pre + b"P1\n.", "PK_E_FORBIDDEN", n)
    add("binpersid.pkl", pre + b"K\x01Q.", "PK_E_FORBIDDEN", n + 2)
    add("deep-marks.pkl", b"\x80\x02" + b"(" * 100000 + b".", "PK_E_DEPTH", 2 + 128)
    # 5000 lists nested inside each other: the stack never gets deep
    deep = b"\x80\x02" + b"]" * 5000 + b"a" * 4999 + b"."
    add("deep-lists.pkl", deep, "PK_E_DEPTH", -1)
    add("huge-binunicode.pkl", b"\x80\x02X\xf0\xff\xff\xffabc.", "PK_E_SIZE", 2)
    add("huge-binunicode8.pkl", b"\x80\x04\x8d" + struct.pack("<Q", 1 << 62) + b"x.", "PK_E_SIZE", 2)
    add("huge-binbytes8.pkl", b"\x80\x04\x8e" + struct.pack("<Q", (1 << 64) - 1) + b"x.", "PK_E_SIZE", 2)
    add("huge-long4.pkl", b"\x80\x02\x8b\xff\xff\xff\x7f\x00.", "PK_E_SIZE", 2)
    add("huge-frame.pkl", b"\x80\x04\x95" + struct.pack("<Q", 1 << 60) + b"}.", "PK_E_TRUNCATED", 2)
    add("short-binunicode.pkl", b"\x80\x02X\x00\x01\x00\x00abc", "PK_E_TRUNCATED", 2)
    add("truncated-half.pkl", good[: len(good) // 2], "PK_E_TRUNCATED", -1)
    add("truncated-no-stop.pkl", good[:-1], "PK_E_TRUNCATED", len(good) - 1)
    add("truncated-proto.pkl", b"\x80", "PK_E_TRUNCATED", 0)
    add("empty.pkl", b"", "PK_E_TRUNCATED", 0)
    # billion laughs: list k holds list k-1 twice
    bomb = bytearray(b"\x80\x04]\x94K\x01a")
    for k in range(1, 64):
        bomb += b"](h" + bytes([k - 1]) + b"h" + bytes([k - 1]) + b"e\x94"
    bomb += b"."
    add("memo-bomb.pkl", bytes(bomb), "PK_E_EXPANSION", -1)
    add("memo-index.pkl", b"\x80\x02Nr\xff\xff\xff\xff.", "PK_E_MEMO", 3)
    add("memo-undefined.pkl", b"\x80\x02h\x07.", "PK_E_MEMO", 2)
    add("recursive.pkl", b"\x80\x02]q\x00h\x00a.", "PK_E_RECURSIVE", 2)
    add("unknown-op.pkl", b"\x80\x02\xff.", "PK_E_UNKNOWN", 2)
    add("bad-proto.pkl", b"\x80\x09}.", "PK_E_PROTOCOL", 0)
    add("stack-underflow.pkl", b"\x80\x02a.", "PK_E_STACK", 2)
    add("setitem-on-list.pkl", b"\x80\x02]K\x01K\x02s.", "PK_E_STACK", 7)
    add("long-too-wide.pkl", b"\x80\x02\x8a\x09" + b"\x01" * 9 + b".", "PK_E_VALUE", 2)
    add("quoted-string.pkl", b"S'abc'\n.", "PK_E_UNSUPPORTED", 0)
    add("out-of-band.pkl", b"\x80\x05\x97.", "PK_E_UNSUPPORTED", 2)
    with open(os.path.join(out, "MANIFEST.tsv"), "w") as f:
        f.write("# file\tstatus\toffset (-1: any)\n")
        for c in cases:
            f.write("%s\t%s\t%d\n" % c)


# ---- driver ----

def write_job(a):
    job = Job(a)
    os.makedirs(a.out, exist_ok=True)
    cache = {}
    for r in range(a.ranks):
        if a.scenario == "absent" and r == a.rank:
            continue
        d = dump_for(a, job, r, cache)
        data = encode(a, d, cache)
        name = f"{a.prefix}{r}" + (".json" if a.format in ("json", "torchcomms") and a.json_suffix else "")
        with open(os.path.join(a.out, name), "wb") as f:
            f.write(data)
    with open(os.path.join(a.out, "scenario.txt"), "w") as f:
        for k in ("ranks", "entries", "version", "format", "scenario", "rank", "seq", "tp", "p2p", "timing"):
            f.write(f"{k}={getattr(a, k)}\n")
    if a.logs:
        write_logs(a, job, a.logs)


def options(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--entries", type=int, default=2000)
    ap.add_argument("--version", default="2.10", choices=VERSIONS)
    ap.add_argument("--format", default="torch", choices=["torch", "pickle2", "pickle4", "pickle5", "json", "torchcomms"])
    ap.add_argument("--scenario", default="missing",
                    choices=["healthy", "missing", "absent", "mismatch", "dtype", "optype", "p2p"])
    ap.add_argument("--rank", type=int, default=-1, help="the odd rank (default: ranks*3//5, even for p2p)")
    ap.add_argument("--seq", type=int, default=20, help="the default_pg collective_seq_id that hangs")
    ap.add_argument("--tp", type=int, default=0)
    ap.add_argument("--p2p", action="store_true")
    ap.add_argument("--timing", action="store_true", help="TORCH_NCCL_ENABLE_TIMING: started states, durations")
    ap.add_argument("--prefix", default="nccl_trace_rank_")
    ap.add_argument("--json-suffix", action="store_true", help="name JSON dumps PREFIXn.json")
    ap.add_argument("--logs", help="also write the job's logs here (bench/gen.py's format)")
    ap.add_argument("--hosts", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    if a.ranks < 2:
        ap.error("--ranks must be at least 2")
    if a.seq < 2:
        ap.error("--seq must be at least 2 (seq 1 is the barrier)")
    if a.rank < 0:
        a.rank = a.ranks * 3 // 5
    if a.scenario == "p2p":
        a.rank -= a.rank % 2
        if a.rank + 1 >= a.ranks:
            a.rank = 0
    if a.rank >= a.ranks:
        ap.error("--rank must be below --ranks")
    if a.format == "torchcomms":
        a.version = "2.10"
    return a


def suite(out):
    """Every dump set the unit tests read, small enough to build in a second."""
    hostile(os.path.join(out, "hostile"))
    for v in VERSIONS:
        for fmt in ("torch", "pickle2", "pickle4", "pickle5", "json"):
            write_job(options([os.path.join(out, f"v{v}-{fmt}"), "--ranks", "4", "--entries", "64",
                               "--version", v, "--format", fmt, "--scenario", "missing", "--rank", "2",
                               "--seq", "6", "--tp", "2", "--timing"]))
    write_job(options([os.path.join(out, "torchcomms"), "--ranks", "4", "--entries", "64", "--format",
                       "torchcomms", "--scenario", "missing", "--rank", "1", "--seq", "5"]))
    for sc in ("healthy", "missing", "absent", "mismatch", "dtype", "optype", "p2p"):
        write_job(options([os.path.join(out, sc), "--ranks", "8", "--entries", "200", "--scenario", sc,
                           "--rank", "4", "--seq", "9", "--tp", "2", "--p2p"]))
    # rank 37 of 64 never joins default_pg's all_reduce #315; small ring buffers wrap
    write_job(options([os.path.join(out, "r64-missing"), "--ranks", "64", "--entries", "300", "--scenario",
                       "missing", "--rank", "37", "--seq", "315", "--tp", "8"]))
    write_job(options([os.path.join(out, "r2-healthy"), "--ranks", "2", "--entries", "10", "--scenario",
                       "healthy", "--seq", "30", "--format", "pickle4"]))
    odd(os.path.join(out, "odd"))


def odd(out):
    """Dumps of other shapes than PyTorch writes: hand-made ones, as fr_trace's
    own tests build them (ids as strings, a dtype as one string), fields of
    the wrong type, a compressed dump, a JSON object that is no dump."""
    import gzip
    os.makedirs(out, exist_ok=True)
    base = {"version": "2.8", "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1]"}},
            "pg_status": {"0": {"last_enqueued_collective": "3", "last_started_collective": -1,
                                "last_completed_collective": 2}}, "rank": 1}
    ents = [{"record_id": 0, "pg_id": 0, "process_group": ("0", "default_pg"), "collective_seq_id": "3",
             "p2p_seq_id": "0", "profiling_name": "nccl:all_reduce", "input_sizes": [[4, 4]],
             "output_sizes": [[4, 4]], "input_dtypes": "float32", "output_dtypes": "float32",
             "state": "scheduled", "time_created_ns": 0, "frames": []},
            {"record_id": 1, "process_group": ["0", "default_pg"], "collective_seq_id": 4,
             "profiling_name": "nccl:send 0->1", "input_sizes": 7, "state": 3, "retired": "yes",
             "duration_ms": 2, "frames": [{"name": "f", "filename": "x.py", "line": 3}, 5]},
            "not an entry"]
    d = dict(base, entries=ents)
    with open(os.path.join(out, "handmade_rank_9"), "wb") as f:
        f.write(pickle.dumps(d, protocol=2))
    with open(os.path.join(out, "nccl_trace_rank_3.gz"), "wb") as f:
        f.write(gzip.compress(pickle.dumps(dict(base, entries=ents[:1]), protocol=4), mtime=0))
    with open(os.path.join(out, "list.pkl"), "wb") as f:
        f.write(pickle.dumps([1, 2, 3], protocol=2))
    with open(os.path.join(out, "nofr.pkl"), "wb") as f:
        f.write(pickle.dumps({"model": "gpt", "step": 3}, protocol=2))
    with open(os.path.join(out, "log.json"), "w") as f:
        f.write('{"version": "1.0", "level": "info", "msg": "step 3"}\n')
    # keys repeated inside one dict, as only a raw pickle can hold them: the
    # last one counts, a bad last one leaves the field empty
    def u(x):
        b = x.encode()
        return b"X" + struct.pack("<I", len(b)) + b
    frame = lambda n: b"}(" + u("name") + u(n) + u("filename") + u("f.py") + u("line") + b"K\x01u"
    ent = (b"}(" + u("input_dtypes") + b"](" + u("Float") + b"e" + u("input_dtypes") + b"](K\x05e" +
           u("frames") + b"](" + frame("a") + frame("b") + b"e" + u("frames") + b"](" + frame("c") + b"e" +
           u("input_sizes") + b"](](K\x04ee" + u("input_sizes") + b"K\x07" + u("profiling_name") +
           u("nccl:all_reduce") + b"u")
    with open(os.path.join(out, "repeated_rank_2"), "wb") as f:
        f.write(b"\x80\x02}(" + u("version") + u("2.8") + u("entries") + b"](" + ent + b"eu.")
    # 2.2 million values in 4 MB: cJSON would hold each as a node
    with open(os.path.join(out, "many.json"), "w") as f:
        f.write('{"entries":[' + ",".join(["0"] * (2200 * 1000)) + "]}")
    with open(os.path.join(out, "bad.json"), "w") as f:
        f.write('{"pg_config": {"0": {"name": "0", "ranks": "[0, 1]"}}, "entries": [{"record_id": 1,}]}')


def main(argv):
    if len(argv) == 2 and argv[0] == "--hostile":
        return hostile(argv[1])
    if len(argv) >= 2 and argv[0] == "--suite":
        suite(argv[1])
        if len(argv) == 4 and argv[2] == "--stamp":
            open(argv[3], "w").write("ok\n")
        return
    write_job(options(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
