#include "frfit/campaign/campaign_ema.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "src/campaign/campaign_modal_model.h"
#include "src/campaign/campaign_pole_columns.h"
#include "frfit/common/error.h"
#include "frfit/modal/lscf.h"
#include "frfit/modal/modal.h"
#include "frfit/modal/mode_complexity.h"

namespace frfit::campaign {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Each record as an entry (row, column) of the matrix pLSCF reads: the columns are the fixed DOFs
// (the fewer), the rows the roving ones. With more reference than response DOFs the hammer roved:
// by reciprocity its FRFs are those of a fixed hammer at the sensors.
struct Layout {
  bool reciprocity = false;
  std::vector<Dof> rows, columns;
  std::vector<int> row_of, column_of;  // [record]
};

int IndexOf(std::vector<Dof>* dofs, const Dof& d) {
  const auto it = std::find(dofs->begin(), dofs->end(), d);
  if (it != dofs->end()) return static_cast<int>(it - dofs->begin());
  dofs->push_back(d);
  return static_cast<int>(dofs->size()) - 1;
}

Layout MakeLayout(const Campaign& c) {
  Layout l;
  l.reciprocity = c.ReferenceDofs().size() > c.ResponseDofs().size();
  for (const Record& r : c.records) {
    l.row_of.push_back(IndexOf(&l.rows, l.reciprocity ? r.reference : r.response));
    l.column_of.push_back(IndexOf(&l.columns, l.reciprocity ? r.response : r.reference));
  }
  return l;
}

double Quality(const Record& r, const std::vector<int>& lines) {
  if (r.coherence.empty()) return 1.0;
  double sum = 0.0;
  for (int k : lines) sum += std::clamp(r.coherence[k], 0.0, 1.0);
  return std::max(sum / lines.size(), 1e-3);
}

// pLSCF's rows: every roving DOF measured against all fixed DOFs (poly-reference), or every FRF
// alone (single reference). Weighted by the mean quality of their FRFs.
struct PoleRows {
  std::vector<std::vector<const std::complex<double>*>> rows;
  std::vector<double> weight;
  int records = 0;
};

PoleRows MakePoleRows(const Campaign& c, const Layout& l, const std::vector<double>& quality,
                      bool poly_reference) {
  PoleRows out;
  if (poly_reference) {
    const size_t m = l.columns.size();
    std::vector<std::vector<int>> record_at(l.rows.size(), std::vector<int>(m, -1));
    for (size_t i = 0; i < c.records.size(); ++i) record_at[l.row_of[i]][l.column_of[i]] = i;
    for (const auto& at : record_at) {
      if (std::find(at.begin(), at.end(), -1) != at.end()) continue;
      std::vector<const std::complex<double>*> row;
      double q = 0.0;
      for (int i : at) row.push_back(c.records[i].H.data()), q += quality[i] / m;
      out.rows.push_back(row);
      out.weight.push_back(q);
      out.records += static_cast<int>(m);
    }
    if (!out.rows.empty()) return out;
  }
  for (size_t i = 0; i < c.records.size(); ++i) {
    out.rows.push_back({c.records[i].H.data()});
    out.weight.push_back(quality[i]);
  }
  out.records = static_cast<int>(c.records.size());
  return out;
}

StabilisationPole ToStabilisationPole(int order, LscfPole& p) {
  StabilisationPole s;
  s.order = order;
  s.eigenvalue = p.eigenvalue;
  s.frequency_hz = p.eigenvalue.imag() / (2.0 * std::numbers::pi);
  s.damping_ratio = -p.eigenvalue.real() / std::abs(p.eigenvalue);
  s.vector = std::move(p.vector);
  return s;
}

// 1σ of frequency and damping ratio from the pole fit's covariance (as modal/ema.cc does).
void SetUncertainty(const PoleRefinement& fit, size_t p, EmaMode* mode) {
  const size_t n = 2 * fit.poles.size();
  if (fit.covariance.size() != n * n || fit.poles[p] != mode->eigenvalue) return;
  const double var_a = fit.covariance[(2 * p) * n + 2 * p];
  const double var_b = fit.covariance[(2 * p + 1) * n + 2 * p + 1];
  const double cov_ab = fit.covariance[(2 * p) * n + 2 * p + 1];
  const double a = mode->eigenvalue.real(), b = mode->eigenvalue.imag();
  const double r3 = std::pow(std::abs(mode->eigenvalue), 3);
  const double ga = -b * b / r3, gb = a * b / r3;
  mode->frequency_sigma_hz = std::sqrt(var_b) / (2.0 * std::numbers::pi);
  mode->damping_sigma = std::sqrt(ga * ga * var_a + 2 * ga * gb * cov_ab + gb * gb * var_b);
}

// The shape at the roving DOFs: the rank-one fit R_i ≈ u_row(i) v_column(i) of one mode's residues
// over every record (alternating least squares: each factor's components from the other's), its
// largest component scaled to 1; 1σ propagated from the residues' through u's formula.
void SetShape(const Layout& l, const ResidueFit& fit, Eigen::Index p, EmaMode* mode) {
  const size_t records = l.row_of.size();
  std::vector<double> column_norm(l.columns.size(), 0.0);
  for (size_t i = 0; i < records; ++i) column_norm[l.column_of[i]] += std::norm(fit.residues(i, p));
  std::vector<std::complex<double>> u(l.rows.size(), 0.0), v(l.columns.size(), 0.0);
  v[std::max_element(column_norm.begin(), column_norm.end()) - column_norm.begin()] = 1.0;
  auto half_step = [&](bool rows) {
    std::vector<std::complex<double>>& out = rows ? u : v;
    const std::vector<std::complex<double>>& other = rows ? v : u;
    std::vector<std::complex<double>> num(out.size(), 0.0);
    std::vector<double> den(out.size(), 0.0);
    for (size_t i = 0; i < records; ++i) {
      const int a = rows ? l.row_of[i] : l.column_of[i], b = rows ? l.column_of[i] : l.row_of[i];
      num[a] += fit.residues(i, p) * std::conj(other[b]);
      den[a] += std::norm(other[b]);
    }
    for (size_t a = 0; a < out.size(); ++a) out[a] = den[a] > 0.0 ? num[a] / den[a] : 0.0;
  };
  for (int iteration = 0; iteration < 200; ++iteration) {
    const std::vector<std::complex<double>> before = u;
    half_step(true);
    half_step(false);
    double change = 0.0, size = 0.0;
    for (size_t a = 0; a < u.size(); ++a) change += std::norm(u[a] - before[a]), size += std::norm(u[a]);
    if (iteration > 0 && change <= 1e-28 * size) break;
  }
  std::vector<double> variance(u.size(), 0.0), den(u.size(), 0.0);
  for (size_t i = 0; i < records; ++i) {
    const double v2 = std::norm(v[l.column_of[i]]);
    variance[l.row_of[i]] += fit.sigma(i, p) * fit.sigma(i, p) * v2;
    den[l.row_of[i]] += v2;
  }
  size_t at = 0;
  for (size_t a = 1; a < u.size(); ++a)
    if (std::abs(u[a]) > std::abs(u[at])) at = a;
  const std::complex<double> scale = std::abs(u[at]) > 0.0 ? u[at] : 1.0;
  mode->shape.resize(u.size());
  mode->shape_sigma.resize(u.size());
  for (size_t a = 0; a < u.size(); ++a) {
    mode->shape[a] = u[a] / scale;
    mode->shape_sigma[a] = den[a] > 0.0 ? std::sqrt(variance[a]) / den[a] / std::abs(scale) : kNaN;
  }
  mode->mpc = ModalPhaseCollinearity(mode->shape);
  mode->mpd_deg = MeanPhaseDeviationDeg(mode->shape);
}

std::vector<int> BandLines(const Campaign& c, const frfit::EmaOptions& o) {
  std::vector<int> lines;
  for (size_t k = 0; k < c.frequency_hz.size(); ++k) {
    const double f = c.frequency_hz[k];
    if (f > 0.0 && f >= o.band_min_hz && f <= o.band_max_hz) lines.push_back(static_cast<int>(k));
  }
  return lines;
}

void CheckFinite(const Campaign& c, const std::vector<int>& lines, const std::string& source) {
  for (const Record& r : c.records)
    for (int k : lines)
      if (!(std::isfinite(r.H[k].real()) && std::isfinite(r.H[k].imag())))
        throw Error(source, r.where.empty() ? "record " + ToString(r.response) : r.where,
                    "expected finite FRF values, got a non-finite one at " +
                        FormatDouble(c.frequency_hz[k]) + " Hz");
}

// The diagram over orders 1…max of the estimator, candidates only (in band, physical damping).
void Diagram(const LscfEstimator& estimator, const frfit::EmaOptions& o, EmaResult* r) {
  for (int order = 1; order <= r->max_order; ++order) {
    std::vector<StabilisationPole> poles;
    for (LscfPole& p : estimator.Poles(order)) {
      StabilisationPole s = ToStabilisationPole(order, p);
      if (s.frequency_hz < r->band_min_hz || s.frequency_hz > r->band_max_hz) continue;
      if (!(s.damping_ratio > 0.0 && s.damping_ratio < o.criteria.max_damping_ratio)) continue;
      poles.push_back(std::move(s));
    }
    std::sort(poles.begin(), poles.end(),
              [](const auto& a, const auto& b) { return a.frequency_hz < b.frequency_hz; });
    for (auto& p : poles) r->poles.push_back(std::move(p));
    if (o.progress) o.progress(order, r->max_order);
  }
  MarkStability(o.criteria, &r->poles);
}

// Where a mode's contribution is measured: f(1 ± max(5ζ, 2·frequency tolerance)), five
// half-power bandwidths on either side.
std::pair<double, double> LocalBand(std::complex<double> pole, const StabilisationCriteria& c) {
  const double f = pole.imag() / (2.0 * std::numbers::pi), zeta = -pole.real() / std::abs(pole);
  const double half = std::max(5.0 * zeta, 2.0 * c.frequency_tolerance);
  return {f * (1.0 - half), f * (1.0 + half)};
}

// The modes from the diagram's columns: refined by the output-error fit, then each must earn its
// place (misfit growth >= min_contribution), the least needed one dropped and the rest refined
// again (modal/ema.cc's rule, on every FRF at once).
void SelectModes(const FrfBlock& block, std::vector<PoleColumn> kept, const frfit::EmaOptions& o,
                 EmaResult* r, std::vector<std::complex<double>>* eigenvalues,
                 PoleRefinement* refinement) {
  const double response = WeightedResponse(block);
  const size_t steps = r->max_order + kept.size();
  std::vector<double> contributions, explained;
  while (true) {
    if (o.progress) o.progress(steps - kept.size(), steps);
    eigenvalues->clear();
    for (const PoleColumn& c : kept) eigenvalues->push_back(c.eigenvalue);
    *refinement = RefinePoles(block, *eigenvalues);
    r->refinement_iterations += refinement->iterations;
    for (size_t p = 0; p < eigenvalues->size(); ++p) {
      const std::complex<double> s = refinement->poles[p];
      const double f = s.imag() / (2.0 * std::numbers::pi), zeta = -s.real() / std::abs(s);
      if (f >= r->band_min_hz && f <= r->band_max_hz && zeta > 0.0 &&
          zeta < o.criteria.max_damping_ratio)
        (*eigenvalues)[p] = s;
    }
    const double all = ModalModelCost(block, *eigenvalues);
    contributions.assign(eigenvalues->size(), INFINITY);
    explained.assign(eigenvalues->size(), 0.0);
    size_t weakest = 0;
    for (size_t p = 0; p < eigenvalues->size(); ++p) {
      std::vector<std::complex<double>> without = *eigenvalues;
      without.erase(without.begin() + static_cast<long>(p));
      const double cost_without = ModalModelCost(block, without);
      // The misfit growth near the mode (LocalBand): over a whole campaign's band the misfit is
      // mostly noise at lines far from it, and one of a close pair would not count.
      const auto [from, to] = LocalBand((*eigenvalues)[p], o.criteria);
      const double local_all = ModalModelCost(block, *eigenvalues, from, to);
      if (local_all > 0.0)
        contributions[p] = ModalModelCost(block, without, from, to) / local_all - 1.0;
      if (response > 0.0) explained[p] = std::clamp((cost_without - all) / response, 0.0, 1.0);
      if (contributions[p] < contributions[weakest]) weakest = p;
    }
    if (eigenvalues->empty() || contributions[weakest] >= o.criteria.min_contribution) break;
    const std::complex<double> s = (*eigenvalues)[weakest];
    r->dropped.push_back({s.imag() / (2.0 * std::numbers::pi), -s.real() / std::abs(s),
                          kept[weakest].stable_poles, EmaDropReason::kContribution,
                          contributions[weakest]});
    kept.erase(kept.begin() + static_cast<long>(weakest));
  }
  for (size_t p = 0; p < kept.size(); ++p) {
    EmaMode m;
    m.eigenvalue = (*eigenvalues)[p];
    m.frequency_hz = m.eigenvalue.imag() / (2.0 * std::numbers::pi);
    m.damping_ratio = -m.eigenvalue.real() / std::abs(m.eigenvalue);
    m.stable_poles = kept[p].stable_poles;
    m.lowest_order = kept[p].lowest_order;
    m.contribution = contributions[p];
    m.explained = explained[p];
    SetUncertainty(*refinement, p, &m);
    r->modes.push_back(std::move(m));
  }
  if (o.progress) o.progress(steps, steps);
}

}  // namespace

