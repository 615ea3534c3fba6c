// `rocesim sweep` as a user runs it: locally, restarted, through GNU parallel and as a Slurm array task.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../test_util.hpp"

namespace {

namespace fs = std::filesystem;

using Result = rocesim::test::ShellResult;
using rocesim::test::shell;
using rocesim::test::slurp;

Result rocesim(const std::string& args) { return shell(std::string(ROCESIM_BINARY) + " " + args); }

// A 4-host leaf-spine with a 3:1 incast: each run takes milliseconds.
constexpr const char* kScenario = R"(seed: 1
stop: 2ms
topology: {type: leaf-spine, leaves: 2, spines: 1, servers_per_leaf: 2}
switch: {pfc: {priorities: [3]}, ecn: {kmin: 20KB, kmax: 200KB, pmax: 0.2}}
workload:
  - {type: incast, receiver: 0, senders: 3, size: 200KB, priority: 3}
)";

class Sweep : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocesim_sweep_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "s.yaml") << kScenario;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string scenario() const { return (dir_ / "s.yaml").string(); }
  fs::path out() const { return dir_ / "sw"; }
  std::string grid_args() const {
    return scenario() + " --grid switch.ecn.kmin=20KB,100KB --seeds 1-2 -o " + out().string();
  }
  fs::path dir_;
};

TEST_F(Sweep, LocalRunsGiveOneSummaryRowPerGridPointAndSeed) {
  const Result r = rocesim("sweep " + grid_args() + " -j 2");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto rows = rocesim::test::csv_rows(slurp(out() / "summary.csv"));
  ASSERT_EQ(rows.size(), 4u);
  const char* kmin[] = {"20KB", "20KB", "100KB", "100KB"};
  const char* seed[] = {"1", "2", "1", "2"};
  for (size_t i = 0; i < 4; ++i) {
    const auto& row = rows[i];
    EXPECT_EQ(row.at("run"), "000" + std::to_string(i));
    EXPECT_EQ(row.at("switch.ecn.kmin"), kmin[i]);
    EXPECT_EQ(row.at("seed"), seed[i]);
    EXPECT_EQ(row.at("status"), "ok");
    EXPECT_EQ(row.at("flows_total"), "3");
    EXPECT_EQ(row.at("flows_completed"), "3");
    // The row's results are the run's own: the folder's summary.json ran that grid point.
    const auto s = nlohmann::json::parse(slurp(out() / "runs" / row.at("run") / "summary.json"));
    EXPECT_EQ(s["scenario"]["switch"]["ecn"]["kmin"], kmin[i]);
    EXPECT_EQ(std::to_string(s["scenario"]["seed"].get<int64_t>()), seed[i]);
    EXPECT_EQ(row.at("fct_p99_ns"), s["fct_ns"]["p99"].dump());
    EXPECT_EQ(row.at("ecn_marked"), s["ecn"]["marked"].dump());
  }
  // A lower marking threshold marks at least as many packets of the same incast.
  EXPECT_GE(std::stol(rows[0].at("ecn_marked")), std::stol(rows[2].at("ecn_marked")));
  const auto m = nlohmann::json::parse(slurp(out() / "manifest.json"));
  ASSERT_EQ(m["runs"].size(), 4u);
  EXPECT_EQ(m["runs"][3]["values"]["switch.ecn.kmin"], "100KB");
  EXPECT_EQ(m["runs"][3]["seed"], 2);
  EXPECT_EQ(m["runs"][3]["hash"].get<std::string>().size(), 16u);
  EXPECT_TRUE(fs::exists(out() / "logs" / "0003.log"));
}

