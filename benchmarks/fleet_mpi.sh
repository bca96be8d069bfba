#!/usr/bin/env bash
# One fleet night as one process and as `mpirun -np R` for each R of RANKS (docs/fleet.md "MPI"):
# generates N KUKA-like robots (fleet_timings.sh's recipe: parameters scattered ±20 % around
# ref. [34], FRFs at the postures milling and reach, 1 % noise), fits them cold (no previous
# results) with datasets/kuka_kr90/fit.yaml on the cpu backend, checks that every rank count
# wrote the same outputs as one process, and prints the wall time of each.
# With WARM=1 the night timed is a warm one instead (fleet_warm_night.sh's "after"): night 1 is
# fitted cold by one process, then the same robots measured again (frfit-make-fleet --night 2,
# fresh noise) with night 1's results as `previous` are fitted by least squares from there, with
# the fallback — whose median cost every rank must agree on.
#   Usage: [WARM=1] benchmarks/fleet_mpi.sh [N=64] [WORK=/tmp/frfit_fleet_mpi]     RANKS="2 4" by default
# "The same": summary.csv, drift.json, drift.txt and index.html byte for byte; every robot's
# parameters, cost and evaluations in summary.json with ==; every <robot>.h5 byte for byte but its
# four timings (/summary/*_seconds; needs python3's h5py to find them, skipped without it).
# Threads: one process takes every core; a rank takes the cores divided by the ranks (at least 1).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-64}
WORK=${2:-/tmp/frfit_fleet_mpi}
RANKS=${RANKS:-"2 4"}
mpirun=(mpirun --oversubscribe)  # more ranks than cores on small machines
if [[ $(id -u) -eq 0 ]]; then mpirun+=(--allow-run-as-root); fi
rm -rf "$WORK" && mkdir -p "$WORK"
make_fleet() {
  build/frfit-make-fleet --model datasets/kuka_kr90/model.yaml --params datasets/kuka_kr90/params_from34.yaml \
    --robots "$N" --seed 2026 --postures milling,reach --perturb 0.2 --noise 0.01 \
    --config datasets/kuka_kr90/fit.yaml "$@" > /dev/null
}
make_fleet --out "$WORK/fleet"
MANIFEST=$WORK/fleet/fleet.yaml
if [[ ${WARM:-0} == 1 ]]; then
  build/frfit fleet --manifest "$MANIFEST" --out "$WORK/night1" --run-id night1 --backend cpu --quiet \
    --json > "$WORK/night1.json"
  make_fleet --night 2 --previous "$WORK/night1/night1" --out "$WORK/fleet2"
  MANIFEST=$WORK/fleet2/fleet.yaml
fi

# run LABEL COMMAND...: the fleet under COMMAND into $WORK/out/LABEL; its wall time and the CPU
# time of all its processes (user + system) to $WORK/LABEL.seconds.
run() {
  local label=$1
  shift
  /usr/bin/time -f "%e %U %S" -o "$WORK/$label.seconds" \
    "$@" fleet --manifest "$MANIFEST" --out "$WORK/out" --run-id "$label" --backend cpu \
    --quiet --json > "$WORK/$label.json"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
run ranks1 build/frfit
for r in $RANKS; do run "ranks$r" "${mpirun[@]}" -np "$r" build/frfit; done

python3 - "$WORK" $RANKS <<'PY'
import json, os, sys
work, ranks = sys.argv[1], [int(r) for r in sys.argv[2:]]
try:
    import h5py
except ImportError:
    h5py = None

def masked(path):
    data = bytearray(open(path, "rb").read())
    with h5py.File(path, "r") as f:
        for name in ("wall_seconds", "ga_seconds", "nm_seconds", "lm_seconds"):
            d = f["summary"][name]
            offset = d.id.get_offset()
            data[offset:offset + d.id.get_storage_size()] = bytes(d.id.get_storage_size())
    return bytes(data)

one_dir = f"{work}/out/ranks1"
one = json.load(open(f"{work}/ranks1.json"))
def times(label):  # wall, CPU (user + system) seconds
    wall, user, system = (float(x) for x in open(f"{work}/{label}.seconds").read().split()[-3:])
    return wall, user + system

rows = [(1, one, times("ranks1"), "reference")]
for r in ranks:
    d = f"{work}/out/ranks{r}"
    s = json.load(open(f"{work}/ranks{r}.json"))
    same = []
    for name in ("summary.csv", "drift.json", "drift.txt", "index.html"):
        a, b = open(f"{one_dir}/{name}", "rb").read(), open(f"{d}/{name}", "rb").read()
        if name == "drift.json":  # names its run
            a, b = (json.loads(x) for x in (a, b))
            a.pop("run_id"), b.pop("run_id")
        same.append(a == b)
    robots_same = all(x["status"] == y["status"] and x.get("parameters") == y.get("parameters")
                      and x.get("cost") == y.get("cost") and x.get("evaluations") == y.get("evaluations")
                      for x, y in zip(one["robots"], s["robots"]))
    h5 = "not checked (no h5py)"
    if h5py:
        files = sorted(f for f in os.listdir(one_dir) if f.endswith(".h5"))
        equal = sum(masked(f"{one_dir}/{f}") == masked(f"{d}/{f}") for f in files)
        h5 = f"{equal}/{len(files)} .h5 identical but timings"
    verdict = "identical" if all(same) and robots_same else "DIFFERENT"
    rows.append((r, s, times(f"ranks{r}"), f"{verdict}; {h5}"))

n = len(one["robots"])
fell_back = sum(1 for x in one["robots"] if x.get("fallback"))
print(f"{n} robots, {one['robots_ok']} fitted, {one['evaluations']} evaluations, "
      f"{fell_back} refitted cold, cpu backend, {os.cpu_count()} cores")
print("| ranks | wall time (s) | robots/hour | CPU time, all processes (s) | slowest rank's fitting loop (s) | vs 1 process |")
print("|---:|---:|---:|---:|---:|---|")
for r, s, (wall, cpu), verdict in rows:
    print(f"| {r} | {wall:.1f} | {3600 * n / wall:.0f} | {cpu:.1f} | {s['drive_seconds']:.1f} | {verdict} |")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
