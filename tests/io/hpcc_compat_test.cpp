// The HPCC ns-3 simulator's inputs and outputs: its users' files run as they are.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../test_util.hpp"
#include "rocesim/io/hpcc_config.hpp"

namespace {
namespace fs = std::filesystem;

using Result = rocesim::test::ShellResult;
using rocesim::test::slurp;
Result sh(const std::string& cmd) { return rocesim::test::shell(cmd); }

fs::path tmpdir(const std::string& name) {
  auto d = fs::temp_directory_path() / ("rocesim_hpcc_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const char* kTopo =
    "6 2 5\n4 5\n0 4 100Gbps 1000ns 0\n1 4 100Gbps 1000ns 0\n2 5 100Gbps 1000ns 0\n3 5 100Gbps 1000ns 0\n"
    "4 5 400Gbps 1000ns 0\n";
const char* kFlows =
    "4\n0 2 3 100 200000 2.000001\n1 2 3 100 1000000 2.000002\n3 0 3 101 50000 2.00001\n"
    "2 1 3 102 3000 2.00002\n";

std::string config(const std::string& extra = "") {
  return "ENABLE_QCN 1\nUSE_DYNAMIC_PFC_THRESHOLD 1\nPACKET_PAYLOAD_SIZE 1000\nTOPOLOGY_FILE topo.txt\n"
         "FLOW_FILE flow.txt\nFCT_OUTPUT_FILE mix/fct.txt\nPFC_OUTPUT_FILE mix/pfc.txt\nQLEN_MON_FILE mix/qlen.txt\n"
         "QLEN_MON_START 2000000000\nQLEN_MON_END 2010000000\nSIMULATOR_STOP_TIME 4.00\nCC_MODE 1\n"
         "ALPHA_RESUME_INTERVAL 1\nRATE_DECREASE_INTERVAL 4\nCLAMP_TARGET_RATE 0\nRP_TIMER 300\nEWMA_GAIN 0.00390625\n"
         "FAST_RECOVERY_TIMES 1\nRATE_AI 20Mb/s\nRATE_HAI 200Mb/s\nMIN_RATE 1000Mb/s\nL2_ACK_INTERVAL 1\n"
         "KMAX_MAP 2 25000000000 400 100000000000 1600\nKMIN_MAP 2 25000000000 100 100000000000 400\n"
         "PMAX_MAP 2 25000000000 0.2 100000000000 0.2\nBUFFER_SIZE 32\n" +
         extra;
}

// rocesim run --hpcc-config DIR/config.txt -q -o DIR/out
Result run_config(const fs::path& d) {
  return sh(std::string(ROCESIM_BINARY) + " run --hpcc-config " + (d / "config.txt").string() + " -q -o " +
            (d / "out").string());
}

fs::path setup(const std::string& name, const std::string& topo, const std::string& flows, const std::string& cfg) {
  const fs::path d = tmpdir(name);
  std::ofstream(d / "topo.txt") << topo;
  std::ofstream(d / "flow.txt") << flows;
  std::ofstream(d / "config.txt") << cfg;
  return d;
}

}  // namespace

TEST(HpccCompat, EveryFlowOfTheFlowFileAppearsOnceInFctTxt) {
  const fs::path d = setup("roundtrip", kTopo, kFlows, config());
  const Result r = run_config(d);
  ASSERT_EQ(r.status, 0) << r.out;
  std::istringstream fct(slurp(d / "out" / "fct.txt"));
  std::string line;
  std::multiset<std::string> seen;
  while (std::getline(fct, line)) {
    std::istringstream ss(line);
    std::string sip, dip;
    unsigned sport = 0, dport = 0;
    uint64_t size = 0, start = 0, fct_ns = 0, standalone = 0;
    ASSERT_TRUE(ss >> sip >> dip >> sport >> dport >> size >> start >> fct_ns >> standalone) << line;
    EXPECT_GE(fct_ns, standalone * 99 / 100) << line;  // never faster than alone, up to rounding
    seen.insert(sip + " " + dip + " " + std::to_string(dport) + " " + std::to_string(size) + " " +
                std::to_string(start));
  }
  // Node i is 11.(i/256).(i%256).1 in hex; start times are the file's seconds in ns.
  const std::multiset<std::string> expect{
      "0b000001 0b000201 100 200000 2000001000", "0b000101 0b000201 100 1000000 2000002000",
      "0b000301 0b000001 101 50000 2000010000", "0b000201 0b000101 102 3000 2000020000"};
  EXPECT_EQ(seen, expect);
  EXPECT_TRUE(fs::exists(d / "out" / "pfc.txt"));
  EXPECT_EQ(slurp(d / "out" / "qlen.txt").rfind("time: ", 0), 0u);
  // The imported scenario gives the same fct.txt.
  ASSERT_EQ(sh(std::string(ROCESIM_BINARY) + " import hpcc " + (d / "config.txt").string() + " -o " +
               (d / "sc" / "imported.yaml").string())
                .status,
            0);
  ASSERT_EQ(sh(std::string(ROCESIM_BINARY) + " run " + (d / "sc" / "imported.yaml").string() + " -q -o " +
               (d / "out2").string())
                .status,
            0);
  EXPECT_EQ(slurp(d / "out" / "fct.txt"), slurp(d / "out2" / "fct.txt"));
  fs::remove_all(d);
}

TEST(HpccCompat, MalformedInputsNameTheFileAndLine) {
  struct Case {
    std::string topo, flows, cfg, expect;
  };
  const std::vector<Case> cases{
      {"6 2 6\n4 5\n0 4 100Gbps 1000ns 0\n", kFlows, config(), "topo.txt:3: links: the header says 6 links"},
      {std::string(kTopo).replace(std::string(kTopo).find("100Gbps"), 7, "100Gbs"), kFlows, config(),
       "topo.txt:3: link: bad rate '100Gbs'"},
      {"6 2 5\n4 5\n0 9 100Gbps 1000ns 0\n", kFlows, config(), "topo.txt:3: link: node 9 does not exist"},
      {kTopo, "1\n0 4 3 100 1000 2.0\n", config(), "flow.txt:2: dst: node 4 is a switch"},
      {kTopo, "3\n0 2 3 100 1000 2.0\n", config(), "flow.txt:2: flows: the first line says 3 flows"},
      {kTopo, kFlows, config("CC_MODE 10\n"), "CC_MODE: 10 is not available"},
      {kTopo, kFlows, config("KMIN_MAP 3 25000000000 100\n"), "KMIN_MAP: the count says 3 pairs"},
  };
  int k = 0;
  for (const auto& c : cases) {
    const fs::path d = setup("bad" + std::to_string(k++), c.topo, c.flows, c.cfg);
    const Result r = run_config(d);
    if (c.expect.empty()) {
      EXPECT_EQ(r.status, 0) << r.out;
    } else {
      EXPECT_EQ(r.status, 2) << r.out;
      EXPECT_NE(r.out.find(c.expect), std::string::npos) << "expected '" << c.expect << "' in:\n" << r.out;
      EXPECT_FALSE(fs::exists(d / "out" / "fct.txt"));
    }
    fs::remove_all(d);
  }
}

TEST(HpccCompat, KeysRocesimCannotHonourAreWarnedAbout) {
  const fs::path d = setup("warn", kTopo, kFlows, config("L2_BACK_TO_ZERO 1\nERROR_RATE_PER_LINK 0.01\nFOO_BAR 3\n"));
  const Result r = run_config(d);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("warning: " + (d / "config.txt").string() + ":27: L2_BACK_TO_ZERO 1 ignored"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(":28: ERROR_RATE_PER_LINK 0.01 ignored"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FOO_BAR ignored: not modelled"), std::string::npos) << r.out;
  fs::remove_all(d);
}

namespace {

const fs::path kFixtures = fs::path(ROCESIM_SOURCE_DIR) / "tests" / "io" / "fixtures";

// A copy of a fixture's inputs in a fresh folder, ready for run_config.
fs::path fixture_inputs(const fs::path& fixture, const std::string& name) {
  const fs::path d = tmpdir(name);
  for (const char* f : {"config.txt", "topo.txt", "flow.txt", "trace.txt"}) {
    fs::copy_file(fixture / f, d / f);
  }
  return d;
}

// fct.txt lines (optionally after a leading run number) as flow ("sip dip sport") -> FCT in us.
std::vector<std::pair<std::string, double>> fct_lines(const fs::path& file, bool numbered = false) {
  std::vector<std::pair<std::string, double>> v;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string run, sip, dip, sport, dport, size, start, fct;
    if (numbered) {
      ss >> run;
    }
    if (ss >> sip >> dip >> sport >> dport >> size >> start >> fct) {
      v.emplace_back(run + " " + sip + " " + dip + " " + sport, std::stod(fct) / 1e3);
    }
  }
  return v;
}

std::vector<double> values(const std::vector<std::pair<std::string, double>>& v) {
  std::vector<double> out;
  for (const auto& [k, x] : v) {
    out.push_back(x);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Median (the mean of the two middle values of an even count) and nearest-rank percentile of sorted values.
double median(const std::vector<double>& v) {
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double nearest_rank(const std::vector<double>& v, double q) {
  const auto r = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::max<size_t>(r, 1) - 1];
}

}  // namespace

TEST(HpccCompat, TheIncastsFctsOverSeedsAreDistributedAsThatSimulatorsOverItsRngRuns) {
  // tests/io/fixtures/hpcc-ns3-incast: 3 x 1 MB into one 100G port, DCQCN with RED marking from 400 KB. Who
  // finishes when is set by a few dozen random marks (about 27 in a run), so one run is one draw: that
  // simulator's default run gives 417 / 419 / 477 us, its runs 1-40 (RngRun) span 415-515 us, and none of its
  // runs 2-40 has all three flows within 5 % of run 1's: a flow-by-flow match is not to be had. Compared as
  // distributions: the median FCT, the median first and last completion of rocesim's seeds 1-20 are within 2 %
  // of its 40 runs' (measured: 502.5 / 490.7 / 506.4 us against 500.5 / 490.7 / 507.2), and every FCT of its
  // default run lies in the range rocesim's seeds cover.
  const fs::path fixture = kFixtures / "hpcc-ns3-incast";
  const auto stats = [](const std::vector<std::vector<double>>& runs) {
    std::vector<double> all, first, last;
    for (const auto& r : runs) {
      all.insert(all.end(), r.begin(), r.end());
      first.push_back(r.front());
      last.push_back(r.back());
    }
    for (auto* v : {&all, &first, &last}) {
      std::sort(v->begin(), v->end());
    }
    return std::array<std::vector<double>, 3>{all, first, last};
  };
  std::map<std::string, std::vector<double>> by_run;
  for (const auto& [key, fct] : fct_lines(fixture / "fct-hpcc-ns3-rngrun.txt", true)) {
    by_run[key.substr(0, key.find(' '))].push_back(fct);
  }
  std::vector<std::vector<double>> ns3, ours;
  for (auto& [run, v] : by_run) {
    std::sort(v.begin(), v.end());
    ns3.push_back(v);
  }
  ASSERT_EQ(ns3.size(), 40u);
  const fs::path d = fixture_inputs(fixture, "ns3_incast");
  for (int seed = 1; seed <= 20; ++seed) {
    const Result r = sh(std::string(ROCESIM_BINARY) + " run --hpcc-config " + (d / "config.txt").string() +
                        " -q --seed " + std::to_string(seed) + " -o " + (d / "out").string());
    ASSERT_EQ(r.status, 0) << r.out;
    ours.push_back(values(fct_lines(d / "out" / "fct.txt")));
    ASSERT_EQ(ours.back().size(), 3u);
  }
  const auto theirs = stats(ns3), mine = stats(ours);
  const char* what[] = {"median FCT", "median first completion", "median last completion"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(median(mine[i]) / median(theirs[i]), 1.0, 0.02) << what[i];
  }
  for (double fct : values(fct_lines(fixture / "fct-hpcc-ns3.txt"))) {
    EXPECT_GE(fct, mine[0].front() * 0.99);
    EXPECT_LE(fct, mine[0].back() * 1.01);
  }
  fs::remove_all(d);
}

TEST(HpccCompat, WithStepMarkingEveryFlowOfTheIncastFinishesWithin5PercentOfThatSimulator) {
  // tests/io/fixtures/hpcc-ns3-incast-step: the same incast with KMIN = KMAX (every packet leaving a queue
  // deeper than 100 KB is marked): no randomness in either simulator, so each flow can be compared. Measured:
  // 761.2 / 768.1 / 768.6 us against 757.8 / 757.6 / 757.9 (hosts 0, 1, 2), +0.4 to +1.4 %; RoCEv2's framing
  // (82 B a packet against that simulator's 48 B) would by itself make a line-rate flow 3.2 % slower.
  const fs::path fixture = kFixtures / "hpcc-ns3-incast-step";
  const fs::path d = fixture_inputs(fixture, "ns3_step");
  const Result r = run_config(d);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto theirs = fct_lines(fixture / "fct-hpcc-ns3.txt");
  std::map<std::string, double> mine;
  for (const auto& [flow, fct] : fct_lines(d / "out" / "fct.txt")) {
    mine[flow] = fct;
  }
  ASSERT_EQ(theirs.size(), 3u);
  for (const auto& [flow, fct] : theirs) {
    ASSERT_TRUE(mine.count(flow)) << flow;
    EXPECT_NEAR(mine[flow] / fct, 1.0, 0.05) << flow;
  }
  fs::remove_all(d);
}

// A k=8 fat-tree case of tests/io/fixtures/hpcc-ns3-ft8 and how close rocesim's median and p99 FCT must be.
struct Ft8Case {
  const char* name;
  double median_tolerance, p99_tolerance;
  double per_flow_tolerance = 0;  // each flow's FCT too (deterministic congestion control on one bottleneck); 0: not
};

class HpccFt8 : public ::testing::TestWithParam<Ft8Case> {};

TEST_P(HpccFt8, MedianAndP99FctAreWithinTheirToleranceOfThatSimulator) {
  // Measured (rocesim / that simulator): perm-dcqcn median +2.7 %, p99 -3.7 %; perm-hpcc -0.5 %, +3.4 %;
  // incast-dcqcn +1.7 %, +3.1 %; incast-hpcc +5.7 %, +1.7 %; incast-timely +3.6 %, +2.2 %, each flow +2.2 to
  // +5.1 % (TIMELY is deterministic here). The incast-hpcc median is the one case over 5 %:
  // 3.2 % of it is RoCEv2's framing on a link that runs at HPCC's target utilisation the whole time (the 16
  // flows' bytes cross one port), docs/hpcc-compat.md.
  const Ft8Case& c = GetParam();
  const fs::path fixture = kFixtures / "hpcc-ns3-ft8" / c.name;
  const fs::path d = fixture_inputs(fixture, std::string("ft8_") + c.name);
  const Result r = run_config(d);
  ASSERT_EQ(r.status, 0) << r.out;
  const std::vector<double> theirs = values(fct_lines(fixture / "fct-hpcc-ns3.txt"));
  const std::vector<double> mine = values(fct_lines(d / "out" / "fct.txt"));
  ASSERT_EQ(mine.size(), theirs.size());
  EXPECT_NEAR(median(mine) / median(theirs), 1.0, c.median_tolerance);
  EXPECT_NEAR(nearest_rank(mine, 0.99) / nearest_rank(theirs, 0.99), 1.0, c.p99_tolerance);
  if (c.per_flow_tolerance > 0) {
    std::map<std::string, double> by_flow;
    for (const auto& [flow, fct] : fct_lines(d / "out" / "fct.txt")) {
      by_flow[flow] = fct;
    }
    for (const auto& [flow, fct] : fct_lines(fixture / "fct-hpcc-ns3.txt")) {
      EXPECT_NEAR(by_flow[flow] / fct, 1.0, c.per_flow_tolerance) << flow;
    }
  }
  if (!fs::exists(fixture / "congested-ports-hpcc-ns3.txt")) {
    fs::remove_all(d);
    return;
  }
  // The flows took that simulator's paths: the ports where its queues passed 10 KB are where rocesim's did.
  std::set<std::pair<int, int>> ns3_congested, ours;
  std::ifstream in(fixture / "congested-ports-hpcc-ns3.txt");
  int sw = 0, ifx = 0;
  while (in >> sw >> ifx) {
    ns3_congested.insert({sw, ifx - 1});
  }
  std::istringstream ports(slurp(d / "out" / "ports.csv"));
  std::string line;
  std::getline(ports, line);
  while (std::getline(ports, line)) {
    std::vector<std::string> col;
    std::stringstream ls(line);
    for (std::string cell; std::getline(ls, cell, ',');) {
      col.push_back(cell);
    }
    if (std::stoll(col[6]) > 10000) {                                 // max_queue_bytes
      ours.insert({std::stoi(col[0].substr(6)), std::stoi(col[1])});  // "switchN"
    }
  }
  size_t both = 0;
  for (const auto& p : ns3_congested) {
    both += ours.count(p);
  }
  EXPECT_GE(both, ns3_congested.size() * 9 / 10) << c.name;
  EXPECT_GE(both, ours.size() * 8 / 10) << c.name;
  fs::remove_all(d);
}

INSTANTIATE_TEST_SUITE_P(HpccCompat, HpccFt8,
                         ::testing::Values(Ft8Case{"perm-dcqcn", 0.05, 0.05}, Ft8Case{"perm-hpcc", 0.05, 0.05},
                                           Ft8Case{"incast-dcqcn", 0.05, 0.05}, Ft8Case{"incast-hpcc", 0.065, 0.05},
                                           Ft8Case{"incast-timely", 0.05, 0.05, 0.06}),
                         [](const auto& info) {
                           std::string n = info.param.name;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(HpccCompat, GlobalTHasWinAndVarWinSetHpccsTAndWindowAsThere) {
  // kTopo: hosts 0, 1 on switch 4 and 2, 3 on switch 5, 100G host links and a 400G link between the switches,
  // 1 us each. The longest pair crosses three links: 2 x 3 us + 1000 B at 100G, 400G and 100G (80 + 20 + 80 ns).
  std::istringstream topo(kTopo);
  EXPECT_EQ(rocesim::hpcc_max_rtt(rocesim::read_hpcc_topology(topo, "topo.txt"), 1000), rocesim::Time::ns(6180));
  const fs::path d =
      setup("global_t", kTopo, kFlows, config("GLOBAL_T 1\n") + "CC_MODE 3\nU_TARGET 0.95\nRATE_AI 50Mb/s\n");
  const rocesim::HpccImport imp = rocesim::import_hpcc_config((d / "config.txt").string(), d.string());
  EXPECT_NE(imp.yaml.find("base_rtt: 6.18us"), std::string::npos) << imp.yaml;
  for (const std::string& w : imp.warnings) {
    EXPECT_EQ(w.find("GLOBAL_T"), std::string::npos) << w;
  }
  EXPECT_EQ(imp.yaml.find("window:"), std::string::npos) << imp.yaml;  // HAS_WIN, VAR_WIN unset: W varies
  // HAS_WIN 0: paced at W/T with no window; VAR_WIN 0: the window stays at line rate x T.
  std::ofstream(d / "config.txt", std::ios::app) << "HAS_WIN 0\n";
  EXPECT_NE(rocesim::import_hpcc_config((d / "config.txt").string(), d.string()).yaml.find("window: none"),
            std::string::npos);
  std::ofstream(d / "config.txt") << config("GLOBAL_T 0\nHAS_WIN 1\nVAR_WIN 0\n") << "CC_MODE 3\n";
  const rocesim::HpccImport fixed = rocesim::import_hpcc_config((d / "config.txt").string(), d.string());
  EXPECT_NE(fixed.yaml.find("window: fixed"), std::string::npos) << fixed.yaml;
  EXPECT_EQ(fixed.yaml.find("base_rtt"), std::string::npos) << fixed.yaml;
  fs::remove_all(d);
}

TEST(HpccCompat, ItsMmuBecomesReserveXonOffsetHeadroomAndAPfcThresholdPerPortRate) {
  // switch-mmu.cc and third.cc: 4 KiB reserved, resume 3 KiB below the threshold, headroom 3 x rate x delay, and
  // the threshold's shift 3 at the NIC rate (100G here), one less per doubling: 400G ports get 1 >> 1, alpha 1/2.
  const fs::path d = setup("mmu", kTopo, kFlows, config());
  const rocesim::HpccImport imp = rocesim::import_hpcc_config((d / "config.txt").string(), d.string());
  for (const char* want : {"reserved: 4KiB", "xon_offset: 3KiB", "headroom: hpcc-ns3", "alpha: 0.125",
                           "alpha_by_rate: 400Gbps 0.5", "qlen_interval: 100ns"}) {
    EXPECT_NE(imp.yaml.find(want), std::string::npos) << want << "\n" << imp.yaml;
  }
  fs::remove_all(d);
}

TEST(HpccCompat, CompareFctPairsTheFlowsOfFctTxtAndFlowsCsv) {
  // tools/compare_fct.py: one run's fct.txt against its own flows.csv pairs every flow with itself (ratio 1);
  // against an fct.txt whose FCTs are doubled, every ratio is 2.
  const fs::path d = setup("compare", kTopo, kFlows, config());
  ASSERT_EQ(run_config(d).status, 0);
  std::ifstream in(d / "out" / "fct.txt");
  std::ofstream doubled(d / "doubled.txt");
  std::string sip, dip, sport, dport, size, start, fct, base;
  while (in >> sip >> dip >> sport >> dport >> size >> start >> fct >> base) {
    doubled << sip << " " << dip << " " << sport << " " << dport << " " << size << " " << start << " "
            << 2 * std::stoll(fct) << " " << base << "\n";
  }
  doubled.close();
  const std::string tool = "/usr/bin/python3 " + std::string(ROCESIM_SOURCE_DIR) + "/tools/compare_fct.py ";
  Result r = sh(tool + (d / "out" / "fct.txt").string() + " " + (d / "out" / "flows.csv").string() + " --json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"flows\": 4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"median\": 1.0"), std::string::npos) << r.out;
  r = sh(tool + (d / "out" / "fct.txt").string() + " " + (d / "doubled.txt").string() + " --plot " +
         (d / "cdf.png").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("FCT B / A: min 2.000, median 2.000, p99 2.000, max 2.000"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(d / "cdf.png"));
  EXPECT_EQ(sh(tool + (d / "missing.txt").string() + " " + (d / "doubled.txt").string()).status, 2);
  fs::remove_all(d);
}

TEST(HpccCompat, WarningsShowControlBytesOfTheConfigEscaped) {
  // Found by tools/fuzz_cli.py: a key with a control byte reached the terminal raw in the "ignored" warning.
  const fs::path d = setup("warn_escape", kTopo, kFlows, config("FOO\x1b[31mBAR 3\n"));
  const Result r = run_config(d);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FOO\\x1B[31mBAR ignored"), std::string::npos) << r.out;
  fs::remove_all(d);
}

TEST(HpccCompat, The320HostFatTreeRunsWithAWebSearchFlowFile) {
  const fs::path d = tmpdir("fat");
  ASSERT_EQ(
      sh("/usr/bin/python3 " + std::string(ROCESIM_SOURCE_DIR) + "/tools/hpcc_fattree.py > " + (d / "fat.txt").string())
          .status,
      0);
  // WebSearch flows from rocesim's generator on that topology, written in the HPCC flow format.
  std::ofstream(d / "gen.yaml") << "topology: {type: hpcc, path: fat.txt}\nnic: {mtu: 1000}\n"
                                   "workload: [{type: poisson, cdf: websearch, load: 0.3, until: 40us}]\n";
  Result r = sh(std::string(ROCESIM_BINARY) + " flows " + (d / "gen.yaml").string() + " --format hpcc --offset 2 -o " +
                (d / "flow.txt").string());
  ASSERT_EQ(r.status, 0) << r.out;
  std::ofstream(d / "config.txt") << "TOPOLOGY_FILE fat.txt\nFLOW_FILE flow.txt\nPACKET_PAYLOAD_SIZE 1000\n"
                                     "SIMULATOR_STOP_TIME 2.0002\nCC_MODE 3\nU_TARGET 0.95\nMI_THRESH 0\n"
                                     "RATE_AI 40Mb/s\nL2_ACK_INTERVAL 1\nFCT_OUTPUT_FILE fct.txt\nBUFFER_SIZE 32\n";
  r = sh(std::string(ROCESIM_BINARY) + " run --hpcc-config " + (d / "config.txt").string() + " -o " +
         (d / "out").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string flows = slurp(d / "flow.txt");
  const long n = std::stol(flows.substr(0, flows.find('\n')));
  EXPECT_GT(n, 20);  // 320 hosts x 30 % of 100 Gb/s x 40 us / 1.71 MB mean: about 28 flows
  const std::string fct = slurp(d / "out" / "fct.txt");
  EXPECT_GT(std::count(fct.begin(), fct.end(), '\n'), 0);
  fs::remove_all(d);
}
