#include "frfit/report/lobes_report.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "frfit/files/atomic_file.h"
#include "frfit/report/html_report.h"
#include "svg_parts.h"

namespace frfit {
namespace {

using namespace html;

constexpr const char* kBandColour = "#f4a582";

// The depth axis, in mm on a log scale: from half the shallowest critical depth shown (estimate
// or band) to at most 1000 times it, so that the minima and the rising flanks both show; lobes
// above it (and +inf, no lobe at that speed) are cut at the frame.
std::pair<double, double> DepthRange(const LobesFile& d) {
  double low = d.lobes.critical_depth_m, high = 0.0;
  if (d.band.samples > 0) low = std::min(low, d.band.critical_depth_m_p05);
  for (const std::vector<double>* v : {&d.lobes.depth_limit_m, &d.band.depth_limit_m_p95})
    for (double x : *v)
      if (std::isfinite(x)) high = std::max(high, x), low = std::min(low, x);
  if (!(low > 0.0) || !std::isfinite(low)) low = high > 0.0 ? high : 1e-3;
  low *= 1e3 * 0.5;
  high = std::clamp(1e3 * high, 10.0 * low, 1000.0 * low);
  return {std::pow(10.0, std::floor(std::log10(low))), std::pow(10.0, std::ceil(std::log10(high)))};
}

// Depths in mm, cut at `top` (+inf, no lobe at that speed, sits on the frame too).
std::vector<double> Millimetres(const std::vector<double>& depth_m, double top) {
  std::vector<double> out;
  for (double v : depth_m) out.push_back(std::isnan(v) ? NAN : std::min(1e3 * v, top));
  return out;
}

// 1, 2 and 5 times the powers of ten in [lo, hi].
std::vector<double> LogTicks(double lo, double hi) {
  std::vector<double> ticks;
  for (int k = static_cast<int>(std::floor(std::log10(lo))); k <= std::ceil(std::log10(hi)); ++k)
    for (double m : {1.0, 2.0, 5.0}) {
      const double t = m * std::pow(10.0, k);
      if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) ticks.push_back(t);
    }
  return ticks;
}

std::string LobesSvg(const LobesFile& d) {
  const std::vector<double>& x = d.lobes.spindle_speed_rpm;
  const auto [bottom, top] = DepthRange(d);
  const double left = 70, upper = 20, w = 640, h = 320;
  const Scale sx{std::log10(x.front()), std::log10(x.back()), left, left + w, true};
  const Scale sy{std::log10(bottom), std::log10(top), upper + h, upper, true};
  std::ostringstream s;
  s << "<figure><svg id=\"lobes-plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + w + 20
    << "\" height=\"" << upper + h + 48 << "\"><title>Stability lobes of " << HtmlEscape(d.model_name)
    << " at " << HtmlEscape(d.posture) << "</title>";
  s << "<rect x=\"" << left << "\" y=\"" << upper << "\" width=\"" << w << "\" height=\"" << h
    << "\" fill=\"none\" stroke=\"#999\"/>";
  if (d.band.samples > 0) {
    // The band as one closed shape: along p95 forward, back along p05.
    const std::vector<double> hi = Millimetres(d.band.depth_limit_m_p95, top),
                              lo = Millimetres(d.band.depth_limit_m_p05, top);
    s << "<path id=\"lobes-band\" fill=\"" << kBandColour << "\" fill-opacity=\"0.5\" stroke=\"none\" d=\"";
    for (size_t i = 0; i < x.size(); ++i)
      s << (i == 0 ? "M" : "L") << Coord(sx(x[i])) << " " << Coord(sy(std::isnan(hi[i]) ? top : hi[i])) << " ";
    for (size_t i = x.size(); i-- > 0;)
      s << "L" << Coord(sx(x[i])) << " " << Coord(sy(std::isnan(lo[i]) ? top : lo[i])) << " ";
    s << "Z\" data-p05-m=\"" << Exact(d.band.critical_depth_m_p05) << "\" data-p95-m=\""
      << Exact(d.band.critical_depth_m_p95) << "\"/>";
  }
  s << "<path id=\"lobes-envelope\" d=\"" << Path(x, Millimetres(d.lobes.depth_limit_m, top), sx, sy)
    << "\" stroke=\"" << kMeasuredColour << "\" stroke-width=\"1.4\" fill=\"none\"/>";
  if (std::isfinite(d.lobes.critical_depth_m))
    s << "<circle id=\"lobes-critical\" cx=\"" << Coord(sx(d.lobes.critical_spindle_speed_rpm))
      << "\" cy=\"" << Coord(sy(1e3 * d.lobes.critical_depth_m)) << "\" r=\"4\" fill=\"" << kFittedColour
      << "\" data-depth-m=\"" << Exact(d.lobes.critical_depth_m) << "\"/>";
  for (double t : LogTicks(x.front(), x.back()))
    s << "<line x1=\"" << Coord(sx(t)) << "\" x2=\"" << Coord(sx(t)) << "\" y1=\"" << upper << "\" y2=\""
      << upper + h << "\" stroke=\"#e5e5e5\"/><text class=\"" << kAxes << "\" x=\"" << Coord(sx(t))
      << "\" y=\"" << Coord(upper + h + 14) << "\" text-anchor=\"middle\">" << Num(t) << "</text>";
  for (double t : LogTicks(bottom, top))
    s << "<line x1=\"" << left << "\" x2=\"" << left + w << "\" y1=\"" << Coord(sy(t)) << "\" y2=\""
      << Coord(sy(t)) << "\" stroke=\"#e5e5e5\"/><text class=\"" << kAxes << "\" x=\"" << Coord(left - 4)
      << "\" y=\"" << Coord(sy(t) + 4) << "\" text-anchor=\"end\">" << Num(t, 4) << "</text>";
  s << "<text class=\"" << kAxes << "\" x=\"" << Coord(left + w / 2) << "\" y=\"" << Coord(upper + h + 34)
    << "\" text-anchor=\"middle\">spindle speed [rpm]</text><text class=\"" << kAxes
    << "\" transform=\"translate(16 " << Coord(upper + h / 2) << ") rotate(-90)\" text-anchor=\"middle\">"
    << "depth of cut [mm]</text></svg><figcaption>The stability limit over spindle speed (below "
    << "it the cut is stable); the dot marks the critical depth"
    << (d.band.samples > 0 ? "; shaded: 5..95 % of " + std::to_string(d.band.samples) +
                                 " parameter sets drawn from the fit's covariance"
                           : "")
    << "; both axes logarithmic. Depths above " << Num(top, 3)
    << " mm are drawn at the frame.</figcaption></figure>\n";
  return s.str();
}

}  // namespace

