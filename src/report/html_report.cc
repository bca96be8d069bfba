#include "frfit/report/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>
#include <initializer_list>
#include <iterator>
#include <tuple>

#include "frfit/common/error.h"
#include "frfit/fit/fit_run.h"
#include "frfit/io/atomic_file.h"
#include "frfit/report/ema_report.h"

namespace frfit {
namespace {

constexpr const char* kMeasuredColour = "#1f5fa8";
constexpr const char* kFittedColour = "#d7301f";
constexpr const char* kAxes = "ax";  // CSS class of axis text

std::string Num(double v, int significant = 6) {
  if (!std::isfinite(v)) return "&#8212;";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", significant, v);
  return buffer;
}

std::string Fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "&#8212;";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  const std::string text = buffer;  // no "-0.00" for a tiny negative value
  if (text[0] == '-' && text.find_first_not_of("-0.") == std::string::npos) return text.substr(1);
  return text;
}

std::string Sci(double v) {
  if (!std::isfinite(v)) return "&#8212;";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6e", v);
  return buffer;
}

std::string Coord(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return buffer;
}

// Exact value for data-value attributes (tests and scripts read these).
std::string Exact(double v) { return std::isfinite(v) ? FormatDouble(v) : "nan"; }

// An HTML id fragment: letters, digits, '-' and '_' kept, everything else '_'.
std::string IdPart(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out.empty() ? "_" : out;
}

const char* kAxisNames[3] = {"x", "y", "z"};

// Up to about `target` round ticks (1, 2, 5 × 10^k) in [lo, hi].
std::vector<double> NiceTicks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw) { step = m * magnitude; break; }
  for (double t = std::ceil(lo / step - 1e-9) * step; t <= hi + 1e-9 * step; t += step)
    ticks.push_back(std::abs(t) < 1e-12 * step ? 0.0 : t);
  return ticks;
}

// A linear or log10 mapping of data onto a pixel interval.
struct Scale {
  double d0, d1, p0, p1;
  bool log = false;
  double operator()(double v) const {
    if (log) v = std::log10(std::max(v, 1e-300));
    const double a = log ? d0 : d0, b = d1;
    double t = (v - a) / (b - a);
    t = std::clamp(t, -0.02, 1.02);
    return p0 + t * (p1 - p0);
  }
};

// "10^k" with a superscript.
std::string Decade(int k) {
  if (k == 0) return "1";
  if (k == 1) return "10";
  return "10<tspan dy=\"-5\" font-size=\"8\">" + std::to_string(k) + "</tspan>";
}

// Polyline path; a NaN y (or a jump larger than `break_jump` in data units) starts a new piece.
std::string Path(const std::vector<double>& x, const std::vector<double>& y, const Scale& sx,
                 const Scale& sy, double break_jump = INFINITY) {
  std::string d;
  bool pen = false;
  double previous = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(y[i])) { pen = false; continue; }
    if (pen && std::abs(y[i] - previous) > break_jump) pen = false;
    d += (pen ? "L" : "M") + Coord(sx(x[i])) + " " + Coord(sy(y[i]));
    pen = true;
    previous = y[i];
  }
  return d.empty() ? "M0 0" : d;
}

// Vertical grid lines over every panel (top, height) at about `ticks` round frequencies, their
// labels under the last panel and "frequency [Hz]" at the bottom right of a plot `height` high.
std::string FrequencyAxis(const Scale& sx, int ticks, std::initializer_list<std::pair<double, double>> panels,
                          double height) {
  std::ostringstream s;
  const double bottom = std::prev(panels.end())->first + std::prev(panels.end())->second;
  for (double t : NiceTicks(sx.d0, sx.d1, ticks)) {
    const std::string x = Coord(sx(t));
    for (auto [top, h] : panels)
      s << "<line class=\"grid\" x1=\"" << x << "\" x2=\"" << x << "\" y1=\"" << top << "\" y2=\"" << top + h
        << "\"/>";
    s << "<text class=\"" << kAxes << "\" x=\"" << x << "\" y=\"" << bottom + 13 << "\" text-anchor=\"middle\">"
      << Num(t, 6) << "</text>";
  }
  s << "<text class=\"" << kAxes << "\" x=\"" << sx.p1 << "\" y=\"" << height - 2
    << "\" text-anchor=\"end\">frequency [Hz]</text>";
  return s.str();
}

