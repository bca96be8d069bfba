// Checks shared by the tests that write a record and read it back field by field (the fit
// result's file, the fleet outcome's JSON): how many fields an aggregate has, so that a field
// added later fails the test until it is written, read and compared; and equality to the bit.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

namespace frfit::round_trip {

// Converts to anything: T{AnyField{}, ...} compiles while T has that many fields or more.
struct AnyField {
  template <class T>
  operator T() const;
};
// How many fields an aggregate has: the most AnyField initialisers T{...} accepts.
template <class T, class... Fields>
constexpr size_t FieldCount() {
  if constexpr (requires { T{Fields{}..., AnyField{}}; })
    return FieldCount<T, Fields..., AnyField>();
  else
    return sizeof...(Fields);
}

// Equal to the bit, NaN included (files and JSON keep doubles as they are).
inline void ExpectSameBits(double a, double b, const std::string& field) {
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a), std::bit_cast<std::uint64_t>(b))
      << field << ": " << a << " vs " << b;
}

}  // namespace frfit::round_trip
