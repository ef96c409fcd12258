"""A simulated GPU card for machines without one (CI): one accounted pool of memory on this machine.

The card is a JSON file (its path in CHAMPION_LOOP_SIM_GPU) that every process reads and writes
under an exclusive `fcntl.flock`: the card's size and, per device, what each process holds,
recorded under the allocating process's own pid. A `device: sim` job (compute.py) allocates its
ballast here when it opens the GPU and frees it on exit; the stand-in `sim-bin/nvidia-smi` reads
the same file. A process that is no longer alive (or whose pid now names another process) holds
nothing: its entries are dropped on every read and write, as a real card frees a dead process's
memory. An allocation past the card's free memory, or past the process's cap
(CHAMPION_LOOP_GPU_MEMORY_MIB), raises `torch.OutOfMemoryError` with the text PyTorch prints, so
an uncaught one ends the process as a real CUDA OOM does: traceback, that line, exit 1.

Standard library only (the stand-in nvidia-smi imports it on every call). Commands:

    python3 -m pygate.simgpu init --path FILE [--total-mib 143771] [--devices 1] [--reserved-mib 0] [--context-mib 0]
    python3 -m pygate.simgpu hog --gib 80 --seconds 60 [--device 0]   # a process outside the loop
    python3 -m pygate.simgpu show                                     # the pool, dead pids dropped

File (format champion-loop-sim-gpu/1): `{format, name, total_mib, reserved_mib, context_mib,
devices: [{index, uuid, processes: [{pid, start, name, context_mib, allocated_mib}]}]}`. A
device's used memory is the sum of its processes' `context_mib + allocated_mib`; its free memory
is `total_mib - reserved_mib - used` (`reserved_mib`, default 0, is what a real card keeps from
every process: 615 MiB on an H200, whose PyTorch sees 139.80 GiB of its 143,771 MiB);
`context_mib` (default 0) is what each process takes when it opens the card, beside what it
allocates (a CUDA context: 518 MiB on the H200).
"""

from __future__ import annotations

import argparse
import atexit
import fcntl
import json
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

ENV_POOL = "CHAMPION_LOOP_SIM_GPU"
ENV_CAP = "CHAMPION_LOOP_GPU_MEMORY_MIB"
FORMAT = "champion-loop-sim-gpu/1"
MIB = 2**20
GIB = 2**30
H200_MIB = 143771


class OutOfMemoryError(RuntimeError):
    """PyTorch's CUDA OOM, named as PyTorch names it: uncaught, it prints `torch.OutOfMemoryError: ...`."""


OutOfMemoryError.__module__ = "torch"
OutOfMemoryError.__qualname__ = "OutOfMemoryError"


class SimGpuError(Exception):
    """The pool file is missing or not a pool, a device is unknown, a cap is not a number."""


def format_size(size: int) -> str:
    """A byte count as PyTorch's CUDA allocator writes one in its messages (c10 format_size)."""
    if size <= 1024:
        return f"{size} bytes"
    if size <= MIB:
        return f"{size / 1024:.2f} KiB"
    if size <= GIB:
        return f"{size / MIB:.2f} MiB"
    return f"{size / GIB:.2f} GiB"


