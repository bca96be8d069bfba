// Parsing UFF files: every dataset is delimited by "-1" lines; datasets 58 (ASCII) and 58b
// (binary) are decoded into Function58 records, every other dataset is recognised by number and
// skipped. All reads are bounds-checked against the buffer; every problem is an Error naming the
// file, the dataset/record and the field.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/common/hashing.h"
#include "frfit/common/warning.h"
#include "frfit/io/uff.h"

namespace frfit::uff {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\0'))
    s.remove_suffix(1);
  return std::string(s);
}

// A short printable rendering of file content for messages.
std::string Show(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += (c >= 32 && c < 127) ? c : '?';
  if (s.size() > 40) out += "...";
  return "'" + out + "'";
}

std::vector<std::string_view> Tokens(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    const size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

bool ParseLong(std::string_view text, long* value) {
  text = Trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return false;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), *value);
  return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

// A Fortran real: E or D exponent, optional leading '+'.
bool ParseReal(std::string_view text, double* value) {
  text = Trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.size() > 64) return false;
  char buf[65];
  for (size_t i = 0; i < text.size(); ++i) buf[i] = (text[i] == 'D' || text[i] == 'd') ? 'E' : text[i];
  const auto r = std::from_chars(buf, buf + text.size(), *value);
  return r.ec == std::errc() && r.ptr == buf + text.size();
}

// Fixed-width field [begin, begin+width) of a line padded with blanks.
std::string_view Field(std::string_view line, size_t begin, size_t width) {
  if (begin >= line.size()) return {};
  return line.substr(begin, std::min(width, line.size() - begin));
}

class Cursor {
 public:
  explicit Cursor(std::string_view data) : data_(data) {}
  bool AtEnd() const { return pos_ >= data_.size(); }
  int line() const { return line_; }  // 1-based number of the line Next() returns
  size_t pos() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  // The next line without its terminator ("\n" or "\r\n"); false at the end of the data.
  bool Next(std::string_view* out) {
    if (AtEnd()) return false;
    const size_t nl = data_.find('\n', pos_);
    const size_t end = nl == std::string_view::npos ? data_.size() : nl;
    std::string_view l = data_.substr(pos_, end - pos_);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    *out = l;
    pos_ = nl == std::string_view::npos ? data_.size() : nl + 1;
    ++line_;
    return true;
  }
  std::string_view Take(size_t n) {
    std::string_view out = data_.substr(pos_, n);
    pos_ += out.size();
    for (char c : out) line_ += c == '\n';
    return out;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
  int line_ = 1;
};

bool IsDelimiter(std::string_view line) { return Trim(line) == "-1"; }

class Parser {
 public:
  Parser(std::string_view bytes, const std::string& source) : cur_(bytes), source_(source) {}

  File Run() {
    File file;
    file.source = source_;
    int records = 0;
    while (true) {
      std::string_view line;
      int line_no = 0;
      bool got = false;
      while (true) {  // blank lines between datasets are tolerated
        line_no = cur_.line();
        if (!cur_.Next(&line)) break;
        if (!Trim(line).empty()) {
          got = true;
          break;
        }
      }
      if (!got) break;
      if (!IsDelimiter(line))
        throw Error(source_, "line " + std::to_string(line_no),
                    "expected '-1' opening a dataset, got " + Show(Trim(line)));
      std::string_view id;
      if (!cur_.Next(&id))
        throw Error(source_, "line " + std::to_string(line_no + 1),
                    "file ends after '-1': expected a dataset number");
      const auto tokens = Tokens(id);
      Dataset ds;
      ds.first_line = line_no;
      std::string_view number = tokens.empty() ? std::string_view() : tokens[0];
      if (!number.empty() && (number.back() == 'b' || number.back() == 'B')) {
        ds.binary = true;
        number.remove_suffix(1);
      }
      long n = 0;
      if (!ParseLong(number, &n) || n <= 0 || n > 99999)
        throw Error(source_, "line " + std::to_string(line_no + 1),
                    "expected a dataset number after '-1', got " + Show(id));
      ds.number = static_cast<int>(n);
      if (ds.number == 58) {
        ds.record = ds_record_ = ++records;
        where_ = std::string("dataset 58") + (ds.binary ? "b" : "") + " record " +
                 std::to_string(ds.record);
        ds.function = ParseFunction(tokens, ds.binary);
      } else {
        SkipDataset(ds);
      }
      file.datasets.push_back(std::move(ds));
    }
    if (file.datasets.empty()) throw Error(source_, "", "empty file: no UFF dataset found");
    if (!pyuff_records_.empty()) {
      std::string list;
      for (int r : pyuff_records_) list += (list.empty() ? "" : ", ") + std::to_string(r);
      Warn(source_, "dataset 58b num_bytes",
           "record(s) " + list +
               " give points × value size, not points × values × value size, as pyuff " +
               "writes for complex data; read as record 7 and the data agree");
    }
    return file;
  }

