// A mutation fuzzer for the input readers: the example scenarios and the HPCC fixtures, mutated (bytes changed,
// spans deleted, lines repeated, numbers made extreme), must each either load or fail with one InputError: never
// another exception, a crash or (under the sanitizers CI runs this with) a memory error. The fuzzing audit's
// inputs are the named regression tests beside this file (scenario_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "../test_util.hpp"
#include "rocesim/topology/topology.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string mutate(std::string s, std::mt19937_64& rng) {
  const auto at = [&]() { return s.empty() ? 0 : static_cast<size_t>(rng() % s.size()); };
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 5) {
      case 0:  // a byte changed
        if (!s.empty()) {
          s[at()] = static_cast<char>(rng() % 256);
        }
        break;
      case 1: {  // a span deleted
        const size_t i = at();
        s.erase(i, rng() % 16);
        break;
      }
      case 2: {  // a line repeated
        const size_t i = s.rfind('\n', at());
        const size_t from = i == std::string::npos ? 0 : i + 1;
        const size_t to = s.find('\n', from);
        const std::string line = s.substr(from, to == std::string::npos ? std::string::npos : to - from + 1);
        s.insert(from, line);
        break;
      }
      case 3: {  // a number made extreme
        static const char* kExtreme[] = {"0", "-1", "4294967296", "1e308", "9223372036854775807", "0.0000001", "nan"};
        const size_t i = s.find_first_of("0123456789", at());
        if (i != std::string::npos) {
          const size_t j = s.find_first_not_of("0123456789.", i);
          s.replace(i, (j == std::string::npos ? s.size() : j) - i, kExtreme[rng() % 7]);
        }
        break;
      }
      default:  // structure characters inserted
        s.insert(at(), std::string(1, "{}[]:,-\"'&*!|>#%@`\t\n"[rng() % 20]));
    }
  }
  return s;
}

// ROCESIM_FUZZ_RUNS: mutants per seed (default 12).
int mutants() {
  const char* env = std::getenv("ROCESIM_FUZZ_RUNS");
  return env ? std::atoi(env) : 12;
}

TEST(Fuzz, MutatedScenariosLoadOrFailWithOneInputError) {
  std::mt19937_64 rng(1);
  int seeds = 0, loaded = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(ROCESIM_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() != ".yaml") {
      continue;
    }
    const std::string text = slurp(e.path());
    ++seeds;
    for (int i = 0; i < mutants(); ++i) {
      const std::string m = mutate(text, rng);
      try {
        Simulation s(parse_scenario(m, e.path().string(), std::string(ROCESIM_SOURCE_DIR) + "/scenarios", {}));
        ++loaded;
      } catch (const InputError&) {
      } catch (const std::exception& x) {
        ADD_FAILURE() << e.path() << ": " << x.what() << "\n---\n" << m;
      }
    }
  }
  EXPECT_GE(seeds, 10);
  EXPECT_GT(loaded, 0);  // some mutants stay valid: the fuzzer reaches past the first check
}

TEST(Fuzz, MutatedHpccTopologiesAndFlowFilesLoadOrFailWithOneInputError) {
  const std::string topo = "4 1 3\n3\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n2 3 100Gbps 1000ns 0\n";
  const std::string flows = "3\n0 2 3 100 10000 2.0\n1 2 3 100 20000 2.000001\n0 1 3 100 5000 2.5\n";
  std::mt19937_64 rng(2);
  for (int i = 0; i < mutants() * 20; ++i) {
    std::istringstream t(mutate(topo, rng)), f(mutate(flows, rng));
    try {
      read_hpcc_topology(t, "topology.txt");
    } catch (const InputError&) {
    } catch (const std::exception& x) {
      ADD_FAILURE() << "topology: " << x.what();
    }
    try {
      read_hpcc_flows(f, "flow.txt", {0, 1, 2, -1});
    } catch (const InputError&) {
    } catch (const std::exception& x) {
      ADD_FAILURE() << "flows: " << x.what();
    }
  }
}

TEST(Fuzz, MutatedFlowCsvsLoadOrFailWithOneInputError) {
  const std::string csv = slurp(std::string(ROCESIM_SOURCE_DIR) + "/scenarios/data/bounce-flows.csv") +
                          "host1,host2,1.5MB,2.5us,3,read\n0,1,64KiB,1ms,0,send\n";
  const std::vector<std::string> names = {"host0", "host1", "host2", "host3", "host4", "host5", "host6", "host7"};
  std::mt19937_64 rng(3);
  int loaded = 0;
  for (int i = 0; i < mutants() * 20; ++i) {
    std::istringstream in(mutate(csv, rng));
    try {
      read_flow_csv(in, "flows.csv", 8, names);
      ++loaded;
    } catch (const InputError&) {
    } catch (const std::exception& x) {
      ADD_FAILURE() << "flows.csv: " << x.what();
    }
  }
  EXPECT_GT(loaded, 0);
}

}  // namespace
}  // namespace rocesim
