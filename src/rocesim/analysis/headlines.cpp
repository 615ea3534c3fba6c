#include "rocesim/analysis/headlines.hpp"

#include <fmt/format.h>

#include "rocesim/core/text.hpp"

namespace rocesim {
namespace {

// A collective's size as a scenario writes it: 128 MiB, 4 KiB, 1000 B.
std::string binary_size(int64_t b) {
  for (const auto& [shift, unit] : {std::pair{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}}) {
    if (b >= (int64_t{1} << shift) && b % (int64_t{1} << shift) == 0) {
      return fmt::format("{} {}", b >> shift, unit);
    }
  }
  return fmt::format("{} B", b);
}

double num(const nlohmann::json& v) { return v.is_number() ? v.get<double>() : 0.0; }

std::string perftest_lines(const nlohmann::json& rows) {
  std::string t;
  for (const auto& r : rows) {
    const std::string who = fmt::format("{} {} -> {}", r["test"].get<std::string>(), r["client"].get<std::string>(),
                                        r["server"].get<std::string>());
    if (r.contains("bw_average_gbps")) {
      t += fmt::format("  perftest         {} {:>10} B: peak {:.2f} Gb/s, average {:.2f} Gb/s, {:.3f} Mpps\n", who,
                       r["bytes"].get<int64_t>(), num(r["bw_peak_gbps"]), num(r["bw_average_gbps"]),
                       num(r["msg_rate_mpps"]));
    } else {
      t += fmt::format(
          "  perftest         {} {:>10} B: typical {:.2f} us, average {:.2f} us, p99 {:.2f} us, "
          "p99.9 {:.2f} us\n",
          who, r["bytes"].get<int64_t>(), num(r["t_typical_us"]), num(r["t_avg_us"]), num(r["p99_us"]),
          num(r["p999_us"]));
    }
  }
  return t;
}

// Per workload and operation: the largest size's row (the bandwidth a sweep reaches) and the mean over the calls.
std::string collective_lines(const nlohmann::json& s) {
  std::string t;
  for (const auto& m : s["collectives_by_op"]) {
    const nlohmann::json* largest = nullptr;
    size_t calls = 0, done = 0;
    for (const auto& r : s["collectives"]) {
      if (r["workload"] != m["workload"] || r["op"] != m["op"]) {
        continue;
      }
      ++calls;
      if (r["complete"].get<bool>()) {
        ++done;
        if (!largest || r["bytes"].get<int64_t>() >= (*largest)["bytes"].get<int64_t>()) {
          largest = &r;
        }
      }
    }
    if (!largest) {
      continue;
    }
    const std::string what = fmt::format("{} {}, {} ranks ({}, {})", m["workload"].get<std::string>(),
                                         m["op"].get<std::string>(), (*largest)["ranks"].get<int64_t>(),
                                         m["algorithm"].get<std::string>(), m["protocol"].get<std::string>());
    t += fmt::format("  collective       {}: {} in {}, algbw {:.1f} GB/s, busbw {:.1f} GB/s", what,
                     binary_size((*largest)["bytes"].get<int64_t>()), time_text(num((*largest)["time_us"]) * 1e3),
                     num((*largest)["algbw_GBps"]), num((*largest)["busbw_GBps"]));
    if (calls > 1) {
      t += fmt::format("; {} calls{}, mean {}, busbw {:.1f} GB/s", done,
                       done == calls ? "" : fmt::format(" of {}", calls), time_text(num(m["time_us"]) * 1e3),
                       num(m["busbw_GBps"]));
    }
    t += "\n";
  }
  return t;
}

std::string training_lines(const nlohmann::json& rows) {
  std::string t;
  for (const auto& w : rows) {
    const int64_t done = w["steps_done"].get<int64_t>(), of = w["iterations"].get<int64_t>();
    if (done == 0) {
      t += fmt::format("  training         {}: no step ended (of {})\n", w["workload"].get<std::string>(), of);
      continue;
    }
    t += fmt::format(
        "  training         {}: {} step{}{}, {} a step: compute {}, communication {}, exposed {} ({:.0f} % of the "
        "communication hidden)\n",
        w["workload"].get<std::string>(), done, done == 1 ? "" : "s", done == of ? "" : fmt::format(" of {}", of),
        time_text(num(w["mean_time_us"]) * 1e3), time_text(num(w["compute_us"]) * 1e3),
        time_text(num(w["mean_communication_us"]) * 1e3), time_text(num(w["mean_exposed_us"]) * 1e3),
        num(w["hidden"]) * 100);
  }
  return t;
}

}  // namespace

bool reports_fct(const nlohmann::json& s) {
  if (!s.contains("workloads") || s["workloads"].empty()) {
    return true;
  }
  for (const auto& w : s["workloads"]) {
    if (w.value("fct", true)) {
      return true;
    }
  }
  return false;
}

bool only_fct(const nlohmann::json& s) {
  for (const auto& w : s.value("workloads", nlohmann::json::array())) {
    if (!w.value("fct", true)) {
      return false;
    }
  }
  return true;
}

WorkloadCounts workload_counts(const nlohmann::json& s, bool fct) {
  WorkloadCounts c;
  for (const auto& w : s.value("workloads", nlohmann::json::array())) {
    if (w.value("fct", true) == fct) {
      c.created += w["created"].get<int64_t>();
      c.finished += w["finished"].get<int64_t>();
      c.unfinished += w["unfinished"].get<int64_t>();
    }
  }
  return c;
}

std::string workload_headlines(const nlohmann::json& s) {
  std::string t;
  if (s.contains("perftest")) {
    t += perftest_lines(s["perftest"]);
  }
  if (s.contains("training")) {
    t += training_lines(s["training"]);
  }
  if (s.contains("collectives_by_op")) {
    t += collective_lines(s);
  }
  return t;
}

}  // namespace rocesim
