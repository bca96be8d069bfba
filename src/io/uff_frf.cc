// From dataset-58 records to an FrfSet: which records are FRFs, how their DOFs map onto the
// sensor-frame 3×3 matrix, and which FRF format (and scale to SI) their units denote.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "frfit/common/error.h"
#include "frfit/common/warning.h"
#include "frfit/frf/frf_format.h"
#include "frfit/io/uff.h"

namespace frfit::uff {
namespace {

// The frame a node is: the mapping's explicit response_frame / excitation_frame, else its `nodes`
// entry for the node, else "" (the sensor).
std::string FrameOf(const Mapping& mapping, const std::string& explicit_frame, long node) {
  if (!explicit_frame.empty()) return explicit_frame;
  const auto it = mapping.node_frames.find(node);
  return it == mapping.node_frames.end() ? std::string() : it->second;
}

constexpr double kStandardGravity = 9.80665;

// Dimensions of a unit expression: length, time, force exponents and a factor to SI.
struct Dim {
  int L = 0, T = 0, F = 0;
  double scale = 1.0;
};

Dim Mul(Dim a, const Dim& b, int power) {
  a.L += power * b.L;
  a.T += power * b.T;
  a.F += power * b.F;
  a.scale *= std::pow(b.scale, power);
  return a;
}

// Recursive-descent parser for labels such as "(1/N)*(m/s^2)", "m/s²/N", "g/N", "mm/(N)".
class UnitParser {
 public:
  explicit UnitParser(const std::string& text) {
    // Normalise superscripts (UTF-8 and Latin-1), "**" and µ.
    for (size_t i = 0; i < text.size(); ++i) {
      const unsigned char c = text[i];
      if (c == 0xC2 && i + 1 < text.size()) {
        const unsigned char d = text[i + 1];
        if (d == 0xB2 || d == 0xB3 || d == 0xB5) {
          s_ += d == 0xB2 ? "^2" : d == 0xB3 ? "^3" : "u";
          ++i;
          continue;
        }
      }
      if (c == 0xB2) s_ += "^2";
      else if (c == 0xB3) s_ += "^3";
      else if (c == 0xB5) s_ += "u";
      else if (c == '*' && i + 1 < text.size() && text[i + 1] == '*') s_ += '^', ++i;
      else s_ += static_cast<char>(std::tolower(c));
    }
  }

  bool Parse(Dim* out) {
    if (!Expr(out)) return false;
    Skip();
    return pos_ == s_.size();
  }

 private:
  void Skip() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  bool Expr(Dim* out) {
    Dim d;
    if (!Factor(&d)) return false;
    while (true) {
      Skip();
      if (pos_ >= s_.size() || s_[pos_] == ')') break;
      int power = 1;
      if (s_[pos_] == '/') power = -1, ++pos_;
      else if (s_[pos_] == '*' || s_[pos_] == '.') ++pos_;
      Dim rhs;
      if (!Factor(&rhs)) return false;
      d = Mul(d, rhs, power);
    }
    *out = d;
    return true;
  }
  bool Factor(Dim* out) {
    Skip();
    if (pos_ >= s_.size()) return false;
    Dim base;
    if (s_[pos_] == '(') {
      ++pos_;
      if (!Expr(&base)) return false;
      Skip();
      if (pos_ >= s_.size() || s_[pos_] != ')') return false;
      ++pos_;
    } else if (s_[pos_] == '1') {
      ++pos_;
    } else {
      const size_t start = pos_;
      while (pos_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      if (!Atom(s_.substr(start, pos_ - start), &base)) return false;
    }
    int power = 1;
    Skip();
    if (pos_ < s_.size() && s_[pos_] == '^') {
      ++pos_;
      int sign = 1;
      if (pos_ < s_.size() && s_[pos_] == '-') sign = -1, ++pos_;
      if (pos_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[pos_]))) return false;
      power = sign * (s_[pos_++] - '0');
    } else if (pos_ < s_.size() && (s_[pos_] == '2' || s_[pos_] == '3')) {
      power = s_[pos_++] - '0';  // "s2"
    }
    *out = Mul(Dim{}, base, power);
    return true;
  }
  static bool Atom(const std::string& a, Dim* d) {
    *d = Dim{};
    if (a == "m") d->L = 1;
    else if (a == "mm") d->L = 1, d->scale = 1e-3;
    else if (a == "cm") d->L = 1, d->scale = 1e-2;
    else if (a == "um") d->L = 1, d->scale = 1e-6;
    else if (a == "in" || a == "inch") d->L = 1, d->scale = 0.0254;
    else if (a == "s" || a == "sec") d->T = 1;
    else if (a == "n") d->F = 1;
    else if (a == "kn") d->F = 1, d->scale = 1e3;
    else if (a == "lbf") d->F = 1, d->scale = 4.4482216152605;
    else if (a == "g") d->L = 1, d->T = -2, d->scale = kStandardGravity;
    else if (a == "hz") d->T = -1;
    else return false;
    return true;
  }

