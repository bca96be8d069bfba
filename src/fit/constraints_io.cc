#include "frfit/fit/constraints_io.h"

#include "frfit/common/error.h"

namespace frfit {

void WriteConstraints(Hdf5File* f, const std::vector<ConstraintStatus>& constraints) {
  f->CreateGroup("/constraints");
  std::vector<std::string> text, relation;
  std::vector<double> slack;
  std::vector<std::int64_t> active;
  for (const ConstraintStatus& c : constraints) {
    text.push_back(c.text);
    relation.push_back(ToString(c.relation));
    slack.push_back(c.slack);
    active.push_back(c.active ? 1 : 0);
  }
  const hsize_t n = constraints.size();
  f->WriteStrings("/constraints/text", text);
  f->WriteStrings("/constraints/relation", relation);
  f->WriteDoubles("/constraints/slack", {n}, slack.data());
  f->SetAttribute("/constraints/slack", "meaning",
                  "left side minus right side (right minus left for <=): >= 0 where it holds");
  f->WriteInts("/constraints/active", {n}, active.data());
  f->SetAttribute("/constraints/active", "codes", "1 = on its boundary (as a parameter at a bound)");
}

std::vector<ConstraintStatus> ReadConstraints(const Hdf5File& f) {
  const std::vector<std::string> text = f.ReadStrings("/constraints/text"),
                                 relation = f.ReadStrings("/constraints/relation");
  std::vector<hsize_t> dims;
  const std::vector<double> slack = f.ReadDoubles("/constraints/slack", 1, &dims);
  const std::vector<std::int64_t> active = f.ReadInts("/constraints/active", 1, &dims);
  if (relation.size() != text.size() || slack.size() != text.size() || active.size() != text.size())
    throw Error(f.path(), "/constraints", "expected one relation, slack and active flag per text");
  std::vector<ConstraintStatus> out;
  for (size_t i = 0; i < text.size(); ++i) {
    ConstraintStatus c{text[i], Relation::kGreaterEqual, slack[i], active[i] != 0};
    if (relation[i] == "<=") c.relation = Relation::kLessEqual;
    else if (relation[i] == "==") c.relation = Relation::kEqual;
    out.push_back(c);
  }
  return out;
}

nlohmann::ordered_json ConstraintsToJson(const std::vector<ConstraintStatus>& constraints) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const ConstraintStatus& c : constraints)
    out.push_back({{"constraint", c.text},
                   {"relation", ToString(c.relation)},
                   {"slack", c.slack},
                   {"active", c.active}});
  return out;
}

}  // namespace frfit
