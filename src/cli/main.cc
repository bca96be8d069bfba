// build/frfit: identifies elastic parameters of flexible multibody models from FRFs.
#include <malloc.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "commands.h"
#include "frfit/common/error.h"
#include "frfit/files/atomic_file.h"
#include "help.h"

namespace {

constexpr const char* kUsage =
    "usage: frfit <command> [options]\n"
    "\n"
    "commands:\n"
    "  info      --model M.yaml [--posture NAME] [--json]      model summary (frames at NAME)\n"
    "  modal     --model M.yaml --posture NAME [--q z2=70,..] [--params P.yaml]\n"
    "            [--ema CAMPAIGN_EMA.h5 --mapping MAP.yaml] [--json]\n"
    "  simulate  --model M.yaml --posture NAME [--q z2=70,..] [--params P.yaml] --band F0:F1:DF\n"
    "            --format receptance|mobility|inertance --out FRF.h5 [--noise REL[:FLOOR]]\n"
    "            [--seed N] [--noise-model variance|none] [--json]\n"
    "  map       --model M.yaml --posture NAME [--q z2=70,..] [--params R.h5|P.yaml]\n"
    "            --grid 'z2=30:120:1,z3=-160:-40:2' [--max-hz F] [--threads N] [--out MAP.h5]\n"
    "            [--cut CUT.yaml] [--json]    modes and tool-tip stiffness over postures, with 1σ\n"
    "  lobes     --model M.yaml --posture NAME [--q z2=70,..] --params R.h5|P.yaml --cut CUT.yaml\n"
    "            [--samples N] [--seed N] [--frf-out FRF.csv] [--json]  milling stability lobes\n"
    "  fit       --model M.yaml --frf FRF.h5[,FRF2.h5...] [--config FIT.yaml] [--seed N]\n"
    "            [--backend cpu|cuda|auto] [--threads N] [--out RESULT.h5] [--checkpoint C.json]\n"
    "            [--checkpoint-seconds S] [--resume C.json] [--progress|--quiet]\n"
    "            [--progress-every N] [--static S.yaml] [--modes EMA.h5[,..]] [--json]\n"
    "  convert   IN.uff OUT.h5 [--posture NAME [--model M.yaml]] | IN.h5 OUT.uff [--binary]\n"
    "            UFF 58/58b <-> HDF5\n"
    "            [--sensor-node N] [--format receptance|mobility|inertance] [--mapping MAP.yaml] "
    "[--json]\n"
    "            [--averages N]   (the averages behind UFF coherence records)\n"
    "  campaign  IN.uff [IN2.uff ...] | CAMPAIGN.h5 [--out CAMPAIGN.h5|OUT.uff [--binary]]\n"
    "            [--averages N] [--exponential-window] [--require-coordinates]\n"
    "            [--sets DIR --mapping MAP.yaml --posture NAME] [--json]\n"
    "                                                             many FRFs at named nodes\n"
    "  fleet     --manifest FLEET.yaml --out DIR [--run-id ID] [--resume] [--backend ..] "
    "[--threads N]\n"
    "            [--checkpoint-seconds S] [--checkpoint-every N] [--progress|--quiet]\n"
    "            [--progress-every N] [--json]                    nightly refit\n"
    "  report    RESULT.h5 -o|--out REPORT.html [--json]          HTML fit or EMA report\n"
    "  design    --model M.yaml --result RESULT.h5 [--candidates NAME,..]\n"
    "            [--q-candidates 'name:z2=60,z3=-90;..'] [--points R:E,..] [--target PARAM]\n"
    "            [--static-loads P:F:D,..] [--static-force N] [--static-std M] [--json]\n"
    "                                                             what to measure next\n"
    "  ema       FRF.h5 [--band F0:F1] [--max-order N] [--min-stable N] [--out EMA.h5] [--json]\n"
    "            [--frequency-tolerance F] [--damping-tolerance F] [--min-mac M] [--max-damping "
    "Z]\n"
    "            [--min-contribution C]\n"
    "                                                             modes from measured FRFs\n"
    "  ema       CAMPAIGN.h5|C.uff [--single-reference] [--out E.h5]  modes of a whole campaign\n"
    "  export    IN.h5 --csv DIR [--json]                         CSV for other tools\n"
    "  export    CAMPAIGN_EMA.h5 [--csv DIR] [--uff SHAPES.uff]   mode shapes as CSV, UFF 55\n"
    "  frf       IN.h5 [IN2.h5 ...] --out FRF.h5 [--posture NAME] [--band F0:F1] [--json]\n"
    "            [--estimator h1|h2|hv] [--format receptance|mobility|inertance]\n"
    "            [--exponential-window none|tau=S|end=R] [--force-window none|MARGIN:TAPER]\n"
    "            [--trigger LEVEL] [--pretrigger S] [--record-seconds S]\n"
    "            [--max-force-drop-db N] [--double-hit-fraction F]\n"
    "                                                             FRFs from impact-test hits\n"
    "\n"
    "Every command prints one JSON object on stdout with --json; errors are one line on stderr\n"
    "starting with 'error:' and a non-zero exit status. See README.md.\n";

// The lines of kUsage that describe `command` (its line and the indented ones after it), or "".
std::string CommandUsage(const std::string& command) {
  const std::string usage = kUsage;
  const std::string head = "  " + command + " ";
  const size_t start = usage.find(head);
  if (start == std::string::npos) return "";
  size_t end = usage.find('\n', start);
  while (end != std::string::npos && usage.compare(end + 1, 12, std::string(12, ' ')) == 0)
    end = usage.find('\n', end + 1);
  return "usage: frfit " + usage.substr(start + 2, end - start - 1);
}

// Large blocks (a beam model's frame derivatives, 8 MB each at 255 DOFs, built and dropped per
// frame, body and posture) come from the heap and stay there for reuse: glibc would otherwise map
// and unmap each one, and faulting their pages in anew cost a KUKA beam fit ~6 % of its CPU. The
// peak resident memory is unchanged; memory is kept, not returned, until the command ends.
void KeepLargeBlocksOnTheHeap() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

}  // namespace

