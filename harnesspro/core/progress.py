"""How a long step reports its progress without writing to a console: the caller that owns
the console (the CLI) hands one in; below it, a step only calls `advance`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol


class Progress(Protocol):
    def track(self, label: str, total: int) -> AbstractContextManager[Callable[[], None]]:
        """Within it, call the function it gives once per unit done (of `total`)."""
        ...


class Silent:
    """No progress shown (tests, the benchmark, library use)."""

    @contextmanager
    def track(self, label: str, total: int) -> Iterator[Callable[[], None]]:
        yield lambda: None


SILENT = Silent()
