#include "frfit/report/ema_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/files/atomic_file.h"
#include "frfit/io/ema_hdf5.h"
#include "frfit/report/html_report.h"
#include "svg_parts.h"

namespace frfit {
namespace {

// Marker colours of the stability classes o f d v s (index = PoleStability).
constexpr const char* kPoleColours[] = {"#9aa0a6", "#7fb2e5", "#f0a04b", "#a57cc9", "#b71c1c"};

std::string Fmt(const char* format, double v) {
  if (!std::isfinite(v)) return "&#8212;";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

using html::Coord;
using html::Exact;
using html::PlusMinus;

// Frequency ticks at a round step giving five to ten of them.
std::vector<double> FrequencyTicks(double lo, double hi) {
  std::vector<double> ticks;
  const double span = hi - lo;
  if (!(span > 0)) return {lo};
  double step = std::pow(10.0, std::floor(std::log10(span)));
  while (span / step < 5) step /= 2;
  for (double t = std::ceil(lo / step) * step; t <= hi + 1e-9 * step; t += step) ticks.push_back(t);
  return ticks;
}

}  // namespace

std::vector<double> SummedMagnitude(const std::array<bool, 9>& present,
                                    const std::vector<std::complex<double>>& H) {
  std::vector<double> sum(H.size() / 9, 0.0);
  for (size_t k = 0; k < sum.size(); ++k)
    for (int e = 0; e < 9; ++e)
      if (present[e]) sum[k] += std::abs(H[k * 9 + e]);
  return sum;
}

std::string StabilisationDiagramSvg(const EmaResult& r, const std::vector<double>& frequency_hz,
                                    const std::vector<double>& magnitude, const std::string& id) {
  const double W = 1100, H = 430, left = 56, right = 64, top = 34, bottom = 66;
  const double pw = W - left - right, ph = H - top - bottom;
  const double f0 = r.band_min_hz, f1 = r.band_max_hz > f0 ? r.band_max_hz : f0 + 1.0;
  const int orders = std::max(r.max_order, 1);
  auto x = [&](double f) { return left + (std::clamp(f, f0, f1) - f0) / (f1 - f0) * pw; };
  auto y = [&](double order) { return top + ph - (order - 0.5) / orders * ph; };
  std::ostringstream s;
  s << "<svg class=\"stabilisation-diagram\" id=\"" << HtmlEscape(id)
    << "\" xmlns=\"http://www.w3.org/2000/svg\" "
    << "width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " " << H
    << "\" role=\"img\" aria-label=\"stabilisation diagram: poles of each model order by "
       "frequency\">";
  s << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"#fcfcfd\" stroke=\"#aab2bd\" stroke-width=\"0.8\"/>";
  for (double t : FrequencyTicks(f0, f1)) {
    s << "<line x1=\"" << Coord(x(t)) << "\" x2=\"" << Coord(x(t)) << "\" y1=\"" << top << "\" y2=\""
      << top + ph << "\" stroke=\"#e3e6ea\" stroke-width=\"0.7\"/><text x=\"" << Coord(x(t))
      << "\" y=\"" << top + ph + 14 << "\" text-anchor=\"middle\">" << Fmt("%g", t) << "</text>";
  }
  const int order_step = orders > 40 ? 10 : orders > 16 ? 5 : orders > 8 ? 2 : 1;
  for (int n = order_step; n <= orders; n += order_step)
    s << "<text x=\"" << left - 5 << "\" y=\"" << Coord(y(n) + 3.5) << "\" text-anchor=\"end\">" << n
      << "</text>";
  s << "<text x=\"" << left + pw << "\" y=\"" << top + ph + 30
    << "\" text-anchor=\"end\">frequency [Hz]</text>"
    << "<text transform=\"translate(14," << top + ph / 2
    << ") rotate(-90)\" text-anchor=\"middle\">model order</text>";
  // Σ|H| behind the poles, log scale, its decades on the right.
  double lo = INFINITY, hi = -INFINITY;
  for (size_t k = 0; k < magnitude.size() && k < frequency_hz.size(); ++k)
    if (magnitude[k] > 0 && std::isfinite(magnitude[k]))
      lo = std::min(lo, magnitude[k]), hi = std::max(hi, magnitude[k]);
  if (std::isfinite(lo) && hi > lo) {
    const double d1 = std::ceil(std::log10(hi)), d0 = std::max(std::floor(std::log10(lo)), d1 - 6);
    auto ym = [&](double m) {
      return top + ph - (std::clamp(std::log10(m), d0, d1) - d0) / (d1 - d0) * ph;
    };
    std::string path;
    for (size_t k = 0; k < magnitude.size() && k < frequency_hz.size(); ++k) {
      if (!(magnitude[k] > 0) || frequency_hz[k] < f0 || frequency_hz[k] > f1) continue;
      // Piece by piece: "M" + std::string&& trips GCC 12's -Wrestrict false positive (bug 105329).
      (((path += path.empty() ? "M" : "L") += Coord(x(frequency_hz[k]))) += ' ') +=
          Coord(ym(magnitude[k]));
    }
    s << "<path class=\"summed-frf\" d=\"" << (path.empty() ? "M0 0" : path)
      << "\" fill=\"none\" stroke=\"#8a9099\" stroke-width=\"1.2\"/>";
    for (double d = d0; d <= d1; ++d)
      s << "<text x=\"" << left + pw + 5 << "\" y=\"" << Coord(ym(std::pow(10.0, d)) + 3.5) << "\">1e"
        << Fmt("%.0f", d) << "</text>";
    s << "<text transform=\"translate(" << W - 8 << "," << top + ph / 2
      << ") rotate(90)\" text-anchor=\"middle\">&#931;|H| ["
      << HtmlEscape(UnitsOf(r.measured.format)) << "]</text>";
  }
  for (size_t k = 0; k < r.modes.size(); ++k) {
    const double xm = x(r.modes[k].mode.frequency_hz);
    s << "<line class=\"ema-mode\" x1=\"" << Coord(xm) << "\" x2=\"" << Coord(xm) << "\" y1=\"" << top - 4
      << "\" y2=\"" << top + ph
      << "\" stroke=\"#b71c1c\" stroke-width=\"1\" stroke-dasharray=\"5 3\" data-value=\""
      << Exact(r.modes[k].mode.frequency_hz) << "\"/><text x=\"" << Coord(xm) << "\" y=\""
      << top - 8 << "\" text-anchor=\"middle\">" << k + 1 << "</text>";
  }
  for (const StabilisationPole& p : r.poles) {
    const int c = static_cast<int>(p.stability);
    const bool stable = p.stability == PoleStability::kStable;
    s << "<circle class=\"pole pole-" << ToLetter(p.stability) << "\" cx=\""
      << Coord(x(p.frequency_hz)) << "\" cy=\"" << Coord(y(p.order)) << "\" r=\"" << (stable ? 3.2 : 2.6)
      << "\" fill=\"" << (p.stability == PoleStability::kNew ? "none" : kPoleColours[c])
      << "\" stroke=\"" << kPoleColours[c] << "\" stroke-width=\"1\"><title>order " << p.order
      << ": " << Fmt("%.4f", p.frequency_hz) << " Hz, " << Fmt("%.3f", 100.0 * p.damping_ratio)
      << " %, " << Describe(p.stability) << "</title></circle>";
  }
  // Legend below the axis labels.
  const char* names[] = {"new (o)", "frequency (f)", "frequency, damping (d)",
                         "frequency, vector (v)", "stable: frequency, damping, vector (s)"};
  double lx = left;
  const double ly = H - 14;
  for (int c = 0; c < 5; ++c) {
    s << "<circle cx=\"" << lx + 5 << "\" cy=\"" << ly - 4 << "\" r=\"3.2\" fill=\""
      << (c == 0 ? "none" : kPoleColours[c]) << "\" stroke=\"" << kPoleColours[c]
      << "\"/><text x=\"" << lx + 13 << "\" y=\"" << ly << "\">" << names[c] << "</text>";
    lx += 40 + 6.2 * std::string(names[c]).size();
  }
  s << "<line x1=\"" << lx << "\" x2=\"" << lx + 20 << "\" y1=\"" << ly - 4 << "\" y2=\"" << ly - 4
    << "\" stroke=\"#b71c1c\" stroke-dasharray=\"5 3\"/><text x=\"" << lx + 26 << "\" y=\"" << ly
    << "\">chosen mode</text>";
  s << "</svg>";
  return s.str();
}

std::string EmaModesTableHtml(const EmaResult& r) {
  std::ostringstream s;
  const StabilisationCriteria& c = r.options.criteria;
  s << "<p class=\"note ema-criteria\">" << HtmlEscape(DescribeMethod(r))
    << ". Each pole is compared with the "
    << "nearest pole of the order below: frequency within "
    << Fmt("%g", 100 * c.frequency_tolerance) << "&#160;%, damping ratio within "
    << Fmt("%g", 100 * c.damping_tolerance) << "&#160;%, MAC of the residue "
    << "directions at least " << Fmt("%g", c.min_mac) << "; candidates have 0 &lt; &#950; &lt; "
    << Fmt("%g", 100 * c.max_damping_ratio) << "&#160;%.</p>";
  s << "<table class=\"ema-modes\"><thead><tr><th>mode</th><th>f &#177; 1&#963; [Hz]</th>"
       "<th>&#950; &#177; 1&#963; [%]</th><th>stable poles</th><th>from order</th>"
       "<th title=\"share of the measured response only this mode accounts for; not the "
       "selection test, which is the misfit growth without it\">response share [%]</th>"
       "<th title=\"modal phase collinearity: 1 for a real mode\">MPC</th>"
       "<th title=\"mean phase deviation: 0 for a real mode\">MPD [&#176;]</th>"
       "<th>|&#966;<sub>x</sub>|</th><th>|&#966;<sub>y</sub>|</th>"
       "<th>|&#966;<sub>z</sub>|</th></tr></thead><tbody>";
  auto cell = [](double v, const std::string& text) {
    return "<td class=\"num\" data-value=\"" + Exact(v) + "\">" + text + "</td>";
  };
  for (size_t k = 0; k < r.modes.size(); ++k) {
    const EmaMode& m = r.modes[k];
    s << "<tr class=\"ema-mode-row\"><td>" << k + 1 << "</td>"
      << cell(m.mode.frequency_hz, Fmt("%.4f", m.mode.frequency_hz) + PlusMinus(m.frequency_sigma_hz))
      << cell(m.mode.damping_ratio,
              Fmt("%.3f", 100.0 * m.mode.damping_ratio) + PlusMinus(100.0 * m.damping_sigma))
      << cell(m.stable_poles, std::to_string(m.stable_poles))
      << cell(m.lowest_order, std::to_string(m.lowest_order))
      << cell(m.explained, Fmt("%.1f", 100.0 * m.explained)) << cell(m.mpc, Fmt("%.3f", m.mpc))
      << cell(m.mpd_deg, Fmt("%.1f", m.mpd_deg));
    for (int i = 0; i < 3; ++i)
      s << cell(std::abs(m.mode.sensor_shape(i)), Fmt("%.3f", std::abs(m.mode.sensor_shape(i))));
    s << "</tr>";
  }
  if (r.modes.empty()) s << "<tr><td colspan=\"11\">no stable modes in the band</td></tr>";
  s << "</tbody></table>";
  if (!r.dropped.empty()) {
    s << "<p class=\"note\">Columns of the diagram that are not modes:</p><ul class=\"ema-dropped\">";
    for (const EmaDropped& d : r.dropped)
      s << "<li data-frequency-hz=\"" << Exact(d.frequency_hz) << "\" data-reason=\""
        << ToString(d.reason) << "\">" << Fmt("%.4f", d.frequency_hz) << " Hz (&#950; "
        << Fmt("%.3f", 100.0 * d.damping_ratio) << "&#160;%, " << d.stable_poles
        << " stable poles): " << HtmlEscape(DescribeDropped(d, r)) << "</li>";
    s << "</ul>";
  }
  return s.str();
}

std::string EmaReferenceHtml(const PostureResult& p) {
  if (!p.modal.ema) return "";
  const std::vector<double> sum = SummedMagnitude(p.measured.present, p.measured.H);
  return "<h3>Stabilisation diagram of the reference modes</h3>\n" +
         StabilisationDiagramSvg(*p.modal.ema, p.measured.frequency_hz, sum,
                                 "stabilisation-" + p.name) +
         "\n" + EmaModesTableHtml(*p.modal.ema);
}

std::string RenderEmaReportHtml(const EmaResult& r, const std::string& result_path) {
  const std::string posture = HtmlEscape(r.measured.posture);
  std::ostringstream s;
  s << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>frfit EMA report: " << posture << "</title>\n<style>" << ReportStyle()
    << "</style>\n</head>\n<body>\n";
  std::string entries;
  for (int e = 0; e < 9; ++e)
    if (r.measured.present[e]) (entries += entries.empty() ? "" : " ") += EntryName(e);
  s << "<header id=\"summary\">\n<h1>EMA report: posture " << posture
    << "</h1>\n<table class=\"summary\">"
    << "<tr><th>FRF file</th><td>" << HtmlEscape(r.source) << "</td></tr>"
    << "<tr><th>result file</th><td>" << HtmlEscape(result_path) << "</td></tr>"
    << "<tr><th>format</th><td>" << HtmlEscape(ToString(r.measured.format)) << " ["
    << HtmlEscape(UnitsOf(r.measured.format)) << "]</td></tr><tr><th>lines used</th><td>"
    << r.measured.num_lines() << " from " << Fmt("%g", r.band_min_hz) << " to "
    << Fmt("%g", r.band_max_hz) << " Hz</td></tr><tr><th>entries</th><td>" << entries
    << "</td></tr>"
    << "<tr><th>modes</th><td id=\"ema-mode-count\" data-value=\"" << r.modes.size() << "\">"
    << r.modes.size() << "</td></tr></table>\n</header>\n";
  s << "<section id=\"stabilisation\">\n<h2>Stabilisation diagram</h2>\n"
    << StabilisationDiagramSvg(r, r.measured.frequency_hz,
                               SummedMagnitude(r.measured.present, r.measured.H),
                               "stabilisation-diagram")
    << "\n</section>\n<section id=\"modes\">\n<h2>Modes</h2>\n"
    << EmaModesTableHtml(r) << "\n</section>\n";
  if (r.measured.num_lines() > 0 && r.synthesized.H.size() == r.measured.H.size()) {
    PostureResult p;
    p.name = r.measured.posture;
    p.measured.format = r.measured.format;
    p.measured.frequency_hz = r.measured.frequency_hz;
    p.measured.H = r.measured.H;
    p.measured.present = r.measured.present;
    p.fitted.H = r.synthesized.H;
    p.weights.assign(r.measured.H.size(), 1.0);
    s << "<section id=\"frfs\">\n<h2>Measured FRFs and the modal model</h2>\n<p "
         "class=\"note\">Solid blue: "
         "measured; dashed red: the modal model of the modes above (residues and residual terms by "
         "least squares).</p>\n"
      << RenderFrfGrid(p) << "\n</section>\n";
  }
  s << "<footer>Written by frfit " << FRFIT_VERSION << " <code>report</code> from "
    << HtmlEscape(result_path) << ".</footer>\n</body>\n</html>\n";
  return s.str();
}

void WriteEmaReport(const std::string& result_path, const std::string& html_path) {
  const EmaResult r = ReadEmaResult(result_path);
  WriteTextFileAtomically(html_path, RenderEmaReportHtml(r, result_path));
}

}  // namespace frfit
