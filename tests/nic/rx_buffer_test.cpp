#include "rocesim/nic/rx_buffer.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace rocesim {
namespace {

TEST(RxBuffer, HeadroomFollowsTheMlx5DriversIntegerFormula) {
  // (301 + 216 x 7 / 100) x speed / 1000 + 272 x MTU / 100, in the driver's integer arithmetic (7 m: 15 B/Gb/s).
  EXPECT_EQ(mlx5_rx_headroom(Rate::gbps(100), 7, 1500), Bytes(316 * 100 + 4080));
  EXPECT_EQ(mlx5_rx_headroom(Rate::gbps(400), 7, 9216), Bytes(316 * 400 + 25067));
  // Below 40 Gb/s the driver takes 40.
  EXPECT_EQ(mlx5_rx_headroom(Rate::gbps(25), 0, 1000), Bytes(301 * 40 + 2720));
}

TEST(RxBuffer, PausesAboveTheXoffPointAndResumesAtTheXonPoint) {
  RxBuffer b;
  b.configure(Bytes(100'000), Bytes(30'000), Bytes(9'216));  // XOFF above 70,000 B, XON at 60,784 B
  std::vector<Packet> frames(100);
  for (auto& p : frames) {
    p.frame = 1000;
  }
  for (int i = 0; i < 70; ++i) {
    ASSERT_TRUE(b.push(&frames[i], true));
  }
  EXPECT_FALSE(b.xoff());  // 70,000 B: at the XOFF point, not above it
  ASSERT_TRUE(b.push(&frames[70], true));
  EXPECT_TRUE(b.xoff());
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(b.pop(), &frames[i]);  // first in, first out
  }
  EXPECT_TRUE(b.xoff());  // 61,000 B
  b.pop();
  EXPECT_FALSE(b.xoff());  // 60,000 B, at or below 60,784
  EXPECT_EQ(b.max_bytes(), 71'000);
}

TEST(RxBuffer, LossyFramesStopAtTheXoffPointLosslessOnesAtTheSize) {
  RxBuffer b;
  b.configure(Bytes(10'000), Bytes(4'000), Bytes(1'000));
  std::vector<Packet> frames(12);
  for (auto& p : frames) {
    p.frame = 1000;
  }
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(b.push(&frames[i], false));
  }
  EXPECT_FALSE(b.push(&frames[6], false));  // 7,000 B would be above the XOFF point
  for (int i = 6; i < 10; ++i) {
    ASSERT_TRUE(b.push(&frames[i], true));  // the headroom is for lossless frames
  }
  EXPECT_FALSE(b.push(&frames[10], true));  // 11,000 B do not fit
  EXPECT_EQ(b.bytes(), 10'000);
}

}  // namespace
}  // namespace rocesim
