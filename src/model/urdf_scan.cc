#include "urdf_scan.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace frfit {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// '%' in an attribute value as the XML parser will hand it on: written, or as a numeric
// character reference (&#37; &#037; &#x25; &#X25;).
bool HoldsPercent(std::string_view value) {
  if (value.find('%') != std::string_view::npos) return true;
  for (size_t at = value.find("&#"); at != std::string_view::npos; at = value.find("&#", at + 2)) {
    size_t i = at + 2;
    const bool hex = i < value.size() && (value[i] == 'x' || value[i] == 'X');
    if (hex) ++i;
    unsigned long code = 0;
    bool digits = false;
    for (; i < value.size() && value[i] != ';' && code <= 0x10FFFF; ++i) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(value[i])));
      const int digit = c >= '0' && c <= '9' ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (digit < 0) break;
      code = code * (hex ? 16 : 10) + static_cast<unsigned long>(digit);
      digits = true;
    }
    if (digits && code == '%') return true;
  }
  return false;
}

struct Element {
  std::string name;
  std::string link;  // for <link>: its name attribute
};

}  // namespace

UrdfScan ScanUrdf(std::string_view text, int max_depth) {
  UrdfScan scan;
  std::vector<Element> stack;
  size_t i = 0;
  const size_t n = text.size();
  auto line_at = [&](size_t pos) {
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + pos, '\n'));
  };
  auto skip_past = [&](std::string_view end) {
    const size_t at = text.find(end, i);
    i = at == std::string_view::npos ? n : at + end.size();
  };
  while (i < n) {
    if (text[i] != '<') {
      ++i;
      continue;
    }
    const std::string_view rest = text.substr(i);
    if (rest.starts_with("<!--")) {
      skip_past("-->");
    } else if (rest.starts_with("<![CDATA[")) {
      skip_past("]]>");
    } else if (rest.starts_with("<?")) {
      skip_past("?>");
    } else if (rest.starts_with("<!")) {  // DOCTYPE, possibly with an internal subset [ ... ]
      const size_t close = text.find('>', i), open = text.find('[', i);
      if (open != std::string_view::npos && open < close) {
        i = open;
        skip_past("]");
      }
      skip_past(">");
    } else if (rest.starts_with("</")) {
      if (!stack.empty()) stack.pop_back();
      skip_past(">");
    } else {
      const size_t start = i;
      ++i;
      std::string name;
      while (i < n && !IsSpace(text[i]) && text[i] != '/' && text[i] != '>') name += text[i++];
      std::map<std::string, std::string> attributes;
      bool closed = false, self_closing = false;
      while (i < n && !closed) {
        while (i < n && IsSpace(text[i])) ++i;
        if (i >= n) break;
        if (text[i] == '>') {
          closed = true;
          ++i;
        } else if (text[i] == '/' && i + 1 < n && text[i + 1] == '>') {
          closed = self_closing = true;
          i += 2;
        } else {
          std::string key;
          while (i < n && !IsSpace(text[i]) && text[i] != '=' && text[i] != '>' && text[i] != '/')
            key += text[i++];
          while (i < n && IsSpace(text[i])) ++i;
          if (i < n && text[i] == '=') {
            ++i;
            while (i < n && IsSpace(text[i])) ++i;
            if (i < n && (text[i] == '"' || text[i] == '\'')) {
              const char quote = text[i++];
              const size_t end = text.find(quote, i);
              const size_t stop = end == std::string_view::npos ? n : end;
              attributes[key] = std::string(text.substr(i, stop - i));
              if (scan.percent_at_line == 0 && key != "filename" && HoldsPercent(attributes[key]))
                scan.percent_at_line = line_at(i);
              i = std::min(n, stop + 1);
            }
          } else if (key.empty()) {
            ++i;  // a stray character: move on
          }
        }
      }
      const Element* parent = stack.empty() ? nullptr : &stack.back();
      const Element* grandparent = stack.size() < 2 ? nullptr : &stack[stack.size() - 2];
      Element element{name, ""};
      if (name == "link" && attributes.count("name")) {
        element.link = attributes["name"];
        scan.has_inertial.emplace(element.link, false);
      }
      if (name == "inertial" && parent && parent->name == "link")
        scan.has_inertial[parent->link] = true;
      if (parent && parent->name == "inertial" && grandparent && grandparent->name == "link") {
        auto& values = scan.inertial[grandparent->link];
        if (name == "mass" && attributes.count("value")) values["mass"] = attributes["value"];
        if (name == "inertia")
          for (const char* key : {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"})
            if (attributes.count(key)) values[key] = attributes[key];
      }
      if (!self_closing) {
        stack.push_back(element);
        if (static_cast<int>(stack.size()) > max_depth) {
          scan.depth_exceeded_at_line = line_at(start);
          return scan;
        }
      }
    }
  }
  return scan;
}

}  // namespace frfit
