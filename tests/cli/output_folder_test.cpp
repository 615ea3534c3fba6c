// The output folder as a careless or hostile user treats it: output names that leave it or replace results,
// results that would replace inputs, paths that are not files, folders in use, runs cut short.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "../test_util.hpp"

namespace {

namespace fs = std::filesystem;
using Result = rocesim::test::ShellResult;
using rocesim::test::slurp;

Result sh(const std::string& args) { return rocesim::test::shell(std::string(ROCESIM_BINARY) + " " + args); }

class OutputFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocesim_out_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "a" / "b");
    std::ofstream(scenario()) << kScenario;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string scenario() const { return (dir_ / "a" / "b" / "s.yaml").string(); }
  fs::path out() const { return dir_ / "a" / "b" / "out"; }
  static constexpr const char* kScenario =
      "seed: 1\nstop: 1ms\ntopology: {type: star, hosts: 3}\n"
      "workload: [{type: incast, receiver: 0, senders: 2, size: 20KB}]\n";
  fs::path dir_;
};

TEST_F(OutputFolder, AnOutputNameThatLeavesTheFolderIsRefusedAtLoad) {
  // It used to overwrite the file two levels above the output folder.
  std::ofstream(dir_ / "victim.txt") << "precious\n";
  for (const char* key : {"output.hpcc.fct", "output.hpcc.pfc", "output.hpcc.qlen", "capture.file"}) {
    const std::string capture = std::string(key) == "capture.file" ? " --set capture.hosts=[1]" : "";
    const Result r =
        sh("run " + scenario() + " -q -o " + out().string() + capture + " --set " + key + "=../../../victim.txt");
    EXPECT_EQ(r.status, 2) << key << r.out;
    EXPECT_NE(r.out.find(key), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("without '/'"), std::string::npos) << r.out;
  }
  EXPECT_EQ(slurp(dir_ / "victim.txt"), "precious\n");
  EXPECT_FALSE(fs::exists(out()));
  // Not a name at all, or one too long for its temporary: refused by validate too.
  for (const std::string& bad : {std::string("."), std::string(".."), std::string(300, 'x')}) {
    EXPECT_EQ(sh("validate " + scenario() + " --set output.hpcc.fct=" + bad).status, 2) << bad;
  }
}

TEST_F(OutputFolder, AnOutputNamedAsAnotherResultOrTwoOutputsOfOneNameAreRefused) {
  // capture.file: flows.csv used to run the whole simulation and then fail renaming, results corrupted.
  Result r = sh("validate " + scenario() + " --set capture.hosts=[1] --set capture.file=flows.csv");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("capture.file: 'flows.csv' is a result rocesim writes"), std::string::npos) << r.out;
  r = sh("validate " + scenario() + " --set output.hpcc.fct=x.txt --set output.hpcc.qlen=x.txt");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("output.hpcc.qlen: the same file name as output.hpcc.fct"), std::string::npos) << r.out;
  // A capture under its own default name is the capture.
  EXPECT_EQ(sh("validate " + scenario() + " --set capture.hosts=[1] --set capture.file=capture.pcap").status, 0);
}

TEST_F(OutputFolder, AResultThatWouldReplaceAnInputIsRefusedBeforeTheRun) {
  // A flows workload reading flows.csv, run with -o its own folder: the results used to replace the flow list.
  const fs::path here = dir_ / "a" / "b";
  std::ofstream(here / "flows.csv") << "src,dst,size,start,priority,operation\n1,0,10KB,0us,3,write\n";
  std::ofstream(here / "f.yaml") << "stop: 1ms\ntopology: {type: star, hosts: 2}\nworkload: [{type: flows}]\n";
  const std::string before = slurp(here / "flows.csv");
  Result r = sh("run " + (here / "f.yaml").string() + " -q -o " + here.string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("an input of the run, and the output flows.csv"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(here / "flows.csv"), before);
  EXPECT_FALSE(fs::exists(here / "summary.json"));
  // The scenario itself, as an HPCC-style output name.
  r = sh("run " + scenario() + " -q -o " + here.string() + " --set output.hpcc.fct=s.yaml");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(slurp(scenario()), kScenario);
}

TEST_F(OutputFolder, CommandsThatWriteOneFileNeverReplaceTheirOwnInput) {
  std::ofstream(scenario()) << kScenario;
  const fs::path nic = dir_ / "nic.qos";
  std::ofstream(nic) << "rpg_ai_rate 5\n";
  const fs::path hpcc = fs::path(ROCESIM_SOURCE_DIR) / "tests" / "io" / "fixtures" / "hpcc-ns3-incast";
  fs::copy(hpcc, dir_ / "hpcc");
  const std::string config = slurp(dir_ / "hpcc" / "config.txt");
  for (const std::string& cmd :
       {"flows " + scenario() + " -o " + scenario(), "topology " + scenario() + " --ports-csv " + scenario(),
        "import mlnx-qos " + nic.string() + " -o " + nic.string(),
        "import mlnx-qos " + nic.string() + " -o " + (dir_ / "not-yet" / ".." / "nic.qos").string(),
        "import hpcc " + (dir_ / "hpcc" / "config.txt").string() + " -o " + (dir_ / "hpcc" / "config.txt").string()}) {
    const Result r = sh(cmd);
    EXPECT_EQ(r.status, 2) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find("is an input of this command"), std::string::npos) << cmd << "\n" << r.out;
  }
  EXPECT_EQ(slurp(scenario()), kScenario);
  EXPECT_EQ(slurp(nic), "rpg_ai_rate 5\n");
  EXPECT_EQ(slurp(dir_ / "hpcc" / "config.txt"), config);
}

