// The collective engine against the bounds and figures it must meet: ring all-reduce bus bandwidth on an idle
// rail fabric, the dgx-h100 figure NVIDIA quotes, GPUDirect against staging, a training loop, bad input.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "../test_util.hpp"
#include "rocesim/collective/algorithm.hpp"
#include "rocesim/collective/report.hpp"
#include "rocesim/run/summary.hpp"

namespace rocesim {
namespace {
using namespace test;

// kTwoDgxFabric with a 512 MiB all-reduce.
const std::string kTwoDgx = std::string(kTwoDgxFabric) + R"(
workload:
  - {type: collective, op: all_reduce, sizes: [512MiB], placement: out_of_place}
)";

// The first size's out-of-place iterations.
CollectiveReport::Timing first_row(Simulation& sim) {
  const auto* r = dynamic_cast<const CollectiveReport*>(sim.reports().at(0).get());
  EXPECT_NE(r, nullptr);
  const auto rows = r->size_rows();
  EXPECT_FALSE(rows.empty());
  EXPECT_TRUE(rows.front().out_of_place && rows.front().out_of_place->complete);
  return *rows.front().out_of_place;
}

TEST(Collective, RingAllReduceBusBandwidthIsWithinThreePercentOfTheNicBound) {
  auto sim = run_sim(kTwoDgx);
  const auto row = first_row(*sim);
  // Ring all-reduce over 16 ranks, 8 channels: every channel crosses between the servers on one rail each way,
  // so each NIC carries 2(n-1)/n x S / 8 and busbw = algbw x 2(n-1)/n is bounded by 8 NICs x 50 GB/s = 400
  // GB/s (NVLink: each GPU sends 7/8 of that, 350 GB/s of its 380 GB/s; PCIe Gen5 57.6 GB/s per NIC).
  EXPECT_LE(row.busbw, 400.0);
  EXPECT_GE(row.busbw, 400.0 * 0.97);
  // Time: 2(n-1)/n x S / 400 GB/s plus the latency terms: within 3 %.
  const double bound_us = 2.0 * 15 / 16 * 512 * 1048576 / 400e3;
  EXPECT_GE(row.time_us, bound_us);
  EXPECT_LE(row.time_us, bound_us * 1.03);
}

TEST(Collective, TwoDgxH100ServersReachNvidiasBusBandwidthPerNic) {
  // NVIDIA (nccl-tests issue 290): "for NDR @ 400Gbps you should see 46-48 GB/s per NIC"; never above the line.
  auto sim = run_sim(kTwoDgx, {"workload.0.sizes=[64MiB, 256MiB]"});
  const auto* r = dynamic_cast<const CollectiveReport*>(sim->reports().at(0).get());
  for (const auto& row : r->size_rows()) {
    ASSERT_TRUE(row.first().complete);
    EXPECT_GE(row.first().busbw / 8, 46.0) << row.bytes.count();
    EXPECT_LE(row.first().busbw / 8, 50.0) << row.bytes.count();
  }
}

TEST(Collective, StagingThroughHostMemoryCostsCopiesCpuAndBandwidth) {
  const std::vector<std::string> small = {"workload.0.sizes=[8B]"};
  auto gdr = run_sim(kTwoDgx, small);
  auto staged = run_sim(kTwoDgx, {"workload.0.sizes=[8B]", "server.gpudirect=false"});
  // An 8 B all-reduce is 30 ring steps, each waiting for the step before it on the previous rank: the chain of
  // 30 ring edges crosses between the servers at least 3 times (2 crossings per 16 edges), and each crossing,
  // staged, is copied to host memory before the send and back after the receive (2 x memcpy_latency, 7.5 us);
  // at most every step waits for a crossing.
  const double extra = first_row(*staged).time_us - first_row(*gdr).time_us;
  EXPECT_GE(extra, 3 * 2 * 7.5);
  EXPECT_LE(extra, 30 * 2 * 7.5);
  // Large: the same bytes through host memory, and the CPU busy with every copy.
  auto big_gdr = run_sim(kTwoDgx, {"workload.0.sizes=[64MiB]"});
  auto big_staged = run_sim(kTwoDgx, {"workload.0.sizes=[64MiB]", "server.gpudirect=false"});
  EXPECT_LT(first_row(*big_staged).busbw, first_row(*big_gdr).busbw);
  const auto* r = dynamic_cast<const CollectiveReport*>(big_staged->reports().at(0).get());
  const auto use = server_use(*r->group(), big_staged->net());
  // Each GPU sends and receives 2(n-1)/n x 64 MiB / 8 over the network: 30 slices of 512 KiB each way. Staged,
  // every byte crosses host memory once on the way out and once on the way in; the CPU spends 7.5 us per copy.
  const double per_gpu = 30.0 * 512 * 1024;
  for (const ServerUse& u : use) {
    EXPECT_NEAR(u.host_memory_bytes, 8 * 2 * per_gpu, 1);
    EXPECT_NEAR(u.cpu.sec_f(), 8 * 2 * 30 * 7.5e-6, 1e-9);
  }
  const auto* rg = dynamic_cast<const CollectiveReport*>(big_gdr->reports().at(0).get());
  for (const ServerUse& u : server_use(*rg->group(), big_gdr->net())) {
    EXPECT_EQ(u.host_memory_bytes, 0);
    EXPECT_EQ(u.cpu, Time());
  }
}

TEST(Collective, EveryOperationCompletesAndMovesItsData) {
  for (const char* op : {"reduce_scatter", "all_gather", "broadcast", "all_to_all"}) {
    auto sim = run_sim(kTwoDgx, {std::string("workload.0.op=") + op, "workload.0.sizes=[16MiB]"});
    const auto row = first_row(*sim);
    EXPECT_GT(row.busbw, 0) << op;
    EXPECT_LE(row.busbw, 400.0) << op;
    EXPECT_EQ(unfinished(sim->net()), 0) << op;
  }
}

TEST(CollectiveAlgorithm, TreeOnTwoServersIsBoundByTheChainsOverNvlink) {
  auto sim = run_sim(kTwoDgx, {"workload.0.protocol.algorithm=tree"});
  const auto row = first_row(*sim);
  // 2 x 8 tree channels (each channel's copy on the mirrored tree), each a chain of the 8 GPUs of a server whose
  // head sends to the other server: every GPU is head of 2 channels and tail of 2, so it writes its channel share
  // S / 16 up the chain in 14 channels and down it in 14: 28 x S / 16 = 1.75 S over its 380 GB/s NVLink. The
  // NICs carry S / 8 each way (50 GB/s: 0.67 ms for 512 MiB), less than NVLink's 2.47 ms.
  const double s = 512.0 * 1048576;
  const double bound_us = 1.75 * s / 380e3;
  const double busbw_bound = 2.0 * 15 / 16 * s / 1e3 / bound_us;  // 407 GB/s
  EXPECT_GE(row.time_us, bound_us);
  EXPECT_LE(row.time_us, bound_us * 1.03);
  EXPECT_LE(row.busbw, busbw_bound);
  EXPECT_EQ(unfinished(sim->net()), 0);
}

TEST(CollectiveAlgorithm, HalvingDoublingOnTwoServersTakesItsStepsOneAfterTheOther) {
  auto sim = run_sim(kTwoDgx, {"workload.0.protocol.algorithm=halving_doubling", "workload.0.sizes=[256MiB]"});
  const auto row = first_row(*sim);
  // 16 ranks, nearest partners first: reduce-scatter steps exchange S/2, S/4, S/8 over NVLink (380 GB/s each
  // way per GPU) and S/16 between the servers over the GPU's own NIC (400G: 4096 B of payload per 4096 + 78 B
  // frame, 49.07 GB/s of data); the all-gather the same in reverse, each step after the one before.
  const double s = 256.0 * 1048576;
  const double nic = 50e3 * 4096 / (4096 + 78);  // bytes per us
  const double bound_us = 2 * (7.0 / 8 * s / 380e3 + s / 16 / nic);
  EXPECT_GE(row.time_us, bound_us);
  EXPECT_LE(row.time_us, bound_us * 1.04);
  EXPECT_EQ(unfinished(sim->net()), 0);
}

TEST(CollectiveAlgorithm, TreeAndHalvingDoublingCutTheLatencyOfSmallAllReduces) {
  // 8 servers x 8 GPUs, 8 B: the ring takes 2(n - 1) = 126 steps one after the other, 112 of them across NVLink
  // (at least nvlink_hop = 3.4 us each); the tree goes up a chain of 7 NVLink hops and 3 tree levels between
  // servers and back down (20 steps); halving-doubling takes 6 steps each way (3 over NVLink, 3 between
  // servers). A step between servers is a 64 B RDMA write across 3 switches (< 10 us here).
  const std::vector<std::string> base = {"topology.servers_per_leaf=8", "topology.spines=8", "workload.0.sizes=[8B]"};
  const auto time_of = [&](const std::string& algo) {
    std::vector<std::string> set = base;
    set.push_back("workload.0.protocol.algorithm=" + algo);
    auto sim = run_sim(kTwoDgx, set);
    return first_row(*sim).time_us;
  };
  const double ring = time_of("ring"), tree = time_of("tree"), hd = time_of("halving_doubling");
  const double base_us = 8.4;
  EXPECT_GE(ring, base_us + 112 * 3.4);
  EXPECT_LE(tree, base_us + 14 * 3.4 + 6 * 10);
  EXPECT_LE(hd, base_us + 6 * 3.4 + 6 * 10);
}

TEST(Collective, TheSameBytesCrossTheGpusPcieLinksWithOrWithoutGpuDirectAndStagingCpuIsCounted) {
  const auto use = [](bool gdr) {
    auto sim =
        run_sim(kTwoDgx, {"workload.0.sizes=[16MiB]", std::string("server.gpudirect=") + (gdr ? "true" : "false")});
    const auto* r = dynamic_cast<const CollectiveReport*>(sim->reports().at(0).get());
    return std::make_pair(server_use(*r->group(), sim->net()), summary_json(*sim, RunInfo{})["cpu"]);
  };
  const auto [gdr, gdr_cpu] = use(true);
  const auto [staged, staged_cpu] = use(false);
  ASSERT_EQ(gdr.size(), 2u);
  double staging_s = 0;
  for (size_t s = 0; s < 2; ++s) {
    // Staged: every byte between servers is copied GPU <-> host memory across the GPU's PCIe link. GPUDirect: the
    // NIC reads and writes the GPU's memory across the same link; only the credit messages' few bytes differ.
    EXPECT_GT(staged[s].pcie_bytes, 0);
    EXPECT_NEAR(gdr[s].pcie_bytes, staged[s].pcie_bytes, 0.01 * staged[s].pcie_bytes) << s;
    EXPECT_EQ(gdr[s].host_memory_bytes, 0);
    EXPECT_EQ(gdr[s].cpu, Time());
    staging_s += staged[s].cpu.sec_f();
  }
  // summary.json's CPU has the staging copies' CPU time too.
  EXPECT_GT(staging_s, 0);
  EXPECT_DOUBLE_EQ(staged_cpu["staging_core_seconds"].get<double>(), staging_s);
  EXPECT_NEAR(staged_cpu["core_seconds"].get<double>() - gdr_cpu["core_seconds"].get<double>(), staging_s,
              1e-9 + 0.01 * staging_s);
  EXPECT_DOUBLE_EQ(gdr_cpu["staging_core_seconds"].get<double>(), 0.0);
}

TEST(CollectiveAlgorithm, HalvingDoublingFoldsAGroupThatIsNotAPowerOfTwo) {
  // 3 servers: 24 ranks, 8 beyond the 16 of the largest power of two, so ranks 0..15 fold in pairs.
  auto sim = run_sim(kTwoDgx, {"topology.servers_per_leaf=3", "workload.0.protocol.algorithm=halving_doubling",
                               "workload.0.sizes=[24MiB]"});
  const auto row = first_row(*sim);
  EXPECT_GT(row.busbw, 0);
  EXPECT_EQ(unfinished(sim->net()), 0);
  const auto* r = dynamic_cast<const CollectiveReport*>(sim->reports().at(0).get());
  EXPECT_EQ(instance_times(*r->group()).at(0).ranks_done, 24u);
}

TEST(Training, EightServersOfEightGpusRunTheirSteps) {
  auto sim = run_sim(R"(
stop: 50ms
topology: {type: leaf-spine, rail: true, nics_per_host: 8, leaves: 8, servers_per_leaf: 8, spines: 8,
           host_link: {rate: 400Gbps, delay: 1us}, fabric_link: {rate: 400Gbps, delay: 1us}}
server: {preset: dgx-h100}
switch: {buffer: 64MB, pfc: {priorities: [3]}}
nic: {cc: dcqcn, mtu: 4096}
workload:
  - {type: training, iterations: 2, compute: 200us, overlap: 0.5, collectives: "all_reduce:4MiB, all_gather:1MiB"}
)");
  const auto* r = dynamic_cast<const CollectiveReport*>(sim->reports().at(0).get());
  const auto t = instance_times(*r->group());
  ASSERT_EQ(t.size(), 4u);
  for (const InstanceTimes& i : t) {
    EXPECT_EQ(i.ranks_done, 64u);
  }
  // The first step's collectives start after the compute not overlapped (100 us), the second step's after the
  // first step's collectives and the rest of its compute.
  EXPECT_GE(t[0].start, Time::ps(100'000'000));
  EXPECT_GE(t[2].start, t[1].end);
}

// Two dgx-h100 servers train: 200 us of compute a step, then one 4 MiB all-reduce.
std::unique_ptr<Simulation> two_dgx_training(const std::string& overlap) {
  return run_sim(std::string(kTwoDgxFabric) + R"(
workload:
  - {type: training, iterations: 3, compute: 200us, overlap: )" +
                 overlap + R"(, collectives: "all_reduce:4MiB"}
)");
}

TEST(Training, WithoutOverlapAStepIsItsComputeThenItsCollectiveAllExposed) {
  auto sim = two_dgx_training("0");
  const auto* r = dynamic_cast<const CollectiveReport*>(sim->reports().at(0).get());
  const auto t = instance_times(*r->group());
  const auto steps = r->step_rows();
  ASSERT_EQ(steps.size(), 3u);
  Time end;
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto& s = steps[i];
    ASSERT_TRUE(s.complete);
    // Every rank computes 200 us, then the all-reduce runs alone: the step is both, one after the other, and the
    // whole collective is exposed.
    EXPECT_EQ(s.start, end);
    EXPECT_EQ(t[i].start, s.start + Time::us(200));
    EXPECT_EQ(s.end, t[i].end);
    EXPECT_EQ(s.time(), Time::us(200) + (t[i].end - t[i].start));
    EXPECT_EQ(s.communication, t[i].end - t[i].start);
    EXPECT_EQ(s.exposed(), s.communication);
    EXPECT_DOUBLE_EQ(s.hidden(), 0.0);
    end = s.end;
  }
}