bool EmaOptions::IsValid(std::string* error) const { return ema.IsValid(error); }

EmaResult EstimateModes(const Campaign& c, const EmaOptions& options, const std::string& source) {
  const frfit::EmaOptions& o = options.ema;
  std::string error;
  if (!options.IsValid(&error)) throw Error(source, "", error);
  if (c.records.empty()) throw Error(source, "records", "expected at least one FRF record");
  EmaResult r;
  r.source = source;
  r.options = options;
  r.format = c.records.front().format;
  const std::vector<int> lines = BandLines(c, o);
  CheckFinite(c, lines, source);
  const Layout layout = MakeLayout(c);
  std::vector<double> quality;
  for (const Record& rec : c.records) quality.push_back(Quality(rec, lines));
  const bool poly = !options.single_reference && layout.columns.size() >= 2;
  const PoleRows rows = MakePoleRows(c, layout, quality, poly);
  const int m = static_cast<int>(rows.rows.front().size());
  // The single-reference form costs orders⁴ × FRFs: 60 where the single-set EMA takes 120.
  const int wanted = o.max_order > 0 ? o.max_order : (m > 1 ? 120 / m : 60);
  const LscfEstimator estimator(c.frequency_hz, lines, rows.rows, rows.weight, wanted);
  if (estimator.max_order() < 1)
    throw Error(source, "frequency_hz",
                "expected enough lines with f > 0 in the band [" + FormatDouble(o.band_min_hz) +
                    ", " + FormatDouble(o.band_max_hz) + "] Hz to estimate poles, got " +
                    std::to_string(lines.size()));
  r.method = m > 1 ? "plscf" : "lscf";
  r.reciprocity = layout.reciprocity;
  if (m > 1) r.references = layout.columns;
  r.dofs = layout.rows;
  r.pole_records = rows.records;
  r.lines = static_cast<int>(lines.size());
  r.band_min_hz = c.frequency_hz[lines.front()];
  r.band_max_hz = c.frequency_hz[lines.back()];
  r.max_order = estimator.max_order();
  r.sampling_time_s = estimator.sampling_time_s();
  Diagram(estimator, o, &r);
  r.min_stable_poles = o.criteria.MinStablePolesFor(r.max_order);
  std::vector<PoleColumn> too_short;
  const std::vector<PoleColumn> columns =
      SplitColumns(r.poles, o.criteria, r.min_stable_poles, &too_short);
  for (const PoleColumn& col : too_short)
    r.dropped.push_back({col.frequency_hz, col.damping_ratio, col.stable_poles,
                         EmaDropReason::kFewStablePoles, kNaN});

  FrfBlock block;
  block.frequency_hz = c.frequency_hz;
  block.format = r.format;
  block.lines = lines;
  for (const Record& rec : c.records) block.frf.push_back(rec.H.data());
  block.quality = quality;
  SetWeights(&block);
  std::vector<std::complex<double>> eigenvalues;
  PoleRefinement refinement;
  SelectModes(block, columns, o, &r, &eigenvalues, &refinement);
  std::sort(r.dropped.begin(), r.dropped.end(),
            [](const EmaDropped& a, const EmaDropped& b) { return a.frequency_hz < b.frequency_hz; });

  const ResidueFit fit = FitResidues(block, eigenvalues);
  for (size_t p = 0; p < r.modes.size(); ++p) SetShape(layout, fit, static_cast<Eigen::Index>(p), &r.modes[p]);
  std::vector<Eigen::VectorXcd> shapes;
  for (const EmaMode& mode : r.modes)
    shapes.push_back(Eigen::Map<const Eigen::VectorXcd>(mode.shape.data(), mode.shape.size()));
  const Eigen::MatrixXd mac = Mac(shapes, shapes);
  for (Eigen::Index i = 0; i < mac.rows(); ++i)
    for (Eigen::Index j = 0; j < mac.cols(); ++j) r.auto_mac.push_back(mac(i, j));
  return r;
}

