# Checks the machine code of the cpu backend's vector loops (src/evaluator/cpu/cpu_line_kernels.cc)
# for fused multiply-adds: the scalar path and the cuda backend round a·b and then a·b + c, an FMA
# rounds once, so one FMA would break the bit-identity of DESIGN.md §3. The file holds AVX2 and
# AVX-512 code (target attributes) inside a baseline build, where -ffp-contract=off is the only
# guard for AVX-512 (whose instruction set includes FMA).
# Run as: cmake -DOBJDUMP=objdump -DOBJECT=file.o -P check_no_fma.cmake; fails on any finding.
if(NOT OBJECT OR NOT EXISTS "${OBJECT}")
  message(FATAL_ERROR "check_no_fma: no object file '${OBJECT}'")
endif()
execute_process(COMMAND "${OBJDUMP}" -d --no-show-raw-insn "${OBJECT}"
                OUTPUT_VARIABLE code RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "check_no_fma: ${OBJDUMP} failed on ${OBJECT}")
endif()

# vfmadd…, vfmsub…, vfnmadd…, vfnmsub…, vfmaddsub…, vfmsubadd… (FMA3, FMA4, AVX-512).
string(REGEX MATCHALL "[ \t]vfn?m(add|sub)[a-z0-9]*[ \t]" fmas "${code}")
list(LENGTH fmas fma_count)
# The object must hold the vector arithmetic the check is about, or an empty file would pass.
string(REGEX MATCHALL "[ \t]vmulpd[ \t][^\n]*ymm" muls "${code}")
list(LENGTH muls mul_count)

if(mul_count LESS 100)
  message(FATAL_ERROR "${OBJECT}: only ${mul_count} vmulpd on ymm registers: not the AVX2 line loops")
endif()
if(fma_count GREATER 0)
  list(GET fmas 0 first)
  string(STRIP "${first}" first)
  message(FATAL_ERROR "${OBJECT}: ${fma_count} fused multiply-adds (first: ${first})")
endif()
message(STATUS "${OBJECT}: ${mul_count} vmulpd on ymm, no fused multiply-add")
