// A small CSV table for `frfit export` (docs/export.md): named columns of text cells, written as
// RFC 4180-style text that spreadsheets, pandas and MATLAB's readtable read without options.
// Numbers are written so that they read back as the same double; reading CSV is not done here.
#pragma once

#include <string>
#include <vector>

namespace frfit {

class CsvTable {
 public:
  // `name` is the file name the table is written under ("frf.csv"); `description` says in one
  // line what a row is and the units, for the command's "wrote" line and --json.
  CsvTable(std::string name, std::string description);

  // Every column has one cell per row: the first column added sets the number of rows, and a
  // column of another length is a programming error (std::logic_error).
  void AddColumn(const std::string& header, std::vector<std::string> cells);
  void AddNumberColumn(const std::string& header, const std::vector<double>& values);

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  std::vector<std::string> headers() const;
  size_t rows() const { return columns_.empty() ? 0 : columns_.front().cells.size(); }

  // Header row, then one line per row: comma-separated, '\n' line ends, a cell quoted only when
  // it holds a comma, a quote or a line break (quotes doubled).
  std::string ToText() const;

 private:
  struct Column {
    std::string header;
    std::vector<std::string> cells;
  };
  std::string name_, description_;
  std::vector<Column> columns_;
};

// A double as CSV text: the shortest decimal that reads back as the same double (std::to_chars),
// "inf" or "-inf" for infinities, and an empty cell for NaN, which every CSV reader takes as a
// missing value (a NaN in frfit's files means "not known" or "not applicable").
std::string CsvNumber(double value);

}  // namespace frfit
