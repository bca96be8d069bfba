// The UFF mapping file (docs/uff.md): which nodes are the sensor and the excitation point, how
// direction codes map onto the sensor axes, and which dataset-58 records to use.
#include "frfit/common/error.h"
#include "frfit/io/uff.h"
#include "frfit/files/yaml_reader.h"

namespace frfit::uff {

Mapping ReadMapping(const std::string& path) {
  const YAML::Node root = YamlReader::LoadFile(path);
  const YamlReader r(path);
  r.RequireMap(root, "", {"sensor_node", "excitation_node", "response_frame", "excitation_frame",
                          "nodes", "directions", "records", "averages"});
  Mapping m = DefaultMapping();
  m.source = path;
  if (r.Has(root, "sensor_node")) m.sensor_node = r.Integer(root["sensor_node"], "sensor_node");
  if (r.Has(root, "excitation_node"))
    m.excitation_node = r.Integer(root["excitation_node"], "excitation_node");
  if (r.Has(root, "response_frame"))
    m.response_frame = r.String(root["response_frame"], "response_frame");
  if (r.Has(root, "excitation_frame"))
    m.excitation_frame = r.String(root["excitation_frame"], "excitation_frame");
  if (r.Has(root, "nodes")) {
    const YAML::Node nodes = root["nodes"];
    if (!nodes.IsMap()) r.Fail(nodes, "nodes", "expected a mapping {node id: model frame}");
    for (const auto& kv : nodes) {
      const std::string key_path = JoinPath("nodes", kv.first.Scalar());
      const long node = r.Integer(kv.first, key_path);
      if (node < 1) r.Fail(kv.first, key_path, "expected a node id >= 1");
      m.node_frames[node] = r.String(kv.second, key_path);
    }
  }
  if (r.Has(root, "directions")) {
    const YAML::Node d = root["directions"];
    if (!d.IsMap()) r.Fail(d, "directions", "expected a mapping {direction code: axis}");
    for (const auto& kv : d) {
      const std::string key_path = JoinPath("directions", kv.first.Scalar());
      const int code = r.Integer(kv.first, key_path);
      if (code < -6 || code > 6) r.Fail(kv.first, key_path, "expected a direction code -6..6");
      std::string axis = r.String(kv.second, key_path);
      int sign = 1;
      if (!axis.empty() && (axis[0] == '+' || axis[0] == '-')) sign = axis[0] == '-' ? -1 : 1, axis.erase(0, 1);
      if (axis != "x" && axis != "y" && axis != "z")
        r.Fail(kv.second, key_path, "expected x, y, z with an optional sign (+x, -z), got '" +
                                        r.String(kv.second, key_path) + "'");
      m.directions[code] = {axis[0] - 'x', sign};
    }
  }
  if (r.Has(root, "records")) {
    const YAML::Node list = root["records"];
    r.RequireSequence(list, "records");
    for (size_t k = 0; k < list.size(); ++k) {
      const int rec = r.Integer(list[k], JoinPath("records", k));
      if (rec < 1) r.Fail(list[k], JoinPath("records", k), "expected a record number >= 1");
      m.records.push_back(rec);
    }
  }
  if (r.Has(root, "averages")) {
    const int n = r.Integer(root["averages"], "averages");
    if (n < 1 || n > 1000000) r.Fail(root["averages"], "averages", "expected an integer in [1, 1000000]");
    m.averages = n;
  }
  return m;
}

}  // namespace frfit::uff
