// How the terminal tables write sizes and times: a few significant digits in the largest unit that fits.
#pragma once

#include <fmt/format.h>

#include <string>

namespace rocesim {

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
