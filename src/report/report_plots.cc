#include "report_plots.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <sstream>
#include <tuple>
#include <vector>

#include "frfit/report/html_report.h"
#include "svg_parts.h"

namespace frfit::html {

// Contiguous runs of lines whose weight exceeds the entry's smallest weight, as shaded bands.
// Noise weights (the default) differ on every line: shading "above the base" would cover the whole
// band and say nothing. Peak weights take a few levels (base, peak, 0 for dropped lines).
bool ShadesWeights(const PostureResult& p) {
  std::vector<double> levels;
  for (double w : p.weights) {
    if (std::find(levels.begin(), levels.end(), w) == levels.end()) levels.push_back(w);
    if (levels.size() > 6) return false;
  }
  return true;
}

static std::string WeightBands(const PostureResult& p, int entry, const Scale& sx, double top, double height) {
  if (!ShadesWeights(p)) return "";
  const int n = p.measured.num_lines();
  double base = INFINITY, peak = -INFINITY;
  for (int k = 0; k < n; ++k) {
    base = std::min(base, p.weights[k * 9 + entry]);
    peak = std::max(peak, p.weights[k * 9 + entry]);
  }
  std::string out;
  if (!(peak > base)) return out;
  for (int k = 0; k < n;) {
    if (!(p.weights[k * 9 + entry] > base)) { ++k; continue; }
    int end = k;
    double w = 0.0;
    while (end + 1 < n && p.weights[(end + 1) * 9 + entry] > base) ++end;
    for (int j = k; j <= end; ++j) w = std::max(w, p.weights[j * 9 + entry]);
    const double f0 = k > 0 ? 0.5 * (p.measured.frequency_hz[k - 1] + p.measured.frequency_hz[k]) : p.measured.frequency_hz[k];
    const double f1 = end + 1 < n ? 0.5 * (p.measured.frequency_hz[end] + p.measured.frequency_hz[end + 1]) : p.measured.frequency_hz[end];
    const double x0 = sx(f0), x1 = std::max(sx(f1), x0 + 1.0);
    out += "<rect class=\"weight-band\" x=\"" + Coord(x0) + "\" y=\"" + Coord(top) + "\" width=\"" +
           Coord(x1 - x0) + "\" height=\"" + Coord(height) + "\"><title>weight " + Num(w, 4) +
           " (base " + Num(base, 4) + ") from " + Num(f0, 5) + " to " + Num(f1, 5) +
           " Hz</title></rect>";
    k = end + 1;
  }
  return out;
}

// One FRF entry: log magnitude over phase, measured and fitted, weight bands shaded.
std::string FrfPlot(const PostureResult& p, int i, int j) {
  const int entry = 3 * i + j, n = p.measured.num_lines();
  const double W = 420, H = 318, left = 56, right = 10, top = 24;
  const double mag_h = 168, gap = 10, phase_h = 82;
  const double plot_w = W - left - right;
  const double mag_top = top, phase_top = top + mag_h + gap;
  std::vector<double> mm(n), mf(n), pm(n), pf(n);
  double lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < n; ++k) {
    const auto m = p.measured.H[k * 9 + entry], f = p.fitted.H[k * 9 + entry];
    mm[k] = std::abs(m), mf[k] = std::abs(f);
    pm[k] = std::arg(m) * 180.0 / std::numbers::pi, pf[k] = std::arg(f) * 180.0 / std::numbers::pi;
    for (double v : {mm[k], mf[k]})
      if (v > 0 && std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    if (!(mm[k] > 0)) mm[k] = NAN, pm[k] = NAN;
    if (!(mf[k] > 0)) mf[k] = NAN, pf[k] = NAN;
  }
  int dhi = std::isfinite(hi) ? static_cast<int>(std::ceil(std::log10(hi) - 1e-9)) : 0;
  int dlo = std::isfinite(lo) ? static_cast<int>(std::floor(std::log10(lo) + 1e-9)) : dhi - 1;
  dlo = std::max(dlo, dhi - 7);  // at most seven decades; lower values sit on the bottom edge
  if (dlo >= dhi) dlo = dhi - 1;
  const double f0 = n ? p.measured.frequency_hz.front() : 0.0, f1 = n > 1 ? p.measured.frequency_hz.back() : f0 + 1.0;
  const Scale sx{f0, f1, left, left + plot_w};
  const Scale sm{static_cast<double>(dlo), static_cast<double>(dhi), mag_top + mag_h, mag_top, true};
  const Scale sp{-180.0, 180.0, phase_top + phase_h, phase_top};

  // Built from a std::string: "H" + std::string&& trips GCC 12's -Wrestrict false positive
  // (bug 105329); so in the other labels and paths of this file.
  const std::string name = std::string("H") + kAxisNames[i] + kAxisNames[j];
  std::ostringstream s;
  s << "<svg class=\"frf-plot\" id=\"frf-" << IdPart(p.name) << "-" << kAxisNames[i] << kAxisNames[j]
    << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" viewBox=\"0 0 " << W << " " << H << "\" role=\"img\" aria-label=\"" << name
    << " measured and fitted\">";
  s << "<text class=\"title\" x=\"" << left << "\" y=\"15\">H<tspan dy=\"3\" font-size=\"10\">"
    << kAxisNames[i] << kAxisNames[j] << "</tspan><tspan dy=\"-3\" class=\"sub\"> response "
    << kAxisNames[i] << ", force " << kAxisNames[j] << "</tspan></text>";
  for (auto [ptop, ph] : {std::pair{mag_top, mag_h}, std::pair{phase_top, phase_h}}) {
    s << "<rect class=\"panel\" x=\"" << left << "\" y=\"" << ptop << "\" width=\"" << plot_w
      << "\" height=\"" << ph << "\"/>";
    s << WeightBands(p, entry, sx, ptop, ph);
  }
  // Grid and tick labels.
  s << FrequencyAxis(sx, 6, {{mag_top, mag_h}, {phase_top, phase_h}}, H);
  const int step = dhi - dlo > 4 ? 2 : 1;
  for (int k = dlo; k <= dhi; ++k) {
    const std::string y = Coord(sm(std::pow(10.0, k)));
    s << "<line class=\"grid\" x1=\"" << left << "\" x2=\"" << left + plot_w << "\" y1=\"" << y
      << "\" y2=\"" << y << "\"/>";
    // The bottom decade's label would touch the phase panel's "180" just below it.
    if ((dhi - k) % step == 0 && k != dlo)
      s << "<text class=\"" << kAxes << "\" x=\"" << left - 4 << "\" y=\"" << Coord(sm(std::pow(10.0, k)) + 3.5)
        << "\" text-anchor=\"end\">" << Decade(k) << "</text>";
  }
  for (int deg : {-180, -90, 0, 90, 180}) {
    const std::string y = Coord(sp(deg));
    s << "<line class=\"grid\" x1=\"" << left << "\" x2=\"" << left + plot_w << "\" y1=\"" << y
      << "\" y2=\"" << y << "\"/>";
    s << "<text class=\"" << kAxes << "\" x=\"" << left - 4 << "\" y=\"" << Coord(sp(deg) + 3.5)
      << "\" text-anchor=\"end\">" << deg << "</text>";
  }
  s << "<text class=\"" << kAxes << "\" transform=\"translate(12," << mag_top + mag_h / 2
    << ") rotate(-90)\" text-anchor=\"middle\">|H| [" << HtmlEscape(UnitsOf(p.measured.format)) << "]</text>";
  s << "<text class=\"" << kAxes << "\" transform=\"translate(12," << phase_top + phase_h / 2
    << ") rotate(-90)\" text-anchor=\"middle\">phase [&#176;]</text>";
  // Curves: magnitude in log space, phase broken at wraps.
  std::vector<double> lmm(n), lmf(n);
  for (int k = 0; k < n; ++k) lmm[k] = mm[k], lmf[k] = mf[k];
  s << "<path class=\"measured\" d=\"" << Path(p.measured.frequency_hz, lmm, sx, sm) << "\"/>";
  s << "<path class=\"fitted\" d=\"" << Path(p.measured.frequency_hz, lmf, sx, sm) << "\"/>";
  s << "<path class=\"measured\" d=\"" << Path(p.measured.frequency_hz, pm, sx, sp, 180.0) << "\"/>";
  s << "<path class=\"fitted\" d=\"" << Path(p.measured.frequency_hz, pf, sx, sp, 180.0) << "\"/>";
  s << "</svg>";
  return s.str();
}

std::string FrfLegend(const PostureResult& p) {
  const std::vector<LegendItem> items = {
      {std::string("<line x1=\"0\" x2=\"24\" y1=\"6\" y2=\"6\" stroke=\"") + kMeasuredColour +
           "\" stroke-width=\"2\"/>",
       "measured"},
      {std::string("<line x1=\"0\" x2=\"24\" y1=\"6\" y2=\"6\" stroke=\"") + kFittedColour +
           "\" stroke-width=\"2\" stroke-dasharray=\"6 3\"/>",
       "fitted"},
      ShadesWeights(p)
          ? LegendItem{"<rect class=\"weight-band\" x=\"0\" y=\"0\" width=\"24\" height=\"12\"/>",
                       "lines weighted above the base weight"}
          : LegendItem{"", "weights: each line's inverse noise variance (not shaded)"}};
  double width = 0.0;
  const std::string row = LegendRow(items, 4, 5, &width);
  std::ostringstream s;
  s << "<svg class=\"legend\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << Coord(width + 8)
    << "\" height=\"22\" viewBox=\"0 0 " << Coord(width + 8) << " 22\">" << row << "</svg>";
  return s.str();
}

// The residual of every present entry against frequency: the magnitude error
// 20·log10(|H_fit| / |H_measured|) in dB over the phase error arg(H_fit / H_measured) in degrees
// (wrapped into (−180°, 180°]) — the two parts of the log-FRF cost, so that a fit that is off in
// some band shows where and how much, which overlaid curves spanning decades hide.
//
// With a noise model the headline numbers and the ranges come from the lines 10 dB above the noise
// (|H|² ≥ 10σ²): a line under the floor has an error of tens of dB that is the noise's, not the
// model's, and would hide the structured misfit behind it. Those lines are still drawn, clipped at
// the panels' edges.
static bool ClearOfNoise(const PostureResult& p, int line, int entry) {
  if (p.measured.noise_variance.empty()) return true;
  const size_t i = static_cast<size_t>(line) * 9 + entry;
  return std::norm(p.measured.H[i]) >= 10.0 * p.measured.noise_variance[i];
}

std::string ResidualPlot(const PostureResult& p) {
  static const char* kEntryColours[9] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                         "#8c564b", "#e377c2", "#7f7f7f", "#17becf"};
  const int n = p.measured.num_lines();
  const double left = 70, top = 24, gap = 16, mag_h = 150, phase_h = 120, plot_w = 840, H = 360;
  const double mag_top = top, phase_top = top + mag_h + gap;
  std::vector<std::vector<double>> db(9), deg(9);
  double db_max = 0.0, deg_max = 0.0;
  for (int e = 0; e < 9; ++e) {
    if (!p.measured.present[e]) continue;
    db[e].resize(n), deg[e].resize(n);
    for (int k = 0; k < n; ++k) {
      const std::complex<double> ratio = p.fitted.H[k * 9 + e] / p.measured.H[k * 9 + e];
      db[e][k] = 20.0 * std::log10(std::abs(ratio));
      deg[e][k] = std::arg(ratio) * 180.0 / std::numbers::pi;
      if (!ClearOfNoise(p, k, e)) continue;
      if (std::isfinite(db[e][k])) db_max = std::max(db_max, std::abs(db[e][k]));
      if (std::isfinite(deg[e][k])) deg_max = std::max(deg_max, std::abs(deg[e][k]));
    }
  }
  // Symmetric ranges on round numbers, at least ±1 dB and ±5°, so that a good fit looks flat.
  auto range = [](double v, double least) {
    for (double r : {1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0})
      if (std::max(v, least) <= r) return r;
    return 1000.0;
  };
  const double db_range = range(db_max, 1.0), deg_range = std::min(180.0, range(deg_max, 5.0));
  for (int e = 0; e < 9; ++e)  // noise-floor lines beyond the range sit on the panels' edges
    for (int k = 0; k < static_cast<int>(db[e].size()); ++k) {
      if (std::isfinite(db[e][k])) db[e][k] = std::clamp(db[e][k], -db_range, db_range);
      if (std::isfinite(deg[e][k])) deg[e][k] = std::clamp(deg[e][k], -deg_range, deg_range);
    }
  // Each entry's legend label, with its worst errors; the plot is as wide as the longest needs.
  std::vector<std::string> labels(9);
  std::vector<double> worst_db(9, 0.0), worst_deg(9, 0.0);  // clamped to the ranges, as drawn
  size_t longest = 0;
  for (int e = 0; e < 9; ++e) {
    if (!p.measured.present[e]) continue;
    for (int k = 0; k < n; ++k) {
      if (!ClearOfNoise(p, k, e)) continue;
      if (std::isfinite(db[e][k])) worst_db[e] = std::max(worst_db[e], std::abs(db[e][k]));
      if (std::isfinite(deg[e][k])) worst_deg[e] = std::max(worst_deg[e], std::abs(deg[e][k]));
    }
    labels[e] = std::string("H") + kAxisNames[e / 3] + kAxisNames[e % 3] + " max " +
                Num(worst_db[e], 2) + " dB, " + Num(worst_deg[e], 2) + "&#176;";
    longest = std::max(longest, labels[e].size() - 5);  // "&#176;" shows as one character
  }
  const double right = 14 + 28 + longest * kLegendCharWidth + 12, W = left + plot_w + right;
  const double f0 = n ? p.measured.frequency_hz.front() : 0.0, f1 = n > 1 ? p.measured.frequency_hz.back() : f0 + 1.0;
  const Scale sx{f0, f1, left, left + plot_w};
  const Scale sm{-db_range, db_range, mag_top + mag_h, mag_top};
  const Scale sp{-deg_range, deg_range, phase_top + phase_h, phase_top};
  std::ostringstream s;
  s << "<svg class=\"residual-plot\" id=\"residual-" << IdPart(p.name)
    << "\" xmlns=\"http://www.w3.org/2000/svg\" "
    << "width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " " << H
    << "\" role=\"img\" aria-label=\"magnitude and phase error of the fitted FRFs against "
       "frequency\">";
  for (auto [ptop, ph] : {std::pair{mag_top, mag_h}, std::pair{phase_top, phase_h}})
    s << "<rect class=\"panel\" x=\"" << left << "\" y=\"" << ptop << "\" width=\"" << plot_w
      << "\" height=\"" << ph << "\"/>";
  s << FrequencyAxis(sx, 10, {{mag_top, mag_h}, {phase_top, phase_h}}, H);
  for (auto [scale, limit, ptop, ph, label] :
       {std::tuple{sm, db_range, mag_top, mag_h, "|H| error [dB]"},
        std::tuple{sp, deg_range, phase_top, phase_h, "phase error [&#176;]"}}) {
    for (double t : NiceTicks(-limit, limit, 4)) {
      const std::string y = Coord(scale(t));
      s << "<line class=\"" << (t == 0.0 ? "zero" : "grid") << "\" x1=\"" << left << "\" x2=\""
        << left + plot_w << "\" y1=\"" << y << "\" y2=\"" << y << "\"/>";
      s << "<text class=\"" << kAxes << "\" x=\"" << left - 4 << "\" y=\"" << Coord(scale(t) + 3.5)
        << "\" text-anchor=\"end\">" << Num(t, 4) << "</text>";
    }
    s << "<text class=\"" << kAxes << "\" transform=\"translate(14," << ptop + ph / 2
      << ") rotate(-90)\" text-anchor=\"middle\">" << label << "</text>";
  }
  int row = 0;
  for (int e = 0; e < 9; ++e) {
    if (!p.measured.present[e]) continue;
    const std::string entry = std::string(kAxisNames[e / 3]) + kAxisNames[e % 3];
    s << "<path class=\"residual-magnitude\" data-entry=\"" << entry << "\" data-max-abs-db=\""
      << Exact(worst_db[e]) << "\" stroke=\"" << kEntryColours[e] << "\" d=\""
      << Path(p.measured.frequency_hz, db[e], sx, sm) << "\"/>";
    s << "<path class=\"residual-phase\" data-entry=\"" << entry << "\" data-max-abs-deg=\""
      << Exact(worst_deg[e]) << "\" stroke=\"" << kEntryColours[e] << "\" d=\""
      << Path(p.measured.frequency_hz, deg[e], sx, sp, 180.0) << "\"/>";
    const double ly = top + 8 + 17 * row++, lx = left + plot_w + 14;
    s << "<line x1=\"" << lx << "\" x2=\"" << lx + 22 << "\" y1=\"" << ly << "\" y2=\"" << ly
      << "\" stroke=\"" << kEntryColours[e] << "\" stroke-width=\"2\"/><text x=\"" << lx + 28
      << "\" y=\"" << ly + 4 << "\">" << labels[e] << "</text>";
  }
  s << "</svg>";
  return s.str();
}

