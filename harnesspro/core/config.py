"""Run configuration: pydantic models, YAML loading and `--set a.b=c` overrides."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from harnesspro.core.retry import RetryPolicy
from harnesspro.core.rollout_budget import RolloutBudget
from harnesspro.core.yamlload import YamlTooLarge, load_bounded


class ConfigError(Exception):
    """A user-fixable problem with a config file; the message is one sentence."""


# Sane upper bounds: a value past one is a typo (or a hostile file), never a real setting.
DAY_S = 86_400.0
"""Longest wall-clock limit a config may set (one day)."""
MAX_PRICE = 100_000.0
"""Dollars per million tokens; the dearest hosted models charge a few hundred."""
MAX_MEMORY_MB = 1 << 20
"""1 TiB: more than any machine a sandboxed process runs on."""
MAX_REPEATS = 100
"""Rollouts or attempts per task, epochs, survivors: past it a run never ends."""


class _Strict(BaseModel):
    # No NaN or infinity in any number: a NaN limit never fires, an infinite price breaks
    # every report after the rollouts ran.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Price(_Strict):
    """Dollars per million tokens."""

    input: float = Field(..., ge=0, le=MAX_PRICE)
    """Uncached input tokens."""
    cached_input: float = Field(0.0, ge=0, le=MAX_PRICE)
    """Input tokens served from the provider's prefix cache."""
    cache_write: float = Field(0.0, ge=0, le=MAX_PRICE)
    """Input tokens written to the cache (providers that bill it)."""
    output: float = Field(..., ge=0, le=MAX_PRICE)
    """Output tokens, reasoning included."""


class BehaviourConfig(_Strict):
    """The scripted policy's hidden behaviour profile (README: "Behaviour profiles"); trusted
    side, like the test split. Neither key = the documented default profile."""

    seed: int | None = None
    """Draw the profile from the documented distribution with this seed."""
    profile: Path | None = None
    """A profile file (YAML/JSON of `BehaviourProfile` fields) instead of a drawn one."""

    @model_validator(mode="after")
    def _one_source(self) -> BehaviourConfig:
        if self.seed is not None and self.profile is not None:
            raise ValueError("give either seed or profile, not both")
        return self

    @property
    def configured(self) -> bool:
        return self.seed is not None or self.profile is not None


def _interval(pair: tuple[float, float]) -> tuple[float, float]:
    if not 0 <= pair[0] <= pair[1] <= DAY_S:
        raise ValueError(f"give [low, high] with 0 <= low <= high <= {DAY_S:g}")
    return pair


def _rates(pair: tuple[float, float]) -> tuple[float, float]:
    if pair[0] <= 0:
        raise ValueError("rates must be above 0")
    return pair


Interval = Annotated[tuple[float, float], AfterValidator(_interval)]


class LatencyConfig(_Strict):
    """A hosted model's latency, simulated offline: each call waits a time to first token drawn
    from `first_token_s`, then streams its output tokens at a rate drawn from `tokens_per_s`
    (both uniform, seeded per call, so a run's waits are reproducible). The upstream sleeps:
    rollouts are I/O-bound, as against a remote model."""

    first_token_s: Interval = (0.5, 1.5)
    """[low, high] seconds before the first token of each call."""
    tokens_per_s: Annotated[Interval, AfterValidator(_rates)] = (30.0, 90.0)
    """[low, high] output tokens per second."""


class ModelConfig(_Strict):
    name: str = "scripted"
    """Model name the harness asks for (HARNESSPRO_MODEL)."""
    upstream: Literal["scripted", "openai"] = "scripted"
    """Where the gateway sends calls: the offline scripted policy or an OpenAI-compatible API."""
    base_url: str | None = None
    """Base URL of the OpenAI-compatible upstream (upstream: openai)."""
    api_key_env: str | None = None
    """Environment variable holding the provider key; read only by the gateway."""
    allow_unpriced: bool = False
    """Run a model with no known price; its cost is then reported as unknown, never as 0."""
    context_tokens: int | None = Field(None, ge=512)
    """The model's context window in tokens, passed to the harness as
    HARNESSPRO_CONTEXT_TOKENS; the seed cuts its oldest tool results to fit it (None = unknown:
    not passed)."""
    behaviour: BehaviourConfig = BehaviourConfig()
    """The scripted policy's behaviour profile (upstream: scripted only)."""
    latency: LatencyConfig | None = None
    """Simulated provider latency for the scripted upstream (None = it answers at once)."""

    @model_validator(mode="after")
    def _scripted_only_settings(self) -> ModelConfig:
        if self.behaviour.configured and self.upstream != "scripted":
            raise ValueError(
                "model.behaviour acts on upstream 'scripted' only; remove it or use that upstream"
            )
        if self.latency is not None and self.upstream != "scripted":
            raise ValueError("latency simulates a provider for upstream 'scripted' only; remove it")
        return self