TEST(Training, ACollectiveShorterThanTheComputeBesideItIsHiddenAndTheStepIsTheCompute) {
  auto sim = two_dgx_training("1");
  const auto* r = dynamic_cast<const CollectiveReport*>(sim->reports().at(0).get());
  const auto t = instance_times(*r->group());
  const auto steps = r->step_rows();
  ASSERT_EQ(steps.size(), 3u);
  for (size_t i = 0; i < steps.size(); ++i) {
    ASSERT_LT(t[i].end - t[i].start, Time::us(200));  // 4 MiB on 16 GPUs: tens of us
    EXPECT_EQ(steps[i].time(), Time::us(200)) << i;
    EXPECT_EQ(steps[i].exposed(), Time()) << i;
    EXPECT_DOUBLE_EQ(steps[i].hidden(), 1.0) << i;
  }
  // summary.json's training part and steps.csv say the same.
  const nlohmann::json j = r->summary(RunInfo{});
  ASSERT_EQ(j["training"].size(), 1u);
  EXPECT_EQ(j["training"][0]["steps_done"], 3);
  EXPECT_DOUBLE_EQ(j["training"][0]["mean_time_us"].get<double>(), 200.0);
  EXPECT_DOUBLE_EQ(j["training"][0]["mean_exposed_us"].get<double>(), 0.0);
  EXPECT_EQ(j["collectives"][0]["algorithm"], "ring");
  EXPECT_EQ(j["collectives"][0]["protocol"], "Simple");
  EXPECT_EQ(j["collectives_by_op"][0]["calls"], 3);
}