// The phase stretches of the cost history, shaded: each row closes the stretch since the
// previous row's evaluation count.
static std::string PhaseStretches(const FitResult& d, const Scale& sx, double top, double height) {
  std::ostringstream s;
  double start = 0.0;
  for (size_t k = 0; k < d.history.size();) {
    const HistoryRow& r = d.history[k];
    size_t end = k;
    while (end + 1 < d.history.size() && d.history[end + 1].cycle == r.cycle &&
           d.history[end + 1].phase == r.phase)
      ++end;
    const double x0 = sx(start), x1 = sx(static_cast<double>(d.history[end].evaluations));
    const char* css = r.phase == FitPhase::kGeneticAlgorithm ? "phase-ga" : r.phase == FitPhase::kLevenbergMarquardt ? "phase-lm" : "phase-nm";
    const char* name = r.phase == FitPhase::kGeneticAlgorithm   ? "genetic algorithm"
                       : r.phase == FitPhase::kLevenbergMarquardt ? "Levenberg-Marquardt"
                                      : "Nelder-Mead";
    s << "<rect class=\"" << css << "\" x=\"" << Coord(x0) << "\" y=\"" << top << "\" width=\""
      << Coord(std::max(x1 - x0, 0.5)) << "\" height=\"" << height << "\"><title>cycle "
      << r.cycle << ", " << name << ", evaluations " << static_cast<long long>(start) << " to "
      << d.history[end].evaluations << "</title></rect>";
    start = static_cast<double>(d.history[end].evaluations);
    k = end + 1;
  }
  return s.str();
}

