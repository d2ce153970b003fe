"""Which scripted world a run talks to: v2 (the scripted policy and its behaviour profiles,
the default) or v3 (latent behaviour factors, execution/world/), chosen by
`model.behaviour.world.version`. Resolves the run's profile and builds the policy for one
rollout; the profile stays trusted-side (driver to gateway, nowhere else)."""

from __future__ import annotations

from collections.abc import Sequence

from harnesspro.core.model_config import BehaviourConfig
from harnesspro.execution.fakes.behaviour import BehaviourProfile, ProfileError
from harnesspro.execution.fakes.sampling import resolve_profile
from harnesspro.execution.fakes.scripted import ScriptedPolicy
from harnesspro.execution.fakes.task_script import TaskScript
from harnesspro.execution.world.draw import draw_profile
from harnesspro.execution.world.policy import WorldPolicy
from harnesspro.execution.world.profile import WorldProfile, WorldProfileError, load_world_profile

Profile = BehaviourProfile | WorldProfile


def resolve_world(config: BehaviourConfig) -> Profile:
    """The profile a run uses: v2's as before; under v3 drawn from `seed` (0 when unset) or
    read from `profile`, with the knobs the config sets on top. Raises ProfileError."""
    if config.world.version == "v2":
        return resolve_profile(config.seed, config.profile)
    knobs = config.world.knobs()
    if config.profile is None:
        return draw_profile(config.seed or 0, **knobs)
    try:
        return load_world_profile(config.profile).model_copy(update=knobs)
    except WorldProfileError as exc:
        raise ProfileError(str(exc)) from None


def draw_salt(profile: Profile, candidate_id: str, rollout_key: str) -> str:
    """What a rollout mixes into its draws: nothing when draws are common to all candidates
    (v2 always; v3 by default), else the candidate and the rollout, so identical candidates
    measure differently."""
    if isinstance(profile, WorldProfile) and not profile.common_draws:
        return f"{candidate_id}:{rollout_key}"
    return ""


def make_policy(
    scripts: Sequence[TaskScript], profile: Profile, salt: str = ""
) -> ScriptedPolicy | WorldPolicy:
    """The scripted model of this profile's world."""
    if isinstance(profile, WorldProfile):
        return WorldPolicy(scripts, profile, salt)
    return ScriptedPolicy(scripts, profile)
