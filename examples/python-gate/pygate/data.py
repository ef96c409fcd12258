"""The synthetic data set: items generated from <data-root>/dataset.json, the same on every call.

Item `item-00042` has `features` standard-normal features; it passes (target 1) when a hidden
linear score plus noise is in the top `pass_rate` share. So the gate is learnable, but not
perfectly, and some features matter more than others.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .cli import StackError
from .files import read_json


@dataclass(frozen=True)
class Dataset:
    ids: list[str]
    features: np.ndarray  # items x features, float64
    targets: np.ndarray  # items, 1 = pass, 0 = fail

    def rows(self, ids: list[str]) -> np.ndarray:
        """Row indices of `ids` (item-NNNNN) in this data set."""
        try:
            index = np.array([int(item.removeprefix("item-")) for item in ids], dtype=np.int64)
        except ValueError as error:
            raise StackError(f"not an item id of this data set: {error}") from None
        if index.size and (index.min() < 0 or index.max() >= len(self.ids)):
            raise StackError(f"item ids outside the data set of {len(self.ids)} items")
        return index


def load_dataset(data_root: str | Path) -> Dataset:
    spec = read_json(Path(data_root) / "dataset.json", "data set description")
    try:
        items = int(spec["items"])
        width = int(spec["features"])
        pass_rate = float(spec.get("pass_rate", 0.7))
        noise = float(spec.get("noise", 1.0))
        seed = int(spec["seed"])
    except (KeyError, TypeError, ValueError) as error:
        raise StackError(f"{data_root}/dataset.json needs items, features and seed: {error}") from None
    rng = np.random.default_rng(seed)
    hidden = rng.normal(size=width) * np.linspace(1.5, 0.3, width)
    features = rng.normal(size=(items, width))
    score = features @ hidden + noise * rng.normal(size=items)
    targets = (score > np.quantile(score, 1 - pass_rate)).astype(np.int64)
    return Dataset([f"item-{i:05d}" for i in range(items)], features, targets)