TEST(Training, StepsCsvHasAStepARowAndCollectivesCsvNamesBandwidthInGBps) {
  auto sim = two_dgx_training("0");
  auto* r = dynamic_cast<CollectiveReport*>(sim->reports().at(0).get());
  const RunInfo info;
  const nlohmann::json summary = nlohmann::json::object();
  const std::vector<std::string> written;
  const OutputFiles files = r->files(OutputContext{info, summary, written, ""});
  std::map<std::string, std::string> by_name(files.begin(), files.end());
  ASSERT_TRUE(by_name.count("steps.csv"));
  const std::string& steps = by_name["steps.csv"];
  EXPECT_EQ(steps.substr(0, steps.find('\n')),
            "workload,step,start_ns,end_ns,time_us,compute_us,communication_us,exposed_us,hidden");
  const auto rows = test::csv_rows(steps);
  ASSERT_EQ(rows.size(), 3u);
  const auto s = r->step_rows();
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].at("step"), std::to_string(i));
    EXPECT_EQ(rows[i].at("compute_us"), "200.000");
    EXPECT_EQ(rows[i].at("time_us"), fmt::format("{:.3f}", s[i].time().sec_f() * 1e6));
    EXPECT_EQ(rows[i].at("hidden"), "0.0000");
  }
  EXPECT_EQ(by_name["collectives.csv"].substr(0, by_name["collectives.csv"].find('\n')),
            "workload,instance,op,bytes,ranks,start_ns,end_ns,time_us,algbw_GBps,busbw_GBps");
}

