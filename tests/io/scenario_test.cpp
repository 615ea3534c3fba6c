// Reading scenarios: input that is wrong in ways a parser would let through is an error naming file, line, key.
#include <gtest/gtest.h>

#include "../test_util.hpp"

namespace rocesim {
namespace {
using namespace test;

InputError error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    make_sim(yaml, sets);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for:\n" << yaml;
  return InputError("", 0, "", "");
}

TEST(ScenarioInput, AKeyGivenTwiceIsAnErrorNamingBothLines) {
  InputError e = error_of("stop: 1ms\nseed: 1\nstop: 2ms\ntopology: {type: star, hosts: 2}\n");
  EXPECT_EQ(e.key(), "stop");
  EXPECT_EQ(e.line(), 3);
  EXPECT_NE(e.problem().find("lines 1 and 3"), std::string::npos) << e.what();
  e = error_of("topology: {type: star, hosts: 2}\nnic:\n  mtu: 1024\nnic:\n  cc: none\n");
  EXPECT_EQ(e.key(), "nic");
  e = error_of("topology: {type: star, hosts: 2, hosts: 3}\n");
  EXPECT_EQ(e.key(), "topology.hosts");
  // In an override's value too.
  e = error_of("topology: {type: star, hosts: 2}\n", {"workload=[{type: incast, size: 1KB, size: 2KB}]"});
  EXPECT_EQ(e.key(), "workload.0.size");
}

}  // namespace
}  // namespace rocesim
