// Traffic generators against their definitions, and the slowdown analysis.
#include "rocesim/workload/workload.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/analysis/timeseries.hpp"
#include "rocesim/workload/cdf.hpp"

namespace rocesim {
namespace {

WorkloadFlows generate(const std::string& yaml, uint32_t hosts, Time stop, uint64_t seed = 1) {
  WorkloadContext wc{hosts, stop, ".", std::vector<Rate>(hosts, Rate::gbps(100)), {}, {}, {}};
  Rng rng(seed, "workload.0");
  return generate_workload(YAML::Load(yaml), ParseCtx{"t.yaml"}, "workload.0", wc, rng);
}

}  // namespace

TEST(Cdf, MeansMatchThePublishedSummary) {
  // means under the linear interpolation of HPCC's traffic_gen/custom_rand.py.
  const std::map<std::string, double> mean{
      {"websearch", 1'711'250}, {"fb_hadoop", 120'421}, {"alistorage2019", 40'870}, {"googlerpc2008", 2'892}};
  for (const auto& [name, m] : mean) {
    EXPECT_NEAR(FlowSizeCdf::load(name, ".").mean(), m, 1.0) << name;
  }
  // And the medians: 73,077 B (WebSearch), 700 B (FbHdp).
  EXPECT_NEAR(FlowSizeCdf::load("websearch", ".").quantile(0.5), 73'077, 1);
  EXPECT_NEAR(FlowSizeCdf::load("fb_hadoop", ".").quantile(0.5), 700, 1e-9);
}

TEST(Cdf, BadFilesAndNamesAreRejected) {
  EXPECT_THROW(FlowSizeCdf::load("websurch", "."), UnitError);
  EXPECT_THROW(FlowSizeCdf({{0, 0}, {100, 50}}), UnitError);             // does not reach 100 %
  EXPECT_THROW(FlowSizeCdf({{0, 0}, {100, 60}, {50, 100}}), UnitError);  // sizes decrease
}

TEST(Poisson, OfferedLoadIsWithinTwoPercentOfTheTarget) {
  // 16 hosts at 100 Gb/s, load 0.5, 4 s: the target is 16 x 50 Gb/s x 4 s = 400 GB.
  const auto w = generate("{type: poisson, cdf: websearch, load: 0.5}", 16, Time::sec(4));
  double bytes = 0;
  for (const auto& f : w.flows) {
    bytes += static_cast<double>(f.size.count());
  }
  EXPECT_NEAR(bytes / 400e9, 1.0, 0.02) << w.flows.size() << " flows";
  // Per host, too (each host offers its own load): within 6 %.
  std::vector<double> per(16);
  for (const auto& f : w.flows) {
    per[f.src] += static_cast<double>(f.size.count());
  }
  for (double b : per) {
    EXPECT_NEAR(b / 25e9, 1.0, 0.06);
  }
}

TEST(Poisson, SizesFollowTheCdf) {
  // Kolmogorov-Smirnov: the largest gap between the empirical and the given CDF stays below the 0.1 % critical
  // value 1.95 / sqrt(n).
  for (const char* cdf : {"websearch", "fb_hadoop", "alistorage2019"}) {
    const auto w = generate(std::string("{type: poisson, load: 0.5, cdf: ") + cdf + "}", 8, Time::ms(400));
    std::vector<double> sizes;
    for (const auto& f : w.flows) {
      sizes.push_back(static_cast<double>(f.size.count()));
    }
    std::sort(sizes.begin(), sizes.end());
    const FlowSizeCdf c = FlowSizeCdf::load(cdf, ".");
    const double n = static_cast<double>(sizes.size());
    double d = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const double f = c.cdf(sizes[i] + 1);  // sizes are rounded down to whole bytes
      d = std::max({d, std::abs(f - static_cast<double>(i + 1) / n), std::abs(f - static_cast<double>(i) / n)});
    }
    EXPECT_LT(d, 1.95 / std::sqrt(n)) << cdf << " with " << sizes.size() << " flows";
    EXPECT_GT(sizes.size(), 1000u);
  }
}

TEST(Poisson, StopsAtUntilAndAtTheScenarioStop) {
  auto w = generate("{type: poisson, load: 0.5, until: 1ms}", 4, Time::ms(10));
  for (const auto& f : w.flows) {
    EXPECT_LT(f.start, Time::ms(1));
  }
  w = generate("{type: poisson, load: 0.5}", 4, Time::ms(2));
  for (const auto& f : w.flows) {
    EXPECT_LT(f.start, Time::ms(2));
    EXPECT_NE(f.src, f.dst);
  }
}

TEST(Permutation, IsADerangement) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const auto w = generate("{type: permutation, size: 1MB}", 37, Time::ms(1), seed);
    std::vector<int> hit(37);
    for (const auto& f : w.flows) {
      EXPECT_NE(f.src, f.dst);
      ++hit[f.dst];
    }
    EXPECT_EQ(std::count(hit.begin(), hit.end(), 1), 37);  // every host receives exactly once
  }
}

TEST(AllToAll, EveryPairOnceAndTheWindowHolds) {
  auto s = test::make_sim(R"(seed: 1
stop: 50ms
topology: {type: star, hosts: 6}
nic: {cc: none}
workload: [{type: all-to-all, size: 100KB, window: 1}]
)");
  s->run();
  const auto& flows = s->net().flows();
  ASSERT_EQ(flows.size(), 30u);
  std::map<std::pair<uint32_t, uint32_t>, int> pairs;
  std::map<uint32_t, std::vector<const FlowRecord*>> by_src;
  for (const auto& f : flows) {
    ++pairs[{f.spec.src, f.spec.dst}];
    by_src[f.spec.src].push_back(&f);
    EXPECT_TRUE(f.done);
  }
  EXPECT_EQ(pairs.size(), 30u);
  // Window 1: a host's messages run one after the other.
  for (const auto& [src, list] : by_src) {
    for (size_t k = 1; k < list.size(); ++k) {
      EXPECT_GE(list[k]->end, list[k - 1]->end);
    }
  }
}

TEST(FlowFile, MalformedRowsNameTheLine) {
  const auto err = [](const std::string& body) {
    std::istringstream in("src,dst,size,start,priority,operation\n" + body);
    try {
      read_flow_csv(in, "f.csv", 4);
    } catch (const InputError& e) {
      return std::to_string(e.line()) + " " + e.key();
    }
    return std::string("no error");
  };
  EXPECT_EQ(err("0,1,1MB,0us,3,write\n0,1,1MB\n"), "3 row");
  EXPECT_EQ(err("0,1,1XB,0us,3,write\n"), "2 size");
  EXPECT_EQ(err("0,9,1MB,0us,3,write\n"), "2 dst");
  EXPECT_EQ(err("0,0,1MB,0us,3,write\n"), "2 dst");
  EXPECT_EQ(err("0,1,1MB,soon,3,write\n"), "2 start");
  EXPECT_EQ(err("0,1,1MB,0us,8,write\n"), "2 priority");
}

TEST(FlowFile, AFlowAboveWhatThePsnsCarryExactlyIsRefusedOnItsLine) {
  // 2^53 + 1 B used to "complete" after one packet: the PSN count of its packets wrapped.
  const auto err = [](const std::string& size) {
    std::istringstream in("src,dst,size,start,priority,operation\n0,1,1MB,0us,3,write\n0,1," + size + ",0us,3,write\n");
    try {
      read_flow_csv(in, "f.csv", 4);
    } catch (const InputError& e) {
      return std::to_string(e.line()) + " " + e.key();
    }
    return std::string("no error");
  };
  EXPECT_EQ(err("9007199254740993B"), "3 size");
  EXPECT_EQ(err(std::to_string(kMaxFlowBytes + 1) + "B"), "3 size");
  EXPECT_EQ(err(std::to_string(kMaxFlowBytes) + "B"), "no error");
  // 2^39 B at the smallest MTU is 2^31 packets: half the 32-bit PSN space.
  EXPECT_EQ(kMaxFlowBytes / 256, int64_t{1} << 31);
}

TEST(Workloads, AFlowSizeAboveTheModelsLimitIsAnErrorNamingTheKey) {
  try {
    test::make_sim("topology: {type: star, hosts: 3}\nworkload: [{type: incast, receiver: 0, senders: 2, size: " +
                   std::to_string(int64_t{1} << 62) + "B}]\n");
    FAIL() << "a 2^62 B incast was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "workload.0.size");
    EXPECT_NE(e.problem().find("512 GiB"), std::string::npos) << e.what();
  }
}

TEST(FlowFile, EndpointsMayBeNamedByTheirNic) {
  std::istringstream in("src,dst,size,start,priority,operation\nhost0.nic1,3,1MB,0us,3,write\n");
  const auto flows = read_flow_csv(in, "f.csv", 4, {"host0.nic0", "host0.nic1", "host1.nic0", "host1.nic1"});
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].src, 1u);
  EXPECT_EQ(flows[0].dst, 3u);
  std::istringstream bad("src,dst,size,start,priority,operation\nhost0.nic1,host9,1MB,0us,3,write\n");
  try {
    read_flow_csv(bad, "f.csv", 4, {"host0.nic0", "host0.nic1", "host1.nic0", "host1.nic1"});
    FAIL() << "host9 was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "dst");
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(e.problem().find("no endpoint is named 'host9'"), std::string::npos) << e.problem();
  }
}

