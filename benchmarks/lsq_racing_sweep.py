#!/usr/bin/env python3
"""frfit's KUKA least-squares fit under variants of its configuration, on the random truths of
lsq_vs_scipy.py (same draw for a given --seed): success (every parameter within 2 % of the truth),
evaluations and evaluator calls per variant. Evaluation counts are deterministic, so this can run
on a busy machine.

  python3 benchmarks/lsq_racing_sweep.py --trials 60 \\
      base= drop100='levenberg_marquardt: {drop_factor: 100, drop_after: 3}'

Each variant is NAME=YAML: lines appended to datasets/kuka_kr90/fit.yaml (';' separates lines).
"""
import argparse
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lsq_vs_scipy as peer  # noqa: E402  (its truth draw, bounds and problem families)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--build", default=os.path.join(peer.ROOT, "build"))
    ap.add_argument("variants", nargs="+", help="NAME=YAML appended to the bundled fit.yaml")
    args = ap.parse_args()
    frfit = os.path.join(args.build, "frfit")
    with tempfile.TemporaryDirectory() as work:
        _, model, postures, config = peer.families(work)[0]  # KUKA, one posture
        bounds = peer.model_bounds(open(model).read())
        rng = random.Random(args.seed)
        truths = []
        for t in range(args.trials):
            truth = peer.draw_truth(rng, bounds)
            params = peer.write_params(truth, os.path.join(work, f"truth{t}.yaml"))
            truths.append((truth, peer.simulate(frfit, model, postures[0], params,
                                                os.path.join(work, f"frf{t}.h5"))))
        base = open(config).read()
        for variant in args.variants:
            name, _, extra = variant.partition("=")
            cfg = os.path.join(work, f"{name}.yaml")
            open(cfg, "w").write(base + "\n" + extra.replace(";", "\n") + "\n")
            ok, evaluations, rounds = 0, [], []
            for truth, frf in truths:
                (success, count, _, calls), _ = peer.frfit_fit(frfit, model, frf, cfg, truth)
                ok += success
                evaluations.append(count)
                rounds.append(calls)
            evaluations.sort()
            print(f"{name}: {ok}/{len(truths)} recovered, evaluations mean {sum(evaluations) / len(evaluations):.0f} "
                  f"median {evaluations[len(evaluations) // 2]} max {evaluations[-1]}, "
                  f"evaluator calls mean {sum(rounds) / len(rounds):.0f}", flush=True)


if __name__ == "__main__":
    main()
