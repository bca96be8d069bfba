#!/usr/bin/env bash
# Time to solution of a fleet refit, without the cross-checks of fleet_timings.sh (which refits
# every robot a second time alone and a third time through kill + resume, too slow at 1024 robots):
#   night 1: N KUKA-like robots fitted from scratch (the first night of a fleet),
#   night 2: the same robots and data warm-started from night 1's results (the default least-squares
#            warm start, docs/fleet.md; benchmarks/fleet_warm_night.sh measures new data, before
#            and after),
# each one `frfit fleet` process, timed around the whole command, and printed as robots per hour.
# Night 2 runs only with NIGHTS=2. The fleet, seeds and configuration are those of fleet_timings.sh.
# Usage: [BACKEND=cpu|cuda|auto] [NIGHTS=1|2] benchmarks/fleet_throughput.sh [N=1024] [WORK=/tmp/frfit_fleet_throughput]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1024}
WORK=${2:-/tmp/frfit_fleet_throughput}
BACKEND=${BACKEND:-auto}
NIGHTS=${NIGHTS:-1}
rm -rf "$WORK" && mkdir -p "$WORK"
build/frfit-make-fleet --model datasets/kuka_kr90/model.yaml --params datasets/kuka_kr90/params_from34.yaml \
  --robots "$N" --seed 2026 --postures milling,reach --perturb 0.2 --noise 0.01 \
  --config datasets/kuka_kr90/fit.yaml --out "$WORK/fleet" > /dev/null

timed_night() {  # $1 manifest, $2 run id
  local start end
  start=$(date +%s.%N)
  build/frfit fleet --manifest "$1" --out "$WORK/out" --run-id "$2" --backend "$BACKEND" \
    --progress --progress-every 50 --json > "$WORK/$2.json" 2> "$WORK/$2.log"
  end=$(date +%s.%N)
  python3 -c "print($end - $start)" > "$WORK/$2.seconds"
}

timed_night "$WORK/fleet/fleet.yaml" night1

if [[ $NIGHTS == 2 ]]; then
  # Night 2's manifest: night 1's, with each robot's result as its `previous`.
  python3 - "$WORK" <<'PY'
import sys
work = sys.argv[1]
lines = []
for line in open(f"{work}/fleet/fleet.yaml"):
    lines.append(line)
    if line.startswith("  - name: "):
        name = line.split(":", 1)[1].strip()
        lines.append(f"    previous: ../out/night1/{name}.h5\n")
open(f"{work}/fleet/fleet_night2.yaml", "w").writelines(lines)
PY
  timed_night "$WORK/fleet/fleet_night2.yaml" night2
fi

python3 - "$WORK" "$NIGHTS" <<'PY'
import json, sys
work, nights = sys.argv[1], int(sys.argv[2])
for night in ["night1", "night2"][:nights]:
    s = json.load(open(f"{work}/{night}.json"))
    seconds = float(open(f"{work}/{night}.seconds").read())
    n = len([r for r in s["robots"] if r["status"] == "ok"])
    print(f"{night}: {n} robots fitted ({s['robots_skipped']} skipped), backend {s['backend']}, "
          f"{s['evaluations']} evaluations in {seconds:.1f} s = {3600 * n / seconds:.0f} robots/hour, "
          f"{s['evaluations'] / seconds:.0f} evaluations/s; fitting loop {s['drive_seconds']:.1f} s, "
          f"of which {s['evaluator_seconds']:.1f} s in the evaluator")
PY
