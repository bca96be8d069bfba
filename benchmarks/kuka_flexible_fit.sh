#!/usr/bin/env bash
# The KUKA KR90 with its arm and forearm as beams (datasets/kuka_kr90/model_flexible.yaml, 255
# elastic coordinates, reduced to 27) against the rigid-link model (model.yaml, 9), each fitted to
# its own noise-free FRFs at milling, reach and folded on the same 150 lines (0.2–30 Hz), cpu
# backend, 2 threads, the two alternating `rounds` times in the same run (a shared host's load
# then weighs on both alike). Prints each fit's process wall and CPU time, the fit's own
# wall_seconds and phases, its evaluations, the largest parameter error, the flexible fit's
# reduction (its errors — the reduced FRFs against the full model's, relative, over the band —
# and the wall time of its basis and of that error check), and the CPU-time ratio per round.
#
# With `noise` (REL:FLOOR, e.g. 0.03:0.001: impact-test noise, docs/noise.md) both models' FRFs
# are simulated with that noise (draw seed 7) instead: neither fit can then end as an exact fit,
# which on noise-free data only the rigid one, fitted to its own model's FRFs, can.
#
#   benchmarks/kuka_flexible_fit.sh [build-dir] [seed] [rounds] [noise]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}"
seed="${2:-1}"
rounds="${3:-3}"
noise="${4:-}"
cli="$build/frfit"
[[ -x "$cli" ]] || cli="$root/$build/frfit"
[[ -x "$cli" ]] || { echo "error: $build/frfit not found (build it first)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
data="$root/datasets/kuka_kr90"
params="$data/params_from34.yaml"

noisy=()
[[ -n "$noise" ]] && noisy=(--noise "$noise" --seed 7)
for posture in milling reach folded; do
  "$cli" simulate --model "$data/model_flexible.yaml" --posture "$posture" --params "$params" \
    --band 0.2:30:0.2 --format inertance "${noisy[@]}" --out "$tmp/flex_$posture.h5" >/dev/null
  [[ -n "$noise" ]] && "$cli" simulate --model "$data/model.yaml" --posture "$posture" \
    --params "$params" --band 0.2:30:0.2 --format inertance "${noisy[@]}" \
    --out "$tmp/rigid_$posture.h5" >/dev/null
done
rigid_frf="$data/frf_milling_inertance.h5,$data/frf_reach_inertance.h5,$data/frf_folded_inertance.h5"
[[ -n "$noise" ]] && rigid_frf="$tmp/rigid_milling.h5,$tmp/rigid_reach.h5,$tmp/rigid_folded.h5"
flex_frf="$tmp/flex_milling.h5,$tmp/flex_reach.h5,$tmp/flex_folded.h5"

fit() {  # name model frf config
  /usr/bin/time -f "%e %U %S" -o "$tmp/$1.time" "$cli" fit --model "$2" --frf "$3" --config "$4" \
    --seed "$seed" --backend cpu --threads 2 --json >"$tmp/$1.json" 2>"$tmp/$1.err"
}
for round in $(seq 1 "$rounds"); do
  fit "rigid$round" "$data/model.yaml" "$rigid_frf" "$data/fit.yaml"
  fit "flexible$round" "$data/model_flexible.yaml" "$flex_frf" "$data/fit_flexible.yaml"
done

python3 - "$tmp" "$params" "$rounds" <<'PY'
import json, statistics, sys
import yaml
tmp, params, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
truth = {k: float(v) for k, v in yaml.safe_load(open(params))["parameters"].items()}
ratios = []
for k in range(1, rounds + 1):
    cpu = {}
    for model in ("rigid", "flexible"):
        name = f"{model}{k}"
        j = json.load(open(f"{tmp}/{name}.json"))
        wall, user, system = (float(v) for v in open(f"{tmp}/{name}.time").read().split())
        worst = max(abs(j["parameters"][p] / truth[p] - 1) for p in truth)
        ph = j["phases"]
        cpu[model] = user + system
        print(f"{name:10s} process wall {wall:7.2f} s, cpu {user + system:7.2f} s; fit wall_seconds "
              f"{j['wall_seconds']:7.2f} (ga {ph['ga']['seconds']:.2f}, lm {ph['lm']['seconds']:.2f}); "
              f"{j['evaluations']} evaluations; worst parameter error {worst:.1e}; {j['termination']}; "
              f"model check {j['model_check']['verdict']}")
        for posture, r in (j.get("reduction") or {}).items():
            print(f"           {posture}: {r['full_n']} -> {r['reduced_n']} coordinates ({r['modes']} modes, "
                  f"{r['corrections']} corrections), reduction error {r['max_relative_error']:.2e}; "
                  f"basis {r['seconds']['basis']:.3f} s, error check {r['seconds']['error']:.3f} s")
    ratios.append(cpu["flexible"] / cpu["rigid"])
    print(f"round {k}: ratio flexible / rigid, process CPU {ratios[-1]:.1f}")
print(f"ratio flexible / rigid, process CPU: median {statistics.median(ratios):.1f} "
      f"(rounds: {', '.join(f'{r:.1f}' for r in ratios)})")
PY
