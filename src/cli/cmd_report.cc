// frfit report: one self-contained HTML page from a fit or EMA result, a posture map or stability
// lobes (docs/report.md).
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "frfit/common/error.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/files/output_path.h"
#include "frfit/report/campaign_report.h"
#include "frfit/report/ema_report.h"
#include "frfit/report/html_report.h"
#include "frfit/report/lobes_report.h"
#include "frfit/report/map_report.h"

namespace frfit::cli {

int RunReport(int argc, char** argv) {
  // -o is the short form of --out.
  std::vector<std::string> storage(argv, argv + argc);
  for (std::string& a : storage)
    if (a == "-o") a = "--out";
  std::vector<char*> rewritten;
  for (std::string& a : storage) rewritten.push_back(a.data());
  const Args args("report", argc, rewritten.data(), {"out"}, {"json"}, 1);
  if (args.positional().size() != 1)
    throw Error("frfit report", "RESULT.h5",
                "expected exactly one fit or EMA result file (usage: frfit report RESULT.h5 -o "
                "REPORT.html)");
  const std::string result = args.positional()[0];
  const std::string out = args.Get("out");
  const std::filesystem::path dir = std::filesystem::absolute(out).parent_path();
  if (!std::filesystem::is_directory(dir))
    throw Error("frfit report", "--out", "expected a path in an existing directory, got '" + out + "'");
  RequireNotAnInput("frfit report", "--out", out, {result});
  // The page is HTML whatever the name says: a .pdf holding HTML opens as a broken PDF.
  std::string extension = std::filesystem::path(out).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension != ".html" && extension != ".htm")
    throw Error("frfit report", "--out",
                "expected a .html path (the report is one HTML page; for a PDF, print it from a "
                "browser), got '" + out + "'");
  // An EMA result (frfit ema --out) and a posture map (frfit map --out) get pages of their own;
  // anything else must be a fit result.
  std::string kind;
  {
    const Hdf5File file(result, Hdf5File::Mode::kRead);
    if (file.HasAttribute("/", "frfit_file")) kind = file.GetAttribute("/", "frfit_file");
  }
  if (kind == "ema_result")
    WriteEmaReport(result, out);
  else if (kind == "campaign_ema_result")
    WriteCampaignEmaReport(result, out);
  else if (kind == "posture_map")
    WriteMapReport(result, out);
  else if (kind == "stability_lobes")
    WriteLobesReport(result, out);
  else
    WriteReport(result, out);
  if (args.Flag("json")) {
    nlohmann::ordered_json j = {
        {"result", result}, {"report", out}, {"bytes", std::filesystem::file_size(out)}};
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("wrote %s\n", out.c_str());
  }
  return 0;
}

}  // namespace frfit::cli
