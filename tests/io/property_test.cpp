// Random valid scenarios, each run twice, the second time cut into a random number of partitions on a random number
// of threads: the same results both times (flows, ports, NICs and the summary), every packet accounted for, no loss on
// a lossless priority with automatic headroom, no flow faster than its ideal, every flow in flows.csv. A few dozen in
// the test suite; ROCESIM_PROPERTY_RUNS=N runs N.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/engine/partitioner.hpp"
#include "rocesim/run/summary.hpp"

namespace rocesim {
namespace {
using namespace test;

// A scenario drawn from `rng`: topology kind and size, link rates, congestion control, MTU, ECN thresholds and
// where it marks, buffer, lossless priorities, switch latency, and a mix of workloads on priority 3.
std::string random_scenario(std::mt19937_64& rng) {
  const auto pick = [&](std::initializer_list<const char*> xs) {
    return std::string(*(xs.begin() + static_cast<std::ptrdiff_t>(rng() % xs.size())));
  };
  const auto between = [&](int lo, int hi) {
    return lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  const std::string host = pick({"25Gbps", "100Gbps", "400Gbps"});
  const std::string fabric = pick({"25Gbps", "100Gbps", "400Gbps"});
  const std::string links = "host_link: {rate: " + host + ", delay: " + pick({"500ns", "1us", "2us"}) +
                            "}, fabric_link: {rate: " + fabric + ", delay: 1us}";
  std::string topo;
  int hosts = 0;
  switch (rng() % 3) {
    case 0:
      hosts = between(2, 8);
      topo = "{type: star, hosts: " + std::to_string(hosts) + ", host_link: {rate: " + host + ", delay: 1us}}";
      break;
    case 1: {
      const int leaves = between(2, 4), per = between(1, 4);
      hosts = leaves * per;
      topo = "{type: leaf-spine, leaves: " + std::to_string(leaves) + ", spines: " + std::to_string(between(1, 2)) +
             ", servers_per_leaf: " + std::to_string(per) + ", " + links + "}";
      break;
    }
    default:
      hosts = 16;
      topo = "{type: fat-tree, k: 4, " + links + "}";
  }
  std::string y = "seed: " + std::to_string(rng() % 1000) + "\nstop: " + pick({"200us", "400us"}) +
                  "\ntopology: " + topo + "\nnic: {cc: " + pick({"none", "dcqcn", "hpcc", "dctcp"}) +
                  ", mtu: " + pick({"1024", "4096"}) + "}\nswitch: {buffer: " + pick({"4MB", "16MB", "32MB"}) +
                  ", latency: " + pick({"0ns", "300ns"}) + ", pfc: {priorities: " + pick({"[3]", "[3, 4]"}) +
                  "}, ecn: {kmin: " + pick({"20KB", "150KB"}) + ", kmax: " + pick({"200KB", "1500KB"}) +
                  ", at: " + pick({"enqueue", "dequeue"}) + "}}\nworkload:\n";
  const int receiver = between(0, hosts - 1);
  y += "  - {type: incast, receiver: " + std::to_string(receiver) +
       ", senders: " + std::to_string(between(1, std::min(hosts - 1, 6))) + ", size: " + pick({"10KB", "200KB"}) +
       "}\n";
  if (rng() % 2) {
    y += "  - {type: poisson, load: " + pick({"0.3", "0.6"}) + ", until: 100us}\n";
  }
  if (rng() % 2) {
    y += "  - {type: permutation, size: " + pick({"50KB", "1MB"}) + "}\n";
  }
  return y;
}

TEST(Property, RandomScenariosAreDeterministicConserveAndNeverBeatTheirIdeal) {
  const char* env = std::getenv("ROCESIM_PROPERTY_RUNS");
  const int runs = env ? std::atoi(env) : 30;
  std::mt19937_64 rng(20261202);
  std::mt19937_64 cut_rng(7);  // apart, so that the scenarios drawn stay the same
  int ran = 0;
  for (int i = 0; i < runs; ++i) {
    const std::string yaml = random_scenario(rng);
    SCOPED_TRACE(yaml);
    std::unique_ptr<Simulation> a, b;
    try {
      a = run_sim(yaml);
    } catch (const InputError& e) {  // a combination the fabric cannot hold (e.g. buffer under headroom): fine
      EXPECT_FALSE(std::string(e.what()).empty());
      if (std::getenv("ROCESIM_PROPERTY_VERBOSE")) {
        std::fprintf(stderr, "%s\n", e.what());
      }
      continue;
    }
    const std::vector<uint32_t> units = units_of(a->net().graph());
    const uint64_t most = std::min<uint64_t>(*std::max_element(units.begin(), units.end()) + 1, 8);
    const std::string parts = std::to_string(1 + cut_rng() % most), threads = std::to_string(1 + cut_rng() % 4);
    SCOPED_TRACE("engine.partitions=" + parts + ", engine.threads=" + threads);
    b = run_sim(yaml, {"engine.partitions=" + parts, "engine.threads=" + threads});
    ++ran;
    const std::string flows = flows_csv(a->net());
    EXPECT_EQ(flows, flows_csv(b->net())) << "not deterministic";
    EXPECT_EQ(ports_csv(a->net(), a->now()), ports_csv(b->net(), b->now()));
    EXPECT_EQ(nics_csv(a->net(), a->now()), nics_csv(b->net(), b->now()));
    const nlohmann::json s = summary_json(*a, RunInfo{});
    EXPECT_EQ(s.dump(), summary_json(*b, RunInfo{}).dump());
    EXPECT_TRUE(s["packets"]["conserved"].get<bool>());
    EXPECT_EQ(s["drops"]["lossless"].get<int64_t>(), 0);
    for (const FlowRecord& f : a->net().flows()) {
      if (f.done) {
        EXPECT_GE(f.end - f.spec.start, f.ideal_fct) << "flow " << f.spec.src << "->" << f.spec.dst;
      }
    }
    // One row per flow (and the header).
    EXPECT_EQ(static_cast<size_t>(std::count(flows.begin(), flows.end(), '\n')), a->net().flows().size() + 1);
  }
  EXPECT_GE(ran, runs * 2 / 3) << "most random scenarios should be valid";
}

}  // namespace
}  // namespace rocesim
