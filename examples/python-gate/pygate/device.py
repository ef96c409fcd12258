"""Which device this job was given: the lane sets CUDA_VISIBLE_DEVICES (empty on a CPU lane)."""

import os


def describe_device() -> str:
    """One log line: the lane's CUDA_VISIBLE_DEVICES and what this process will compute on.

    The model is small enough that numpy on the CPU is the right place for it. A PyTorch trainer
    would put its model on `cuda:0` here, which is the lane's physical GPU: CUDA numbers only the
    devices CUDA_VISIBLE_DEVICES lets it see.
    """
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    shown = "unset" if visible is None else repr(visible)
    try:
        import torch  # noqa: PLC0415 - optional, and slow to import

        cuda = bool(torch.cuda.is_available())
        torch_note = f"torch {torch.__version__}, cuda available: {cuda}"
    except ImportError:
        torch_note = "torch not installed"
    return f"device: cpu (numpy); CUDA_VISIBLE_DEVICES={shown}; {torch_note}"
