"""The epoch loop: evaluate the seed, freeze synthesized tests, then analyse -> plan -> edit ->
evaluate -> select for each epoch. `python -m harnesspro.evolve --config FILE`."""

from __future__ import annotations

import hashlib
import secrets
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from harnesspro import pareto
from harnesspro.analyzer import Trace, analyze, prevalence
from harnesspro.config import RunConfig
from harnesspro.editor import apply_plan
from harnesspro.engine import ensure_ray, run_all
from harnesspro.gateway.prices import lookup_price
from harnesspro.harness.repo import HarnessRepo
from harnesspro.ledger import Ledger
from harnesspro.metrics import candidate_scores
from harnesspro.planner import check_prediction, plan_all
from harnesspro.policies.scripted import script_for
from harnesspro.records import Candidate, RolloutResult, RolloutSpec, Score
from harnesspro.reports.epoch import write_epoch_reports
from harnesspro.rollout import RolloutInputs
from harnesspro.runfolder import RunFolder
from harnesspro.tasks.loader import folder_files, load_suite, workspace_files
from harnesspro.tasks.splits import make_splits
from harnesspro.testsynth import SynthTest, score, synthesize

SEED_ID = "c000"


def seed_template() -> Path:
    return Path(str(resources.files("harnesspro") / "seed"))


@dataclass(frozen=True)
class Selected:
    epoch: int
    picks: dict[str, str]  # mode -> candidate id
    survivors: set[str]
    hypervolume: float


