#include "frfit/results/modal_comparison.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/frf/frf_set.h"
#include "frfit/modal/mode_pairing.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit {
namespace {

// Parses "k_z1=2e6;d_z1=1200;..." against the model; false if any name is unknown or missing.
bool ParametersFromProvenance(const Model& model, const std::string& text, std::vector<double>* out) {
  out->assign(model.num_parameters(), std::nan(""));
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) return false;
    const int index = model.FindParameter(item.substr(0, eq));
    if (index < 0) return false;
    (*out)[index] = std::strtod(item.substr(eq + 1).c_str(), nullptr);
  }
  // Every parameter given and finite; positive where the model requires it (a stiffness-law
  // coefficient other than the constant may be zero or negative, as in LoadParameters).
  for (int i = 0; i < model.num_parameters(); ++i)
    if (!std::isfinite((*out)[i]) || (model.parameters[i].log_scale && !((*out)[i] > 0.0)))
      return false;
  return true;
}

}  // namespace

bool SynthesisParameters(const Model& model, const FrfSet& set, std::vector<double>* values) {
  std::string model_name, parameters;
  for (const auto& [key, value] : set.provenance) {
    if (key == "model") model_name = value;
    if (key == "parameters") parameters = value;
  }
  return model_name == model.name && ParametersFromProvenance(model, parameters, values);
}

std::vector<Mode> ReferenceModes(const Model& model, const Posture& posture, const FrfSet& measured,
                                 double max_hz, std::string* description,
                                 std::shared_ptr<const EmaResult>* ema) {
  return ReferenceModes(model, FullHostPosture(posture), measured, max_hz, description, ema);
}

std::vector<Mode> ReferenceModes(const Model& model, const HostPosture& host,
                                 const FrfSet& measured, double max_hz, std::string* description,
                                 std::shared_ptr<const EmaResult>* ema) {
  std::vector<double> values;
  std::vector<Mode> modes;
  if (SynthesisParameters(model, measured, &values)) {
    *description = "modes of the model with the parameters the FRFs were synthesised from";
    std::vector<Mode> all = ComputeModes(*host.posture, host.CoefficientsAt(model, values));
    if (!measured.response_frame.empty() || !measured.excitation_frame.empty())
      SeeShapesAt(host.InPosture(PointsAt(model, *host.full, measured.response_frame,
                                          measured.excitation_frame, "measured /@response_frame")
                                     .response_basis),
                  &all);
    for (Mode& m : all)
      if (m.frequency_hz <= max_hz) modes.push_back(std::move(m));
    return modes;
  }
  // Measured data: the modes the FRFs themselves show, as frfit ema finds them with its defaults
  // (what counts as a mode: kModeMinContribution, modal/stabilisation.h).
  EmaOptions options;
  options.band_max_hz = max_hz;
  try {
    // The structure's damping, as frfit ema gives it: FRFs under an exponential window hold its
    // damping too, which the EMA takes out (the fit warns that its own dampings include it:
    // load_problem.cc).
    EmaResult estimate = EstimateModes(measured, options, "measured FRFs");
    const double tau = estimate.exponential_window_tau_s;
    auto result = std::make_shared<const EmaResult>(std::move(estimate));
    *description = "modes estimated from the measured FRFs (frfit ema): " + DescribeMethod(*result) +
                   (std::isfinite(tau) ? "; the exponential window's damping (tau " + FormatDouble(tau) +
                                             " s) removed"
                                       : "");
    for (const EmaMode& m : result->modes) modes.push_back(m.mode);
    if (ema) *ema = std::move(result);
  } catch (const Error& e) {
    *description = std::string("none: the measured FRFs give no modal estimate (") + e.what() + ")";
  }
  return modes;
}

ModalComparison CompareModes(const std::vector<Mode>& reference, const std::vector<Mode>& fitted,
                             const std::string& description, double max_hz) {
  return CompareModes(reference, SensorShapes(reference), fitted, SensorShapes(fitted), description,
                      max_hz);
}

