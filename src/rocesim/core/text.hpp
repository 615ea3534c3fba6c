// Reading the line-oriented text files users bring (topologies, flow lists, CDFs, the HPCC simulator's files).
#pragma once

#include <istream>
#include <string>

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

}  // namespace rocesim
