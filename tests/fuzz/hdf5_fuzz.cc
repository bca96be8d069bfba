// Bounded, seeded mutation fuzzing of the HDF5 readers (built with -fsanitize=address,undefined;
// the loop and the checks: fuzz_harness.h, docs/fuzzing.md): FRF sets (ReadFrfSet), fit results
// (ReadFitResult, whole and its summary, and ParametersFromResult), EMA
// results (ReadEmaResult) and impact-test time recordings (ReadTimeRecordings). Seeds: every .h5
// file of the bundled datasets (FRF sets, hits_*.h5) and every .h5 file in
// SEED_DIR (the suite writes a fit result and an EMA result there first, tests/CMakeLists.txt).
// Each input is a copy of a seed with bytes flipped, randomised or overwritten by sizes and
// addresses, half of them near the file's metadata (the superblock, B-trees, heaps, object names),
// written to a file and opened. It must be read or refused with frfit::Error within its time
// budget, and leave no HDF5 object open (a leaked handle keeps the file open: HDF5 would hand the
// stale file to the next open of that path). HDF5's own error printing is off (files/hdf5_file.cc).
// Each input is read in a child process: libhdf5 1.10 itself overruns buffers and crashes on some
// damaged metadata, which frfit cannot prevent; such faults, wholly inside libhdf5, are counted by
// the function they happen in (docs/fuzzing.md), and any other is a finding.
//   usage: hdf5_fuzz SOURCE_DIR SEED_DIR [ITERATIONS=3000] [SEED=1]
//          hdf5_fuzz --replay FILE KIND SOURCE_DIR   (KIND: frf_set, fit_result, ema_result or time_recording)
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/results/fit_result.h"
#include "frfit/io/ema_hdf5.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/io/time_hdf5.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/model/model_yaml.h"
#include "fuzz_harness.h"

// A size HDF5 reads from a damaged file can ask malloc for exabytes: glibc then returns null and
// HDF5 reports an error, where ASan would stop the process; make ASan answer as glibc does. A
// child past its time budget is sent SIGABRT, and ASan reports where it was (handle_abort).
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1:handle_abort=1";
}

namespace {

namespace fs = std::filesystem;
using namespace frfit;
using fuzz::Input;

struct Context {
  Model model;  // datasets/paper_3dof/model.yaml: the fit result seeds are its fits
  fs::path scratch;
};

// Where the metadata is: the superblock, the signatures of B-trees, heaps and symbol table nodes,
// and the names of frfit's groups, datasets and attributes (their object headers are near).
std::vector<size_t> HotOffsets(const std::string& bytes) {
  std::vector<size_t> hot = {0};
  for (const char* mark :
       {"TREE", "HEAP", "SNOD", "OHDR", "OCHK", "GCOL", "FRHP", "FHDB", "FHIB", "FSHD", "BTHD",
        "BTIN", "BTLF", "frfit_file", "format", "posture", "frequency_hz", "present", "names",
        "values", "summary", "postures", "poles", "modes", "identifiability", "history"})
    for (size_t at = bytes.find(mark); at != std::string::npos; at = bytes.find(mark, at + 1))
      hot.push_back(at);
  return hot;
}

void Read(const Input& input, const Context& context) {
  // Two names in turn: were a handle of the previous input left open after all, HDF5 could not
  // hand that stale file to this open before the check below reports it.
  static long serial = 0;
  const fs::path file = context.scratch / ("fuzz_" + std::to_string(serial++ % 2) + ".h5");
  fuzz::WriteBytes(file, input.bytes);
  struct Check {  // runs however the readers end
    ~Check() {
      const ssize_t open = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
      if (open != 0) {
        std::fprintf(stderr, "hdf5_fuzz: %zd HDF5 objects left open after an input\n", open);
        fuzz::SaveCurrentInput();
        std::abort();
      }
    }
  } check;
  if (input.kind == "frf_set") {
    ReadFrfSet(file.string());
  } else if (input.kind == "fit_result") {
    ReadFitResult(file.string(), FitResultSections::kSummary);
    ParametersFromResult(file.string(), context.model);
    ReadFitResult(file.string());
  } else if (input.kind == "ema_result") {
    ReadEmaResult(file.string());
  } else if (input.kind == "time_recording") {
    ReadTimeRecordings(file.string());
  } else {
    std::fprintf(stderr, "hdf5_fuzz: unknown kind '%s'\n", input.kind.c_str());
    std::exit(2);
  }
}

std::vector<Input> Seeds(const fs::path& source, const fs::path& seed_dir) {
  std::vector<fs::path> files;
  for (const auto& d : fs::directory_iterator(source / "datasets"))
    if (d.is_directory())
      for (const auto& e : fs::directory_iterator(d.path()))
        if (e.path().extension() == ".h5") files.push_back(e.path());
  if (!seed_dir.empty())
    for (const auto& e : fs::directory_iterator(seed_dir))
      if (e.path().extension() == ".h5") files.push_back(e.path());
  std::sort(files.begin(), files.end());  // the same seeds in the same order everywhere
  std::vector<Input> seeds;
  for (const fs::path& f : files) {
    std::string kind;
    {
      const Hdf5File h5(f.string(), Hdf5File::Mode::kRead);
      kind = h5.GetAttribute("/", "frfit_file");
    }
    seeds.push_back({kind, fuzz::ReadBytes(f)});
  }
  return seeds;
}

}  // namespace

int main(int argc, char** argv) {
  const bool replay = argc > 1 && std::string(argv[1]) == "--replay";
  if ((replay && argc < 5) || (!replay && argc < 3)) {
    std::fprintf(stderr, "usage: hdf5_fuzz SOURCE_DIR SEED_DIR [ITERATIONS] [SEED]\n"
                         "       hdf5_fuzz --replay FILE KIND SOURCE_DIR\n");
    return 2;
  }
  const fs::path source = replay ? argv[4] : argv[1];
  Context context;
  context.model = LoadModel((source / "datasets/paper_3dof/model.yaml").string());
  context.scratch = fs::temp_directory_path() / ("hdf5_fuzz_" + std::to_string(::getpid()));
  fs::create_directories(context.scratch);
  const auto read = [&](const Input& input) { Read(input, context); };
  int status;
  if (replay) {
    status = fuzz::Replay("hdf5_fuzz", argv[2], argv[3], read);
  } else {
    const std::vector<Input> seeds = Seeds(source, argv[2]);
    std::vector<std::vector<size_t>> hot;
    for (const Input& s : seeds) hot.push_back(HotOffsets(s.bytes));
    fuzz::LoopOptions options;
    options.target = "hdf5_fuzz";
    options.extension = "h5";
    options.iterations = argc > 3 ? std::atol(argv[3]) : 3000;
    options.seed = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1;
    options.isolate_library = "libhdf5";
    options.scratch = context.scratch;
    status = fuzz::RunLoop(
        options, seeds,
        [&](const Input& seed, std::mt19937_64& rng) {
          const size_t index = static_cast<size_t>(&seed - seeds.data());
          return fuzz::MutateBinary(seed.bytes, rng, hot[index]);
        },
        read);
  }
  fs::remove_all(context.scratch);
  return status;
}
