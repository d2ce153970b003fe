"""The search-cost account: improver calls (analyzer, planner, editor, synthesizer) through a
gateway of their own in the driver, metered apart from the harness being evaluated.

Every call is written to the ledger's `search_calls` table with its role, and to the run's
`search/epoch-N/` folder: `gateway.jsonl` (the gateway's own usage log) and `calls.jsonl`
(what each role asked and was answered, for audit). `budget.max_improver_dollars` caps the
account over the whole run: once spent, calls raise `SearchUnavailable` and the improver
falls back to the catalog.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harnesspro.core.config import RunConfig
from harnesspro.core.config_base import ConfigError
from harnesspro.core.ledger import Ledger
from harnesspro.core.model_config import ImproverConfig, Price
from harnesspro.core.registry import upstream_class
from harnesspro.core.retry import RetryPolicy
from harnesspro.core.rollout_budget import RolloutBudget
from harnesspro.execution.gateway.prices import lookup_price
from harnesspro.execution.gateway.server import Gateway
from harnesspro.execution.gateway.upstream import ReplayUpstream, Upstream
from harnesspro.improvers.formats import FORMATS, PROBE_SCHEMA, response_format

ROLES = ("analyzer", "planner", "editor", "synthesizer")


class SearchUnavailable(Exception):
    """An improver call could not be made or failed; the message is the one-line reason,
    `status` the upstream's HTTP status when it answered with an error."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def improver_price(config: RunConfig) -> Price | None:
    """The improver model's price; None (unknown) for unpriced models that are allowed and for
    the offline stand-ins (scripted, replay) when no price is configured."""
    improver = config.evolution.improver_model
    try:
        return lookup_price(improver.name, config.prices)
    except ConfigError:
        if improver.allow_unpriced or improver.upstream not in ("openai", "llama-cpp"):
            return None
        raise ConfigError(
            f"evolution.improver_model: model '{improver.name}' has no known price; add it "
            f"under `prices.{improver.name}` or set evolution.improver_model.allow_unpriced."
        ) from None


def make_improver_upstream(improver: ImproverConfig, local_url: str | None = None) -> Upstream:
    """The upstream the improver config names; provider keys stay in this process.
    `local_url` is the run's own llama.cpp server (upstream llama-cpp)."""
    if improver.upstream == "replay":
        if improver.replay_log is None or not improver.replay_log.is_file():
            raise ConfigError(
                f"evolution.improver_model.replay_log: {improver.replay_log} is not a file; "
                "give the JSONL of recorded replies."
            )
        return ReplayUpstream.from_log(improver.replay_log)
    if improver.upstream == "llama-cpp":
        if local_url is None:
            raise ConfigError(
                "evolution.improver_model.upstream llama-cpp needs the run's own llama.cpp "
                "server, which this command does not start; use openai with a base_url."
            )
        local: Upstream = upstream_class("llama-cpp")(local_url, timeout_s=improver.timeout_s)
        return local
    name = "openai" if improver.upstream == "openai" else "scripted-improver"
    cls = upstream_class(name)
    if name == "openai":
        key = os.environ.get(improver.api_key_env or "", "")
        upstream: Upstream = cls(improver.base_url, key, improver.timeout_s)
    else:
        upstream = cls()
    return upstream