TEST_F(Sweep, ARestartSkipsCompleteRunsAndRedoesMissingAndStaleOnes) {
  ASSERT_EQ(rocesim("sweep " + grid_args() + " -j 2").status, 0);
  const auto kept = fs::last_write_time(out() / "runs" / "0000" / "summary.json");
  fs::remove(out() / "runs" / "0001" / "summary.json");
  Result r = rocesim("sweep " + grid_args() + " -j 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("3 of 4 runs already complete"), std::string::npos) << r.out;
  EXPECT_EQ(fs::last_write_time(out() / "runs" / "0000" / "summary.json"), kept);
  EXPECT_TRUE(fs::exists(out() / "runs" / "0001" / "summary.json"));
  // The scenario changed: every run is of another scenario now, and all are done again.
  std::ofstream(scenario()) << std::string(kScenario) + "nic: {mtu: 1024}\n";
  r = rocesim("sweep " + grid_args() + " -j 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("already complete"), std::string::npos) << r.out;
  const auto s = nlohmann::json::parse(slurp(out() / "runs" / "0000" / "summary.json"));
  EXPECT_EQ(s["scenario"]["nic"]["mtu"], 1024);
}

TEST_F(Sweep, ABadGridKeyOrValueExitsTwoNamingItAndWritesNothing) {
  for (const std::string g : {"switch.ecn.kmim=20KB", "switch.ecn.kmin=20KB,lots", "switch.ecn.kmin"}) {
    const Result r = rocesim("sweep " + scenario() + " --grid " + g + " -o " + out().string());
    EXPECT_EQ(r.status, 2) << g << "\n" << r.out;
    EXPECT_NE(r.out.find("--grid"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(g.substr(0, g.find('='))), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(out())) << g;
  }
  const Result r = rocesim("sweep " + scenario() + " --seeds 3-1 -o " + out().string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--seeds"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(Sweep, EmittedCommandsRunUnderGnuParallelAndCollectGathersThem) {
  Result r = rocesim("sweep " + grid_args() + " --emit parallel");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_FALSE(fs::exists(out() / "runs"));  // emitting runs nothing
  r = shell("parallel --will-cite -j 2 < " + (out() / "commands.txt").string());
  ASSERT_EQ(r.status, 0) << r.out;
  r = rocesim("sweep --collect " + out().string());
  ASSERT_EQ(r.status, 0) << r.out;
  const auto rows = rocesim::test::csv_rows(slurp(out() / "summary.csv"));
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("status"), "ok");
  }
}

TEST_F(Sweep, TheSlurmScriptsTaskBodyRunsItsArrayIndexOnly) {
  ASSERT_EQ(rocesim("sweep " + grid_args() + " --emit slurm").status, 0);
  const std::string script = slurp(out() / "sweep.slurm");
  EXPECT_NE(script.find("#SBATCH --array=0-3\n"), std::string::npos) << script;
  const Result r = shell("SLURM_ARRAY_TASK_ID=2 bash " + (out() / "sweep.slurm").string());
  ASSERT_EQ(r.status, 0) << r.out;
  // Incomplete sweeps collect with status 1, each run's state in its row.
  EXPECT_EQ(rocesim("sweep --collect " + out().string()).status, 1);
  const auto rows = rocesim::test::csv_rows(slurp(out() / "summary.csv"));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[2].at("status"), "ok");
  EXPECT_EQ(rows[0].at("status"), "missing");
  EXPECT_EQ(rows[0].at("fct_p99_ns"), "");
  // The same task again finds its run complete.
  EXPECT_NE(shell("SLURM_ARRAY_TASK_ID=2 bash " + (out() / "sweep.slurm").string()).out.find("already complete"),
            std::string::npos);
  EXPECT_EQ(rocesim("sweep --task 9 " + out().string()).status, 2);
}

TEST_F(Sweep, ATaskRunsThisProgramWhateverTheManifestNamesAndOnlyItsRunCommand) {
  ASSERT_EQ(rocesim("sweep " + grid_args() + " --emit slurm").status, 0);
  // A manifest edited to start another program: the task runs the run with rocesim itself.
  const fs::path other = dir_ / "bin" / "rocesim-other";
  fs::create_directories(other.parent_path());
  std::ofstream(other) << "#!/bin/sh\ntouch " << (dir_ / "other-ran").string() << "\n";
  fs::permissions(other, fs::perms::owner_all);
  nlohmann::json m = nlohmann::json::parse(slurp(out() / "manifest.json"));
  m["runs"][0]["argv"][0] = other.string();
  std::ofstream(out() / "manifest.json") << m.dump(1);
  Result r = rocesim("sweep --task 0 " + out().string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "other-ran"));
  EXPECT_TRUE(fs::exists(out() / "runs" / "0000" / "summary.json"));
  // A command other than run is refused, naming the manifest's key.
  m["runs"][1]["argv"][1] = "sweep";
  std::ofstream(out() / "manifest.json") << m.dump(1);
  r = rocesim("sweep --task 1 " + out().string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("runs.1.argv: not a rocesim run command"), std::string::npos) << r.out;
  // No folder, or a sweep with no runs: a clear error, not a look for /manifest.json or runs 0 to 2^64 - 1.
  r = rocesim("sweep --task 0");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("give the sweep's folder"), std::string::npos) << r.out;
  m["runs"] = nlohmann::json::array();
  std::ofstream(out() / "manifest.json") << m.dump(1);
  r = rocesim("sweep --task 0 " + out().string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("the sweep has no runs"), std::string::npos) << r.out;
}