std::string RenderLobesReportHtml(const LobesFile& d, const std::string& path) {
  const StabilityLobes& l = d.lobes;
  std::ostringstream s;
  const std::string title = "Stability lobes: model " + d.model_name + ", posture " + d.posture;
  s << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>frfit "
    << HtmlEscape(title) << "</title>\n<style>" << ReportStyle() << "</style>\n</head>\n<body>\n"
    << "<header id=\"summary\">\n<h1>" << HtmlEscape(title) << "</h1>\n<table class=\"summary\">"
    << "<tr><th>lobes file</th><td>" << HtmlEscape(path) << "</td></tr><tr><th>parameters</th><td>"
    << HtmlEscape(d.parameters_source) << "</td></tr><tr><th>cut</th><td>" << HtmlEscape(d.cut) << ": "
    << HtmlEscape(d.milling) << " milling, " << d.teeth << " teeth, K<sub>t</sub> " << Num(d.kt_n_per_m2, 4)
    << " N/m&#178;, K<sub>r</sub>/K<sub>t</sub> " << Num(d.kr_ratio, 3) << "</td></tr>"
    << "<tr><th>critical depth</th><td id=\"critical-depth\" data-value=\"" << Exact(l.critical_depth_m)
    << "\">";
  if (std::isfinite(l.critical_depth_m))
    s << Num(1e3 * l.critical_depth_m, 4) << " mm at " << Num(l.critical_spindle_speed_rpm, 5)
      << " rpm (chatter " << Fixed(l.critical_chatter_frequency_hz, 2) << " Hz)";
  else
    s << "no lobe reaches the speed range";
  s << "</td></tr>";
  if (d.band.samples > 0)
    s << "<tr><th>5..95 %</th><td id=\"band\">" << Num(1e3 * d.band.critical_depth_m_p05, 4) << "&#8211;"
      << Num(1e3 * d.band.critical_depth_m_p95, 4) << " mm over " << d.band.samples
      << " parameter sets (seed " << d.band.seed << ")</td></tr>";
  s << "</table>\n";
  if (d.band.samples > 0 && !d.band.brackets_estimate)
    s << "<p class=\"note\" id=\"band-note\">The band is not meaningful: " << HtmlEscape(d.band.note)
      << ".</p>\n";
  if (!d.sigma_note.empty())
    s << "<p class=\"note\" id=\"sigma-note\">" << HtmlEscape(d.sigma_note) << ".</p>\n";
  s << "</header>\n<section id=\"lobes\">\n<h2>Stability lobes</h2>\n" << LobesSvg(d)
    << "</section>\n<footer>Written by frfit " << FRFIT_VERSION << " <code>report</code> from "
    << HtmlEscape(path) << ".</footer>\n</body>\n</html>\n";
  return s.str();
}

void WriteLobesReport(const std::string& lobes_path, const std::string& html_path) {
  WriteTextFileAtomically(html_path, RenderLobesReportHtml(ReadLobesFile(lobes_path), lobes_path));
}

}  // namespace frfit
