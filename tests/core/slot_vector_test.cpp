// core/slot_vector.hpp: indices that stay valid while their element is in use, and slots reused.
#include "rocesim/core/slot_vector.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace rocesim {
namespace {

TEST(SlotVector, IndicesNameTheirElementsUntilReleasedThenTheLastReleasedIsReusedFirst) {
  SlotVector<int> v;
  const uint32_t a = v.put(10), b = v.put(20), c = v.put(30);
  EXPECT_EQ(v[a], 10);
  EXPECT_EQ(v[b], 20);
  EXPECT_EQ(v[c], 30);
  v.release(a);
  EXPECT_EQ(v.take(c), 30);
  EXPECT_EQ(v.put(40), c);  // the most recently freed slot first
  EXPECT_EQ(v.put(50), a);
  EXPECT_EQ(v[b], 20);       // untouched by the others' reuse
  EXPECT_EQ(v.put(60), 3u);  // none free: a new slot
}

TEST(SlotVector, AnAcquiredSlotKeepsTheStorageItsElementHadWhenReleased) {
  SlotVector<std::vector<int>> v;
  const uint32_t s = v.acquire();
  v[s].assign(100, 7);
  const int* storage = v[s].data();
  v.release(s);
  const uint32_t again = v.acquire();
  ASSERT_EQ(again, s);
  v[again].assign(50, 1);  // fits the kept capacity: no new allocation
  EXPECT_EQ(v[again].data(), storage);
}

}  // namespace
}  // namespace rocesim
