// The residual of a fit to measured FRFs, one small panel per FRF entry, in units of the noise:
// |H_fit − H_measured| / σ at every line, so that 1 is the noise's rms and every entry reads on the
// same scale whatever its level. The bands the model check names are shaded in the panels of the
// entries they concern. (Without a noise model the report keeps the dB / degree plot, ResidualPlot.)
#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "frfit/report/html_report.h"
#include "report_plots.h"
#include "svg_parts.h"

namespace frfit::html {
namespace {

constexpr double kPanelW = 300, kPanelH = 110, kLeft = 46, kTop = 22, kGapX = 34, kGapY = 44;

// |ΔH| / σ of entry e at every line; NaN where σ is not positive.
std::vector<double> Standardized(const PostureResult& p, int e) {
  std::vector<double> z(p.measured.num_lines(), NAN);
  for (int k = 0; k < p.measured.num_lines(); ++k) {
    const size_t i = static_cast<size_t>(k) * 9 + e;
    if (p.measured.noise_variance[i] > 0.0) z[k] = std::abs(p.fitted.H[i] - p.measured.H[i]) / std::sqrt(p.measured.noise_variance[i]);
  }
  return z;
}

// One y range for every panel: round, at least 4σ, and at most 20σ (a line far beyond sits on the
// top edge; its value is in the panel's title).
double TopOf(const std::vector<std::vector<double>>& z) {
  double worst = 0.0;
  for (const auto& entry : z)
    for (double v : entry)
      if (std::isfinite(v)) worst = std::max(worst, v);
  for (double r : {4.0, 5.0, 10.0, 20.0})
    if (worst <= r) return r;
  return 20.0;
}

std::string Panel(const PostureResult& p, int e, const std::vector<double>& z, double top_sigma,
                  const std::vector<ResidualBand>& bands, double x0, double y0) {
  const int n = p.measured.num_lines();
  const double f0 = p.measured.frequency_hz.front(), f1 = n > 1 ? p.measured.frequency_hz.back() : f0 + 1.0;
  const Scale sx{f0, f1, x0, x0 + kPanelW};
  const Scale sy{0.0, top_sigma, y0 + kPanelH, y0};
  const std::string entry = std::string(kAxisNames[e / 3]) + kAxisNames[e % 3];
  double worst = 0.0;
  for (double v : z)
    if (std::isfinite(v)) worst = std::max(worst, v);
  std::ostringstream s;
  s << "<g class=\"residual-entry\" data-entry=\"" << entry << "\" data-max-sigma=\"" << Exact(worst) << "\">";
  s << "<rect class=\"panel\" x=\"" << x0 << "\" y=\"" << y0 << "\" width=\"" << kPanelW << "\" height=\""
    << kPanelH << "\"/>";
  for (const ResidualBand& b : bands) {
    if (b.posture != p.name || std::find(b.entries.begin(), b.entries.end(), e) == b.entries.end()) continue;
    const double a = sx(b.from_hz), c = std::max(sx(b.to_hz), a + 2.0);
    s << "<rect class=\"model-check-band\" x=\"" << Coord(a) << "\" y=\"" << y0 << "\" width=\""
      << Coord(c - a) << "\" height=\"" << kPanelH << "\" fill=\"#f4a582\" fill-opacity=\"0.45\" "
      << "data-from-hz=\"" << Exact(b.from_hz) << "\" data-to-hz=\"" << Exact(b.to_hz) << "\"><title>model "
      << "check: structured residual " << Num(b.from_hz, 4) << "-" << Num(b.to_hz, 4) << " Hz, reduced "
      << "&#967;&#178; " << Num(b.reduced_chi2, 3) << "</title></rect>";
  }
  for (double t : NiceTicks(0.0, top_sigma, 4)) {
    s << "<line class=\"" << (t == 1.0 ? "zero" : "grid") << "\" x1=\"" << x0 << "\" x2=\"" << x0 + kPanelW
      << "\" y1=\"" << Coord(sy(t)) << "\" y2=\"" << Coord(sy(t)) << "\"/><text class=\"" << kAxes
      << "\" x=\"" << x0 - 4 << "\" y=\"" << Coord(sy(t) + 3.5) << "\" text-anchor=\"end\">" << Num(t) << "</text>";
  }
  // The noise's rms (1) as a reference line: a consistent fit scatters around it.
  s << "<line class=\"noise-level\" x1=\"" << x0 << "\" x2=\"" << x0 + kPanelW << "\" y1=\"" << Coord(sy(1.0))
    << "\" y2=\"" << Coord(sy(1.0)) << "\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>";
  std::vector<double> clipped(z);
  for (double& v : clipped)
    if (std::isfinite(v)) v = std::min(v, top_sigma);
  s << "<path class=\"residual-sigma\" stroke=\"" << kMeasuredColour << "\" fill=\"none\" stroke-width=\"1\" d=\""
    << Path(p.measured.frequency_hz, clipped, sx, sy) << "\"/>";
  for (double t : NiceTicks(f0, f1, 4))
    s << "<text class=\"" << kAxes << "\" x=\"" << Coord(sx(t)) << "\" y=\"" << y0 + kPanelH + 13
      << "\" text-anchor=\"middle\">" << Num(t) << "</text>";
  s << "<text x=\"" << x0 << "\" y=\"" << y0 - 6 << "\" font-weight=\"600\">H" << entry
    << "</text><text class=\"" << kAxes << "\" x=\"" << x0 + kPanelW << "\" y=\"" << y0 - 6
    << "\" text-anchor=\"end\">max " << Num(worst, 3) << "&#963;</text></g>";
  return s.str();
}

}  // namespace

std::string StandardizedResidualPlot(const PostureResult& p, const std::vector<ResidualBand>& bands) {
  std::vector<std::vector<double>> z(9);
  for (int e = 0; e < 9; ++e)
    if (p.measured.present[e]) z[e] = Standardized(p, e);
  const double top_sigma = TopOf(z);
  // Entries where they sit in the 3×3 matrix; rows and columns no entry uses are left out.
  std::vector<int> rows, columns;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (p.measured.present[3 * i + j]) {
        if (std::find(rows.begin(), rows.end(), i) == rows.end()) rows.push_back(i);
        if (std::find(columns.begin(), columns.end(), j) == columns.end()) columns.push_back(j);
      }
  std::sort(rows.begin(), rows.end());
  std::sort(columns.begin(), columns.end());
  const double W = kLeft + columns.size() * (kPanelW + kGapX);
  const double H = kTop + rows.size() * (kPanelH + kGapY) + 8;
  std::ostringstream s;
  s << "<svg class=\"residual-panels\" id=\"residual-" << IdPart(p.name)
    << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
    << " " << H << "\" data-top-sigma=\"" << Exact(top_sigma)
    << "\" role=\"img\" aria-label=\"residual of each fitted FRF entry in units of its noise sigma against "
       "frequency [Hz]\">";
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t c = 0; c < columns.size(); ++c) {
      const int e = 3 * rows[r] + columns[c];
      if (!p.measured.present[e]) continue;
      s << Panel(p, e, z[e], top_sigma, bands, kLeft + c * (kPanelW + kGapX), kTop + r * (kPanelH + kGapY));
    }
  s << "<text class=\"" << kAxes << "\" transform=\"translate(12," << kTop + rows.size() * (kPanelH + kGapY) / 2
    << ") rotate(-90)\" text-anchor=\"middle\">|H<tspan baseline-shift=\"sub\" font-size=\"8\">fit</tspan> &#8722; "
       "H<tspan baseline-shift=\"sub\" font-size=\"8\">measured</tspan>| / &#963; [noise &#963;]</text>"
    << "<text class=\"" << kAxes << "\" x=\"" << W - kGapX << "\" y=\"" << H - 2
    << "\" text-anchor=\"end\">frequency [Hz]</text></svg>";
  return s.str();
}

}  // namespace frfit::html
