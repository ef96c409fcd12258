"""Which device this job was given: the lane sets CUDA_VISIBLE_DEVICES (empty on a CPU lane)."""

import os


def describe_device(device: str = "cpu") -> str:
    """One log line: the device this process computes on (the config's `device`, compute.py) and
    the lane's CUDA_VISIBLE_DEVICES.

    `cpu`: numpy on the CPU. `cuda`: PyTorch on `cuda:0`, which is the lane's physical GPU: CUDA
    numbers only the devices CUDA_VISIBLE_DEVICES lets it see. `sim`: numpy, its GPU memory held
    on the simulated card that CHAMPION_LOOP_SIM_GPU names (pygate/simgpu.py).
    """
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    shown = "unset" if visible is None else repr(visible)
    if device == "sim":
        return (f"device: sim (numpy, simulated card {os.environ.get('CHAMPION_LOOP_SIM_GPU', '')}); "
                f"CUDA_VISIBLE_DEVICES={shown}")
    try:
        import torch  # noqa: PLC0415 - optional, and slow to import

        cuda = bool(torch.cuda.is_available())
        torch_note = f"torch {torch.__version__}, cuda available: {cuda}"
    except ImportError:
        torch_note = "torch not installed"
    where = "cuda:0 (PyTorch)" if device == "cuda" else "cpu (numpy)"
    return f"device: {where}; CUDA_VISIBLE_DEVICES={shown}; {torch_note}"