TEST(Analysis, OnAnIdleFabricEverySlowdownIsOne) {
  // Flows of many sizes, 2 ms apart so that none overlaps another, across a leaf-spine.
  auto s = test::make_sim(R"(seed: 4
stop: 100ms
topology: {type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 4}
nic: {cc: dcqcn, mtu: 1024}
)");
  int k = 0;
  for (int64_t size : {1, 100, 1024, 1025, 5000, 64'000, 1'000'000, 3'000'000}) {
    for (uint32_t src : {0u, 5u}) {
      FlowSpec f;
      f.src = src;
      f.dst = (src + 3) % 8;
      f.size = Bytes(size);
      f.start = Time::ms(2) * k++;
      s->net().add_flow(f);
    }
  }
  s->run();
  for (const auto& f : s->net().flows()) {
    ASSERT_TRUE(f.done);
    EXPECT_NEAR(slowdown(f.end - f.spec.start, f.ideal_fct), 1.0, 0.005) << f.spec.size.count() << " B";
  }
}

TEST(Analysis, SlowdownBucketsSplitBySize) {
  auto s = test::make_sim("topology: {type: star, hosts: 4}\nnic: {cc: none}\n");
  for (int64_t size : {500, 5'000, 50'000, 500'000}) {
    FlowSpec f;
    f.src = 1;
    f.dst = 0;
    f.size = Bytes(size);
    f.start = Time::ms(1) * static_cast<int64_t>(s->net().flows().size());
    s->net().add_flow(f);
  }
  s->run();
  const auto b = slowdown_by_size(s->net(), parse_bucket_edges("1KB, 10KB, 100KB"), Time());
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].hi, 1000);
  EXPECT_EQ(b[3].hi, -1);
  for (const auto& x : b) {
    EXPECT_EQ(x.flows, 1u);
    EXPECT_NEAR(x.p99, 1.0, 0.01);
  }
  EXPECT_THROW(parse_bucket_edges("10KB, 1KB"), UnitError);
}

