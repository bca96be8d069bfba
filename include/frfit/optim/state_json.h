// Bit-exact JSON encoding of doubles for optimizer checkpoints (GaState, NelderMeadState).
//
// A decimal rendering would also round-trip, but only if every writer and reader uses shortest
// round-trip formatting; the IEEE bit pattern in hex ("0x3ff0000000000000") cannot lose a bit,
// keeps NaN payloads and infinities, and makes a checkpoint diff show exactly which bits changed.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace frfit {

std::string DoubleToHex(double value);
// Throws frfit::Error naming `field` unless `text` is "0x" followed by 1 to 16 hex digits.
double DoubleFromHex(const std::string& text, const std::string& field);

nlohmann::json DoublesToJson(std::span<const double> values);
std::vector<double> DoublesFromJson(const nlohmann::json& array, const std::string& field);

// Reads j[key] as T, or throws frfit::Error naming `context.key` (missing key or wrong type).
template <typename T>
T JsonField(const nlohmann::json& j, const char* key, const std::string& context);

}  // namespace frfit
