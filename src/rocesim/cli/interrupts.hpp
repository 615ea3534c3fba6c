// Interrupts (SIGINT, SIGTERM). In a phase that stops gracefully (a run's event loop, a sweep waiting for its
// runs) the first one ends that phase where it is, and the results so far are written, marked partial; anywhere
// else (loading, generating flows, check, validate, topology) it ends the program at once, as the second always
// does. Writing results holds interrupts until the files are in place. Signals reach the process, not a
// simulation, so this is the program's one process-wide state; the library never sees it.
#pragma once

#include <signal.h>

namespace rocesim::cli {

// Installs the handler (a signal the parent made the process ignore stays ignored).
void catch_interrupts();
// Whether an interrupt has come (a graceful phase polls this).
bool interrupted();
// The exit status of a command whose phase an interrupt ended: 128 + the signal, as a shell reports it.
int interrupted_status();
// A run a sweep started ends when the sweep does, however it ends (PR_SET_PDEATHSIG); if the sweep is gone
// already, at once.
void end_with_sweep();

// While alive, the first interrupt is the phase's to act on (it polls interrupted()).
class GracefulPhase {
 public:
  GracefulPhase();
  ~GracefulPhase();
  GracefulPhase(const GracefulPhase&) = delete;
  GracefulPhase& operator=(const GracefulPhase&) = delete;
};

// While result files are being moved into place an interrupt waits (and then, if it is the second, exits): no
// half-renamed folder, no temporary file left behind.
class InterruptsHeld {
 public:
  InterruptsHeld();
  ~InterruptsHeld();
  InterruptsHeld(const InterruptsHeld&) = delete;
  InterruptsHeld& operator=(const InterruptsHeld&) = delete;

 private:
  sigset_t old_;
};

}  // namespace rocesim::cli
