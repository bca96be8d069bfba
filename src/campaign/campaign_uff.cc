// UFF files → campaign: FRF (type 4) and coherence (type 6) records of any nodes, node coordinates
// (15, 2411) and trace lines (82); each record kept with its node and direction, its values scaled
// to SI. Whatever cannot join the campaign is refused naming its record; datasets that hold
// nothing a campaign keeps are listed in Campaign::unused.
#include "frfit/campaign/campaign_uff.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <tuple>

#include "frfit/common/error.h"
#include "frfit/frf/frf_set.h"
#include "frfit/files/atomic_file.h"

namespace frfit::campaign {
namespace {

std::vector<std::string> Tokens(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

long ToLong(const std::string& t, const std::string& file, const std::string& field) {
  char* end = nullptr;
  const long v = std::strtol(t.c_str(), &end, 10);
  if (t.empty() || *end != '\0') throw Error(file, field, "expected an integer, got '" + t + "'");
  return v;
}

double ToReal(std::string t, const std::string& file, const std::string& field) {
  for (char& c : t)
    if (c == 'D' || c == 'd') c = 'E';
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !std::isfinite(v))
    throw Error(file, field, "expected a real number, got '" + t + "'");
  return v;
}

std::string DatasetWhere(const uff::Dataset& d) {
  return "dataset " + std::to_string(d.number) + " (line " + std::to_string(d.first_line) + ")";
}

void AddNode(Campaign* c, long node, long def_cs, std::array<double, 3> xyz, const std::string& file,
             const std::string& field) {
  if (def_cs != 0)
    throw Error(file, field, "expected node " + std::to_string(node) +
                                 " in the global coordinate system 0, got system " + std::to_string(def_cs));
  const auto [it, added] = c->coordinates.emplace(node, xyz);
  if (!added && it->second != xyz)
    throw Error(file, field, "expected node " + std::to_string(node) +
                                 " once or with the same coordinates, got different ones again");
}

// Dataset 15: one line per node, "label def_cs disp_cs color x y z".
void ReadNodes15(const uff::Dataset& d, const std::string& file, Campaign* c) {
  for (size_t i = 0; i < d.lines.size(); ++i) {
    const auto t = Tokens(d.lines[i]);
    if (t.empty()) continue;
    const std::string field = DatasetWhere(d) + ".line " + std::to_string(i + 1);
    if (t.size() != 7) throw Error(file, field, "expected 4 integers and 3 coordinates, got " +
                                                    std::to_string(t.size()) + " fields");
    AddNode(c, ToLong(t[0], file, field), ToLong(t[1], file, field),
            {ToReal(t[4], file, field), ToReal(t[5], file, field), ToReal(t[6], file, field)}, file, field);
  }
}

// Dataset 2411: two lines per node, "label export_cs disp_cs color" then "x y z".
void ReadNodes2411(const uff::Dataset& d, const std::string& file, Campaign* c) {
  std::vector<std::vector<std::string>> lines;
  for (const auto& l : d.lines)
    if (auto t = Tokens(l); !t.empty()) lines.push_back(std::move(t));
  if (lines.size() % 2 != 0)
    throw Error(file, DatasetWhere(d), "expected two lines per node, got " + std::to_string(lines.size()));
  for (size_t i = 0; i < lines.size(); i += 2) {
    const std::string field = DatasetWhere(d) + ".node " + std::to_string(i / 2 + 1);
    if (lines[i].size() != 4 || lines[i + 1].size() != 3)
      throw Error(file, field, "expected 4 integers, then 3 coordinates");
    const auto& x = lines[i + 1];
    AddNode(c, ToLong(lines[i][0], file, field), ToLong(lines[i][1], file, field),
            {ToReal(x[0], file, field), ToReal(x[1], file, field), ToReal(x[2], file, field)}, file, field);
  }
}

// Dataset 82: "trace_num n_nodes color", the trace's name, then n_nodes node labels (0 = pen up).
void ReadTrace82(const uff::Dataset& d, const std::string& file, Campaign* c) {
  const std::string field = DatasetWhere(d);
  if (d.lines.size() < 2) throw Error(file, field, "expected a header line and a name line");
  const auto head = Tokens(d.lines[0]);
  if (head.size() != 3) throw Error(file, field + ".line 1", "expected trace number, node count, colour");
  TraceLine t;
  t.id = ToLong(head[0], file, field + ".line 1");
  const long n = ToLong(head[1], file, field + ".line 1");
  std::string name = d.lines[1];
  while (!name.empty() && (name.back() == ' ' || name.back() == '\r')) name.pop_back();
  t.name = name;
  std::vector<long> labels;
  for (size_t i = 2; i < d.lines.size(); ++i)
    for (const auto& tok : Tokens(d.lines[i])) labels.push_back(ToLong(tok, file, field + ".nodes"));
  if (n < 0 || static_cast<size_t>(n) > labels.size())
    throw Error(file, field + ".nodes", "expected " + std::to_string(n) + " node labels, got " +
                                            std::to_string(labels.size()));
  // Writers pad the last line with zeros beyond n_nodes; those are not part of the trace.
  t.nodes.assign(labels.begin(), labels.begin() + n);
  for (size_t i = n; i < labels.size(); ++i)
    if (labels[i] != 0)
      throw Error(file, field + ".nodes", "expected " + std::to_string(n) + " node labels, got " +
                                              std::to_string(labels.size()) + " non-blank ones");
  c->trace_lines.push_back(std::move(t));
}

struct Item {
  const uff::Function58* f;
  std::string file, where;
};

std::string Where(const uff::Dataset& d) {
  return std::string("dataset 58") + (d.binary ? "b" : "") + " record " + std::to_string(d.record);
}

// The averages frfit writes into ID line 5 of its coherence records (ID line 4 "frfit ...").
std::optional<int> AveragesInFile(const uff::Function58& f) {
  if (f.id_lines[3].rfind("frfit ", 0) != 0 || f.id_lines[4].rfind("averages ", 0) != 0) return {};
  char* end = nullptr;
  const long n = std::strtol(f.id_lines[4].c_str() + 9, &end, 10);
  if (*end != '\0' || n < 1 || n > 1000000) return {};
  return static_cast<int>(n);
}

void CheckAxis(const Item& it, const Item& first) {
  const auto &x = it.f->x, &x0 = first.f->x;
  const std::string expected = "the frequency axis of " + first.file + " " + first.where + " (" +
                               std::to_string(x0.size()) + " lines, " + FormatDouble(x0.front()) +
                               " to " + FormatDouble(x0.back()) + " Hz)";
  if (x.size() != x0.size())
    throw Error(it.file, it.where, "expected " + expected + ", got " + std::to_string(x.size()) + " lines");
  for (size_t k = 0; k < x.size(); ++k)
    if (!(std::abs(x[k] - x0[k]) <= 1e-9 * std::max(1.0, std::abs(x0[k]))))
      throw Error(it.file, it.where + ".abscissa[" + std::to_string(k) + "]",
                  "expected " + expected + ", got " + FormatDouble(x[k]) + " Hz at line " +
                      std::to_string(k) + " where it has " + FormatDouble(x0[k]) + " Hz");
}

Record ToRecord(const Item& it) {
  const uff::DetectedUnits u = uff::DetectUnits(*it.f, it.file, it.where);
  if (!u.format)
    throw Error(it.file, it.where + ".record 9",
                "expected FRF units (motion over force), got '" + it.f->ordinate.units + "' over '" +
                    it.f->denominator.units + "' (specific data types " +
                    std::to_string(it.f->ordinate.specific_data_type) + "/" +
                    std::to_string(it.f->denominator.specific_data_type) + ")");
  Record r;
  r.response = {it.f->response_node, it.f->response_direction};
  r.reference = {it.f->reference_node, it.f->reference_direction};
  r.format = *u.format;
  r.units = it.f->ordinate.units + " / " + it.f->denominator.units;
  r.file = it.file;
  r.where = it.where;
  r.H.reserve(it.f->y.size());
  for (const auto& y : it.f->y) r.H.push_back(y * u.scale);
  return r;
}

// Each coherence onto the FRF of the same nodes and directions (signs do not matter to |γ|²).
void AddCoherences(const std::vector<Item>& coherences, const UffOptions& options, Campaign* c) {
  std::map<std::tuple<long, int, long, int>, size_t> index;
  for (size_t i = 0; i < c->records.size(); ++i) {
    const Record& r = c->records[i];
    index[{r.response.node, std::abs(r.response.direction), r.reference.node,
           std::abs(r.reference.direction)}] = i;
  }
  size_t unknown = 0;
  for (const Item& it : coherences) {
    const auto* f = it.f;
    const auto found = index.find({f->response_node, std::abs(f->response_direction), f->reference_node,
                                   std::abs(f->reference_direction)});
    if (found == index.end())
      throw Error(it.file, it.where,
                  "expected a coherence (function type 6) of an FRF record's DOFs, got " +
                      ToString(Dof{f->response_node, f->response_direction}) + " / " +
                      ToString(Dof{f->reference_node, f->reference_direction}) + ", which no FRF has");
    Record& r = c->records[found->second];
    if (!r.coherence.empty())
      throw Error(it.file, it.where, "expected one coherence per FRF, got a second one for " + r.where);
    for (const auto& y : f->y) r.coherence.push_back(y.real());
    r.where += ", coherence " + (it.file == r.file ? "" : it.file + " ") + it.where;
    r.averages = options.averages ? options.averages : AveragesInFile(*f);
    unknown += !r.averages;
  }
  if (options.averages && !coherences.empty())
    c->assumed.push_back("averages " + std::to_string(*options.averages) + " behind the coherence of " +
                         std::to_string(coherences.size()) +
                         " records (given; dataset 58 does not carry it)");
  if (unknown > 0)
    c->assumed.push_back(std::to_string(unknown) +
                         " coherence records without a number of averages: none assumed (give --averages N)");
}

}  // namespace

bool UffOptions::IsValid(std::string* error) const {
  if (averages && *averages < 1)
    return Invalid(error, "averages: expected an integer >= 1, got " + std::to_string(*averages));
  return true;
}

Campaign FromUff(const std::vector<uff::File>& files, const UffOptions& options) {
  if (std::string error; !options.IsValid(&error)) throw Error("campaign", "", error);
  if (files.empty()) throw Error("campaign", "files", "expected at least one UFF file, got none");
  Campaign c;
  std::vector<Item> frfs, coherences;
  for (const uff::File& file : files) {
    for (const uff::Dataset& d : file.datasets) {
      if (d.function) {
        const Item it{&*d.function, file.source, Where(d)};
        const int t = d.function->function_type;
        if (t == 4 || (t == 0 && uff::DetectUnits(*it.f, it.file, it.where).format)) frfs.push_back(it);
        else if (t == 6) coherences.push_back(it);
        else
          throw Error(it.file, it.where, "expected an FRF (function type 4) or a coherence (6), got a " +
                                             uff::FunctionTypeName(t) + " (function type " +
                                             std::to_string(t) + ")");
      } else if (d.number == 15) {
        ReadNodes15(d, file.source, &c);
      } else if (d.number == 2411) {
        ReadNodes2411(d, file.source, &c);
      } else if (d.number == 82) {
        ReadTrace82(d, file.source, &c);
      } else {
        const std::string name = uff::DatasetName(d.number);
        c.unused.push_back(file.source + ": " + DatasetWhere(d) + (name.empty() ? "" : " " + name));
      }
    }
  }
  if (frfs.empty())
    throw Error(files.front().source, "dataset 58",
                "expected at least one FRF record (function type 4), got none" +
                    (coherences.empty() ? std::string() : " (only coherences, the first " +
                                                              coherences.front().where + ")"));
  for (const Item& it : frfs) CheckAxis(it, frfs.front());
  for (const Item& it : coherences) CheckAxis(it, frfs.front());
  c.frequency_hz = frfs.front().f->x;
  for (const Item& it : frfs) c.records.push_back(ToRecord(it));
  AddCoherences(coherences, options, &c);
  c.exponential_window = options.exponential_window;
  if (c.exponential_window)
    c.assumed.push_back("an exponential window was applied (stated; dataset 58 cannot record it)");
  Validate(c, files.front().source, options.require_coordinates, /*by_origin=*/true);
  return c;
}

Campaign ReadUff(const std::vector<std::string>& paths, const UffOptions& options) {
  if (std::string error; !options.IsValid(&error)) throw Error("campaign", "", error);
  std::vector<uff::File> files;
  for (const auto& p : paths) files.push_back(uff::Read(p));
  return FromUff(files, options);
}

std::vector<uff::Function58> ToUff(const Campaign& c, bool binary) {
  Validate(c, "campaign");
  std::vector<uff::Function58> frfs, coherences;
  const size_t L = c.frequency_hz.size();
  for (size_t i = 0; i < c.records.size(); ++i) {
    const Record& r = c.records[i];
    // One-entry FRF set: the FRF set writer's abscissa, units and coherence records.
    FrfSet set;
    set.format = r.format;
    set.frequency_hz = c.frequency_hz;
    set.H.assign(L * 9, {0.0, 0.0});
    set.present = {};
    set.present[0] = true;
    for (size_t k = 0; k < L; ++k) set.H[k * 9] = r.H[k];
    if (!r.coherence.empty()) {
      set.coherence.assign(L * 9, 0.0);
      for (size_t k = 0; k < L; ++k) set.coherence[k * 9] = r.coherence[k];
      set.averages = r.averages.value_or(1);
    }
    auto fs = uff::FromFrfSet(set, r.response.node, binary);
    for (size_t j = 0; j < fs.size(); ++j) {
      auto& f = fs[j];
      f.id_lines[0] = std::string(j == 0 ? "frfit FRF " : "frfit coherence ") + ToString(r.response) +
                      " / " + ToString(r.reference);
      f.id_lines[1] = "campaign record " + std::to_string(i + 1);
      if (j == 1 && !r.averages) f.id_lines[4] = "NONE";
      f.function_id = static_cast<long>(i + 1);
      f.response_name = f.reference_name = "NONE";
      f.response_node = r.response.node;
      f.response_direction = r.response.direction;
      f.reference_node = r.reference.node;
      f.reference_direction = r.reference.direction;
    }
    frfs.push_back(std::move(fs[0]));
    if (fs.size() > 1) coherences.push_back(std::move(fs[1]));
  }
  frfs.insert(frfs.end(), coherences.begin(), coherences.end());
  return frfs;
}

void WriteUff(const std::string& path, const Campaign& c, bool binary) {
  WriteTextFileAtomically(path, uff::Format(ToUff(c, binary)));
}

}  // namespace frfit::campaign
