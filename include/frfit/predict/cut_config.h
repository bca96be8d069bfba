// The cutting configuration of `frfit lobes` (format frfit-cut-1, docs/lobes.md): the cutter, the
// material's cutting coefficients, the radial immersion and the spindle-speed range, and which
// sensor axes span the cutting plane. Reading and checking only; the method is
// predict/stability_lobes.h.
#pragma once

#include <string>

namespace frfit {

// The milling frame of Altintas & Budak (1995): X along the feed, Y normal to it in the cutting
// plane, the cutter rotating clockwise seen from the spindle, the immersion angle φ measured
// clockwise from +Y. A tooth enters at φ = entry and leaves at φ = exit:
// up milling starts at 0, down milling ends at 180°, slotting is 0..180°.
struct CutConfig {
  std::string source;             // the file, for messages
  std::string description;
  int teeth = 2;                  // N
  double entry_angle_deg = 90.0;  // φ_st
  double exit_angle_deg = 180.0;  // φ_ex
  double kt_n_per_m2 = 7e8;       // tangential cutting coefficient K_t, N/m²
  double kr_ratio = 0.3;          // K_r / K_t
  int tool_axis = 2;              // sensor axis (x=0, y=1, z=2) along the tool
  int feed_axis = 0;              // sensor axis of the feed: X of the milling frame
  int normal_axis = 1;            // the third axis: Y of the milling frame
  double speed_min_rpm = 5000.0;
  double speed_max_rpm = 30000.0;
  int speed_points = 2000;        // spindle-speed grid of the envelope, linear, ends included
  int max_lobes = 0;              // lobes k = 0..max_lobes−1; 0: every lobe reaching the range

  // "up", "down", "slot" (0..180°) or "partial" (neither edge of the cutter's half).
  std::string Milling() const;
};

// Reads and checks a frfit-cut-1 file. Every problem is one Error line "FILE: key (line N): expected
// …"; unknown keys are refused.
CutConfig LoadCutConfig(const std::string& path);
// The same for text held in memory (`source` names it in messages).
CutConfig ParseCutConfig(const std::string& text, const std::string& source);

}  // namespace frfit
