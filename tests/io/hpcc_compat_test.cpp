// The HPCC ns-3 simulator's inputs and outputs: its users' files run as they are.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "rocesim/io/hpcc_config.hpp"

namespace {
namespace fs = std::filesystem;

struct Result {
  int status;
  std::string out;
};

Result sh(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) {
    out.append(buf, n);
  }
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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
      {kTopo, kFlows, config("CC_MODE 7\n"), "CC_MODE: 7 is not available"},
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

TEST(HpccCompat, TheSimulatorsOwnIncastFinishesAsItDidThereWithoutAStarvedFlow) {
  // tests/io/fixtures/hpcc-ns3-incast: 3 x 1 MB into one 100G port, DCQCN; that simulator's FCTs 417.5, 419.1 and
  // 476.9 us. rocesim used to let one flow finish at 235 us and starve the other two to 557 us: it marked ECN as
  // packets joined the queue, so CNPs kept coming for the 130 us the marked packets waited in it. With that
  // simulator's semantics (marking at dequeue, a CNP flag on every marked packet's ACK, cuts at the ends of
  // RATE_DECREASE_INTERVAL windows) the flows end within 10 % of each other and the incast within 10 % of the
  // simulator's: 465.5, 493.5 and 500.1 us (seed 1; over seeds 1-6 the last ends at 498-510 us). What is left of
  // the difference is listed in docs/hpcc-compat.md (RoCEv2's 82 B of headers and framing per packet, against
  // the 48 B or so that simulator's standalone FCT of 88 us counts, take 3 % of it).
  const fs::path fixture = fs::path(ROCESIM_SOURCE_DIR) / "tests" / "io" / "fixtures" / "hpcc-ns3-incast";
  const fs::path d = tmpdir("ns3_incast");
  for (const char* f : {"config.txt", "topo.txt", "flow.txt", "trace.txt"}) {
    fs::copy_file(fixture / f, d / f);
  }
  const Result r = run_config(d);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto fcts = [](const fs::path& file) {
    std::vector<double> v;
    std::ifstream in(file);
    std::string sip, dip, sport, dport, size, start, fct, base;
    while (in >> sip >> dip >> sport >> dport >> size >> start >> fct >> base) {
      v.push_back(std::stod(fct) / 1e3);
    }
    std::sort(v.begin(), v.end());
    return v;
  };
  const std::vector<double> ns3 = fcts(fixture / "fct-hpcc-ns3.txt"), ours = fcts(d / "out" / "fct.txt");
  ASSERT_EQ(ns3.size(), 3u);
  ASSERT_EQ(ours.size(), 3u);
  EXPECT_GE(ours.front() / ours.back(), ns3.front() / ns3.back() - 0.05);  // 0.875 there: no starved flow
  EXPECT_NEAR(ours.back() / ns3.back(), 1.0, 0.10);
  fs::remove_all(d);
}

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
