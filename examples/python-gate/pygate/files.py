"""Whole-or-nothing writes and file hashes."""

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .cli import StackError


def sha256_of(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_text(path: str | Path, text: str) -> None:
    """Write via a temp file and rename: a reader sees the old file, or the whole new one."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, target)


def write_json(path: str | Path, value: Any) -> None:
    write_text(path, json.dumps(value, indent=1, allow_nan=False) + "\n")


def write_jsonl(path: str | Path, rows: Iterable[dict[str, Any]]) -> None:
    write_text(path, "".join(json.dumps(row, allow_nan=False) + "\n" for row in rows))


def read_json(path: str | Path, what: str) -> Any:
    try:
        with open(path, encoding="utf-8") as stream:
            return json.load(stream)
    except FileNotFoundError:
        raise StackError(f"{what} {path} does not exist") from None
    except (OSError, ValueError) as error:
        raise StackError(f"{what} {path} is unreadable: {error}") from None


def read_jsonl(path: str | Path, what: str) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as stream:
            return [json.loads(line) for line in stream if line.strip()]
    except FileNotFoundError:
        raise StackError(f"{what} {path} does not exist") from None
    except (OSError, ValueError) as error:
        raise StackError(f"{what} {path} is unreadable: {error}") from None
