#include "rocesim/workload/cdf.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "rocesim/core/params.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/core/units.hpp"

namespace rocesim {

FlowSizeCdf::FlowSizeCdf(std::vector<std::pair<double, double>> points) {
  if (points.size() < 2) {
    throw UnitError{"a CDF needs at least two points"};
  }
  for (size_t i = 0; i < points.size(); ++i) {
    const auto [x, y] = points[i];
    if (x < 0 || y < 0 || y > 100) {
      throw UnitError{"point " + std::to_string(i + 1) + ": sizes must be >= 0 and percents in 0..100"};
    }
    if (i > 0 && (x < points[i - 1].first || y < points[i - 1].second)) {
      throw UnitError{"point " + std::to_string(i + 1) + ": sizes and percents must not decrease"};
    }
    pts_.push_back({x, y / 100.0});
  }
  if (std::abs(pts_.back().second - 1.0) > 1e-9) {
    throw UnitError{"the last point must be at 100 percent"};
  }
}

FlowSizeCdf FlowSizeCdf::load(const std::string& name_or_path, const std::string& base_dir, const ParseCtx& ctx) {
  for (const auto& b : builtin_cdfs()) {
    if (b.name == name_or_path) {
      return FlowSizeCdf(b.points);
    }
  }
  std::filesystem::path p(name_or_path);
  if (p.is_relative()) {
    p = std::filesystem::path(base_dir) / p;
  }
  try {
    check_input_file(p, "", 0, "");
  } catch (const InputError& e) {  // the caller names the key
    throw UnitError{e.problem()};
  }
  std::ifstream in(p);
  if (in) {
    ctx.read(p.string());
  }
  if (!in) {
    std::string names;
    for (const auto& b : builtin_cdfs()) {
      names += " " + b.name;
    }
    throw UnitError{"'" + name_or_path + "' is neither a built-in distribution (" + names.substr(1) +
                    ") nor a readable file"};
  }
  std::vector<std::pair<double, double>> pts;
  std::string line;
  int lineno = 0;
  while (next_content_line(in, line, lineno, '#')) {
    std::istringstream ss(line);
    double x = 0, y = 0;
    if (!(ss >> x)) {
      continue;
    }
    std::string extra;
    if (!(ss >> y) || (ss >> extra)) {
      throw UnitError{p.string() + ":" + std::to_string(lineno) + ": expected 'size_bytes cdf_percent'"};
    }
    pts.push_back({x, y});
  }
  try {
    return FlowSizeCdf(pts);
  } catch (const UnitError& e) {
    throw UnitError{p.string() + ": " + e.message};
  }
}

double FlowSizeCdf::quantile(double u) const {
  for (size_t i = 1; i < pts_.size(); ++i) {
    if (u <= pts_[i].second) {
      const auto [x0, y0] = pts_[i - 1];
      const auto [x1, y1] = pts_[i];
      return y1 > y0 ? x0 + (x1 - x0) * (u - y0) / (y1 - y0) : x1;
    }
  }
  return pts_.back().first;
}

int64_t FlowSizeCdf::sample(Rng& rng) const {
  return std::max<int64_t>(1, static_cast<int64_t>(quantile(rng.uniform())));
}

double FlowSizeCdf::cdf(double size) const {
  if (size < pts_.front().first) {
    return 0.0;
  }
  for (size_t i = 1; i < pts_.size(); ++i) {
    if (size <= pts_[i].first) {
      const auto [x0, y0] = pts_[i - 1];
      const auto [x1, y1] = pts_[i];
      return x1 > x0 ? y0 + (y1 - y0) * (size - x0) / (x1 - x0) : y1;
    }
  }
  return 1.0;
}

double FlowSizeCdf::mean() const {
  double m = 0;
  for (size_t i = 1; i < pts_.size(); ++i) {
    m += (pts_[i - 1].first + pts_[i].first) / 2 * (pts_[i].second - pts_[i - 1].second);
  }
  return m;
}

}  // namespace rocesim
