// Writing a file so that it is either complete under its final name or not written at all: a
// full disk, a file-size limit or a kill never leaves a half-written file there, and never
// touches a previous file of that name.
#pragma once

#include <string>
#include <string_view>

namespace frfit {

// Writes `bytes` to `path`: first to "<path>.tmp.<pid>" in the same directory, flushed to the
// disk (fsync), then renamed over `path`. When any step fails the temporary file is removed and
// Error(path, "", "cannot write (<reason>); the previous file is unchanged") is thrown, so that
// `path` keeps its previous bytes (or stays absent). Temporary files that a killed frfit left next
// to `path` (their process no longer runs) are removed, once per directory and process.
void WriteFileAtomically(const std::string& path, std::string_view bytes);
inline void WriteTextFileAtomically(const std::string& path, std::string_view text) {
  WriteFileAtomically(path, text);
}

// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove the temporary file of a write in
// progress and then end the process by the same signal, as it would have ended without them.
void InstallTemporaryFileCleanup();

}  // namespace frfit