  std::string s_;
  size_t pos_ = 0;
};

bool Blank(const std::string& label) {
  std::string t;
  for (char c : label)
    if (c != ' ') t += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return t.empty() || t == "NONE";
}

std::optional<FrfFormat> FormatFromCodes(const Function58& f) {
  const int num = f.ordinate.specific_data_type, den = f.denominator.specific_data_type;
  if (den != 9 && den != 13) return std::nullopt;  // reaction or excitation force
  if (num == 8) return FrfFormat::kReceptance;
  if (num == 11) return FrfFormat::kMobility;
  if (num == 12) return FrfFormat::kInertance;
  return std::nullopt;
}

[[noreturn]] void Fail(const std::string& src, const std::string& field, const std::string& message) {
  throw Error(src, field, message);
}

std::string Where(int record, bool binary) {
  return std::string("dataset 58") + (binary ? "b" : "") + " record " + std::to_string(record);
}

// The averages frfit writes into ID line 5 ("averages N") of its coherence records (ID line 4
// "frfit VERSION"); other writers' free-text ID lines are not interpreted. Records that disagree
// are refused.
template <typename Item>
std::optional<int> AveragesWrittenByFrfit(const std::string& src, const std::vector<Item>& coherences) {
  std::optional<int> found;
  std::string first;
  for (const Item& c : coherences) {
    const auto& id = c.f->id_lines;
    if (id[3].rfind("frfit ", 0) != 0 || id[4].rfind("averages ", 0) != 0) continue;
    char* end = nullptr;
    const long n = std::strtol(id[4].c_str() + 9, &end, 10);
    if (*end != '\0' || n < 1 || n > 1000000)
      Fail(src, c.where + ".record 5", "expected 'averages N' with N in [1, 1000000], got '" + id[4] + "'");
    if (found && *found != n)
      Fail(src, c.where + ".record 5", "says averages " + std::to_string(n) + " but " + first +
                                           " says " + std::to_string(*found));
    if (!found) first = c.where;
    found = static_cast<int>(n);
  }
  return found;
}

// Each coherence record onto the entry of the FRF with its response and reference DOFs (the
// directions' signs do not matter to a coherence), on the FRFs' abscissa; then the noise model.
// Every FRF needs its coherence: a set whose entries had different noise models would weigh some
// by their noise and others by a guess.
template <typename Item>
void AddCoherences(const std::string& src, const std::vector<Item>& coherences,
                   const std::vector<Item>& frfs, const ToFrfOptions& options,
                   const Function58& first, FrfSet* set) {
  if (coherences.empty()) return;
  std::optional<int> averages = options.averages ? options.averages : options.mapping.averages;
  if (!averages) averages = AveragesWrittenByFrfit(src, coherences);
  if (!averages)
    Fail(src, coherences.front().where,
         "is a coherence (function type 6), and dataset 58 does not say over how many averages: "
         "give --averages N (or averages: in the mapping file)");
  set->coherence.assign(set->H.size(), 0.0);
  std::array<bool, 9> seen{};
  for (const Item& c : coherences) {
    int entry = -1;
    for (const Item& f : frfs)
      if (f.f->response_node == c.f->response_node && f.f->reference_node == c.f->reference_node &&
          std::abs(f.f->response_direction) == std::abs(c.f->response_direction) &&
          std::abs(f.f->reference_direction) == std::abs(c.f->reference_direction))
        entry = EntryIndex(options.mapping.directions.at(f.f->response_direction).first,
                           options.mapping.directions.at(f.f->reference_direction).first);
    if (entry < 0)
      Fail(src, c.where,
           "is a coherence (function type 6) of node " + std::to_string(c.f->response_node) +
               " direction " + std::to_string(c.f->response_direction) + " against node " +
               std::to_string(c.f->reference_node) + " direction " +
               std::to_string(c.f->reference_direction) + ", and no FRF record used has those DOFs");
    if (seen[entry]) Fail(src, c.where, "is a second coherence of H_" + EntryName(entry));
    seen[entry] = true;
    if (c.f->x.size() != first.x.size())
      Fail(src, c.where, "has " + std::to_string(c.f->x.size()) + " lines, the FRFs " +
                             std::to_string(first.x.size()) + ": a coherence must share their abscissa");
    for (size_t k = 0; k < first.x.size(); ++k) {
      if (!(std::abs(c.f->x[k] - first.x[k]) <= 1e-9 * std::max(1.0, std::abs(first.x[k]))))
        Fail(src, c.where + ".abscissa[" + std::to_string(k) + "]",
             FormatDouble(c.f->x[k]) + " Hz differs from the FRFs' " + FormatDouble(first.x[k]) + " Hz");
      set->coherence[k * 9 + entry] = c.f->y[k].real();
    }
  }
  for (int e = 0; e < 9; ++e)
    if (set->present[e] && !seen[e])
      Fail(src, "coherence", "H_" + EntryName(e) +
                                 " has no coherence record while others have: give one for every "
                                 "FRF, or none");
  set->averages = *averages;
}

std::string EntryList(const std::vector<int>& entries) {
  std::string out;
  for (int e : entries) out += (out.empty() ? "H_" : ", H_") + EntryName(e);
  return out;
}

// What the import changed in the numbers, said once each: a unit scaled to SI, and entries whose
// sign the directions flipped (a record measured along −z, say, enters H_z·· negated).
void WarnConversions(const std::string& src, const std::map<std::string, std::vector<int>>& scaled,
                     const std::vector<int>& flipped, FrfFormat format) {
  for (const auto& [key, entries] : scaled) {
    const size_t bar = key.rfind('|');
    Warn(src, "units", EntryList(entries) + ": '" + key.substr(0, bar) + "' scaled by " +
                           key.substr(bar + 1) + " to " + UnitsOf(format));
  }
  if (!flipped.empty())
    Warn(src, "directions",
         EntryList(flipped) + ": sign flipped, a negative direction code (response or reference "
                              "along −x, −y or −z) mapped onto the sensor's + axis");
}

}  // namespace

