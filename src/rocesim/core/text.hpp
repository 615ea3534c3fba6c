// Text: reading the line-oriented files users bring (topologies, flow lists, CDFs, the HPCC simulator's files),
// and how tables and messages write sizes and times (a few digits in the largest unit that fits).
#pragma once

#include <fmt/format.h>

#include <istream>
#include <string>
#include <vector>

namespace rocesim {

// Reads lines from `in` into `line`, counting them in `lineno` (for error messages), until one has content: with
// `comment` set, the text from that character on is dropped first. Returns false at the end of the input.
inline bool next_content_line(std::istream& in, std::string& line, int& lineno, char comment = 0) {
  while (std::getline(in, line)) {
    ++lineno;
    if (comment) {
      if (const auto h = line.find(comment); h != std::string::npos) {
        line.resize(h);
      }
    }
    if (line.find_first_not_of(" \t\r") != std::string::npos) {
      return true;
    }
  }
  return false;
}

// `s` without leading and trailing blanks (spaces, tabs, carriage returns).
inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// A CSV field as RFC 4180 writes it: in double quotes, its quotes doubled, when it holds a comma, a quote or a
// line break (a node name from a topology file may).
inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) {
    return s;
  }
  std::string out = "\"";
  for (char c : s) {
    out += c;
    if (c == '"') {
      out += '"';
    }
  }
  return out + "\"";
}

// One CSV record of one line split into its fields, quotes as csv_field writes them undone.
inline std::vector<std::string> csv_split(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

inline std::string size_text(double bytes) {
  if (bytes >= 1e9) {
    return fmt::format("{:.2f} GB", bytes / 1e9);
  }
  if (bytes >= 1e6) {
    return fmt::format("{:.2f} MB", bytes / 1e6);
  }
  if (bytes >= 1e3) {
    return fmt::format("{:.1f} KB", bytes / 1e3);
  }
  return fmt::format("{:.0f} B", bytes);
}

inline std::string time_text(double ns) {
  if (ns >= 1e6) {
    return fmt::format("{:.3f} ms", ns / 1e6);
  }
  return fmt::format("{:.3f} us", ns / 1e3);
}

}  // namespace rocesim
