"""Train: `--config F --output-root RUNS --run-id ID [--score-cache-dir D] [--resume-from CHECKPOINT]`.

Writes RUNS/ID/: per epoch checkpoint-NNNN.json, validation-epoch-NNNN.scores.jsonl and
validation-epoch-NNNN.json; then pareto.json and selection.json. Exits 1 after printing
`no eligible checkpoint` when no epoch reaches min_validation_auc.

With `--resume-from RUNS/ID/checkpoint-NNNN.json` (loop.yaml `resume_flag`, given when an
earlier attempt was lost) it keeps epochs 1..NNNN as that attempt left them and trains the rest
from that checkpoint's weights, with the batch orders those epochs would have had: the run ends
with the same model as one that was never lost.
"""

import math
import os
import re
import time
from pathlib import Path

import numpy as np

from .cli import Parser, StackError, main, on_signal
from .compute import Gpu, open_gpu
from .config import JobConfig, read_config
from .device import describe_device
from .files import read_json, read_jsonl, sha256_of, write_json, write_jsonl
from .loader import BatchOrder
from .metrics import counts, gate_auc, pareto_epochs
from .model import margins, read_checkpoint, write_checkpoint
from .scores import score_rows
from .split import Split

NO_CHECKPOINT = "no eligible checkpoint"


def soft_targets(config: JobConfig, ids: list[str], targets: np.ndarray) -> tuple[np.ndarray, str | None]:
    """A student's targets: (1 - w) * label + w * sigmoid(teacher margin); a teacher must exist."""
    teacher = config["gate_soft_targets"]
    if teacher is None:
        return targets.astype(np.float64), None
    if not Path(teacher).is_file():
        raise StackError(f"gate_soft_targets {teacher} does not exist: build the teacher first")
    by_id = {str(row["id"]): float(row["margin"]) for row in read_jsonl(teacher, "teacher file")}
    weight = float(config["soft_target_weight"])
    teacher_p = np.array([1 / (1 + math.exp(-by_id[i])) if i in by_id else t for i, t in zip(ids, targets)])
    return (1 - weight) * targets + weight * teacher_p, sha256_of(teacher)