TEST(TimeSeries, SamplesTheReceiversPortAtLineRate) {
  auto s = test::make_sim(R"(seed: 1
stop: 2ms
topology: {type: star, hosts: 4}
nic: {cc: none, mtu: 4096}
workload: [{type: incast, receiver: 0, senders: 3, size: 2MB}]
output: {timeseries: {interval: 20us, ports: "switch0:0", flows: [0]}}
)");
  s->run();
  ASSERT_NE(s->output<TimeSeries>(), nullptr);
  std::istringstream in(s->output<TimeSeries>()->csv());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "t_ns,entity,metric,value");
  int busy = 0, samples = 0;
  double sum = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::stringstream ls(line);
    std::string x;
    while (std::getline(ls, x, ',')) {
      c.push_back(x);
    }
    ASSERT_EQ(c.size(), 4u) << line;
    EXPECT_EQ(std::stoll(c[0]) % 20'000, 0);
    if (c[1] == "switch0:0" && c[2] == "tx_gbps" && std::stoll(c[0]) >= 40'000 && std::stoll(c[0]) <= 400'000) {
      // 6 MB through one 100 Gb/s port takes ~490 us; in the middle it sends frames at line rate less the
      // preamble and gap: 100 x 4174 / 4194 = 99.5 Gb/s. A 20 us sample holds 59 or 60 frames, so one sample is
      // within 2 Gb/s of that, and their mean within 0.5.
      EXPECT_NEAR(std::stod(c[3]), 99.5, 2.0) << line;
      sum += std::stod(c[3]);
      ++busy;
    }
    ++samples;
  }
  EXPECT_GE(busy, 15);
  EXPECT_NEAR(sum / busy, 99.5, 0.5);
  EXPECT_GT(samples, 50);
}

}  // namespace rocesim
