#include "rocesim/core/units.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace rocesim {
namespace {

struct UnitScale {
  std::string_view name;
  int64_t scale;
};

// Parses "<decimal><unit>" exactly: the decimal's digits are kept as integers, so "1.5us" is 1500000 ps
// with no floating-point rounding.
template <size_t N>
int64_t parse_scaled(std::string_view s, const std::array<UnitScale, N>& units, std::string_view what,
                     std::string_view accepted) {
  auto fail = [&](std::string_view why) -> int64_t {
    throw UnitError{std::string("bad ") + std::string(what) + " '" + std::string(s) + "': " + std::string(why) +
                    " (accepted units: " + std::string(accepted) + ")"};
  };
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) {
    ++i;
  }
  if (i < s.size() && s[i] == '-') {
    fail("must not be negative");
  }
  if (i < s.size() && s[i] == '+') {
    ++i;
  }
  __int128 mant = 0;
  int frac_digits = 0;
  bool any_digit = false, in_frac = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      any_digit = true;
      mant = mant * 10 + (c - '0');
      if (mant > (static_cast<__int128>(1) << 100)) {
        fail("number too large");
      }
      if (in_frac) {
        ++frac_digits;
      }
    } else if (c == '.' && !in_frac) {
      in_frac = true;
    } else if (c == '_') {
      continue;
    } else {
      break;
    }
  }
  if (!any_digit) {
    fail("no number");
  }
  // An exponent, as YAML and JSON write numbers (1e+3ms, 1.5E6B): an 'e' followed by a digit or a signed digit.
  if (i + 1 < s.size() && (s[i] == 'e' || s[i] == 'E') &&
      (std::isdigit(static_cast<unsigned char>(s[i + 1])) ||
       ((s[i + 1] == '+' || s[i + 1] == '-') && i + 2 < s.size() &&
        std::isdigit(static_cast<unsigned char>(s[i + 2]))))) {
    ++i;
    const bool negative = s[i] == '-';
    if (s[i] == '+' || s[i] == '-') {
      ++i;
    }
    int exp = 0;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
      exp = std::min(exp * 10 + (s[i] - '0'), 1000);
    }
    if (negative) {
      frac_digits += exp;
    } else {
      for (int k = 0; k < exp; ++k) {
        mant *= 10;
        if (mant > (static_cast<__int128>(1) << 100)) {
          fail("number too large");
        }
      }
    }
  }
  if (frac_digits > 30) {
    fail("too many decimal places");
  }
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) {
    ++i;
  }
  size_t end = s.size();
  while (end > i && std::isspace(static_cast<unsigned char>(s[end - 1]))) {
    --end;
  }
  const std::string_view unit = s.substr(i, end - i);
  if (unit.empty()) {
    fail("missing unit");
  }
  for (const auto& u : units) {
    if (u.name == unit) {
      __int128 v = mant * u.scale;
      __int128 div = 1;
      for (int k = 0; k < frac_digits; ++k) {
        div *= 10;
      }
      if (v % div != 0) {
        fail("not a whole number of the base unit");
      }
      v /= div;
      if (v > INT64_MAX) {
        fail("value too large");
      }
      return static_cast<int64_t>(v);
    }
  }
  return fail("unknown unit '" + std::string(unit) + "'");
}

