// rocesim: the command line. Exit status: 0 success, 2 bad input, 1 any other failure. Each command is a file of
// its own under cli/ (command.hpp).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <sstream>

#include "rocesim/cli/command.hpp"
#include "rocesim/cli/interrupts.hpp"
#include "rocesim/core/error.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/core/units.hpp"

#if defined(ROCESIM_JEMALLOC)
// jemalloc's compile-time options (read once, when it starts): transparent huge pages for all memory, its own
// bookkeeping included. With the kernel's default "madvise" mode, jemalloc asks for them with MADV_HUGEPAGE.
extern "C" {
[[gnu::used]] const char* malloc_conf = "thp:always,metadata_thp:always";  // NOLINT: jemalloc's name
}
#endif

using namespace rocesim;

int main(int argc, char** argv) {
  CLI::App app{"rocesim: a packet-level simulator of RoCEv2 cluster networks"};
  app.set_version_flag("--version", std::string("rocesim ") + ROCESIM_VERSION);
  app.require_subcommand(1);
  cli::Action action;
  for (auto add :
       {cli::add_run, cli::add_import, cli::add_validate, cli::add_check, cli::add_flows, cli::add_topology,
        cli::add_plot, cli::add_nccl_tests, cli::add_sweep, cli::add_report, cli::add_compare, cli::add_params}) {
    add(app, action);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostringstream err;  // the parser quotes the command line: shown escaped
    const int rc = app.exit(e, std::cout, err);
    fmt::print(stderr, "{}", printable(err.str()));
    return rc == 0 ? 0 : 2;
  }
  cli::end_with_sweep();
  cli::catch_interrupts();
  try {
    return action ? action() : 0;
  } catch (const InputError& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  } catch (const UnitError& e) {  // a value no key's check caught: still the input's fault
    fmt::print(stderr, "rocesim: error: {}\n", printable(e.message));
    return 2;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "rocesim: failed: out of memory (set ROCESIM_MEMORY_LIMIT, or make the scenario smaller)\n");
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "rocesim: failed: {}\n", printable(e.what()));
    return 1;
  } catch (...) {
    fmt::print(stderr, "rocesim: failed: an unknown error\n");
    return 1;
  }
  return 0;
}
