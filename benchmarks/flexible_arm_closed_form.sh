#!/usr/bin/env bash
# datasets/flexible_arm (20 elements, reduced) fitted to the continuous beam's tip inertance
# (tools/flexible_arm_closed_form.py, 1-400 Hz every 0.25 Hz): noise-free, then impact-test noise
# (3 % + 0.1 % of each entry's peak) with seeds 1..N. Prints each fit's relative errors of k_z1
# and E_arm, their 1 sigma, sigma's basis, the model check and its reduced chi2.
#
#   benchmarks/flexible_arm_closed_form.sh [build-dir] [noisy seeds]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}"
seeds="${2:-3}"
cli="$build/frfit"
[[ -x "$cli" ]] || cli="$root/$build/frfit"
[[ -x "$cli" ]] || { echo "error: $build/frfit not found (build it first)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
arm="$root/datasets/flexible_arm"
run() {  # label, closed-form options...
  local label="$1"; shift
  python3 "$root/tools/flexible_arm_closed_form.py" --out "$tmp/$label.h5" "$@"
  "$cli" fit --model "$arm/model.yaml" --frf "$tmp/$label.h5" --config "$arm/fit.yaml" \
    --backend cpu --seed 1 --json >"$tmp/$label.json" 2>/dev/null
  python3 - "$tmp/$label.json" "$label" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
truth = {"k_z1": 2.5e4, "E_arm": 2.1e11}
idf = j["identifiability"]
cells = []
for name, t in truth.items():
    err = j["parameters"][name] / t - 1
    sd = idf["parameters"][name]["std_relative"]
    cells.append(f"{name} {err:+.2e} (1 sigma {sd:.1e}, {abs(err) / sd:.2f} sigma)")
mc = j["model_check"]
print(f"{sys.argv[2]:9s} " + "; ".join(cells) + f"; sigma basis {idf['sigma_basis']}; model check "
      f"{mc['verdict']} (reduced chi2 {mc.get('reduced_chi2', float('nan')):.3f})")
PY
}
run noisefree
for seed in $(seq 1 "$seeds"); do run "seed$seed" --noise 0.03:0.001 --seed "$seed"; done
