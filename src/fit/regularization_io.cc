#include "frfit/fit/regularization_io.h"

#include <cmath>

#include "frfit/common/error.h"

namespace frfit {
namespace {

nlohmann::ordered_json PointToJson(const WeightCurvePoint& p) {
  return {{"weight", p.weight},
          {"residual_norm", p.residual_norm},
          {"regularization_norm", p.regularization_norm},
          {"gcv", std::isfinite(p.gcv) ? nlohmann::ordered_json(p.gcv) : nlohmann::ordered_json()},
          {"evidence",
           std::isfinite(p.evidence) ? nlohmann::ordered_json(p.evidence) : nlohmann::ordered_json()}};
}

}  // namespace

void WriteRegularization(Hdf5File* f, const RegularizationSummary& s) {
  const std::string g = "/regularization";
  f->CreateGroup(g);
  f->SetAttribute(g, "toward", ToString(s.toward));
  f->SetAttribute(g, "weight_given", s.automatic ? "auto" : FormatDouble(s.weight));
  f->SetAttribute(g, "weight", FormatDouble(s.weight));
  f->SetAttribute(g, "fits", std::to_string(s.fits));
  f->SetAttribute(g, "method", ToString(s.curve.rule));
  std::vector<double> table;
  for (const WeightCurvePoint& p : s.curve.points)
    table.insert(table.end(), {p.weight, p.residual_norm, p.regularization_norm, p.gcv, p.evidence});
  f->WriteDoubles(g + "/curve", {s.curve.points.size(), kWeightCurveColumnCount}, table.data());
  f->SetAttribute(g + "/curve", "columns", kWeightCurveColumns);
  const std::int64_t chosen = s.curve.chosen;
  f->WriteInts(g + "/chosen", {1}, &chosen);
  f->SetAttribute(g + "/chosen", "meaning",
                  "the curve's row of the " + std::string(s.curve.rule == WeightRule::kGcv ? "GCV" : "evidence") +
                      " minimum at the fitted point");
  const WeightCurvePoint& w = s.at_weight;
  const double at[kWeightCurveColumnCount] = {w.weight, w.residual_norm, w.regularization_norm,
                                              w.gcv, w.evidence};
  f->WriteDoubles(g + "/at_weight", {kWeightCurveColumnCount}, at);
  f->SetAttribute(g + "/at_weight", "meaning", "the curve's columns at the weight the fit used");
}

RegularizationSummary ReadRegularization(const Hdf5File& f) {
  RegularizationSummary s;
  const std::string g = "/regularization";
  if (!f.Exists(g)) return s;
  s.enabled = true;
  s.toward = f.GetAttribute(g, "toward") == "prior" ? RegularizationTarget::kPrior
                                                    : RegularizationTarget::kNominal;
  s.automatic = f.GetAttribute(g, "weight_given") == "auto";
  s.weight = std::stod(f.GetAttribute(g, "weight"));
  s.fits = std::stoi(f.GetAttribute(g, "fits"));
  // Files written before the evidence existed: GCV chose, and their rows have 4 columns.
  if (f.HasAttribute(g, "method") && !FromString(f.GetAttribute(g, "method"), &s.curve.rule))
    throw Error(f.path(), g, "method: expected evidence or gcv");
  if (!f.HasAttribute(g, "method")) s.curve.rule = WeightRule::kGcv;
  std::vector<hsize_t> dims;
  const std::vector<double> table = f.ReadDoubles(g + "/curve", 2, &dims);
  const size_t columns = dims[1];
  if (columns != 4 && columns != kWeightCurveColumnCount)
    throw Error(f.path(), g + "/curve", "expected 4 or 5 columns");
  auto point = [columns](const double* row) {
    return WeightCurvePoint{row[0], row[1], row[2], row[3], columns > 4 ? row[4] : NAN};
  };
  for (size_t i = 0; i < dims[0]; ++i) s.curve.points.push_back(point(&table[columns * i]));
  s.curve.chosen = f.ToInt(static_cast<double>(f.ReadInts(g + "/chosen", 1, &dims).at(0)), g + "/chosen");
  if (s.curve.chosen < 0 || s.curve.chosen >= static_cast<int>(s.curve.points.size()))
    throw Error(f.path(), g + "/chosen", "expected a row of the curve");
  const std::vector<double> at = f.ReadDoubles(g + "/at_weight", 1, &dims);
  if (at.size() != columns) throw Error(f.path(), g + "/at_weight", "expected one value per curve column");
  s.at_weight = point(at.data());
  return s;
}

nlohmann::ordered_json RegularizationToJson(const RegularizationSummary& s) {
  nlohmann::ordered_json j;
  j["toward"] = ToString(s.toward);
  j["weight_given"] = s.automatic ? nlohmann::ordered_json("auto") : nlohmann::ordered_json(s.weight);
  j["weight"] = s.weight;
  j["method"] = ToString(s.curve.rule);
  j["fits"] = s.fits;
  j["at_weight"] = PointToJson(s.at_weight);
  j["chosen"] = PointToJson(s.curve.points.at(s.curve.chosen));
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  for (const WeightCurvePoint& p : s.curve.points) curve.push_back(PointToJson(p));
  j["curve"] = curve;
  return j;
}

}  // namespace frfit
