// The stabilisation diagram of a pole estimator run over increasing model orders, and the
// automatic choice of the physical poles from it. A pole is compared with the nearest pole of the
// order below it: frequency, damping ratio and residue direction (MAC) each either agree within a
// tolerance or not. Poles that agree in all three over many orders form a column in the diagram;
// each column with enough such poles is one mode. Nothing here knows how the poles were estimated.
#pragma once

#include <Eigen/Core>
#include <complex>
#include <string>
#include <vector>

namespace frfit {

// What a pole agrees in with its nearest neighbour of the order below (the letters of the usual
// stabilisation diagrams): o new, f frequency only, d frequency and damping, v frequency and
// vector, s all three.
enum class PoleStability { kNew, kFrequency, kDamping, kVector, kStable };
char ToLetter(PoleStability stability);
std::string Describe(PoleStability stability);  // "new", "frequency", …, "stable"

// What counts as a mode wherever modes are estimated from FRFs: the modal model's misfit must grow
// by at least 2 % without it. On measured FRFs the misfit is mostly noise, and a real mode can
// grow it by as little as 5-20 % (a 15 kg local mode at 27 Hz under 3 % noise); columns that only
// fit noise grow it by well under 1 %. On noise-only data of the bundled KUKA model no mode
// appears at 2 % that is not one of the model's (docs/decisions.md).
inline constexpr double kModeMinContribution = 0.02;

struct StabilisationCriteria {
  double frequency_tolerance = 0.01;  // |f − f_prev| / f_prev
  double damping_tolerance = 0.05;    // |ζ − ζ_prev| / ζ_prev
  double min_mac = 0.98;              // MAC of the residue directions
  double max_damping_ratio = 0.2;     // poles with 0 < ζ < this are physical candidates at all
  // A column is a mode when it holds at least this many fully stable poles. 0: a quarter of the
  // orders above the lowest (at least 3), the rule used when the user sets nothing.
  int min_stable_poles = 0;
  // A column is kept only if the modal model fitted to the FRFs (pole_refinement.h) misfits by at
  // least this fraction more without it (its misfit growth): columns that fit noise at high orders
  // are dropped. The one default of frfit ema, a fit's reference modes and the model check's modes
  // of the residual (kModeMinContribution).
  double min_contribution = kModeMinContribution;
  int MinStablePolesFor(int orders) const;
};

struct StabilisationPole {
  int order = 0;
  std::complex<double> eigenvalue;  // rad/s, Im > 0
  double frequency_hz = 0.0;        // Im s / 2π
  double damping_ratio = 0.0;       // −Re s / |s|
  Eigen::VectorXcd vector;          // residue direction (for the MAC criterion)
  PoleStability stability = PoleStability::kNew;
};

// s = −ζω_n + iω_d with ω_d = 2π·frequency_hz and ω_n = ω_d/√(1 − ζ²): the pole whose damped
// frequency and damping ratio these are.
std::complex<double> PoleFrom(double frequency_hz, double damping_ratio);

// Marks every pole against the poles of order − 1 (poles of the lowest order are new). `poles`
// holds all orders, sorted by order then frequency.
void MarkStability(const StabilisationCriteria& criteria, std::vector<StabilisationPole>* poles);

// A column of fully stable poles: one mode.
struct PoleColumn {
  double frequency_hz = 0.0;        // median over the column's stable poles
  double damping_ratio = 0.0;       // median likewise
  std::complex<double> eigenvalue;  // from those medians
  int stable_poles = 0;             // how many fully stable poles it holds (distinct orders)
  int lowest_order = 0;             // the order where it first became stable
};

// Groups the fully stable poles by frequency (neighbours closer than frequency_tolerance) and
// keeps the groups with at least `min_stable_poles` distinct orders, sorted by frequency. The
// groups of at least 3 but fewer than `min_stable_poles` go to `too_short` when given: columns a
// reader sees in the diagram that are not modes.
std::vector<PoleColumn> SelectColumns(const std::vector<StabilisationPole>& poles,
                                      const StabilisationCriteria& criteria, int min_stable_poles,
                                      std::vector<PoleColumn>* too_short = nullptr);

}  // namespace frfit
