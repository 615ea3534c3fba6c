// Strong unit types: time in integer picoseconds, sizes in bytes, rates in bits per second.
// They do not mix by accident: adding a Time to a Bytes does not compile.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rocesim {

// Simulated time, an integer count of picoseconds (2^63 ps is about 106 days).
class Time {
 public:
  constexpr Time() = default;
  static constexpr Time ps(int64_t v) { return Time(v); }
  static constexpr Time ns(int64_t v) { return Time(v * 1000); }
  static constexpr Time us(int64_t v) { return Time(v * 1000'000); }
  static constexpr Time ms(int64_t v) { return Time(v * 1000'000'000); }
  static constexpr Time sec(int64_t v) { return Time(v * 1000'000'000'000); }
  static constexpr Time max() { return Time(INT64_MAX); }
  constexpr int64_t ps() const { return v_; }
  constexpr double ns_f() const { return static_cast<double>(v_) / 1e3; }
  constexpr double us_f() const { return static_cast<double>(v_) / 1e6; }
  constexpr double sec_f() const { return static_cast<double>(v_) / 1e12; }
  constexpr Time operator+(Time o) const { return Time(v_ + o.v_); }
  constexpr Time operator-(Time o) const { return Time(v_ - o.v_); }
  constexpr Time& operator+=(Time o) {
    v_ += o.v_;
    return *this;
  }
  constexpr Time& operator-=(Time o) {
    v_ -= o.v_;
    return *this;
  }
  constexpr Time operator*(int64_t k) const { return Time(v_ * k); }
  constexpr Time operator/(int64_t k) const { return Time(v_ / k); }
  constexpr auto operator<=>(const Time&) const = default;

 private:
  constexpr explicit Time(int64_t v) : v_(v) {}
  int64_t v_ = 0;
};

// A size in bytes.
class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(int64_t v) : v_(v) {}
  constexpr int64_t count() const { return v_; }
  constexpr Bytes operator+(Bytes o) const { return Bytes(v_ + o.v_); }
  constexpr Bytes operator-(Bytes o) const { return Bytes(v_ - o.v_); }
  constexpr Bytes& operator+=(Bytes o) {
    v_ += o.v_;
    return *this;
  }
  constexpr Bytes& operator-=(Bytes o) {
    v_ -= o.v_;
    return *this;
  }
  constexpr Bytes operator*(int64_t k) const { return Bytes(v_ * k); }
  constexpr auto operator<=>(const Bytes&) const = default;

 private:
  int64_t v_ = 0;
};

// A data rate in bits per second.
class Rate {
 public:
  constexpr Rate() = default;
  static constexpr Rate bps(int64_t v) { return Rate(v); }
  static constexpr Rate gbps(int64_t v) { return Rate(v * 1000'000'000); }
  static constexpr Rate mbps(int64_t v) { return Rate(v * 1000'000); }
  constexpr int64_t bps() const { return v_; }
  constexpr double gbps_f() const { return static_cast<double>(v_) / 1e9; }
  constexpr auto operator<=>(const Rate&) const = default;

  // Picoseconds per byte when that is a whole number (every Ethernet rate: 100 Gbps is 80), else 0. Hot paths
  // multiply by it instead of dividing in tx_time(); the result is the same.
  constexpr int64_t ps_per_byte() const {
    constexpr int64_t kPsBits = 8 * 1000'000'000'000LL;  // 8 bits x 10^12 ps/s
    return v_ > 0 && kPsBits % v_ == 0 ? kPsBits / v_ : 0;
  }
  // Time to serialise `b` bytes at this rate, rounded up to a whole picosecond.
  constexpr Time tx_time(Bytes b) const {
    const int64_t n = b.count();
    if (n >= 0 && n < 1000'000) {  // the product fits in 64 bits: a 64-bit division is much cheaper
      const uint64_t num = static_cast<uint64_t>(n) * 8'000'000'000'000ULL;
      return Time::ps(static_cast<int64_t>((num + static_cast<uint64_t>(v_) - 1) / static_cast<uint64_t>(v_)));
    }
    const __int128 num = static_cast<__int128>(n) * 8 * 1000'000'000'000LL;
    return Time::ps(static_cast<int64_t>((num + v_ - 1) / v_));
  }
  // Bytes that fit in `t` at this rate, rounded down.
  constexpr Bytes bytes_in(Time t) const {
    const __int128 num = static_cast<__int128>(t.ps()) * v_;
    return Bytes(static_cast<int64_t>(num / (8 * static_cast<__int128>(1000'000'000'000LL))));
  }

 private:
  constexpr explicit Rate(int64_t v) : v_(v) {}
  int64_t v_ = 0;
};

constexpr Bytes operator""_B(unsigned long long v) { return Bytes(static_cast<int64_t>(v)); }
constexpr Bytes operator""_KB(unsigned long long v) { return Bytes(static_cast<int64_t>(v) * 1000); }
constexpr Bytes operator""_MB(unsigned long long v) { return Bytes(static_cast<int64_t>(v) * 1000'000); }
constexpr Time operator""_ps(unsigned long long v) { return Time::ps(static_cast<int64_t>(v)); }
constexpr Time operator""_ns(unsigned long long v) { return Time::ns(static_cast<int64_t>(v)); }
constexpr Time operator""_us(unsigned long long v) { return Time::us(static_cast<int64_t>(v)); }
constexpr Time operator""_ms(unsigned long long v) { return Time::ms(static_cast<int64_t>(v)); }
constexpr Rate operator""_Gbps(unsigned long long v) { return Rate::gbps(static_cast<int64_t>(v)); }
constexpr Rate operator""_Mbps(unsigned long long v) { return Rate::mbps(static_cast<int64_t>(v)); }

// Parsers: throw UnitError with a message that names the accepted units. Values must be exact
// (e.g. "0.5ps" is rejected, since time is an integer number of picoseconds) and non-negative.
struct UnitError {
  std::string message;
};
Time parse_time(std::string_view s);
// a + b x k for times computed from input, or nothing if that leaves Time's range (about 106 days).
std::optional<Time> add_times(Time a, Time b, int64_t k);
Bytes parse_bytes(std::string_view s);
Rate parse_rate(std::string_view s);

// Printers give the shortest exact form: "1.5us", "150KB", "2MiB", "400Gbps".
std::string to_string(Time t);
std::string to_string(Bytes b);
std::string to_string(Rate r);

}  // namespace rocesim
