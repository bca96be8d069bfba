#!/usr/bin/env bash
# A warm night of a KUKA fleet, before and after least squares (docs/fleet.md, "Warm start"):
#   night 1: N KUKA-like robots (fleet_timings.sh's recipe: seed 2026, parameters within +-20 % of
#            ref. [34], milling and reach, 1 % noise) fitted cold with datasets/kuka_kr90/fit.yaml;
#   night 2: the same robots measured again (frfit-make-fleet --night 2: fresh noise, three
#            planted drifts) with night 1's results as `previous`, fitted
#              after:  the default warm start (least squares from the previous result, fallback),
#              before: warm_start.method genetic_algorithm (5 GA generations within +-0.05, then
#                      the configuration's refinement and cycles: the warm start before it), on
#                      the first BEFORE_N robots (default all; 0: no before night).
# Each night is one `frfit fleet` process timed around the whole command. Printed per night: wall
# time, evaluations, rounds, robots refitted cold, robots whose every mode below 30 Hz is within
# 1 % of night 2's truth, and the drift flags against the planted ones.
# Usage: [BACKEND=cpu|cuda|auto] [THREADS=2] [BEFORE_N=N] benchmarks/fleet_warm_night.sh [N=1024] [WORK=/tmp/frfit_warm_night]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1024}
WORK=${2:-/tmp/frfit_warm_night}
BACKEND=${BACKEND:-cpu}
THREADS=${THREADS:-2}
BEFORE_N=${BEFORE_N:-$N}
rm -rf "$WORK" && mkdir -p "$WORK"
make_fleet() {
  build/frfit-make-fleet --model datasets/kuka_kr90/model.yaml --params datasets/kuka_kr90/params_from34.yaml \
    --robots "$N" --seed 2026 --postures milling,reach --perturb 0.2 --noise 0.01 \
    --config datasets/kuka_kr90/fit.yaml "$@" > /dev/null
}
timed_night() {  # $1 manifest, $2 run id
  local start end
  start=$(date +%s.%N)
  build/frfit fleet --manifest "$1" --out "$WORK/out" --run-id "$2" --backend "$BACKEND" --threads "$THREADS" \
    --quiet --json > "$WORK/$2.json"
  end=$(date +%s.%N)
  python3 -c "print($end - $start)" > "$WORK/$2.seconds"
  echo "$2: $(cat "$WORK/$2.seconds") s"  # as it finishes: a run cut short still says how far it got
}
# Robot names as frfit-make-fleet writes them, and three planted drifts on well-determined stiffnesses.
name() { python3 -c "n, i = $N, $1; print('robot_' + str(i).zfill(max(3, len(str(n - 1)))))"; }
DRIFT="$(name $((N / 10))):k_x1=1.05;$(name $((N / 2))):k_y1=0.95;$(name $((9 * N / 10))):k_z3=1.03"

make_fleet --out "$WORK/night1"
echo "night 1 data: $N robots made"
timed_night "$WORK/night1/fleet.yaml" night1
make_fleet --night 2 --drift "$DRIFT" --previous "$WORK/out/night1" --out "$WORK/night2"
timed_night "$WORK/night2/fleet.yaml" after
# Before: the same manifest with the GA warm start, on the first BEFORE_N robots (0: no before night).
((BEFORE_N > 0)) && python3 - "$WORK" "$BEFORE_N" <<'PY'
import sys
work, keep = sys.argv[1], int(sys.argv[2])
out, robots = [], 0
for line in open(f"{work}/night2/fleet.yaml"):
    if line.startswith("  - name: "):
        robots += 1
    if robots > keep and (line.startswith("  - name: ") or line.startswith("    ")):
        continue
    out.append(line)
    if line.startswith("seed:"):
        out.append("warm_start: {method: genetic_algorithm, generations: 5, init_spread: 0.05}\n")
open(f"{work}/night2/fleet_before.yaml", "w").writelines(out)
PY
((BEFORE_N > 0)) && timed_night "$WORK/night2/fleet_before.yaml" before

python3 - "$WORK" "$DRIFT" "$BEFORE_N" <<'PY'
import json, sys
work, drift, before_n = sys.argv[1], sys.argv[2], int(sys.argv[3])
planted = {tuple(item.split(":")[0:1] + [item.split(":")[1].split("=")[0]]) for item in drift.split(";")}
truths = {1: {r["name"]: r for r in json.load(open(f"{work}/night1/truth.json"))["robots"]},
          2: {r["name"]: r for r in json.load(open(f"{work}/night2/truth.json"))["robots"]}}
def worst_mode_error(robot, truth):
    worst = 0.0
    for posture, data in truth["postures"].items():
        fitted = robot["modal_frequencies_hz"][posture]
        for mode in data["modes"]:
            f = mode["frequency_hz"]
            if f < 30:
                worst = max(worst, min(abs(g - f) / f for g in fitted))
    return worst
runs = [(1, "night1", 1), (2, "after", 2)] + ([(2, "before", 2)] if before_n > 0 else [])
for night, run, truth in runs:
    s = json.load(open(f"{work}/{run}.json"))
    seconds = float(open(f"{work}/{run}.seconds").read())
    ok = [r for r in s["robots"] if r["status"] == "ok"]
    within = sum(worst_mode_error(r, truths[truth][r["name"]]) < 0.01 for r in ok)
    print(f"{run} (night {night}): {len(ok)} robots, {seconds:.1f} s (fitting loop {s['drive_seconds']:.1f} s, "
          f"evaluator {s['evaluator_seconds']:.1f} s), {s['evaluations']} evaluations in {s['rounds']} rounds, "
          f"{s['robots_fell_back']} refitted cold, {within}/{len(ok)} with every mode below 30 Hz within 1 %")
    print("  stages: " + ", ".join(f"{k} {v:.2f} s" for k, v in s.get("stage_seconds", {}).items()))
    if night == 2:
        flagged = {(r["name"], p) for r in ok if r.get("drift") for p in r["drift"]["flagged_parameters"]}
        subset = {n for n, _ in planted if int(n.split("_")[1]) < before_n} if run == "before" else {n for n, _ in planted}
        want = {x for x in planted if x[0] in subset}
        noted = sum(1 for r in ok if r.get("drift") and r["drift"].get("note"))
        robots = {r["name"] for r in ok if r.get("drift") and (r["drift"]["flagged_parameters"] or r["drift"]["flagged_frequencies"])}
        print(f"  drift: planted {sorted(want)}; flagged parameters {len(flagged)}, of them planted "
              f"{len(flagged & want)}, others {sorted(flagged - want)[:8]}; robots with any flag {len(robots)}; "
              f"not assessed (previous fit poor) {noted}")
        if run == "after":
            for r in ok:
                if r.get("fallback"):
                    print(f"  refitted cold: {r['name']} (kept {r['fallback']['kept']}, cost {r['cost']:.4g}): "
                          f"{r['fallback']['reason']}")
PY
