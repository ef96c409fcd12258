"""Evaluate an ensemble: `--manifest M --output R --role ROLE --scores-output S [--band-scores B] [--score-cache-dir D]`.

M is `{members: [{config, checkpoint}]}`; an item's margin is the mean of its members' margins,
each member scored with its own config. The report's checkpoint_sha256 is the manifest's.

A member whose config says `device: cuda` or `sim` holds its eval ballast (gpu_eval_ballast_gib)
on the GPU from when it is loaded to the end, so the ensemble holds the sum of its members'
(scoring itself is numpy: the model is tiny).
"""

import numpy as np

from .cli import Parser, StackError, main
from .compute import Gpu, SimGpu, open_gpu
from .config import EVAL_BALLAST, read_config
from .files import read_json, sha256_of
from .model import margins, read_checkpoint
from .scores import build_report, write_scored
from .split import Split


def member_list(manifest: str) -> list[dict[str, str]]:
    raw = read_json(manifest, "manifest")
    members = raw.get("members") if isinstance(raw, dict) else None
    if not isinstance(members, list) or not members:
        raise StackError(f"manifest {manifest} has no members")
    for member in members:
        if not (isinstance(member, dict) and isinstance(member.get("config"), str) and isinstance(member.get("checkpoint"), str)):
            raise StackError(f"manifest {manifest}: every member needs config and checkpoint")
    return members


def run(argv: list[str]) -> int:
    parser = Parser(prog="pygate.ensemble_evaluate")
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--role", required=True, choices=["development", "validation", "test", "reserve"])
    parser.add_argument("--scores-output", required=True)
    parser.add_argument("--band-scores")
    parser.add_argument("--score-cache-dir")
    args = parser.parse_args(argv)
    members = member_list(args.manifest)
    splits: dict[str, Split] = {}
    gpus: dict[str, Gpu | SimGpu | None] = {}
    total: np.ndarray | None = None
    ids: list[str] = []
    targets = np.zeros(0)
    for member in members:
        config = read_config(member["config"])
        split = splits.setdefault(config.split, Split(config.split))
        member_ids, features, member_targets = split.role(args.role)
        if total is not None and member_ids != ids:
            raise StackError(f"manifest {args.manifest}: members read different {args.role} items")
        ids, targets = member_ids, member_targets
        weights, bias = read_checkpoint(member["checkpoint"])
        if config["device"] not in gpus:
            gpus[config["device"]] = open_gpu(config, 0.0)
        gpu = gpus[config["device"]]
        if gpu is not None:
            gpu.hold(float(config[EVAL_BALLAST]))
            print(gpu.memory_line(f"loaded {member['checkpoint']}"), flush=True)
        margin = margins(weights, bias, features)
        total = margin if total is None else total + margin
    assert total is not None
    margin = total / len(members)
    report = build_report(args.role, args.manifest, sha256_of(args.manifest), margin, targets, args.band_scores,
                          {"members": len(members)})
    write_scored(args.scores_output, args.output, ids, margin, targets, report)
    print(f"{args.role} ensemble of {len(members)}: f2p={report['fail_to_pass_count']} "
          f"p2f={report['pass_to_fail_count']} auc={report['gate_auc']}", flush=True)
    return 0


if __name__ == "__main__":
    main(run)