def run(argv: list[str]) -> int:
    parser = Parser(prog="pygate.train")
    parser.add_argument("--config", required=True)
    parser.add_argument("--output-root", required=True)
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--score-cache-dir")  # accepted, as the seed's trainer does; nothing to cache here
    parser.add_argument("--resume-from")
    args = parser.parse_args(argv)
    config = read_config(args.config)
    split = Split(config.split)
    ids, features, labels = split.role("development")
    val_ids, val_features, val_labels = split.role("validation")
    targets, teacher_sha256 = soft_targets(config, ids, labels)
    width = int(config["features"])
    if not 1 <= width <= features.shape[1]:
        raise StackError(f"config {args.config}: features must be 1..{features.shape[1]}, got {width}")
    epochs, batch = int(config["epochs"]), int(config["batch_size"])
    rate, l2 = float(config["learning_rate"]), float(config["l2"])
    fail_weight = float(config["class_weight_fail"])
    seed = int(config["seed"])

    run_dir = Path(args.output_root) / args.run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    print(describe_device(config["device"]), flush=True)
    print(f"run {args.run_id}: {len(ids)} development, {len(val_ids)} validation items, "
          f"{width} features, {epochs} epochs, seed {seed}", flush=True)

    rng = np.random.default_rng(seed)
    weights = rng.normal(scale=0.01, size=width)
    bias = 0.0
    x = features[:, :width]
    item_weight = np.where(labels == 1, 1.0, fail_weight)
    gpu = open_gpu(config)
    # PyTorch computes on cuda; on the simulated card (sim) numpy computes, as on cpu.
    torch_gpu = gpu if isinstance(gpu, Gpu) else None
    on_gpu = None if torch_gpu is None else (torch_gpu.tensor(x), torch_gpu.tensor(targets), torch_gpu.tensor(item_weight))
    if gpu is not None:
        print(gpu.memory_line("start"), flush=True)
    order = BatchOrder(seed, len(ids), epochs, int(config["loader_workers"]))
    on_signal(order.stop)
    about = {"run_id": args.run_id, "seed": seed, "config_sha256": config.sha256, "teacher_sha256": teacher_sha256,
             "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}
    history: list[dict] = []
    if args.resume_from is not None:
        weights, bias, history = resumed(run_dir, args.resume_from, width)
        print(f"resuming after epoch {len(history)} from {args.resume_from}", flush=True)
    try:
        # The batch orders of the epochs kept, drawn and dropped: the rest get the orders they would have had.
        for _ in history:
            order.next_epoch()
        for epoch in range(len(history) + 1, epochs + 1):
            time.sleep(float(config["epoch_sleep_s"]))
            visit = np.array(order.next_epoch())
            if torch_gpu is not None and on_gpu is not None:
                weights, bias = torch_gpu.epoch(on_gpu, visit, batch, weights, bias, rate, l2)
            else:
                for start in range(0, visit.size, batch):
                    rows = visit[start : start + batch]
                    p = 1 / (1 + np.exp(-(x[rows] @ weights + bias)))
                    error = (p - targets[rows]) * item_weight[rows]
                    weights -= rate * (x[rows].T @ error / rows.size + l2 * weights)
                    bias -= rate * float(error.mean())
            if gpu is not None:
                print(gpu.memory_line(f"epoch {epoch}"), flush=True)
            history.append(finish_epoch(run_dir, epoch, weights, bias, about, val_ids, val_features, val_labels))
    finally:
        order.stop()

    minimum = float(config["min_validation_auc"])
    eligible = [e for e in history if e["gate_auc"] is not None and e["gate_auc"] >= minimum]
    if not eligible:
        print(NO_CHECKPOINT, flush=True)
        return 1
    front = pareto_epochs(eligible)
    best = min(eligible, key=lambda e: (e["fail_to_pass_count"] + e["pass_to_fail_count"], e["fail_to_pass_count"], e["epoch"]))
    write_json(run_dir / "pareto.json", {"checkpoints": [{"checkpoint": checkpoint_name(e)} for e in front]})
    write_json(run_dir / "selection.json", {"checkpoint": checkpoint_name(best), "epoch": best["epoch"],
                                            "false_negatives": best["fail_to_pass_count"]})
    print(f"selected {checkpoint_name(best)}; front {', '.join(checkpoint_name(e) for e in front)}", flush=True)
    return 0


def resumed(run_dir: Path, checkpoint: str, width: int) -> tuple[np.ndarray, float, list[dict]]:
    """The weights of the checkpoint to resume from and the validation metrics of its epoch and every earlier one."""
    match = re.fullmatch(r"checkpoint-(\d+)\.json", Path(checkpoint).name)
    if match is None or Path(checkpoint).parent.resolve() != run_dir.resolve():
        raise StackError(f"--resume-from {checkpoint}: not a checkpoint-NNNN.json of {run_dir}")
    weights, bias = read_checkpoint(checkpoint)
    if weights.size != width:
        raise StackError(f"--resume-from {checkpoint}: {weights.size} weights, the config has {width} features")
    last = int(match.group(1))
    history = [read_json(run_dir / f"validation-epoch-{epoch:04d}.json", "validation metrics") for epoch in range(1, last + 1)]
    return weights, bias, history


def checkpoint_name(epoch: int | dict) -> str:
    number = epoch["epoch"] if isinstance(epoch, dict) else epoch
    return f"checkpoint-{number:04d}.json"


def finish_epoch(run_dir: Path, epoch: int, weights: np.ndarray, bias: float, about: dict,
                 val_ids: list[str], val_features: np.ndarray, val_labels: np.ndarray) -> dict:
    """The epoch's checkpoint, then its validation scores and metrics (counted by the loop as epochs_run)."""
    write_checkpoint(run_dir / checkpoint_name(epoch), weights, bias, {**about, "epoch": epoch})
    margin = margins(weights, bias, val_features)
    write_jsonl(run_dir / f"validation-epoch-{epoch:04d}.scores.jsonl", score_rows(val_ids, margin, val_labels))
    metrics = {"epoch": epoch, **counts(margin, val_labels), "gate_auc": gate_auc(margin, val_labels)}
    write_json(run_dir / f"validation-epoch-{epoch:04d}.json", metrics)
    print(f"epoch {epoch} val f2p={metrics['fail_to_pass_count']} p2f={metrics['pass_to_fail_count']} "
          f"auc={metrics['gate_auc']}", flush=True)
    return metrics


if __name__ == "__main__":
    main(run)