def ballast_bytes(gib: float) -> int:
    """What `torch.ones(int(gib * 2**30) // 4, dtype=float32)` allocates."""
    return max(0, int(float(gib) * GIB) // 4 * 4)


def cap_mib() -> float | None:
    """The per-process cap, CHAMPION_LOOP_GPU_MEMORY_MIB, in MiB (None when unset or empty)."""
    raw = os.environ.get(ENV_CAP, "").strip()
    if raw == "":
        return None
    try:
        value = float(raw)
    except ValueError:
        raise SimGpuError(f"{ENV_CAP}={raw!r} is not a number of MiB") from None
    if not math.isfinite(value) or value <= 0:
        raise SimGpuError(f"{ENV_CAP}={raw!r} must be a positive number of MiB")
    return value


def pool_path() -> str:
    path = os.environ.get(ENV_POOL, "")
    if path == "":
        raise SimGpuError(f"{ENV_POOL} is not set: it names the simulated card's pool file "
                          f"(python3 -m pygate.simgpu init --path FILE)")
    return path


# --- processes ------------------------------------------------------------------------------------


def process_start(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (/proc), None when it does not live
    (or is a zombie, which holds no GPU memory either); 0 where /proc cannot say."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stream:
            stat = stream.read()
    except FileNotFoundError:
        return None
    except OSError:
        stat = ""
    if stat:
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields and fields[0] in ("Z", "X"):
            return None
        try:
            return int(fields[19])
        except (IndexError, ValueError):
            return 0
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return 0


def process_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8") as stream:
            return stream.read().strip() or "python3"
    except OSError:
        return "python3"


def lives(entry: dict[str, Any]) -> bool:
    start = process_start(int(entry["pid"]))
    return start is not None and (start == 0 or int(entry.get("start", 0)) in (0, start))


def used_by(entry: dict[str, Any]) -> int:
    return int(entry.get("context_mib", 0)) + int(entry.get("allocated_mib", 0))


# --- the pool file --------------------------------------------------------------------------------


def new_pool(total_mib: int, devices: int = 1, reserved_mib: int = 0, context_mib: int = 0,
             name: str = "NVIDIA H200") -> dict[str, Any]:
    return {
        "format": FORMAT,
        "name": name,
        "total_mib": int(total_mib),
        "reserved_mib": int(reserved_mib),
        "context_mib": int(context_mib),
        "devices": [
            {"index": index, "uuid": f"GPU-51a7c0de-0000-4000-8000-{index:012d}", "processes": []}
            for index in range(devices)
        ],
    }


def _check(pool: Any, path: str) -> dict[str, Any]:
    if not (isinstance(pool, dict) and pool.get("format") == FORMAT and isinstance(pool.get("devices"), list)):
        raise SimGpuError(f"{path} is not a simulated card's pool file ({FORMAT})")
    return pool


def _prune(pool: dict[str, Any]) -> bool:
    """Drop the entries of processes that no longer live; whether any were dropped."""
    dropped = False
    for device in pool["devices"]:
        kept = [entry for entry in device["processes"] if lives(entry)]
        dropped = dropped or len(kept) != len(device["processes"])
        device["processes"] = kept
    return dropped


@contextmanager
def locked(path: str, write: bool = True) -> Iterator[dict[str, Any]]:
    """The pool, read under an exclusive lock with dead processes dropped; written back (in place,
    under the same lock) when the block ends without an exception."""
    try:
        stream = open(path, "r+", encoding="utf-8")
    except FileNotFoundError:
        raise SimGpuError(f"{ENV_POOL}: {path} does not exist (python3 -m pygate.simgpu init --path {path})") from None
    with stream:
        fcntl.flock(stream.fileno(), fcntl.LOCK_EX)
        try:
            try:
                pool = _check(json.loads(stream.read()), path)
            except json.JSONDecodeError:
                raise SimGpuError(f"{path} is not JSON") from None
            dropped = _prune(pool)
            yield pool
            if write or dropped:
                stream.seek(0)
                stream.truncate()
                stream.write(json.dumps(pool, indent=1) + "\n")
                stream.flush()
        finally:
            fcntl.flock(stream.fileno(), fcntl.LOCK_UN)


def read_pool(path: str | None = None) -> dict[str, Any]:
    """The pool as it is now (dead processes dropped)."""
    with locked(path or pool_path(), write=False) as pool:
        return pool


def init_pool(path: str, total_mib: int = H200_MIB, devices: int = 1, reserved_mib: int = 0,
              context_mib: int = 0, name: str = "NVIDIA H200") -> dict[str, Any]:
    """A new, empty card at `path` (replacing any pool there, under its lock)."""
    pool = new_pool(total_mib, devices, reserved_mib, context_mib, name)
    with open(path, "a+", encoding="utf-8") as stream:
        fcntl.flock(stream.fileno(), fcntl.LOCK_EX)
        try:
            stream.seek(0)
            stream.truncate()
            stream.write(json.dumps(pool, indent=1) + "\n")
            stream.flush()
        finally:
            fcntl.flock(stream.fileno(), fcntl.LOCK_UN)
    return pool


def device_of(pool: dict[str, Any], index: int) -> dict[str, Any]:
    for device in pool["devices"]:
        if int(device["index"]) == index:
            return device
    raise SimGpuError(f"the simulated card has no device {index}")


def device_memory(pool: dict[str, Any], device: dict[str, Any]) -> tuple[int, int, int]:
    """(total, used, free) in MiB, as nvidia-smi reports them."""
    total = int(pool["total_mib"])
    used = sum(used_by(entry) for entry in device["processes"])
    return total, used, max(0, total - int(pool.get("reserved_mib", 0)) - used)


def visible_device(pool: dict[str, Any]) -> int | None:
    """The device `cuda:0` is for this process: the first CUDA_VISIBLE_DEVICES names (the first
    device when it is unset), None when it names none of the card's."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    indexes = [int(device["index"]) for device in pool["devices"]]
    if visible is None:
        return indexes[0] if indexes else None
    first = visible.split(",")[0].strip()
    return int(first) if first.isdigit() and int(first) in indexes else None


def oom_message(pool: dict[str, Any], device: dict[str, Any], pid: int, request: int, cap: float | None) -> str:
    """The text PyTorch's CUDA allocator raises (torch 2.x, as on the H200 of 2026-12-04)."""
    total = int(pool["total_mib"]) - int(pool.get("reserved_mib", 0))
    _, _, free = device_memory(pool, device)
    processes = ""
    mine = 0
    for entry in device["processes"]:
        held = format_size(used_by(entry) * MIB)
        if int(entry["pid"]) == pid:
            processes += f"Including non-PyTorch memory, this process has {held} memory in use. "
            mine = int(entry.get("allocated_mib", 0)) * MIB
        else:
            processes += f"Process {entry['pid']} has {held} memory in use. "
    allowed = "" if cap is None else f"{format_size(int(cap * MIB))} allowed; "
    return (
        f"CUDA out of memory. Tried to allocate {format_size(request)}. GPU 0 has a total capacity of "
        f"{format_size(total * MIB)} of which {format_size(free * MIB)} is free. {processes}{allowed}"
        f"Of the allocated memory {format_size(mine)} is allocated by PyTorch, and 0 bytes is reserved by "
        "PyTorch but unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
        "Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html"
        "#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)"
    )


def _entry(pool: dict[str, Any], device: dict[str, Any], pid: int) -> dict[str, Any]:
    """This process's entry on the device, made (holding the card's context_mib) on first use."""
    for entry in device["processes"]:
        if int(entry["pid"]) == pid:
            return entry
    entry = {"pid": pid, "start": process_start(pid) or 0, "name": process_name(pid),
             "context_mib": int(pool.get("context_mib", 0)), "allocated_mib": 0}
    device["processes"].append(entry)
    return entry


# --- one process's use of the card ----------------------------------------------------------------


class SimCard:
    """This process's handle on one device of the pool: open (its context), allocate, free.

    Memory is recorded under os.getpid() of the process that allocates; it is freed when that
    process exits (atexit), or, if it dies of a signal, on the next read of the pool.
    """

    def __init__(self, path: str, index: int, pid: int | None = None) -> None:
        self.path, self.index, self.pid = path, index, pid if pid is not None else os.getpid()
        self.cap = cap_mib()
        with locked(path) as pool:
            device = device_of(pool, index)
            total, _, free = device_memory(pool, device)
            context = int(pool.get("context_mib", 0))
            if context > free and all(int(e["pid"]) != self.pid for e in device["processes"]):
                raise OutOfMemoryError(oom_message(pool, device, self.pid, context * MIB, self.cap))
            entry = _entry(pool, device, self.pid)
            self.name, self.total_mib = str(pool.get("name", "NVIDIA H200")), total
            self.allocated_mib = int(entry["allocated_mib"])
        atexit.register(self.close)

    def allocate(self, nbytes: int) -> None:
        """Take `nbytes` more (rounded up to whole MiB), or raise PyTorch's OOM: past the card's
        free memory, or, with a cap, past what this process may hold."""
        if nbytes <= 0:
            return
        mib = -(-nbytes // MIB)
        with locked(self.path) as pool:
            device = device_of(pool, self.index)
            entry = _entry(pool, device, self.pid)
            _, _, free = device_memory(pool, device)
            over_cap = self.cap is not None and (int(entry["allocated_mib"]) + mib) > self.cap
            if mib > free or over_cap:
                raise OutOfMemoryError(oom_message(pool, device, self.pid, nbytes, self.cap))
            entry["allocated_mib"] = int(entry["allocated_mib"]) + mib
            self.allocated_mib = int(entry["allocated_mib"])

    def mem_get_info(self) -> tuple[int, int]:
        """(free, total) MiB of this device now, as torch.cuda.mem_get_info sees them (the total
        less what the card reserves)."""
        with locked(self.path, write=False) as pool:
            total, _, free = device_memory(pool, device_of(pool, self.index))
            return free, total - int(pool.get("reserved_mib", 0))

    def close(self) -> None:
        """Free everything this process holds on the card (only from the process itself)."""
        if os.getpid() != self.pid:
            return  # a forked child (the loader) exits with atexit handlers it did not register
        try:
            with locked(self.path) as pool:
                for device in pool["devices"]:
                    device["processes"] = [e for e in device["processes"] if int(e["pid"]) != self.pid]
        except (OSError, SimGpuError):
            pass


def open_card(pid: int | None = None) -> SimCard:
    """The card this process sees (CHAMPION_LOOP_SIM_GPU, CUDA_VISIBLE_DEVICES), opened."""
    path = pool_path()
    index = visible_device(read_pool(path))
    if index is None:
        raise SimGpuError(f"the simulated card ({path}) has no device CUDA_VISIBLE_DEVICES="
                          f"{os.environ.get('CUDA_VISIBLE_DEVICES')!r} shows")
    return SimCard(path, index, pid)


# --- commands -------------------------------------------------------------------------------------


def _hog(args: argparse.Namespace) -> int:
    path = args.path or pool_path()
    card = SimCard(path, args.device)
    card.allocate(ballast_bytes(args.gib))
    print(f"hog holds {args.gib:.1f} GiB (pid {os.getpid()}, device {args.device}, {path})", flush=True)
    time.sleep(args.seconds)
    card.close()
    print("hog freed", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pygate.simgpu", description="A simulated GPU card (a pool file).")
    commands = parser.add_subparsers(dest="command", required=True)
    init = commands.add_parser("init", help="make an empty card")
    init.add_argument("--path", default=None, help=f"the pool file (default ${ENV_POOL})")
    init.add_argument("--total-mib", type=int, default=H200_MIB)
    init.add_argument("--devices", type=int, default=1)
    init.add_argument("--reserved-mib", type=int, default=0)
    init.add_argument("--context-mib", type=int, default=0)
    init.add_argument("--name", default="NVIDIA H200")
    hog = commands.add_parser("hog", help="hold memory for a while, as a process outside the loop")
    hog.add_argument("--gib", type=float, required=True)
    hog.add_argument("--seconds", type=float, required=True)
    hog.add_argument("--device", type=int, default=0)
    hog.add_argument("--path", default=None)
    show = commands.add_parser("show", help="print the pool (dead processes dropped)")
    show.add_argument("--path", default=None)
    args = parser.parse_args(argv)
    try:
        if args.command == "init":
            pool = init_pool(args.path or pool_path(), args.total_mib, args.devices, args.reserved_mib,
                             args.context_mib, args.name)
            print(json.dumps(pool))
            return 0
        if args.command == "hog":
            return _hog(args)
        print(json.dumps(read_pool(args.path), indent=1))
        return 0
    except SimGpuError as error:
        print(f"pygate.simgpu: {error}", file=sys.stderr, flush=True)
        return 2


if __name__ == "__main__":
    sys.exit(main())