class TasksConfig(_Strict):
    suite: str | list[str] = "builtin"
    """`builtin`, a folder of task folders (Harbor or Terminal-Bench layout; a Terminal-Bench
    checkout with its tasks under `tasks/` too), or a list of such folders. Relative paths
    resolve against the config file's folder."""
    test_fraction: float = Field(0.25, ge=0.0, lt=1.0)
    """Share of the suite held out as the test split."""
    split_seed: int = 0
    """Seed of the hash-based split."""
    manifest: Path | None = None
    """A split manifest (coresets/*.json): the run uses its splits and refuses to start if a
    listed task changed since it was written. A relative path resolves against the config
    file's folder."""


DEFAULT_CORESET_SIZE = 8


class CoresetConfig(_Strict):
    size: int | None = Field(None, ge=1)
    """Number of training tasks the DPP picks from the train pool (None = 8). With
    `tasks.manifest` the manifest's coreset fixes it: a different size is an error."""
    refresh: Literal["none", "failures"] = "none"
    """`failures`: after each epoch trade coreset tasks every survivor solves for validation
    tasks none solves, chosen by the DPP (harnesspro/evolution/refresh.py)."""


class ImproverConfig(_Strict):
    """The model behind the `llm` improver (analyzer, planner, editor), metered in the search
    account, never in the harness's cost."""

    name: str = "scripted"
    """Model name the improver roles ask for."""
    upstream: Literal["scripted", "openai", "replay"] = "scripted"
    """scripted = an offline stand-in that answers from the catalog; openai = an
    OpenAI-compatible API; replay = recorded replies from `replay_log`, in order."""
    base_url: str | None = None
    """Base URL of the OpenAI-compatible upstream (upstream: openai)."""
    api_key_env: str | None = None
    """Environment variable holding the provider key; read only by the search gateway."""
    replay_log: Path | None = None
    """JSONL of recorded assistant messages (upstream: replay)."""
    max_edit_steps: int = Field(12, ge=1, le=1000)
    """Model calls the editing agent may make per attempt."""
    edit_timeout_s: float = Field(600.0, gt=0, le=DAY_S)
    """Wall-clock limit of one editing attempt in the sandbox."""
    allow_unpriced: bool = False
    """Use an improver model with no known price; its cost is then reported as unknown."""
    request: dict[str, Any] = Field(default_factory=dict)
    """Extra request parameters for every improver call, e.g. {temperature: 0}."""
    context_tokens: int | None = Field(None, ge=512)
    """The improver model's context window in tokens. Every role fits its prompt to it (the
    reply's `max_tokens`, else a quarter of the window, kept free), cutting its least valuable
    inputs first; None = unknown: prompts are sent as built."""
    timeout_s: float = Field(120.0, gt=0, le=DAY_S)
    """Seconds one improver call may take (upstream: openai) before the gateway counts it as
    timed out and retries it; a local model on a busy CPU may need more."""
    response_format: Literal["auto", "json_schema", "json_object", "off"] = "auto"
    """Ask for each role's reply schema as a response format: `json_schema` (OpenAI's) or
    `json_object` with the schema beside it (llama-cpp-python's server); `auto` probes an
    openai upstream once per run for each in turn; the offline stand-ins never get one."""

    @model_validator(mode="after")
    def _replay_needs_a_log(self) -> ImproverConfig:
        if self.upstream == "replay" and self.replay_log is None:
            raise ValueError("upstream 'replay' needs replay_log (a JSONL of recorded replies)")
        return self


DEFAULT_BUNDLE = 2
"""Mechanisms per catalog plan when `evolution.bundle` is unset: the best of 1, 2, 3 and 5 in
the README's benchmark (section "Benchmark")."""
BUNDLED = ("harnesspro-v1", "no-synth", "no-planner")
"""The strategies whose plans `evolution.bundle` sizes."""
LLM_PLANNED = ("harnesspro", "harnesspro-v1", "no-synth")
"""The strategies improver 'llm' plans for."""


