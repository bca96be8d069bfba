#include "args.h"
#include "commands.h"
#include "frfit/common/error.h"
#include "frfit/results/fit_result.h"
#include "frfit/model/model_yaml.h"

namespace frfit::cli {

ModelContext LoadModelContext(const Args& args) {
  ModelContext ctx;
  ctx.model = LoadModel(args.Get("model"));
  if (args.Has("posture")) {
    ctx.posture_name = args.Get("posture");
    ctx.q = ctx.model.posture(ctx.posture_name).q;
  } else if (args.Has("q")) {
    ctx.posture_name = "custom";
    ctx.q.assign(ctx.model.num_coordinates(), 0.0);
  } else {
    throw Error("frfit", "--posture", "missing (give a posture name of the model, or --q)");
  }
  if (args.Has("q")) {
    ctx.q = ParseCoordinateAssignments(args.Get("q"), ctx.model, ctx.q, "--q");
    if (args.Has("posture")) ctx.posture_name += "+q";
  }
  if (args.Has("params")) {
    ctx.parameters_source = args.Get("params");
    // A fit result (.h5) or a YAML parameter file.
    const std::string& source = ctx.parameters_source;
    const bool hdf5 = source.size() > 3 && source.compare(source.size() - 3, 3, ".h5") == 0;
    if (hdf5) {
      FitResult result = ReadFitResult(source, FitResultSections::kSummary);
      ctx.parameters = ParametersFromResult(result, ctx.model, source);
      ctx.identifiability = std::move(result.identifiability);
    } else {
      ctx.parameters = LoadParameters(source, ctx.model);
    }
  } else {
    ctx.parameters_source = "initial values of the model";
    ctx.parameters = ctx.model.InitialParameters();
  }
  return ctx;
}

std::string DescribeParameters(const Model& model, const std::vector<double>& values) {
  std::string text;
  for (int i = 0; i < model.num_parameters(); ++i)
    text += (i ? ";" : "") + model.parameters[i].name + "=" + FormatDouble(values[i]);
  return text;
}

}  // namespace frfit::cli
