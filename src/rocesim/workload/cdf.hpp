// Flow-size distributions: piecewise-linear CDFs sampled by linear interpolation, as the HPCC simulator's
// traffic generator does (custom_rand.py).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "rocesim/core/params.hpp"
#include "rocesim/core/rng.hpp"

namespace rocesim {

struct BuiltinCdf {
  std::string name;
  std::string doc;
  std::vector<std::pair<double, double>> points;  // (size in bytes, cumulative percent)
};
const std::vector<BuiltinCdf>& builtin_cdfs();

class FlowSizeCdf {
 public:
  // Points (size, percent) with sizes and percents non-decreasing, the last percent 100. Throws UnitError.
  explicit FlowSizeCdf(std::vector<std::pair<double, double>> points);
  // A built-in by name, or a file of "size percent" lines. Throws UnitError with a message naming the problem
  // (and the line, for files). A file read is listed in ctx's inputs.
  static FlowSizeCdf load(const std::string& name_or_path, const std::string& base_dir,
                          const ParseCtx& ctx = ParseCtx{});

  // A size drawn by inverse transform with linear interpolation, at least 1 byte.
  int64_t sample(Rng& rng) const;
  // The CDF at `size` (0..1), and the mean size of the interpolated distribution.
  double cdf(double size) const;
  double mean() const;
  // The size at cumulative fraction u (0..1).
  double quantile(double u) const;

 private:
  std::vector<std::pair<double, double>> pts_;  // percent scaled to 0..1
};

}  // namespace rocesim
