// Nodes: observers of a port are a list; each sees every frame, and removing one leaves the others.
#include <gtest/gtest.h>

#include "../test_util.hpp"

namespace rocesim {
namespace {
struct Counter final : FrameTap {
  int64_t frames = 0;
  void on_frame(Time, const Packet&) override { ++frames; }
};
}  // namespace

TEST(Node, EveryTapOnAPortSeesEveryFrame) {
  auto s = test::make_sim("topology: {type: star, hosts: 2}\nnic: {cc: none, mtu: 1024}\n");
  Network& net = s->net();
  net.add_flow(test::write_flow(0, 1, Bytes(10'240)));
  Counter a, b, gone;
  net.nic(0).add_tap(0, &a);
  net.nic(0).add_tap(0, &gone);
  net.nic(0).add_tap(0, &b);
  net.nic(0).remove_tap(0, &gone);
  s->run();
  EXPECT_EQ(a.frames, 10);  // 10 data packets of 1024 B; the NIC sends no ACKs for its own WRITE
  EXPECT_EQ(b.frames, 10);
  EXPECT_EQ(gone.frames, 0);
}

}  // namespace rocesim
