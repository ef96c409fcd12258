"""Where a job computes: numpy on the CPU (config `device: cpu`, the default), PyTorch on the
lane's GPU (`device: cuda`): `cuda:0`, which is the physical GPU the lane's CUDA_VISIBLE_DEVICES
names, since CUDA numbers only the devices it lets a process see; or numpy beside a simulated card
(`device: sim`, pygate/simgpu.py: memory accounted in a pool file, for machines without a GPU).

A job holds ballast on its GPU for its whole life, a stand-in for a real model's weights and
activations, so the lane's memory guard has something to see: training `gpu_ballast_gib`, an
evaluation `gpu_eval_ballast_gib` (default: the same), an ensemble evaluation the sum of its
members' eval ballasts, taken member by member as it loads them. With CHAMPION_LOOP_GPU_MEMORY_MIB
set, a process that would hold more than that many MiB fails with PyTorch's CUDA OOM: on cuda
through `torch.cuda.set_per_process_memory_fraction(cap / total)`, on sim by the pool.
"""

import json
import os
from typing import Any

from . import simgpu
from .cli import StackError
from .config import JobConfig


def _cap_mib() -> float | None:
    try:
        return simgpu.cap_mib()
    except simgpu.SimGpuError as error:
        raise StackError(str(error)) from None


class Ballast:
    """What a job holds on its GPU: blocks taken one after another, kept for the job's life."""

    held_gib = 0.0

    def hold(self, gib: float) -> None:
        """Take `gib` more (an OOM, as PyTorch raises it, when it does not fit)."""
        raise NotImplementedError

    def hold_at_least(self, gib: float) -> None:
        """Hold `gib` in all, taking what is missing (a batch scoring configs of several sizes)."""
        if gib > self.held_gib:
            self.hold(gib - self.held_gib)


class Gpu(Ballast):
    """The job's GPU, opened once: torch, its device, and the ballast it holds."""

    def __init__(self, config: JobConfig, ballast_gib: float) -> None:
        try:
            import torch  # noqa: PLC0415 - optional: only a `device: cuda` job needs it
        except ImportError:
            raise StackError(f"config {config.path}: device: cuda needs PyTorch, which is not installed") from None
        if not torch.cuda.is_available():
            visible = os.environ.get("CUDA_VISIBLE_DEVICES")
            raise StackError(
                f"config {config.path}: device: cuda, but PyTorch sees no GPU (CUDA_VISIBLE_DEVICES={visible!r})"
            )
        self.torch = torch
        self.device = torch.device("cuda:0")
        cap = _cap_mib()
        if cap is not None:
            total_mib = torch.cuda.get_device_properties(self.device).total_memory / 2**20
            torch.cuda.set_per_process_memory_fraction(min(1.0, cap / total_mib), self.device)
        self._ballast: list[Any] = []
        self.hold(float(ballast_gib))

    def hold(self, gib: float) -> None:
        elements = simgpu.ballast_bytes(gib) // 4
        if elements > 0:
            self._ballast.append(self.torch.ones(elements, dtype=self.torch.float32, device=self.device))
            self.held_gib += gib

    def tensor(self, values: Any) -> Any:
        return self.torch.as_tensor(values, dtype=self.torch.float64, device=self.device)

    def epoch(self, data: tuple[Any, Any, Any], visit: Any, batch: int, weights: Any, bias: float,
              rate: float, l2: float) -> tuple[Any, float]:
        """One epoch of train.py's SGD on the GPU (`data`: features, targets, item weights, as
        tensors there); the weights come back to numpy for the checkpoint."""
        torch = self.torch
        x, targets, item_weight = data
        w, b = self.tensor(weights), self.tensor(bias)
        order = torch.as_tensor(visit, device=self.device)
        for start in range(0, order.numel(), batch):
            rows = order[start : start + batch]
            error = (torch.sigmoid(x[rows] @ w + b) - targets[rows]) * item_weight[rows]
            w -= rate * (x[rows].T @ error / rows.numel() + l2 * w)
            b -= rate * error.mean()
        return w.cpu().numpy(), float(b)

    def memory_line(self, when: str) -> str:
        """One `gpu {...}` log line: what PyTorch says this process and its device hold now."""
        torch = self.torch
        free, total = torch.cuda.mem_get_info(self.device)
        return "gpu " + json.dumps({
            "when": when,
            "pid": os.getpid(),
            "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "name": torch.cuda.get_device_name(self.device),
            "free_mib": free / 2**20,
            "total_mib": total / 2**20,
            "allocated_mib": torch.cuda.memory_allocated(self.device) / 2**20,
            "reserved_mib": torch.cuda.memory_reserved(self.device) / 2**20,
        })


class SimGpu(Ballast):
    """The simulated card (`device: sim`): the ballast is accounted in the pool file that
    CHAMPION_LOOP_SIM_GPU names, under this process's pid; the model computes with numpy."""

    def __init__(self, config: JobConfig, ballast_gib: float) -> None:
        try:
            self.card = simgpu.open_card()
        except simgpu.SimGpuError as error:
            raise StackError(f"config {config.path}: device: sim, but {error}") from None
        self.hold(float(ballast_gib))

    def hold(self, gib: float) -> None:
        nbytes = simgpu.ballast_bytes(gib)
        if nbytes > 0:
            self.card.allocate(nbytes)
            self.held_gib += gib

    def memory_line(self, when: str) -> str:
        """One `gpu {...}` log line, as Gpu's: what the pool says this process and its device hold."""
        free, total = self.card.mem_get_info()
        allocated = float(self.card.allocated_mib)
        return "gpu " + json.dumps({
            "when": when,
            "pid": os.getpid(),
            "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "name": f"{self.card.name} (simulated)",
            "free_mib": float(free),
            "total_mib": float(total),
            "allocated_mib": allocated,
            "reserved_mib": allocated,
        })


def open_gpu(config: JobConfig, ballast_gib: float | None = None) -> Gpu | SimGpu | None:
    """The job's GPU holding `ballast_gib` (default: the config's gpu_ballast_gib, training's):
    PyTorch's with `device: cuda`, the simulated card with `device: sim`; None on `device: cpu`."""
    ballast = float(config["gpu_ballast_gib"] if ballast_gib is None else ballast_gib)
    if config["device"] == "cuda":
        return Gpu(config, ballast)
    if config["device"] == "sim":
        return SimGpu(config, ballast)
    return None