// Decade grid lines of the log cost axis, at most 7 labelled (a noise-free fit falls through 30
// decades: every one labelled would overlap), unlabelled lines only where they stay apart.
static std::string CostAxis(const Scale& sy, int dlo, int dhi, double left, double width) {
  std::ostringstream s;
  const int step = DecadeLabelStep(dlo, dhi, 7);
  const bool every_line = (dhi - dlo) <= 24;
  for (int k = dhi; k >= dlo; --k) {
    const bool labelled = (dhi - k) % step == 0;
    if (!labelled && !every_line) continue;
    const double y = sy(std::pow(10.0, k));
    s << "<line class=\"grid\" x1=\"" << left << "\" x2=\"" << left + width << "\" y1=\""
      << Coord(y) << "\" y2=\"" << Coord(y) << "\"/>";
    if (labelled)
      s << "<text class=\"" << kAxes << " cost-tick\" x=\"" << left - 5 << "\" y=\""
        << Coord(y + 3.5) << "\" text-anchor=\"end\">" << Decade(k) << "</text>";
  }
  return s.str();
}

static bool IsPassStart(const FitResult& d, size_t k) {
  const HistoryRow &r = d.history[k], &before = d.history[k - 1];
  return r.phase == FitPhase::kLevenbergMarquardt && before.phase == FitPhase::kLevenbergMarquardt && r.cycle == before.cycle && r.step <= before.step;
}

