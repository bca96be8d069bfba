// The three FRF formats a measurement system exports and how one converts into another.
// Receptance H (m/N) is the model's native output; mobility is iω·H, inertance −ω²·H.
#pragma once

#include <complex>
#include <string>

namespace frfit {

enum class FrfFormat { kReceptance, kMobility, kInertance };

std::string ToString(FrfFormat format);                 // "receptance" | "mobility" | "inertance"
bool FromString(const std::string& text, FrfFormat* format);
std::string UnitsOf(FrfFormat format);                  // "m/N" | "m/s/N" | "m/s^2/N"

// Power of iω that turns a receptance into `format` (0, 1 or 2).
int DerivativeOrder(FrfFormat format);

// Factor that turns an FRF value of format `from` into format `to` at angular frequency ω (rad/s):
// (iω)^(order(to) − order(from)). Converting down at ω = 0 divides by zero; callers exclude ω = 0.
std::complex<double> ConversionFactor(FrfFormat from, FrfFormat to, double omega_rad_s);

}  // namespace frfit