ModalComparison CompareModes(const std::vector<Mode>& reference,
                             const std::vector<Eigen::VectorXcd>& reference_shapes,
                             const std::vector<Mode>& fitted,
                             const std::vector<Eigen::VectorXcd>& fitted_shapes,
                             const std::string& description, double max_hz) {
  ModalComparison out;
  out.reference = description;
  const std::vector<int> partner =
      PairModes(reference, reference_shapes, fitted, fitted_shapes, {0.25, 0.0});
  std::vector<char> taken(fitted.size(), 0);
  for (size_t r = 0; r < reference.size(); ++r) {
    const Mode& ref = reference[r];
    ModalComparisonRow row;
    row.reference_frequency_hz = ref.frequency_hz;
    row.reference_damping_ratio = ref.damping_ratio;
    const Mode* best = partner[r] >= 0 ? &fitted[partner[r]] : nullptr;
    if (best) taken[partner[r]] = 1;
    row.fitted_frequency_hz = best ? best->frequency_hz : std::nan("");
    row.fitted_damping_ratio = best ? best->damping_ratio : std::nan("");
    row.frequency_error_percent = 100.0 * (row.fitted_frequency_hz - ref.frequency_hz) / ref.frequency_hz;
    row.damping_error_percent =
        100.0 * (row.fitted_damping_ratio - ref.damping_ratio) / ref.damping_ratio;
    row.mac = best ? ShapeMac(reference_shapes[r], fitted_shapes[partner[r]]) : std::nan("");
    row.fitted_index = partner[r];
    out.rows.push_back(row);
  }
  double top = 0.0;
  for (const Mode& ref : reference) top = std::max(top, ref.frequency_hz);
  if (std::isfinite(max_hz)) top = std::max(top, max_hz);
  for (size_t f = 0; f < fitted.size(); ++f)
    if (!taken[f] && fitted[f].frequency_hz <= top)
      out.unpaired_fitted_frequency_hz.push_back(fitted[f].frequency_hz);
  double highest = 0.0;
  for (const Mode& ref : reference) highest = std::max(highest, ref.frequency_hz);
  std::vector<size_t> columns;  // indices into fitted
  for (size_t f = 0; f < fitted.size(); ++f) {
    bool paired = false;
    for (const ModalComparisonRow& row : out.rows)
      paired = paired || row.fitted_frequency_hz == fitted[f].frequency_hz;
    if (paired || fitted[f].frequency_hz <= 1.2 * highest) columns.push_back(f);
  }
  out.mac.resize(static_cast<Eigen::Index>(reference.size()),
                 static_cast<Eigen::Index>(columns.size()));
  for (size_t c = 0; c < columns.size(); ++c) {
    const Eigen::VectorXcd& column = fitted_shapes[columns[c]];
    out.mac_fitted_frequency_hz.push_back(fitted[columns[c]].frequency_hz);
    // Over the entries both shapes know, as the rows' MAC: the paired cell is the row's value.
    for (size_t r = 0; r < reference.size(); ++r)
      out.mac(r, c) = ShapeMac(reference_shapes[r], column);
  }
  return out;
}

std::string PointsAttribute(const std::vector<std::string>& points) {
  std::string text;
  for (const std::string& p : points) text += (text.empty() ? "" : ", ") + p;
  return text;
}

std::vector<std::string> PointsFromAttribute(const std::string& text) {
  std::vector<std::string> points;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = std::min(text.find(", ", at), text.size());
    points.push_back(text.substr(at, end - at));
    at = end + 2;
  }
  return points;
}

