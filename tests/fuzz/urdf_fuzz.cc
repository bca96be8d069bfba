// Bounded, seeded mutation fuzzing of the URDF import (built with -fsanitize=address,undefined;
// the loop and the checks: fuzz_harness.h, docs/fuzzing.md): the YAML overlay mutated with its
// URDF intact ("overlay"), and the URDF mutated under its intact overlay ("urdf"). Seeds:
// datasets/paper_3dof/model_urdf.yaml + robot.urdf and tests/data/fuzz/overlay_mixed.yaml +
// robot_mixed.urdf (every joint type, a mimic joint, a link without inertia). Each input must be
// read or refused with frfit::Error within its time budget (liburdfdom's own messages are
// captured, never printed); a model that is read is linearised at its postures (up to three).
//   usage: urdf_fuzz SOURCE_DIR [ITERATIONS=20000] [SEED=1]
//          urdf_fuzz --replay FILE KIND SOURCE_DIR   (KIND: overlay_<n> or urdf_<n>, n a seed pair)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/model/urdf.h"
#include "frfit/posture/posture.h"
#include "fuzz_harness.h"

// liburdfdom links a malformed robot's links and joints into cycles of shared pointers (a link its
// own child), which are never freed: its leak, bounded by the document, not frfit's.
extern "C" const char* __lsan_default_suppressions() { return "leak:liburdfdom_model\n"; }

namespace {

namespace fs = std::filesystem;
using namespace frfit;
using fuzz::Input;

const std::vector<std::string> kOverlayTokens = {
    ":", ": ", "- ", "[", "]", "{", "}", ", ", "&a ", "*a", "&a [*a]",
    "[*a, *a, *a, *a, *a, *a, *a, *a]", "? ", "!!binary ", "|\n  ", "'", "\"", "~", ".nan",
    ".inf", "1e999", "-0", "joint1", "joint2", "j1", "j4", "j5", "j6", "link3", "tool", "base",
    "axis: x", "axis: y", "axis: w", "translational", "rotational", "xyz", "rpy_deg", "flexible",
    "dofs", "urdf: ", "robot.urdf", "/dev/null", "..", "sensor", "postures", "structural",
    "rayleigh", "loss_factor", "frfit-urdf-overlay-1", "\xEF\xBB\xBF", "\xFF"};

const std::vector<std::string> kUrdfTokens = {
    "<", ">", "/>", "</link>", "</joint>", "<link name=\"x\"/>", "<link name=\"l1\"/>",
    "<joint name=\"j\" type=\"revolute\">", "type=\"continuous\"", "type=\"prismatic\"",
    "type=\"fixed\"", "type=\"floating\"", "type=\"planar\"", "type=\"bogus\"",
    "<mimic joint=\"joint2\" multiplier=\"nan\"/>", "<mimic joint=\"j5\"/>", "<axis xyz=\"0 0 0\"/>",
    "xyz=\"nan 0 0\"", "xyz=\"1e308 1e308 1e308\"", "rpy=\"1e308 0 0\"", "xyz=\"1 2\"",
    "<inertial>", "</inertial>", "<mass value=\"-1\"/>", "<mass value=\"1e-300\"/>",
    "<inertia ixx=\"-1\" ixy=\"0\" ixz=\"0\" iyy=\"0\" iyz=\"0\" izz=\"0\"/>", "<!--", "-->",
    "<![CDATA[", "]]>", "&amp;", "&#0;", "&#x110000;", "<!DOCTYPE r [<!ENTITY a \"aaaaaaaa\">]>",
    "&a;", "<?xml version=\"1.0\"?>", "<parent link=\"link3\"/>", "<child link=\"base_link\"/>",
    "<parent link=\"tool\"/>", "<child link=\"base\"/>", "\"", "'", "=", " ", "\n", "\xFF",
    "<robot name=\"r\">", "</robot>", "<a><a><a><a><a><a><a><a><a><a><a><a><a><a><a><a>",
    "%s%s%s%s%s%s%s%s%n", "&#37;s&#x25;s&#37;n", "<material name=\"m%s\"><color rgba=\"1 %s\"/></material>",
    "<visual><geometry><cylinder length=\"%s\" radius=\"1\"/></geometry></visual>"};

// A seed pair: an overlay and the URDF it names, as found in the source tree.
struct Pair {
  std::string overlay, urdf_name, urdf;
};

struct Context {
  std::vector<Pair> pairs;
  fs::path scratch;
};

void Read(const Input& input, const Context& context) {
  const size_t underscore = input.kind.find('_');
  const std::string what = input.kind.substr(0, underscore);
  const Pair& pair = context.pairs.at(std::stoul(input.kind.substr(underscore + 1)));
  const fs::path dir = context.scratch / input.kind;
  fs::create_directories(dir);
  std::string overlay = pair.overlay;
  if (what == "overlay") overlay = input.bytes;
  fuzz::WriteBytes(dir / pair.urdf_name, what == "urdf" ? input.bytes : pair.urdf);
  const Model model = ParseUrdfOverlayText(overlay, "fuzz_overlay.yaml", dir.string());
  int linearised = 0;
  for (const PostureSpec& p : model.postures) {
    if (linearised++ == 3) break;
    try {
      Linearize(model, p.name);
    } catch (const Error&) {
    }
  }
}

std::vector<Input> Seeds(const fs::path& source, Context* context) {
  context->pairs = {
      {fuzz::ReadBytes(source / "datasets/paper_3dof/model_urdf.yaml"), "robot.urdf",
       fuzz::ReadBytes(source / "datasets/paper_3dof/robot.urdf")},
      {fuzz::ReadBytes(source / "tests/data/fuzz/overlay_mixed.yaml"), "robot_mixed.urdf",
       fuzz::ReadBytes(source / "tests/data/fuzz/robot_mixed.urdf")}};
  std::vector<Input> seeds;
  for (size_t i = 0; i < context->pairs.size(); ++i) {
    seeds.push_back({"overlay_" + std::to_string(i), context->pairs[i].overlay});
    seeds.push_back({"urdf_" + std::to_string(i), context->pairs[i].urdf});
  }
  return seeds;
}

}  // namespace

int main(int argc, char** argv) {
  const bool replay = argc > 1 && std::string(argv[1]) == "--replay";
  if ((replay && argc < 5) || argc < 2) {
    std::fprintf(stderr, "usage: urdf_fuzz SOURCE_DIR [ITERATIONS] [SEED]\n"
                         "       urdf_fuzz --replay FILE KIND SOURCE_DIR\n");
    return 2;
  }
  Context context;
  context.scratch = fs::temp_directory_path() / ("urdf_fuzz_" + std::to_string(::getpid()));
  const std::vector<Input> seeds = Seeds(replay ? argv[4] : argv[1], &context);
  const auto read = [&](const Input& input) { Read(input, context); };
  int status;
  if (replay) {
    status = fuzz::Replay("urdf_fuzz", argv[2], argv[3], read);
  } else {
    fuzz::LoopOptions options;
    options.target = "urdf_fuzz";
    options.extension = "txt";
    options.iterations = argc > 2 ? std::atol(argv[2]) : 20000;
    options.seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
    status = fuzz::RunLoop(
        options, seeds,
        [](const Input& seed, std::mt19937_64& rng) {
          return fuzz::MutateText(seed.bytes, rng,
                                  seed.kind.rfind("urdf", 0) == 0 ? kUrdfTokens : kOverlayTokens);
        },
        read);
  }
  fs::remove_all(context.scratch);
  return status;
}