 private:
  // Whether the data hold exactly `bytes` bytes and then the dataset's closing "-1".
  bool BytesThenDelimiter(size_t bytes) const {
    Cursor probe = cur_;
    if (bytes > probe.remaining()) return false;
    probe.Take(bytes);
    std::string_view l;
    while (probe.Next(&l))
      if (!Trim(l).empty()) return IsDelimiter(l);
    return false;
  }

  [[noreturn]] void Fail(const std::string& field, const std::string& message) const {
    throw Error(source_, where_ + (field.empty() ? "" : "." + field), message);
  }

  std::string_view NeedLine(const std::string& record) {
    std::string_view l;
    if (!cur_.Next(&l)) Fail(record, "file ends inside the dataset (truncated): expected " + record);
    if (IsDelimiter(l))
      Fail(record, "dataset closed by '-1' at line " + std::to_string(cur_.line() - 1) +
                       " before " + record);
    return l;
  }

  // Geometry datasets (15, 82, 2411) keep their lines for the campaign reader; others are skipped.
  void SkipDataset(Dataset& ds) {
    const bool keep = ds.number == 15 || ds.number == 82 || ds.number == 2411;
    std::string_view l;
    while (cur_.Next(&l)) {
      if (IsDelimiter(l)) return;
      if (keep) ds.lines.emplace_back(l);
    }
    throw Error(source_, "dataset " + std::to_string(ds.number) + " (line " +
                             std::to_string(ds.first_line) + ")",
                "missing closing '-1' (file ends inside the dataset)");
  }

  long Int(std::string_view text, const std::string& field) {
    long v = 0;
    if (Trim(text).empty()) return 0;  // Fortran reads a blank integer field as 0
    if (!ParseLong(text, &v)) Fail(field, "expected an integer, got " + Show(text));
    return v;
  }

  double Real(std::string_view text, const std::string& field) {
    double v = 0;
    if (!ParseReal(text, &v)) Fail(field, "expected a number, got " + Show(text));
    return v;
  }

  // Record 6: 2(I5,I10),2(1X,10A1,I10,I4).
  void ParseRecord6(std::string_view l, Function58* f) {
    long v[8];
    const size_t at[8][2] = {{0, 5}, {5, 10}, {15, 5}, {20, 10}, {41, 10}, {51, 4}, {66, 10}, {76, 4}};
    bool fixed = true;
    for (int k = 0; k < 8 && fixed; ++k) {
      const auto text = Field(l, at[k][0], at[k][1]);
      fixed = Trim(text).empty() ? (v[k] = 0, true) : ParseLong(text, &v[k]);
    }
    std::string rname, fname;
    if (fixed) {
      rname = std::string(Trim(Field(l, 31, 10)));
      fname = std::string(Trim(Field(l, 56, 10)));
    } else {  // free format with blank-free entity names
      const auto t = Tokens(l);
      if (t.size() != 10)
        Fail("record 6", "expected function type, id, version, load case, response name/node/"
                         "direction, reference name/node/direction, got " + Show(l));
      const int idx[8] = {0, 1, 2, 3, 5, 6, 8, 9};
      const char* names[8] = {"function_type", "function_id", "version", "load_case",
                              "response_node", "response_direction", "reference_node",
                              "reference_direction"};
      for (int k = 0; k < 8; ++k) v[k] = Int(t[idx[k]], names[k]);
      rname = std::string(t[4]);
      fname = std::string(t[7]);
    }
    f->function_type = static_cast<int>(std::clamp(v[0], -1000000L, 1000000L));
    f->function_id = v[1];
    f->version = v[2];
    f->load_case = v[3];
    f->response_name = rname;
    f->response_node = v[4];
    f->reference_name = fname;
    f->reference_node = v[6];
    if (v[5] < -6 || v[5] > 6) Fail("response_direction", "expected -6..6, got " + std::to_string(v[5]));
    if (v[7] < -6 || v[7] > 6)
      Fail("reference_direction", "expected -6..6, got " + std::to_string(v[7]));
    f->response_direction = static_cast<int>(v[5]);
    f->reference_direction = static_cast<int>(v[7]);
  }

