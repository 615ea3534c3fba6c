#include <fmt/format.h>

#include <algorithm>

#include "rocesim/cli/command.hpp"
#include "rocesim/cli/common.hpp"
#include "rocesim/core/text.hpp"

namespace rocesim::cli {
namespace {

// 0.4 s, 12 s, 7 min, 3.2 h.
std::string duration_text(double s) {
  const auto digits = [](double v) { return v >= 10 ? fmt::format("{:.0f}", v) : fmt::format("{:.2g}", v); };
  if (s < 60) {
    return digits(s) + " s";
  }
  if (s < 3600) {
    return digits(s / 60) + " min";
  }
  return digits(s / 3600) + " h";
}

// A count to about two significant digits in words: "71 million", "150 thousand".
std::string approximately(double n) {
  static constexpr std::pair<double, const char*> kScales[] = {
      {1e12, "trillion"}, {1e9, "billion"}, {1e6, "million"}, {1e3, "thousand"}, {1, ""}};
  for (const auto& [scale, word] : kScales) {
    if (n >= scale || scale == 1) {
      const double v = n / scale;
      const std::string digits = v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.2g}", v);
      return *word ? digits + " " + word : digits;
    }
  }
  return "";
}

int cmd_validate(const std::string& path, const std::vector<std::string>& sets, std::optional<int64_t> seed) {
  Simulation s(load(path, sets, seed));
  print_warnings(s);
  const size_t flows = s.net().flows().size();
  fmt::print("{}: valid ({} servers, {} NICs, {} switches{})\n", printable(path), s.net().num_servers(),
             s.net().num_hosts(), s.net().switches().size(), flows > 0 ? fmt::format(", {} flows", flows) : "");
  const ExpectedTraffic& e = s.net().expected();
  if (e.perftest_messages > 0) {
    fmt::print("  perftest msgs    {:.0f} ({:.4g} GB of payload), one record each (flows.csv)\n", e.perftest_messages,
               e.perftest_bytes / 1e9);
  }
  if (e.messages > 0) {
    fmt::print("  collective msgs  {:.0f} ({:.4g} GB of payload), kept {}\n", e.messages, e.bytes / 1e9,
               s.scenario().output.flows == "all" ? "one record each (flows.csv)"
                                                  : fmt::format("in {:.0f} records per call and queue pair", e.groups));
  }
  // Events, to an order of magnitude: per data packet and link it crosses (a transmission and an arrival), and per
  // message (its post, completion and acknowledgements); measured on rail all-reduces and fat-tree permutations
  // (docs/performance.md).
  constexpr double kEventsPerPacketHop = 2.1, kEventsPerMessage = 13;
  ExpectedTraffic all = e;
  for (const FlowRecord& f : s.net().flows()) {
    const int64_t mtu = s.net().mtu();
    const double packets = static_cast<double>(std::max<int64_t>(1, (f.spec.size.count() + mtu - 1) / mtu));
    const uint32_t from = f.spec.op == RdmaOp::kRead ? f.spec.dst : f.spec.src;
    const uint32_t to = f.spec.op == RdmaOp::kRead ? f.spec.src : f.spec.dst;
    all.packet_hops += packets * static_cast<double>(s.net().path(from, to, f.sport).size());
    all.messages += 1;
  }
  all.messages += all.perftest_messages;
  const double events = kEventsPerPacketHop * all.packet_hops + kEventsPerMessage * all.messages;
  if (all.messages > 0) {
    fmt::print("  events           about {} ({:.3g} packet-hops, {:.3g} messages)\n", approximately(events),
               all.packet_hops, all.messages);
  }
  const Scenario& sc = s.scenario();
  fmt::print("  memory           about {:.3g} GB{}\n", s.memory_estimate() / 1e9,
             sc.memory_limit > 0
                 ? fmt::format(" of the {:.3g} GB that {} leaves it", sc.memory_limit / 1e9, sc.memory_limit_source)
                 : "");
  if (events > 0) {
    // One thread runs 35 to 250 ns an event on the benchmark suite and the scaled all-reduces, more as the state
    // the fabric holds grows (docs/performance.md, measured on a 2-core x86-64 VM); threads divide it by up to
    // their count.
    constexpr double kFastNs = 35, kSlowNs = 250;
    const double fast = events * kFastNs * 1e-9, slow = events * kSlowNs * 1e-9;
    fmt::print("  run time         {} on one thread (35-250 ns an event, as the benchmarks measured)\n",
               slow < 1 ? std::string("under a second")
                        : fmt::format("about {} to {}", duration_text(fast), duration_text(slow)));
  }
  return 0;
}

}  // namespace

void add_validate(CLI::App& app, Action& action) {
  auto a = std::make_shared<ScenarioArgs>();
  auto* cmd = app.add_subcommand("validate", "check a scenario without running it");
  cmd->add_option("scenario", a->scenario, "scenario file (YAML)")->required();
  add_set_option(*cmd, *a);
  add_seed_option(*cmd, *a);
  cmd->callback([a, &action] { action = [a] { return cmd_validate(a->scenario, a->sets, a->seed); }; });
}

}  // namespace rocesim::cli
