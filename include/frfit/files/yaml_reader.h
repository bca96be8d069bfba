// Strict reading of YAML mappings: every key must be known, every number finite, and every error
// names the file, the dotted field path and the line, then says what was expected.
#pragma once

#include <yaml-cpp/yaml.h>

#include <array>
#include <initializer_list>
#include <string>
#include <vector>

namespace frfit {

class YamlReader {
 public:
  // Parses `path`; a missing file, a directory, a syntax error, a key given twice in one
  // mapping (YAML forbids it; yaml-cpp would keep both, and readers disagree on which wins), a
  // document whose aliases expand past max(1 000 000, 2 × its bytes) nodes (a "billion laughs"
  // bomb) or one nested more than 256 deep, aliases followed, throws Error naming the file.
  // Every YAML input of frfit is read through here (docs/input-checks.md).
  static YAML::Node LoadFile(const std::string& path);
  // The same for text held in memory; `source` names it in messages.
  static YAML::Node LoadText(const std::string& text, const std::string& source);

  explicit YamlReader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  // Throws unless `node` is a mapping whose keys are all in `allowed`.
  void RequireMap(const YAML::Node& node, const std::string& path,
                  std::initializer_list<const char*> allowed) const;
  void RequireSequence(const YAML::Node& node, const std::string& path) const;
  // node[key] must exist.
  YAML::Node Child(const YAML::Node& map, const std::string& key, const std::string& path) const;
  bool Has(const YAML::Node& map, const std::string& key) const;

  double Number(const YAML::Node& node, const std::string& path) const;   // finite double
  double Positive(const YAML::Node& node, const std::string& path) const;  // finite, > 0
  int Integer(const YAML::Node& node, const std::string& path) const;
  bool Boolean(const YAML::Node& node, const std::string& path) const;
  std::string String(const YAML::Node& node, const std::string& path) const;
  std::array<double, 3> Vector3(const YAML::Node& node, const std::string& path) const;
  std::vector<double> Numbers(const YAML::Node& node, const std::string& path) const;

  // Error at `node` (its line when known): "file: path (line N): message".
  [[noreturn]] void Fail(const YAML::Node& node, const std::string& path,
                         const std::string& message) const;

 private:
  std::string file_;
};

// "a.b" + "c" → "a.b.c"; "a" + 3 → "a[3]".
std::string JoinPath(const std::string& path, const std::string& key);
std::string JoinPath(const std::string& path, size_t index);

}  // namespace frfit
