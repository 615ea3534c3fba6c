// Helpers shared by the tests: build and run a simulation from YAML text.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "rocesim/core/text.hpp"
#include "rocesim/io/scenario.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim::test {

// 2 x dgx-h100 on 8 rails of 400G (one leaf per rail, 2 spines): non-blocking; no workload.
inline constexpr const char* kTwoDgxFabric = R"(
stop: 100ms
topology: {type: leaf-spine, rail: true, nics_per_host: 8, leaves: 8, servers_per_leaf: 2, spines: 2,
           host_link: {rate: 400Gbps, delay: 1us}, fabric_link: {rate: 400Gbps, delay: 1us}}
server: {preset: dgx-h100}
switch: {buffer: 64MB, pfc: {priorities: [3]}}
nic: {cc: dcqcn, mtu: 4096}
)";

inline std::unique_ptr<Simulation> make_sim(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  return std::make_unique<Simulation>(parse_scenario(yaml, "test.yaml", ".", sets));
}

inline std::unique_ptr<Simulation> run_sim(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  auto s = make_sim(yaml, sets);
  s->run();
  return s;
}

// A WRITE flow.
inline FlowSpec write_flow(uint32_t src, uint32_t dst, Bytes size, Time start = Time(), int priority = 3) {
  FlowSpec f;
  f.src = src;
  f.dst = dst;
  f.size = size;
  f.start = start;
  f.priority = priority;
  return f;
}

// Flows not finished at the end of the run.
inline int64_t unfinished(const Network& net) {
  int64_t n = 0;
  for (const auto& f : net.flows()) {
    n += !f.done;
  }
  return n;
}

// Sum of a switch-port counter over all switches, ports and the given priorities.
template <class F>
int64_t sum_ports(Network& net, F f) {
  int64_t t = 0;
  for (const auto& sw : net.switches()) {
    for (uint16_t p = 0; p < sw->num_ports(); ++p) {
      for (int c = 0; c < 8; ++c) {
        t += f(sw->counters(p, c));
      }
    }
  }
  return t;
}

// Packets dropped by every switch, all reasons and priorities.
inline int64_t all_drops(Network& net) {
  int64_t d = 0;
  for (const auto& sw : net.switches()) {
    d += sw->drops_total();
  }
  return d;
}

// The rows of a CSV text (no quoting), each a map from the header's column names to the row's values.
inline std::vector<std::map<std::string, std::string>> csv_rows(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  const auto split = [](const std::string& s) { return csv_split(s); };
  std::getline(in, line);
  const std::vector<std::string> header = split(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> cols = split(line);
    auto& row = rows.emplace_back();
    for (size_t i = 0; i < header.size() && i < cols.size(); ++i) {
      row[header[i]] = cols[i];
    }
  }
  return rows;
}

// A shell command's exit status (-1 if killed) and its stdout and stderr together.
struct ShellResult {
  int status;
  std::string out;
};
inline ShellResult shell(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) {
    out.append(buf, n);
  }
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

// Waits (up to `timeout_ms`) until process `pid` has installed a handler for `sig`, read from the SigCgt mask of
// /proc/PID/status (proc(5)): a signal sent before that takes its default action, however slow the start-up
// (a sanitized build starts in hundreds of milliseconds). False if it never did.
inline bool wait_until_catching(pid_t pid, int sig, int timeout_ms = 20'000) {
  for (int waited = 0; waited < timeout_ms; waited += 10) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("SigCgt:", 0) == 0 && (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1) & 1U) != 0) {
        return true;
      }
    }
    usleep(10'000);
  }
  return false;
}

// A file's whole contents ("" if it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace rocesim::test
