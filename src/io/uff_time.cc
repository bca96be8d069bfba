// From dataset-58 time records (function type 1) to TimeRecordings: which record is the hammer's
// force and which are responses (specific data type, else units label), their scale to SI and
// sensor axis, and which records form one hit (docs/uff.md, "Time records"). FRF records are
// turned into FrfSets by uff_frf.cc; this file does not read them.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "frfit/common/error.h"
#include "frfit/common/warning.h"
#include "frfit/io/uff_time.h"

namespace frfit::uff {
namespace {

constexpr int kReactionForce = 9;

bool Blank(const std::string& label) {
  std::string t;
  for (char c : label)
    if (c != ' ') t += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return t.empty() || t == "NONE";
}

// ToString(ChannelQuantity) lives with the impact stage; io/ does not link against it.
const char* QuantityName(ChannelQuantity q) {
  switch (q) {
    case ChannelQuantity::kForce: return "force";
    case ChannelQuantity::kAcceleration: return "acceleration";
    case ChannelQuantity::kVelocity: return "velocity";
    case ChannelQuantity::kDisplacement: return "displacement";
  }
  return "?";
}

const char* SiUnits(ChannelQuantity q) {
  switch (q) {
    case ChannelQuantity::kForce: return "N";
    case ChannelQuantity::kAcceleration: return "m/s²";
    case ChannelQuantity::kVelocity: return "m/s";
    case ChannelQuantity::kDisplacement: return "m";
  }
  return "?";
}

std::optional<ChannelQuantity> FromCode(int code) {
  switch (code) {
    case 8: return ChannelQuantity::kDisplacement;
    case 11: return ChannelQuantity::kVelocity;
    case 12: return ChannelQuantity::kAcceleration;
    case 13: return ChannelQuantity::kForce;  // excitation force: the hammer
    default: return std::nullopt;
  }
}

std::optional<ChannelQuantity> FromDimensions(const UnitDimensions& d) {
  if (d.force == 1 && d.length == 0 && d.time == 0) return ChannelQuantity::kForce;
  if (d.force != 0 || d.length != 1) return std::nullopt;
  if (d.time == 0) return ChannelQuantity::kDisplacement;
  if (d.time == -1) return ChannelQuantity::kVelocity;
  if (d.time == -2) return ChannelQuantity::kAcceleration;
  return std::nullopt;
}

std::string Where(int record, bool binary) {
  return std::string("dataset 58") + (binary ? "b" : "") + " record " + std::to_string(record);
}

// "record 3", "records 1-4, 7".
std::string RecordList(std::vector<int> records) {
  std::sort(records.begin(), records.end());
  std::string out;
  for (size_t k = 0; k < records.size();) {
    size_t end = k;
    while (end + 1 < records.size() && records[end + 1] == records[end] + 1) ++end;
    out += (out.empty() ? "" : ", ") + std::to_string(records[k]) +
           (end > k ? "-" + std::to_string(records[end]) : "");
    k = end + 1;
  }
  return (records.size() == 1 ? "record " : "records ") + out;
}

const char* kAxes[] = {"x", "y", "z"};

// One time record, classified.
struct Channel {
  const Function58* f = nullptr;
  int record = 0;
  std::string where;
  std::optional<ChannelQuantity> quantity;  // empty: neither force nor motion
  std::string what;                         // how the file describes it, for messages
  double scale = 1.0;                       // to SI
  int axis = 0, sign = 1;
  double dt_s = 0.0, t0_s = 0.0;
  std::string Key() const { return std::string(QuantityName(*quantity)) + " " + kAxes[axis]; }
};

class Reader {
 public:
  Reader(const File& file, const Mapping& mapping) : file_(file), src_(file.source), mapping_(mapping) {}

  std::vector<TimeRecording> Run() {
    std::vector<Channel> all = Records();
    for (Channel& c : all) CheckTime(&c);
    for (Channel& c : all) Classify(&c);
    RequireForce(all);
    for (const Channel& c : all)
      if (!c.quantity)
        Fail(c.where + ".record 9",
             "is " + c.what +
                 ", neither the hammer's force nor a motion (acceleration, velocity, displacement); "
                 "leave it out with records: in a mapping file (--mapping)");
    std::vector<Channel> used = SelectNodes(all);
    for (Channel& c : used) Direction(&c);
    const std::vector<std::vector<Channel>> hits = Group(used);
    return Build(hits);
  }

