#include "frfit/files/yaml_reader.h"

#include <yaml-cpp/depthguard.h>  // YAML::DeepRecursion (not in yaml.h)

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/common/hashing.h"

namespace frfit {

std::string JoinPath(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string JoinPath(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

namespace {

// What a document may expand to, aliases followed (every reader follows them: an aliased node is
// read once per reference). A "billion laughs" text of a few hundred bytes nests aliases nine deep
// and expands to 10^9 nodes; a walk over it never ends. A text without aliases expands to no more
// nodes than twice its bytes (the densest, `[:,:,…]`, has three nodes in two bytes), so twice the
// size in bytes lets every such document through, however large, and aliases at most double the
// work of reading; the floor of 1 000 000 nodes (about 10 MB of YAML without aliases, a
// fraction of a second to walk) leaves room for any sane use of anchors in a small file: the
// bundled models, configurations and manifests have at most a few hundred nodes.
constexpr size_t kMinNodeBudget = 1000000;
// Nesting, aliases followed. yaml-cpp's parser stops at a depth of its own (its recursion); an
// alias of a deep node inside another deep node nests deeper than any text, and code that walks
// a document recursively (yaml-cpp's emitter, which frfit-make-fleet uses on models) would
// overflow the stack. Far deeper than any frfit file (a model nests 5 deep), as for URDF's XML.
constexpr int kMaxYamlDepth = 256;

std::string DepthMessage() {
  return "expected YAML nested at most " + std::to_string(kMaxYamlDepth) +
         " deep (aliases followed); this document nests deeper (not read)";
}

// Walks the document as a reader would, every alias followed, counting the nodes it reaches and
// stopping at the first node past the budget or past the depth: the walk itself is linear in the
// work allowed. Runs before anything else walks the document (RequireUniqueKeys, the readers).
void RequireBoundedExpansion(const YAML::Node& root, size_t text_bytes, const std::string& source) {
  const size_t budget = std::max(kMinNodeBudget, 2 * text_bytes);
  size_t reached = 1;
  std::vector<std::pair<YAML::Node, int>> pending = {{root, 1}};
  auto reach = [&](const YAML::Node& node, int depth) {
    if (++reached > budget)
      throw Error(source, "",
                  "expected a document whose aliases expand to at most " + std::to_string(budget) +
                      " nodes; this one expands to more (nested aliases: a 'billion laughs' "
                      "document?) (not read)");
    if (depth > kMaxYamlDepth) {
      const int line = node.Mark().line;
      throw Error(source, line >= 0 ? "line " + std::to_string(line + 1) : "", DepthMessage());
    }
    pending.emplace_back(node, depth);
  };
  while (!pending.empty()) {
    const auto [node, depth] = pending.back();
    pending.pop_back();
    if (node.IsSequence()) {
      for (const auto& item : node) reach(item, depth + 1);
    } else if (node.IsMap()) {
      for (const auto& item : node) {  // keys too: a key may be a collection, or an alias of one
        reach(item.first, depth + 1);
        reach(item.second, depth + 1);
      }
    }
  }
}

// Every mapping of the document, depth first, without recursion (a document may nest deeply): its
// keys text (a list or mapping as a key, `[a, b]: 1` or `? {a: 1}`, made the readers' key lookups
// throw yaml-cpp's bare "bad conversion"), each given once.
void RequireUniqueKeys(const YAML::Node& root, const std::string& source) {
  std::vector<std::pair<YAML::Node, std::string>> pending = {{root, ""}};
  while (!pending.empty()) {
    const auto [node, path] = pending.back();
    pending.pop_back();
    if (node.IsSequence()) {
      for (size_t i = 0; i < node.size(); ++i) pending.emplace_back(node[i], JoinPath(path, i));
    } else if (node.IsMap()) {
      std::map<std::string, int> first_line;
      for (const auto& item : node) {
        const std::string key = item.first.IsScalar() ? item.first.Scalar() : "";
        const int line = item.first.Mark().line + 1;
        if (item.first.IsSequence() || item.first.IsMap())
          throw Error(source, (path.empty() ? "" : path + " ") + "(line " + std::to_string(line) + ")",
                      std::string("expected text keys in a mapping, got a ") +
                          (item.first.IsMap() ? "mapping" : "list") + " as a key");
        if (item.first.IsScalar()) {
          const auto [it, fresh] = first_line.emplace(key, line);
          if (!fresh)
            throw Error(source, JoinPath(path, key) + " (line " + std::to_string(line) + ")",
                        "given twice (first at line " + std::to_string(it->second) +
                            "); expected each key once in a mapping");
        }
        pending.emplace_back(item.second, JoinPath(path, key));
      }
    }
  }
}

}  // namespace

YAML::Node YamlReader::LoadText(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // The parser's own limit (deeper than kMaxYamlDepth): the same message as a deep alias.
    throw Error(source, "line " + std::to_string(e.mark.line + 1), DepthMessage());
  } catch (const YAML::Exception& e) {
    throw Error(source, "",
                "not valid YAML (line " + std::to_string(e.mark.line + 1) + "): " + e.msg);
  }
  RequireBoundedExpansion(root, text.size(), source);
  RequireUniqueKeys(root, source);
  return root;
}

YAML::Node YamlReader::LoadFile(const std::string& path) {
  return LoadText(ReadFileBytes(path), path);
}

void YamlReader::Fail(const YAML::Node& node, const std::string& path,
                      const std::string& message) const {
  std::string where = path;
  if (node.IsDefined() && node.Mark().line >= 0)
    where += " (line " + std::to_string(node.Mark().line + 1) + ")";
  throw Error(file_, where, message);
}

void YamlReader::RequireMap(const YAML::Node& node, const std::string& path,
                            std::initializer_list<const char*> allowed) const {
  if (!node.IsMap()) Fail(node, path, "expected a mapping of keys to values");
  for (const auto& item : node) {
    const std::string key = item.first.as<std::string>();
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      Fail(item.first, JoinPath(path, key), "unknown key (expected one of: " + list + ")");
    }
  }
}

void YamlReader::RequireSequence(const YAML::Node& node, const std::string& path) const {
  if (!node.IsSequence()) Fail(node, path, "expected a list");
}

bool YamlReader::Has(const YAML::Node& map, const std::string& key) const {
  return map.IsMap() && map[key].IsDefined() && !map[key].IsNull();
}

YAML::Node YamlReader::Child(const YAML::Node& map, const std::string& key,
                             const std::string& path) const {
  if (!Has(map, key)) Fail(map, JoinPath(path, key), "missing (required)");
  return map[key];
}

double YamlReader::Number(const YAML::Node& node, const std::string& path) const {
  if (!node.IsScalar()) Fail(node, path, "expected a number");
  double value;
  try {
    value = node.as<double>();
  } catch (const YAML::Exception&) {
    Fail(node, path, "expected a number, got '" + node.Scalar() + "'");
  }
  if (!std::isfinite(value)) Fail(node, path, "expected a finite number, got " + node.Scalar());
  return value;
}

double YamlReader::Positive(const YAML::Node& node, const std::string& path) const {
  const double value = Number(node, path);
  if (!(value > 0.0)) Fail(node, path, "expected a positive number, got " + node.Scalar());
  return value;
}

int YamlReader::Integer(const YAML::Node& node, const std::string& path) const {
  const double value = Number(node, path);
  if (value != std::floor(value) || std::fabs(value) > 2e9)
    Fail(node, path, "expected an integer, got " + node.Scalar());
  return static_cast<int>(value);
}

bool YamlReader::Boolean(const YAML::Node& node, const std::string& path) const {
  if (!node.IsScalar()) Fail(node, path, "expected true or false");
  try {
    return node.as<bool>();
  } catch (const YAML::Exception&) {
    Fail(node, path, "expected true or false, got '" + node.Scalar() + "'");
  }
}

std::string YamlReader::String(const YAML::Node& node, const std::string& path) const {
  if (!node.IsScalar()) Fail(node, path, "expected a text value");
  return node.Scalar();
}

std::array<double, 3> YamlReader::Vector3(const YAML::Node& node, const std::string& path) const {
  if (!node.IsSequence() || node.size() != 3)
    Fail(node, path, "expected a list of 3 numbers [x, y, z]");
  return {Number(node[0], JoinPath(path, 0)), Number(node[1], JoinPath(path, 1)),
          Number(node[2], JoinPath(path, 2))};
}

std::vector<double> YamlReader::Numbers(const YAML::Node& node, const std::string& path) const {
  RequireSequence(node, path);
  std::vector<double> values;
  for (size_t i = 0; i < node.size(); ++i) values.push_back(Number(node[i], JoinPath(path, i)));
  return values;
}

}  // namespace frfit
