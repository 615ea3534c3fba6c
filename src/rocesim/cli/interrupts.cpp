#include "rocesim/cli/interrupts.hpp"

#include <fmt/format.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "rocesim/sweep/runner.hpp"

namespace rocesim::cli {
namespace {

std::atomic<int> g_interrupts{0};
std::atomic<int> g_signal{0};
std::atomic<bool> g_graceful{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "used from a signal handler");

extern "C" void on_interrupt(int sig) {
  g_signal.store(sig);
  if (g_interrupts.fetch_add(1) >= 1 || !g_graceful.load()) {
    static const char kMsg[] = "\nrocesim: interrupted\n";
    [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
    _exit(128 + sig);
  }
}

}  // namespace

GracefulPhase::GracefulPhase() { g_graceful.store(true); }
GracefulPhase::~GracefulPhase() { g_graceful.store(false); }

bool interrupted() { return g_interrupts.load() > 0; }

int interrupted_status() { return 128 + g_signal.load(); }

void end_with_sweep() {
  const char* parent = std::getenv(kSweepParentEnv);
  if (parent == nullptr) {
    return;
  }
  const long pid = std::strtol(parent, nullptr, 10);
  unsetenv(kSweepParentEnv);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (pid > 0 && getppid() != static_cast<pid_t>(pid)) {
    fmt::print(stderr, "rocesim: the sweep that started this run (pid {}) has ended\n", pid);
    _exit(1);
  }
}

void catch_interrupts() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) {
      sigaction(sig, &sa, nullptr);
    }
  }
}

InterruptsHeld::InterruptsHeld() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_BLOCK, &set, &old_);
}
InterruptsHeld::~InterruptsHeld() { sigprocmask(SIG_SETMASK, &old_, nullptr); }

}  // namespace rocesim::cli