 private:
  [[noreturn]] void Fail(const std::string& field, const std::string& message) const {
    throw Error(src_, field, message);
  }

  std::vector<Channel> Records() const {
    std::vector<Channel> all;
    std::string others;
    std::set<std::string> listed;
    for (const auto& d : file_.datasets) {
      if (d.function) {
        Channel c;
        c.f = &*d.function;
        c.record = d.record;
        c.where = Where(d.record, d.binary);
        all.push_back(c);
      } else {
        const std::string name = DatasetName(d.number);
        const std::string item = std::to_string(d.number) + (name.empty() ? "" : " (" + name + ")");
        if (listed.insert(item).second) others += (others.empty() ? "" : ", ") + item;
      }
    }
    if (all.empty())
      Fail("", "no dataset 58 (function) to read a time record from; the file holds dataset" +
                   std::string(file_.datasets.size() > 1 ? "s " : " ") + others);
    if (mapping_.records.empty()) return all;
    std::vector<Channel> selected;
    for (int r : mapping_.records) {
      if (r < 1 || r > static_cast<int>(all.size()))
        Fail(mapping_.source.empty() ? "records" : mapping_.source + ": records",
             "record " + std::to_string(r) + " does not exist (the file has " +
                 std::to_string(all.size()) + " dataset 58 records)");
      selected.push_back(all[r - 1]);
    }
    return selected;
  }

  // Function type, real ordinate, a time abscissa with equal spacing.
  void CheckTime(Channel* c) const {
    const Function58& f = *c->f;
    const AxisInfo& a = f.abscissa;
    std::string u;
    for (char ch : a.units)
      if (ch != ' ') u += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const bool time_units = u == "s" || u == "sec" || u == "ms";
    const bool time_axis = a.specific_data_type == 17 || time_units;
    if (f.function_type != 1 && !(f.function_type == 0 && time_axis)) {
      const std::string name = FunctionTypeName(f.function_type);
      Fail(c->where, std::string(std::strchr("aeiou", name[0]) ? "is an " : "is a ") + name +
                         " (function type " + std::to_string(f.function_type) +
                         "), not a time response (function type 1)" +
                         (f.function_type == 4 ? "; an FRF file is read by frfit convert" : ""));
    }
    if (a.specific_data_type != 0 && a.specific_data_type != 1 && a.specific_data_type != 17)
      Fail(c->where + ".record 8", "abscissa specific data type " + std::to_string(a.specific_data_type) +
                                       ", expected time (17)");
    if (!time_units && !Blank(a.units))
      Fail(c->where + ".record 8", "abscissa units '" + a.units + "', expected time in s (or ms)");
    if (f.is_complex())
      Fail(c->where + ".record 7.ordinate_type",
           "expected real samples (2 or 4) in a time response, got complex (" +
               std::to_string(f.ordinate_type) + ")");
    const double to_s = u == "ms" ? 1e-3 : 1.0;
    const size_t n = f.x.size();
    if (n < 2) Fail(c->where + ".record 7.num_points", "expected at least 2 samples, got " + std::to_string(n));
    double dt = f.dx;
    if (!f.even) {  // equal spacing stored point by point (single precision: a tolerance)
      dt = (f.x[n - 1] - f.x[0]) / static_cast<double>(n - 1);
      for (size_t k = 0; k < n; ++k)
        if (!(dt > 0.0) || !(std::abs(f.x[k] - (f.x[0] + static_cast<double>(k) * dt)) <= 0.01 * dt))
          Fail(c->where + ".abscissa[" + std::to_string(k) + "]",
               "expected equally spaced samples, got " + FormatDouble(f.x[k]) + " s where spacing " +
                   FormatDouble(dt) + " from " + FormatDouble(f.x[0]) + " s puts " +
                   FormatDouble(f.x[0] + static_cast<double>(k) * dt));
    }
    c->dt_s = dt * to_s;
    c->t0_s = f.x[0] * to_s;
  }

