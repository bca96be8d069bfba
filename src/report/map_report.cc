#include "frfit/report/map_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <sstream>

#include "frfit/io/atomic_file.h"
#include "frfit/report/html_report.h"
#include "svg_parts.h"

namespace frfit {
namespace {

using namespace html;

// One number per posture that a heat map or a curve shows, with its 1σ (NaN: none).
struct Quantity {
  std::string id, title, unit;
  std::function<double(const MapPoint&)> value, sigma;
};

std::vector<Quantity> Quantities(bool with_cut) {
  auto weakest_axis = [](const MapPoint& p) {
    const auto& k = p.stiffness.axis_n_per_m;
    return static_cast<int>(std::min_element(k.begin(), k.end()) - k.begin());
  };
  std::vector<Quantity> out = {
      {"least-stiffness", "least dynamic stiffness over every direction", "N/m",
       [](const MapPoint& p) { return p.stiffness.least_n_per_m; },
       [](const MapPoint&) { return std::nan(""); }},
      {"weakest-axis-sigma", "relative 1σ of the least stiffness along the weakest axis", "%",
       [=](const MapPoint& p) {
         const int i = weakest_axis(p);
         return 100.0 * p.stiffness.axis_sigma_n_per_m[i] / p.stiffness.axis_n_per_m[i];
       },
       [](const MapPoint&) { return std::nan(""); }},
      {"first-mode", "first mode's frequency", "Hz",
       [](const MapPoint& p) { return p.modes.empty() ? std::nan("") : p.modes[0].frequency_hz; },
       [](const MapPoint& p) { return p.modes.empty() ? std::nan("") : p.modes[0].frequency_sigma_hz; }},
  };
  if (with_cut)
    out.push_back({"critical-depth", "critical depth of cut over the speed range", "mm",
                   [](const MapPoint& p) { return 1e3 * p.stability.critical_depth_m; },
                   [](const MapPoint&) { return std::nan(""); }});
  return out;
}

// A sequential colour map (dark blue → green → yellow, as viridis), t in [0, 1].
std::string SequentialColour(double t) {
  if (!std::isfinite(t)) return "#e6e6e6";
  static const double stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  t = std::clamp(t, 0.0, 1.0) * 4.0;
  const int k = std::min(3, static_cast<int>(t));
  const double u = t - k;
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x",
                static_cast<int>(std::lround(stops[k][0] + u * (stops[k + 1][0] - stops[k][0]))),
                static_cast<int>(std::lround(stops[k][1] + u * (stops[k + 1][1] - stops[k][1]))),
                static_cast<int>(std::lround(stops[k][2] + u * (stops[k + 1][2] - stops[k][2]))));
  return buffer;
}

// The distinct values of grid column `c`, sorted, and each posture's index among them.
std::vector<double> Levels(const PostureMapData& d, size_t c) {
  std::vector<double> v;
  for (const auto& row : d.grid) v.push_back(row[c]);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

size_t LevelOf(const std::vector<double>& levels, double value) {
  return static_cast<size_t>(std::lower_bound(levels.begin(), levels.end(), value) - levels.begin());
}

// Postures whose coordinates past the first `shown` are those of the first posture: the slice a
// two-coordinate picture of a larger grid shows.
std::vector<size_t> Slice(const PostureMapData& d, size_t shown) {
  std::vector<size_t> out;
  for (size_t p = 0; p < d.grid.size(); ++p)
    if (std::equal(d.grid[p].begin() + shown, d.grid[p].end(), d.grid[0].begin() + shown)) out.push_back(p);
  return out;
}

std::string HeatMap(const PostureMapData& d, const std::vector<size_t>& slice, const Quantity& q) {
  const std::vector<double> xs = Levels(d, 0), ys = Levels(d, 1);
  double lo = INFINITY, hi = -INFINITY;
  for (size_t p : slice) {
    const double v = q.value(d.points[p]);
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!(hi > lo)) hi = lo + 1.0;
  // Whole pixels per cell: with crisp edges, fractional cells leave a pixel column unpainted now
  // and then.
  const double left = 60, top = 28, cw = std::max(2.0, std::min(12.0, std::floor(480.0 / xs.size())));
  const double ch = std::max(2.0, std::min(12.0, std::floor(320.0 / ys.size())));
  const double w = cw * xs.size(), h = ch * ys.size(), W = left + w + 110, H = top + h + 48;
  std::ostringstream s;
  // crispEdges: anti-aliased cell edges would show the page through as a grid of thin lines.
  s << "<figure><svg class=\"map-heat\" id=\"heat-" << q.id
    << "\" shape-rendering=\"crispEdges\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
    << W << "\" height=\"" << H << "\" data-min=\"" << Exact(lo) << "\" data-max=\"" << Exact(hi) << "\">";
  for (size_t p : slice) {
    const double v = q.value(d.points[p]);
    const size_t i = LevelOf(xs, d.grid[p][0]), j = LevelOf(ys, d.grid[p][1]);
    s << "<rect x=\"" << Coord(left + i * cw) << "\" y=\"" << Coord(top + h - (j + 1) * ch) << "\" width=\""
      << Coord(cw) << "\" height=\"" << Coord(ch) << "\" fill=\"" << SequentialColour((v - lo) / (hi - lo))
      << "\" data-value=\"" << Exact(v) << "\"><title>" << HtmlEscape(d.coordinates[0]) << " " << Num(d.grid[p][0])
      << ", " << HtmlEscape(d.coordinates[1]) << " " << Num(d.grid[p][1]) << ": " << Num(v, 4) << " "
      << q.unit << "</title></rect>";
  }
  const Scale sx{xs.front(), xs.back(), left + cw / 2, left + w - cw / 2};
  const Scale sy{ys.front(), ys.back(), top + h - ch / 2, top + ch / 2};
  for (double t : NiceTicks(xs.front(), xs.back(), 6))
    s << "<text class=\"" << kAxes << "\" x=\"" << Coord(sx(t)) << "\" y=\"" << Coord(top + h + 14)
      << "\" text-anchor=\"middle\">" << Num(t) << "</text>";
  for (double t : NiceTicks(ys.front(), ys.back(), 6))
    s << "<text class=\"" << kAxes << "\" x=\"" << Coord(left - 4) << "\" y=\"" << Coord(sy(t) + 4)
      << "\" text-anchor=\"end\">" << Num(t) << "</text>";
  s << "<text class=\"" << kAxes << "\" x=\"" << Coord(left + w / 2) << "\" y=\"" << Coord(top + h + 32)
    << "\" text-anchor=\"middle\">" << HtmlEscape(d.coordinates[0]) << "</text><text class=\"" << kAxes
    << "\" x=\"12\" y=\"" << Coord(top - 10) << "\">" << HtmlEscape(d.coordinates[1]) << "</text>";
  // Colour bar: the low end at the bottom, five labels.
  const double bx = left + w + 16;
  for (int k = 0; k < 32; ++k)
    s << "<rect x=\"" << Coord(bx) << "\" y=\"" << Coord(top + h - (k + 1) * h / 32) << "\" width=\"12\" height=\""
      << Coord(h / 32 + 0.5) << "\" fill=\"" << SequentialColour((k + 0.5) / 32) << "\"/>";
  for (int k = 0; k <= 4; ++k)
    s << "<text class=\"" << kAxes << "\" x=\"" << Coord(bx + 16) << "\" y=\"" << Coord(top + h - k * h / 4 + 4)
      << "\">" << Num(lo + k * (hi - lo) / 4, 4) << "</text>";
  s << "</svg><figcaption>" << HtmlEscape(q.title) << " [" << q.unit << "]</figcaption></figure>\n";
  return s.str();
}

// One coordinate: the quantity against it, with its ±1σ band where it has one.
std::string Curve(const PostureMapData& d, const std::vector<size_t>& slice, const Quantity& q) {
  std::vector<double> x, y, up, down;
  for (size_t p : slice) {
    const double v = q.value(d.points[p]), s = q.sigma(d.points[p]);
    x.push_back(d.grid[p][0]), y.push_back(v);
    up.push_back(std::isfinite(s) ? v + s : NAN), down.push_back(std::isfinite(s) ? v - s : NAN);
  }
  double lo = INFINITY, hi = -INFINITY;
  for (const auto* series : {&y, &up, &down})
    for (double v : *series)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!(hi > lo)) hi = lo + 1.0;
  const double left = 70, top = 20, w = 480, h = 220;
  const Scale sx{x.front(), x.back() > x.front() ? x.back() : x.front() + 1, left, left + w};
  const Scale sy{lo, hi, top + h, top};
  std::ostringstream s;
  s << "<figure><svg class=\"map-curve\" id=\"curve-" << q.id << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
    << left + w + 20 << "\" height=\"" << top + h + 44 << "\">";
  s << "<path d=\"" << Path(x, up, sx, sy) << "\" stroke=\"" << kFittedColour
    << "\" stroke-dasharray=\"3 3\" fill=\"none\"/><path d=\"" << Path(x, down, sx, sy) << "\" stroke=\""
    << kFittedColour << "\" stroke-dasharray=\"3 3\" fill=\"none\"/><path class=\"value\" d=\"" << Path(x, y, sx, sy)
    << "\" stroke=\"" << kMeasuredColour << "\" stroke-width=\"1.6\" fill=\"none\"/>";
  for (double t : NiceTicks(x.front(), x.back(), 6))
    s << "<text class=\"" << kAxes << "\" x=\"" << Coord(sx(t)) << "\" y=\"" << Coord(top + h + 14)
      << "\" text-anchor=\"middle\">" << Num(t) << "</text>";
  for (double t : NiceTicks(lo, hi, 5))
    s << "<text class=\"" << kAxes << "\" x=\"" << Coord(left - 4) << "\" y=\"" << Coord(sy(t) + 4)
      << "\" text-anchor=\"end\">" << Num(t, 4) << "</text>";
  s << "<text class=\"" << kAxes << "\" x=\"" << Coord(left + w / 2) << "\" y=\"" << Coord(top + h + 32)
    << "\" text-anchor=\"middle\">" << HtmlEscape(d.coordinates[0]) << "</text></svg><figcaption>"
    << HtmlEscape(q.title) << " [" << q.unit << "]; dashed: ±1σ</figcaption></figure>\n";
  return s.str();
}

}  // namespace

