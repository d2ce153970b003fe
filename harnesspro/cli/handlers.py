"""What every command module gives the `harnesspro` parser: handlers by command name, each
taking the parsed arguments and a console and returning the exit code."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from rich.console import Console

Handler = Callable[[argparse.Namespace, Console], int]
