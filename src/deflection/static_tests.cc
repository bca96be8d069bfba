#include "frfit/deflection/static_tests.h"

#include "frfit/common/error.h"
#include "frfit/files/yaml_reader.h"

namespace frfit {
namespace {

Eigen::Vector3d Vector(const YamlReader& r, const YAML::Node& node, const std::string& path) {
  const std::array<double, 3> v = r.Vector3(node, path);
  return {v[0], v[1], v[2]};
}

StaticTest ParseTest(const YamlReader& r, const YAML::Node& node, const std::string& path) {
  r.RequireMap(node, path, {"posture", "force", "displacement"});
  StaticTest t;
  t.line = node.Mark().line + 1;
  t.posture = r.String(r.Child(node, "posture", path), JoinPath(path, "posture"));
  const std::string fpath = JoinPath(path, "force");
  const YAML::Node force = r.Child(node, "force", path);
  r.RequireMap(force, fpath, {"frame", "n"});
  if (r.Has(force, "frame")) t.force_frame = r.String(force["frame"], JoinPath(fpath, "frame"));
  t.force_n = Vector(r, r.Child(force, "n", fpath), JoinPath(fpath, "n"));
  if (t.force_n.norm() == 0.0) r.Fail(force["n"], JoinPath(fpath, "n"), "expected a non-zero force");
  const std::string dpath = JoinPath(path, "displacement");
  const YAML::Node displacement = r.Child(node, "displacement", path);
  r.RequireMap(displacement, dpath, {"frame", "m", "std_m"});
  if (r.Has(displacement, "frame"))
    t.displacement_frame = r.String(displacement["frame"], JoinPath(dpath, "frame"));
  t.displacement_m = Vector(r, r.Child(displacement, "m", dpath), JoinPath(dpath, "m"));
  // One σ for the three components, or one each.
  const YAML::Node std_node = r.Child(displacement, "std_m", dpath);
  const std::string spath = JoinPath(dpath, "std_m");
  t.std_m = std_node.IsSequence() ? Vector(r, std_node, spath)
                                  : Eigen::Vector3d::Constant(r.Positive(std_node, spath));
  if (!(t.std_m.minCoeff() > 0.0))
    r.Fail(std_node, spath, "expected standard deviations > 0 m");
  return t;
}

StaticTests Parse(const YAML::Node& root, const std::string& source) {
  const YamlReader r(source);
  r.RequireMap(root, "", {"format", "description", "tests"});
  const std::string format = r.String(r.Child(root, "format", ""), "format");
  if (format != "frfit-static-1")
    r.Fail(root["format"], "format", "expected frfit-static-1, got '" + format + "'");
  StaticTests out;
  out.source = source;
  if (r.Has(root, "description")) out.description = r.String(root["description"], "description");
  const YAML::Node tests = r.Child(root, "tests", "");
  r.RequireSequence(tests, "tests");
  if (tests.size() == 0) r.Fail(tests, "tests", "expected at least one test");
  for (size_t i = 0; i < tests.size(); ++i)
    out.tests.push_back(ParseTest(r, tests[i], JoinPath("tests", i)));
  return out;
}

}  // namespace

StaticTests LoadStaticTests(const std::string& path) {
  return Parse(YamlReader::LoadFile(path), path);
}

StaticTests ParseStaticTests(const std::string& text, const std::string& source) {
  return Parse(YamlReader::LoadText(text, source), source);
}

}  // namespace frfit
