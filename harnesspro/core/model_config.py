"""The models a run talks to: the target model (endpoint, price, behaviour profile of the
scripted stand-in, latency) and the improver model."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    Field,
    field_validator,
    model_validator,
)

from harnesspro.core.config_base import (
    DAY_S,
    MAX_PRICE,
    Strict,
)


class Price(Strict):
    """Dollars per million tokens."""

    input: float = Field(..., ge=0, le=MAX_PRICE)
    """Uncached input tokens."""
    cached_input: float = Field(0.0, ge=0, le=MAX_PRICE)
    """Input tokens served from the provider's prefix cache."""
    cache_write: float = Field(0.0, ge=0, le=MAX_PRICE)
    """Input tokens written to the cache (providers that bill it)."""
    output: float = Field(..., ge=0, le=MAX_PRICE)
    """Output tokens, reasoning included."""


V3_KEYS = ("common_draws", "interaction", "null_share", "hidden_factors")


class WorldConfig(Strict):
    """Which scripted world answers (docs/scripted-policy.md, "World v3"), and world v3's
    structural knobs; unset knobs keep the drawn profile's defaults."""

    version: Literal["v2", "v3"] = "v2"
    """v2: the scripted policy as the benchmarks measured it; v3: latent behaviour factors."""
    common_draws: bool | None = None
    """v3: draws shared by every candidate (true, the default) or fresh per rollout (false)."""
    interaction: float | None = Field(None, ge=0, le=4)
    """v3: the scale of the factor-by-factor terms (default 0.5)."""
    null_share: float | None = Field(None, ge=0, le=1)
    """v3: the share of sensitivities drawn as exactly zero (default 0.3)."""
    hidden_factors: bool | None = None
    """v3: whether the hidden factors act (default true)."""

    @model_validator(mode="after")
    def _v3_keys_need_v3(self) -> WorldConfig:
        for key in V3_KEYS:
            if self.version == "v2" and getattr(self, key) is not None:
                raise ValueError(
                    f"world.{key} acts on world v3 only: remove it or set world.version: v3"
                )
        return self

    def knobs(self) -> dict[str, Any]:
        """The v3 knobs this config sets."""
        return {key: getattr(self, key) for key in V3_KEYS if getattr(self, key) is not None}


class BehaviourConfig(Strict):
    """The scripted policy's hidden behaviour profile (README: "Behaviour profiles"); trusted
    side, like the test split. Neither key = the documented default profile."""

    seed: int | None = None
    """Draw the profile from the documented distribution with this seed."""
    profile: Path | None = None
    """A profile file (YAML/JSON of `BehaviourProfile` fields, or of `WorldProfile` fields
    under world v3) instead of a drawn one."""
    world: WorldConfig = WorldConfig()
    """Which scripted world, and world v3's knobs (default: v2, as the benchmarks ran)."""

    @model_validator(mode="after")
    def _one_source(self) -> BehaviourConfig:
        if self.seed is not None and self.profile is not None:
            raise ValueError("give either seed or profile, not both")
        return self

    @property
    def configured(self) -> bool:
        """A profile other than v2's default is in play (rollouts then get their own keys)."""
        return self.seed is not None or self.profile is not None or self.world.version == "v3"


def _interval(pair: tuple[float, float]) -> tuple[float, float]:
    if not 0 <= pair[0] <= pair[1] <= DAY_S:
        raise ValueError(f"give [low, high] with 0 <= low <= high <= {DAY_S:g}")
    return pair


Interval = Annotated[tuple[float, float], AfterValidator(_interval)]


def _rates(pair: tuple[float, float]) -> tuple[float, float]:
    if pair[0] <= 0:
        raise ValueError("rates must be above 0")
    return pair


class LatencyConfig(Strict):
    """A hosted model's latency, simulated offline: each call waits a time to first token drawn
    from `first_token_s`, then streams its output tokens at a rate drawn from `tokens_per_s`
    (both uniform, seeded per call, so a run's waits are reproducible). The upstream sleeps:
    rollouts are I/O-bound, as against a remote model."""

    first_token_s: Interval = (0.5, 1.5)
    """[low, high] seconds before the first token of each call."""
    tokens_per_s: Annotated[Interval, AfterValidator(_rates)] = (30.0, 90.0)
    """[low, high] output tokens per second."""


