#!/usr/bin/env python3
"""One rank of a pkbcheck worker group running a ParallelKernelBench solution.

Started by the launcher as ``python pkb_worker.py worker --socket S --rank R
--world N``. Speaks the hub's wire protocol (runtime/include/pkb/rt/Wire.h):
a frame is a 16-byte header {uint32 type, uint32 number of fds, uint64 payload
length} and a JSON payload. Hello -> Config; a deadline (Arm) before every
phase; one Result per case; Done at the end. Fatal failures (exceptions, CUDA
errors) are sent as a Result with a fatal verdict; the hub then kills the
group. See docs/pkb.md.

Config keys: solution, problem, pkb_root, shapes ([[M, N], ...]), dtype,
trials, back_to_back, deadline_ms, setup_deadline_ms, timing, warmup, iters,
pkb_warmup, pkb_iters, l2_factor, atol, rtol, master_port. With "selftest"
set ("pass", "timed", "hang", "die", "error") the worker needs no torch: it
exercises the protocol only (used by the CPU tests); "timed" passes with
synthetic timing (candidate median 100 + rank us, reference twice that).

As soon as torch is imported each rank logs ``pkb-versions {json}`` (hub Log
message; kVersionsLogPrefix in PkbRun.h) so that records of ranks that never
send a result (a deadlock, a dead worker) still carry the versions.
"""
import importlib.util
import json
import os
import re
import socket
import struct
import sys
import time
import traceback

HELLO, CONFIG, ALLGATHER, GATHERED, ARM, DISARM, RESULT, DONE, LOG = range(1, 10)
VERSIONS_PREFIX = "pkb-versions "


