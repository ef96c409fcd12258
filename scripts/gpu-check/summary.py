"""summary.json of a GPU check: every sample (time, the guard's two query outputs), the steps' pids,
exit codes and PyTorch `gpu {...}` lines. The test reads the raw files too; this is their index."""

import json
import sys
from pathlib import Path

out, device, ballast = Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])


def text(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


samples = []
for time_file in sorted((out / "samples").glob("*.time"), key=lambda path: float(path.read_text())):
    name = time_file.name.removesuffix(".time")
    samples.append({
        "name": name,
        "time": float(time_file.read_text()),
        "query_gpu": text(out / "samples" / f"{name}.query-gpu.csv"),
        "compute_apps": text(out / "samples" / f"{name}.compute-apps.csv"),
    })
steps = {}
for step in ("train", "evaluate"):
    log = text(out / f"{step}.log")
    steps[step] = {
        "pid": int(text(out / f"{step}.pid") or 0) or None,
        "exit": int(text(out / f"{step}.exit") or -1),
        "gpu_lines": [json.loads(line[4:]) for line in (log or "").splitlines() if line.startswith("gpu {")],
    }
print(json.dumps({"device": device, "ballast_gib": ballast, "steps": steps, "samples": samples}, indent=1))
