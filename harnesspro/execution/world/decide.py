"""A simulated model's next move, from the rollout's state (conversation.py), the factor
probabilities of this request (factors.py) and the rollout's random streams.

In order: resend a reply the harness could not read; after a failed step, send the same
command again (repeating), or redo it using the error, or move on; look around before the
first step; run the next reference step (which may slip); check its work once the steps are
done and redo from the first broken step if the check notices it; then answer, or idle with
no-op commands until it wakes up or is told it is done."""

from __future__ import annotations

import math
from collections.abc import Callable

from harnesspro.execution.fakes import slips
from harnesspro.execution.fakes.task_script import TaskScript, stream
from harnesspro.execution.world import moves, signals
from harnesspro.execution.world.conversation import STEP_KINDS, Progress
from harnesspro.execution.world.factors import Factors

MAX_LOOKS = 6
MAX_CHECKS = 3
MAX_IDLE = 40
TOLD_DONE_WAKE = 0.9  # chance to answer after being told the work is done


def _poisson(u: float, mean: float, cap: int) -> int:
    """The count whose Poisson(mean) CDF first exceeds u."""
    k, term = 0, math.exp(-mean)
    total = term
    while u > total and k < cap:
        k += 1
        term *= mean / k
        total += term
    return k


class Mover:
    """Picks the next command (None: answer) for one request."""

    def __init__(
        self,
        script: TaskScript,
        progress: Progress,
        factors: Factors,
        seed: str,
        repeated: Callable[[str], bool],
    ) -> None:
        self.s, self.g, self.f, self.seed = script, progress, factors, seed
        self.repeated = repeated  # whether the harness's text names an output path exactly

    def attempt(self, i: int) -> str:
        """Reference step `i`, as it comes out this time."""
        step, k, f = self.s.steps[i], self.g.attempts[i], self.f
        body = moves.as_command(step)
        if body and stream(self.seed, "script", i, k).random() < f.script_slip():
            return body
        near = moves.near_miss(self.s, step)
        path = next(iter(moves.written(self.s, step)), "")
        if near and stream(self.seed, "near", i, k).random() < f.near_miss(self.repeated(path)):
            return near
        seen = bool(self.s.long_inputs) and set(self.s.long_inputs) <= self.g.seen_whole
        if stream(self.seed, "slip", i, k).random() < f.slip(seen):
            rng = stream(self.seed, "kind", i, k)
            quiet = rng.random() < f.p.quiet_share
            return moves.quiet(self.s, step, rng) if quiet else slips.typo(step)
        return step

    def _after_failure(self) -> str | None:
        last = self.g.last
        if last is None or last.move.kind not in STEP_KINDS:
            return None
        i = last.move.step
        if self.g.status[i] != "failed":
            return None
        rng = stream(self.seed, "after-failure", i, self.g.attempts[i])
        if rng.random() < self.f.repeat(signals.repeating(last.result)):
            return last.command
        return self.attempt(i) if rng.random() < self.f.use_error() else None

    def _check_or_catch(self) -> str | None:
        g, last = self.g, self.g.last
        if last is not None and last.move.kind == "check":
            broken = g.broken()
            seen_error = self.f.use_error() if signals.failed(last.result) else 0.0
            catch = 1.0 - (1.0 - self.f.catch()) * (1.0 - seen_error)
            if broken is not None and stream(self.seed, "catch", g.checks).random() < catch:
                return self.attempt(broken)
            return None
        asked_again = last is not None and last.move.kind == "answer"
        due = g.checks == 0 or g.stepped_since_check() or asked_again
        draw = stream(self.seed, "check", g.checks, g.answers).random()
        if due and g.checks < MAX_CHECKS and draw < self.f.check():
            return moves.check(self.s)
        return None

    def _idle(self) -> str | None:
        g, last = self.g, self.g.last
        pick = moves.IDLE[
            int(stream(self.seed, "idle-command", g.idles).random() * len(moves.IDLE))
        ]
        if g.idles == 0:
            return pick if stream(self.seed, "idle").random() < self.f.idle() else None
        told = last is not None and signals.done_told(last.result)
        wake = TOLD_DONE_WAKE if told else self.f.p.idle_wake
        if g.idles >= MAX_IDLE or stream(self.seed, "wake", g.idles).random() < wake:
            return None
        return pick

    def next_command(self) -> str | None:
        """The command to send now, or None to answer."""
        g, last = self.g, self.g.last
        if last and last.malformed and last.followed and signals.unreadable(last.result):
            return last.command
        retry = self._after_failure()
        if retry is not None:
            return retry
        if g.pointer == 0 and not any(g.attempts):
            mean = self.f.explore_mean()
            wanted = _poisson(stream(self.seed, "explore").random(), mean, MAX_LOOKS)
            if g.looks < wanted:
                return moves.look(stream(self.seed, "look", g.looks), self.s, self.f.whole())
        if g.pointer < len(self.s.steps):
            return self.attempt(g.pointer)
        checked = self._check_or_catch()
        return checked if checked is not None else self._idle()
