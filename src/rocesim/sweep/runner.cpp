#include "rocesim/sweep/runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string_view>

extern char** environ;

namespace rocesim {

namespace {

// Starts `argv` with stdout and stderr appended to `log`; returns the pid, or -1.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  // A process group of its own: a terminal's Ctrl-C reaches the sweep alone, which passes one interrupt on to
  // each run (see run_pool), so that a run never gets the second interrupt that would stop it unwritten.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  // The run learns its sweep's pid, so that it ends when the sweep does (even by kill -9): a restarted sweep
  // never runs beside the runs of the one it replaces.
  const std::string parent = std::string(kSweepParentEnv) + "=" + std::to_string(getpid());
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string_view(*e).rfind(std::string(kSweepParentEnv) + "=", 0) != 0) {
      env.push_back(*e);
    }
  }
  env.push_back(const_cast<char*>(parent.c_str()));
  env.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &fa, &attr, args.data(), env.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  return rc == 0 ? pid : -1;
}

int exit_status(int st) {
  if (WIFEXITED(st)) {
    return WEXITSTATUS(st);
  }
  return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

}  // namespace

std::map<std::string, int> run_pool(const std::vector<SweepRun>& runs, const std::vector<size_t>& todo,
                                    const std::string& log_dir, int jobs, const std::function<bool()>& stop,
                                    const std::function<void(const PoolStatus&)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  std::map<std::string, int> codes;
  std::map<pid_t, std::string> running;
  PoolStatus st;
  st.total = todo.size();
  const auto report = [&] {
    st.running = running.size();
    st.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (progress) {
      progress(st);
    }
  };
  const auto finished = [&](const std::string& name, int code) {
    codes[name] = code;
    ++st.done;
    st.failed += code != 0;
  };
  size_t next = 0;
  bool passed_on = false;  // the interrupt was passed on to the running runs
  const auto pass_on = [&] {
    if (!passed_on && stop()) {
      passed_on = true;
      for (const auto& [pid, name] : running) {
        kill(pid, SIGTERM);  // each writes its results so far, marked partial
      }
    }
  };
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && static_cast<int>(running.size()) < jobs && !stop()) {
      const SweepRun& r = runs[todo[next++]];
      const pid_t pid = spawn(r.argv, log_dir + "/" + r.name + ".log");
      if (pid < 0) {
        finished(r.name, 127);
      } else {
        running[pid] = r.name;
      }
      report();
    }
    if (running.empty()) {
      break;  // stopped, or nothing could start
    }
    pass_on();
    int wst = 0;
    const pid_t pid = waitpid(-1, &wst, 0);
    if (pid < 0) {
      if (errno == EINTR) {
        continue;  // an interrupt: stop() now says whether to start more
      }
      break;
    }
    const auto it = running.find(pid);
    if (it == running.end()) {
      continue;
    }
    finished(it->second, exit_status(wst));
    running.erase(it);
    report();
  }
  return codes;
}

}  // namespace rocesim