  void Classify(Channel* c) const {
    const Function58& f = *c->f;
    const AxisInfo& o = f.ordinate;
    const std::optional<ChannelQuantity> by_code = FromCode(o.specific_data_type);
    const std::optional<UnitDimensions> dims = ParseUnits(o.units);
    const std::optional<ChannelQuantity> by_label = dims ? FromDimensions(*dims) : std::nullopt;
    if (!Blank(f.denominator.units))
      Fail(c->where + ".record 10", "a time response has no ordinate denominator, got units '" +
                                        f.denominator.units + "'");
    if (by_code && by_label && *by_code != *by_label)
      Fail(c->where + ".record 9", "specific data type " + std::to_string(o.specific_data_type) +
                                       " says " + QuantityName(*by_code) + " but the units label '" +
                                       o.units + "' says " + QuantityName(*by_label));
    const bool general = o.specific_data_type == 0 || o.specific_data_type == 1;
    c->quantity = by_code ? by_code : general ? by_label : std::nullopt;
    c->what = (Blank(o.label) ? std::string() : "'" + o.label + "' ") + "(specific data type " +
              std::to_string(o.specific_data_type) + (Blank(o.units) ? "" : ", units '" + o.units + "'") + ")";
    if (o.specific_data_type == kReactionForce)
      c->what = "a reaction force " + c->what + ", not the hammer's excitation force (13)";
    if (!c->quantity) return;
    c->scale = by_label == c->quantity ? dims->scale : 1.0;  // codes alone: SI
    const bool force = *c->quantity == ChannelQuantity::kForce;
    const bool exponents_given = o.length_exponent != 0 || o.force_exponent != 0;
    if (exponents_given && (o.length_exponent != (force ? 0 : 1) || o.force_exponent != (force ? 1 : 0)))
      Fail(c->where + ".record 9", "unit exponents (length " + std::to_string(o.length_exponent) +
                                       ", force " + std::to_string(o.force_exponent) + ") are not " +
                                       QuantityName(*c->quantity) + ", although the " +
                                       (by_code ? "specific data type" : "units label") + " says so");
    for (size_t k = 0; k < f.y.size(); ++k)
      if (!std::isfinite(f.y[k].real()))
        Fail(c->where + ".data[" + std::to_string(k) + "]",
             "expected a finite sample, got " + FormatDouble(f.y[k].real()));
  }

  void RequireForce(const std::vector<Channel>& all) const {
    std::map<std::string, std::vector<int>> held;  // description → records
    for (const Channel& c : all) {
      if (c.quantity == ChannelQuantity::kForce) return;
      const std::string units = c.f->ordinate.units;
      held[c.quantity ? std::string(QuantityName(*c.quantity)) + (Blank(units) ? "" : " in '" + units + "'")
                      : c.what]
          .push_back(c.record);
    }
    std::string list;
    for (const auto& [what, records] : held)
      list += (list.empty() ? "" : "; ") + what + " (" + RecordList(records) + ")";
    Fail("", "no force channel: the time records hold " + list +
                 "; an impact test needs the hammer's force (ordinate specific data type 13, or "
                 "units N, kN or lbf)");
  }

  // Responses of the sensor node, forces of the excitation node (when the mapping names them).
  std::vector<Channel> SelectNodes(const std::vector<Channel>& all) const {
    std::vector<Channel> used;
    for (const Channel& c : all) {
      const bool force = *c.quantity == ChannelQuantity::kForce;
      const std::optional<long>& node = force ? mapping_.excitation_node : mapping_.sensor_node;
      if (!node || c.f->response_node == *node) used.push_back(c);
    }
    std::set<long> nodes;
    for (const Channel& c : used)
      if (*c.quantity != ChannelQuantity::kForce) nodes.insert(c.f->response_node);
    if (nodes.size() > 1) {
      std::string list;
      for (long n : nodes) list += (list.empty() ? "" : ", ") + std::to_string(n);
      Fail("response_node", "the response records have several nodes (" + list +
                                "); say which one is the sensor with sensor_node in a mapping file");
    }
    if (nodes.empty())
      Fail("", mapping_.sensor_node
                   ? "no response record at the mapping's sensor_node " + std::to_string(*mapping_.sensor_node)
                   : "no response channel: the time records hold only force; an impact test needs "
                     "the responses (acceleration, velocity or displacement) too");
    if (std::none_of(used.begin(), used.end(),
                     [](const Channel& c) { return *c.quantity == ChannelQuantity::kForce; }))
      Fail("", "no force record at the mapping's excitation_node " + std::to_string(*mapping_.excitation_node));
    return used;
  }