class Evolution:
    """One run's state: config, tasks and splits, ledger, harness repository."""

    def __init__(self, config: RunConfig, run: RunFolder, console: Console) -> None:
        self.config, self.run, self.console = config, run, console
        self.price = lookup_price(config.model.name, config.prices)
        self.tasks = {t.id: t for t in load_suite(config.tasks.suite)}
        self.splits = make_splits(
            list(self.tasks.values()), config.tasks.test_fraction, config.tasks.split_seed,
            config.coreset.size,
        )
        run.open(config)
        self.ledger = Ledger(run.ledger)
        self.repo = HarnessRepo(run.harness, run.worktrees)

    # -- candidates and rollouts -------------------------------------------------------------
    def candidates(self) -> dict[str, Candidate]:
        return {c.id: c for c in self.ledger.candidates()}

    def seed(self) -> Candidate:
        commit, tree = self.repo.commit_seed(seed_template())
        if SEED_ID not in self.candidates():
            self.ledger.add_candidate(Candidate(SEED_ID, commit, tree, None, None, None, 0))
        return self.candidates()[SEED_ID]

    def rollout_key(self, candidate: Candidate, task_id: str, attempt: int) -> str:
        m, sb = self.config.model, self.config.sandbox
        raw = f"{candidate.tree}|{task_id}|{attempt}|{m.name}|{m.upstream}|{m.base_url}|{sb.timeout_s}"
        return hashlib.sha256(raw.encode()).hexdigest()[:20]

    def _inputs(self, candidate: Candidate, task_id: str, attempt: int, epoch: int) -> RolloutInputs:
        task = self.tasks[task_id]
        key = self.rollout_key(candidate, task_id, attempt)
        scripted = self.config.model.upstream == "scripted"
        return RolloutInputs(
            spec=RolloutSpec(key, candidate.id, task_id, attempt, epoch),
            harness_files=self.repo.files(candidate.commit),
            task_json={"id": task.id, "instruction": task.instruction, "workdir": task.workdir},
            workspace_files=workspace_files(task),
            test_files=folder_files(task.path / "tests"),
            script=script_for(task) if scripted else None,
            model=self.config.model,
            price=self.price,
            timeout_s=min(self.config.sandbox.timeout_s, task.timeout_s),
            sampling_seed=f"{self.config.seed}:{task_id}:{attempt}",
            token=secrets.token_hex(16),
        )

    def evaluate(self, candidates: list[Candidate], epoch: int) -> None:
        """G rollouts of each candidate on each coreset task; finished ones are never redone."""
        done = self.ledger.rollout_keys()
        todo = [
            (c, t, a)
            for c in candidates
            for t in self.splits.coreset
            for a in range(self.config.evolution.rollouts_per_task)
            if self.rollout_key(c, t, a) not in done
        ]
        if not todo:
            return
        batch = [self._inputs(c, t, a, epoch) for c, t, a in todo]
        ensure_ray(self.config.ray.num_cpus)
        names = ", ".join(c.id for c in candidates)
        with Progress(console=self.console, transient=True) as progress:
            bar = progress.add_task(f"epoch {epoch}: rollouts of {names}", total=len(batch))

            def record(inputs: RolloutInputs, result: RolloutResult) -> None:
                artifacts = self.run.save_rollout(result)
                self.ledger.record_rollout(inputs.spec, result, artifacts)
                progress.advance(bar)

            run_all(batch, record, max_in_flight=2 * self.config.ray.num_cpus)

    # -- scoring --------------------------------------------------------------------------------
    def freeze_tests(self) -> None:
        """Synthesize and freeze one test per coreset task from the seed's rollouts, once."""
        frozen = self.ledger.frozen_tests()
        rollouts = self.ledger.rollouts()
        seed_rows = rollouts[rollouts["candidate_id"] == SEED_ID]
        for task_id in self.splits.coreset:
            if task_id in frozen:
                continue
            task = self.tasks[task_id]
            keys = seed_rows[seed_rows["task_id"] == task_id]["key"]
            test = synthesize(task_id, task.instruction, task.workdir,
                              [self.run.workspace(k) for k in keys])
            path = self.run.synth_test(task_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(test.to_json())
            self.ledger.freeze_test(task_id, test.sha256, str(path.relative_to(self.run.root)))

    def score_pending(self) -> None:
        """Grade every unscored rollout with its task's frozen test (hash-checked)."""
        tests = {}
        for task_id, (digest, rel) in self.ledger.frozen_tests().items():
            test = SynthTest.from_json((self.run.root / rel).read_text())
            if test.sha256 != digest:
                raise RuntimeError(f"{rel}: frozen test changed after freezing; it must not.")
            tests[task_id] = test
        rollouts = self.ledger.rollouts()
        pending = rollouts[rollouts["pass"].isna() & rollouts["task_id"].isin(list(tests))]
        self.ledger.set_passes(
            {k: score(tests[t], self.run.workspace(k)) for k, t in zip(pending["key"], pending["task_id"], strict=True)}
        )

    def scores(self) -> dict[str, Score]:
        return candidate_scores(self.ledger.rollouts(), self.splits.coreset)

    # -- selection and improvement --------------------------------------------------------------
    def select(self, epoch: int) -> Selected:
        """Filter (below seed, dominated) over every candidate so far, then J_m per mode."""
        scores = self.scores()
        ids = sorted(scores)
        pr = [scores[i].pass_rate for i in ids]
        cost = [scores[i].cost_per_task for i in ids]
        keep = pareto.survivors(pr, cost, scores[SEED_ID].pass_rate)
        modes = {m: (w.alpha, w.beta) for m, w in self.config.selection.modes.items()}
        kept_ids = [ids[i] for i in keep]
        local = pareto.select_modes([pr[i] for i in keep], [cost[i] for i in keep], modes,
                                    self.config.evolution.max_survivors)
        picks = {mode: kept_ids[i] for mode, i in local.items()}
        j = {m: pareto.objective_j([pr[i] for i in keep], [cost[i] for i in keep], *w) for m, w in modes.items()}
        rows = [(m, cid, scores[cid].pass_rate, scores[cid].cost_per_task, float(j[m][kept_ids.index(cid)]))
                for m, cid in picks.items()]
        self.ledger.record_selection(epoch, rows)
        hv = pareto.hypervolume(pr, cost, ref_cost=2 * max(cost))
        return Selected(epoch, picks, set(kept_ids), hv)

    def traces(self, candidate_ids: set[str]) -> list[Trace]:
        """Train-split traces only: the improvers never see validation or test rollouts."""
        rollouts = self.ledger.rollouts()
        rows = rollouts[rollouts["candidate_id"].isin(list(candidate_ids))
                        & rollouts["task_id"].isin(list(self.splits.coreset))]
        return [
            Trace(r.key, r.candidate_id, r.task_id, bool(r["pass"]), self.run.trajectory(r.key),
                  int(r.output), int(r.n_calls))
            for _, r in rows.iterrows()
        ]

    def improve(self, epoch: int, parent_ids: list[str]) -> list[Candidate]:
        """Analyse the parents, plan under three directives, edit; returns candidates to evaluate."""
        candidates, scores = self.candidates(), self.scores()
        diagnoses = analyze(self.traces(set(parent_ids)))
        self.ledger.record_diagnoses(epoch, diagnoses)
        prevalences = {p: prevalence(diagnoses, p, scores[p].n_rollouts) for p in parent_ids}
        plans = plan_all([candidates[p] for p in parent_ids], candidates, prevalences, scores)
        children: list[Candidate] = []
        for plan in plans:
            existing = list(self.candidates().values())
            next_id = lambda: f"c{len(existing):03d}"  # noqa: E731 - ids follow creation order
            edit = apply_plan(plan, candidates[plan.parent_id], self.repo, existing, next_id, epoch)
            if edit.new and edit.candidate:
                self.ledger.add_candidate(edit.candidate)
            if edit.candidate and edit.candidate.epoch == epoch:
                children.append(edit.candidate)
            self.ledger.record_plan(epoch, plan, edit.candidate.id if edit.candidate else None)
            outcome = edit.candidate.id if edit.candidate else f"discarded ({edit.reason})"
            self.console.print(
                f"  plan {plan.parent_id} ({plan.directive}) {plan.mechanism}: predicted pass "
                f"{plan.predicted_pass:+.3f}, cost {plan.predicted_cost:+.1%} -> {outcome}"
            )
        return list({c.id: c for c in children}.values())

    def check_predictions(self, epoch: int) -> None:
        scores = self.scores()
        plans = self.ledger.plans()
        for p in plans[plans["epoch"] == epoch].itertuples():
            if p.child_id not in scores or p.parent_id not in scores:
                continue
            from harnesspro.records import Plan

            plan = Plan(p.parent_id, p.directive, p.mechanism, p.rationale, p.predicted_pass, p.predicted_cost)
            d_pass, d_cost, held = check_prediction(plan, scores[p.parent_id], scores[p.child_id])
            self.console.print(
                f"  check {p.child_id} ({p.mechanism}): pass {d_pass:+.3f} (pred {p.predicted_pass:+.3f}), "
                f"cost {d_cost:+.1%} (pred {p.predicted_cost:+.1%}) -> {'held' if held else 'missed'}"
            )

    # -- the loop -------------------------------------------------------------------------------
    def epoch_zero(self) -> Selected:
        seed = self.seed()
        self.console.print(
            f"coreset ({len(self.splits.coreset)} tasks, DPP): {', '.join(self.splits.coreset)}"
        )
        self.evaluate([seed], 0)
        self.freeze_tests()
        self.score_pending()
        return self.close_epoch(0)

    def close_epoch(self, epoch: int) -> Selected:
        selected = self.select(epoch)
        self.ledger.finish_epoch(epoch, selected.hypervolume)
        write_epoch_reports(self, selected)
        scores = self.scores()
        for mode, cid in selected.picks.items():
            s = scores[cid]
            self.console.print(
                f"  epoch {epoch} {mode:>6}: {cid} pass {s.pass_rate:.1%} ${s.cost_per_task:.4f}/task"
            )
        return selected

    def run_epoch(self, epoch: int, previous: Selected) -> Selected:
        self.console.rule(f"epoch {epoch}")
        parents = sorted(set(previous.picks.values()))
        children = self.improve(epoch, parents)
        self.evaluate(children, epoch)
        self.score_pending()
        self.check_predictions(epoch)
        return self.close_epoch(epoch)

    def selected(self, epoch: int) -> Selected:
        """A finished epoch's selection, read back from the ledger (for resuming)."""
        sel = self.ledger.selections()
        rows = sel[sel["epoch"] == epoch]
        epochs = self.ledger.finished_epochs()
        hv = float(epochs[epochs["epoch"] == epoch]["hypervolume"].iloc[0])
        return Selected(epoch, dict(zip(rows["mode"], rows["candidate_id"], strict=True)), set(), hv)

    def run_all_epochs(self) -> Selected:
        finished = set(self.ledger.finished_epochs()["epoch"])
        selected = self.selected(0) if 0 in finished else self.epoch_zero()
        for epoch in range(1, self.config.evolution.epochs + 1):
            selected = self.selected(epoch) if epoch in finished else self.run_epoch(epoch, selected)
        self.ledger.set_meta("status", "complete")
        return selected


def main(argv: list[str] | None = None) -> int:
    """`python -m harnesspro.evolve` is `harnesspro evolve`."""
    from harnesspro.cli import main as cli_main

    return cli_main(["evolve", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
