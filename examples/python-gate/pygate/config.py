"""Job configs, read as the seed's stack reads them (PyYAML safe_load), with this stack's defaults."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .cli import StackError
from .files import sha256_of

DEFAULTS: dict[str, Any] = {
    "features": 8,  # use the first N features of each item
    "epochs": 4,
    "batch_size": 64,
    "learning_rate": 0.1,
    "l2": 0.0,
    "class_weight_fail": 1.0,  # a fail item's loss weight: > 1 lets fewer fails through
    "soft_target_weight": 0.5,  # a student's share of the teacher in its targets
    "min_validation_auc": 0.0,  # epochs below it are not eligible for selection
    "epoch_sleep_s": 0.0,  # stand-in for a real epoch's duration
    "loader_workers": 1,  # batch-order processes, as a PyTorch DataLoader's workers
    "gpu_ballast_gib": 0.0,  # with device: cuda or sim, GPU memory a training holds for its life (compute.py)
}
# An evaluation's ballast (an ensemble's: the sum of its members'); unset, the config's gpu_ballast_gib.
EVAL_BALLAST = "gpu_eval_ballast_gib"

# Where a job computes (compute.py): cpu (numpy), cuda (PyTorch on the lane's GPU), or sim (numpy
# beside a simulated card, pygate/simgpu.py, for machines without a GPU).
DEVICES = ("cpu", "cuda", "sim")


@dataclass(frozen=True)
class JobConfig:
    path: str
    sha256: str
    values: dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    @property
    def split(self) -> str:
        return str(self.values["split"])


def read_config(path: str | Path) -> JobConfig:
    try:
        with open(path, encoding="utf-8") as stream:
            raw = yaml.safe_load(stream)
    except FileNotFoundError:
        raise StackError(f"config {path} does not exist") from None
    except (OSError, yaml.YAMLError) as error:
        raise StackError(f"config {path} is not YAML: {error}") from None
    if not isinstance(raw, dict):
        raise StackError(f"config {path} is not a mapping")
    if "split" not in raw:
        raise StackError(f"config {path} has no split (the loop adds it to every job config)")
    unknown = sorted(set(raw) - set(DEFAULTS) - {"split", "seed", "gate_soft_targets", "device", EVAL_BALLAST})
    if unknown:
        raise StackError(f"config {path} has keys this stack does not know: {', '.join(map(str, unknown))}")
    values = {**DEFAULTS, "seed": 0, "gate_soft_targets": None, "device": "cpu", **raw}
    if values["device"] not in DEVICES:
        raise StackError(f"config {path}: device must be one of {', '.join(DEVICES)}, got {values['device']!r}")
    if values.get(EVAL_BALLAST) is None:
        values[EVAL_BALLAST] = values["gpu_ballast_gib"]
    for key in [*DEFAULTS, EVAL_BALLAST]:
        if isinstance(values[key], bool) or not isinstance(values[key], (int, float)):
            raise StackError(f"config {path}: {key} must be a number, got {values[key]!r}")
    return JobConfig(str(path), sha256_of(path), values)