// Where a refinement pass began: the least-squares rounds restart at step 0 within the same cycle.
// A pass fits under the noise weights of the point before it (fit/fit_passes.h), so its cost is
// on another scale than the search's: the drop at the boundary is the change of weights.
static std::string PassBoundaries(const FitResult& d, const Scale& sx, double top, double height) {
  std::ostringstream s;
  int pass = 0;
  double label_x = -INFINITY, label_y = top + 12;
  for (size_t k = 1; k < d.history.size(); ++k) {
    const HistoryRow &r = d.history[k], &before = d.history[k - 1];
    if (r.cycle != before.cycle) pass = 0;
    if (!IsPassStart(d, k)) continue;
    const double x = sx(static_cast<double>(before.evaluations));
    // Passes a few evaluations apart: their labels step down instead of overlapping.
    label_y = x - label_x < 48 ? label_y + 12 : top + 12;
    label_x = x;
    s << "<line class=\"pass-boundary\" x1=\"" << Coord(x) << "\" x2=\"" << Coord(x) << "\" y1=\""
      << top << "\" y2=\"" << top + height << "\"/><text class=\"" << kAxes
      << " pass-label\" x=\"" << Coord(x) << "\" y=\"" << label_y
      << "\" text-anchor=\"end\">pass " << ++pass << "&#160;</text>";
  }
  return s.str();
}

