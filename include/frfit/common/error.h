// One exception type for every user-facing failure. Its message is the single line the CLI prints
// after "error: ": it names the file, the field and what was expected, so a script or a person can
// act on it without reading the source.
#pragma once

#include <stdexcept>
#include <string>

namespace frfit {

class Error : public std::runtime_error {
 public:
  // file: the input it concerns (may be empty); field: a dotted path inside it (may be empty).
  Error(const std::string& file, const std::string& field, const std::string& message);
  explicit Error(const std::string& message);

  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_;
  std::string field_;
};

// Throws Error(file, field, "expected <expected>, got <got>") unless ok.
void Require(bool ok, const std::string& file, const std::string& field,
             const std::string& expected, const std::string& got);

// How an IsValid(std::string* error) says no: `why` ("field: expected …") into *error when error
// is not null, and false.
bool Invalid(std::string* error, const std::string& why);

// Shortest decimal text that reads back as the same double (for messages and JSON).
std::string FormatDouble(double value);

}  // namespace frfit
