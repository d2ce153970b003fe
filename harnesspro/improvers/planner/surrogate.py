"""A Bayesian surrogate of lever effects, fit to every measured rollout.

Each rollout is one row: the candidate's lever features (one bit per catalog mechanism it
carries), the task, whether it passed and its log cost. Two models share the features:

- pass: logistic regression, `logit P(pass) = a_task + sum_j b_j x_j + sum_{j<k} g_jk x_j x_k`,
  Gaussian priors (task intercepts wide, main effects weak and centred on the catalog's
  expectation, pairwise interactions shrunk towards 0), posterior by the Laplace approximation
  (Newton's method to the mode, a step halved while it would lower the posterior; the inverse
  Hessian as covariance);
- cost: the same linear predictor for `log cost` with Gaussian noise, conjugate Gaussian
  posterior, the noise variance estimated from the residuals.

The posterior (mean and covariance of every coefficient), not a point estimate, is what the
search decides on: `predict` draws coefficient vectors and returns, per draw, the pass rate and
the cost per task a genome would score on the measured tasks. numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Observations:
    """One row per scored rollout."""

    genomes: npt.NDArray[np.bool_]  # (n, m): the candidate's mechanism bits
    tasks: npt.NDArray[np.int64]  # (n,): task index in [0, n_tasks)
    passed: Array  # (n,): 1.0 pass, 0.0 fail
    log_cost: Array  # (n,): NaN where the cost is unknown (left out of the cost model)
    n_tasks: int


@dataclass(frozen=True)
class Prior:
    """Prior means of the main effects (logit for pass, log for cost) and the scales."""

    pass_mean: Array  # (m,)
    cost_mean: Array  # (m,)
    main_sd: float = 1.0
    pair_sd: float = 0.3
    cost_main_sd: float = 0.5
    cost_pair_sd: float = 0.15
    task_sd: float = 2.5


def flat_prior(m: int) -> Prior:
    """Main effects centred on 0 (no catalog knowledge)."""
    return Prior(np.zeros(m), np.zeros(m))


@dataclass(frozen=True)
class Gaussian:
    mean: Array
    cov: Array

    def sd(self) -> Array:
        return np.sqrt(np.clip(np.diag(self.cov), 0.0, None))

    def draws(self, rng: np.random.Generator, k: int) -> Array:
        """`k` coefficient vectors from the posterior (rows)."""
        return rng.multivariate_normal(self.mean, self.cov, size=k, method="cholesky")


def pair_index(m: int) -> npt.NDArray[np.int64]:
    """Every pair j < k of `m` mechanisms, as rows (j, k)."""
    j, k = np.triu_indices(m, 1)
    return np.column_stack([j, k]).astype(np.int64)


def design(genomes: npt.NDArray[np.bool_], pairs: npt.NDArray[np.int64]) -> Array:
    """Main-effect bits then pairwise products: (n, m + len(pairs))."""
    x = genomes.astype(float)
    return np.hstack([x, x[:, pairs[:, 0]] * x[:, pairs[:, 1]]])


def _sigmoid(z: Array) -> Array:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def log_posterior(x: Array, y: Array, w: Array, mu0: Array, prec0: Array) -> float:
    """The logistic log likelihood plus the Gaussian log prior, up to a constant."""
    z = x @ w
    return float(y @ z - np.sum(np.logaddexp(0.0, z)) - 0.5 * prec0 @ (w - mu0) ** 2)


def laplace_logistic(x: Array, y: Array, mu0: Array, prec0: Array, iters: int = 100) -> Gaussian:
    """Mode and inverse Hessian of the logistic posterior with a N(mu0, diag(1/prec0)) prior.
    Newton's steps are halved until the log posterior does not fall: a full step can overshoot
    far from the mode (nearly separable rows, many features) and never come back."""
    w = mu0.copy()
    current = log_posterior(x, y, w, mu0, prec0)
    for _ in range(iters):
        p = _sigmoid(x @ w)
        grad = x.T @ (y - p) - prec0 * (w - mu0)
        hess = (x.T * (p * (1 - p))) @ x + np.diag(prec0)
        step = np.linalg.solve(hess, grad)
        for _ in range(40):
            value = log_posterior(x, y, w + step, mu0, prec0)
            if value >= current - 1e-12:
                break
            step = step / 2
        w, current = w + step, value
        if np.max(np.abs(step)) < 1e-9:
            break
    p = _sigmoid(x @ w)
    hess = (x.T * (p * (1 - p))) @ x + np.diag(prec0)
    cov = np.linalg.inv(hess)
    return Gaussian(w, (cov + cov.T) / 2)


def gaussian_linear(
    x: Array, y: Array, mu0: Array, prec0: Array, rounds: int = 3
) -> tuple[Gaussian, float]:
    """Conjugate posterior of a linear model and the noise variance (re-estimated from the
    residuals at the posterior mean, with a weak floor of 2 pseudo-rows at variance 0.05)."""
    noise = float(np.var(y)) if len(y) > 1 else 1.0
    noise = max(noise, 1e-4)
    post = Gaussian(mu0, np.diag(1 / prec0))
    for _ in range(rounds):
        prec = x.T @ x / noise + np.diag(prec0)
        cov = np.linalg.inv(prec)
        mean = cov @ (x.T @ y / noise + prec0 * mu0)
        post = Gaussian(mean, (cov + cov.T) / 2)
        resid = y - x @ mean
        noise = max((float(resid @ resid) + 2 * 0.05) / (len(y) + 2), 1e-4)
    return post, noise


@dataclass(frozen=True)
class Surrogate:
    """Posterior of both models; coefficients laid out as [task intercepts, mains, pairs]."""

    pairs: npt.NDArray[np.int64]
    n_tasks: int
    pass_post: Gaussian
    cost_post: Gaussian
    noise_var: float

    @property
    def n_mech(self) -> int:
        return len(self.pass_post.mean) - self.n_tasks - len(self.pairs)

    def main_effects(self, which: str = "pass") -> Gaussian:
        """Posterior of the main effects alone (`pass` on logit, `cost` on log scale)."""
        post = self.pass_post if which == "pass" else self.cost_post
        s = slice(self.n_tasks, self.n_tasks + self.n_mech)
        return Gaussian(post.mean[s], post.cov[s, s])

    def draws(self, rng: np.random.Generator, k: int) -> tuple[Array, Array]:
        """`k` coefficient vectors of each model (rows), to score many genomes alike."""
        return self.pass_post.draws(rng, k), self.cost_post.draws(rng, k)

    def predict(
        self, genomes: npt.NDArray[np.bool_], rng: np.random.Generator, draws: int
    ) -> tuple[Array, Array]:
        """Per posterior draw (rows) and genome (columns): the pass rate and the cost per task
        averaged over the tasks."""
        return self.score(genomes, *self.draws(rng, draws))

    def mean(self, genomes: npt.NDArray[np.bool_]) -> tuple[Array, Array]:
        """Pass rate and cost per task at the posterior mean (the shrunk estimate)."""
        pr, cost = self.score(genomes, self.pass_post.mean[None], self.cost_post.mean[None])
        return pr[0], cost[0]

    def score(
        self, genomes: npt.NDArray[np.bool_], w_pass: Array, w_cost: Array
    ) -> tuple[Array, Array]:
        """Pass rate and cost per task of each genome (columns) under each coefficient row."""
        t = self.n_tasks
        x = design(genomes, self.pairs)  # (k, f)
        eta = w_pass[:, t:] @ x.T  # (S, k)
        mu = w_cost[:, t:] @ x.T
        pr = _sigmoid(eta[:, :, None] + w_pass[:, None, :t]).mean(axis=2)
        cost = np.exp(mu[:, :, None] + w_cost[:, None, :t] + self.noise_var / 2).mean(axis=2)
        return pr, cost


def _task_block(obs: Observations) -> Array:
    one_hot = np.zeros((len(obs.tasks), obs.n_tasks))
    one_hot[np.arange(len(obs.tasks)), obs.tasks] = 1.0
    return one_hot


def fit(obs: Observations, prior: Prior) -> Surrogate:
    """The posterior of both models given every observed rollout."""
    m = obs.genomes.shape[1]
    pairs = pair_index(m)
    x = np.hstack([_task_block(obs), design(obs.genomes, pairs)])
    t, q = obs.n_tasks, len(pairs)
    task_pass = np.array([_logit_rate(obs.passed[obs.tasks == i]) for i in range(t)])
    mu_p = np.concatenate([task_pass, prior.pass_mean, np.zeros(q)])
    prec_p = np.concatenate(
        [np.full(t, prior.task_sd**-2), np.full(m, prior.main_sd**-2)]
        + [np.full(q, prior.pair_sd**-2)]
    )
    pass_post = laplace_logistic(x, obs.passed, mu_p, prec_p)
    known = np.isfinite(obs.log_cost)
    y = obs.log_cost[known]
    centre = float(np.mean(y)) if len(y) else 0.0
    mu_c = np.concatenate([np.full(t, centre), prior.cost_mean, np.zeros(q)])
    prec_c = np.concatenate(
        [np.full(t, 0.5), np.full(m, prior.cost_main_sd**-2), np.full(q, prior.cost_pair_sd**-2)]
    )
    cost_post, noise = gaussian_linear(x[known], y, mu_c, prec_c)
    return Surrogate(pairs, t, pass_post, cost_post, noise)


def _logit_rate(passed: Array) -> float:
    """Smoothed logit of a pass rate ((passes + 1) / (n + 2)): the task intercept's prior mean."""
    rate = (float(np.sum(passed)) + 1) / (len(passed) + 2)
    return float(np.log(rate / (1 - rate)))
