// The incast workload's senders (a number drawn at random, a list, or the receiver's rail), and the warning for
// a receiver offered more than its link rate.
#include <gtest/gtest.h>

#include <set>

#include "../test_util.hpp"

namespace rocesim {
namespace {

std::set<uint32_t> senders(const Simulation& s) {
  std::set<uint32_t> out;
  for (const FlowRecord& f : s.net().flows()) {
    out.insert(f.spec.src);
  }
  return out;
}

// 4 leaves in 2 rail groups, 2 NICs per server, 4 servers a group: NIC k of server s is endpoint 2s + k.
const char* kRails =
    "stop: 10ms\ntopology: {type: leaf-spine, leaves: 4, spines: 2, servers_per_leaf: 4, nics_per_host: 2, rail: "
    "true}\n";

TEST(Incast, AListOfSendersIsTakenAsGiven) {
  auto s = test::make_sim(std::string(kRails) +
                          "workload: [{type: incast, receiver: 3, senders: [1, 5, 12], size: 10KB, repeat: 2}]\n");
  EXPECT_EQ(senders(*s), (std::set<uint32_t>{1, 5, 12}));
  EXPECT_EQ(s->net().flows().size(), 6u);  // two rounds
  EXPECT_EQ(s->resolved()["workload"][0]["senders"], (std::vector<int>{1, 5, 12}));
}

TEST(Incast, SameRailDrawsTheReceiversNicIndexOnOtherServers) {
  // Receiver: endpoint 3, NIC 1 of server 1. Its rail: NIC 1 of servers 0, 2..7 (odd endpoints but 3).
  auto s = test::make_sim(std::string(kRails) +
                          "workload: [{type: incast, receiver: 3, senders: 7, same_rail: true, size: 10KB}]\n");
  const std::set<uint32_t> from = senders(*s);
  EXPECT_EQ(from, (std::set<uint32_t>{1, 5, 7, 9, 11, 13, 15}));
  // On this rail-optimised fabric those NICs sit on leaf1 and leaf3, the receiver's rail leaves.
  for (uint32_t h : from) {
    const std::string leaf = s->net().attachment(h).first->name();
    EXPECT_TRUE(leaf == "leaf1" || leaf == "leaf3") << h << " on " << leaf;
  }
}

TEST(Incast, BadSendersNameTheKey) {
  const auto key_of = [](const std::string& workload) {
    try {
      test::make_sim(std::string(kRails) + "workload: [" + workload + "]\n");
    } catch (const InputError& e) {
      return e.key() + ": " + e.problem();
    }
    return std::string("no error");
  };
  EXPECT_EQ(key_of("{type: incast, receiver: 3, senders: [1, 3]}"), "workload.0.senders: host 3 is the receiver");
  EXPECT_EQ(key_of("{type: incast, receiver: 3, senders: [1, 1]}"), "workload.0.senders: host 1 is listed twice");
  EXPECT_EQ(key_of("{type: incast, receiver: 3, senders: [16]}"), "workload.0.senders: host 16 does not exist (0..15)");
  EXPECT_EQ(key_of("{type: incast, receiver: 3, senders: 8, same_rail: true}"),
            "workload.0.senders: 8 senders, but only 7 other NICs are on the receiver's rail");
  EXPECT_EQ(key_of("{type: incast, receiver: 3, senders: 0}"), "workload.0.senders: must be at least 1");
  EXPECT_EQ(key_of("{type: incast, receiver: 3, senders: [1], same_rail: true}").substr(0, 20), "workload.0.same_rail");
}

TEST(OfferedLoad, AReceiverOfferedMoreThanItsLinkIsWarnedOf) {
  // 3 x 1 MB to host0 in 100 us: 24 Mb against 100 Gb/s x 100 us = 10 Mb, 240 %.
  auto s = test::make_sim(
      "stop: 100us\ntopology: {type: star, hosts: 4, host_link: {rate: 100Gbps}}\n"
      "workload: [{type: incast, receiver: 0, senders: 3, size: 1MB}]\n");
  ASSERT_EQ(s->warnings().size(), 1u);
  EXPECT_NE(s->warnings()[0].find("workload.0 offers host0 (endpoint 0) 240 % of its 100Gbps link"), std::string::npos)
      << s->warnings()[0];
  // A stop that leaves room: 24 Mb in 1 ms is 24 %.
  EXPECT_TRUE(test::make_sim("stop: 1ms\ntopology: {type: star, hosts: 4, host_link: {rate: 100Gbps}}\n"
                             "workload: [{type: incast, receiver: 0, senders: 3, size: 1MB}]\n")
                  ->warnings()
                  .empty());
}

}  // namespace
}  // namespace rocesim
