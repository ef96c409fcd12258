"""What this box has for the GPU check, as one JSON line: Python, PyTorch and CUDA as PyTorch sees it."""

import json
import os
import sys

info: dict = {"python": sys.version.split()[0], "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}
for module in ("torch", "numpy", "yaml"):
    try:
        info[module] = getattr(__import__(module), "__version__", "?")
    except ImportError:
        info[module] = None
try:
    import torch

    info["cuda"] = bool(torch.cuda.is_available())
    info["devices"] = torch.cuda.device_count()
    if info["cuda"]:
        index = int(sys.argv[1]) if len(sys.argv) > 1 and os.environ.get("CUDA_VISIBLE_DEVICES") is None else 0
        free, total = torch.cuda.mem_get_info(index)
        info.update(name=torch.cuda.get_device_name(index), free_mib=free / 2**20, total_mib=total / 2**20)
except ImportError:
    info["cuda"] = False
print(json.dumps(info))
