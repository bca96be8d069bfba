// The shared YAML loading (files/yaml_reader.h) every YAML input goes through: documents whose
// aliases expand without bound, nest too deep or use collections as keys are refused with
// frfit::Error before any reader walks them; anchors and aliases in sane use still read, and so
// does a large document without aliases. The command-line cases are in cli/input_checks_test.cc.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "frfit/common/error.h"
#include "frfit/fit/fit_options.h"
#include "frfit/files/yaml_reader.h"
#include "frfit/model/model_yaml.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kRoot = FRFIT_SOURCE_DIR;

// Expects LoadText to throw frfit::Error whose message holds `expected`, within a second.
void ExpectRefused(const std::string& text, const std::string& expected) {
  const auto start = std::chrono::steady_clock::now();
  try {
    YamlReader::LoadText(text, "doc.yaml");
    ADD_FAILURE() << "read, expected an Error with '" << expected << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}

// `levels` anchors, each a list of `width` aliases of the one before: width^levels leaves.
std::string Laughs(int levels, int width) {
  std::string text = "l0: &a0 lol\n";
  for (int k = 1; k <= levels; ++k) {
    text += "l" + std::to_string(k) + ": &a" + std::to_string(k) + " [";
    for (int i = 0; i < width; ++i) text += (i ? ", *a" : "*a") + std::to_string(k - 1);
    text += "]\n";
  }
  return text;
}

TEST(YamlReader, BillionLaughsIsRefused) {
  ExpectRefused(Laughs(9, 9),
                "doc.yaml: expected a document whose aliases expand to at most 1000000 nodes");
  // Keys are walked too: a mapping key can be an alias of a bomb.
  ExpectRefused(Laughs(9, 9) + "m: {*a9 : 1}\n", "aliases expand to at most 1000000 nodes");
}

TEST(YamlReader, AliasesExpandingJustBelowTheBoundAreRead) {
  // 10^5 leaves, plus their lists and the anchors' keys: a few times 10^5 nodes.
  EXPECT_NO_THROW(YamlReader::LoadText(Laughs(5, 10), "doc.yaml"));
}

TEST(YamlReader, AliasOfItsOwnAnchorIsRefused) {
  // yaml-cpp builds a cycle from these: a walk of it never ends. It is infinitely deep, so the
  // depth bound (reached long before the node budget) refuses it.
  ExpectRefused("a: &a [*a]\n", "doc.yaml: line 1: expected YAML nested at most 256 deep");
  ExpectRefused("a: &a {b: *a}\n", "doc.yaml: line 1: expected YAML nested at most 256 deep");
}

TEST(YamlReader, DeepNestingIsRefused) {
  ExpectRefused("a: " + std::string(100000, '[') + std::string(100000, ']') + "\n",
                "doc.yaml: line 1: expected YAML nested at most 256 deep (aliases followed)");
  ExpectRefused(std::string(300, '[') + std::string(300, ']'), "nested at most 256 deep");
  std::string maps = "a: ";
  for (int k = 0; k < 300; ++k) maps += "{a: ";
  ExpectRefused(maps + "1" + std::string(300, '}') + "\n", "nested at most 256 deep");
  // 250 levels of text are fine; an alias of them inside 250 more is not.
  const std::string deep = std::string(250, '[') + "x" + std::string(250, ']');
  EXPECT_NO_THROW(YamlReader::LoadText("a: " + deep + "\n", "doc.yaml"));
  ExpectRefused("a: &d " + deep + "\nb: " + std::string(250, '[') + "*d" + std::string(250, ']') + "\n",
                "nested at most 256 deep");
}

TEST(YamlReader, LargeDocumentWithoutAliasesIsRead) {
  // 1.1 million nodes, past the 1 000 000 floor: the bound grows with the text (2 per byte).
  std::string text = "[0";
  for (int i = 1; i < 1100000; ++i) text += ",0";
  EXPECT_EQ(YamlReader::LoadText(text + "]", "doc.yaml").size(), 1100000u);
}

// yaml_fuzz found these: a tag glued to a key ("!damping: {...}") made a mapping a key, and the
// readers' key lookups threw yaml-cpp's bare "bad conversion", naming no file.
TEST(YamlReader, CollectionAsKeyIsRefused) {
  ExpectRefused("a:\n  [x, y]: 1\n", "doc.yaml: a (line 2): expected text keys in a mapping, got a list as a key");
  ExpectRefused("? {x: 1}\n: 2\n", "doc.yaml: (line 1): expected text keys in a mapping, got a mapping as a key");
  std::string model = test::ReadText(kRoot + "/datasets/paper_3dof/model.yaml");
  const size_t at = model.find(", damping: {initial: 300");
  ASSERT_NE(at, std::string::npos);
  model.replace(at, 10, ",!damping:");
  try {
    ParseModelText(model, "model.yaml");
    ADD_FAILURE() << "read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("model.yaml: dofs[0] (line 12): expected text keys"),
              std::string::npos)
        << e.what();
  }
}

TEST(YamlReader, AnchorsAndAliasesInSaneUseAreRead) {
  // The paper's model with its bounds shared through anchors (a seed of yaml_fuzz).
  const Model anchored = LoadModel(kRoot + "/tests/data/fuzz/model_anchors.yaml");
  const Model plain = LoadModel(kRoot + "/datasets/paper_3dof/model.yaml");
  ASSERT_EQ(anchored.num_parameters(), plain.num_parameters());
  for (int i = 0; i < plain.num_parameters(); ++i) {
    EXPECT_EQ(anchored.parameters[i].name, plain.parameters[i].name);
    EXPECT_EQ(anchored.parameters[i].bounds.min, plain.parameters[i].bounds.min);
    EXPECT_EQ(anchored.parameters[i].bounds.max, plain.parameters[i].bounds.max);
  }
}

}  // namespace
}  // namespace frfit
