#!/usr/bin/env bash
# Whole-command fleet figures: generates N KUKA-like robots (parameters scattered ±20 % around
# ref. [34], FRFs at the postures milling and reach with 1 % noise), refits them as one batched
# `frfit fleet` run, then
#   - checks every robot's modal frequencies below 30 Hz against its truth,
#   - refits every robot alone with `frfit fit --seed <its fleet seed>` and compares (==),
#   - kills a second fleet run after its first checkpoint, resumes it and compares (==),
# and prints robots per hour. Usage: benchmarks/fleet_timings.sh [N=64] [WORK=/tmp/frfit_fleet]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-64}
WORK=${2:-/tmp/frfit_fleet}
BACKEND=${BACKEND:-auto}
rm -rf "$WORK" && mkdir -p "$WORK"
build/frfit-make-fleet --model datasets/kuka_kr90/model.yaml --params datasets/kuka_kr90/params_from34.yaml \
  --robots "$N" --seed 2026 --postures milling,reach --perturb 0.2 --noise 0.01 \
  --config datasets/kuka_kr90/fit.yaml --out "$WORK/fleet" > /dev/null
start=$(date +%s.%N)
build/frfit fleet --manifest "$WORK/fleet/fleet.yaml" --out "$WORK/out" --run-id batched \
  --backend "$BACKEND" --quiet --json > "$WORK/batched.json"
end=$(date +%s.%N)
batched_seconds=$(python3 -c "print($end - $start)")

# Every robot alone, with the seed the fleet derived for it.
start=$(date +%s.%N)
python3 - "$WORK" <<'PY' > "$WORK/separate.sh"
import json, sys
work = sys.argv[1]
s = json.load(open(f"{work}/batched.json"))
m = f"{work}/fleet"
for r in s["robots"]:
    frf = ",".join(f"{m}/{r['name']}/frf_{p}.h5" for p in ("milling", "reach"))
    print(f"build/frfit fit --model {m}/model.yaml --config {m}/fit.yaml --frf {frf} "
          f"--seed {r['seed']} --backend $BACKEND --quiet --json > {work}/separate_{r['name']}.json")
PY
BACKEND=$BACKEND bash "$WORK/separate.sh"
end=$(date +%s.%N)
separate_seconds=$(python3 -c "print($end - $start)")

# Kill after the first checkpoint, then resume.
build/frfit fleet --manifest "$WORK/fleet/fleet.yaml" --out "$WORK/out" --run-id resumed \
  --backend "$BACKEND" --checkpoint-every 20000 --quiet --json > /dev/null 2>&1 &
pid=$!
while [[ ! -f "$WORK/out/resumed/checkpoint.json" ]] && kill -0 $pid 2>/dev/null; do sleep 0.2; done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
build/frfit fleet --manifest "$WORK/fleet/fleet.yaml" --out "$WORK/out" --run-id resumed --resume \
  --backend "$BACKEND" --quiet --json > "$WORK/resumed.json"

python3 - "$WORK" "$batched_seconds" "$separate_seconds" <<'PY'
import json, sys
work, batched_s, separate_s = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
b = json.load(open(f"{work}/batched.json"))
r = json.load(open(f"{work}/resumed.json"))
truth = {t["name"]: t for t in json.load(open(f"{work}/fleet/truth.json"))["robots"]}
worst = 0.0
same_separate = same_resumed = 0
resumed = {x["name"]: x for x in r["robots"]}
for robot in b["robots"]:
    for posture, fitted in robot["modal_frequencies_hz"].items():
        for mode in truth[robot["name"]]["postures"][posture]["modes"]:
            f = mode["frequency_hz"]
            if f <= 30:
                worst = max(worst, min(abs(x - f) / f for x in fitted))
    alone = json.load(open(f"{work}/separate_{robot['name']}.json"))
    same_separate += alone["parameters"] == robot["parameters"] and alone["cost"] == robot["cost"]
    again = resumed[robot["name"]]
    same_resumed += again["parameters"] == robot["parameters"] and again["cost"] == robot["cost"]
n = len(b["robots"])
print(f"robots: {n} ok of {n + b['robots_skipped']}, evaluations {b['evaluations']}, backend {b['backend']}")
print(f"worst modal frequency error below 30 Hz: {100 * worst:.4f} %")
print(f"identical to separate runs: {same_separate}/{n}; identical after kill + resume: {same_resumed}/{n} "
      f"(resumed at {r['resumed_at_evaluations']} evaluations)")
print(f"batched: {batched_s:.1f} s = {3600 * n / batched_s:.0f} robots/hour; "
      f"separate: {separate_s:.1f} s = {3600 * n / separate_s:.0f} robots/hour")
PY
