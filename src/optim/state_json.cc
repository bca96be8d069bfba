// Hex bit-pattern encoding of doubles and checked field access for checkpoint JSON.
#include "frfit/optim/state_json.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "frfit/common/error.h"

namespace frfit {

std::string DoubleToHex(double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(bits));
  return buf;
}

double DoubleFromHex(const std::string& text, const std::string& field) {
  bool ok =
      text.size() > 2 && text.size() <= 18 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  std::uint64_t bits = 0;
  for (std::size_t k = 2; ok && k < text.size(); ++k) {
    const char c = text[k];
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      ok = false;
      break;
    }
    bits = (bits << 4) | static_cast<std::uint64_t>(digit);
  }
  if (!ok) {
    throw Error("", field,
                "expected a double as its bit pattern \"0x<16 hex digits>\", got \"" + text + "\"");
  }
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

nlohmann::json DoublesToJson(std::span<const double> values) {
  nlohmann::json out = nlohmann::json::array();
  for (double v : values) out.push_back(DoubleToHex(v));
  return out;
}

std::vector<double> DoublesFromJson(const nlohmann::json& array, const std::string& field) {
  if (!array.is_array()) throw Error("", field, "expected an array of hex doubles");
  std::vector<double> out;
  out.reserve(array.size());
  for (std::size_t k = 0; k < array.size(); ++k) {
    const std::string where = field + "[" + std::to_string(k) + "]";
    if (!array[k].is_string()) throw Error("", where, "expected a string \"0x...\"");
    out.push_back(DoubleFromHex(array[k].get<std::string>(), where));
  }
  return out;
}

template <typename T>
T JsonField(const nlohmann::json& j, const char* key, const std::string& context) {
  const std::string where = context.empty() ? key : context + "." + key;
  if (!j.is_object() || !j.contains(key)) throw Error("", where, "missing");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw Error("", where, std::string("wrong type: ") + e.what());
  }
}

template int JsonField<int>(const nlohmann::json&, const char*, const std::string&);
template bool JsonField<bool>(const nlohmann::json&, const char*, const std::string&);
template std::int64_t JsonField<std::int64_t>(const nlohmann::json&, const char*,
                                              const std::string&);
template std::string JsonField<std::string>(const nlohmann::json&, const char*, const std::string&);
template nlohmann::json JsonField<nlohmann::json>(const nlohmann::json&, const char*,
                                                  const std::string&);

}  // namespace frfit
