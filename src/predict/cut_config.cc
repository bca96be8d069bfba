#include "frfit/predict/cut_config.h"

#include "frfit/common/error.h"
#include "frfit/files/yaml_reader.h"

namespace frfit {
namespace {

int Axis(const YamlReader& r, const YAML::Node& node, const std::string& key) {
  const std::string text = r.String(node, key);
  if (text == "x") return 0;
  if (text == "y") return 1;
  if (text == "z") return 2;
  r.Fail(node, key, "expected x, y or z (an axis of the sensor frame), got '" + text + "'");
}

CutConfig Parse(const YAML::Node& root, const std::string& source) {
  const YamlReader r(source);
  r.RequireMap(root, "",
               {"format", "description", "teeth", "entry_angle_deg", "exit_angle_deg",
                "kt_n_per_m2", "kr_ratio", "tool_axis", "feed_axis", "spindle_speed_rpm",
                "speed_points", "lobes"});
  CutConfig c;
  c.source = source;
  const std::string format = r.String(r.Child(root, "format", ""), "format");
  if (format != "frfit-cut-1")
    r.Fail(root["format"], "format", "expected frfit-cut-1, got '" + format + "'");
  if (r.Has(root, "description")) c.description = r.String(root["description"], "description");
  c.teeth = r.Integer(r.Child(root, "teeth", ""), "teeth");
  if (c.teeth < 1 || c.teeth > 1000)
    r.Fail(root["teeth"], "teeth", "expected an integer from 1 to 1000, got " + root["teeth"].Scalar());
  c.entry_angle_deg = r.Number(r.Child(root, "entry_angle_deg", ""), "entry_angle_deg");
  c.exit_angle_deg = r.Number(r.Child(root, "exit_angle_deg", ""), "exit_angle_deg");
  if (c.entry_angle_deg < 0.0 || c.entry_angle_deg >= 180.0)
    r.Fail(root["entry_angle_deg"], "entry_angle_deg",
           "expected degrees in [0, 180) (0: up milling), got " + root["entry_angle_deg"].Scalar());
  if (c.exit_angle_deg <= c.entry_angle_deg || c.exit_angle_deg > 180.0) {
    // Appended piece by piece: "literal" + std::string&& makes GCC 12 warn -Wrestrict (bug 105329).
    std::string message = "expected degrees above entry_angle_deg (";
    message += FormatDouble(c.entry_angle_deg);
    message += ") and at most 180 (180: down milling), got ";
    message += root["exit_angle_deg"].Scalar();
    r.Fail(root["exit_angle_deg"], "exit_angle_deg", message);
  }
  c.kt_n_per_m2 = r.Positive(r.Child(root, "kt_n_per_m2", ""), "kt_n_per_m2");
  c.kr_ratio = r.Number(r.Child(root, "kr_ratio", ""), "kr_ratio");
  if (c.kr_ratio < 0.0 || c.kr_ratio > 10.0)
    r.Fail(root["kr_ratio"], "kr_ratio", "expected K_r/K_t from 0 to 10, got " + root["kr_ratio"].Scalar());
  c.tool_axis = Axis(r, r.Child(root, "tool_axis", ""), "tool_axis");
  c.feed_axis = Axis(r, r.Child(root, "feed_axis", ""), "feed_axis");
  if (c.feed_axis == c.tool_axis)
    r.Fail(root["feed_axis"], "feed_axis",
           "expected an axis other than tool_axis (the feed lies in the cutting plane), got '" +
               root["feed_axis"].Scalar() + "'");
  c.normal_axis = 3 - c.tool_axis - c.feed_axis;
  const YAML::Node speeds = r.Child(root, "spindle_speed_rpm", "");
  const std::vector<double> range = r.Numbers(speeds, "spindle_speed_rpm");
  if (range.size() != 2 || !(range[0] > 0.0) || !(range[1] > range[0]) || range[1] > 1e7) {
    std::string message = "expected [min, max] in rpm with 0 < min < max <= 1e7, got ";
    if (range.size() == 2) {
      message += "[";
      message += FormatDouble(range[0]);
      message += ", ";
      message += FormatDouble(range[1]);
      message += "]";
    } else {
      message += std::to_string(range.size());
      message += " values";
    }
    r.Fail(speeds, "spindle_speed_rpm", message);
  }
  c.speed_min_rpm = range[0];
  c.speed_max_rpm = range[1];
  if (r.Has(root, "speed_points")) {
    c.speed_points = r.Integer(root["speed_points"], "speed_points");
    if (c.speed_points < 2 || c.speed_points > 1000000)
      r.Fail(root["speed_points"], "speed_points",
             "expected an integer from 2 to 1000000, got " + root["speed_points"].Scalar());
  }
  if (r.Has(root, "lobes")) {
    c.max_lobes = r.Integer(root["lobes"], "lobes");
    if (c.max_lobes < 1 || c.max_lobes > 5000)
      r.Fail(root["lobes"], "lobes", "expected an integer from 1 to 5000, got " + root["lobes"].Scalar());
  }
  return c;
}

}  // namespace

std::string CutConfig::Milling() const {
  const bool up = entry_angle_deg == 0.0, down = exit_angle_deg == 180.0;
  return up && down ? "slot" : up ? "up" : down ? "down" : "partial";
}

CutConfig LoadCutConfig(const std::string& path) { return Parse(YamlReader::LoadFile(path), path); }

CutConfig ParseCutConfig(const std::string& text, const std::string& source) {
  return Parse(YamlReader::LoadText(text, source), source);
}

}  // namespace frfit
