// The report's regularisation curve (fit/regularization.h): the L-curve of the weights scanned at
// the fitted point, log residual norm against log regularisation norm, with the rule's choice
// (evidence or GCV, named) and the weight the fit used marked. Each point carries its weight in
// data-weight for scripts.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "report_plots.h"
#include "svg_parts.h"

namespace frfit::html {
namespace {

// [lo, hi] of log10 of the finite positive values, widened to a span of at least `least`.
std::pair<double, double> LogRange(const std::vector<double>& v, double least) {
  double lo = INFINITY, hi = -INFINITY;
  for (double x : v)
    if (x > 0 && std::isfinite(x)) lo = std::min(lo, std::log10(x)), hi = std::max(hi, std::log10(x));
  if (!std::isfinite(lo)) return {0.0, 1.0};
  const double mid = 0.5 * (lo + hi), half = std::max(0.5 * (hi - lo), 0.5 * least) * 1.05;
  return {mid - half, mid + half};
}

std::string Marker(const WeightCurvePoint& p, const Scale& sx, const Scale& sy,
                   const std::string& cls, const std::string& colour, const std::string& what) {
  std::ostringstream s;
  s << "<circle class=\"" << cls << "\" cx=\"" << Coord(sx(p.residual_norm)) << "\" cy=\""
    << Coord(sy(p.regularization_norm)) << "\" r=\"6\" fill=\"none\" stroke=\"" << colour
    << "\" stroke-width=\"2\" data-weight=\"" << Exact(p.weight) << "\"><title>" << what
    << ": weight " << Num(p.weight, 4) << "</title></circle>";
  return s.str();
}

}  // namespace

std::string RegularizationCurvePlot(const RegularizationSummary& r) {
  const double W = 560, H = 380, left = 80, right = 20, top = 20, bottom = 60;
  const double pw = W - left - right, ph = H - top - bottom;
  std::vector<double> residual, norm;
  for (const WeightCurvePoint& p : r.curve.points)
    residual.push_back(p.residual_norm), norm.push_back(p.regularization_norm);
  const auto [x0, x1] = LogRange(residual, 1e-4);
  const auto [y0, y1] = LogRange(norm, 1e-2);
  const Scale sx{x0, x1, left, left + pw, true}, sy{y0, y1, top + ph, top, true};
  std::ostringstream s;
  s << "<svg class=\"regularization-curve\" id=\"regularization-curve\" "
       "xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" viewBox=\"0 0 " << W << " " << H
    << "\" role=\"img\" aria-label=\"regularisation norm against residual norm\">";
  s << "<rect class=\"panel\" x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw
    << "\" height=\"" << ph << "\"/>";
  for (double t : NiceTicks(x0, x1, 5)) {
    const std::string xs = Coord(sx(std::pow(10.0, t)));
    s << "<line class=\"grid\" x1=\"" << xs << "\" x2=\"" << xs << "\" y1=\"" << top << "\" y2=\""
      << top + ph << "\"/><text class=\"" << kAxes << "\" x=\"" << xs << "\" y=\"" << top + ph + 14
      << "\" text-anchor=\"middle\">" << Num(std::pow(10.0, t), 3) << "</text>";
  }
  for (double t : NiceTicks(y0, y1, 6)) {
    const std::string ys = Coord(sy(std::pow(10.0, t)));
    s << "<line class=\"grid\" x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << ys
      << "\" y2=\"" << ys << "\"/><text class=\"" << kAxes << "\" x=\"" << left - 4 << "\" y=\""
      << ys << "\" text-anchor=\"end\" dominant-baseline=\"middle\">" << Num(std::pow(10.0, t), 3)
      << "</text>";
  }
  s << "<path class=\"l-curve\" fill=\"none\" stroke=\"" << kMeasuredColour << "\" d=\""
    << Path(residual, norm, sx, sy) << "\"/>";
  const std::string rule = ToString(r.curve.rule);
  const std::string rule_name = r.curve.rule == WeightRule::kGcv ? "GCV" : "evidence";
  if (r.curve.chosen >= 0)
    s << Marker(r.curve.points[r.curve.chosen], sx, sy, rule + "-choice", kFittedColour,
                rule_name + " minimum at the fitted point");
  s << Marker(r.at_weight, sx, sy, "used-weight", "#000000", "the weight the fit used");
  s << "<text class=\"" << kAxes << "\" x=\"" << left + pw << "\" y=\"" << top + ph + 32
    << "\" text-anchor=\"end\">residual norm (linearised, log)</text>";
  s << "<text class=\"" << kAxes << "\" transform=\"translate(16," << top + ph / 2
    << ") rotate(-90)\" text-anchor=\"middle\">regularisation norm (log)</text>";
  s << "<text class=\"" << kAxes << "\" x=\"" << left << "\" y=\"" << H - 8
    << "\">red: " << rule_name << " minimum; black: weight used (" << Num(r.weight, 4)
    << ")</text></svg>";
  return s.str();
}

}  // namespace frfit::html
