// The campaign's invariants, checked once for every reader and writer, each breach naming the
// record (its source) that shows it.
#include "frfit/campaign/campaign.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "frfit/common/error.h"

namespace frfit::campaign {

std::string ToString(const Dof& dof) {
  const char* axis = "?XYZ";
  const int a = std::abs(dof.direction);
  if (a == 0) return std::to_string(dof.node);  // a scalar DOF (UFF direction 0)
  return std::to_string(dof.node) + (dof.direction < 0 ? "-" : "+") + (a <= 3 ? axis[a] : '?');
}

namespace {

std::vector<Dof> Unique(const std::vector<Record>& records, Dof Record::*member) {
  std::vector<Dof> out;
  for (const Record& r : records)
    if (std::find(out.begin(), out.end(), r.*member) == out.end()) out.push_back(r.*member);
  return out;
}

std::string Name(const Record& r, size_t index, bool by_origin) {
  return by_origin && !r.where.empty() ? r.where : "record " + std::to_string(index + 1);
}

void CheckAxis(const Campaign& c, const std::string& source) {
  if (c.frequency_hz.empty()) throw Error(source, "frequency_hz", "expected at least one line, got none");
  for (size_t k = 0; k < c.frequency_hz.size(); ++k) {
    const double f = c.frequency_hz[k];
    if (!std::isfinite(f) || f < 0 || (k > 0 && !(f > c.frequency_hz[k - 1])))
      throw Error(source, "frequency_hz[" + std::to_string(k) + "]",
                  "expected finite, non-negative, increasing frequencies, got " + FormatDouble(f));
  }
}

void CheckDirection(const Dof& d, const std::string& source, const std::string& record,
                    const char* which) {
  if (std::abs(d.direction) > 3)
    throw Error(source, record + "." + which + "_direction",
                "expected 0 (scalar) or a translation ±1, ±2 or ±3 (X, Y, Z), got " + std::to_string(d.direction));
}

void CheckRecord(const Campaign& c, const Record& r, const std::string& source, const std::string& name,
                 bool require_coordinates) {
  CheckDirection(r.response, source, name, "response");
  CheckDirection(r.reference, source, name, "reference");
  if (r.H.size() != c.frequency_hz.size())
    throw Error(source, name, "expected " + std::to_string(c.frequency_hz.size()) +
                                  " values (the campaign's lines), got " + std::to_string(r.H.size()));
  for (const auto& h : r.H)
    if (!std::isfinite(h.real()) || !std::isfinite(h.imag()))
      throw Error(source, name, "expected finite FRF values, got " + FormatDouble(h.real()));
  if (!r.coherence.empty()) {
    if (r.coherence.size() != c.frequency_hz.size())
      throw Error(source, name + ".coherence", "expected " + std::to_string(c.frequency_hz.size()) +
                                                   " values, got " + std::to_string(r.coherence.size()));
    for (double g : r.coherence)
      if (!(g >= 0 && g <= 1))
        throw Error(source, name + ".coherence", "expected values in [0, 1], got " + FormatDouble(g));
  }
  if (r.averages && *r.averages < 1)
    throw Error(source, name + ".averages", "expected at least 1, got " + std::to_string(*r.averages));
  if (require_coordinates)
    for (const Dof& d : {r.response, r.reference})
      if (!c.coordinates.count(d.node))
        throw Error(source, name, "expected coordinates of node " + std::to_string(d.node) +
                                      " (a dataset 15 or 2411), the campaign has none for it");
}

}  // namespace

std::vector<Dof> Campaign::ResponseDofs() const { return Unique(records, &Record::response); }
std::vector<Dof> Campaign::ReferenceDofs() const { return Unique(records, &Record::reference); }

std::vector<long> Campaign::Nodes() const {
  std::set<long> nodes;
  for (const Record& r : records) nodes.insert({r.response.node, r.reference.node});
  for (const TraceLine& t : trace_lines)
    for (long n : t.nodes)
      if (n != 0) nodes.insert(n);
  return {nodes.begin(), nodes.end()};
}

void Validate(const Campaign& c, const std::string& file, bool require_coordinates, bool by_origin) {
  CheckAxis(c, file);
  if (c.records.empty()) throw Error(file, "records", "expected at least one FRF record, got none");
  std::set<std::pair<std::pair<long, int>, std::pair<long, int>>> seen;
  for (size_t i = 0; i < c.records.size(); ++i) {
    const Record& r = c.records[i];
    const std::string name = Name(r, i, by_origin);
    const std::string source = by_origin && !r.file.empty() ? r.file : file;
    CheckRecord(c, r, source, name, require_coordinates);
    if (r.format != c.records.front().format)
      throw Error(source, name, "expected " + frfit::ToString(c.records.front().format) + " (as " +
                                    Name(c.records.front(), 0, by_origin) + ", units " + c.records.front().units +
                                    "), got " + frfit::ToString(r.format) + " (units " + r.units +
                                    "): a campaign holds one FRF format");
    const auto key = std::make_pair(std::make_pair(r.response.node, std::abs(r.response.direction)),
                                    std::make_pair(r.reference.node, std::abs(r.reference.direction)));
    if (!seen.insert(key).second)
      throw Error(source, name, "expected each response/reference DOF pair once, got " +
                                    ToString(r.response) + " / " + ToString(r.reference) + " again");
  }
  for (const TraceLine& t : c.trace_lines)
    for (long n : t.nodes)
      if (n != 0 && !c.coordinates.count(n))
        throw Error(file, "trace line " + std::to_string(t.id),
                    "expected coordinates of node " + std::to_string(n) +
                        " (a dataset 15 or 2411), the campaign has none for it");
}

}  // namespace frfit::campaign