int main(int argc, char** argv) {
  KeepLargeBlocksOnTheHeap();
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("frfit %s\n", FRFIT_VERSION);
    return 0;
  }
  const std::string command = argv[1];
  frfit::InstallTemporaryFileCleanup();
  try {
    if (command == "info") return frfit::cli::RunInfo(argc - 2, argv + 2);
    if (command == "modal") return frfit::cli::RunModal(argc - 2, argv + 2);
    if (command == "simulate") return frfit::cli::RunSimulate(argc - 2, argv + 2);
    if (command == "map") return frfit::cli::RunMap(argc - 2, argv + 2);
    if (command == "lobes") return frfit::cli::RunLobes(argc - 2, argv + 2);
    if (command == "fit") return frfit::cli::RunFit(argc - 2, argv + 2);
    if (command == "convert") return frfit::cli::RunConvert(argc - 2, argv + 2);
    if (command == "campaign") return frfit::cli::RunCampaign(argc - 2, argv + 2);
    if (command == "fleet") return frfit::cli::RunFleet(argc - 2, argv + 2);
    if (command == "report") return frfit::cli::RunReport(argc - 2, argv + 2);
    if (command == "ema") return frfit::cli::RunEma(argc - 2, argv + 2);
    if (command == "design") return frfit::cli::RunDesign(argc - 2, argv + 2);
    if (command == "export") return frfit::cli::RunExport(argc - 2, argv + 2);
    if (command == "frf") return frfit::cli::RunFrf(argc - 2, argv + 2);
    std::fprintf(stderr,
                 "error: frfit: unknown command '%s' (expected info, modal, simulate, fit, fleet, "
                 "convert, campaign, report, ema, design, export, frf, map, lobes)\n",
                 command.c_str());
    return 2;
  } catch (const frfit::cli::HelpRequested& help) {
    std::fputs((CommandUsage(command) + frfit::cli::OptionHelp(help) +
                "\nSee README.md and docs/ for the details.\n")
                   .c_str(),
               stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
