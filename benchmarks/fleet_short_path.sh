#!/usr/bin/env bash
# The warm night's short path against the full search (docs/fleet.md, "Short path"), on a night
# that benchmarks/fleet_warm_night.sh prepared in WORK (night2/fleet.yaml, night 1's results):
#   - OLD and NEW binaries alternating, ROUNDS times each, every run timed around the whole command
#     (wall and CPU time), with its evaluations, LM evaluations, rounds and starts per robot;
#   - NEW with `warm_start: {short_path: false}` (the full search), and
#     benchmarks/short_path_vs_full.py on the last NEW run against it.
# With OLDER=BINARY a third binary runs first in each round (an earlier base: older1, older2, ...).
# Usage: [OLDER=FRFIT] benchmarks/fleet_short_path.sh WORK OLD_FRFIT [NEW_FRFIT=build/frfit] [ROUNDS=2] [THREADS=2]
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=$1
OLD=$2
NEW=${3:-build/frfit}
ROUNDS=${4:-2}
THREADS=${THREADS:-2}
MANIFEST="$WORK/night2/fleet.yaml"
python3 - "$MANIFEST" <<'PY'
import sys
src = sys.argv[1]
out = []
for line in open(src):
    out.append(line)
    if line.startswith("seed:"):
        out.append("warm_start: {short_path: false}\n")
open(src.replace("fleet.yaml", "fleet_full.yaml"), "w").writelines(out)
PY
run() {  # $1 binary, $2 run id, $3 manifest
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$WORK/$2.cpu" "$1" fleet --manifest "$3" --out "$WORK/ab" --run-id "$2" \
    --backend cpu --threads "$THREADS" --quiet --json > "$WORK/$2.json"
  t1=$(date +%s.%N)
  python3 - "$WORK" "$2" "$t0" "$t1" <<'PY'
import json, statistics, sys
work, run, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
s = json.load(open(f"{work}/{run}.json"))
user, sys_ = map(float, open(f"{work}/{run}.cpu").read().split())
ok = [r for r in s["robots"] if r["status"] == "ok"]
ev = [r["evaluations"] for r in ok]
load = open("/proc/loadavg").read().split()[0]
print(f"{run}: {t1 - t0:.1f} s wall, {user + sys_:.1f} s CPU, load {load}; {s['evaluations']} evaluations "
      f"(median per robot {statistics.median(ev):.0f}), {s['rounds']} rounds, "
      f"short path {s.get('robots_short_path', '-')}, refitted cold {s['robots_fell_back']}; stages "
      + ", ".join(f"{k} {v:.1f}" for k, v in s["stage_seconds"].items()), flush=True)
PY
}
rm -rf "$WORK/ab"
for ((k = 1; k <= ROUNDS; ++k)); do
  [[ -n "${OLDER:-}" ]] && run "$OLDER" "older$k" "$MANIFEST"
  run "$OLD" "old$k" "$MANIFEST"
  run "$NEW" "new$k" "$MANIFEST"
done
run "$NEW" full "$WORK/night2/fleet_full.yaml"
python3 benchmarks/short_path_vs_full.py "$WORK/ab/new$ROUNDS" "$WORK/ab/full"
