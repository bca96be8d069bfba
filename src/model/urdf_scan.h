// A light scan of URDF text before liburdfdom parses it, for what liburdfdom does not check:
//   - nesting depth: its XML parser recurses once per level, so a document nested 200 000 deep
//     overflows the stack; the scan is a loop and stops at the limit;
//   - the text of <inertial> numbers: liburdfdom turns a mass or an inertia entry that does not
//     parse ("nan", "abc", "inf", "1e999", "") into 0, and a mass of 0 is a massless link, so a
//     511.7 kg link vanished without a word;
//   - '%' in attribute values: liburdfdom hands some of them (an origin's xyz that does not parse,
//     a material's name, a cylinder's radius...) to console_bridge as the printf format of its
//     message, where "%s" reads memory and "%n" writes it (found by urdf_fuzz, docs/fuzzing.md).
// Not an XML parser: it only follows elements, attributes, comments, CDATA and declarations well
// enough to find these; whatever else is wrong is left to liburdfdom to report.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace frfit {

struct UrdfScan {
  int depth_exceeded_at_line = 0;  // > 0: the line where nesting went past the limit (scan stopped)
  // Per link name: the raw attribute text of <inertial><mass value> ("mass") and of
  // <inertial><inertia ixx .. izz> ("ixx", ...); a key is absent where the attribute is.
  std::map<std::string, std::map<std::string, std::string>> inertial;
  std::map<std::string, bool> has_inertial;  // per link: whether it has an <inertial> element
  // > 0: the first line with an attribute value, file names aside (a mesh path may be
  // percent-encoded and is never a format), that holds '%', written or as a character reference
  // (&#37;, &#x25;: the XML parser turns it into '%').
  int percent_at_line = 0;
};

UrdfScan ScanUrdf(std::string_view text, int max_depth);

}  // namespace frfit
