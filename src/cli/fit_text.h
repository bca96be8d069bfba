// The human-readable parts of `frfit fit`'s output that describe the solution: the parameter
// table (with 1σ and bound flags), the refinement's starts and the identifiability summary.
#pragma once

#include "frfit/fit/fit_result.h"

namespace frfit::cli {

void PrintParameterTable(const FitResult& result);
void PrintRefinement(const FitResult& result);
void PrintIdentifiability(const Identifiability& id);

}  // namespace frfit::cli
