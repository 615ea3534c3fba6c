#include "rocesim/switch/watchdog.hpp"

namespace rocesim {

const Schema<WatchdogParams>& WatchdogParams::schema() {
  static const Schema<WatchdogParams> s = [] {
    Schema<WatchdogParams> sc("watchdog", "PFC watchdog on every lossless egress queue (SONiC pfcwd)");
    sc.add(&WatchdogParams::enabled, "enabled", "false", "turn the watchdog on")
        .add(&WatchdogParams::detect, "detect", "200ms",
             "a queue paused this long with pause frames still arriving enters storm mode (SONiC default "
             "detection_time)",
             at_least(Time::ps(1)))
        .add(&WatchdogParams::restore, "restore", "200ms",
             "storm mode ends once no pause frame arrived for this long (SONiC default restoration_time)",
             at_least(Time::ps(1)))
        .add(&WatchdogParams::poll, "poll", "200ms", "how often the watchdog looks (SONiC default polling interval)",
             at_least(Time::ps(1)))
        .add(&WatchdogParams::action, "action", "drop",
             "in storm mode: drop the queue's packets, forward them ignoring pauses, or alert only (SONiC actions)",
             one_of({"drop", "forward", "alert"}))
        .validate([](const WatchdogParams& p) -> std::optional<std::pair<std::string, std::string>> {
          if (p.detect < p.poll) {
            return std::make_pair("detect", "detect (" + to_string(p.detect) + ") is shorter than poll (" +
                                                to_string(p.poll) + "): a storm is seen at polls only");
          }
          return std::nullopt;
        });
    return sc;
  }();
  return s;
}

PfcWatchdog::PfcWatchdog(const WatchdogParams& p, uint8_t lossless, size_t ports)
    : p_(p),
      action_(p.action == "forward" ? Action::kForward
              : p.action == "alert" ? Action::kAlert
                                    : Action::kDrop),
      lossless_(lossless),
      queues_(ports * 8) {}

std::vector<PfcWatchdog::Change> PfcWatchdog::poll(Time now, const std::vector<PauseState>& pauses) {
  std::vector<Change> out;
  for (uint16_t port = 0; port < pauses.size(); ++port) {
    const PauseState& ps = pauses[port];
    for (uint8_t m = lossless_; m; m &= static_cast<uint8_t>(m - 1)) {
      const int c = __builtin_ctz(m);
      QueueState& s = q(port, c);
      const bool paused = ps.paused(c, now);
      const bool new_pauses = ps.xoff_rcvd[c] > s.xoff_seen;
      if (s.storm < 0) {
        if (paused && s.paused && new_pauses) {
          if (s.storming_since < Time()) {
            s.storming_since = last_poll_;
          }
          if (now - s.storming_since >= p_.detect) {
            s.storm = static_cast<int>(storms_.size());
            s.last_pause = now;
            storms_.push_back({port, c, now});
            out.push_back({port, c, true});
          }
        } else {
          s.storming_since = Time::ps(-1);
        }
      } else {
        if (new_pauses) {
          s.last_pause = now;
        } else if (now - s.last_pause >= p_.restore) {
          storms_[static_cast<size_t>(s.storm)].end = now;
          s.storm = -1;
          s.storming_since = Time::ps(-1);
          out.push_back({port, c, false});
        }
      }
      s.xoff_seen = ps.xoff_rcvd[c];
      s.paused = paused;
    }
  }
  last_poll_ = now;
  return out;
}

}  // namespace rocesim