namespace {

// Two EMA estimates of one mode from two sets differ by their noise, far less than 2 %; two modes
// of a structure that close are one peak to a modal test anyway.
constexpr double kSameModeAcrossSets = 0.02;

std::string ResponsePointName(const Model& model, const FrfSet& set) {
  return set.response_frame.empty() ? model.frames[model.sensor_frame].name : set.response_frame;
}

std::string ExcitationPointName(const Model& model, const FrfSet& set) {
  return set.excitation_frame.empty() ? model.frames[model.sensor_frame].name
                                      : set.excitation_frame;
}

// Of `sets`, the first one at each distinct response point, in order.
std::vector<size_t> FirstSetAtEachPoint(const Problem& problem, const std::vector<size_t>& sets) {
  std::vector<size_t> out;
  std::vector<std::string> seen;
  for (size_t s : sets) {
    const std::string point = ResponsePointName(*problem.model, problem.postures[s].measured);
    if (std::find(seen.begin(), seen.end(), point) != seen.end()) continue;
    seen.push_back(point);
    out.push_back(s);
  }
  return out;
}

// The response points' bases B = J_fᵀR_0,f side by side, n × 3·points.
Eigen::MatrixXd StackedBasis(const Problem& problem, const std::vector<size_t>& at) {
  Eigen::MatrixXd basis(problem.model->num_dofs(), 3 * static_cast<Eigen::Index>(at.size()));
  for (size_t k = 0; k < at.size(); ++k)
    basis.middleCols(3 * static_cast<Eigen::Index>(k), 3) =
        PointsOf(problem.postures[at[k]]).response_basis;
  return basis;
}

// Each mode seen through `basis`: basisᵀ·shape, as SeeShapesAt does for one point.
std::vector<Eigen::VectorXcd> ShapesThrough(const Eigen::MatrixXd& basis,
                                            const std::vector<Mode>& modes) {
  const Eigen::MatrixXcd transposed = basis.transpose().cast<std::complex<double>>();
  std::vector<Eigen::VectorXcd> shapes;
  for (const Mode& m : modes) shapes.push_back(transposed * m.shape);
  return shapes;
}

// The parameters every one of `sets` was synthesised from; false when one names none or others.
bool CommonSynthesisParameters(const Problem& problem, const std::vector<size_t>& sets,
                               std::vector<double>* values) {
  for (size_t k = 0; k < sets.size(); ++k) {
    std::vector<double> own;
    if (!SynthesisParameters(*problem.model, problem.postures[sets[k]].measured, &own))
      return false;
    if (k > 0 && own != *values) return false;
    *values = std::move(own);
  }
  return !sets.empty();
}

// For each mode of `a` the mode of `b` nearest in frequency within kSameModeAcrossSets, one to one.
std::vector<int> PairByFrequency(const std::vector<EmaMode>& a, const std::vector<EmaMode>& b) {
  Eigen::MatrixXd cost(static_cast<Eigen::Index>(a.size()), static_cast<Eigen::Index>(b.size()));
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) {
      const double df =
          std::abs(b[j].mode.frequency_hz - a[i].mode.frequency_hz) / a[i].mode.frequency_hz;
      cost(i, j) = df <= kSameModeAcrossSets ? df : std::numeric_limits<double>::infinity();
    }
  return AssignMinimumCost(cost);
}

// One mode's shape over the points from its residues at each: R_ij = φ_a,i·φ_b,j / a_r, so at one
// excitation point b the column j of every set carries the same factor φ_b,j / a_r and the columns
// stacked are the shape over the points, with its relative scale and phase. The column is the
// excitation axis with the largest residues; NaN where an entry was not measured.
Eigen::VectorXcd ShapeFromResidueColumns(const std::vector<const EmaMode*>& at_points,
                                         const std::vector<const FrfSet*>& sets) {
  int axis = 0;
  double largest = -1.0;
  for (int j = 0; j < 3; ++j) {
    double sum = 0.0;
    for (size_t k = 0; k < sets.size(); ++k)
      for (int i = 0; i < 3; ++i)
        if (sets[k]->present[EntryIndex(i, j)])
          sum += std::norm(at_points[k]->residues[EntryIndex(i, j)]);
    if (sum > largest) largest = sum, axis = j;
  }
  Eigen::VectorXcd shape(3 * static_cast<Eigen::Index>(sets.size()));
  for (size_t k = 0; k < sets.size(); ++k)
    for (int i = 0; i < 3; ++i)
      shape(3 * static_cast<Eigen::Index>(k) + i) =
          sets[k]->present[EntryIndex(i, axis)] ? at_points[k]->residues[EntryIndex(i, axis)]
                                                : std::complex<double>(std::nan(""), 0.0);
  return shape;
}

// Reference modes over the points from the sets' EMA estimates (docs/decisions.md): the sets that
// share the excitation point measured at the most response points; each mode of the first of them
// paired by frequency with one of every other's, its frequency and damping the first set's. A mode
// some set lacks is left out. *at becomes the sets stacked; the description says what was done.
std::string EmaModesAtPoints(const Problem& problem,
                             const std::vector<const ModalComparison*>& per_set,
                             const std::vector<size_t>& sets, std::vector<size_t>* at,
                             std::vector<Mode>* modes, std::vector<Eigen::VectorXcd>* shapes) {
  const Model& model = *problem.model;
  std::vector<size_t> best;
  for (size_t s : sets) {
    if (!per_set[s]->ema) continue;
    std::vector<size_t> group;
    for (size_t t : sets)
      if (per_set[t]->ema && ExcitationPointName(model, problem.postures[t].measured) ==
                                 ExcitationPointName(model, problem.postures[s].measured))
        group.push_back(t);
    group = FirstSetAtEachPoint(problem, group);
    if (group.size() > best.size()) best = group;
  }
  if (best.size() < 2)
    return "none: the sets' modes are neither the model's at parameters they name nor EMA "
           "estimates at two or more response points excited at one point";
  *at = best;
  std::vector<const FrfSet*> measured;
  std::vector<std::vector<int>> partner;  // [set][mode of the first set]
  for (size_t s : best) {
    measured.push_back(&per_set[s]->ema->measured);
    partner.push_back(PairByFrequency(per_set[best[0]]->ema->modes, per_set[s]->ema->modes));
  }
  const std::vector<EmaMode>& first = per_set[best[0]]->ema->modes;
  int dropped = 0;
  for (size_t m = 0; m < first.size(); ++m) {
    std::vector<const EmaMode*> at_points;
    for (size_t k = 0; k < best.size(); ++k)
      if (partner[k][m] >= 0) at_points.push_back(&per_set[best[k]]->ema->modes[partner[k][m]]);
    if (at_points.size() < best.size()) {
      ++dropped;
      continue;
    }
    modes->push_back(first[m].mode);
    shapes->push_back(ShapeFromResidueColumns(at_points, measured));
  }
  std::vector<std::string> names;
  for (size_t s : best) names.push_back(ResponsePointName(model, problem.postures[s].measured));
  std::string text = "modes estimated from the measured FRFs (frfit ema) at " +
                     PointsAttribute(names) + ", excited at " +
                     ExcitationPointName(model, problem.postures[best[0]].measured) +
                     ": paired across the sets by frequency (within 2 %), shapes from the "
                     "residues, frequency and damping from the set at " + names[0];
  if (dropped > 0)
    text += "; " + std::to_string(dropped) + " of its modes not found at every point left out";
  return text;
}

