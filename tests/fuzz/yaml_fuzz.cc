// Bounded, seeded mutation fuzzing of the YAML readers (built with -fsanitize=address,undefined;
// the loop and the checks: fuzz_harness.h, docs/fuzzing.md): models, fit configurations,
// parameter files and fleet manifests. Seeds are the bundled datasets' files and the manifests and
// anchored model of tests/data/fuzz; mutations are uff_fuzz's plus YAML's own tokens (anchors,
// aliases, flow brackets, tags, block scalars, special numbers) and whole lines duplicated,
// dropped or re-indented. Each input must be read or refused with frfit::Error within its time
// budget. What is read goes one step further: a model is linearised at its postures (up to three),
// a fit configuration is checked (IsValid) and written back as YAML, which must read back to the
// same text.
//   usage: yaml_fuzz SOURCE_DIR [ITERATIONS=20000] [SEED=1]
//          yaml_fuzz --replay FILE KIND SOURCE_DIR   (KIND: model, fit,
//                                                      params_<dataset>/<model stem>, manifest)
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fleet/fleet_manifest.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "fuzz_harness.h"

namespace {

namespace fs = std::filesystem;
using namespace frfit;
using fuzz::Input;

const std::vector<std::string> kTokens = {
    ":", ": ", "- ", "\n- ", "[", "]", "{", "}", ", ", "&a ", "*a", "&b ", "*b", "&a [*a]",
    "[*a, *a, *a, *a, *a, *a, *a, *a]", "&b [*a, *a, *a, *a, *a, *a, *a, *a]", "<<: *a", "? ",
    "!!str ", "!!int ", "!!binary ", "!<tag:yaml.org,2002:map> ", "|\n  ", ">-\n  ", "---\n",
    "\n...\n", "'", "\"", "\"\\u0000\"", "# ", "\t", "~", "null", ".nan", ".inf", "-.inf",
    "1e999", "-1e-999", "0x7fffffffffffffff", "99999999999999999999", "-0", "2147483648",
    "true", "no", "\xEF\xBB\xBF", "\r\n", "\xC3\xA9", "\xFF",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    "{a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: ",
    "k_z1", "z1", "milling", "name", "type", "rotational", "translational", "stiffness",
    "damping", "initial", "min", "max", "frames", "bodies", "dofs", "parent", "transforms",
    "robots", "frf", "seed", "previous", "warm_start", "weights", "band_hz", "postures"};

// Parameter files are read against their dataset's model: the reader's job is matching names.
struct Context {
  // "dataset/model stem" → model, the key of a parameter file's kind (params_<key>)
  std::map<std::string, std::shared_ptr<const Model>> models;
  fs::path scratch;                                            // where file readers read from
};

void ReadModel(const std::string& text) {
  const Model model = ParseModelText(text, "fuzz_model.yaml");
  int linearised = 0;
  for (const PostureSpec& p : model.postures) {
    if (linearised++ == 3) break;
    try {
      Linearize(model, p.name);
    } catch (const Error&) {  // a singular mass matrix at a posture is refused there, named
    }
  }
}

void ReadFitConfig(const std::string& text) {
  const FitOptions options = ParseFitOptionsText(text, "fuzz_fit.yaml");
  std::string error;
  options.IsValid(&error);
  const std::string yaml = FitOptionsToYaml(options);
  const std::string again = FitOptionsToYaml(ParseFitOptionsText(yaml, "fuzz_fit_again.yaml"));
  if (again != yaml) {
    std::fprintf(stderr, "yaml_fuzz: a fit configuration written back as YAML reads back "
                         "differently:\n--- written\n%s\n--- read back and written\n%s\n",
                 yaml.c_str(), again.c_str());
    fuzz::SaveCurrentInput();
    std::abort();
  }
}

void Read(const Input& input, const Context& context) {
  if (input.kind == "model") return ReadModel(input.bytes);
  if (input.kind == "fit") return ReadFitConfig(input.bytes);
  std::string file_name = "fuzz_" + input.kind + ".yaml";
  std::replace(file_name.begin(), file_name.end(), '/', '_');  // params_<dataset>/<model stem>
  const fs::path file = context.scratch / file_name;
  fuzz::WriteBytes(file, input.bytes);
  if (input.kind == "manifest") {
    LoadFleetManifest(file.string());
    return;
  }
  if (input.kind.rfind("params_", 0) == 0) {
    LoadParameters(file.string(), *context.models.at(input.kind.substr(7)));
    return;
  }
  std::fprintf(stderr, "yaml_fuzz: unknown kind '%s'\n", input.kind.c_str());
  std::exit(2);
}

// The model file a dataset's parameter file `params_stem` is read against: model_<x>.yaml when
// the stem is params_<x>_... (params_tool_78kg: model_tool.yaml), else model.yaml.
std::string ModelStemFor(const std::string& params_stem, const std::vector<std::string>& models) {
  for (const std::string& m : models)
    if (m != "model" && params_stem.rfind("params_" + m.substr(6) + "_", 0) == 0) return m;
  return "model";
}

// The bundled files by kind: datasets/*/model*.yaml in frfit's own format (and their parameter
// files, read against them), fit*.yaml, and tests/data/fuzz/*.yaml (manifests, a model with
// anchors).
std::vector<Input> Seeds(const fs::path& source, Context* context) {
  std::vector<Input> seeds;
  std::vector<fs::path> datasets;
  for (const auto& e : fs::directory_iterator(source / "datasets"))
    if (e.is_directory()) datasets.push_back(e.path());
  std::sort(datasets.begin(), datasets.end());  // the same seeds in the same order everywhere
  for (const fs::path& d : datasets) {
    const std::string name = d.filename().string();
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(d)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<std::string> models;  // stems of the frfit-model-1 files (not URDF overlays)
    for (const fs::path& f : files) {
      const std::string stem = f.stem().string();
      if (f.extension() != ".yaml" || stem.rfind("model", 0) != 0) continue;
      const std::string text = fuzz::ReadBytes(f);
      if (text.find("format: frfit-model-1") == std::string::npos) continue;
      models.push_back(stem);
      context->models[name + "/" + stem] = std::make_shared<Model>(LoadModel(f.string()));
      seeds.push_back({"model", text});
    }
    for (const fs::path& f : files) {
      const std::string stem = f.stem().string();
      if (f.extension() != ".yaml") continue;
      if (stem.rfind("fit", 0) == 0) seeds.push_back({"fit", fuzz::ReadBytes(f)});
      else if (stem.rfind("params", 0) == 0)
        seeds.push_back({"params_" + name + "/" + ModelStemFor(stem, models), fuzz::ReadBytes(f)});
    }
  }
  std::vector<fs::path> extra;
  for (const auto& e : fs::directory_iterator(source / "tests/data/fuzz")) extra.push_back(e.path());
  std::sort(extra.begin(), extra.end());
  for (const fs::path& f : extra) {
    const std::string stem = f.stem().string();
    if (f.extension() != ".yaml") continue;
    if (stem.rfind("fleet", 0) == 0) seeds.push_back({"manifest", fuzz::ReadBytes(f)});
    else if (stem.rfind("model", 0) == 0) seeds.push_back({"model", fuzz::ReadBytes(f)});
  }
  return seeds;
}

}  // namespace