std::string DescribeMethod(const EmaResult& r) {
  char head[160];
  std::snprintf(head, sizeof head, "%s on %d FRFs", r.method == "plscf" ? "pLSCF" : "LSCF (common denominator)",
                r.pole_records);
  std::string out = head;
  if (!r.references.empty()) {
    out += " (references";
    for (size_t j = 0; j < r.references.size(); ++j) out += (j ? ", " : " ") + ToString(r.references[j]);
    out += r.reciprocity ? ", the fixed sensors by reciprocity)" : ")";
  }
  const StabilisationCriteria& c = r.options.ema.criteria;
  char tail[400];
  std::snprintf(tail, sizeof tail,
                ", orders 1-%d, %.6g-%.6g Hz; stable: df <= %.6g %%, dzeta <= %.6g %%, MAC >= "
                "%.6g, 0 < zeta < %.6g %%; a mode needs %d stable poles and a misfit growth "
                "without it >= %.6g %%; poles refined by an output-error fit of every FRF, shapes "
                "by LSFD",
                r.max_order, r.band_min_hz, r.band_max_hz, 100 * c.frequency_tolerance,
                100 * c.damping_tolerance, c.min_mac, 100 * c.max_damping_ratio,
                r.min_stable_poles, 100 * c.min_contribution);
  return out + tail;
}

}  // namespace frfit::campaign
