"""Batch order from a separate process, as a PyTorch DataLoader's workers would give it.

It makes a trainer what a real one is, a process with children: stopping a job must stop them
too. The trainer stops it on SIGTERM/SIGINT; the loop kills the job's whole process group
anyway; and a loader whose trainer is gone (SIGKILL) notices within a second and exits.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterator
from multiprocessing.connection import Connection

import numpy as np

from .cli import StackError


def _orders(seed: int, items: int, epochs: int, requests: Connection, replies: Connection, parent: int) -> None:
    # Forked with the trainer's handlers: a loader just dies of SIGTERM/SIGINT.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        # One order per request, so nothing is lost in a buffer and the trainer's death is noticed.
        while not requests.poll(1):
            if os.getppid() != parent:
                return
        requests.recv()
        replies.send(rng.permutation(items).tolist())


class BatchOrder:
    """Per epoch, the order to visit the training items in; from a loader process, or in-process."""

    def __init__(self, seed: int, items: int, epochs: int, workers: int) -> None:
        self._inline: Iterator[list[int]] | None = None
        self._process: multiprocessing.process.BaseProcess | None = None
        self._left = epochs
        if workers <= 0:
            rng = np.random.default_rng(seed)
            self._inline = (rng.permutation(items).tolist() for _ in range(epochs))
            return
        context = multiprocessing.get_context("fork")
        self._requests, their_requests = context.Pipe()
        their_replies, self._replies = context.Pipe()
        self._process = context.Process(
            target=_orders,
            args=(seed, items, epochs, their_requests, their_replies, os.getpid()),
            daemon=True,
            name="pygate-loader",
        )
        self._process.start()
        self._ask()  # the first epoch's order is made while the trainer sets up

    def _ask(self) -> None:
        if self._left > 0:
            self._requests.send(True)

    def next_epoch(self) -> list[int]:
        self._left -= 1
        if self._inline is not None:
            return next(self._inline)
        if not self._replies.poll(60):
            raise StackError("the loader process gave no batch order within 60 s")
        order: list[int] = self._replies.recv()
        self._ask()
        return order

    def stop(self) -> None:
        if self._process is not None and self._process.is_alive():
            self._process.terminate()
            self._process.join(timeout=5)
