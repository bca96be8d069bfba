// datasets/free_free_beam's model text with its bar cut into more elements than the file's 4: a
// free base past the kernels' reduction threshold, for the tests of its reduction and of the
// emulated cuda launches on its packed problem.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace frfit::test {

inline const std::string kFreeBarDir = std::string(FRFIT_SOURCE_DIR) + "/datasets/free_free_beam/";

inline std::string RefinedFreeBarYaml(int elements) {
  std::ifstream in(kFreeBarDir + "model.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string from = "elements: 4";
  const size_t at = yaml.find(from);
  EXPECT_NE(at, std::string::npos) << "the dataset's bar is no longer 4 elements";
  if (at != std::string::npos) yaml.replace(at, from.size(), "elements: " + std::to_string(elements));
  return yaml;
}

}  // namespace frfit::test
