"""Counts, F1, AUC, the gate curve and the reject band of scored items (margin > 0 = pass)."""

from typing import Any

import numpy as np

CURVE_THRESHOLDS = (-1.0, -0.5, 0.0, 0.5, 1.0)
REJECT_COST = 0.3  # a rejected item costs this much, an error 1
MAX_REJECTED = 0.25  # the band may reject at most this share of the band scores


def counts(margin: np.ndarray, target: np.ndarray, threshold: float = 0.0) -> dict[str, int]:
    passed = margin > threshold
    pass_count = int((target == 1).sum())
    pass_correct = int((passed & (target == 1)).sum())
    return {
        "pass_count": pass_count,
        "pass_correct_count": pass_correct,
        "fail_count": int((target != 1).sum()),
        "fail_to_pass_count": int((passed & (target != 1)).sum()),
        "pass_to_fail_count": pass_count - pass_correct,
    }


def f1_scores(c: dict[str, int]) -> dict[str, float]:
    def f1(hits: int, false_alarms: int, misses: int) -> float:
        denominator = 2 * hits + false_alarms + misses
        return 0.0 if denominator == 0 else 2 * hits / denominator

    passes = f1(c["pass_correct_count"], c["fail_to_pass_count"], c["pass_to_fail_count"])
    fails = f1(c["fail_count"] - c["fail_to_pass_count"], c["pass_to_fail_count"], c["fail_to_pass_count"])
    return {"macro_f1": round((passes + fails) / 2, 6), "s_f1": round(fails, 6)}


def gate_auc(margin: np.ndarray, target: np.ndarray) -> float | None:
    """ROC AUC of margins against targets (ties count half); None when a class is empty."""
    positives = int((target == 1).sum())
    negatives = target.size - positives
    if positives == 0 or negatives == 0:
        return None
    order = np.argsort(margin, kind="stable")
    ranks = np.empty(margin.size)
    sorted_margin = margin[order]
    start = 0
    while start < margin.size:
        end = start
        while end < margin.size and sorted_margin[end] == sorted_margin[start]:
            end += 1
        ranks[order[start:end]] = (start + 1 + end) / 2
        start = end
    rank_sum = ranks[target == 1].sum()
    return round(float((rank_sum - positives * (positives + 1) / 2) / (positives * negatives)), 6)


def gate_curve(margin: np.ndarray, target: np.ndarray) -> list[dict[str, float | int]]:
    rows = []
    for threshold in CURVE_THRESHOLDS:
        c = counts(margin, target, threshold)
        rows.append({"threshold": threshold, "fail_to_pass": c["fail_to_pass_count"], "pass_to_fail": c["pass_to_fail_count"]})
    return rows


def decide(margin: np.ndarray, target: np.ndarray, low: float, high: float) -> dict[str, Any]:
    """Counts after the band: margins in [low, high] are rejected, neither passed nor failed."""
    rejected = (margin >= low) & (margin <= high)
    pass_count = int((target == 1).sum())
    fail_count = target.size - pass_count
    pass_to_fail = int(((target == 1) & (margin < low)).sum())
    fail_to_pass = int(((target != 1) & (margin > high)).sum())
    return {
        "fail_to_pass_count": fail_to_pass,
        "fail_count": fail_count,
        "fail_to_pass_rate": 0 if fail_count == 0 else round(fail_to_pass / fail_count, 6),
        "pass_to_fail_count": pass_to_fail,
        "pass_correct_count": pass_count - pass_to_fail,
        "pass_count": pass_count,
        "pass_to_fail_rate": 0 if pass_count == 0 else round(pass_to_fail / pass_count, 6),
        "rejected_total": int(rejected.sum()),
    }


def choose_band(margin: np.ndarray, target: np.ndarray) -> dict[str, Any]:
    """The band [low, high] (steps of 0.1 up to 1 either side of 0) that costs least on these scores."""
    best = (float("inf"), 0, 0.0, 0.0)
    for down in range(11):
        for up in range(11):
            low, high = -down / 10, up / 10
            d = decide(margin, target, low, high)
            if d["rejected_total"] > MAX_REJECTED * target.size:
                continue
            cost = d["fail_to_pass_count"] + d["pass_to_fail_count"] + REJECT_COST * d["rejected_total"]
            if (cost, d["rejected_total"]) < best[:2]:
                best = (cost, d["rejected_total"], low, high)
    return {"low": best[2], "high": best[3], "chosen_on": "validation"}


def pareto_epochs(epochs: list[dict[str, Any]]) -> list[int]:
    """Epochs no other epoch dominates on (fail_to_pass, pass_to_fail)."""

    def dominates(a: dict[str, Any], b: dict[str, Any]) -> bool:
        fa, pa, fb, pb = a["fail_to_pass_count"], a["pass_to_fail_count"], b["fail_to_pass_count"], b["pass_to_fail_count"]
        return fa <= fb and pa <= pb and (fa < fb or pa < pb)

    return [e["epoch"] for e in epochs if not any(dominates(o, e) for o in epochs)]
