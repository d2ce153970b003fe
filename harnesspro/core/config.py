"""Run configuration: pydantic models, YAML loading and `--set a.b=c` overrides."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import (
    Field,
    ValidationError,
    model_validator,
)

from harnesspro.core.config_base import (
    ConfigError,
    Strict,
)
from harnesspro.core.execution_config import (
    BudgetConfig,
    EvaluationConfig,
    GatewayConfig,
    HarnessConfig,
    RayConfig,
    ReportsConfig,
    SandboxConfig,
)
from harnesspro.core.model_config import LlamaServerConfig, ModelConfig, Price
from harnesspro.core.search_config import (
    PACKAGED_SUITES,
    CoresetConfig,
    EvolutionConfig,
    LibraryConfig,
    SelectionConfig,
    TasksConfig,
)
from harnesspro.core.yamlio import YamlTooLarge, load_bounded


def _own_server(model: dict[str, Any]) -> dict[str, Any]:
    """What the run's own llama.cpp server lends an improver on it: its window and its call
    timeout, and no response format (its grammar compiler refuses the planner's schema and
    the server then stops answering)."""
    found = model.get("server")
    server: dict[str, Any] = found if isinstance(found, dict) else {}
    defaults = LlamaServerConfig.model_fields
    window = server.get("context_tokens", defaults["context_tokens"].default)
    timeout = server.get("call_timeout_s", defaults["call_timeout_s"].default)
    return {"response_format": "off", "context_tokens": window, "timeout_s": timeout}


class RunConfig(Strict):
    name: str = "run"
    """Run name; the default run folder is runs/<name>-<config hash>."""
    seed: int = 0
    """Seed of every stochastic choice the run makes (the model's draws too, unless
    `sampling_seed` is set)."""
    sampling_seed: int | None = None
    """Seed of the model's own random draws only (with the task and the attempt, each
    rollout's sampling seed); None = `seed`. Runs that differ only in `seed` then differ only
    in the search's choices, every harness meeting the same draws in each."""
    model: ModelConfig = ModelConfig()
    harness: HarnessConfig = HarnessConfig()
    prices: dict[str, Price] = Field(default_factory=dict)
    """Price overrides per model name."""
    tasks: TasksConfig = TasksConfig()
    coreset: CoresetConfig = CoresetConfig()
    evolution: EvolutionConfig = EvolutionConfig()
    selection: SelectionConfig = SelectionConfig()
    sandbox: SandboxConfig = SandboxConfig()
    gateway: GatewayConfig = GatewayConfig()
    budget: BudgetConfig = BudgetConfig()
    ray: RayConfig = RayConfig()
    evaluation: EvaluationConfig = EvaluationConfig()
    library: LibraryConfig = LibraryConfig()
    reports: ReportsConfig = ReportsConfig()

    @model_validator(mode="before")
    @classmethod
    def _improver_on_the_target(cls, data: Any) -> Any:
        """An llm role whose `improver_model` names no upstream uses the target model's
        endpoint when that is a real one (never, silently, the offline stand-in); the section's
        own keys (a timeout, a context size) stay."""
        if not isinstance(data, dict):
            return data
        evolution, model = data.get("evolution"), data.get("model")
        if not isinstance(evolution, dict) or not isinstance(model, dict):
            return data
        llm = "llm" in (evolution.get("improver"), evolution.get("synthesizer"))
        upstream, own = model.get("upstream"), evolution.get("improver_model") or {}
        lends = upstream in ("openai", "llama-cpp")
        if llm and lends and isinstance(own, dict) and "upstream" not in own:
            keys: tuple[str, ...] = ("name", "upstream", "allow_unpriced")
            keys += ("base_url", "api_key_env") if upstream == "openai" else ()
            target = {k: model[k] for k in keys if k in model}
            target.update(_own_server(model) if upstream == "llama-cpp" else {})
            data = {**data, "evolution": {**evolution, "improver_model": {**target, **own}}}
        return data

    @model_validator(mode="after")
    def _refresh_needs_validation(self) -> RunConfig:
        improver = self.evolution.improver_model
        if improver.upstream == "llama-cpp" and self.model.upstream != "llama-cpp":
            raise ValueError(
                "evolution.improver_model.upstream llama-cpp uses the run's own llama.cpp "
                "server, which runs only with model.upstream: llama-cpp; use openai with a "
                "base_url instead"
            )
        if self.coreset.refresh == "failures" and self.evaluation.validation_rollouts == 0:
            raise ValueError(
                "coreset.refresh: failures finds unsolved tasks by validation rollouts, so "
                "evaluation.validation_rollouts must not be 0"
            )
        if self.selection.validated and self.evaluation.validation_rollouts == 0:
            raise ValueError(
                "selection.validated chooses on validation scores, so "
                "evaluation.validation_rollouts must not be 0"
            )
        if self.evaluation.verdict_memo and self.model.upstream != "scripted":
            raise ValueError(
                "evaluation.verdict_memo reuses official verdicts, which is sound only in the "
                "scripted world (model.upstream: scripted); remove it for a real model"
            )
        if self.sampling_seed is not None and self.model.upstream != "scripted":
            raise ValueError(
                "sampling_seed seeds the scripted model's draws (model.upstream: scripted); a "
                "real model draws its own, so remove it"
            )
        return self


