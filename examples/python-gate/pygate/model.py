"""The model: logistic regression on the first `features` features; the gate margin is the logit.

A checkpoint is JSON (weights as exact float reprs), so an evaluator reproduces training's
validation margins bit for bit.
"""

from pathlib import Path
from typing import Any

import numpy as np

from .cli import StackError
from .files import read_json, write_json

FORMAT = "pygate-checkpoint/1"


def margins(weights: np.ndarray, bias: float, features: np.ndarray) -> np.ndarray:
    return features[:, : weights.size] @ weights + bias


def write_checkpoint(path: str | Path, weights: np.ndarray, bias: float, about: dict[str, Any]) -> None:
    write_json(path, {"format": FORMAT, **about, "bias": float(bias), "weights": [float(w) for w in weights]})


def read_checkpoint(path: str | Path) -> tuple[np.ndarray, float]:
    raw = read_json(path, "checkpoint")
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise StackError(f"checkpoint {path} is not a {FORMAT} file")
    return np.array(raw["weights"], dtype=np.float64), float(raw["bias"])