// What a scraper of real nccl-tests logs does: the rows that are not comments, split on blanks, columns by position.
struct NcclRow {
  int64_t size = 0, count = 0;
  double oop_time = 0, oop_busbw = 0, ip_time = 0, ip_busbw = 0;
  std::string type, redop, root, oop_wrong, ip_wrong;
};
std::vector<NcclRow> scrape_nccl_tests(const std::string& text) {
  std::vector<NcclRow> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    std::istringstream f(line);
    std::vector<std::string> c;
    for (std::string w; f >> w;) {
      c.push_back(w);
    }
    EXPECT_EQ(c.size(), 13u) << line;
    if (c.size() != 13) {
      continue;
    }
    const auto num = [](const std::string& v) { return v == "-" ? -1.0 : std::stod(v); };  // "-": did not run
    out.push_back({std::stoll(c[0]), std::stoll(c[1]), num(c[5]), num(c[7]), num(c[9]), num(c[11]), c[2], c[3], c[4],
                   c[8], c[12]});
  }
  return out;
}

TEST(NcclTestsTable, AScraperOfRealLogsReadsBothPlacementsAndTheirBusBandwidth) {
  auto sim = run_sim(kTwoDgx, {"workload.0.sizes=[1MiB, 64MiB]", "workload.0.placement=both", "workload.0.warmup=1",
                               "workload.0.iterations=2"});
  auto* r = dynamic_cast<CollectiveReport*>(sim->reports().at(0).get());
  const RunInfo info;
  const nlohmann::json summary = nlohmann::json::object();
  const std::vector<std::string> written;
  std::string text;
  for (const auto& [name, content] : r->files(OutputContext{info, summary, written, ""})) {
    text = name == "nccl-tests.txt" ? content : text;
  }
  const std::vector<NcclRow> rows = scrape_nccl_tests(text);
  const auto sizes = r->size_rows();
  ASSERT_EQ(rows.size(), 2u) << text;
  double sum = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].size, sizes[i].bytes.count());
    EXPECT_EQ(rows[i].count, sizes[i].bytes.count() / 4);  // floats
    EXPECT_EQ(rows[i].type, "float");
    EXPECT_EQ(rows[i].redop, "sum");
    EXPECT_EQ(rows[i].root, "-1");
    EXPECT_EQ(rows[i].oop_wrong, "0");
    EXPECT_EQ(rows[i].ip_wrong, "0");
    ASSERT_TRUE(sizes[i].out_of_place && sizes[i].in_place);
    EXPECT_NEAR(rows[i].oop_busbw, sizes[i].out_of_place->busbw, 0.005);
    EXPECT_NEAR(rows[i].ip_busbw, sizes[i].in_place->busbw, 0.005);
    // The model costs both placements the same; the fabric is warm for the second.
    EXPECT_NEAR(rows[i].ip_busbw, rows[i].oop_busbw, 0.05 * rows[i].oop_busbw);
    sum += sizes[i].out_of_place->busbw + sizes[i].in_place->busbw;
  }
  EXPECT_NE(text.find(fmt::format("# Avg bus bandwidth    : {:g} \n", sum / 4)), std::string::npos) << text;
  EXPECT_NE(text.find("# nThread 1 nGpus 1 minBytes 1048576 maxBytes 67108864 step: 1048576(bytes) warmup iters: 1 "
                      "iters: 2 agg iters: 1 validation: 1 graph: 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("#  Rank 15 Group  0 Pid     16 on      host1 device  7 "), std::string::npos) << text;
  EXPECT_NE(text.find("algorithm ring, protocol Simple"), std::string::npos);
  // summary.json reports the out-of-place figures, as the table's first columns.
  const nlohmann::json j = r->summary(info);
  EXPECT_DOUBLE_EQ(j["collectives"][1]["busbw_GBps"].get<double>(), sizes[1].out_of_place->busbw);
}

TEST(NcclTestsTable, SplitOperationsCountOneRanksElements) {
  auto sim = run_sim(kTwoDgx, {"workload.0.op=all_gather", "workload.0.sizes=[16MiB]"});
  auto* r = dynamic_cast<CollectiveReport*>(sim->reports().at(0).get());
  const RunInfo info;
  const nlohmann::json summary = nlohmann::json::object();
  const std::vector<std::string> written;
  bool found = false;
  for (const auto& [name, content] : r->files(OutputContext{info, summary, written, ""})) {
    if (name == "nccl-tests.txt") {
      found = true;
      const auto rows = scrape_nccl_tests(content);
      ASSERT_EQ(rows.size(), 1u);
      EXPECT_EQ(rows[0].count, 16 * 1024 * 1024 / 4 / 16);  // all_gather_perf: a rank's part, 16 ranks
      EXPECT_EQ(rows[0].redop, "none");
      EXPECT_EQ(rows[0].ip_wrong, "-");  // placement: out_of_place
    }
  }
  EXPECT_TRUE(found);
}

TEST(NcclTestsTable, TimesHaveTwoDecimalsBelow100usOneBelow10msNoneAbove) {
  // As nccl-tests prints them (e.g. 9306.7 and 18535 in its logs).
  EXPECT_EQ(nccl_tests_time(12.344), "  12.34");
  EXPECT_EQ(nccl_tests_time(99.99), "  99.99");
  EXPECT_EQ(nccl_tests_time(106.24), "  106.2");
  EXPECT_EQ(nccl_tests_time(9306.71), " 9306.7");
  EXPECT_EQ(nccl_tests_time(18535.2), "  18535");
  EXPECT_EQ(nccl_tests_time(1234567.0), "1234567");
}

TEST(CollectiveRunner, EqualStepsInARowAreKeptOnceWithTheirCount) {
  Runner r;
  Item a;
  a.bytes = 4096;
  Item b = a;
  b.bytes = 2048;
  for (const Item& it : {a, a, a, b, a}) {
    r.push_back(it);
  }
  EXPECT_EQ(r.size(), 5u);
  ASSERT_EQ(r.runs().size(), 3u);  // order kept: a x 3, b, a
  EXPECT_EQ(r.runs()[0].count, 3u);
  EXPECT_EQ(r.runs()[1].item.bytes, 2048);
  EXPECT_EQ(r.runs()[2].count, 1u);
}

TEST(CollectiveRunner, BlockSplitGivesSplitBlocksOneAtATimeAndItsEqualStretches) {
  for (const auto& [total, parts, unit] : std::vector<std::tuple<int64_t, size_t, int64_t>>{
           {1000, 7, 4}, {4096, 8, 4}, {3, 5, 4}, {1 << 20, 96, 4}, {123457, 3, 1}, {10, 1, 4}}) {
    const std::vector<int64_t> list = split_blocks(total, parts, unit);
    const BlockSplit split(total, parts, unit);
    int64_t sum = 0;
    for (size_t i = 0; i < parts; ++i) {
      EXPECT_EQ(split[i], list[i]) << total << "/" << parts << " block " << i;
      sum += split[i];
      const size_t n = split.equal_below(i);
      ASSERT_GE(n, 1u);
      ASSERT_LE(n, i + 1);
      for (size_t k = 0; k < n; ++k) {
        EXPECT_EQ(list[i - k], list[i]) << total << "/" << parts << " from " << i;
      }
    }
    EXPECT_EQ(sum, total);
  }
}

TEST(CollectiveRunner, ARingRanksWorkTakesTheSameMemoryForAnyGroupSize) {
  // 8 GPUs per server; the rank's runners (one per channel) hold a run per distinct step, however many ranks.
  const auto runs_of_rank0 = [](uint32_t servers) {
    std::vector<RankPlace> ranks;
    for (uint32_t s = 0; s < servers; ++s) {
      for (uint32_t g = 0; g < 8; ++g) {
        ranks.push_back({s, g, s * 8 + g});
      }
    }
    GroupLayout layout(ranks);
    ProtocolParams p;
    p.slice = Bytes(256 * 1024);
    const auto ring = make_ring(layout, p);
    size_t runs = 0, items = 0;
    for (const Runner& r : ring->runners(0, {CollOp::kAllReduce, Bytes(int64_t{1} << 30), 0})) {
      runs += r.runs().size();
      items += r.size();
    }
    return std::pair{runs, items};
  };
  const auto [runs16, items16] = runs_of_rank0(2);
  const auto [runs2048, items2048] = runs_of_rank0(256);
  EXPECT_GT(items2048, items16);  // more steps of smaller blocks
  EXPECT_LE(runs2048, runs16 + 8 * 4);
}

// The collective messages of a run: those in flows.csv (output.flows: all) or summed in its groups.
struct Posted {
  double messages = 0, bytes = 0, delivered = 0, retransmits = 0, cnps = 0;
  size_t records = 0;
};
Posted posted(const std::vector<FlowRecord>& records) {
  Posted p;
  for (const FlowRecord& f : records) {
    p.messages += f.messages;
    p.bytes += static_cast<double>(f.spec.size.count());
    p.delivered += static_cast<double>(f.delivered);
    p.retransmits += static_cast<double>(f.retransmits);
    p.cnps += static_cast<double>(f.cnps);
    EXPECT_TRUE(f.done);
  }
  p.records = records.size();
  return p;
}

TEST(CollectiveRecords, TheEstimateBeforeTheRunCountsTheMessagesAndBytesItPosts) {
  for (const auto& [op, algo] : std::vector<std::pair<std::string, std::string>>{{"all_reduce", "ring"},
                                                                                 {"all_reduce", "tree"},
                                                                                 {"all_reduce", "halving_doubling"},
                                                                                 {"all_gather", "ring"},
                                                                                 {"broadcast", "ring"},
                                                                                 {"all_to_all", "ring"}}) {
    const std::string what = op + "/" + algo;
    auto sim = run_sim(kTwoDgx, {"workload.0.op=" + op, "workload.0.protocol.algorithm=" + algo,
                                 "workload.0.sizes=[3MiB, 3MiB, 256KiB]", "output.flows=all"});
    const Posted p = posted(sim->net().flows());
    const ExpectedTraffic& e = sim->net().expected();
    EXPECT_GT(p.messages, 0) << what;
    EXPECT_EQ(e.messages, p.messages) << what;
    EXPECT_EQ(e.bytes, p.bytes) << what;
    EXPECT_TRUE(sim->net().message_groups().empty()) << what;
  }
}

TEST(CollectiveRecords, AggregateRecordsSumToTheMessagesOfOneRecordEach) {
  // 2 servers on two leaves joined by one 400G spine link: 8 NICs a side share it, so DCQCN and PFC have work and
  // the counters that move with congestion must sum alike too.
  std::string yaml = kTwoDgx;
  yaml.replace(yaml.find("rail: true"), 10, "rail: false");
  yaml.replace(yaml.find("leaves: 8, servers_per_leaf: 2, spines: 2"), 41, "leaves: 2, servers_per_leaf: 1, spines: 1");
  const std::vector<std::string> base = {"workload.0.sizes=[8MiB, 2MiB]"};
  auto set = [&](const std::string& mode) {
    auto s = base;
    s.push_back("output.flows=" + mode);
    return s;
  };
  auto all = run_sim(yaml, set("all"));
  auto agg = run_sim(yaml, set("aggregate"));
  const Posted one = posted(all->net().flows());
  const Posted grouped = posted(agg->net().message_groups());
  EXPECT_TRUE(agg->net().flows().empty());
  EXPECT_EQ(grouped.messages, one.messages);
  EXPECT_EQ(grouped.bytes, one.bytes);
  EXPECT_EQ(grouped.delivered, one.delivered);
  EXPECT_EQ(grouped.retransmits, one.retransmits);
  EXPECT_EQ(grouped.cnps, one.cnps);
  EXPECT_GT(one.cnps, 0);
  // A record per call and queue pair that carried messages: no more than the estimate allows for.
  EXPECT_LT(grouped.records, one.records);
  EXPECT_LE(static_cast<double>(grouped.records), agg->net().expected().groups);
  // The collective's own results do not depend on how the records are kept.
  EXPECT_EQ(first_row(*all).time_us, first_row(*agg).time_us);
  // A group ends with its last message: the latest end is the latest completion of all.
  Time last_all, last_agg;
  for (const FlowRecord& f : all->net().flows()) last_all = std::max(last_all, f.end);
  for (const FlowRecord& f : agg->net().message_groups()) last_agg = std::max(last_agg, f.end);
  EXPECT_EQ(last_all, last_agg);
}

TEST(CollectiveInput, ASweepOfZeroBytesIsRefusedNotRunAtTheDefaultSize) {
  std::string yaml = kTwoDgx;
  yaml.replace(yaml.find("sizes: [512MiB]"), 15, "min_bytes: 0B, max_bytes: 0B");
  try {
    make_sim(yaml);
    FAIL() << "a sweep of 0 B was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "workload.0.max_bytes");
  }
}

TEST(CollectiveInput, BadGroupsAndSizesAreErrorsNamingTheKey) {
  for (const auto& [set, key] : std::vector<std::pair<std::string, std::string>>{
           {"workload.0.servers=[0, 5]", "workload.0.servers"},
           {"workload.0.servers=[1, 1]", "workload.0.servers"},
           {"workload.0.op=all_gather", "workload.0.sizes"},
           {"workload.0.root=16", "workload.0.root"},
           {"server.gpus=0", "workload.0.type"},
           {"workload.0.op=scan", "workload.0.op"},
           {"workload.0.protocol.algorithm=ring_of_fire", "workload.0.protocol.algorithm"}}) {
    try {
      make_sim(kTwoDgx, {set, set.find("all_gather") != std::string::npos ? "workload.0.sizes=[1000B]"
                                                                          : "workload.0.sizes=[1024B]"});
      FAIL() << set;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), key) << set;
    }
  }
  try {
    make_sim(kTwoDgx, {"workload.0.op=all_gather", "workload.0.protocol.algorithm=tree"});
    FAIL() << "tree all_gather";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "workload.0.protocol.algorithm");
  }
}

}  // namespace
}  // namespace rocesim