constexpr std::array<UnitScale, 6> kTimeUnits{{{"ps", 1},
                                               {"ns", 1000},
                                               {"us", 1000'000},
                                               {"ms", 1000'000'000},
                                               {"s", 1000'000'000'000},
                                               {"sec", 1000'000'000'000}}};
constexpr std::array<UnitScale, 10> kByteUnits{{{"B", 1},
                                                {"KB", 1000},
                                                {"MB", 1000'000},
                                                {"GB", 1000'000'000},
                                                {"KiB", 1024},
                                                {"MiB", 1024 * 1024},
                                                {"GiB", 1024LL * 1024 * 1024},
                                                {"kB", 1000},
                                                {"bytes", 1},
                                                {"byte", 1}}};
// Bytes per second (GB/s, as PCIe and NVLink are quoted) are 8 bits per byte.
constexpr std::array<UnitScale, 16> kRateUnits{{{"bps", 1},
                                                {"Kbps", 1000},
                                                {"Mbps", 1000'000},
                                                {"Gbps", 1000'000'000},
                                                {"Tbps", 1000'000'000'000},
                                                {"b/s", 1},
                                                {"Kb/s", 1000},
                                                {"Mb/s", 1000'000},
                                                {"Gb/s", 1000'000'000},
                                                {"Tb/s", 1000'000'000'000},
                                                {"MBps", 8'000'000},
                                                {"GBps", 8'000'000'000},
                                                {"TBps", 8'000'000'000'000},
                                                {"MB/s", 8'000'000},
                                                {"GB/s", 8'000'000'000},
                                                {"TB/s", 8'000'000'000'000}}};

// Prints v/scale with up to 3 decimals if exact; returns "" if not exact.
std::string exact_decimal(int64_t v, int64_t scale) {
  for (int decimals = 0; decimals <= 3; ++decimals) {
    int64_t p = 1;
    for (int k = 0; k < decimals; ++k) {
      p *= 10;
    }
    const __int128 num = static_cast<__int128>(v) * p;
    if (num % scale != 0) {
      continue;
    }
    const int64_t q = static_cast<int64_t>(num / scale);
    std::string out = std::to_string(q / p);
    if (decimals > 0) {
      std::string frac = std::to_string(q % p);
      frac.insert(0, static_cast<size_t>(decimals) - frac.size(), '0');
      out += "." + frac;
    }
    return out;
  }
  return "";
}

template <size_t N>
std::string print_scaled(int64_t v, const std::array<std::pair<std::string_view, int64_t>, N>& units) {
  // Largest unit first that still prints exactly with at least a whole leading digit.
  for (const auto& [name, scale] : units) {
    if (v >= scale || scale == 1) {
      const std::string s = exact_decimal(v, scale);
      if (!s.empty()) {
        return s + std::string(name);
      }
    }
  }
  return std::to_string(v) + std::string(units.back().first);
}

}  // namespace

Time parse_time(std::string_view s) { return Time::ps(parse_scaled(s, kTimeUnits, "time", "ps, ns, us, ms, s")); }
Bytes parse_bytes(std::string_view s) {
  return Bytes(parse_scaled(s, kByteUnits, "size", "B, KB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of 1024)"));
}
Rate parse_rate(std::string_view s) {
  const int64_t v = parse_scaled(s, kRateUnits, "rate", "bps, Kbps, Mbps, Gbps, Tbps; MB/s, GB/s, TB/s");
  if (v == 0) {
    throw UnitError{"bad rate '" + std::string(s) + "': must be positive"};
  }
  return Rate::bps(v);
}

std::string to_string(Time t) {
  if (t.ps() == 0) {
    return "0ns";
  }
  static constexpr std::array<std::pair<std::string_view, int64_t>, 5> u{
      {{"s", 1000'000'000'000}, {"ms", 1000'000'000}, {"us", 1000'000}, {"ns", 1000}, {"ps", 1}}};
  return print_scaled(t.ps(), u);
}
std::string to_string(Bytes b) {
  if (b.count() == 0) {
    return "0B";
  }
  const int64_t v = b.count();
  // Prefer binary units when the value is an exact multiple of them and not of the decimal ones.
  if (v % 1000 != 0 && v % 1024 == 0) {
    static constexpr std::array<std::pair<std::string_view, int64_t>, 4> u{
        {{"GiB", 1024LL * 1024 * 1024}, {"MiB", 1024 * 1024}, {"KiB", 1024}, {"B", 1}}};
    return print_scaled(v, u);
  }
  static constexpr std::array<std::pair<std::string_view, int64_t>, 4> u{
      {{"GB", 1000'000'000}, {"MB", 1000'000}, {"KB", 1000}, {"B", 1}}};
  return print_scaled(v, u);
}
std::string to_string(Rate r) {
  static constexpr std::array<std::pair<std::string_view, int64_t>, 5> u{
      {{"Tbps", 1000'000'000'000}, {"Gbps", 1000'000'000}, {"Mbps", 1000'000}, {"Kbps", 1000}, {"bps", 1}}};
  return print_scaled(r.bps(), u);
}

}  // namespace rocesim

namespace rocesim {

std::optional<Time> add_times(Time a, Time b, int64_t k) {
  int64_t bk = 0, sum = 0;
  if (__builtin_mul_overflow(b.ps(), k, &bk) || __builtin_add_overflow(a.ps(), bk, &sum)) {
    return std::nullopt;
  }
  return Time::ps(sum);
}

}  // namespace rocesim
