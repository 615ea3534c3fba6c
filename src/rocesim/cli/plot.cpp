#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "rocesim/cli/command.hpp"

namespace rocesim::cli {
namespace {

// Where plot.py is: installed beside the program (PREFIX/share/rocesim), else in the source tree it was built from.
std::filesystem::path plot_script() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path().parent_path() / "share" / "rocesim" / "plot.py";
    if (std::filesystem::exists(installed)) {
      return installed;
    }
  }
  return std::filesystem::path(ROCESIM_TOOLS_DIR) / "plot.py";
}

// `rocesim plot DIR...`: runs plot.py with the arguments (its exit status is this command's).
int cmd_plot(const std::vector<std::string>& args) {
  const std::string script = plot_script().string();
  std::vector<char*> argv{const_cast<char*>("/usr/bin/python3"), const_cast<char*>(script.c_str())};
  for (const std::string& a : args) {
    argv.push_back(const_cast<char*>(a.c_str()));
  }
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  fmt::print(stderr, "rocesim: failed: cannot run /usr/bin/python3 {}: {}\n", script, std::strerror(errno));
  return 1;
}

}  // namespace

void add_plot(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "plot", "draw result folders as PNGs: rocesim plot DIR [DIR ...] [-o OUT] (tools/plot.py; --help lists them)");
  cmd->prefix_command();  // every argument goes to plot.py
  cmd->set_help_flag();   // plot.py answers --help
  cmd->callback([cmd, &action] { action = [args = cmd->remaining()] { return cmd_plot(args); }; });
}

}  // namespace rocesim::cli