class LlamaServerConfig(Strict):
    """The llama.cpp server a run starts for `model.upstream: llama-cpp` (on a free loopback
    port, for this run alone; its log is the run folder's `llama-server.log`)."""

    threads: int = Field(2, ge=1, le=256)
    """CPU threads the server computes with."""
    context_tokens: int = Field(4096, ge=512, le=1_048_576)
    """The server's context window (llama.cpp's n_ctx); also passed to the harness as
    HARNESSPRO_CONTEXT_TOKENS unless `model.context_tokens` says otherwise."""
    chat_format: str | None = None
    """llama-cpp-python's chat format, e.g. `chatml-function-calling` (None = the chat
    template inside the GGUF, which renders tools but returns the model's tool calls as text)."""
    call_timeout_s: float = Field(900.0, gt=0, le=DAY_S)
    """Seconds one model call may take; a call that times out is never sent again (the
    server would queue the same work twice) and its rollout ends as an infrastructure fault."""


class ModelConfig(Strict):
    name: str = "scripted"
    """Model name the harness asks for (HARNESSPRO_MODEL)."""
    upstream: Literal["scripted", "openai", "llama-cpp"] = "scripted"
    """Where the gateway sends calls: the offline scripted policy, an OpenAI-compatible API, or
    a llama.cpp server the run starts itself for `gguf`."""
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
    gguf: str | None = None
    """upstream llama-cpp: the model file, as a name `harnesspro model install` knows
    (`qwen2.5-coder-0.5b-instruct`) or a path to a .gguf."""
    server: LlamaServerConfig | None = None
    """upstream llama-cpp: how its server runs (None = the defaults)."""
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

    @model_validator(mode="after")
    def _local_server_settings(self) -> ModelConfig:
        local = self.upstream == "llama-cpp"
        if not local and (self.gguf is not None or self.server is not None):
            raise ValueError("gguf and server act on upstream 'llama-cpp' only; remove them")
        if local and self.gguf is None:
            raise ValueError(
                "upstream 'llama-cpp' needs gguf: a model name (`harnesspro model install` "
                "lists them) or a .gguf path"
            )
        if local and (self.base_url is not None or self.api_key_env is not None):
            raise ValueError(
                "upstream 'llama-cpp' starts its own server: remove base_url and api_key_env"
            )
        return self

    @property
    def local_server(self) -> LlamaServerConfig:
        """The llama.cpp server's settings (upstream llama-cpp)."""
        return self.server or LlamaServerConfig()


class ImproverConfig(Strict):
    """The model behind the `llm` improver (analyzer, planner, editor), metered in the search
    account, never in the harness's cost."""

    name: str = "scripted"
    """Model name the improver roles ask for."""
    upstream: Literal["scripted", "openai", "replay", "llama-cpp"] = "scripted"
    """scripted = an offline stand-in that answers from the catalog; openai = an
    OpenAI-compatible API; replay = recorded replies from `replay_log`, in order; llama-cpp =
    the run's own llama.cpp server (needs `model.upstream: llama-cpp`): the model it serves."""
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
    openai upstream once per run for each in turn; the offline stand-ins never get one. YAML's
    `off` (read as false) means `off`."""

    @field_validator("response_format", mode="before")
    @classmethod
    def _yaml_off(cls, value: Any) -> Any:
        return "off" if value is False else value

    @model_validator(mode="after")
    def _replay_needs_a_log(self) -> ImproverConfig:
        if self.upstream == "replay" and self.replay_log is None:
            raise ValueError("upstream 'replay' needs replay_log (a JSONL of recorded replies)")
        if self.upstream == "llama-cpp" and (self.base_url or self.api_key_env):
            raise ValueError(
                "upstream 'llama-cpp' talks to the run's own server: remove base_url and "
                "api_key_env"
            )
        return self