  void Direction(Channel* c) const {
    const int code = c->f->response_direction;
    const auto found = mapping_.directions.find(code);
    if (found == mapping_.directions.end())
      Fail(c->where + ".response_direction",
           "direction code " + std::to_string(code) +
               (code == 0 ? " (scalar)" : std::abs(code) > 3 ? " (rotation)" : "") +
               " has no sensor axis in the mapping (translations ±1/±2/±3 map to x/y/z by default; "
               "a mapping file's directions: can assign others)");
    c->axis = found->second.first;
    c->sign = found->second.second;
  }

  // Hits: by load case when the records carry several, else a force record and the responses
  // that follow it.
  std::vector<std::vector<Channel>> Group(const std::vector<Channel>& used) const {
    std::vector<std::vector<Channel>> hits;
    std::set<long> cases;
    for (const Channel& c : used) cases.insert(c.f->load_case);
    if (cases.size() > 1) {
      std::map<long, size_t> index;
      for (const Channel& c : used) {
        auto [it, fresh] = index.emplace(c.f->load_case, hits.size());
        if (fresh) hits.emplace_back();
        hits[it->second].push_back(c);
      }
      for (auto& hit : hits)  // the force first
        std::stable_partition(hit.begin(), hit.end(),
                              [](const Channel& c) { return *c.quantity == ChannelQuantity::kForce; });
    } else {
      for (const Channel& c : used) {
        if (*c.quantity == ChannelQuantity::kForce) {
          hits.emplace_back();
        } else if (hits.empty()) {
          Fail(c.where, "is a response record before any force record, and the records carry one "
                        "load case id (" + std::to_string(c.f->load_case) +
                        "): cannot tell which hit it belongs to (a hit's records must start with its "
                        "force, or each hit carry its own load case id)");
        }
        hits.back().push_back(c);
      }
    }
    const bool by_case = cases.size() > 1;
    for (size_t h = 0; h < hits.size(); ++h) {
      const std::string name = by_case ? "load case " + std::to_string(hits[h].front().f->load_case)
                                       : "hit " + std::to_string(h + 1);
      const Channel& first = hits[h].front();
      if (*first.quantity != ChannelQuantity::kForce)
        Fail(first.where, "load case " + std::to_string(first.f->load_case) +
                              " has no force record: every hit needs the hammer's force");
      std::map<std::string, int> seen;
      for (const Channel& c : hits[h]) {
        const bool force = *c.quantity == ChannelQuantity::kForce;
        const std::string key = force ? "force" : c.Key();
        const auto [it, fresh] = seen.emplace(key, c.record);
        if (!fresh)
          Fail(c.where, force ? "is a second force record in " + name + " (the first: record " +
                                    std::to_string(it->second) + "): one hammer per hit"
                              : "is a second " + key + " channel in " + name + " (the first: record " +
                                    std::to_string(it->second) +
                                    "): cannot tell the hits apart (give each hit its own load case id, "
                                    "or start each with its force record)");
      }
      if (hits[h].size() < 2)
        Fail(first.where, "opens " + name + " without a response record");
    }
    return hits;
  }

  static std::string ChannelsOf(const std::vector<Channel>& hit) {
    std::string out;
    for (const Channel& c : hit) out += (out.empty() ? "" : ", ") + c.Key();
    return out;
  }