// Whether row k belongs to a genetic-algorithm stretch of at most 3 generations: there the line
// alone is too short to see, and each generation gets a dot.
static bool InShortGaStretch(const FitResult& d, size_t k) {
  const auto same = [&](size_t j) {
    return d.history[j].phase == FitPhase::kGeneticAlgorithm && d.history[j].cycle == d.history[k].cycle;
  };
  size_t first = k, last = k;
  while (first > 0 && same(first - 1)) --first;
  while (last + 1 < d.history.size() && same(last + 1)) ++last;
  return last - first < 3;
}

// The best cost as a staircase (it only changes at recorded rows), and a dot at every
// generation of a short genetic-algorithm stretch: one of one generation (the bundled
// configurations sample one population, then refine) ends at a single point, which a line alone
// would not show.
static std::string BestCostCurve(const FitResult& d, const Scale& sx, const Scale& sy) {
  std::string path, dots;
  for (const HistoryRow& r : d.history) {
    if (!(r.best_cost > 0 && std::isfinite(r.best_cost))) continue;
    const double xs = sx(static_cast<double>(r.evaluations)), ys = sy(r.best_cost);
    if (path.empty()) (((path = "M") += Coord(xs)) += ' ') += Coord(ys);
    else (((path += "H") += Coord(xs)) += 'V') += Coord(ys);
    if (r.phase == FitPhase::kGeneticAlgorithm && InShortGaStretch(d, &r - d.history.data()))
      dots += "<circle class=\"ga-generation\" cx=\"" + Coord(xs) + "\" cy=\"" + Coord(ys) +
              "\" r=\"3.5\"><title>cycle " + std::to_string(r.cycle) + ", generation " +
              std::to_string(r.step) + ": best cost " + Num(r.best_cost, 4) + "</title></circle>";
  }
  return "<path class=\"best-cost\" d=\"" + path + "\"/>" + dots;
}

