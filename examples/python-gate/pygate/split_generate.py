"""Split generate: `--data-root D --output O --seed N --validation-fraction F`.

Writes O with roles development and validation (a per-class share F of all items).
"""

import os

from .cli import Parser, main
from .data import load_dataset
from .split import take_share, write_split


def run(argv: list[str]) -> int:
    parser = Parser(prog="pygate.split_generate")
    parser.add_argument("--data-root", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--validation-fraction", type=float, required=True)
    args = parser.parse_args(argv)
    dataset = load_dataset(args.data_root)
    development, validation = take_share(dataset.ids, dataset, args.validation_fraction, args.seed)
    roles = {"development": development, "validation": validation}
    write_split(args.output, args.seed, os.path.abspath(args.data_root), roles)
    print(f"split {args.output}: " + ", ".join(f"{role} {len(ids)}" for role, ids in roles.items()))
    return 0


if __name__ == "__main__":
    main(run)
