"""Split files: JSON `{format, seed, data_root, roles: {role: [item ids]}}` (JSON is also YAML)."""

import json
from pathlib import Path

import numpy as np

from .cli import StackError
from .data import Dataset, load_dataset
from .files import read_json, write_text

FORMAT = "pygate-split/1"
ROLES = ("development", "validation", "test", "reserve")


def take_share(ids: list[str], dataset: Dataset, fraction: float, seed: int) -> tuple[list[str], list[str]]:
    """(kept, taken): `fraction` of each class taken at random, so every role keeps the pass rate."""
    if not 0 < fraction < 1:
        raise StackError(f"a fraction must be between 0 and 1, got {fraction}")
    rng = np.random.default_rng(seed)
    targets = dataset.targets[dataset.rows(ids)]
    taken: set[str] = set()
    for label in (0, 1):
        members = [item for item, target in zip(ids, targets) if target == label]
        count = round(fraction * len(members))
        taken.update(members[i] for i in rng.permutation(len(members))[:count])
    return [item for item in ids if item not in taken], [item for item in ids if item in taken]


def write_split(path: str | Path, seed: int, data_root: str, roles: dict[str, list[str]]) -> None:
    # One role per line: small, diffable, and still one JSON document.
    lines = ",\n".join(f'  "{role}": {_ids(ids)}' for role, ids in roles.items())
    header = f'{{"format": "{FORMAT}", "seed": {seed}, "data_root": {json.dumps(data_root)},\n "roles": {{\n'
    write_text(path, header + lines + "\n }\n}\n")


def _ids(ids: list[str]) -> str:
    return json.dumps(ids)


class Split:
    def __init__(self, path: str | Path) -> None:
        raw = read_json(path, "split")
        if not isinstance(raw, dict) or raw.get("format") != FORMAT or not isinstance(raw.get("roles"), dict):
            raise StackError(f"split {path} is not a {FORMAT} file")
        self.path = str(path)
        self.seed = int(raw["seed"])
        self.data_root = str(raw["data_root"])
        self.roles: dict[str, list[str]] = raw["roles"]
        self._dataset: Dataset | None = None

    @property
    def dataset(self) -> Dataset:
        if self._dataset is None:
            self._dataset = load_dataset(self.data_root)
        return self._dataset

    def role(self, role: str) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(ids, features, targets) of one role."""
        if role not in self.roles:
            raise StackError(f"split {self.path} has no role {role!r} (it has {', '.join(self.roles)})")
        ids = self.roles[role]
        rows = self.dataset.rows(ids)
        return ids, self.dataset.features[rows], self.dataset.targets[rows]
