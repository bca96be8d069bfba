// The grid of frfit map: coordinate ranges on top of a base posture.
#include <cmath>
#include <set>

#include "frfit/common/error.h"
#include "frfit/model/model_yaml.h"
#include "frfit/predict/posture_map.h"

namespace frfit {
namespace {

double Number(const std::string& text, const std::string& what, const std::string& field) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value))
    throw Error(what, field, "expected a finite number, got '" + text + "'");
  return value;
}

// "z2=30:120:1" → the axis; `what` names the option in messages.
GridAxis ParseAxis(const std::string& item, const Model& model, const std::string& what) {
  const size_t eq = item.find('=');
  if (eq == std::string::npos)
    throw Error(what, "'" + item + "'", "expected NAME=START:STOP:STEP");
  GridAxis axis;
  axis.coordinate = item.substr(0, eq);
  axis.index = model.FindCoordinate(axis.coordinate);
  if (axis.index < 0)
    throw Error(what, axis.coordinate, "unknown coordinate of model '" + model.name + "'");
  const std::string range = item.substr(eq + 1);
  const size_t c1 = range.find(':'), c2 = range.find(':', c1 == std::string::npos ? 0 : c1 + 1);
  if (c1 == std::string::npos || c2 == std::string::npos || range.find(':', c2 + 1) != std::string::npos)
    throw Error(what, axis.coordinate, "expected START:STOP:STEP, got '" + range + "'");
  const double start = Number(range.substr(0, c1), what, axis.coordinate);
  const double stop = Number(range.substr(c1 + 1, c2 - c1 - 1), what, axis.coordinate);
  const double step = Number(range.substr(c2 + 1), what, axis.coordinate);
  if (!(step > 0.0) || stop < start)
    throw Error(what, axis.coordinate,
                "expected STOP >= START and STEP > 0, got '" + range + "'");
  const double count = std::floor((stop - start) / step + 1e-9) + 1.0;
  if (count > 1e7) throw Error(what, axis.coordinate, "more than 10 000 000 values");
  for (long k = 0; k < static_cast<long>(count); ++k) axis.values.push_back(start + k * step);
  return axis;
}

}  // namespace

std::vector<GridAxis> ParseGrid(const std::string& text, const Model& model, const std::string& what,
                                long max_points) {
  std::vector<GridAxis> axes;
  std::set<int> seen;
  size_t from = 0;
  double points = 1.0;
  while (true) {
    const size_t comma = text.find(',', from);
    const std::string item = text.substr(from, comma == std::string::npos ? comma : comma - from);
    axes.push_back(ParseAxis(item, model, what));
    if (!seen.insert(axes.back().index).second)
      throw Error(what, axes.back().coordinate, "given twice");
    points *= static_cast<double>(axes.back().values.size());
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (points > static_cast<double>(max_points))
    throw Error(what, "'" + text + "'",
                "expected at most " + std::to_string(max_points) + " postures, the grid has " +
                    FormatDouble(points));
  return axes;
}

std::vector<double> GridValues(const std::vector<GridAxis>& axes, size_t index) {
  std::vector<double> values(axes.size());
  for (size_t a = axes.size(); a-- > 0;) {  // the last axis varies fastest
    values[a] = axes[a].values[index % axes[a].values.size()];
    index /= axes[a].values.size();
  }
  return values;
}

std::vector<std::vector<double>> GridPostures(const Model& model, const std::vector<double>& base_q,
                                              const std::vector<GridAxis>& axes) {
  std::vector<std::vector<double>> out = {base_q};
  for (const GridAxis& axis : axes) {  // the first axis ends up varying slowest
    std::vector<std::vector<double>> next;
    next.reserve(out.size() * axis.values.size());
    for (const std::vector<double>& q : out)
      for (double value : axis.values) {
        next.push_back(q);
        next.back()[axis.index] = CoordinateFromFileUnits(model, axis.index, value);
      }
    out = std::move(next);
  }
  return out;
}

}  // namespace frfit
