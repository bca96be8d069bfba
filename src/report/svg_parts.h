// The pieces the report's pages draw with: number formats for HTML, SVG coordinates, round ticks,
// linear and log scales, polylines, the shared frequency axis and legends laid out by their
// labels' width. Internal to src/report.
#pragma once

#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace frfit::html {

inline constexpr const char* kMeasuredColour = "#1f5fa8";
inline constexpr const char* kFittedColour = "#d7301f";
inline constexpr const char* kAxes = "ax";  // CSS class of axis text
inline constexpr const char* kAxisNames[3] = {"x", "y", "z"};

std::string Num(double v, int significant = 6);  // %g; an em dash for NaN and infinities
std::string Fixed(double v, int decimals);       // %f, never "-0.00"
std::string Sci(double v);                       // %.6e
std::string Coord(double v);                     // an SVG coordinate, 0.1 px
std::string Exact(double v);  // exact value for data-value attributes (tests and scripts read them)
// An HTML id fragment: letters, digits, '-' and '_' kept, everything else '_'.
std::string IdPart(const std::string& s);
// "±" and the value, for a 1σ beside a number; "" when the σ is not known.
std::string PlusMinus(double sigma, int significant = 2);

// Up to about `target` round ticks (1, 2, 5 × 10^k) in [lo, hi].
std::vector<double> NiceTicks(double lo, double hi, int target);

// A linear or log10 mapping of data onto a pixel interval (d0, d1 in log10 units when log).
struct Scale {
  double d0, d1, p0, p1;
  bool log = false;
  double operator()(double v) const;
};

// "10^k" with a superscript.
std::string Decade(int k);
// Which decades of [lo, hi] get a label: every one up to `most` labels, else every 2nd, 5th,
// 10th... (counted from hi), so that labels never crowd however many decades a cost falls through.
int DecadeLabelStep(int lo, int hi, int most);

// Polyline path; a NaN y (or a jump larger than `break_jump` in data units) starts a new piece.
std::string Path(const std::vector<double>& x, const std::vector<double>& y, const Scale& sx,
                 const Scale& sy,
                 double break_jump = std::numeric_limits<double>::infinity());

// Vertical grid lines over every panel (top, height) at about `ticks` round frequencies, their
// labels under the last panel and "frequency [Hz]" at the bottom right of a plot `height` high.
std::string FrequencyAxis(const Scale& sx, int ticks,
                          std::initializer_list<std::pair<double, double>> panels, double height);

// One legend entry: a swatch (SVG drawn in a 24×12 box at the origin) and its label (HTML).
struct LegendItem {
  std::string swatch;
  std::string label;
  size_t label_chars = 0;  // characters the label shows (0: its length; set it for markup)
};
inline constexpr double kLegendCharWidth = 6.6;  // px per character of 10.5 px text, generous
// The items left to right from (x, y = the row's top), each placed after the previous label's
// width: labels never overlap whatever their length. *width: the row's width.
std::string LegendRow(const std::vector<LegendItem>& items, double x, double y,
                      double* width = nullptr);

}  // namespace frfit::html