class EvolutionConfig(_Strict):
    epochs: int = Field(3, ge=0, le=MAX_REPEATS)
    """Rounds of analyse -> plan -> edit -> evaluate -> select after the seed's evaluation."""
    rollouts_per_task: int = Field(3, ge=1, le=MAX_REPEATS)
    """G: rollouts of every candidate on every coreset task."""
    max_survivors: int = Field(3, ge=1, le=MAX_REPEATS)
    """At most this many distinct candidates are selected per epoch."""
    improver: Literal["catalog", "llm"] = "catalog"
    """How analyzer, planner and editor work (catalog = offline mechanism catalog; llm = the
    `improver_model`, falling back to the catalog with a recorded reason)."""
    improver_model: ImproverConfig = ImproverConfig()
    """The model of the `llm` improver and of the `llm` test synthesizer."""
    synthesizer: Literal["offline", "llm"] = "offline"
    """How the frozen tests are written before epoch 1: offline = checks voted by the seed's
    rollouts; llm = one executable test per coreset and validation task written by the
    `improver_model`, run against the seed's rollouts (offline checks when it fails twice)."""
    strategy: Literal[
        "harnesspro",
        "harnesspro-v1",
        "random",
        "nsga2",
        "rho",
        "balance",
        "no-planner",
        "no-synth",
    ] = "harnesspro"
    """How the search spends its budget (harnesspro/evolution/strategies/): the method itself
    (screen the levers, model their effects, propose by expected hypervolume gain; with improver
    'llm' it plans as `harnesspro-v1` does), the previous method `harnesspro-v1` (three
    directives per survivor, bundles along lineages), or a baseline/ablation for `harnesspro
    bench`; `no-synth` is `harnesspro-v1` scored with a trajectory judgement instead of the
    frozen tests."""
    judge_trajectory: bool = True
    """A rollout passes its frozen synthesized test only when its trajectory also ends in a
    submission after a clean last tool result (improvers/testsynth/judge.py): the test checks
    the files, the judgement how the work ended. false = the frozen test alone. `no-synth`
    scores by the judgement alone and refuses false."""
    exploration: bool = False
    """Rank the catalog planner's mechanisms by a draw from each prediction's uncertainty
    (Thompson sampling, planner/exploration.py) instead of its mean, so mechanisms with a
    near-zero prior get tried. Acts on the catalog improver of `harnesspro-v1` and `no-synth`;
    other strategies and improver 'llm' refuse it."""
    disjoint_plans: bool | None = None
    """One survivor's plans share no mechanism (a screening design: with bundles, the three
    directives' plans measure as many distinct mechanisms as they hold); unset = true. Acts on
    the catalog improver of `harnesspro-v1` and `no-synth`; other strategies and improver 'llm'
    refuse it when set."""
    racing: bool = False
    """Evaluate new candidates on attempt 0 first and stop spending on those dominated with
    high probability (90%) before the full G."""

    bundle: int | None = Field(None, ge=1, le=8)
    """Most mechanisms per catalog plan: each directive's best mechanism joined by the next
    best that agree with the directive, one per lever (planner/catalog.py:bundle_for); 1 = one
    mechanism per plan; unset = `DEFAULT_BUNDLE`. Acts on the catalog planner of
    `harnesspro-v1` and `no-synth` (and on the llm planner's catalog fallback) and on
    `no-planner`'s random plans; other strategies refuse it."""

    composer: bool = False
    """After each epoch's evaluation, per parent: merge two siblings that gained on different
    levers (git three-way merge, validated and evaluated like any candidate), pick one, or
    keep the base (harnesspro/evolution/compose.py)."""

    @property
    def plans_disjoint(self) -> bool:
        """Whether the catalog planner keeps one survivor's plans disjoint."""
        return self.disjoint_plans is None or self.disjoint_plans

    @property
    def plan_bundle(self) -> int:
        """Mechanisms per catalog plan in effect."""
        return self.bundle or DEFAULT_BUNDLE

    @model_validator(mode="after")
    def _switches_that_act(self) -> EvolutionConfig:
        if self.racing and self.rollouts_per_task == 1:
            raise ValueError("racing needs rollouts_per_task >= 2 (G = 1 leaves nothing to stop)")
        if self.strategy == "no-synth" and not self.judge_trajectory:
            raise ValueError(
                "strategy 'no-synth' scores by the trajectory judgement alone and ignores "
                "judge_trajectory: false; remove it or use another strategy"
            )
        method_catalog = (
            self.strategy in ("harnesspro-v1", "no-synth") and self.improver == "catalog"
        )
        chosen = {
            "exploration": self.exploration,
            "disjoint_plans": self.disjoint_plans is not None,
        }
        for key, used in chosen.items():
            if used and not method_catalog:
                raise ValueError(
                    f"{key} acts on the catalog improver's plans of strategy 'harnesspro-v1' or "
                    "'no-synth' and is ignored here; remove it or use those with improver "
                    "'catalog'"
                )
        if self.bundle is not None and self.strategy not in BUNDLED:
            raise ValueError(
                f"strategy '{self.strategy}' does not use the method's planner and ignores "
                f"bundle; remove bundle or use one of {', '.join(BUNDLED)}"
            )
        if self.improver == "llm" and self.strategy not in LLM_PLANNED:
            raise ValueError(
                f"strategy '{self.strategy}' plans from the catalog and ignores improver 'llm'; "
                "use improver 'catalog' or strategy 'harnesspro'"
            )
        return self