static std::string HistoryLegend(const FitResult& d, double x, double y) {
  bool ga = false, cycles = false, passes = false;
  for (size_t k = 0; k < d.history.size(); ++k) {
    ga = ga || (d.history[k].phase == FitPhase::kGeneticAlgorithm && InShortGaStretch(d, k));
    cycles = cycles || (k > 0 && d.history[k].cycle != d.history[k - 1].cycle);
    passes = passes || (k > 0 && IsPassStart(d, k));
  }
  const bool nm = d.refinement == "nelder_mead";
  std::vector<LegendItem> items = {
      {"<rect class=\"phase-ga\" x=\"4\" y=\"0\" width=\"16\" height=\"12\"/>", "genetic algorithm"},
      {std::string("<rect class=\"") + (nm ? "phase-nm" : "phase-lm") +
           "\" x=\"4\" y=\"0\" width=\"16\" height=\"12\"/>",
       nm ? "Nelder-Mead" : "Levenberg-Marquardt"},
      {"<line class=\"best-cost\" x1=\"0\" x2=\"24\" y1=\"6\" y2=\"6\"/>", "best cost"}};
  if (ga)
    items.push_back({"<circle class=\"ga-generation\" cx=\"12\" cy=\"6\" r=\"3.5\"/>",
                     "best after a GA generation"});
  if (cycles)
    items.push_back({"<line class=\"cycle-boundary\" x1=\"12\" x2=\"12\" y1=\"-1\" y2=\"13\"/>",
                     "cycle boundary"});
  if (passes)
    items.push_back({"<line class=\"pass-boundary\" x1=\"12\" x2=\"12\" y1=\"-1\" y2=\"13\"/>",
                     "refinement pass"});
  return LegendRow(items, x, y);
}

// Best cost against evaluations (log y), phase stretches shaded, cycle boundaries dashed.
std::string HistoryPlot(const FitResult& d) {
  const double W = 1100, H = 348, left = 70, right = 20, top = 30, bottom = 62;
  const double pw = W - left - right, ph = H - top - bottom;
  std::ostringstream s;
  s << "<svg class=\"history-plot\" id=\"history-plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
    << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " " << H
    << "\" role=\"img\" aria-label=\"best cost against evaluations\">";
  double lo = INFINITY, hi = -INFINITY, xmax = 0.0;
  for (const HistoryRow& r : d.history) {
    xmax = std::max(xmax, static_cast<double>(r.evaluations));
    if (r.best_cost > 0 && std::isfinite(r.best_cost)) lo = std::min(lo, r.best_cost), hi = std::max(hi, r.best_cost);
  }
  s << "<rect class=\"panel\" x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\""
    << ph << "\"/>";
  if (!std::isfinite(lo)) {
    s << "<text x=\"" << left + pw / 2 << "\" y=\"" << top + ph / 2
      << "\" text-anchor=\"middle\">no history recorded</text></svg>";
    return s.str();
  }
  if (xmax <= 0) xmax = 1;
  const int dhi = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  int dlo = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  if (dlo >= dhi) dlo = dhi - 1;
  const Scale sx{0.0, xmax, left, left + pw};
  const Scale sy{static_cast<double>(dlo), static_cast<double>(dhi), top + ph, top, true};
  s << PhaseStretches(d, sx, top, ph);
  for (double t : NiceTicks(0.0, xmax, 8)) {
    const std::string xs = Coord(sx(t));
    s << "<line class=\"grid\" x1=\"" << xs << "\" x2=\"" << xs << "\" y1=\"" << top << "\" y2=\"" << top + ph
      << "\"/><text class=\"" << kAxes << "\" x=\"" << xs << "\" y=\"" << top + ph + 14
      << "\" text-anchor=\"middle\">" << Num(t, 8) << "</text>";
  }
  s << CostAxis(sy, dlo, dhi, left, pw);
  // Cycle boundaries: where the cycle number changes.
  for (size_t k = 1; k < d.history.size(); ++k)
    if (d.history[k].cycle != d.history[k - 1].cycle) {
      const std::string xs = Coord(sx(static_cast<double>(d.history[k - 1].evaluations)));
      s << "<line class=\"cycle-boundary\" x1=\"" << xs << "\" x2=\"" << xs << "\" y1=\"" << top - 4
        << "\" y2=\"" << top + ph << "\"/><text class=\"" << kAxes << "\" x=\"" << xs << "\" y=\"" << top - 7
        << "\" text-anchor=\"middle\">cycle " << d.history[k].cycle << "</text>";
    }
  s << PassBoundaries(d, sx, top, ph);
  s << BestCostCurve(d, sx, sy);
  s << "<text class=\"" << kAxes << "\" x=\"" << left + pw << "\" y=\"" << top + ph + 28
    << "\" text-anchor=\"end\">evaluations</text>";
  s << "<text class=\"" << kAxes << "\" transform=\"translate(14," << top + ph / 2
    << ") rotate(-90)\" text-anchor=\"middle\">best cost</text>";
  s << HistoryLegend(d, left + 4, H - 20) << "</svg>";
  return s.str();
}

// White to dark blue for MAC 0..1.
static std::string MacColour(double mac) {
  if (!std::isfinite(mac)) return "#e6e6e6";
  const double t = std::clamp(mac, 0.0, 1.0);
  const int r = static_cast<int>(std::lround(255 + t * (8 - 255)));
  const int g = static_cast<int>(std::lround(255 + t * (48 - 255)));
  const int b = static_cast<int>(std::lround(255 + t * (107 - 255)));
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", r, g, b);
  return buffer;
}

