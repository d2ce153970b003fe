"""The terminal's progress bar for rollout batches (rich, transient)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import Progress


class ConsoleProgress:
    def __init__(self, console: Console) -> None:
        self.console = console

    @contextmanager
    def track(self, label: str, total: int) -> Iterator[Callable[[], None]]:
        with Progress(console=self.console, transient=True) as bar:
            task = bar.add_task(label, total=total)
            yield lambda: bar.advance(task)