std::string RenderMapReportHtml(const PostureMapData& d, const std::string& map_path) {
  std::ostringstream s;
  s << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<title>frfit posture map: " << HtmlEscape(d.model_name) << "</title>\n<style>" << ReportStyle()
    << "</style>\n</head>\n<body>\n<header id=\"summary\">\n<h1>Posture map: model "
    << HtmlEscape(d.model_name) << "</h1>\n<table class=\"summary\"><tr><th>map file</th><td>"
    << HtmlEscape(map_path) << "</td></tr><tr><th>parameters</th><td>" << HtmlEscape(d.parameters_source)
    << "</td></tr><tr><th>base posture</th><td>" << HtmlEscape(d.base_posture)
    << "</td></tr><tr><th>postures</th><td id=\"map-postures\" data-value=\"" << d.points.size() << "\">"
    << d.points.size() << "</td></tr><tr><th>modes up to</th><td>" << HtmlEscape(d.max_hz)
    << " Hz</td></tr>" << (d.cut.empty() ? "" : "<tr><th>cut</th><td>" + HtmlEscape(d.cut) + "</td></tr>")
    << "</table>\n</header>\n";
  const bool two = d.coordinates.size() >= 2;
  const std::vector<size_t> slice = Slice(d, two ? 2 : 1);
  if (d.coordinates.size() > (two ? 2u : 1u)) {
    std::string fixed;
    for (size_t c = 2; c < d.coordinates.size(); ++c)
      fixed += (fixed.empty() ? "" : ", ") + d.coordinates[c] + " = " + Num(d.grid[0][c]);
    s << "<p class=\"note\">Shown: the slice at " << HtmlEscape(fixed) << " (the map file holds every posture).</p>\n";
  }
  s << "<section id=\"map\">\n<h2>" << (two ? "Over " + d.coordinates[0] + " and " + d.coordinates[1]
                                            : "Along " + d.coordinates[0])
    << "</h2>\n";
  for (const Quantity& q : Quantities(!d.cut.empty())) s << (two ? HeatMap(d, slice, q) : Curve(d, slice, q));
  s << "</section>\n<footer>Written by frfit " << FRFIT_VERSION << " <code>report</code> from "
    << HtmlEscape(map_path) << ".</footer>\n</body>\n</html>\n";
  return s.str();
}

void WriteMapReport(const std::string& map_path, const std::string& html_path) {
  WriteTextFileAtomically(html_path, RenderMapReportHtml(ReadPostureMap(map_path), map_path));
}

}  // namespace frfit
