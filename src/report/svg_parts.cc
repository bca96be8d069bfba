#include "svg_parts.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <sstream>

#include "frfit/common/error.h"

namespace frfit::html {

std::string Num(double v, int significant) {
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

// printf's "%.1f", written out: a report has tens of thousands of coordinates, and snprintf was
// most of a fleet night's report rendering. The same text: |v|·10 is rounded to an integer from
// its exact value (the product's rounding error comes from an fma), an exact half to even as
// printf rounds it, and a negative value keeps its sign even when it rounds to zero ("-0.0").
std::string Coord(double v) {
  const double a = std::abs(v);
  if (!(a < 1e14)) {  // beyond, a·10 nears 2^53 and its fraction is no longer exact
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", v);
    return buffer;
  }
  const double p = a * 10.0, error = std::fma(a, 10.0, -p);  // a·10 = p + error exactly
  const double floor = std::floor(p), fraction = p - floor;
  auto tenths = static_cast<std::uint64_t>(floor);
  if (fraction > 0.5 || (fraction == 0.5 && (error > 0.0 || (error == 0.0 && tenths % 2 == 1))))
    ++tenths;
  char buffer[32], *end = buffer + sizeof buffer, *at = end;
  *--at = static_cast<char>('0' + tenths % 10);
  *--at = '.';
  std::uint64_t whole = tenths / 10;
  do *--at = static_cast<char>('0' + whole % 10), whole /= 10;
  while (whole > 0);
  if (std::signbit(v)) *--at = '-';
  return std::string(at, end);
}

// Exact value for data-value attributes (tests and scripts read these).
std::string Exact(double v) { return std::isfinite(v) ? FormatDouble(v) : "nan"; }

// An HTML id fragment: letters, digits, '-' and '_' kept, everything else '_'.
std::string IdPart(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out.empty() ? "_" : out;
}


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
double Scale::operator()(double v) const {
  if (log) v = std::log10(std::max(v, 1e-300));
  const double t = std::clamp((v - d0) / (d1 - d0), -0.02, 1.02);
  return p0 + t * (p1 - p0);
}

// "10^k" with a superscript.
std::string Decade(int k) {
  if (k == 0) return "1";
  if (k == 1) return "10";
  return "10<tspan dy=\"-5\" font-size=\"8\">" + std::to_string(k) + "</tspan>";
}

// Polyline path; a NaN y (or a jump larger than `break_jump` in data units) starts a new piece.
std::string Path(const std::vector<double>& x, const std::vector<double>& y, const Scale& sx,
                 const Scale& sy, double break_jump) {
  std::string d;
  bool pen = false;
  double previous = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(y[i])) { pen = false; continue; }
    if (pen && std::abs(y[i] - previous) > break_jump) pen = false;
    // Appended piece by piece: "M" + std::string&& trips a -Wrestrict false positive of GCC 12
    // (bug 105329) in std::string's inlined insert; so in the other SVG paths too.
    (((d += pen ? "L" : "M") += Coord(sx(x[i]))) += ' ') += Coord(sy(y[i]));
    pen = true;
    previous = y[i];
  }
  return d.empty() ? "M0 0" : d;
}

// Vertical grid lines over every panel (top, height) at about `ticks` round frequencies, their
// labels under the last panel and "frequency [Hz]" at the bottom right of a plot `height` high.
std::string FrequencyAxis(const Scale& sx, int ticks,
                          std::initializer_list<std::pair<double, double>> panels, double height) {
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

std::string PlusMinus(double sigma, int significant) {
  if (!std::isfinite(sigma)) return "";
  return "&#160;&#177;&#160;" + Num(sigma, significant);
}

int DecadeLabelStep(int lo, int hi, int most) {
  for (int step : {1, 2, 5, 10, 20, 50, 100})
    if ((hi - lo) / step + 1 <= most) return step;
  return 100;
}

std::string LegendRow(const std::vector<LegendItem>& items, double x, double y, double* width) {
  std::ostringstream s;
  double at = x;
  for (const LegendItem& item : items) {
    const size_t chars = item.label_chars ? item.label_chars : item.label.size();
    s << "<g class=\"legend-item\" transform=\"translate(" << Coord(at) << "," << Coord(y)
      << ")\">" << item.swatch << "<text x=\"30\" y=\"10\">" << item.label << "</text></g>";
    at += 30 + chars * kLegendCharWidth + 22;
  }
  if (width) *width = at - x;
  return s.str();
}

}  // namespace frfit::html