// The host posture of a posture's sets (fit/host_posture.h): a reduced one only when every set
// shares its basis, since it must hold every point's shape; else the full posture.
HostPosture SharedHostPosture(const Problem& problem, const std::vector<size_t>& sets) {
  const ProblemPosture& first = problem.postures[sets[0]];
  for (size_t s : sets)
    if (problem.postures[s].reduction != first.reduction ||
        problem.postures[s].assess_on_full != first.assess_on_full)
      return FullHostPosture(first.posture);
  return HostPostureOf(first);
}

ModalComparisonPoints ComparePostureAtPoints(const Problem& problem,
                                             const std::vector<size_t>& sets,
                                             const std::vector<double>& parameters,
                                             const std::vector<const ModalComparison*>& per_set) {
  const Model& model = *problem.model;
  const Posture& posture = problem.postures[sets[0]].posture;
  const HostPosture host = SharedHostPosture(problem, sets);
  double max_hz = 0.0;
  for (size_t s : sets) max_hz = std::max(max_hz, problem.postures[s].measured.frequency_hz.back());
  std::vector<size_t> at = FirstSetAtEachPoint(problem, sets);
  std::vector<Mode> reference;
  std::vector<Eigen::VectorXcd> reference_shapes;
  std::string description;
  std::vector<double> truth;
  if (CommonSynthesisParameters(problem, sets, &truth)) {
    description = "modes of the model with the parameters the FRFs were synthesised from";
    for (Mode& m : ComputeModes(*host.posture, host.CoefficientsAt(model, truth)))
      if (m.frequency_hz <= max_hz) reference.push_back(std::move(m));
    reference_shapes = ShapesThrough(host.InPosture(StackedBasis(problem, at)), reference);
  } else {
    description = EmaModesAtPoints(problem, per_set, sets, &at, &reference, &reference_shapes);
  }
  ModalComparisonPoints out;
  out.posture = posture.name;
  for (size_t s : at) out.points.push_back(ResponsePointName(model, problem.postures[s].measured));
  const std::vector<Mode> fitted = ComputeModes(*host.posture, host.CoefficientsAt(model, parameters));
  out.modal = CompareModes(reference, reference_shapes, fitted,
                           ShapesThrough(host.InPosture(StackedBasis(problem, at)), fitted),
                           description, max_hz);
  return out;
}

}  // namespace

std::vector<ModalComparisonPoints> CompareModesAtPoints(
    const Problem& problem, const std::vector<double>& parameters,
    const std::vector<const ModalComparison*>& per_set) {
  std::vector<ModalComparisonPoints> out;
  std::vector<std::string> done;
  for (size_t s = 0; s < problem.postures.size(); ++s) {
    const std::string& name = problem.postures[s].posture.name;
    if (problem.postures[s].is_static || std::find(done.begin(), done.end(), name) != done.end())
      continue;
    done.push_back(name);
    std::vector<size_t> sets;
    for (size_t t = s; t < problem.postures.size(); ++t)
      if (!problem.postures[t].is_static && problem.postures[t].posture.name == name)
        sets.push_back(t);
    if (FirstSetAtEachPoint(problem, sets).size() >= 2)
      out.push_back(ComparePostureAtPoints(problem, sets, parameters, per_set));
  }
  return out;
}

}  // namespace frfit
