#include "args.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "frfit/common/error.h"
#include "frfit/common/warning.h"
#include "help.h"

namespace frfit::cli {

Args::Args(const std::string& command, int argc, char** argv, std::set<std::string> valued,
           std::set<std::string> flags, size_t max_positional)
    : command_(command) {
  for (int i = 0; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h"))
      throw HelpRequested{command, valued, flags};
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      if (positional_.size() == max_positional)
        throw Error(
            "frfit " + command, "'" + arg + "'",
            std::string("unexpected argument (expected ") +
                (max_positional == 0 ? "only --options" : "--options after the file names") +
                "; in a usage line, [...] marks an optional part, not text to type)");
      positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2), value;
    const auto eq = name.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) value = name.substr(eq + 1), name = name.substr(0, eq);
    if (valued.count(name)) {
      if (!inline_value) {
        if (i + 1 >= argc) throw Error("frfit " + command, "--" + name, "expected a value");
        value = argv[++i];
      }
      values_[name].push_back(value);
    } else if (flags.count(name) && !inline_value) {
      flags_.insert(name);
    } else {
      std::string known;
      for (const auto& v : valued) known += " --" + v;
      for (const auto& f : flags) known += " --" + f;
      throw Error("frfit " + command, arg, "unknown option (expected one of:" + known + ")");
    }
  }
}

bool Args::Has(const std::string& name) const { return values_.count(name) > 0; }

std::string Args::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw Error("frfit " + command_, "--" + name, "missing (required)");
  const std::vector<std::string>& given = it->second;
  if (given.size() > 1) {
    std::string all;
    for (const auto& value : given) all += (all.empty() ? "'" : ", '") + value + "'";
    throw Error("frfit " + command_, "--" + name,
                "given " + std::to_string(given.size()) + " times (" + all +
                    "); it takes one value");
  }
  return given.front();
}

std::string Args::Get(const std::string& name, const std::string& fallback) const {
  return Has(name) ? Get(name) : fallback;
}

long Args::GetInt(const std::string& name, long fallback) const {
  if (!Has(name)) return fallback;
  const std::string text = Get(name);
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0')
    throw Error("frfit " + command_, "--" + name, "expected an integer, got '" + text + "'");
  if (errno == ERANGE)  // strtol clamps to LONG_MIN/LONG_MAX
    throw Error("frfit " + command_, "--" + name,
                "expected an integer from " + std::to_string(LONG_MIN) + " to " +
                    std::to_string(LONG_MAX) + ", got '" + text + "'");
  return value;
}

namespace {

std::string TrimSpaces(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace

std::vector<std::string> Args::GetList(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw Error("frfit " + command_, "--" + name, "missing (required)");
  std::vector<std::string> items;
  for (const std::string& text : it->second) {
    size_t start = 0;
    while (true) {
      const size_t comma = text.find(',', start);
      items.push_back(TrimSpaces(
          text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (items.back().empty())
        throw Error("frfit " + command_, "--" + name,
                    "item " + std::to_string(items.size()) +
                        " is empty (expected a comma-separated list, got '" + text + "')");
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return items;
}

double Args::GetDouble(const std::string& name, double fallback) const {
  if (!Has(name)) return fallback;
  const std::string text = Get(name);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0')
    throw Error("frfit " + command_, "--" + name, "expected a number, got '" + text + "'");
  return value;
}

int Args::GetThreads() const {
  const long asked = GetInt("threads", 0);
  if (!Has("threads")) return 0;
  if (asked < 1) throw Error("frfit " + command_, "--threads", "expected an integer >= 1");
  const long cores = std::max(1u, std::thread::hardware_concurrency());
  if (asked <= cores) return static_cast<int>(asked);
  Warn("frfit " + command_, "--threads",
       "asked " + std::to_string(asked) + ", using " + std::to_string(cores) +
           ": the cores this machine has (more threads only wait for each other)");
  return static_cast<int>(cores);
}

void ThrowAsOption(const std::string& command, const std::string& error,
                   std::span<const std::pair<const char*, const char*>> options) {
  for (const auto& [field, option] : options) {
    const std::string prefix = std::string(field) + ": ";
    if (error.rfind(prefix, 0) == 0) throw Error(command, option, error.substr(prefix.size()));
  }
  throw Error(command, "", error);
}

}  // namespace frfit::cli
