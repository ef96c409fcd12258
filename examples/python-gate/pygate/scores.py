"""Scores files (JSON Lines `{id, target, margin}`) and evaluator reports."""

from pathlib import Path
from typing import Any

import numpy as np

from .cli import StackError
from .files import read_jsonl, write_json, write_jsonl
from .metrics import choose_band, counts, decide, f1_scores, gate_auc, gate_curve


def score_rows(ids: list[str], margin: np.ndarray, target: np.ndarray) -> list[dict[str, Any]]:
    return [{"id": i, "target": int(t), "margin": float(m)} for i, t, m in zip(ids, target, margin)]


def read_scores(path: str | Path) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(ids, margins, targets) of a scores file."""
    rows = read_jsonl(path, "scores file")
    try:
        return (
            [str(row.get("id", index)) for index, row in enumerate(rows)],
            np.array([float(row["margin"]) for row in rows]),
            np.array([int(row["target"]) for row in rows]),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise StackError(f"scores file {path} needs margin and target on every line: {error}") from None


def build_report(role: str, source: str, sha256: str, margin: np.ndarray, target: np.ndarray,
                 band_scores: str | None, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    c = counts(margin, target)
    report: dict[str, Any] = {
        "role": role,
        "checkpoint": source,
        "checkpoint_sha256": sha256,
        **(extra or {}),
        "items": int(target.size),
        **c,
        **f1_scores(c),
        "gate_auc": gate_auc(margin, target),
        "gate_curve": gate_curve(margin, target),
    }
    if band_scores is not None:
        _, band_margin, band_target = read_scores(band_scores)
        band = choose_band(band_margin, band_target)
        report["reject_band"] = band
        report["decided"] = decide(margin, target, band["low"], band["high"])
    return report


def write_scored(scores_output: str, report_output: str, ids: list[str], margin: np.ndarray,
                 target: np.ndarray, report: dict[str, Any]) -> None:
    """The scores first, the report last: the loop takes a report that exists as finished."""
    write_jsonl(scores_output, score_rows(ids, margin, target))
    write_json(report_output, report)