// Contiguous runs of lines whose weight exceeds the entry's smallest weight, as shaded bands.
std::string WeightBands(const ReportPosture& p, int entry, const Scale& sx, double top, double height) {
  const int n = p.num_lines();
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
    const double f0 = k > 0 ? 0.5 * (p.frequency_hz[k - 1] + p.frequency_hz[k]) : p.frequency_hz[k];
    const double f1 = end + 1 < n ? 0.5 * (p.frequency_hz[end] + p.frequency_hz[end + 1]) : p.frequency_hz[end];
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
std::string FrfPlot(const ReportPosture& p, int i, int j) {
  const int entry = 3 * i + j, n = p.num_lines();
  const double W = 420, H = 318, left = 56, right = 10, top = 24;
  const double mag_h = 168, gap = 10, phase_h = 82;
  const double plot_w = W - left - right;
  const double mag_top = top, phase_top = top + mag_h + gap;
  std::vector<double> mm(n), mf(n), pm(n), pf(n);
  double lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < n; ++k) {
    const auto m = p.measured[k * 9 + entry], f = p.fitted[k * 9 + entry];
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
  const double f0 = n ? p.frequency_hz.front() : 0.0, f1 = n > 1 ? p.frequency_hz.back() : f0 + 1.0;
  const Scale sx{f0, f1, left, left + plot_w};
  const Scale sm{static_cast<double>(dlo), static_cast<double>(dhi), mag_top + mag_h, mag_top, true};
  const Scale sp{-180.0, 180.0, phase_top + phase_h, phase_top};

  const std::string name = "H" + std::string(kAxisNames[i]) + kAxisNames[j];
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
    if ((dhi - k) % step == 0)
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
    << ") rotate(-90)\" text-anchor=\"middle\">|H| [" << HtmlEscape(p.units) << "]</text>";
  s << "<text class=\"" << kAxes << "\" transform=\"translate(12," << phase_top + phase_h / 2
    << ") rotate(-90)\" text-anchor=\"middle\">phase [&#176;]</text>";
  // Curves: magnitude in log space, phase broken at wraps.
  std::vector<double> lmm(n), lmf(n);
  for (int k = 0; k < n; ++k) lmm[k] = mm[k], lmf[k] = mf[k];
  s << "<path class=\"measured\" d=\"" << Path(p.frequency_hz, lmm, sx, sm) << "\"/>";
  s << "<path class=\"fitted\" d=\"" << Path(p.frequency_hz, lmf, sx, sm) << "\"/>";
  s << "<path class=\"measured\" d=\"" << Path(p.frequency_hz, pm, sx, sp, 180.0) << "\"/>";
  s << "<path class=\"fitted\" d=\"" << Path(p.frequency_hz, pf, sx, sp, 180.0) << "\"/>";
  s << "</svg>";
  return s.str();
}

std::string Legend() {
  std::ostringstream s;
  s << "<svg class=\"legend\" xmlns=\"http://www.w3.org/2000/svg\" width=\"520\" height=\"22\" "
       "viewBox=\"0 0 520 22\">"
    << "<line x1=\"4\" x2=\"34\" y1=\"11\" y2=\"11\" stroke=\"" << kMeasuredColour
    << "\" stroke-width=\"2\"/><text x=\"40\" y=\"15\">measured</text>"
    << "<line x1=\"124\" x2=\"154\" y1=\"11\" y2=\"11\" stroke=\"" << kFittedColour
    << "\" stroke-width=\"2\" stroke-dasharray=\"6 3\"/><text x=\"160\" y=\"15\">fitted</text>"
    << "<rect class=\"weight-band\" x=\"226\" y=\"3\" width=\"30\" height=\"16\"/>"
    << "<text x=\"262\" y=\"15\">lines weighted above the base weight</text></svg>";
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
bool ClearOfNoise(const ReportPosture& p, int line, int entry) {
  if (p.noise_variance.empty()) return true;
  const size_t i = static_cast<size_t>(line) * 9 + entry;
  return std::norm(p.measured[i]) >= 10.0 * p.noise_variance[i];
}

std::string ResidualPlot(const ReportPosture& p) {
  static const char* kEntryColours[9] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                         "#8c564b", "#e377c2", "#7f7f7f", "#17becf"};
  const int n = p.num_lines();
  const double W = 1100, H = 360, left = 70, right = 190, top = 24, gap = 16;
  const double mag_h = 150, phase_h = 120, plot_w = W - left - right;
  const double mag_top = top, phase_top = top + mag_h + gap;
  std::vector<std::vector<double>> db(9), deg(9);
  double db_max = 0.0, deg_max = 0.0;
  for (int e = 0; e < 9; ++e) {
    if (!p.present[e]) continue;
    db[e].resize(n), deg[e].resize(n);
    for (int k = 0; k < n; ++k) {
      const std::complex<double> ratio = p.fitted[k * 9 + e] / p.measured[k * 9 + e];
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
  const double f0 = n ? p.frequency_hz.front() : 0.0, f1 = n > 1 ? p.frequency_hz.back() : f0 + 1.0;
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
    if (!p.present[e]) continue;
    const std::string entry = std::string(kAxisNames[e / 3]) + kAxisNames[e % 3];
    double worst_db = 0.0, worst_deg = 0.0;
    for (int k = 0; k < n; ++k) {
      if (!ClearOfNoise(p, k, e)) continue;
      if (std::isfinite(db[e][k])) worst_db = std::max(worst_db, std::abs(db[e][k]));
      if (std::isfinite(deg[e][k])) worst_deg = std::max(worst_deg, std::abs(deg[e][k]));
    }
    s << "<path class=\"residual-magnitude\" data-entry=\"" << entry << "\" data-max-abs-db=\""
      << Exact(worst_db) << "\" stroke=\"" << kEntryColours[e] << "\" d=\""
      << Path(p.frequency_hz, db[e], sx, sm) << "\"/>";
    s << "<path class=\"residual-phase\" data-entry=\"" << entry << "\" data-max-abs-deg=\""
      << Exact(worst_deg) << "\" stroke=\"" << kEntryColours[e] << "\" d=\""
      << Path(p.frequency_hz, deg[e], sx, sp, 180.0) << "\"/>";
    const double ly = top + 8 + 17 * row++, lx = left + plot_w + 14;
    s << "<line x1=\"" << lx << "\" x2=\"" << lx + 22 << "\" y1=\"" << ly << "\" y2=\"" << ly
      << "\" stroke=\"" << kEntryColours[e] << "\" stroke-width=\"2\"/><text x=\"" << lx + 28
      << "\" y=\"" << ly + 4 << "\">H" << entry << " max " << Num(worst_db, 2) << " dB, "
      << Num(worst_deg, 2) << "&#176;</text>";
  }
  s << "</svg>";
  return s.str();
}

// Best cost against evaluations (log y), GA and NM stretches shaded, cycle boundaries dashed.
std::string HistoryPlot(const ReportData& d) {
  const double W = 1100, H = 330, left = 70, right = 20, top = 30, bottom = 44;
  const double pw = W - left - right, ph = H - top - bottom;
  std::ostringstream s;
  s << "<svg class=\"history-plot\" id=\"history-plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
    << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " " << H
    << "\" role=\"img\" aria-label=\"best cost against evaluations\">";
  std::vector<double> x, y;
  double lo = INFINITY, hi = -INFINITY, xmax = 0.0;
  for (const ReportHistoryRow& r : d.history) {
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
  int dhi = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  int dlo = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  if (dlo >= dhi) dlo = dhi - 1;
  const Scale sx{0.0, xmax, left, left + pw};
  const Scale sy{static_cast<double>(dlo), static_cast<double>(dhi), top + ph, top, true};
  // Phase stretches: each row closes the stretch since the previous row's evaluation count.
  double start = 0.0;
  for (size_t k = 0; k < d.history.size();) {
    const ReportHistoryRow& r = d.history[k];
    size_t end = k;
    while (end + 1 < d.history.size() && d.history[end + 1].cycle == r.cycle &&
           d.history[end + 1].phase == r.phase)
      ++end;
    const double x0 = sx(start), x1 = sx(static_cast<double>(d.history[end].evaluations));
    const char* css = r.phase == 0 ? "phase-ga" : r.phase == 2 ? "phase-lm" : "phase-nm";
    const char* name = r.phase == 0   ? "genetic algorithm"
                       : r.phase == 2 ? "Levenberg-Marquardt"
                                      : "Nelder-Mead";
    s << "<rect class=\"" << css << "\" x=\"" << Coord(x0) << "\" y=\"" << top << "\" width=\""
      << Coord(std::max(x1 - x0, 0.5)) << "\" height=\"" << ph << "\"><title>cycle " << r.cycle
      << ", " << name << ", evaluations " << static_cast<long long>(start) << " to "
      << d.history[end].evaluations << "</title></rect>";
    start = static_cast<double>(d.history[end].evaluations);
    k = end + 1;
  }
  for (double t : NiceTicks(0.0, xmax, 8)) {
    const std::string xs = Coord(sx(t));
    s << "<line class=\"grid\" x1=\"" << xs << "\" x2=\"" << xs << "\" y1=\"" << top << "\" y2=\"" << top + ph
      << "\"/><text class=\"" << kAxes << "\" x=\"" << xs << "\" y=\"" << top + ph + 14
      << "\" text-anchor=\"middle\">" << Num(t, 8) << "</text>";
  }
  for (int k = dlo; k <= dhi; ++k) {
    const double yv = sy(std::pow(10.0, k));
    s << "<line class=\"grid\" x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << Coord(yv)
      << "\" y2=\"" << Coord(yv) << "\"/><text class=\"" << kAxes << "\" x=\"" << left - 5 << "\" y=\""
      << Coord(yv + 3.5) << "\" text-anchor=\"end\">" << Decade(k) << "</text>";
  }
  // Cycle boundaries: where the cycle number changes.
  for (size_t k = 1; k < d.history.size(); ++k)
    if (d.history[k].cycle != d.history[k - 1].cycle) {
      const std::string xs = Coord(sx(static_cast<double>(d.history[k - 1].evaluations)));
      s << "<line class=\"cycle-boundary\" x1=\"" << xs << "\" x2=\"" << xs << "\" y1=\"" << top - 4
        << "\" y2=\"" << top + ph << "\"/><text class=\"" << kAxes << "\" x=\"" << xs << "\" y=\"" << top - 7
        << "\" text-anchor=\"middle\">cycle " << d.history[k].cycle << "</text>";
    }
  // Best cost as a staircase (it only changes at recorded rows).
  std::string path;
  double prev_y = NAN;
  for (const ReportHistoryRow& r : d.history) {
    if (!(r.best_cost > 0 && std::isfinite(r.best_cost))) continue;
    const double xs = sx(static_cast<double>(r.evaluations)), ys = sy(r.best_cost);
    if (path.empty()) path = "M" + Coord(xs) + " " + Coord(ys);
    else path += "H" + Coord(xs) + "V" + Coord(ys);
    prev_y = ys;
  }
  (void)prev_y;
  s << "<path class=\"best-cost\" d=\"" << path << "\"/>";
  s << "<text class=\"" << kAxes << "\" x=\"" << left + pw << "\" y=\"" << H - 6
    << "\" text-anchor=\"end\">evaluations</text>";
  s << "<text class=\"" << kAxes << "\" transform=\"translate(14," << top + ph / 2
    << ") rotate(-90)\" text-anchor=\"middle\">best cost</text>";
  // Legend.
  const double lx = left + 8, ly = H - 20;
  s << "<rect class=\"phase-ga\" x=\"" << lx << "\" y=\"" << ly << "\" width=\"14\" height=\"12\"/>"
    << "<text x=\"" << lx + 18 << "\" y=\"" << ly + 10 << "\">genetic algorithm</text>"
    << "<rect class=\"" << (d.refinement == "nelder_mead" ? "phase-nm" : "phase-lm") << "\" x=\""
    << lx + 140 << "\" y=\"" << ly << "\" width=\"14\" height=\"12\"/>"
    << "<text x=\"" << lx + 158 << "\" y=\"" << ly + 10 << "\">"
    << (d.refinement == "nelder_mead" ? "Nelder-Mead" : "Levenberg-Marquardt") << "</text>"
    << "<line class=\"cycle-boundary\" x1=\"" << lx + 260 << "\" x2=\"" << lx + 260 << "\" y1=\""
    << ly - 1 << "\" y2=\"" << ly + 13 << "\"/><text x=\"" << lx + 266 << "\" y=\"" << ly + 10
    << "\">cycle boundary</text>"
    << "<line class=\"best-cost\" x1=\"" << lx + 380 << "\" x2=\"" << lx + 404 << "\" y1=\""
    << ly + 6 << "\" y2=\"" << ly + 6 << "\"/><text x=\"" << lx + 410 << "\" y=\"" << ly + 10
    << "\">best cost</text>";
  s << "</svg>";
  return s.str();
}

// White to dark blue for MAC 0..1.
std::string MacColour(double mac) {
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
std::string MacMap(const ReportPosture& p) {
  const int rows = static_cast<int>(p.modes.size());
  const bool full =
      !p.mac_fitted_hz.empty() && p.mac.size() == p.modes.size() * p.mac_fitted_hz.size();
  const int cols = full ? static_cast<int>(p.mac_fitted_hz.size()) : rows;
  const double cell = 54, left = 118, top = 58;
  const double W = std::max(left + cols * cell + 70, 330.0), H = top + rows * cell + 24;
  auto fitted_hz = [&](int c) {
    return full ? p.mac_fitted_hz[c] : p.modes[c].fitted_frequency_hz;
  };
  std::ostringstream s;
  s << "<svg class=\"mac-map\" id=\"mac-" << IdPart(p.name)
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
      << Num(p.modes[r].reference_frequency_hz, 4) << "</text>";
    for (int c = 0; c < cols; ++c) {
      const double x = left + c * cell, y = top + r * cell;
      const bool paired = full ? fitted_hz(c) == p.modes[r].fitted_frequency_hz : r == c;
      if (!full && !paired) {
        s << "<rect class=\"mac-off\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << cell
          << "\" height=\"" << cell
          << "\"><title>not stored: this result keeps the MAC of paired modes only</title></rect>";
        continue;
      }
      const double mac = full ? p.mac[r * cols + c] : p.modes[r].mac;
      s << "<rect class=\"mac-cell" << (paired ? " mac-pair" : "") << "\" x=\"" << x << "\" y=\""
        << y << "\" width=\"" << cell << "\" height=\"" << cell << "\" fill=\"" << MacColour(mac)
        << "\" data-value=\"" << Exact(mac) << "\"><title>reference "
        << Num(p.modes[r].reference_frequency_hz, 4) << " Hz / fitted " << Num(fitted_hz(c), 4)
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
  s << "<defs><linearGradient id=\"macgrad-" << IdPart(p.name) << "\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">"
    << "<stop offset=\"0\" stop-color=\"" << MacColour(0) << "\"/><stop offset=\"1\" stop-color=\""
    << MacColour(1) << "\"/></linearGradient></defs>";
  s << "<rect x=\"" << bx << "\" y=\"" << top << "\" width=\"12\" height=\"" << bh << "\" fill=\"url(#macgrad-"
    << IdPart(p.name) << ")\" stroke=\"#888\" stroke-width=\"0.5\"/>";
  s << "<text class=\"" << kAxes << "\" x=\"" << bx + 16 << "\" y=\"" << top + 8 << "\">1</text><text class=\""
    << kAxes << "\" x=\"" << bx + 16 << "\" y=\"" << top + bh << "\">0</text>";
  s << "</svg>";
  return s.str();
}

std::string ModalTable(const ReportPosture& p) {
  std::ostringstream s;
  s << "<table class=\"modal-table\" id=\"modal-" << IdPart(p.name) << "\"><thead><tr><th>mode</th>"
       "<th>f<sub>ref</sub> [Hz]</th><th>f<sub>fit</sub> [Hz]</th><th>error [%]</th>"
       "<th>&#950;<sub>ref</sub> [%]</th><th>&#950;<sub>fit</sub> [%]</th><th>error [%]</th><th>MAC</th>"
       "</tr></thead><tbody>";
  for (size_t k = 0; k < p.modes.size(); ++k) {
    const ReportModalRow& m = p.modes[k];
    auto cell = [](double v, const std::string& text) {
      return "<td class=\"num\" data-value=\"" + Exact(v) + "\">" + text + "</td>";
    };
    if (std::isnan(m.fitted_frequency_hz)) {  // paired one to one: no fitted mode left for it
      s << "<tr class=\"modal-row unpaired\"><td>" << k + 1 << "</td>"
        << cell(m.reference_frequency_hz, Fixed(m.reference_frequency_hz, 3))
        << "<td colspan=\"2\">unpaired</td>"
        << cell(m.reference_damping_ratio, Fixed(100.0 * m.reference_damping_ratio, 3))
        << "<td colspan=\"3\"></td></tr>";
      continue;
    }
    s << "<tr class=\"modal-row\"><td>" << k + 1 << "</td>" << cell(m.reference_frequency_hz, Fixed(m.reference_frequency_hz, 3))
      << cell(m.fitted_frequency_hz, Fixed(m.fitted_frequency_hz, 3))
      << cell(m.frequency_error_percent, Fixed(m.frequency_error_percent, 2))
      << cell(m.reference_damping_ratio, Fixed(100.0 * m.reference_damping_ratio, 3))
      << cell(m.fitted_damping_ratio, Fixed(100.0 * m.fitted_damping_ratio, 3))
      << cell(m.damping_error_percent, Fixed(m.damping_error_percent, 2)) << cell(m.mac, Fixed(m.mac, 3))
      << "</tr>";
  }
  if (p.modes.empty()) s << "<tr><td colspan=\"8\">no modes in the band</td></tr>";
  for (double f : p.unpaired_fitted_hz)
    s << "<tr class=\"modal-row unpaired-fitted\"><td>&#8212;</td><td></td><td class=\"num\">"
      << Fixed(f, 3) << "</td><td colspan=\"5\">fitted mode no reference mode pairs with</td></tr>";
  s << "</tbody></table>";
  return s.str();
}

// The model check (docs/noise.md): the verdict, χ² against the noise, every reason, and the
// modes the model lacks.
std::string ModelCheckHtml(const ModelCheck& c) {
  std::ostringstream s;
  const std::string verdict = c.verdict();
  s << "<table class=\"summary\" id=\"model-check-summary\"><tr><th>verdict</th><td><span class=\""
    << (verdict == "misfit" ? "verdict-misfit" : "verdict-ok") << "\" id=\"model-check-verdict\">"
    << verdict << "</span></td></tr>";
  if (c.has_noise_model)
    s << "<tr><th>reduced &#967;&#178;</th><td data-value=\"" << Exact(c.reduced_chi2) << "\">"
      << Num(c.reduced_chi2, 4) << " <span class=\"note\">(1 when the residual is the noise; "
      << c.degrees_of_freedom << " degrees of freedom)</span></td></tr><tr><th>noise model</th><td>"
      << HtmlEscape(c.noise_source) << "</td></tr>";
  for (const auto& [name, chi2] : c.posture_reduced_chi2)
    s << "<tr><th>&#967;&#178; at " << HtmlEscape(name) << "</th><td>" << Num(chi2, 4) << "</td></tr>";
  s << "</table>";
  if (!c.reasons.empty()) {
    s << "<ul class=\"model-check-reasons\">";
    for (const std::string& r : c.reasons) s << "<li>" << HtmlEscape(r) << "</li>";
    s << "</ul><p class=\"note\">The fitted values absorb what the model lacks: read them as "
         "effective values for this model and these data, not as the joints' physics.</p>";
  }
  if (!c.unexplained_modes.empty()) {
    s << "<table class=\"unexplained-modes\"><thead><tr><th>posture</th><th>f [Hz]</th>"
         "<th>&#950; [%]</th><th>entries</th><th>local &#967;&#178;</th></tr></thead><tbody>";
    for (const UnexplainedMode& m : c.unexplained_modes) {
      std::string entries;
      for (int e : m.entries) entries += (entries.empty() ? "H" : ", H") + EntryName(e);
      s << "<tr><td>" << HtmlEscape(m.posture) << "</td><td class=\"num\" data-value=\""
        << Exact(m.frequency_hz) << "\">" << Fixed(m.frequency_hz, 2) << "</td><td class=\"num\">"
        << Fixed(100.0 * m.damping_ratio, 2) << "</td><td>" << entries << "</td><td class=\"num\">"
        << Num(m.reduced_chi2, 3) << "</td></tr>";
    }
    s << "</tbody></table>";
  }
  return s.str();
}

// Where a value sits between its bounds, in log space when both are positive: a bar with the
// initial (hollow) and fitted (filled) positions.
std::string BoundBar(double initial, double value, double lo, double hi) {
  const bool log = lo > 0 && hi > 0;
  auto t = [&](double v) {
    if (!(hi > lo) || !std::isfinite(v)) return 0.5;
    const double a = log ? std::log(lo) : lo, b = log ? std::log(hi) : hi;
    const double x = log ? std::log(std::max(v, 1e-300)) : v;
    return std::clamp((x - a) / (b - a), 0.0, 1.0);
  };
  const double w = 120, x0 = 4, x1 = w - 4;
  std::ostringstream s;
  s << "<svg class=\"bound-bar\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w
    << "\" height=\"14\" viewBox=\"0 0 " << w << " 14\"><line x1=\"" << x0 << "\" x2=\"" << x1
    << "\" y1=\"7\" y2=\"7\" stroke=\"#999\" stroke-width=\"2\"/>"
    << "<circle cx=\"" << Coord(x0 + t(initial) * (x1 - x0)) << "\" cy=\"7\" r=\"3.5\" fill=\"#fff\" stroke=\"#555\"/>"
    << "<circle cx=\"" << Coord(x0 + t(value) * (x1 - x0)) << "\" cy=\"7\" r=\"3.5\" fill=\"" << kFittedColour
    << "\"/></svg>";
  return s.str();
}

std::string ParameterTable(const ReportData& d) {
  std::ostringstream s;
  s << "<table class=\"parameter-table\" id=\"parameters-table\"><thead><tr><th>parameter</th><th>unit</th>"
       "<th>initial</th><th>fitted</th><th>min</th><th>max</th><th>fitted / initial</th>"
       "<th title=\"position between min and max (log scale when both are positive): hollow initial, "
       "filled fitted\">in bounds</th><th>flag</th></tr></thead><tbody>";
  for (size_t k = 0; k < d.values.size(); ++k) {
    std::string flag, cls;
    if (!d.free[k]) flag = "fixed", cls = "flag-fixed";
    else if (const int b = AtBound(d.values[k], d.min[k], d.max[k]); b != 0)
      flag = b < 0 ? "at lower bound" : "at upper bound", cls = "flag-bound";
    auto cell = [](double v) { return "<td class=\"num\" data-value=\"" + Exact(v) + "\">" + Num(v) + "</td>"; };
    s << "<tr class=\"parameter-row" << (cls.empty() ? "" : " " + cls) << "\" data-name=\""
      << HtmlEscape(d.parameter_names[k]) << "\"><td class=\"pname\">" << HtmlEscape(d.parameter_names[k])
      << "</td><td>" << HtmlEscape(d.parameter_units[k]) << "</td>" << cell(d.initial[k]) << cell(d.values[k])
      << cell(d.min[k]) << cell(d.max[k]) << "<td class=\"num\">"
      << (d.initial[k] != 0.0 ? Num(d.values[k] / d.initial[k], 4) : std::string("&#8212;")) << "</td><td>"
      << BoundBar(d.initial[k], d.values[k], d.min[k], d.max[k]) << "</td><td class=\"flag\">" << flag
      << "</td></tr>";
  }
  s << "</tbody></table>";
  return s.str();
}

// Red (−1) through white (0) to blue (+1).
std::string CorrelationColour(double rho) {
  if (!std::isfinite(rho)) return "#e6e6e6";
  const double t = std::clamp(rho, -1.0, 1.0);
  const int r = t < 0 ? 255 : static_cast<int>(std::lround(255 - t * (255 - 8)));
  const int g = static_cast<int>(std::lround(255 - std::abs(t) * (255 - 48)));
  const int b = t > 0 ? 255 : static_cast<int>(std::lround(255 + t * (255 - 107)));
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", r, g, b);
  return buffer;
}

// The free parameters' 1σ and bound flags, the weak directions and the correlation matrix.
std::string IdentifiabilityHtml(const Identifiability& id) {
  std::ostringstream s;
  const size_t p = id.per_parameter.size();
  s << "<table class=\"summary\">"
    << "<tr><th>condition number</th><td id=\"condition-number\" data-value=\""
    << Exact(id.condition_number) << "\">" << Sci(id.condition_number)
    << "</td></tr><tr><th>residuals</th><td>" << id.residuals << " (residual rms "
    << Sci(std::sqrt(id.sigma2)) << ")</td></tr><tr><th>singular values</th><td>";
  for (size_t k = 0; k < id.singular_values.size(); ++k)
    s << (k ? ", " : "") << Num(id.singular_values[k], 3);
  s << "</td></tr></table>";
  s << "<table class=\"identifiability-table\" "
       "id=\"identifiability-table\"><thead><tr><th>parameter</th>"
       "<th>fitted</th><th>1&#963;</th><th>1&#963; [%]</th><th>bound</th></tr></thead><tbody>";
  for (const ParameterIdentifiability& q : id.per_parameter)
    s << "<tr class=\"identifiability-row" << (q.at_bound != BoundFlag::kNone ? " flag-bound" : "")
      << "\" data-name=\"" << HtmlEscape(q.name) << "\"><td class=\"pname\">" << HtmlEscape(q.name)
      << "</td><td class=\"num\">" << Num(q.value) << "</td><td class=\"num\">"
      << Num(q.std_absolute, 3) << "</td><td class=\"num\" data-value=\"" << Exact(q.std_relative)
      << "\">" << Num(100 * q.std_relative, 3) << "</td><td class=\"flag\">"
      << (q.at_bound == BoundFlag::kNone ? "" : "at " + ToString(q.at_bound)) << "</td></tr>";
  s << "</tbody></table>";
  if (!id.weak_directions.empty()) {
    s << "<ul class=\"weak-directions\">";
    for (const WeakDirection& w : id.weak_directions)
      s << "<li>" << HtmlEscape(w.description) << " <span class=\"note\">(singular value "
        << Num(w.singular_value, 3) << ", 1&#963; " << Num(100 * w.std_relative, 3)
        << "&#160;%)</span></li>";
    s << "</ul>";
  }
  const double cell = 22, left = 70, top = 70;
  const double W = left + p * cell + 20, H = top + p * cell + 10;
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
    }
  }
  s << "</svg>";
  return s.str();
}

std::string Row(const std::string& key, const std::string& value_html) {
  return "<tr><th>" + key + "</th><td>" + value_html + "</td></tr>";
}

std::string Seconds(double s) { return std::isfinite(s) ? Fixed(s, 2) + " s" : "&#8212;"; }

constexpr const char* kStyle = R"CSS(
:root{--fg:#1d232b;--muted:#5b6470;--line:#d8dde3;--measured:#1f5fa8;--fitted:#d7301f}
*{box-sizing:border-box}
body{margin:0;padding:24px 32px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:#fff}
h1{font-size:24px;margin:0 0 12px}h2{font-size:19px;margin:28px 0 8px;border-bottom:2px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
nav a{margin-right:14px}
table{border-collapse:collapse;margin:6px 0}
th,td{padding:3px 9px;border-bottom:1px solid var(--line);text-align:left;vertical-align:middle}
thead th{background:#f2f4f7;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
table.summary th{font-weight:600;color:var(--muted);background:none;width:210px}
table.summary{min-width:720px}
.posture-meta{color:var(--muted);margin:2px 0 8px}
.frf-grid{display:grid;grid-template-columns:repeat(3,424px);gap:6px 10px}
.frf-cell{margin:0;border:1px solid var(--line);border-radius:4px;background:#fff}
.frf-absent{display:flex;align-items:center;justify-content:center;height:322px;border:1px dashed var(--line);border-radius:4px;color:var(--muted)}
.modal-block{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}
tr.flag-bound td{background:#fff3cd}tr.flag-fixed td{background:#eef0f3;color:var(--muted)}
td.flag{font-weight:600;color:#8a5a00}
pre.settings{background:#f6f8fa;border:1px solid var(--line);border-radius:4px;padding:10px 14px;overflow:auto;max-height:480px}
.note{color:var(--muted);font-size:12.5px;max-width:900px}
svg text{font-size:10.5px;fill:#2a2f36}
svg .title{font-size:13px;font-weight:600}svg .sub{font-size:10px;font-weight:400;fill:#6a717b}
svg .panel{fill:#fcfcfd;stroke:#aab2bd;stroke-width:0.8}
svg .grid{stroke:#e3e6ea;stroke-width:0.7}
svg .weight-band{fill:#ffd54f;fill-opacity:0.35;stroke:none}
svg path.measured{fill:none;stroke:var(--measured);stroke-width:1.5}
svg path.fitted{fill:none;stroke:var(--fitted);stroke-width:1.5;stroke-dasharray:6 3}
svg path.residual-magnitude,svg path.residual-phase{fill:none;stroke-width:1.3}svg .zero{stroke:#6a717b;stroke-width:0.9}
svg .phase-ga{fill:#dbe8f6}svg .phase-nm{fill:#fde3cc}svg .phase-lm{fill:#dff3dc}
svg .cycle-boundary{stroke:#4a4f57;stroke-width:1;stroke-dasharray:4 3}
svg .best-cost{fill:none;stroke:#111;stroke-width:1.8}
svg .mac-off{fill:#f4f5f7;stroke:#fff;stroke-width:1}svg .mac-cell{stroke:#fff;stroke-width:1}
svg .mac-pair{stroke:#d7301f;stroke-width:2.5}svg .mac-value{font-size:12px}svg .mac-value.on-dark{fill:#fff}svg .mac-label{font-size:11.5px}
footer{margin-top:36px;color:var(--muted);font-size:12px}
.verdict-misfit{color:#fff;background:#c0392b;padding:1px 8px;border-radius:3px;font-weight:600}
.verdict-ok{color:#fff;background:#2e7d32;padding:1px 8px;border-radius:3px;font-weight:600}
tr.unpaired td,tr.unpaired-fitted td{color:var(--muted)}
)CSS";

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

int AtBound(double value, double min, double max) {
  if (!std::isfinite(value)) return 0;
  const bool log = min > 0 && max > 0 && value > 0;
  const double v = log ? std::log(value) : value, a = log ? std::log(min) : min, b = log ? std::log(max) : max;
  const double tolerance = 1e-3 * std::abs(b - a);
  if (v - a <= tolerance) return -1;
  if (b - v <= tolerance) return 1;
  return 0;
}

std::string RenderFrfGrid(const ReportPosture& p) {
  std::ostringstream s;
  s << "<div class=\"frf-grid\">\n";
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      if (p.present[3 * i + j]) s << "<figure class=\"frf-cell\">" << FrfPlot(p, i, j) << "</figure>\n";
      else
        s << "<div class=\"frf-absent\">H<sub>" << kAxisNames[i] << kAxisNames[j] << "</sub> not measured</div>\n";
    }
  s << "</div>";
  return s.str();
}

std::string ReportStyle() { return kStyle; }

std::string RenderReportHtml(const ReportData& d, const ReportBackLink& back) {
  std::ostringstream s;
  const std::string model = HtmlEscape(d.model);
  s << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>frfit fit report: " << model << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  if (!back.href.empty())
    s << "<nav class=\"back-link\"><a href=\"" << HtmlEscape(back.href) << "\">&#8592; "
      << HtmlEscape(back.text) << "</a></nav>\n";
  s << "<header id=\"summary\">\n<h1>Fit report: " << model << "</h1>\n";
  std::string frf_files;
  for (const ReportPosture& p : d.postures)
    frf_files += (frf_files.empty() ? "" : "<br>") + HtmlEscape(p.frf_file) + " <span class=\"note\">(posture " +
                 HtmlEscape(p.name) + ")</span>";
  s << "<table class=\"summary\">" << Row("model", model)
    << Row("model file", HtmlEscape(d.model_file))
    << Row("FRF files", frf_files.empty() ? "&#8212;" : frf_files)
    << Row("result file", HtmlEscape(d.result_file)) << Row("seed", HtmlEscape(d.seed))
    << Row("backend", HtmlEscape(d.backend_used) + " <span class=\"note\">(asked: " +
                          HtmlEscape(d.backend_given) + ")</span>")
    << Row("frfit version", HtmlEscape(d.frfit_version))
    << Row("termination", HtmlEscape(d.termination) + " <span class=\"note\">(" +
                              HtmlEscape(TerminationMeaning(d.termination)) + ")</span>")
    << "<tr><th>cost</th><td id=\"summary-cost\" data-value=\"" << Exact(d.cost) << "\">"
    << Sci(d.cost) << " <span class=\"note\">(best of the initial population: "
    << Sci(d.initial_population_best_cost) << ")</span></td></tr>"
    << Row("evaluations", Num(d.evaluations, 12) + " <span class=\"note\">(genetic algorithm " +
                              Num(d.ga_evaluations, 12) + ", Nelder-Mead " +
                              Num(d.nm_evaluations, 12) + ", Levenberg-Marquardt " +
                              Num(d.lm_evaluations, 12) + ")</span>")
    << Row("cycles", Num(d.cycles, 6))
    << Row("wall time", Seconds(d.wall_seconds) + " <span class=\"note\">(genetic algorithm " +
                            Seconds(d.ga_seconds) + ", Nelder-Mead " + Seconds(d.nm_seconds) +
                            ", Levenberg-Marquardt " + Seconds(d.lm_seconds) + ")</span>")
    << "</table>\n";
  s << "<nav>";
  for (const ReportPosture& p : d.postures)
    s << "<a href=\"#posture-" << IdPart(p.name) << "\">posture " << HtmlEscape(p.name) << "</a>";
  s << "<a href=\"#history\">cost history</a><a href=\"#parameters\">parameters</a>"
    << (d.has_identifiability ? "<a href=\"#identifiability\">identifiability</a>" : "")
    << (d.has_model_check ? "<a href=\"#model-check\">model check</a>" : "")
    << "<a href=\"#settings\">settings</a><a "
       "href=\"#provenance\">provenance</a></nav>\n</header>\n";

  for (const ReportPosture& p : d.postures) {
    s << "<section class=\"posture\" id=\"posture-" << IdPart(p.name) << "\">\n<h2>Posture " << HtmlEscape(p.name)
      << "</h2>\n<p class=\"posture-meta\">" << HtmlEscape(p.frf_file) << " &#183; " << HtmlEscape(p.format) << " ["
      << HtmlEscape(p.units) << "] &#183; " << p.num_lines() << " lines";
    if (p.num_lines() > 0)
      s << " from " << Num(p.frequency_hz.front(), 6) << " to " << Num(p.frequency_hz.back(), 6) << " Hz";
    s << " &#183; " << p.dropped_hz.size() << " dropped &#183; posture cost <span class=\"posture-cost\" data-value=\""
      << Exact(p.cost) << "\">" << Sci(p.cost) << "</span></p>\n";
    s << Legend() << "\n" << RenderFrfGrid(p);
    s << "\n<h3>Residual</h3>\n<p class=\"note\">Magnitude error "
         "20&#183;log<sub>10</sub>(|H<sub>fit</sub>| / |H<sub>measured</sub>|) and phase error "
         "arg(H<sub>fit</sub> / H<sub>measured</sub>) of every measured entry at every fitted line: "
         "the two parts of the log-FRF cost. A good fit stays near zero everywhere; a band where it "
         "does not is where the model and the measurement disagree."
      << (p.noise_variance.empty()
              ? std::string()
              : " The ranges and each entry's max are those of the lines 10&#160;dB above the "
                "noise (noise model: " + HtmlEscape(p.noise_source) +
                    "); lines under the floor, whose error is the noise's, sit clipped at the "
                    "edges.")
      << "</p>\n"
      << ResidualPlot(p) << "\n";
    s << "<h3>Modal comparison</h3>\n<p class=\"note\">Reference modes: " << HtmlEscape(p.modal_reference)
      << ". The reference modes are paired one to one with the fitted modes (least total frequency "
         "difference and 1 &#8722; MAC); a mode no partner is left for says <i>unpaired</i>. Errors are "
         "100&#183;(fitted &#8722; "
         "reference)/reference. The MAC map compares every reference mode with every fitted mode in the "
         "band; the pairs of the table are outlined. A good fit is a dark outlined diagonal, pale "
         "elsewhere; n/a where the reference has no mode shapes.</p>\n"
      << "<div class=\"modal-block\">" << ModalTable(p) << MacMap(p) << "</div>\n";
    if (p.ema) s << EmaReferenceHtml(p) << "\n";
    s << "</section>\n";
  }

  s << "<section id=\"history\">\n<h2>Cost history</h2>\n<p class=\"note\">Best cost so far "
       "against evaluations "
       "(log scale); blue stretches are genetic-algorithm generations, orange stretches "
       "Nelder-Mead, green "
       "stretches Levenberg-Marquardt rounds, dashed lines mark the start of a new cycle.</p>\n"
    << HistoryPlot(d) << "\n</section>\n";
  s << "<section id=\"parameters\">\n<h2>Parameters</h2>\n<p class=\"note\">Flags: <b>fixed</b> when the "
       "parameter was not fitted; <b>at lower/upper bound</b> when the fitted value lies within 0.1&#160;% of the "
       "bounds' span of a bound, measured in log space (linear space when a bound is not positive).</p>\n"
    << ParameterTable(d) << "\n</section>\n";
  if (d.has_identifiability)
    s << "<section id=\"identifiability\">\n<h2>Identifiability</h2>\n<p class=\"note\">How well "
         "the fitted "
         "FRFs determine each free parameter (docs/identifiability.md): 1&#963; from "
         "&#963;&#178;(J&#7488;WJ)"
         "<sup>&#8722;1</sup> with &#963;&#178; estimated from the residual; weakly determined "
         "directions "
         "(singular value below 10<sup>&#8722;3</sup> of the largest, or 1&#963; above 10&#160;%) "
         "named by "
         "their main parameters; the correlation matrix from red (&#8722;1) to blue (+1). <b>at "
         "min/max</b>: "
         "within 1&#160;% of a bound.</p>\n"
      << IdentifiabilityHtml(d.identifiability) << "\n</section>\n";
  if (d.has_model_check)
    s << "<section id=\"model-check\">\n<h2>Model check</h2>\n<p class=\"note\">Does the fitted "
         "model explain the measured FRFs as well as their noise allows (docs/noise.md)? The "
         "residual against the noise model, overall and per posture, bands where it is structured, "
         "modes the measured FRFs show that the model lacks, and bounds the data pull against.</p>\n"
      << ModelCheckHtml(d.model_check) << "\n</section>\n";
  s << "<section id=\"settings\">\n<h2>Settings</h2>\n<pre class=\"settings\">" << HtmlEscape(d.settings_yaml)
    << "</pre>\n</section>\n";
  s << "<section id=\"provenance\">\n<h2>Provenance</h2>\n<table class=\"summary\">"
    << Row("result file", HtmlEscape(d.result_file)) << Row("model", model)
    << Row("model file", HtmlEscape(d.model_file)) << Row("frfit version", HtmlEscape(d.frfit_version))
    << Row("seed", HtmlEscape(d.seed)) << Row("backend asked / used", HtmlEscape(d.backend_given) + " / " +
                                                                         HtmlEscape(d.backend_used));
  for (const ReportPosture& p : d.postures) {
    std::string dropped;
    for (size_t k = 0; k < p.dropped_hz.size() && k < 20; ++k) dropped += (k ? ", " : "") + Num(p.dropped_hz[k], 6);
    if (p.dropped_hz.size() > 20) dropped += ", &#8230;";
    s << Row("posture " + HtmlEscape(p.name),
             "FRF file " + HtmlEscape(p.frf_file) + "; format " + HtmlEscape(p.format) + " [" + HtmlEscape(p.units) +
                 "]; modal reference: " + HtmlEscape(p.modal_reference) + "; dropped lines [Hz]: " +
                 (dropped.empty() ? "none" : dropped));
  }
  s << "</table>\n</section>\n<footer>Written by frfit " << HtmlEscape(d.frfit_version)
    << " <code>report</code> from " << HtmlEscape(d.result_file) << ".</footer>\n</body>\n</html>\n";
  return s.str();
}

void WriteReport(const std::string& result_path, const std::string& html_path) {
  const ReportData data = ReadReportData(result_path);
  WriteTextFileAtomically(html_path, RenderReportHtml(data));
}

}  // namespace frfit
