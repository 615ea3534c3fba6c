// Building the network from a topology graph: each node by its kind.
#include <gtest/gtest.h>

#include <string>

#include "rocesim/core/error.hpp"
#include "rocesim/io/scenario.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {
namespace {

TEST(Network, ANodeOfAKindItCannotBuildIsAnInputErrorNotASwitch) {
  Scenario sc = parse_scenario("topology: {type: star, hosts: 2}\n", "t.yaml", ".", {});
  ASSERT_EQ(sc.graph.nodes.back().kind, NodeKind::kSwitch);  // switch0, after the hosts
  sc.graph.nodes.back().kind = static_cast<NodeKind>(7);     // a kind added to the enumeration but not to the builder
  try {
    Simulation s(std::move(sc));
    FAIL() << "built a node of an unknown kind";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "topology");
    EXPECT_NE(std::string(e.what()).find("'switch0' is of a kind this network cannot build"), std::string::npos)
        << e.what();
  }
}

TEST(Network, EveryKindOfTheGraphBecomesItsNode) {
  Simulation s(parse_scenario("topology: {type: star, hosts: 3}\n", "t.yaml", ".", {}));
  EXPECT_EQ(s.net().nics().size(), 3u);
  EXPECT_EQ(s.net().switches().size(), 1u);
}

}  // namespace
}  // namespace rocesim
