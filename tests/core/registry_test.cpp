#include "rocesim/core/registry.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "rocesim/cc/cc.hpp"
#include "rocesim/collective/algorithm.hpp"
#include "rocesim/switch/buffer.hpp"
#include "rocesim/switch/ecn.hpp"
#include "rocesim/topology/topology.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {

using Factory = std::function<int()>;

Registered<Factory> entry(const std::string& name, int value) {
  return {name, "returns " + std::to_string(value), [value] { return value; }, {}};
}

TEST(Registry, ListsItsImplementationsByNameWhateverOrderTheyRegisteredIn) {
  Registry<Factory> r("test.kind", "b");
  const Registrar<Factory> c(r, entry("c", 3));
  const Registrar<Factory> a(r, entry("a", 1));
  const Registrar<Factory> b(r, entry("b", 2));
  EXPECT_EQ(r.names(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(r.find("c")->make(), 3);
  EXPECT_EQ(r.find("d"), nullptr);
}

TEST(Registry, ASecondRegistrationOfANameIsRefused) {
  Registry<Factory> r("test.kind", "");
  const Registrar<Factory> first(r, entry("a", 1));
  EXPECT_THROW(Registrar<Factory>(r, entry("a", 2)), std::logic_error);
  EXPECT_EQ(r.find("a")->make(), 1);
}

TEST(Registry, EveryImplementationFileRegisteredItselfBeforeMain) {
  // One name from each file that registers, in registries of several layers: a linker that dropped a file's
  // registrar would leave its name out.
  for (const char* n : {"none", "dcqcn", "dcqcn-paper", "hpcc", "dctcp", "timely", "ib-cca"}) {
    EXPECT_NE(cc_registry().find(n), nullptr) << n;
  }
  for (const char* n : {"red", "none"}) {
    EXPECT_NE(ecn_registry().find(n), nullptr) << n;
  }
  for (const char* n : {"dynamic", "static"}) {
    EXPECT_NE(buffer_admission_registry().find(n), nullptr) << n;
  }
  for (const char* n : {"star", "leaf-spine", "fat-tree", "file", "hpcc"}) {
    EXPECT_NE(topology_registry().find(n), nullptr) << n;
  }
  for (const char* n : {"ring", "tree", "halving_doubling"}) {
    EXPECT_NE(collective_algorithm_registry().find(n), nullptr) << n;
  }
  EXPECT_EQ(workload_registry().names().size(), 9u);
}

}  // namespace
}  // namespace rocesim
