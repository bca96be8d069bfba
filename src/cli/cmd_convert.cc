// frfit convert: UFF dataset 58/58b ↔ HDF5 FRF set (docs/uff.md). The direction follows the file
// extensions; the output is written atomically and nothing is written when the input is bad.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "args.h"
#include "commands.h"
#include "frfit/common/error.h"
#include "frfit/model/model_yaml.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/output_path.h"
#include "frfit/io/uff.h"

namespace frfit::cli {
namespace {

enum class Kind { kUff, kHdf5, kUnknown };

Kind KindOf(const std::string& path) {
  const auto dot = path.find_last_of('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == "uff" || ext == "unv" || ext == "uf" || ext == "58") return Kind::kUff;
  if (ext == "h5" || ext == "hdf5") return Kind::kHdf5;
  return Kind::kUnknown;
}

nlohmann::ordered_json Entries(const FrfSet& set) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (int e = 0; e < 9; ++e)
    if (set.present[e]) out.push_back(EntryName(e));
  return out;
}

}  // namespace

int RunConvert(int argc, char** argv) {
  const Args args("convert", argc, argv,
                  {"posture", "model", "sensor-node", "format", "mapping", "averages"},
                  {"binary", "json"}, 2);
  const std::string cmd = "frfit convert";
  if (args.positional().size() != 2)
    throw Error(cmd, "arguments", "expected IN OUT (one UFF and one HDF5 file), got " +
                                      std::to_string(args.positional().size()) + " positional arguments");
  const std::string in = args.positional()[0], out = args.positional()[1];
  const Kind from = KindOf(in), to = KindOf(out);
  if (from == Kind::kUnknown || to == Kind::kUnknown || from == to)
    throw Error(cmd, "arguments", "expected one .uff/.unv and one .h5/.hdf5 file, got '" + in +
                                      "' and '" + out + "'");
  RequireNotAnInput(cmd, "OUT", out, {in, args.Get("mapping", "")});
  std::optional<FrfFormat> format;
  if (args.Has("format")) {
    FrfFormat f;
    if (!FromString(args.Get("format"), &f))
      throw Error(cmd, "--format", "expected receptance, mobility or inertance, got '" +
                                       args.Get("format") + "'");
    format = f;
  }
  const bool has_node = args.Has("sensor-node");
  const long node = args.GetInt("sensor-node", 1);

  FrfSet set;
  nlohmann::ordered_json report = {{"in", in}, {"out", out}};
  if (from == Kind::kUff) {
    if (args.Flag("binary"))
      throw Error(cmd, "--binary", "only applies when writing UFF (HDF5 → UFF)");
    uff::ToFrfOptions options;
    options.posture = args.Get("posture", "");  // a fit needs it; ema and report do not
    if (args.Has("model")) {
      if (options.posture.empty())
        throw Error(cmd, "--model", "checks the --posture given; give --posture too");
      const Model model = LoadModel(args.Get("model"));
      if (model.FindPosture(options.posture) < 0)
        throw Error(cmd, "--posture", "model '" + model.name + "' (" + args.Get("model") +
                                          ") has no posture '" + options.posture + "' (it has " +
                                          model.PostureNames() + ")");
    }
    options.format = format;
    if (args.Has("mapping")) options.mapping = uff::ReadMapping(args.Get("mapping"));
    if (args.Has("averages")) {
      const long n = args.GetInt("averages", 0);
      if (n < 1 || n > 1000000) throw Error(cmd, "--averages", "expected an integer in [1, 1000000]");
      options.averages = static_cast<int>(n);
    }
    if (has_node) options.mapping.sensor_node = node;
    const uff::File file = uff::Read(in);
    set = uff::ToFrfSet(file, options);
    WriteFrfSet(out, set);
    report["direction"] = "uff->hdf5";
    report["records"] = static_cast<int>(file.functions().size());
  } else {
    if (args.Has("averages"))
      throw Error(cmd, "--averages", "only applies when reading UFF (UFF → HDF5)");
    if (args.Has("mapping"))
      throw Error(cmd, "--mapping", "only applies when reading UFF (UFF → HDF5)");
    if (args.Has("model"))
      throw Error(cmd, "--model", "only applies when reading UFF (UFF → HDF5)");
    set = ReadFrfSet(in);
    if (args.Has("posture") && args.Get("posture") != set.posture)
      throw Error(in, "posture", "the FRF set is for posture '" + set.posture + "', not '" +
                                     args.Get("posture") + "'");
    // The writer gives every record one node for response and reference alike (the sensor);
    // a set between other points would come back as tool-tip data.
    if (!set.response_frame.empty() || !set.excitation_frame.empty())
      throw Error(in, "/@response_frame",
                  "a set measured between frames '" + set.response_frame + "' and '" +
                      set.excitation_frame +
                      "' cannot be written to UFF yet: its records would name the sensor node "
                      "for both points");
    if (format) set = ConvertFormat(set, *format);
    uff::WriteFrfSet(out, set, args.Flag("binary"), node);
    report["direction"] = args.Flag("binary") ? "hdf5->uff58b" : "hdf5->uff58";
  }
  report["posture"] = set.posture;
  report["format"] = ToString(set.format);
  report["units"] = UnitsOf(set.format);
  report["lines"] = set.num_lines();
  report["entries"] = Entries(set);
  if (args.Flag("json")) {
    std::printf("%s\n", report.dump().c_str());
  } else {
    std::fprintf(stderr, "wrote %s: %d lines, %s (%s), posture %s\n", out.c_str(), set.num_lines(),
                 ToString(set.format).c_str(), UnitsOf(set.format).c_str(),
                 set.posture.empty() ? "not named (a fit needs one: convert again with --posture NAME)"
                                     : set.posture.c_str());
  }
  return 0;
}

}  // namespace frfit::cli
