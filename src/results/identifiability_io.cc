#include "frfit/results/identifiability_io.h"

#include <cmath>

#include "frfit/common/error.h"

namespace frfit {
namespace {

nlohmann::json Number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

std::int64_t BoundCode(BoundFlag flag) {
  return flag == BoundFlag::kMin ? -1 : flag == BoundFlag::kMax ? 1 : 0;
}

}  // namespace

void WriteIdentifiability(Hdf5File* f, const std::string& g, const Identifiability& id) {
  f->CreateGroup(g);
  const hsize_t p = id.per_parameter.size(), w = id.weak_directions.size();
  const double scalars[4] = {static_cast<double>(id.residuals), id.cost, id.sigma2,
                             id.condition_number};
  f->WriteDoubles(g + "/residuals", {1}, &scalars[0]);
  f->WriteDoubles(g + "/cost", {1}, &scalars[1]);
  f->WriteDoubles(g + "/sigma2", {1}, &scalars[2]);
  f->WriteDoubles(g + "/condition_number", {1}, &scalars[3]);
  const double noise[2] = {id.reduced_chi2, id.widening};
  f->WriteDoubles(g + "/reduced_chi2", {1}, &noise[0]);
  f->WriteDoubles(g + "/widening", {1}, &noise[1]);
  f->SetAttribute(g, "sigma_basis", ToString(id.sigma_basis));
  std::vector<std::string> names;
  std::vector<double> value, std_absolute, std_relative, weak_sv, weak_std;
  std::vector<std::int64_t> at_bound;
  for (const ParameterIdentifiability& q : id.per_parameter) {
    names.push_back(q.name);
    value.push_back(q.value);
    std_absolute.push_back(q.std_absolute);
    std_relative.push_back(q.std_relative);
    at_bound.push_back(BoundCode(q.at_bound));
  }
  f->WriteStrings(g + "/names", names);
  f->WriteDoubles(g + "/value", {p}, value.data());
  f->WriteDoubles(g + "/std_absolute", {p}, std_absolute.data());
  f->WriteDoubles(g + "/std_relative", {p}, std_relative.data());
  f->WriteInts(g + "/at_bound", {p}, at_bound.data());
  f->SetAttribute(g + "/at_bound", "codes", "-1 = within 1 % of min, 1 = of max, 0 = neither");
  f->WriteDoubles(g + "/singular_values", {p}, id.singular_values.data());
  f->WriteDoubles(g + "/correlation", {p, p}, id.correlation.data());
  std::vector<std::string> weak_text;
  std::vector<double> weak_vectors;
  for (const WeakDirection& d : id.weak_directions) {
    weak_text.push_back(d.description);
    weak_sv.push_back(d.singular_value);
    weak_std.push_back(d.std_relative);
    weak_vectors.insert(weak_vectors.end(), d.vector.begin(), d.vector.end());
  }
  if (weak_vectors.size() == w * p) f->WriteDoubles(g + "/weak_vectors", {w, p}, weak_vectors.data());
  f->WriteStrings(g + "/weak_directions", weak_text);
  f->WriteDoubles(g + "/weak_singular_values", {w}, weak_sv.data());
  f->WriteDoubles(g + "/weak_std_relative", {w}, weak_std.data());
  if (id.has_prior) {  // only with priors: other results keep their layout
    std::vector<double> prior_mean, prior_std, shift;
    std::vector<std::int64_t> moved;
    for (const ParameterIdentifiability& q : id.per_parameter) {
      prior_mean.push_back(q.prior_mean);
      prior_std.push_back(q.prior_std_absolute);
      shift.push_back(q.shift_in_prior_std);
      moved.push_back(q.moved_by_data ? 1 : 0);
    }
    f->WriteDoubles(g + "/prior_mean", {p}, prior_mean.data());
    f->WriteDoubles(g + "/prior_std_absolute", {p}, prior_std.data());
    f->SetAttribute(g + "/prior_std_absolute", "meaning",
                    "the prior's 1 sigma (NaN: no prior); std_absolute is then the posterior's");
    f->WriteDoubles(g + "/shift_in_prior_std", {p}, shift.data());
    f->WriteInts(g + "/moved_by_data", {p}, moved.data());
  }
  if (id.tied.empty()) return;  // only with equality constraints: other results keep their layout
  std::vector<std::string> tied_names;
  std::vector<double> tied_value, tied_std;
  for (const ParameterIdentifiability& q : id.tied) {
    tied_names.push_back(q.name);
    tied_value.push_back(q.value);
    tied_std.push_back(q.std_absolute);
  }
  const hsize_t t = id.tied.size();
  f->WriteStrings(g + "/tied_names", tied_names);
  f->WriteStrings(g + "/tied_by", id.tied_by);
  f->WriteDoubles(g + "/tied_value", {t}, tied_value.data());
  f->WriteDoubles(g + "/tied_std_absolute", {t}, tied_std.data());
}

Identifiability ReadIdentifiability(const Hdf5File& f, const std::string& g) {
  Identifiability id;
  std::vector<hsize_t> dims;
  auto scalar = [&](const char* name) {
    const std::vector<double> v = f.ReadDoubles(g + "/" + name, 1, &dims);
    if (v.size() != 1) throw Error(f.path(), g + "/" + name, "expected one value");
    return v[0];
  };
  id.residuals = f.ToInt(scalar("residuals"), g + "/residuals");
  id.cost = scalar("cost");
  id.sigma2 = scalar("sigma2");
  id.condition_number = scalar("condition_number");
  // Results written before noise models existed have neither: their σ rests on the scatter.
  if (f.Exists(g + "/reduced_chi2")) {
    id.reduced_chi2 = scalar("reduced_chi2");
    id.widening = scalar("widening");
    const std::string basis = f.GetAttribute(g, "sigma_basis");
    id.sigma_basis = basis == "noise_model"           ? SigmaBasis::kNoiseModel
                     : basis == "noise_model_widened" ? SigmaBasis::kNoiseModelWidened
                     : basis == "noise_model_scaled"  ? SigmaBasis::kNoiseModelScaled
                                                      : SigmaBasis::kResidualScatter;
  } else {
    id.reduced_chi2 = std::nan("");
  }
  const std::vector<std::string> names = f.ReadStrings(g + "/names");
  const size_t p = names.size();
  auto vector = [&](const char* name, size_t expected) {
    const std::vector<double> v = f.ReadDoubles(g + "/" + name, 1, &dims);
    if (v.size() != expected)
      throw Error(f.path(), g + "/" + name, "expected " + std::to_string(expected) + " values");
    return v;
  };
  const std::vector<double> value = vector("value", p), std_absolute = vector("std_absolute", p),
                            std_relative = vector("std_relative", p);
  const std::vector<std::int64_t> at_bound = f.ReadInts(g + "/at_bound", 1, &dims);
  if (at_bound.size() != p) throw Error(f.path(), g + "/at_bound", "expected one code per name");
  for (size_t j = 0; j < p; ++j)
    id.per_parameter.push_back({names[j], value[j], std_absolute[j], std_relative[j],
                                at_bound[j] < 0   ? BoundFlag::kMin
                                : at_bound[j] > 0 ? BoundFlag::kMax
                                                  : BoundFlag::kNone});
  id.parameters = static_cast<int>(p);
  id.singular_values = vector("singular_values", p);
  id.correlation = f.ReadDoubles(g + "/correlation", 2, &dims);
  if (id.correlation.size() != p * p)
    throw Error(f.path(), g + "/correlation", "expected p x p values");
  const std::vector<std::string> weak = f.ReadStrings(g + "/weak_directions");
  const std::vector<double> weak_sv = vector("weak_singular_values", weak.size()),
                            weak_std = vector("weak_std_relative", weak.size());
  // Each direction's every component: results written before they were stored have the text only.
  std::vector<double> weak_vectors;
  if (f.Exists(g + "/weak_vectors")) {
    weak_vectors = f.ReadDoubles(g + "/weak_vectors", 2, &dims);
    if (weak_vectors.size() != weak.size() * p)
      throw Error(f.path(), g + "/weak_vectors", "expected one row of p components per direction");
  }
  for (size_t i = 0; i < weak.size(); ++i) {
    WeakDirection d;
    d.singular_value = weak_sv[i];
    d.std_relative = weak_std[i];
    d.description = weak[i];
    if (!weak_vectors.empty())
      d.vector.assign(weak_vectors.begin() + i * p, weak_vectors.begin() + (i + 1) * p);
    id.weak_directions.push_back(d);
  }
  if (f.Exists(g + "/prior_std_absolute")) {
    id.has_prior = true;
    const std::vector<double> mean = vector("prior_mean", p), prior_std = vector("prior_std_absolute", p),
                              shift = vector("shift_in_prior_std", p);
    const std::vector<std::int64_t> moved = f.ReadInts(g + "/moved_by_data", 1, &dims);
    if (moved.size() != p) throw Error(f.path(), g + "/moved_by_data", "expected one flag per name");
    for (size_t j = 0; j < p; ++j) {
      ParameterIdentifiability& q = id.per_parameter[j];
      q.prior_mean = mean[j];
      q.prior_std_absolute = prior_std[j];
      q.prior_std_relative = prior_std[j] / std::abs(q.value);
      q.std_ratio = q.std_absolute / prior_std[j];
      q.shift_in_prior_std = shift[j];
      q.moved_by_data = moved[j] != 0;
    }
  }
  if (f.Exists(g + "/tied_names")) {
    id.tied_by = f.ReadStrings(g + "/tied_by");
    const std::vector<std::string> tied = f.ReadStrings(g + "/tied_names");
    const std::vector<double> tied_value = vector("tied_value", tied.size()),
                              tied_std = vector("tied_std_absolute", tied.size());
    if (id.tied_by.size() != tied.size())
      throw Error(f.path(), g + "/tied_by", "expected one constraint per tied parameter");
    for (size_t i = 0; i < tied.size(); ++i) {
      ParameterIdentifiability q;
      q.name = tied[i];
      q.value = tied_value[i];
      q.std_absolute = tied_std[i];
      q.std_relative = q.value != 0.0 ? q.std_absolute / std::abs(q.value) : q.std_absolute;
      id.tied.push_back(q);
    }
  }
  return id;
}

nlohmann::ordered_json IdentifiabilityToJson(const Identifiability& id) {
  nlohmann::ordered_json j;
  j["condition_number"] = Number(id.condition_number);
  nlohmann::json singular = nlohmann::json::array();
  for (double s : id.singular_values) singular.push_back(Number(s));
  j["singular_values"] = singular;
  j["residuals"] = id.residuals;
  j["sigma2"] = Number(id.sigma2);
  j["sigma_basis"] = ToString(id.sigma_basis);
  j["reduced_chi2"] = Number(id.reduced_chi2);
  j["widening"] = Number(id.widening);
  nlohmann::ordered_json parameters;
  std::vector<std::string> order;
  for (const ParameterIdentifiability& q : id.per_parameter) {
    order.push_back(q.name);
    parameters[q.name] = {
        {"value", q.value},
        {"std_absolute", Number(q.std_absolute)},
        {"std_relative", Number(q.std_relative)},
        {"at_bound", q.at_bound == BoundFlag::kNone ? nlohmann::json(false)
                                                    : nlohmann::json(ToString(q.at_bound))}};
    // Only with priors, so that fits without one keep their output.
    if (id.has_prior && std::isfinite(q.prior_std_absolute)) {
      parameters[q.name]["prior_std_absolute"] = q.prior_std_absolute;
      parameters[q.name]["prior_std_relative"] = q.prior_std_relative;
      parameters[q.name]["moved_by_data"] = q.moved_by_data;
      parameters[q.name]["prior_mean"] = q.prior_mean;
      parameters[q.name]["std_ratio"] = Number(q.std_ratio);
      parameters[q.name]["shift_in_prior_std"] = Number(q.shift_in_prior_std);
    }
  }
  if (id.has_prior) j["sigma_is"] = "posterior";
  // Tied parameters (equality constraints) after the free ones, not in `order` (which indexes
  // the correlation matrix).
  for (size_t t = 0; t < id.tied.size(); ++t) {
    const ParameterIdentifiability& q = id.tied[t];
    parameters[q.name] = {
        {"value", q.value},
        {"std_absolute", Number(q.std_absolute)},
        {"std_relative", Number(q.std_relative)},
        {"at_bound", q.at_bound == BoundFlag::kNone ? nlohmann::json(false)
                                                    : nlohmann::json(ToString(q.at_bound))},
        {"tied_by", id.tied_by[t]}};
  }
  j["parameters"] = parameters;
  j["order"] = order;
  const size_t p = id.per_parameter.size();
  nlohmann::json correlation = nlohmann::json::array();
  for (size_t r = 0; r < p; ++r) {
    nlohmann::json row = nlohmann::json::array();
    for (size_t c = 0; c < p; ++c) row.push_back(Number(id.correlation[r * p + c]));
    correlation.push_back(row);
  }
  j["correlation"] = correlation;
  nlohmann::json weak = nlohmann::json::array();
  for (const WeakDirection& d : id.weak_directions)
    weak.push_back({{"direction", d.description},
                    {"singular_value", Number(d.singular_value)},
                    {"std_relative", Number(d.std_relative)}});
  j["weak_directions"] = weak;
  return j;
}

}  // namespace frfit
