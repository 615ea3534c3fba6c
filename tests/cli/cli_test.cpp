// Runs the rocesim binary as a user would.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "../test_util.hpp"

namespace {

using Result = rocesim::test::ShellResult;
using rocesim::test::slurp;

Result sh(const std::string& args) { return rocesim::test::shell(std::string(ROCESIM_BINARY) + " " + args); }

std::filesystem::path tmpdir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("rocesim_cli_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

TEST(Cli, DefaultScenarioRunsAndWritesTheResultFiles) {
  const auto d = tmpdir("default");
  const Result r = sh("run -o " + d.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("FCT slowdown"), std::string::npos);
  const auto s = nlohmann::json::parse(slurp(d / "summary.json"));
  for (const char* k :
       {"sim_time_ns", "wall_time_s", "events", "flows", "fct_slowdown", "drops", "pfc", "ecn", "cnp", "scenario"}) {
    EXPECT_TRUE(s.contains(k)) << k;
  }
  EXPECT_EQ(s["flows"]["total"], s["flows"]["completed"]);
  // The default scenario shows PFC, ECN and DCQCN at work, without lossless drops.
  EXPECT_GT(s["pfc"]["pause_frames"].get<int>(), 0);
  EXPECT_GT(s["ecn"]["marked"].get<int>(), 0);
  EXPECT_GT(s["cnp"]["sent"].get<int>(), 0);
  EXPECT_EQ(s["drops"]["lossless"], 0);
  EXPECT_TRUE(s["packets"]["conserved"].get<bool>());
  EXPECT_EQ(s["scenario"]["nic"]["cc"]["type"], "dcqcn");
  EXPECT_EQ(slurp(d / "flows.csv")
                .rfind("flow_id,src,dst,size_bytes,priority,start_ns,end_ns,fct_ns,ideal_fct_ns,"
                       "slowdown,retransmits,cnps,operation,status,delivered_bytes,src_name,dst_name,out_of_order\n",
                       0),
            0u);
  EXPECT_FALSE(slurp(d / "ports.csv").empty());
}

TEST(Cli, SameSeedGivesByteIdenticalResults) {
  const auto a = tmpdir("det_a"), b = tmpdir("det_b"), c = tmpdir("det_c");
  ASSERT_EQ(sh("run -q -o " + a.string()).status, 0);
  ASSERT_EQ(sh("run -q -o " + b.string()).status, 0);
  ASSERT_EQ(sh("run -q --seed 99 -o " + c.string()).status, 0);
  EXPECT_EQ(slurp(a / "flows.csv"), slurp(b / "flows.csv"));
  EXPECT_EQ(slurp(a / "ports.csv"), slurp(b / "ports.csv"));
  auto sa = nlohmann::json::parse(slurp(a / "summary.json"));
  auto sb = nlohmann::json::parse(slurp(b / "summary.json"));
  for (auto* s : {&sa, &sb}) {  // wall-clock figures are the only thing allowed to differ
    s->erase("wall_time_s");
    s->erase("events_per_s");
    s->erase("packet_hops_per_s");
  }
  EXPECT_EQ(sa, sb);
  EXPECT_NE(slurp(a / "flows.csv"), slurp(c / "flows.csv"));  // another seed, other ECMP and start times
}

TEST(Cli, EngineProfileWritesHowTheEventsWereSharedOutAndChangesNoOtherFile) {
  const auto plain = tmpdir("profile_plain"), profiled = tmpdir("profile_on");
  const std::string scenario = std::string(ROCESIM_SOURCE_DIR) + "/scenarios/incast.yaml";
  ASSERT_EQ(sh("run " + scenario + " -q --threads 2 -o " + plain.string()).status, 0);
  const Result r = sh("run " + scenario + " -q --threads 2 --set engine.profile=true -o " + profiled.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_FALSE(std::filesystem::exists(plain / "engine.json"));
  for (const char* f : {"flows.csv", "ports.csv", "nics.csv"}) {
    EXPECT_EQ(slurp(plain / f), slurp(profiled / f)) << f;
  }
  const auto summary = nlohmann::json::parse(slurp(profiled / "summary.json"));
  const auto engine = nlohmann::json::parse(slurp(profiled / "engine.json"));
  EXPECT_EQ(engine.at("threads"), 2);
  EXPECT_EQ(engine.at("partitions"), 2);
  uint64_t events = 0;
  for (const auto& p : engine.at("by_partition")) {
    events += p.at("events").get<uint64_t>();
    EXPECT_GT(p.at("link_ends").get<int>(), 0);
  }
  EXPECT_EQ(events, summary.at("events").get<uint64_t>());
  EXPECT_EQ(engine.at("events"), summary.at("events"));
  // Two partitions: the busiest of each window runs at least half its events and not all of the run's.
  const double bound = engine.at("speedup_bound").get<double>();
  EXPECT_GT(bound, 1.0);
  EXPECT_LE(bound, 2.0);
  EXPECT_EQ(engine.at("by_thread").size(), 2u);
}

TEST(Cli, BadInputExitsWithStatusTwoAndWritesNothing) {
  const auto d = tmpdir("bad");
  std::ofstream(d / "bad.yaml") << "seed: 1\ntopology: {type: star, hosts: 4}\nswitch:\n  ecn: {kmni: 1KB}\n";
  const auto out = d / "out";
  Result r = sh("run " + (d / "bad.yaml").string() + " -o " + out.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("bad.yaml:4: switch.ecn.kmni: unknown key"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("did you mean 'kmin'"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = sh("run " + (d / "missing.yaml").string() + " -o " + out.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("no such file"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("terminate"), std::string::npos);
  EXPECT_EQ(sh("run --set switch.buffer=lots -o " + out.string()).status, 2);
  EXPECT_EQ(sh("frobnicate").status, 2);
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(Cli, NcclTestsSweepsSizesOverTheScenariosGpusAndPrintsTheTable) {
  const auto d = tmpdir("nccl");
  // 2 servers of 2 GPUs, one 100G rail per GPU.
  std::ofstream(d / "two.yaml") << R"(
topology: {type: leaf-spine, rail: true, nics_per_host: 2, leaves: 2, servers_per_leaf: 2, spines: 1,
           host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 100Gbps, delay: 1us}}
server: {gpus: 2, gpus_per_switch: 1}
switch: {pfc: {priorities: [3]}}
workload: [{type: incast, senders: 2, size: 1KB}]
)";
  Result r = sh("nccl-tests " + (d / "two.yaml").string() + " --op all_reduce -b 8 -e 128K -f 4");
  ASSERT_EQ(r.status, 0) << r.out;
  // nccl-tests' rows: 8, 32, .., 128 KiB (x 4 each time); busbw = algbw x 2(n - 1)/n with n = 4 ranks.
  std::vector<std::pair<long, std::pair<double, double>>> rows;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    long size = 0, count = 0;
    char type[16], redop[16];
    int root = 0;
    double t = 0, alg = 0, bus = 0;
    if (line[0] != '#' && sscanf(line.c_str(), "%ld %ld %15s %15s %d %lf %lf %lf", &size, &count, type, redop, &root,
                                 &t, &alg, &bus) == 8) {
      EXPECT_EQ(count * 4, size);
      EXPECT_NEAR(bus, alg * 2 * 3 / 4, 0.011) << line;
      rows.push_back({size, {alg, bus}});
    }
  }
  ASSERT_EQ(rows.size(), 8u) << r.out;
  EXPECT_EQ(rows.front().first, 8);
  EXPECT_EQ(rows.back().first, 128 * 1024);
  EXPECT_NE(r.out.find("# Collective test starting: all_reduce_perf\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# rocesim: simulated, 4 ranks, algorithm ring, protocol Simple\n"), std::string::npos) << r.out;
  // all_gather splits its buffer into one block per rank: sizes round down to 4 ranks x 4 B, 8 B to nothing.
  r = sh("nccl-tests " + (d / "two.yaml").string() + " --op all_gather -b 8 -e 64 -f 2 -o " + (d / "out").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("\n           8 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n          16 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n          64 "), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(d / "out" / "nccl-tests.txt"));
  // Sizes it cannot read, and an algorithm for an operation it does not run: exit 2, naming the flag or key.
  r = sh("nccl-tests " + (d / "two.yaml").string() + " -b 8X");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("-b: '8X' is not a size"), std::string::npos) << r.out;
  r = sh("nccl-tests " + (d / "two.yaml").string() + " --op all_gather --algorithm tree");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--algorithm: "), std::string::npos) << r.out;  // the flag, not the workload it made
  // Sizes it was asked for and cannot run are refused, never replaced by another size or wrapped around.
  for (const auto& [flags, says] : std::vector<std::pair<std::string, std::string>>{
           {"-b 0 -e 0", "-b: the smallest size must be at least 1 byte"},
           {"-b 64 -e 8", "-e: the largest size must be at least -b"},
           {"-b 8 -e 9999999999G", "-e: '9999999999G' is larger than any size"},
           {"-b 8 -e 64 --set stop=1us", "stop: nccl-tests runs every size to its end"}}) {
    r = sh("nccl-tests " + (d / "two.yaml").string() + " " + flags);
    EXPECT_EQ(r.status, 2) << flags << "\n" << r.out;
    EXPECT_NE(r.out.find(says), std::string::npos) << flags << "\n" << r.out;
  }
}

// Starts `rocesim run SCENARIO -q -o OUT` in a child process (its output discarded).
pid_t start_run(const std::filesystem::path& scenario, const std::filesystem::path& out) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(ROCESIM_BINARY, "rocesim", "run", scenario.c_str(), "-q", "-o", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

TEST(Cli, OffATerminalARunPrintsAProgressLineEveryProgressEverySeconds) {
  const auto d = tmpdir("progress");
  // Some 0.5 s of wall time (more under a sanitizer): several lines at 0.1 s.
  const std::string run =
      "run " + std::string(ROCESIM_SOURCE_DIR) + "/scenarios/training-step.yaml -o " + (d / "out").string();
  const auto err_of = [&](const std::string& flags) {
    const Result r = rocesim::test::shell("(" + std::string(ROCESIM_BINARY) + " " + run + " " + flags + " 2> " +
                                          (d / "stderr.txt").string() + ")");
    EXPECT_EQ(r.status, 0) << r.out;
    return slurp(d / "stderr.txt");
  };
  // stderr is a file here, not a terminal: lines of their own, each with the simulated time, the speed and the
  // memory held, never a line redrawn with carriage returns.
  const std::string lines = err_of("--progress-every 0.1");
  EXPECT_NE(lines.find("rocesim: progress at "), std::string::npos) << lines;
  EXPECT_NE(lines.find(" ms of 100.000 ms simulated ("), std::string::npos) << lines;
  EXPECT_NE(lines.find(" M events/s, at most "), std::string::npos) << lines;
  EXPECT_NE(lines.find(" resident\n"), std::string::npos) << lines;
  EXPECT_EQ(lines.find('\r'), std::string::npos);
  EXPECT_EQ(err_of("--progress-every 0.1 -q").find("progress"), std::string::npos);
  EXPECT_EQ(err_of("--progress-every 0.1 --progress never").find("progress"), std::string::npos);
  EXPECT_NE(err_of("--progress-every 0.1 -q --progress always").find("rocesim: progress at "), std::string::npos);
  EXPECT_NE(sh(run + " --progress sometimes").status, 0);
}

TEST(Cli, AnInterruptWritesPartialResultsAndASecondLeavesAtOnce) {
  const auto d = tmpdir("interrupt");
  // One 100 GB flow: seconds of simulated time, more of wall time.
  std::ofstream(d / "long.yaml") << "stop: 10s\ntopology: {type: star, hosts: 2}\n"
                                    "workload: [{type: incast, receiver: 0, senders: 1, size: 100GB}]\n";
  // The first interrupt: the run ends at the time reached and writes everything, marked partial.
  const auto out = d / "out";
  pid_t pid = start_run(d / "long.yaml", out);
  // Once it catches signals (a sanitized build on a busy machine takes a while), it is into the run in moments.
  ASSERT_TRUE(rocesim::test::wait_until_catching(pid, SIGTERM));
  usleep(500'000);
  kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit(pid), 128 + SIGTERM);  // results written, but not a finished run: `run && analyse` stops
  const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
  EXPECT_TRUE(s.value("partial", false));
  EXPECT_GT(s["sim_time_ns"].get<double>(), 0);
  EXPECT_LT(s["sim_time_ns"].get<double>(), 10e9);
  EXPECT_EQ(s["flows"]["unfinished"], 1);
  EXPECT_TRUE(std::filesystem::exists(out / "flows.csv"));
  // A second one (two signals: the same one twice may arrive as one): out at once, no results, no temporary file.
  const auto out2 = d / "out2";
  pid = start_run(d / "long.yaml", out2);
  ASSERT_TRUE(rocesim::test::wait_until_catching(pid, SIGTERM));
  usleep(500'000);
  kill(pid, SIGTERM);
  kill(pid, SIGINT);
  const int status = wait_exit(pid);
  EXPECT_TRUE(status == 128 + SIGTERM || status == 128 + SIGINT) << status;
  // The folder was made and locked before the run; it holds no result.
  if (std::filesystem::exists(out2)) {
    for (const auto& e : std::filesystem::directory_iterator(out2)) {
      EXPECT_EQ(e.path().filename(), ".rocesim.lock") << e.path();
    }
  }
  for (const auto& e : std::filesystem::directory_iterator(d)) {
    EXPECT_NE(e.path().filename().string().front(), '.') << e.path();
  }
}

TEST(Cli, ARunThatGrowsNearItsMemoryLimitStopsThereWithPartialResultsAndStatus1) {
  const auto d = tmpdir("memory_stop");
  // One 100 GB write captured at both ends: about 4 KB of capture per frame, so the capture alone passes 80 % of
  // 64 MB within the first 15,000 frames (under 1 ms at 100 Gb/s); it is seen within 2^16 events, long before the
  // write ends.
  std::ofstream(d / "cap.yaml") << "stop: 10s\ntopology: {type: star, hosts: 2}\ncapture: {hosts: [0, 1]}\n"
                                   "workload: [{type: incast, receiver: 0, senders: 1, size: 100GB}]\n";
  const Result r = rocesim::test::shell("ROCESIM_MEMORY_LIMIT=64MB " + std::string(ROCESIM_BINARY) + " run " +
                                        (d / "cap.yaml").string() + " -q -o " + (d / "out").string());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("near the 64.00 MB that ROCESIM_MEMORY_LIMIT leaves it"), std::string::npos) << r.out;
  const auto s = nlohmann::json::parse(slurp(d / "out" / "summary.json"));
  EXPECT_TRUE(s.value("partial", false));
  EXPECT_EQ(s.value("partial_reason", ""), "memory limit");
  EXPECT_LT(s["sim_time_ns"].get<double>(), 1e9);
  EXPECT_TRUE(std::filesystem::exists(d / "out" / "capture.pcapng") ||
              std::filesystem::exists(d / "out" / "capture.pcap"));
}

TEST(Cli, OutputFlowsKeepsCollectiveMessagesEachOrSummedPerCallWithTheSameTotals) {
  const auto d = tmpdir("records");
  const std::string scenario = std::string(ROCESIM_SOURCE_DIR) + "/scenarios/allreduce-rail.yaml";
  const std::string two_calls = " --set 'workload.0.sizes=[4MiB, 4MiB]'";
  for (const char* mode : {"all", "aggregate", "off"}) {
    const Result r =
        sh("run " + scenario + two_calls + " --set output.flows=" + mode + " -q -o " + (d / mode).string());
    ASSERT_EQ(r.status, 0) << mode << r.out;
  }
  // all: a flows.csv row per message. aggregate: a messages.csv row per call and queue pair, the same totals.
  const auto flows = rocesim::test::csv_rows(slurp(d / "all" / "flows.csv"));
  const auto groups = rocesim::test::csv_rows(slurp(d / "aggregate" / "messages.csv"));
  ASSERT_FALSE(groups.empty());
  EXPECT_LT(groups.size(), flows.size());
  int64_t bytes = 0, grouped_bytes = 0, grouped_messages = 0;
  double last_end = 0, grouped_last_end = 0;
  std::set<std::string> calls;
  for (const auto& f : flows) {
    bytes += std::stoll(f.at("size_bytes"));
    last_end = std::max(last_end, std::stod(f.at("end_ns")));
  }
  for (const auto& g : groups) {
    grouped_bytes += std::stoll(g.at("size_bytes"));
    grouped_messages += std::stoll(g.at("messages"));
    grouped_last_end = std::max(grouped_last_end, std::stod(g.at("end_ns")));
    EXPECT_EQ(g.at("status"), "ok");
    EXPECT_EQ(g.at("delivered_bytes"), g.at("size_bytes"));
    calls.insert(g.at("instance"));
  }
  EXPECT_EQ(grouped_messages, static_cast<int64_t>(flows.size()));
  EXPECT_EQ(grouped_bytes, bytes);
  EXPECT_EQ(grouped_last_end, last_end);
  EXPECT_EQ(calls, (std::set<std::string>{"0", "1", "2", "3"}));  // each size out of place, then in place
  // The collective's results are the same whichever way the messages are kept.
  for (const char* mode : {"aggregate", "off"}) {
    EXPECT_EQ(slurp(d / mode / "collectives.csv"), slurp(d / "all" / "collectives.csv")) << mode;
    EXPECT_EQ(slurp(d / mode / "ports.csv"), slurp(d / "all" / "ports.csv")) << mode;
    const auto s = nlohmann::json::parse(slurp(d / mode / "summary.json"));
    EXPECT_EQ(s["message_groups"]["messages"].get<int64_t>(), static_cast<int64_t>(flows.size())) << mode;
    EXPECT_EQ(s["message_groups"]["records"], mode);
  }
  EXPECT_FALSE(std::filesystem::exists(d / "all" / "messages.csv"));
  EXPECT_FALSE(std::filesystem::exists(d / "off" / "messages.csv"));
  EXPECT_FALSE(std::filesystem::exists(d / "off" / "flows.csv"));
  EXPECT_FALSE(nlohmann::json::parse(slurp(d / "all" / "summary.json")).contains("message_groups"));
}

TEST(Cli, PerftestMessagesCountInTheMemoryCheckBeforeTheRun) {
  // write_lat keeps a record of each message (a ping and a pong an iteration): 4 sizes x 10^6 iterations x 2 is
  // 8 million records, some GB; 1 GB is refused before the run, naming the workloads and their records.
  const std::string scenario = std::string(ROCESIM_SOURCE_DIR) + "/scenarios/perftest.yaml";
  const Result r = rocesim::test::shell("ROCESIM_MEMORY_LIMIT=1GB " + std::string(ROCESIM_BINARY) + " validate " +
                                        scenario + " --set workload.0.iterations=1000000");
  EXPECT_EQ(r.status, 2) << r.out;
  // The error names the line of the scenario's list of workloads (the one after `workload:`).
  const std::string text = slurp(scenario);
  const auto line =
      2 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(text.find("\nworkload:")) + 1, '\n');
  EXPECT_NE(r.out.find(fmt::format("perftest.yaml:{}: workload: the run would need", line)), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("8000000 message records"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("output.flows: aggregate"), std::string::npos) << r.out;
}

TEST(Cli, CollectiveMessagesThatDoNotFitAreRefusedWhenAllAreAskedForAndSummedOnAuto) {
  const auto d = tmpdir("records_memory");
  // 4 calls of 256 MiB on 64 GPUs: 64,512 messages, about 41 MB of records one each; 60 MB leaves too little.
  std::ofstream(d / "big.yaml") << slurp(std::string(ROCESIM_SOURCE_DIR) + "/scenarios/allreduce-rail.yaml")
                                << "output:\n  flows: all\n";
  const std::string run =
      "ROCESIM_MEMORY_LIMIT=60MB " + std::string(ROCESIM_BINARY) + " validate " + (d / "big.yaml").string() +
      " --set 'workload.0.sizes=[256MiB, 256MiB, 256MiB, 256MiB]' --set workload.0.placement=out_of_place";
  Result r = rocesim::test::shell(run);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("big.yaml:31: output.flows: the run would need about"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("64512 message records"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(output.flows: aggregate)"), std::string::npos) << r.out;
  r = rocesim::test::shell(run + " --set output.flows=auto");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("64512 collective messages, too many to keep one record each"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kept in 512 records per call and queue pair"), std::string::npos) << r.out;
  r = sh("validate " + (d / "big.yaml").string() + " --set output.flows=some");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("output.flows"), std::string::npos) << r.out;
}

TEST(Cli, ValidateParamsAndVersion) {
  Result r = sh("validate " + std::string(ROCESIM_SOURCE_DIR) + "/scenarios/incast.yaml");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("16 servers, 16 NICs, 4 switches, 15 flows"), std::string::npos) << r.out;
  {
    // One write of ten 4096 B packets across a switch: 10 packets x 2 links.
    const auto d = tmpdir("validate_events");
    std::ofstream(d / "one.yaml") << "topology: {type: star, hosts: 2}\nnic: {mtu: 4096}\n"
                                     "workload: [{type: incast, receiver: 0, senders: 1, size: 40960B}]\n";
    r = sh("validate " + (d / "one.yaml").string());
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("events           about 55 (20 packet-hops, 1 messages)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("memory           about"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("run time         under a second on one thread"), std::string::npos) << r.out;
    // The same message as perftest posts it: a ping-pong of one iteration is two messages of ten packets.
    std::ofstream(d / "lat.yaml") << "topology: {type: star, hosts: 2}\nnic: {mtu: 4096}\n"
                                     "workload: [{type: perftest, test: write_lat, sizes: [40960B], iterations: 2}]\n";
    r = sh("validate " + (d / "lat.yaml").string());
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("valid (2 servers, 2 NICs, 1 switches)\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("perftest msgs    4 (0.0001638 GB of payload), one record each"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("events           about 220 (80 packet-hops, 4 messages)"), std::string::npos) << r.out;
  }
  r = sh("params switch.ecn");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("switch.ecn.kmin"), std::string::npos);
  EXPECT_EQ(r.out.find("nic.mtu"), std::string::npos);
  EXPECT_EQ(sh("params nosuch").status, 2);
  r = sh("params topology.rail");  // a key of one topology kind, found without naming the kind
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("topology[leaf-spine].rail"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("topology[star]"), std::string::npos) << r.out;
  r = sh("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("rocesim 0."), std::string::npos);
}

TEST(Cli, CheckExitsZeroWhenCleanOneOnCyclesOrFindingsTwoOnBadInput) {
  const std::string src = ROCESIM_SOURCE_DIR;
  Result r = sh("check " + src + "/scenarios/incast.yaml");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("no cycle"), std::string::npos) << r.out;
  r = sh("check " + src + "/scenarios/deadlock-ring.yaml");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("s0:1 -> s1:2 -> s2:2 -> s3:2 -> s4:2 -> s0:1"), std::string::npos) << r.out;
  r = sh("check " + src + "/scenarios/incast.yaml --set switch.pfc.headroom=10KB");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("headroom_short"), std::string::npos) << r.out;
  r = sh("check --json --failures 1 " + src + "/scenarios/incast.yaml");
  EXPECT_EQ(r.status, 1) << r.out;  // a failed uplink loops traffic while routes converge
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dependencies"][0]["route_sets"], 1 + 4);  // as built, and each of the 2 x 2 leaf-spine links down
  EXPECT_EQ(j["dependencies"][0]["sets_with_cycles"], 0);
  EXPECT_EQ(j["dependencies"][0]["sets_with_transient_cycles"], 4);
  EXPECT_TRUE(j["dependencies"][0]["cycles"][0]["transient"].get<bool>());
  EXPECT_EQ(j["findings"].size(), 0u);
  EXPECT_EQ(sh("check --failures 3 " + src + "/scenarios/incast.yaml").status, 2);
  EXPECT_EQ(sh("check " + src + "/scenarios/incast.yaml --set switch.ecn.kmni=1KB").status, 2);
  EXPECT_EQ(sh("check /nonexistent.yaml").status, 2);
}

TEST(Cli, TopologyShowsTheFabricAndWritesThePortMap) {
  const std::string src = ROCESIM_SOURCE_DIR;
  const auto d = tmpdir("topology");
  Result r = sh("topology " + src + "/scenarios/incast.yaml --ports-csv " + (d / "ports.csv").string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("leaf-spine: 4 switches in 2 tiers, 16 servers, 16 NICs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lossless         priorities 3;"), std::string::npos) << r.out;
  const std::string csv = slurp(d / "ports.csv");
  // 2 leaves x (8 hosts + 2 spines) + 2 spines x 2 leaves, and the header.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 20 + 4) << csv;
  r = sh("topology --json " + src + "/scenarios/incast.yaml --set topology.nics_per_host=2 --set topology.rail=true");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["rail_optimised"].get<bool>());
  EXPECT_EQ(sh("topology " + src + "/scenarios/incast.yaml --set topology.hosts_per_leaf=4").status, 2);
  std::filesystem::remove_all(d);
}

TEST(Cli, ARunRemovesTheOutputsOfAnEarlierRunItDidNotRewrite) {
  const std::string src = ROCESIM_SOURCE_DIR;
  const auto d = tmpdir("stale");
  const std::string base = "run -q " + src + "/scenarios/incast.yaml --set stop=50us -o " + d.string();
  ASSERT_EQ(sh(base + " --set 'capture={hosts: [0], file: link0.pcapng}'").status, 0);
  ASSERT_TRUE(std::filesystem::exists(d / "link0.pcapng"));
  std::ofstream(d / "notes.txt") << "mine\n";
  // Without the capture: its file (named in the old summary.json's files) goes; the user's own file stays.
  ASSERT_EQ(sh(base).status, 0);
  EXPECT_FALSE(std::filesystem::exists(d / "link0.pcapng"));
  EXPECT_TRUE(std::filesystem::exists(d / "notes.txt"));
  auto files = nlohmann::json::parse(slurp(d / "summary.json"))["files"];
  EXPECT_EQ(files,
            nlohmann::json({"flows.csv", "ports.csv", "nics.csv", "fct_buckets.csv", "report.html", "summary.json"}));
  // Without the report: the earlier run's report.html goes too.
  ASSERT_EQ(sh(base + " --set output.report=false").status, 0);
  EXPECT_FALSE(std::filesystem::exists(d / "report.html"));
  files = nlohmann::json::parse(slurp(d / "summary.json"))["files"];
  EXPECT_EQ(files, nlohmann::json({"flows.csv", "ports.csv", "nics.csv", "fct_buckets.csv", "summary.json"}));
  // Bad input writes nothing and removes nothing.
  EXPECT_EQ(sh(base + " --set switch.ecn.kmni=1KB").status, 2);
  EXPECT_TRUE(std::filesystem::exists(d / "flows.csv"));
  std::filesystem::remove_all(d);
}

TEST(Cli, PlotRunsThePlotScriptFromAnyFolder) {
  const Result r = sh("plot --help");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("fct_cdf.png"), std::string::npos) << r.out;
  EXPECT_EQ(sh("plot /nonexistent").status, 2);
}

TEST(Cli, PauseStormRunComparesWithTheRunWithoutTheFaultAndWritesVictims) {
  const auto d = tmpdir("storm");
  const Result r =
      sh("run " + std::string(ROCESIM_SOURCE_DIR) + "/scenarios/pause-storm.yaml --set stop=1ms -o " + d.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("pause spread     from host3"), std::string::npos) << r.out;
  const auto s = nlohmann::json::parse(slurp(d / "summary.json"));
  EXPECT_EQ(s["pause_spread"][0]["source"], "host3");
  EXPECT_EQ(s["victims"]["of"], 16 * 15 - 2 * 15);  // all-to-all flows that neither start nor end at host3
  const std::string v = slurp(d / "victims.csv");
  EXPECT_EQ(v.substr(0, v.find('\n')), "id,src,dst,size,fct_ns,baseline_fct_ns,slowdown_vs_baseline,src_name,dst_name");
  EXPECT_EQ(static_cast<int64_t>(std::count(v.begin(), v.end(), '\n')) - 1, s["victims"]["flows"].get<int64_t>());
}

}  // namespace
