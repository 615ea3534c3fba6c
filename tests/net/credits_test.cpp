// InfiniBand credits (IBTA vol 1, 7.9): a sender sends only within the limit its peer advertised, in 64-byte
// blocks; the receiver returns credits once a batch has drained; the line-rate buffer follows its formula.
#include "rocesim/net/credits.hpp"

#include <gtest/gtest.h>

#include "rocesim/core/error.hpp"

namespace rocesim {
namespace {

TEST(Credits, AFrameTakesWholeSixtyFourByteBlocks) {
  EXPECT_EQ(credit_blocks(1), 1u);
  EXPECT_EQ(credit_blocks(64), 1u);
  EXPECT_EQ(credit_blocks(65), 2u);
  EXPECT_EQ(credit_blocks(1050), 17u);
}

TEST(Credits, ASenderSendsOnlyWithinTheAdvertisedLimitAndAWaitEndsWhenTheHeadFits) {
  CreditTx tx;
  tx.limit.fill(34);  // two 1050-byte frames
  EXPECT_TRUE(tx.fits(3, 1050));
  tx.on_sent(3, 1050);
  tx.on_sent(3, 1050);
  EXPECT_FALSE(tx.fits(3, 64));
  EXPECT_TRUE(tx.fits(2, 1050));  // each VL has its own credits
  tx.hold(1u << 3, Time::ns(100));
  tx.on_credit(3, 34 + 10, 1050, Time::ns(150));  // 10 blocks back: not yet room for the head
  EXPECT_EQ(tx.waited_until(3, Time::ns(200)), Time::ns(100));
  tx.on_credit(3, 34 + 17, 1050, Time::ns(250));
  EXPECT_TRUE(tx.fits(3, 1050));
  EXPECT_EQ(tx.waited_until(3, Time::ns(900)), Time::ns(150));
}

TEST(Credits, CountersWrapAroundLikeTheSpecsModularOnes) {
  CreditTx tx;
  tx.sent[0] = 0xFFFFFFF0u;
  tx.limit[0] = 0xFFFFFFF0u + 20;  // wraps past zero
  EXPECT_TRUE(tx.fits(0, 20 * 64));
  EXPECT_FALSE(tx.fits(0, 21 * 64));
}

TEST(Credits, TheReceiverReturnsCreditsOnceABatchHasDrainedAndAdvertisesFreedPlusBuffer) {
  CreditRx rx;
  rx.cfg = {100, 20};
  EXPECT_TRUE(rx.take(0, 64 * 60));
  EXPECT_FALSE(rx.take(0, 64 * 41));  // beyond the buffer: counted as an overflow
  EXPECT_EQ(rx.overflows, 1);
  EXPECT_FALSE(rx.release(0, 64 * 19));
  EXPECT_TRUE(rx.release(0, 64 * 1));
  EXPECT_EQ(rx.advertise(0), 100u + 20u);
  EXPECT_FALSE(rx.release(0, 64 * 5));
}

TEST(Credits, LineRateBufferIsTheFramesOfACreditRoundTripInWholeBlocksPlusTheBatch) {
  // 100 Gb/s, 1 us cable, 1050-byte frames (1052 on the wire: 84.16 ns), flow control packet 8 bytes (0.64 ns):
  // RTT = 2000 + 3 x 84.16 + 0.64 = 2253.12 ns, 27 frames of 17 blocks.
  EXPECT_EQ(credit_buffer_needed(Rate::gbps(100), Time::us(1), Time(), Bytes(1050), Bytes(64)),
            Bytes(27 * 17 * 64 + 64));
  // A switch's latency adds to the round trip: 300 ns more is 4 frames more (2553.12 / 84.16 = 30.3).
  EXPECT_EQ(credit_buffer_needed(Rate::gbps(100), Time::us(1), Time::ns(300), Bytes(1050), Bytes(0)),
            Bytes(31 * 17 * 64));
}

TEST(Credits, AutoBufferIsTwiceTheLeastAndABatchThatStarvesTheSenderIsRefused) {
  InfinibandParams p{"auto", "auto", Bytes(), 0};
  const CreditConfig c = credit_config(p, Rate::gbps(100), Time::us(1), Time(), Bytes(1050), "t.yaml");
  const uint32_t least =
      credit_blocks(credit_buffer_needed(Rate::gbps(100), Time::us(1), Time(), Bytes(1050), Bytes(0)).count());
  EXPECT_GE(c.buffer_blocks - c.batch_blocks, 2 * least - 1);
  EXPECT_EQ(c.batch_blocks, c.buffer_blocks / 8);
  InfinibandParams bad{"4KB", "4KB", Bytes(), 0};
  try {
    credit_config(bad, Rate::gbps(100), Time::us(1), Time(), Bytes(1050), "t.yaml");
    FAIL() << "a batch as large as the buffer was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("infiniband.credit_batch"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rocesim
