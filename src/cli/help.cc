#include "help.h"

#include <cstdio>
#include <utility>
#include <vector>

namespace frfit::cli {
namespace {

struct OptionText {
  const char* name;   // "model", or "command.name" where a command's meaning differs
  const char* value;  // what follows the option; "" for a flag
  const char* text;
};

// Listed in this order; a command's own entry ("fit.out") replaces the shared one ("out").
const std::vector<OptionText> kOptionHelp = {
    {"model", "M.yaml",
     "the model: a frfit model file or a URDF overlay (docs/model-format.md, docs/urdf.md)"},
    {"manifest", "FLEET.yaml",
     "the fleet manifest: robots, their FRF files, models, configurations (docs/fleet.md)"},
    {"frf", "A.h5[,B.h5...]",
     "measured FRF sets, one per posture: comma-separated, or --frf repeated (each a list "
     "item; docs/file-formats.md). Every other option takes one value: given twice, it is "
     "refused"},
    {"config", "FIT.yaml",
     "fit configuration (docs/fit-config.md); default: the built-in settings"},
    {"posture", "NAME", "a posture of the model"},
    {"convert.posture", "NAME",
     "the model posture the measurement was taken at (UFF -> HDF5; a fit needs it, ema and "
     "report do not; HDF5 -> UFF: must match the set's)"},
    {"convert.model", "M.yaml",
     "UFF -> HDF5: check that the model has --posture before writing"},
    {"q", "z2=70,...",
     "coordinates (degrees, metres) set on top of --posture, or on zeros without it"},
    {"params", "P.yaml|R.h5",
     "parameters: a parameter file or a fit result; default: the model's initial values"},
    {"band", "F0:F1:DF", "frequency lines from F0 to F1 Hz in steps of DF"},
    {"simulate.format", "F", "receptance, mobility or inertance (default inertance)"},
    {"convert.format", "F",
     "receptance, mobility or inertance: the format to write (UFF -> HDF5: overrides detection)"},
    {"noise", "REL[:FLOOR]",
     "add impact-test-like noise: H(1 + REL e1) + FLOOR peak|H| e2, e ~ CN(0,1) per line and "
     "entry (docs/noise.md)"},
    {"noise-model", "variance|none",
     "with --noise: record the noise variance in the file (default) or not (then a fit "
     "estimates it)"},
    {"simulate.seed", "N", "seed of the --noise draws (default 1)"},
    {"response-frame", "FRAME",
     "the model frame the response is measured in, its axes the FRF's rows (default: the "
     "sensor)"},
    {"static", "S.yaml",
     "static deflection tests (format frfit-static-1) fitted beside the FRFs, each displacement "
     "component weighed by 1/σ² (docs/static-tests.md)"},
    {"modes", "EMA.h5[,..]",
     "measured modes (frfit ema results) fitted beside or instead of the FRFs: frequencies in "
     "their 1σ and shapes at the measured points, paired with the model's at every evaluation "
     "(docs/fit-config.md, \"Modal data\"); a campaign's (frfit ema CAMPAIGN --out) with "
     "--mapping and --posture"},
    {"fit.mapping", "MAP.yaml",
     "with --modes CAMPAIGN_EMA.h5: the node map, `nodes: {node: model frame}` and `directions` "
     "(docs/campaign.md); every measured node must be mapped"},
    {"fit.posture", "NAME", "with --modes CAMPAIGN_EMA.h5: the model posture the campaign was measured at"},
    {"design.target", "PARAM",
     "rank by the predicted 1σ of this parameter (e.g. k_x3) instead of the D-optimal gain"},
    {"design.points", "R:E,...",
     "candidate measurement points: pairs of response and excitation frames, each ranked at "
     "every fitted posture (an empty side is the sensor)"},
    {"design.static-loads", "P:F:D,...",
     "candidate static load cases: at posture P a force along x, y and z of frame F (one test "
     "each), the displacement measured in frame D (an empty frame is the sensor)"},
    {"design.static-force", "N", "the load cases' force in N (default 1000)"},
    {"design.static-std", "M", "the load cases' displacement 1σ per component in m (default 1e-6)"},
    {"excitation-frame", "FRAME",
     "the model frame the force is applied in, its axes the FRF's columns (default: the sensor)"},
    {"seed", "N",
     "random seed, an integer >= 0 (default 1): the same seed gives the same bits on either "
     "backend"},
    {"backend", "cpu|cuda|auto",
     "evaluator backend (default auto: the GPU when one is usable, and it says which)"},
    {"threads", "N",
     "cpu backend threads (default: all cores; more are clamped with a warning); results do not "
     "depend on it"},
    {"simulate.out", "FRF.h5", "the FRF set to write (required)"},
    {"map.params", "R.h5|P.yaml",
     "parameters: a fit result (its covariance gives every value's 1σ) or a parameter file; "
     "default: the model's initial values"},
    {"map.grid", "'z2=30:120:1,...'",
     "coordinates swept, START:STOP:STEP each in the model file's units (degrees, metres), on "
     "top of --posture/--q; the first varies slowest (required; docs/posture-map.md)"},
    {"map.max-hz", "F",
     "modes up to F Hz, and the band (0, F] of the least stiffness (default 100)"},
    {"map.threads", "N", "postures computed in parallel (default: all cores)"},
    {"map.out", "MAP.h5", "write the map (docs/file-formats.md, \"Posture map\")"},
    {"map.cut", "CUT.yaml",
     "also the critical depth of this milling cut at every posture, as frfit lobes gives it "
     "(docs/lobes.md)"},
    {"lobes.params", "R.h5|P.yaml",
     "parameters: a fit result (its covariance gives the 5..95 % band) or a parameter file; "
     "default: the model's initial values"},
    {"lobes.cut", "CUT.yaml",
     "the cut: teeth, immersion, cutting coefficients, axes, spindle speeds (docs/lobes.md)"},
    {"lobes.samples", "N",
     "parameter sets drawn from the fit's covariance for the band (default 200 with a fit "
     "result; 0: no band)"},
    {"lobes.seed", "N", "seed of the --samples draws (default 1)"},
    {"lobes.frf-out", "FRF.csv",
     "also write the cutting-plane receptance the lobes were computed from, as CSV"},
    {"fit.out", "RESULT.h5",
     "the result file to write (docs/file-formats.md); also names the default checkpoint"},
    {"report.out", "REPORT.html", "the report to write, a .html name (-o is the same); required"},
    {"fleet.out", "DIR", "directory of run directories; the run writes DIR/<run-id>/ (required)"},
    {"fleet.threads", "N",
     "cpu backend threads, and threads writing the robots' results and reports (default: all "
     "cores); results do not depend on it"},
    {"checkpoint", "C.json", "checkpoint file (default: RESULT.h5.checkpoint.json with --out)"},
    {"checkpoint-seconds", "S",
     "write a checkpoint every S seconds of wall time (default 60; 0: never by time)"},
    {"checkpoint-every", "N",
     "also write a checkpoint every N evaluations of all robots (default 0: never by count)"},
    {"resume", "C.json", "continue the fit a checkpoint describes (the same inputs and seed)"},
    {"fleet.resume", "", "continue the run named by --run-id from its checkpoint"},
    {"run-id", "ID", "the run's name and directory (default: the UTC time, 2026-11-21T031500Z)"},
    {"progress", "", "progress lines on stderr also when it is not a terminal"},
    {"quiet", "", "no progress and no backend line on stderr"},
    {"fit.progress-every", "N",
     "Nelder-Mead iterations between progress lines (default 50; every GA generation gets one)"},
    {"fleet.progress-every", "N",
     "rounds between progress lines when stderr is not a terminal (default 10)"},
    {"sensor-node", "N",
     "UFF node of the sensor (default: the one node the records use; HDF5 -> UFF: 1)"},
    {"mapping", "MAP.yaml", "which UFF records and directions form the FRF matrix (docs/uff.md)"},
    {"campaign.sets", "DIR",
     "write one multi-point FRF set per pair of response and reference nodes into DIR, "
     "between the model frames the node map gives them: the campaign as frfit fit --frf takes "
     "it (docs/campaign.md)"},
    {"campaign.mapping", "MAP.yaml",
     "with --sets: the node map, `nodes: {node: model frame}` and `directions` (docs/uff.md)"},
    {"campaign.posture", "NAME", "with --sets: the model posture the campaign was measured at"},
    {"modal.mapping", "MAP.yaml",
     "with --ema: the node map, `nodes: {node: model frame}` and `directions` (docs/campaign.md)"},
    {"modal.ema", "CAMPAIGN_EMA.h5",
     "compare the model's modes with a campaign's (frfit ema CAMPAIGN --out): pairs by MAC over "
     "every mapped node, frequency differences, COMAC per node (docs/campaign.md)"},
    {"binary", "", "write UFF 58b (binary) instead of 58 (ASCII)"},
    {"averages", "N",
     "UFF -> HDF5: the number of averages behind the file's coherence records (their noise model, "
     "docs/noise.md)"},
    {"ema.band", "F0:F1", "estimate poles from the lines between F0 and F1 Hz (default: all)"},
    {"max-order", "N",
     "highest model order of the stabilisation diagram (default 120/references: 40 on a 3x3 "
     "matrix; clipped, with a warning, to what the lines determine; docs/ema.md)"},
    {"min-stable", "N",
     "stable poles a column needs to be chosen as a mode (default a quarter of the orders, at "
     "least 3; docs/ema.md)"},
    {"frequency-tolerance", "F",
     "relative frequency change that still counts as stable between orders (default 0.01; "
     "docs/ema.md)"},
    {"damping-tolerance", "F",
     "relative damping change that still counts as stable between orders (default 0.05; "
     "docs/ema.md)"},
    {"min-mac", "M",
     "MAC a pole's shape needs with the order below to count as stable (default 0.98)"},
    {"max-damping", "Z",
     "damping ratio above which a pole is not a mode (a fraction; default 0.2)"},
    {"min-contribution", "C",
     "keep a mode only if the modal model's misfit grows by this fraction without it (its "
     "misfit growth; default 0.02, what fit's reference modes use; docs/ema.md)"},
    {"lobes.out", "LOBES.h5",
     "write the lobes, their band and the cut (docs/file-formats.md); frfit report draws them"},
    {"ema.out", "EMA.h5", "write the estimate, its diagram and FRFs (docs/file-formats.md)"},
    {"single-reference", "",
     "campaign: the common-denominator LSCF on every FRF alone instead of poly-reference "
     "(docs/campaign.md)"},
    {"ema.averages", "N",
     "campaign from UFF: the number of averages behind its coherence records"},
    {"uff", "SHAPES.uff",
     "campaign EMA result: write its mode shapes as UFF dataset 55, one per mode (docs/export.md)"},
    {"result", "RESULT.h5", "a fit result (frfit fit --out) to plan the next measurement for"},
    {"candidates", "NAME,...",
     "model postures to rank (default: every model posture the fit does not use)"},
    {"q-candidates", "'a:z2=60;b:..'",
     "candidate postures by coordinates (model file units) set on top of the base posture: "
     "--posture, else the fit's first posture"},
    {"design.posture", "NAME", "the base posture of --q-candidates (default: the fit's first)"},
    {"csv", "DIR",
     "the directory to write the CSV files to (created if missing; files of the same names are "
     "replaced; docs/export.md)"},
    {"frf.out", "FRF.h5",
     "the FRF set to write: H, coherence, averages, noise variance (docs/file-formats.md)"},
    {"frf.report", "HITS.html",
     "also write the impact-test page: every hit kept or rejected, force pulses and spectra, "
     "responses, coherence per entry (a .html name; docs/report.md)"},
    {"frf.posture", "NAME", "the model posture the hits were measured at (default: empty)"},
    {"frf.band", "F0:F1",
     "keep the record's lines between F0 and F1 Hz (default: above 0 Hz up to sample rate/2.56)"},
    {"estimator", "h1|h2|hv",
     "FRF estimator over the averaged hits: h1 (noise on the responses; default), h2 (noise on "
     "the force), hv (total least squares between them)"},
    {"frf.format", "F",
     "receptance, mobility or inertance (default: the responses' own: acceleration gives "
     "inertance)"},
    {"exponential-window", "none|tau=S|end=R",
     "window exp(-t/tau) on force and responses, by tau in s or its value R at the record's end "
     "(default none); adds 1/(tau·omega) to each mode's damping ratio, printed on stderr"},
    {"force-window", "none|MARGIN:TAPER",
     "force window: 1 from MARGIN s before to MARGIN s after the pulse, cosine taper of TAPER s "
     "(default 0.002:0.002)"},
    {"trigger", "LEVEL",
     "force level in N that starts a hit in a continuous recording (default 0: 10 % of its "
     "largest force)"},
    {"pretrigger", "S", "seconds kept before the trigger, the DC reference (default 0.05)"},
    {"record-seconds", "S",
     "length of each hit cut from a continuous recording (required for one; triggered records "
     "keep theirs)"},
    {"max-force-drop-db", "N",
     "reject a hit whose force spectrum falls more than N dB inside the band (default 20)"},
    {"double-hit-fraction", "F",
     "reject a hit with a second force peak above F times the first (default 0.1)"},
    {"json", "", "print one JSON object on stdout (errors stay one line on stderr)"},
};

}  // namespace

std::string OptionHelp(const HelpRequested& help) {
  std::vector<std::pair<std::string, std::string>> lines;  // "--name VALUE", text
  std::set<std::string> own, done;  // names with an entry of this command's; names listed
  for (const OptionText& o : kOptionHelp)
    if (std::string(o.name).rfind(help.command + ".", 0) == 0)
      own.insert(o.name + help.command.size() + 1);
  for (const OptionText& o : kOptionHelp) {
    std::string name = o.name;
    const size_t dot = name.find('.');
    if (dot != std::string::npos) {
      if (name.substr(0, dot) != help.command) continue;
      name = name.substr(dot + 1);
    } else if (own.count(name)) {
      continue;
    }
    const bool valued = help.valued.count(name) > 0, flag = help.flags.count(name) > 0;
    if ((!valued && !flag) || !done.insert(name).second) continue;
    lines.emplace_back("--" + name + (valued ? std::string(" ") + o.value : ""), o.text);
  }
  // Options without a line above still appear, so that the list is complete.
  for (const auto* set : {&help.valued, &help.flags})
    for (const std::string& name : *set)
      if (done.insert(name).second)
        lines.emplace_back("--" + name + (set == &help.valued ? " VALUE" : ""), "");
  std::string out = "\noptions:\n";
  for (const auto& [option, text] : lines) {
    char line[512];
    std::snprintf(line, sizeof line, "  %-26s %s\n", option.c_str(), text.c_str());
    out += line;
  }
  return out;
}

}  // namespace frfit::cli
