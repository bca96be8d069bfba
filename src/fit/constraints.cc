#include "frfit/fit/constraints.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "frfit/common/enum_names.h"

namespace frfit {
namespace {

// A recursive-descent reader of `side (>=|<=|==) side`, side := [±] term {± term},
// term := number | name | number * name | name * number.
class Reader {
 public:
  explicit Reader(const std::string& text) : s_(text) {}

  bool Constraint(LinearConstraint* out, std::string* why) {
    double left_constant = 0.0, right_constant = 0.0;
    std::vector<std::pair<std::string, double>> terms;
    if (!Side(+1.0, &terms, &left_constant, why)) return false;
    Skip();
    const std::string op = s_.substr(at_, 2);
    if (op == ">=") out->relation = Relation::kGreaterEqual;
    else if (op == "<=") out->relation = Relation::kLessEqual;
    else if (op == "==") out->relation = Relation::kEqual;
    else return Fail(why, "expected >=, <= or == after the left side");
    at_ += 2;
    if (!Side(-1.0, &terms, &right_constant, why)) return false;
    Skip();
    if (at_ != s_.size()) return Fail(why, "expected a parameter, a number, + or −");
    // Σ a θ + left (rel) right  ⇔  Σ a θ (rel) right − left; the right side's names were negated.
    out->terms.clear();
    for (const auto& [name, a] : terms) {
      bool merged = false;
      for (auto& [known, b] : out->terms)
        if (known == name) b += a, merged = true;
      if (!merged) out->terms.emplace_back(name, a);
    }
    bool any = false;
    for (const auto& term : out->terms) any = any || term.second != 0.0;
    if (!any) return Fail(why, "expected a parameter with a coefficient other than 0");
    out->bound = -right_constant - left_constant;
    return true;
  }

 private:
  void Skip() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
  }
  bool Fail(std::string* why, const std::string& message) {
    *why = message + " at character " + std::to_string(at_ + 1);
    return false;
  }
  bool Number(double* v) {
    Skip();
    if (at_ >= s_.size() || !(std::isdigit(static_cast<unsigned char>(s_[at_])) || s_[at_] == '.'))
      return false;
    char* end = nullptr;
    *v = std::strtod(s_.c_str() + at_, &end);
    at_ = static_cast<size_t>(end - s_.c_str());
    return std::isfinite(*v);
  }
  bool Name(std::string* name) {
    Skip();
    if (at_ >= s_.size() || !(std::isalpha(static_cast<unsigned char>(s_[at_])) || s_[at_] == '_'))
      return false;
    const size_t start = at_;
    while (at_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[at_])) || s_[at_] == '_'))
      ++at_;
    *name = s_.substr(start, at_ - start);
    return true;
  }
  bool Star() {
    Skip();
    if (at_ < s_.size() && s_[at_] == '*') return ++at_, true;
    return false;
  }
  // One side; `sign` is +1 on the left, −1 on the right (moved to the left).
  bool Side(double sign, std::vector<std::pair<std::string, double>>* terms, double* constant,
            std::string* why) {
    bool first = true;
    while (true) {
      Skip();
      double term_sign = 1.0;
      if (at_ < s_.size() && (s_[at_] == '+' || s_[at_] == '-')) {
        term_sign = s_[at_] == '-' ? -1.0 : 1.0;
        ++at_;
      } else if (!first) {
        return true;
      }
      double number = 1.0;
      std::string name;
      const bool has_number = Number(&number);
      if (has_number && !std::isfinite(number)) return Fail(why, "expected a finite number");
      if (has_number && Star() && !Name(&name)) return Fail(why, "expected a parameter after *");
      if (!has_number && !Name(&name)) return Fail(why, "expected a parameter or a number");
      if (!has_number && Star() && !Number(&number))
        return Fail(why, "expected a number after *");
      const double value = sign * term_sign * number;
      if (name.empty()) *constant += value;
      else terms->emplace_back(name, value);
      first = false;
    }
  }

  const std::string& s_;
  size_t at_ = 0;
};

}  // namespace

constexpr std::pair<Relation, const char*> kRelations[] = {
    {Relation::kGreaterEqual, ">="}, {Relation::kLessEqual, "<="}, {Relation::kEqual, "=="}};

std::string ToString(Relation relation) { return EnumName(kRelations, relation, "?"); }

bool ParseLinearConstraint(const std::string& text, LinearConstraint* out, std::string* error) {
  LinearConstraint parsed;
  parsed.text = text;
  std::string why;
  if (!Reader(text).Constraint(&parsed, &why)) {
    if (error)
      *error = "expected a linear relation such as 'k_x1 >= k_z1' or '2*k_a - k_b <= 0', got '" +
               text + "': " + why;
    return false;
  }
  *out = std::move(parsed);
  return true;
}

}  // namespace frfit