  // Record 7: 3I10,3E13.5.
  long ParseRecord7(std::string_view l, Function58* f) {
    const auto t = Tokens(l);
    long ints[3];
    double reals[3];
    bool ok = t.size() == 6;
    for (int k = 0; k < 3 && ok; ++k) ok = ParseLong(t[k], &ints[k]) && ParseReal(t[k + 3], &reals[k]);
    if (!ok) {
      const char* in[3] = {"ordinate_type", "num_points", "abscissa_spacing"};
      const char* rn[3] = {"abscissa_min", "abscissa_increment", "z_value"};
      for (int k = 0; k < 3; ++k) ints[k] = Int(Field(l, 10 * k, 10), in[k]);
      for (int k = 0; k < 3; ++k) reals[k] = Real(Field(l, 30 + 13 * k, 13), rn[k]);
    }
    if (ints[0] != 2 && ints[0] != 4 && ints[0] != 5 && ints[0] != 6)
      Fail("ordinate_type", "expected 2 (real single), 4 (real double), 5 (complex single) or 6 "
                            "(complex double), got " + std::to_string(ints[0]));
    if (ints[1] < 1) Fail("num_points", "expected at least 1, got " + std::to_string(ints[1]));
    if (ints[2] != 0 && ints[2] != 1)
      Fail("abscissa_spacing", "expected 0 (uneven) or 1 (even), got " + std::to_string(ints[2]));
    f->ordinate_type = static_cast<int>(ints[0]);
    f->even = ints[2] == 1;
    f->x_min = reals[0];
    f->dx = reals[1];
    f->z_value = reals[2];
    if (f->even && !(std::isfinite(f->x_min) && std::isfinite(f->dx) && f->dx > 0.0))
      Fail("abscissa_increment", "even spacing needs a finite minimum and an increment > 0, got " +
                                     FormatDouble(f->x_min) + " and " + FormatDouble(f->dx));
    return ints[1];
  }

  // Records 8..11: I10,3I5,2(1X,20A1).
  AxisInfo ParseAxis(std::string_view l, const std::string& record) {
    AxisInfo a;
    long v[4];
    const size_t at[4][2] = {{0, 10}, {10, 5}, {15, 5}, {20, 5}};
    bool fixed = true;
    for (int k = 0; k < 4 && fixed; ++k) {
      const auto text = Field(l, at[k][0], at[k][1]);
      fixed = Trim(text).empty() ? (v[k] = 0, true) : ParseLong(text, &v[k]);
    }
    if (fixed) {
      a.label = TrimRight(Trim(Field(l, 26, 20)));
      a.units = TrimRight(Trim(Field(l, 47, 20)));
    } else {
      const auto t = Tokens(l);
      if (t.size() < 4) Fail(record, "expected specific data type and three unit exponents, got " + Show(l));
      const char* names[4] = {"specific_data_type", "length_exponent", "force_exponent",
                              "temperature_exponent"};
      for (int k = 0; k < 4; ++k) v[k] = Int(t[k], record + "." + names[k]);
      if (t.size() > 4) a.label = std::string(t[4]);
      if (t.size() > 5) a.units = std::string(t[5]);
    }
    for (int k = 0; k < 4; ++k)
      if (v[k] < -1000 || v[k] > 1000) Fail(record, "field " + std::to_string(k + 1) + " out of range: " + std::to_string(v[k]));
    a.specific_data_type = static_cast<int>(v[0]);
    a.length_exponent = static_cast<int>(v[1]);
    a.force_exponent = static_cast<int>(v[2]);
    a.temperature_exponent = static_cast<int>(v[3]);
    return a;
  }