std::optional<UnitDimensions> ParseUnits(const std::string& label) {
  Dim d;
  if (Blank(label) || !UnitParser(label).Parse(&d)) return std::nullopt;
  return UnitDimensions{d.L, d.T, d.F, d.scale};
}

DetectedUnits UnitsFromLabel(const std::string& numerator, const std::string& denominator) {
  DetectedUnits out;
  if (Blank(numerator)) return out;
  Dim n, d;
  if (!UnitParser(numerator).Parse(&n)) return out;
  if (!Blank(denominator)) {
    if (!UnitParser(denominator).Parse(&d)) return out;
    n = Mul(n, d, -1);
  }
  if (n.F != -1 || n.L != 1 || n.T > 0 || n.T < -2) return out;
  out.format = n.T == 0 ? FrfFormat::kReceptance : n.T == -1 ? FrfFormat::kMobility
                                                             : FrfFormat::kInertance;
  out.scale = n.scale;
  out.how = "units label '" + numerator + (Blank(denominator) ? "" : "' / '" + denominator) + "'";
  return out;
}

DetectedUnits DetectUnits(const Function58& f, const std::string& source, const std::string& where) {
  const std::string file_field = where + ".record 9";
  DetectedUnits label = UnitsFromLabel(f.ordinate.units, f.denominator.units);
  const std::optional<FrfFormat> codes = FormatFromCodes(f);
  const std::string codes_how = "specific data types " + std::to_string(f.ordinate.specific_data_type) +
                                "/" + std::to_string(f.denominator.specific_data_type);
  if (label.format && codes && *label.format != *codes)
    throw Error(source, file_field,
                codes_how + " say " + ToString(*codes) + " but the " + label.how + " says " +
                    ToString(*label.format));
  DetectedUnits out = label.format ? label : DetectedUnits{codes, 1.0, codes_how};
  if (out.format) {
    // Unit exponents (length, force) must be consistent with motion over force when given.
    const AxisInfo &n = f.ordinate, &d = f.denominator;
    if (n.length_exponent < 0 || n.length_exponent > 1 || n.force_exponent > 0 || n.force_exponent < -1 ||
        d.length_exponent != 0 || d.force_exponent < 0 || d.force_exponent > 1)
      throw Error(source, file_field,
                  "unit exponents (length " + std::to_string(n.length_exponent) + ", force " +
                      std::to_string(n.force_exponent) + " over length " +
                      std::to_string(d.length_exponent) + ", force " + std::to_string(d.force_exponent) +
                      ") are not motion over force, although the " + out.how + " say " +
                      ToString(*out.format));
  }
  return out;
}

