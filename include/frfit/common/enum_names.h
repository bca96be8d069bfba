// One table of names per enum — the words the CLI, the YAML configurations, JSON and files use —
// and the two look-ups over it, so that an enum's ToString and FromString cannot disagree and a
// new value is named in one place. A table is a constexpr array of {value, name} pairs.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>

namespace frfit {

// The name of `value` in `table`; `unknown` when the table lacks it.
template <typename E, std::size_t N>
constexpr const char* EnumName(const std::pair<E, const char*> (&table)[N], E value,
                               const char* unknown = "unknown") {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return unknown;
}

// The value named `text` in `table` into *out; false, *out untouched, when none is.
template <typename E, std::size_t N>
constexpr bool EnumFromName(const std::pair<E, const char*> (&table)[N], std::string_view text,
                            E* out) {
  for (const auto& [v, name] : table)
    if (text == name) return *out = v, true;
  return false;
}

}  // namespace frfit