class SearchAccount:
    """One epoch's improver calls: a gateway on its own socket, a token per role."""

    def __init__(
        self,
        upstream: Upstream,
        improver: ImproverConfig,
        price: Price | None,
        ledger: Ledger,
        epoch: int,
        folder: Path,
        cap_dollars: float | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.improver, self.ledger, self.epoch, self.folder = improver, ledger, epoch, folder
        self.cap = cap_dollars
        # A short socket path: Unix socket paths are limited to ~100 bytes.
        self.socket_dir = Path(tempfile.mkdtemp(prefix="hp-search-"))
        self.gateway = Gateway(
            self.socket_dir / "gw.sock", upstream, improver.name, price, retry=retry
        )
        self.tokens = {role: self._token(role) for role in ROLES}
        self._logged = 0
        self._format: str | None = None
        self._refused: set[str] = set()  # roles whose reply schema the upstream refused

    def _token(self, role: str) -> str:
        token = f"{role[:4]}-{secrets.token_hex(16)}"
        self.gateway.register(token, f"search:{self.epoch}:{role}")
        return token

    def __enter__(self) -> SearchAccount:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.gateway.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.gateway.__exit__(*exc)
        shutil.rmtree(self.socket_dir, ignore_errors=True)

    # -- money ------------------------------------------------------------------------------
    def spent(self) -> float:
        """Dollars of every improver call of the run so far (unknown costs count as 0)."""
        calls = self.ledger.search_calls()
        return float(calls["cost"].fillna(0).sum()) if len(calls) else 0.0

    def remaining(self) -> float | None:
        return None if self.cap is None else self.cap - self.spent()

    def check_budget(self) -> None:
        left = self.remaining()
        if left is not None and left <= 0:
            raise SearchUnavailable(
                f"the search budget (budget.max_improver_dollars = {self.cap}) is spent"
            )

    # -- calls ------------------------------------------------------------------------------
    def chat(
        self,
        role: str,
        messages: list[dict[str, Any]],
        attempt: int = 1,
        extra: dict[str, Any] | None = None,
    ) -> tuple[str, int]:
        """One metered call from the driver; returns (the reply's text, its ledger row id).
        `extra` adds request fields (a response format) to the configured ones."""
        self.check_budget()
        body = {"model": self.improver.name, "messages": messages, **self.improver.request}
        body.update(extra or {})
        start = len(self.gateway.calls)
        try:
            status, payload = self.gateway.chat(self.tokens[role], body)
        except Exception as exc:  # a pluggable upstream may fail any way: never crash the run
            self.record(role, start, attempt)
            raise SearchUnavailable(f"the {role} call failed: {exc.__class__.__name__}") from exc
        rows = self.record(role, start, attempt)
        if status != 200:
            error = payload.get("error", {})
            message = error.get("message") if isinstance(error, dict) else error
            text = f"the {role} call failed: HTTP {status}: {message}"[:300]
            raise SearchUnavailable(text, status)
        try:
            content = payload["choices"][0]["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise SearchUnavailable(f"the {role} call returned no message") from None
        self.transcript(role, attempt, messages, content)
        return str(content), rows[-1]

    def structured(self, role: str = "") -> str:
        """The response format `role`'s requests ask for ('' = none): `response_format` of
        the config, `auto` probing an openai upstream once per run for each of FORMATS in turn
        (the verdict is kept in the run's search folder; the offline stand-ins are never
        probed); none for a role whose schema the upstream refused (`refuse_format`)."""
        if role in self._refused:
            return ""
        if self._format is None:
            setting = self.improver.response_format
            if setting != "auto" or self.improver.upstream not in ("openai", "llama-cpp"):
                self._format = "" if setting in ("auto", "off") else setting
            else:
                self._format = self._probed()
        return self._format

    def refuse_format(self, role: str, reason: str) -> None:
        """The upstream refused `role`'s reply schema (llama.cpp cannot compile a large
        schema into a grammar, say): the role asks without a response format from now on."""
        self._refused.add(role)
        self.log(role, {"event": "response format refused", "reason": reason[:300]})

    def _probed(self) -> str:
        kept = self.folder.parent / "response_format.json"
        if kept.is_file():
            return str(json.loads(kept.read_text()).get("format", ""))
        found = next((kind for kind in FORMATS if self._probe(kind)), "")
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_text(json.dumps({"format": found}))
        return found

    def _probe(self, kind: str) -> bool:
        """Whether the upstream honours a response format: a 16-token request for a tiny JSON
        object, answered 200 with exactly that object."""
        start = len(self.gateway.calls)
        body = {
            "model": self.improver.name, "max_tokens": 16,
            "messages": [{"role": "user", "content": 'Reply with the JSON object {"ok": true}.'}],
            "response_format": response_format(kind, "probe", PROBE_SCHEMA),
        }  # fmt: skip
        try:
            status, payload = self.gateway.chat(self._token("probe"), body)
            content = payload["choices"][0]["message"].get("content") or ""
            supported = status == 200 and json.loads(content) == {"ok": True}
        except Exception:  # any failure of the probe means: do not ask for the format
            supported = False
        self.record("probe", start)
        return supported

    def log(self, role: str, event: dict[str, Any]) -> None:
        """Append an event of a role (e.g. what a prompt's fitting cut) to calls.jsonl."""
        with (self.folder / "calls.jsonl").open("a") as handle:
            handle.write(json.dumps({"role": role, **event}) + "\n")

    @contextlib.contextmanager
    def sandboxed(self, role: str, attempt: int = 1) -> Iterator[str]:
        """A fresh token for a sandboxed improver (the editor) that the gateway caps at what
        is left of the search budget while the block runs; its calls are recorded after."""
        self.check_budget()
        left = self.remaining()
        start = len(self.gateway.calls)
        self.gateway.budget = RolloutBudget(max_dollars=left) if left else RolloutBudget()
        try:
            yield self._token(role)
        finally:
            self.gateway.budget = RolloutBudget()
            self.record(role, start, attempt)

    def record(self, role: str, start: int, attempt: int = 1) -> list[int]:
        """Write the gateway's calls since index `start` to the ledger as `role`'s."""
        rows = [
            self.ledger.record_search_call(self.epoch, role, attempt, call)
            for call in self.gateway.calls[start:]
        ]
        with (self.folder / "gateway.jsonl").open("a") as log:
            for line in self.gateway.log[self._logged :]:
                log.write(line + "\n")
        self._logged = len(self.gateway.log)
        return rows

    def note(self, rowid: int, note: str) -> None:
        self.ledger.note_search_call(rowid, note)

    def transcript(self, role: str, attempt: int, messages: object, reply: object) -> None:
        """Append what a role was asked and answered to calls.jsonl (for audit)."""
        record = {"role": role, "attempt": attempt, "messages": messages, "reply": reply}
        with (self.folder / "calls.jsonl").open("a") as log:
            log.write(json.dumps(record) + "\n")
