#include "rocesim/check/check.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rocesim {
namespace {

constexpr size_t kCyclesShown = 20;

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    s += (i ? sep : "") + v[i];
  }
  return s;
}

std::string join_numbers(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) {
    if (!s.empty()) {
      s += ", ";
    }
    s += std::to_string(x);
  }
  return s;
}

std::string cycle_context(const DependencyCycle& c) {
  if (c.failed.empty()) {
    return "settled routes of the fabric as built";
  }
  std::string s = c.transient ? "while routes converge after " : "settled routes after ";
  s += join(c.failed, " and ") + " fail" + (c.failed.size() == 1 ? "s" : "");
  if (c.failure_sets > 1) {
    s += fmt::format("; {} failure sets form it", c.failure_sets);
  }
  return s;
}

}  // namespace

CheckReport run_check(const Scenario& sc, const CheckOptions& o) {
  CheckReport r;
  r.lossless = sc.sw.pfc.priorities;
  for (const TopoNode& n : sc.graph.nodes) {
    r.switches += !n.is_nic();
  }
  for (const TopoLink& l : sc.graph.links) {
    r.switch_queues += 2 * (!sc.graph.nodes[l.a].is_nic() && !sc.graph.nodes[l.b].is_nic());
  }
  const auto& ladder = sc.sw.pfc.tagger.priorities;
  std::vector<int64_t> plain, tagged;
  for (int64_t p : r.lossless) {
    (std::find(ladder.begin(), ladder.end(), p) == ladder.end() ? plain : tagged).push_back(p);
  }
  for (const bool on_ladder : {false, true}) {
    if (const auto& set = on_ladder ? tagged : plain; !set.empty()) {
      r.deps.push_back(find_dependency_cycles(sc.graph, o.failures, on_ladder, o.progress));
      r.deps.back().priorities = set;
    }
  }
  r.findings = lint(sc);
  return r;
}

std::string check_text(const CheckReport& r, const std::string& file) {
  const std::string lossless = join_numbers(r.lossless);
  std::string s = fmt::format("{}: {} switches, {} egress queues between switches, lossless priorities: {}\n", file,
                              r.switches, r.switch_queues, lossless.empty() ? "none" : lossless);
  if (r.deps.empty()) {
    s += "Buffer dependencies: none checked (no lossless priority: PFC is off, nothing can deadlock)\n";
  }
  for (const DependencyReport& d : r.deps) {
    s += fmt::format("Buffer dependencies of priorit{} {}{}: ", d.priorities.size() == 1 ? "y" : "ies",
                     join_numbers(d.priorities), d.tagged ? " (Tagger: a packet that bounces leaves them)" : "");
    s += d.failures == 0 ? "the routes of the fabric as built\n"
                         : fmt::format(
                               "the fabric as built and every set of up to {} switch-to-switch links down ({} route "
                               "sets)\n",
                               d.failures, d.failure_sets);
    if (d.cycles.empty()) {
      s += "  no cycle: PFC cannot deadlock on these routes\n";
      continue;
    }
    s += fmt::format("  {} cycle{} (each queue waits on the next; PFC can deadlock on each){}\n", d.cycles.size(),
                     d.cycles.size() == 1 ? "" : "s",
                     d.failures > 0 ? fmt::format(": {} sets with cycles in settled routes, {} only while "
                                                  "routes converge",
                                                  d.sets_with_cycles, d.sets_with_transient)
                                    : "");
    for (size_t i = 0; i < d.cycles.size() && i < kCyclesShown; ++i) {
      const DependencyCycle& c = d.cycles[i];
      s += fmt::format("  cycle {} ({}):\n    {} -> {}\n", i + 1, cycle_context(c), join(c.queues, " -> "),
                       c.queues.front());
    }
    if (d.cycles.size() > kCyclesShown) {
      s += fmt::format("  ... and {} more (--json lists all)\n", d.cycles.size() - kCyclesShown);
    }
  }
  int errors = 0;
  for (const Finding& f : r.findings) {
    errors += f.severity == "error";
  }
  s += r.findings.empty() ? "Lint: no finding\n"
                          : fmt::format("Lint: {} finding{}\n", r.findings.size(), r.findings.size() == 1 ? "" : "s");
  for (const Finding& f : r.findings) {
    s += fmt::format("  {:8} {:22} {}\n  {:8} {:22} {}\n  {:8} {:22} {}\n  {:8} {:22} fix: {}\n", f.severity, f.code,
                     f.key, "", "", f.where, "", "", f.reason, "", "", f.fix);
  }
  const size_t cycles = r.cycles();
  s += r.clean() ? "clean\n"
                 : fmt::format("{} cycle{}, {} finding{} ({} error{}, {} warning{})\n", cycles, cycles == 1 ? "" : "s",
                               r.findings.size(), r.findings.size() == 1 ? "" : "s", errors, errors == 1 ? "" : "s",
                               r.findings.size() - errors, r.findings.size() - errors == 1 ? "" : "s");
  return s;
}

nlohmann::json check_json(const CheckReport& r, const std::string& file) {
  nlohmann::json j;
  j["scenario"] = file;
  j["clean"] = r.clean();
  j["switches"] = r.switches;
  j["switch_queues"] = r.switch_queues;
  j["lossless_priorities"] = r.lossless;
  j["dependencies"] = nlohmann::json::array();
  for (const DependencyReport& d : r.deps) {
    nlohmann::json dj;
    dj["priorities"] = d.priorities;
    dj["tagger"] = d.tagged;
    dj["failures"] = d.failures;
    dj["route_sets"] = d.failure_sets;
    dj["sets_with_cycles"] = d.sets_with_cycles;
    dj["sets_with_transient_cycles"] = d.sets_with_transient;
    dj["cycles"] = nlohmann::json::array();
    for (const DependencyCycle& c : d.cycles) {
      dj["cycles"].push_back({{"queues", c.queues},
                              {"failed_links", c.failed},
                              {"transient", c.transient},
                              {"failure_sets", c.failure_sets}});
    }
    j["dependencies"].push_back(std::move(dj));
  }
  j["findings"] = nlohmann::json::array();
  for (const Finding& f : r.findings) {
    j["findings"].push_back({{"severity", f.severity},
                             {"code", f.code},
                             {"key", f.key},
                             {"where", f.where},
                             {"reason", f.reason},
                             {"fix", f.fix}});
  }
  return j;
}

}  // namespace rocesim
