#include "frfit/files/csv_table.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace frfit {
namespace {

std::string Quoted(const std::string& cell) {
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string out = "\"";
  for (char c : cell) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

CsvTable::CsvTable(std::string name, std::string description)
    : name_(std::move(name)), description_(std::move(description)) {}

void CsvTable::AddColumn(const std::string& header, std::vector<std::string> cells) {
  if (!columns_.empty() && cells.size() != rows())
    throw std::logic_error("CsvTable " + name_ + ": column " + header + " has " +
                           std::to_string(cells.size()) + " cells, expected " +
                           std::to_string(rows()));
  columns_.push_back({header, std::move(cells)});
}

void CsvTable::AddNumberColumn(const std::string& header, const std::vector<double>& values) {
  std::vector<std::string> cells;
  cells.reserve(values.size());
  for (double v : values) cells.push_back(CsvNumber(v));
  AddColumn(header, std::move(cells));
}

std::vector<std::string> CsvTable::headers() const {
  std::vector<std::string> out;
  for (const Column& c : columns_) out.push_back(c.header);
  return out;
}

std::string CsvTable::ToText() const {
  std::string text;
  auto line = [&](auto cell) {
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (c) text += ',';
      text += Quoted(cell(columns_[c]));
    }
    text += '\n';
  };
  line([](const Column& c) -> const std::string& { return c.header; });
  for (size_t r = 0; r < rows(); ++r)
    line([r](const Column& c) -> const std::string& { return c.cells[r]; });
  return text;
}

std::string CsvNumber(double value) {
  if (std::isnan(value)) return "";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];  // the shortest form of any double fits in 24 characters
  const auto [end, status] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return status == std::errc() ? std::string(buffer, end) : std::string();
}

}  // namespace frfit