TEST_F(Sweep, AFolderNameWithALineBreakOrTabIsRefusedBeforeAnythingIsWritten) {
  for (const std::string name : {"a\nb", "a\tb"}) {
    const fs::path bad = dir_ / name;
    const Result r = rocesim("sweep " + scenario() + " --seeds 1-2 --emit slurm -o '" + bad.string() + "'");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_FALSE(fs::exists(bad));
  }
}

TEST_F(Sweep, ATerminatedSweepLeavesItsRunningRunsPartialAndStartsNoMore) {
  // Runs of one 100 GB write (seconds of simulated time, more of wall time; nothing to load), two at a time,
  // three in all.
  std::ofstream(scenario()) << "seed: 1\nstop: 10s\ntopology: {type: star, hosts: 2}\n"
                               "workload: [{type: incast, receiver: 0, senders: 1, size: 100GB}]\n";
  const std::string log = (dir_ / "sweep.log").string();
  const Result start =
      shell("( " + std::string(ROCESIM_BINARY) + " sweep " + scenario() + " --seeds 1-3 -j 2 -q -o " + out().string() +
            " > " + log + " 2>&1; echo $? > " + (dir_ / "status").string() + " ) > /dev/null 2>&1 &");
  ASSERT_EQ(start.status, 0);
  // Wait until both first runs are simulating (they catch interrupts from their first steps; a sanitized build
  // takes a while to get there), then terminate the sweep alone (not its process group).
  const std::string sweep_pattern = "'" + std::string(ROCESIM_BINARY) + " sweep " + scenario() + ".*'";
  std::vector<pid_t> runs;
  for (int i = 0; i < 600 && runs.size() < 2; ++i) {
    usleep(50'000);
    runs.clear();
    std::istringstream pids(shell("pgrep -P \"$(pgrep -f -x " + sweep_pattern + ")\"").out);
    for (pid_t p = 0; pids >> p;) {
      runs.push_back(p);
    }
  }
  ASSERT_EQ(runs.size(), 2u);
  for (const pid_t run : runs) {
    ASSERT_TRUE(rocesim::test::wait_until_catching(run, SIGTERM));
  }
  usleep(500'000);
  ASSERT_EQ(shell("pkill -TERM -f -x " + sweep_pattern).status, 0);
  for (int i = 0; i < 1200 && !fs::exists(dir_ / "status"); ++i) {
    usleep(50'000);
  }
  ASSERT_TRUE(fs::exists(dir_ / "status")) << slurp(log);
  EXPECT_EQ(slurp(dir_ / "status"), std::to_string(128 + SIGTERM) + "\n") << slurp(log);
  const auto rows = rocesim::test::csv_rows(slurp(out() / "summary.csv"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].at("status"), "partial");
  EXPECT_EQ(rows[1].at("status"), "partial");
  EXPECT_EQ(rows[2].at("status"), "missing");    // never started
  shell("pkill -KILL -f '" + scenario() + "'");  // nothing should be left; if something is, do not leave it running
}

TEST_F(Sweep, ADamagedRunIsNamedAndRunAgainNotABlockOnTheSweep) {
  ASSERT_EQ(rocesim("sweep " + grid_args()).status, 0);
  const fs::path damaged = out() / "runs" / "0001" / "summary.json";
  std::string text = slurp(damaged);
  text.insert(1, "\"partial\": 1,");  // the type a hand edit gives, not the boolean rocesim writes
  std::ofstream(damaged) << text;
  Result r = rocesim("sweep --collect " + out().string());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_EQ(rocesim::test::csv_rows(slurp(out() / "summary.csv"))[1].at("status"), "damaged");
  r = rocesim("sweep " + grid_args());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("runs/0001/summary.json is damaged"), std::string::npos) << r.out;
  EXPECT_TRUE(nlohmann::json::parse(slurp(damaged))["scenario"].is_object());
}

TEST_F(Sweep, KillingASweepEndsItsRunsAndASecondSweepIntoItsFolderIsRefused) {
  std::ofstream(scenario()) << "seed: 1\nstop: 1s\ntopology: {type: leaf-spine, leaves: 2, spines: 2, "
                               "servers_per_leaf: 4}\nworkload: [{type: poisson, cdf: websearch, load: 0.3}]\n";
  ASSERT_EQ(shell("( " + std::string(ROCESIM_BINARY) + " sweep " + scenario() + " --seeds 1-2 -j 2 -q -o " +
                  out().string() + " > /dev/null 2>&1 & )")
                .status,
            0);
  for (int i = 0; i < 600 && !fs::exists(out() / "logs" / "0001.log"); ++i) {
    usleep(50'000);
  }
  ASSERT_TRUE(fs::exists(out() / "logs" / "0001.log"));
  // While it runs, a second sweep into the folder is refused.
  const Result second = rocesim("sweep " + scenario() + " --seeds 1-2 -q -o " + out().string());
  EXPECT_EQ(second.status, 2) << second.out;
  EXPECT_NE(second.out.find("in use by another rocesim"), std::string::npos) << second.out;
  ASSERT_EQ(shell("pkill -KILL -f -x '" + std::string(ROCESIM_BINARY) + " sweep " + scenario() + ".*'").status, 0);
  // Its runs watch it: within moments none is left.
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    usleep(50'000);
    // "[r]uns": the pattern does not match the shell that runs pgrep.
    gone = shell("pgrep -f '" + (out() / "[r]uns").string() + "'").status != 0;
  }
  EXPECT_TRUE(gone);
  shell("pkill -KILL -f '" + scenario() + "'");
}

TEST_F(Sweep, CompareShowsTwoRunsKeyResultsSideBySideWithTheirRatio) {
  ASSERT_EQ(rocesim("sweep " + scenario() + " --grid switch.ecn.kmin=20KB,100KB -o " + out().string()).status, 0);
  const fs::path a = out() / "runs" / "0000", b = out() / "runs" / "0001";
  const Result r = rocesim("compare " + a.string() + " " + b.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const auto sa = nlohmann::json::parse(slurp(a / "summary.json")),
             sb = nlohmann::json::parse(slurp(b / "summary.json"));
  std::istringstream lines(r.out);
  std::string line;
  bool found = false;
  while (std::getline(lines, line)) {
    std::istringstream cols(line);
    std::string name, va, vb, ratio;
    cols >> name >> va >> vb >> ratio;
    if (name == "fct_p99_ns") {
      found = true;
      const double x = sa["fct_ns"]["p99"].get<double>(), y = sb["fct_ns"]["p99"].get<double>();
      EXPECT_DOUBLE_EQ(std::stod(va), x);
      EXPECT_DOUBLE_EQ(std::stod(vb), y);
      EXPECT_NEAR(std::stod(ratio), y / x, 0.0005);
    }
  }
  EXPECT_TRUE(found) << r.out;
  EXPECT_EQ(rocesim("compare " + a.string() + " " + (dir_ / "nothing").string()).status, 2);
}

}  // namespace