int main(int argc, char** argv) {
  const bool replay = argc > 1 && std::string(argv[1]) == "--replay";
  if ((replay && argc < 5) || argc < 2) {
    std::fprintf(stderr, "usage: yaml_fuzz SOURCE_DIR [ITERATIONS] [SEED]\n"
                         "       yaml_fuzz --replay FILE KIND SOURCE_DIR\n");
    return 2;
  }
  Context context;
  context.scratch = fs::temp_directory_path() / ("yaml_fuzz_" + std::to_string(::getpid()));
  fs::create_directories(context.scratch);
  const fs::path source = replay ? argv[4] : argv[1];
  const std::vector<Input> seeds = Seeds(source, &context);
  const auto read = [&](const Input& input) { Read(input, context); };
  int status;
  if (replay) {
    status = fuzz::Replay("yaml_fuzz", argv[2], argv[3], read);
  } else {
    fuzz::LoopOptions options;
    options.target = "yaml_fuzz";
    options.extension = "yaml";
    options.iterations = argc > 2 ? std::atol(argv[2]) : 20000;
    options.seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
    status = fuzz::RunLoop(
        options, seeds,
        [](const Input& seed, std::mt19937_64& rng) {
          return fuzz::MutateText(seed.bytes, rng, kTokens);
        },
        read);
  }
  fs::remove_all(context.scratch);
  return status;
}
