// The memory limit a run is held to: the least of the machine's memory, ulimit -v / -d, and the control group's
// limit (a container's or a Slurm job's), so that a run that cannot fit is refused before it starts.
#include "rocesim/core/memory.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../test_util.hpp"

namespace rocesim {
namespace {

namespace fs = std::filesystem;

class CgroupFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("rocesim_cgroup_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const fs::path& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  MemorySources sources() const {
    return {(root_ / "cgroup").string(), (root_ / "sys").string(), (root_ / "status").string()};
  }
  fs::path root_;
};

TEST_F(CgroupFiles, TheTightestGroupOnThePathLessWhatItUsesIsTheLimit) {
  write("cgroup", "0::/slurm/job7/step0\n");
  write("sys/slurm/memory.max", "max\n");
  write("sys/slurm/job7/memory.max", "4000000000\n");
  write("sys/slurm/job7/memory.current", "1000000000\n");
  write("sys/slurm/job7/step0/memory.max", "max\n");
  const auto limit = cgroup_memory_limit(sources());
  ASSERT_TRUE(limit.has_value());
  EXPECT_DOUBLE_EQ(limit->bytes, 3e9);
  EXPECT_NE(limit->source.find("slurm/job7"), std::string::npos) << limit->source;
}

TEST_F(CgroupFiles, VersionOneMemoryControllerIsReadAndItsNoLimitValueIgnored) {
  write("cgroup", "7:cpu,cpuacct:/docker/abc\n5:memory:/docker/abc\n");
  write("sys/memory/docker/abc/memory.limit_in_bytes", "2000000000\n");
  write("sys/memory/docker/abc/memory.usage_in_bytes", "500000000\n");
  write("sys/memory/docker/memory.limit_in_bytes", "9223372036854771712\n");  // v1's "no limit"
  const auto limit = cgroup_memory_limit(sources());
  ASSERT_TRUE(limit.has_value());
  EXPECT_DOUBLE_EQ(limit->bytes, 1.5e9);
}

TEST_F(CgroupFiles, NoGroupOrNoLimitLeavesTheMachinesMemory) {
  write("cgroup", "0::/user.slice\n");
  write("sys/user.slice/memory.max", "max\n");
  EXPECT_FALSE(cgroup_memory_limit(sources()).has_value());
  const MemoryLimit m = machine_memory_limit(sources());
  EXPECT_GT(m.bytes, 0);
}

TEST(MemoryLimit, AnAddressSpaceLimitRefusesARunThatCannotFitBeforeItStarts) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: it cannot start under ulimit -v";
#else
  const fs::path dir = fs::temp_directory_path() / ("rocesim_ulimit_" + std::to_string(getpid()));
  fs::create_directories(dir);
  // 10^6 incast flows: about 2 GB by the estimate, with no ROCESIM_MEMORY_LIMIT to go by.
  std::ofstream(dir / "big.yaml") << "stop: 1000s\ntopology: {type: star, hosts: 4}\n"
                                     "workload: [{type: incast, receiver: 0, senders: 2, size: 1KB, repeat: 500000, "
                                     "interval: 1ms}]\n";
  const test::ShellResult r = test::shell("unset ROCESIM_MEMORY_LIMIT; ulimit -v 600000; " +
                                          std::string(ROCESIM_BINARY) + " validate " + (dir / "big.yaml").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("ulimit -v"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("big.yaml:3: workload.0"), std::string::npos) << r.out;
  fs::remove_all(dir);
#endif
}

}  // namespace
}  // namespace rocesim
