// Warnings: inputs frfit accepts but that a user must hear about (a URDF link without inertia, a
// UFF byte count written by a known-buggy exporter, FRFs synthesised from another model). One
// line each, "warning: <file>: <field>: <message>", on stderr unless a sink is installed; never
// on stdout, which --json keeps for the one JSON object.
#pragma once

#include <functional>
#include <string>

namespace frfit {

// Reports one warning through the current sink (thread-safe).
void Warn(const std::string& file, const std::string& field, const std::string& message);

// Replaces the sink (the line without the "warning: " prefix) and returns the previous one; an
// empty function restores the default, stderr. Tests capture warnings this way.
using WarningSink = std::function<void(const std::string& line)>;
WarningSink SetWarningSink(WarningSink sink);

}  // namespace frfit
