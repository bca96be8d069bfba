// The human-readable parts of `frfit fit`'s output that describe the solution: the parameter
// table (with 1σ and bound flags), the refinement's starts, the identifiability summary, the
// model check and the modal comparisons.
#pragma once

#include "frfit/results/fit_result.h"

namespace frfit::cli {

void PrintParameterTable(const FitResult& result);
void PrintConstraints(const std::vector<ConstraintStatus>& constraints);
// The regularisation's weight (and how it was chosen); nothing without one.
void PrintRegularization(const RegularizationSummary& regularization);
void PrintRefinement(const FitResult& result);
void PrintIdentifiability(const Identifiability& id);
void PrintModelCheck(const ModelCheck& check);
void PrintStaticTests(const std::vector<StaticTestResult>& tests);
// The measured modes a fit took (frfit fit --modes): each with its partner and residuals.
void PrintModalData(const std::vector<ModalResidual>& modes);
// One posture's modes against the reference, the fitted ones with their 1σ.
void PrintModalComparison(const PostureResult& posture);
// A posture's modes with shapes over every response point its sets measured.
void PrintModalComparisonPoints(const ModalComparisonPoints& comparison);

}  // namespace frfit::cli