class Mode(_Strict):
    alpha: float = Field(ge=0.0)
    """Weight of the squared performance gap."""
    beta: float = Field(ge=0.0)
    """Weight of the squared cost gap."""


def _default_modes() -> dict[str, Mode]:
    return {
        "lite": Mode(alpha=0.2, beta=0.8),
        "medium": Mode(alpha=0.5, beta=0.5),
        "heavy": Mode(alpha=0.8, beta=0.2),
    }


class SelectionConfig(_Strict):
    modes: dict[str, Mode] = Field(default_factory=_default_modes)
    """Operating points and their J_m weights."""
    validated: bool = False
    """Choose operating points on coreset and validation scores pooled (weighted by tasks):
    each epoch a pick without validation rollouts is validated, then the choice is made
    again, until every pick is validated or the rollout cap stops it."""


class SandboxConfig(_Strict):
    backend: Literal["bubblewrap", "local"] = "bubblewrap"
    """Isolation of harness and test processes; `local` = none at all (warns loudly)."""
    timeout_s: float = Field(120.0, gt=0, le=DAY_S)
    """Wall-clock limit of one harness run; every process it started is killed after it."""
    memory_mb: int = Field(4096, ge=64, le=MAX_MEMORY_MB)
    """Address-space cap of each sandboxed process."""


class GatewayConfig(_Strict):
    rollout_budget: RolloutBudget = RolloutBudget()
    """Caps per rollout; over a cap the harness gets an error and the rollout ends
    `budget_exhausted`."""
    max_attempts: int = Field(4, ge=1, le=MAX_REPEATS)
    """Attempts per model call when the upstream fails transiently (429, 5xx, timeouts)."""
    backoff_s: float = Field(0.5, ge=0, le=DAY_S)
    """First retry delay (jittered, doubling; Retry-After wins when given)."""
    retry_budget_s: float = Field(30.0, ge=0, le=DAY_S)
    """Most time spent waiting on retries for one call."""
    infra_retries: int = Field(1, ge=0, le=MAX_REPEATS)
    """Times a rollout that ended in an infrastructure failure is run again before it is
    excluded (and reported)."""

    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(self.max_attempts, self.backoff_s, budget_s=self.retry_budget_s)


class BudgetConfig(_Strict):
    max_target_dollars: float | None = Field(None, gt=0)
    """Dollars for target (harness) rollouts over the whole run; the run stops scheduling at
    the cap (overshoot: at most the rollouts in flight) and still writes its reports."""
    max_improver_dollars: float | None = Field(None, gt=0)
    """Dollars for analyzer/planner/editor/synthesizer calls (the search-cost account)."""


class RayConfig(_Strict):
    num_cpus: int | None = Field(None, ge=1)
    """CPUs of the embedded local Ray (None = 2). On a cluster (RAY_ADDRESS set) the cluster's
    size rules, so setting it there is an error."""
    rollout_cpus: float | None = Field(None, gt=0, le=64)
    """CPUs one rollout reserves; fractions are fine. None = 1 when the rollout's own machine
    does the model's work (the scripted policy without `model.latency`, or an openai upstream on
    loopback such as a local llama.cpp), else 0.25: a rollout against a remote model mostly
    waits for it."""
    max_in_flight: int | None = Field(None, ge=1)
    """At most this many rollouts at once, e.g. for a rate-limited provider (None = as many as
    the cluster has slots: its CPUs / rollout_cpus, refreshed as nodes join or leave)."""