// Reference modes (rows) against fitted modes (columns), the MAC in every cell as a number and a
// shade, the pairs of the modal table outlined: a clean fit is a dark outlined diagonal and pale
// elsewhere; two swapped modes show as dark cells off the outline. Results written before the
// whole matrix was stored have the paired MACs only, shown on the diagonal.
std::string MacMap(const ModalComparison& p, const std::string& name) {
  const int rows = static_cast<int>(p.rows.size());
  const bool full =
      !p.mac_fitted_frequency_hz.empty() && static_cast<size_t>(p.mac.size()) == p.rows.size() * p.mac_fitted_frequency_hz.size();
  const int cols = full ? static_cast<int>(p.mac_fitted_frequency_hz.size()) : rows;
  const double cell = 54, left = 118, top = 58;
  const double W = std::max(left + cols * cell + 70, 330.0), H = top + rows * cell + 24;
  auto fitted_hz = [&](int c) {
    return full ? p.mac_fitted_frequency_hz[c] : p.rows[c].fitted_frequency_hz;
  };
  std::ostringstream s;
  s << "<svg class=\"mac-map\" id=\"mac-" << IdPart(name)
    << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" viewBox=\"0 0 " << W << " " << H
    << "\" role=\"img\" aria-label=\"MAC of every reference mode with every fitted mode\">";
  s << "<text class=\"" << kAxes << "\" x=\"" << left + cols * cell / 2
    << "\" y=\"16\" text-anchor=\"middle\">"
       "fitted modes [Hz]</text>";
  for (int c = 0; c < cols; ++c)
    s << "<text class=\"mac-label\" x=\"" << Coord(left + (c + 0.5) * cell) << "\" y=\"" << top - 10
      << "\" text-anchor=\"middle\">" << Num(fitted_hz(c), 4) << "</text>";
  s << "<text class=\"" << kAxes << "\" transform=\"translate(14," << top + rows * cell / 2
    << ") rotate(-90)\" text-anchor=\"middle\">reference modes [Hz]</text>";
  for (int r = 0; r < rows; ++r) {
    s << "<text class=\"mac-label\" x=\"" << left - 8 << "\" y=\""
      << Coord(top + (r + 0.5) * cell + 4) << "\" text-anchor=\"end\">"
      << Num(p.rows[r].reference_frequency_hz, 4) << "</text>";
    for (int c = 0; c < cols; ++c) {
      const double x = left + c * cell, y = top + r * cell;
      const bool paired = full ? fitted_hz(c) == p.rows[r].fitted_frequency_hz : r == c;
      if (!full && !paired) {
        s << "<rect class=\"mac-off\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << cell
          << "\" height=\"" << cell
          << "\"><title>not stored: this result keeps the MAC of paired modes only</title></rect>";
        continue;
      }
      const double mac = full ? p.mac(r, c) : p.rows[r].mac;
      s << "<rect class=\"mac-cell" << (paired ? " mac-pair" : "") << "\" x=\"" << x << "\" y=\""
        << y << "\" width=\"" << cell << "\" height=\"" << cell << "\" fill=\"" << MacColour(mac)
        << "\" data-value=\"" << Exact(mac) << "\"><title>reference "
        << Num(p.rows[r].reference_frequency_hz, 4) << " Hz / fitted " << Num(fitted_hz(c), 4)
        << " Hz: MAC " << Num(mac, 4) << (paired ? " (paired)" : "") << "</title></rect>";
      // A class, not a fill attribute: the page's "svg text" rule would win over an attribute.
      s << "<text class=\"mac-value" << (std::isfinite(mac) && mac > 0.55 ? " on-dark" : "")
        << "\" x=\"" << x + cell / 2 << "\" y=\"" << y + cell / 2 + 4
        << "\" text-anchor=\"middle\">" << (std::isfinite(mac) ? Fixed(mac, 2) : std::string("n/a"))
        << "</text>";
    }
  }
  // Colour bar.
  const double bx = left + cols * cell + 20, bh = std::max(rows * cell, 80.0);
  s << "<defs><linearGradient id=\"macgrad-" << IdPart(name) << "\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">"
    << "<stop offset=\"0\" stop-color=\"" << MacColour(0) << "\"/><stop offset=\"1\" stop-color=\""
    << MacColour(1) << "\"/></linearGradient></defs>";
  s << "<rect x=\"" << bx << "\" y=\"" << top << "\" width=\"12\" height=\"" << bh << "\" fill=\"url(#macgrad-"
    << IdPart(name) << ")\" stroke=\"#888\" stroke-width=\"0.5\"/>";
  s << "<text class=\"" << kAxes << "\" x=\"" << bx + 16 << "\" y=\"" << top + 8 << "\">1</text><text class=\""
    << kAxes << "\" x=\"" << bx + 16 << "\" y=\"" << top + bh << "\">0</text>";
  s << "</svg>";
  return s.str();
}