class Hub:
    def __init__(self, path, rank, world):
        self.rank = rank
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        t_end = time.time() + 30
        while True:
            try:
                self.sock.connect(path)
                break
            except OSError:
                if time.time() > t_end:
                    raise
                time.sleep(0.02)
        self.send(HELLO, {"rank": rank, "world": world, "pid": os.getpid()})

    def send(self, mtype, obj):
        data = json.dumps(obj).encode() if not isinstance(obj, bytes) else obj
        self.sock.sendall(struct.pack("<IIQ", mtype, 0, len(data)) + data)

    def _read(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("hub closed the socket")
            buf += chunk
        return buf

    def recv(self):
        mtype, nfds, length = struct.unpack("<IIQ", self._read(16))
        return mtype, self._read(length)

    def arm(self, phase, deadline_ms, case=None):
        self.send(ARM, {"phase": phase, "deadline_ms": int(deadline_ms),
                        "case": case or {}})

    def disarm(self):
        self.send(DISARM, {})

    def log(self, line):
        self.send(LOG, line.encode())


def selftest(hub, cfg):
    mode = cfg["selftest"]
    case = {"problem": cfg.get("problem", 0), "shape": cfg["shapes"][0],
            "dtype": cfg.get("dtype", "none")}
    hub.log(VERSIONS_PREFIX + json.dumps(
        {"torch": "selftest", "cuda": "none", "driver": "none",
         "python": sys.version.split()[0], "device": "none"}))
    hub.arm("call 0", cfg.get("deadline_ms", 1000), case)
    if mode == "hang":
        time.sleep(3600)
    if mode == "die":
        os._exit(3)
    hub.disarm()
    if mode == "error":
        hub.send(RESULT, dict(case, verdict="runtime-error",
                              detail="ValueError: selftest"))
    else:
        for shape in cfg["shapes"]:
            hub.arm("call 0", cfg.get("deadline_ms", 1000), case)
            hub.disarm()
            res = dict(case, shape=shape, verdict="pass", detail="",
                       rank=hub.rank)
            if mode == "timed":
                us = 100.0 + hub.rank
                res["timing"] = {
                    side: {"median_us": m, "p10_us": m, "p90_us": m,
                           "min_us": m, "max_us": m, "mean_us": m,
                           "iters": 1, "warmup": 0, "copies": 1,
                           "pkb_method_us": m}
                    for side, m in (("candidate", us),
                                    ("reference", 2 * us))}
            hub.send(RESULT, res)
    hub.send(DONE, {})


# --------------------------------------------------------------------------
# Failure classification
# --------------------------------------------------------------------------

API_PATTERNS = [
    r"_symmetric_memory", r"signal_pad_ptrs", r"buffer_ptrs",
    r"get_buffer", r"rendezvous", r"has no attribute", r"unexpected keyword",
    r"takes \d+ positional argument", r"object is not subscriptable",
    r"'int' object has no attribute",
]


def classify_exception(exc, tb):
    """(verdict, detail) of an exception raised by the solution."""
    name = type(exc).__name__
    text = f"{name}: {exc}"
    if "Error building extension" in str(exc) or name == "CalledProcessError" \
            and "nvcc" in tb or "ninja" in str(exc) and "build" in str(exc):
        return "compile-error", text
    if isinstance(exc, (TypeError, AttributeError)):
        for p in API_PATTERNS:
            if re.search(p, text) or re.search(p, tb[-2000:]):
                return "api-error", text
    return "runtime-error", text


# --------------------------------------------------------------------------
# Comparison (PKB semantics: torch.allclose(ref.float(), out.float(), atol,
# rtol) per tensor, shapes must match; plus a report)
# --------------------------------------------------------------------------

def flatten(obj):
    import torch
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        out = []
        for o in obj:
            out += flatten(o)
        return out
    if isinstance(obj, dict):
        out = []
        for k in sorted(obj):
            out += flatten(obj[k])
        return out
    return []


def compare(ref, got, atol, rtol, what):
    """None if got matches ref, else a dict describing the first failure."""
    import torch
    rs, gs = flatten(ref), flatten(got)
    if len(rs) != len(gs):
        return {"check": what, "error": f"{len(gs)} output tensors, "
                f"reference has {len(rs)}"}
    for i, (r, g) in enumerate(zip(rs, gs)):
        if tuple(r.shape) != tuple(g.shape):
            return {"check": what, "tensor": i, "error":
                    f"shape {tuple(g.shape)}, reference {tuple(r.shape)}"}
        rf = r.detach().float()
        gf = g.detach().float().to(rf.device)
        if torch.allclose(rf, gf, atol=atol, rtol=rtol, equal_nan=False):
            continue
        diff = (rf - gf).abs()
        bad = ~(diff <= atol + rtol * rf.abs())
        idx = int(bad.flatten().nonzero()[0].item()) if bad.any() else -1
        fin = torch.isfinite(diff)
        return {
            "check": what, "tensor": i, "first_mismatch": idx,
            "got": float(gf.flatten()[idx]) if idx >= 0 else None,
            "expected": float(rf.flatten()[idx]) if idx >= 0 else None,
            "mismatches": int(bad.sum().item()), "elements": rf.numel(),
            "max_abs_err": float(diff[fin].max()) if fin.any() else None,
            "max_rel_err": float((diff / rf.abs().clamp_min(1e-12))[fin]
                                 .max()) if fin.any() else None,
            "nan": int(torch.isnan(gf).sum()), "inf": int(torch.isinf(gf).sum()),
            "dtype": str(g.dtype).replace("torch.", ""),
        }
    return None


def clone_args(x):
    import torch
    out = []
    for a in x:
        if isinstance(a, torch.Tensor):
            out.append(a.clone())
        elif isinstance(a, (list, tuple)):
            out.append(type(a)(clone_args(a)))
        else:
            out.append(a)
    return tuple(out)


def clone_out(y):
    import torch
    if isinstance(y, torch.Tensor):
        return y.clone()
    if isinstance(y, (list, tuple)):
        return type(y)(clone_out(v) for v in y)
    if isinstance(y, dict):
        return {k: clone_out(v) for k, v in y.items()}
    return y


def shift_floats(x, k):
    """Adds k to every floating tensor (fresh values when PKB's inputs for a
    problem do not depend on the trial, e.g. problems 1-8)."""
    import torch
    out = []
    for a in x:
        if isinstance(a, torch.Tensor) and a.is_floating_point():
            out.append(a + k)
        elif isinstance(a, (list, tuple)):
            out.append(type(a)(shift_floats(a, k)))
        else:
            out.append(a)
    return tuple(out)


def same_inputs(a, b):
    import torch
    fa, fb = flatten(list(a)), flatten(list(b))
    return len(fa) == len(fb) and all(
        x.shape == y.shape and torch.equal(x, y) for x, y in zip(fa, fb))


# --------------------------------------------------------------------------
# The case
# --------------------------------------------------------------------------

class Fatal(Exception):
    def __init__(self, verdict, detail, tb=""):
        super().__init__(detail)
        self.verdict, self.detail, self.tb = verdict, detail, tb


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if not hasattr(mod, "solution"):
        raise AttributeError(f"'solution' not found in {path}")
    return mod.solution


def guarded(fn, *a):
    try:
        return fn(*a)
    except Fatal:
        raise
    except Exception as exc:  # noqa: BLE001 - every failure is a verdict
        tb = traceback.format_exc()
        v, d = classify_exception(exc, tb)
        raise Fatal(v, d, tb)


def percentile(s, q):
    s = sorted(s)
    pos = (len(s) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def run_case(hub, cfg, sol, ref, shape, dtype_name, versions):
    import torch
    from utils.input_output_tensors import create_input_tensor
    rank, world, pid = hub.rank, cfg["world"], cfg["problem"]
    dtype = getattr(torch, dtype_name)
    dev = torch.device("cuda", torch.cuda.current_device())
    atol, rtol = cfg.get("atol", 1e-2), cfg.get("rtol", 1e-2)
    dl = cfg.get("deadline_ms", 30000)
    case = {"problem": pid, "shape": list(shape), "dtype": dtype_name}
    fails = []

    def inputs(trial, k=None):
        x = create_input_tensor(rank, world, pid, tuple(shape), dtype,
                                trial=trial, device=dev)
        return shift_floats(x, k) if k else x

    def call(fn, x, phase):
        hub.arm(phase, dl, case)
        y = guarded(fn, *x)
        guarded(torch.cuda.synchronize)
        hub.disarm()
        return y

    # 1. Trials: candidate then reference on a copy of the same inputs.
    prev = None
    for t in range(cfg.get("trials", 3)):
        x = inputs(t)
        if prev is not None and same_inputs(x, prev):
            x = shift_floats(x, t)  # PKB inputs independent of the trial
        prev = inputs(t)
        xr = clone_args(x)
        y = call(sol, x, f"trial {t}")
        r = call(ref, xr, f"reference trial {t}")
        f = compare(r, y, atol, rtol, f"trial {t}")
        if f:
            fails.append(f)
        f = compare(list(xr), list(x), 0.0, 0.0, f"inputs after trial {t}")
        if f:
            f["error"] = "the solution changed its inputs and the reference " \
                         "did not (or differently)"
            fails.append(f)
    # 2. Back-to-back: fresh inputs, no host sync, outputs cloned on the
    # stream right after each call; returned outputs kept and checked too.
    n = cfg.get("back_to_back", 4)
    base = inputs(100)
    xs = [inputs(100 + k) for k in range(n)]
    xs = [shift_floats(x, k) if k and same_inputs(x, base) else x
          for k, x in enumerate(xs)]
    xrs = [clone_args(x) for x in xs]
    hub.arm("back-to-back calls", dl * n, case)
    kept, snaps = [], []
    for x in xs:
        y = guarded(sol, *x)
        kept.append(y)
        snaps.append(clone_out(y))
    guarded(torch.cuda.synchronize)
    hub.disarm()
    for k, xr in enumerate(xrs):
        r = call(ref, xr, f"reference back-to-back {k}")
        f = compare(r, snaps[k], atol, rtol, f"back-to-back call {k}")
        if f:
            f["call"] = k
            fails.append(f)
        elif compare(r, kept[k], atol, rtol, "kept"):
            f = compare(r, kept[k], atol, rtol, f"returned output of call {k}")
            f["error"] = ("correct right after the call, overwritten by a later "
                          "call: the output aliases a buffer the solution reuses")
            f["call"] = k + 1  # the call that overwrote it
            fails.append(f)
    res = dict(case, rank=rank, versions=versions, checks=fails[:8],
               verdict="wrong-output" if fails else "pass",
               detail=(fails[0].get("error") or
                       f"{fails[0]['check']}: {fails[0].get('mismatches')} of "
                       f"{fails[0].get('elements')} elements wrong")
               if fails else "")
    if fails and "call" in fails[0]:
        # Failing only from a later back-to-back call on: a cross-call race.
        res["first_failing_call"] = fails[0]["call"]
    if not fails and cfg.get("timing", True):
        res["timing"] = {"candidate": time_fn(hub, cfg, sol, inputs, case),
                         "reference": time_fn(hub, cfg, ref, inputs, case)}
    return res


def time_fn(hub, cfg, fn, inputs, case):
    """pkbcheck's method (per-iteration events, inputs rotated over copies
    larger than the L2) and PKB's (warm-ups then one event pair)."""
    import torch
    import torch.distributed as dist
    x = inputs(0)
    nbytes = sum(t.numel() * t.element_size() for t in flatten(list(x)))
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size",
                 50 << 20)
    warm, iters = cfg.get("warmup", 20), cfg.get("iters", 100)
    copies = max(2, min(warm + iters, -(-cfg.get("l2_factor", 3) * l2 //
                                         max(nbytes, 1))))
    copies = min(copies, max(2, (4 << 30) // max(nbytes, 1)))
    xs = [clone_args(x) for _ in range(copies)]
    dl = cfg.get("deadline_ms", 30000)
    dist.barrier()
    hub.arm("timing warm-up", dl * (warm + 1), case)
    for i in range(warm):
        fn(*xs[i % copies])
    torch.cuda.synchronize()
    dist.barrier()
    hub.arm("timed calls", dl * (iters + 1), case)
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(iters + 1)]
    ev[0].record()
    for i in range(iters):
        fn(*xs[(warm + i) % copies])
        ev[i + 1].record()
    torch.cuda.synchronize()
    ts = [ev[i].elapsed_time(ev[i + 1]) * 1000.0 for i in range(iters)]
    # PKB's method: 500 warm-ups, 100 iterations between one event pair.
    pw, pi = cfg.get("pkb_warmup", 500), cfg.get("pkb_iters", 100)
    dist.barrier()
    hub.arm("pkb-method timing", dl * (pw + pi + 1), case)
    for _ in range(pw):
        fn(*x)
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(
        enable_timing=True)
    a.record()
    for _ in range(pi):
        fn(*x)
    b.record()
    torch.cuda.synchronize()
    hub.disarm()
    return {"median_us": percentile(ts, 0.5), "p10_us": percentile(ts, 0.1),
            "p90_us": percentile(ts, 0.9), "min_us": min(ts),
            "max_us": max(ts), "mean_us": sum(ts) / len(ts), "iters": iters,
            "warmup": warm, "copies": copies,
            "pkb_method_us": a.elapsed_time(b) * 1000.0 / pi,
            "pkb_warmup": pw, "pkb_iters": pi}


def versions_of():
    import torch
    v = {"torch": torch.__version__, "cuda": torch.version.cuda,
         "python": sys.version.split()[0]}
    try:
        import subprocess
        v["driver"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20).stdout.split("\n")[0]
    except Exception:  # noqa: BLE001
        v["driver"] = "unknown"
    v["device"] = torch.cuda.get_device_name()
    return v


def real(hub, cfg):
    rank, world = hub.rank, cfg["world"]
    os.environ.update({"MASTER_ADDR": "127.0.0.1",
                       "MASTER_PORT": str(cfg.get("master_port", 29500)),
                       "RANK": str(rank), "LOCAL_RANK": str(rank),
                       "WORLD_SIZE": str(world)})
    if cfg.get("extensions_dir"):
        os.environ["TORCH_EXTENSIONS_DIR"] = cfg["extensions_dir"]
    sys.path.insert(0, cfg["pkb_root"])
    sdl = cfg.get("setup_deadline_ms", 600000)
    case0 = {"problem": cfg["problem"], "shape": cfg["shapes"][0],
             "dtype": cfg["dtype"]}
    versions = {}
    phase = "import torch"
    try:
        hub.arm(phase, sdl, case0)
        import torch
        import torch.distributed as dist
        torch.cuda.set_device(rank % max(1, torch.cuda.device_count()))
        versions = versions_of()
        hub.log(VERSIONS_PREFIX + json.dumps(versions))
        phase = "init process group"
        hub.arm(phase, sdl, case0)
        dist.init_process_group("nccl", rank=rank, world_size=world,
                                device_id=torch.device("cuda", rank))
        phase = "load reference"
        ref = load_module(cfg["reference"], "pkb_reference")
        # The solution compiles (load_inline) at import: one rank compiles
        # first, the others then load the cached extension.
        phase = "load solution (compile)"
        hub.arm(phase, sdl, case0)
        if rank != 0:
            dist.barrier()
        try:
            sol = load_module(cfg["solution"], "pkb_solution")
        finally:
            if rank == 0:
                dist.barrier()
        hub.disarm()
    except Exception as exc:  # noqa: BLE001
        tb = traceback.format_exc()
        v, d = classify_exception(exc, tb)
        if v == "runtime-error" and phase.startswith("load solution") and (
                "nvcc" in tb or "ninja" in tb):
            v = "compile-error"
        if phase in ("import torch", "init process group") and v != "api-error":
            v = "internal-error"
        hub.send(RESULT, dict(case0, verdict=v, detail=f"{phase}: {d}",
                              traceback=tb[-4000:], rank=rank,
                              versions=versions))
        sys.stdout.flush()
        os._exit(1)
    for shape in cfg["shapes"]:
        case = {"problem": cfg["problem"], "shape": shape,
                "dtype": cfg["dtype"]}
        try:
            res = run_case(hub, cfg, sol, ref, shape, cfg["dtype"], versions)
        except Fatal as f:
            hub.send(RESULT, dict(case, verdict=f.verdict, detail=f.detail,
                                  traceback=f.tb[-4000:], rank=rank,
                                  versions=versions))
            sys.stdout.flush()
            os._exit(1)
        except Exception as exc:  # noqa: BLE001 - the harness's own failure
            tb = traceback.format_exc()
            hub.send(RESULT, dict(case, verdict="internal-error",
                                  detail=f"pkb_worker: {type(exc).__name__}: "
                                  f"{exc}", traceback=tb[-4000:], rank=rank,
                                  versions=versions))
            sys.stdout.flush()
            os._exit(1)
        hub.send(RESULT, res)
    try:
        dist.barrier()
        dist.destroy_process_group()
    except Exception:  # noqa: BLE001
        pass
    hub.send(DONE, {})


def main(argv):
    args = dict(zip(argv[2::2], argv[3::2])) if len(argv) > 1 and \
        argv[1] == "worker" else {}
    if "--socket" not in args:
        print("usage: pkb_worker.py worker --socket S --rank R --world N",
              file=sys.stderr)
        return 2
    hub = Hub(args["--socket"], int(args["--rank"]), int(args["--world"]))
    mtype, payload = hub.recv()
    if mtype != CONFIG:
        return 2
    cfg = json.loads(payload)
    cfg.setdefault("world", int(args["--world"]))
    if cfg.get("selftest"):
        selftest(hub, cfg)
    else:
        real(hub, cfg)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
