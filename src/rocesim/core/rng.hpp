// Random streams: one seed per scenario, one independent stream per component, derived from the seed and the
// component's path (e.g. "switch.leaf0"), so adding a component does not perturb the others' streams.
#pragma once

#include <cstdint>
#include <string_view>

namespace rocesim {

// SplitMix64 step, used to expand seeds (Steele et al., "Fast splittable pseudorandom number generators").
constexpr uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// FNV-1a: a stable hash of a component path, independent of platform and standard library.
constexpr uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001B3ULL;
  }
  return h;
}

// xoshiro256** (Blackman and Vigna): fast, small state, good statistical quality.
class Rng {
 public:
  Rng(uint64_t seed, std::string_view path) {
    uint64_t st = seed ^ fnv1a(path);
    for (auto& w : s_) {
      w = splitmix64(st);
    }
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; the bias is below 2^-32 for n < 2^32).
  uint64_t below(uint64_t n) { return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64); }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace rocesim
