"""Where a job computes: numpy on the CPU (config `device: cpu`, the default), or PyTorch on the
lane's GPU (`device: cuda`): `cuda:0`, which is the physical GPU the lane's CUDA_VISIBLE_DEVICES
names, since CUDA numbers only the devices it lets a process see.

`gpu_ballast_gib` holds that much GPU memory for the job's whole life, a stand-in for a real
model's weights and activations, so the lane's memory guard has something to see.
"""

import json
import os
from typing import Any

from .cli import StackError
from .config import JobConfig


class Gpu:
    """The job's GPU, opened once: torch, its device, and the ballast it holds."""

    def __init__(self, config: JobConfig) -> None:
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
        ballast = float(config["gpu_ballast_gib"])
        elements = int(ballast * 2**30) // 4
        self._ballast = torch.ones(elements, dtype=torch.float32, device=self.device) if elements > 0 else None

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


def open_gpu(config: JobConfig) -> Gpu | None:
    """The job's GPU when its config says `device: cuda`, else None (numpy on the CPU)."""
    return Gpu(config) if config["device"] == "cuda" else None
