# Checks the PTX of the deterministic device code (src/evaluator/cuda/cuda_evaluator.cu,
# src/evaluator/cuda/cuda_normal_equations.cu) for what would break bit-identity with the cpu
# backend (DESIGN.md §3), without needing a GPU:
#   - a fused multiply-add (fma/mad on f64): the cpu rounds a*b and then a*b+c, an FMA once;
#   - an f64 mul/add/sub without an explicit rounding mode: ptxas may contract those into FMAs
#     ("mul.rn"/"add.rn" are never contracted, PTX ISA, "Floating-Point Instructions");
#   - approximate f64 arithmetic (.approx: rcp, rsqrt, div) or a call into libdevice (__nv_log,
#     __nv_atan2, ...): their results differ from glibc's, which the cpu side uses only through
#     kernels/det_math.h's own log and atan2, as the device side must.
# Run as: cmake -DPTX=file.ptx -P check_ptx_arithmetic.cmake; fails (non-zero) on any finding.
if(NOT PTX OR NOT EXISTS "${PTX}")
  message(FATAL_ERROR "check_ptx_arithmetic: no PTX file '${PTX}'")
endif()
file(READ "${PTX}" ptx)

set(findings "")
# A function, not a macro: a macro would re-read the regular expression's backslashes.
function(look what regex)
  string(REGEX MATCHALL "${regex}" hits "${ptx}")
  list(LENGTH hits count)
  if(count GREATER 0)
    list(GET hits 0 first)
    string(STRIP "${first}" first)
    set(findings ${findings} "${count} ${what} (first: '${first}')" PARENT_SCOPE)
  endif()
endfunction()

look("fused multiply-adds" [=[[^a-z0-9_.%](fma|mad)(\.[a-z]+)*\.f64]=])
look("f64 mul/add/sub without a rounding mode" [=[[^a-z0-9_.%](mul|add|sub)\.f64]=])
look("approximate f64 operations" [=[[^a-z0-9_.%][a-z]+(\.[a-z]+)*\.approx(\.[a-z]+)*\.f64]=])
look("libdevice calls" [=[call[^;]*__nv_[a-z0-9_]+]=])

# The file must hold the arithmetic the check is about, or an empty PTX would pass.
string(REGEX MATCHALL [=[[^a-z0-9_.%]mul\.rn\.f64]=] muls "${ptx}")
list(LENGTH muls mul_count)
if(mul_count LESS 100)
  list(APPEND findings "only ${mul_count} mul.rn.f64: not the line-cost kernels' PTX")
endif()

if(findings)
  list(JOIN findings "\n  " text)
  message(FATAL_ERROR "${PTX}: arithmetic that the cpu backend does not do:\n  ${text}")
endif()
message(STATUS "${PTX}: ${mul_count} mul.rn.f64, no FMA, no unrounded or approximate f64 op, no libdevice call")