  std::vector<TimeRecording> Build(const std::vector<std::vector<Channel>>& hits) const {
    std::vector<TimeRecording> out;
    const Channel& reference = hits.front().front();
    std::map<std::string, std::vector<int>> scaled;  // "units|factor|SI" → records
    std::vector<int> flipped;
    auto records_of = [](const std::vector<Channel>& hit) {
      std::vector<int> r;
      for (const Channel& c : hit) r.push_back(c.record);
      return RecordList(r);
    };
    std::vector<std::string> keys0;
    for (const Channel& c : hits.front()) keys0.push_back(c.Key());
    std::sort(keys0.begin(), keys0.end());
    for (size_t h = 0; h < hits.size(); ++h) {
      const auto& hit = hits[h];
      std::vector<std::string> keys;
      for (const Channel& c : hit) keys.push_back(c.Key());
      std::sort(keys.begin(), keys.end());
      if (keys != keys0)
        Fail(hit.front().where, "hit " + std::to_string(h + 1) + " (" + records_of(hit) + ") records " +
                                    ChannelsOf(hit) + " but hit 1 (" + records_of(hits.front()) +
                                    ") records " + ChannelsOf(hits.front()) +
                                    ": every hit must record the same channels");
      const Channel& force = hit.front();
      TimeRecording rec;
      rec.sample_rate_hz = 1.0 / force.dt_s;
      rec.source = src_ + " " + records_of(hit);
      rec.hit = hits.size() == 1 ? -1 : static_cast<int>(h);
      for (const Channel& c : hit) {
        if (!(std::abs(c.dt_s - reference.dt_s) <= 1e-6 * reference.dt_s))
          Fail(c.where + ".record 7.abscissa_increment",
               "sample spacing " + FormatDouble(c.dt_s) + " s (" + FormatDouble(1.0 / c.dt_s) +
                   " Hz) differs from " + FormatDouble(reference.dt_s) + " s (" +
                   FormatDouble(1.0 / reference.dt_s) + " Hz) in " + reference.where +
                   ": every channel must have one sample rate");
        if (c.f->y.size() != force.f->y.size())
          Fail(c.where + ".record 7.num_points",
               "has " + std::to_string(c.f->y.size()) + " samples but the hit's force (" + force.where +
                   ") has " + std::to_string(force.f->y.size()) + ": a hit's channels must be equally long");
        if (!(std::abs(c.t0_s - force.t0_s) <= 0.01 * force.dt_s))
          Fail(c.where + ".record 7.abscissa_min",
               "starts at " + FormatDouble(c.t0_s) + " s but the hit's force (" + force.where +
                   ") at " + FormatDouble(force.t0_s) + " s: a hit's channels must be sampled together");
        TimeChannel ch;
        const Function58& f = *c.f;
        std::string base = !Blank(f.id_lines[0]) ? f.id_lines[0]
                           : !Blank(f.response_name) ? f.response_name
                                                     : "node " + std::to_string(f.response_node);
        ch.name = base + " (record " + std::to_string(c.record) + ")";
        ch.quantity = *c.quantity;
        ch.axis = c.axis;
        const double factor = c.scale * c.sign;
        ch.samples.resize(f.y.size());
        for (size_t k = 0; k < f.y.size(); ++k) ch.samples[k] = factor * f.y[k].real();
        rec.channels.push_back(std::move(ch));
        if (c.scale != 1.0)
          scaled[f.ordinate.units + "|" + FormatDouble(c.scale) + "|" + SiUnits(*c.quantity)].push_back(c.record);
        if (c.sign < 0) flipped.push_back(c.record);
      }
      out.push_back(std::move(rec));
    }
    for (const auto& [key, records] : scaled) {
      const size_t a = key.find('|'), b = key.rfind('|');
      Warn(src_, "units", RecordList(records) + ": '" + key.substr(0, a) + "' scaled by " +
                              key.substr(a + 1, b - a - 1) + " to " + key.substr(b + 1));
    }
    if (!flipped.empty())
      Warn(src_, "directions", RecordList(flipped) + ": sign flipped, a negative direction code "
                                                     "mapped onto the sensor's + axis");
    return out;
  }

  const File& file_;
  const std::string src_;
  const Mapping& mapping_;
};

}  // namespace

std::vector<TimeRecording> ToTimeRecordings(const File& file, const Mapping& mapping) {
  return Reader(file, mapping).Run();
}

std::vector<TimeRecording> ReadTimeRecordings(const std::string& path, const Mapping& mapping) {
  return ToTimeRecordings(Read(path), mapping);
}

}  // namespace frfit::uff
