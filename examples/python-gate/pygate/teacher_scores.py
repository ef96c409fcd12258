"""Teacher scores: `--inputs S1 S2 ... --output T`.

T holds `{id, margin}` per item of the first input, the mean of the inputs' margins; a student
reads it through its config's gate_soft_targets.
"""

from collections import defaultdict

from .cli import Parser, StackError, main
from .files import read_jsonl, write_jsonl


def run(argv: list[str]) -> int:
    parser = Parser(prog="pygate.teacher_scores")
    parser.add_argument("--inputs", nargs="+", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args(argv)
    sums: dict[str, list[float]] = defaultdict(list)
    order: list[str] = []
    for path in args.inputs:
        for row in read_jsonl(path, "scores file"):
            if "id" not in row or "margin" not in row:
                raise StackError(f"scores file {path}: every line needs id and margin")
            key = str(row["id"])
            if key not in sums:
                order.append(key)
            sums[key].append(float(row["margin"]))
    write_jsonl(args.output, ({"id": key, "margin": sum(sums[key]) / len(sums[key])} for key in order))
    print(f"teacher {args.output}: {len(order)} items from {len(args.inputs)} members", flush=True)
    return 0


if __name__ == "__main__":
    main(run)