def apply_override(data: dict[str, Any], assignment: str) -> None:
    """Apply one `a.b.c=value` override in place; the value is parsed as YAML."""
    if "=" not in assignment:
        raise ConfigError(f"--set {assignment!r} is not of the form key.path=value.")
    path, raw = assignment.split("=", 1)
    keys = path.strip().split(".")
    node = data
    for key in keys[:-1]:
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            raise ConfigError(f"--set {path}: '{key}' is not a section; fix the key path.")
        node = child
    try:
        node[keys[-1]] = load_bounded(raw)
    except (yaml.YAMLError, YamlTooLarge) as exc:
        why = str(exc) if isinstance(exc, YamlTooLarge) else "not a YAML value"
        raise ConfigError(f"--set {path}: {why}; fix the value.") from None


def _describe(error: ValidationError, source: str) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    if first["type"] == "extra_forbidden":
        return f"{source}: unknown key '{where}'; remove it or fix its spelling."
    message = first["msg"].removeprefix("Value error, ")
    return f"{source}: key '{where}': {message}; fix the value."


# Keys holding paths; relative ones in a config file resolve against the file's folder
# (overrides given with --set stay relative to the working directory, as typed in a shell).
PATH_KEYS = (
    ("tasks", "suite"),
    ("tasks", "manifest"),
    ("evolution", "improver_model", "replay_log"),
)


def resolve_paths(data: dict[str, Any], base: Path) -> None:
    """Make the relative paths of PATH_KEYS in `data` absolute against `base`, in place."""
    for keys in PATH_KEYS:
        node: Any = data
        for key in keys[:-1]:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict) and keys[-1] in node:
            node[keys[-1]] = _resolved(node[keys[-1]], base)


def _resolved(value: Any, base: Path) -> Any:
    if isinstance(value, list):
        return [_resolved(v, base) for v in value]
    if isinstance(value, str) and value not in PACKAGED_SUITES and not Path(value).is_absolute():
        return os.path.normpath(base.resolve() / value)
    return value


def load_config(path: Path, overrides: list[str] | None = None) -> RunConfig:
    """Read, override and validate a YAML run config, raising ConfigError on bad input."""
    try:
        data = load_bounded(path.read_text()) or {}
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file; check the --config path.") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory; pass the YAML config file.") from None
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise ConfigError(f"{path}: cannot read it ({why}); fix the --config path.") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc.__class__.__name__}); fix it.") from None
    except YamlTooLarge as exc:
        raise ConfigError(f"{path}: {exc}.") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of keys.")
    resolve_paths(data, path.parent)
    for assignment in overrides or []:
        apply_override(data, assignment)
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, str(path))) from None


def dump_config(config: RunConfig) -> str:
    """The resolved config as YAML (written to the run folder)."""
    return yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False)


def same_config(text: str, config: RunConfig) -> bool:
    """Whether a run folder's config.yaml (`dump_config` text) holds `config`. Keys added
    since it was written count at their defaults, so a newer harnesspro resumes an older
    run whose settings are the same."""
    try:
        return RunConfig.model_validate(load_bounded(text)) == config
    except (yaml.YAMLError, YamlTooLarge, ValidationError):
        return False
