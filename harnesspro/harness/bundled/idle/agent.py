"""A harness that does nothing: it submits the workspace as it found it. Every official
verifier must fail it (the adversary sweep's floor beside the attacking harnesses)."""

from __future__ import annotations

import json
import os
from pathlib import Path


def main() -> None:
    out = Path(os.environ["HARNESSPRO_OUT"])
    (out / "trajectory.jsonl").write_text(
        json.dumps({"type": "submit", "step": 0, "ts": 0.0}) + "\n"
    )
    (out / "result.json").write_text(json.dumps({"status": "submitted"}))


if __name__ == "__main__":
    main()
