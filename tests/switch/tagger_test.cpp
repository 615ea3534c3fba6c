#include "rocesim/switch/tagger.hpp"

#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/switch/switch.hpp"

namespace rocesim {
namespace {

TEST(Tagger, EachRungMovesToTheNextAndTheLastToTheLossyPriority) {
  TaggerParams p;
  p.priorities = {3, 4};
  p.lossy = 1;
  TagTable t;
  EXPECT_EQ(t.build(p, parse_dscp_map("0:0, 8:1, 26:3, 32:4, 34:4, 48:6")), -1);
  EXPECT_TRUE(t.active);
  EXPECT_EQ(t.next[3], 4);
  EXPECT_EQ(t.next[4], 1);
  EXPECT_EQ(t.next[0], 0);  // off the ladder: stays
  EXPECT_EQ(t.next[6], 6);
  EXPECT_EQ(t.dscp[4], 32);  // the smallest DSCP that maps to the new priority
  EXPECT_EQ(t.dscp[1], 8);
}

TEST(Tagger, AnEmptyLadderIsOffAndMovesNothing) {
  TagTable t;
  EXPECT_EQ(t.build(TaggerParams{}, parse_dscp_map("26:3")), -1);
  EXPECT_FALSE(t.active);
  for (int c = 0; c < 8; ++c) {
    EXPECT_EQ(t.next[c], c);
  }
}

TEST(Tagger, APriorityNoDscpMapsToIsReported) {
  TaggerParams p;
  p.priorities = {3, 5};
  TagTable t;
  EXPECT_EQ(t.build(p, parse_dscp_map("0:0, 26:3")), 5);
}

std::string input_error_key(const std::string& yaml) {
  try {
    test::make_sim(yaml);
  } catch (const InputError& e) {
    return e.key();
  }
  return "no error";
}

TEST(Tagger, LadderOfLossyPrioritiesOrALosslessOverflowIsBadInput) {
  const std::string topo = "topology: {type: star, hosts: 2}\n";
  EXPECT_EQ(input_error_key(topo + "switch: {pfc: {priorities: [3], tagger: {priorities: [3, 4]}}}\n"),
            "switch.pfc.tagger.priorities");
  EXPECT_EQ(input_error_key(topo + "switch: {pfc: {priorities: [3, 4], tagger: {priorities: [3], lossy: 4}}}\n"),
            "switch.pfc.tagger.lossy");
  EXPECT_EQ(input_error_key(topo + "switch: {pfc: {priorities: [3, 4], tagger: {priorities: [3, 3]}}}\n"),
            "switch.pfc.tagger.priorities");
  EXPECT_EQ(input_error_key(
                topo + "switch: {dscp_map: '0:0, 26:3', pfc: {priorities: [3, 4], tagger: {priorities: [3, 4]}}}\n"),
            "switch.pfc.tagger.priorities");
  EXPECT_EQ(input_error_key(topo + "switch: {pfc: {priorities: [3, 4], tagger: {priorities: [3, 4]}}}\n"), "no error");
}

}  // namespace
}  // namespace rocesim
