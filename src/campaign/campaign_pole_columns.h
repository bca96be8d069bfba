// The columns of a campaign's stabilisation diagram. As SelectColumns (stabilisation.h), with one
// addition: a group of neighbouring stable poles that holds k poles in each of many orders is k
// columns, not one — a close pair (0.3 % apart, inside the 1 % frequency tolerance) is two modes
// when every order shows both.
#pragma once

#include <vector>

#include "frfit/modal/stabilisation.h"

namespace frfit::campaign {

std::vector<PoleColumn> SplitColumns(const std::vector<StabilisationPole>& poles,
                                     const StabilisationCriteria& criteria, int min_stable_poles,
                                     std::vector<PoleColumn>* too_short);

}  // namespace frfit::campaign