  Function58 ParseFunction(const std::vector<std::string_view>& header, bool binary) {
    Function58 f;
    f.binary = binary;
    long byte_order = 1, n_bytes = 0;
    if (binary) {
      // "58b x y 11 nbytes 0 0 0 0": byte ordering (1 little, 2 big endian), floating-point
      // format (2 IEEE 754), number of ASCII header lines (11), number of binary bytes.
      long v[4];
      const char* names[4] = {"byte_ordering", "floating_point_format", "ascii_lines", "num_bytes"};
      if (header.size() < 5) Fail("58b header", "expected byte ordering, floating-point format, "
                                                "ASCII line count and byte count after '58b'");
      for (int k = 0; k < 4; ++k) v[k] = Int(header[k + 1], names[k]);
      if (v[0] != 1 && v[0] != 2)
        Fail("byte_ordering", "expected 1 (little endian) or 2 (big endian), got " + std::to_string(v[0]));
      if (v[1] != 2)
        Fail("floating_point_format", "only 2 (IEEE 754) is supported, got " + std::to_string(v[1]) +
                                          (v[1] == 1 ? " (DEC VMS)" : v[1] == 3 ? " (IBM 5/370)" : ""));
      if (v[2] != 11) Fail("ascii_lines", "expected 11 ASCII header lines, got " + std::to_string(v[2]));
      if (v[3] < 0) Fail("num_bytes", "expected a byte count >= 0, got " + std::to_string(v[3]));
      byte_order = v[0];
      n_bytes = v[3];
    }
    for (int k = 0; k < 5; ++k) f.id_lines[k] = TrimRight(NeedLine("record " + std::to_string(k + 1)));
    ParseRecord6(NeedLine("record 6"), &f);
    const long n = ParseRecord7(NeedLine("record 7"), &f);
    f.abscissa = ParseAxis(NeedLine("record 8"), "record 8");
    f.ordinate = ParseAxis(NeedLine("record 9"), "record 9");
    f.denominator = ParseAxis(NeedLine("record 10"), "record 10");
    f.z_axis = ParseAxis(NeedLine("record 11"), "record 11");

    const size_t per_point = (f.is_complex() ? 2 : 1) + (f.even ? 0 : 1);
    std::vector<double> values;
    if (binary) {
      const size_t size = f.is_double() ? 8 : 4;
      unsigned long expected_bytes = 0;
      const bool overflow =
          __builtin_mul_overflow(static_cast<unsigned long>(n), per_point * size, &expected_bytes);
      // pyuff writes points × value size as the count even when a point holds several values
      // (complex data, uneven abscissa). Such a record is read when record 7's count is what
      // the file holds: exactly that many bytes, then the closing "-1".
      const bool pyuff_count =
          !overflow && expected_bytes > static_cast<unsigned long>(n_bytes) &&
          static_cast<unsigned long>(n) * size == static_cast<unsigned long>(n_bytes) &&
          BytesThenDelimiter(expected_bytes);
      if (pyuff_count) {
        pyuff_records_.push_back(ds_record_);
        n_bytes = static_cast<long>(expected_bytes);
      }
      if (overflow || expected_bytes != static_cast<unsigned long>(n_bytes))
        Fail("num_bytes", "header says " + std::to_string(n_bytes) + " bytes but record 7 gives " +
                              std::to_string(n) + " points of " + std::to_string(per_point) + "×" +
                              std::to_string(size) + " bytes");
      if (static_cast<unsigned long>(n_bytes) > cur_.remaining())
        Fail("data", "truncated: header says " + std::to_string(n_bytes) + " bytes of data, the file has " +
                         std::to_string(cur_.remaining()) + " left");
      const std::string_view raw = cur_.Take(static_cast<size_t>(n_bytes));
      values.resize(static_cast<size_t>(n) * per_point);
      const bool swap = (byte_order == 2) != (std::endian::native == std::endian::big);
      for (size_t k = 0; k < values.size(); ++k) {
        if (size == 8) {
          uint64_t u;
          std::memcpy(&u, raw.data() + 8 * k, 8);
          if (swap) u = __builtin_bswap64(u);
          values[k] = std::bit_cast<double>(u);
        } else {
          uint32_t u;
          std::memcpy(&u, raw.data() + 4 * k, 4);
          if (swap) u = __builtin_bswap32(u);
          values[k] = std::bit_cast<float>(u);
        }
      }
      std::string_view l;
      while (true) {
        const int at = cur_.line();
        if (!cur_.Next(&l)) Fail("data", "missing closing '-1' after the binary data");
        if (Trim(l).empty()) continue;
        if (!IsDelimiter(l))
          Fail("data", "expected '-1' right after " + std::to_string(n_bytes) +
                           " bytes of binary data (line " + std::to_string(at) + "), got " + Show(l) +
                           ": the byte count does not match the data");
        break;
      }
    } else {
      const size_t expected = static_cast<size_t>(n) * per_point;
      values.reserve(std::min(expected, cur_.remaining() / 2 + 1));
      std::string_view l;
      bool closed = false;
      while (cur_.Next(&l)) {
        if (IsDelimiter(l)) {
          closed = true;
          break;
        }
        for (std::string_view tok : Tokens(l)) {
          double v;
          if (ParseReal(tok, &v)) {
            values.push_back(v);
          } else {  // fixed-width fields run together ("1.0E+00-2.0E+00"): split before signs
            size_t start = 0;
            for (size_t i = 1; i <= tok.size(); ++i) {
              const bool cut = i == tok.size() ||
                               ((tok[i] == '-' || tok[i] == '+') && tok[i - 1] != 'E' &&
                                tok[i - 1] != 'e' && tok[i - 1] != 'D' && tok[i - 1] != 'd');
              if (!cut) continue;
              if (!ParseReal(tok.substr(start, i - start), &v))
                Fail("data", "line " + std::to_string(cur_.line() - 1) + ": expected a number, got " +
                                 Show(tok));
              values.push_back(v);
              start = i;
            }
          }
          if (values.size() > expected)
            Fail("data", "more values than record 7 announces (" + std::to_string(n) + " points × " +
                             std::to_string(per_point) + " = " + std::to_string(expected) + ")");
        }
      }
      if (!closed) Fail("data", "missing closing '-1' (file ends inside the data)");
      if (values.size() != expected)
        Fail("data", "expected " + std::to_string(expected) + " values (" + std::to_string(n) +
                         " points × " + std::to_string(per_point) + " as record 7 announces), got " +
                         std::to_string(values.size()));
    }

    f.x.resize(static_cast<size_t>(n));
    f.y.resize(static_cast<size_t>(n));
    for (size_t k = 0; k < static_cast<size_t>(n); ++k) {
      const double* p = values.data() + k * per_point;
      if (f.even) {
        f.x[k] = f.x_min + static_cast<double>(k) * f.dx;
      } else {
        f.x[k] = *p++;
      }
      f.y[k] = f.is_complex() ? std::complex<double>(p[0], p[1]) : std::complex<double>(p[0], 0.0);
    }
    return f;
  }

