// frfit simulate: synthesises the 3×3 FRF matrix on a band between two measurement points (the
// sensor unless --response-frame / --excitation-frame name others) and writes it to HDF5.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "frfit/common/error.h"
#include "frfit/frf/measurement_noise.h"
#include "frfit/frf/synthesize.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/output_path.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"

namespace frfit::cli {

int RunSimulate(int argc, char** argv) {
  const Args args("simulate", argc, argv,
                  {"model", "posture", "q", "params", "band", "format", "out", "noise", "seed",
                   "noise-model", "response-frame", "excitation-frame"},
                  {"json"});
  // Check every argument before any work, so a bad one never leaves a file behind.
  const std::string out_path = args.Get("out");
  const std::vector<double> band = ParseBand(args.Get("band"), "--band");
  FrfFormat format;
  const std::string format_text = args.Get("format", "inertance");
  if (!FromString(format_text, &format))
    throw Error("frfit simulate", "--format",
                "expected receptance, mobility or inertance, got '" + format_text + "'");
  const bool noisy = args.Has("noise");
  const MeasurementNoise noise =
      noisy ? ParseMeasurementNoise(args.Get("noise"), "--noise") : MeasurementNoise{};
  for (const char* option : {"seed", "noise-model"})
    if (!noisy && args.Has(option))
      throw Error("frfit simulate", std::string("--") + option, "only applies with --noise");
  const long seed = args.GetInt("seed", 1);
  if (seed < 0) throw Error("frfit simulate", "--seed", "expected an integer >= 0");
  const std::string noise_model = args.Get("noise-model", "variance");
  if (noise_model != "variance" && noise_model != "none")
    throw Error("frfit simulate", "--noise-model", "expected variance or none, got '" + noise_model + "'");
  const ModelContext ctx = LoadModelContext(args);
  std::vector<std::string> inputs = ctx.model.files;
  inputs.push_back(args.Get("params", ""));
  RequireNotAnInput("frfit simulate", "--out", out_path, inputs);

  const Posture posture = Linearize(ctx.model, ctx.q, ctx.posture_name);
  const MeasurementPoints points =
      PointsAt(ctx.model, posture, args.Get("response-frame", ""),
               args.Get("excitation-frame", ""), "--response-frame / --excitation-frame");
  FrfSet set = Synthesize(posture, Coefficients(ctx.model, ctx.parameters, ctx.q), band, format,
                          points);
  set.provenance = {{"generator", std::string("frfit ") + FRFIT_VERSION + " simulate"},
                    {"model", ctx.model.name},
                    {"model_file", ctx.model.source},
                    {"parameters", DescribeParameters(ctx.model, ctx.parameters)},
                    {"parameters_source", ctx.parameters_source}};
  if (noisy) {
    AddMeasurementNoise(noise, static_cast<std::uint64_t>(seed), noise_model == "variance", &set);
    set.provenance.emplace_back("noise", args.Get("noise") + " (relative:floor), seed " +
                                             std::to_string(seed));
  }
  WriteFrfSet(out_path, set);
  if (args.Flag("json")) {
    nlohmann::ordered_json out = {{"out", out_path},
                                  {"posture", set.posture},
                                  {"response_frame", set.response_frame},
                                  {"excitation_frame", set.excitation_frame},
                                  {"format", ToString(format)},
                                  {"units", UnitsOf(format)},
                                  {"lines", set.num_lines()},
                                  {"f0_hz", band.front()},
                                  {"f1_hz", band.back()},
                                  {"noise", noisy ? args.Get("noise") : ""}};
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::fprintf(stderr, "wrote %s: %d lines %.4g..%.4g Hz, %s (%s), posture %s\n",
                 out_path.c_str(), set.num_lines(), band.front(), band.back(),
                 ToString(format).c_str(), UnitsOf(format).c_str(), set.posture.c_str());
  }
  return 0;
}

}  // namespace frfit::cli