TEST_F(OutputFolder, AResultPathThatIsNotARegularFileIsRefusedAndALinkIsWrittenThrough) {
  // A folder named summary.json: refused before the run (it used to run, then lose the results).
  fs::create_directories(out() / "summary.json");
  Result r = sh("run " + scenario() + " -q -o " + out().string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("is a folder, not a regular file"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out() / "flows.csv"));
  fs::remove_all(out());
  // A FIFO as report -o: refused, left a FIFO.
  const fs::path run = dir_ / "run";
  ASSERT_EQ(sh("run " + scenario() + " -q -o " + run.string()).status, 0);
  ASSERT_EQ(mkfifo((dir_ / "fifo").c_str(), 0644), 0);
  r = sh("report " + run.string() + " -o " + (dir_ / "fifo").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo"));
  // A device.
  r = sh("report " + run.string() + " -o /dev/null");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("is a device"), std::string::npos) << r.out;
  // A symbolic link: its target gets the page, the link stays a link.
  std::ofstream(dir_ / "target.html") << "old";
  fs::create_symlink(dir_ / "target.html", dir_ / "link.html");
  r = sh("report " + run.string() + " -o " + (dir_ / "link.html").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.html"));
  EXPECT_NE(slurp(dir_ / "target.html").find("<html"), std::string::npos);
}

TEST_F(OutputFolder, AnUnusableOutputFolderIsFoundBeforeTheRun) {
  std::ofstream(dir_ / "file") << "x";
  for (const std::string& o : {(dir_ / "file").string(), (dir_ / "file" / "sub").string(), std::string("''")}) {
    const Result r = sh("run " + scenario() + " -q -o " + o);
    EXPECT_EQ(r.status, 2) << o << r.out;
  }
  EXPECT_FALSE(fs::exists("/summary.json"));
}

TEST_F(OutputFolder, ASecondRunIntoAFolderInUseIsRefusedNamingThePid) {
  std::ofstream(scenario()) << "stop: 10s\ntopology: {type: star, hosts: 2}\n"
                               "workload: [{type: incast, receiver: 0, senders: 1, size: 100GB}]\n";
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(ROCESIM_BINARY, "rocesim", "run", scenario().c_str(), "-q", "-o", out().c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 200 && !fs::exists(out() / ".rocesim.lock"); ++i) {
    usleep(20'000);
  }
  usleep(200'000);
  const Result r = sh("run " + scenario() + " -q -o " + out().string());
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("in use by another rocesim (pid " + std::to_string(pid) + ")"), std::string::npos) << r.out;
  // Once it is gone the folder is free again; the temporaries a killed run left are not results and go.
  std::ofstream(out() / (".flows.csv." + std::to_string(pid) + ".tmp")) << "half";
  std::ofstream(scenario()) << kScenario;
  ASSERT_EQ(sh("run " + scenario() + " -q -o " + out().string()).status, 0);
  EXPECT_FALSE(fs::exists(out() / (".flows.csv." + std::to_string(pid) + ".tmp")));
}

TEST_F(OutputFolder, AnInterruptOutsideTheEventLoopEndsTheProgramAtOnce) {
  // A large scenario to build (841,319 flows: seconds of flow generation): one SIGTERM while it loads ends it.
  std::ofstream(scenario()) << "stop: 1s\ntopology: {type: leaf-spine, leaves: 8, spines: 8, servers_per_leaf: 16}\n"
                               "workload: [{type: poisson, cdf: websearch, load: 0.9}]\n";
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(ROCESIM_BINARY, "rocesim", "validate", scenario().c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Once it catches the signal (a sanitized build takes a while to start), it is loading the scenario.
  ASSERT_TRUE(rocesim::test::wait_until_catching(pid, SIGTERM));
  usleep(300'000);
  kill(pid, SIGTERM);
  int st = 0;
  waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st));
  // It used to ignore the signal until the phase ended (and then report the file valid).
  EXPECT_EQ(WEXITSTATUS(st), 128 + SIGTERM);
}

TEST_F(OutputFolder, AFifoAsTheScenarioFileIsRefusedAtOnce) {
  // Reading it would wait for a writer forever; `timeout` bounds the test if it ever does (status 124).
  ASSERT_EQ(mkfifo((dir_ / "s.fifo").c_str(), 0644), 0);
  for (const std::string& cmd : {std::string("validate"), "run -q -o " + out().string()}) {
    const Result r = rocesim::test::shell("timeout 60 " + std::string(ROCESIM_BINARY) + " " + cmd + " " +
                                          (dir_ / "s.fifo").string());
    EXPECT_EQ(r.status, 2) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find("is a FIFO or socket, not a file"), std::string::npos) << cmd << "\n" << r.out;
  }
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(OutputFolder, AFailedHpccImportRemovesTheFoldersItMadeForItsOutput) {
  const fs::path hpcc = fs::path(ROCESIM_SOURCE_DIR) / "tests" / "io" / "fixtures" / "hpcc-ns3-incast";
  fs::copy(hpcc, dir_ / "hpcc");
  const std::string config = slurp(dir_ / "hpcc" / "config.txt");
  // A value that is not a number fails the import; a link too slow in the topology fails the check of what it
  // wrote (its paths resolve only once the folder exists).
  std::ofstream(dir_ / "hpcc" / "slow-topo.txt") << "3 1 2\n2\n0 2 1bps 1us 0\n1 2 100Gbps 1us 0\n";
  const auto with = [&](const std::string& key, const std::string& line) {
    std::string text = config;
    const size_t at = text.find(key + " ");
    EXPECT_NE(at, std::string::npos) << key;
    return text.replace(at, text.find('\n', at) - at, line);
  };
  std::ofstream(dir_ / "hpcc" / "bad-value.txt") << with("BUFFER_SIZE", "BUFFER_SIZE lots");
  std::ofstream(dir_ / "hpcc" / "slow-link.txt") << with("TOPOLOGY_FILE", "TOPOLOGY_FILE slow-topo.txt");
  for (const char* bad : {"bad-value.txt", "slow-link.txt"}) {
    const fs::path output = dir_ / "a" / "b" / "new" / "deeper" / "scenario.yaml";
    const Result r = sh("import hpcc " + (dir_ / "hpcc" / bad).string() + " -o " + output.string());
    EXPECT_EQ(r.status, 2) << bad << "\n" << r.out;
    EXPECT_NE(r.out.find(std::string(bad) == "bad-value.txt" ? "BUFFER_SIZE: expected a number" : "rate 1bps"),
              std::string::npos)
        << r.out;
    EXPECT_FALSE(fs::exists(dir_ / "a" / "b" / "new")) << bad;
    EXPECT_TRUE(fs::is_directory(dir_ / "a" / "b")) << bad;  // there before: not the import's to remove
  }
}

TEST_F(OutputFolder, AFullDiskWhileWritingResultsFailsWithStatusOneAndLeavesNoTemporary) {
  // RLIMIT_FSIZE makes every write past 64 KiB fail with EFBIG (SIGXFSZ ignored), as a full disk fails it.
  const pid_t pid = fork();
  if (pid == 0) {
    const rlimit limit{64 * 1024, 64 * 1024};
    setrlimit(RLIMIT_FSIZE, &limit);
    signal(SIGXFSZ, SIG_IGN);
    const int err = open((dir_ / "stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(err, 1);
    dup2(err, 2);
    execl(ROCESIM_BINARY, "rocesim", "run", scenario().c_str(), "-q", "-o", out().c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 1) << slurp(dir_ / "stderr.txt");
  EXPECT_NE(slurp(dir_ / "stderr.txt").find("rocesim: failed: cannot write"), std::string::npos)
      << slurp(dir_ / "stderr.txt");
  ASSERT_TRUE(fs::is_directory(out()));
  for (const auto& e : fs::directory_iterator(out())) {
    EXPECT_FALSE(e.path().filename().string().ends_with(".tmp")) << e.path();
  }
  // Nothing half written counts as a result: no summary of a run whose results did not all land.
  EXPECT_FALSE(fs::exists(out() / "summary.json"));
}

}  // namespace
