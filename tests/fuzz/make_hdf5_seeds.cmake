# Writes the HDF5 fuzz target's seeds that no dataset bundles (docs/fuzzing.md): a fit result and
# an EMA result of the paper's 3-joint example, each a second's work.
#   cmake -DFRFIT=build/frfit -DSOURCE=. -DOUT=DIR -P tests/fuzz/make_hdf5_seeds.cmake
file(MAKE_DIRECTORY ${OUT})
set(data ${SOURCE}/datasets/paper_3dof)
execute_process(COMMAND ${FRFIT} fit --model ${data}/model.yaml --frf ${data}/frf_milling_inertance.h5
                        --config ${data}/fit.yaml --seed 1 --threads 1 --out ${OUT}/result.h5
                RESULT_VARIABLE fit_status OUTPUT_QUIET)
execute_process(COMMAND ${FRFIT} ema ${data}/frf_milling_inertance.h5 --band 2:30 --out ${OUT}/ema.h5
                RESULT_VARIABLE ema_status OUTPUT_QUIET)
if(NOT fit_status EQUAL 0 OR NOT ema_status EQUAL 0)
  message(FATAL_ERROR "frfit fit (${fit_status}) or frfit ema (${ema_status}) failed")
endif()
