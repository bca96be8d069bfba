// frfit export: an FRF set, a fit result, an EMA result, a posture map or stability lobes as CSV
// files in a directory, for spreadsheets and tools that do not read HDF5 (docs/export.md).
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "frfit/campaign/campaign_ema_hdf5.h"
#include "frfit/campaign/campaign_export.h"
#include "frfit/common/error.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/files/atomic_file.h"
#include "frfit/files/output_path.h"
#include "frfit/report/csv_export.h"

namespace frfit::cli {
namespace {

// The directory the files go to: created when missing, refused when it names something else.
void PrepareDirectory(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    throw Error("frfit export", "--csv",
                "expected a directory (created if missing), got '" + dir + "', which is a file");
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw Error("frfit export", "--csv",
                "expected a directory that can be created, got '" + dir + "' (" + ec.message() +
                    ")");
}

nlohmann::ordered_json FileJson(const CsvTable& table, const std::string& path) {
  return {{"name", table.name()},
          {"path", path},
          {"rows", table.rows()},
          {"columns", table.headers()},
          {"description", table.description()}};
}

// Writes `tables` into `dir` (created), each refused first when it would overwrite the input;
// says each file on stderr and returns their --json entries.
nlohmann::ordered_json WriteTables(const std::vector<CsvTable>& tables, const std::string& dir,
                                   const std::string& in) {
  std::vector<std::string> paths;
  for (const CsvTable& t : tables) {
    paths.push_back((std::filesystem::path(dir) / t.name()).string());
    RequireNotAnInput("frfit export", "--csv", paths.back(), {in});
  }
  PrepareDirectory(dir);
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (size_t i = 0; i < tables.size(); ++i) {
    WriteTextFileAtomically(paths[i], tables[i].ToText());
    std::fprintf(stderr, "wrote %s: %zu rows (%s)\n", paths[i].c_str(), tables[i].rows(),
                 tables[i].description().c_str());
    files.push_back(FileJson(tables[i], paths[i]));
  }
  return files;
}

bool IsCampaignEma(const std::string& path) {
  try {
    const Hdf5File f(path, Hdf5File::Mode::kRead);
    return f.HasAttribute("/", "frfit_file") &&
           f.GetAttribute("/", "frfit_file") == "campaign_ema_result";
  } catch (const Error&) {
    return false;  // DetectExportKind says what is wrong with it
  }
}

// A campaign's EMA: its modes and shapes as CSV (--csv DIR) and/or UFF 55 (--uff FILE).
int ExportCampaignEma(const Args& args, const std::string& in) {
  if (!args.Has("csv") && !args.Has("uff"))
    throw Error("frfit export", "--csv", "expected --csv DIR and/or --uff FILE.uff for a campaign EMA result");
  campaign::Campaign geometry;
  const campaign::EmaResult r = campaign::ReadEmaResult(in, &geometry);
  nlohmann::ordered_json j = {{"input", in}, {"kind", "campaign_ema_result"}};
  if (args.Has("csv")) {
    const std::string dir = args.Get("csv");
    j["csv"] = dir;
    j["files"] = WriteTables(campaign::EmaTables(r, geometry), dir, in);
  }
  if (args.Has("uff")) {
    const std::string uff = args.Get("uff");
    RequireNotAnInput("frfit export", "--uff", uff, {in});
    WriteTextFileAtomically(uff, campaign::Uff55Text(r));
    std::fprintf(stderr, "wrote %s: %zu datasets 55 (one mode shape each)\n", uff.c_str(), r.modes.size());
    j["uff"] = uff;
    j["uff_datasets"] = r.modes.size();
  }
  if (args.Flag("json")) std::printf("%s\n", j.dump().c_str());
  return 0;
}

}  // namespace

int RunExport(int argc, char** argv) {
  const Args args("export", argc, argv, {"csv", "uff"}, {"json"}, 1);
  if (args.positional().size() != 1)
    throw Error("frfit export", "IN.h5",
                "expected exactly one frfit HDF5 file: an FRF set, a fit result, an EMA result, a "
                "posture map or stability lobes (usage: frfit export IN.h5 --csv DIR [--json])");
  const std::string in = args.positional()[0];
  if (IsCampaignEma(in)) return ExportCampaignEma(args, in);
  if (args.Has("uff"))
    throw Error("frfit export", "--uff", "only applies to a campaign EMA result (frfit ema CAMPAIGN --out)");
  const std::string dir = args.Get("csv");
  // Everything is read and checked before the directory or any file is made.
  const ExportKind kind = DetectExportKind(in);
  const nlohmann::ordered_json files = WriteTables(ExportTables(in, kind), dir, in);
  if (args.Flag("json")) {
    const nlohmann::ordered_json j = {
        {"input", in}, {"kind", ToString(kind)}, {"csv", dir}, {"files", files}};
    std::printf("%s\n", j.dump().c_str());
  }
  return 0;
}

}  // namespace frfit::cli
