"""Package a champion: `(--checkpoint C --config F | --manifest M) --test-eval R --generation G --state-dir D`.

Writes D/packages/g{GGG}.{source}.{stem}.{sha12}/: model.json (every member's weights and the
reject band), config.yaml or manifest.json + member-NN.yaml, test-eval.json and provenance.json.
Prints that path.
"""

import shutil
from datetime import datetime, timezone
from pathlib import Path

from .cli import Parser, StackError, main
from .ensemble_evaluate import member_list
from .files import read_json, sha256_of, write_json
from .model import read_checkpoint


def run(argv: list[str]) -> int:
    parser = Parser(prog="pygate.package")
    parser.add_argument("--checkpoint")
    parser.add_argument("--config")
    parser.add_argument("--manifest")
    parser.add_argument("--test-eval", required=True)
    parser.add_argument("--generation", type=int, required=True)
    parser.add_argument("--state-dir", required=True)
    args = parser.parse_args(argv)
    if args.manifest is not None:
        if args.checkpoint or args.config:
            raise StackError("pygate.package: --manifest goes without --checkpoint and --config")
        members = member_list(args.manifest)
        source, stem, sha = "manifest", Path(args.manifest).stem, sha256_of(args.manifest)
        folder_name = Path(args.manifest).parent.name
    elif args.checkpoint and args.config:
        members = [{"config": args.config, "checkpoint": args.checkpoint}]
        source, stem, sha = "checkpoint", Path(args.checkpoint).stem, sha256_of(args.checkpoint)
        folder_name = Path(args.checkpoint).parent.name
    else:
        raise StackError("pygate.package: give --checkpoint and --config, or --manifest")
    report = read_json(args.test_eval, "test report")
    target = Path(args.state_dir) / "packages" / f"g{args.generation:03d}.{folder_name}.{stem}.{sha[:12]}"
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    models = []
    for index, member in enumerate(members):
        weights, bias = read_checkpoint(member["checkpoint"])
        models.append({"bias": bias, "weights": weights.tolist()})
        name = "config.yaml" if source == "checkpoint" else f"member-{index:02d}.yaml"
        shutil.copyfile(member["config"], partial / name)
    if source == "manifest":
        shutil.copyfile(args.manifest, partial / "manifest.json")
    write_json(partial / "model.json", {"members": models, "reject_band": report.get("reject_band")})
    shutil.copyfile(args.test_eval, partial / "test-eval.json")
    write_json(partial / "provenance.json", {
        "generation": args.generation,
        "source": source,
        "path": args.manifest or args.checkpoint,
        "sha256": sha,
        "test_eval_sha256": sha256_of(args.test_eval),
        "test": {key: report.get(key) for key in ("fail_to_pass_count", "pass_to_fail_count", "gate_auc")},
        "packaged": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    })
    if target.exists():
        shutil.rmtree(target)
    partial.rename(target)
    print(target, flush=True)
    return 0


if __name__ == "__main__":
    main(run)
