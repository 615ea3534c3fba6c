// Everything an importer writes must load, validate, check and run: each importer's fixtures and the corpus
// inputs it accepts go through `rocesim import`, then what it wrote (a whole scenario, or a fragment merged into
// a small fabric with an incast on the lossless priority) through validate, check, topology and a short run.
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../test_util.hpp"

namespace rocesim {
namespace {

namespace fs = std::filesystem;

struct ImportCase {
  std::string kind;  // hpcc, sonic or mlnx-qos
  fs::path input;
  bool must_import;  // a fixture: a good file; a corpus input may be bad input the importer refuses
};

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

test::ShellResult rocesim(const std::string& args) { return test::shell(std::string(ROCESIM_BINARY) + " " + args); }

std::vector<ImportCase> import_cases() {
  const fs::path io = fs::path(ROCESIM_SOURCE_DIR) / "tests" / "io";
  std::vector<ImportCase> cases;
  // HPCC ns-3 configs: fixtures/hpcc-ns3-*/config.txt and the fat-tree cases one folder deeper.
  for (const auto& e : fs::recursive_directory_iterator(io / "fixtures")) {
    const std::string top = fs::relative(e.path(), io / "fixtures").begin()->string();
    if (e.path().filename() == "config.txt" && top.rfind("hpcc-ns3-", 0) == 0) {
      cases.push_back({"hpcc", e.path(), true});
    }
  }
  cases.push_back({"sonic", io / "fixtures" / "sonic" / "config_db.json", true});
  cases.push_back({"mlnx-qos", io / "fixtures" / "sonic" / "mlnx_qos.txt", true});
  for (const auto& e : fs::directory_iterator(io / "corpus")) {
    if (e.is_directory() && fs::exists(e.path() / "config.txt")) {
      cases.push_back({"hpcc", e.path() / "config.txt", false});
    } else if (e.path().extension() == ".json") {
      cases.push_back({"sonic", e.path(), false});
    } else if (e.path().extension() == ".qos") {
      cases.push_back({"mlnx-qos", e.path(), false});
    }
  }
  std::sort(cases.begin(), cases.end(), [](const auto& a, const auto& b) { return a.input < b.input; });
  return cases;
}

// `fragment`'s mappings merged into `base`, the fragment's values winning.
void merge(YAML::Node base, const YAML::Node& fragment) {
  for (const auto& kv : fragment) {
    const std::string key = kv.first.as<std::string>();
    if (base[key] && base[key].IsMap() && kv.second.IsMap()) {
      merge(base[key], kv.second);
    } else {
      base[key] = kv.second;
    }
  }
}

// A switch: or nic: section as a scenario: a small leaf-spine carrying an incast on its first lossless priority.
void write_merged_scenario(const fs::path& fragment, const fs::path& out) {
  YAML::Node sc = YAML::Load(
      "seed: 1\nstop: 100us\n"
      "topology: {type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 4, host_link: {rate: 100Gbps, delay: "
      "1us}, fabric_link: {rate: 400Gbps, delay: 1us}}\n"
      "switch: {pfc: {priorities: [3]}}\n");
  merge(sc, YAML::LoadFile(fragment.string()));
  const int priority = sc["switch"]["pfc"]["priorities"][0].as<int>();
  sc["workload"] =
      YAML::Load("[{type: incast, receiver: 0, senders: 7, size: 64KB, priority: " + std::to_string(priority) + "}]");
  std::ofstream(out) << sc << "\n";
}

// `rocesim check --json`'s exit status is 1 for warnings too: what it may not report is a cycle or an error.
void expect_no_check_errors(const fs::path& scenario, const std::string& what) {
  // Its stdout alone (the warnings on stderr are not JSON).
  const auto r = test::shell("(" + std::string(ROCESIM_BINARY) + " check --json " + quoted(scenario) + " 2>/dev/null)");
  ASSERT_TRUE(r.status == 0 || r.status == 1) << what << "\n" << r.out;
  const auto report = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << what << "\n" << r.out;
  for (const auto& d : report["dependencies"]) {
    EXPECT_TRUE(d["cycles"].empty()) << what << "\n" << r.out;
  }
  for (const auto& f : report["findings"]) {
    EXPECT_NE(f["severity"], "error") << what << "\n" << f.dump();
  }
}

TEST(ImportProperty, EveryImportedFixtureAndCorpusInputValidatesChecksAndRuns) {
  const fs::path dir = fs::temp_directory_path() / ("rocesim_import_property_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  int imported = 0;
  for (const ImportCase& c : import_cases()) {
    const std::string what = "rocesim import " + c.kind + " " + c.input.string();
    SCOPED_TRACE(what);
    const fs::path out = dir / ("imported-" + std::to_string(imported) + ".yaml");
    const auto imp = rocesim("import " + c.kind + " " + quoted(c.input) + " -o " + quoted(out));
    if (!c.must_import && imp.status == 2) {
      continue;  // bad input, refused as such (tools/fuzz_cli.py holds it to its expected status)
    }
    ASSERT_EQ(imp.status, 0) << imp.out;
    ++imported;
    fs::path scenario = out;
    // The HPCC configs' flows start at 2 s: 20 us of them is a short run that still carries traffic.
    std::string stop = "2000020us";
    if (c.kind != "hpcc") {
      scenario = dir / ("merged-" + std::to_string(imported) + ".yaml");
      write_merged_scenario(out, scenario);
      stop = "50us";
    }
    const auto v = rocesim("validate " + quoted(scenario));
    EXPECT_EQ(v.status, 0) << v.out;
    expect_no_check_errors(scenario, what);
    const auto t = rocesim("topology " + quoted(scenario));
    EXPECT_EQ(t.status, 0) << t.out;
    const fs::path results = dir / ("run-" + std::to_string(imported));
    const auto r = rocesim("run -q " + quoted(scenario) + " --set stop=" + stop + " -o " + quoted(results));
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(fs::exists(results / "summary.json")) << r.out;
  }
  // Every fixture and the good corpus inputs: 7 HPCC configs, a SONiC and an mlnx_qos file, and the corpus'.
  EXPECT_GE(imported, 12);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rocesim
