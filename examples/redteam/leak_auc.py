"""Red team: do visible fields predict which sources are critical (in an optimal set)?

    .venv/bin/python examples/redteam/leak_auc.py G,B,A,H,C,E,F,I 200

Train on development seed 0, test on seed 1: per family and feature group, a ridge
linear-probability model (features and their squares) over the sources that report a decision
variable (a source reporting none is never critical, and says so openly). It prints the pooled
AUC and the within-scenario AUC (the ranking a policy could use inside one scenario), beside the
same fitted to labels shuffled within each training scenario (that baseline keeps each scenario's
composition, so it is not always 0.5), and how much each group adds to the honest signals
(authority, age, reports, stakes). Ids, labels, position and ``kind`` should add nothing.
"""

import sys
import zlib

import numpy as np

from heedful import decision
from heedful.bench.score.scoring import decision_variables
from heedful.bench.worlds.families import generate_family

FAMS = sys.argv[1].split(",") if len(sys.argv) > 1 else ["G", "B", "A", "H", "C", "E", "F", "I"]
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 80


def rows(fam, seed):
    X, y, grp = [], [], []
    for k, sc in enumerate(generate_family(fam, COUNT, seed)):
        v = sc.view
        p = decision.compile_problem(v, sc.truth)
        st = decision.static_oracle(p, v.budget)
        crit = set().union(*map(set, st.optimal_sets)) if st.optimal_sets else set()
        dec = decision_variables(v)
        believed = {b.variable: b for b in v.beliefs}
        n = len(v.sources)
        stake = {}
        for a in v.actions.values():
            for r in a.utility:
                for var in r.when:
                    stake[var] = max(stake.get(var, 0.0), abs(r.value))
        for pos, s in enumerate(v.sources):
            if not set(s.reports) & dec:
                continue
            kind_h = zlib.crc32(s.kind.encode()) % 1000
            lab = s.label.split()
            f = {
                # ids / labels / ordering / kind
                "pos": pos / max(1, n - 1),
                "suffix": float("-" in s.id and s.id.rsplit("-", 1)[-1].isdigit()),
                "id_len": len(s.id),
                "label_len": len(s.label),
                "label_words": len(lab),
                "kind": kind_h,
                "n_sources": n,
                "budget": v.budget,
                # cost
                "tool_calls": s.cost.tool_calls,
                "tokens": s.cost.tokens,
                "latency": s.cost.latency_ms,
                "cost": s.cost.scalar(),
                "cost_rank": sorted(x.cost.scalar() for x in v.sources).index(s.cost.scalar()) / n,
                # salience / content
                "urgent": s.salience.urgent_words,
                "verbosity": s.salience.verbosity,
                "repeats": s.salience.repeats,
                "recency": s.salience.recency_s if s.salience.recency_s is not None else -1,
                "content_len": len(s.content),
                # honest signals
                "authority": s.authority,
                "age": s.age_s,
                "n_reports": len(s.reports),
                "n_dec_reports": len(set(s.reports) & dec),
                "reports_belief": float(any(r in believed for r in s.reports)),
                "stake": max(stake.get(r, 0.0) for r in s.reports),
                "n_rules": sum(
                    1
                    for a in v.actions.values()
                    for r in a.utility
                    for var in r.when
                    if var in s.reports
                ),
                "newer_than_belief": float(
                    any(r in believed and s.age_s < believed[r].age_s for r in s.reports)
                ),
            }
            X.append(f)
            y.append(float(s.id in crit))
            grp.append(k)
    return X, np.array(y), np.array(grp)


GROUPS = {
    "ids/labels/order/kind": [
        "pos",
        "suffix",
        "id_len",
        "label_len",
        "label_words",
        "n_sources",
        "budget",
    ],
    "kind (target-encoded)": ["kind"],
    "cost": ["tool_calls", "tokens", "latency", "cost", "cost_rank"],
    "salience/content": ["urgent", "verbosity", "repeats", "recency", "content_len"],
    "honest (authority, age, reports)": [
        "authority",
        "age",
        "n_reports",
        "n_dec_reports",
        "reports_belief",
        "newer_than_belief",
        "stake",
        "n_rules",
    ],
}


def auc(score, y):
    pos, neg = score[y == 1], score[y == 0]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    order = np.argsort(np.concatenate([pos, neg]), kind="mergesort")
    allv = np.concatenate([pos, neg])
    ranks = np.empty(len(allv))
    # average ranks for ties
    sv = allv[order]
    i = 0
    while i < len(sv):
        j = i
        while j + 1 < len(sv) and sv[j + 1] == sv[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def within_auc(score, y, g):
    """Mean over test scenarios of P(a critical source outranks a non-critical one)."""
    vals = []
    for k in np.unique(g):
        m = g == k
        a = auc(score[m], y[m])
        if a == a:
            vals.append(a)
    return float(np.mean(vals)) if vals else float("nan")


def design(X, cols, kind_map=None):
    M = []
    for f in X:
        row = []
        for c in cols:
            if c == "kind":
                row.append(kind_map.get(f["kind"], 0.0) if kind_map is not None else 0.0)
            else:
                row.append(float(f[c]))
        M.append(row)
    M = np.array(M)
    return M


def fit_predict(Xtr, ytr, Xte, cols, kind_map):
    A, B = design(Xtr, cols, kind_map), design(Xte, cols, kind_map)
    mu, sd = A.mean(0), A.std(0) + 1e-9
    A, B = (A - mu) / sd, (B - mu) / sd
    # quadratic terms too, so a non-monotone give-away is found
    A = np.hstack([A, A**2, np.ones((len(A), 1))])
    B = np.hstack([B, B**2, np.ones((len(B), 1))])
    w = np.linalg.solve(A.T @ A + 1.0 * np.eye(A.shape[1]), A.T @ ytr)
    return B @ w


rng = np.random.default_rng(0)
for fam in FAMS:
    Xtr, ytr, gtr = rows(fam, 0)
    Xte, yte, gte = rows(fam, 1)
    shuffled = ytr.copy()
    for g in np.unique(gtr):
        idx = np.where(gtr == g)[0]
        shuffled[idx] = rng.permutation(shuffled[idx])
    kinds = {}
    for f, lab in zip(Xtr, ytr, strict=True):
        kinds.setdefault(f["kind"], []).append(lab)
    kind_map = {k: (sum(v) + 1) / (len(v) + 2) for k, v in kinds.items()}
    print(f"{fam}: {len(yte)} decision-relevant test sources, {yte.mean():.2f} critical")
    for name, cols in [*GROUPS.items(), ("all", [c for group in GROUPS.values() for c in group])]:
        a = fit_predict(Xtr, ytr, Xte, cols, kind_map)
        b = fit_predict(Xtr, shuffled, Xte, cols, kind_map)
        print(
            f"   {name:34s} AUC {auc(a, yte):.3f} within-scenario {within_auc(a, yte, gte):.3f}"
            f" | shuffled-label {auc(b, yte):.3f} / {within_auc(b, yte, gte):.3f}"
        )
    honest = GROUPS["honest (authority, age, reports)"]
    base = within_auc(fit_predict(Xtr, ytr, Xte, honest, kind_map), yte, gte)
    for name, cols in GROUPS.items():
        if cols is honest:
            continue
        a = within_auc(fit_predict(Xtr, ytr, Xte, honest + cols, kind_map), yte, gte)
        print(f"   honest + {name:25s} within-scenario AUC {a:.3f}  (Δ {a - base:+.3f})")
