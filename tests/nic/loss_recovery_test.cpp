// Loss recovery of RC queue pairs on a lossy fabric (nic.loss_recovery): IRN against go-back-N on the same incast,
// and the inputs IRN does not take.
#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/io/scenario.hpp"

namespace rocesim {
namespace {

// 15 senders x 2 MB into one host at 100 Gb/s on priority 0, which PFC leaves lossy: the receiver's switch port
// overflows its buffer and drops (Mittal et al.'s case for IRN: RoCE without PFC).
constexpr const char* kLossyIncast = R"(
seed: 1
stop: 500ms
topology:
  type: leaf-spine
  leaves: 2
  spines: 2
  servers_per_leaf: 8
  host_link: {rate: 100Gbps, delay: 1us}
  fabric_link: {rate: 100Gbps, delay: 1us}
switch:
  buffer: 4MB
  pfc: {priorities: [3]}
  ecn: {kmin: 100KB, kmax: 400KB, pmax: 0.2}
nic:
  cc: dcqcn
  mtu: 1024
workload:
  - {type: incast, receiver: 0, senders: 15, size: 2MB, priority: 0}
)";

struct Outcome {
  int64_t drops = 0, retransmits = 0, unfinished = 0;
  Time last_end;
};

Outcome run(const std::vector<std::string>& sets) {
  auto s = test::run_sim(kLossyIncast, sets);
  Outcome o;
  o.drops = test::all_drops(s->net());
  o.unfinished = test::unfinished(s->net());
  for (const FlowRecord& f : s->net().flows()) {
    o.retransmits += f.retransmits;
    o.last_end = std::max(o.last_end, f.end);
  }
  return o;
}

}  // namespace

TEST(LossRecovery, IrnLosesPacketsOnALossyIncastAndStillFinishesEveryFlowSoonerThanGoBackN) {
  const Outcome irn = run({"nic.loss_recovery=irn"});
  const Outcome gbn = run({});
  EXPECT_GT(irn.drops, 0);
  EXPECT_EQ(irn.unfinished, 0);
  // Each loss costs IRN about one packet again (a timeout may resend a few that were only late); go-back-N
  // resends everything after each loss.
  EXPECT_LT(irn.retransmits, 2 * irn.drops);
  EXPECT_EQ(gbn.unfinished, 0);
  EXPECT_GT(gbn.retransmits, 10 * irn.retransmits);
  EXPECT_GT(gbn.last_end, irn.last_end * 2);
}

TEST(LossRecovery, IrnOnInfinibandIsAnInputError) {
  try {
    test::make_sim(kLossyIncast, {"fabric=infiniband", "nic.loss_recovery=irn"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "nic.loss_recovery");
    EXPECT_NE(std::string(e.what()).find("InfiniBand"), std::string::npos);
  }
}

TEST(LossRecovery, ABadBdpCapOrModeIsAnInputErrorAtItsKey) {
  for (const char* set : {"nic.irn_bdp_cap=0", "nic.irn_bdp_cap=lots", "nic.loss_recovery=selective"}) {
    try {
      test::make_sim(kLossyIncast, {set});
      FAIL() << set;
    } catch (const InputError& e) {
      const std::string key = std::string(set).substr(0, std::string(set).find('='));
      EXPECT_EQ(e.key(), key) << set;
    }
  }
}

}  // namespace rocesim