class EvaluationConfig(_Strict):
    validation_rollouts: int | None = Field(None, ge=0, le=MAX_REPEATS)
    """Rollouts of each selected candidate per validation task each epoch (None = G; 0 = no
    validation)."""
    validation_tasks: int | None = Field(None, ge=1)
    """At most this many validation tasks, a fixed hash-ordered sample (None = all)."""
    final: bool = True
    """Run the held-out test evaluation (seed and lite/medium/heavy) when evolution ends."""
    attempts: int = Field(3, ge=1, le=MAX_REPEATS)
    """K: attempts per test task in the held-out evaluation."""
    bootstrap_resamples: int = Field(1000, ge=100, le=1_000_000)
    """Bootstrap resamples behind every confidence interval and P(non-dominated)."""
    confidence: float = Field(0.9, gt=0.0, lt=1.0)
    """Coverage of the reported confidence intervals."""
    max_rollouts: int | None = Field(None, ge=1)
    """Cap on search rollouts (coreset + validation); whole candidates only, so it is never
    exceeded. The held-out evaluation is accounted apart."""
    official_on_search: bool = True
    """Also run the official verifier on search (coreset, validation) rollouts, which the
    search never reads: it feeds only the synthesized-vs-official agreement report (about
    half a scripted rollout's time; `harnesspro bench` turns it off)."""
    rollout_cache: Path | None = None
    """A SQLite file of finished rollouts shared between runs: a rollout whose key (tree,
    task, attempt, model and profile, seed, price, limits) is there is copied, not rerun."""


class ReportsConfig(_Strict):
    dashboard: Literal["every_epoch", "end"] = "every_epoch"
    """When RUN/dashboard.html is written: at the end of every epoch (watch a run as it goes)
    or only when the run ends (`harnesspro bench`: about a second of plotting per epoch saved;
    `harnesspro dashboard RUN` renders it at any time)."""


class HarnessConfig(_Strict):
    seed: Path | None = None
    """A harness directory (with harness.toml) to evolve instead of the bundled seed agent;
    catalog edits apply where their files exist, the llm editor works on any harness."""

    @field_validator("seed")
    @classmethod
    def _seed_is_a_harness(cls, seed: Path | None) -> Path | None:
        if seed is not None and not (seed / "harness.toml").is_file():
            raise ValueError(f"{seed} has no harness.toml; give a harness directory")
        return seed


class LibraryConfig(_Strict):
    """The experience library shared by the user's runs (harnesspro/improvers/library.py)."""

    use: bool = False
    """Record each epoch's measured lessons in the library, and let the planners read the
    lessons earlier runs recorded for the same model and task family."""
    path: Path | None = None
    """The library file (SQLite); None = $XDG_DATA_HOME/harnesspro/library.sqlite, i.e.
    ~/.local/share/harnesspro/library.sqlite."""
    family: str | None = None
    """Task family the lessons are filed under; None = the suite (`builtin` or the folder
    name)."""

    @model_validator(mode="after")
    def _settings_need_use(self) -> LibraryConfig:
        if not self.use and (self.path is not None or self.family is not None):
            raise ValueError("path and family act only with use: true; set it or drop them")
        return self


class RunConfig(_Strict):
    name: str = "run"
    """Run name; the default run folder is runs/<name>-<config hash>."""
    seed: int = 0
    """Seed of every stochastic choice the run makes."""
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
        """An llm role with no `improver_model` uses the target model's endpoint when that is
        a real one (never, silently, the offline stand-in)."""
        if not isinstance(data, dict):
            return data
        evolution, model = data.get("evolution"), data.get("model")
        if not isinstance(evolution, dict) or not isinstance(model, dict):
            return data
        llm = "llm" in (evolution.get("improver"), evolution.get("synthesizer"))
        if llm and "improver_model" not in evolution and model.get("upstream") == "openai":
            keys = ("name", "upstream", "base_url", "api_key_env", "allow_unpriced")
            target = {k: model[k] for k in keys if k in model}
            data = {**data, "evolution": {**evolution, "improver_model": target}}
        return data

    @model_validator(mode="after")
    def _refresh_needs_validation(self) -> RunConfig:
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
    if isinstance(value, str) and value != "builtin" and not Path(value).is_absolute():
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
