#include "rocesim/cli/common.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "rocesim/cli/interrupts.hpp"
#include "rocesim/core/memory.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/io/hpcc_config.hpp"
#include "rocesim/io/output.hpp"
#include "rocesim/io/report_html.hpp"

namespace rocesim::cli {
namespace {

// The memory a run may take: ROCESIM_MEMORY_LIMIT (a size, e.g. 8GB), or what the machine, the process's limits and
// its control group leave.
MemoryLimit memory_limit() {
  if (const char* env = std::getenv("ROCESIM_MEMORY_LIMIT")) {
    try {
      return {static_cast<double>(parse_bytes(env).count()), "ROCESIM_MEMORY_LIMIT"};
    } catch (const UnitError& e) {
      throw InputError("environment", 0, "ROCESIM_MEMORY_LIMIT", e.message);
    }
  }
  return machine_memory_limit();
}

void limit_memory(Scenario& sc) {
  const MemoryLimit limit = memory_limit();
  sc.memory_limit = limit.bytes;
  sc.memory_limit_source = limit.source;
  sc.memory_in_use = resident_bytes();
}

}  // namespace

void warn(const std::string& w) { fmt::print(stderr, "rocesim: warning: {}\n", printable(w)); }

Scenario load_hpcc(const std::string& config, const std::vector<std::string>& sets, std::optional<int64_t> seed) {
  const std::string dir = std::filesystem::path(config).parent_path().string();
  const HpccImport imp = import_hpcc_config(config, dir.empty() ? "." : dir);
  for (const auto& w : imp.warnings) {
    warn(w);
  }
  Scenario sc = parse_scenario(imp.yaml, config, dir.empty() ? "." : dir, sets, seed);
  sc.inputs.insert(sc.inputs.begin(), config);
  limit_memory(sc);
  return sc;
}

Scenario load(const std::string& path, const std::vector<std::string>& sets, std::optional<int64_t> seed) {
  Scenario sc = path.empty() ? parse_scenario(kDefaultScenario, kDefaultScenarioName, ".", sets, seed)
                             : load_scenario(path, sets, seed);
  limit_memory(sc);
  return sc;
}

void print_warnings(const Simulation& s) {
  for (const std::string& w : s.warnings()) {
    warn(w);
  }
  for (const std::string& note : s.notes()) {
    fmt::print(stderr, "rocesim: note: {}\n", note);
  }
}

std::string run_label(const std::string& dir) {
  std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
  if (p.filename().empty()) {
    p = p.parent_path();
  }
  return p.filename().empty() ? dir : p.filename().string();
}

void write_whole(const std::string& path, const std::string& text, const std::vector<std::string>& inputs) {
  if (path.empty()) {
    throw InputError("-o", 0, "", "the output file is an empty name");
  }
  if (const auto why = result_name_error(std::filesystem::path(path).filename().string())) {
    throw InputError(path, 0, "", *why);
  }
  const std::string target = write_target(path);
  for (const std::string& in : inputs) {
    // Compared as paths too: `-o missing/../input` names the input although `missing` does not exist yet.
    std::error_code ec, ec_target, ec_in;
    if (std::filesystem::equivalent(target, in, ec) ||
        std::filesystem::weakly_canonical(std::filesystem::absolute(target), ec_target) ==
            std::filesystem::weakly_canonical(std::filesystem::absolute(in), ec_in)) {
      throw InputError(path, 0, "", "is an input of this command (" + in + "): choose another output file");
    }
  }
  const auto dir = std::filesystem::path(path).parent_path();
  InterruptsHeld held;
  ResultWriter w(dir.empty() ? "." : dir.string());
  w.stage(std::filesystem::path(path).filename().string(), text);
  w.commit();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path, 0, "", "no such file");
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json run_report(const std::string& dir, const std::string& label) {
  const std::string path = (std::filesystem::path(dir) / "report.html").string();
  if (!std::filesystem::exists(path)) {
    throw InputError(path, 0, "", "missing: the run wrote no report (output.report: false?); run it again with it");
  }
  std::vector<nlohmann::json> runs = report_runs(read_text(path), path);
  runs.front()["name"] = label;
  return runs.front();
}

std::string self_exe() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    throw std::runtime_error("cannot find this program's path (/proc/self/exe): " + ec.message());
  }
  return exe.string();
}

}  // namespace rocesim::cli
