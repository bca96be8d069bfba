// Writing FrfSets as UFF dataset 58 (ASCII, the record formats of the specification) or 58b
// (binary: IEEE 754 double, little endian, same field order as the ASCII data).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "frfit/common/error.h"
#include "frfit/files/atomic_file.h"
#include "frfit/io/uff.h"

namespace frfit::uff {
namespace {

std::string Printf(const char* fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// What "%13.5E" prints reads back as the same double.
bool SurvivesE13(double v) {
  return std::strtod(Printf("%13.5E", v).c_str(), nullptr) == v;
}

std::string Clip(const std::string& s, size_t n) {
  std::string out;
  for (char c : s.substr(0, n)) out += (c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

void AppendAxis(std::string* out, const AxisInfo& a) {
  *out += Printf("%10d%5d%5d%5d %-20s %-20s\n", a.specific_data_type, a.length_exponent,
                 a.force_exponent, a.temperature_exponent, Clip(a.label, 20).c_str(),
                 Clip(a.units, 20).c_str());
}

}  // namespace

std::vector<Function58> FromFrfSet(const FrfSet& set, long node, bool binary) {
  Validate(set, "FRF set");
  const int L = set.num_lines();
  // Even spacing only when the reader's x_min + k·dx reproduces every frequency exactly from the
  // E13.5 header values; otherwise the frequencies are stored point by point.
  const double x0 = set.frequency_hz[0];
  const double dx = L > 1 ? set.frequency_hz[1] - x0 : 1.0;
  bool even = SurvivesE13(x0) && SurvivesE13(dx) && dx > 0.0;
  for (int k = 0; k < L && even; ++k) even = x0 + static_cast<double>(k) * dx == set.frequency_hz[k];
  if (!even && !binary) {  // ASCII uneven abscissa is E13.5: it must stay strictly increasing
    double previous = -1.0;
    for (int k = 0; k < L; ++k) {
      const double printed = std::strtod(Printf("%13.5E", set.frequency_hz[k]).c_str(), nullptr);
      if (!(printed > previous))
        throw Error("FRF set", "frequency_hz[" + std::to_string(k) + "]",
                    "frequencies " + FormatDouble(set.frequency_hz[k - 1]) + " and " +
                        FormatDouble(set.frequency_hz[k]) +
                        " Hz print alike in the ASCII format (E13.5); write binary (58b) instead");
      previous = printed;
    }
  }
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::snprintf(date, sizeof date, "%02d-%s-%02d %02d:%02d:%02d", tm.tm_mday, kMonths[tm.tm_mon % 12],
                tm.tm_year % 100, tm.tm_hour, tm.tm_min, tm.tm_sec);

  static const char* kMotion[] = {"Displacement", "Velocity", "Acceleration"};
  static const char* kUnits[] = {"m", "m/s", "m/s^2"};
  static const int kCode[] = {8, 11, 12};
  const int order = DerivativeOrder(set.format);
  std::vector<Function58> out;
  for (int e = 0; e < 9; ++e) {
    if (!set.present[e]) continue;
    Function58 f;
    f.binary = binary;
    f.id_lines = {"frfit H_" + EntryName(e) + " " + ToString(set.format) + " (" + UnitsOf(set.format) + ")",
                  "posture " + set.posture, date, "frfit " FRFIT_VERSION, "NONE"};
    f.function_type = 4;
    f.function_id = e + 1;
    f.response_name = "sensor";
    f.response_node = node;
    f.response_direction = e / 3 + 1;
    f.reference_name = "sensor";
    f.reference_node = node;
    f.reference_direction = e % 3 + 1;
    f.ordinate_type = 6;
    f.even = even;
    f.x_min = even ? x0 : 0.0;
    f.dx = even ? dx : 0.0;
    f.abscissa = {18, 0, 0, 0, "Frequency", "Hz"};
    f.ordinate = {kCode[order], 1, 0, 0, kMotion[order], kUnits[order]};
    f.denominator = {13, 0, 1, 0, "Excitation Force", "N"};
    f.z_axis = {0, 0, 0, 0, "NONE", "NONE"};
    f.x = set.frequency_hz;
    f.y.resize(L);
    for (int k = 0; k < L; ++k) f.y[k] = set.H[k * 9 + e];
    out.push_back(std::move(f));
  }
  // The coherence of each entry as a type-6 record of its DOFs. Dataset 58 has no field for the
  // averages behind it; ID line 5 says "averages N", which the reader takes from records whose ID
  // line 4 names frfit (docs/uff.md).
  if (!set.coherence.empty()) {
    const size_t frfs = out.size();
    for (size_t r = 0; r < frfs; ++r) {
      Function58 c = out[r];
      const int e = static_cast<int>(c.function_id) - 1;
      c.id_lines[0] = "frfit coherence of H_" + EntryName(e);
      c.id_lines[4] = "averages " + std::to_string(set.averages);
      c.function_type = 6;
      c.function_id = 10 + e;
      c.ordinate_type = 4;
      c.ordinate = {0, 0, 0, 0, "Coherence", "NONE"};
      c.denominator = {0, 0, 0, 0, "NONE", "NONE"};
      for (int k = 0; k < L; ++k) c.y[k] = {set.coherence[k * 9 + e], 0.0};
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::string Format(const std::vector<Function58>& functions) {
  std::string out;
  for (const Function58& f : functions) {
    const size_t n = f.y.size();
    const bool cplx = f.is_complex(), dbl = f.is_double();
    if (!f.even && f.x.size() != n) throw Error("", "x", "abscissa and ordinate sizes differ");
    const size_t per_point = (cplx ? 2 : 1) + (f.even ? 0 : 1);
    out += "    -1\n";
    if (f.binary)
      out += Printf("%6d%c%6d%6d%12d%12zu%6d%6d%12d%12d\n", 58, 'b', 1, 2, 11,
                    n * per_point * (dbl ? 8 : 4), 0, 0, 0, 0);
    else
      out += "    58\n";
    for (const auto& l : f.id_lines) out += Clip(l.empty() ? "NONE" : l, 80) + "\n";
    out += Printf("%5d%10ld%5ld%10ld %-10s%10ld%4d %-10s%10ld%4d\n", f.function_type, f.function_id,
                  f.version, f.load_case, Clip(f.response_name, 10).c_str(), f.response_node,
                  f.response_direction, Clip(f.reference_name, 10).c_str(), f.reference_node,
                  f.reference_direction);
    out += Printf("%10d%10zu%10d%13.5E%13.5E%13.5E\n", f.ordinate_type, n, f.even ? 1 : 0, f.x_min,
                  f.dx, f.z_value);
    AppendAxis(&out, f.abscissa);
    AppendAxis(&out, f.ordinate);
    AppendAxis(&out, f.denominator);
    AppendAxis(&out, f.z_axis);
    if (f.binary) {  // little endian
      for (size_t k = 0; k < n; ++k) {
        double v[3];
        int m = 0;
        if (!f.even) v[m++] = f.x[k];
        v[m++] = f.y[k].real();
        if (cplx) v[m++] = f.y[k].imag();
        for (int q = 0; q < m; ++q) {
          unsigned char b[8];
          if (dbl) {
            std::memcpy(b, &v[q], 8);
            out.append(reinterpret_cast<const char*>(b), 8);
          } else {
            const float s = static_cast<float>(v[q]);
            std::memcpy(b, &s, 4);
            out.append(reinterpret_cast<const char*>(b), 4);
          }
        }
      }
    } else if (!dbl) {  // 6E13.5 for every single-precision case
      int col = 0;
      for (size_t k = 0; k < n; ++k) {
        double v[3];
        int m = 0;
        if (!f.even) v[m++] = f.x[k];
        v[m++] = f.y[k].real();
        if (cplx) v[m++] = f.y[k].imag();
        for (int q = 0; q < m; ++q) {
          out += Printf("%13.5E", v[q]);
          if (++col == 6) out += "\n", col = 0;
        }
      }
      if (col) out += "\n";
    } else if (f.even) {  // 4E20.12
      int col = 0;
      for (size_t k = 0; k < n; ++k) {
        out += Printf("%20.12E", f.y[k].real());
        if (++col == 4) out += "\n", col = 0;
        if (cplx) {
          out += Printf("%20.12E", f.y[k].imag());
          if (++col == 4) out += "\n", col = 0;
        }
      }
      if (col) out += "\n";
    } else if (cplx) {  // E13.5,2E20.12 per point
      for (size_t k = 0; k < n; ++k)
        out += Printf("%13.5E%20.12E%20.12E\n", f.x[k], f.y[k].real(), f.y[k].imag());
    } else {  // 2(E13.5,E20.12)
      for (size_t k = 0; k < n; ++k) {
        out += Printf("%13.5E%20.12E", f.x[k], f.y[k].real());
        if (k % 2 == 1 || k + 1 == n) out += "\n";
      }
    }
    out += "    -1\n";
  }
  return out;
}

void WriteFrfSet(const std::string& path, const FrfSet& set, bool binary, long node) {
  const std::string text = Format(FromFrfSet(set, node, binary));
  WriteTextFileAtomically(path, text);
}

}  // namespace frfit::uff
