#include "frfit/common/warning.h"

#include <cstdio>
#include <mutex>

namespace frfit {
namespace {

std::mutex g_mutex;
WarningSink g_sink;

}  // namespace

void Warn(const std::string& file, const std::string& field, const std::string& message) {
  std::string line;
  if (!file.empty()) line += file + ": ";
  if (!field.empty()) line += field + ": ";
  line += message;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_sink)
    g_sink(line);
  else
    std::fprintf(stderr, "warning: %s\n", line.c_str());
}

WarningSink SetWarningSink(WarningSink sink) {
  std::lock_guard<std::mutex> lock(g_mutex);
  WarningSink previous = std::move(g_sink);
  g_sink = std::move(sink);
  return previous;
}

}  // namespace frfit