// The diverging map of correlations: blue (−1) through white (0) to red (+1), the usual reading
// (ColorBrewer RdBu). Interpolated in sRGB between the three stops.
std::string CorrelationColour(double rho) {
  if (!std::isfinite(rho)) return "#e6e6e6";
  const double t = std::clamp(rho, -1.0, 1.0);
  const double white[3] = {247, 247, 247}, blue[3] = {33, 102, 172}, red[3] = {178, 24, 43};
  const double* end = t < 0 ? blue : red;
  int c[3];
  for (int k = 0; k < 3; ++k)
    c[k] = static_cast<int>(std::lround(white[k] + std::abs(t) * (end[k] - white[k])));
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", c[0], c[1], c[2]);
  return buffer;
}

// The correlation matrix of the free parameters, a cell per pair, with its colour bar. The matrix
// is about 320 px square whatever the count (cells of 24 to 56 px): three to six parameters in
// 22 px cells made a stamp of 66-132 px. Cells wide enough carry their value.
std::string CorrelationMap(const Identifiability& id) {
  const size_t p = id.per_parameter.size();
  const double cell = std::clamp(320.0 / std::max<size_t>(p, 1), 24.0, 56.0);
  const double left = 70, top = 70, bar_gap = 24, bar_w = 14;
  const double side = std::max(p * cell, 120.0);
  const double W = left + p * cell + bar_gap + bar_w + 40, H = top + side + 10;
  std::ostringstream s;
  s << "<svg class=\"correlation-map\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W
    << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " " << H
    << "\" role=\"img\" aria-label=\"correlation of the fitted parameters\">";
  for (size_t j = 0; j < p; ++j) {
    const std::string name = HtmlEscape(id.per_parameter[j].name);
    s << "<text class=\"" << kAxes << "\" x=\"" << left - 4 << "\" y=\""
      << Coord(top + (j + 0.5) * cell + 4) << "\" text-anchor=\"end\">" << name
      << "</text><text class=\"" << kAxes << "\" transform=\"translate("
      << Coord(left + (j + 0.5) * cell + 3) << "," << top - 4 << ") rotate(-60)\">" << name
      << "</text>";
    for (size_t k = 0; k < p; ++k) {
      const double rho = id.correlation[j * p + k];
      s << "<rect class=\"correlation-cell\" x=\"" << left + k * cell << "\" y=\"" << top + j * cell
        << "\" width=\"" << cell << "\" height=\"" << cell << "\" fill=\"" << CorrelationColour(rho)
        << "\" data-value=\"" << Exact(rho) << "\"><title>" << name << " / "
        << HtmlEscape(id.per_parameter[k].name) << ": " << Num(rho, 3) << "</title></rect>";
      if (cell >= 36 && std::isfinite(rho))
        s << "<text class=\"correlation-value\" x=\"" << Coord(left + (k + 0.5) * cell) << "\" y=\""
          << Coord(top + (j + 0.5) * cell + 4) << "\" text-anchor=\"middle\" fill=\""
          << (std::abs(rho) > 0.6 ? "#fff" : "#1d232b") << "\">" << Fixed(rho, 2) << "</text>";
    }
  }
  // Colour bar: +1 at the top, −1 at the bottom, five stops so that the gradient is the map's.
  const double bx = left + p * cell + bar_gap;
  s << "<defs><linearGradient id=\"correlation-gradient\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
  for (double rho : {-1.0, -0.5, 0.0, 0.5, 1.0})
    s << "<stop offset=\"" << (rho + 1) / 2 << "\" stop-color=\"" << CorrelationColour(rho) << "\"/>";
  s << "</linearGradient></defs><rect class=\"correlation-bar\" x=\"" << bx << "\" y=\"" << top
    << "\" width=\"" << bar_w << "\" height=\"" << side
    << "\" fill=\"url(#correlation-gradient)\" stroke=\"#888\" stroke-width=\"0.5\"/>";
  for (double rho : {-1.0, -0.5, 0.0, 0.5, 1.0}) {
    const double y = top + (1 - rho) / 2 * side;
    s << "<line x1=\"" << bx + bar_w << "\" x2=\"" << bx + bar_w + 3 << "\" y1=\"" << Coord(y)
      << "\" y2=\"" << Coord(y) << "\" stroke=\"#888\"/><text class=\"" << kAxes
      << " correlation-tick\" x=\"" << bx + bar_w + 5 << "\" y=\"" << Coord(y + 3.5) << "\">"
      << (rho > 0 ? "+" : rho < 0 ? "&#8722;" : "") << Num(std::abs(rho), 2) << "</text>";
  }
  s << "</svg>";
  return s.str();
}

}  // namespace frfit::html
