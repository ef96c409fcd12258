"""Evaluate checkpoints on one role of the config's split.

Single: `--config F --checkpoint C --output R --role ROLE --scores-output S [--band-scores B] [--score-cache-dir D]`
Batch:  `--config F --role ROLE --jobs J [--score-cache-dir D]`, J a JSON list of
        {checkpoint, output, scores_output, band_scores?, config?, config_sha256?}; a job's
        config replaces --config, and one whose sha256 differs from config_sha256 is refused.

Per checkpoint: the scores file, then the report. A batch goes on past a failed job and exits 1.
"""

import sys
from typing import Any

from .cli import Parser, StackError, main
from .compute import Gpu, SimGpu, open_gpu
from .config import EVAL_BALLAST, JobConfig, read_config
from .files import read_json, sha256_of
from .model import margins, read_checkpoint
from .scores import build_report, write_scored
from .split import Split


class Evaluator:
    """Splits read once per process: a batch's jobs mostly share one."""

    def __init__(self) -> None:
        self._splits: dict[str, Split] = {}
        self._gpus: dict[str, Gpu | SimGpu | None] = {}

    def _gpu(self, config: JobConfig) -> "Gpu | SimGpu | None":
        """The GPU a `device: cuda` (or `sim`) config scores on, opened once per device setting,
        holding the largest eval ballast (gpu_eval_ballast_gib) of the configs it has scored."""
        if config["device"] not in self._gpus:
            self._gpus[config["device"]] = open_gpu(config, config[EVAL_BALLAST])
        gpu = self._gpus[config["device"]]
        if gpu is not None:
            gpu.hold_at_least(float(config[EVAL_BALLAST]))
        return gpu

    def evaluate(self, config_path: str, checkpoint: str, output: str, role: str, scores_output: str,
                 band_scores: str | None, config_sha256: str | None = None) -> None:
        config = read_config(config_path)
        if config_sha256 is not None and config.sha256 != config_sha256:
            raise StackError(f"config {config_path} has sha256 {config.sha256}, the job says {config_sha256}")
        split = self._splits.setdefault(config.split, Split(config.split))
        ids, features, targets = split.role(role)
        weights, bias = read_checkpoint(checkpoint)
        gpu = self._gpu(config)
        if isinstance(gpu, Gpu):
            margin = (gpu.tensor(features[:, : weights.size]) @ gpu.tensor(weights) + bias).cpu().numpy()
        else:
            margin = margins(weights, bias, features)
        if gpu is not None:
            print(gpu.memory_line(f"scored {checkpoint}"), flush=True)
        report = build_report(role, checkpoint, sha256_of(checkpoint), margin, targets, band_scores)
        write_scored(scores_output, output, ids, margin, targets, report)
        print(f"{role} {checkpoint}: f2p={report['fail_to_pass_count']} p2f={report['pass_to_fail_count']} "
              f"auc={report['gate_auc']}", flush=True)


def run_jobs(evaluator: Evaluator, config: str, role: str, jobs_path: str) -> int:
    jobs = read_json(jobs_path, "jobs file")
    if not isinstance(jobs, list):
        raise StackError(f"jobs file {jobs_path} is not a JSON list")
    failed = 0
    for index, job in enumerate(jobs):
        try:
            if not isinstance(job, dict):
                raise StackError(f"job {index} of {jobs_path} is not an object")
            evaluator.evaluate(job.get("config", config), _need(job, "checkpoint"), _need(job, "output"), role,
                               _need(job, "scores_output"), job.get("band_scores"), job.get("config_sha256"))
        except StackError as error:
            # The loop records this job failed and the others by their reports.
            print(f"job {index}: {error}", file=sys.stderr, flush=True)
            failed += 1
    return 1 if failed else 0


def _need(job: dict[str, Any], key: str) -> str:
    if not isinstance(job.get(key), str):
        raise StackError(f"a job has no {key}")
    return job[key]


def run(argv: list[str]) -> int:
    parser = Parser(prog="pygate.evaluate")
    parser.add_argument("--config", required=True)
    parser.add_argument("--role", required=True, choices=["development", "validation", "test", "reserve"])
    parser.add_argument("--jobs")
    parser.add_argument("--checkpoint")
    parser.add_argument("--output")
    parser.add_argument("--scores-output")
    parser.add_argument("--band-scores")
    parser.add_argument("--score-cache-dir")  # accepted; this stack scores fast enough without a cache
    args = parser.parse_args(argv)
    evaluator = Evaluator()
    if args.jobs is not None:
        if args.checkpoint or args.output or args.scores_output or args.band_scores:
            raise StackError("pygate.evaluate: --jobs goes without --checkpoint, --output, --scores-output, --band-scores")
        return run_jobs(evaluator, args.config, args.role, args.jobs)
    if not (args.checkpoint and args.output and args.scores_output):
        raise StackError("pygate.evaluate: give --checkpoint, --output and --scores-output, or --jobs")
    evaluator.evaluate(args.config, args.checkpoint, args.output, args.role, args.scores_output, args.band_scores)
    return 0


if __name__ == "__main__":
    main(run)