  Cursor cur_;
  std::string source_;
  std::string where_;
  int ds_record_ = 0;               // the 58/58b record being read
  std::vector<int> pyuff_records_;  // records read despite pyuff's byte count
};

}  // namespace

std::vector<const Function58*> File::functions() const {
  std::vector<const Function58*> out;
  for (const auto& d : datasets)
    if (d.function) out.push_back(&*d.function);
  return out;
}

File Parse(std::string_view bytes, const std::string& source) { return Parser(bytes, source).Run(); }

File Read(const std::string& path) { return Parse(ReadFileBytes(path), path); }

std::string FunctionTypeName(int t) {
  static const char* kNames[] = {"general or unknown function",
                                 "time response",
                                 "auto spectrum",
                                 "cross spectrum",
                                 "frequency response function",
                                 "transmissibility",
                                 "coherence",
                                 "auto correlation",
                                 "cross correlation",
                                 "power spectral density",
                                 "energy spectral density",
                                 "probability density function",
                                 "spectrum",
                                 "cumulative frequency distribution",
                                 "peaks valley",
                                 "stress/cycles",
                                 "strain/cycles",
                                 "orbit",
                                 "mode indicator function",
                                 "force pattern",
                                 "partial power",
                                 "partial coherence",
                                 "eigenvalue",
                                 "eigenvector",
                                 "shock response spectrum",
                                 "finite impulse response filter",
                                 "multiple coherence",
                                 "order function",
                                 "phase compensation"};
  if (t >= 0 && t < static_cast<int>(sizeof(kNames) / sizeof(kNames[0]))) return kNames[t];
  return "function type " + std::to_string(t);
}

std::string DatasetName(int number) {
  switch (number) {
    case 15: return "nodes";
    case 18: return "coordinate systems";
    case 55: return "data at nodes";
    case 58: return "function at nodal DOF";
    case 82: return "trace lines";
    case 151: return "header";
    case 164: return "units";
    case 1858: return "dataset 58 qualifiers";
    case 2400: return "model header";
    case 2411: return "nodes (double precision)";
    case 2412: return "elements";
    case 2414: return "analysis data";
    case 2420: return "coordinate systems";
    case 2429: case 2467: return "permanent groups";
    default: return "";
  }
}

}  // namespace frfit::uff