Mapping DefaultMapping() {
  Mapping m;
  for (int a = 0; a < 3; ++a) {
    m.directions[a + 1] = {a, 1};
    m.directions[-(a + 1)] = {a, -1};
  }
  return m;
}

FrfSet ToFrfSet(const File& file, const ToFrfOptions& options) {
  const std::string& src = file.source;
  struct Item {
    const Function58* f;
    int record;
    std::string where;
  };
  std::vector<Item> all;
  std::string others;
  for (const auto& d : file.datasets) {
    if (d.function) {
      all.push_back({&*d.function, d.record, Where(d.record, d.binary)});
    } else {
      const std::string name = DatasetName(d.number);
      others += (others.empty() ? "" : ", ") + std::to_string(d.number) + (name.empty() ? "" : " (" + name + ")");
    }
  }
  if (all.empty())
    Fail(src, "", "no dataset 58 (function) to read an FRF from; the file holds dataset" +
                 std::string(file.datasets.size() > 1 ? "s " : " ") + others);
  std::vector<Item> items;
  if (options.mapping.records.empty()) {
    items = all;
  } else {
    for (int r : options.mapping.records) {
      if (r < 1 || r > static_cast<int>(all.size()))
        Fail(src, options.mapping.source.empty() ? "records" : options.mapping.source + ": records",
             "record " + std::to_string(r) + " does not exist (the file has " +
                 std::to_string(all.size()) + " dataset 58 records)");
      items.push_back(all[r - 1]);
    }
  }

  // 1. Only FRFs, and coherences to pair with them.
  std::vector<Item> coherences;
  std::erase_if(items, [&](const Item& it) {
    if (it.f->function_type != 6) return false;
    coherences.push_back(it);
    return true;
  });
  if (items.empty())
    Fail(src, coherences.front().where,
         "is a coherence (function type 6); the file has no FRF (function type 4) to pair it with");
  for (const auto& it : items) {
    const int t = it.f->function_type;
    if (t == 4) continue;
    if (t == 0 && (options.format || DetectUnits(*it.f, src, it.where).format)) continue;  // units say FRF
    const std::string name = FunctionTypeName(t);
    Fail(src, it.where, std::string(std::strchr("aeiou", name[0]) ? "is an " : "is a ") + name +
                       " (function type " + std::to_string(t) +
                       "), not an FRF; only function type 4 (frequency response function) forms an "
                       "FRF set");
  }

  // 2. Nodes.
  std::set<long> response_nodes;
  for (const auto& it : items) response_nodes.insert(it.f->response_node);
  long sensor;
  const bool explicit_nodes = options.mapping.sensor_node.has_value();
  if (explicit_nodes) {
    sensor = *options.mapping.sensor_node;
  } else if (response_nodes.size() == 1) {
    sensor = *response_nodes.begin();
  } else {
    std::string list;
    for (long n : response_nodes) list += (list.empty() ? "" : ", ") + std::to_string(n);
    Fail(src, "response_node", "the FRF records have several response nodes (" + list +
                              "); say which one is the sensor with --sensor-node or a mapping file");
  }
  const long excitation = options.mapping.excitation_node.value_or(sensor);
  std::vector<Item> used;
  for (const auto& it : items) {
    const bool match = it.f->response_node == sensor && it.f->reference_node == excitation;
    if (match) used.push_back(it);
    else if (!explicit_nodes && !options.mapping.excitation_node)
      Fail(src, it.where + ".reference_node",
           "reference node " + std::to_string(it.f->reference_node) + " is not the response node " +
               std::to_string(sensor) +
               " (a driving-point measurement is assumed; set excitation_node in a mapping file)");
  }
  if (used.empty())
    Fail(src, "response_node", "no FRF record has response node " + std::to_string(sensor) +
                              " and reference node " + std::to_string(excitation));

  // 3. Units.
  std::optional<FrfFormat> format = options.format;
  std::vector<double> scale(used.size(), 1.0);
  std::string format_how = options.format ? "--format" : "";
  for (size_t k = 0; k < used.size(); ++k) {
    const auto& it = used[k];
    DetectedUnits u;
    try {
      u = DetectUnits(*it.f, src, it.where);
    } catch (const Error&) {
      if (!options.format) throw;  // with --format the units only give the scale
    }
    if (options.format) {
      scale[k] = u.format == options.format ? u.scale : 1.0;
      continue;
    }
    if (!u.format)
      Fail(src, it.where + ".record 9",
           "cannot tell the FRF format from the units (ordinate specific data type " +
               std::to_string(it.f->ordinate.specific_data_type) + ", units '" + it.f->ordinate.units +
               "'; denominator " + std::to_string(it.f->denominator.specific_data_type) + ", '" +
               it.f->denominator.units + "'); give --format receptance|mobility|inertance");
    if (format && *format != *u.format)
      Fail(src, it.where + ".record 9", "units say " + ToString(*u.format) + " (" + u.how + ") but " +
                                       used[0].where + " is " + ToString(*format) + " (" + format_how + ")");
    format = u.format;
    if (format_how.empty()) format_how = u.how;
    scale[k] = u.scale;
  }

  // 4. Abscissa: frequency in Hz, one for all records.
  const Function58& first = *used[0].f;
  for (const auto& it : used) {
    const AxisInfo& a = it.f->abscissa;
    if (a.specific_data_type == 17 || a.specific_data_type == 19 || a.specific_data_type == 20)
      Fail(src, it.where + ".record 8", "abscissa is " +
                                       std::string(a.specific_data_type == 17 ? "time" : a.specific_data_type == 19 ? "rpm" : "order") +
                                       " (specific data type " + std::to_string(a.specific_data_type) +
                                       "), expected frequency in Hz");
    std::string u;
    for (char c : a.units) if (c != ' ') u += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!u.empty() && u != "none" && u != "hz")
      Fail(src, it.where + ".record 8", "abscissa units '" + a.units + "', expected Hz");
    const auto& x = it.f->x;
    if (x.size() != first.x.size())
      Fail(src, it.where, "has " + std::to_string(x.size()) + " frequency lines but " + used[0].where +
                         " has " + std::to_string(first.x.size()) + ": all records must share one abscissa");
    for (size_t k = 0; k < x.size(); ++k)
      if (!(std::abs(x[k] - first.x[k]) <= 1e-9 * std::max(1.0, std::abs(first.x[k]))))
        Fail(src, it.where + ".abscissa[" + std::to_string(k) + "]",
             FormatDouble(x[k]) + " Hz differs from " + FormatDouble(first.x[k]) + " Hz in " +
                 used[0].where + ": all records must share one abscissa");
  }

  // 5. DOFs → entries.
  FrfSet set;
  set.posture = options.posture;
  set.format = *format;
  set.frequency_hz = first.x;
  set.H.assign(first.x.size() * 9, {0.0, 0.0});
  std::array<std::string, 9> owner;
  std::string records;
  std::map<std::string, std::vector<int>> scaled;  // "units|factor" → entries
  std::vector<int> flipped;
  for (size_t k = 0; k < used.size(); ++k) {
    const auto& it = used[k];
    auto axis = [&](int code, const char* which) {
      auto found = options.mapping.directions.find(code);
      if (found == options.mapping.directions.end())
        Fail(src, it.where + "." + which + "_direction",
             "direction code " + std::to_string(code) +
                 (code == 0 ? " (scalar)" : std::abs(code) > 3 ? " (rotation)" : "") +
                 " has no sensor axis in the mapping (translations ±1/±2/±3 map to x/y/z by "
                 "default; a mapping file can assign others)");
      return found->second;
    };
    const auto [i, si] = axis(it.f->response_direction, "response");
    const auto [j, sj] = axis(it.f->reference_direction, "reference");
    const int e = EntryIndex(i, j);
    if (set.present[e])
      Fail(src, it.where, "maps to H_" + EntryName(e) + " like " + owner[e] + " (two records for one entry)");
    set.present[e] = true;
    owner[e] = it.where;
    const double factor = si * sj * scale[k];
    for (size_t l = 0; l < first.x.size(); ++l) set.H[l * 9 + e] = factor * it.f->y[l];
    records += (records.empty() ? "" : ",") + std::to_string(it.record);
    if (scale[k] != 1.0) scaled[it.f->ordinate.units + "|" + FormatDouble(scale[k])].push_back(e);
    if (si * sj < 0) flipped.push_back(e);
  }
  WarnConversions(src, scaled, flipped, *format);
  AddCoherences(src, coherences, used, options, first, &set);
  set.response_frame = FrameOf(options.mapping, options.mapping.response_frame, sensor);
  set.excitation_frame = FrameOf(options.mapping, options.mapping.excitation_frame, excitation);
  set.provenance = {{"source_file", src},
                    {"source_format", "UFF dataset 58"},
                    {"uff_records", records},
                    {"uff_sensor_node", std::to_string(sensor)},
                    {"uff_excitation_node", std::to_string(excitation)},
                    {"uff_units", format_how},
                    {"uff_id_line_1", first.id_lines[0]}};
  Validate(set, src);
  NoiseFromCoherence(&set, src);
  return set;
}

}  // namespace frfit::uff
