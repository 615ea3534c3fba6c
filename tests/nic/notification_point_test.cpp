// The NIC's notification point on its own (nic/notification_point.hpp): which CE marks a receive half answers with
// a CNP, for DCQCN's interval, InfiniBand's zero interval and a congestion control without CNPs.
#include "rocesim/nic/notification_point.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace rocesim {
namespace {

// The times, in microseconds, at which marks arriving at `marks_us` on one queue pair are answered.
std::vector<int64_t> answered(const NotificationPoint& np, const std::vector<int64_t>& marks_us) {
  NotificationPoint::QpState qp;
  std::vector<int64_t> out;
  for (int64_t t : marks_us) {
    if (np.on_ce(qp, Time::us(t))) {
      out.push_back(t);
    }
  }
  return out;
}

TEST(NotificationPoint, TheFirstMarkIsAnsweredAndThenAtMostOneCnpPerInterval) {
  // DCQCN with NVIDIA's default of 4 us: marks at 0..12 us every microsecond are answered at 0, 4, 8, 12.
  const NotificationPoint np(Time::us(4));
  EXPECT_EQ(answered(np, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}), (std::vector<int64_t>{0, 4, 8, 12}));
}

TEST(NotificationPoint, TheIntervalCountsFromTheLastCnpNotTheLastMark) {
  // A mark at 3 us is not answered and does not restart the interval: 5 us is 5 us after the CNP at 0.
  const NotificationPoint np(Time::us(4));
  EXPECT_EQ(answered(np, {0, 3, 5, 8, 9}), (std::vector<int64_t>{0, 5, 9}));
}

TEST(NotificationPoint, TheFirstMarkIsAnsweredBeforeOneIntervalHasPassedSinceTimeZero) {
  // The first CNP of a queue pair does not wait for an interval since time zero.
  const NotificationPoint np(Time::us(50));
  EXPECT_EQ(answered(np, {20, 60, 70, 71}), (std::vector<int64_t>{20, 70}));
}

TEST(NotificationPoint, QueuePairsAreLimitedEachOnItsOwn) {
  const NotificationPoint np(Time::us(4));
  NotificationPoint::QpState a, b;
  EXPECT_TRUE(np.on_ce(a, Time::us(10)));
  EXPECT_TRUE(np.on_ce(b, Time::us(11)));  // a's CNP at 10 us does not hold b back
  EXPECT_FALSE(np.on_ce(a, Time::us(12)));
  EXPECT_FALSE(np.on_ce(b, Time::us(14)));
  EXPECT_TRUE(np.on_ce(a, Time::us(14)));
}

TEST(NotificationPoint, AZeroIntervalAnswersEveryMark) {
  // InfiniBand congestion control: a BECN for every FECN, even two at one time.
  const NotificationPoint np(Time{});
  EXPECT_EQ(answered(np, {0, 0, 1, 2}), (std::vector<int64_t>{0, 0, 1, 2}));
}

TEST(NotificationPoint, ACongestionControlWithoutCnpsIsNeverAnswered) {
  const NotificationPoint np(std::nullopt);
  EXPECT_TRUE(answered(np, {0, 10, 100}).empty());
}

}  // namespace
}  // namespace rocesim
