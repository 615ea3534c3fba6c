#include "rocesim/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rocesim {

namespace {

// The length of the well-formed UTF-8 sequence starting at b[i] (RFC 3629: no overlong forms, no surrogates, up to
// U+10FFFF), or 0 when none starts there.
size_t utf8_sequence(const unsigned char* b, size_t n, size_t i) {
  const unsigned c = b[i];
  size_t len = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (c < 0x80) {
    return 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    lo = c == 0xE0 ? 0xA0 : 0x80;
    hi = c == 0xED ? 0x9F : 0xBF;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    lo = c == 0xF0 ? 0x90 : 0x80;
    hi = c == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (i + len > n || b[i + 1] < lo || b[i + 1] > hi) {
    return 0;
  }
  for (size_t k = 2; k < len; ++k) {
    if ((b[i + k] & 0xC0) != 0x80) {
      return 0;
    }
  }
  return len;
}

}  // namespace

size_t invalid_utf8(const std::string& s) {
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_sequence(b, s.size(), i);
    if (len == 0) {
      return i;
    }
    i += len;
  }
  return std::string::npos;
}

bool is_plain_text(const std::string& s) {
  return invalid_utf8(s) == std::string::npos &&
         std::none_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; });
}

std::string printable(const std::string& s) {
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = b[i];
    const size_t len = utf8_sequence(b, s.size(), i);
    if (len == 0 || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
      out += fmt::format("\\x{:02X}", c);
      ++i;
    } else {
      out.append(s, i, len);
      i += len;
    }
  }
  return out;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) {
      prev[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t sub = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      }
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& c : candidates) {
    const size_t d = distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  return best_d <= limit ? best : "";
}

}  // namespace rocesim
