"""Split carve: `--split IN --output O --role test|reserve --test-fraction F --seed N`.

Writes O: IN with a per-class share F of development moved to ROLE.
"""

from .cli import Parser, StackError, main
from .split import Split, take_share, write_split


def run(argv: list[str]) -> int:
    parser = Parser(prog="pygate.split_carve")
    parser.add_argument("--split", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--role", required=True, choices=["test", "reserve"])
    parser.add_argument("--test-fraction", type=float, required=True)
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args(argv)
    split = Split(args.split)
    if args.role in split.roles:
        raise StackError(f"split {args.split} already has a {args.role} role")
    # A different stream per role, so the reserve carve does not repeat the test carve's draw.
    seed = args.seed * 10 + (1 if args.role == "test" else 2)
    kept, taken = take_share(split.roles["development"], split.dataset, args.test_fraction, seed)
    roles = {**split.roles, "development": kept, args.role: taken}
    write_split(args.output, split.seed, split.data_root, roles)
    print(f"split {args.output}: " + ", ".join(f"{role} {len(ids)}" for role, ids in roles.items()))
    return 0


if __name__ == "__main__":
    main(run)
